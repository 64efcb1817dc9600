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
import collections
import functools

import numpy as np

from ...backends import onednn
from ...backends.onednn import conv as dnnl_conv
from ...backends.onednn.core import frozen
from .. import meta
from ..fused import act_meta, check_act
from ..lowp import float32_compute
from ..nn import batch_norm_op, bn_affine
from ..registry import Meta, OpError, add_test_case, def_op, lookup
from . import params as P
from . import reference as ref
from .conv import (_CONV_ATTRS, _conv_meta, _dense, _empty_in, _onednn_attrs, _onednn_takes,
                   conv_op, nchw_conv)

_BN = ('bn_scale', 'bn_shift', 'bn_mean', 'bn_var')


def _fused_conv_meta(x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
                     padding, dilation, groups, data_format, bn_epsilon, act, act_attrs):
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
    return act_meta(Meta(out.shape, out.dtype), act, tuple(act_attrs), 'fused_conv')


_FUSED_ATTRS = dict(_CONV_ATTRS, bn_epsilon=1e-5, act='', act_attrs=())


@def_op('fused_conv', _fused_conv_meta,
        inputs=('x', 'weight', 'bias?', 'bn_scale?', 'bn_shift?', 'bn_mean?', 'bn_var?',
                'residual?'),
        attrs=_FUSED_ATTRS, differentiable=False,
        attr_types={'act': check_act, 'act_attrs': 'value'},
        pattern='opaque', fresh=True)
@float32_compute
def fused_conv_op(x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
                  padding, dilation, groups, data_format, bn_epsilon, act, act_attrs):
    """``act(batch_norm(conv(x, weight) + bias) + residual)`` (see the module doc)."""
    return _unfused('numpy', x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual,
                    stride, padding, dilation, groups, data_format, bn_epsilon, act, act_attrs)


def _unfused(backend, x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride,
             padding, dilation, groups, data_format, bn_epsilon, act, act_attrs):
    """The ops fused_conv stands for, one after the other, with their kernels
    on ``backend``: what the program computed before the pass."""
    y = conv_op.kernel_for(backend)(x, weight, bias, stride, padding, dilation, groups,
                                    data_format)
    if bn_mean is not None:
        y = batch_norm_op.kernel_for(backend)(y, bn_mean, bn_var, bn_scale, bn_shift, 0.9,
                                              bn_epsilon, data_format, True)[0]
    if residual is not None:
        y = np.add(y, residual, out=y) if y.dtype == residual.dtype else y + residual
    return lookup(act).kernel_for(backend)(y, *act_attrs) if act else y


# ---- on oneDNN ----------------------------------------------------------------------

# activations oneDNN applies as a post-op with the numpy kernel's results
# (max, min, one multiply: exact), as (eltwise algorithm, alpha(attrs),
# beta(attrs)); its tanh, sigmoid, silu... approximate exp differently from
# numpy's, so those run after the convolution with their own kernels
_E = onednn.constants
_ONEDNN_ACTS = {'relu': (_E.ELTWISE_RELU, lambda: 0.0, lambda: 0.0),
                'relu6': (_E.ELTWISE_CLIP, lambda t: 0.0, lambda t: t),
                'leaky_relu': (_E.ELTWISE_RELU, lambda slope: slope, lambda slope: 0.0),
                'hardtanh': (_E.ELTWISE_CLIP, lambda lo, hi: lo, lambda lo, hi: hi)}


def _post_act(act, act_attrs):
    """``act`` as a oneDNN eltwise post-op, or None."""
    found = _ONEDNN_ACTS.get(act)
    if found is None:
        return None
    alg, alpha, beta = found
    return alg, float(alpha(*act_attrs)), float(beta(*act_attrs))


@fused_conv_op.def_kernel('onednn')
def _fused_conv_onednn(*args):
    out = _on_onednn(args, keep=False)
    # None: oneDNN would run the convolution differently with its post-ops (or
    # not at all): the unfused ops on oneDNN, as the program did before
    return _unfused('onednn', *args) if out is None else out


