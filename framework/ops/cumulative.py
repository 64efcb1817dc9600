"""Scans and differences along an axis: cumprod, logcumsumexp, cummax/cummin,
diff, trapezoid and cumulative_trapezoid (cumsum lives in ``ops/math.py``).

``cumprod``'s gradient is exact at zeros: the usual reverse-cumsum of
``g * out`` divided by x is right wherever x != 0, and at the first zero of
a slice the rule recomputes the products with that zero replaced by 1. At
the second zero the gradient is 0 but not its derivative in the first zero,
so the rule writes it as ``x[first zero] * (the products with both zeros
replaced by 1)``; later zeros give 0. Second derivatives are so exact
everywhere; third ones miss terms where a slice holds three or more zeros.
``logcumsumexp``'s gradient is a scan whose every step multiplies by a
factor of at most 1 (``lcse_scan``), so it never overflows, and it is
linear in the cotangent, so forward mode works through it too. ``cummax``/``cummin`` find indices with a
registered op and read the values with ``take_along_axis``, so the gradient
goes to the element each running extreme came from, as in Paddle.
"""
import math

import numpy as np

from .. import dtype as _dt
from . import lib, meta
from . import math as _m
from . import reduce as _r
from .out_param import write_out
from .registry import Meta, OpError, add_test_case, def_op

_ndarray = np.ndarray



def _where(cond, a, b):
    return lib.where_op(cond, a, b)


def _axis_meta(x, axis=-1, *rest):
    shape = meta.shape_of(x)
    if shape:
        meta.normalize_axis(axis, len(shape))
    return Meta(shape, meta.dtype_of(x))


# ---- cumprod -----------------------------------------------------------------------------

@def_op('cumprod', _axis_meta, pattern='opaque', amp='black')
def cumprod_op(x, axis=-1):
    """Cumulative product along ``axis`` (keeps the dtype)."""
    if x.ndim == 0:
        return x.copy()
    return np.cumprod(x, axis, dtype=x.dtype)


@cumprod_op.def_grad
def _cumprod_grad(g, x, out, axis):
    if not x.shape:
        return g
    zero = _m.equal_op(x, 0.0)
    count = _m.cumsum_op(_m.cast_like(zero, x), axis, False)   # zeros up to each position
    first_zero = _m.logical_and_op(zero, _m.equal_op(count, 1.0))
    second_zero = _m.logical_and_op(zero, _m.equal_op(count, 2.0))
    plain = _m.cumsum_op(g * out, axis, True) / _where(zero, 1.0, x)   # exact where x != 0
    at_first = _m.cumsum_op(g * cumprod_op(_where(first_zero, 1.0, x), axis), axis, True)
    first_value = _r.sum_op(_where(first_zero, x, 0.0), (axis,), True, None)
    both_as_one = _where(_m.logical_and_op(zero, _m.less_equal_op(count, 2.0)), 1.0, x)
    at_second = first_value * _m.cumsum_op(g * cumprod_op(both_as_one, axis), axis, True)
    return _where(first_zero, at_first,
                  _where(second_zero, at_second, _where(zero, 0.0, plain)))


@cumprod_op.def_fast_grad
def _cumprod_fast(g, x, out, axis):
    if x.ndim == 0:
        return g
    rev = lambda v: np.flip(np.cumsum(np.flip(v, axis), axis), axis)  # noqa: E731
    zero = x == 0
    if not zero.any():
        return rev(g * out) / x
    first_zero = zero & (np.cumsum(zero, axis) == 1)
    plain = rev(g * out) / np.where(zero, 1, x)
    at_zero = rev(g * np.cumprod(np.where(first_zero, 1, x), axis))
    return np.where(first_zero, at_zero, np.where(zero, 0, plain))


# ---- logcumsumexp ---------------------------------------------------------------------------

def _lcse_meta(x, axis=-1, reverse=False):
    m = _axis_meta(x, axis)
    return Meta(m.shape, m.dtype if m.dtype.kind in 'fc' else _dt.default_float())


