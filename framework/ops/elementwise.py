"""More elementwise math: inverse hyperbolic functions, ``expm1``, ``sinc``,
angle conversions, floating-point helpers (``copysign``, ``nextafter``,
``ldexp``, ``frexp``, ``signbit``, ``nan_to_num``), ``atan2``/``hypot``/
``logaddexp``, NaN-ignoring ``fmax``/``fmin``, ``heaviside``, ``gcd``/``lcm``
and bit shifts.

Float-valued ops compute integer inputs in the default float dtype, as the
unary ops of ``ops/math.py`` do (``atan2`` of integers gives float64, as in
Paddle). Binary ops declare ``promote=`` and so compute mixed dtypes in
PyTorch's promoted dtype. Grad rules are written with registered ops; where
a formula divides by zero at a point the rule selects a safe operand first,
so neither the gradient nor its own gradient turns into NaN there.
"""
import math

import numpy as np

from .. import dtype as _dt
from . import lib, meta
from .grad_utils import sum_like, ub
from .math import (abs_op, cast_like, cos_op, equal_op, exp_op, float_unary, greater_equal_op,
                   isfinite_op, isnan_op, less_equal_op, log_op, logical_or_op, multiply_op,
                   neg_op, onnx_trunc, pow_op, sign_op, sin_op, sqrt_op, unary, _float_meta,
                   _onnx_unary, _zero_fast, _zero_grad)
from .out_param import write_out
from .properties import flops_per_input_element
from .registry import Meta, OpError, add_test_case, def_op

_ndarray = np.ndarray
_PI = math.pi
_LN2 = math.log(2.0)


def _as_float(x):
    """numpy: ``x`` in floating point (integers in the default float dtype)."""
    if type(x) is not _ndarray:
        x = np.asarray(x)
    return x if _dt.is_inexact(x.dtype) else x.astype(_dt.default_float())


# ---- inverse hyperbolic, expm1, sinc, angle conversion -------------------------

acosh_op = float_unary('acosh', np.arccosh, lambda g, x, out: g / sqrt_op(x * x - 1),
                       lambda g, x, out: g / np.sqrt(x * x - 1))
asinh_op = float_unary('asinh', np.arcsinh, lambda g, x, out: g / sqrt_op(x * x + 1),
                       lambda g, x, out: g / np.sqrt(x * x + 1))
atanh_op = float_unary('atanh', np.arctanh, lambda g, x, out: g / (1 - x * x), 'same',
                       amp='black')
expm1_op = float_unary('expm1', np.expm1, lambda g, x, out: g * (out + 1), 'same',
                       amp='black')


acosh_op.def_onnx(_onnx_unary('Acosh'))
asinh_op.def_onnx(_onnx_unary('Asinh'))
atanh_op.def_onnx(_onnx_unary('Atanh'))


@expm1_op.def_onnx
def _expm1_onnx(g, x):
    # Kahan's exact form: (u - 1) * x / log(u) with u = exp(x), x itself where u == 1
    x, = g.cast_to_output(x)
    dtype = g.meta(x).dtype
    u = g.op('Exp', x)
    d = g.op('Sub', u, g.scalar(1, dtype))
    scaled = g.op('Div', g.op('Mul', d, x), g.op('Log', u))
    big = g.op('Or', g.op('Equal', d, g.scalar(-1, dtype)), g.op('IsInf', u))
    return g.op('Where', g.op('Equal', u, g.scalar(1, dtype)), x, g.op('Where', big, d, scaled))


def _sinc(x):
    with np.errstate(invalid='ignore'):
        return np.sinc(x)


def _sinc_grad(g, x, out):
    # d/dx sin(pi x) / (pi x) = (cos(pi x) - sinc(x)) / x, and 0 at x = 0; the
    # division runs on x with its zeros replaced so no branch is NaN
    at_zero = equal_op(x, 0.0)
    safe = lib.where_op(at_zero, 1.0, x)
    slope = (cos_op(safe * _PI) - sinc_op(safe)) / safe
    return g * lib.where_op(at_zero, 0.0, slope)


def _sinc_fast(g, x, out):
    with np.errstate(divide='ignore', invalid='ignore'):
        slope = (np.cos(_PI * x) - out) / x
    return g * np.where(x == 0, 0, slope)


sinc_op = float_unary('sinc', _sinc, _sinc_grad, _sinc_fast)


@sinc_op.def_onnx
def _sinc_onnx(g, x):
    x, = g.cast_to_output(x)
    dtype = g.meta(x).dtype
    px = g.op('Mul', x, g.scalar(_PI, dtype))
    zero = g.op('Equal', x, g.scalar(0, dtype))
    safe = g.op('Where', zero, g.scalar(1, dtype), px)
    return g.op('Where', zero, g.scalar(1, dtype), g.op('Div', g.op('Sin', safe), safe))

_DEG = _PI / 180.0
deg2rad_op = float_unary('deg2rad', lambda x: x * np.asarray(_DEG, x.dtype),
                         lambda g, x, out: g * _DEG, 'same')
rad2deg_op = float_unary('rad2deg', lambda x: x * np.asarray(1.0 / _DEG, x.dtype),
                         lambda g, x, out: g * (1.0 / _DEG), 'same')


def _onnx_times(factor):
    def lower(g, x):
        x, = g.cast_to_output(x)
        return g.op('Mul', x, g.scalar(factor, g.meta(x).dtype))
    return lower


