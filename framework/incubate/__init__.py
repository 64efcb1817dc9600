"""``framework.incubate`` (Paddle's ``paddle.incubate``): APIs that are still
settling. ``incubate.autograd`` holds the functional derivatives (vjp, jvp,
Jacobian, Hessian)."""
from . import autograd

__all__ = ['autograd']