@def_op('logcumsumexp', _lcse_meta, pattern='opaque')
def logcumsumexp_op(x, axis=-1, reverse=False):
    """``log(cumsum(exp(x)))`` along ``axis`` without overflow (``reverse``
    accumulates from the end)."""
    if x.dtype.kind not in 'fc':
        x = x.astype(_dt.default_float())
    if x.ndim == 0:
        return x.copy()
    if reverse:
        return np.flip(np.logaddexp.accumulate(np.flip(x, axis), axis), axis)
    return np.logaddexp.accumulate(x, axis)


# The gradient of logcumsumexp is a weighted scan, Paddle's rule for every
# order: for out_j = log sum_{i<=j} exp(x_i), d out_j / d x_i = exp(x_i - out_j),
# so the vjp is A(g)_i = sum_{j>=i} g_j exp(x_i - out_j). ``lcse_scan`` is that
# scan and its three relatives, picked by where x is read (the result's own
# position or the summed one) and which side is summed; each is linear in its
# first input, and its gradients are the others, so derivatives of any order
# (and forward mode, which differentiates the vjp in g) stay scans.

def _lcse_scan_meta(v, x, out, axis=-1, later=True, x_at_result=True):
    return _axis_meta(v, axis)


@def_op('lcse_scan', _lcse_scan_meta, pattern='opaque')
def lcse_scan_op(v, x, out, axis=-1, later=True, x_at_result=True):
    """``sum_j v_j exp(x_i - out_j)`` (``x_at_result``) or ``sum_j v_j
    exp(x_j - out_i)`` over j >= i (``later``) or j <= i, for the ``out`` of a
    logcumsumexp running away from i's summed side, so every factor of the
    recurrence below is at most 1 and nothing overflows."""
    if v.ndim == 0:
        return (v * np.exp(x - out)).astype(v.dtype)
    vm, xm, om = (np.moveaxis(a, axis, 0) for a in (v, x, out))
    n = vm.shape[0]
    res = np.empty_like(vm)
    order = range(n - 1, -1, -1) if later else range(n)
    acc, prev = None, None
    with np.errstate(invalid='ignore', over='ignore'):
        for i in order:
            if x_at_result:
                acc = vm[i] if acc is None else vm[i] + np.exp(om[i] - om[prev]) * acc
                res[i] = np.exp(xm[i] - om[i]) * acc
            else:
                own = vm[i] * np.exp(xm[i] - om[i])
                acc = own if acc is None else own + np.exp(om[prev] - om[i]) * acc
                res[i] = acc
            prev = i
    return np.moveaxis(res, 0, axis)


@lcse_scan_op.def_grad
def _lcse_scan_grad(h, v, x, out, result, axis, later, x_at_result):
    adjoint = lcse_scan_op(h, x, out, axis, not later, not x_at_result)
    if x_at_result:
        return adjoint, h * result, -(v * adjoint)
    return adjoint, v * adjoint, -(h * result)


@logcumsumexp_op.def_grad
def _lcse_grad(g, x, out, axis, reverse):
    if not x.shape:
        return g
    return lcse_scan_op(g, x, out, axis, not reverse, True)


@logcumsumexp_op.def_fast_grad
def _lcse_fast(g, x, out, axis, reverse):
    if x.ndim == 0:
        return g
    return lcse_scan_op.kernel(g, x, out, axis, not reverse, True)


# ---- cummax / cummin indices ------------------------------------------------------------------

def _cum_index_meta(x, axis=-1, largest=True):
    return Meta(_axis_meta(x, axis).shape, np.int64)


