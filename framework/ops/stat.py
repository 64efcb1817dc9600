"""Order statistics and counting: median, nanmedian, quantile, nanquantile,
kthvalue, mode, histogram, histogram_bin_edges, histogramdd and bincount
(cov and corrcoef are linalg's, ``ops/linalg_api.py``).

Selections are split in two: a registered, non-differentiable op finds the
index of the selected element (``kthvalue_index``, ``mode_index``,
``median_index``) and ``take_along_axis`` reads the value, so the gradient
goes to the selected element, as in Paddle, with no new grad rule. The
average median spreads each half of its gradient evenly over the elements
equal to the two middle values (``take_tied``): Paddle does so where the
median equals an element (odd counts, equal middle values); where the two
middle values differ and repeat, Paddle's kernel sends each half to one of
the copies, which one being unspecified, and the even spread needs no
arbitrary choice. Ties are otherwise broken by position: the k-th value is
the k-th of a stable sort (NaN last); Paddle's CPU kernels use an unstable
``std::nth_element``, whose choice among equal values is unspecified.
Quantiles are the composition Paddle uses (sort, then interpolate between
neighbouring order statistics).
"""
import builtins
import math

import numpy as np

from .. import dtype as _dt
from . import lib, meta
from . import math as _m
from . import reduce as _r
from .manipulation import _take_along_meta
from .out_param import write_out
from .registry import Meta, OpError, add_test_case, def_op

_ndarray = np.ndarray



def _keep_meta(x, axis, dtype):
    shape = list(meta.shape_of(x))
    ax = meta.normalize_axis(axis, len(shape))
    if shape:
        shape[ax] = 1
    return Meta(shape, dtype)


def _stable_order(x, axis):
    """Stable ascending argsort along ``axis`` with NaN last."""
    return np.argsort(x, axis=axis, kind='stable')


# ---- index ops ------------------------------------------------------------------------

def _kth_meta(x, k=1, axis=-1):
    n = meta.shape_of(x)[meta.normalize_axis(axis, len(meta.shape_of(x)))] \
        if meta.shape_of(x) else 1
    if n >= 0 and not 1 <= k <= builtins.max(n, 1):
        raise OpError("k (%d) must be in [1, %d], the size of axis %d" % (k, n, axis))
    return _keep_meta(x, axis, np.int64)


@def_op('kthvalue_index', _kth_meta, differentiable=False, pattern='opaque')
def kthvalue_index_op(x, k=1, axis=-1):
    """Index of the k-th smallest element along ``axis`` (keepdim shape)."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    order = _stable_order(x, axis)
    return np.take(order, [k - 1], axis=axis).astype(np.int64)


@def_op('mode_index', lambda x, axis=-1: _keep_meta(x, axis, np.int64), differentiable=False,
        pattern='opaque')
def mode_index_op(x, axis=-1):
    """Index of the most frequent value along ``axis`` (keepdim shape): the
    smallest of equally frequent values, at its last position (as Paddle)."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    moved = np.moveaxis(x, axis, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    out = np.empty(rows.shape[0], np.int64)
    for i, row in enumerate(rows):
        order = _stable_order(row, 0)
        values = row[order]
        # run starts in sorted order; NaNs never equal each other
        new_run = np.ones(len(values), bool)
        new_run[1:] = values[1:] != values[:-1]
        starts = np.flatnonzero(new_run)
        lengths = np.diff(np.append(starts, len(values)))
        best = int(np.argmax(lengths))          # first = smallest value among the most frequent
        out[i] = order[starts[best] + lengths[best] - 1]
    return np.expand_dims(out.reshape(moved.shape[:-1]), axis)


def _median_index_meta(x, axis=-1, ignore_nan=False):
    m = _keep_meta(x, axis, np.int64)
    return m, Meta(m.shape, np.int64)


@def_op('median_index', _median_index_meta, outputs=('lower', 'upper'), differentiable=False,
        pattern='opaque')
