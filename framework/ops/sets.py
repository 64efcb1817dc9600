"""Set and sorted-sequence ops: unique, unique_consecutive, searchsorted,
bucketize, isin, argwhere.

Their outputs are indices, counts or masks (or, for unique, a selection of
the input's values), so none is differentiable, as in Paddle. Output sizes of
unique depend on the values: -1 in ``infer_meta``.
"""
import numpy as np

from .. import dtype as _dt
from .compat_args import aliases
from . import meta
from .grad_utils import is_value
from .manipulation import _norm_axis, _out, nonzero, take_along_axis_op
from .registry import Meta, OpError, add_test_case, def_op


def _index_dtype(dtype, api):
    d = _dt.convert_dtype(dtype)
    if d not in (np.dtype('int32'), np.dtype('int64')):
        raise OpError("%s: dtype must be int32 or int64, got %s" % (api, d))
    return str(d)


# ---- unique -----------------------------------------------------------------------

def _unique_meta(x, axis, dtype):
    shape = meta.shape_of(x)
    d = meta.dtype_of(x)
    if axis is None:
        n = -1 if any(s < 0 for s in shape) else int(np.prod(shape))
        return Meta((-1,), d), Meta((-1,), dtype), Meta((n,), dtype), Meta((-1,), dtype)
    ax = meta.normalize_axis(axis, len(shape))
    out = list(shape)
    out[ax] = -1
    return Meta(out, d), Meta((-1,), dtype), Meta((shape[ax],), dtype), Meta((-1,), dtype)


@def_op('unique', _unique_meta, outputs=('out', 'index', 'inverse', 'counts'),
        differentiable=False, attr_types={'axis': 'int|None'}, pattern='opaque')
def unique_op(x, axis=None, dtype='int64'):
    """The sorted distinct values (or slices along ``axis``) of x, the index
    of each one's first occurrence, the inverse map and the counts."""
    if axis is None:
        out, index, inverse, counts = np.unique(np.asarray(x).reshape(-1), return_index=True,
                                                return_inverse=True, return_counts=True)
    else:
        out, index, inverse, counts = np.unique(x, axis=axis, return_index=True,
                                                return_inverse=True, return_counts=True)
    return (out, index.astype(dtype), inverse.reshape(-1).astype(dtype), counts.astype(dtype))


def _check_value_dtype(x, api):
    if np.dtype(x.dtype).kind not in 'iuf':
        raise OpError("%s: x must have an integer or float dtype, got %s" % (api, x.dtype))


def unique(x, return_index=False, return_inverse=False, return_counts=False, axis=None,
           dtype='int64', sorted=True, name=None):  # noqa: A002  (Paddle's argument name)
    """The distinct values of ``x`` in ascending order (of the flattened x, or
    the distinct slices along ``axis``), with, on request, the index of each
    one's first occurrence, the inverse map (x's positions -> output) and the
    counts, in that order. Paddle's CPU kernel sorts also for
    ``sorted=False``; so does this."""
    _check_value_dtype(x, 'unique')
    if axis is not None:
        axis = _norm_axis(x, axis, 'unique')
    out, index, inverse, counts = unique_op(x, axis, _index_dtype(dtype, 'unique'))
    extra = [t for t, want in ((index, return_index), (inverse, return_inverse),
                               (counts, return_counts)) if want]
    return (out, *extra) if extra else out


def _consecutive_meta(x, axis, dtype):
    shape = meta.shape_of(x)
    if axis is None:
        n = -1 if any(s < 0 for s in shape) else int(np.prod(shape))
        return Meta((-1,), meta.dtype_of(x)), Meta((n,), dtype), Meta((-1,), dtype)
    ax = meta.normalize_axis(axis, len(shape))
    out = list(shape)
    out[ax] = -1
    return Meta(out, meta.dtype_of(x)), Meta((shape[ax],), dtype), Meta((-1,), dtype)


@def_op('unique_consecutive', _consecutive_meta, outputs=('out', 'inverse', 'counts'),
        differentiable=False, attr_types={'axis': 'int|None'}, pattern='opaque')
