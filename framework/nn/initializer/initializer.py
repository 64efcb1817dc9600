"""The initializer base class and what the initializers share: fan
computation, activation gains and the registered-op draws."""
import math

import numpy as np

from ... import dtype as _dt
from ...dygraph.state import no_grad
from ...dygraph.tensor import Tensor
from ...ops import creation as _creation
from ...param_attr import install_initializer_type

__all__ = ['Initializer', 'calculate_gain', 'compute_fans']


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


install_initializer_type(Initializer)   # ParamAttr._to_attr tells initializers apart by it


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
