"""Normalisation layers: batch, layer, group, instance and spectral norm.

Batch norm keeps its running statistics as parameters named ``_mean`` and
``_variance`` that are not trainable (``trainable=False``, ``stop_gradient=True``),
as Paddle does: ``parameters()`` and ``summary`` count them, ``state_dict`` saves
them under Paddle's keys, and optimizers skip them. ``F.batch_norm`` updates them
in place while training:
``running = momentum * running + (1 - momentum) * batch_stat``.
"""
import numpy as np

from ... import dtype as _dt
from ...ops import manipulation as _manip, math as _math, reduce as _reduce
from ...param_attr import ParamAttr
from .. import functional as F
from ..initializer import Constant
from .layers import Layer
from ._utils import affine_parameters, check_device


def _layer_dtype(dtype):
    return str(_dt.convert_dtype(dtype)) if dtype is not None else _dt.get_default_dtype()

__all__ = ['BatchNorm', 'BatchNorm1D', 'BatchNorm2D', 'BatchNorm3D', 'SyncBatchNorm',
           'LayerNorm', 'GroupNorm', 'InstanceNorm1D', 'InstanceNorm2D', 'InstanceNorm3D',
           'LocalResponseNorm', 'SpectralNorm']


class _BatchNormBase(Layer):
    """Shared by the batch norms; each subclass's ``__init__`` spells out
    Paddle's signature (its own ``data_format`` default) and calls ``_build``."""
    _formats = ()
    _ranks = ()

    def _build(self, num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
               use_global_stats, name, mean_name=None, variance_name=None):
        if self._formats and data_format not in self._formats:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (type(self).__name__, self._formats, data_format))
        self._num_features = int(num_features)
        self._momentum = momentum
        self._epsilon = epsilon
        self._data_format = data_format
        self._use_global_stats = use_global_stats
        self._name = name
        self._dtype = _dt.get_default_dtype()
        self.weight, self.bias = affine_parameters(self, [self._num_features], weight_attr,
                                                   bias_attr, fixed_when_false=True)
        self._mean = self._stat(0.0, mean_name)
        self._variance = self._stat(1.0, variance_name)

    def _stat(self, value, name):
        """A running statistic: a parameter no optimizer updates (in static mode
        a persistable variable that the startup program fills)."""
        p = self.create_parameter([self._num_features], dtype=self._dtype,
                                  attr=ParamAttr(name=name, initializer=Constant(value),
                                                 trainable=False))
        p.stop_gradient = True
        return p

    def _check_input(self, x):
        if self._ranks and x.ndim not in self._ranks:
            raise ValueError("%s: expected a %s-D input, got shape %s"
                             % (type(self).__name__, ' or '.join(map(str, self._ranks)),
                                x.shape))

    def _use_batch_stats(self):
        return self.training

    def forward(self, x):
        self._check_input(x)
        return F.batch_norm(x, self._mean, self._variance, weight=self.weight, bias=self.bias,
                            training=self._use_batch_stats(), momentum=self._momentum,
                            epsilon=self._epsilon, data_format=self._data_format,
                            use_global_stats=self._use_global_stats)

    def extra_repr(self):
        s = 'num_features=%d, momentum=%s, epsilon=%s' % (self._num_features, self._momentum,
                                                        self._epsilon)
        if self._data_format != self._formats[0]:
            s += ', data_format=%s' % self._data_format
        if self._name is not None:
            s += ', name=%s' % self._name
        return s


class BatchNorm1D(_BatchNormBase):
    """Batch norm over ``[N, C]`` or ``[N, C, L]`` inputs (``NCL``/``NLC``)."""
    _formats = ('NCL', 'NC', 'NLC')
    _ranks = (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format='NCL', use_global_stats=None, name=None):
        super().__init__()
        self._build(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                    use_global_stats, name)


