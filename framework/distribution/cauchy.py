"""The Cauchy distribution."""
import math

from ..ops import math as _m
from ..ops.creation import uniform_like_op
from ..ops.grad_utils import is_value
from ..ops.manipulation import expand
from . import _math
from .distribution import Distribution, check_shape_arg, real_param, without_grad

_LOG_4PI = math.log(4.0 * math.pi)
_LOG_PI = math.log(math.pi)


class Cauchy(Distribution):
    r"""Cauchy distribution: :math:`pdf(x) = 1 / (\pi\, scale (1 + ((x - loc) / scale)^2))`.
    It has no mean or variance (they raise ValueError, as in Paddle).

    >>> import framework as paddle
    >>> from framework.distribution import Cauchy
    >>> Cauchy(0.0, 1.0).cdf(paddle.to_tensor(0.0)).item()
    0.5
    """

    def __init__(self, loc, scale, name=None):
        self.name = name if name is not None else 'Cauchy'
        loc = real_param(loc, 'loc', 'Cauchy')
        scale = real_param(scale, 'scale', 'Cauchy')
        if tuple(loc.shape) != tuple(scale.shape):
            loc, scale = _math.broadcast_all([loc, scale])
        self.loc, self.scale = loc, scale
        self.dtype = loc.dtype
        super().__init__(batch_shape=tuple(self.loc.shape), event_shape=())

    @property
    def mean(self):
        raise ValueError('Cauchy distribution has no mean.')

    @property
    def variance(self):
        raise ValueError('Cauchy distribution has no variance.')

    @property
    def stddev(self):
        raise ValueError('Cauchy distribution has no stddev.')

    def sample(self, shape=(), name=None):
        return without_grad(self.rsample, shape, name)

    def rsample(self, shape=(), name=None):
        """loc + scale tan(pi (u - 1/2)), u ~ U[0, 1): differentiable in loc, scale."""
        shape = list(self._extend_shape(check_shape_arg(shape, self.name + '_rsample')))
        u = uniform_like_op(expand(self.loc, shape), 0.0, 1.0, 0)
        return expand(self.loc, shape) + expand(self.scale, shape) * _m.tan(math.pi * (u - 0.5))

    def _value(self, value, what):
        if not is_value(value):
            raise TypeError("%s_%s: expected type of value is Tensor, but got %s"
                            % (self.name, what, type(value)))
        value = self._check_values_dtype_in_probs(self.loc, value)
        return _math.broadcast_all([self.loc, self.scale, value])

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def log_prob(self, value):
        loc, scale, value = self._value(value, 'log_prob')
        z = (value - loc) / scale
        return -_m.log1p(z * z) - (_LOG_PI + _m.log(scale))

    def cdf(self, value):
        loc, scale, value = self._value(value, 'cdf')
        return _m.atan((value - loc) / scale) / math.pi + 0.5

    def entropy(self):
        return _LOG_4PI + _m.log(self.scale)

    def kl_divergence(self, other):
        if not isinstance(other, Cauchy):
            raise TypeError("Cauchy.kl_divergence: expected type of other is Cauchy, but got %s"
                            % type(other).__name__)
        s = self.scale + other.scale
        d = self.loc - other.loc
        return _m.log(s * s + d * d) - _m.log(4.0 * self.scale * other.scale)


__all__ = ['Cauchy']
