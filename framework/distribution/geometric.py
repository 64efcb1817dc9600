"""The geometric distribution: failures before the first success."""
import numbers

import numpy as np

from ..ops import math as _m
from ..ops.creation import to_tensor, uniform_like_op
from ..ops.grad_utils import is_value
from ..ops.manipulation import expand
from .distribution import Distribution, iterable_shape, without_grad

_TINY32 = float(np.finfo(np.float32).tiny)


class Geometric(Distribution):
    r"""Geometric distribution with success probability ``probs``:
    :math:`P(X = k) = (1 - p)^k p`, k = 0, 1, 2, ...

    >>> from framework.distribution import Geometric
    >>> Geometric(0.5).mean.item()
    1.0
    """

    def __init__(self, probs):
        if isinstance(probs, numbers.Real) and not isinstance(probs, bool):
            probs = to_tensor(np.asarray(probs, np.float32))
        elif not is_value(probs):
            raise TypeError("Geometric: expected type of probs is Number.Real|Tensor, but got %s"
                            % type(probs))
        self.probs = probs
        super().__init__(tuple(probs.shape))

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    @property
    def stddev(self):
        return _m.sqrt(self.variance)

    def pmf(self, k):
        """P(X = k)."""
        _check_k(k, 'pmf')
        return _m.pow(1.0 - self.probs, k) * self.probs

    def log_pmf(self, k):
        """log P(X = k)."""
        _check_k(k, 'log_pmf')
        return _m.log(self.pmf(k))

    def prob(self, value):
        return self.pmf(value)

    def log_prob(self, value):
        """k log(1 - p) + log p (same as ``log_pmf``, computed without the pow)."""
        _check_k(value, 'log_prob')
        return value * _m.log1p(-self.probs) + _m.log(self.probs)

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """floor(log(u) / log(1 - p)), u ~ U[tiny, 1) (a float tensor of counts)."""
        shape = list(self._extend_shape(iterable_shape(shape, 'Geometric.rsample')))
        u = uniform_like_op(expand(self.probs, shape), _TINY32, 1.0, 0)
        return _m.floor(_m.log(u) / _m.log1p(-self.probs))

    def entropy(self):
        p = self.probs
        return -((1.0 - p) * _m.log(1.0 - p) + p * _m.log(p)) / p

    def cdf(self, k):
        """P(X <= k)."""
        _check_k(k, 'cdf')
        return 1.0 - _m.pow(1.0 - self.probs, k + 1)

    def kl_divergence(self, other):
        if not isinstance(other, Geometric):
            raise TypeError("Geometric.kl_divergence: expected type of other is Geometric, but "
                            "got %s" % type(other).__name__)
        p, q = self.probs, other.probs
        return p * _m.log(p / q) + (1.0 - p) * _m.log((1.0 - p) / (1.0 - q))


def _check_k(k, what):
    if not (isinstance(k, numbers.Integral) or is_value(k)) or isinstance(k, bool):
        raise TypeError("Geometric.%s: expected type of k is int or Tensor, but got %s"
                        % (what, type(k)))


__all__ = ['Geometric']