@def_op('cum_extreme_index', _cum_index_meta, differentiable=False, pattern='opaque')
def cum_extreme_index_op(x, axis=-1, largest=True):
    """For each position along ``axis``, the index its running maximum
    (``largest``) or minimum came from: the latest of equal values, and a
    NaN, once met, stays the extreme (Paddle's cummax/cummin rule)."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    n = x.shape[axis]
    ufunc, better = (np.maximum, np.greater_equal) if largest else (np.minimum, np.less_equal)
    running = ufunc.accumulate(x, axis)           # NaN propagates, as the index rule wants
    prev = np.concatenate([np.take(running, [0], axis), np.take(running, range(n - 1), axis)],
                          axis) if n else running
    with np.errstate(invalid='ignore'):
        takes = better(x, prev)
    if _dt.is_inexact(x.dtype):
        takes |= np.isnan(x)
    pos = np.arange(n).reshape([-1 if d == axis % x.ndim else 1 for d in range(x.ndim)])
    return np.maximum.accumulate(np.where(takes, pos, 0), axis).astype(np.int64)


# ---- test cases -----------------------------------------------------------------------------

_rng = np.random.default_rng(51)
_r_ = _rng.standard_normal


def _scan_ref(fn):
    def ref(x, axis=-1, *rest):
        if x.ndim == 0:
            return x.copy()
        moved = np.moveaxis(x, axis, -1)
        out = np.array([fn(list(r), *rest) for r in moved.reshape(-1, moved.shape[-1])],
                       dtype=x.dtype if x.dtype.kind == 'f' else None)
        return np.moveaxis(out.reshape(moved.shape), -1, axis)
    return ref


def _prefix_products(row):
    out, p = [], 1
    for v in row:
        p = p * v
        out.append(p)
    return out


def _lcse_row(row, reverse=False):
    vals = row[::-1] if reverse else row
    out, acc = [], -math.inf
    for v in vals:
        m = max(acc, v)
        acc = m + math.log(math.exp(acc - m) + math.exp(v - m)) if m > -math.inf else m
        out.append(acc)
    return out[::-1] if reverse else out


def _cum_index_row(row, largest=True):
    best, idx, out = None, 0, []
    for i, v in enumerate(row):
        if best is None or math.isnan(v) or (not math.isnan(best) and
                                            (v >= best if largest else v <= best)):
            best, idx = v, i
        out.append(idx)
    return out


add_test_case(cumprod_op, _rng.uniform(0.5, 1.5, (3, 4)) * np.sign(_r_((3, 4))), 1,
              ref=_scan_ref(_prefix_products))
add_test_case(cumprod_op, _rng.uniform(0.5, 1.5, (2, 3, 2)), 0, ref=_scan_ref(_prefix_products))
add_test_case(cumprod_op, np.array([[1.5, 0.0, 3.0, 2.0, 0.0, 4.0], [0.0, 2.0, -1.0, 0.5, 3.0, 1.0]]),
              1, ref=_scan_ref(_prefix_products))
add_test_case(cumprod_op, np.asarray(-1.5), 0, ref=lambda x, a: x)
add_test_case(cumprod_op, np.zeros((0, 3)), 1, ref=lambda x, a: np.zeros((0, 3)))
add_test_case(cumprod_op, np.array([1, 2, 3, 4], np.int32), 0,
              ref=lambda x, a: np.array([1, 2, 6, 24], np.int32))
add_test_case(cumprod_op, _rng.uniform(0.5, 1.5, 4).astype(np.float32), 0,
              ref=_scan_ref(_prefix_products), grad=False)
for _rev in (False, True):
    add_test_case(logcumsumexp_op, _r_((3, 4)), 1, _rev, ref=_scan_ref(_lcse_row))
    add_test_case(logcumsumexp_op, _r_((2, 3, 2)) * 30, 0, _rev, ref=_scan_ref(_lcse_row))
add_test_case(logcumsumexp_op, np.array([0.0, 1000.0, -1000.0, 999.0]), 0, False,
              ref=_scan_ref(_lcse_row))
add_test_case(logcumsumexp_op, np.asarray(0.7), 0, False, ref=lambda x, a, r: x)
add_test_case(logcumsumexp_op, np.zeros((0, 2)), 1, False, ref=lambda x, a, r: np.zeros((0, 2)))
add_test_case(logcumsumexp_op, np.array([1, 2, 3]), 0, False,
              ref=lambda x, a, r: np.array(_lcse_row([1.0, 2.0, 3.0]), np.float32))
def _lcse_scan_ref(v, x, out, axis, later, x_at_result):
    res = np.zeros_like(v)
    n = v.shape[axis]
    vm, xm, om, rm = (np.moveaxis(a, axis, 0) for a in (v, x, out, res))
    for i in range(n):
        for j in (range(i, n) if later else range(i + 1)):
            rm[i] += vm[j] * (np.exp(xm[i] - om[j]) if x_at_result else np.exp(xm[j] - om[i]))
    return res


for _later in (True, False):
    for _at in (True, False):
        _lx = _r_((3, 4))
        _lo = logcumsumexp_op.kernel(_lx, 1, not (_later == _at))
        add_test_case(lcse_scan_op, _r_((3, 4)), _lx, _lo, 1, _later, _at, ref=_lcse_scan_ref)
_lx = np.array([0.0, 1000.0, -1000.0, 999.0])     # no overflow: every factor is <= 1
add_test_case(lcse_scan_op, _r_(4), _lx, logcumsumexp_op.kernel(_lx, 0, False), 0, True, True,
              ref=_lcse_scan_ref, grad=False)
add_test_case(lcse_scan_op, np.asarray(1.5), np.asarray(0.3), np.asarray(0.3), 0, True, True,
              ref=lambda v, x, o, a, l, r: v)
for _largest in (True, False):
    add_test_case(cum_extreme_index_op, np.array([[1.0, 3.0, 3.0, 2.0, 3.0],
                                                  [3.0, 1.0, 1.0, 2.0, 1.0]]), 1, _largest,
                  ref=_scan_ref(_cum_index_row))
    add_test_case(cum_extreme_index_op, np.array([1.0, np.nan, 3.0, np.nan, 2.0]), 0, _largest,
                  ref=_scan_ref(_cum_index_row))
    add_test_case(cum_extreme_index_op, _rng.integers(-3, 4, (4, 3)), 0, _largest,
                  ref=_scan_ref(_cum_index_row))
add_test_case(cum_extreme_index_op, np.asarray(2.0), 0, True, ref=lambda x, a, l: np.asarray(0))


# ---- public API -------------------------------------------------------------------------------

def _axis_or_flat(x, axis, api):
    """(x, axis) with ``axis=None`` meaning the flattened tensor."""
    if axis is None:
        return lib.reshape(x, [-1]), 0
    nd = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise OpError("%s: axis must be an int or None, got %r" % (api, axis))
    try:
        return x, meta.normalize_axis(int(axis), nd)
    except OpError as e:
        raise OpError("%s: %s (input shape %s)" % (api, e, list(x.shape))) from None


def cumprod(x, dim=None, *, dtype=None, out=None, name=None):
    """Cumulative product along ``dim`` (None: over the flattened tensor);
    ``dtype`` casts the input first.

    >>> import framework as paddle
    >>> paddle.cumprod(paddle.to_tensor([1, 2, 3, 4]), 0).tolist()
    [1, 2, 6, 24]
    """
    if dtype is not None:
        x = lib.cast(x, dtype)
    x, axis = _axis_or_flat(x, dim, 'cumprod')
    r = cumprod_op(x, axis)
    return r if out is None else write_out(out, r)


def logcumsumexp(x, axis=None, dtype=None, name=None):
    """``log(cumsum(exp(x)))`` along ``axis`` (None: the flattened tensor),
    computed without overflow; ``dtype`` casts the input first."""
    if dtype is not None:
        x = lib.cast(x, dtype)
    x, axis = _axis_or_flat(x, axis, 'logcumsumexp')
    return logcumsumexp_op(x, axis, False)


def _cum_extreme(x, axis, dtype, largest, api):
    d = str(_dt.convert_dtype(dtype))
    if d not in ('int32', 'int64'):
        raise OpError("%s: dtype must be int32 or int64, got %r" % (api, dtype))
    x, axis = _axis_or_flat(x, axis, api)
    idx = cum_extreme_index_op(x, axis, largest)
    values = lib.take_along_axis_op(x, idx, axis) if x.shape else x
    return values, (idx if d == 'int64' else lib.cast(idx, d))


def cummax(x, axis=None, dtype='int64', name=None):
    """``(values, indices)``: the running maximum along ``axis`` (None: the
    flattened tensor) and where each came from (the latest of equal values;
    NaN propagates)."""
    return _cum_extreme(x, axis, dtype, True, 'cummax')


def cummin(x, axis=None, dtype='int64', name=None):
    """``(values, indices)``: the running minimum along ``axis`` (see cummax)."""
    return _cum_extreme(x, axis, dtype, False, 'cummin')


def _slice_along(x, axis, start, stop):
    items = [['slice', None, None, None] for _ in range(len(x.shape))]
    items[axis] = ['slice', start, stop, None]
    return lib.getitem_op(x, [], items)


def diff(x, n=1, axis=-1, prepend=None, append=None, name=None, *, out=None):
    """The ``n``-th forward difference along ``axis``, after joining
    ``prepend`` and ``append`` to x there (bool tensors: ``!=``).

    >>> import framework as paddle
    >>> paddle.diff(paddle.to_tensor([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    """
    nd = len(x.shape)
    if nd == 0:
        raise OpError("diff: x must be at least 1-D, got a 0-D tensor")
    axis = meta.normalize_axis(int(axis), nd)
    parts = [v for v in (prepend, x, append) if v is not None]
    if len(parts) > 1:
        x = lib.concat(parts, axis)
    for _ in range(int(n)):
        hi, lo = _slice_along(x, axis, 1, None), _slice_along(x, axis, None, -1)
        x = _m.not_equal_op(hi, lo) if np.dtype(x.dtype) == np.bool_ else hi - lo
    return x if out is None else write_out(out, x)


def _trapezoid_terms(y, x, dx, axis, api):
    if x is not None and dx is not None:
        raise ValueError("%s: not permitted to specify both x and dx input args" % api)
    if np.dtype(y.dtype).kind not in 'fc':
        y = lib.cast(y, _dt.default_float())
    nd = len(y.shape)
    axis = meta.normalize_axis(int(axis), nd)
    mid = (_slice_along(y, axis, 1, None) + _slice_along(y, axis, None, -1)) * 0.5
    if x is None:
        return mid * (1.0 if dx is None else dx), axis
    if len(x.shape) == 1:
        d = diff(x)
        d = lib.reshape(d, [-1 if k == axis else 1 for k in range(nd)])
    else:
        d = diff(x, axis=axis)
    return mid * d, axis


def trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """Integral of ``y`` along ``axis`` by the trapezoidal rule, with sample
    points ``x`` (1-D, or shaped like y) or spacing ``dx`` (default 1)."""
    terms, axis = _trapezoid_terms(y, x, dx, axis, 'trapezoid')
    return _r.sum_op(terms, (axis,), False)


def cumulative_trapezoid(y, x=None, dx=None, axis=-1, name=None):
    """The running trapezoidal integral of ``y`` along ``axis`` (one element
    shorter than y there)."""
    terms, axis = _trapezoid_terms(y, x, dx, axis, 'cumulative_trapezoid')
    return _m.cumsum_op(terms, axis, False)


__all__ = ['cumprod', 'logcumsumexp', 'cummax', 'cummin', 'diff', 'trapezoid',
           'cumulative_trapezoid']
TENSOR_METHODS = {n: globals()[n] for n in __all__}


def _cumprod_inplace_form(x, dim=None, dtype=None, name=None):
    """``cumprod`` with the arguments of Paddle's ``cumprod_`` (dtype positional)."""
    return cumprod(x, dim, dtype=dtype)


INPLACE_METHODS = {'cumprod_': _cumprod_inplace_form, 'cumsum_': 'cumsum'}
