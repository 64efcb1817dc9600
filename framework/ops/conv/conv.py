"""Convolution ops: conv, transposed conv and filter gradient, all bilinear.

Three primitive ops cover every derivative order. With ``F(x, w)`` the conv,
``T(y, w)`` its adjoint in x (the transposed conv) and ``Fw(x, y)`` its adjoint
in w (the filter gradient)::

    d F(x, w)   = T(g, w)   dx,  Fw(x, g)    dw
    d T(y, w)   = F(g, w)   dy,  Fw(g, y)    dw
    d Fw(x, y)  = T(y, g)   dx,  F(x, g)     dy

so each op's grad rule is written with the other two and grad-of-grad works
in both modes. Each op also has a fused numpy fast grad that calls the conv
algorithms directly (``algorithms.py``; the algorithm per call comes from
``search.py``: heuristic, or exhaustive timing under
``FLAGS_cudnn_exhaustive_search``).

Bias is fused into ``conv``/``conv_transpose`` as an optional input (an in-place
add on the fresh output: no extra temporary); its gradient is ``conv_bias_grad``
(a sum over every axis but the channel), whose own grad is ``conv_bias_expand``.

The ops are rank-generic: ``data_format`` ('NCL', 'NLC', 'NCHW', 'NHWC') fixes
the spatial rank, and 1-D convs run as 2-D ones with H == 1 (views, no copies).
"""
import numpy as np


from ... import dtype as _dt
from ...backends import Opaque, onednn
from ...backends.onednn import conv as dnnl_conv
from ...backends.onednn import layout as dnnl_layout
from .. import lib, meta
from ..grad_utils import is_value, wants
from ..lowp import float32_compute
from ..properties import numel, per_sample
from ..registry import Meta, OpError, add_test_case, def_op
from . import algorithms as algos
from . import depth
from . import params as P
from . import reference as ref
from .search import convolve

# ---- validation shared by infer_meta, kernels and wrappers -----------------


def check_conv_shapes(api, xshape, wshape, groups, data_format, transpose=False):
    """Raise a clear OpError for mismatched channels/ranks (-1 dims skip checks)."""
    nd = P.SPATIAL_RANK[data_format]
    xshape, wshape = list(xshape), list(wshape)
    if len(xshape) != nd + 2:
        raise OpError("%s: input x must be %d-D (%s), got shape %s"
                      % (api, nd + 2, data_format, xshape))
    if len(wshape) != nd + 2:
        raise OpError("%s: weight must be %d-D, got shape %s" % (api, nd + 2, wshape))
    if not isinstance(groups, int) or groups < 1:
        raise OpError("%s: groups must be a positive int, got %r" % (api, groups))
    c = P.channels_of(xshape, data_format)
    if transpose:
        if c >= 0 and wshape[0] >= 0 and c != wshape[0]:
            raise OpError("%s: the input has %d channels (x shape %s, data_format %s) but "
                          "weight shape %s expects weight.shape[0] = %d input channels "
                          "(groups=%d)" % (api, c, xshape, data_format, wshape, wshape[0], groups))
        if c >= 0 and c % groups:
            raise OpError("%s: input channels %d (x shape %s) must be divisible by groups=%d"
                          % (api, c, xshape, groups))
        return
    if c >= 0 and wshape[1] >= 0 and c != wshape[1] * groups:
        raise OpError("%s: the input has %d channels (x shape %s, data_format %s) but "
                      "weight shape %s with groups=%d expects %d input channels "
                      "(weight.shape[1] * groups)"
                      % (api, c, xshape, data_format, wshape, groups, wshape[1] * groups))
    if wshape[0] >= 0 and wshape[0] % groups:
        raise OpError("%s: the number of filters weight.shape[0] = %d (weight shape %s) must "
                      "be divisible by groups=%d" % (api, wshape[0], wshape, groups))


def _out_shape(n, c, spatial, data_format):
    return [n] + list(spatial) + [c] if P.channel_last(data_format) else [n, c] + list(spatial)


def _conv_spatial(xsp, ksp, stride, padding, dilation):
    return [-1 if s < 0 else algos.conv_out_size(s, k, st, d, padding[2 * i], padding[2 * i + 1])
            for i, (s, k, st, d) in enumerate(zip(xsp, ksp, stride, dilation))]


def _transpose_spatial(xsp, ksp, stride, padding, output_padding, dilation):
    return [-1 if s < 0 else algos.transpose_out_size(s, k, st, d, padding[2 * i],
                                                      padding[2 * i + 1], op)
            for i, (s, k, st, d, op) in enumerate(zip(xsp, ksp, stride, dilation,
                                                      output_padding))]


_XWB = ('x', 'weight', 'bias')


def _float_dtype(api, names, *ms):
    """The dtype a convolution computes in: its inputs' common float dtype
    (mismatched dtypes are an error, as in Paddle and PyTorch)."""
    dt = meta.same_dtype(api, names, *ms)
    if not _dt.is_floating(dt):
        raise OpError("%s: expects floating point inputs, got %s"
                      % (api, ', '.join(str(meta.dtype_of(m)) for m in ms if m is not None)))
    return dt


def _check_bias(api, bias, channels):
    if bias is None:
        return
    bs = list(meta.shape_of(bias))
    if len(bs) != 1 or (bs[0] >= 0 and channels >= 0 and bs[0] != channels):
        raise OpError("%s: bias must have shape [%d] (one per output channel), got %s"
                      % (api, channels, bs))


# ---- numpy plumbing for kernels and fast grads ------------------------------

def _as_float(dt, *arrays):
    return [None if a is None else np.asarray(a).astype(dt, copy=False) for a in arrays]


def _geom_fwd(xs, ws, stride, padding, dilation, groups, api='conv'):
    g = algos.geom_forward(xs.shape, ws.shape, P.hw2(stride, 1), P.pad4(padding),
                           P.hw2(dilation, 1), groups)
    if g.oh <= 0 or g.ow <= 0:
        raise OpError("%s: the output would be empty: input spatial size %s, kernel %s, "
                      "stride %s, padding %s, dilation %s"
                      % (api, [g.h, g.w], [g.kh, g.kw], [g.sh, g.sw], list(padding),
                         [g.dh, g.dw]))
    return g


