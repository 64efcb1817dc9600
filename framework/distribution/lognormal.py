"""The log-normal distribution: exp of a normal."""
from ..ops import math as _m
from . import _math
from .normal import Normal
from .transform import ExpTransform
from .transformed_distribution import TransformedDistribution


class LogNormal(TransformedDistribution):
    r"""Log-normal distribution: log(X) ~ Normal(loc, scale).

    >>> from framework.distribution import LogNormal
    >>> round(LogNormal(0.0, 1.0).mean.item(), 5)   # exp(1/2)
    1.64872
    """

    def __init__(self, loc, scale):
        self._base = Normal(loc=loc, scale=scale)
        self.loc = self._base.loc
        self.scale = self._base.scale
        super().__init__(self._base, [ExpTransform()])

    @property
    def mean(self):
        return _m.exp(self._base.mean + self._base.variance / 2.0)

    @property
    def variance(self):
        var = self._base.variance
        return _math.expm1(var) * _m.exp(2.0 * self._base.mean + var)

    def entropy(self):
        return self._base.entropy() + self._base.mean

    def probs(self, value):
        return _m.exp(self.log_prob(value))

    def prob(self, value):
        return self.probs(value)

    def kl_divergence(self, other):
        if not isinstance(other, LogNormal):
            raise TypeError("LogNormal.kl_divergence: other must be a LogNormal, got %s"
                            % type(other).__name__)
        return self._base.kl_divergence(other._base)


__all__ = ['LogNormal']
