"""Special functions: log-gamma, digamma, polygamma and the regularized
incomplete gamma functions (Paddle's ``lgamma``, ``digamma``, ``polygamma``,
``gammaln``, ``multigammaln``, ``gammainc``, ``gammaincc``).

numpy has none of them, so the kernels are written here, vectorised and
computed in float64 (float32 inputs are rounded back at the end; integer and
bool inputs give the default float dtype, as Paddle's do):

* ``lgamma``: Lanczos' approximation (g = 7, nine terms; relative error of
  Gamma below 1e-15) for x >= 0.5, the reflection formula below.
* ``digamma``: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then
  the asymptotic series; the reflection formula for x < 0.
* ``polygamma(x, n)`` (n >= 1): (-1)^(n+1) n! zeta(n + 1, x) with the Hurwitz
  zeta from a shifted sum plus its Euler-Maclaurin tail.
* ``gammainc``/``gammaincc``: the power series of P(a, y) for y < a + 1 and
  the continued fraction of Q(a, y) beyond (modified Lentz), both carried in
  forward mode so that dP/da comes out of the same loop; ``gamma_sample_grad``
  turns it into the implicit reparameterization gradient of a gamma sample
  (``ops/sampling.py``).

Every derivative is another op of this module, so gradients of any order
work in both modes.
"""
import math

import numpy as np

from .. import dtype as _dt
from . import lib, meta
from .grad_utils import sum_like
from .registry import Meta, OpError, add_test_case, def_op

_ndarray = np.ndarray
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028,
            771.32342877765313, -176.61502916214059, 12.507343278686905,
            -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7)
# Bernoulli numbers B_2, B_4, ..., B_16
_BERNOULLI = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6,
              -3617.0 / 510)


def _float_meta(x, *attrs):
    d = np.dtype(meta.dtype_of(x)) if not meta.is_scalar(x) else np.dtype(float)
    return Meta(meta.shape_of(x), d if d.kind == 'f' else _dt.default_float())


def _out_dtype(*xs):
    d = np.result_type(*[np.asarray(x).dtype for x in xs])
    return d if d.kind == 'f' else _dt.default_float()


def _flat64(*xs):
    """(broadcast shape, 1-d float64 copies): the kernels below index with
    masks, which 0-d arrays (ufuncs turn them into scalars) do not allow."""
    arrays = np.broadcast_arrays(*[np.asarray(x, np.float64) for x in xs])
    return arrays[0].shape, [np.array(a, np.float64).reshape(-1) for a in arrays]


def _unary64(fn, x, *args):
    shape, (flat,) = _flat64(x)
    return fn(flat, *args).reshape(shape).astype(_out_dtype(x), copy=False)


# ---- log-gamma ----------------------------------------------------------------

def _lanczos_lgamma(x):
    """log|Gamma(x)| for x >= 0.5 (float64 array)."""
    z = x - 1.0
    acc = np.full(x.shape, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], 1):
        acc += c / (z + i)
    t = z + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(acc)


def _sinpi_abs(x):
    """|sin(pi x)| computed from x's distance to the nearest integer, so that
    large arguments and exact integers (where it is 0) come out right."""
    return np.abs(np.sin(math.pi * (x - np.round(x))))


def _lgamma64(x):
    out = np.empty(x.shape)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        big = x >= 0.5
        out[big] = _lanczos_lgamma(x[big])
        small = ~big & ~np.isnan(x)
        xs = x[small]
        # Gamma(x) Gamma(1 - x) = pi / sin(pi x); 1 - x >= 0.5 here
        out[small] = _LOG_PI - np.log(_sinpi_abs(xs)) - _lanczos_lgamma(1.0 - xs)
        out[np.isinf(x)] = np.inf
        out[np.isnan(x)] = np.nan
    return out


@def_op('lgamma', _float_meta, inputs=('x',), attrs={}, pattern='elementwise', ufunc=None,
        flops=None)
def lgamma_op(x):
    """log|Gamma(x)|; +inf at the poles 0, -1, -2, ..."""
    return _unary64(_lgamma64, x)


