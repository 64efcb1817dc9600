"""Common layers: Linear, Embedding, Dropout, Flatten, Identity, padding, upsampling."""
from ... import dtype as _dt
from ...dygraph.state import no_grad
from ...ops import manipulation as _manip, math as _math, reduce as _reduce
from ...ops.modes import in_static_mode
from .. import functional as F
from .layers import Layer
from ._utils import check_device

__all__ = ['Linear', 'Bilinear', 'Embedding', 'Dropout', 'Dropout2D', 'Dropout3D',
           'AlphaDropout', 'FeatureAlphaDropout', 'Flatten', 'Unflatten', 'Identity', 'Pad1D',
           'Pad2D', 'Pad3D', 'ZeroPad1D', 'ZeroPad2D', 'ZeroPad3D', 'ConstantPad1D',
           'ConstantPad2D', 'ConstantPad3D', 'ReflectionPad1D', 'ReflectionPad2D',
           'ReflectionPad3D', 'ReplicationPad1D', 'ReplicationPad2D', 'ReplicationPad3D',
           'CircularPad1D', 'CircularPad2D', 'CircularPad3D', 'Upsample',
           'UpsamplingNearest2D', 'UpsamplingBilinear2D',
           'CosineSimilarity', 'Unfold', 'Fold']


class Linear(Layer):
    """``y = x @ W + b`` with ``W`` of shape ``[in_features, out_features]``.

    Defaults as Paddle: Xavier-uniform weight, zero bias; ``bias_attr=False``
    drops the bias.

    >>> import framework as paddle
    >>> fc = paddle.nn.Linear(4, 2)
    >>> fc
    Linear(in_features=4, out_features=2, dtype=float32)
    >>> fc(paddle.ones([3, 4])).shape
    paddle.Size([3, 2])
    """

    def __init__(self, in_features, out_features, weight_attr=None, bias_attr=None, name=None):
        super().__init__()
        self._dtype = _dt.get_default_dtype()
        self._in_features = int(in_features)
        self._out_features = int(out_features)
        self.weight = self.create_parameter([self._in_features, self._out_features],
                                            attr=weight_attr, dtype=self._dtype)
        self.bias = self.create_parameter([self._out_features], attr=bias_attr,
                                          dtype=self._dtype, is_bias=True)
        self.name = name

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        name = ', name=%s' % self.name if self.name else ''
        return 'in_features=%d, out_features=%d, dtype=%s%s' % (
            self.weight.shape[0], self.weight.shape[1], self._dtype, name)