deg2rad_op.def_onnx(_onnx_times(_DEG))
rad2deg_op.def_onnx(_onnx_times(1.0 / _DEG))


def _frac(x):
    return np.zeros_like(x) if x.dtype.kind in 'iub' else x - np.trunc(x)


frac_op = unary('frac', _frac, lambda g, x, out: g, 'same')


@frac_op.def_onnx
def _frac_onnx(g, x):
    if g.meta(x).dtype.kind in 'iub':
        return g.op('Sub', x, x) if g.meta(x).dtype.kind != 'b' else g.op('And', x, g.op('Not', x))
    return g.op('Sub', x, onnx_trunc(g, x, g.meta(x).dtype))


# ---- predicates (bool results, no gradient) ------------------------------------

def _predicate(name, fn):
    return def_op(name, meta.logical_unary, inputs=('x',), attrs={},
                  differentiable=False, pattern='elementwise', ufunc=None, flops=None)(fn)


signbit_op = _predicate('signbit', lambda x: np.signbit(x) if x.dtype.kind != 'b'
                        else np.zeros(x.shape, bool))
isposinf_op = _predicate('isposinf', lambda x: np.isposinf(x) if _dt.is_floating(x.dtype)
                         else np.zeros(x.shape, bool))
isneginf_op = _predicate('isneginf', lambda x: np.isneginf(x) if _dt.is_floating(x.dtype)
                         else np.zeros(x.shape, bool))


def _onnx_never(g, x):
    return g.op('Not', g.op('Equal', x, x)) if g.meta(x).dtype.kind != 'b' else \
        g.op('And', x, g.op('Not', x))


def onnx_signbit(g, x):
    """x < 0 or x is -0.0 (1 / -0.0 is -inf); ints: x < 0."""
    dtype = g.meta(x).dtype
    if dtype.kind == 'b':
        return _onnx_never(g, x)
    zero = g.scalar(0, dtype)
    neg = g.op('Less', x, zero)
    if dtype.kind != 'f':
        return neg
    minus_zero = g.op('And', g.op('Equal', x, zero), g.op('Less', g.op('Reciprocal', x), zero))
    return g.op('Or', neg, minus_zero)


signbit_op.def_onnx(onnx_signbit)
isposinf_op.def_onnx(lambda g, x: g.op('IsInf', x, detect_negative=0)
                     if g.meta(x).dtype.kind == 'f' else _onnx_never(g, x))
isneginf_op.def_onnx(lambda g, x: g.op('IsInf', x, detect_positive=0)
                     if g.meta(x).dtype.kind == 'f' else _onnx_never(g, x))


# ---- nan_to_num ------------------------------------------------------------------

@def_op('nan_to_num', meta.unchanged, attr_types={'posinf': 'float|None', 'neginf': 'float|None'},
        pattern='elementwise', ufunc=None, flops=None)
def nan_to_num_op(x, nan=0.0, posinf=None, neginf=None):
    """NaN -> ``nan``, +inf -> ``posinf``, -inf -> ``neginf`` (None: the
    dtype's largest / lowest finite value); integer tensors are unchanged."""
    if not _dt.is_inexact(x.dtype):
        return x.copy()
    if _dt.is_bfloat16(x.dtype):   # numpy's nan_to_num leaves bfloat16 infinities alone
        big = float(_dt.finfo(x.dtype).max)
        return np.nan_to_num(x.astype(np.float32), nan=nan,
                             posinf=big if posinf is None else posinf,
                             neginf=-big if neginf is None else neginf).astype(x.dtype)
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


@nan_to_num_op.def_grad
def _nan_to_num_grad(g, x, out, nan, posinf, neginf):
    return g * cast_like(isfinite_op(x), g)


@nan_to_num_op.def_fast_grad
def _nan_to_num_fast(g, x, out, nan, posinf, neginf):
    return g * np.isfinite(x)


@nan_to_num_op.def_onnx
def _nan_to_num_onnx(g, x, nan, posinf, neginf):
    dtype = g.meta(x).dtype
    if dtype.kind != 'f':
        return g.op('Identity', x)
    info = np.finfo(dtype)
    big = g.scalar(info.max if posinf is None else posinf, dtype)
    low = g.scalar(info.min if neginf is None else neginf, dtype)
    x = g.op('Where', g.op('IsNaN', x), g.scalar(nan, dtype), x)
    x = g.op('Where', g.op('IsInf', x, detect_negative=0), big, x)
    return g.op('Where', g.op('IsInf', x, detect_positive=0), low, x)


# ---- frexp: mantissa and exponent ----------------------------------------------------

def _frexp_meta(x):
    m = _float_meta(x)
    return m, Meta(m.shape, m.dtype)


@def_op('frexp', _frexp_meta, inputs=('x',), outputs=('mantissa', 'exponent'), attrs={},
        nondiff_outputs=('exponent',), pattern='opaque')
def frexp_op(x):
    """``x = mantissa * 2 ** exponent`` with ``0.5 <= |mantissa| < 1``; both
    outputs in x's float dtype (as Paddle)."""
    x = _as_float(x)
    mantissa, exponent = np.frexp(x)
    return mantissa, exponent.astype(x.dtype)