@lgamma_op.def_grad
def _lgamma_grad(g, x, out):
    return g * digamma_op(x)


# ---- digamma and polygamma ------------------------------------------------------

def _digamma_positive(x):
    """psi(x) for x > 0: shift up to x >= 10, then the asymptotic series."""
    x = x.copy()
    acc = np.zeros(x.shape)
    for _ in range(10):
        low = x < 10.0
        if not low.any():
            break
        acc[low] -= 1.0 / x[low]
        x[low] += 1.0
    inv2 = 1.0 / (x * x)
    series = np.zeros(x.shape)
    for k in range(len(_BERNOULLI) - 1, -1, -1):   # Horner in 1/x^2
        series = (series + _BERNOULLI[k] / (2 * k + 2)) * inv2
    return acc + np.log(x) - 0.5 / x - series


def _digamma64(x):
    out = np.empty(x.shape)
    with np.errstate(divide='ignore', invalid='ignore'):
        pos = x > 0
        out[pos] = _digamma_positive(x[pos])
        neg = ~pos & ~np.isnan(x)
        xn = x[neg]
        # psi(1 - x) - psi(x) = pi cot(pi x); tan has period pi, so reduce first
        r = xn - np.round(xn)
        vals = _digamma_positive(1.0 - xn) - math.pi / np.tan(math.pi * r)
        vals[r == 0] = np.nan          # negative integers are poles
        vals[xn == 0] = -np.inf        # psi(0): the limit from the right, as Paddle
        vals[np.isinf(xn)] = np.nan
        out[neg] = vals
        out[np.isnan(x)] = np.nan
        out[x == np.inf] = np.inf
    return out


@def_op('digamma', _float_meta, inputs=('x',), attrs={}, pattern='elementwise', ufunc=None,
        flops=None)
def digamma_op(x):
    """psi(x) = d/dx log Gamma(x)."""
    return _unary64(_digamma64, x)


@digamma_op.def_grad
def _digamma_grad(g, x, out):
    return g * polygamma_op(x, 1)