def _geom_transpose(ys, ws, stride, padding, output_padding, dilation, groups):
    g = algos.geom_transpose(ys.shape, ws.shape, P.hw2(stride, 1), P.pad4(padding),
                             P.hw2(output_padding, 0), P.hw2(dilation, 1), groups)
    if g.h <= 0 or g.w <= 0:
        raise OpError("conv_transpose: the output would be empty (spatial %s)"
                      % ([g.h, g.w],))
    return g


def _geom_filter(xs, gs, ksize, stride, padding, dilation, groups):
    g = algos.geom_filter(xs.shape, gs.shape, P.hw2(ksize, 1), P.hw2(stride, 1),
                          P.pad4(padding), P.hw2(dilation, 1), groups)
    expect = (algos.conv_out_size(g.h, g.kh, g.sh, g.dh, g.pt, g.pb),
              algos.conv_out_size(g.w, g.kw, g.sw, g.dw, g.pl, g.pr))
    if (g.oh, g.ow) != expect:
        raise OpError("conv_filter_grad: output grad spatial size %s does not match the conv "
                      "output size %s of input spatial size %s"
                      % ([g.oh, g.ow], list(expect), [g.h, g.w]))
    return g


def _add_bias(y, bias):
    if bias is not None:
        y += bias.reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


def _bias_grad(g, data_format):
    ch = P.channel_axis(data_format) % g.ndim
    if g.dtype in (np.float32, np.float64):
        # one einsum pass over a [pre, C, post] view: 2-3x a multi-axis sum,
        # as accurate
        pre, post = int(np.prod(g.shape[:ch])), int(np.prod(g.shape[ch + 1:]))
        return np.einsum('ncp->c', g.reshape(pre, g.shape[ch], post))
    axes = tuple(i for i in range(g.ndim) if i != ch)
    return g.sum(axis=axes)


def _w_back(gw4, ndim):
    return gw4[:, :, 0, :] if ndim == 3 else gw4


def np_conv(x, w, stride, padding, dilation, groups, data_format):
    xs = P.to_nchw(x, data_format)
    if x.ndim == 5:
        return depth.conv(xs, w, stride, padding, dilation, groups)
    ws = P.weight4(w)
    return convolve('forward', xs, ws, _geom_fwd(xs, ws, stride, padding, dilation, groups))


def np_conv_transpose(y, w, stride, padding, output_padding, dilation, groups, data_format):
    ys = P.to_nchw(y, data_format)
    if y.ndim == 5:
        return depth.conv_transpose(ys, w, stride, padding, output_padding, dilation, groups)
    ws = P.weight4(w)
    g = _geom_transpose(ys, ws, stride, padding, output_padding, dilation, groups)
    return convolve('backward_data', ys, ws, g)


def np_filter_grad(x, gy, ksize, stride, padding, dilation, groups, data_format):
    xs, gs = P.to_nchw(x, data_format), P.to_nchw(gy, data_format)
    if x.ndim == 5:
        return depth.filter_grad(xs, gs, list(ksize), stride, padding, dilation, groups)
    g = _geom_filter(xs, gs, ksize, stride, padding, dilation, groups)
    return _w_back(convolve('backward_filter', xs, gs, g), x.ndim)


def output_padding_for(in_spatial, out_spatial, ksize, stride, padding, dilation):
    """The transposed conv's output_padding that maps out_spatial back to in_spatial
    (unknown sizes give 0)."""
    res = []
    for i, (s, o, k, st, d) in enumerate(zip(in_spatial, out_spatial, ksize, stride, dilation)):
        if s < 0 or o < 0:
            res.append(0)
        else:
            res.append(int(s + padding[2 * i] + padding[2 * i + 1] - d * (k - 1) - 1
                           - (o - 1) * st))
    return res


# ---- conv ----------------------------------------------------------------------

_CONV_ATTRS = {'stride': [1, 1], 'padding': [0, 0, 0, 0], 'dilation': [1, 1], 'groups': 1,
               'data_format': 'NCHW'}


def _conv_meta(x, w, bias, stride, padding, dilation, groups, data_format):
    xs, ws = meta.shape_of(x), meta.shape_of(w)
    check_conv_shapes('conv', xs, ws, groups, data_format)
    _check_bias('conv', bias, ws[0])
    spatial = _conv_spatial(P.spatial_shape(xs, data_format), ws[2:], stride, padding, dilation)
    return Meta(_out_shape(xs[0], ws[0], spatial, data_format), _float_dtype('conv', _XWB, x, w, bias))


_GROUPS = list(_CONV_ATTRS).index('groups')     # conv's attributes follow its 3 inputs


def _paddle_conv_names(transpose):
    """Paddle's op name for one call of conv / conv_transpose (auto_cast's
    lists name them): conv2d (1-D and 2-D: Paddle runs conv1d as conv2d),
    depthwise_conv2d (groups equal to the input channels, more than one,
    dividing the output channels) or conv3d."""
    suffix = '_transpose' if transpose else ''

    def names(x, weight, bias=None, *attrs):
        if len(x.shape) == 5:
            return ('conv3d' + suffix,)
        if not transpose:
            groups = attrs[_GROUPS] if len(attrs) > _GROUPS else _CONV_ATTRS['groups']
            if groups != 1 and weight.shape[1] == 1 and weight.shape[0] % groups == 0:
                return ('depthwise_conv2d',)
        return ('conv2d' + suffix,)
    return names