class BatchNorm2D(_BatchNormBase):
    """Batch norm over ``[N, C, H, W]`` inputs (or NHWC).

    >>> import framework as paddle
    >>> bn = paddle.nn.BatchNorm2D(3)
    >>> [name for name, _ in bn.state_dict().items()]
    ['weight', 'bias', '_mean', '_variance']
    >>> [p.trainable for p in bn.parameters()]
    [True, True, False, False]
    """
    _formats = ('NCHW', 'NHWC')
    _ranks = (4,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format='NCHW', use_global_stats=None, name=None):
        super().__init__()
        self._build(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                    use_global_stats, name)


class BatchNorm3D(_BatchNormBase):
    _formats = ('NCDHW', 'NDHWC')
    _ranks = (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format='NCDHW', use_global_stats=None, name=None):
        super().__init__()
        self._build(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                    use_global_stats, name)


class SyncBatchNorm(_BatchNormBase):
    """Batch norm whose statistics would be averaged across devices; with one
    process (the only case here) it is ``BatchNorm``."""
    _formats = ('NCHW', 'NHWC', 'NCL', 'NLC', 'NC', 'NCDHW', 'NDHWC')

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format='NCHW', name=None):
        super().__init__()
        self._build(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                    None, name)

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """Replace every batch-norm sublayer by a SyncBatchNorm sharing its
        parameters and statistics; returns the (possibly new) top layer."""
        if isinstance(layer, _BatchNormBase) and not isinstance(layer, cls):
            new = cls.__new__(cls)
            Layer.__init__(new)
            for k in ('_num_features', '_momentum', '_epsilon', '_data_format',
                      '_use_global_stats', '_name', '_dtype'):
                setattr(new, k, getattr(layer, k))
            for k in ('weight', 'bias', '_mean', '_variance'):
                setattr(new, k, getattr(layer, k))
            new.training = layer.training
            layer = new
        for name, child in list(layer._sub_layers.items()):
            if child is not None:
                layer._sub_layers[name] = cls.convert_sync_batchnorm(child)
        return layer


_ACTS = ('relu', 'relu6', 'sigmoid', 'tanh', 'leaky_relu', 'elu', 'gelu', 'swish', 'silu',
         'hardswish', 'hardsigmoid', 'softplus', 'softsign', 'mish', 'selu')


class BatchNorm(_BatchNormBase):
    """The Paddle 1.x-style batch norm (``paddle.nn.BatchNorm``): any rank,
    optional fused activation ``act``, ``is_test`` to always use the running
    statistics, ``trainable_statistics`` to use batch statistics even in eval.
    ``moving_mean_name`` / ``moving_variance_name`` name the statistics'
    parameters. ``in_place`` and ``do_model_average_for_mean_and_var`` are
    accepted for compatibility and have no effect here.
    """
    _formats = ('NCHW', 'NHWC')

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype='float32', data_layout='NCHW',
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__()
        if act is not None and act not in _ACTS:
            raise ValueError("BatchNorm: unsupported act %r; use one of %s" % (act, _ACTS))
        self._build(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                    use_global_stats or None, None, moving_mean_name, moving_variance_name)
        self._act = act
        self._is_test = is_test
        self._trainable_statistics = trainable_statistics
        if dtype != 'float32':
            self.to(dtype=dtype)

    def _use_batch_stats(self):
        return (self.training and not self._is_test) or self._trainable_statistics

    def forward(self, x):
        fmt = self._data_format
        if x.ndim != 4:
            # the channel axis is 1 for NC* layouts and last for N*C ones
            fmt = 'NCL' if fmt == 'NCHW' else 'NLC'
            if x.ndim == 5:
                fmt = 'NCDHW' if self._data_format == 'NCHW' else 'NDHWC'
        out = F.batch_norm(x, self._mean, self._variance, weight=self.weight, bias=self.bias,
                           training=self._use_batch_stats(), momentum=self._momentum,
                           epsilon=self._epsilon, data_format=fmt,
                           use_global_stats=self._use_global_stats)
        if self._act is not None:
            out = getattr(F, self._act)(out)
        return out

    def extra_repr(self):
        s = super().extra_repr()
        return s + (', act=%s' % self._act if self._act else '')