def _hurwitz_positive(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for q > 0 and an integer s >= 2: the first
    N terms directly, the rest by Euler-Maclaurin (N makes q + N >= s + 12, so
    the Bernoulli terms fall off fast enough for float64)."""
    q = q.copy()
    acc = np.zeros(q.shape)
    target = s + 12.0
    while True:
        low = q < target
        if not low.any():
            break
        acc[low] += q[low] ** -s
        q[low] += 1.0
    tail = q ** (1.0 - s) / (s - 1.0) + 0.5 * q ** -s
    # term j: B_2j / (2j)! * s (s+1) ... (s+2j-2) * q^-(s+2j-1)
    rising = float(s)
    fact = 2.0
    power = q ** -(s + 1.0)
    inv2 = 1.0 / (q * q)
    for j, b in enumerate(_BERNOULLI, 1):
        tail += b / fact * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
        power = power * inv2
    return acc + tail


def _polygamma64(x, n):
    if n == 0:
        return _digamma64(x)
    s = n + 1
    out = np.empty(x.shape)
    sign = -1.0 if n % 2 == 0 else 1.0      # (-1)^(n+1)
    scale = sign * math.factorial(n)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        pos = x > 0
        out[pos] = scale * _hurwitz_positive(s, x[pos])
        neg = ~pos & ~np.isnan(x)
        xn = x[neg]
        # for x < 0 split the sum at the pole-free fraction f = x - floor(x):
        # zeta(s, x) = zeta(s, f) + (-1)^s (zeta(s, 1 - f) - zeta(s, 1 - f - floor(x)))
        fl = np.floor(xn)
        f = xn - fl
        ok = (f > 0) & np.isfinite(xn)
        fo, flo = f[ok], fl[ok]
        z = (_hurwitz_positive(s, fo) + (-1.0) ** s *
             (_hurwitz_positive(s, 1.0 - fo) - _hurwitz_positive(s, 1.0 - fo - flo)))
        vals = np.full(xn.shape, np.nan)
        vals[ok] = scale * z
        vals[(f == 0) & np.isfinite(xn)] = sign * np.inf   # poles at 0, -1, -2, ...
        vals[xn == -np.inf] = sign * np.inf
        out[neg] = vals
        out[np.isnan(x)] = np.nan
        out[x == np.inf] = 0.0
    return out


def _polygamma_meta(x, n=0):
    return _float_meta(x)


@def_op('polygamma', _polygamma_meta, inputs=('x',), attrs={'n': 0}, pattern='elementwise',
        ufunc=None, flops=None)
def polygamma_op(x, n=0):
    """The n-th derivative of digamma (n = 0: digamma itself)."""
    return _unary64(_polygamma64, x, int(n))


@polygamma_op.def_grad
def _polygamma_grad(g, x, out, n):
    return g * polygamma_op(x, n + 1)


# ---- regularized incomplete gamma ---------------------------------------------

_MAX_TERMS = 100000
_EPS = 1e-16
_CHECK = 4     # convergence is tested (and finished entries dropped) every _CHECK steps


def _gamma_series(a, y):
    """For y < a + 1: S = sum_n y^n / ((a+1)...(a+n)) and dS/da, so that
    P(a, y) = exp(a log y - y - lgamma(a + 1)) S."""
    s_out, ds_out = np.empty(a.shape), np.empty(a.shape)
    idx = np.arange(a.size)
    c, dc = np.ones(a.shape), np.zeros(a.shape)
    s, ds = c.copy(), dc.copy()
    n = 0
    while idx.size:
        n += 1
        an = a + n
        r = y / an
        dc = r * (dc - c / an)
        c = c * r
        s += c
        ds += dc
        if n % _CHECK and n < _MAX_TERMS:
            continue
        live = (np.abs(c) > _EPS * s) | (np.abs(dc) > _EPS * np.abs(ds))
        if n >= _MAX_TERMS:
            live[:] = False
        if live.all():
            continue
        idx, (a, y, c, dc, s, ds) = _drop(idx, live, (a, y, c, dc, s, ds), (s_out, ds_out),
                                          (4, 5))
    return s_out, ds_out


def _drop(idx, live, work, outs, out_of):
    """Write the finished entries of work[out_of[k]] into outs[k]; keep the rest."""
    done = ~live
    for out, k in zip(outs, out_of):
        out[idx[done]] = work[k][done]
    return idx[live], tuple(v[live] for v in work)


def _gamma_fraction(a, y):
    """For y >= a + 1: the continued fraction h and dh/da of
    Q(a, y) = exp(a log y - y - lgamma(a)) h (modified Lentz, in forward mode)."""
    tiny = 1e-300
    h_out, dh_out = np.empty(a.shape), np.empty(a.shape)
    idx = np.arange(a.size)
    b = y + 1.0 - a
    d = 1.0 / b
    dd = d * d                        # d(1/b)/da with db/da = -1
    c = np.full(a.shape, 1.0 / tiny)
    dcc = np.zeros(a.shape)
    h, dh = d.copy(), dd.copy()
    i = 0
    while idx.size:
        i += 1
        an = -i * (i - a)             # d an / da = i; d b / da = -1
        b = b + 2.0
        raw = an * d + b
        draw = i * d + an * dd - 1.0
        raw = np.where(np.abs(raw) < tiny, tiny, raw)
        dn = 1.0 / raw
        ddn = -draw * dn * dn
        cn = b + an / c
        dcn = -1.0 + i / c - an * dcc / (c * c)
        cn = np.where(np.abs(cn) < tiny, tiny, cn)
        delta = dn * cn
        ddelta = ddn * cn + dn * dcn
        dh = dh * delta + h * ddelta
        h = h * delta
        d, dd, c, dcc = dn, ddn, cn, dcn
        if i % _CHECK and i < _MAX_TERMS:
            continue
        # both h and dh/da must have converged (at an integer a the fraction
        # of h ends early, its derivative does not)
        live = (np.abs(delta - 1.0) > _EPS) | (np.abs(h * ddelta) > _EPS * np.abs(dh))
        if i >= _MAX_TERMS:
            live[:] = False
        if live.all():
            continue
        idx, (a, b, d, dd, c, dcc, h, dh) = _drop(idx, live, (a, b, d, dd, c, dcc, h, dh),
                                                  (h_out, dh_out), (6, 7))
    return h_out, dh_out


def gammainc_parts(a, y):
    """(P, Q, dP/da, y * exp(-y) y^(a-1) / Gamma(a)) for float64 arrays of equal
    shape with a > 0, y >= 0. The last entry is y times the density at y."""
    shape, (a, y) = _flat64(a, y)
    P = np.zeros(a.shape)
    Q = np.ones(a.shape)
    dP = np.zeros(a.shape)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore', under='ignore'):
        logy = np.log(y)
        ydens = np.exp(a * logy - y - _lgamma64(a))     # y * density(y)
        ydens[y == 0] = 0.0
        pos = y > 0
        ser = pos & (y < a + 1.0)
        if ser.any():
            s, ds = _gamma_series(a[ser], y[ser])
            lead = ydens[ser] / a[ser]        # exp(a log y - y - lgamma(a + 1))
            P[ser] = lead * s
            Q[ser] = 1.0 - P[ser]
            dP[ser] = lead * (s * (logy[ser] - _digamma64(a[ser] + 1.0)) + ds)
        frac = pos & ~ser
        if frac.any():
            h, dh = _gamma_fraction(a[frac], y[frac])
            lead = ydens[frac]                # exp(a log y - y - lgamma(a))
            Q[frac] = lead * h
            P[frac] = 1.0 - Q[frac]
            dP[frac] = -lead * (h * (logy[frac] - _digamma64(a[frac])) + dh)
        inf = y == np.inf
        P[inf], Q[inf], dP[inf], ydens[inf] = 1.0, 0.0, 0.0, 0.0
        bad = np.isnan(a) | np.isnan(y)
        P[bad] = Q[bad] = dP[bad] = ydens[bad] = np.nan
    return tuple(v.reshape(shape) for v in (P, Q, dP, ydens))


# Beyond this shape the sums need ~10 sqrt(a) terms; the Wilson-Hilferty
# quantile a (1 - 1/(9a) + z / (3 sqrt a))^3 differentiated at fixed z is then
# within 3e-7 (relative) of the exact implicit gradient, and cheap.
_WH_FROM = 1e4


def _wilson_hilferty_grad(a, x):
    w = np.cbrt(x / a)
    z = (w - 1.0 + 1.0 / (9.0 * a)) * 3.0 * np.sqrt(a)
    dw = 1.0 / (9.0 * a * a) - z / (6.0 * a ** 1.5)
    return w ** 3 + 3.0 * a * w * w * dw


def gamma_sample_grad(a, x):
    """dx/da of a standard gamma sample x ~ Gamma(a, 1) at a fixed quantile
    P(a, x) = u (implicit reparameterization): -dP/da / density(x). Written
    from the series/fraction sums directly (no exp of a large argument):
    -(x/a)(S (log x - psi(a+1)) + dS/da) below a + 1, x (h (log x - psi(a)) +
    dh/da) above. x = 0 (an underflowed sample) gives 0."""
    shape, (a, x) = _flat64(a, x)
    out = np.zeros(a.shape)
    with np.errstate(divide='ignore', invalid='ignore', over='ignore', under='ignore'):
        logx = np.log(x)
        pos = (x > 0) & np.isfinite(x) & (a > 0)
        big = pos & (a >= _WH_FROM)
        if big.any():
            out[big] = _wilson_hilferty_grad(a[big], x[big])
        pos &= ~big
        ser = pos & (x < a + 1.0)
        if ser.any():
            s, ds = _gamma_series(a[ser], x[ser])
            out[ser] = -(x[ser] / a[ser]) * (s * (logx[ser] - _digamma64(a[ser] + 1.0)) + ds)
        frac = pos & ~ser
        if frac.any():
            h, dh = _gamma_fraction(a[frac], x[frac])
            out[frac] = x[frac] * (h * (logx[frac] - _digamma64(a[frac])) + dh)
        out[np.isnan(a) | np.isnan(x)] = np.nan
    return out.reshape(shape)


def _check_gammainc_args(x, y, api):
    if np.any(np.asarray(x) < 0):
        raise OpError("%s: the input argument x must be greater than or equal to 0" % api)
    if np.any(np.asarray(y) < 0):
        raise OpError("%s: the input argument y must be greater than or equal to 0" % api)


def _gammainc_meta(x, y):
    m = meta.broadcast(x, y)
    return Meta(m.shape, m.dtype if m.dtype.kind == 'f' else _dt.default_float())


@def_op('gammainc', _gammainc_meta, inputs=('x', 'y'), attrs={}, no_grad_inputs=('x',),
        promote=('x', 'y'), pattern='broadcast', ufunc=None, identity=None, flops=None)
def gammainc_op(x, y):
    """P(x, y): the regularized lower incomplete gamma function."""
    _check_gammainc_args(x, y, 'gammainc')
    return gammainc_parts(x, y)[0].astype(_out_dtype(x, y), copy=False)


@def_op('gammaincc', _gammainc_meta, inputs=('x', 'y'), attrs={}, no_grad_inputs=('x',),
        promote=('x', 'y'), pattern='broadcast', ufunc=None, identity=None, flops=None)
def gammaincc_op(x, y):
    """Q(x, y) = 1 - P(x, y): the regularized upper incomplete gamma function."""
    _check_gammainc_args(x, y, 'gammaincc')
    return gammainc_parts(x, y)[1].astype(_out_dtype(x, y), copy=False)


def _density_times_y(x, y):
    """y^(x-1) e^(-y) / Gamma(x), the derivative of P(x, y) in y, as ops."""
    return lib.exp_op((x - 1.0) * lib.log_op(y) - y - lgamma_op(x))


@gammainc_op.def_grad
def _gammainc_grad(g, x, y, out):
    # Paddle differentiates in y only (as here); x is a shape parameter
    return None, sum_like(g * _density_times_y(x, y), y)


@gammaincc_op.def_grad
def _gammaincc_grad(g, x, y, out):
    return None, sum_like(-g * _density_times_y(x, y), y)



# ---- public API --------------------------------------------------------------

def lgamma(x, name=None):
    """log|Gamma(x)| elementwise.

    >>> import framework as paddle
    >>> round(float(paddle.lgamma(paddle.to_tensor(5.0))), 4)   # log(24)
    3.1781
    """
    return lgamma_op(x)


def gammaln(x, name=None):
    """Same as ``lgamma`` (Paddle keeps both names)."""
    return lgamma_op(x)


def digamma(x, name=None):
    """The logarithmic derivative of Gamma, psi(x)."""
    return digamma_op(x)


def polygamma(x, n, name=None):
    """The n-th derivative of digamma; ``n`` is a non-negative int."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("polygamma: the input of n must be int type, but received: %s"
                        % type(n))
    if n < 0:
        raise ValueError("polygamma: the input of n must be greater than or equal to 0. "
                         "But received n = %d" % n)
    return polygamma_op(x, int(n))