def _conv_amp(ctx, ins, attrs, dst):
    """Paddle's conv2d has no bias: F.conv2d adds it with a separate ``add``, a
    gray op, which computes in float32 for a float32 bias. Same here: the conv
    in ``dst``, then the bias added by ``add`` under auto_cast's gray rule."""
    x, w, b = ins
    if b is None:
        return None
    out = ctx.run(conv_op, (ctx.cast(x, dst), ctx.cast(w, dst), None) + tuple(attrs))
    data_format = attrs[conv_op.attr_names.index('data_format')]
    shape = [1] * len(x.shape)
    shape[1 if data_format[1] == 'C' else -1] = -1
    return lib.add(out, lib.reshape(b, shape))


def _conv_flops(ins, outs, attrs):
    """Paddle counts conv1d/conv2d only: per output element, one multiply-add
    per weight element of a group, plus the bias."""
    w = ins['weight']
    if len(w) not in (3, 4):
        return 0
    return per_sample(outs['out']) * (numel(w[1:]) + (1 if ins['bias'] is not None else 0))


@def_op('conv', _conv_meta, inputs=('x', 'weight', 'bias?'), attrs=_CONV_ATTRS, pattern='opaque',
        amp='white', paddle_names=('conv2d',), amp_names=_paddle_conv_names(False),
        amp_rule=_conv_amp, flops=_conv_flops)
@float32_compute
def conv_op(x, weight, bias, stride, padding, dilation, groups, data_format):
    """N-D convolution (cross-correlation), Paddle's conv1d/conv2d."""
    check_conv_shapes('conv', x.shape, weight.shape, groups, data_format)
    x, weight, bias = _as_float(_float_dtype('conv', _XWB, x, weight, bias), x, weight, bias)
    y = np_conv(x, weight, stride, padding, dilation, groups, data_format)
    return P.from_nchw(_add_bias(y, bias), data_format)


def _spatial(v, data_format):
    return P.spatial_shape(v.shape, data_format)


@conv_op.def_grad
def _conv_grad(g, x, w, bias, out, stride, padding, dilation, groups, data_format):
    ksize = list(w.shape[2:])
    op = output_padding_for(_spatial(x, data_format), _spatial(g, data_format), ksize,
                            stride, padding, dilation)
    gx = (conv_transpose_op(g, w, None, stride, padding, op, dilation, groups, data_format)
          if is_value(x) else None)
    gw = (conv_filter_grad_op(x, g, ksize, stride, padding, dilation, groups, data_format)
          if is_value(w) else None)
    gb = conv_bias_grad_op(g, data_format) if is_value(bias) else None
    return gx, gw, gb


@conv_op.def_fast_grad
def _conv_fast(g, x, w, bias, out, stride, padding, dilation, groups, data_format):
    ksize = list(w.shape[2:])
    op = output_padding_for(P.spatial_shape(x.shape, data_format),
                            P.spatial_shape(g.shape, data_format), ksize, stride, padding,
                            dilation)
    gx = gw = gb = None
    if isinstance(x, np.ndarray) and wants(0):     # a first layer's input needs no grad
        gx = conv_transpose_op.kernel(g, w.astype(g.dtype, copy=False), None, stride, padding,
                                      op, dilation, groups, data_format)
    if isinstance(w, np.ndarray) and wants(1):
        gw = conv_filter_grad_op.kernel(x.astype(g.dtype, copy=False), g, ksize, stride,
                                        padding, dilation, groups, data_format)
    if isinstance(bias, np.ndarray):
        gb = _bias_grad(g, data_format)
    return gx, gw, gb


def onnx_pads(padding):
    """Paddle's ``[before0, after0, before1, after1, ...]`` as ONNX's
    ``[before0, before1, ..., after0, after1, ...]``."""
    return list(padding[0::2]) + list(padding[1::2])


@conv_op.def_onnx
def _conv_onnx(g, x, weight, bias, stride, padding, dilation, groups, data_format):
    nd = g.rank(x)
    y = g.op('Conv', g.channel_first(x, data_format, nd), weight, bias,
             strides=list(stride), pads=onnx_pads(padding), dilations=list(dilation),
             group=groups)
    return g.channel_last(y, data_format, nd)


# ---- transposed conv -------------------------------------------------------------

_TRANSPOSE_ATTRS = {'stride': [1, 1], 'padding': [0, 0, 0, 0], 'output_padding': [0, 0],
                    'dilation': [1, 1], 'groups': 1, 'data_format': 'NCHW'}


def _transpose_meta(x, w, bias, stride, padding, output_padding, dilation, groups, data_format):
    xs, ws = meta.shape_of(x), meta.shape_of(w)
    check_conv_shapes('conv_transpose', xs, ws, groups, data_format, transpose=True)
    oc = ws[1] * groups if ws[1] >= 0 else -1
    _check_bias('conv_transpose', bias, oc)
    spatial = _transpose_spatial(P.spatial_shape(xs, data_format), ws[2:], stride, padding,
                                 output_padding, dilation)
    return Meta(_out_shape(xs[0], oc, spatial, data_format),
                _float_dtype('conv_transpose', _XWB, x, w, bias))


@def_op('conv_transpose', _transpose_meta, inputs=('x', 'weight', 'bias?'),
        attrs=_TRANSPOSE_ATTRS, pattern='opaque', paddle_names=('conv2d_transpose',),
        amp_names=_paddle_conv_names(True))
@float32_compute
def conv_transpose_op(x, weight, bias, stride, padding, output_padding, dilation, groups,
                      data_format):
    """Transposed convolution: the adjoint of ``conv`` in its input.
    ``weight`` is ``[C_in, C_out/groups, *kernel]`` (Paddle's layout)."""
    check_conv_shapes('conv_transpose', x.shape, weight.shape, groups, data_format, True)
    x, weight, bias = _as_float(_float_dtype('conv_transpose', _XWB, x, weight, bias), x, weight, bias)
    y = np_conv_transpose(x, weight, stride, padding, output_padding, dilation, groups,
                          data_format)
    return P.from_nchw(_add_bias(y, bias), data_format)


