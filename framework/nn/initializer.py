"""``framework.nn.initializer``: how parameters get their first values.

An initializer is called on a parameter (``init(param)``). It builds the
value with registered ops only (``full``, ``uniform``, ``gaussian``,
``truncated_gaussian_random``, ``to_tensor``), in ``init_value(shape, dtype)``,
and then assigns it. Random draws therefore come from
``framework.random.generator()`` (``framework.seed(n)`` makes model
initialisation repeatable), and static mode can put the very same ops into a
startup program by calling ``init_value`` under that program.

>>> import framework as paddle
>>> init = paddle.nn.initializer.Constant(0.5)
>>> fc = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=init))
>>> fc.weight.numpy().tolist()
[[0.5, 0.5], [0.5, 0.5]]
"""
import math

import numpy as np

from .. import dtype as _dt
from ..dygraph.state import no_grad
from ..dygraph.tensor import Tensor
from ..ops import creation as _creation
from ..ops import init_ops as _init_ops
from .layer.layers import set_global_initializer

__all__ = ['Initializer', 'Constant', 'Normal', 'TruncatedNormal', 'Uniform', 'XavierNormal',
           'XavierUniform', 'KaimingNormal', 'KaimingUniform', 'Assign', 'Orthogonal', 'Dirac',
           'Bilinear', 'calculate_gain', 'set_global_initializer']


class Initializer:
    """Base class: subclasses implement ``init_value(shape, dtype)``."""

    def __call__(self, param, block=None):
        """Fill ``param`` in place and return it."""
        if not isinstance(param, Tensor):
            raise TypeError("%s: expected a Parameter or Tensor to initialise, got %s"
                            % (type(self).__name__, type(param).__name__))
        dtype = param.dtype
        with no_grad():
            value = self.init_value(list(param.shape), dtype)
        if list(value.shape) != list(param.shape):
            raise ValueError("%s: produced shape %s for a parameter of shape %s"
                             % (type(self).__name__, value.shape, param.shape))
        param.set_value(value)
        return param

    def init_value(self, shape, dtype):
        """The initial value as a tensor built with registered ops."""
        raise NotImplementedError("%s must implement init_value(shape, dtype)"
                                  % type(self).__name__)

    def __repr__(self):
        fields = ', '.join('%s=%r' % (k, v) for k, v in vars(self).items()
                           if not k.startswith('_'))
        return '%s(%s)' % (type(self).__name__, fields)


def _dtype_str(dtype):
    return str(_dt.convert_dtype(dtype))


def _uniform(shape, low, high, dtype):
    return _creation.uniform(shape, dtype=_dtype_str(dtype), min=low, max=high)


def _gaussian(shape, mean, std, dtype):
    return _creation.gaussian_random_op(tuple(int(s) for s in shape), float(mean), float(std),
                                        _dtype_str(dtype), 0)


def compute_fans(shape):
    """(fan_in, fan_out) as Paddle computes them.

    0-D: (1, 1); 1-D: (n, n); 2-D ``[in, out]`` (a Linear weight): (in, out);
    N-D ``[out, in, *kernel]`` (a conv weight): (in * prod(kernel),
    out * prod(kernel)). For a grouped conv the weight's second dim is already
    ``in_channels / groups``.
    """
    shape = list(shape)
    if not shape:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[2:]))
    return shape[1] * receptive, shape[0] * receptive


class Constant(Initializer):
    """Every element equals ``value``."""

    def __init__(self, value=0.0):
        if not isinstance(value, (int, float, np.number)) or isinstance(value, bool):
            raise TypeError("Constant: value must be a number, got %r" % (value,))
        self.value = float(value)

    def init_value(self, shape, dtype):
        return _creation.full(shape, self.value, dtype=_dtype_str(dtype))