def multigammaln(x, p, name=None):
    """log of the multivariate gamma function of dimension ``p``:
    p(p-1)/4 log(pi) + sum_{j=1..p} lgamma(x + (1 - j)/2)."""
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise ValueError("multigammaln: p must be a positive int, got %r" % (p,))
    out = lgamma_op(x)
    for j in range(2, int(p) + 1):
        out = out + lgamma_op(x + (1.0 - j) / 2.0)
    return out + p * (p - 1) / 4.0 * _LOG_PI


def gammainc(x, y, name=None):
    """Regularized lower incomplete gamma P(x, y) (x, y >= 0)."""
    return gammainc_op(x, y)


def gammaincc(x, y, name=None):
    """Regularized upper incomplete gamma Q(x, y) = 1 - P(x, y) (x, y >= 0)."""
    return gammaincc_op(x, y)


__all__ = ['lgamma', 'gammaln', 'digamma', 'polygamma', 'multigammaln', 'gammainc',
           'gammaincc']
TENSOR_METHODS = {n: globals()[n] for n in __all__}
INPLACE_METHODS = {n + '_': n for n in __all__}     # x.lgamma_(), paddle.gammainc_(x, y), ...


# ---- test cases (references from Python's math module and direct sums) ------

_rng = np.random.default_rng(17)


