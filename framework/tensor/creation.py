"""Tensor creation functions (``paddle.tensor.creation``)."""
from ..ops.creation import (arange, diag, empty, empty_like, eye, full, full_like,  # noqa: F401
                            linspace, meshgrid, ones, ones_like, to_tensor, tril, triu, zeros,
                            zeros_like)
from ..ops.manipulation import assign, clone  # noqa: F401
from ..ops.modes import is_static_var


def fill_constant(shape, dtype, value, force_cpu=False, out=None, name=None):
    """A tensor of ``shape`` filled with ``value`` (Paddle 1.x's name for ``full``);
    with ``out`` the result is also assigned into that tensor."""
    result = full(shape, value, dtype)
    if out is not None:
        assign(result, out)
        return out
    return result


def create_tensor(dtype, name=None, persistable=False):
    """Paddle's ``paddle.tensor.create_tensor``: a 0-d tensor of ``dtype`` to be
    filled later (``paddle.assign(x, output=t)``); zeros here, where Paddle's
    holds no values yet."""
    t = zeros([], dtype)
    if name is not None and not is_static_var(t):
        t.name = name
    if persistable and not is_static_var(t):
        t.persistable = True
    return t


__all__ = ['arange', 'diag', 'empty', 'empty_like', 'eye', 'full', 'full_like', 'linspace',
           'meshgrid', 'ones', 'ones_like', 'to_tensor', 'tril', 'triu', 'zeros', 'zeros_like',
           'assign', 'clone', 'fill_constant', 'create_tensor']
