"""Elementwise math and reductions (``paddle.tensor.math``)."""
from ..ops.math import *  # noqa: F401,F403
from ..ops.math import __all__ as _math_names
from ..ops.reduce import (all, amax, amin, any, logsumexp, max, mean, min, prod,  # noqa: F401,A004
                          std, sum, var)
from ..ops.manipulation import reshape as _reshape
from ..ops.elementwise import frexp  # noqa: F401


def _broadcast_from_axis(x, y, axis):
    """``y`` reshaped so its dims line up with ``x``'s dims ``axis, axis+1, ...``
    (Paddle 1.x's elementwise ``axis`` argument)."""
    nx, ny = len(x.shape), len(y.shape)
    if axis == -1 or axis == nx - ny:
        return y
    if not 0 <= axis <= nx - ny:
        raise ValueError("elementwise op with axis=%d: y of shape %s does not fit x of shape %s "
                         "from that axis" % (axis, list(y.shape), list(x.shape)))
    return _reshape(y, [1] * axis + list(y.shape) + [1] * (nx - axis - ny))


def _add_with_axis(x, y, axis=-1, name=None):
    return add(x, _broadcast_from_axis(x, y, axis))  # noqa: F405


def _subtract_with_axis(x, y, axis=-1, name=None):
    return subtract(x, _broadcast_from_axis(x, y, axis))  # noqa: F405


def _multiply_with_axis(x, y, axis=-1, name=None):
    return multiply(x, _broadcast_from_axis(x, y, axis))  # noqa: F405


def _divide_with_axis(x, y, axis=-1, name=None):
    return divide(x, _broadcast_from_axis(x, y, axis))  # noqa: F405


__all__ = list(_math_names) + ['all', 'amax', 'amin', 'any', 'logsumexp', 'max', 'mean', 'min',
                               'prod', 'std', 'sum', 'var']