@conv_transpose_op.def_grad
def _transpose_grad(g, x, w, bias, out, stride, padding, output_padding, dilation, groups,
                    data_format):
    ksize = list(w.shape[2:])
    gx = conv_op(g, w, None, stride, padding, dilation, groups, data_format) \
        if is_value(x) else None
    gw = (conv_filter_grad_op(g, x, ksize, stride, padding, dilation, groups, data_format)
          if is_value(w) else None)
    gb = conv_bias_grad_op(g, data_format) if is_value(bias) else None
    return gx, gw, gb


@conv_transpose_op.def_fast_grad
def _transpose_fast(g, x, w, bias, out, stride, padding, output_padding, dilation, groups,
                    data_format):
    ksize = list(w.shape[2:])
    gx = gw = gb = None
    if isinstance(x, np.ndarray):
        gx = conv_op.kernel(g, w.astype(g.dtype, copy=False), None, stride, padding, dilation,
                            groups, data_format)
    if isinstance(w, np.ndarray):
        gw = conv_filter_grad_op.kernel(g, x.astype(g.dtype, copy=False), ksize, stride,
                                        padding, dilation, groups, data_format)
    if isinstance(bias, np.ndarray):
        gb = _bias_grad(g, data_format)
    return gx, gw, gb


@conv_transpose_op.def_onnx
def _conv_transpose_onnx(g, x, weight, bias, stride, padding, output_padding, dilation, groups,
                         data_format):
    nd = g.rank(x)
    y = g.op('ConvTranspose', g.channel_first(x, data_format, nd), weight, bias,
             strides=list(stride), pads=onnx_pads(padding), dilations=list(dilation),
             output_padding=list(output_padding), group=groups)
    return g.channel_last(y, data_format, nd)


# ---- filter gradient ----------------------------------------------------------

_FILTER_ATTRS = {'kernel_size': [1, 1], 'stride': [1, 1], 'padding': [0, 0, 0, 0],
                 'dilation': [1, 1], 'groups': 1, 'data_format': 'NCHW'}


