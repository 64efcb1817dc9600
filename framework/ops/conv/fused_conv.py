"""``fused_conv``: ``act(batch_norm(conv(x, w) + bias) + residual)`` as one op,
what the executor's ``fuse_conv_bn_add_act`` pass makes of a ResNet-style
chain (``graph/passes/fuse.py``).

Every part but the convolution is optional: ``bn_mean``/``bn_var`` (with
``bn_scale``/``bn_shift``, each optional as in ``batch_norm``) are running
statistics (the inference form: nothing is updated), ``residual`` has the
output's shape, ``act`` is '' or an attribute-free one-input activation.
Like the other fused ops it is not differentiable: the pass runs after
backward ops were built.

The numpy kernel runs the ops it replaces (the conv and batch-norm kernels,
the add, the activation's kernel). The oneDNN kernel runs one convolution
whose post-ops do the rest on each block of its result while it is still in
cache: the batch norm as the multiply and add by batch_norm's own per-channel
``scale`` and ``shift`` (``nn.bn_affine``), the residual add, a relu (other
activations run after it, with their kernels). Those are the float32
operations the unfused ops do, in the same order, so fusing changes no
result. (Folding the batch norm into the filter
instead would round differently, and cost a pass over the filter per call.)
"""
import numpy as np

from ...backends import onednn
from ...backends.onednn import conv as dnnl_conv
from .. import meta
from ..fused import is_activation
from ..lowp import float32_compute
from ..nn import batch_norm_op, bn_affine
from ..registry import Meta, OpError, add_test_case, def_op, lookup
from . import params as P
from . import reference as ref
from .conv import (_CONV_ATTRS, _conv_meta, _dense, _empty_in, _onednn_attrs, _onednn_takes,
                   conv_op)

_BN = ('bn_scale', 'bn_shift', 'bn_mean', 'bn_var')


def check_act(act, inputs=None):
    """The attribute type of ``act``: '' or an attribute-free one-input activation."""
    if act == '':
        return
    if not (isinstance(act, str) and is_activation(act) and not lookup(act).n_attrs):
        raise ValueError("act must be '' or an attribute-free one-input activation (relu, "
                         "tanh, sigmoid, silu, hardswish, ...), got %r" % (act,))


def _fused_conv_meta(x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
                     padding, dilation, groups, data_format, bn_epsilon, act):
    out = _conv_meta(x, weight, bias, stride, padding, dilation, groups, data_format)
    channels = P.channels_of(out.shape, data_format)
    for name, v in zip(_BN, (bn_scale, bn_shift, bn_mean, bn_var)):
        if v is not None and (len(meta.shape_of(v)) != 1
                              or not meta.may_equal(meta.shape_of(v)[0], channels)):
            raise OpError("fused_conv: %s must have shape [%d] (the output channels), got %s"
                          % (name, channels, list(meta.shape_of(v))))
    if (bn_mean is None) != (bn_var is None):
        raise OpError("fused_conv: bn_mean and bn_var come together (the batch norm's "
                      "running statistics)")
    if residual is not None:
        rs = list(meta.shape_of(residual))
        if len(rs) != len(out.shape) or not all(meta.may_equal(a, b)
                                                for a, b in zip(rs, out.shape)):
            raise OpError("fused_conv: residual must have the output's shape %s, got %s"
                          % (list(out.shape), rs))
    check_act(act)
    return Meta(out.shape, out.dtype) if not act else lookup(act).infer_meta(out)


_FUSED_ATTRS = dict(_CONV_ATTRS, bn_epsilon=1e-5, act='')


@def_op('fused_conv', _fused_conv_meta,
        inputs=('x', 'weight', 'bias?', 'bn_scale?', 'bn_shift?', 'bn_mean?', 'bn_var?',
                'residual?'),
        attrs=_FUSED_ATTRS, differentiable=False, attr_types={'act': check_act},
        pattern='opaque', fresh=True)
@float32_compute
def fused_conv_op(x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
                  padding, dilation, groups, data_format, bn_epsilon, act):
    """``act(batch_norm(conv(x, weight) + bias) + residual)`` (see the module doc)."""
    return _unfused('numpy', x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual,
                    stride, padding, dilation, groups, data_format, bn_epsilon, act)


def _unfused(backend, x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
             padding, dilation, groups, data_format, bn_epsilon, act):
    """The ops fused_conv stands for, one after the other, with their kernels
    on ``backend``: what the program computed before the pass."""
    y = conv_op.kernel_for(backend)(x, weight, bias, stride, padding, dilation, groups,
                                    data_format)
    if bn_mean is not None:
        y = batch_norm_op.kernel_for(backend)(y, bn_mean, bn_var, bn_scale, bn_shift, 0.9,
                                              bn_epsilon, data_format, True)[0]
    if residual is not None:
        y = np.add(y, residual, out=y) if y.dtype == residual.dtype else y + residual
    return lookup(act).kernel_for(backend)(y) if act else y


# ---- on oneDNN ----------------------------------------------------------------------

# activations oneDNN applies as a post-op with the numpy kernel's results:
# relu is exact; its tanh, sigmoid, silu... approximate exp differently from
# numpy's, so those run after the convolution with their own kernels
_ONEDNN_ACTS = {'relu': (onednn.constants.ELTWISE_RELU, 0.0, 0.0)}


