"""Activation layers: each calls its ``framework.nn.functional`` function.

>>> import framework as paddle
>>> paddle.nn.LeakyReLU(0.1)(paddle.to_tensor([-1.0, 2.0])).numpy().tolist()
[-0.10000000149011612, 2.0]
"""
from ... import dtype as _dt
from .. import functional as F
from ..initializer import Constant
from .layers import Layer

__all__ = ['ReLU', 'ReLU6', 'LeakyReLU', 'ELU', 'CELU', 'SELU', 'GELU', 'Sigmoid', 'Tanh',
           'Softmax', 'LogSoftmax', 'SiLU', 'Swish', 'Hardswish', 'Hardsigmoid', 'Hardtanh',
           'Hardshrink', 'Softshrink', 'Softplus', 'Softsign', 'Mish', 'PReLU', 'LogSigmoid',
           'Tanhshrink', 'ThresholdedReLU', 'Maxout', 'GLU', 'Softmax2D', 'Silu', 'RReLU']


class _Activation(Layer):
    """An activation without parameters: ``F.<_fn>(x, **config)``. Each
    subclass spells out Paddle's constructor signature."""
    _fn = ''

    def __init__(self, name=None, **config):
        super().__init__()
        self._kwargs = config
        self._name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, **self._kwargs)

    def extra_repr(self):
        parts = ['%s=%s' % kv for kv in self._kwargs.items()]
        if self._name:
            parts.append('name=%s' % self._name)
        return ', '.join(parts)


class ReLU(_Activation):
    """``max(x, 0)``."""
    _fn = 'relu'

    def __init__(self, name=None):
        super().__init__(name)


class ReLU6(_Activation):
    """``min(max(x, 0), 6)``."""
    _fn = 'relu6'

    def __init__(self, name=None):
        super().__init__(name)


class LeakyReLU(_Activation):
    _fn = 'leaky_relu'

    def __init__(self, negative_slope=0.01, name=None):
        super().__init__(name, negative_slope=negative_slope)


class ELU(_Activation):
    _fn = 'elu'

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class CELU(_Activation):
    _fn = 'celu'

    def __init__(self, alpha=1.0, name=None):
        super().__init__(name, alpha=alpha)


class SELU(_Activation):
    _fn = 'selu'

    def __init__(self, scale=1.0507009873554805, alpha=1.6732632423543772, name=None):
        super().__init__(name, scale=scale, alpha=alpha)


class GELU(_Activation):
    """Gaussian error linear unit; ``approximate=True`` (or 'tanh') uses the
    tanh form."""
    _fn = 'gelu'

    def __init__(self, approximate=False, name=None):
        super().__init__(name, approximate=approximate)


class Sigmoid(_Activation):
    _fn = 'sigmoid'

    def __init__(self, name=None):
        super().__init__(name)


class Tanh(_Activation):
    _fn = 'tanh'

    def __init__(self, name=None):
        super().__init__(name)


class Softmax(_Activation):
    _fn = 'softmax'

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class LogSoftmax(_Activation):
    _fn = 'log_softmax'

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class SiLU(_Activation):
    """``x * sigmoid(x)``; ``inplace=True`` overwrites the input."""
    _fn = 'silu'

    def __init__(self, inplace=False, name=None):
        super().__init__(name, inplace=inplace)


Silu = SiLU      # Paddle's name for the same class


class RReLU(Layer):
    """Randomized leaky relu: negative inputs are scaled by a slope drawn from
    ``U(lower, upper)`` while training and by ``(lower + upper) / 2`` in eval mode."""

    def __init__(self, lower=1.0 / 8.0, upper=1.0 / 3.0, name=None):
        super().__init__()
        self._lower = lower
        self._upper = upper
        self._name = name

    def forward(self, x):
        return F.rrelu(x, lower=self._lower, upper=self._upper, training=self.training)

    def extra_repr(self):
        return 'lower=%s, upper=%s, training=%s%s' % (
            self._lower, self._upper, self.training,
            ', name=%s' % self._name if self._name else '')


