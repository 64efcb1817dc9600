"""The continuous Bernoulli distribution on [0, 1]."""
from collections.abc import Sequence

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops.creation import full_like, ones_like, to_tensor, uniform_like_op, zeros_like
from ..ops.manipulation import expand, where
from . import _math
from .distribution import Distribution, value_as, without_grad


class ContinuousBernoulli(Distribution):
    r"""Continuous Bernoulli (Loaiza-Ganem & Cunningham 2019):
    :math:`pdf(x) = C(p) p^x (1-p)^{1-x}` on [0, 1].

    Near p = 1/2 (inside ``lims``) the normaliser and moments use their Taylor
    expansions, as Paddle does. A number gives probs of shape [1].

    >>> from framework.distribution import ContinuousBernoulli
    >>> round(ContinuousBernoulli(0.5).mean.item(), 6)
    0.5
    """

    def __init__(self, probs, lims=(0.499, 0.501)):
        self.dtype = _dt.get_default_dtype()
        self.probs = self._to_tensor(probs)
        self.lims = to_tensor(np.asarray(lims, self.dtype))
        eps = _math.eps_of(self.probs.dtype)
        self.probs = _m.clip(self.probs, eps, 1.0 - eps)
        super().__init__(tuple(self.probs.shape))

    def _to_tensor(self, probs):
        if isinstance(probs, (float, int)) and not isinstance(probs, bool):
            return to_tensor(np.asarray([probs], self.dtype))
        self.dtype = np.dtype(probs.dtype)
        return probs

    def _outside_taylor(self):
        return (self.probs <= self.lims[0]) | (self.probs > self.lims[1])

    def _cut_probs(self):
        return where(self._outside_taylor(), self.probs, self.lims[0] * ones_like(self.probs))

    def _log_constant(self):
        cut = self._cut_probs()
        below = where(cut <= 0.5, cut, zeros_like(cut))
        above = where(cut >= 0.5, cut, ones_like(cut))
        exact = (_m.log(2.0 * _m.abs(_math.atanh(1.0 - 2.0 * cut)))
                 - where(cut <= 0.5, _m.log1p(-2.0 * below), _m.log(2.0 * above - 1.0)))
        x = (self.probs - 0.5) * (self.probs - 0.5)
        taylor = float(np.log(2.0)) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_taylor(), exact, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        exact = cut / (2.0 * cut - 1.0) + 1.0 / (2.0 * _math.atanh(1.0 - 2.0 * cut))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x * x) * x
        return where(self._outside_taylor(), exact, taylor)

    @property
    def variance(self):
        cut = self._cut_probs()
        logit = _m.log1p(-cut) - _m.log(cut)
        exact = cut * (cut - 1.0) / ((1.0 - 2.0 * cut) * (1.0 - 2.0 * cut)) + 1.0 / (logit * logit)
        x = (self.probs - 0.5) * (self.probs - 0.5)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_taylor(), exact, taylor)

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """icdf(u), u ~ U[0, 1): differentiable in probs."""
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        out = list(shape) + list(self.batch_shape)
        return self.icdf(uniform_like_op(expand(self.probs, out), 0.0, 1.0, 0))

    def _value(self, value):
        return value_as(value, self.dtype)

    def log_prob(self, value):
        value = self._value(value)
        eps = _math.eps_of(self.probs.dtype)
        cross = _math.nan_to_num(value * _m.log(self.probs) + (1.0 - value) *
                                 _m.log(1.0 - self.probs), neginf=-eps)
        return self._log_constant() + cross

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def entropy(self):
        log_p = _m.log(self.probs)
        log_q = _m.log1p(-self.probs)
        value = -self._log_constant() + self.mean * (log_q - log_p) - log_q
        return where(self.probs == 0.5, full_like(self.probs, 0.0), value)

    def cdf(self, value):
        value = self._value(value)
        cut = self._cut_probs()
        cdfs = ((_m.pow(cut, value) * _m.pow(1.0 - cut, 1.0 - value) + cut - 1.0)
                / (2.0 * cut - 1.0))
        inner = where(self._outside_taylor(), cdfs, value)
        return where(value <= 0.0, zeros_like(value),
                     where(value >= 1.0, ones_like(value), inner))

    def icdf(self, value):
        value = self._value(value)
        cut = self._cut_probs()
        exact = ((_m.log1p(-cut + value * (2.0 * cut - 1.0)) - _m.log1p(-cut))
                 / (_m.log(cut) - _m.log1p(-cut)))
        return where(self._outside_taylor(), exact, value)

    def kl_divergence(self, other):
        if not isinstance(other, ContinuousBernoulli):
            raise TypeError("ContinuousBernoulli.kl_divergence: other must be a "
                            "ContinuousBernoulli, got %s" % type(other).__name__)
        if tuple(self.batch_shape) != tuple(other.batch_shape):
            raise ValueError("KL divergence of two Continuous Bernoulli distributions should "
                             "share the same `batch_shape`.")
        log_q = _m.log(other.probs)
        log_1q = _m.log1p(-other.probs)
        return -self.entropy() - (other._log_constant() + self.mean * (log_q - log_1q) + log_1q)


__all__ = ['ContinuousBernoulli']
