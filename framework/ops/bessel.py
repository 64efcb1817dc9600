"""Modified Bessel functions of the first kind: ``i0``, ``i1`` and their
exponentially scaled forms ``i0e = exp(-|x|) i0``, ``i1e = exp(-|x|) i1``.

For |x| <= 30 the power series sum_k (x/2)^(2k+n) / (k! (k+n)!) is summed
directly: every term is positive, so there is no cancellation and float64
keeps ~1e-15 relative accuracy. Beyond, the large-argument expansion
e^x / sqrt(2 pi x) * sum_k (-1)^k a_k(n) / x^k is used; at x = 30 its
smallest term is below 1e-25, so 25 terms are far more than enough (the
omitted e^-x part is 1e-26 relative). Inputs are computed in float64;
float32 tensors get float32 results, integers the default float dtype.
"""
import math

import numpy as np

from .. import dtype as _dt
from . import lib
from .math import equal_op, float_unary, sign_op
from .registry import add_test_case

_SERIES_LIMIT = 30.0
_SERIES_TERMS = 100
_ASYMPTOTIC_TERMS = 25


def _series(ax, n):
    """sum_k (ax/2)^(2k+n) / (k! (k+n)!), ax <= 30."""
    q = (ax * 0.5) ** 2
    term = np.ones_like(ax) if n == 0 else ax * 0.5
    total = term.copy()
    for k in range(1, _SERIES_TERMS):
        term = term * q / (k * (k + n))
        total += term
        if k % 10 == 0 and not (term > total * 1e-17).any():
            break
    return total


def _asymptotic(ax, n, scaled):
    """Large-argument expansion; ``scaled`` leaves out the e^x factor."""
    mu = 4.0 * n * n
    inv = 1.0 / (8.0 * ax)
    term = np.ones_like(ax)
    total = term.copy()
    for k in range(1, _ASYMPTOTIC_TERMS):
        term = term * (-(mu - (2 * k - 1) ** 2) / k) * inv
        total += term
    total /= np.sqrt(2.0 * math.pi * ax)
    if scaled:
        return total
    # e^x itself is correctly rounded; past its overflow point the value may
    # still be finite, so fold the prefactor into the exponent there
    with np.errstate(over='ignore'):
        return np.where(ax < 709.0, np.exp(np.minimum(ax, 709.0)) * total,
                        np.exp(ax + np.log(total)))


def _bessel_i(n, scaled):
    """Kernel for I_n (n = 0 or 1), optionally scaled by exp(-|x|)."""
    def kernel(x):
        out_dtype = x.dtype if x.dtype in (np.float32, np.float64) else _dt.default_float()
        v = np.asarray(x, np.float64).reshape(-1)
        ax = np.abs(v)
        out = np.empty_like(ax)
        small = ax <= _SERIES_LIMIT
        if small.any():
            s = _series(ax[small], n)
            out[small] = s * np.exp(-ax[small]) if scaled else s
        large = ~small
        if large.any():
            out[large] = _asymptotic(ax[large], n, scaled)
        out[np.isnan(v)] = np.nan
        if n == 1:
            out = np.copysign(out, v)     # I_1 is odd, I_0 even
        return out.reshape(np.shape(x)).astype(out_dtype, copy=False)
    kernel.__name__ = 'i%d%s' % (n, 'e' if scaled else '')
    return kernel


def _safe_nonzero(x):
    """(x == 0, x with its zeros replaced by 1): divisions by x stay finite."""
    at_zero = equal_op(x, 0.0)
    return at_zero, lib.where_op(at_zero, 1.0, x)


def _i1_slope(x):
    """d i1 / dx = i0(x) - i1(x) / x (0.5 at 0)."""
    at_zero, safe = _safe_nonzero(x)
    return lib.where_op(at_zero, 0.5, i0_op(x) - i1_op(safe) / safe)


