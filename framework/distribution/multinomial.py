"""The multinomial distribution: counts of ``total_count`` categorical draws."""
from collections.abc import Iterable

import numpy as np

from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import arange, full, full_like
from ..ops.manipulation import cast, one_hot, reshape, where
from . import _math
from ..ops.special import lgamma
from .categorical import Categorical
from .distribution import Distribution


class Multinomial(Distribution):
    r"""Multinomial distribution over ``probs.shape[-1]`` categories (``probs``
    normalised along the last dim): :math:`P(x) = n! / \prod x_i! \prod p_i^{x_i}`.

    >>> import framework as paddle
    >>> from framework.distribution import Multinomial
    >>> Multinomial(10, paddle.to_tensor([0.2, 0.8])).mean.numpy().tolist()
    [2.0, 8.0]
    """

    def __init__(self, total_count, probs):
        if isinstance(total_count, bool) or not isinstance(total_count, int) or total_count < 1:
            raise ValueError('input parameter total_count must be int type and grater than zero.')
        if len(probs.shape) < 1:
            raise ValueError('probs parameter should not be none and over one dimension')
        self.probs = probs / _r.sum(probs, -1, keepdim=True)
        self.total_count = total_count
        self._categorical = Categorical(logits=self._probs_to_logits(probs))
        super().__init__(tuple(probs.shape[:-1]), tuple(probs.shape[-1:]))

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1.0 - self.probs)

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def log_prob(self, value):
        if np.dtype(value.dtype).kind in 'iub':
            value = cast(value, self.probs.dtype)
        logits, value = _math.broadcast_all([_m.log(self.probs), value])
        # 0 * log(0) is 0 here: a category of probability 0 drawn 0 times
        logits = where((value == 0) & _m.isinf(logits), full_like(logits, 0.0), logits)
        return (lgamma(_r.sum(value, -1) + 1.0) - _r.sum(lgamma(value + 1.0), -1)
                + _r.sum(value * logits, -1))

    def sample(self, shape=()):
        """Count vectors (probs' dtype) of shape ``shape + batch_shape + event_shape``."""
        if not isinstance(shape, Iterable):
            raise TypeError('sample shape must be Iterable object.')
        draws = self._categorical.sample([self.total_count] + list(shape))
        return _r.sum(cast(one_hot(draws, self.probs.shape[-1]), self.probs.dtype), 0)

    def entropy(self):
        dtype = self.probs.dtype
        n = full([], self.total_count, dtype=dtype)
        support = reshape(arange(0, self.total_count + 1, dtype=dtype),
                          [-1] + [1] * len(self.probs.shape))[1:]
        pmf = _m.exp(self._binomial_logpmf(n, support))
        return (n * self._categorical.entropy() - lgamma(n + 1.0)
                + _r.sum(pmf * lgamma(support + 1.0), [0, -1]))

    def _binomial_logpmf(self, count, value):
        logits = self._probs_to_logits(self.probs, is_binary=True)
        norm = (count * _clip_by_zero(logits) + count * _m.log1p(_m.exp(-_m.abs(logits)))
                - lgamma(count + 1.0))
        return value * logits - lgamma(value + 1.0) - lgamma(count - value + 1.0) - norm


def _clip_by_zero(x):
    """max(x, 0), with gradient 1/2 at 0."""
    return (_m.clip(x, 0.0, None) + x - _m.clip(x, None, 0.0)) / 2.0


__all__ = ['Multinomial']
