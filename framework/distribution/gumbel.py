"""The Gumbel (type-I extreme value) distribution."""
import math

import numpy as np

from ..ops import math as _m
from ..ops.creation import full_like
from . import _math
from .distribution import iterable_shape, real_param, value_as, without_grad
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform

_EULER = float(np.euler_gamma)
_F32 = np.finfo(np.float32)


class Gumbel(TransformedDistribution):
    r"""Gumbel distribution: :math:`pdf(x) = e^{-(z + e^{-z})} / scale`, z = (x - loc) / scale.
    Built, as in Paddle, on a Uniform base: x = loc - scale log(-log u).

    >>> from framework.distribution import Gumbel
    >>> round(Gumbel(0.0, 1.0).mean.item(), 6)   # Euler's constant
    0.577216
    """

    def __init__(self, loc, scale):
        loc = real_param(loc, 'loc', 'Gumbel')
        scale = real_param(scale, 'scale', 'Gumbel')
        if tuple(loc.shape) != tuple(scale.shape):
            loc, scale = _math.broadcast_all([loc, scale])
        self.loc, self.scale = loc, scale
        self.base_dist = Uniform(full_like(self.loc, float(_F32.tiny)),
                                 full_like(self.loc, float(1.0 - _F32.eps)))
        self.transforms = ()
        super().__init__(self.base_dist, self.transforms)

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def variance(self):
        return self.scale * self.scale * (math.pi * math.pi / 6.0)

    @property
    def stddev(self):
        return _m.sqrt(self.variance)

    def _z(self, value):
        return (value_as(value, self.loc.dtype) - self.loc) / self.scale

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def log_prob(self, value):
        z = self._z(value)
        return -(z + _m.exp(-z)) - _m.log(self.scale)

    def cdf(self, value):
        return _m.exp(-_m.exp(-self._z(value)))

    def entropy(self):
        return _m.log(self.scale) + (1.0 + _EULER)

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """loc - scale log(-log u), u from the Uniform base: differentiable in loc, scale."""
        u = self._base.sample(iterable_shape(shape, 'Gumbel.rsample'))
        return self.loc - self.scale * _m.log(-_m.log(u))


__all__ = ['Gumbel']
