"""Sparse tensors (Paddle's ``paddle.sparse``): COO and CSR, eager mode.

A sparse tensor is a pattern (integer index arrays, plain numpy: they carry no
gradient) and a dense ``values`` Tensor. Every computation on it is a dense op
on ``values`` (or a gather/scatter between values and a dense tensor), so the
tape differentiates it like any other op and no sparse kernel set is needed;
``x.grad`` is the gradient of ``values`` on the same pattern.

* COO: ``indices`` is ``[sparse_dim, nnz]``; ``values`` is ``[nnz] +
  shape[sparse_dim:]`` (a hybrid tensor keeps trailing dims dense).
* CSR: 2-D ``[M, N]`` or batched 3-D ``[B, M, N]``: ``crows`` holds each row's
  start (``B * (M + 1)`` entries), ``cols`` the column of each value.

Entries are kept in the order they are given; ``coalesce`` sorts them and sums
duplicates (conversions from dense and CSR are coalesced already).
"""
import numpy as np

from .. import dtype as _dt
from ..dygraph.tensor import Tensor, wrap_array
from ..ops.creation import to_tensor, zeros
from ..ops.manipulation import gather_nd, scatter_nd_add
from ..ops.printing import format_values
from ..place import cpu_place
from ..size import Size


def _index_array(value, api, what):
    arr = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
    if arr.size and arr.dtype.kind not in 'iu':
        raise TypeError("%s: %s must hold integers, got dtype %s" % (api, what, arr.dtype))
    return arr.astype(np.int64) if arr.dtype.kind not in 'iu' else arr


def _values_tensor(values, dtype, stop_gradient):
    """values as a Tensor: a given Tensor keeps its graph (gradients reach it)."""
    if isinstance(values, Tensor):
        if dtype is not None and _dt.convert_dtype(dtype) != values.data.dtype:
            values = values.astype(dtype)
        if not stop_gradient:
            values.stop_gradient = False
        return values
    return to_tensor(values, dtype=dtype, stop_gradient=stop_gradient)


def _dtype_text(d):
    name = str(d)
    return name if name.startswith('paddle.') else 'paddle.' + name


class SparseTensor:
    """What COO and CSR tensors share: the values, the shape, autograd, printing."""
    __slots__ = ('_values', '_shape')
    format = None

    # ---- Tensor-like attributes ---------------------------------------------------
    @property
    def shape(self):
        return Size(self._shape)

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def place(self):
        return cpu_place()

    @property
    def stop_gradient(self):
        return self._values.stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self._values.stop_gradient = value

    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._with_values(g)

    def backward(self, grad_tensor=None, retain_graph=False):
        """Backward from this tensor's values (``grad_tensor`` sparse on the
        same pattern, or its values)."""
        if isinstance(grad_tensor, SparseTensor):
            grad_tensor = grad_tensor._values
        self._values.backward(grad_tensor, retain_graph=retain_graph)

    def detach(self):
        return self._with_values(self._values.detach())

    def values(self):
        return self._values

    def nnz(self):
        return int(self._values.shape[0])

    def numel(self):
        return int(np.prod(self._shape))

    def is_sparse(self):
        return True

    def is_dense(self):
        return False

    def is_sparse_coo(self):
        return self.format == 'coo'

    def is_sparse_csr(self):
        return self.format == 'csr'

    def is_same_shape(self, y):
        return list(self._shape) == list(y.shape)

    def astype(self, dtype):
        return self._with_values(self._values.astype(dtype))

    def numpy(self):
        raise TypeError("%s tensor: numpy() needs a dense tensor; call to_dense() first"
                        % self.format.upper())

    def to_dense(self):
        """The dense tensor (differentiable: its gradient reaches the values)."""
        empty = zeros(self._shape, dtype=self._values.dtype)
        idx = self._coo_indices()
        if idx.shape[1] == 0:
            return empty + 0 * self._values.sum()
        return scatter_nd_add(empty, wrap_array(np.ascontiguousarray(idx.T)), self._values)

    # ---- printing (``_parts``: each subclass's named arrays) --------------------------
    def __repr__(self):
        head = "Tensor(shape=%s, dtype=%s, place=%s, stop_gradient=%s,\n" % (
            list(self._shape), _dtype_text(self.dtype), self.place, self.stop_gradient)
        parts = []
        for name, arr in self._parts():
            arr = np.asarray(arr)
            if arr.dtype.kind == 'V':           # bfloat16 prints through float32
                arr = arr.astype(np.float32)
            indent = 7 + len(name) + 1
            parts.append(' ' * 7 + name + '=' + format_values(arr, indent))
        return head + ',\n'.join(parts) + ')'

    __str__ = __repr__

    # ---- operators --------------------------------------------------------------------
    def __add__(self, y):
        from .binary import add
        return add(self, y)

    def __sub__(self, y):
        from .binary import subtract
        return subtract(self, y)

    def __mul__(self, y):
        from .binary import multiply
        return multiply(self, y)

    __rmul__ = __mul__

    def __truediv__(self, y):
        from .binary import divide
        return divide(self, y)

    def __matmul__(self, y):
        from .binary import matmul
        return matmul(self, y)

    def __neg__(self):
        return self._with_values(-self._values)

    def __pow__(self, factor):
        return self._with_values(self._values ** factor)

    def __abs__(self):
        return self._with_values(self._values.abs())