def _i1e_slope(x):
    """d i1e / dx = i0e(x) - i1e(x) (sign(x) + 1 / x) (0.5 at 0)."""
    at_zero, safe = _safe_nonzero(x)
    return lib.where_op(at_zero, 0.5, i0e_op(x) - i1e_op(x) * sign_op(x) - i1e_op(safe) / safe)


def _np_safe(x):
    return np.where(x == 0, 1.0, x).astype(x.dtype, copy=False)


i0_op = float_unary('i0', _bessel_i(0, False), lambda g, x, out: g * i1_op(x),
                    lambda g, x, out: g * i1_op.kernel(x))
i0e_op = float_unary('i0e', _bessel_i(0, True),
                     lambda g, x, out: g * (i1e_op(x) - sign_op(x) * out),
                     lambda g, x, out: g * (i1e_op.kernel(x) - np.sign(x) * out))
i1_op = float_unary('i1', _bessel_i(1, False), lambda g, x, out: g * _i1_slope(x),
                    lambda g, x, out: g * np.where(
                        x == 0, 0.5, i0_op.kernel(x) - i1_op.kernel(_np_safe(x)) / _np_safe(x)))
i1e_op = float_unary('i1e', _bessel_i(1, True), lambda g, x, out: g * _i1e_slope(x),
                     lambda g, x, out: g * np.where(
                         x == 0, 0.5, i0e_op.kernel(x) - out * np.sign(x)
                         - i1e_op.kernel(_np_safe(x)) / _np_safe(x)))


# ---- test cases: references from math.fsum of the series (exact enough at |x| < 40) ----

def _ref_series(v, n, scaled):
    v = float(v)
    q = (v / 2.0) ** 2
    terms = [(abs(v) / 2.0) ** n / math.factorial(n)]
    for k in range(1, 400):
        terms.append(terms[-1] * q / (k * (k + n)))
    s = math.fsum(terms)
    s = math.copysign(s, v) if n == 1 else s
    return s * math.exp(-abs(v)) if scaled else s


def _ref(n, scaled):
    return np.vectorize(lambda v: _ref_series(v, n, scaled), otypes=[float])


_rng = np.random.default_rng(31)
for _op, _n, _scaled in [(i0_op, 0, False), (i0e_op, 0, True), (i1_op, 1, False),
                         (i1e_op, 1, True)]:
    add_test_case(_op, _rng.uniform(-4, 4, (3, 4)), ref=_ref(_n, _scaled), rtol=1e-13)
    add_test_case(_op, _rng.uniform(-4, 4, (2, 1, 3)), ref=_ref(_n, _scaled), rtol=1e-13)
    add_test_case(_op, np.asarray(-1.25), ref=_ref(_n, _scaled), rtol=1e-13)
    add_test_case(_op, np.zeros((0, 3)), ref=lambda x: np.zeros((0, 3)))
    add_test_case(_op, np.array([0.0, -29.5, 30.5, 38.0]), ref=_ref(_n, _scaled), rtol=1e-13,
                  grad=False)
    add_test_case(_op, np.array([0.5, -2.0], np.float32), ref=_ref(_n, _scaled), rtol=1e-6,
                  grad=False)


# ---- public API ---------------------------------------------------------------------------

def i0(x, name=None):
    """Modified Bessel function of the first kind, order 0."""
    return i0_op(x)


def i0e(x, name=None):
    """Exponentially scaled ``i0``: ``exp(-|x|) * i0(x)``."""
    return i0e_op(x)


def i1(x, name=None):
    """Modified Bessel function of the first kind, order 1."""
    return i1_op(x)


def i1e(x, name=None):
    """Exponentially scaled ``i1``: ``exp(-|x|) * i1(x)``."""
    return i1e_op(x)


__all__ = ['i0', 'i0e', 'i1', 'i1e']
TENSOR_METHODS = {n: globals()[n] for n in __all__}
INPLACE_METHODS = {'i0_': 'i0'}
