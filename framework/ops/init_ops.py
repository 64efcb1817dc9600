"""Random ops used by parameter initializers beyond uniform/gaussian.

Both draw from ``framework.random.generator()`` only, so ``framework.seed(n)``
repeats them, and both are ordinary registered ops, so static mode can put
them into a startup program.
"""
import math
from statistics import NormalDist

import numpy as np

from .. import dtype as _dt
from .. import random as _random
from .creation import SHAPE_ATTR
from .registry import Meta, OpError, add_test_case, def_op


# ---- truncated normal -------------------------------------------------------

def _trunc_meta(shape=(), mean=0.0, std=1.0, a=-2.0, b=2.0, dtype='float32'):
    return Meta([int(s) if s is not None else -1 for s in shape], dtype)


def _normal_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


# Acklam's rational approximation of the standard normal quantile function:
# relative error below 1.2e-9 over (0, 1), vectorised (numpy has no erfinv).
_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
      1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
      6.680131188771972e+01, -1.328068155288572e+01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
      -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
      3.754408661907416e+00)


def _poly(coef, x):
    out = np.zeros_like(x)
    for c in coef:
        out = out * x + c
    return out


def normal_quantile(p):
    """Inverse standard normal CDF for an array of probabilities in (0, 1)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.empty_like(p)
    low = p < 0.02425
    high = p > 1 - 0.02425
    mid = ~(low | high)
    q = p[mid] - 0.5
    r = q * q
    out[mid] = q * _poly(_A, r) / (_poly(_B, r) * r + 1.0)
    ql = np.sqrt(-2.0 * np.log(p[low]))
    out[low] = _poly(_C, ql) / (_poly(_D, ql) * ql + 1.0)
    qh = np.sqrt(-2.0 * np.log1p(-p[high]))
    out[high] = -_poly(_C, qh) / (_poly(_D, qh) * qh + 1.0)
    return out


@def_op('truncated_gaussian_random', _trunc_meta, differentiable=False, effects=('random',),
        **SHAPE_ATTR, pattern='opaque')
def truncated_gaussian_random_op(shape=(), mean=0.0, std=1.0, a=-2.0, b=2.0, dtype='float32'):
    """Normal(mean, std) restricted to [a, b], by inverting the CDF of one
    uniform draw per element (exact for any interval, no rejection loop)."""
    za, zb = (a - mean) / std, (b - mean) / std
    # Sample the side of the distribution where the CDF keeps its precision:
    # an interval in the upper tail is mirrored to the lower tail.
    flip = za > 0
    if flip:
        za, zb = -zb, -za
    lo, hi = _normal_cdf(za), _normal_cdf(zb)
    u = _random.generator().uniform(lo, hi, size=tuple(shape))
    z = np.clip(normal_quantile(np.clip(u, np.nextafter(0, 1), 1 - 1e-16)), za, zb)
    if flip:
        z = -z
    return (mean + std * z).astype(dtype)


def truncated_gaussian_random(shape, mean=0.0, std=1.0, a=-2.0, b=2.0, dtype=None):
    """Samples of Normal(mean, std) truncated to the absolute bounds [a, b]."""
    if not std > 0:
        raise OpError("truncated_gaussian_random: std must be positive, got %r" % (std,))
    if not a < b:
        raise OpError("truncated_gaussian_random: need a < b, got a=%r, b=%r" % (a, b))
    dtype = str(_dt.convert_dtype(dtype)) if dtype is not None else str(_dt.default_float())
    return truncated_gaussian_random_op(tuple(int(s) for s in shape), float(mean), float(std),
                                        float(a), float(b), dtype)


# ---- orthogonal ---------------------------------------------------------------

def _orth_meta(shape=(), gain=1.0, dtype='float32'):
    return Meta([int(s) if s is not None else -1 for s in shape], dtype)


@def_op('orthogonal_random', _orth_meta, differentiable=False, effects=('random',),
        **SHAPE_ATTR, pattern='opaque')
def orthogonal_random_op(shape=(), gain=1.0, dtype='float32'):
    """``gain`` times a random (semi-)orthogonal matrix, reshaped to ``shape``:
    the Q factor of a Gaussian matrix, signs fixed so R has a positive diagonal
    (which makes Q Haar-distributed)."""
    rows = int(shape[0])
    cols = int(np.prod(shape[1:]))
    g = _random.generator().standard_normal((max(rows, cols), min(rows, cols)))
    q, r = np.linalg.qr(g)
    q = q * np.where(np.diag(r) < 0, -1.0, 1.0)
    if rows < cols:
        q = q.T
    return (gain * q).reshape(shape).astype(dtype)


def orthogonal_random(shape, gain=1.0, dtype=None):
    if len(shape) < 2:
        raise OpError("orthogonal_random: shape must have at least 2 dims, got %s"
                      % list(shape))
    dtype = str(_dt.convert_dtype(dtype)) if dtype is not None else str(_dt.default_float())
    return orthogonal_random_op(tuple(int(s) for s in shape), float(gain), dtype)


__all__ = []
TENSOR_METHODS = {}


# ---- test cases: replay the op's draws from a generator seeded as the test
# harness seeds it (op_check.run_op: seed 1234), then transform them with
# independent code (the stdlib's inverse normal CDF; Gram-Schmidt).

def _replay_generator():
    return np.random.default_rng(1234)


def _trunc_ref(shape, mean, std, a, b, dtype):
    nd = NormalDist()
    za, zb = (a - mean) / std, (b - mean) / std
    u = _replay_generator().uniform(nd.cdf(za), nd.cdf(zb), size=shape)
    z = np.array([nd.inv_cdf(v) for v in u.ravel()]).reshape(shape)
    return (mean + std * z).astype(dtype)


def _orth_ref(shape, gain, dtype):
    rows, cols = shape[0], int(np.prod(shape[1:]))
    g = _replay_generator().standard_normal((max(rows, cols), min(rows, cols)))
    q = np.zeros_like(g)
    for j in range(g.shape[1]):   # modified Gram-Schmidt; R's diagonal > 0
        v = g[:, j].copy()
        for i in range(j):
            v -= (q[:, i] @ v) * q[:, i]
        q[:, j] = v / np.linalg.norm(v)
    if rows < cols:
        q = q.T
    return (gain * q).reshape(shape).astype(dtype)


add_test_case(truncated_gaussian_random_op, (3, 4), 0.5, 2.0, -1.0, 3.0, 'float64',
              ref=_trunc_ref, rtol=1e-7, atol=1e-7)
add_test_case(truncated_gaussian_random_op, (50,), 0.0, 1.0, -2.0, 2.0, 'float32',
              ref=_trunc_ref)
add_test_case(orthogonal_random_op, (3, 2, 2), 1.5, 'float64', ref=_orth_ref)
add_test_case(orthogonal_random_op, (5, 2), 1.0, 'float32', ref=_orth_ref)