def unique_consecutive_op(x, axis=None, dtype='int64'):
    """x with each run of equal consecutive values (or slices along ``axis``)
    kept once, the inverse map and the run lengths."""
    x = np.asarray(x)
    if axis is None:
        rows = x.reshape(-1, 1)
        values = x.reshape(-1)
    else:
        values = np.moveaxis(x, axis, 0)
        rows = values.reshape(values.shape[0], int(np.prod(values.shape[1:])))
    n = rows.shape[0]
    starts = np.ones(n, bool)
    if n > 1:
        starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    first = np.flatnonzero(starts)
    out = values[first]
    if axis is not None:
        out = np.moveaxis(out, 0, axis)
    inverse = np.cumsum(starts) - 1
    counts = np.diff(np.append(first, n))
    return out, inverse.astype(dtype), counts.astype(dtype)


@aliases(x=('input',), axis=('dim',))
def unique_consecutive(x, return_inverse=False, return_counts=False, axis=None,
                       dtype='int64', name=None):
    """``x`` with consecutive repeats removed (flattened, or slices along
    ``axis``), with, on request, the inverse map and the run lengths."""
    _check_value_dtype(x, 'unique_consecutive')
    if axis is not None:
        axis = _norm_axis(x, axis, 'unique_consecutive')
    out, inverse, counts = unique_consecutive_op(x, axis,
                                                 _index_dtype(dtype, 'unique_consecutive'))
    extra = [t for t, want in ((inverse, return_inverse), (counts, return_counts)) if want]
    return (out, *extra) if extra else out


# ---- searchsorted / bucketize --------------------------------------------------------

def _searchsorted_meta(sorted_sequence, values, out_int32, right):
    s, v = meta.shape_of(sorted_sequence), meta.shape_of(values)
    if len(s) == 0:
        raise OpError("sorted_sequence must have at least 1 dim, got a 0-D tensor")
    if len(s) > 1 and (len(v) != len(s) or any(
            a >= 0 and b >= 0 and a != b for a, b in zip(s[:-1], v[:-1]))):
        raise OpError("sorted_sequence (shape %s) and values (shape %s) must agree in all but "
                      "the last dim" % (list(s), list(v)))
    return Meta(v, np.int32 if out_int32 else np.int64)


@def_op('searchsorted', _searchsorted_meta, differentiable=False, pattern='opaque')
def searchsorted_op(sorted_sequence, values, out_int32=False, right=False):
    """For each value, the index into the (innermost dim of the) sorted
    sequence where it would be inserted to keep it sorted: before equal
    entries, or after them with ``right``. NaN goes to the end."""
    side = 'right' if right else 'left'
    seq, vals = np.asarray(sorted_sequence), np.asarray(values)
    _searchsorted_meta(seq, vals, out_int32, right)
    if seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=side)
    else:
        rows, vrows = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vrows)]) \
            if len(rows) else np.zeros(vrows.shape, np.int64)
        out = out.reshape(vals.shape)
    if vals.dtype.kind == 'f':
        out = np.where(np.isnan(vals), seq.shape[-1], out)
    return np.asarray(out, np.int32 if out_int32 else np.int64)


@aliases(values=('input',))
def searchsorted(sorted_sequence, values, out_int32=False, right=False, name=None, *,
                 side=None, out=None, sorter=None):
    """Insertion indices of ``values`` into ``sorted_sequence`` (sorted along
    its last dim; leading dims must match values'). ``right=True`` (or
    ``side='right'``) places a value after equal entries. ``sorter`` holds
    indices sorting an unsorted sequence."""
    if side is not None and side not in ('left', 'right'):
        raise OpError("searchsorted: side must be 'left' or 'right', got %r" % (side,))
    if side == 'right':
        right = True
    if sorter is not None:
        sorted_sequence = take_along_axis_op(sorted_sequence, sorter,
                                             len(sorted_sequence.shape) - 1)
    return _out(out, searchsorted_op(sorted_sequence, values, bool(out_int32), bool(right)))


@aliases(x=('input',), sorted_sequence=('boundaries',))
def bucketize(x, sorted_sequence, out_int32=False, right=False, name=None, *, out=None):
    """The bucket of each element of ``x`` given 1-D boundaries ``sorted_sequence``
    (``searchsorted(sorted_sequence, x)``)."""
    if len(sorted_sequence.shape) != 1:
        raise OpError("bucketize: sorted_sequence must be 1-D, got shape %s"
                      % list(sorted_sequence.shape))
    return searchsorted(sorted_sequence, x, out_int32, right, out=out)


# ---- isin / argwhere ---------------------------------------------------------------

def _isin_meta(x, test_x, assume_unique, invert):
    return Meta(meta.shape_of(x), np.bool_)


@def_op('isin', _isin_meta, differentiable=False, pattern='opaque')
def isin_op(x, test_x, assume_unique=False, invert=False):
    """True where an element of x occurs in test_x (False with ``invert``)."""
    return np.isin(x, test_x, assume_unique=assume_unique, invert=invert)


