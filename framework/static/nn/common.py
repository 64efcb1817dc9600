"""The layer-building functions of Paddle's ``paddle.static.nn.common``, and
``py_func`` (Python code as an op of the program, see ``ops.py_func``).
Each builder creates its parameters in the main program (initializers in the
startup program) and appends the computation on the given Variables, with the
parameter shapes, default initializers and names (``conv2d_0.w_0``,
``batch_norm_0.w_1`` ...) of Paddle's old static mode -- the mode these
functions belong to (Paddle 3.3's PIR default refuses most of them; its
``FLAGS_enable_pir_api=0`` mode runs them).

The computations are the registered ops of ``nn.functional``, so programs
built here train (``append_backward``/optimizers) like any other.
"""
import numpy as np

from ...ops import creation as _creation, manipulation as _manip
from ...ops.detection.deform_conv import deform_conv2d as _deform_conv2d
from ...ops.modes import in_static_mode, is_static_var

__all__ = ['batch_norm', 'bilinear_tensor_product', 'conv2d', 'conv2d_transpose', 'conv3d',
           'conv3d_transpose', 'deform_conv2d', 'embedding', 'fc', 'group_norm', 'instance_norm',
           'layer_norm', 'prelu', 'py_func', 'row_conv', 'sparse_embedding', 'spectral_norm']


def _static_only(api):
    if not in_static_mode():
        raise RuntimeError(
            "static.nn.%s is only supported in static graph mode (call "
            "paddle.enable_static() first, or build inside a program_guard); in dynamic "
            "mode use the layers of paddle.nn" % api)


class _Params:
    """Parameters of one static.nn call, named as Paddle's LayerHelper names
    them: ``<api>_<n>.w_<i>`` for weights, ``<api>_<n>.b_<i>`` for biases."""

    def __init__(self, api):
        from ...nn.layer import unique_name
        self.prefix = unique_name(api)

    def make(self, shape, dtype, attr=None, is_bias=False, default_initializer=None):
        from ...nn.layer.layers import _create_parameter
        return _create_parameter(list(shape), dtype, attr, is_bias, default_initializer,
                                 self.prefix)


def _activate(out, act, api):
    if act is None:
        return out
    from ...nn import functional as F
    fn = getattr(F, act, None) if isinstance(act, str) else None
    if fn is None:
        raise ValueError("static.nn.%s: unknown activation %r" % (api, act))
    return fn(out)


def _as_list(v, n, api, what):
    if isinstance(v, (list, tuple)):
        if len(v) != n:
            raise ValueError("static.nn.%s: %s must be an int or %d ints, got %r"
                             % (api, what, n, v))
        return [int(a) for a in v]
    return [int(v)] * n


def _channels(x, nd, data_format, api):
    if len(x.shape) != nd + 2:
        raise ValueError("static.nn.%s: Input size should be %d, but received %d"
                         % (api, nd + 2, len(x.shape)))
    formats = ('NCHW', 'NHWC') if nd == 2 else ('NCDHW', 'NDHWC')
    if data_format not in formats:
        raise ValueError("static.nn.%s: Attr(data_format) should be %r or %r. Received "
                         "Attr(data_format): %s." % (api, formats[0], formats[1], data_format))
    c = x.shape[-1] if data_format[-1] == 'C' else x.shape[1]
    if c < 0:
        raise ValueError("static.nn.%s: the channel dimension of the input (%s) should be "
                         "defined" % (api, list(x.shape)))
    return c


def _groups(groups, channels, api):
    if groups is None:
        return 1
    if groups <= 0:
        raise ValueError("static.nn.%s: the groups of input must be greater than 0, but "
                         "received the groups of input is %s" % (api, groups))
    if channels % groups:
        raise ValueError("static.nn.%s: the channel of input must be divisible by groups, "
                         "received: the channel of input is %d, the groups is %d"
                         % (api, channels, groups))
    return int(groups)