class Bilinear(Layer):
    """``out[:, k] = x1 @ W[k] @ x2^T + b[k]`` with ``W`` of shape
    ``[out_features, in1_features, in2_features]``."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None):
        super().__init__()
        self._dtype = _dt.get_default_dtype()
        self._in1, self._in2, self._out = int(in1_features), int(in2_features), int(out_features)
        self.weight = self.create_parameter([self._out, self._in1, self._in2],
                                            attr=weight_attr, dtype=self._dtype)
        self.bias = self.create_parameter([1, self._out], attr=bias_attr, dtype=self._dtype,
                                          is_bias=True)

    def forward(self, x1, x2):
        # [out, N, in2] = x1 [N, in1] @ W [out, in1, in2], then contract with x2
        t = _math.matmul(x1, self.weight)
        out = _manip.transpose(_reduce.sum(t * x2, axis=-1), [1, 0])
        return out if self.bias is None else out + self.bias

    def extra_repr(self):
        return 'in1_features=%d, in2_features=%d, out_features=%d, dtype=%s' % (
            self._in1, self._in2, self._out, self._dtype)


class Embedding(Layer):
    """Lookup table ``weight[x]`` with ``weight`` of shape
    ``[num_embeddings, embedding_dim]`` (Xavier-uniform init; the
    ``padding_idx`` row starts at zero and gets no gradient).

    ``max_norm`` / ``norm_type`` / ``scale_grad_by_freq`` / ``sparse`` are
    ``F.embedding``'s; ``_weight`` uses the given tensor as the table
    (``_freeze=True`` then keeps it fixed); ``dtype`` is the table's dtype.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, *, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None, weight_attr=None, name=None):
        super().__init__()
        check_device(device, 'Embedding')
        self._num_embeddings = int(num_embeddings)
        self._embedding_dim = int(embedding_dim)
        if self._num_embeddings <= 0 or self._embedding_dim <= 0:
            raise ValueError("Embedding: num_embeddings and embedding_dim must be positive, "
                             "got %d and %d" % (self._num_embeddings, self._embedding_dim))
        if padding_idx is not None:
            if not -self._num_embeddings <= padding_idx < self._num_embeddings:
                raise ValueError("Embedding: padding_idx must be in [-%d, %d), got %d"
                                 % (self._num_embeddings, self._num_embeddings, padding_idx))
            padding_idx = padding_idx % self._num_embeddings
        self._padding_idx = padding_idx
        self._max_norm = max_norm
        self._norm_type = norm_type
        self._scale_grad_by_freq = bool(scale_grad_by_freq)
        self._sparse = sparse
        self._dtype = str(_dt.convert_dtype(dtype)) if dtype is not None else \
            _dt.get_default_dtype()
        if _weight is not None:
            if list(_weight.shape) != [self._num_embeddings, self._embedding_dim]:
                raise ValueError("Embedding: _weight has shape %s, expected %s"
                                 % (list(_weight.shape),
                                    [self._num_embeddings, self._embedding_dim]))
            self.weight = _weight
            self.weight.stop_gradient = bool(_freeze)
        else:
            self.weight = self.create_parameter([self._num_embeddings, self._embedding_dim],
                                                attr=weight_attr, dtype=self._dtype)
            if weight_attr is None:
                self.weight.stop_gradient = bool(_freeze)
        if padding_idx is not None and not in_static_mode():   # as Paddle: eager only
            with no_grad():
                self.weight[padding_idx] = 0.0
        self._name = name

    def forward(self, x):
        return F.embedding(x, self.weight, padding_idx=self._padding_idx,
                           max_norm=self._max_norm, norm_type=self._norm_type,
                           sparse=self._sparse, scale_grad_by_freq=self._scale_grad_by_freq)

    def extra_repr(self):
        s = '%d, %d' % (self._num_embeddings, self._embedding_dim)
        if self._padding_idx is not None:
            s += ', padding_idx=%d' % self._padding_idx
        if self._max_norm is not None:
            s += ', max_norm=%s' % self._max_norm
        if self._sparse:
            s += ', sparse=True'
        if self._scale_grad_by_freq:
            s += ', scale_grad_by_freq=True'
        return s


class Dropout(Layer):
    """Zeroes elements with probability ``p`` while training; identity in eval."""

    def __init__(self, p=0.5, inplace=False, axis=None, mode='upscale_in_train', name=None):
        super().__init__()
        _check_p(p, 'Dropout')
        if mode not in ('upscale_in_train', 'downscale_in_infer'):
            raise ValueError("Dropout: mode must be 'upscale_in_train' or "
                             "'downscale_in_infer', got %r" % (mode,))
        self.p = p
        self.inplace = bool(inplace)
        self.axis = axis
        self.mode = mode
        self.name = name

    def forward(self, input):
        return F.dropout(input, p=self.p, axis=self.axis, training=self.training,
                         inplace=self.inplace, mode=self.mode)

    def extra_repr(self):
        name = ', name=%s' % self.name if self.name else ''
        return 'p=%s, axis=%s, mode=%s%s, inplace=%s' % (self.p, self.axis, self.mode, name,
                                                         self.inplace)


def _check_p(p, what):
    if not isinstance(p, (int, float)) or not 0 <= p <= 1:
        raise ValueError("%s: p must be a number in [0, 1], got %r" % (what, p))