def _filter_meta(x, out_grad, kernel_size, stride, padding, dilation, groups, data_format):
    xs, gs = meta.shape_of(x), meta.shape_of(out_grad)
    c, oc = P.channels_of(xs, data_format), P.channels_of(gs, data_format)
    if c >= 0 and c % groups:
        raise OpError("conv_filter_grad: input channels %d (x shape %s) must be divisible by "
                      "groups=%d" % (c, list(xs), groups))
    return Meta([oc, c // groups if c >= 0 else -1] + list(kernel_size),
                _float_dtype('conv_filter_grad', ('x', 'out_grad'), x, out_grad))


@def_op('conv_filter_grad', _filter_meta, inputs=('x', 'out_grad'), attrs=_FILTER_ATTRS,
        pattern='opaque')
@float32_compute
def conv_filter_grad_op(x, out_grad, kernel_size, stride, padding, dilation, groups,
                        data_format):
    """Weight gradient of ``conv``: correlation of the input with the output grad."""
    x, out_grad = _as_float(_float_dtype('conv_filter_grad', ('x', 'out_grad'), x, out_grad), x, out_grad)
    return np_filter_grad(x, out_grad, kernel_size, stride, padding, dilation, groups,
                          data_format)


@conv_filter_grad_op.def_grad
def _filter_grad_grad(gw, x, gy, out, kernel_size, stride, padding, dilation, groups,
                      data_format):
    op = output_padding_for(_spatial(x, data_format), _spatial(gy, data_format), kernel_size,
                            stride, padding, dilation)
    gx = (conv_transpose_op(gy, gw, None, stride, padding, op, dilation, groups, data_format)
          if is_value(x) else None)
    ggy = conv_op(x, gw, None, stride, padding, dilation, groups, data_format) \
        if is_value(gy) else None
    return gx, ggy


@conv_filter_grad_op.def_fast_grad
def _filter_grad_fast(gw, x, gy, out, kernel_size, stride, padding, dilation, groups,
                      data_format):
    op = output_padding_for(P.spatial_shape(x.shape, data_format),
                            P.spatial_shape(gy.shape, data_format), kernel_size, stride,
                            padding, dilation)
    gx = ggy = None
    if isinstance(x, np.ndarray):
        gx = conv_transpose_op.kernel(gy.astype(gw.dtype, copy=False), gw, None, stride,
                                      padding, op, dilation, groups, data_format)
    if isinstance(gy, np.ndarray):
        ggy = conv_op.kernel(x.astype(gw.dtype, copy=False), gw, None, stride, padding,
                             dilation, groups, data_format)
    return gx, ggy


# ---- the oneDNN kernels ------------------------------------------------------------
# Each takes the numpy kernel's arguments, hands oneDNN logical NC(D)HW views
# of the arrays (channel-last and 1-D data included: views, no copies) and
# writes a result allocated in the op's data_format. Anything but float32
# arrays, and empty arrays, run on numpy (where the errors are made too).

_onednn_takes = dnnl_layout.takes


def _onednn_attrs(ndim, stride, padding, dilation):
    """The attributes with a neutral H for 1-D convs (run as 2-D with H == 1)."""
    if ndim == 5:
        return list(stride), list(padding), list(dilation)
    return P.hw2(stride, 1), P.pad4(padding), P.hw2(dilation, 1)


def _dense(*arrays):
    """C-contiguous arrays (one copy of a strided view, e.g. after a channel
    shuffle): oneDNN's fast kernels and reorders want a dense layout
    (``Blocked`` values are dense already)."""
    return [a if a is None or isinstance(a, Opaque) or a.flags.c_contiguous
            else np.ascontiguousarray(a) for a in arrays]


def _empty_in(shape_nc, spatial, data_format):
    """A fresh result in ``data_format`` and its logical NC(D)HW view."""
    out = np.empty(_out_shape(shape_nc[0], shape_nc[1], spatial, data_format), np.float32)
    return out, P.to_nchw(out, data_format)


@conv_op.def_kernel('onednn')
def _conv_onednn(x, weight, bias, stride, padding, dilation, groups, data_format):
    if not _onednn_takes(x, weight, bias) or x.ndim != weight.ndim:
        return NotImplemented
    check_conv_shapes('conv', x.shape, weight.shape, groups, data_format)
    spatial = _conv_spatial(P.spatial_shape(x.shape, data_format), weight.shape[2:], stride,
                            padding, dilation)
    if min(spatial) <= 0:
        return NotImplemented
    x, weight, bias = _dense(x, weight, bias)
    out, view = _empty_in((x.shape[0], weight.shape[0]), spatial, data_format)
    if dnnl_conv.forward(onednn.runtime(), P.to_nchw(x, data_format), P.weight4(weight), bias,
                         *_onednn_attrs(x.ndim, stride, padding, dilation), groups, view) is None:
        return NotImplemented
    return out


def _channels_first(x, data_format):
    """Whether a layout kernel takes ``x``: 2-D or 3-D images, channels first."""
    return data_format in ('NCHW', 'NCDHW') and x.ndim in (4, 5)


def nchw_conv(op, block):
    """The layout pass's condition for a conv (or batch norm) op: its ``x``
    2-D or 3-D images, channels first (oneDNN's layouts are of the logical
    NC(D)HW tensor)."""
    x = block._find_var(op.inputs['x'][0])
    return op.attrs.get('data_format', 'NCHW') in ('NCHW', 'NCDHW') and x is not None \
        and len(x.shape) in (4, 5)


@conv_op.def_layout_kernel('onednn', takes=('x',), gives=('out',), applies=nchw_conv)
def _conv_onednn_layout(x, weight, bias, stride, padding, dilation, groups, data_format, keep):
    """The convolution reading ``x`` in a oneDNN layout and, with ``out`` in
    ``keep``, leaving its result in the layout it writes."""
    if not _onednn_takes(x, weight, bias) or x.ndim != weight.ndim or \
            not _channels_first(x, data_format):
        return NotImplemented
    check_conv_shapes('conv', x.shape, weight.shape, groups, data_format)
    spatial = _conv_spatial(x.shape[2:], weight.shape[2:], stride, padding, dilation)
    if min(spatial) <= 0:
        return NotImplemented
    x, weight, bias = _dense(x, weight, bias)
    shape = [x.shape[0], weight.shape[0]] + spatial
    out = dnnl_conv.forward(onednn.runtime(), x, P.weight4(weight), bias,
                            *_onednn_attrs(x.ndim, stride, padding, dilation), groups,
                            None if 'out' in keep else np.empty(shape, np.float32),
                            out_shape=shape)
    return NotImplemented if out is None else out


@conv_transpose_op.def_kernel('onednn')
def _conv_transpose_onednn(x, weight, bias, stride, padding, output_padding, dilation, groups,
                           data_format):
    if not _onednn_takes(x, weight, bias) or x.ndim != weight.ndim:
        return NotImplemented
    check_conv_shapes('conv_transpose', x.shape, weight.shape, groups, data_format, True)
    spatial = _transpose_spatial(P.spatial_shape(x.shape, data_format), weight.shape[2:],
                                 stride, padding, output_padding, dilation)
    if min(spatial) <= 0 or any(o >= max(s, d) for o, s, d in
                                zip(output_padding, stride, dilation)):
        return NotImplemented
    x, weight, bias = _dense(x, weight, bias)
    out, view = _empty_in((x.shape[0], weight.shape[1] * groups), spatial, data_format)
    if dnnl_conv.backward_data(onednn.runtime(), P.to_nchw(x, data_format), P.weight4(weight),
                               *_onednn_attrs(x.ndim, stride, padding, dilation), groups,
                               view) is None:
        return NotImplemented
    if bias is not None:
        _add_bias(view, bias)
    return out


@conv_transpose_op.def_layout_kernel('onednn', takes=('x',), gives=('out',), applies=nchw_conv)
def _conv_transpose_onednn_layout(x, weight, bias, stride, padding, output_padding, dilation,
                                  groups, data_format, keep):
    """The transposed convolution (a conv's input gradient in a training
    plan) reading ``x`` in a oneDNN layout and, with ``out`` in ``keep``,
    leaving its result in the layout it writes."""
    if not _onednn_takes(x, weight) or bias is not None or x.ndim != weight.ndim or \
            not _channels_first(x, data_format):
        return NotImplemented
    check_conv_shapes('conv_transpose', x.shape, weight.shape, groups, data_format, True)
    spatial = _transpose_spatial(x.shape[2:], weight.shape[2:], stride, padding,
                                 output_padding, dilation)
    if min(spatial) <= 0 or any(o >= max(s, d) for o, s, d in
                                zip(output_padding, stride, dilation)):
        return NotImplemented
    x, weight = _dense(x, weight)
    shape = [x.shape[0], weight.shape[1] * groups] + spatial
    out = dnnl_conv.backward_data(onednn.runtime(), x, P.weight4(weight),
                                  *_onednn_attrs(x.ndim, stride, padding, dilation), groups,
                                  None if 'out' in keep else np.empty(shape, np.float32),
                                  out_shape=shape)
    return NotImplemented if out is None else out


@conv_filter_grad_op.def_kernel('onednn')
def _filter_grad_onednn(x, out_grad, kernel_size, stride, padding, dilation, groups,
                        data_format):
    if not _onednn_takes(x, out_grad) or x.ndim != out_grad.ndim:
        return NotImplemented
    c = P.channels_of(x.shape, data_format)
    expect = _conv_spatial(P.spatial_shape(x.shape, data_format), kernel_size, stride, padding,
                           dilation)
    if c % groups or expect != list(P.spatial_shape(out_grad.shape, data_format)):
        return NotImplemented
    oc = P.channels_of(out_grad.shape, data_format)
    x, out_grad = _dense(x, out_grad)
    gw = np.empty([oc, c // groups] + list(kernel_size), np.float32)
    if dnnl_conv.backward_weights(onednn.runtime(), P.to_nchw(x, data_format),
                                  P.to_nchw(out_grad, data_format), *_onednn_attrs(
                                      x.ndim, stride, padding, dilation), groups,
                                  P.weight4(gw)) is None:
        return NotImplemented
    return gw


@conv_filter_grad_op.def_layout_kernel('onednn', takes=('x', 'out_grad'), applies=nchw_conv)
def _filter_grad_onednn_layout(x, out_grad, kernel_size, stride, padding, dilation, groups,
                               data_format, keep):
    """The filter gradient reading ``x`` and ``out_grad`` in oneDNN layouts
    (the filter gradient itself is a plain array: parameters are)."""
    if not _onednn_takes(x, out_grad) or x.ndim != out_grad.ndim or \
            not _channels_first(x, data_format):
        return NotImplemented
    c, oc = x.shape[1], out_grad.shape[1]
    if c % groups or _conv_spatial(x.shape[2:], kernel_size, stride, padding, dilation) != \
            list(out_grad.shape[2:]):
        return NotImplemented
    x, out_grad = _dense(x, out_grad)
    gw = np.empty([oc, c // groups] + list(kernel_size), np.float32)
    if dnnl_conv.backward_weights(onednn.runtime(), x, out_grad, *_onednn_attrs(
            x.ndim, stride, padding, dilation), groups, P.weight4(gw)) is None:
        return NotImplemented
    return gw


# ---- bias gradient pair ----------------------------------------------------------

def _bias_grad_meta(g, data_format):
    return Meta([P.channels_of(meta.shape_of(g), data_format)], meta.dtype_of(g))


@def_op('conv_bias_grad', _bias_grad_meta, save_inputs=False, pattern='opaque')
def conv_bias_grad_op(g, data_format='NCHW'):
    """Sum over every axis except the channel axis of ``data_format``."""
    return np.asarray(_bias_grad(g, data_format))


@conv_bias_grad_op.def_grad
def _bias_grad_grad(gb, g, out, data_format):
    return conv_bias_expand_op(gb, g, data_format)


def _bias_expand_meta(b, target, data_format):
    return Meta(meta.shape_of(target), meta.dtype_of(b))


@def_op('conv_bias_expand', _bias_expand_meta, no_grad_inputs=('target',), save_inputs=False,
        pattern='opaque')
def conv_bias_expand_op(b, target, data_format='NCHW'):
    """Broadcast a per-channel vector to ``target``'s shape along its channel axis."""
    shape = np.shape(target)
    view = [1] * len(shape)
    view[P.channel_axis(data_format)] = -1
    return np.broadcast_to(b.reshape(view), shape).copy()


@conv_bias_expand_op.def_grad
def _bias_expand_grad(g, b, target, out, data_format):
    return conv_bias_grad_op(g, data_format), None


# ---- public API (Paddle 2.x) --------------------------------------------------------

def _prepare(api, x, weight, stride, padding, dilation, groups, data_format, nd,
             transpose=False):
    P.check_format(api, data_format, nd)
    check_conv_shapes(api, x.shape, weight.shape, groups, data_format, transpose)
    stride = P.int_list(stride, nd, api, 'stride', 1)
    dilation = P.int_list(dilation, nd, api, 'dilation', 1)
    ksize = list(weight.shape[2:])
    pad, alg = P.parse_padding(api, padding, nd, data_format,
                               P.spatial_shape(x.shape, data_format), ksize, stride)
    if alg == 'SAME':
        dilation = [1] * nd          # Paddle's SAME ignores dilation
    return stride, pad, dilation


def _conv_nd(api, nd, x, weight, bias, stride, padding, dilation, groups, data_format):
    stride, pad, dilation = _prepare(api, x, weight, stride, padding, dilation, groups,
                                     data_format, nd)
    _check_bias(api, bias, list(weight.shape)[0])
    spatial = _conv_spatial(P.spatial_shape(x.shape, data_format), list(weight.shape[2:]),
                            stride, pad, dilation)
    if any(s == 0 or s < -1 for s in spatial):
        raise OpError("%s: the output would be empty: input shape %s, weight shape %s, "
                      "stride %s, padding %s, dilation %s"
                      % (api, list(x.shape), list(weight.shape), stride, pad, dilation))
    return conv_op(x, weight, bias, stride, pad, dilation, groups, data_format)


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format='NCL', name=None):
    """1-D convolution of ``x`` ``[N, C, L]`` with ``weight`` ``[OC, C/groups, K]``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.conv1d(paddle.ones([1, 2, 5]), paddle.ones([3, 2, 3])).shape
    paddle.Size([1, 3, 3])
    """
    return _conv_nd('conv1d', 1, x, weight, bias, stride, padding, dilation, groups,
                    data_format)


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format='NCHW', name=None):
    """2-D convolution of ``x`` ``[N, C, H, W]`` (or NHWC) with ``weight``
    ``[OC, C/groups, KH, KW]``. ``padding``: int, [ph, pw], [top, bottom, left,
    right], nested pairs, 'SAME' or 'VALID'.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.conv2d(paddle.ones([1, 3, 8, 8]), paddle.ones([4, 3, 3, 3]), padding='SAME').shape
    paddle.Size([1, 4, 8, 8])
    """
    return _conv_nd('conv2d', 2, x, weight, bias, stride, padding, dilation, groups,
                    data_format)


def _conv_transpose_nd(api, nd, x, weight, bias, stride, padding, output_padding, dilation,
                       groups, output_size, data_format):
    stride, pad, dilation = _prepare(api, x, weight, stride, padding, dilation, groups,
                                     data_format, nd, transpose=True)
    ksize = list(weight.shape[2:])
    _check_bias(api, bias, list(weight.shape)[1] * groups)
    insp = P.spatial_shape(x.shape, data_format)
    base = _transpose_spatial(insp, ksize, stride, pad, [0] * nd, dilation)
    if output_size is not None:
        if any(output_padding if isinstance(output_padding, (list, tuple))
               else [output_padding]):
            raise OpError("%s: output_padding and output_size cannot both be given" % api)
        size = P.int_list(output_size, nd, api, 'output_size', 1)
        opad = [s - b if b >= 0 else 0 for s, b in zip(size, base)]
        for s, b, st in zip(size, base, stride):
            if b >= 0 and not b <= s < b + st:
                raise OpError("%s: output_size %s is not reachable: with input spatial %s, "
                              "stride %s, padding %s the output size must be in [%s, %s)"
                              % (api, size, insp, stride, pad, base,
                                 [bb + ss for bb, ss in zip(base, stride)]))
    else:
        opad = P.int_list(output_padding, nd, api, 'output_padding', 0)
        if any(o >= s for o, s in zip(opad, stride)):
            raise OpError("%s: output_padding %s must be smaller than stride %s"
                          % (api, opad, stride))
    if any(b + o <= 0 for b, o in zip(base, opad) if b >= 0):
        raise OpError("%s: the output would be empty: input shape %s, weight shape %s"
                      % (api, list(x.shape), list(weight.shape)))
    return conv_transpose_op(x, weight, bias, stride, pad, opad, dilation, groups, data_format)


def conv1d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format='NCL', name=None):
    """1-D transposed convolution; ``weight`` is ``[C_in, C_out/groups, K]``."""
    return _conv_transpose_nd('conv1d_transpose', 1, x, weight, bias, stride, padding,
                              output_padding, dilation, groups, output_size, data_format)


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, dilation=1,
                     groups=1, output_size=None, data_format='NCHW', name=None):
    """2-D transposed convolution; ``weight`` is ``[C_in, C_out/groups, KH, KW]``.
    ``output_size`` picks among the sizes a strided conv maps to the input size.

    >>> import framework as paddle, framework.nn.functional as F
    >>> x = paddle.ones([1, 4, 5, 5])
    >>> F.conv2d_transpose(x, paddle.ones([4, 2, 3, 3]), stride=2, output_size=[12, 12]).shape
    paddle.Size([1, 2, 12, 12])
    """
    return _conv_transpose_nd('conv2d_transpose', 2, x, weight, bias, stride, padding,
                              output_padding, dilation, groups, output_size, data_format)


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format='NCDHW', name=None):
    """3-D convolution of ``x`` ``[N, C, D, H, W]`` (or NDHWC) with ``weight``
    ``[OC, C/groups, KD, KH, KW]``. ``padding``: int, 3 ints, 6 ints (front,
    back, top, bottom, left, right), nested pairs, 'SAME' or 'VALID'.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.conv3d(paddle.ones([1, 2, 4, 5, 5]), paddle.ones([3, 2, 3, 3, 3]), padding=1).shape
    paddle.Size([1, 3, 4, 5, 5])
    """
    return _conv_nd('conv3d', 3, x, weight, bias, stride, padding, dilation, groups,
                    data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, output_size=None, data_format='NCDHW', name=None):
    """3-D transposed convolution; ``weight`` is ``[C_in, C_out/groups, KD, KH, KW]``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.conv3d_transpose(paddle.ones([1, 4, 2, 3, 3]), paddle.ones([4, 2, 3, 3, 3]),
    ...                    stride=2).shape
    paddle.Size([1, 2, 5, 7, 7])
    """
    return _conv_transpose_nd('conv3d_transpose', 3, x, weight, bias, stride, padding,
                              output_padding, dilation, groups, output_size, data_format)