class SparseCooTensor(SparseTensor):
    __slots__ = ('_indices', '_coalesced')
    format = 'coo'

    def __init__(self, indices, values, shape, coalesced=False):
        self._indices = indices
        self._values = values
        self._shape = tuple(int(s) for s in shape)
        self._coalesced = coalesced

    def _with_values(self, values):
        return SparseCooTensor(self._indices, values, self._shape, self._coalesced)

    def _coo_indices(self):
        return self._indices.astype(np.int64, copy=False)

    def _parts(self):
        return [('indices', self._indices), ('values', self._values.data)]

    def indices(self):
        return wrap_array(self._indices)

    def sparse_dim(self):
        return int(self._indices.shape[0])

    def dense_dim(self):
        return self.ndim - self.sparse_dim()

    def is_coalesced(self):
        return self._coalesced

    def coalesce(self):
        """Entries sorted by index, duplicates summed (differentiably)."""
        if self._coalesced:
            return self
        sd = self.sparse_dim()
        idx = self._coo_indices()
        if idx.shape[1] == 0:
            return SparseCooTensor(self._indices, self._values, self._shape, True)
        lin = np.ravel_multi_index(tuple(idx), self._shape[:sd])
        uniq, inverse = np.unique(lin, return_inverse=True)
        values = _scatter_rows(self._values, inverse, len(uniq))
        new = np.array(np.unravel_index(uniq, self._shape[:sd]), dtype=self._indices.dtype)
        return SparseCooTensor(new.reshape(sd, len(uniq)), values, self._shape, True)

    def to_sparse_coo(self, sparse_dim=None):
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            return self.to_dense().to_sparse_coo(sparse_dim)
        return self

    def to_sparse_csr(self):
        if self.dense_dim() or self.ndim not in (2, 3):
            raise ValueError("to_sparse_csr: needs a 2-D or 3-D COO tensor without dense dims, "
                             "got shape %s with sparse_dim %d" % (list(self._shape),
                                                                  self.sparse_dim()))
        x = self.coalesce()
        return SparseCsrTensor.from_coo_pattern(x._coo_indices(), x._values, self._shape)


