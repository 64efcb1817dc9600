"""Activation layers: each calls its ``framework.nn.functional`` function.

>>> import framework as paddle
>>> paddle.nn.LeakyReLU(0.1)(paddle.to_tensor([-1.0, 2.0])).numpy().tolist()
[-0.10000000149011612, 2.0]
"""
from ... import dtype as _dt
from .. import functional as F
from ..initializer import Constant
from ..layer import Layer

__all__ = ['ReLU', 'ReLU6', 'LeakyReLU', 'ELU', 'CELU', 'SELU', 'GELU', 'Sigmoid', 'Tanh',
           'Softmax', 'LogSoftmax', 'SiLU', 'Swish', 'Hardswish', 'Hardsigmoid', 'Hardtanh',
           'Hardshrink', 'Softshrink', 'Softplus', 'Softsign', 'Mish', 'PReLU', 'LogSigmoid',
           'Tanhshrink', 'ThresholdedReLU', 'Maxout', 'GLU', 'Softmax2D']


class _Activation(Layer):
    """An activation without parameters: ``F.<_fn>(x, **config)``.

    Subclasses list their configuration as ``_config = (('name', default), ...)``
    in the order of the Paddle constructor.
    """
    _fn = ''
    _config = ()

    def __init__(self, *args, name=None, **kwargs):
        super().__init__()
        names = [k for k, _ in self._config]
        if len(args) > len(names):
            raise TypeError("%s takes at most %d arguments (%s), got %d"
                            % (type(self).__name__, len(names), ', '.join(names), len(args)))
        values = dict(self._config)
        values.update(zip(names, args))
        for k in kwargs:
            if k not in values:
                raise TypeError("%s got an unexpected argument %r" % (type(self).__name__, k))
        values.update(kwargs)
        self._kwargs = values
        self._name = name

    def forward(self, x):
        return getattr(F, self._fn)(x, **self._kwargs)

    def extra_repr(self):
        parts = ['%s=%s' % kv for kv in self._kwargs.items()]
        if self._name:
            parts.append('name=%s' % self._name)
        return ', '.join(parts)


def _activation(cls_name, fn, config=(), doc=None):
    cls = type(cls_name, (_Activation,), {'_fn': fn, '_config': tuple(config),
                                         '__doc__': doc or 'Layer form of ``F.%s``.' % fn})
    cls.__module__ = __name__
    return cls


ReLU = _activation('ReLU', 'relu', doc='``max(x, 0)``.')
ReLU6 = _activation('ReLU6', 'relu6', doc='``min(max(x, 0), 6)``.')
LeakyReLU = _activation('LeakyReLU', 'leaky_relu', [('negative_slope', 0.01)])
ELU = _activation('ELU', 'elu', [('alpha', 1.0)])
CELU = _activation('CELU', 'celu', [('alpha', 1.0)])
SELU = _activation('SELU', 'selu', [('scale', 1.0507009873554804934193349852946),
                                    ('alpha', 1.6732632423543772848170429916717)])
GELU = _activation('GELU', 'gelu', [('approximate', False)],
                   doc='Gaussian error linear unit; ``approximate=True`` uses the tanh form.')
Sigmoid = _activation('Sigmoid', 'sigmoid')
Tanh = _activation('Tanh', 'tanh')
Softmax = _activation('Softmax', 'softmax', [('axis', -1)])
LogSoftmax = _activation('LogSoftmax', 'log_softmax', [('axis', -1)])
SiLU = _activation('SiLU', 'silu', doc='``x * sigmoid(x)``.')
Swish = _activation('Swish', 'swish', doc='``x * sigmoid(x)``.')
Hardswish = _activation('Hardswish', 'hardswish')
Hardsigmoid = _activation('Hardsigmoid', 'hardsigmoid', [('slope', 0.1666667), ('offset', 0.5)])
Hardtanh = _activation('Hardtanh', 'hardtanh', [('min', -1.0), ('max', 1.0)])
Hardshrink = _activation('Hardshrink', 'hardshrink', [('threshold', 0.5)])
Softshrink = _activation('Softshrink', 'softshrink', [('threshold', 0.5)])
Softplus = _activation('Softplus', 'softplus', [('beta', 1), ('threshold', 20)])
Softsign = _activation('Softsign', 'softsign')
Mish = _activation('Mish', 'mish')
LogSigmoid = _activation('LogSigmoid', 'log_sigmoid')
Tanhshrink = _activation('Tanhshrink', 'tanhshrink')
ThresholdedReLU = _activation('ThresholdedReLU', 'thresholded_relu', [('threshold', 1.0)])
Maxout = _activation('Maxout', 'maxout', [('groups', None), ('axis', 1)])
GLU = _activation('GLU', 'glu', [('axis', -1)])


class Softmax2D(Layer):
    """Softmax over the channel axis of a ``[N, C, H, W]`` or ``[C, H, W]`` input."""

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