__all__ = ['conv1d', 'conv2d', 'conv3d', 'conv1d_transpose', 'conv2d_transpose',
           'conv3d_transpose']


# ---- test cases (references are loop implementations in reference.py) -------------

def _ref_conv(x, w, b, stride, padding, dilation, groups, fmt):
    if x.ndim == 5:
        y = ref.conv_nd(P.to_nchw(x, fmt), w, stride, padding, dilation, groups)
        return P.from_nchw(y if b is None else y + b.reshape(1, -1, 1, 1, 1), fmt)
    xs, ws = P.to_nchw(x, fmt), P.weight4(w)
    y = ref.conv2d(xs, ws, P.hw2(stride, 1), P.pad4(padding), P.hw2(dilation, 1), groups)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return P.from_nchw(y, fmt)


def _ref_transpose(x, w, b, stride, padding, opad, dilation, groups, fmt):
    if x.ndim == 5:
        ys = P.to_nchw(x, fmt)
        size = [(ys.shape[2 + i] - 1) * stride[i] - padding[2 * i] - padding[2 * i + 1]
                + dilation[i] * (w.shape[2 + i] - 1) + 1 + opad[i] for i in range(3)]
        y = ref.conv_nd_transpose(ys, w, stride, padding, dilation, groups, size)
        return P.from_nchw(y if b is None else y + b.reshape(1, -1, 1, 1, 1), fmt)
    ys, ws = P.to_nchw(x, fmt), P.weight4(w)
    s2, p4, d2, o2 = P.hw2(stride, 1), P.pad4(padding), P.hw2(dilation, 1), P.hw2(opad, 0)
    hw = [(ys.shape[2 + i] - 1) * s2[i] - p4[2 * i] - p4[2 * i + 1]
          + d2[i] * (ws.shape[2 + i] - 1) + 1 + o2[i] for i in range(2)]
    y = ref.conv2d_transpose(ys, ws, s2, p4, d2, groups, hw)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return P.from_nchw(y, fmt)