@frexp_op.def_grad
def _frexp_grad(g, g_exponent, x, mantissa, exponent):
    return g * pow_op(2.0, -exponent)


@frexp_op.def_fast_grad
def _frexp_fast(g, g_exponent, x, mantissa, exponent):
    return g * np.exp2(-exponent)


# ---- binary float ops -----------------------------------------------------------------

def _float_pair(x, y):
    """numpy: promoted operands (one dtype) in floating point."""
    if _dt.is_inexact(x.dtype):
        return x, y
    d = _dt.default_float()
    return x.astype(d), y.astype(d)


def _atan2_meta(x, y):
    # Paddle computes integer operands in float64
    d = meta.result_dtype(x, y)
    return Meta(meta.broadcast_shapes(meta.shape_of(x), meta.shape_of(y)),
                d if d.kind in 'fc' else np.float64)


@def_op('atan2', _atan2_meta, promote=('x', 'y'), pattern='broadcast', ufunc=None, identity=None,
        flops=None)
def atan2_op(x, y):
    """The angle of the point (y, x): ``arctan(x / y)`` in the right quadrant
    (Paddle's argument order: x is the numerator)."""
    if x.dtype.kind not in 'fc':
        x, y = x.astype(np.float64), y.astype(np.float64)
    return np.arctan2(x, y)


@atan2_op.def_grad
def _atan2_grad(g, x, y, out):
    r = x * x + y * y
    return sum_like(g * y / r, x), sum_like(-g * x / r, y)


@atan2_op.def_fast_grad
def _atan2_fast(g, x, y, out):
    with np.errstate(divide='ignore', invalid='ignore'):
        r = g / (x * x + y * y)
    return ub(r * y, x), ub(-r * x, y)


@atan2_op.def_onnx
def _atan2_onnx(g, x, y):
    # arctan(x / y) moved into the quadrant of the point (y, x)
    x, y = g.cast_to_output(x, y)
    dtype = g.meta(x).dtype
    zero, pi = g.scalar(0, dtype), g.scalar(_PI, dtype)
    safe_y = g.op('Where', g.op('Equal', y, zero), g.scalar(1, dtype), y)
    base = g.op('Atan', g.op('Div', x, safe_y))
    up = g.op('Where', g.op('Less', x, zero), g.op('Neg', pi), pi)
    left = g.op('Add', base, up)
    on_axis = g.op('Mul', g.op('Sign', x), g.scalar(_PI / 2, dtype))
    return g.op('Where', g.op('Greater', y, zero), base,
                g.op('Where', g.op('Less', y, zero), left, on_axis))


@def_op('hypot', meta.broadcast_float, promote=('x', 'y'), pattern='broadcast', ufunc=None,
        identity=None, flops=None)
def hypot_op(x, y):
    """``sqrt(x**2 + y**2)`` without intermediate overflow."""
    return np.hypot(*_float_pair(x, y))


@hypot_op.def_grad
def _hypot_grad(g, x, y, out):
    gr = g / out
    return sum_like(gr * x, x), sum_like(gr * y, y)


@hypot_op.def_fast_grad
def _hypot_fast(g, x, y, out):
    with np.errstate(divide='ignore', invalid='ignore'):
        gr = g / out
    return ub(gr * x, x), ub(gr * y, y)


@hypot_op.def_onnx
def _hypot_onnx(g, x, y):
    x, y = g.cast_to_output(x, y)
    return g.op('Sqrt', g.op('Add', g.op('Mul', x, x), g.op('Mul', y, y)))


@def_op('logaddexp', meta.broadcast_float, promote=('x', 'y'), pattern='broadcast', ufunc=None,
        identity=None, flops=None)
def logaddexp_op(x, y):
    """``log(exp(x) + exp(y))`` computed without overflow."""
    return np.logaddexp(*_float_pair(x, y))


@logaddexp_op.def_grad
def _logaddexp_grad(g, x, y, out):
    return sum_like(g * exp_op(x - out), x), sum_like(g * exp_op(y - out), y)


@logaddexp_op.def_fast_grad
def _logaddexp_fast(g, x, y, out):
    with np.errstate(invalid='ignore'):
        return ub(g * np.exp(x - out), x), ub(g * np.exp(y - out), y)


@logaddexp_op.def_onnx
def _logaddexp_onnx(g, x, y):
    # max + log1p(exp(-|x - y|)); equal operands (both infinite too) give x + log 2
    x, y = g.cast_to_output(x, y)
    dtype = g.meta(x).dtype
    e = g.op('Exp', g.op('Neg', g.op('Abs', g.op('Sub', x, y))))
    out = g.op('Add', g.op('Max', x, y), g.op('Log', g.op('Add', e, g.scalar(1, dtype))))
    return g.op('Where', g.op('Equal', x, y), g.op('Add', x, g.scalar(_LN2, dtype)), out)


def _ldexp_meta(x, y):
    return meta.broadcast_float(x, y)


@def_op('ldexp', _ldexp_meta, promote=('x', 'y'), pattern='broadcast', ufunc=None, identity=None,
        flops=None)
def ldexp_op(x, y):
    """``x * 2 ** y`` (in floating point; integer operands give the default float)."""
    x, y = _float_pair(x, y)
    return x * np.exp2(y)


@ldexp_op.def_grad
def _ldexp_grad(g, x, y, out):
    return sum_like(g * pow_op(2.0, y), x), sum_like(g * out * _LN2, y)


