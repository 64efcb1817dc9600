"""The Bernoulli distribution on {0, 1}."""
import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops.creation import bernoulli as _bernoulli
from ..ops.creation import ones_like, uniform_like_op, zeros_like
from ..ops.grad_utils import is_value
from ..ops.manipulation import expand, where
from ..ops.nn import log_sigmoid
from . import _math
from .distribution import check_shape_arg, without_grad
from .exponential_family import ExponentialFamily


def clip_probs(probs, dtype):
    eps = _math.eps_of(dtype)
    return _math.as_dtype(_m.clip(probs, eps, 1.0 - eps), dtype)


class Bernoulli(ExponentialFamily):
    r"""Bernoulli distribution: 1 with probability ``probs``, else 0.

    ``probs`` is clipped to [eps, 1 - eps] (eps of its dtype), as in Paddle;
    ``logits`` = log(p) - log(1 - p).

    Args:
        probs (float|Tensor): probability of 1.
        name (str, optional): a name prefix.

    >>> from framework.distribution import Bernoulli
    >>> round(Bernoulli(0.3).variance.item(), 4)
    0.21
    """

    def __init__(self, probs, name=None):
        self.name = name or 'Bernoulli'
        if self._validate_args(probs):
            self.probs = probs
            self.dtype = np.dtype(probs.dtype)
        else:
            [self.probs] = self._to_tensor(probs)
            self.dtype = _dt.get_default_dtype()
        self.probs = clip_probs(self.probs, self.dtype)
        self.logits = self._probs_to_logits(self.probs, is_binary=True)
        super().__init__(batch_shape=tuple(self.probs.shape), event_shape=())

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1.0 - self.probs)

    def sample(self, shape=()):
        """0/1 draws (the parameters' float dtype), no gradient."""
        shape = self._extend_shape(check_shape_arg(shape, self.name + '_sample'))
        return without_grad(lambda: _bernoulli(expand(self.probs, list(shape))))

    def rsample(self, shape=(), temperature=1.0):
        """Relaxed (Gumbel-softmax / concrete) draws, returned as logits as
        Paddle does: (logit(u) + logits) / temperature, u ~ U(0, 1)."""
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise TypeError("%s_rsample: temperature must be a float, got %s"
                            % (self.name, type(temperature)))
        shape = self._extend_shape(check_shape_arg(shape, self.name + '_rsample'))
        probs = expand(self.probs, list(shape))
        u = uniform_like_op(probs, 0.0, 1.0, 0)
        return ((_m.log(u) - _m.log1p(-u)) + (_m.log(probs) - _m.log1p(-probs))) / temperature

    def cdf(self, value):
        value = _check_value(self, value, 'cdf')
        probs, value = _math.broadcast_all([self.probs, value])
        ones = ones_like(probs)
        return where(value < 0, zeros_like(probs), where(value < 1, ones - probs, ones))

    def log_prob(self, value):
        value = _check_value(self, value, 'log_prob')
        logits, value = _math.broadcast_all([self.logits, value])
        return value * log_sigmoid(logits) + (1.0 - value) * log_sigmoid(-logits)

    def prob(self, value):
        return _m.exp(self.log_prob(value))

    def entropy(self):
        return -(self.probs * log_sigmoid(self.logits) +
                 (1.0 - self.probs) * log_sigmoid(-self.logits))

    def kl_divergence(self, other):
        if not isinstance(other, Bernoulli):
            raise TypeError("%s_kl_divergence: other must be a Bernoulli, got %s"
                            % (self.name, type(other).__name__))
        pa = _m.sigmoid(self.logits)
        qa = _m.sigmoid(-self.logits)
        return (pa * (log_sigmoid(self.logits) - log_sigmoid(other.logits)) +
                qa * (log_sigmoid(-self.logits) - log_sigmoid(-other.logits)))

    @property
    def _natural_parameters(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        return -log_sigmoid(-x)          # log(1 + e^x)

    @property
    def _mean_carrier_measure(self):
        return 0.0


def _check_value(dist, value, what):
    if not is_value(value):
        raise TypeError("%s_%s: value must be a Tensor, got %s" % (dist.name, what, type(value)))
    return dist._check_values_dtype_in_probs(dist.probs, value)


__all__ = ['Bernoulli']
