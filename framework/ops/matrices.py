"""Building structured tensors: diagonals (diag_embed, diagflat,
fill_diagonal, fill_diagonal_tensor), block_diag, cartesian_prod,
combinations, vander, tril_indices / triu_indices and repeat_interleave.

All but ``repeat_interleave_index`` are compositions of registered ops: the
positions a diagonal occupies are known when the call is made, so reading
or writing one is a gather or a put at constant positions.
"""
import itertools

import numpy as np

from .. import dtype as _dt
from .compat_args import aliases
from . import meta
from .creation import diag_op, full_op, meshgrid, to_tensor
from .grad_utils import is_value
from .indexing import diagonal_scatter
from .manipulation import (_as_int, _check_index_dtype, _norm_axis, _tensor_list, cast, concat,
                           expand, flip, gather_op, put_along_axis_op, reshape, reshape_op,
                           scatter_op, stack, transpose_op, unsqueeze)
from .registry import Meta, OpError, add_test_case, def_op


# ---- diagonals -----------------------------------------------------------------------

def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """A tensor whose (``dim1``, ``dim2``) planes hold the last dim of
    ``input`` on their diagonal ``offset`` (zeros elsewhere)."""
    x = input if is_value(input) else to_tensor(input)
    nd = len(x.shape) + 1
    if nd < 2:
        raise OpError("diag_embed: input must have at least 1 dim, got a 0-D tensor")
    d1, d2 = (meta.normalize_axis(_as_int(d, 'diag_embed', 'dim'), nd, 'diag_embed dim')
              for d in (dim1, dim2))
    if d1 == d2:
        raise OpError("diag_embed: dim1 and dim2 must differ, got %d and %d" % (dim1, dim2))
    if any(d < 0 for d in x.shape):
        raise OpError("diag_embed: input's shape must be known, got %s" % list(x.shape))
    offset = _as_int(offset, 'diag_embed', 'offset')
    lead, k = list(x.shape[:-1]), x.shape[-1]
    n = k + abs(offset)
    k_pos = np.arange(k)
    positions = (k_pos + max(0, -offset)) * n + k_pos + max(0, offset)
    plane = full_op(tuple(lead + [n * n]), 0, str(np.dtype(x.dtype)))
    where = to_tensor(np.ascontiguousarray(np.broadcast_to(positions, lead + [k])))
    filled = reshape_op(put_along_axis_op(plane, where, x, len(lead), 'assign'),
                        tuple(lead + [n, n]))
    # output dim d takes a lead dim in order, or the plane's rows (dim1) / columns (dim2)
    rest = iter(range(len(lead)))
    perm = [len(lead) if d == d1 else len(lead) + 1 if d == d2 else next(rest)
            for d in range(nd)]
    return transpose_op(filled, tuple(perm))


def diagflat(x, offset=0, name=None):
    """A matrix with the flattened ``x`` on its diagonal ``offset``."""
    return diag_op(reshape(x, [-1]), _as_int(offset, 'diagflat', 'offset'), 0)


def _fill_diagonal_positions(shape, offset, wrap):
    """Flat positions Paddle's fill_diagonal_ writes: every ``1 + sum(strides)``
    elements from the start (over the whole tensor with ``wrap``, else over
    the first ``cols`` rows), shifted by ``offset`` when that stays in the row."""
    shape = list(shape)
    if len(shape) < 2:
        raise OpError("fill_diagonal_: x must have at least 2 dims, got shape %s" % shape)
    if len(shape) > 2 and len(set(shape)) != 1:
        raise OpError("fill_diagonal_: the dims of x must all be equal when it has more than "
                      "2, got shape %s" % shape)
    cols = shape[1]
    step = 1 + sum(int(np.prod(shape[k + 1:])) for k in range(len(shape) - 1))
    numel = int(np.prod(shape))
    size = numel if (wrap or len(shape) > 2) else min(numel, cols * cols)
    starts = np.arange(0, size, step)
    col = starts % cols + offset
    keep = (col >= 0) & (col < cols)
    return (starts[keep] + offset).astype(np.int64)


def fill_diagonal(x, value, offset=0, wrap=False, name=None):
    """``x`` with ``value`` on its diagonal (the result of Paddle's
    ``fill_diagonal_``; ``wrap`` restarts the diagonal below a tall matrix)."""
    if any(d < 0 for d in x.shape):
        raise OpError("fill_diagonal_: x's shape must be known, got %s" % list(x.shape))
    positions = _fill_diagonal_positions(x.shape, _as_int(offset, 'fill_diagonal_', 'offset'),
                                         bool(wrap))
    flat = reshape_op(x, (-1,))
    values = full_op((len(positions),), value, str(np.dtype(x.dtype)))
    return reshape_op(scatter_op(flat, to_tensor(positions), values, True), tuple(x.shape))


