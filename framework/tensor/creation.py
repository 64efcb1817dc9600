"""Tensor creation functions (``paddle.tensor.creation``)."""
from ..ops.creation import (arange, diag, empty, empty_like, eye, full, full_like,  # noqa: F401
                            linspace, meshgrid, ones, ones_like, to_tensor, tril, triu, zeros,
                            zeros_like)
from ..ops.manipulation import assign, clone  # noqa: F401


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of ``shape`` filled with ``value`` (Paddle 1.x's name for ``full``);
    with ``out`` the result is also assigned into that tensor."""
    result = full(shape, value, dtype)
    if out is not None:
        assign(result, out)
        return out
    return result


__all__ = ['arange', 'diag', 'empty', 'empty_like', 'eye', 'full', 'full_like', 'linspace',
           'meshgrid', 'ones', 'ones_like', 'to_tensor', 'tril', 'triu', 'zeros', 'zeros_like',
           'assign', 'clone', 'fill_constant']
