"""The Dirichlet distribution on the probability simplex."""
import math

from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.manipulation import expand
from ..ops.special import digamma, lgamma
from .distribution import _as_value_tensor, iterable_shape, without_grad
from .exponential_family import ExponentialFamily
from .gamma import reparameterized_gamma


class Dirichlet(ExponentialFamily):
    r"""Dirichlet distribution with ``concentration`` alpha (last dim: the
    categories): :math:`pdf(x) = \Gamma(\sum\alpha) / \prod\Gamma(\alpha_i)
    \prod x_i^{\alpha_i - 1}`. batch_shape is ``concentration.shape[:-1]``,
    event_shape ``concentration.shape[-1:]``.

    >>> import framework as paddle
    >>> from framework.distribution import Dirichlet
    >>> Dirichlet(paddle.to_tensor([1.0, 1.0, 2.0])).mean.numpy().tolist()
    [0.25, 0.25, 0.5]
    """

    def __init__(self, concentration):
        shape = tuple(concentration.shape)
        if len(shape) < 1 or math.prod(shape) == 0:
            raise ValueError("`concentration` parameter must be at least one dimensional "
                             "(and not empty), got shape %s" % list(shape))
        self.concentration = concentration
        super().__init__(shape[:-1], shape[-1:])

    @property
    def mean(self):
        return self.concentration / _r.sum(self.concentration, -1, keepdim=True)

    @property
    def variance(self):
        c0 = _r.sum(self.concentration, -1, keepdim=True)
        return self.concentration * (c0 - self.concentration) / (c0 * c0 * (c0 + 1.0))

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """Normalised reparameterized gamma draws: differentiable in the
        concentration (Paddle 3.3 has no Dirichlet.rsample)."""
        shape = list(self._extend_shape(iterable_shape(shape, 'Dirichlet.rsample')))
        g = reparameterized_gamma(expand(self.concentration, shape))
        return g / _r.sum(g, -1, keepdim=True)

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def log_prob(self, value):
        value = _as_value_tensor(value, self.concentration.dtype)
        c = self.concentration
        return (_r.sum(_m.log(value) * (c - 1.0), -1) + lgamma(_r.sum(c, -1))
                - _r.sum(lgamma(c), -1))

    def entropy(self):
        c = self.concentration
        c0 = _r.sum(c, -1)
        k = c.shape[-1]
        return (_r.sum(lgamma(c), -1) - lgamma(c0) - (k - c0) * digamma(c0)
                - _r.sum((c - 1.0) * digamma(c), -1))

    @property
    def _natural_parameters(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return _r.sum(lgamma(x), -1) - lgamma(_r.sum(x, -1))



__all__ = ['Dirichlet']
