"""The Poisson distribution."""
from collections.abc import Sequence

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import to_tensor
from ..ops.manipulation import cast, expand, reshape
from ..ops.sampling import poisson as _poisson
from ..ops.special import lgamma
from . import _math
from .distribution import Distribution, value_as, without_grad


class Poisson(Distribution):
    r"""Poisson distribution with ``rate`` lambda: :math:`P(k) = \lambda^k e^{-\lambda} / k!`.
    A number gives a rate of shape [1], as in Paddle.

    >>> from framework.distribution import Poisson
    >>> Poisson(3.0).variance.numpy().tolist()
    [3.0]
    """

    def __init__(self, rate):
        self.dtype = _dt.get_default_dtype()
        self.rate = self._to_tensor(rate)
        super().__init__(tuple(self.rate.shape))

    def _to_tensor(self, rate):
        if isinstance(rate, (float, int)) and not isinstance(rate, bool):
            return to_tensor(np.asarray([rate], self.dtype))
        self.dtype = np.dtype(rate.dtype)
        return rate

    @property
    def mean(self):
        return self.rate

    @property
    def variance(self):
        return self.rate

    def sample(self, shape=()):
        """Counts (the rate's dtype), no gradient."""
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        out = list(shape) + list(self.batch_shape)
        return without_grad(lambda: _poisson(expand(self.rate, out)))

    def _support(self, rate):
        """Counts 0 .. max(rate) + 30 sqrt(max(rate)) (sqrt taken as 1 below 1):
        all but a negligible mass, sized when the program runs."""
        top = _r.max(rate)
        size = cast(top + 30.0 * _m.sqrt(_m.maximum(top, 1.0)), 'int64')
        return reshape(_math.count_range(size, self.dtype), [-1] + [1] * len(self.batch_shape))

    def entropy(self):
        lp = self.log_prob(self._support(self.rate))
        proposed = -_r.sum(_m.exp(lp) * lp, 0)
        return proposed * cast(self.rate != 0.0, self.dtype)

    def log_prob(self, value):
        value = value_as(value, self.dtype)
        eps = _math.eps_of(self.rate.dtype)
        return _math.nan_to_num(-self.rate + value * _m.log(self.rate) - lgamma(value + 1.0),
                                neginf=-eps)

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def kl_divergence(self, other):
        if not isinstance(other, Poisson):
            raise TypeError("Poisson.kl_divergence: other must be a Poisson, got %s"
                            % type(other).__name__)
        if tuple(self.batch_shape) != tuple(other.batch_shape):
            raise ValueError("KL divergence of two poisson distributions should share the same "
                             "`batch_shape`.")
        support = self._support(_m.maximum(self.rate, other.rate))
        lp1 = self.log_prob(support)
        lp2 = other.log_prob(support)
        return _r.sum(_m.exp(lp1) * (lp1 - lp2), 0)


__all__ = ['Poisson']
