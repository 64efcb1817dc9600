"""The base class of every distribution, and how parameters become tensors.

A distribution holds parameter tensors; its methods are compositions of
registered ops, so they run eagerly, inside ``program_guard`` and under
``@to_static`` alike, and differentiate with respect to the parameters.
Shapes follow Paddle: ``sample(shape)`` gives ``shape + batch_shape +
event_shape``.
"""
import numbers
import warnings
from collections.abc import Iterable

import numpy as np

from .. import dtype as _dt
from ..ops import math as _m
from ..ops.creation import to_tensor
from ..ops.grad_utils import is_value
from ..ops.manipulation import cast
from ..ops.modes import is_eager_tensor, is_static_var
from . import _math


class Distribution:
    """Abstract base of probability distributions.

    Args:
        batch_shape (Sequence[int]): shape of a batch of independent, not
            identically distributed distributions.
        event_shape (Sequence[int]): shape of one draw ([] for scalar
            distributions, [n] for an n-dimensional one).
    """

    def __init__(self, batch_shape=(), event_shape=()):
        self._batch_shape = tuple(batch_shape)
        self._event_shape = tuple(event_shape)
        super().__init__()

    @property
    def batch_shape(self):
        """The batch shape (a tuple)."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The event shape (a tuple)."""
        return self._event_shape

    # the interface each distribution fills in
    @property
    def mean(self):
        raise NotImplementedError("%s does not define mean" % type(self).__name__)

    @property
    def variance(self):
        raise NotImplementedError("%s does not define variance" % type(self).__name__)

    @property
    def stddev(self):
        """Standard deviation: the square root of ``variance``."""
        return _m.sqrt(self.variance)

    def sample(self, shape=()):
        raise NotImplementedError("%s does not define sample" % type(self).__name__)

    def rsample(self, shape=()):
        raise NotImplementedError("%s has no reparameterized sample" % type(self).__name__)

    def entropy(self):
        raise NotImplementedError("%s does not define entropy" % type(self).__name__)

    def log_prob(self, value):
        raise NotImplementedError("%s does not define log_prob" % type(self).__name__)

    def kl_divergence(self, other):
        """KL(self || other) by the registered rule for the two types."""
        from .kl import kl_divergence
        return kl_divergence(self, other)

    def prob(self, value):
        """Probability density (or mass) at ``value``: exp(log_prob(value))."""
        return _m.exp(self.log_prob(value))

    def probs(self, value):
        """Same as ``prob`` (Paddle's older name)."""
        return self.prob(value)

    # ---- helpers the distributions share ------------------------------------

    def _extend_shape(self, sample_shape):
        """sample_shape + batch_shape + event_shape."""
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def _validate_args(self, *args):
        """True if the arguments are tensors; a mix of tensors and numbers is an
        error (Paddle's rule for these constructors)."""
        tensors = [is_value(a) for a in args]
        if any(tensors) and not all(tensors):
            raise ValueError("%s: if one argument is Tensor, all arguments should be Tensor "
                             "(got %s)" % (type(self).__name__,
                                           ', '.join(type(a).__name__ for a in args)))
        return all(tensors)

    def _to_tensor(self, *args):
        """Numbers, lists and arrays as tensors broadcast to one shape. float64
        data stays float64 (the distributions then cast to their dtype); other
        non-float32 data becomes float32, with Paddle's warning."""
        values = [self._tensor_or_array(arg) for arg in args]
        dtype = np.result_type(*[v.dtype for v in values])
        shape = ()
        for v in values:
            shape = _math.broadcast_shape(shape, v.shape)
        known = all(d >= 0 for d in shape)
        tensors = [v if is_value(v) else
                   to_tensor(np.broadcast_to(v, shape if known else v.shape).astype(dtype))
                   for v in values]
        return tuple(_math.broadcast_all(tensors))

    def _tensor_or_array(self, arg):
        if is_value(arg):
            return arg
        if not isinstance(arg, (float, list, tuple, np.ndarray)):
            raise TypeError("%s: type of input args must be float, list, tuple, numpy.ndarray "
                            "or Tensor, but received type %s" % (type(self).__name__, type(arg)))
        a = np.asarray(arg)
        if a.dtype not in (np.float32, np.float64):
            warnings.warn("data type of argument only support float32 and float64, your "
                          "argument will be convert to float32.")
            a = a.astype(np.float32)
        return a

    def _check_values_dtype_in_probs(self, param, value):
        """``value`` as a tensor of ``param``'s dtype (a float tensor of another
        float dtype is cast, with Paddle's warning)."""
        value = _as_value_tensor(value, param.dtype)
        if np.dtype(value.dtype) != np.dtype(param.dtype):
            if np.dtype(value.dtype) in (np.float32, np.float64):
                warnings.warn("dtype of input 'value' needs to be the same as parameters of "
                              "distribution class. dtype of 'value' will be converted.")
            return cast(value, param.dtype)
        return value

    def _probs_to_logits(self, probs, is_binary=False):
        if is_binary:
            return _m.log(probs) - _m.log1p(-probs)
        return _m.log(probs)

    def _logits_to_probs(self, logits, is_binary=False):
        from ..ops.nn import softmax
        if is_binary:
            return _m.sigmoid(logits)
        return softmax(logits, axis=-1)

    def _broadcast_all(self, *args):
        """Tensors broadcast to one shape; numbers take the dtype of the first
        tensor argument (the default float dtype when there is none)."""
        for arg in args:
            self._tensor_or_array(arg)          # the type check
        dtype = next((a.dtype for a in args if is_value(a)), _dt.get_default_dtype())
        tensors = [a if is_value(a) else to_tensor(a, dtype=dtype) for a in args]
        return tuple(_math.broadcast_all(tensors))