class LayerNorm(Layer):
    """Normalises over the trailing ``normalized_shape`` dims, then scales and
    shifts (weight ones, bias zeros; shape ``[prod(normalized_shape)]`` as Paddle).

    >>> import framework as paddle
    >>> ln = paddle.nn.LayerNorm([3])
    >>> [round(v, 3) for v in ln(paddle.to_tensor([[1.0, 2.0, 3.0]])).numpy()[0].tolist()]
    [-1.225, 0.0, 1.225]
    """

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None, *, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        check_device(device, 'LayerNorm')
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape = [int(s) for s in normalized_shape]
        self._epsilon = epsilon
        self._dtype = _layer_dtype(dtype)
        if not elementwise_affine:
            weight_attr = bias_attr = False
        elif not bias:
            bias_attr = False
        size = int(np.prod(self._normalized_shape))
        self.weight, self.bias = affine_parameters(self, [size], weight_attr, bias_attr)

    def forward(self, input):
        return F.layer_norm(input, normalized_shape=self._normalized_shape, weight=self.weight,
                            bias=self.bias, epsilon=self._epsilon)

    def extra_repr(self):
        return 'normalized_shape=%s, epsilon=%s' % (self._normalized_shape, self._epsilon)


class GroupNorm(Layer):
    """Normalises each of ``num_groups`` channel groups per sample."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format='NCHW', name=None, *, affine=True, device=None,
                 dtype=None):
        super().__init__()
        check_device(device, 'GroupNorm')
        if not affine:
            weight_attr = bias_attr = False
        if num_channels % num_groups:
            raise ValueError("GroupNorm: num_channels (%d) must be divisible by num_groups "
                             "(%d)" % (num_channels, num_groups))
        if data_format not in ('NCHW', 'NHWC', 'NCL', 'NLC', 'NCDHW', 'NDHWC'):
            raise ValueError("GroupNorm: unsupported data_format %r" % (data_format,))
        self._num_groups = int(num_groups)
        self._num_channels = int(num_channels)
        self._epsilon = epsilon
        self._data_format = data_format
        self._dtype = _layer_dtype(dtype)
        self.weight, self.bias = affine_parameters(self, [self._num_channels], weight_attr,
                                                   bias_attr)

    def forward(self, input):
        return F.group_norm(input, num_groups=self._num_groups, epsilon=self._epsilon,
                            weight=self.weight, bias=self.bias, data_format=self._data_format)

    def extra_repr(self):
        return 'num_groups=%d, num_channels=%d, epsilon=%s' % (
            self._num_groups, self._num_channels, self._epsilon)


class _InstanceNormBase(Layer):
    _formats = ()
    _ranks = ()

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format=None, name=None):
        super().__init__()
        data_format = data_format or self._formats[0]
        if data_format not in self._formats:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (type(self).__name__, self._formats, data_format))
        self._num_features = int(num_features)
        self._epsilon = epsilon
        self._momentum = momentum
        self._data_format = data_format
        self._dtype = _dt.get_default_dtype()
        if weight_attr is False or bias_attr is False:
            # as Paddle: no affine transform unless both are wanted
            self.scale, self.bias = None, None
        else:
            self.scale, self.bias = affine_parameters(self, [self._num_features], weight_attr,
                                                      bias_attr)

    def forward(self, input):
        if input.ndim not in self._ranks:
            raise ValueError("%s: expected a %s-D input, got shape %s"
                             % (type(self).__name__, ' or '.join(map(str, self._ranks)),
                                input.shape))
        return F.instance_norm(input, weight=self.scale, bias=self.bias, eps=self._epsilon,
                               momentum=self._momentum, data_format=self._data_format)

    def extra_repr(self):
        return 'num_features=%d, epsilon=%s' % (self._num_features, self._epsilon)


class InstanceNorm1D(_InstanceNormBase):
    _formats = ('NCL', 'NLC')
    _ranks = (3,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format='NCL', name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class InstanceNorm2D(_InstanceNormBase):
    """Normalises each channel of each sample over H, W."""
    _formats = ('NCHW', 'NHWC')
    _ranks = (4,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format='NCHW', name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class InstanceNorm3D(_InstanceNormBase):
    _formats = ('NCDHW', 'NDHWC')
    _ranks = (5,)

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format='NCDHW', name=None):
        super().__init__(num_features, epsilon, momentum, weight_attr, bias_attr, data_format,
                         name)


class LocalResponseNorm(Layer):
    def __init__(self, size, alpha=0.0001, beta=0.75, k=1.0, data_format='NCHW', name=None):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k
        self.data_format = data_format

    def forward(self, x):
        return F.local_response_norm(x, self.size, self.alpha, self.beta, self.k,
                                     self.data_format)

    def extra_repr(self):
        return 'size=%s, alpha=%s, beta=%s, k=%s' % (self.size, self.alpha, self.beta, self.k)


class SpectralNorm(Layer):
    """Spectral normalisation of a weight tensor given to ``forward``: the weight
    (as a ``[shape[dim], -1]`` matrix) divided by its largest singular value,
    estimated by ``power_iters`` power-iteration steps from the non-trainable
    ``weight_u`` / ``weight_v`` (which, as in Paddle's kernel, are not updated).

    >>> import framework as paddle
    >>> sn = paddle.nn.SpectralNorm([2, 3], power_iters=50)
    >>> w = paddle.to_tensor([[3.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    >>> [round(float(v), 4) for v in sn(w).numpy().ravel()[[0, 4]]]
    [1.0, 0.3333]
    """

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype='float32'):
        super().__init__()
        from ..initializer import Normal
        self._power_iters = power_iters
        self._eps = eps
        self._dim = dim
        self._dtype = dtype
        self._weight_shape = list(weight_shape)
        if int(np.prod(self._weight_shape)) <= 0:
            raise ValueError("SpectralNorm: no dimension of weight_shape may be 0, got %s"
                             % self._weight_shape)
        if not 0 <= dim < len(self._weight_shape):
            raise ValueError("SpectralNorm: dim must be in [0, %d), got %d"
                             % (len(self._weight_shape), dim))
        h = self._weight_shape[dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter([h], attr=ParamAttr(), dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], attr=ParamAttr(), dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        if list(x.shape) != self._weight_shape:
            raise ValueError("SpectralNorm: the weight has shape %s but the layer was built "
                             "for %s" % (list(x.shape), self._weight_shape))
        return spectral_normalize(x, self.weight_u, self.weight_v, self._dim,
                                  self._power_iters, self._eps)

    def extra_repr(self):
        return 'weight_shape=%s, dim=%d, power_iters=%d' % (self._weight_shape, self._dim,
                                                          self._power_iters)


def spectral_normalize(weight, u, v, dim, power_iters, eps):
    """``weight`` divided by its largest singular value as a ``[shape[dim],
    -1]`` matrix, estimated by ``power_iters`` power-iteration steps from
    ``u`` ``[shape[dim]]`` and ``v`` ``[rest]``. The iteration runs on copies
    without gradient (Paddle's kernel keeps U and V unchanged and treats them
    as constants), normalising by ``norm + eps`` as that kernel does."""
    from ...dygraph.state import no_grad
    nd = len(weight.shape)
    perm = [dim] + [d for d in range(nd) if d != dim]
    mat = _manip.reshape(_manip.transpose(weight, perm) if dim else weight,
                         [weight.shape[dim], -1])
    with no_grad():
        m = mat.detach()
        for _ in range(power_iters):
            v = _math.matmul(m, u, transpose_x=True)
            v = v / (_math.sqrt(_reduce.sum(v * v)) + eps)
            u = _math.matmul(m, v)
            u = u / (_math.sqrt(_reduce.sum(u * u)) + eps)
    sigma = _math.dot(u, _math.matmul(mat, v))
    return weight / sigma
