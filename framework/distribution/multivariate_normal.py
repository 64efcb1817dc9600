"""The multivariate normal distribution."""
import math
from collections.abc import Sequence

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import eye, normal_like_op, to_tensor
from ..ops.manipulation import expand, flip, reshape, squeeze, unsqueeze
from . import _math
from ._linalg import cholesky_op, swap_last, triangular_solve_op
from .distribution import Distribution, value_as, without_grad

_LOG_2PI = math.log(2.0 * math.pi)


class MultivariateNormal(Distribution):
    r"""Multivariate normal with mean ``loc`` and exactly one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (the lower
    Cholesky factor of the covariance).

    >>> import framework as paddle
    >>> from framework.distribution import MultivariateNormal
    >>> d = MultivariateNormal(paddle.zeros([2]), covariance_matrix=paddle.eye(2) * 4.0)
    >>> d.variance.numpy().tolist()
    [4.0, 4.0]
    """

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None):
        self.dtype = _dt.get_default_dtype()
        if isinstance(loc, (float, int)) and not isinstance(loc, bool):
            loc = to_tensor(np.asarray([loc], self.dtype))
        else:
            self.dtype = np.dtype(loc.dtype)
        if len(loc.shape) < 1:
            loc = reshape(loc, [1])
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril "
                             "may be specified.")
        self.covariance_matrix = self.precision_matrix = self.scale_tril = None
        which, matrix = next((n, m) for n, m in zip(
            ('covariance_matrix', 'precision_matrix', 'scale_tril'),
            (covariance_matrix, precision_matrix, scale_tril)) if m is not None)
        if len(matrix.shape) < 2:
            raise ValueError("%s must be at least two-dimensional, with optional leading batch "
                             "dimensions" % which)
        matrix = _math.as_dtype(matrix, self.dtype)
        batch = _math.broadcast_shape(matrix.shape[:-2], loc.shape[:-1])
        if all(d >= 0 for d in batch):
            setattr(self, which, expand(matrix, list(batch) + list(matrix.shape[-2:])))
            self.loc = expand(loc, list(batch) + [-1])
        else:   # a batch dim known only at run time: broadcast by arithmetic
            setattr(self, which, matrix + 0.0 * unsqueeze(loc, -1))
            self.loc = loc + 0.0 * matrix[..., 0]
        if which == 'scale_tril':
            self._unbroadcasted_scale_tril = matrix
        elif which == 'covariance_matrix':
            self._unbroadcasted_scale_tril = cholesky_op(matrix)
        else:
            self._unbroadcasted_scale_tril = precision_to_scale_tril(matrix)
        super().__init__(batch, tuple(self.loc.shape[-1:]))

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        L = self._unbroadcasted_scale_tril
        return expand(_r.sum(L * L, -1), list(self._batch_shape + self._event_shape))

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """loc + L eps, eps ~ N(0, I): differentiable in loc and the matrix."""
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        out = list(self._extend_shape(shape))
        eps = normal_like_op(expand(self.loc, out), 0.0, 1.0, 0)
        return self.loc + squeeze(_m.matmul(self._unbroadcasted_scale_tril,
                                            unsqueeze(eps, -1)), -1)

    def _half_log_det(self):
        return _r.sum(_m.log(_math.matrix_diagonal(self._unbroadcasted_scale_tril)), -1)

    def log_prob(self, value):
        value = value_as(value, self.dtype)
        m = batch_mahalanobis(self._unbroadcasted_scale_tril, value - self.loc)
        return -0.5 * (self._event_shape[0] * _LOG_2PI + m) - self._half_log_det()

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def entropy(self):
        h = 0.5 * self._event_shape[0] * (1.0 + _LOG_2PI) + self._half_log_det()
        return h if not self._batch_shape else expand(h, list(self._batch_shape))

    def kl_divergence(self, other):
        """KL(self || other) = log|L2|/|L1| + (tr(S2^-1 S1) + M - n) / 2."""
        if not isinstance(other, MultivariateNormal):
            raise TypeError("MultivariateNormal.kl_divergence: other must be a "
                            "MultivariateNormal, got %s" % type(other).__name__)
        if self._batch_shape != other._batch_shape and self._event_shape != other._event_shape:
            raise ValueError("KL divergence of two Multivariate Normal distributions should "
                             "share the same `batch_shape` and `event_shape`.")
        L1, L2 = self._unbroadcasted_scale_tril, other._unbroadcasted_scale_tril
        # tr(S2^-1 S1) = ||L2^-1 L1||_F^2
        trace = _r.sum(_m.square(triangular_solve_op(L2, L1, False, False, False)), [-2, -1])
        m = batch_mahalanobis(L2, self.loc - other.loc)
        return (other._half_log_det() - self._half_log_det()
                + 0.5 * (trace + m - self._event_shape[0]))


def precision_to_scale_tril(P):
    """The lower Cholesky factor of P^-1. With J flipping both matrix dims and
    Lf = chol(J P J), U = J Lf J is upper triangular with P = U U^T, so
    P^-1 = U^-T U^-1 and its lower factor is (U^T)^-1, U^T lower triangular."""
    lf = cholesky_op(flip(P, [-2, -1]))
    u_t = swap_last(flip(lf, [-2, -1]))
    n = P.shape[-1]
    return triangular_solve_op(u_t, eye(n, dtype=P.dtype), False, False, False)


def batch_mahalanobis(L, x):
    """||L^-1 x||^2 over the last dim of x, with L's batch dims broadcast."""
    z = triangular_solve_op(L, unsqueeze(x, -1), False, False, False)
    return _r.sum(_m.square(squeeze(z, -1)), -1)


__all__ = ['MultivariateNormal']
