"""The normal (Gaussian) distribution."""
import math

import numpy as np

from ..ops import math as _m
from ..ops.creation import normal_like_op
from ..ops.grad_utils import is_value
from ..ops.manipulation import expand
from . import _math
from .distribution import Distribution, iterable_shape

_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


class Normal(Distribution):
    r"""Normal distribution with mean ``loc`` and standard deviation ``scale``:
    :math:`pdf(x) = \exp(-(x - loc)^2 / (2 scale^2)) / (\sqrt{2\pi} scale)`.

    Args:
        loc (float|list|tuple|numpy.ndarray|Tensor): the mean.
        scale (float|list|tuple|numpy.ndarray|Tensor): the standard deviation.
        name (str, optional): a name prefix.

    Parameters given as numbers, lists or arrays become float32 tensors
    (float64 arrays stay float64); tensors keep their dtype.

    >>> import framework as paddle
    >>> from framework.distribution import Normal
    >>> d = Normal(paddle.to_tensor([0.0, 1.0]), paddle.to_tensor([1.0, 2.0]))
    >>> d.sample([3]).shape
    paddle.Size([3, 2])
    """

    def __init__(self, loc, scale, name=None):
        _check_param_type(loc, 'loc', 'Normal')
        _check_param_type(scale, 'scale', 'Normal')
        self.name = name if name is not None else 'Normal'
        self.all_arg_is_float = False
        loc = float(loc) if isinstance(loc, int) else loc
        scale = float(scale) if isinstance(scale, int) else scale
        if isinstance(loc, (list, tuple)):
            loc = np.asarray(loc, np.float32)
        if isinstance(scale, (list, tuple)):
            scale = np.asarray(scale, np.float32)
        if self._validate_args(loc, scale):
            self.loc, self.scale = loc, scale
            self.dtype = np.dtype(loc.dtype)
        else:
            self.all_arg_is_float = isinstance(loc, float) and isinstance(scale, float)
            self.dtype = _array_dtype(loc, scale)
            self.loc, self.scale = [_math.as_dtype(t, self.dtype)
                                    for t in self._to_tensor(loc, scale)]
        super().__init__(_math.broadcast_shape(self.loc.shape, self.scale.shape))

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return self.scale * self.scale

    @property
    def stddev(self):
        return self.scale

    def sample(self, shape=(), seed=0):
        """Draws of shape ``shape + batch_shape`` (a non-zero ``seed`` gives a fixed
        stream); differentiable in loc and scale, as Paddle's."""
        shape = iterable_shape(shape, 'Normal.sample')
        return self._draw(shape, int(seed))

    def rsample(self, shape=()):
        """Reparameterized draws loc + scale * eps, eps ~ N(0, 1)."""
        shape = iterable_shape(shape, 'Normal.rsample')
        return self._draw(shape, 0)

    def _draw(self, shape, seed):
        base = expand(self.loc + 0.0 * self.scale, list(shape) + [-1] * len(self.batch_shape))
        eps = normal_like_op(base, 0.0, 1.0, seed)
        return self.loc + eps * self.scale

    def entropy(self):
        zero = 0.0 * (self.loc + self.scale)
        return zero + (0.5 + _HALF_LOG_2PI) + _m.log(self.scale + zero)

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return -((value - self.loc) * (value - self.loc)) / (2.0 * var) - (
            _m.log(self.scale) + _HALF_LOG_2PI)

    def probs(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        var = self.scale * self.scale
        return _m.exp(-((value - self.loc) * (value - self.loc)) / (2.0 * var)) / (
            math.sqrt(2.0 * math.pi) * self.scale)

    def prob(self, value):
        return self.probs(value)

    def cdf(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        return 0.5 * (1.0 + _m.erf((value - self.loc) / (self.scale * math.sqrt(2.0))))

    def icdf(self, value):
        value = self._check_values_dtype_in_probs(self.loc, value)
        return self.loc + self.scale * math.sqrt(2.0) * _m.erfinv(2.0 * value - 1.0)

    def kl_divergence(self, other):
        """KL(self || other) in closed form."""
        if not isinstance(other, Normal):
            raise TypeError("Normal.kl_divergence: other must be a Normal, got %s"
                            % type(other).__name__)
        ratio = self.scale / other.scale
        ratio = ratio * ratio
        t1 = (self.loc - other.loc) / other.scale
        return 0.5 * ratio + 0.5 * (t1 * t1 - 1.0 - _m.log(ratio))


def _check_param_type(value, name, owner):
    ok = (int, float, np.ndarray, list, tuple)
    if not (isinstance(value, ok) or is_value(value)):
        raise TypeError("%s: type of %s must be float, list, tuple, numpy.ndarray or Tensor, "
                        "but received type %s" % (owner, name, type(value)))
    kind = np.asarray(value).dtype.kind if isinstance(value, (list, tuple, np.ndarray)) else \
        np.dtype(value.dtype).kind if is_value(value) else None
    if kind == 'c':
        raise TypeError("%s: complex %s is not supported (real parameters only)" % (owner, name))


def _array_dtype(*args):
    """float64 when a parameter is a float64 numpy array, else float32."""
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype in (np.float32, np.float64):
            return np.dtype(a.dtype)
    return np.dtype(np.float32)


__all__ = ['Normal']