class _ChannelDropout(Layer):
    """Drops whole channels: dropout whose mask is shared over spatial dims."""
    _formats = ()

    def __init__(self, p=0.5, data_format=None, name=None):
        super().__init__()
        _check_p(p, type(self).__name__)
        data_format = data_format or self._formats[0]
        if data_format not in self._formats:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (type(self).__name__, self._formats, data_format))
        self.p = p
        self.data_format = data_format

    def forward(self, input):
        if input.ndim != len(self.data_format):
            raise ValueError("%s: expected a %d-D input (%s), got shape %s"
                             % (type(self).__name__, len(self.data_format), self.data_format,
                                input.shape))
        axis = [0, 1] if self.data_format[1] == 'C' else [0, input.ndim - 1]
        return F.dropout(input, p=self.p, axis=axis, training=self.training)

    def extra_repr(self):
        return 'p=%s, data_format=%s' % (self.p, self.data_format)


class Dropout2D(_ChannelDropout):
    _formats = ('NCHW', 'NHWC')

    def __init__(self, p=0.5, data_format='NCHW', name=None):
        super().__init__(p, data_format, name)


class Dropout3D(_ChannelDropout):
    _formats = ('NCDHW', 'NDHWC')

    def __init__(self, p=0.5, data_format='NCDHW', name=None):
        super().__init__(p, data_format, name)


class AlphaDropout(Layer):
    """Dropout that keeps the self-normalising statistics of SELU networks."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        _check_p(p, 'AlphaDropout')
        self.p = p

    def forward(self, input):
        return F.alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        return 'p=%s' % self.p


class FeatureAlphaDropout(Layer):
    """Alpha dropout of whole channels while training (see
    ``F.feature_alpha_dropout``); the identity in eval mode."""

    def __init__(self, p=0.5, name=None):
        super().__init__()
        self.p = p
        self.name = name

    def forward(self, input):
        return F.feature_alpha_dropout(input, p=self.p, training=self.training)

    def extra_repr(self):
        return 'p=%s%s' % (self.p, ', name=%s' % self.name if self.name else '')


class Flatten(Layer):
    """Flattens dims ``start_axis..stop_axis`` into one."""

    def __init__(self, start_axis=1, stop_axis=-1):
        super().__init__()
        self.start_axis = start_axis
        self.stop_axis = stop_axis

    def forward(self, input):
        return _manip.flatten(input, start_axis=self.start_axis, stop_axis=self.stop_axis)

    def extra_repr(self):
        return 'start_axis=%d, stop_axis=%d' % (self.start_axis, self.stop_axis)


class Unflatten(Layer):
    """Splits dim ``axis`` into ``shape``."""

    def __init__(self, axis, shape, name=None):
        super().__init__()
        self.axis = axis
        self.shape = list(shape)

    def forward(self, input):
        axis = self.axis % input.ndim
        shape = list(input.shape)
        return _manip.reshape(input, shape[:axis] + self.shape + shape[axis + 1:])

    def extra_repr(self):
        return 'axis=%d, shape=%s' % (self.axis, self.shape)


class Identity(Layer):
    """Returns its input; accepts (and ignores) any constructor arguments."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class _PadNd(Layer):
    _n = 0
    _formats = ()

    def __init__(self, padding, mode='constant', value=0.0, data_format=None, name=None):
        super().__init__()
        if mode not in ('constant', 'reflect', 'replicate', 'circular'):
            raise ValueError("%s: mode must be 'constant', 'reflect', 'replicate' or "
                             "'circular', got %r" % (type(self).__name__, mode))
        data_format = data_format or self._formats[0]
        if data_format not in self._formats:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (type(self).__name__, self._formats, data_format))
        if isinstance(padding, int):
            padding = [padding] * (2 * self._n)
        elif hasattr(padding, 'tolist') and not isinstance(padding, (list, tuple)):
            padding = padding.tolist()
        padding = [int(p) for p in padding]
        if len(padding) != 2 * self._n:
            raise ValueError("%s: padding must be an int or %d ints, got %s"
                             % (type(self).__name__, 2 * self._n, padding))
        self._pad = padding
        self._mode = mode
        self._value = value
        self._data_format = data_format

    def forward(self, x):
        return F.pad(x, pad=self._pad, mode=self._mode, value=self._value,
                     data_format=self._data_format)

    def extra_repr(self):
        return 'padding=%s, mode=%s, value=%s, data_format=%s' % (
            self._pad, self._mode, self._value, self._data_format)


