"""Eager (dygraph) mode: Tensor, the tracer and tape autograd."""
from ..ops import registry, tensor_methods
from . import inplace
from .autograd import backward, grad
from .state import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .tensor import Parameter, Tensor
from .tracer import apply_op


def _make_tensor(data, dtype, stop_gradient):
    return Tensor(data, dtype=dtype, stop_gradient=stop_gradient)


def install_methods():
    """(Re)attach the shared method table; called once all ops are imported."""
    tensor_methods.install(Tensor, skip=('__hash__',))
    inplace.install(Tensor)


registry.mode.make_tensor = _make_tensor