def _ref_filter(x, gy, ksize, stride, padding, dilation, groups, fmt):
    if x.ndim == 5:
        return ref.conv_nd_filter_grad(P.to_nchw(x, fmt), P.to_nchw(gy, fmt), ksize, stride,
                                       padding, dilation, groups)
    gw = ref.conv2d_filter_grad(P.to_nchw(x, fmt), P.to_nchw(gy, fmt), P.hw2(ksize, 1),
                                P.hw2(stride, 1), P.pad4(padding), P.hw2(dilation, 1), groups)
    return gw[:, :, 0, :] if x.ndim == 3 else gw


_rng = np.random.default_rng(21)
_r = _rng.standard_normal

add_test_case(conv_op, _r((2, 3, 5, 5)), _r((4, 3, 3, 3)), _r(4), [1, 1], [1, 1, 1, 1],
              [1, 1], 1, 'NCHW', ref=_ref_conv)
add_test_case(conv_op, _r((1, 6, 4, 5)), _r((6, 2, 2, 3)), None, [2, 1], [1, 0, 0, 2],
              [1, 2], 3, 'NCHW', ref=_ref_conv)
add_test_case(conv_op, _r((2, 5, 4, 2)), _r((4, 1, 3, 2)), _r(4), [1, 1], [1, 1, 0, 1],
              [1, 1], 2, 'NHWC', ref=_ref_conv)