@ldexp_op.def_fast_grad
def _ldexp_fast(g, x, y, out):
    return ub(g * np.exp2(y), x), ub(g * out * _LN2, y)


@ldexp_op.def_onnx
def _ldexp_onnx(g, x, y):
    x, y = g.cast_to_output(x, y)
    return g.op('Mul', x, g.op('Pow', g.scalar(2, g.meta(x).dtype), y))


@def_op('copysign', meta.broadcast, promote=('x', 'y'), pattern='broadcast', ufunc=None,
        identity=None, flops=None)
def copysign_op(x, y):
    """``|x|`` with the sign of ``y`` (signed zeros count: -0.0 is negative);
    integer tensors stay integer, as in Paddle."""
    if _dt.is_inexact(x.dtype):
        return np.copysign(x, y)
    mag = np.abs(x)
    return np.where(y < 0, -mag, mag).astype(x.dtype, copy=False)


@copysign_op.def_grad
def _copysign_grad(g, x, y, out):
    # d|x|/dx = sign(x) (0 at 0, as Paddle), times the sign taken from y
    flip = cast_like(signbit_op(y), g) * -2.0 + 1.0
    # y only lends its sign: its gradient is 0, a connected zero as in Paddle
    return sum_like(g * multiply_op(sign_op(x), flip), x), sum_like(g * 0.0, y)


@copysign_op.def_fast_grad
def _copysign_fast(g, x, y, out):
    return (ub(g * np.sign(x) * np.where(np.signbit(y), -1.0, 1.0), x),
            ub(np.zeros_like(g), y))


@copysign_op.def_onnx
def _copysign_onnx(g, x, y):
    mag = g.op('Abs', x)
    return g.op('Where', onnx_signbit(g, y), g.op('Neg', mag), mag)


def _nextafter_meta(x, y):
    out = meta.broadcast(x, y)
    if not _dt.is_floating(out.dtype):
        raise OpError("nextafter needs float tensors, got dtype %s" % out.dtype)
    return out


@def_op('nextafter', _nextafter_meta, promote=('x', 'y'), differentiable=False,
        pattern='broadcast', ufunc=None, identity=None, flops=None)
def nextafter_op(x, y):
    """The next representable float after ``x`` towards ``y``."""
    if not _dt.is_floating(x.dtype):
        raise OpError("nextafter needs float tensors, got dtype %s" % x.dtype)
    return np.nextafter(x, y)


@def_op('heaviside', meta.broadcast, promote=('x', 'y'), pattern='broadcast', ufunc=None,
        identity=None, flops=None)
def heaviside_op(x, y):
    """0 where x < 0, ``y`` where x == 0, 1 where x > 0."""
    return np.where(x == 0, y, x > 0).astype(x.dtype, copy=False)


@heaviside_op.def_grad
def _heaviside_grad(g, x, y, out):
    gx = sum_like(lib.zeros_like(g), x)
    return gx, sum_like(g * cast_like(equal_op(x, 0.0), g), y)


@heaviside_op.def_fast_grad
def _heaviside_fast(g, x, y, out):
    gx = ub(np.zeros_like(g), x)
    return gx, ub(g * (x == 0), y)


@heaviside_op.def_onnx
def _heaviside_onnx(g, x, y):
    dtype = g.meta(x).dtype
    zero = g.scalar(0, dtype)
    step = g.op('Cast', g.op('Greater', x, zero), to=g.tensor_type(dtype))
    return g.op('Where', g.op('Equal', x, zero), y, step)


def _nan_ignoring(name, ufunc, keep_x, keep_x_np):
    """``fmax``/``fmin``: a NaN loses to a number. The result, and so the
    gradient, comes from x where ``keep_x(x, y)`` holds (ties go to x) or y
    is NaN; ``keep_x_np`` is the same test on arrays."""
    op = def_op(name, meta.broadcast, inputs=('x', 'y'), attrs={}, promote=('x', 'y'),
                pattern='broadcast', ufunc=ufunc, identity=None, flops=flops_per_input_element,
                paddle_names=('elementwise_' + name,))(lambda x, y: ufunc(x, y))
    op.doc = "Elementwise %s, ignoring NaN (NaN only where both are NaN)." % name[1:]

    @op.def_grad
    def grad(g, x, y, out):
        mask = cast_like(logical_or_op(keep_x(x, y), isnan_op(y)), g)
        return sum_like(g * mask, x), sum_like(g * (1 - mask), y)

    @op.def_fast_grad
    def fast(g, x, y, out):
        with np.errstate(invalid='ignore'):
            gx = g * (keep_x_np(x, y) | np.isnan(y))
        return ub(gx, x), ub(g - gx, y)
    return op


fmax_op = _nan_ignoring('fmax', np.fmax, greater_equal_op, np.greater_equal)
fmin_op = _nan_ignoring('fmin', np.fmin, less_equal_op, np.less_equal)


def _onnx_nan_ignoring(onnx_type):
    def lower(g, x, y):
        if g.meta(x).dtype.kind != 'f':
            return g.op(onnx_type, x, y)
        both = g.op(onnx_type, x, y)
        return g.op('Where', g.op('IsNaN', y), x, g.op('Where', g.op('IsNaN', x), y, both))
    return lower


