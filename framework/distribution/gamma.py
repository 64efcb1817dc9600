"""The gamma distribution, and reparameterized gamma draws."""
import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops.modes import in_static_mode
from ..ops.sampling import standard_gamma_grad_op, standard_gamma_op
from ..ops.special import digamma, lgamma
from . import _math
from .distribution import _as_value_tensor, iterable_shape, without_grad
from .exponential_family import ExponentialFamily


def reparameterized_gamma(alpha):
    """Gamma(alpha, 1) draws that differentiate in ``alpha`` by implicit
    reparameterization: the value is the draw x, the gradient dx/dalpha at x's
    fixed quantile (``ops.sampling.standard_gamma_grad``). Written as
    x + dx/dalpha * (alpha - stop_gradient(alpha)), which is x exactly."""
    x = standard_gamma_op(alpha)
    if not in_static_mode() and alpha.stop_gradient:
        return x
    slope = standard_gamma_grad_op(x, alpha)
    return x + slope * (alpha - alpha.detach())


class Gamma(ExponentialFamily):
    r"""Gamma distribution with shape ``concentration`` and ``rate``:
    :math:`pdf(x) = rate^\alpha x^{\alpha - 1} e^{-rate\, x} / \Gamma(\alpha)`.

    Args:
        concentration (float|Tensor): shape parameter alpha > 0.
        rate (float|Tensor): rate beta > 0.

    ``rsample`` differentiates in both parameters (implicit reparameterization
    for the shape; Paddle 3.3's has no gradient).

    >>> from framework.distribution import Gamma
    >>> Gamma(2.0, 4.0).mean.item()
    0.5
    """

    def __init__(self, concentration, rate):
        if self._validate_args(concentration, rate):
            self.concentration, self.rate = concentration, rate
            self.dtype = np.dtype(concentration.dtype)
        else:
            self.concentration, self.rate = self._to_tensor(concentration, rate)
            self.dtype = _dt.get_default_dtype()
            self.concentration = _math.as_dtype(self.concentration, self.dtype)
            self.rate = _math.as_dtype(self.rate, self.dtype)
        super().__init__(_math.broadcast_shape(self.concentration.shape, self.rate.shape))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def variance(self):
        return self.concentration / (self.rate * self.rate)

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def log_prob(self, value):
        value = _as_value_tensor(value, self.dtype)
        return (self.concentration * _m.log(self.rate) + (self.concentration - 1.0) *
                _m.log(value) - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        a = self.concentration
        return a - _m.log(self.rate) + lgamma(a) + (1.0 - a) * digamma(a)

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """Draws of shape ``shape + batch_shape``, differentiable in both parameters."""
        base = _math.sample_base(iterable_shape(shape, 'Gamma.rsample'), self.concentration,
                                 self.rate)
        return reparameterized_gamma(self.concentration + base) / (self.rate + base)

    def kl_divergence(self, other):
        if not isinstance(other, Gamma):
            raise TypeError("Gamma.kl_divergence: expected type of other is Gamma, but got %s"
                            % type(other).__name__)
        a1, b1, a2, b2 = self.concentration, self.rate, other.concentration, other.rate
        return (a2 * _m.log(b1 / b2) + lgamma(a2) - lgamma(a1) + (a1 - a2) * digamma(a1)
                + (b2 - b1) * (a1 / b1))

    @property
    def _natural_parameters(self):
        return (self.concentration - 1.0, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1.0) + (x + 1.0) * _m.log(-1.0 / y)

    @property
    def _mean_carrier_measure(self):
        return 0.0


__all__ = ['Gamma']