def _vec(fn):
    return np.vectorize(fn, otypes=[float])


def _digamma_ref(v):
    """psi(v) by central differences of math.lgamma on a fine step, refined by
    the exact recurrence psi(v) = psi(v + 30) - sum 1/(v + k)."""
    shift = 30
    w = v + shift
    h = 1e-4
    # 4th-order central difference at a large argument, where lgamma is smooth
    d = (-math.lgamma(w + 2 * h) + 8 * math.lgamma(w + h) - 8 * math.lgamma(w - h)
         + math.lgamma(w - 2 * h)) / (12 * h)
    return d - math.fsum(1.0 / (v + k) for k in range(shift))


def _trigamma_ref(v, n):
    """psi^(n)(v) = (-1)^(n+1) n! sum_k 1/(v+k)^(n+1): 20000 terms plus the
    integral tail (accurate to ~1e-9 relative for n >= 1)."""
    s = n + 1
    terms = math.fsum((v + k) ** -s for k in range(20000))
    tail = (v + 20000) ** (1 - s) / (s - 1) + 0.5 * (v + 20000) ** -s
    return (-1) ** (n + 1) * math.factorial(n) * (terms + tail)


def _gammainc_ref(a, y):
    """P(a, y) by the series in exact rational steps (mpmath-free): sum of
    y^n / Gamma(a + n + 1) in log space with math.fsum."""
    if y == 0:
        return 0.0
    terms = [math.exp((a + n) * math.log(y) - y - math.lgamma(a + n + 1)) for n in range(400)]
    return math.fsum(terms)


