"""Eager (dygraph) mode: Tensor, the tracer and tape autograd."""
from ..ops import modes, tensor_methods
from . import inplace
from .autograd import backward
from .state import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .tensor import Parameter, Tensor
from .tracer import apply_op, make_eager


def _make_tensor(data, dtype, stop_gradient):
    return Tensor(data, dtype=dtype, stop_gradient=stop_gradient)


def install_methods():
    """(Re)attach the shared method table; called once all ops are imported."""
    tensor_methods.install(Tensor, skip=('__hash__',))
    inplace.install(Tensor)


modes.install(tensor_type=Tensor, make_tensor=_make_tensor, make_eager=make_eager)
