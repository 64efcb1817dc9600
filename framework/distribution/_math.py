"""Small compositions of registered ops that the distributions share.

Each works on eager Tensors and static Variables alike and differentiates,
because it is built only from registered ops. Branches taken with ``where``
feed each side an input clipped to that side's range, so the side not taken
never produces inf/nan whose zero gradient would turn into nan.
"""
import numpy as np

from .. import ops as _ops  # noqa: F401  (registers every op)
from ..ops import math as _m
from ..ops import meta as _meta
from ..ops import reduce as _r
from ..ops.creation import eye, full_like, to_tensor
from ..ops.manipulation import cast, reshape, where


def expm1(x):
    """exp(x) - 1 without cancellation near 0: 2 exp(x/2) sinh(x/2), exact to
    a few ulps for |x| < 1; plain exp(x) - 1 beyond (no cancellation there)."""
    near = _m.minimum(_m.maximum(x, -1.0), 1.0)
    half = near * 0.5
    small = 2.0 * _m.exp(half) * _m.sinh(half)
    return where(_m.abs(x) < 1.0, small, _m.exp(x) - 1.0)


def atanh(y):
    """The inverse hyperbolic tangent, 0.5 (log1p(y) - log1p(-y))."""
    return 0.5 * (_m.log1p(y) - _m.log1p(-y))


def cumprod_positive(x, axis=-1):
    """Cumulative product of positive entries, exp(cumsum(log x))."""
    return _m.exp(_m.cumsum(_m.log(x), axis=axis))


def matrix_diagonal(m):
    """The diagonal of each matrix in the last two dims (shape [..., n])."""
    n = m.shape[-1]
    return _r.sum(m * eye(n, dtype=m.dtype), axis=-1)


def diag_embed(v):
    """Square matrices with ``v`` (shape [..., n]) on their diagonals."""
    n = v.shape[-1]
    return _unsqueeze_last(v) * eye(n, dtype=v.dtype)


def _unsqueeze_last(v):
    from ..ops.manipulation import unsqueeze
    return unsqueeze(v, -1)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (defaults: the
    dtype's largest and lowest finite values), as ``paddle.nan_to_num``."""
    info = np.finfo(np.dtype(x.dtype))
    hi = float(info.max) if posinf is None else float(posinf)
    lo = float(info.min) if neginf is None else float(neginf)
    x = where(_m.isnan(x), full_like(x, nan), x)
    x = where(x == np.inf, full_like(x, hi), x)
    return where(x == -np.inf, full_like(x, lo), x)


def sum_rightmost(value, n):
    """Sum over the last ``n`` dims (n = 0: unchanged)."""
    return _r.sum(value, axis=list(range(-n, 0))) if n > 0 else value


def broadcast_shape(a, b):
    return tuple(_meta.broadcast_shapes(tuple(a), tuple(b)))


def eps_of(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


def tiny_of(dtype):
    return float(np.finfo(np.dtype(dtype)).tiny)


def as_dtype(x, dtype):
    return x if np.dtype(x.dtype) == np.dtype(dtype) else cast(x, dtype)


def scalar_tensor(value, dtype):
    """A 0-d tensor holding ``value``."""
    return to_tensor(np.asarray(value, dtype=np.dtype(dtype)))


def flatten_to(x, shape):
    return reshape(x, list(shape))
