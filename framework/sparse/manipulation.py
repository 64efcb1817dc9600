"""Sparse ops that move entries: coalesce, reshape, transpose, slice, sum, mask_as.

Index arithmetic is numpy on the pattern; the values follow through gathers
and scatters (differentiable). A CSR input is worked on as COO and given back
as CSR where the result is 2-D or 3-D without dense dims.
"""
import builtins

import numpy as np

from ..ops.tensor_api import is_same_shape
from .tensor import SparseCooTensor, SparseCsrTensor, SparseTensor, gather_values
from ..ops.creation import to_tensor
from ..ops.manipulation import gather
from ..ops.subscript import slice as dense_slice
from .unary import _check


def _back(like, coo):
    """``coo`` in ``like``'s format (CSR needs a coalesced, sorted pattern)."""
    if like.format == 'csr' and coo.ndim in (2, 3) and not coo.dense_dim():
        coo = coo.coalesce()
        return SparseCsrTensor.from_coo_pattern(coo._coo_indices(), coo._values, coo._shape)
    return coo


def _coalesce_pattern(idx, values, shape):
    return SparseCooTensor(idx, values, shape).coalesce()


def coalesce(x, name=None):
    """Entries sorted by index with duplicates summed."""
    _check(x, 'coalesce')
    return x.coalesce() if x.format == 'coo' else x


def _sparse_only(x, api):
    if x.dense_dim():
        raise ValueError("paddle.sparse.%s: needs a tensor without dense dims (sparse_dim == "
                         "ndim), got shape %s with sparse_dim %d"
                         % (api, list(x.shape), x.sparse_dim()))


def _resolve_shape(shape, old, api):
    shape = [int(s) for s in (shape.tolist() if hasattr(shape, 'tolist') else shape)]
    shape = [old[i] if s == 0 else s for i, s in enumerate(shape)]
    total = int(np.prod(old))
    if shape.count(-1) > 1:
        raise ValueError("paddle.sparse.%s: at most one -1 in shape, got %s" % (api, shape))
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        shape[shape.index(-1)] = total // known if known else 0
    if int(np.prod(shape)) != total:
        raise ValueError("paddle.sparse.%s: cannot reshape %s (%d elements) to %s"
                         % (api, list(old), total, shape))
    return shape


def reshape(x, shape, name=None):
    """The tensor with a new shape (0 copies a dim, one -1 is inferred)."""
    _check(x, 'reshape')
    coo = x.to_sparse_coo()
    _sparse_only(coo, 'reshape')
    new_shape = _resolve_shape(shape, coo._shape, 'reshape')
    lin = np.ravel_multi_index(tuple(coo._coo_indices()), coo._shape)
    idx = np.array(np.unravel_index(lin, new_shape), np.int64).reshape(len(new_shape), -1)
    return _back(x, SparseCooTensor(idx, coo._values, new_shape, coo.is_coalesced()))


def transpose(x, perm, name=None):
    """Dims permuted by ``perm`` (entries keep their order, as Paddle's COO)."""
    _check(x, 'transpose')
    coo = x.to_sparse_coo()
    _sparse_only(coo, 'transpose')
    perm = [int(p) % coo.ndim for p in perm]
    if sorted(perm) != list(range(coo.ndim)):
        raise ValueError("paddle.sparse.transpose: perm must permute %d dims, got %s"
                         % (coo.ndim, perm))
    idx = coo._indices[perm]
    out = SparseCooTensor(idx, coo._values, [coo._shape[p] for p in perm])
    return _back(x, out)


def _bounds(start, end, size):
    start, end, _ = builtins.slice(int(start), int(end)).indices(size)
    return start, max(start, end)


def slice(x, axes, starts, ends, name=None):  # noqa: A001  (Paddle's name)
    """``x[starts[i]:ends[i]]`` along each ``axes[i]`` (negative bounds count
    from the end, as Python's)."""
    _check(x, 'slice')
    coo = x.to_sparse_coo()
    shape = list(coo._shape)
    sd = coo.sparse_dim()
    idx = coo._coo_indices()
    keep = np.ones(idx.shape[1], bool)
    shift = np.zeros(sd, np.int64)
    values_slices = []
    for axis, s, e in zip(axes, starts, ends):
        axis = int(axis) % len(shape)
        lo, hi = _bounds(s, e, shape[axis])
        shape[axis] = hi - lo
        if axis < sd:
            keep &= (idx[axis] >= lo) & (idx[axis] < hi)
            shift[axis] = lo
        else:
            values_slices.append((axis - sd + 1, lo, hi))
    rows = np.nonzero(keep)[0]
    values = gather(coo._values, to_tensor(rows, dtype='int64'), axis=0)
    for axis, lo, hi in values_slices:
        values = dense_slice(values, [axis], [lo], [hi])
    new_idx = (idx[:, rows] - shift[:, None]).astype(coo._indices.dtype)
    return _back(x, SparseCooTensor(new_idx, values, shape, coo.is_coalesced()))


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001  (Paddle's name)
    """The sum over ``axis`` (None: everything, a one-element tensor). Summing a
    dense dim sums the values; summing a sparse dim merges entries that then
    share an index (its dim stays, size 1, when it was the only sparse one)."""
    _check(x, 'sum')
    coo = x.to_sparse_coo()
    values = coo._values if dtype is None else coo._values.astype(dtype)
    sd = coo.sparse_dim()
    if axis is None:
        total = values.sum().reshape([1])
        return SparseCooTensor(np.zeros((1, 1), np.int64), total, [1], True)
    axis = int(axis) % coo.ndim
    if axis >= sd:
        out_shape = list(coo._shape)
        out_shape[axis] = 1 if keepdim else None
        out = SparseCooTensor(coo._indices, values.sum(axis - sd + 1, keepdim=keepdim),
                              [s for s in out_shape if s is not None], coo.is_coalesced())
        return _back(x, out)
    idx = coo._coo_indices()
    shape = list(coo._shape)
    if keepdim or sd == 1:
        idx = idx.copy()
        idx[axis] = 0
        shape[axis] = 1
    else:
        idx = np.delete(idx, axis, axis=0)
        del shape[axis]
    return _back(x, _coalesce_pattern(idx, values, shape))


def mask_as(x, mask, name=None):
    """Dense ``x``'s values at ``mask``'s pattern, in mask's format."""
    if not isinstance(mask, SparseTensor):
        raise TypeError("paddle.sparse.mask_as: mask must be a sparse tensor, got %s"
                        % type(mask).__name__)
    if list(x.shape) != list(mask.shape):
        raise ValueError("paddle.sparse.mask_as: x has shape %s, mask %s"
                         % (list(x.shape), list(mask.shape)))
    idx = mask.to_sparse_coo()._coo_indices()
    return mask._with_values(gather_values(x, idx))


__all__ = ['coalesce', 'reshape', 'transpose', 'slice', 'sum', 'mask_as', 'is_same_shape']
