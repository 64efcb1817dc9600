"""The Laplace (double exponential) distribution."""
import numbers

import numpy as np

from ..ops import math as _m
from ..ops.creation import to_tensor, uniform_like_op
from ..ops.manipulation import cast, expand
from . import _math
from .distribution import Distribution, iterable_shape, real_param, without_grad


class Laplace(Distribution):
    r"""Laplace distribution: :math:`pdf(x) = \exp(-|x - loc| / scale) / (2 scale)`.

    >>> from framework.distribution import Laplace
    >>> Laplace(0.0, 1.0).variance.item()
    2.0
    """

    def __init__(self, loc, scale):
        loc = real_param(loc, 'loc', 'Laplace')
        scale = real_param(scale, 'scale', 'Laplace')
        if (len(scale.shape) > 0 or len(loc.shape) > 0) and loc.dtype == scale.dtype:
            loc, scale = _math.broadcast_all([loc, scale])
        self.loc, self.scale = loc, scale
        super().__init__(tuple(self.loc.shape))

    @property
    def mean(self):
        return self.loc

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    @property
    def variance(self):
        return 2.0 * self.scale * self.scale

    def _validate_value(self, value):
        if isinstance(value, numbers.Real):
            value = to_tensor(np.asarray(value, np.dtype(self.scale.dtype)))
        if value.dtype != self.scale.dtype:
            value = cast(value, self.scale.dtype)
        if len(self.scale.shape) > 0 or len(self.loc.shape) > 0 or len(value.shape) > 0:
            return tuple(_math.broadcast_all([self.loc, self.scale, value]))
        return self.loc, self.scale, value

    def log_prob(self, value):
        loc, scale, value = self._validate_value(value)
        return -_m.log(2.0 * scale) - _m.abs(value - loc) / scale

    def entropy(self):
        return 1.0 + _m.log(2.0 * self.scale)

    def cdf(self, value):
        loc, scale, value = self._validate_value(value)
        d = value - loc
        return 0.5 - 0.5 * _m.sign(d) * _math.expm1(-_m.abs(d) / scale)

    def icdf(self, value):
        loc, scale, value = self._validate_value(value)
        t = value - 0.5
        return loc - scale * _m.sign(t) * _m.log1p(-2.0 * _m.abs(t))

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """loc - scale sign(u) log(1 - |u|), u ~ U(-1, 1): differentiable in loc, scale."""
        shape = list(self._extend_shape(iterable_shape(shape, 'Laplace.rsample')))
        eps = _math.eps_of(self.loc.dtype)
        lo = float(np.nextafter(-1.0, 1.0)) + eps / 2
        u = uniform_like_op(expand(self.loc, shape), lo, 1.0 - eps / 2, 0)
        return self.loc - self.scale * _m.sign(u) * _m.log1p(-_m.abs(u))

    def kl_divergence(self, other):
        if not isinstance(other, Laplace):
            raise TypeError("Laplace.kl_divergence: expected type of other is Laplace, but got "
                            "%s" % type(other).__name__)
        t = _m.abs(self.loc - other.loc)
        term1 = (self.scale * _m.exp(-t / self.scale) + t) / other.scale
        return term1 + _m.log(other.scale / self.scale) - 1.0


__all__ = ['Laplace']
