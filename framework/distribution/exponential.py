"""The exponential distribution."""
import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops.creation import uniform_like_op
from ..ops.manipulation import expand
from . import _math
from .distribution import _as_value_tensor, iterable_shape, without_grad
from .exponential_family import ExponentialFamily

_TINY32 = float(np.finfo(np.float32).tiny)


class Exponential(ExponentialFamily):
    r"""Exponential distribution with ``rate`` lambda: :math:`pdf(x) = \lambda e^{-\lambda x}`.

    >>> from framework.distribution import Exponential
    >>> Exponential(2.0).mean.item()
    0.5
    """

    def __init__(self, rate):
        if self._validate_args(rate):
            self.rate = rate
            self.dtype = np.dtype(rate.dtype)
        else:
            [self.rate] = self._to_tensor(rate)
            self.dtype = _dt.get_default_dtype()
            self.rate = _math.as_dtype(self.rate, self.dtype)
        super().__init__(tuple(self.rate.shape))

    @property
    def mean(self):
        return _m.reciprocal(self.rate)

    @property
    def variance(self):
        return 1.0 / (self.rate * self.rate)

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """-log(u) / rate with u ~ U[tiny, 1): differentiable in rate."""
        shape = list(self._extend_shape(iterable_shape(shape, 'Exponential.rsample')))
        u = uniform_like_op(expand(self.rate, shape), _TINY32, 1.0, 0)
        return -_m.log(u) / self.rate

    def prob(self, value):
        value = _as_value_tensor(value, self.dtype)
        return self.rate * _m.exp(-self.rate * value)

    def log_prob(self, value):
        value = _as_value_tensor(value, self.dtype)
        return _m.log(self.rate) - self.rate * value

    def entropy(self):
        return 1.0 - _m.log(self.rate)

    def cdf(self, value):
        value = _as_value_tensor(value, self.dtype)
        return -_math.expm1(-self.rate * value)

    def icdf(self, value):
        value = _as_value_tensor(value, self.dtype)
        return -_m.log1p(-value) / self.rate

    def kl_divergence(self, other):
        if not isinstance(other, Exponential):
            raise TypeError("Exponential.kl_divergence: expected type of other is Exponential, "
                            "but got %s" % type(other).__name__)
        ratio = other.rate / self.rate
        return -_m.log(ratio) + ratio - 1.0

    @property
    def _natural_parameters(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -_m.log(-x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


__all__ = ['Exponential']