_signed = _rng.uniform(0.1, 6, (3, 4)) * np.where(_rng.random((3, 4)) < 0.3, -1, 1)
_signed = np.where(np.abs(_signed - np.round(_signed)) < 0.05, _signed + 0.2, _signed)
add_test_case(lgamma_op, _signed, ref=_vec(math.lgamma), rtol=1e-12, atol=1e-13)
add_test_case(lgamma_op, _rng.uniform(0.5, 30, 5), ref=_vec(math.lgamma), rtol=1e-13, atol=1e-13)
add_test_case(lgamma_op, np.array([1e-8, 0.5, 1.0, 2.0, 3.5, 171.5, 1e10, 1e300, -0.5, -2.5,
                                   -1e5 - 0.5]),
              ref=_vec(math.lgamma), rtol=1e-13, atol=1e-14, grad=False)
add_test_case(lgamma_op, np.array([0.0, -1.0, -7.0, np.inf, -np.inf, np.nan]),
              ref=lambda x: np.array([np.inf] * 5 + [np.nan]), grad=False)
add_test_case(lgamma_op, np.array(3.7), ref=_vec(math.lgamma))
add_test_case(lgamma_op, np.zeros((0, 3)), ref=lambda x: x.copy())
add_test_case(lgamma_op, _rng.uniform(0.5, 5, (2, 3)).astype(np.float32), ref=_vec(math.lgamma),
              grad=False)
add_test_case(lgamma_op, np.array([1, 2, 5]),
              ref=lambda x: np.log([1.0, 1.0, 24.0]).astype('float32'),
              grad=False)
add_test_case(digamma_op, _signed, ref=_vec(_digamma_ref), rtol=1e-8, atol=1e-9)
add_test_case(digamma_op, np.array([1e-8, 0.25, 1.0, 9.99, 10.0, 100.0, -0.5, -3.3]),
              ref=_vec(_digamma_ref), rtol=1e-8, atol=1e-9, grad=False)
add_test_case(digamma_op, np.array([1e5, 1e8, 1e15]),
              ref=lambda x: np.log(x) - 0.5 / x - 1.0 / (12 * x * x), rtol=1e-15, atol=0,
              grad=False)