def fill_diagonal_tensor(x, y, offset=0, dim1=0, dim2=1, name=None):
    """``x`` with its diagonal ``offset`` in the (``dim1``, ``dim2``) plane
    replaced by ``y`` (the same as ``diagonal_scatter``)."""
    return diagonal_scatter(x, y, offset, dim1, dim2)


# ---- block_diag / cartesian_prod / combinations / vander ------------------------------

def block_diag(inputs, name=None):
    """The matrices of ``inputs`` (0-D and 1-D ones as one row) along the
    diagonal of a zero matrix."""
    mats = []
    for t in _tensor_list(inputs, 'block_diag'):
        t = t if is_value(t) else to_tensor(t)
        if len(t.shape) > 2:
            raise OpError("block_diag: inputs must have at most 2 dims, got shape %s"
                          % list(t.shape))
        if any(d < 0 for d in t.shape):
            raise OpError("block_diag: the shapes of inputs must be known, got %s"
                          % list(t.shape))
        mats.append(reshape(t, [1, -1]) if len(t.shape) < 2 else t)
    if not mats:
        raise OpError("block_diag: inputs must not be empty")
    dtype = str(meta.result_dtype(*mats))
    total = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        r, c = m.shape
        if np.dtype(m.dtype) != np.dtype(dtype):
            m = cast(m, dtype)
        parts = [full_op((r, left), 0, dtype)] if left else []
        parts.append(m)
        if total - left - c:
            parts.append(full_op((r, total - left - c), 0, dtype))
        rows.append(concat(parts, axis=1) if len(parts) > 1 else m)
        left += c
    return concat(rows, axis=0) if len(rows) > 1 else rows[0]


def cartesian_prod(x, name=None):
    """All combinations of one element from each 1-D tensor of ``x``, one per
    row (a single tensor is returned as it is)."""
    xs = _tensor_list(x, 'cartesian_prod')
    for i, t in enumerate(xs):
        if len(t.shape) != 1:
            raise OpError("cartesian_prod: x[%d] must be 1-D, got shape %s" % (i, list(t.shape)))
    if len(xs) == 1:
        return xs[0]
    grids = meshgrid(xs)
    return stack([reshape(g, [-1]) for g in grids], axis=1)


