"""Helpers shared by the parameter utilities."""
from ...dygraph.tensor import Tensor


def _param_list(parameters, api):
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError("%s: parameters must be a Tensor or an iterable of Tensors, got %r"
                        % (api, parameters)) from None
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError("%s: parameters must be Tensors, got %r" % (api, type(p).__name__))
    return params


def _replace_grad(grad, arr):
    """Overwrite a gradient's values in place (same tensor object, new array)."""
    grad.data = arr.astype(grad.data.dtype, copy=False)
    grad._version += 1