def _conv(api, nd, input, num_filters, filter_size, stride, padding, dilation, groups,  # noqa
          param_attr, bias_attr, act, data_format):
    from ...nn import functional as F
    from ...nn.initializer import Normal
    _static_only(api)
    c = _channels(input, nd, data_format, api)
    if param_attr is False:
        raise ValueError("static.nn.%s: param_attr should not be False" % api)
    groups = _groups(groups, c, api)
    k = _as_list(filter_size, nd, api, 'filter_size')
    fan = int(np.prod(k)) * c
    params = _Params(api)
    # Paddle's default: N(0, sqrt(2 / fan_in)) over the whole input channels
    w = params.make([num_filters, c // groups] + k, str(input.dtype), param_attr,
                    default_initializer=Normal(0.0, (2.0 / fan) ** 0.5))
    b = params.make([num_filters], str(input.dtype), bias_attr, is_bias=True)
    conv = F.conv2d if nd == 2 else F.conv3d
    out = conv(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups,
               data_format=data_format)
    return _activate(out, act, api)


def _explicit_pads(padding, nd, data_format):
    """(before, after) per spatial axis of an explicit ``padding``; zeros for
    'SAME'/'VALID' (their filter size is not derived from output_size)."""
    if isinstance(padding, str):
        return [(0, 0)] * nd
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        spatial = padding[1:-1] if data_format[-1] == 'C' else padding[2:]
        return [tuple(int(v) for v in p) for p in spatial]
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * nd:
        return [(int(padding[2 * i]), int(padding[2 * i + 1])) for i in range(nd)]
    return [(p, p) for p in _as_list(padding, nd, 'conv_transpose', 'padding')]


def _conv_transpose(api, nd, input, num_filters, output_size, filter_size, padding,  # noqa
                    stride, dilation, groups, param_attr, bias_attr, act, data_format):
    from ...nn import functional as F
    _static_only(api)
    c = _channels(input, nd, data_format, api)
    groups = 1 if groups is None else _groups(groups, c, api)
    stride = _as_list(stride, nd, api, 'stride')
    dilation = _as_list(dilation, nd, api, 'dilation')
    if output_size is not None and not isinstance(output_size, (list, tuple)):
        output_size = [output_size] * nd
    if filter_size is None:
        if output_size is None:
            raise ValueError("static.nn.%s: output_size must be set when filter_size is None"
                             % api)
        spatial = list(input.shape[1:-1] if data_format[-1] == 'C' else input.shape[2:])
        pads = _explicit_pads(padding, nd, data_format)
        # the smallest filter whose transposed conv reaches output_size (Paddle's rule)
        k = [(int(o) - (i - 1) * s + p0 + p1 - 1) // d + 1
             for o, i, s, (p0, p1), d in zip(output_size, spatial, stride, pads, dilation)]
    else:
        k = _as_list(filter_size, nd, api, 'filter_size')
    params = _Params(api)
    w = params.make([c, num_filters // groups] + k, str(input.dtype), param_attr)
    b = params.make([num_filters], str(input.dtype), bias_attr, is_bias=True)
    conv = F.conv2d_transpose if nd == 2 else F.conv3d_transpose
    out = conv(input, w, b, stride=stride, padding=padding, dilation=dilation, groups=groups,
               output_size=output_size if filter_size is not None else None,
               data_format=data_format)
    return _activate(out, act, api)


def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,  # noqa
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format='NCHW'):
    """2-D convolution layer: filter ``[num_filters, C / groups, kh, kw]``
    (default N(0, sqrt(2 / (kh * kw * C)))), bias ``[num_filters]`` unless
    ``bias_attr=False``, then ``act``. ``use_cudnn`` has no effect on the CPU."""
    return _conv('conv2d', 2, input, num_filters, filter_size, stride, padding, dilation,
                 groups, param_attr, bias_attr, act, data_format)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,  # noqa
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format='NCDHW'):
    """3-D convolution layer (see ``conv2d``)."""
    return _conv('conv3d', 3, input, num_filters, filter_size, stride, padding, dilation,
                 groups, param_attr, bias_attr, act, data_format)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,  # noqa
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format='NCHW'):
    """2-D transposed convolution layer: filter ``[C, num_filters / groups, kh,
    kw]`` (Xavier by default). Without ``filter_size`` the filter is the
    smallest that maps the input to ``output_size``."""
    return _conv_transpose('conv2d_transpose', 2, input, num_filters, output_size, filter_size,
                           padding, stride, dilation, groups, param_attr, bias_attr, act,
                           data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,  # noqa
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format='NCDHW'):
    """3-D transposed convolution layer (see ``conv2d_transpose``)."""
    return _conv_transpose('conv3d_transpose', 3, input, num_filters, output_size, filter_size,
                           padding, stride, dilation, groups, param_attr, bias_attr, act,
                           data_format)


