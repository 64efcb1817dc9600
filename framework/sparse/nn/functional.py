"""``paddle.sparse.nn.functional``: activations on stored values, and softmax
over each row's stored entries."""
import numpy as np

from ...ops.creation import to_tensor
from ...ops.manipulation import gather
from ...ops.math import exp
from ..tensor import SparseCooTensor, _scatter_rows
from ..unary import _check, leaky_relu, relu, relu6  # noqa: F401  (re-exported)


def softmax(x, axis=-1, name=None):
    """Softmax along the last dim over the stored entries only (missing entries
    count as -inf, as Paddle's sparse softmax), in x's format."""
    _check(x, 'softmax')
    if axis not in (-1, x.ndim - 1):
        raise ValueError("paddle.sparse.nn.functional.softmax: only the last axis (-1) is "
                         "supported, got %r" % (axis,))
    coo = x.to_sparse_coo()
    if coo.dense_dim():
        raise ValueError("paddle.sparse.nn.functional.softmax: needs a tensor without dense "
                         "dims, got sparse_dim %d of %d" % (coo.sparse_dim(), coo.ndim))
    idx = coo._coo_indices()
    row = np.ravel_multi_index(tuple(idx[:-1]), coo._shape[:-1]) if coo.ndim > 1 else \
        np.zeros(idx.shape[1], np.int64)
    n_rows = int(np.prod(coo._shape[:-1]))
    v = coo._values
    row_max = np.full(n_rows, -np.inf, v.data.dtype)
    np.maximum.at(row_max, row, v.data)
    # the max is a constant shift: softmax does not depend on it
    e = exp(v - to_tensor(row_max[row]))
    total = _scatter_rows(e, row, n_rows)
    out = e / gather(total, to_tensor(row, dtype='int64'))
    return x._with_values(out) if x.format == 'csr' else SparseCooTensor(
        coo._indices, out, coo._shape, coo.is_coalesced())


__all__ = ['relu', 'relu6', 'leaky_relu', 'softmax']
