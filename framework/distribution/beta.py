"""The beta distribution on (0, 1)."""
import numbers

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops.creation import to_tensor
from ..ops.grad_utils import is_value
from ..ops.manipulation import stack
from ..ops.special import lgamma
from . import _math
from .dirichlet import Dirichlet
from .distribution import _as_value_tensor, iterable_shape
from .exponential_family import ExponentialFamily


class Beta(ExponentialFamily):
    r"""Beta distribution: :math:`pdf(x) = x^{\alpha-1} (1-x)^{\beta-1} / B(\alpha, \beta)`,
    a two-category Dirichlet.

    Args:
        alpha (float|Tensor): alpha > 0.
        beta (float|Tensor): beta > 0.

    >>> from framework.distribution import Beta
    >>> Beta(2.0, 2.0).mean.item()
    0.5
    """

    def __init__(self, alpha, beta):
        alpha = _number_or_tensor(alpha)
        beta = _number_or_tensor(beta)
        self.alpha, self.beta = _math.broadcast_all([alpha, beta])
        self._dirichlet = Dirichlet(stack([self.alpha, self.beta], -1))
        super().__init__(self._dirichlet._batch_shape)

    @property
    def mean(self):
        return self.alpha / (self.alpha + self.beta)

    @property
    def variance(self):
        total = self.alpha + self.beta
        return self.alpha * self.beta / (total * total * (total + 1.0))

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def log_prob(self, value):
        value = _as_value_tensor(value, self.alpha.dtype)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def sample(self, shape=()):
        shape = iterable_shape(shape, 'Beta.sample')
        return self._dirichlet.sample(shape)[..., 0]

    def rsample(self, shape=()):
        """Reparameterized draws (Paddle 3.3 has no Beta.rsample)."""
        shape = iterable_shape(shape, 'Beta.rsample')
        return self._dirichlet.rsample(shape)[..., 0]

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def _natural_parameters(self):
        return (self.alpha, self.beta)

    def _log_normalizer(self, x, y):
        return lgamma(x) + lgamma(y) - lgamma(x + y)



def _number_or_tensor(v):
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        return to_tensor(np.asarray(v, dtype=_dt.get_default_dtype()))
    if not is_value(v):
        raise TypeError("Beta: alpha and beta must be real numbers or Tensors, got %s" % type(v))
    return v


__all__ = ['Beta']