fmax_op.def_onnx(_onnx_nan_ignoring('Max'))
fmin_op.def_onnx(_onnx_nan_ignoring('Min'))


# ---- integer ops: gcd, lcm, bit shifts (no gradient) ----------------------------------

def _int_meta(api):
    def infer(x, y, *attrs):
        for m in (x, y):
            if not meta.is_scalar(m) and np.dtype(m.dtype).kind not in 'iu':
                raise OpError("%s needs integer tensors, got dtype %s (shape %s)"
                              % (api, np.dtype(m.dtype), list(meta.shape_of(m))))
            if isinstance(m, float):
                raise OpError("%s needs integer operands, got the float %r" % (api, m))
        return meta.broadcast(x, y)
    return infer


def _int_kernel(api, fn):
    def kernel(x, y, *attrs):
        if x.dtype.kind not in 'iu':
            _int_meta(api)(x, y)
        return fn(x, y, *attrs)
    return kernel


gcd_op = def_op('gcd', _int_meta('gcd'), inputs=('x', 'y'), attrs={}, differentiable=False,
                promote=('x', 'y'), pattern='broadcast', ufunc=None,
                identity=None, flops=None)(_int_kernel('gcd', np.gcd))
lcm_op = def_op('lcm', _int_meta('lcm'), inputs=('x', 'y'), attrs={}, differentiable=False,
                promote=('x', 'y'), pattern='broadcast', ufunc=None,
                identity=None, flops=None)(_int_kernel('lcm', np.lcm))


def _bits(dtype):
    return np.dtype(dtype).itemsize * 8


def _left_shift(x, y, is_arithmetic=True):
    """``x << y``; shifting by a negative count or by the width or more gives 0."""
    n = _bits(x.dtype)
    inside = (y >= 0) & (y < n)
    shifted = np.left_shift(x, np.where(inside, y, 0).astype(x.dtype, copy=False))
    return np.where(inside, shifted, 0).astype(x.dtype, copy=False)


def _right_shift(x, y, is_arithmetic=True):
    """``x >> y``. Arithmetic shifts fill with the sign bit (out-of-range
    counts give 0 or -1); logical ones shift the bit pattern as unsigned and
    fill with zeros (out-of-range counts give 0)."""
    n = _bits(x.dtype)
    inside = (y >= 0) & (y < n)
    count = np.where(inside, y, 0).astype(x.dtype, copy=False)
    if is_arithmetic or x.dtype.kind == 'u':
        fill = np.where(x < 0, -1, 0) if x.dtype.kind == 'i' else 0
        return np.where(inside, np.right_shift(x, count), fill).astype(x.dtype, copy=False)
    unsigned = np.dtype('u%d' % x.dtype.itemsize)
    bits = np.right_shift(x.view(unsigned) if x.flags.c_contiguous else
                          np.ascontiguousarray(x).view(unsigned), count.astype(unsigned))
    return np.where(inside, bits.view(x.dtype), 0).astype(x.dtype, copy=False)


left_shift_op = def_op('bitwise_left_shift', _int_meta('bitwise_left_shift'),
                       inputs=('x', 'y'), attrs={'is_arithmetic': True}, differentiable=False,
                       promote=('x', 'y'), pattern='broadcast', ufunc=None,
                       identity=None, flops=None)(_int_kernel('bitwise_left_shift', _left_shift))
right_shift_op = def_op('bitwise_right_shift', _int_meta('bitwise_right_shift'),
                        inputs=('x', 'y'), attrs={'is_arithmetic': True}, differentiable=False,
                        promote=('x', 'y'), pattern='broadcast', ufunc=None,
                        identity=None, flops=None)(_int_kernel('bitwise_right_shift',
                                                               _right_shift))


# ---- test cases ------------------------------------------------------------------------

_rng = np.random.default_rng(21)
_r = _rng.standard_normal
_u = _rng.uniform


def _vec(fn, otype=float):
    return np.vectorize(fn, otypes=[otype])


def _unary_cases(op, fn, lo, hi, otype=float, **opts):
    """Two ranks, a 0-d, a 0-size and a float32 case inside [lo, hi]."""
    ref = _vec(fn, otype)
    add_test_case(op, _u(lo, hi, (3, 4)), ref=ref, **opts)
    add_test_case(op, _u(lo, hi, (2, 1, 3)), ref=ref, **opts)
    add_test_case(op, np.asarray(_u(lo, hi)), ref=ref, **opts)
    add_test_case(op, np.zeros((0, 3)), ref=lambda x: np.zeros((0, 3), otype))
    add_test_case(op, _u(lo, hi, 5).astype(np.float32), ref=ref, grad=False,
                  rtol=1e-5, atol=1e-5)


def _sinc_ref(v):
    return 1.0 if v == 0 else math.sin(_PI * v) / (_PI * v)


_unary_cases(acosh_op, math.acosh, 1.1, 4)
_unary_cases(asinh_op, math.asinh, -3, 3)
_unary_cases(atanh_op, math.atanh, -0.9, 0.9)
_unary_cases(expm1_op, math.expm1, -2, 2)
_unary_cases(sinc_op, _sinc_ref, -2.5, 2.5)
add_test_case(sinc_op, np.array([0.0, 1.0, -0.5, 1e-9]), ref=_vec(_sinc_ref),
              grad=False)   # forward at 0 and near it
