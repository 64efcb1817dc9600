"""The continuous uniform distribution on [low, high)."""
import numpy as np

from ..ops import math as _m
from ..ops.creation import full_like, uniform_like_op, zeros_like
from ..ops.manipulation import cast, expand, where
from . import _math
from .distribution import Distribution, iterable_shape
from .normal import _array_dtype, _check_param_type


class Uniform(Distribution):
    r"""Uniform distribution on ``[low, high)``: :math:`pdf(x) = 1 / (high - low)`.

    Args:
        low (float|list|tuple|numpy.ndarray|Tensor): lower bound.
        high (float|list|tuple|numpy.ndarray|Tensor): upper bound.
        name (str, optional): a name prefix.

    >>> from framework.distribution import Uniform
    >>> round(Uniform(0.0, 2.0).entropy().item(), 4)   # log 2
    0.6931
    """

    def __init__(self, low, high, name=None):
        _check_param_type(low, 'low', 'Uniform')
        _check_param_type(high, 'high', 'Uniform')
        self.name = name if name is not None else 'Uniform'
        self.all_arg_is_float = False
        self.batch_size_unknown = False
        low = float(low) if isinstance(low, int) else low
        high = float(high) if isinstance(high, int) else high
        if self._validate_args(low, high):
            self.low, self.high = low, high
            self.dtype = np.dtype(low.dtype)
        else:
            self.all_arg_is_float = isinstance(low, float) and isinstance(high, float)
            self.dtype = _array_dtype(low, high)
            self.low, self.high = [_math.as_dtype(t, self.dtype)
                                   for t in self._to_tensor(low, high)]
        super().__init__(_math.broadcast_shape(self.low.shape, self.high.shape))

    @property
    def mean(self):
        return 0.5 * (self.low + self.high)

    @property
    def variance(self):
        width = self.high - self.low
        return width * width / 12.0

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape`` (a non-zero ``seed`` gives a fixed
        stream); differentiable in low and high, as Paddle's."""
        return self._draw(iterable_shape(shape, 'Uniform.sample'), int(seed))

    def rsample(self, shape=()):
        """Reparameterized draws low + (high - low) * u, u ~ U[0, 1)."""
        return self._draw(iterable_shape(shape, 'Uniform.rsample'), 0)

    def _draw(self, shape, seed):
        base = expand(self.low + 0.0 * self.high, list(shape) + [-1] * len(self.batch_shape))
        u = uniform_like_op(base, 0.0, 1.0, seed)
        return self.low + u * (self.high - self.low)

    def _inside(self, value):
        return cast(self.low < value, value.dtype) * cast(value < self.high, value.dtype)

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        inside = self._inside(value)
        # log(inside) - log(high - low), as Paddle (nan when high < low), without
        # taking the log of 0
        mask = where(inside > 0, zeros_like(inside), full_like(inside, -np.inf))
        return mask - _m.log(self.high - self.low)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return self._inside(value) / (self.high - self.low)

    def prob(self, value):
        return self.probs(value)

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return _m.clip((value - self.low) / (self.high - self.low), 0.0, 1.0)

    def icdf(self, value):
        value = self._check_values_dtype_in_probs(self.low, value)
        return self.low + value * (self.high - self.low)

    def entropy(self):
        return _m.log(self.high - self.low)

    def kl_divergence(self, other):
        """log((high_q - low_q) / (high_p - low_p)) when q's support covers p's,
        else +inf."""
        if not isinstance(other, Uniform):
            raise TypeError("Uniform.kl_divergence: other must be a Uniform, got %s"
                            % type(other).__name__)
        kl = _m.log((other.high - other.low) / (self.high - self.low))
        covered = (other.low <= self.low) & (self.high <= other.high)
        return where(covered, kl, full_like(kl, np.inf))


__all__ = ['Uniform']