add_test_case(conv_op, _r((2, 3, 5, 4)), _r((6, 1, 3, 3)), None, [1, 2], [1, 1, 1, 1],
              [1, 1], 3, 'NCHW', ref=_ref_conv)               # depthwise, multiplier 2
add_test_case(conv_op, _r((2, 3, 7)), _r((2, 3, 3)), _r(2), [2], [1, 1], [1], 1, 'NCL',
              ref=_ref_conv)
add_test_case(conv_op, _r((2, 6, 2)), _r((3, 2, 2)), None, [1], [0, 1], [2], 1, 'NLC',
              ref=_ref_conv)
add_test_case(conv_transpose_op, _r((2, 4, 3, 3)), _r((4, 2, 3, 3)), _r(2), [2, 2],
              [1, 1, 1, 1], [1, 0], [1, 1], 1, 'NCHW', ref=_ref_transpose)
# as a conv's input gradient: no bias, channels first (a training plan's
# layouts), dense and grouped
add_test_case(conv_transpose_op, _r((2, 4, 5, 5)), _r((4, 3, 3, 3)), None, [1, 1],
              [1, 1, 1, 1], [0, 0], [1, 1], 1, 'NCHW', ref=_ref_transpose)
add_test_case(conv_transpose_op, _r((2, 4, 5, 5)), _r((4, 3, 3, 3)), None, [2, 2],
              [1, 1, 1, 1], [1, 1], [1, 1], 2, 'NCHW', ref=_ref_transpose)
add_test_case(conv_transpose_op, _r((1, 3, 3, 4)), _r((4, 1, 2, 2)), None, [1, 2],
              [0, 1, 1, 0], [0, 1], [2, 1], 2, 'NHWC', ref=_ref_transpose)
add_test_case(conv_transpose_op, _r((2, 2, 4)), _r((2, 3, 3)), _r(3), [2], [1, 0], [1], [1],
              1, 'NCL', ref=_ref_transpose)
add_test_case(conv_filter_grad_op, _r((2, 3, 5, 5)), _r((2, 4, 3, 3)), [3, 3], [1, 1],
              [0, 0, 0, 0], [1, 1], 1, 'NCHW', ref=_ref_filter)
add_test_case(conv_filter_grad_op, _r((1, 4, 5, 6)), _r((1, 4, 2, 4)), [2, 3], [1, 2],
              [1, 1, 0, 1], [2, 1], 2, 'NHWC', ref=_ref_filter)
add_test_case(conv_filter_grad_op, _r((2, 2, 6)), _r((2, 2, 3)), [2], [2], [0, 1], [1], 1,
              'NCL', ref=_ref_filter)
# 3-D: depth taps over 2-D convs (stride, dilation and padding in depth; groups; NDHWC)
add_test_case(conv_op, _r((2, 2, 4, 3, 3)), _r((3, 2, 2, 2, 2)), _r(3), [2, 1, 1],
              [1, 0, 1, 1, 0, 1], [1, 1, 2], 1, 'NCDHW', ref=_ref_conv)
add_test_case(conv_op, _r((1, 3, 2, 4, 2)), _r((4, 2, 2, 2, 1)), None, [1, 1, 2],
              [1, 1, 0, 0, 1, 0], [2, 1, 1], 1, 'NDHWC', ref=_ref_conv, atol=1e-5,
              grad_inputs=(0, 1))
add_test_case(conv_op, _r((1, 4, 3, 3, 3)).astype(np.float32),
              _r((4, 2, 3, 1, 2)).astype(np.float32), None, [1, 1, 1], [1, 1, 0, 0, 0, 1],
              [1, 1, 1], 2, 'NCDHW', ref=_ref_conv, rtol=1e-4, atol=1e-5, grad=False)
add_test_case(conv_transpose_op, _r((2, 3, 2, 3, 2)), _r((3, 2, 2, 2, 2)), _r(2),
              [2, 1, 2], [1, 0, 0, 1, 1, 1], [1, 0, 1], [1, 2, 1], 1, 'NCDHW',
              ref=_ref_transpose)
add_test_case(conv_transpose_op, _r((1, 2, 2, 2, 4)), _r((4, 1, 2, 1, 2)), None, [1, 2, 1],
              [0, 0, 1, 0, 0, 0], [0, 1, 0], [1, 1, 1], 2, 'NDHWC', ref=_ref_transpose)
add_test_case(conv_filter_grad_op, _r((2, 2, 4, 3, 3)), _r((2, 3, 2, 4, 2)), [2, 2, 2],
              [2, 1, 1], [1, 0, 1, 1, 0, 1], [1, 1, 2], 1, 'NCDHW', ref=_ref_filter)
add_test_case(conv_bias_grad_op, _r((2, 3, 2, 2, 2)), 'NCDHW',
              ref=lambda g, f: g.sum((0, 2, 3, 4)))
add_test_case(conv_bias_grad_op, _r((2, 3, 4, 2)), 'NCHW', ref=lambda g, f: g.sum((0, 2, 3)))
add_test_case(conv_bias_grad_op, _r((2, 4, 3)), 'NLC', ref=lambda g, f: g.sum((0, 1)))
add_test_case(conv_bias_expand_op, _r(3), np.zeros((2, 3, 2, 2)), 'NCHW',
              ref=lambda b, t, f: b[None, :, None, None] + t)
add_test_case(conv_bias_expand_op, _r(3), np.zeros((2, 4, 3)), 'NLC',
              ref=lambda b, t, f: b[None, None, :] + t)