@fused_conv_op.def_kernel('onednn')
def _fused_conv_onednn(x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
                       padding, dilation, groups, data_format, bn_epsilon, act):
    post = _ONEDNN_ACTS.get(act)
    if x.ndim != weight.ndim or not _onednn_takes(
            x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual):
        return NotImplemented
    out_meta = _conv_meta(Meta(x.shape, x.dtype), Meta(weight.shape, weight.dtype),
                          None if bias is None else Meta(bias.shape, bias.dtype),
                          stride, padding, dilation, groups, data_format)
    if min(out_meta.shape) <= 0 or (residual is not None
                                    and tuple(residual.shape) != tuple(out_meta.shape)):
        return NotImplemented
    affine = None
    if bn_mean is not None:
        _, scale, shift = bn_affine(bn_mean.astype(np.float32), bn_var.astype(np.float32),
                                    bn_scale, bn_shift, bn_epsilon, np.float32)
        affine = _dense(scale, shift)
    args = (x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride, padding,
            dilation, groups, data_format, bn_epsilon, act)
    x, weight, bias, residual = _dense(x, weight, bias, residual)
    out, view = _empty_in((x.shape[0], weight.shape[0]),
                          P.spatial_shape(out_meta.shape, data_format), data_format)
    done = dnnl_conv.forward(onednn.runtime(), P.to_nchw(x, data_format), P.weight4(weight),
                             bias, *_onednn_attrs(x.ndim, stride, padding, dilation), groups,
                             view, affine=affine, residual=None if residual is None
                             else P.to_nchw(residual, data_format), act=post, as_plain=True)
    if done is None:
        # oneDNN would run the convolution differently with its post-ops (or
        # not at all): the unfused ops on oneDNN, as the program did before
        return _unfused('onednn', *args)
    return lookup(act).kernel_for('onednn')(out) if act and post is None else out


# ---- test cases (independent numpy references: the naive loops of reference.py) -----

def _ref(x, w, b, scale, shift, mean, var, res, stride, padding, dilation, groups, fmt, eps,
         act):
    xs = x.transpose(0, 3, 1, 2) if fmt == 'NHWC' else x
    y = ref.conv2d(xs, w, stride, padding, dilation, groups)
    c = (1,) + (-1,) + (1,) * (y.ndim - 2)
    if b is not None:
        y = y + b.reshape(c)
    if mean is not None:
        y = (y - mean.reshape(c)) / np.sqrt(var.reshape(c) + eps)
        y = y * (1 if scale is None else scale.reshape(c)) + (0 if shift is None
                                                              else shift.reshape(c))
    if fmt == 'NHWC':
        y = y.transpose(0, 2, 3, 1)
    if res is not None:
        y = y + res
    return {'': lambda v: v, 'relu': lambda v: np.maximum(v, 0), 'tanh': np.tanh,
            'sigmoid': lambda v: 1 / (1 + np.exp(-v)), 'silu': lambda v: v / (1 + np.exp(-v)),
            'hardswish': lambda v: v * np.clip(v + 3, 0, 6) / 6}[act](y)


_rng = np.random.default_rng(33)
_x = _rng.standard_normal((2, 3, 7, 6))
_w = _rng.standard_normal((4, 3, 3, 3))
_stats = [_rng.standard_normal(4), _rng.standard_normal(4), _rng.standard_normal(4),
          _rng.uniform(0.5, 2.0, 4)]
_res = _rng.standard_normal((2, 4, 7, 6))
_geom = ([1, 1], [1, 1, 1, 1], [1, 1], 1)
# the ResNet chain: conv + bn + residual + relu
add_test_case(fused_conv_op, _x, _w, None, *_stats, _res, *_geom, 'NCHW', 1e-5, 'relu',
              ref=_ref)
# conv + bias + silu, stride 2, no batch norm, no residual
add_test_case(fused_conv_op, _x, _w, _rng.standard_normal(4), None, None, None, None, None,
              [2, 2], [0, 1, 1, 0], [1, 1], 1, 'NCHW', 1e-5, 'silu', ref=_ref)
# depthwise with a dilation, batch norm without scale and shift, tanh
_xd = _rng.standard_normal((1, 4, 8, 8))
add_test_case(fused_conv_op, _xd, _rng.standard_normal((4, 1, 3, 3)), None, None, None,
              _stats[2], _stats[3], None, [1, 1], [2, 2, 2, 2], [2, 2], 4, 'NCHW', 1e-3, 'tanh',
              ref=_ref)
# channel-last, bn + residual, hardswish; and a float32 case with sigmoid
_xl = _rng.standard_normal((2, 6, 5, 3))
add_test_case(fused_conv_op, _xl, _w, None, *_stats, _rng.standard_normal((2, 6, 5, 4)),
              *_geom, 'NHWC', 1e-5, 'hardswish', ref=_ref)
add_test_case(fused_conv_op, _x.astype(np.float32), _w.astype(np.float32), None,
              *[s.astype(np.float32) for s in _stats], _res.astype(np.float32), *_geom, 'NCHW',
              1e-5, 'sigmoid', ref=_ref, rtol=1e-4, atol=1e-5, grad=False)
# a 1x1 conv on one pixel and no activation; an empty batch
add_test_case(fused_conv_op, _rng.standard_normal((3, 3, 1, 1)),
              _rng.standard_normal((4, 3, 1, 1)), None, *_stats, None, [1, 1], [0, 0, 0, 0],
              [1, 1], 1, 'NCHW', 1e-5, '', ref=_ref)
add_test_case(fused_conv_op, np.zeros((0, 3, 7, 6)), _w, None, *_stats, None, *_geom, 'NCHW',
              1e-5, 'relu', ref=_ref)