_unary_cases(deg2rad_op, math.radians, -400, 400)
_unary_cases(rad2deg_op, math.degrees, -7, 7)
add_test_case(deg2rad_op, np.array([180, -90], np.int32),
              ref=lambda x: np.array([_PI, -_PI / 2], np.float32))
_unary_cases(frac_op, lambda v: v - math.trunc(v), -5, 5)
add_test_case(frac_op, np.array([-3, 4]), ref=lambda x: np.zeros(2, np.int64))
add_test_case(nan_to_num_op, np.array([np.nan, np.inf, -np.inf, 1.5, -2.0]), 0.0, None, None,
              ref=lambda x, n, p, m: np.array([0.0, np.finfo(np.float64).max,
                                               np.finfo(np.float64).min, 1.5, -2.0]),
              grad=False)
add_test_case(nan_to_num_op, np.array([np.nan, np.inf, -np.inf], np.float32), 1.0, 2.0, -3.0,
              ref=lambda x, n, p, m: np.array([1.0, 2.0, -3.0], np.float32), grad=False)
add_test_case(nan_to_num_op, _r((3, 4)), 0.0, None, None, ref=lambda x, n, p, m: x)
add_test_case(nan_to_num_op, np.asarray(-1.5), 0.0, None, None, ref=lambda x, n, p, m: x)
add_test_case(nan_to_num_op, np.zeros((0, 2)), 0.0, None, None, ref=lambda x, n, p, m: x)
add_test_case(nan_to_num_op, np.array([3, -1]), 0.0, None, None, ref=lambda x, n, p, m: x)
_SPECIAL = np.array([-np.inf, -2.5, -0.0, 0.0, 1.0, np.inf, np.nan])
add_test_case(signbit_op, _SPECIAL, ref=_vec(lambda v: math.copysign(1.0, v) < 0, bool))
add_test_case(signbit_op, np.array([[-3, 0], [2, -1]]), ref=lambda x: x < 0)
add_test_case(isposinf_op, _SPECIAL, ref=_vec(lambda v: v == math.inf, bool))
add_test_case(isneginf_op, _SPECIAL.reshape(7, 1), ref=_vec(lambda v: v == -math.inf, bool))
add_test_case(isneginf_op, np.array([-3, 0]), ref=lambda x: np.zeros(2, bool))


def _frexp_ref(x):
    pairs = [math.frexp(v) for v in x.reshape(-1)]
    return (np.array([p[0] for p in pairs]).reshape(x.shape),
            np.array([p[1] for p in pairs], float).reshape(x.shape))


add_test_case(frexp_op, _r((3, 4)) * 50, ref=_frexp_ref)
add_test_case(frexp_op, np.asarray(-0.3), ref=_frexp_ref)
add_test_case(frexp_op, np.array([0.0, 1.0, -3.5, 1000.0]), ref=_frexp_ref, grad=False)
add_test_case(frexp_op, np.zeros((0, 2)), ref=_frexp_ref)
add_test_case(frexp_op, np.array([6, -1], np.int32),
              ref=lambda x: (np.array([0.75, -0.5], np.float32), np.array([3, 1], np.float32)))


def _binary_cases(op, fn, lo=-3, hi=3, lo2=None, hi2=None, otype=float, **opts):
    """Broadcasting ranks, 0-d, 0-size and float32 cases."""
    lo2 = lo if lo2 is None else lo2
    hi2 = hi if hi2 is None else hi2
    ref = _vec(fn, otype)
    add_test_case(op, _u(lo, hi, (3, 4)), _u(lo2, hi2, 4), ref=ref, **opts)
    add_test_case(op, _u(lo, hi, (2, 1, 3)), _u(lo2, hi2, (4, 1)), ref=ref, **opts)
    add_test_case(op, np.asarray(_u(lo, hi)), np.asarray(_u(lo2, hi2)), ref=ref, **opts)
    add_test_case(op, np.zeros((0, 3)), _u(lo2, hi2, 3), ref=lambda x, y: np.zeros((0, 3), otype))
    add_test_case(op, _u(lo, hi, 5).astype(np.float32), _u(lo2, hi2, 5).astype(np.float32),
                  ref=ref, grad=False, rtol=1e-5, atol=1e-5)


_binary_cases(atan2_op, math.atan2)
add_test_case(atan2_op, np.array([1, -2]), np.array([-1, 0]),
              ref=lambda x, y: np.array([math.atan2(1, -1), math.atan2(-2, 0)]))
_binary_cases(hypot_op, math.hypot, 0.2, 3, -3, -0.2)
_binary_cases(logaddexp_op, lambda a, b: max(a, b) + math.log1p(math.exp(-abs(a - b))))
add_test_case(logaddexp_op, np.array([1000.0, -1000.0]), np.array([1000.0, -1001.0]),
              ref=lambda x, y: np.array([1000 + _LN2, -1000 + math.log1p(math.exp(-1))]),
              grad=False)
_binary_cases(ldexp_op, lambda a, b: a * 2.0 ** b)
add_test_case(ldexp_op, np.array([3, -1]), np.array([2, -1], np.int32),
              ref=lambda x, y: np.array([12.0, -0.5], np.float32))
_binary_cases(copysign_op, math.copysign, -3, 3, -2, 2)
add_test_case(copysign_op, np.array([1, -2, 3, 0]), np.array([2, 3, -4, 0]),
              ref=lambda x, y: np.array([1, 2, -3, 0]))