@fused_conv_op.def_layout_kernel('onednn', takes=('x', 'residual'), gives=('out',),
                                 applies=nchw_conv)
def _fused_conv_onednn_layout(*args, keep):
    """The fused convolution reading ``x`` and ``residual`` in oneDNN layouts
    and, with ``out`` in ``keep``, leaving its result in the layout it writes."""
    if args[12] not in ('NCHW', 'NCDHW'):
        return NotImplemented
    out = _on_onednn(args, keep='out' in keep)
    return NotImplemented if out is None else out      # (the wrapper then runs the kernel)


@functools.lru_cache(maxsize=4096)
def _out_shape(x_shape, w_shape, b_shape, stride, padding, dilation, groups, data_format):
    """The convolution's output shape (a served model asks it per call: its
    infer_meta cost a third of a small conv's time)."""
    metas = [None if s is None else Meta(s, np.float32) for s in (x_shape, w_shape, b_shape)]
    return tuple(_conv_meta(*metas, stride, padding, dilation, groups, data_format).shape)


# the batch norm vectors of frozen statistics and parameters (a loaded
# model's): {ids: (the arrays, which keep the ids theirs; scale, shift)}
_FROZEN_AFFINE = collections.OrderedDict()
_FROZEN_AFFINE_SIZE = 1024


def _affine(mean, var, weight, bias, epsilon):
    """The dense float32 ``(scale, shift)`` of an inference batch norm
    (``bn_affine``); computed once for frozen arrays."""
    arrays = (mean, var, weight, bias)
    still = all(a is None or frozen(a) for a in arrays)
    key = tuple(map(id, arrays)) + (float(epsilon),)
    if still:
        hit = _FROZEN_AFFINE.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], arrays)):
            return hit[1]
    _, scale, shift = bn_affine(mean.astype(np.float32), var.astype(np.float32), weight, bias,
                                epsilon, np.float32)
    affine = _dense(scale, shift)
    if still:
        _FROZEN_AFFINE[key] = (arrays, affine)
        while len(_FROZEN_AFFINE) > _FROZEN_AFFINE_SIZE:
            _FROZEN_AFFINE.popitem(last=False)
    return affine


def _hashable(v):
    """An attribute as a key: lists (nested or not) as tuples."""
    return tuple(_hashable(e) for e in v) if isinstance(v, (list, tuple)) else v


def _on_onednn(args, keep):
    """fused_conv's result by one oneDNN convolution with post-ops (``keep``:
    in the layout it writes); NotImplemented for calls oneDNN does not take
    (dtypes, empty arrays: numpy runs them), None where the convolution with
    post-ops would not give the unfused ops' result."""
    (x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual, stride, padding, dilation,
     groups, data_format, bn_epsilon, act, act_attrs) = args
    post = _post_act(act, act_attrs)
    if x.ndim != weight.ndim or not _onednn_takes(
            x, weight, bias, bn_scale, bn_shift, bn_mean, bn_var, residual):
        return NotImplemented
    if keep and act and post is None:
        return None          # the activation's own kernel would run on a oneDNN layout
    out_shape = _out_shape(x.shape, weight.shape, None if bias is None else bias.shape,
                           _hashable(stride), _hashable(padding), _hashable(dilation), groups,
                           data_format)
    if min(out_shape) <= 0 or (residual is not None and tuple(residual.shape) != out_shape):
        return NotImplemented
    affine = None if bn_mean is None else _affine(bn_mean, bn_var, bn_scale, bn_shift,
                                                  bn_epsilon)
    x, weight, bias, residual = _dense(x, weight, bias, residual)
    nchw = (x.shape[0], weight.shape[0]) + tuple(P.spatial_shape(out_shape, data_format))
    out = view = None
    if not keep:
        out, view = _empty_in(nchw[:2], nchw[2:], data_format)
    done = dnnl_conv.forward(onednn.runtime(), P.to_nchw(x, data_format), P.weight4(weight),
                             bias, *_onednn_attrs(x.ndim, stride, padding, dilation), groups,
                             view, affine=affine, residual=None if residual is None
                             else P.to_nchw(residual, data_format), act=post, as_plain=True,
                             out_shape=nchw)
    if done is None:
        return None
    if keep:
        return done
    return lookup(act).kernel_for('onednn')(out, *act_attrs) if act and post is None else out