class Swish(_Activation):
    """``x * sigmoid(x)``."""
    _fn = 'swish'

    def __init__(self, name=None):
        super().__init__(name)


class Hardswish(_Activation):
    _fn = 'hardswish'

    def __init__(self, name=None):
        super().__init__(name)


class Hardsigmoid(_Activation):
    """``clip(x / 6 + 0.5, 0, 1)`` (``F.hardsigmoid``'s defaults)."""
    _fn = 'hardsigmoid'

    def __init__(self, name=None):
        super().__init__(name)


class Hardtanh(_Activation):
    _fn = 'hardtanh'

    def __init__(self, min=-1.0, max=1.0, name=None):  # noqa: A002 (Paddle's names)
        super().__init__(name, min=min, max=max)


class Hardshrink(_Activation):
    _fn = 'hardshrink'

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Softshrink(_Activation):
    _fn = 'softshrink'

    def __init__(self, threshold=0.5, name=None):
        super().__init__(name, threshold=threshold)


class Softplus(_Activation):
    _fn = 'softplus'

    def __init__(self, beta=1, threshold=20, name=None):
        super().__init__(name, beta=beta, threshold=threshold)


class Softsign(_Activation):
    _fn = 'softsign'

    def __init__(self, name=None):
        super().__init__(name)


class Mish(_Activation):
    _fn = 'mish'

    def __init__(self, name=None):
        super().__init__(name)


class LogSigmoid(_Activation):
    _fn = 'log_sigmoid'

    def __init__(self, name=None):
        super().__init__(name)


class Tanhshrink(_Activation):
    _fn = 'tanhshrink'

    def __init__(self, name=None):
        super().__init__(name)


class ThresholdedReLU(_Activation):
    """``x`` where ``x > threshold``, else ``value``."""
    _fn = 'thresholded_relu'

    def __init__(self, threshold=1.0, value=0.0, name=None):
        super().__init__(name, threshold=threshold, value=value)


class Maxout(_Activation):
    _fn = 'maxout'

    def __init__(self, groups, axis=1, name=None):
        super().__init__(name, groups=groups, axis=axis)


class GLU(_Activation):
    _fn = 'glu'

    def __init__(self, axis=-1, name=None):
        super().__init__(name, axis=axis)


class Softmax2D(Layer):
    """Softmax over the channel axis of a ``[N, C, H, W]`` or ``[C, H, W]`` input."""

    def __init__(self, name=None):
        super().__init__()
        self._name = name

    def forward(self, x):
        if x.ndim not in (3, 4):
            raise ValueError("Softmax2D: expected a 3-D or 4-D input, got shape %s" % x.shape)
        return F.softmax(x, axis=-3)


class PReLU(Layer):
    """Leaky ReLU with a learnable slope: one shared (``num_parameters=1``) or
    one per channel, initialised to ``init``.

    >>> import framework as paddle
    >>> act = paddle.nn.PReLU(1, 0.25)
    >>> act(paddle.to_tensor([-4.0, 2.0])).numpy().tolist()
    [-1.0, 2.0]
    """

    def __init__(self, num_parameters=1, init=0.25, weight_attr=None, data_format='NCHW',
                 name=None):
        super().__init__()
        if data_format not in ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC'):
            raise ValueError("PReLU: unsupported data_format %r" % (data_format,))
        self._num_parameters = int(num_parameters)
        self._init = init
        self._data_format = data_format
        self._name = name
        self._dtype = _dt.get_default_dtype()
        self.weight = self.create_parameter([self._num_parameters], attr=weight_attr,
                                            dtype=self._dtype,
                                            default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self.weight, data_format=self._data_format)

    def extra_repr(self):
        s = 'num_parameters=%d, data_format=%s, init=%s, dtype=%s' % (
            self._num_parameters, self._data_format, self._init, self._dtype)
        return s + (', name=%s' % self._name if self._name else '')