class SparseCsrTensor(SparseTensor):
    __slots__ = ('_crows', '_cols')
    format = 'csr'

    def __init__(self, crows, cols, values, shape):
        self._crows = crows
        self._cols = cols
        self._values = values
        self._shape = tuple(int(s) for s in shape)

    @classmethod
    def from_coo_pattern(cls, idx, values, shape):
        """The CSR tensor of row-major sorted COO indices ``idx``."""
        rows_per = shape[-2]
        batches = shape[0] if len(shape) == 3 else 1
        flat_rows = idx[0] * rows_per + idx[1] if len(shape) == 3 else idx[0]
        counts = np.bincount(flat_rows, minlength=batches * rows_per).reshape(batches, rows_per)
        crows = np.concatenate([np.zeros((batches, 1), np.int64), np.cumsum(counts, axis=1)],
                               axis=1).reshape(-1)
        return cls(crows, idx[-1].astype(np.int64), values, shape)

    def _with_values(self, values):
        return SparseCsrTensor(self._crows, self._cols, values, self._shape)

    def _coo_indices(self):
        m = self._shape[-2]
        crows = self._crows.astype(np.int64).reshape(-1, m + 1)
        counts = np.diff(crows, axis=1)
        rows = np.repeat(np.tile(np.arange(m), len(crows)), counts.reshape(-1))
        if len(self._shape) == 2:
            return np.stack([rows, self._cols.astype(np.int64)])
        batch = np.repeat(np.arange(len(crows)), counts.sum(axis=1))
        return np.stack([batch, rows, self._cols.astype(np.int64)])

    def _parts(self):
        return [('crows', self._crows), ('cols', self._cols), ('values', self._values.data)]

    def crows(self):
        return wrap_array(self._crows)

    def cols(self):
        return wrap_array(self._cols)

    def sparse_dim(self):
        return self.ndim

    def dense_dim(self):
        return 0

    def is_coalesced(self):
        return True

    def to_sparse_csr(self):
        return self

    def to_sparse_coo(self, sparse_dim=None):
        if sparse_dim is not None and sparse_dim != self.ndim:
            return self.to_dense().to_sparse_coo(sparse_dim)
        return SparseCooTensor(self._coo_indices(), self._values, self._shape, True)


def _scatter_rows(values, rows, n):
    """``out[r] = sum of values[i] with rows[i] == r`` for r < n (differentiable)."""
    empty = zeros([n] + list(values.shape[1:]), dtype=values.dtype)
    return scatter_nd_add(empty, wrap_array(np.asarray(rows, np.int64).reshape(-1, 1)), values)


def gather_values(dense, idx):
    """``dense`` at the COO indices ``idx`` ([k, nnz]): the values of a pattern."""
    return gather_nd(dense, wrap_array(np.ascontiguousarray(idx.T.astype(np.int64))))


# ---- construction -----------------------------------------------------------------------

def sparse_coo_tensor(indices, values, shape=None, dtype=None, place=None, stop_gradient=True):
    """A COO tensor from ``indices`` ([sparse_dim, nnz]) and ``values`` ([nnz, ...]);
    ``shape`` defaults to the smallest that holds every index."""
    api = 'sparse_coo_tensor'
    idx = _index_array(indices, api, 'indices')
    if idx.ndim != 2:
        raise ValueError("%s: indices must be 2-D [sparse_dim, nnz], got shape %s"
                         % (api, list(idx.shape)))
    vals = _values_tensor(values, dtype, stop_gradient)
    if vals.ndim == 0 or vals.shape[0] != idx.shape[1]:
        raise ValueError("%s: values must have nnz = %d rows (indices.shape[1]), got shape %s"
                         % (api, idx.shape[1], list(vals.shape)))
    dense_dims = list(vals.shape[1:])
    if shape is None:
        shape = [int(m) + 1 for m in idx.max(axis=1)] + dense_dims if idx.size else \
            [0] * idx.shape[0] + dense_dims
    shape = [int(s) for s in (shape.tolist() if hasattr(shape, 'tolist') else shape)]
    if len(shape) != idx.shape[0] + len(dense_dims) or shape[idx.shape[0]:] != dense_dims:
        raise ValueError("%s: shape %s does not fit indices of %d sparse dims and values of "
                         "shape %s" % (api, shape, idx.shape[0], list(vals.shape)))
    if idx.size and (idx.min() < 0 or np.any(idx.max(axis=1) >= shape[:idx.shape[0]])):
        raise ValueError("%s: indices out of range for shape %s" % (api, shape))
    return SparseCooTensor(idx, vals, shape)


