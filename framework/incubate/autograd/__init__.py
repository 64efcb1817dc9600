"""``framework.incubate.autograd`` (Paddle's ``paddle.incubate.autograd``):
functional higher-order differentiation in eager and static mode."""
from .functional import Hessian, Jacobian, forward_grad, grad, jvp, vjp

__all__ = ['vjp', 'jvp', 'Jacobian', 'Hessian', 'grad', 'forward_grad']