class Uniform(Initializer):
    """Uniform on ``[low, high)``."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        if not low < high:
            raise ValueError("Uniform: low (%r) must be smaller than high (%r)" % (low, high))
        self.low = float(low)
        self.high = float(high)

    def init_value(self, shape, dtype):
        return _uniform(shape, self.low, self.high, dtype)


class Normal(Initializer):
    """Normal with ``mean`` and standard deviation ``std``."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        if std < 0:
            raise ValueError("Normal: std must be non-negative, got %r" % (std,))
        self.mean = float(mean)
        self.std = float(std)

    def init_value(self, shape, dtype):
        return _gaussian(shape, self.mean, self.std, dtype)


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to ``[a, b]`` (absolute bounds, as Paddle's
    and PyTorch's ``trunc_normal_``)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if std <= 0:
            raise ValueError("TruncatedNormal: std must be positive, got %r" % (std,))
        if not a < b:
            raise ValueError("TruncatedNormal: a (%r) must be smaller than b (%r)" % (a, b))
        self.mean = float(mean)
        self.std = float(std)
        self.a = float(a)
        self.b = float(b)

    def init_value(self, shape, dtype):
        return _init_ops.truncated_gaussian_random(shape, self.mean, self.std, self.a,
                                                   self.b, dtype=_dtype_str(dtype))


class XavierUniform(Initializer):
    """Glorot uniform: U(-l, l), ``l = gain * sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in = fan_in
        self.fan_out = fan_out
        self.gain = float(gain)

    def _fans(self, shape):
        fi, fo = compute_fans(shape)
        return (self.fan_in if self.fan_in is not None else fi,
                self.fan_out if self.fan_out is not None else fo)

    def init_value(self, shape, dtype):
        fan_in, fan_out = self._fans(shape)
        limit = self.gain * math.sqrt(6.0 / float(fan_in + fan_out))
        return _uniform(shape, -limit, limit, dtype)


class XavierNormal(XavierUniform):
    """Glorot normal: N(0, std), ``std = gain * sqrt(2 / (fan_in + fan_out))``."""

    def init_value(self, shape, dtype):
        fan_in, fan_out = self._fans(shape)
        std = self.gain * math.sqrt(2.0 / float(fan_in + fan_out))
        return _gaussian(shape, 0.0, std, dtype)


class KaimingNormal(Initializer):
    """He normal: N(0, std), ``std = gain / sqrt(fan)`` with
    ``gain = calculate_gain(nonlinearity, negative_slope)``; ``fan`` is the
    weight's fan-in (or ``fan_in`` when given), or its fan-out with
    ``mode='fan_out'``."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity='relu', mode='fan_in',
                 name=None):
        if mode not in ('fan_in', 'fan_out'):
            raise ValueError("The mode of KaimingNormal/KaimingUniform should be 'fan_in' or "
                             "'fan_out', but received %r." % (mode,))
        if mode == 'fan_out' and fan_in is not None:
            raise ValueError("The mode of KaimingNormal/KaimingUniform is 'fan_out', but "
                             "fan_in is set. Please set fan_in to None.")
        self.fan_in = fan_in
        self.negative_slope = negative_slope
        self.nonlinearity = nonlinearity
        self.mode = mode
        calculate_gain(nonlinearity, negative_slope)   # validate now, not at first use

    def _scale(self, shape):
        fans = compute_fans(shape)
        if self.mode == 'fan_out':
            fan_in = fans[1]
        else:
            fan_in = self.fan_in if self.fan_in is not None else fans[0]
        if fan_in <= 0:
            raise ValueError("%s: fan_in must be positive, got %r" % (type(self).__name__,
                                                                     fan_in))
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan_in)

    def init_value(self, shape, dtype):
        return _gaussian(shape, 0.0, self._scale(shape), dtype)


class KaimingUniform(KaimingNormal):
    """He uniform: U(-l, l), ``l = gain * sqrt(3 / fan_in)``."""

    def init_value(self, shape, dtype):
        limit = self._scale(shape) * math.sqrt(3.0)
        return _uniform(shape, -limit, limit, dtype)