def isin(x, test_x, assume_unique=False, invert=False, name=None):
    """Whether each element of ``x`` occurs in ``test_x`` (a bool tensor of
    x's shape; negated with ``invert``)."""
    for what, t in (('x', x), ('test_x', test_x)):
        if not is_value(t):
            raise TypeError("isin: %s must be a tensor, got %s" % (what, type(t).__name__))
        if np.dtype(t.dtype).kind not in 'iuf':
            raise OpError("isin: %s must have an integer or float dtype, got %s"
                          % (what, t.dtype))
    return isin_op(x, test_x, bool(assume_unique), bool(invert))


def argwhere(input):  # noqa: A002
    """The coordinates of the non-zero elements of ``input`` (one row each,
    int64, shape [count, ndim])."""
    if len(input.shape) == 0:
        raise OpError("argwhere: input must have at least 1 dim, got a 0-D tensor")
    return nonzero(input)


__all__ = ['unique', 'unique_consecutive', 'searchsorted', 'bucketize', 'isin', 'argwhere']
TENSOR_METHODS = {n: globals()[n] for n in __all__}


add_test_case(unique_op, np.array([2, 3, 3, 1, 5, 3]), None, 'int64',
              ref=lambda x, a, d: (np.array([1, 2, 3, 5]), np.array([3, 0, 1, 4]),
                                   np.array([1, 2, 2, 0, 3, 2]), np.array([1, 1, 3, 1])))
add_test_case(unique_op, np.array([[2., 1., 3.], [3., 0., 1.], [2., 1., 3.]]), 0, 'int32',
              ref=lambda x, a, d: (x[:2], np.array([0, 1], np.int32),
                                   np.array([0, 1, 0], np.int32), np.array([2, 1], np.int32)))
add_test_case(unique_op, np.array(4.5, np.float32), None, 'int64',
              ref=lambda x, a, d: (np.array([4.5], np.float32), np.array([0]), np.array([0]),
                                   np.array([1])))
add_test_case(unique_op, np.zeros((0,)), None, 'int64',
              ref=lambda x, a, d: (np.zeros(0), np.zeros(0, np.int64), np.zeros(0, np.int64),
                                   np.zeros(0, np.int64)))
add_test_case(unique_consecutive_op, np.array([1, 1, 2, 2, 3, 1, 1, 2]), None, 'int64',
              ref=lambda x, a, d: (np.array([1, 2, 3, 1, 2]), np.array([0, 0, 1, 1, 2, 3, 3, 4]),
                                   np.array([2, 2, 1, 2, 1])))
add_test_case(unique_consecutive_op, np.array([[1, 1, 2], [1, 1, 2.]]), 1, 'int32',
              ref=lambda x, a, d: (x[:, 1:], np.array([0, 0, 1], np.int32),
                                   np.array([2, 1], np.int32)))
add_test_case(unique_consecutive_op, np.zeros((0, 2)), 0, 'int64',
              ref=lambda x, a, d: (x, np.zeros(0, np.int64), np.zeros(0, np.int64)))
add_test_case(searchsorted_op, np.array([1., 3., 5., 7.]), np.array([[3., 6.], [0., 9.]]),
              False, False, ref=lambda s, v, i, r: np.array([[1, 3], [0, 4]]))
add_test_case(searchsorted_op, np.array([[1, 3, 5], [2, 4, 6]]), np.array([[3], [6]]), True, True,
              ref=lambda s, v, i, r: np.array([[2], [3]], np.int32))
add_test_case(searchsorted_op, np.array([1., 2.]), np.array(np.nan),
              False, False, ref=lambda s, v, i, r: np.array(2))
add_test_case(searchsorted_op, np.array([1., 2.], np.float32), np.zeros((0,), np.float32),
              False, False, ref=lambda s, v, i, r: np.zeros(0, np.int64))
add_test_case(isin_op, np.array([[1, 2], [3, 4]]), np.array([4, 1, 9]), False, False,
              ref=lambda x, t, a, i: np.array([[True, False], [False, True]]))
add_test_case(isin_op, np.array([1.5, -2.0], np.float32), np.array([-2.0]), False, True,
              ref=lambda x, t, a, i: np.array([True, False]))
add_test_case(isin_op, np.array(3), np.zeros((0,), np.int64), False, False,
              ref=lambda x, t, a, i: np.array(False))