def median_index_op(x, axis=-1, ignore_nan=False):
    """Indices of the two middle elements along ``axis`` (equal for an odd
    count). A slice holding NaN gives its first NaN's index, unless
    ``ignore_nan``: then the middle of the non-NaN elements (-1 if none)."""
    if x.ndim == 0:
        z = np.zeros((), np.int64)
        return z, z.copy()
    order = _stable_order(x, axis)
    nan = np.isnan(x) if _dt.is_floating(x.dtype) else np.zeros(x.shape, bool)
    n = x.shape[axis]
    if ignore_nan:
        valid = n - nan.sum(axis=axis, keepdims=True)
    else:
        valid = np.full(_keep_meta(x, axis, np.int64).shape, n)
    lo_pos = np.maximum((valid - 1) // 2, 0)
    hi_pos = np.maximum(valid // 2, 0)
    lower = np.take_along_axis(order, np.minimum(lo_pos, n - 1), axis)
    upper = np.take_along_axis(order, np.minimum(hi_pos, n - 1), axis)
    if ignore_nan:
        none = valid == 0
        lower[none] = -1
        upper[none] = -1
    else:
        has_nan = nan.any(axis=axis, keepdims=True)
        first_nan = np.argmax(nan, axis=axis, keepdims=True)
        lower = np.where(has_nan, first_nan, lower)
        upper = np.where(has_nan, first_nan, upper)
    return lower.astype(np.int64), upper.astype(np.int64)


# ---- take_tied: a selection whose gradient is shared by equal elements -----------------

def _take_tied_meta(x, indices, axis=-1):
    return _take_along_meta(x, indices, axis)


@def_op('take_tied', _take_tied_meta, no_grad_inputs=('indices',), pattern='opaque')
def take_tied_op(x, indices, axis=-1):
    """``take_along_axis``, except that the gradient of each selected value
    is split evenly between all elements of its slice equal to it."""
    return np.take_along_axis(x, np.where(indices < 0, indices + x.shape[axis], indices), axis)


@take_tied_op.def_grad
def _take_tied_grad(g, x, indices, out, axis):
    tied = _m.cast_like(_m.equal_op(x, out), g)
    count = _r.sum_op(tied, (axis % len(x.shape),), True)
    count = lib.where_op(_m.equal_op(count, 0.0), 1.0, count)
    return g * tied / count, None


@take_tied_op.def_fast_grad
def _take_tied_fast(g, x, indices, out, axis):
    tied = (x == out).astype(g.dtype)
    count = tied.sum(axis=axis, keepdims=True)
    count[count == 0] = 1
    return g * tied / count, None


# ---- bincount, histogram, histogramdd ---------------------------------------------------

def _bincount_meta(x, weights=None, minlength=0):
    if np.dtype(meta.dtype_of(x)).kind not in 'iu':
        raise OpError("bincount: x must be an integer tensor, got dtype %s" % meta.dtype_of(x))
    if weights is None:
        d = np.int64
    else:
        wd = np.dtype(meta.dtype_of(weights))
        d = wd if wd.kind in 'fc' else np.float64
    return Meta((-1,), d)


@def_op('bincount', _bincount_meta, inputs=('x', 'weights?'), attrs={'minlength': 0},
        differentiable=False, pattern='opaque')
def bincount_op(x, weights=None, minlength=0):
    """How often each non-negative integer occurs in the 1-D ``x`` (summing
    ``weights`` instead of ones when given); length ``max(x) + 1`` or
    ``minlength``, whichever is larger."""
    x = np.asarray(x).reshape(-1)
    if x.size and x.min() < 0:
        raise OpError("bincount: the elements of x must be non-negative, got %d" % x.min())
    m = _bincount_meta(x, weights)
    w = None if weights is None else np.asarray(weights).reshape(-1)
    return np.bincount(x, w, int(minlength)).astype(m.dtype, copy=False)


def _hist_range(x, lo, hi):
    """Paddle's range rule: (0, 0) means the data's range; an empty range
    widens by 1 on both sides."""
    if lo == hi:
        if x.size:
            lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise OpError("histogram: the range [%r, %r] is not finite" % (lo, hi))
    if hi < lo:
        raise OpError("histogram: max must be larger than or equal to min, got min=%r, max=%r"
                      % (lo, hi))
    return lo, hi


def _histogram_meta(x, weight=None, bins=100, min=0.0, max=0.0, density=False):  # noqa: A002
    if weight is not None:
        d = meta.dtype_of(weight)
    else:
        d = np.float32 if density else np.int64
    return Meta((bins,), d)


@def_op('histogram', _histogram_meta, inputs=('x', 'weight?'),
        attrs={'bins': 100, 'min': 0.0, 'max': 0.0,
               'density': False}, differentiable=False, pattern='opaque')
def histogram_op(x, weight=None, bins=100, min=0.0, max=0.0, density=False):  # noqa: A002
    """Counts (or summed weights, or densities) of ``x`` in ``bins`` equal
    bins over [min, max]; values outside are ignored, ``max`` falls in the
    last bin."""
    v = np.asarray(x).reshape(-1)
    lo, hi = _hist_range(v, float(min), float(max))
    calc = v.astype(np.float64) if v.dtype.kind != 'f' else v
    inside = (calc >= lo) & (calc <= hi)
    vals = calc[inside]
    idx = ((vals - lo) * bins / (hi - lo)).astype(np.int64)
    np.minimum(idx, bins - 1, out=idx)
    w = None if weight is None else np.asarray(weight).reshape(-1)[inside]
    counts = np.bincount(idx, w, bins)
    m = _histogram_meta(x, weight, bins, min, max, density)
    if density:
        total = counts.sum()
        counts = counts / (total * (hi - lo) / bins) if total else counts * np.nan
    return counts.astype(m.dtype)


def _histogramdd_meta(x, weights, edges, density=False):
    return Meta(tuple(meta.shape_of(e)[0] - 1 for e in edges), meta.dtype_of(x))


@def_op('histogramdd', _histogramdd_meta, inputs=('x', 'weights?', 'edges*'),
        differentiable=False, pattern='opaque')
def histogramdd_op(x, weights, edges, density=False):
    """The D-dimensional histogram of the rows of ``x`` (shape [N, D]) over
    the given bin edges (numpy's binning: a value equal to the last edge
    falls in the last bin)."""
    x = np.asarray(x)
    n, d = x.shape
    shape = [len(e) + 1 for e in edges]
    flat = np.zeros(n, np.int64)
    for i, e in enumerate(edges):
        e = np.asarray(e)
        idx = np.searchsorted(e, x[:, i], side='right')
        idx[x[:, i] == e[-1]] -= 1
        flat = flat * shape[i] + idx
    w = None if weights is None else np.asarray(weights).reshape(-1)
    hist = np.bincount(flat, w, int(np.prod(shape))).reshape(shape)
    hist = hist[(slice(1, -1),) * d].astype(x.dtype)
    if density:
        total = hist.sum()
        for i, e in enumerate(edges):
            widths = np.diff(np.asarray(e))
            hist = hist / widths.reshape([-1 if j == i else 1 for j in range(d)])
        hist = hist / total
    return hist.astype(x.dtype, copy=False)


# ---- test cases -------------------------------------------------------------------------

_rng = np.random.default_rng(41)


def _sorted_pos(row, pos):
    """Index of the element at sorted position ``pos`` (stable, NaN last)."""
    keyed = sorted(range(len(row)), key=lambda i: (math.isnan(row[i]), row[i], i))
    return keyed[pos]


def _along(fn):
    """A keepdim reference applying ``fn(row) -> index`` to each slice."""
    def ref(x, *attrs):
        axis = attrs[-1] if fn is not _kth_ref else attrs[1]
        moved = np.moveaxis(x, axis, -1)
        out = np.array([fn(list(r), *attrs) for r in moved.reshape(-1, moved.shape[-1])],
                       np.int64)
        return np.expand_dims(out.reshape(moved.shape[:-1]), axis)
    return ref


def _kth_ref(row, k, axis):
    return _sorted_pos(row, k - 1)


def _mode_ref(row, axis):
    counts = {}
    for v in row:
        counts[v] = counts.get(v, 0) + 1
    best = min(counts, key=lambda v: (-counts[v], v))
    return max(i for i, v in enumerate(row) if v == best)


_ties = np.array([[2.0, 1.0, 2.0, 2.0, 1.0], [3.0, 0.5, -1.0, 0.5, 3.0]])
add_test_case(kthvalue_index_op, _ties, 3, -1, ref=_along(_kth_ref))
add_test_case(kthvalue_index_op, _rng.standard_normal((3, 4, 2)), 2, 1, ref=_along(_kth_ref))
add_test_case(kthvalue_index_op, np.array([[1.0, np.nan], [np.nan, 0.0]]), 1, 0,
              ref=_along(_kth_ref))
add_test_case(kthvalue_index_op, np.asarray(3.0), 1, 0, ref=lambda x, k, a: np.asarray(0))
add_test_case(kthvalue_index_op, np.zeros((0, 3)), 1, 1, ref=lambda x, k, a: np.zeros((0, 1)))
add_test_case(mode_index_op, _ties, -1, ref=_along(_mode_ref))
add_test_case(mode_index_op, np.array([[3, 1, 2, 2], [0, 5, 4, 1], [1, 1, 7, 7]]), 0,
              ref=_along(_mode_ref))
add_test_case(mode_index_op, np.asarray(1.5), 0, ref=lambda x, a: np.asarray(0))


def _median_ref(x, axis, ignore_nan):
    moved = np.moveaxis(x, axis, -1)
    lo, hi = [], []
    for row in moved.reshape(-1, moved.shape[-1]).tolist():
        nans = [i for i, v in enumerate(row) if v != v]
        if nans and not ignore_nan:
            lo.append(nans[0])
            hi.append(nans[0])
            continue
        m = len(row) - len(nans)
        lo.append(_sorted_pos(row, (m - 1) // 2) if m else -1)
        hi.append(_sorted_pos(row, m // 2) if m else -1)
    shape = moved.shape[:-1]
    return tuple(np.expand_dims(np.array(v, np.int64).reshape(shape), axis) for v in (lo, hi))


_with_nan = np.array([[3.0, 1.0, 2.0, 2.0], [np.nan, 5.0, 4.0, 1.0], [np.nan] * 4])
for _ign in (False, True):
    add_test_case(median_index_op, _with_nan, 1, _ign, ref=_median_ref)
    add_test_case(median_index_op, _rng.standard_normal((3, 5)), 0, _ign, ref=_median_ref)
add_test_case(median_index_op, np.asarray(2.0), 0, False,
              ref=lambda x, a, i: (np.asarray(0), np.asarray(0)))
add_test_case(take_tied_op, np.array([[2.0, 1.0, 2.0], [0.5, 3.0, -1.0]]),
              np.array([[0], [1]]), 1,
              ref=lambda x, i, a: np.array([[2.0], [3.0]]), grad=False)   # a tie: not differentiable
add_test_case(take_tied_op, _rng.standard_normal((3, 4)), np.array([[2, 0, 1, 1]]), 0,
              ref=lambda x, i, a: np.take_along_axis(x, i, 0))
add_test_case(bincount_op, np.array([1, 2, 1, 4, 3, 0]), None, 0,
              ref=lambda x, w, m: np.array([1, 2, 1, 1, 1]))
add_test_case(bincount_op, np.array([1, 2, 1], np.int32), np.array([0.5, 2.0, 1.5]), 5,
              ref=lambda x, w, m: np.array([0.0, 2.0, 2.0, 0.0, 0.0]))
add_test_case(bincount_op, np.array([0, 2]), np.array([3, 4]), 0,
              ref=lambda x, w, m: np.array([3.0, 0.0, 4.0]))
add_test_case(bincount_op, np.zeros(0, np.int64), None, 0, ref=lambda x, w, m: np.zeros(0))


def _hist_ref(x, w, bins, lo, hi, density):
    v = x.reshape(-1).tolist()
    if lo == hi:
        lo, hi = min(v), max(v)
    counts = [0.0] * bins
    ws = [1.0] * len(v) if w is None else w.reshape(-1).tolist()
    for a, b in zip(v, ws):
        if lo <= a <= hi:
            counts[min(int((a - lo) * bins / (hi - lo)), bins - 1)] += b
    if density:
        total = sum(counts)
        counts = [c / (total * (hi - lo) / bins) for c in counts]
    dt = np.int64 if w is None and not density else (np.float32 if w is None else w.dtype)
    return np.array(counts).astype(dt)


_hx = np.array([1.0, 2.0, 1.0, 4.0, 2.5, -1.0])
add_test_case(histogram_op, _hx, None, 4, 0.0, 0.0, False, ref=_hist_ref)
add_test_case(histogram_op, _hx.reshape(2, 3), None, 4, 0.0, 3.0, False, ref=_hist_ref)
add_test_case(histogram_op, _hx, np.arange(1.0, 7.0), 3, 0.0, 0.0, False, ref=_hist_ref)
add_test_case(histogram_op, _hx.astype(np.float32), None, 5, -2.0, 5.0, True, ref=_hist_ref)
add_test_case(histogram_op, np.array([1, 2, 1, 4, 3, 0]), None, 4, 0.0, 0.0, False,
              ref=_hist_ref)
add_test_case(histogram_op, np.array([2.0, 2.0]), None, 4, 0.0, 0.0, False,
              ref=lambda *a: np.array([0, 0, 2, 0]))


def _histdd_ref(x, w, edges, density):
    return np.histogramdd(x, bins=[np.asarray(e) for e in edges], weights=w,
                          density=density)[0]


_pts = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5]])
add_test_case(histogramdd_op, _pts, None, [np.linspace(0, 2, 4), np.linspace(0, 2, 3)],
              False, ref=_histdd_ref)
add_test_case(histogramdd_op, _pts, np.array([1.0, 2.0, 4.0, 8.0, 0.5]),
              [np.array([0.0, 0.5, 2.0]), np.array([0.0, 1.0, 2.0])], True, ref=_histdd_ref)


# ---- public API -------------------------------------------------------------------------

def _int_axis(x, axis, api):
    nd = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise OpError("%s: axis must be an int, got %r" % (api, axis))
    try:
        return meta.normalize_axis(int(axis), nd)
    except OpError as e:
        raise OpError("%s: %s (input shape %s)" % (api, e, list(x.shape))) from None


def _flat_or_axis(x, axis, api):
    """(x, axis): the flattened x and axis 0 for ``axis=None``."""
    if axis is None:
        return lib.reshape(x, [-1]), 0
    return x, _int_axis(x, axis, api)


def _drop_axis(v, axis, keepdim, x, was_none):
    """A keepdim-shaped result as the user asked for it."""
    if was_none:
        return lib.reshape(v, [1] * len(x.shape)) if keepdim else lib.reshape(v, [])
    return v if keepdim else lib.squeeze_op(v, (axis,))


def kthvalue(x, k, axis=None, keepdim=False, name=None):
    """``(values, indices)`` of the k-th smallest element along ``axis``
    (default: the last axis).

    >>> import framework as paddle
    >>> v, i = paddle.kthvalue(paddle.to_tensor([[3.0, 1.0, 2.0]]), 2, axis=1)
    >>> v.tolist(), i.tolist()
    ([2.0], [2])
    """
    axis = -1 if axis is None else axis
    nd = len(x.shape)
    ax = _int_axis(x, axis, 'kthvalue') if nd else 0
    idx = kthvalue_index_op(x, int(k), ax)
    if not nd:
        return x, idx
    values = lib.take_along_axis_op(x, idx, ax)
    return _drop_axis(values, ax, keepdim, x, False), _drop_axis(idx, ax, keepdim, x, False)


def mode(x, axis=-1, keepdim=False, name=None):
    """``(values, indices)`` of the most frequent value along ``axis``; among
    equally frequent values the smallest, at its last position."""
    nd = len(x.shape)
    if not nd:
        return x, mode_index_op(x, 0)
    ax = _int_axis(x, axis, 'mode')
    idx = mode_index_op(x, ax)
    values = lib.take_along_axis_op(x, idx, ax)
    return _drop_axis(values, ax, keepdim, x, False), _drop_axis(idx, ax, keepdim, x, False)


def _median(x, axis, keepdim, mode, ignore_nan, api):
    if mode not in ('avg', 'min'):
        raise ValueError("%s: mode %r is not supported, use 'avg' or 'min'" % (api, mode))
    if isinstance(axis, (list, tuple)):
        if not ignore_nan:
            raise ValueError("%s: axis should be None or an int in [-rank(x), rank(x))" % api)
        if not axis:
            raise ValueError("%s: axis list should not be empty" % api)
        # several axes: move them to the end and merge them into one
        nd = len(x.shape)
        axes = sorted({meta.normalize_axis(int(a), nd) for a in axis})
        rest = [d for d in range(nd) if d not in axes]
        shape = list(x.shape)
        moved = lib.transpose_op(x, tuple(rest + axes))
        merged = lib.reshape(moved, [shape[d] for d in rest] + [-1])
        v = _median(merged, -1, False, mode, ignore_nan, api)
        v = v[0] if isinstance(v, tuple) else v
        if keepdim:
            v = lib.reshape(v, [1 if d in axes else shape[d] for d in range(nd)])
        return v
    was_none = axis is None
    if mode == 'avg' and np.dtype(x.dtype) != np.float64:
        x = lib.cast(x, 'float32')
    src = x
    if was_none or not x.shape:
        x, ax = lib.reshape(x, [-1]), 0
    else:
        ax = _int_axis(x, axis, api)
    lower, upper = median_index_op(x, ax, ignore_nan)
    if mode == 'avg':
        value = (take_tied_op(x, lower, ax) + take_tied_op(x, upper, ax)) * 0.5
        return _drop_axis(value, ax, keepdim, src, was_none)
    value = lib.take_along_axis_op(x, lower, ax)
    value = _drop_axis(value, ax, keepdim, src, was_none)
    if was_none:
        return value
    return value, _drop_axis(lower, ax, keepdim, src, False)


def median(x, axis=None, keepdim=False, mode='avg', name=None, *, out=None):
    """The median along ``axis`` (None: of all elements). ``mode='avg'``
    averages the two middle values of an even count (float32, or float64 for
    float64 input); ``mode='min'`` takes the lower one, keeps x's dtype and,
    with an axis, also returns its indices. A slice holding NaN gives NaN.

    >>> import framework as paddle
    >>> paddle.median(paddle.to_tensor([[1.0, 4.0, 2.0, 3.0]]), axis=1).tolist()
    [2.5]
    """
    r = _median(x, axis, keepdim, mode, False, 'median')
    return r if out is None else write_out(out, r)


def nanmedian(x, axis=None, keepdim=False, mode='avg', name=None):
    """``median`` of the non-NaN elements (NaN, index -1, where all are NaN);
    ``axis`` may also be a list of axes."""
    return _median(x, axis, keepdim, mode, True, 'nanmedian')


_INTERPOLATIONS = ('linear', 'lower', 'higher', 'nearest', 'midpoint')


def _q_list(q, api):
    if isinstance(q, (int, float)) and not isinstance(q, bool):
        return [float(q)], False
    if isinstance(q, (list, tuple)):
        if not q:
            raise ValueError("%s: q should not be empty" % api)
        return [float(v) for v in q], True
    if hasattr(q, 'shape'):
        if len(q.shape) > 1:
            raise ValueError("%s: q should be a 0-D or 1-D tensor" % api)
        if not q.shape:
            return [q], False
        return [q[i] for i in range(q.shape[0])], True
    raise TypeError("%s: q should be a number, a list/tuple of numbers or a tensor, got %s"
                    % (api, type(q).__name__))


def _quantile(x, q, axis, keepdim, interpolation, ignore_nan, api):
    qs, many = _q_list(q, api)
    for v in qs:
        if isinstance(v, float) and not 0 <= v <= 1:
            raise ValueError("%s: q should be in range [0, 1], got %r" % (api, v))
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("%s: interpolation must be one of %s, got %r"
                         % (api, ', '.join(_INTERPOLATIONS), interpolation))
    if np.dtype(x.dtype).kind not in 'f':
        x = lib.cast(x, _dt.default_float())
    nd = len(x.shape)
    shape = list(x.shape)
    if axis is None:
        x, ax, kept = lib.reshape(x, [-1]), 0, [1] * nd
    else:
        axes = axis if isinstance(axis, (list, tuple)) else [axis]
        axes = sorted({_int_axis(x, a, api) for a in axes})
        kept = [1 if d in axes else shape[d] for d in range(nd)]
        if len(axes) > 1:
            rest = [d for d in range(nd) if d not in axes]
            x = lib.reshape(lib.transpose_op(x, tuple(rest + axes)),
                            [shape[d] for d in rest] + [-1])
            ax = len(rest)
        else:
            ax = axes[0]
    nan = _m.isnan_op(x)
    valid = _r.sum_op(_m.cast_like(_m.logical_not_op(nan), x), (ax,), True)
    last = _r._count(x, (ax,)) - 1
    ordered = lib.sort(x, ax)
    outs = []
    for qv in qs:
        pos = (valid - 1) * qv
        if not ignore_nan:   # a slice holding NaN reads the last (NaN) element
            pos = lib.where_op(_r.any_op(nan, (ax,), True), last, pos)
        outs.append(_interpolate(ordered, pos, ax, interpolation, x.dtype))
    outs = [lib.reshape(o, kept) if keepdim else _drop_reduced(o, ax) for o in outs]
    return lib.stack(outs, 0) if many else outs[0]


def _drop_reduced(v, ax):
    return lib.squeeze_op(v, (ax,))


def _interpolate(ordered, pos, ax, interpolation, dtype):

    def at(idx):
        return lib.take_along_axis_op(ordered, lib.cast(idx, 'int64'), ax)
    if interpolation == 'nearest':
        return at(_m.round_op(pos))
    below = _m.floor_op(pos)
    if interpolation == 'lower':
        return at(below)
    above = _m.ceil_op(pos)
    if interpolation == 'higher':
        return at(above)
    lo, hi = at(below), at(above)
    if interpolation == 'midpoint':
        return (lo + hi) * 0.5
    return _m.lerp_op(lo, hi, _m.cast_like(pos - below, lo))


def quantile(x, q, axis=None, keepdim=False, interpolation='linear', name=None, *, out=None):
    """The ``q``-th quantiles along ``axis`` (None: of all elements; a list:
    of those axes together), interpolating between order statistics as
    ``interpolation`` says. A list of q stacks the results on a new first
    dim. A slice holding NaN gives NaN.

    >>> import framework as paddle
    >>> paddle.quantile(paddle.to_tensor([1.0, 2.0, 3.0, 4.0]), 0.5).item()
    2.5
    """
    r = _quantile(x, q, axis, keepdim, interpolation, False, 'quantile')
    return r if out is None else write_out(out, r)


def nanquantile(x, q, axis=None, keepdim=False, interpolation='linear'):
    """``quantile`` of the non-NaN elements."""
    return _quantile(x, q, axis, keepdim, interpolation, True, 'nanquantile')


def bincount(x, weights=None, minlength=0, name=None):
    """Counts of each non-negative integer in the 1-D ``x`` (or summed
    ``weights``); length ``max(max(x) + 1, minlength)``."""
    if len(x.shape) != 1:
        raise OpError("bincount: x must be 1-D, got shape %s" % list(x.shape))
    return bincount_op(x, weights, int(minlength))


def histogram(input, bins=100, min=0.0, max=0.0, weight=None, density=False,  # noqa: A002
              name=None):
    """Histogram of ``input`` with ``bins`` equal bins over [min, max] (both
    0: the data's range). int64 counts; summed weights in weight's dtype, or
    float32 densities with ``density``."""
    if weight is not None and list(weight.shape) != list(input.shape):
        raise OpError("histogram: weight (shape %s) must have the shape of input (shape %s)"
                      % (list(weight.shape), list(input.shape)))
    if float(max) < float(min):
        raise OpError("histogram: max must be larger than or equal to min, got min=%r, max=%r"
                      % (min, max))
    return histogram_op(input, weight, int(bins), float(min), float(max), bool(density))


def histogram_bin_edges(input, bins=100, min=0.0, max=0.0, name=None):  # noqa: A002
    """The ``bins + 1`` edges ``histogram`` uses (float32)."""
    if float(min) == 0.0 and float(max) == 0.0:
        lo, hi = _r.min(input), _r.max(input)
    else:
        if float(max) < float(min):
            raise ValueError("histogram_bin_edges: max must be larger than min")
        lo, hi = float(min), float(max)
    if isinstance(lo, float):
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return lib.linspace(lo, hi, int(bins) + 1, 'float32')
    # a data-dependent range: widen an empty one by 0.5 on each side
    lo, hi = lib.cast(lo, 'float32'), lib.cast(hi, 'float32')
    same = _m.cast_like(_m.equal_op(lo, hi), lo) * 0.5
    lo, hi = lo - same, hi + same
    steps = lib.to_tensor(np.linspace(0.0, 1.0, int(bins) + 1).astype(np.float32))
    return lo + (hi - lo) * steps


def histogramdd(x, bins=10, ranges=None, density=False, weights=None, name=None):
    """``(hist, edges)``: the histogram of the points in the last dim of
    ``x`` (D coordinates each). ``bins`` is an int, a list of D ints, or a
    tuple of D 1-D tensors of edges; ``ranges`` is [min0, max0, min1, ...]
    (default: the data's range per coordinate)."""
    d = x.shape[-1]
    flat = lib.reshape(x, [-1, d])
    if weights is not None:
        if list(weights.shape) != list(x.shape[:-1]):
            raise OpError("histogramdd: weights (shape %s) must have x's shape without its last "
                          "dim (%s)" % (list(weights.shape), list(x.shape[:-1])))
        weights = lib.reshape(_m.cast_like(weights, x), [-1])
    if isinstance(bins, tuple):
        edges = [b if hasattr(b, 'shape') else lib.to_tensor(np.asarray(b, np.dtype(x.dtype)))
                 for b in bins]
    else:
        counts = [bins] * d if isinstance(bins, int) else list(bins)
        if len(counts) != d or not builtins.all(isinstance(b, int) for b in counts):
            raise ValueError("histogramdd: bins must be an int, %d ints or %d tensors" % (d, d))
        if ranges is None:
            lows, highs = _r.min(flat, axis=0), _r.max(flat, axis=0)
            edges = []
            for i, b in enumerate(counts):
                steps = lib.to_tensor(np.linspace(0, 1, b + 1).astype(np.dtype(x.dtype)))
                lo, hi = lows[i], highs[i]
                edges.append(lo + (hi - lo) * steps)
        else:
            if len(ranges) != 2 * d:
                raise ValueError("histogramdd: ranges must hold %d numbers" % (2 * d))
            edges = [lib.linspace(float(ranges[2 * i]), float(ranges[2 * i + 1]), b + 1,
                                  str(np.dtype(x.dtype))) for i, b in enumerate(counts)]
    hist = histogramdd_op(flat, weights, edges, bool(density))
    return hist, edges


__all__ = ['kthvalue', 'mode', 'median', 'nanmedian', 'quantile', 'nanquantile', 'bincount',
           'histogram', 'histogram_bin_edges', 'histogramdd']
TENSOR_METHODS = {n: globals()[n] for n in __all__}
