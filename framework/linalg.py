"""``framework.linalg`` (Paddle's ``paddle.linalg``): norms built from registered ops,
so they differentiate (to any order) and work in static mode too."""
import math as _math

from .ops import math as _m
from .ops import reduce as _r

__all__ = ['norm']


def norm(x, p='fro', axis=None, keepdim=False, name=None):
    """Vector/Frobenius norms: ``p`` in 'fro', 2, 1, inf, -inf, 0 or any positive
    number; ``axis`` None (all elements), an int or a pair of ints."""
    if isinstance(axis, (list, tuple)) and len(axis) == 1:
        axis = axis[0]
    if p in ('fro', 2, 2.0):
        return _m.sqrt(_r.sum(x * x, axis=axis, keepdim=keepdim))
    if p == 1:
        return _r.sum(_m.abs(x), axis=axis, keepdim=keepdim)
    if p == _math.inf:
        return _r.max(_m.abs(x), axis=axis, keepdim=keepdim)
    if p == -_math.inf:
        return _r.min(_m.abs(x), axis=axis, keepdim=keepdim)
    if p == 0:
        from .ops.manipulation import cast
        return _r.sum(cast(_m.not_equal(x, 0.0), x.dtype), axis=axis, keepdim=keepdim)
    if isinstance(p, (int, float)) and p > 0:
        return _r.sum(_m.abs(x) ** float(p), axis=axis, keepdim=keepdim) ** (1.0 / p)
    raise ValueError("norm: unsupported p=%r (use 'fro', a positive number, inf, -inf or 0)"
                     % (p,))
