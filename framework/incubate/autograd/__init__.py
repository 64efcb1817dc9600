"""``framework.incubate.autograd`` (Paddle's ``paddle.incubate.autograd``):
functional higher-order differentiation in eager and static mode."""
from .functional import Hessian, Jacobian, forward_grad, grad, jvp, vjp
from .primitive import disable_prim, enable_prim, prim2orig, prim_enabled  # noqa: F401

__all__ = ['vjp', 'jvp', 'Jacobian', 'Hessian', 'enable_prim', 'disable_prim', 'forward_grad',
           'grad']