add_test_case(digamma_op, np.array([1.0]), ref=lambda x: np.array([-0.5772156649015329]),
              rtol=1e-15, atol=0)
add_test_case(digamma_op, np.array([0.0, -1.0, -2.0, np.inf, -np.inf, np.nan]),
              ref=lambda x: np.array([-np.inf, np.nan, np.nan, np.inf, np.nan, np.nan]),
              grad=False)
add_test_case(digamma_op, np.array(2.5), ref=_vec(_digamma_ref), rtol=1e-8)
add_test_case(digamma_op, np.zeros((2, 0)), ref=lambda x: x.copy())
add_test_case(digamma_op, _rng.uniform(0.5, 5, 4).astype(np.float32), ref=_vec(_digamma_ref),
              grad=False)
for _n in (1, 2, 3):
    add_test_case(polygamma_op, _signed, _n,
                  ref=lambda x, n: _vec(lambda v: _trigamma_ref(v, n))(x), rtol=1e-7, atol=1e-8)
add_test_case(polygamma_op, np.array([1.0, 0.5]), 1,
              ref=lambda x, n: np.array([math.pi ** 2 / 6, math.pi ** 2 / 2]), rtol=1e-14, atol=0)
add_test_case(polygamma_op, np.array([1e-4, 40.0, 1e4, -2.5]), 4,
              ref=lambda x, n: _vec(lambda v: _trigamma_ref(v, n))(x), rtol=1e-7, grad=False)
add_test_case(polygamma_op, np.array([0.0, -1.0, -np.inf, np.inf, np.nan]), 2,
              ref=lambda x, n: np.array([-np.inf, -np.inf, -np.inf, 0.0, np.nan]), grad=False)
add_test_case(polygamma_op, np.array([0.0, -3.0]), 1,
              ref=lambda x, n: np.array([np.inf, np.inf]), grad=False)
add_test_case(polygamma_op, _signed[0], 0, ref=lambda x, n: _vec(_digamma_ref)(x), rtol=1e-8)
add_test_case(polygamma_op, np.array(0.7), 1,
              ref=lambda x, n: _vec(lambda v: _trigamma_ref(v, 1))(x),
              rtol=1e-7)
add_test_case(polygamma_op, np.zeros((0,)), 2, ref=lambda x, n: x.copy())
add_test_case(polygamma_op, np.array([0.5, 2.0], np.float32), 1,
              ref=lambda x, n: _vec(lambda v: _trigamma_ref(v, 1))(x).astype(np.float32),
              grad=False)
_ga = _rng.uniform(0.2, 8, (3, 4))
_gy = _rng.uniform(0.05, 12, 4)
add_test_case(gammainc_op, _ga, _gy, ref=_vec(_gammainc_ref), rtol=1e-11, atol=1e-13)
add_test_case(gammaincc_op, _ga, _gy, ref=_vec(lambda a, y: 1.0 - _gammainc_ref(a, y)),
              rtol=1e-9, atol=1e-12)
add_test_case(gammainc_op, np.array([0.5, 1.0, 3.0, 30.0, 2.0]),
              np.array([0.0, 1.0, 0.5, 31.0, np.inf]),
              ref=lambda a, y: np.array([0.0, 1 - math.exp(-1), _gammainc_ref(3.0, 0.5),
                                         _gammainc_ref(30.0, 31.0), 1.0]),
              rtol=1e-11, atol=1e-13, grad=False)
add_test_case(gammaincc_op, np.array(2.0), np.array(3.0),
              ref=lambda a, y: np.array(4.0 * math.exp(-3.0)), rtol=1e-13)
add_test_case(gammainc_op, np.zeros((0, 2)) + 1, np.ones(2), ref=lambda a, y: np.zeros((0, 2)))
add_test_case(gammainc_op, np.array([1.5, 2.5], np.float32), np.array([1.0, 2.0], np.float32),
              ref=lambda a, y: _vec(_gammainc_ref)(a, y).astype(np.float32), grad=False)