class Pad1D(_PadNd):
    """Pads the last dim by ``[left, right]``."""
    _n = 1
    _formats = ('NCL', 'NLC')

    def __init__(self, padding, mode='constant', value=0.0, data_format='NCL', name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadNd):
    """Pads H and W by ``[left, right, top, bottom]``."""
    _n = 2
    _formats = ('NCHW', 'NHWC')

    def __init__(self, padding, mode='constant', value=0.0, data_format='NCHW', name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadNd):
    """Pads D, H and W by ``[left, right, top, bottom, front, back]``."""
    _n = 3
    _formats = ('NCDHW', 'NDHWC')

    def __init__(self, padding, mode='constant', value=0.0, data_format='NCDHW', name=None):
        super().__init__(padding, mode, value, data_format, name)


class ZeroPad1D(Pad1D):
    """Pads with zeros (see ``Pad1D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCL', name=None):
        super().__init__(padding, 'constant', 0.0, data_format, name)


class ZeroPad2D(Pad2D):
    """Pads with zeros (see ``Pad2D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCHW', name=None):
        super().__init__(padding, 'constant', 0.0, data_format, name)


class ZeroPad3D(Pad3D):
    """Pads with zeros (see ``Pad3D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCDHW', name=None):
        super().__init__(padding, 'constant', 0.0, data_format, name)


class ConstantPad1D(Pad1D):
    """Pads with the constant ``value`` (see ``Pad1D`` for ``padding``)."""

    def __init__(self, padding, value, data_format='NCL', name=None):
        super().__init__(padding, 'constant', value, data_format, name)


class ConstantPad2D(Pad2D):
    """Pads with the constant ``value`` (see ``Pad2D`` for ``padding``)."""

    def __init__(self, padding, value, data_format='NCHW', name=None):
        super().__init__(padding, 'constant', value, data_format, name)


class ConstantPad3D(Pad3D):
    """Pads with the constant ``value`` (see ``Pad3D`` for ``padding``)."""

    def __init__(self, padding, value, data_format='NCDHW', name=None):
        super().__init__(padding, 'constant', value, data_format, name)


class ReflectionPad1D(Pad1D):
    """Pads with reflection of the input at its borders (see ``Pad1D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCL', name=None):
        super().__init__(padding, 'reflect', 0.0, data_format, name)


class ReflectionPad2D(Pad2D):
    """Pads with reflection of the input at its borders (see ``Pad2D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCHW', name=None):
        super().__init__(padding, 'reflect', 0.0, data_format, name)


class ReflectionPad3D(Pad3D):
    """Pads with reflection of the input at its borders (see ``Pad3D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCDHW', name=None):
        super().__init__(padding, 'reflect', 0.0, data_format, name)


class ReplicationPad1D(Pad1D):
    """Pads with copies of the input's border values (see ``Pad1D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCL', name=None):
        super().__init__(padding, 'replicate', 0.0, data_format, name)


class ReplicationPad2D(Pad2D):
    """Pads with copies of the input's border values (see ``Pad2D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCHW', name=None):
        super().__init__(padding, 'replicate', 0.0, data_format, name)


class ReplicationPad3D(Pad3D):
    """Pads with copies of the input's border values (see ``Pad3D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCDHW', name=None):
        super().__init__(padding, 'replicate', 0.0, data_format, name)


class CircularPad1D(Pad1D):
    """Pads with the input wrapped around (periodic) (see ``Pad1D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCL', name=None):
        super().__init__(padding, 'circular', 0.0, data_format, name)


class CircularPad2D(Pad2D):
    """Pads with the input wrapped around (periodic) (see ``Pad2D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCHW', name=None):
        super().__init__(padding, 'circular', 0.0, data_format, name)


class CircularPad3D(Pad3D):
    """Pads with the input wrapped around (periodic) (see ``Pad3D`` for ``padding``)."""

    def __init__(self, padding, data_format='NCDHW', name=None):
        super().__init__(padding, 'circular', 0.0, data_format, name)


class Upsample(Layer):
    """Resizes by ``size`` or ``scale_factor`` with ``F.interpolate``."""

    def __init__(self, size=None, scale_factor=None, mode='nearest', align_corners=False,
                 align_mode=0, data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError("%s: give exactly one of size and scale_factor"
                             % type(self).__name__)
        self.size = size
        self.scale_factor = scale_factor
        self.mode = mode.lower()
        self.align_corners = align_corners
        self.align_mode = align_mode
        self.data_format = data_format
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, x):
        return F.interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                             align_corners=self.align_corners, align_mode=self.align_mode,
                             data_format=self.data_format,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        what = ('scale_factor=%s' % (self.scale_factor,) if self.scale_factor is not None
                else 'size=%s' % (self.size,))
        return '%s, mode=%s, align_corners=%s, align_mode=%s, data_format=%s' % (
            what, self.mode, self.align_corners, self.align_mode, self.data_format)


class UpsamplingNearest2D(Upsample):
    def __init__(self, size=None, scale_factor=None, data_format='NCHW', name=None):
        super().__init__(size, scale_factor, 'nearest', False, 0, data_format)


class UpsamplingBilinear2D(Upsample):
    """Bilinear upsampling with ``align_corners=True`` (as Paddle)."""

    def __init__(self, size=None, scale_factor=None, data_format='NCHW', name=None):
        super().__init__(size, scale_factor, 'bilinear', True, 0, data_format)


class CosineSimilarity(Layer):
    def __init__(self, axis=1, eps=1e-8):
        super().__init__()
        self._axis = axis
        self._eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, axis=self._axis, eps=self._eps)

    def extra_repr(self):
        return 'axis=%d, eps=%s' % (self._axis, self._eps)


class Unfold(Layer):
    """``F.unfold`` as a layer: sliding blocks of ``[N, C, H, W]`` as columns.

    >>> import framework as paddle
    >>> paddle.nn.Unfold([2, 2])(paddle.ones([1, 3, 4, 4])).shape
    paddle.Size([1, 12, 9])
    """

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes = kernel_sizes
        self.dilations = dilations
        self.paddings = paddings
        self.strides = strides

    def forward(self, input):
        return F.unfold(input, kernel_sizes=self.kernel_sizes, strides=self.strides,
                        paddings=self.paddings, dilations=self.dilations)

    def extra_repr(self):
        return 'kernel_size=%s, dilation=%s, padding=%s, stride=%s' % (
            self.kernel_sizes, self.dilations, self.paddings, self.strides)


class Fold(Layer):
    """``F.fold`` as a layer: columns summed back into ``[N, C, *output_sizes]``."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__()
        self.output_sizes = output_sizes
        self.kernel_sizes = kernel_sizes
        self.dilations = dilations
        self.paddings = paddings
        self.strides = strides

    def forward(self, input):
        return F.fold(input, self.output_sizes, self.kernel_sizes, strides=self.strides,
                      paddings=self.paddings, dilations=self.dilations)

    def extra_repr(self):
        return 'output_sizes=%s, kernel_size=%s, dilation=%s, padding=%s, stride=%s' % (
            self.output_sizes, self.kernel_sizes, self.dilations, self.paddings, self.strides)