def sparse_csr_tensor(crows, cols, values, shape, dtype=None, place=None, stop_gradient=True):
    """A CSR tensor of ``shape`` ([M, N] or [B, M, N]) from row starts ``crows``,
    column indices ``cols`` and ``values``."""
    api = 'sparse_csr_tensor'
    crows = _index_array(crows, api, 'crows').reshape(-1)
    cols = _index_array(cols, api, 'cols').reshape(-1)
    vals = _values_tensor(values, dtype, stop_gradient)
    shape = [int(s) for s in (shape.tolist() if hasattr(shape, 'tolist') else shape)]
    if len(shape) not in (2, 3):
        raise ValueError("%s: shape must be 2-D or 3-D, got %s" % (api, shape))
    batches = shape[0] if len(shape) == 3 else 1
    if len(crows) != batches * (shape[-2] + 1):
        raise ValueError("%s: crows must have %d entries for shape %s, got %d"
                         % (api, batches * (shape[-2] + 1), shape, len(crows)))
    per = crows.reshape(batches, -1)
    if np.any(per[:, 0] != 0) or np.any(np.diff(per, axis=1) < 0) or \
            per[:, -1].sum() != len(cols) or vals.ndim != 1 or vals.shape[0] != len(cols):
        raise ValueError("%s: crows %s, cols (%d) and values (shape %s) do not make a CSR "
                         "pattern" % (api, crows.tolist(), len(cols), list(vals.shape)))
    if cols.size and (cols.min() < 0 or cols.max() >= shape[-1]):
        raise ValueError("%s: cols out of range for %d columns" % (api, shape[-1]))
    return SparseCsrTensor(crows, cols, vals, shape)


# ---- the dense tensor's side (Tensor methods) ---------------------------------------------

def _eager(x, api):
    if not isinstance(x, Tensor):
        raise TypeError("%s: sparse tensors are eager only; got %s" % (api, type(x).__name__))


def to_sparse_coo(self, sparse_dim):
    """The COO tensor of a dense tensor's non-zeros over its first ``sparse_dim``
    dims; trailing dims stay dense in the values."""
    x = self
    _eager(x, 'to_sparse_coo')
    sd = int(sparse_dim)
    if not 0 < sd <= x.ndim:
        raise ValueError("to_sparse_coo: sparse_dim must be in [1, %d] for shape %s, got %r"
                         % (x.ndim, x.shape, sparse_dim))
    nz = x.data != 0
    if sd < x.ndim:
        nz = nz.any(axis=tuple(range(sd, x.ndim)))
    idx = np.array(np.nonzero(nz), dtype=np.int64).reshape(sd, -1)
    return SparseCooTensor(idx, gather_values(x, idx), x.shape, True)


def to_sparse_csr(self, /):
    """The CSR tensor of a 2-D or 3-D dense tensor's non-zeros."""
    x = self
    _eager(x, 'to_sparse_csr')
    if x.ndim not in (2, 3):
        raise ValueError("to_sparse_csr: needs a 2-D or 3-D tensor, got shape %s" % x.shape)
    idx = np.array(np.nonzero(x.data != 0), dtype=np.int64).reshape(x.ndim, -1)
    return SparseCsrTensor.from_coo_pattern(idx, gather_values(x, idx), x.shape)


def _to_dense(self):
    return self


def _is_dense(self, /):
    return True


# the dense Tensor's side (is_sparse, sparse_dim, dense_dim, is_same_shape are
# ops/tensor_api.py's shared methods)
DENSE_METHODS = {'to_sparse_coo': to_sparse_coo, 'to_sparse_csr': to_sparse_csr,
                 'to_dense': _to_dense, 'is_dense': _is_dense}


def install_dense_methods(cls):
    for name, fn in DENSE_METHODS.items():
        setattr(cls, name, fn)
