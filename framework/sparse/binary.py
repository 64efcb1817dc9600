"""Sparse binary ops and products.

Two sparse operands of one shape are aligned on a common pattern: the union of
their patterns for add, subtract and multiply (as Paddle, every position either
stores, even where the result is 0), every position for divide (0 / 0 is nan
there too). Each operand's values are scattered onto that pattern
(differentiably), the dense op combines them, and the result has the format
of ``x``. A dense ``y`` multiplies or divides ``x``'s values at x's pattern; a
dense ``y`` added or subtracted gives a dense result. Scalars scale values.
"""
import numbers

import numpy as np

from ..dygraph.tensor import Tensor, wrap_array
from ..ops import math
from ..ops.creation import zeros
from ..ops.manipulation import broadcast_to, gather_nd, scatter_nd_add, transpose
from .tensor import (SparseCooTensor, SparseCsrTensor, SparseTensor, _scatter_rows,
                     gather_values)


def _restore_format(like, coo):
    """``coo`` (coalesced) in ``like``'s format."""
    if like.format == 'csr':
        return SparseCsrTensor.from_coo_pattern(coo._coo_indices(), coo._values, coo._shape)
    return coo


def _aligned(x, y, api, everywhere):
    """(pattern [sd, n], x's values on it, y's values on it)."""
    if list(x.shape) != list(y.shape):
        raise ValueError("paddle.sparse.%s: x and y must have the same shape, got %s and %s"
                         % (api, list(x.shape), list(y.shape)))
    x, y = x.to_sparse_coo(), y.to_sparse_coo()
    if x.sparse_dim() != y.sparse_dim():
        raise ValueError("paddle.sparse.%s: x and y must have the same sparse_dim, got %d and %d"
                         % (api, x.sparse_dim(), y.sparse_dim()))
    sparse_shape = x._shape[:x.sparse_dim()]
    lin_x = np.ravel_multi_index(tuple(x._coo_indices()), sparse_shape)
    lin_y = np.ravel_multi_index(tuple(y._coo_indices()), sparse_shape)
    union = np.arange(int(np.prod(sparse_shape))) if everywhere else np.union1d(lin_x, lin_y)
    vx = _scatter_rows(x._values, np.searchsorted(union, lin_x), len(union))
    vy = _scatter_rows(y._values, np.searchsorted(union, lin_y), len(union))
    pattern = np.array(np.unravel_index(union, sparse_shape), np.int64).reshape(
        len(sparse_shape), len(union))
    return pattern, vx, vy, x._shape


def _binary(api, dense_op, everywhere=False):
    def op(x, y, name=None):
        if not isinstance(x, SparseTensor):
            raise TypeError("paddle.sparse.%s: x must be a sparse tensor, got %s"
                            % (api, type(x).__name__))
        if isinstance(y, SparseTensor):
            pattern, vx, vy, shape = _aligned(x, y, api, everywhere)
            return _restore_format(x, SparseCooTensor(pattern, dense_op(vx, vy), shape, True))
        scales = api in ('multiply', 'divide')
        if isinstance(y, Tensor):
            if not scales:
                return dense_op(x.to_dense(), y)
            coo = x.to_sparse_coo()
            idx = coo._coo_indices()
            dense_y = broadcast_to(y, x.shape) if list(y.shape) != list(x.shape) else y
            return x._with_values(dense_op(x.values(), gather_values(dense_y, idx)))
        if isinstance(y, numbers.Number) and scales:
            return x._with_values(dense_op(x.values(), y))
        raise TypeError("paddle.sparse.%s: y must be a sparse or dense tensor%s, got %s"
                        % (api, ' or a number' if scales else '', type(y).__name__))
    op.__name__ = api
    op.__doc__ = "Elementwise ``%s`` of sparse tensors (see the module docstring)." % api
    return op


add = _binary('add', math.add)
subtract = _binary('subtract', math.subtract)
multiply = _binary('multiply', math.multiply)
divide = _binary('divide', math.divide, everywhere=True)


