"""The LKJ distribution over Cholesky factors of correlation matrices."""
import math
from collections.abc import Sequence

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import eye, normal_like_op, to_tensor, tril
from ..ops.manipulation import expand, pad, reshape, unsqueeze, where
from ..ops.special import lgamma, multigammaln
from ..linalg import norm
from . import _math
from .beta import Beta
from .distribution import Distribution, eager_all

__all__ = ['LKJCholesky']


class LKJCholesky(Distribution):
    r"""LKJ distribution (Lewandowski, Kurowicka and Joe 2009) of lower
    Cholesky factors L of ``dim`` x ``dim`` correlation matrices:
    :math:`p(L) \propto \prod_{i \ge 2} L_{ii}^{dim - i + 2 (\eta - 1)}`,
    eta = ``concentration``. ``sample_method`` is 'onion' or 'cvine'.

    >>> from framework.distribution import LKJCholesky
    >>> LKJCholesky(3, 2.0).sample([4]).shape
    paddle.Size([4, 3, 3])
    """

    def __init__(self, dim=2, concentration=1.0, sample_method='onion'):
        if self._validate_args(concentration):
            self.concentration = concentration
            self.dtype = np.dtype(concentration.dtype)
        else:
            [self.concentration] = self._to_tensor(concentration)
            self.dtype = _dt.get_default_dtype()
            self.concentration = _math.as_dtype(self.concentration, self.dtype)
        if not dim >= 2:
            raise ValueError("Expected dim greater than or equal to 2. Found dim=%s." % (dim,))
        if not isinstance(dim, int):
            raise TypeError("Expected dim to be an integer. Found dim=%s." % (dim,))
        if not eager_all(self.concentration > 0):
            raise ValueError("The arg of `concentration` must be positive.")
        self.dim = dim
        self.sample_method = sample_method
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = np.arange(dim - 1, dtype=self.dtype)
        if sample_method == 'onion':
            # row i >= 1 of L is sqrt(y) u (u a unit vector in R^i) with
            # y ~ Beta(i / 2, marginal - (i - 1) / 2) (LKJ 2009, section 3.2);
            # row 0 takes no draw. (Paddle 3.3 uses i - 1/2 for the first
            # shape, which biases rows i >= 2.)
            offset = np.concatenate([np.zeros(1, self.dtype), offset])
            rows = np.maximum(np.arange(dim, dtype=self.dtype), 1.0)
            self._beta = Beta(to_tensor(0.5 * rows),
                              unsqueeze(marginal, -1) - to_tensor(0.5 * offset))
        elif sample_method == 'cvine':
            # one Beta per strictly-lower entry (i, j), row by row: marginal - j / 2
            cols = np.concatenate([np.arange(i) for i in range(1, dim)]).astype(self.dtype)
            conc = unsqueeze(marginal, -1) - to_tensor(0.5 * cols)
            self._beta = Beta(conc, conc)
        else:
            raise ValueError("`method` should be one of 'cvine' or 'onion'.")
        super().__init__(tuple(self.concentration.shape), (dim, dim))

    def _onion(self, sample_shape):
        y = unsqueeze(self._beta.sample(sample_shape), -1)           # [..., dim, 1]
        base = expand(y, list(self._extend_shape(sample_shape)))
        u = tril(normal_like_op(base, 0.0, 1.0, 0), -1)
        length = norm(u, axis=-1, keepdim=True)
        # row 0 of the strictly lower triangle is empty: its direction is 0
        u = u / where(length > 0, length, _m.maximum(length, 1.0))
        w = _m.sqrt(y) * u
        diag = _m.sqrt(_m.clip(1.0 - _r.sum(w * w, -1), _math.tiny_of(w.dtype), None))
        return w + _math.diag_embed(diag)

    def _cvine(self, sample_shape):
        partial = 2.0 * self._beta.sample(sample_shape) - 1.0        # [..., dim(dim-1)/2]
        r = _strict_lower_from_vector(partial, self.dim)
        eps = _math.tiny_of(r.dtype)
        r = _m.clip(r, -1.0 + eps, 1.0 - eps)
        left = _math.cumprod_positive(_m.sqrt(1.0 - r * r), -1)
        lead = [0, 0] * (len(left.shape) - 1)
        shifted = pad(left[..., :-1], lead + [1, 0], value=1.0)
        return (r + eye(self.dim, dtype=r.dtype)) * shifted

    def sample(self, sample_shape=()):
        """Lower Cholesky factors of shape ``sample_shape + batch_shape + [dim, dim]``."""
        if not isinstance(sample_shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        sample_shape = tuple(sample_shape)
        out = self._onion(sample_shape) if self.sample_method == 'onion' else \
            self._cvine(sample_shape)
        return reshape(out, list(sample_shape) + list(self.concentration.shape)
                       + [self.dim, self.dim])

    def log_prob(self, value):
        dim = self.dim
        diag = _math.matrix_diagonal(value)[..., 1:]
        order = to_tensor(np.arange(2, dim + 1, dtype=self.dtype))
        order = 2.0 * unsqueeze(self.concentration - 1.0, -1) + dim - order
        unnormalized = _r.sum(order * _m.log(diag), -1)
        dm1 = dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = (0.5 * dm1 * math.log(math.pi) + multigammaln(alpha - 0.5, dm1)
                      - lgamma(alpha) * dm1)
        return unnormalized - normalizer


def _strict_lower_from_vector(vec, dim):
    """Matrices [..., dim, dim] whose strictly lower entries, row by row, are
    the last dim of ``vec`` (a constant 0/1 scatter matrix, so it differentiates)."""
    rows, cols = np.tril_indices(dim, -1)
    scatter = np.zeros((len(rows), dim * dim), np.dtype(vec.dtype))
    scatter[np.arange(len(rows)), rows * dim + cols] = 1.0
    flat = _m.matmul(vec, to_tensor(scatter))
    return reshape(flat, list(vec.shape[:-1]) + [dim, dim])


# ---- Paddle's module-level helpers of lkj_cholesky -------------------------------

def mvlgamma(a, p):
    """log of the multivariate gamma function of dimension p (``multigammaln``)."""
    return multigammaln(a, p)


def tril_indices(n, k=0):
    """(rows, cols) int64 tensors of the entries on and below diagonal k of an
    n x n matrix, row by row."""
    rows, cols = np.tril_indices(n, k)
    return to_tensor(rows.astype(np.int64)), to_tensor(cols.astype(np.int64))


def _tril_selector(n, diag, dtype):
    """A constant 0/1 [n*n, m] matrix picking the entries (i, j) with
    j <= i + diag, row by row, out of a flattened n x n matrix."""
    rows, cols = np.tril_indices(n, diag)
    select = np.zeros((n * n, len(rows)), np.dtype(dtype))
    select[rows * n + cols, np.arange(len(rows))] = 1.0
    return to_tensor(select)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of each matrix on and below diagonal ``diag``, row by row:
    shape mat.shape[:-2] + [count]."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError("diag (%d) provided is outside [%d, %d]." % (diag, -n, n - 1))
    flat = reshape(mat, list(mat.shape[:-2]) + [n * n])
    return _m.matmul(flat, _tril_selector(n, diag, mat.dtype))


def matrix_to_tril(x, diagonal=0):
    """The entries on and below ``diagonal`` of every matrix of x, flattened
    into one vector (matrix by matrix, row by row)."""
    return reshape(tril_matrix_to_vec(x, diagonal), [-1])


def vec_to_tril_matrix(p_flatten, dim, last_dim, flatten_shape, sample_shape=(), diag=0):
    """Inverse of ``tril_matrix_to_vec(m, -1)`` on flattened data: ``p_flatten``
    holds ``flatten_shape // last_dim`` groups of ``last_dim`` strictly lower
    entries; the result has shape (*sample_shape, groups / prod(sample_shape),
    dim, dim). (Paddle's helper; like it, the strictly lower triangle is filled
    whatever ``diag`` is.)"""
    groups = flatten_shape // last_dim
    per_sample = groups // int(np.prod(sample_shape)) if len(sample_shape) else groups
    mats = _strict_lower_from_vector(reshape(p_flatten, [groups, last_dim]), dim)
    return reshape(mats, list(sample_shape) + [per_sample, dim, dim])