add_test_case(copysign_op, np.array([1.5, -2.0]), np.array([-0.0, 0.0]),
              ref=lambda x, y: np.array([-1.5, 2.0]), grad=False)
add_test_case(nextafter_op, np.array([1.0, 0.0, -1.0]), np.array([2.0, -1.0, -1.0]),
              ref=lambda x, y: np.array([1.0 + 2.0 ** -52, -5e-324, -1.0]))
add_test_case(nextafter_op, np.array([[1.0], [2.0]], np.float32), np.array([0.0, 5.0], np.float32),
              ref=lambda x, y: np.array([[1 - 2.0 ** -24, 1 + 2.0 ** -23],
                                         [2 - 2.0 ** -23, 2 + 2.0 ** -22]], np.float32))
_binary_cases(heaviside_op, lambda a, b: b if a == 0 else float(a > 0))
add_test_case(heaviside_op, np.array([-1.0, 0.0, 2.0, 0.0]), np.array([0.5, 0.25, 0.5, -1.0]),
              ref=lambda x, y: np.array([0.0, 0.25, 1.0, -1.0]), grad_inputs=(1,))
add_test_case(heaviside_op, np.array([-3, 0, 4]), np.array([7, 7, 7]),
              ref=lambda x, y: np.array([0, 7, 1]))
for _op, _fn in [(fmax_op, max), (fmin_op, min)]:
    _binary_cases(_op, _fn)
    add_test_case(_op, np.array([np.nan, 1.0, np.nan, 2.0]), np.array([1.0, np.nan, np.nan, 2.0]),
                  ref=lambda x, y, f=_fn: np.array([1.0, 1.0, np.nan, 2.0]), grad=False)
    add_test_case(_op, np.array([[1, 5], [-2, 0]]), np.array([3, -4]),
                  ref=lambda x, y, f=_fn: _vec(f, np.int64)(x, y))
add_test_case(gcd_op, np.array([[12, -18, 0], [7, 0, 9]]), np.array([8, 12, 5]),
              ref=_vec(math.gcd, np.int64))