# ---- test cases (independent numpy references: the naive loops of reference.py) -----

def _ref(x, w, b, scale, shift, mean, var, res, stride, padding, dilation, groups, fmt, eps,
         act, act_attrs):
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
            'hardswish': lambda v: v * np.clip(v + 3, 0, 6) / 6,
            'relu6': lambda v, t: np.minimum(np.maximum(v, 0), t),
            'leaky_relu': lambda v, a: np.where(v > 0, v, a * v)}[act](y, *act_attrs)


_rng = np.random.default_rng(33)
_x = _rng.standard_normal((2, 3, 7, 6))
_w = _rng.standard_normal((4, 3, 3, 3))
_stats = [_rng.standard_normal(4), _rng.standard_normal(4), _rng.standard_normal(4),
          _rng.uniform(0.5, 2.0, 4)]
_res = _rng.standard_normal((2, 4, 7, 6))
_geom = ([1, 1], [1, 1, 1, 1], [1, 1], 1)
# the ResNet chain: conv + bn + residual + relu
add_test_case(fused_conv_op, _x, _w, None, *_stats, _res, *_geom, 'NCHW', 1e-5, 'relu', (),
              ref=_ref)
# conv + bias + silu, stride 2, no batch norm, no residual
add_test_case(fused_conv_op, _x, _w, _rng.standard_normal(4), None, None, None, None, None,
              [2, 2], [0, 1, 1, 0], [1, 1], 1, 'NCHW', 1e-5, 'silu', (), ref=_ref)
# depthwise with a dilation, batch norm without scale and shift, tanh
_xd = _rng.standard_normal((1, 4, 8, 8))
add_test_case(fused_conv_op, _xd, _rng.standard_normal((4, 1, 3, 3)), None, None, None,
              _stats[2], _stats[3], None, [1, 1], [2, 2, 2, 2], [2, 2], 4, 'NCHW', 1e-3, 'tanh', (),
              ref=_ref)
# channel-last, bn + residual, hardswish; and a float32 case with sigmoid
_xl = _rng.standard_normal((2, 6, 5, 3))
add_test_case(fused_conv_op, _xl, _w, None, *_stats, _rng.standard_normal((2, 6, 5, 4)),
              *_geom, 'NHWC', 1e-5, 'hardswish', (), ref=_ref)
add_test_case(fused_conv_op, _x.astype(np.float32), _w.astype(np.float32), None,
              *[s.astype(np.float32) for s in _stats], _res.astype(np.float32), *_geom, 'NCHW',
              1e-5, 'sigmoid', (), ref=_ref, rtol=1e-4, atol=1e-5, grad=False)
# a 1x1 conv on one pixel and no activation; an empty batch
add_test_case(fused_conv_op, _rng.standard_normal((3, 3, 1, 1)),
              _rng.standard_normal((4, 3, 1, 1)), None, *_stats, None, [1, 1], [0, 0, 0, 0],
              [1, 1], 1, 'NCHW', 1e-5, '', (), ref=_ref)
add_test_case(fused_conv_op, np.zeros((0, 3, 7, 6)), _w, None, *_stats, None, *_geom, 'NCHW',
              1e-5, 'relu', (), ref=_ref)
# relu6 and leaky_relu with their attributes (MobileNet's conv + bn + relu6)
add_test_case(fused_conv_op, _x * 3, _w, None, *_stats, None, *_geom, 'NCHW', 1e-5, 'relu6',
              (6.0,), ref=_ref)
add_test_case(fused_conv_op, _x, _w, None, None, None, None, None,
              _rng.standard_normal((2, 4, 3, 5)), [2, 1], [1, 0, 0, 1], [1, 1], 1, 'NCHW', 1e-5,
              'leaky_relu', (0.2,), ref=_ref)