class Assign(Initializer):
    """Copy a given value (numpy array, list, scalar or Tensor); the shapes must match."""

    def __init__(self, value, name=None):
        arr = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
        if arr.dtype == object or arr.dtype.kind not in 'biuf':
            raise TypeError("Assign: value must be numeric, got dtype %s" % arr.dtype)
        self.value = arr

    def init_value(self, shape, dtype):
        if list(self.value.shape) != list(shape):
            raise ValueError("Assign: the value has shape %s but the parameter has shape %s"
                             % (list(self.value.shape), list(shape)))
        return _creation.to_tensor(self.value, dtype=_dtype_str(dtype))

    def __repr__(self):
        return 'Assign(shape=%s)' % list(self.value.shape)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over the parameter flattened to
    ``[shape[0], prod(shape[1:])]``, times ``gain``."""

    def __init__(self, gain=1.0, name=None):
        self.gain = float(gain)

    def init_value(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError("Orthogonal: the parameter must have at least 2 dims, got "
                             "shape %s" % list(shape))
        return _init_ops.orthogonal_random(shape, self.gain, dtype=_dtype_str(dtype))


class Dirac(Initializer):
    """Identity-preserving conv weights ``[out, in/groups, *k]``: each output
    channel copies one input channel through the kernel centre."""

    def __init__(self, groups=1, name=None):
        if int(groups) < 1:
            raise ValueError("Dirac: groups must be >= 1, got %r" % (groups,))
        self.groups = int(groups)

    def init_value(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError("Dirac: expects a 3-D, 4-D or 5-D conv weight, got shape %s"
                             % list(shape))
        if shape[0] % self.groups:
            raise ValueError("Dirac: out channels %d not divisible by groups %d"
                             % (shape[0], self.groups))
        w = np.zeros(shape, dtype=_dt.convert_dtype(dtype))
        per_group = shape[0] // self.groups
        n = min(per_group, shape[1])
        centre = tuple(k // 2 for k in shape[2:])
        idx = np.arange(n)
        for g in range(self.groups):
            w[(g * per_group + idx, idx) + centre] = 1
        return _creation.to_tensor(w)


class Bilinear(Initializer):
    """Bilinear-interpolation kernels for a ``Conv2DTranspose`` upsampler
    (weight ``[C, 1, K, K]`` or any 4-D shape with square kernels)."""

    def init_value(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError("Bilinear: expects a 4-D weight with square kernels, got "
                             "shape %s" % list(shape))
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        ramp = 1 - np.abs(np.arange(size) / f - c)
        kernel = np.outer(ramp, ramp)
        w = np.broadcast_to(kernel, shape).astype(_dt.convert_dtype(dtype))
        return _creation.to_tensor(w)


def calculate_gain(nonlinearity, param=None):
    """Recommended gain for an activation (as Paddle/PyTorch): 1 for linear,
    conv and sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2/(1+slope^2)) for
    leaky_relu (slope defaults to 0.01), 3/4 for selu."""
    linear = ('linear', 'sigmoid', 'conv1d', 'conv2d', 'conv3d', 'conv1d_transpose',
              'conv2d_transpose', 'conv3d_transpose')
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == 'tanh':
        return 5.0 / 3
    if nonlinearity == 'relu':
        return math.sqrt(2.0)
    if nonlinearity == 'leaky_relu':
        slope = 0.01 if param is None else param
        if not isinstance(slope, (int, float)) or isinstance(slope, bool):
            raise ValueError("calculate_gain: negative slope %r is not a number" % (slope,))
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == 'selu':
        return 3.0 / 4
    raise ValueError("calculate_gain: unsupported nonlinearity %r; expected one of %s, "
                     "'tanh', 'relu', 'leaky_relu', 'selu'" % (nonlinearity, ', '.join(linear)))