add_test_case(gcd_op, np.asarray(0), np.asarray(0), ref=lambda x, y: np.asarray(0))
add_test_case(lcm_op, np.array([[4, -6, 0], [3, 5, 7]], np.int32), np.array([6, 4, 5], np.int32),
              ref=_vec(lambda a, b: abs(a * b) // math.gcd(a, b) if a and b else 0, np.int32))


def _shift_ref(left, arithmetic):
    def ref(x, y, is_arithmetic=True):
        n = x.dtype.itemsize * 8
        out = []
        for a, s in zip(*(v.reshape(-1) for v in np.broadcast_arrays(x, y))):
            a, s = int(a), int(s)
            u = a % (1 << n)                       # the bit pattern
            if left:
                u = (u << s) % (1 << n) if 0 <= s < n else 0
            elif is_arithmetic or x.dtype.kind == 'u':
                u = (a >> s) % (1 << n) if 0 <= s < n else (-1 if a < 0 else 0) % (1 << n)
            else:
                u = u >> s if 0 <= s < n else 0
            out.append(u - (1 << n) if x.dtype.kind == 'i' and u >= 1 << (n - 1) else u)
        return np.array(out, x.dtype).reshape(np.broadcast(x, y).shape)
    return ref


_sx = np.array([-8, 5, 1, -1, 2 ** 30, -(2 ** 31)], np.int32)
_sy = np.array([1, 2, 31, 33, -1, 4], np.int32)
for _arith in (True, False):
    # a logical shift of a negative number depends on the width of its bit pattern
    add_test_case(left_shift_op, _sx, _sy, _arith, ref=_shift_ref(True, _arith))
    add_test_case(right_shift_op, _sx, _sy, _arith, ref=_shift_ref(False, _arith),
                  dtype_invariant=_arith)
    add_test_case(right_shift_op, np.array([[-128, 64, -1]], np.int8),
                  np.array([[1], [7], [8]], np.int8), _arith, ref=_shift_ref(False, _arith),
                  dtype_invariant=_arith)
add_test_case(left_shift_op, np.array([200, 5, 255], np.uint8), np.array([1, 2, 9], np.uint8),
              True, ref=_shift_ref(True, True))
add_test_case(right_shift_op, np.array([200, 5, 255], np.uint8), np.asarray(3, np.uint8),
              False, ref=_shift_ref(False, False))


# ---- public API (Paddle names and signatures) ----------------------------------------

def acosh(x, name=None, *, out=None):
    """Inverse hyperbolic cosine (NaN below 1)."""
    r = acosh_op(x)
    return r if out is None else write_out(out, r)


def asinh(x, name=None):
    """Inverse hyperbolic sine."""
    return asinh_op(x)


def atanh(x, name=None, *, out=None):
    """Inverse hyperbolic tangent (+-inf at +-1, NaN beyond)."""
    r = atanh_op(x)
    return r if out is None else write_out(out, r)


def expm1(x, name=None, *, out=None):
    """``exp(x) - 1``, accurate for small x.

    >>> import framework as paddle
    >>> round(paddle.expm1(paddle.to_tensor(1e-10, 'float64')).item() * 1e10, 6)
    1.0
    """
    r = expm1_op(x)
    return r if out is None else write_out(out, r)


def sinc(x, name=None):
    """The normalized sinc function ``sin(pi x) / (pi x)`` (1 at 0)."""
    return sinc_op(x)


def deg2rad(x, name=None):
    """Degrees to radians (integer tensors give the default float dtype)."""
    return deg2rad_op(x)


def rad2deg(x, name=None):
    """Radians to degrees (integer tensors give the default float dtype)."""
    return rad2deg_op(x)


def frac(x, name=None, *, out=None):
    """The fractional part ``x - trunc(x)`` (keeps the sign of x; 0 for integers)."""
    r = frac_op(x)
    return r if out is None else write_out(out, r)


def signbit(x, name=None):
    """True where the sign bit is set (negative numbers and -0.0)."""
    return signbit_op(x)


def isposinf(x, name=None):
    return isposinf_op(x)


def isneginf(x, name=None):
    return isneginf_op(x)


def positive(x, name=None):
    """``+x``: the tensor itself (bool tensors are refused, as in Paddle)."""
    if np.dtype(x.dtype) == np.bool_:
        raise TypeError("positive: the `+` operator is not supported on a bool tensor")
    return x


def negative(x, name=None):
    """``-x`` (bool tensors are refused, as in Paddle)."""
    if np.dtype(x.dtype) == np.bool_:
        raise TypeError("negative: the `-` operator is not supported on a bool tensor")
    return neg_op(x)


def nan_to_num(x, nan=0.0, posinf=None, neginf=None, name=None):
    """Replace NaN by ``nan``, +inf by ``posinf`` and -inf by ``neginf``
    (None: the largest / lowest finite value of x's dtype)."""
    return nan_to_num_op(x, float(nan), None if posinf is None else float(posinf),
                         None if neginf is None else float(neginf))


def frexp(x, name=None):
    """``(mantissa, exponent)`` with ``x = mantissa * 2 ** exponent`` and
    ``0.5 <= |mantissa| < 1`` (0 for 0); both in x's float dtype."""
    return frexp_op(x)


def atan2(x, y, name=None):
    """Elementwise ``arctan(x / y)`` in the quadrant of (y, x)."""
    return atan2_op(x, y)


def hypot(x, y, name=None):
    """``sqrt(x ** 2 + y ** 2)``."""
    return hypot_op(x, y)


def logaddexp(x, y, name=None):
    """``log(exp(x) + exp(y))`` without overflow."""
    return logaddexp_op(x, y)


def copysign(x, y, name=None):
    """``|x|`` with the sign of ``y`` (``y`` may be a number)."""
    return copysign_op(x, y)


def nextafter(x, y, name=None):
    """The next float after ``x`` in the direction of ``y``."""
    return nextafter_op(x, y)


def ldexp(x, y, name=None):
    """``x * 2 ** y``."""
    return ldexp_op(x, y)


def heaviside(x, y, name=None):
    """Heaviside step: 0 for x < 0, ``y`` for x == 0, 1 for x > 0."""
    return heaviside_op(x, y)


def fmax(x, y, name=None):
    """Elementwise maximum that ignores NaN (``maximum`` propagates it)."""
    return fmax_op(x, y)


def fmin(x, y, name=None):
    """Elementwise minimum that ignores NaN (``minimum`` propagates it)."""
    return fmin_op(x, y)


def gcd(x, y, name=None):
    """Greatest common divisor of integer tensors (non-negative; gcd(0, 0) = 0)."""
    return gcd_op(x, y)


def lcm(x, y, name=None):
    """Least common multiple of integer tensors (non-negative; 0 if either is 0)."""
    return lcm_op(x, y)


def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """``x << y`` on integer tensors (arithmetic and logical left shifts agree)."""
    r = left_shift_op(x, y, bool(is_arithmetic))
    return r if out is None else write_out(out, r)


def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """``x >> y``: arithmetic (sign-filling) or, with ``is_arithmetic=False``,
    logical (zero-filling) for signed integers."""
    r = right_shift_op(x, y, bool(is_arithmetic))
    return r if out is None else write_out(out, r)


__all__ = ['acosh', 'asinh', 'atanh', 'expm1', 'sinc', 'deg2rad', 'rad2deg', 'frac',
           'signbit', 'isposinf', 'isneginf', 'positive', 'negative', 'nan_to_num',
           'frexp', 'atan2', 'hypot', 'logaddexp', 'copysign', 'nextafter', 'ldexp',
           'heaviside', 'fmax', 'fmin', 'gcd', 'lcm', 'bitwise_left_shift',
           'bitwise_right_shift']
TENSOR_METHODS = {n: globals()[n] for n in __all__}
INPLACE_METHODS = {
    'acosh_': 'acosh', 'asinh_': 'asinh', 'atanh_': 'atanh', 'expm1_': 'expm1',
    'sinc_': 'sinc', 'frac_': 'frac', 'nan_to_num_': 'nan_to_num', 'hypot_': 'hypot',
    'copysign_': 'copysign', 'ldexp_': 'ldexp', 'gcd_': 'gcd', 'lcm_': 'lcm',
    # Paddle's in-place shifts keep the base's arguments, ``out`` included
    'bitwise_left_shift_': bitwise_left_shift, 'bitwise_right_shift_': bitwise_right_shift,
}