def combinations(x, r=2, with_replacement=False, name=None):
    """The length-``r`` combinations of the elements of the 1-D ``x`` (in
    lexicographic order of positions), one per row."""
    if len(x.shape) != 1 or x.shape[0] < 0:
        raise OpError("combinations: x must be 1-D with a known size, got shape %s"
                      % list(x.shape))
    r = _as_int(r, 'combinations', 'r')
    if r < 0:
        raise OpError("combinations: r must be non-negative, got %d" % r)
    if r == 0:
        return gather_op(x, to_tensor(np.zeros(0, np.int64)), 0)
    make = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    combos = np.array(list(make(range(x.shape[0]), r)), np.int64).reshape(-1, r)
    return reshape(gather_op(x, to_tensor(combos.reshape(-1)), 0), [len(combos), r])


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of the 1-D ``x``: column j is ``x ** (n-1-j)``
    (``x ** j`` with ``increasing``); ``n`` defaults to len(x)."""
    if len(x.shape) != 1:
        raise OpError("vander: x must be 1-D, got shape %s" % list(x.shape))
    n = x.shape[0] if n is None else _as_int(n, 'vander', 'n')
    if n < 0:
        raise OpError("vander: n must be non-negative, got %d" % n)
    if n == 0:
        return full_op((x.shape[0], 0), 0, str(np.dtype(x.dtype)))
    cols = [x * 0 + 1]
    for _ in range(n - 1):
        cols.append(cols[-1] * x)
    out = stack(cols, axis=1)
    return out if increasing else flip(out, [1])


def _tri_indices(which, row, col, offset, dtype):
    api = which + '_indices'
    row = _as_int(row, api, 'row')
    col = row if col is None else _as_int(col, api, 'col')
    if row < 0 or col < 0:
        raise OpError("%s: row and col must be non-negative, got %d and %d" % (api, row, col))
    d = _dt.convert_dtype(dtype)
    if d.kind not in 'iu':
        raise OpError("%s: dtype must be an integer dtype, got %s" % (api, d))
    make = np.tril_indices if which == 'tril' else np.triu_indices
    rows, cols = make(row, _as_int(offset, api, 'offset'), col)
    return to_tensor(np.stack([rows, cols]).astype(d))


def tril_indices(row, col, offset=0, dtype='int64'):
    """The [2, N] coordinates of the lower triangle (on and below diagonal
    ``offset``) of a ``row`` x ``col`` matrix, row by row."""
    return _tri_indices('tril', row, col, offset, dtype)


def triu_indices(row, col=None, offset=0, dtype='int64'):
    """The [2, N] coordinates of the upper triangle (on and above diagonal
    ``offset``) of a ``row`` x ``col`` matrix (``col`` defaults to ``row``)."""
    return _tri_indices('triu', row, col, offset, dtype)


# ---- repeat_interleave -----------------------------------------------------------------

def _repeat_index_meta(repeats, n, output_size):
    return Meta((output_size if output_size is not None else -1,), np.int64)


@def_op('repeat_interleave_index', _repeat_index_meta, differentiable=False,
        attr_types={'output_size': 'int|None'}, pattern='opaque')
def repeat_interleave_index_op(repeats, n=0, output_size=None):
    """``[0]*repeats[0] + [1]*repeats[1] + ...`` over ``n`` positions (one
    repeat count for all when repeats has one element)."""
    reps = np.asarray(repeats).reshape(-1)
    if reps.size == 1:
        reps = np.repeat(reps, n)
    if reps.size != n:
        raise OpError("repeat_interleave: repeats has %d entries but the axis has size %d"
                      % (reps.size, n))
    if reps.size and reps.min() < 0:
        raise OpError("repeat_interleave: repeats must be non-negative, got %s" % reps.tolist())
    index = np.repeat(np.arange(n, dtype=np.int64), reps)
    if output_size is not None and index.size != output_size:
        raise OpError("repeat_interleave: output_size %d does not match the %d repeated entries"
                      % (output_size, index.size))
    return index


@aliases(x=('input',), axis=('dim',))
def repeat_interleave(x, repeats, axis=None, name=None, *, output_size=None):
    """Each slice of ``x`` along ``axis`` (of the flattened x when ``axis`` is
    None) repeated ``repeats`` times in place: an int, or a tensor with one
    count per slice."""
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    axis = _norm_axis(x, axis, 'repeat_interleave')
    if is_value(repeats):
        _check_index_dtype(repeats, 'repeat_interleave: repeats')
        n = x.shape[axis]
        if n < 0:
            raise OpError("repeat_interleave: the size of axis %d must be known, got shape %s"
                          % (axis, list(x.shape)))
        size = None if output_size is None else _as_int(output_size, 'repeat_interleave',
                                                         'output_size')
        return gather_op(x, repeat_interleave_index_op(repeats, n, size), axis)
    r = _as_int(repeats, 'repeat_interleave', 'repeats')
    if r < 0:
        raise OpError("repeat_interleave: repeats must be non-negative, got %d" % r)
    shape = list(x.shape)
    target = shape[:axis + 1] + [r] + shape[axis + 1:]
    if any(d < 0 for d in shape):
        raise OpError("repeat_interleave: x's shape must be known, got %s" % shape)
    merged = shape[:axis] + [shape[axis] * r] + shape[axis + 1:]
    return reshape(expand(unsqueeze(x, axis + 1), target), merged)


__all__ = ['diag_embed', 'diagflat', 'block_diag', 'cartesian_prod',
           'combinations', 'vander', 'tril_indices', 'triu_indices', 'repeat_interleave']

TENSOR_METHODS = {
    'diag_embed': diag_embed, 'diagflat': diagflat,
    'block_diag': block_diag, 'cartesian_prod': cartesian_prod, 'combinations': combinations,
    'vander': vander, 'repeat_interleave': repeat_interleave, 'fill_diagonal': fill_diagonal,
    'fill_diagonal_tensor': fill_diagonal_tensor,
}
INPLACE_METHODS = {'fill_diagonal_': 'fill_diagonal',
                   'fill_diagonal_tensor_': 'fill_diagonal_tensor', 'tril_': 'tril',
                   'triu_': 'triu'}

add_test_case(repeat_interleave_index_op, np.array([1, 0, 2]), 3, None,
              ref=lambda r, n, s: np.array([0, 2, 2]))
add_test_case(repeat_interleave_index_op, np.array(2), 2, 4,
              ref=lambda r, n, s: np.array([0, 0, 1, 1]))
add_test_case(repeat_interleave_index_op, np.zeros(0, np.int64), 0, None,
              ref=lambda r, n, s: np.zeros(0, np.int64))