def _rows_cols(x):
    """A sparse matrix's (batch index or None, rows, cols) of its stored values."""
    idx = x.to_sparse_coo()._coo_indices()
    if x.ndim == 2:
        return None, idx[0], idx[1]
    return idx[0], idx[1], idx[2]


def _check_matrix(x, api, what):
    if not isinstance(x, SparseTensor) or x.ndim not in (2, 3) or x.dense_dim():
        raise TypeError("paddle.sparse.%s: %s must be a 2-D or 3-D sparse tensor without dense "
                        "dims, got %r" % (api, what, getattr(x, 'shape', type(x).__name__)))


def matmul(x, y, name=None):
    """``x @ y``: sparse @ dense gives a dense tensor (each stored value scales a
    row of y into its row of the output); sparse @ sparse a sparse tensor in x's
    format."""
    _check_matrix(x, 'matmul', 'x')
    if isinstance(y, SparseTensor):
        product = math.matmul(x.to_dense(), y.to_dense())
        return product.to_sparse_csr() if x.format == 'csr' else product.to_sparse_coo(product.ndim)
    if not isinstance(y, Tensor) or y.ndim != x.ndim or list(y.shape[:-2]) != list(x.shape[:-2]) \
            or y.shape[-2] != x.shape[-1]:
        raise ValueError("paddle.sparse.matmul: y must be a dense tensor of shape %s, got %s"
                         % (list(x.shape[:-1]) + ['N'], getattr(y, 'shape', type(y).__name__)))
    batch, rows, cols = _rows_cols(x)
    take = np.stack([cols] if batch is None else [batch, cols], axis=1)
    put = np.stack([rows] if batch is None else [batch, rows], axis=1)
    picked = gather_nd(y, wrap_array(take)) * x.values().unsqueeze(-1)
    out = zeros(list(x.shape[:-1]) + [y.shape[-1]], dtype=picked.dtype)
    return scatter_nd_add(out, wrap_array(put), picked)


def masked_matmul(x, y, mask, name=None):
    """``x @ y`` (dense) at ``mask``'s pattern only, in mask's format."""
    _check_matrix(mask, 'masked_matmul', 'mask')
    if list(x.shape[:-1]) + [y.shape[-1]] != list(mask.shape):
        raise ValueError("paddle.sparse.masked_matmul: x @ y has shape %s, mask %s"
                         % (list(x.shape[:-1]) + [y.shape[-1]], list(mask.shape)))
    batch, rows, cols = _rows_cols(mask)
    yt = transpose(y, list(range(y.ndim - 2)) + [y.ndim - 1, y.ndim - 2])
    at_rows = np.stack([rows] if batch is None else [batch, rows], axis=1)
    at_cols = np.stack([cols] if batch is None else [batch, cols], axis=1)
    values = (gather_nd(x, wrap_array(at_rows)) * gather_nd(yt, wrap_array(at_cols))).sum(-1)
    return mask._with_values(values)


def mv(x, vec, name=None):
    """Sparse matrix times dense vector: a dense vector."""
    _check_matrix(x, 'mv', 'x')
    if x.ndim != 2 or not isinstance(vec, Tensor) or list(vec.shape) != [x.shape[1]]:
        raise ValueError("paddle.sparse.mv: needs a 2-D sparse x and a vector of %d, got %s "
                         "and %s" % (x.shape[-1], list(x.shape), getattr(vec, 'shape', vec)))
    return matmul(x, vec.unsqueeze(-1)).squeeze(-1)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002  (Paddle's name)
    """``beta * input + alpha * (x @ y)``."""
    product = matmul(x, y)
    if isinstance(product, SparseTensor):
        return add(input * beta, product * alpha) if isinstance(input, SparseTensor) \
            else input * beta + product.to_dense() * alpha
    return input * beta + product * alpha


__all__ = ['add', 'subtract', 'multiply', 'divide', 'matmul', 'masked_matmul', 'mv', 'addmm']
