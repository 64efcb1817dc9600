"""The categorical distribution over ``logits.shape[-1]`` classes."""
import numpy as np

from ..ops import math as _m
from ..ops import reduce as _r
from ..ops.creation import multinomial
from ..ops.grad_utils import is_value
from ..ops.indexing import take_along_axis
from ..ops.manipulation import gather, reshape, transpose
from . import _math
from .distribution import Distribution, check_shape_arg


class Categorical(Distribution):
    r"""Categorical distribution over the last dim of ``logits``.

    As in Paddle, ``logits`` play two roles: ``sample``, ``entropy`` and
    ``kl_divergence`` use the class probabilities softmax(logits), while
    ``probs``/``log_prob`` use logits normalised by their sum (so positive
    "logits" can be given as unnormalised probabilities).

    Args:
        logits (list|tuple|numpy.ndarray|Tensor): shape [..., k].
        name (str, optional): a name prefix.

    >>> import framework as paddle
    >>> from framework.distribution import Categorical
    >>> c = Categorical(paddle.to_tensor([1.0, 1.0, 2.0]))
    >>> c.probs(paddle.to_tensor([2])).numpy().tolist()
    [0.5]
    """

    def __init__(self, logits, name=None):
        if not (isinstance(logits, (np.ndarray, list, tuple)) or is_value(logits)):
            raise TypeError("Categorical: type of logits must be numpy.ndarray, list, tuple "
                            "or Tensor, but received type %s" % type(logits))
        self.name = name if name is not None else 'Categorical'
        if self._validate_args(logits):
            self.logits = logits
            self.dtype = np.dtype(logits.dtype)
        else:
            self.dtype = (np.dtype(logits.dtype) if isinstance(logits, np.ndarray) and
                          logits.dtype in (np.float32, np.float64) else np.dtype(np.float32))
            self.logits = _math.as_dtype(self._to_tensor(logits)[0], self.dtype)
        if len(self.logits.shape) < 1:
            raise ValueError("Categorical: logits must have at least one dim, got shape []")
        self._prob = self.logits / _r.sum(self.logits, axis=-1, keepdim=True)
        super().__init__(tuple(self.logits.shape[:-1]), ())

    def sample(self, shape=()):
        """Class indices (int64) of shape ``shape + batch_shape``."""
        shape = check_shape_arg(shape, 'Categorical.sample')
        n = int(np.prod(shape)) if shape else 1
        k = self.logits.shape[-1]
        logits = reshape(self.logits, [-1, k])
        idx = multinomial(self._logits_to_probs(logits), n, True)        # [batch, n]
        idx = transpose(idx, [1, 0])                                     # [n, batch]
        return reshape(idx, list(shape) + list(self.logits.shape[:-1]))

    def _log_softmax(self, logits):
        shifted = logits - _r.max(logits, axis=-1, keepdim=True)
        return shifted - _m.log(_r.sum(_m.exp(shifted), axis=-1, keepdim=True))

    def kl_divergence(self, other):
        """sum p (log p - log q) over classes, keeping the class dim (size 1)."""
        if not isinstance(other, Categorical):
            raise TypeError("Categorical.kl_divergence: other must be a Categorical, got %s"
                            % type(other).__name__)
        logp = self._log_softmax(self.logits)
        logq = self._log_softmax(other.logits)
        return _r.sum(_m.exp(logp) * (logp - logq), axis=-1, keepdim=True)

    def entropy(self):
        logp = self._log_softmax(self.logits)
        return -_r.sum(_m.exp(logp) * logp, axis=-1)

    def probs(self, value):
        """Normalised ``logits`` at the class indices ``value``."""
        if len(self._prob.shape) == 1:
            return reshape(gather(self._prob, reshape(value, [-1])), list(value.shape))
        if len(value.shape) == 1:
            index = reshape(value, [1] * (len(self._prob.shape) - 1) + [-1])
            return take_along_axis(self._prob, index, axis=-1)
        return take_along_axis(self._prob, value, axis=-1)

    def prob(self, value):
        return self.probs(value)

    def log_prob(self, value):
        return _m.log(self.probs(value))


__all__ = ['Categorical']
