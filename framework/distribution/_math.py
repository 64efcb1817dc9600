"""Small compositions of registered ops that the distributions share.

Each works on eager Tensors and static Variables alike and differentiates,
because it is built only from registered ops. Where a branch is chosen with
``where``, each side gets an input clipped to its own range, so the side not
taken never produces inf/nan whose zero gradient would turn into nan.
"""
import numpy as np

from ..ops import math as _m
from ..ops import meta as _meta
from ..ops import reduce as _r
from ..ops.creation import eye, full_like
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


def count_range(size, dtype):
    """0, 1, ..., size - 1 as floats, where ``size`` is a 0-d int tensor whose
    value may be known only when a static program runs."""
    from ..ops.creation import dynamic_full_op
    ones = dynamic_full_op(reshape(size, [1]), (-1,), 1.0, str(np.dtype(dtype)))
    return _m.cumsum(ones, axis=0) - 1.0


def sample_base(sample_shape, *params):
    """Zeros of shape sample_shape + (the parameters' broadcast shape), to
    broadcast parameters against when drawing (works with run-time dims)."""
    from ..ops.manipulation import expand
    zero = None
    for p in params:
        z = 0.0 * p
        zero = z if zero is None else zero + z
    return expand(zero, list(sample_shape) + [-1] * len(zero.shape))


def sum_rightmost(value, n):
    """Sum over the last ``n`` dims (n = 0: unchanged)."""
    return _r.sum(value, axis=list(range(-n, 0))) if n > 0 else value


def broadcast_shape(a, b):
    return tuple(_meta.broadcast_shapes(tuple(a), tuple(b)))


def broadcast_all(tensors):
    """The tensors broadcast to their common shape. A dim known only when a
    static program runs is broadcast by adding zeros of the others (expand
    cannot tell whether such a dim of size 1 grows)."""
    from ..ops.manipulation import broadcast_tensors
    shape = ()
    for x in tensors:
        shape = broadcast_shape(shape, x.shape)
    if all(d >= 0 for d in shape):
        return list(broadcast_tensors(list(tensors)))
    zero = None
    for x in tensors:
        z = 0.0 * x
        zero = z if zero is None else zero + z
    return [x + cast(zero, x.dtype) for x in tensors]


def eps_of(dtype):
    return float(np.finfo(np.dtype(dtype)).eps)


def tiny_of(dtype):
    return float(np.finfo(np.dtype(dtype)).tiny)


def as_dtype(x, dtype):
    return x if np.dtype(x.dtype) == np.dtype(dtype) else cast(x, dtype)

