"""The binomial distribution."""
from collections.abc import Sequence

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import to_tensor
from ..ops.manipulation import cast, expand, reshape
from ..ops.sampling import binomial as _binomial
from ..ops.special import lgamma
from . import _math
from .distribution import Distribution, value_as, without_grad


class Binomial(Distribution):
    r"""Binomial distribution: successes in ``total_count`` trials of probability
    ``probs``: :math:`P(k) = \binom{n}{k} p^k (1-p)^{n-k}`.

    >>> import framework as paddle
    >>> from framework.distribution import Binomial
    >>> Binomial(10, paddle.to_tensor(0.5)).mean.item()
    5.0
    """

    def __init__(self, total_count, probs):
        self.dtype = _dt.get_default_dtype()
        self.total_count, self.probs = self._to_tensor(total_count, probs)
        super().__init__(tuple(self.total_count.shape))

    def _to_tensor(self, total_count, probs):
        if isinstance(probs, float):
            probs = to_tensor(np.asarray(probs, self.dtype))
        else:
            self.dtype = np.dtype(probs.dtype)
        if isinstance(total_count, int):
            total_count = to_tensor(np.asarray(total_count, self.dtype))
        else:
            total_count = cast(total_count, self.dtype)
        return _math.broadcast_all([total_count, probs])

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def variance(self):
        return self.total_count * self.probs * (1.0 - self.probs)

    def sample(self, shape=()):
        """Counts (the distribution's float dtype), no gradient."""
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        out = list(shape) + list(self.batch_shape)

        def draw():
            n = cast(expand(self.total_count, out), 'int32')
            return cast(_binomial(n, expand(self.probs, out)), self.dtype)
        return without_grad(draw)

    def _enumerate_support(self):
        """0 .. max(total_count) along a new first dim (size known at run time)."""
        top = cast(_r.max(self.total_count), 'int64') + 1
        return reshape(_math.count_range(top, self.dtype), [-1] + [1] * len(self.batch_shape))

    def entropy(self):
        values = self._enumerate_support()
        lp = self.log_prob(values)
        return -_r.sum(_m.exp(lp) * lp, 0)

    def log_prob(self, value):
        value = value_as(value, self.dtype)
        n = self.total_count
        log_comb = lgamma(n + 1.0) - lgamma(n - value + 1.0) - lgamma(value + 1.0)
        eps = _math.eps_of(self.probs.dtype)
        p = _m.clip(self.probs, eps, 1.0 - eps)
        return _math.nan_to_num(log_comb + value * _m.log(p) + (n - value) * _m.log(1.0 - p),
                                neginf=-eps)

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def kl_divergence(self, other):
        if not isinstance(other, Binomial):
            raise TypeError("Binomial.kl_divergence: other must be a Binomial, got %s"
                            % type(other).__name__)
        support = self._enumerate_support()
        lp1 = self.log_prob(support)
        lp2 = other.log_prob(support)
        return _r.sum(_m.exp(lp1) * (lp1 - lp2), 0)


__all__ = ['Binomial']