def deform_conv2d(x, offset, mask, num_filters, filter_size, stride=1, padding=0, dilation=1,
                  groups=1, deformable_groups=1, im2col_step=1, weight_attr=None, bias_attr=None,
                  name=None):
    """Deformable convolution layer (v2 with a ``mask``, v1 without; see
    ``vision.ops.deform_conv2d``): filter ``[num_filters, C / groups, kh,
    kw]`` (default N(0, sqrt(2 / (kh * kw * C)))) named ``deformable_conv_<n>``
    as Paddle names it, bias ``[num_filters]`` unless ``bias_attr=False``.
    ``im2col_step`` only batches Paddle's kernel; the result does not depend on it."""
    from ...nn.initializer import Normal
    api = 'deform_conv2d'
    _static_only(api)
    if len(x.shape) != 4:
        raise ValueError("static.nn.deform_conv2d: The input should be of [N, C, H, W] format, "
                         "but received %s" % list(x.shape))
    if weight_attr is False:
        raise ValueError("static.nn.deform_conv2d: weight_attr should not be False here.")
    if groups == 0:
        raise ValueError("static.nn.deform_conv2d: groups should not be 0.")
    c = x.shape[1]
    groups = _groups(groups, c, api)
    k = _as_list(filter_size, 2, api, 'filter_size')
    params = _Params('deformable_conv')
    w = params.make([num_filters, c // groups] + k, str(x.dtype), weight_attr,
                    default_initializer=Normal(0.0, (2.0 / (k[0] * k[1] * c)) ** 0.5))
    b = params.make([num_filters], str(x.dtype), bias_attr, is_bias=True)
    return _deform_conv2d(x, offset, w, b, stride=stride, padding=padding, dilation=dilation,
                          deformable_groups=deformable_groups, groups=groups, mask=mask)


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, data_layout='NCHW', in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalisation layer: scale (ones), bias (zeros) and the
    non-trainable moving mean (zeros) and variance (ones), which a training
    run (``is_test=False`` and not ``use_global_stats``) updates in place:
    ``moving = momentum * moving + (1 - momentum) * batch_stat``."""
    from ...nn import functional as F
    from ...nn.initializer import Constant
    from ...param_attr import ParamAttr
    api = 'batch_norm'
    _static_only(api)
    if bias_attr is False:
        raise ValueError("static.nn.batch_norm: bias_attr should not be False in batch_norm.")
    if not 2 <= len(input.shape) <= 5:
        raise ValueError("static.nn.batch_norm: expected 2D or 3D or 4D or 5D input (got %dD "
                         "input, input shape is: %s)" % (len(input.shape), list(input.shape)))
    if data_layout not in ('NCHW', 'NHWC'):
        raise ValueError("static.nn.batch_norm: unsupported data layout:" + str(data_layout))
    c = input.shape[1] if data_layout == 'NCHW' else input.shape[-1]
    dtype = 'float32' if np.dtype(input.dtype).name in ('float16', 'bfloat16') else input.dtype
    params = _Params(api)
    scale = params.make([c], dtype, param_attr, default_initializer=Constant(1.0))
    bias = params.make([c], dtype, bias_attr, is_bias=True)
    stats = []
    for stat_name, init in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
        attr = ParamAttr(name=stat_name, initializer=Constant(init), trainable=False,
                         do_model_average=do_model_average_for_mean_and_var)
        stat = params.make([c], dtype, attr)
        stat.stop_gradient = True
        stats.append(stat)
    global_stats = bool(is_test or use_global_stats)
    out = F.batch_norm(input, stats[0], stats[1], scale, bias, training=not global_stats,
                       momentum=momentum, epsilon=epsilon, data_format=data_layout,
                       use_global_stats=global_stats)
    return _activate(out, act, api)


def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05,  # noqa: A002
               param_attr=None, bias_attr=None, act=None, name=None):
    """Layer normalisation over the dims from ``begin_norm_axis`` on, with a
    scale (ones) and shift (zeros) of their flattened size."""
    from ...nn import functional as F
    from ...nn.initializer import Constant
    api = 'layer_norm'
    _static_only(api)
    shape = list(input.shape)
    if not 0 < begin_norm_axis < len(shape):
        raise ValueError("static.nn.layer_norm: begin_norm_axis must be in [1, %d), got %d"
                         % (len(shape), begin_norm_axis))
    normalized = shape[begin_norm_axis:]
    if any(d < 0 for d in normalized):
        raise ValueError("static.nn.layer_norm: the normalised dims %s must be known"
                         % normalized)
    size = [int(np.prod(normalized))]
    params = _Params(api)
    weight = bias = None
    if scale:
        if param_attr is False:
            raise ValueError("static.nn.layer_norm: param_attr should not be False when using "
                             "scale.")
        weight = _manip.reshape(params.make(size, str(input.dtype), param_attr,
                                            default_initializer=Constant(1.0)), normalized)
    if shift:
        if bias_attr is False:
            raise ValueError("static.nn.layer_norm: bias_attr should not be False when using "
                             "shift.")
        bias = _manip.reshape(params.make(size, str(input.dtype), bias_attr, is_bias=True),
                              normalized)
    out = F.layer_norm(input, normalized, weight, bias, epsilon)
    return _activate(out, act, api)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):  # noqa
    """Instance normalisation (each sample and channel over its spatial dims).
    As in Paddle, the scale (ones) and bias (zeros) exist only when both
    ``param_attr`` and ``bias_attr`` are given (truthy); by default there are none."""
    from ...nn import functional as F
    from ...nn.initializer import Constant
    api = 'instance_norm'
    _static_only(api)
    if param_attr is False and bias_attr is not False:
        raise ValueError("static.nn.instance_norm: param_attr and bias_attr must be set to "
                         "False at the same time in instance_norm")
    if not 2 <= len(input.shape) <= 5:
        raise ValueError("static.nn.instance_norm: expected 2D or 3D or 4D or 5D input (got "
                         "%dD input, input shape is: %s)" % (len(input.shape), list(input.shape)))
    weight = bias = None
    if param_attr and bias_attr:
        c = input.shape[1]
        params = _Params(api)
        weight = params.make([c], str(input.dtype), param_attr,
                             default_initializer=Constant(1.0))
        bias = params.make([c], str(input.dtype), bias_attr, is_bias=True)
    return F.instance_norm(input, weight=weight, bias=bias, eps=epsilon)


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,  # noqa
               data_layout='NCHW', name=None):
    """Group normalisation. As in Paddle, the scale (ones) exists only when
    ``param_attr`` is given (truthy) and the bias only when ``bias_attr`` is."""
    from ...nn import functional as F
    from ...nn.initializer import Constant
    api = 'group_norm'
    _static_only(api)
    if len(input.shape) < 2:
        raise ValueError("static.nn.group_norm: The dimensions of Op(static.nn.group_norm)'s "
                         "input should be more than 1. But received %d" % len(input.shape))
    if data_layout not in ('NCHW', 'NHWC'):
        raise ValueError("static.nn.group_norm: Param(data_layout) of Op(static.nn.group_norm) "
                         "got wrong value: received %s but only NCHW or NHWC supported."
                         % data_layout)
    c = input.shape[1] if data_layout == 'NCHW' else input.shape[-1]
    params = _Params(api)
    weight = bias = None
    if param_attr:
        weight = params.make([c], str(input.dtype), param_attr,
                             default_initializer=Constant(1.0))
    if bias_attr:
        bias = params.make([c], str(input.dtype), bias_attr, is_bias=True)
    out = F.group_norm(input, groups, epsilon, weight, bias, data_format=data_layout)
    return _activate(out, act, api)


def prelu(x, mode, param_attr=None, data_format='NCHW', name=None):
    """Parametric relu with one slope (``mode='all'``), one per channel
    (``'channel'``) or one per element of a sample (``'element'``), all 0.25
    at first."""
    from ...nn import functional as F
    from ...nn.initializer import Constant
    api = 'prelu'
    _static_only(api)
    if mode not in ('all', 'channel', 'element'):
        raise ValueError('static.nn.prelu: mode should be one of all, channel, element.')
    formats = ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC')
    if data_format not in formats:
        raise ValueError("static.nn.prelu: data_format must be one of %s but receive %s"
                         % (', '.join(repr(f) for f in formats), data_format))
    channel_last = data_format[1] != 'C'
    shape = list(x.shape)
    if mode == 'all':
        alpha_shape = [1]
    elif mode == 'channel':
        if len(shape) < 2:
            raise ValueError("static.nn.prelu: the input must have at least 2 dims in mode "
                             "'channel', got %s" % shape)
        alpha_shape = [1, 1, 1, shape[-1]] if channel_last else [1, shape[1], 1, 1]
    else:
        alpha_shape = [1] + shape[1:]
    alpha = _Params(api).make(alpha_shape, str(x.dtype), param_attr,
                              default_initializer=Constant(0.25))
    if mode == 'element':
        return _manip.where(x > 0, x, alpha * x)
    return F.prelu(x, _manip.reshape(alpha, [-1]),
                   data_format='NHWC' if channel_last else 'NCHW')


def _embedding_table(api, size, padding_idx, param_attr, dtype):
    if len(size) != 2:
        raise ValueError("static.nn.%s: size must be [vocab_size, emb_size], got %r"
                         % (api, size))
    vocab = int(size[0])
    if padding_idx is None:
        padding_idx = -1
    elif not -vocab <= padding_idx < vocab:
        raise ValueError("static.nn.%s: padding_idx must be within [-%d, %d), got %d"
                         % (api, vocab, vocab, padding_idx))
    elif padding_idx < 0:
        padding_idx += vocab
    table = _Params(api).make([vocab, int(size[1])], dtype, param_attr)
    return table, padding_idx


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,  # noqa
              param_attr=None, dtype='float32'):
    """Lookup table ``[size[0], size[1]]`` (Xavier by default): the rows of
    the integer ids ``input`` (output ``input.shape + [size[1]]``); rows of
    ``padding_idx`` read as zeros and get no gradient. ``is_sparse`` and
    ``is_distributed`` choose gradient storage / table sharding, which a
    single CPU process does not need."""
    from ...nn import functional as F
    _static_only('embedding')
    table, pad = _embedding_table('embedding', size, padding_idx, param_attr, dtype)
    return F.embedding(input, table, padding_idx=pad if pad >= 0 else None)


def sparse_embedding(input, size, padding_idx=None, is_test=False, entry=None,  # noqa: A002
                     table_class='MemorySparseTable', param_attr=None, dtype='float32',
                     slot=None):
    """The parameter-server lookup table: ids ``[..., 1]`` give rows
    ``[..., size[1]]``. With one process the table is local (as the
    ``MemorySparseTable`` of a single-trainer run), so this is ``embedding``
    with Paddle's ``[..., 1]`` id shape."""
    from ...nn import functional as F
    api = 'sparse_embedding'
    _static_only(api)
    if table_class not in ('MemorySparseTable', 'SSDSparseTable'):
        raise ValueError("static.nn.sparse_embedding: table_class must be "
                         "'MemorySparseTable' or 'SSDSparseTable', got %r" % (table_class,))
    if not input.shape or input.shape[-1] != 1:
        raise ValueError("static.nn.sparse_embedding: The last dimensions of the 'Ids' tensor "
                         "must be 1. But received Ids's shape = %s" % list(input.shape))
    table, pad = _embedding_table(api, size, padding_idx, param_attr, dtype)
    ids = _manip.squeeze(input, [-1])
    return F.embedding(ids, table, padding_idx=pad if pad >= 0 else None)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """``out[n, k] = x[n] W[k] y[n]^T + b[k]`` with ``W`` ``[size, Dx, Dy]``
    (Xavier by default) and ``b`` ``[1, size]`` unless ``bias_attr=False``."""
    from ...nn import functional as F
    api = 'bilinear_tensor_product'
    _static_only(api)
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ValueError("static.nn.bilinear_tensor_product: Input x and y should be 2D "
                         "tensor, but received x with the shape of %s, y with the shape of %s"
                         % (list(x.shape), list(y.shape)))
    params = _Params(api)
    w = params.make([size, x.shape[1], y.shape[1]], str(x.dtype), param_attr)
    b = params.make([1, size], str(x.dtype), bias_attr, is_bias=True)
    return _activate(F.bilinear(x, y, w, b), act, api)


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """``weight`` divided by its largest singular value (as a ``[shape[dim],
    -1]`` matrix), estimated by ``power_iters`` power iterations from the
    non-trainable N(0, 1) vectors ``weight_u`` / ``weight_v`` (created here;
    as in Paddle's kernel they are not updated)."""
    from ...nn.initializer import Normal
    from ...nn.layer.norm import spectral_normalize
    shape = list(weight.shape)
    if not 0 <= dim < len(shape):
        raise ValueError("static.nn.spectral_norm: dim must be in [0, %d), got %d"
                         % (len(shape), dim))
    if any(d <= 0 for d in shape):
        raise ValueError("static.nn.spectral_norm: the weight's shape %s must be known and "
                         "positive" % shape)
    h = shape[dim]
    params = _Params('spectral_norm')
    vectors = []
    for n in (h, int(np.prod(shape)) // h):
        v = params.make([n], str(weight.dtype), None, default_initializer=Normal(0.0, 1.0))
        v.stop_gradient = True
        vectors.append(v)
    return spectral_normalize(weight, vectors[0], vectors[1], dim, power_iters, eps)


def row_conv(input, future_context_size, param_attr=None, act=None):  # noqa: A002
    """Lookahead (row) convolution over time: ``out[t] = sum_{i=0..k} x[t + i]
    * w[i]`` (elementwise per feature, ``k = future_context_size``, steps past
    the end read as zero) for ``input`` ``[batch, time, D]`` or one sequence
    ``[time, D]``; filter ``[k + 1, D]`` (Xavier by default)."""
    api = 'row_conv'
    _static_only(api)
    if len(input.shape) not in (2, 3):
        raise ValueError("static.nn.row_conv: input must be [time, D] or [batch, time, D], "
                         "got shape %s" % list(input.shape))
    k = int(future_context_size)
    w = _Params(api).make([k + 1, input.shape[-1]], str(input.dtype), param_attr)
    x = input if len(input.shape) == 3 else _manip.unsqueeze(input, 0)
    out = x * w[0]
    for i in range(1, k + 1):
        # x shifted i steps back in time; a slice past the end is empty, so the
        # zeros then fill all of it
        shifted = _manip.concat([x[:, i:], _creation.zeros_like(x[:, :i])], axis=1)
        out = out + shifted * w[i]
    out = out if len(input.shape) == 3 else _manip.squeeze(out, [0])
    return _activate(out, act, api)


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer on a static Variable: ``act(x @ W + b)`` with the
    parameters in the main program and their initializers in the startup one.
    ``num_flatten_dims`` leading dims are kept; the rest are flattened. A list
    of inputs gets a weight each; their products are summed before the bias
    (``weight_attr`` may then be a list, one per input)."""
    from ...nn import functional as F
    from ...ops import manipulation as M, math as X
    from .. import create_parameter
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    attrs = list(weight_attr) if isinstance(weight_attr, (list, tuple)) else \
        [weight_attr] * len(xs)
    if len(attrs) != len(xs):
        raise ValueError("static.nn.fc: %d weight_attr for %d inputs" % (len(attrs), len(xs)))
    out = None
    for v, attr in zip(xs, attrs):
        in_dim = int(np.prod(v.shape[num_flatten_dims:]))
        if in_dim <= 0:
            raise ValueError("static.nn.fc: the dims after num_flatten_dims=%d must be known, "
                             "got shape %s" % (num_flatten_dims, v.shape))
        if len(v.shape) != num_flatten_dims + 1:
            v = M.reshape(v, [0] * num_flatten_dims + [in_dim])
        w = create_parameter([in_dim, size], str(v.dtype), attr=attr)
        out = X.matmul(v, w) if out is None else out + X.matmul(v, w)
    x = xs[0]
    if bias_attr is not False:
        out = out + create_parameter([size], str(x.dtype), attr=bias_attr, is_bias=True)
    if activation is None:
        return out
    fn = getattr(F, activation, None)
    if fn is None:
        raise ValueError("static.nn.fc: unknown activation %r" % activation)
    return fn(out)


# ---- py_func ---------------------------------------------------------------------------

def _as_var_list(v, what):
    if v is None:
        return []
    vs = list(v) if isinstance(v, (list, tuple)) else [v]
    for x in vs:
        if not is_static_var(x):
            raise TypeError("static.nn.py_func: %s must be Variables, got %s"
                            % (what, type(x).__name__))
    return vs


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Run ``func`` (numpy arrays in, arrays out) as an op of the program.

    ``out`` are Variables the caller created with the outputs' shapes and
    dtypes (``block.create_var``); ``func``'s results are written into them.
    ``backward_func`` receives the inputs, outputs and output gradients (less
    ``skip_vars_in_backward_input``) and returns one gradient per input.
    Returns ``out``.
    """
    from ...ops.py_func import py_func_op, register_py_func
    _static_only('py_func')
    if not callable(func):
        raise TypeError("static.nn.py_func: func must be a Python function, got %r" % (func,))
    if backward_func is not None and not callable(backward_func):
        raise TypeError("static.nn.py_func: backward_func must be callable, got %r"
                        % (backward_func,))
    xs = _as_var_list(x, 'x')
    outs = _as_var_list(out, 'out')
    skip = {v.name for v in _as_var_list(skip_vars_in_backward_input,
                                          'skip_vars_in_backward_input')}
    known = {v.name for v in xs + outs}
    if skip - known:
        raise ValueError("static.nn.py_func: skip_vars_in_backward_input %s are neither in x "
                         "nor in out" % sorted(skip - known))
    keep = tuple(v.name not in skip for v in xs + outs)
    backward_id = register_py_func(backward_func) if backward_func is not None else -1
    results = py_func_op(xs, register_py_func(func), tuple(tuple(o.shape) for o in outs),
                         tuple(str(np.dtype(o.dtype)) for o in outs), backward_id, keep)
    block = outs[0].block if outs else None
    for r, o in zip(results, outs):
        block._rename_output(r, o)
        if backward_func is None:
            o.stop_gradient = True
    return out