# ---- parameter conversion used by the distributions -----------------------------

def _as_value_tensor(value, dtype):
    """A value passed to log_prob/cdf/...: tensors as they are, numbers and
    arrays as tensors of the distribution's dtype."""
    if is_value(value):
        return value
    return to_tensor(np.asarray(value, dtype=np.dtype(dtype)))


def value_as(value, dtype):
    """A value passed to log_prob/cdf/... as a tensor of ``dtype`` (cast
    silently, as Binomial/Poisson/... do in Paddle)."""
    return _math.as_dtype(_as_value_tensor(value, dtype), dtype)


def real_param(value, name, owner):
    """A Real number or a tensor, as a tensor (numbers take the default float
    dtype); anything else is Paddle's TypeError."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return to_tensor(np.asarray(value, dtype=_dt.get_default_dtype()))
    if is_value(value):
        return value
    raise TypeError("%s: expected type of %s is Real|Variable, but got %s"
                    % (owner, name, type(value)))


def check_shape_arg(shape, owner, kinds=(list, tuple)):
    """Sample shapes are sequences of ints."""
    if isinstance(shape, np.ndarray):
        shape = shape.tolist()
    if not isinstance(shape, kinds) or isinstance(shape, (str, bytes)):
        raise TypeError("%s: sample shape must be a sequence of ints (list or tuple), got %s"
                        % (owner, type(shape)))
    return tuple(int(s) for s in shape)


def iterable_shape(shape, owner):
    if not isinstance(shape, Iterable) or isinstance(shape, (str, bytes)):
        raise TypeError("%s: sample shape must be Iterable object, got %s" % (owner, type(shape)))
    return tuple(int(s) for s in shape)


def without_grad(fn, *args):
    """``fn(*args)`` as a draw without gradient: computed under ``no_grad``
    eagerly, detached from the program's backward in static mode."""
    from ..dygraph import no_grad
    from ..ops.modes import in_static_mode
    with no_grad():
        out = fn(*args)
    return out.detach() if in_static_mode() else out


def concrete(x):
    """x's value as a numpy array when it is known now (an eager tensor, or a
    static Variable with a build-time value), else None."""
    if is_eager_tensor(x):
        return x.numpy()
    value = x._value if is_static_var(x) else None
    return None if value is None else np.asarray(value)


def eager_all(cond):
    """False only when ``cond`` (a bool tensor) is known and has a False entry:
    parameter checks run eagerly, as Paddle's do, and are skipped while a
    static program is built from values not yet known."""
    value = concrete(cond)
    return True if value is None else bool(np.all(value))
