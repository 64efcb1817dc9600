"""Neural-network ops: activations, normalisation, dropout, embedding, linear,
interpolation (``paddle.nn.functional`` minus conv/pooling and the losses).

Layout of each op follows ``math.py``: numpy kernel, ``infer_meta``, a grad
rule written with registered ops (so double grad and static backward work),
and, where it pays, a fused numpy fast grad. Normalisation, linear, softmax
and dropout are single fused ops so a training step stays cheap in eager mode.

Composite grad rules reach the reduce/manipulation ops through ``lib`` (those
modules are above this one).
"""
import math

import numpy as np

from .. import random as _random
from ..backends import Opaque, onednn, plain
from ..backends.onednn import eltwise as dnnl_eltwise
from ..backends.onednn import layout as dnnl_layout
from ..backends.onednn import norm as dnnl_norm
from ..backends.onednn import softmax as dnnl_softmax
from . import lib, meta, registry
from .conv.conv import nchw_conv
from .conv.pool import _avg_matrix
from .grad_utils import sum_like, unbroadcast, wants
from .math import gemm, onednn_product
from .math import (cast_like, exp_op, greater_than_op, less_than_op, logical_and_op, matmul,
                   maximum_op, minimum_op, tanh_op)
from .math import sigmoid as _math_sigmoid
from .lowp import float32_compute
from .properties import inline_form, per_sample
from .modes import in_static_mode
from .registry import Meta, OpError, add_test_case, def_op, lookup


def _mask(cond, like):
    """A 0/1 tensor of ``like``'s dtype from a boolean tensor (for grad rules)."""
    return cast_like(cond, like)


def _sigmoid_t(x):
    """sigmoid written with tanh: no overflow and needs only registered ops."""
    return 0.5 + 0.5 * tanh_op(0.5 * x)


def _sigmoid_np(x):
    return 0.5 + 0.5 * np.tanh(0.5 * x)


def _act(name, kernel, grad, fast_grad, save_inputs=True, infer=meta.unchanged, **properties):
    """Declare a one-input op, elementwise unless ``properties`` say otherwise;
    the kernel's defaulted parameters are its attributes."""
    properties.setdefault('pattern', 'elementwise')
    if properties['pattern'] == 'elementwise':
        properties.setdefault('ufunc', None)
        properties.setdefault('flops', None)
    op = def_op(name, infer, save_inputs=save_inputs, **properties)(kernel)
    op.def_grad(grad)
    op.def_fast_grad(fast_grad)
    return op


# ---- piecewise-linear activations -------------------------------------------

# np.maximum against the scalar 0 runs numpy's scalar-operand loop; against an
# array of zeros it runs the SIMD loop, 2-3x faster even reading the zeros.
# One zeros block per dtype (256 KB in float32, it stays in cache) serves
# contiguous inputs block by block.
_ZERO_BLOCK = 1 << 16
_zero_blocks = {}


def _relu_k(x):
    if x.dtype.kind != 'f' or not x.flags.c_contiguous or x.size < 1024:
        return np.maximum(x, 0)
    zeros = _zero_blocks.get(x.dtype)
    if zeros is None:
        zeros = _zero_blocks[x.dtype] = np.zeros(_ZERO_BLOCK, x.dtype)
        zeros.flags.writeable = False
    out = np.empty_like(x)
    xf, of, n = x.reshape(-1), out.reshape(-1), x.size
    for s in range(0, n, _ZERO_BLOCK):
        e = min(s + _ZERO_BLOCK, n)
        np.maximum(xf[s:e], zeros[:e - s], out=of[s:e])
    return out


def _relu_into(x, out):
    return np.maximum(x, 0, out=out, casting='no')


inline_form(_relu_into, np.maximum, 0)


relu_op = _act('relu', _relu_k,
               lambda g, x, out: relu_grad_op(g, out),
               lambda g, x, out: g * (out > 0), save_inputs=False, kernel_into=_relu_into)
relu_op.def_onnx(lambda g, x: g.op('Relu', x))


# ---- the piecewise-linear activations' backward as ops -------------------------------
# (Paddle's relu_grad, relu6_grad, leaky_relu_grad, hardtanh_grad.) A static
# backward then reads the saved operand once instead of through a mask's
# comparison ops, and a oneDNN plan keeps both operands in its layouts
# (passes/layout.py): oneDNN's eltwise backward computes these very masks
# (relu with alpha: dd if s > 0 else alpha * dd; clip_v2: dd if lo < s < hi else 0).

def _masked_grad_meta(name, operand):
    def infer(out_grad, v, *attrs):
        gs, vs = meta.shape_of(out_grad), meta.shape_of(v)
        if len(gs) != len(vs) or any(a != b and -1 not in (a, b) for a, b in zip(gs, vs)):
            raise OpError("%s: out_grad %s must have the shape of %s %s"
                          % (name, list(gs), operand, list(vs)))
        return Meta(gs, meta.dtype_of(out_grad))
    return infer


def _masked_grad_op(name, operand, attrs, grad, algorithm, alpha_beta):
    """Declare op ``name``: an activation's input gradient ``grad(out_grad,
    v, *attrs)`` from the forward's ``operand`` (``'x'`` or ``'out'``),
    linear in ``out_grad`` (so its own gradient is itself, applied to the
    cotangent) and piecewise constant in ``v``; on oneDNN, in a static
    plan's layouts, eltwise ``algorithm`` backward with ``alpha_beta(*attrs)``."""
    infer = _masked_grad_meta(name, operand)

    def kernel(out_grad, v, *attr_values):
        if out_grad.shape != v.shape:
            infer(out_grad, v)
        return np.asarray(grad(out_grad, v, *attr_values))
    kernel.__doc__ = "%s's input gradient from its %s." % (name[:-len('_grad')], operand)
    op = def_op(name, infer, inputs=('out_grad', operand), outputs=('x_grad',), attrs=attrs,
                no_grad_inputs=(operand,), pattern='opaque')(kernel)
    op.def_grad(lambda gg, out_grad, v, x_grad, *a: (op(gg, v, *a), None))
    op.def_fast_grad(lambda gg, out_grad, v, x_grad, *a: (grad(gg, v, *a), None))

    @op.def_layout_kernel('onednn', takes=('out_grad', operand), gives=('x_grad',))
    def layout_kernel(out_grad, v, *attr_values, keep):
        if not (dnnl_layout.takes(out_grad, v) and out_grad is not None and v is not None) or \
                out_grad.shape != v.shape or out_grad.strides != v.strides or \
                (isinstance(v, np.ndarray) and not v.flags.c_contiguous):
            return NotImplemented
        gx = dnnl_eltwise.backward(onednn.runtime(), out_grad, v, algorithm,
                                   *alpha_beta(*attr_values), dnnl_layout.like(v))
        return NotImplemented if gx is None else gx if 'x_grad' in keep else plain(gx)
    return op


_E = onednn.constants
# relu'(out) is relu'(x): out > 0 exactly where x > 0
relu_grad_op = _masked_grad_op('relu_grad', 'out', {}, lambda g, out: g * (out > 0),
                               _E.ELTWISE_RELU, lambda: (0.0, 0.0))
relu6_grad_op = _masked_grad_op(
    'relu6_grad', 'x', {'threshold': 6.0}, lambda g, x, t: g * ((x > 0) & (x < t)),
    _E.ELTWISE_CLIP_V2, lambda t: (0.0, t))
leaky_relu_grad_op = _masked_grad_op(
    'leaky_relu_grad', 'x', {'negative_slope': 0.01},
    lambda g, x, slope: np.where(x > 0, g, g * slope), _E.ELTWISE_RELU,
    lambda slope: (slope, 0.0))
hardtanh_grad_op = _masked_grad_op(
    'hardtanh_grad', 'x', {'t_min': -1.0, 't_max': 1.0},
    lambda g, x, lo, hi: g * ((x > lo) & (x < hi)), _E.ELTWISE_CLIP_V2,
    lambda lo, hi: (lo, hi))


def _relu6_k(x, threshold=6.0):
    return np.clip(x, 0, threshold)


relu6_op = _act(
    'relu6', float32_compute(_relu6_k),
    lambda g, x, out, threshold: relu6_grad_op(g, x, threshold),
    lambda g, x, out, threshold: g * ((x > 0) & (x < threshold)))


relu6_op.def_onnx(lambda g, x, threshold: g.op('Clip', x, g.scalar(0, x),
                                                    g.scalar(threshold, x)))


def _leaky_relu_k(x, negative_slope=0.01):
    return np.where(x > 0, x, x * negative_slope)


leaky_relu_op = _act('leaky_relu', _leaky_relu_k,
                     lambda g, x, out, slope: leaky_relu_grad_op(g, x, slope),
                     lambda g, x, out, slope: g * np.where(x > 0, 1, slope).astype(g.dtype))


leaky_relu_op.def_onnx(lambda g, x, slope: g.op('LeakyRelu', x, alpha=float(slope)))


def _hardtanh_k(x, t_min=-1.0, t_max=1.0):
    return np.clip(x, t_min, t_max)


hardtanh_op = _act(
    'hardtanh', float32_compute(_hardtanh_k),
    lambda g, x, out, lo, hi: hardtanh_grad_op(g, x, lo, hi),
    lambda g, x, out, lo, hi: g * ((x > lo) & (x < hi)))


hardtanh_op.def_onnx(lambda g, x, lo, hi: g.op('Clip', x, g.scalar(lo, x), g.scalar(hi, x)))


# The piecewise-linear activations in a static plan on oneDNN, reading and
# writing its layouts (passes/layout.py): oneDNN's relu and clip compute
# exactly what the numpy kernels do (max/min; leaky relu's one multiply)
def _eltwise_layout(op, algorithm, alpha_beta):
    """Declare ``op``'s oneDNN layout kernel: eltwise ``algorithm`` with
    ``alpha_beta(*attrs)``, the result laid out as the input."""
    @op.def_layout_kernel('onednn', takes=('x',), gives=('out',))
    def kernel(x, *attrs, keep):
        if not (dnnl_layout.takes(x) and x is not None) or \
                (isinstance(x, np.ndarray) and not x.flags.c_contiguous):
            return NotImplemented
        y = dnnl_eltwise.forward(onednn.runtime(), x, algorithm, *alpha_beta(*attrs),
                                 dnnl_layout.like(x))
        return NotImplemented if y is None else y if 'out' in keep else plain(y)
    return kernel


_eltwise_layout(relu_op, _E.ELTWISE_RELU, lambda: (0.0, 0.0))
_eltwise_layout(relu6_op, _E.ELTWISE_CLIP, lambda threshold: (0.0, threshold))
_eltwise_layout(leaky_relu_op, _E.ELTWISE_RELU, lambda slope: (slope, 0.0))
_eltwise_layout(hardtanh_op, _E.ELTWISE_CLIP, lambda lo, hi: (lo, hi))


def _hardsigmoid_k(x, slope=0.1666667, offset=0.5):
    return np.clip(x * slope + offset, 0, 1).astype(x.dtype, copy=False)


def _hardsigmoid_grad(g, x, out, slope, offset):
    inside = logical_and_op(greater_than_op(out, 0), less_than_op(out, 1))
    return g * _mask(inside, g) * slope


hardsigmoid_op = _act('hardsigmoid', _hardsigmoid_k, _hardsigmoid_grad,
                      lambda g, x, out, slope, offset: g * ((out > 0) & (out < 1)) * slope,
                      save_inputs=False)


hardsigmoid_op.def_onnx(lambda g, x, slope, offset: g.op('HardSigmoid', x, alpha=float(slope),
                                                               beta=float(offset)))


def _hardswish_k(x):
    return x * np.clip(x + 3, 0, 6) / 6


def _hardswish_grad(g, x, out):
    mid = _mask(logical_and_op(greater_than_op(x, -3.0), less_than_op(x, 3.0)), g)
    hi = _mask(greater_than_op(x, 3.0), g)
    return g * (hi + mid * (2 * x + 3) / 6)


def _hardswish_fast(g, x, out):
    d = np.where(x >= 3, 1.0, np.where(x > -3, (2 * x + 3) / 6, 0.0))
    return g * d.astype(g.dtype, copy=False)


hardswish_op = _act('hardswish', float32_compute(_hardswish_k), _hardswish_grad, _hardswish_fast)


@hardswish_op.def_onnx
def _hardswish_onnx(g, x):
    # the kernel's own formula, x * clip(x + 3, 0, 6) / 6 (ONNX's HardSwish rounds
    # differently and has no float64 kernel in onnxruntime)
    dtype = g.meta(x).dtype
    c = g.op('Clip', g.op('Add', x, g.scalar(3, dtype)), g.scalar(0, dtype), g.scalar(6, dtype))
    return g.op('Div', g.op('Mul', x, c), g.scalar(6, dtype))


def _hardshrink_k(x, threshold=0.5):
    return np.where(np.abs(x) > threshold, x, 0).astype(x.dtype, copy=False)


def _shrink_mask(x, t, like):
    return _mask(greater_than_op(x, t), like) + _mask(less_than_op(x, -t), like)


def _onnx_where_abs_above(g, x, t, value):
    """``value`` where ``|x| > t``, else 0 (the shrink functions)."""
    dtype = g.meta(x).dtype
    return g.op('Where', g.op('Greater', g.op('Abs', x), g.scalar(t, dtype)), value,
                g.scalar(0, dtype))


hardshrink_op = _act('hardshrink', _hardshrink_k,
                     lambda g, x, out, t: g * _shrink_mask(x, t, g),
                     lambda g, x, out, t: g * (np.abs(x) > t))


hardshrink_op.def_onnx(lambda g, x, t: _onnx_where_abs_above(g, x, t, x))


def _softshrink_k(x, threshold=0.5):
    return np.where(x > threshold, x - threshold,
                    np.where(x < -threshold, x + threshold, 0)).astype(x.dtype, copy=False)


softshrink_op = _act('softshrink', _softshrink_k,
                     lambda g, x, out, t: g * _shrink_mask(x, t, g),
                     lambda g, x, out, t: g * (np.abs(x) > t))


@softshrink_op.def_onnx
def _softshrink_onnx(g, x, t):
    dtype = g.meta(x).dtype
    return _onnx_where_abs_above(g, x, t, g.op('Sub', x, g.op('Mul', g.op('Sign', x),
                                                               g.scalar(t, dtype))))


def _thresholded_relu_k(x, threshold=1.0):
    return np.where(x > threshold, x, 0).astype(x.dtype, copy=False)


thresholded_relu_op = _act('thresholded_relu', _thresholded_relu_k,
                           lambda g, x, out, t: g * _mask(greater_than_op(x, t), g),
                           lambda g, x, out, t: g * (x > t))


thresholded_relu_op.def_onnx(lambda g, x, t: g.op('Where', g.op('Greater', x, g.scalar(t, x)), x,
                                                         g.scalar(0, x)))


# ---- smooth activations -----------------------------------------------------

def _elu_k(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0))).astype(x.dtype, copy=False)


def _elu_grad(g, x, out, alpha):
    m = _mask(greater_than_op(x, 0), g)
    # exp(min(x, 0)) keeps the unused branch finite for large x
    return g * (m + (1 - m) * alpha * exp_op(minimum_op(x, 0.0)))


elu_op = _act('elu', _elu_k, _elu_grad,
              lambda g, x, out, alpha: g * np.where(x > 0, 1, alpha * np.exp(np.minimum(x, 0))))


elu_op.def_onnx(lambda g, x, alpha: g.op('Elu', x, alpha=float(alpha)))

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717


def _selu_k(x, scale=_SELU_SCALE, alpha=_SELU_ALPHA):
    return (scale * np.where(x > 0, x, alpha * np.expm1(np.minimum(x, 0)))).astype(
        x.dtype, copy=False)


def _selu_grad(g, x, out, scale, alpha):
    m = _mask(greater_than_op(x, 0), g)
    return g * scale * (m + (1 - m) * alpha * exp_op(minimum_op(x, 0.0)))


selu_op = _act('selu', _selu_k, _selu_grad,
               lambda g, x, out, scale, alpha: g * (scale * np.where(
                   x > 0, 1, alpha * np.exp(np.minimum(x, 0)))))


selu_op.def_onnx(lambda g, x, scale, alpha: g.op('Selu', x, alpha=float(alpha), gamma=float(scale)))


def _celu_k(x, alpha=1.0):
    return (np.maximum(x, 0) + np.minimum(0, alpha * np.expm1(np.minimum(x, 0) / alpha))).astype(
        x.dtype, copy=False)


def _celu_grad(g, x, out, alpha):
    m = _mask(greater_than_op(x, 0), g)
    return g * (m + (1 - m) * exp_op(minimum_op(x, 0.0) / alpha))


celu_op = _act('celu', _celu_k, _celu_grad,
               lambda g, x, out, alpha: g * np.where(x > 0, 1, np.exp(np.minimum(x, 0) / alpha)))


@celu_op.def_onnx
def _celu_onnx(g, x, alpha):
    # max(x, 0) + min(0, alpha * (exp(min(x, 0) / alpha) - 1)), as the kernel
    dtype = g.meta(x).dtype
    zero, a = g.scalar(0, dtype), g.scalar(alpha, dtype)
    e = g.op('Sub', g.op('Exp', g.op('Div', g.op('Min', x, zero), a)), g.scalar(1, dtype))
    return g.op('Add', g.op('Max', x, zero), g.op('Min', zero, g.op('Mul', a, e)))

_SQRT_2 = math.sqrt(2.0)
_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _erf_np(x):
    # the math module's erf kernel: one erf implementation in the framework
    return lookup('erf').kernel(x)


def _gelu_k(x, approximate=False):
    if approximate:
        inner = _SQRT_2_PI * (x + 0.044715 * x ** 3)
        return (0.5 * x * (1 + np.tanh(inner))).astype(x.dtype, copy=False)
    return (0.5 * x * (1 + _erf_np(x / _SQRT_2))).astype(x.dtype, copy=False)


def _gelu_grad(g, x, out, approximate):
    if approximate:
        t = tanh_op(_SQRT_2_PI * (x + 0.044715 * x * x * x))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
        return g * d
    cdf = 0.5 * (1 + lib.erf(x / _SQRT_2))
    return g * (cdf + x * exp_op(-0.5 * x * x) * _INV_SQRT_2PI)


def _gelu_fast(g, x, out, approximate):
    if registry.active_backend() == 'onednn':
        gx = _gelu_grad_onednn(g, x, approximate)
        if gx is not NotImplemented:
            return gx
    if approximate:
        t = np.tanh(_SQRT_2_PI * (x + 0.044715 * x ** 3))
        d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _SQRT_2_PI * (1 + 3 * 0.044715 * x * x)
    else:
        d = 0.5 * (1 + _erf_np(x / _SQRT_2)) + x * np.exp(-0.5 * x * x) * _INV_SQRT_2PI
    return (g * d).astype(g.dtype, copy=False)


gelu_op = _act('gelu', _gelu_k, _gelu_grad, _gelu_fast)

# oneDNN's GELU: 40x numpy's erf on activations of a transformer's size; below
# ONEDNN_MIN_SIZE elements a oneDNN call costs more than numpy's formula
ONEDNN_MIN_SIZE = 4096
_GELU_ALGORITHMS = {False: onednn.constants.ELTWISE_GELU_ERF,
                    True: onednn.constants.ELTWISE_GELU_TANH}


def _onednn_sized(*arrays):
    return all(isinstance(a, np.ndarray) and a.dtype == np.float32 and
               a.size >= ONEDNN_MIN_SIZE for a in arrays)


@gelu_op.def_kernel('onednn')
def _gelu_onednn(x, approximate=False):
    if not _onednn_sized(x):
        return NotImplemented
    y = dnnl_eltwise.forward(onednn.runtime(), np.ascontiguousarray(x),
                             _GELU_ALGORITHMS[bool(approximate)], 0.0, 0.0,
                             np.empty(x.shape, np.float32))
    return NotImplemented if y is None else y


def _gelu_grad_onednn(g, x, approximate):
    """gelu's fast gradient on oneDNN (the op's fast grad asks while oneDNN
    is the backend), NotImplemented where numpy's runs."""
    if not _onednn_sized(g, x) or g.shape != x.shape:
        return NotImplemented
    gx = dnnl_eltwise.backward(onednn.runtime(), np.ascontiguousarray(g),
                               np.ascontiguousarray(x), _GELU_ALGORITHMS[bool(approximate)],
                               0.0, 0.0, np.empty(x.shape, np.float32))
    return NotImplemented if gx is None else gx


@gelu_op.def_onnx
def _gelu_onnx(g, x, approximate):
    dtype = g.meta(x).dtype
    half = g.op('Mul', x, g.scalar(0.5, dtype))
    if approximate:
        cube = g.op('Mul', g.op('Mul', x, x), x)
        inner = g.op('Mul', g.op('Add', x, g.op('Mul', cube, g.scalar(0.044715, dtype))),
                     g.scalar(_SQRT_2_PI, dtype))
        t = g.op('Tanh', inner)
    else:
        t = g.op('Erf', g.op('Div', x, g.scalar(_SQRT_2, dtype)))
    return g.op('Mul', half, g.op('Add', t, g.scalar(1, dtype)))


def _silu_k(x):
    return x * _sigmoid_np(x)


def _silu_grad(g, x, out):
    s = _sigmoid_t(x)
    return g * s * (1 + x * (1 - s))


def _silu_fast(g, x, out):
    s = _sigmoid_np(x)
    return g * s * (1 + x * (1 - s))


silu_op = _act('silu', _silu_k, _silu_grad, _silu_fast)


silu_op.def_onnx(lambda g, x: g.op('Mul', x, g.op('Sigmoid', x)))


def _softplus_k(x, beta=1.0, threshold=20.0):
    z = x * beta
    return np.where(z > threshold, x, np.logaddexp(0, z) / beta).astype(x.dtype, copy=False)


def _softplus_grad(g, x, out, beta, threshold):
    m = _mask(greater_than_op(x * beta, threshold), g)
    return g * (m + (1 - m) * _sigmoid_t(x * beta))


softplus_op = _act('softplus', _softplus_k, _softplus_grad,
                   lambda g, x, out, beta, threshold: g * np.where(
                       x * beta > threshold, 1, _sigmoid_np(x * beta)), amp='black')


def _onnx_softplus(g, x, beta, threshold, dtype):
    z = g.op('Mul', x, g.scalar(beta, dtype)) if beta != 1 else x
    soft = g.op('Softplus', z)
    if beta != 1:
        soft = g.op('Div', soft, g.scalar(beta, dtype))
    return g.op('Where', g.op('Greater', z, g.scalar(threshold, dtype)), x, soft)


softplus_op.def_onnx(lambda g, x, beta, threshold: _onnx_softplus(g, x, beta, threshold,
                                                                  g.meta(x).dtype))


def _mish_k(x, threshold=20.0):
    sp = np.where(x > threshold, x, np.logaddexp(0, x))
    return (x * np.tanh(sp)).astype(x.dtype, copy=False)


def _mish_grad(g, x, out, threshold):
    t = tanh_op(softplus_op(x, 1.0, threshold))
    m = _mask(greater_than_op(x, threshold), g)
    dsp = m + (1 - m) * _sigmoid_t(x)
    return g * (t + x * (1 - t * t) * dsp)


def _mish_fast(g, x, out, threshold):
    sp = np.where(x > threshold, x, np.logaddexp(0, x))
    t = np.tanh(sp)
    dsp = np.where(x > threshold, 1, _sigmoid_np(x))
    return g * (t + x * (1 - t * t) * dsp)


mish_op = _act('mish', _mish_k, _mish_grad, _mish_fast)


mish_op.def_onnx(lambda g, x, threshold: g.op('Mul', x, g.op('Tanh', _onnx_softplus(
    g, x, 1.0, threshold, g.meta(x).dtype))))


def _softsign_k(x):
    return x / (1 + np.abs(x))


def _softsign_grad(g, x, out):
    d = 1 + lib.abs(x)
    return g / (d * d)


softsign_op = _act('softsign', _softsign_k, _softsign_grad,
                   lambda g, x, out: g / (1 + np.abs(x)) ** 2)


softsign_op.def_onnx(lambda g, x: g.op('Softsign', x))


def _tanhshrink_k(x):
    return x - np.tanh(x)


def _tanhshrink_grad(g, x, out):
    t = tanh_op(x)
    return g * t * t


tanhshrink_op = _act('tanhshrink', _tanhshrink_k, _tanhshrink_grad,
                     lambda g, x, out: g * np.tanh(x) ** 2, amp='black',
                     paddle_names=('tanh_shrink',))


tanhshrink_op.def_onnx(lambda g, x: g.op('Sub', x, g.op('Tanh', x)))


def _log_sigmoid_k(x):
    return (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)


def _log_sigmoid_fast(g, x, out):
    e = np.exp(-np.abs(x))
    return g * np.where(x >= 0, e, 1.0) / (1 + e)      # sigmoid(-x), overflow-free


log_sigmoid_op = _act('log_sigmoid', _log_sigmoid_k,
                      lambda g, x, out: g * _sigmoid_t(-x), _log_sigmoid_fast)


@log_sigmoid_op.def_onnx
def _log_sigmoid_onnx(g, x):
    # min(x, 0) - log1p(exp(-|x|)), overflow-free as the kernel
    dtype = g.meta(x).dtype
    e = g.op('Exp', g.op('Neg', g.op('Abs', x)))
    return g.op('Sub', g.op('Min', x, g.scalar(0, dtype)),
                g.op('Log', g.op('Add', e, g.scalar(1, dtype))))


# ---- softmax family ---------------------------------------------------------

def _softmax_k(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _softmax_grad(g, x, out, axis):
    # the fast grad's operations in its order: eager and static round alike
    go = g * out
    return go - out * lib.sum(go, axis=axis, keepdim=True)


def _softmax_fast(g, x, out, axis):
    go = g * out
    go -= out * go.sum(axis=axis, keepdims=True)
    return go


softmax_op = _act('softmax', _softmax_k, _softmax_grad, _softmax_fast,
                  infer=meta.unchanged_float, save_inputs=False, pattern='opaque', amp='black')


softmax_op.def_onnx(lambda g, x, axis: g.op('Softmax', *g.cast_to_output(x), axis=axis))


def _log_softmax_k(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    z -= np.log(np.exp(z).sum(axis=axis, keepdims=True))
    return z


def _log_softmax_grad(g, x, out, axis):
    return g - exp_op(out) * lib.sum(g, axis=axis, keepdim=True)


def _log_softmax_fast(g, x, out, axis):
    return g - np.exp(out) * g.sum(axis=axis, keepdims=True)


log_softmax_op = _act('log_softmax', _log_softmax_k, _log_softmax_grad, _log_softmax_fast,
                      infer=meta.unchanged_float, save_inputs=False, pattern='opaque',
                      amp='black')


log_softmax_op.def_onnx(lambda g, x, axis: g.op('LogSoftmax', *g.cast_to_output(x), axis=axis))


@softmax_op.def_kernel('onednn')
def _softmax_onednn(x, axis=-1):
    """oneDNN's softmax over the last axis of a float32 array: 3-5x numpy's on
    attention-sized rows. Other axes run on numpy (oneDNN's strided-axis
    kernel was 20x slower than numpy's there). log_softmax stays on numpy:
    oneDNN's log-softmax was 8 ulps off (3.4e-6 at -7), Paddle's is not."""
    if not (isinstance(x, np.ndarray) and x.dtype == np.float32 and x.size
            and 0 < x.ndim <= onednn.constants.MAX_NDIMS and axis in (-1, x.ndim - 1)):
        return NotImplemented
    # dense first: whether oneDNN runs must not depend on a view's strides
    # (eager and static would then round differently)
    y = dnnl_softmax.forward(onednn.runtime(), np.ascontiguousarray(x), x.ndim - 1,
                             np.empty(x.shape, np.float32))
    return NotImplemented if y is None else y


# ---- randomized activations ----------------------------------------------------

def _rrelu_meta(x, lower=0.125, upper=1 / 3, is_test=False):
    return Meta(meta.shape_of(x), meta.dtype_of(x)), Meta(meta.shape_of(x), meta.dtype_of(x))


@def_op('rrelu', _rrelu_meta, outputs=('out', 'noise'), nondiff_outputs=('noise',),
        effects=('random',), save_inputs=False, pattern='opaque')
def rrelu_op(x, lower=0.125, upper=1 / 3, is_test=False):
    """Randomized leaky relu: negative inputs are scaled by a slope drawn from
    U(lower, upper) per element (training) or by (lower + upper) / 2 (test);
    ``noise`` holds the factor each element was multiplied by."""
    if is_test:
        slope = np.asarray((lower + upper) / 2, x.dtype)
    else:
        slope = _random.generator().uniform(lower, upper, x.shape).astype(x.dtype, copy=False)
    noise = np.where(x >= 0, np.asarray(1, x.dtype), slope).astype(x.dtype, copy=False)
    return x * noise, noise


rrelu_op.def_grad(lambda g, gn, x, out, noise, lower, upper, is_test: g * noise)
rrelu_op.def_fast_grad(lambda g, gn, x, out, noise, lower, upper, is_test: g * noise)


@rrelu_op.def_onnx
def _rrelu_onnx(g, x, lower, upper, is_test):
    # inference: negative inputs scaled by the mean slope (an export is in inference mode)
    dtype = g.meta(x).dtype
    slope = g.op('Mul', x, g.scalar((lower + upper) / 2, dtype))
    return g.op('Where', g.op('GreaterOrEqual', x, g.scalar(0, dtype)), x, slope)


def _gumbel_meta(x, noise, temperature=1.0, hard=False, axis=-1):
    meta.broadcast_shapes(meta.shape_of(x), meta.shape_of(noise), 'gumbel_softmax: x and noise')
    return Meta(meta.shape_of(x), meta.dtype_of(x))


@def_op('gumbel_softmax', _gumbel_meta, no_grad_inputs=('noise',), save_inputs=False,
        pattern='opaque')
def gumbel_softmax_op(x, noise, temperature=1.0, hard=False, axis=-1):
    """``softmax((x + noise) / temperature)`` along ``axis`` (``noise`` is Gumbel
    noise drawn by the caller); ``hard`` turns each result into the one-hot of
    its maximum. The gradient is the softmax gradient at the output, as in
    Paddle's kernel (so a hard output passes no gradient)."""
    z = ((x + noise) / temperature).astype(x.dtype, copy=False)
    if z.ndim == 0:                    # one class: probability 1
        return np.ones_like(z)
    y = _softmax_k(z, axis)
    if hard and y.size:
        k = np.expand_dims(np.argmax(y, axis=axis), axis)
        y = np.zeros_like(y)
        np.put_along_axis(y, k, 1, axis=axis)
    return y


@gumbel_softmax_op.def_grad
def _gumbel_grad(g, x, noise, out, temperature, hard, axis):
    if len(out.shape) == 0:
        return g * 0, None
    return _softmax_grad(g, None, out, axis) / temperature, None


@gumbel_softmax_op.def_fast_grad
def _gumbel_fast(g, x, noise, out, temperature, hard, axis):
    if out.ndim == 0:
        return g * 0, None
    return _softmax_fast(g, None, out, axis) / np.asarray(temperature, g.dtype), None


# ---- class center sampling ----------------------------------------------------

def _ccs_meta(label, num_classes=1, num_samples=1):
    meta.check_rank('class_center_sample', 'label', label, (1,))
    return Meta(meta.shape_of(label), meta.dtype_of(label)), Meta((-1,), meta.dtype_of(label))


@def_op('class_center_sample', _ccs_meta, outputs=('remapped_label', 'sampled_class_center'),
        differentiable=False, effects=('random',), pattern='opaque')
def class_center_sample_op(label, num_classes=1, num_samples=1):
    """The sorted classes present in ``label``, then randomly chosen absent
    classes up to ``num_samples`` centers; labels remapped to center indices."""
    if label.size and (label.min() < 0 or label.max() >= num_classes):
        raise OpError("class_center_sample: labels must be in [0, num_classes=%d), got values "
                      "in [%d, %d]" % (num_classes, label.min(), label.max()))
    positive, remapped = np.unique(label, return_inverse=True)
    extra = max(num_samples - positive.size, 0)
    if extra:
        negative = np.setdiff1d(np.arange(num_classes), positive)
        positive = np.concatenate([positive, _random.generator().permutation(negative)[:extra]])
    return remapped.reshape(label.shape).astype(label.dtype), positive.astype(label.dtype)


# ---- sequence helpers (masks, beam back-tracing) ---------------------------------

def _sequence_mask_meta(x, maxlen=-1, dtype='int64'):
    return Meta(tuple(meta.shape_of(x)) + (maxlen if maxlen >= 0 else -1,), dtype)


@def_op('sequence_mask', _sequence_mask_meta, differentiable=False, pattern='opaque')
def sequence_mask_op(x, maxlen=-1, dtype='int64'):
    """``out[..., j] = j < x[...]`` with ``maxlen`` columns (-1: ``max(x)``)."""
    if maxlen < 0:
        maxlen = int(x.max()) if x.size else 0
    return (np.arange(maxlen) < np.asarray(x)[..., None]).astype(dtype)


@sequence_mask_op.def_onnx
def _sequence_mask_onnx(g, x, maxlen, dtype):
    lengths = g.cast(x, np.int64)
    n = g.const(np.int64(maxlen)) if maxlen >= 0 else g.reduce('ReduceMax', lengths, None, False)
    if maxlen < 0:      # max(x), 0 for an empty x (ReduceMax of nothing is the lowest int)
        n = g.op('Max', n, g.const(np.int64(0)))
    cols = g.op('Range', g.const(np.int64(0)), n, g.const(np.int64(1)))
    mask = g.op('Less', cols, g.unsqueeze(lengths, [-1]))
    return g.op('Cast', mask, to=g.tensor_type(dtype))


def _gather_tree_meta(ids, parents):
    if list(meta.shape_of(ids)) != list(meta.shape_of(parents)) or len(meta.shape_of(ids)) != 3:
        raise OpError("gather_tree: ids and parents must both be [max_time, batch, beam], got "
                      "%s and %s" % (list(meta.shape_of(ids)), list(meta.shape_of(parents))))
    return Meta(meta.shape_of(ids), meta.dtype_of(ids))


@def_op('gather_tree', _gather_tree_meta, differentiable=False, pattern='opaque')
def gather_tree_op(ids, parents):
    """Full beam-search paths from per-step ids and parent beam indices, traced
    back from the last step: ``out[t, b, k]`` is the id at step t on the path
    that ends in beam k."""
    out = np.empty_like(ids)
    if ids.size == 0:
        return out
    steps, batch, beam = ids.shape
    if parents.min() < 0 or parents.max() >= beam:
        raise OpError("gather_tree: parents must be in [0, beam_size=%d), got values in "
                      "[%d, %d]" % (beam, parents.min(), parents.max()))
    rows = np.arange(batch)[:, None]
    parent = np.broadcast_to(np.arange(beam), (batch, beam))
    for t in range(steps - 1, -1, -1):
        out[t] = ids[t][rows, parent]
        parent = parents[t][rows, parent]
    return out


# ---- prelu ------------------------------------------------------------------

_CHANNEL_LAST = ('NLC', 'NHWC', 'NDHWC')


def _channel_axis(ndim, data_format):
    return ndim - 1 if data_format in _CHANNEL_LAST else 1


def _prelu_wshape(ndim, n_weight, data_format):
    """Broadcast shape of prelu's weight: one slope, or one per channel."""
    shape = [1] * ndim
    if n_weight != 1:
        shape[_channel_axis(ndim, data_format)] = n_weight
    return shape


def _prelu_meta(x, weight, data_format='NCHW'):
    xs, ws = meta.shape_of(x), meta.shape_of(weight)
    n = int(np.prod(ws)) if all(d >= 0 for d in ws) else -1
    if n not in (1, -1) and len(xs) >= 2:
        c = xs[_channel_axis(len(xs), data_format)]
        if c not in (-1, n):
            raise OpError("weight has %d elements but input %s has %d channels "
                          "(data_format=%s)" % (n, list(xs), c, data_format))
    return Meta(xs, meta.dtype_of(x))


@def_op('prelu', _prelu_meta, pattern='opaque')
def prelu_op(x, weight, data_format='NCHW'):
    w = weight.reshape(_prelu_wshape(x.ndim, weight.size, data_format))
    return np.where(x > 0, x, w * x).astype(x.dtype, copy=False)


@prelu_op.def_grad
def _prelu_grad(g, x, weight, out, data_format):
    shape = _prelu_wshape(len(x.shape), int(np.prod(weight.shape)), data_format)
    wb = lib.reshape(weight, shape)
    m = _mask(greater_than_op(x, 0), g)
    gx = g * (m + (1 - m) * wb)
    gw = lib.reshape(sum_like(g * x * (1 - m), wb), list(weight.shape))
    return gx, gw


@prelu_op.def_fast_grad
def _prelu_fast(g, x, weight, out, data_format):
    shape = _prelu_wshape(x.ndim, weight.size, data_format)
    neg = x <= 0
    gx = np.where(neg, g * weight.reshape(shape), g)
    gw = unbroadcast(np.where(neg, g * x, 0), shape).reshape(weight.shape)
    return gx, gw.astype(weight.dtype, copy=False)


@prelu_op.def_onnx
def _prelu_onnx(g, x, weight, data_format):
    n = int(np.prod(g.meta(weight).shape))
    shape = _prelu_wshape(g.rank(x), n, data_format)
    return g.op('PRelu', x, g.op('Reshape', weight, g.ints(shape)))


# ---- normalisation ------------------------------------------------------------

def _bn_meta(x, running_mean, running_var, weight, bias, momentum=0.9, epsilon=1e-5,
             data_format='NCHW', use_global_stats=False):
    xs = meta.shape_of(x)
    if not 2 <= len(xs) <= 5:
        raise OpError("input must be 2-D to 5-D, got shape %s" % list(xs))
    c = xs[_channel_axis(len(xs), data_format)]
    for name, t in (('running_mean', running_mean), ('running_var', running_var),
                    ('weight', weight), ('bias', bias)):
        if t is not None and tuple(meta.shape_of(t)) not in ((c,), (-1,)) and c != -1:
            raise OpError("%s must have shape [%d] (the channel count of input "
                          "%s, data_format=%s), got %s"
                          % (name, c, list(xs), data_format, list(meta.shape_of(t))))
    stat = Meta((c,), meta.dtype_of(running_mean))
    return (Meta(xs, meta.dtype_of(x)), stat, Meta((c,), meta.dtype_of(running_var)),
            Meta((c,), meta.dtype_of(x)), Meta((c,), meta.dtype_of(x)))


def _bshape(ndim, ca, c):
    s = [1] * ndim
    s[ca] = c
    return s


def _bn_flops(ins, outs, attrs):
    return 2 * per_sample(outs['out'])


def _bn_inference(inputs, outputs, attrs):
    """The running statistics, not updated."""
    return 'batch_norm', inputs, outputs, dict(attrs, use_global_stats=True)


@def_op('batch_norm', _bn_meta,
        inputs=('x', 'running_mean', 'running_var', 'weight?', 'bias?'),
        outputs=('out', 'mean_out', 'variance_out', 'saved_mean', 'saved_inv_std'),
        attrs={'momentum': 0.9, 'epsilon': 1e-5, 'data_format': 'NCHW',
               'use_global_stats': False},
        nondiff_outputs=('mean_out', 'variance_out', 'saved_mean', 'saved_inv_std'),
        no_grad_inputs=('running_mean', 'running_var'),
        inplace_map={'mean_out': 'running_mean', 'variance_out': 'running_var'},
        effects=('stateful',), pattern='opaque', amp_inputs=('x',), flops=_bn_flops,
        inference=_bn_inference)
def batch_norm_op(x, running_mean, running_var, weight, bias, momentum, epsilon,
                  data_format, use_global_stats):
    """Batch normalisation over every axis but the channel axis.

    With batch statistics (``use_global_stats=False``) the running statistics
    are updated Paddle's way: ``running = momentum * running + (1 - momentum)
    * batch_stat``, with the biased batch variance (as Paddle's kernel does).
    """
    ca = _channel_axis(x.ndim, data_format)
    c = x.shape[ca]
    axes = tuple(i for i in range(x.ndim) if i != ca)
    bshape = _bshape(x.ndim, ca, c)
    if use_global_stats:
        mean = running_mean.astype(x.dtype, copy=False)
        var = running_var.astype(x.dtype, copy=False)
        mean_out, var_out = running_mean, running_var
    else:
        if x.size // c <= 1:
            raise OpError("batch_norm: expected more than 1 value per channel when using "
                          "batch statistics, got input shape %s" % list(x.shape))
        if x.dtype in _BN_FAST_DTYPES:
            return _bn_train_fast(x, running_mean, running_var, weight, bias, momentum,
                                  epsilon, ca)
        mean = x.mean(axis=axes)
        xc = x - mean.reshape(bshape)
        var = np.mean(xc * xc, axis=axes)
        mean_out = (momentum * running_mean + (1 - momentum) * mean).astype(running_mean.dtype)
        var_out = (momentum * running_var + (1 - momentum) * var).astype(running_var.dtype)
    inv, scale, shift = bn_affine(mean, var, weight, bias, epsilon, x.dtype)
    out = x * scale.reshape(bshape) + shift.reshape(bshape)
    return out, mean_out, var_out, mean, inv


def bn_affine(mean, var, weight, bias, epsilon, dtype):
    """``(inv_std, scale, shift)`` per channel: batch norm with statistics
    ``mean``/``var`` is ``x * scale + shift`` (fused_conv applies the same
    two vectors as the convolution's post-ops, so its results are the same)."""
    inv = (1.0 / np.sqrt(var + epsilon)).astype(dtype, copy=False)
    scale = inv if weight is None else inv * weight.astype(dtype, copy=False)
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias.astype(dtype, copy=False)
    return inv, scale, shift


# float32/float64 batch statistics in few passes: per-channel sums as einsum
# reductions over a [pre, C, post] view (one pass each, 2-3x faster than a
# multi-axis ``mean``, as accurate), the centred input reused for the output
# and the gradient (no E[x^2] - E[x]^2 cancellation)
_BN_FAST_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _pcp(a, ca):
    """``a`` as ``[pre, C, post]`` around channel axis ``ca`` (a view when contiguous)."""
    return a.reshape(int(np.prod(a.shape[:ca])), a.shape[ca], -1)


def _channel_sum(a3):
    return np.einsum('ncp->c', a3)


def _batch_stats(x3, epsilon):
    """(mean, x - mean, var, 1 / sqrt(var + epsilon), a scratch array of x3's
    shape) per channel of the [pre, C, post] ``x3``."""
    m = x3.dtype.type(x3.shape[0] * x3.shape[2])
    mean = _channel_sum(x3) / m
    xc = x3 - mean[:, None]
    scratch = np.square(xc)
    var = _channel_sum(scratch) / m
    inv = (1.0 / np.sqrt(var + epsilon)).astype(x3.dtype, copy=False)
    return mean, xc, var, inv, scratch


def _bn_train_fast(x, running_mean, running_var, weight, bias, momentum, epsilon, ca):
    mean, xc, var, inv, out = _batch_stats(_pcp(x, ca), epsilon)
    mean_out = (momentum * running_mean + (1 - momentum) * mean).astype(running_mean.dtype)
    var_out = (momentum * running_var + (1 - momentum) * var).astype(running_var.dtype)
    scale = inv if weight is None else inv * weight.astype(x.dtype, copy=False)
    np.multiply(xc, scale[:, None], out=out)
    if bias is not None:
        out += bias.astype(x.dtype, copy=False)[:, None]
    return out.reshape(x.shape), mean_out, var_out, mean, inv


def _bn_grad_fast(g, x, weight, mean, inv, ca):
    """dx, dweight, dbias with batch statistics ``mean``, ``inv``."""
    x3 = _pcp(x, ca)
    return _bn_grad_centred(g, x3 - mean[:, None], weight, inv, ca)


def _bn_grad_centred(g, xc, weight, inv, ca):
    """dx, dweight, dbias from the centred input ``xc`` ([pre, C, post],
    overwritten): ``dx = a*g + b*(x - mean) + d`` per channel, from two
    channel sums."""
    g3 = _pcp(g, ca)
    m = xc.shape[0] * xc.shape[2]
    gb = _channel_sum(g3)
    dx = np.multiply(g3, xc)
    gwt = _channel_sum(dx) * inv                          # sum(g * xhat)
    a = inv if weight is None else inv * weight.astype(xc.dtype, copy=False)
    np.multiply(g3, a[:, None], out=dx)
    np.multiply(xc, (-a * inv * gwt / m)[:, None], out=xc)
    dx += xc
    dx -= (a * gb / m)[:, None]
    return dx.reshape(g.shape), gwt, gb


def _norm_dx(gw, xhat, inv, mean):
    """d/dx of normalisation with batch statistics: ``mean`` averages over the
    normalised axes (numpy or registered-op version)."""
    return inv * (gw - mean(gw) - xhat * mean(gw * xhat))


@batch_norm_op.def_fast_grad
def _bn_fast(g, g1, g2, g3, g4, x, running_mean, running_var, weight, bias,
             out, mean_out, var_out, saved_mean, inv, momentum, epsilon, data_format,
             use_global_stats):
    ca = _channel_axis(x.ndim, data_format)
    c = x.shape[ca]
    if not use_global_stats and x.dtype in _BN_FAST_DTYPES and g.dtype == x.dtype:
        dx, gwt, gb = _bn_grad_fast(g, x, weight, saved_mean, inv, ca)
        return (dx, None, None,
                None if weight is None else gwt.astype(weight.dtype, copy=False),
                None if bias is None else gb.astype(bias.dtype, copy=False))
    axes = tuple(i for i in range(x.ndim) if i != ca)
    bs = _bshape(x.ndim, ca, c)
    xhat = (x - saved_mean.reshape(bs)) * inv.reshape(bs)
    gb = g.sum(axis=axes)
    gwt = (g * xhat).sum(axis=axes)
    w = np.ones(c, x.dtype) if weight is None else weight
    if use_global_stats:
        dx = g * (inv * w).reshape(bs)
    else:
        m = x.size // c
        dx = (inv * w).reshape(bs) * (g - gb.reshape(bs) / m - xhat * (gwt / m).reshape(bs))
    return (dx, None, None,
            None if weight is None else gwt.astype(weight.dtype, copy=False),
            None if bias is None else gb.astype(bias.dtype, copy=False))


@batch_norm_op.def_grad
def _bn_grad(g, g1, g2, g3, g4, x, running_mean, running_var, weight, bias,
             out, mean_out, var_out, saved_mean, inv_out, momentum, epsilon, data_format,
             use_global_stats):
    nd = len(x.shape)
    ca = _channel_axis(nd, data_format)
    c = x.shape[ca]
    axes = [i for i in range(nd) if i != ca]
    bs = _bshape(nd, ca, c)
    if not use_global_stats:
        dx, dw, db = batch_norm_grad_op(g, x, weight, epsilon, data_format)
        return (dx, None, None, None if weight is None else dw, None if bias is None else db)
    xc = x - lib.reshape(running_mean, bs)
    inv = (lib.reshape(running_var, bs) + epsilon) ** -0.5
    xhat = xc * inv
    gw = g if weight is None else g * lib.reshape(weight, bs)
    dx = gw * inv
    dw = None if weight is None else lib.reshape(lib.sum(g * xhat, axis=axes), [c])
    db = None if bias is None else lib.reshape(lib.sum(g, axis=axes), [c])
    return dx, None, None, dw, db


# ---- batch_norm_grad: the fused backward with batch statistics as an op ---------------------
#
# batch_norm's grad rule emits it (a static Program's backward, eager
# create_graph): one op running the two-channel-sum backward instead of a
# dozen composite ops with their full-size temporaries. It recomputes the
# statistics from x as the forward does (_batch_stats) rather than reading its
# saved ones, so it is a function of (g, x, weight) alone and its own grad
# rule (the second derivative, below) is the true derivative of what it computes.

def _bn_grad_meta(out_grad, x, weight, epsilon=1e-5, data_format='NCHW'):
    xs = meta.shape_of(x)
    if not 2 <= len(xs) <= 5 or tuple(meta.shape_of(out_grad)) != tuple(xs) and \
            -1 not in xs + tuple(meta.shape_of(out_grad)):
        raise OpError("batch_norm_grad: out_grad %s must have the shape of x %s (2-D to 5-D)"
                      % (list(meta.shape_of(out_grad)), list(xs)))
    c = xs[_channel_axis(len(xs), data_format)]
    stat = meta.dtype_of(x) if weight is None else meta.dtype_of(weight)
    return Meta(xs, meta.dtype_of(x)), Meta((c,), stat), Meta((c,), stat)


@def_op('batch_norm_grad', _bn_grad_meta, inputs=('out_grad', 'x', 'weight?'),
        outputs=('dx', 'dweight', 'dbias'),
        attrs={'epsilon': 1e-5, 'data_format': 'NCHW'}, pattern='opaque')
def batch_norm_grad_op(out_grad, x, weight, epsilon, data_format):
    """The gradients (dx, dweight, dbias) of ``batch_norm`` with batch
    statistics at ``x`` (dweight: of a weight of ones when there is none)."""
    if out_grad.shape != x.shape:
        _bn_grad_meta(out_grad, x, weight, epsilon, data_format)
    ca = _channel_axis(x.ndim, data_format)
    if x.size // max(x.shape[ca], 1) <= 1:
        raise OpError("batch_norm_grad: expected more than 1 value per channel, got input "
                      "shape %s" % list(x.shape))
    dt = np.float64 if x.dtype == np.float64 else np.float32
    _, xc, _, inv, _ = _batch_stats(_pcp(x.astype(dt, copy=False), ca), epsilon)
    w = None if weight is None else weight.astype(dt, copy=False)
    dx, gwt, gb = _bn_grad_centred(out_grad.astype(dt, copy=False), xc, w, inv, ca)
    stat = x.dtype if weight is None else weight.dtype
    return (dx.astype(x.dtype, copy=False), gwt.astype(stat, copy=False),
            gb.astype(stat, copy=False))


@batch_norm_grad_op.def_grad
def _bn_grad_grad(a, b, c, out_grad, x, weight, dx, dweight, dbias, epsilon, data_format):
    """The second derivative (Paddle's batch_norm_double_grad). Per channel,
    with xh = (x - mean(x)) * s, P(g) = g - mean(g) - xh * mean(g * xh) and
    the cotangents a (of dx), b (of dweight), c (of dbias):
    d out_grad = w s P(a) + b xh + c,  d weight = s sum(a P(g)),
    d x = s (G - mean(G) - xh mean(G xh)) - w s^2 xh mean(a P(g)) with
    G = b g - w s (a mean(g xh) + g mean(a xh)) (the gradient reaching xh)."""
    g = out_grad
    nd = len(x.shape)
    ca = _channel_axis(nd, data_format)
    ch = x.shape[ca]
    axes = [i for i in range(nd) if i != ca]
    bs = _bshape(nd, ca, ch)

    def mean(t):
        return lib.mean(t, axis=axes, keepdim=True)

    def per_channel(v):
        return lib.reshape(v, bs)

    def plus(u, v):
        return v if u is None else u + v

    xc = x - mean(x)
    s = (mean(xc * xc) + epsilon) ** -0.5
    xh = xc * s
    ws = s if weight is None else s * per_channel(weight)
    dg = big_g = d_x = d_w = None
    if a is not None:
        q, r = mean(g * xh), mean(a * xh)
        dg = ws * (a - mean(a) - xh * r)
        apg = a * (g - mean(g) - xh * q)
        big_g = -ws * (a * q + g * r)
        d_x = -ws * s * xh * mean(apg)
        if weight is not None:
            d_w = lib.reshape(lib.sum(apg, axis=axes, keepdim=True) * s, [ch])
    if b is not None:
        dg = plus(dg, per_channel(b) * xh)
        big_g = plus(big_g, per_channel(b) * g)
    if c is not None:
        dg = plus(dg, per_channel(c) + lib.zeros_like(g))
    if big_g is not None:
        d_x = plus(d_x, s * (big_g - mean(big_g) - xh * mean(big_g * xh)))
    return dg, d_x, d_w


# ---- batch norm in a oneDNN plan's layouts ----------------------------------------
# Between convolutions of a static plan the activations stay blocked
# (passes/layout.py); there oneDNN's batch norm runs 3-4x faster than the numpy
# kernels, in training too. On a plain array the numpy kernels are faster, so
# these decline it. The statistics are the numpy kernels' (biased variance,
# Paddle's running-average update).

def _bn_vectors(weight, bias, c):
    """float32 scale and shift vectors (ones / zeros for a missing one)."""
    w = np.ones(c, np.float32) if weight is None else weight.astype(np.float32, copy=False)
    b = np.zeros(c, np.float32) if bias is None else bias.astype(np.float32, copy=False)
    return np.ascontiguousarray(w), np.ascontiguousarray(b)


def _bn_blocked(x, data_format):
    """Whether the oneDNN kernels below take ``x``: an opaque channels-first
    image batch with more than one value per channel."""
    return isinstance(x, Opaque) and dnnl_layout.takes(x) and data_format in ('NCHW', 'NCDHW') \
        and len(x.shape) in (4, 5) and x.size // x.shape[1] > 1


def _training_bn(op, block):
    """The layout pass's condition for batch norm: with batch statistics (an
    inference one keeps the numpy kernel's rounding of x * scale + shift,
    which a fused_conv reproduces bit for bit), on channels-first images."""
    return not op.attrs.get('use_global_stats', False) and nchw_conv(op, block)


@batch_norm_op.def_layout_kernel('onednn', takes=('x',), gives=('out',), applies=_training_bn)
def _batch_norm_layout(x, running_mean, running_var, weight, bias, momentum, epsilon,
                       data_format, use_global_stats, keep):
    if use_global_stats or not _bn_blocked(x, data_format):
        return NotImplemented
    c = x.shape[1]
    scale, shift = _bn_vectors(weight, bias, c)
    mean, var = np.empty(c, np.float32), np.empty(c, np.float32)
    out = dnnl_norm.batch_norm(onednn.runtime(), x, scale, shift, epsilon,
                               dnnl_layout.like(x), mean, var)
    if out is None:
        return NotImplemented
    mean_out = (momentum * running_mean + (1 - momentum) * mean).astype(running_mean.dtype)
    var_out = (momentum * running_var + (1 - momentum) * var).astype(running_var.dtype)
    inv = (1.0 / np.sqrt(var + epsilon)).astype(np.float32, copy=False)
    return out if 'out' in keep else plain(out), mean_out, var_out, mean, inv


@batch_norm_grad_op.def_layout_kernel('onednn', takes=('out_grad', 'x'), gives=('dx',),
                                      applies=nchw_conv)
def _batch_norm_grad_layout(out_grad, x, weight, epsilon, data_format, keep):
    if not _bn_blocked(x, data_format) or not dnnl_layout.takes(out_grad) or \
            out_grad.shape != x.shape:
        return NotImplemented
    c = x.shape[1]
    scale, _ = _bn_vectors(weight, None, c)
    gw, gb = np.empty(c, np.float32), np.empty(c, np.float32)
    dx = dnnl_norm.batch_norm_backward(onednn.runtime(), out_grad, x, scale, epsilon,
                                       dnnl_layout.like(x), gw, gb)
    if dx is None:
        return NotImplemented
    stat = np.float32 if weight is None else weight.dtype
    return (dx if 'dx' in keep else plain(dx), gw.astype(stat, copy=False),
            gb.astype(stat, copy=False))


@batch_norm_op.def_onnx
def _batch_norm_onnx(g, x, running_mean, running_var, weight, bias, momentum, epsilon,
                     data_format, use_global_stats):
    # inference semantics, the running statistics: an exported Program is in
    # inference mode (``export(..., fold_batch_norm=True)`` folds it into a conv)
    nd, dtype = g.rank(x), g.meta(x).dtype
    c = g.meta(running_mean).shape[0]
    scale = g.const(np.ones(c, dtype)) if weight is None else g.cast(weight, dtype)
    shift = g.const(np.zeros(c, dtype)) if bias is None else g.cast(bias, dtype)
    fmt = data_format if data_format in _CHANNEL_LAST else 'NCHW'
    y = g.op('BatchNormalization', g.channel_first(x, fmt, nd), scale, shift,
             g.cast(running_mean, dtype), g.cast(running_var, dtype), epsilon=float(epsilon))
    return g.channel_last(y, fmt, nd)


def _ln_meta(x, weight, bias, begin_norm_axis=1, epsilon=1e-5):
    xs = meta.shape_of(x)
    if not 0 <= begin_norm_axis < len(xs):
        raise OpError("begin_norm_axis %d is out of range for input %s"
                      % (begin_norm_axis, list(xs)))
    norm = xs[begin_norm_axis:]
    n = int(np.prod(norm)) if all(d >= 0 for d in norm) else -1
    for name, t in (('weight', weight), ('bias', bias)):
        if t is None:
            continue
        ts = meta.shape_of(t)
        size = int(np.prod(ts)) if all(d >= 0 for d in ts) else -1
        if -1 not in (n, size) and size != n:
            raise OpError("%s of shape %s does not match normalized_shape %s of "
                          "input %s" % (name, list(ts), list(norm), list(xs)))
    stat = Meta(xs[:begin_norm_axis], meta.dtype_of(x))
    return Meta(xs, meta.dtype_of(x)), stat, stat


@def_op('layer_norm', _ln_meta, inputs=('x', 'weight?', 'bias?'), pattern='opaque',
        amp='black', amp_inputs=('x',),
        outputs=('out', 'mean', 'variance'),
        attrs={'begin_norm_axis': 1, 'epsilon': 1e-5},
        nondiff_outputs=('mean', 'variance'))
def layer_norm_op(x, weight, bias, begin_norm_axis, epsilon):
    """Normalise over the trailing axes from ``begin_norm_axis`` on; weight
    and bias have that trailing shape (or its flattened size, as Paddle's)."""
    axes = tuple(range(begin_norm_axis, x.ndim))
    norm_shape = x.shape[begin_norm_axis:]
    mean = x.mean(axis=axes, keepdims=True)
    xc = x - mean
    var = np.mean(xc * xc, axis=axes, keepdims=True)
    out = xc * (1.0 / np.sqrt(var + epsilon)).astype(x.dtype, copy=False)
    if weight is not None:
        out *= weight.reshape(norm_shape).astype(x.dtype, copy=False)
    if bias is not None:
        out += bias.reshape(norm_shape).astype(x.dtype, copy=False)
    lead = x.shape[:begin_norm_axis]
    return out, mean.reshape(lead), var.reshape(lead)


@layer_norm_op.def_kernel('onednn')
def _layer_norm_onednn(x, weight, bias, begin_norm_axis, epsilon):
    if not (isinstance(x, np.ndarray) and x.dtype == np.float32 and x.size) or any(
            v is not None and (not isinstance(v, np.ndarray) or v.dtype != np.float32)
            for v in (weight, bias)):
        return NotImplemented
    lead = x.shape[:begin_norm_axis]
    rows = int(np.prod(lead))
    x2 = np.ascontiguousarray(x).reshape(rows, -1)
    y = np.empty(x.shape, np.float32)
    mean, var = np.empty(rows, np.float32), np.empty(rows, np.float32)
    scale, shift = (None if v is None else np.ascontiguousarray(v).reshape(-1)
                    for v in (weight, bias))
    if dnnl_norm.layer_norm(onednn.runtime(), x2, scale, shift, epsilon, y.reshape(rows, -1),
                            mean, var) is None:
        return NotImplemented
    return y, mean.reshape(lead), var.reshape(lead)


@layer_norm_op.def_fast_grad
def _ln_fast(g, g1, g2, x, weight, bias, out, mean, var, begin_norm_axis, epsilon):
    axes = tuple(range(begin_norm_axis, x.ndim))
    lead_axes = tuple(range(begin_norm_axis))
    keep = mean.shape + (1,) * len(axes)
    inv = 1.0 / np.sqrt(var.reshape(keep) + epsilon)
    xhat = (x - mean.reshape(keep)) * inv
    norm_shape = x.shape[begin_norm_axis:]
    gw = g if weight is None else g * weight.reshape(norm_shape)
    dx = _norm_dx(gw, xhat, inv, lambda t: t.mean(axis=axes, keepdims=True))
    dw = None if weight is None else (g * xhat).sum(axis=lead_axes).reshape(weight.shape)
    db = None if bias is None else g.sum(axis=lead_axes).reshape(bias.shape)
    return dx, dw, db


@layer_norm_op.def_grad
def _ln_grad(g, g1, g2, x, weight, bias, out, mean_o, var_o, begin_norm_axis, epsilon):
    nd = len(x.shape)
    axes = list(range(begin_norm_axis, nd))
    norm_shape = list(x.shape[begin_norm_axis:])

    def mean(t):
        return lib.mean(t, axis=axes, keepdim=True)

    xc = x - mean(x)
    inv = (mean(xc * xc) + epsilon) ** -0.5
    xhat = xc * inv
    gw = g
    if weight is not None:
        wr = lib.reshape(weight, norm_shape)
        gw = g * wr
    dx = _norm_dx(gw, xhat, inv, mean)
    dw = db = None
    if weight is not None:
        dw = lib.reshape(sum_like(g * xhat, wr), list(weight.shape))
    if bias is not None:
        br = lib.reshape(bias, norm_shape)
        db = lib.reshape(sum_like(g, br), list(bias.shape))
    return dx, dw, db


@layer_norm_op.def_onnx
def _layer_norm_onnx(g, x, weight, bias, begin_norm_axis, epsilon):
    xs, dtype = g.meta(x).shape, g.meta(x).dtype
    norm = list(xs[begin_norm_axis:])
    known = all(d >= 0 for d in norm)

    def param(p):      # weight/bias in the normalised shape (Paddle may keep them flat)
        p = g.cast(p, dtype)
        if list(g.meta(p).shape) == norm:
            return p
        return g.op('Reshape', p, g.ints(norm) if known else g.shape_of(x, begin_norm_axis))

    if g.opset >= 17 and (weight is not None or known):
        scale = param(weight) if weight is not None else g.const(np.ones(norm, dtype))
        return g.op('LayerNormalization', x, scale, None if bias is None else param(bias),
                    axis=begin_norm_axis, epsilon=float(epsilon))
    axes = list(range(begin_norm_axis, len(xs)))
    y = onnx_normalize(g, x, axes, epsilon, dtype)
    if weight is not None:
        y = g.op('Mul', y, param(weight))
    return y if bias is None else g.op('Add', y, param(bias))


def onnx_normalize(g, x, axes, epsilon, dtype):
    """``(x - mean) / sqrt(var + epsilon)`` over ``axes`` (biased variance)."""
    xc = g.op('Sub', x, g.reduce('ReduceMean', x, axes, True))
    var = g.reduce('ReduceMean', g.op('Mul', xc, xc), axes, True)
    return g.op('Div', xc, g.op('Sqrt', g.op('Add', var, g.scalar(epsilon, dtype))))


def _gn_meta(x, weight, bias, groups=1, epsilon=1e-5, data_format='NCHW'):
    xs = meta.shape_of(x)
    if len(xs) < 2:
        raise OpError("input must be at least 2-D, got shape %s" % list(xs))
    c = xs[_channel_axis(len(xs), data_format)]
    if c != -1 and (groups <= 0 or c % groups):
        raise OpError("num_groups=%d must divide the channel count %d of input %s"
                      % (groups, c, list(xs)))
    for name, t in (('weight', weight), ('bias', bias)):
        if t is not None and c != -1 and tuple(meta.shape_of(t)) != (c,):
            raise OpError("%s must have shape [%d], got %s"
                          % (name, c, list(meta.shape_of(t))))
    stat = Meta((xs[0], groups), meta.dtype_of(x))
    return Meta(xs, meta.dtype_of(x)), stat, stat


def _to_channel_first(a, data_format):
    return np.moveaxis(a, -1, 1) if data_format in _CHANNEL_LAST else a


def _from_channel_first(a, data_format):
    return np.moveaxis(a, 1, -1) if data_format in _CHANNEL_LAST else a


@def_op('group_norm', _gn_meta, inputs=('x', 'weight?', 'bias?'), pattern='opaque',
        amp='black',
        outputs=('out', 'mean', 'variance'),
        attrs={'groups': 1, 'epsilon': 1e-5, 'data_format': 'NCHW'},
        nondiff_outputs=('mean', 'variance'))
def group_norm_op(x, weight, bias, groups, epsilon, data_format):
    """Normalise each sample over groups of channels (and all spatial axes)."""
    xf = _to_channel_first(x, data_format)
    n, c = xf.shape[:2]
    if groups <= 0 or c % groups:
        raise OpError("group_norm: num_groups=%d must divide the channel count %d of input %s"
                      % (groups, c, list(x.shape)))
    xr = xf.reshape(n, groups, -1)
    mean = xr.mean(axis=2, keepdims=True)
    xc = xr - mean
    var = np.mean(xc * xc, axis=2, keepdims=True)
    out = (xc * (1.0 / np.sqrt(var + epsilon))).reshape(xf.shape).astype(x.dtype, copy=False)
    cs = _bshape(xf.ndim, 1, c)
    if weight is not None:
        out = out * weight.reshape(cs).astype(x.dtype, copy=False)
    if bias is not None:
        out = out + bias.reshape(cs).astype(x.dtype, copy=False)
    return (np.ascontiguousarray(_from_channel_first(out, data_format)),
            mean.reshape(n, groups), var.reshape(n, groups))


@group_norm_op.def_fast_grad
def _gn_fast(g, g1, g2, x, weight, bias, out, mean, var, groups, epsilon, data_format):
    xf = _to_channel_first(x, data_format)
    gf = _to_channel_first(g, data_format)
    n, c = xf.shape[:2]
    inv = 1.0 / np.sqrt(var.reshape(n, groups, 1) + epsilon)
    xhat = (xf.reshape(n, groups, -1) - mean.reshape(n, groups, 1)) * inv
    cs = _bshape(xf.ndim, 1, c)
    gw = gf if weight is None else gf * weight.reshape(cs)
    dx = _norm_dx(gw.reshape(n, groups, -1), xhat, inv,
                  lambda t: t.mean(axis=2, keepdims=True)).reshape(xf.shape)
    red = (0,) + tuple(range(2, xf.ndim))
    dw = None if weight is None else (gf * xhat.reshape(xf.shape)).sum(axis=red)
    db = None if bias is None else gf.sum(axis=red)
    return _from_channel_first(dx, data_format), dw, db


@group_norm_op.def_grad
def _gn_grad(g, g1, g2, x, weight, bias, out, mean_o, var_o, groups, epsilon, data_format):
    nd = len(x.shape)
    last = data_format in _CHANNEL_LAST
    to_cf = [0, nd - 1] + list(range(1, nd - 1))
    to_cl = [0] + list(range(2, nd)) + [1]
    xf = lib.transpose(x, to_cf) if last else x
    gf = lib.transpose(g, to_cf) if last else g
    shape = list(xf.shape)
    n, c = shape[0], shape[1]
    grouped = [n if n >= 0 else 0, groups, -1]

    def mean(t):
        return lib.mean(t, axis=2, keepdim=True)

    xr = lib.reshape(xf, grouped)
    xc = xr - mean(xr)
    inv = (mean(xc * xc) + epsilon) ** -0.5
    xhat = xc * inv
    cs = _bshape(nd, 1, c)
    gw = gf if weight is None else gf * lib.reshape(weight, cs)
    dx = lib.reshape(_norm_dx(lib.reshape(gw, grouped), xhat, inv, mean), shape)
    if last:
        dx = lib.transpose(dx, to_cl)
    red = [0] + list(range(2, nd))
    dw = None if weight is None else lib.sum(gf * lib.reshape(xhat, shape), axis=red)
    db = None if bias is None else lib.sum(gf, axis=red)
    return dx, dw, db


@group_norm_op.def_onnx
def _group_norm_onnx(g, x, weight, bias, groups, epsilon, data_format):
    nd, dtype = g.rank(x), g.meta(x).dtype
    xf = g.channel_first(x, data_format, nd)
    grouped = g.op('Reshape', xf, g.ints([0, groups, -1]))
    y = g.op('Reshape', onnx_normalize(g, grouped, [2], epsilon, dtype), g.op('Shape', xf))
    per_channel = g.ints([-1] + [1] * (nd - 2))
    if weight is not None:
        y = g.op('Mul', y, g.op('Reshape', g.cast(weight, dtype), per_channel))
    if bias is not None:
        y = g.op('Add', y, g.op('Reshape', g.cast(bias, dtype), per_channel))
    return g.channel_last(y, data_format, nd)


def _normalize_meta(x, p=2.0, axis=1, epsilon=1e-12):
    xs = meta.shape_of(x)
    meta.normalize_axis(axis, len(xs))
    return Meta(xs, meta.dtype_of(x))


def _pnorm(x, p, axis):
    if p == 2:
        return np.sqrt((x * x).sum(axis=axis, keepdims=True))
    return (np.abs(x) ** p).sum(axis=axis, keepdims=True) ** (1.0 / p)


@def_op('normalize', _normalize_meta, pattern='opaque')
def normalize_op(x, p=2.0, axis=1, epsilon=1e-12):
    """``x / max(||x||_p, epsilon)`` along ``axis``."""
    return x / np.maximum(_pnorm(x, p, axis), epsilon)


@normalize_op.def_fast_grad
def _normalize_fast(g, x, out, p, axis, epsilon):
    n = _pnorm(x, p, axis)
    big = n > epsilon
    d = np.where(big, n, epsilon)
    s = (g * x).sum(axis=axis, keepdims=True)
    ns = np.where(big, n, 1)
    dn = x / ns if p == 2 else np.sign(x) * np.abs(x) ** (p - 1) / ns ** (p - 1)
    return g / d - np.where(big, s / (d * d), 0) * dn


@normalize_op.def_grad
def _normalize_grad(g, x, out, p, axis, epsilon):
    if p == 2:
        n = lib.sum(x * x, axis=axis, keepdim=True) ** 0.5
    else:
        n = lib.sum(lib.abs(x) ** p, axis=axis, keepdim=True) ** (1.0 / p)
    big = _mask(greater_than_op(n, epsilon), x)
    d = maximum_op(n, epsilon)
    ns = n * big + (1 - big)
    dn = x / ns if p == 2 else lib.sign(x) * lib.abs(x) ** (p - 1) / ns ** (p - 1)
    s = lib.sum(g * x, axis=axis, keepdim=True)
    return g / d - (s / (d * d)) * big * dn


@normalize_op.def_onnx
def _normalize_onnx(g, x, p, axis, epsilon):
    dtype = g.meta(x).dtype
    if p == 2:
        n = g.op('Sqrt', g.reduce('ReduceSum', g.op('Mul', x, x), [axis], True))
    else:
        s = g.reduce('ReduceSum', g.op('Pow', g.op('Abs', x), g.scalar(p, dtype)), [axis], True)
        n = g.op('Pow', s, g.scalar(1.0 / p, dtype))
    return g.op('Div', x, g.op('Max', n, g.scalar(epsilon, dtype)))


# ---- dropout ----------------------------------------------------------------

def _dropout_meta(x, p=0.5, axis=None, mode='upscale_in_train'):
    xs = meta.shape_of(x)
    ms = xs if axis is None else tuple(d if i in axis else 1 for i, d in enumerate(xs))
    return Meta(xs, meta.dtype_of(x)), Meta(ms, np.uint8)


def _dropout_scale(p, mode):
    if mode != 'upscale_in_train':
        return 1.0
    return 0.0 if p >= 1 else 1.0 / (1.0 - p)


def _dropout_inference(inputs, outputs, attrs):
    """upscale_in_train: the identity at inference; downscale_in_infer: x * (1 - p)."""
    keep = 1.0 if attrs.get('mode', 'upscale_in_train') == 'upscale_in_train' \
        else 1.0 - float(attrs.get('p', 0.5))
    return ('scale', {'x': inputs['x']}, {'out': outputs['out']},
            {'scale': keep, 'bias': 0.0, 'bias_after_scale': True,
             'op_role': attrs.get('op_role', 'forward')})


@def_op('dropout', _dropout_meta, outputs=('out', 'mask'), nondiff_outputs=('mask',),
        effects=('random',), save_inputs=False, attr_types={'axis': 'int|ints|None'},
        pattern='opaque', inference=_dropout_inference)
def dropout_op(x, p=0.5, axis=None, mode='upscale_in_train'):
    """Training-time dropout; ``mask`` (uint8, 1 = kept) is broadcast over the
    axes not in ``axis``. Draws from ``framework.random.generator()``."""
    shape = x.shape if axis is None else tuple(
        d if i in axis else 1 for i, d in enumerate(x.shape))
    keep = _random.generator().random(shape, dtype=np.float32) >= p
    factor = keep * np.asarray(_dropout_scale(p, mode), x.dtype)
    return (x * factor).astype(x.dtype, copy=False), keep.view(np.uint8)


@dropout_op.def_grad
def _dropout_grad(g, gm, x, out, mask, p, axis, mode):
    return g * _mask(mask, g) * _dropout_scale(p, mode)


@dropout_op.def_fast_grad
def _dropout_fast(g, gm, x, out, mask, p, axis, mode):
    return g * (mask * np.asarray(_dropout_scale(p, mode), g.dtype))


@dropout_op.def_onnx
def _dropout_onnx(g, x, p, axis, mode):
    # inference semantics: upscale_in_train is the identity, downscale_in_infer scales
    if mode == 'upscale_in_train':
        return g.op('Identity', x)
    return g.op('Mul', x, g.scalar(1.0 - p, x))


def _alpha_dropout_meta(x, p=0.5):
    return Meta(meta.shape_of(x), meta.dtype_of(x)), Meta(meta.shape_of(x), np.uint8)


_ALPHA_P = -_SELU_ALPHA * _SELU_SCALE


def _alpha_coeffs(p):
    a = ((1 - p) * (1 + p * _ALPHA_P ** 2)) ** -0.5
    return a, -a * _ALPHA_P * p


@def_op('alpha_dropout', _alpha_dropout_meta, outputs=('out', 'mask'),
        nondiff_outputs=('mask',), effects=('random',), save_inputs=False, pattern='opaque')
def alpha_dropout_op(x, p=0.5):
    """Dropout that keeps SELU's self-normalising mean and variance: dropped
    units are set to the negative saturation value, then an affine fix-up."""
    keep = _random.generator().random(x.shape, dtype=np.float32) >= p
    a, b = _alpha_coeffs(p)
    out = a * np.where(keep, x, _ALPHA_P) + b
    return out.astype(x.dtype, copy=False), keep.view(np.uint8)


@alpha_dropout_op.def_grad
def _alpha_dropout_grad(g, gm, x, out, mask, p):
    return g * _mask(mask, g) * _alpha_coeffs(p)[0]


@alpha_dropout_op.def_fast_grad
def _alpha_dropout_fast(g, gm, x, out, mask, p):
    return g * (mask * np.asarray(_alpha_coeffs(p)[0], g.dtype))


alpha_dropout_op.def_onnx(lambda g, x, p: g.op('Identity', x))    # inference: the identity


# ---- embedding ----------------------------------------------------------------

def _embedding_meta(ids, weight, padding_idx=-1):
    ids_s, ws = meta.shape_of(ids), meta.shape_of(weight)
    if len(ws) != 2:
        raise OpError("weight must be 2-D [num_embeddings, embedding_dim], "
                      "got shape %s" % list(ws))
    if np.dtype(meta.dtype_of(ids)).kind not in 'iu':
        raise OpError("ids must be an integer tensor, got %s" % meta.dtype_of(ids))
    return Meta(tuple(ids_s) + (ws[1],), meta.dtype_of(weight))


def _check_ids(ids, n, api):
    if ids.size and (ids.min() < 0 or ids.max() >= n):
        bad = ids[(ids < 0) | (ids >= n)].flat[0]
        raise OpError("%s: id %d is out of range [0, %d) (num_embeddings=%d)"
                      % (api, bad, n, n))


@def_op('embedding', _embedding_meta, no_grad_inputs=('ids',), pattern='opaque',
        amp='always_black', paddle_names=('lookup_table_v2', 'lookup_table'))
def embedding_op(ids, weight, padding_idx=-1):
    """Rows of ``weight`` picked by ``ids``; rows for ``padding_idx`` (>= 0)
    are zero in the output and get no gradient (Paddle's lookup_table_v2)."""
    _check_ids(ids, weight.shape[0], 'embedding')
    out = weight[ids]
    if padding_idx >= 0:
        out[ids == padding_idx] = 0
    return out


@embedding_op.def_onnx
def _embedding_onnx(g, ids, weight, padding_idx):
    out = g.op('Gather', weight, ids, axis=0)
    if padding_idx < 0:
        return out
    pad = g.op('Unsqueeze', g.op('Equal', ids, g.const(np.asarray(padding_idx, g.meta(ids).dtype))),
               g.ints([-1]))
    return g.op('Where', pad, g.const(np.zeros((), g.meta(weight).dtype)), out)


def _embedding_grad_meta(g, ids, num_embeddings=0, padding_idx=-1):
    gs = meta.shape_of(g)
    return Meta((num_embeddings, gs[-1]), meta.dtype_of(g))


@def_op('embedding_grad', _embedding_grad_meta, no_grad_inputs=('ids',), save_inputs=False,
        pattern='opaque')
def embedding_grad_op(g, ids, num_embeddings=0, padding_idx=-1):
    """Scatter-add of the output gradient into the rows of the table."""
    d = g.shape[-1]
    gw = np.zeros((num_embeddings, d), g.dtype)
    np.add.at(gw, ids.reshape(-1), g.reshape(-1, d))
    if padding_idx >= 0:
        gw[padding_idx] = 0
    return gw


@embedding_grad_op.def_grad
def _embedding_grad_grad(gg, g, ids, out, num_embeddings, padding_idx):
    return embedding_op(ids, gg, padding_idx), None


@embedding_op.def_grad
def _embedding_grad(g, ids, weight, out, padding_idx):
    return None, embedding_grad_op(g, ids, int(weight.shape[0]), padding_idx)


@embedding_op.def_fast_grad
def _embedding_fast(g, ids, weight, out, padding_idx):
    return None, embedding_grad_op.kernel(g, ids, weight.shape[0], padding_idx)


# ---- linear -------------------------------------------------------------------

def _linear_meta(x, weight, bias):
    xs, ws = meta.shape_of(x), meta.shape_of(weight)
    if len(ws) != 2:
        raise OpError("weight must be 2-D [in_features, out_features], got shape %s"
                      % list(ws))
    if not xs or (xs[-1] != ws[0] and -1 not in (xs[-1], ws[0])):
        raise OpError("input of shape %s does not match weight of shape %s "
                      "(input's last dim must equal in_features=%d)" % (list(xs), list(ws), ws[0]))
    if bias is not None:
        bs = meta.shape_of(bias)
        if tuple(bs) not in ((ws[1],), (-1,)) and ws[1] != -1:
            raise OpError("bias must have shape [%d], got %s" % (ws[1], list(bs)))
    return Meta(tuple(xs[:-1]) + (ws[1],),
                meta.same_dtype('linear', ('x', 'weight', 'bias'), x, weight, bias))


def _linear_flops(ins, outs, attrs):
    """Paddle's matmul count, plus its separate bias add."""
    n = ins['weight'][0] * per_sample(outs['out'])
    return n + (per_sample(outs['out']) if ins['bias'] is not None else 0)


@def_op('linear', _linear_meta, inputs=('x', 'weight', 'bias?'), attrs={}, pattern='opaque',
        fresh=True, amp='white', paddle_names=('linear_v2',), flops=_linear_flops)
@float32_compute
def linear_op(x, weight, bias):
    """``x @ weight + bias`` with Paddle's weight layout [in_features, out_features]."""
    if x.dtype is not weight.dtype or bias is not None and bias.dtype is not x.dtype:
        meta.same_dtype('linear', ('x', 'weight', 'bias'), x, weight, bias)
    out = np.matmul(x, weight)
    if bias is not None:
        out += bias
    return out


@linear_op.def_kernel('onednn')
def _linear_onednn(x, weight, bias):
    if x.ndim < 2 or weight.ndim != 2:
        return NotImplemented
    out = onednn_product(x.reshape(-1, x.shape[-1]), weight, bias)
    return NotImplemented if out is None else out.reshape(x.shape[:-1] + weight.shape[1:])


@linear_op.def_fast_grad
def _linear_fast(g, x, weight, bias, out):
    k, n = weight.shape
    g2 = g.reshape(-1, n)
    # (a first layer's input needs no gradient)
    dx = gemm(g2, weight.T).reshape(g.shape[:-1] + (k,)) if wants(0) else None
    dw = gemm(x.reshape(-1, k).T, g2) if wants(1) else None
    db = None if bias is None else g2.sum(axis=0)
    return dx, dw, db


@linear_op.def_grad
def _linear_grad(g, x, weight, bias, out):
    k, n = weight.shape
    dx = matmul(g, weight, transpose_y=True)
    dw = matmul(lib.reshape(x, [-1, k]), lib.reshape(g, [-1, n]), transpose_x=True)
    return dx, dw, sum_like(g, bias)


@linear_op.def_onnx
def _linear_onnx(g, x, weight, bias):
    out = g.op('MatMul', x, weight)
    return out if bias is None else g.op('Add', out, bias)


# ---- interpolation ------------------------------------------------------------

_LINEAR_MODES = ('linear', 'bilinear', 'trilinear')
_MODE_RANK = {'linear': 3, 'bilinear': 4, 'trilinear': 5, 'bicubic': 4,
              'nearest': (3, 4, 5), 'area': (3, 4, 5)}


def _spatial_axes(ndim, data_format):
    return list(range(1, ndim - 1)) if data_format in _CHANNEL_LAST else list(range(2, ndim))


def _cubic_weights(t, a=-0.75):
    """The four cubic-convolution weights of taps -1, 0, 1, 2 at offset ``t``."""
    def near(x):                       # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):                        # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def _antialias_matrix(n_in, n_out, mode, align_corners, scale):
    """Anti-aliased resampling (Pillow's, as Paddle's ``interp_antialias``
    kernel): the filter is widened by the downscale factor and each output
    pixel's weights are normalised to sum to one."""
    if align_corners:
        ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        ratio = 1.0 / scale if scale and scale > 0 else n_in / n_out
    size = 2 if mode == 'bilinear' else 4
    support = size * 0.5 * ratio if ratio >= 1.0 else size * 0.5
    invscale = 1.0 / ratio if ratio >= 1.0 else 1.0
    a = -0.5

    def kernel(x):
        x = abs(x)
        if mode == 'bilinear':
            return max(0.0, 1.0 - x)
        if x < 1.0:
            return ((a + 2) * x - (a + 3)) * x * x + 1
        if x < 2.0:
            return (((x - 5) * x + 8) * x - 4) * a
        return 0.0
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        center = ratio * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), n_in)
        w = np.array([kernel((j + lo - center + 0.5) * invscale) for j in range(hi - lo)])
        total = w.sum()
        m[i, lo:hi] = w / total if total else w
    return m


def _interp_matrix(n_in, n_out, mode, align_corners, align_mode, scale, antialias=False):
    """(n_out, n_in) matrix of one axis's interpolation with Paddle's index
    rules, mirroring its float32 ratio (and double half-pixel source
    coordinate) so that index truncation matches its kernels."""
    if antialias:
        return _antialias_matrix(n_in, n_out, mode, align_corners, scale)
    if mode == 'area':
        return _avg_matrix(n_in, n_out, np.float64)
    f = np.float32
    ratio = f(0)
    if n_out > 1:
        if align_corners:
            ratio = f(n_in - 1) / f(n_out - 1)
        else:
            ratio = f(1.0 / scale) if scale and scale > 0 else f(n_in) / f(n_out)
    k = np.arange(n_out)
    m = np.zeros((n_out, n_in))
    if mode == 'bicubic':
        src = ratio * k.astype(f) if align_corners else ratio * (k.astype(f) + f(0.5)) - f(0.5)
        base = np.floor(src).astype(np.int64)
        for tap, w in zip(range(-1, 3), _cubic_weights((src - base).astype(np.float64))):
            np.add.at(m, (k, np.clip(base + tap, 0, n_in - 1)), w)
        return m
    if mode == 'nearest':
        src = ratio * k.astype(f)
        if align_corners:
            src = src.astype(np.float64) + 0.5
        m[k, np.minimum(src.astype(np.int64), n_in - 1)] = 1
        return m
    half = align_mode == 0 and not align_corners
    if half:
        src = np.float64(ratio) * (k + 0.5) - 0.5
        frac_src = np.maximum(src, 0).astype(f)
    else:
        src = frac_src = ratio * k.astype(f)
    i0 = np.minimum(np.maximum(np.trunc(src).astype(np.int64), 0), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    lam = (frac_src - i0).astype(np.float64)
    np.add.at(m, (k, i0), 1 - lam)
    np.add.at(m, (k, i1), lam)
    return m


def _interp_apply(x, in_size, out_size, scales, mode, align_corners, align_mode,
                  data_format, adjoint, antialias=False):
    """Apply (or, with ``adjoint``, the transpose of) the separable
    interpolation along each spatial axis."""
    axes = _spatial_axes(x.ndim, data_format)
    if tuple(in_size) == tuple(out_size) and not (antialias and scales):
        return x.copy()
    for i, ax in enumerate(axes):
        m = _interp_matrix(in_size[i], out_size[i], mode, align_corners, align_mode,
                           scales[i] if scales else None, antialias)
        if adjoint:
            m = m.T
        if mode == 'nearest' and not adjoint:
            x = np.take(x, m.argmax(axis=1), axis=ax)
        else:
            xm = np.moveaxis(x, ax, -1)
            x = np.moveaxis(np.matmul(xm, m.T.astype(x.dtype, copy=False)), -1, ax)
    return np.ascontiguousarray(x)


def _interp_meta(x, in_size=(), out_size=(), scales=None, mode='nearest',
                 align_corners=False, align_mode=0, data_format='NCHW', antialias=False):
    xs = list(meta.shape_of(x))
    axes = _spatial_axes(len(xs), data_format)
    if len(axes) != len(out_size):
        raise OpError("%d output sizes given for input %s with %d spatial dims"
                      % (len(out_size), xs, len(axes)))
    for ax, s in zip(axes, out_size):
        xs[ax] = s
    return Meta(xs, meta.dtype_of(x))


def _interp_grad_meta(g, in_size=(), out_size=(), scales=None, mode='nearest',
                      align_corners=False, align_mode=0, data_format='NCHW', antialias=False):
    gs = list(meta.shape_of(g))
    for ax, s in zip(_spatial_axes(len(gs), data_format), in_size):
        gs[ax] = s
    return Meta(gs, meta.dtype_of(g))


_INTERP_ATTRS = {'in_size': (), 'out_size': (), 'scales': None, 'mode': 'nearest',
                 'align_corners': False, 'align_mode': 0, 'data_format': 'NCHW',
                 'antialias': False}
_INTERP_TYPES = {'in_size': 'ints', 'out_size': 'ints', 'scales': 'float|floats|None'}


@def_op('interpolate', _interp_meta, inputs=('x',), attrs=_INTERP_ATTRS, save_inputs=False,
        attr_types=_INTERP_TYPES, pattern='opaque', amp='always_black',
        paddle_names=('linear_interp_v2', 'nearest_interp_v2', 'bilinear_interp_v2',
                      'bicubic_interp_v2', 'trilinear_interp_v2'))
@float32_compute
def interpolate_op(x, in_size, out_size, scales, mode, align_corners, align_mode, data_format,
                   antialias=False):
    """Nearest / (bi,tri)linear / bicubic / area resize of the spatial axes
    (Paddle's index rules); ``antialias`` widens bilinear and bicubic filters
    when downscaling."""
    return _interp_apply(x, in_size, out_size, scales, mode, align_corners, align_mode,
                         data_format, False, antialias)


@interpolate_op.def_onnx
def _interpolate_onnx(g, x, in_size, out_size, scales, mode, align_corners, align_mode,
                      data_format, antialias):
    # the kernel's own per-axis matrices (Paddle's index rules, exactly): a Gather of
    # the picked rows for nearest, a MatMul along the axis otherwise
    nd, dtype = g.rank(x), g.meta(x).dtype
    if tuple(in_size) == tuple(out_size) and not (antialias and scales):
        return g.op('Identity', x)
    for i, ax in enumerate(_spatial_axes(nd, data_format)):
        m = _interp_matrix(in_size[i], out_size[i], mode, align_corners, align_mode,
                           scales[i] if scales else None, antialias)
        if mode == 'nearest':
            x = g.op('Gather', x, g.ints(m.argmax(axis=1)), axis=ax)
            continue
        perm = list(range(nd))
        perm[ax], perm[-1] = perm[-1], perm[ax]
        y = g.op('MatMul', g.transpose(x, perm), g.const(np.ascontiguousarray(m.T, dtype)))
        x = g.transpose(y, perm)
    return x


@def_op('interpolate_grad', _interp_grad_meta, inputs=('g',), attrs=_INTERP_ATTRS,
        save_inputs=False, attr_types=_INTERP_TYPES, pattern='opaque')
@float32_compute
def interpolate_grad_op(g, in_size, out_size, scales, mode, align_corners, align_mode,
                        data_format, antialias=False):
    """The transpose of ``interpolate`` (its gradient; linear in ``g``)."""
    return _interp_apply(g, in_size, out_size, scales, mode, align_corners, align_mode,
                         data_format, True, antialias).astype(g.dtype, copy=False)


def _interp_adjoint_args(fn):
    def rule(g, x, out, *attrs):
        return fn(g, *attrs)
    return rule


interpolate_op.def_grad(_interp_adjoint_args(interpolate_grad_op))
interpolate_op.def_fast_grad(_interp_adjoint_args(interpolate_grad_op.kernel))
interpolate_grad_op.def_grad(_interp_adjoint_args(interpolate_op))
interpolate_grad_op.def_fast_grad(_interp_adjoint_args(interpolate_op.kernel))


# ---- public API: activations -------------------------------------------------

def _float_attr(v, api, name):
    try:
        return float(v)
    except (TypeError, ValueError):
        raise OpError("%s: %s must be a number, got %r" % (api, name, v)) from None


def relu(x, name=None):
    """``max(x, 0)``."""
    return relu_op(x)


def relu_(x, name=None):
    """In-place ``relu``."""
    return x._inplace_update(relu_op(x))


def relu6(x, name=None):
    """``min(max(x, 0), 6)``."""
    return relu6_op(x, 6.0)


def leaky_relu(x, negative_slope=0.01, name=None):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return leaky_relu_op(x, _float_attr(negative_slope, 'leaky_relu', 'negative_slope'))


def elu(x, alpha=1.0, name=None):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    return elu_op(x, _float_attr(alpha, 'elu', 'alpha'))


def elu_(x, alpha=1.0, name=None):
    """In-place ``elu``."""
    return x._inplace_update(elu(x, alpha))


def selu(x, scale=_SELU_SCALE, alpha=_SELU_ALPHA, name=None):
    """``scale * elu(x, alpha)`` with the self-normalising constants."""
    if scale <= 1.0:
        raise OpError("selu: scale must be greater than 1.0, got %r" % scale)
    if alpha < 0:
        raise OpError("selu: alpha must be no less than 0, got %r" % alpha)
    return selu_op(x, float(scale), float(alpha))


def celu(x, alpha=1.0, name=None):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise OpError("celu: alpha must not be 0")
    return celu_op(x, _float_attr(alpha, 'celu', 'alpha'))


def gelu(x, approximate=False, name=None):
    """Gaussian error linear unit: exact (erf) or the tanh approximation
    (``approximate`` True or 'tanh'; False or 'none' is exact)."""
    if isinstance(approximate, str):
        if approximate not in ('tanh', 'none'):
            raise OpError("gelu: approximate must be a bool, 'tanh' or 'none', got %r"
                          % (approximate,))
        approximate = approximate == 'tanh'
    return gelu_op(x, bool(approximate))


def silu(x, inplace=False, name=None):
    """``x * sigmoid(x)``; ``inplace=True`` overwrites ``x`` with the result."""
    out = silu_op(x)
    return x._inplace_assign(out) if inplace else out


def swish(x, name=None):
    """``x * sigmoid(x)`` (Paddle 2.x ``swish`` has beta fixed to 1)."""
    return silu_op(x)


def mish(x, name=None):
    """``x * tanh(softplus(x))``."""
    return mish_op(x, 20.0)


def softplus(x, beta=1, threshold=20, name=None):
    """``log(1 + exp(beta * x)) / beta``, and ``x`` where ``beta * x > threshold``."""
    return softplus_op(x, _float_attr(beta, 'softplus', 'beta'),
                       _float_attr(threshold, 'softplus', 'threshold'))


def softsign(x, name=None):
    """``x / (1 + |x|)``."""
    return softsign_op(x)


def tanhshrink(x, name=None):
    """``x - tanh(x)``."""
    return tanhshrink_op(x)


def hardswish(x, name=None):
    """``x * relu6(x + 3) / 6``."""
    return hardswish_op(x)


def hardsigmoid(x, slope=0.1666667, offset=0.5, name=None):
    """``clip(slope * x + offset, 0, 1)`` (Paddle's default slope 0.1666667)."""
    return hardsigmoid_op(x, float(slope), float(offset))


def hardtanh(x, min=-1.0, max=1.0, name=None):  # noqa: A002
    """``clip(x, min, max)``."""
    if min >= max:
        raise OpError("hardtanh: min (%r) must be less than max (%r)" % (min, max))
    return hardtanh_op(x, float(min), float(max))


def hardshrink(x, threshold=0.5, name=None):
    """``x`` where ``|x| > threshold``, else 0."""
    return hardshrink_op(x, float(threshold))


def softshrink(x, threshold=0.5, name=None):
    """Shrink ``x`` towards 0 by ``threshold`` (0 inside ``[-threshold, threshold]``)."""
    if threshold < 0:
        raise OpError("softshrink: threshold must be no less than 0, got %r" % threshold)
    return softshrink_op(x, float(threshold))


def thresholded_relu(x, threshold=1.0, value=0.0, name=None):
    """``x`` where ``x > threshold``, else ``value``."""
    out = thresholded_relu_op(x, _float_attr(threshold, 'thresholded_relu', 'threshold'))
    value = _float_attr(value, 'thresholded_relu', 'value')
    if value == 0.0:
        return out
    return lib.where(x > threshold, out, lib.full_like(x, value))


def sigmoid(x, name=None):
    """``1 / (1 + exp(-x))`` (the math module's op)."""
    return _math_sigmoid(x)


def tanh(x, name=None):
    """Hyperbolic tangent (the math module's op)."""
    return tanh_op(x)


def log_sigmoid(x, name=None):
    """``log(sigmoid(x))``, computed without overflow."""
    return log_sigmoid_op(x)


def _cast_input(x, dtype):
    if dtype is None:
        return x
    return lib.cast(x, dtype)


def _axis_arg(axis, x, api):
    nd = len(x.shape)
    try:
        a = int(axis)
    except TypeError:
        raise OpError("%s: axis must be an int, got %r" % (api, axis)) from None
    if not -max(nd, 1) <= a < max(nd, 1):
        raise OpError("%s: axis %d is out of range for input of shape %s"
                      % (api, a, list(x.shape)))
    return a


def softmax(x, axis=-1, dtype=None, name=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (shifted by the max for stability).

    >>> import framework as paddle
    >>> import framework.nn.functional as F
    >>> F.softmax(paddle.to_tensor([0.0, 0.0])).numpy().tolist()
    [0.5, 0.5]
    """
    x = _cast_input(x, dtype)
    return softmax_op(x, _axis_arg(axis, x, 'softmax'))


def softmax_(x, axis=-1, dtype=None, name=None):
    """In-place ``softmax``."""
    return x._inplace_update(softmax(x, axis, dtype))


def log_softmax(x, axis=-1, dtype=None, name=None):
    """``x - logsumexp(x)`` along ``axis``."""
    x = _cast_input(x, dtype)
    return log_softmax_op(x, _axis_arg(axis, x, 'log_softmax'))


def prelu(x, weight, data_format='NCHW', name=None):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has one
    element or one per channel."""
    if data_format not in ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC'):
        raise OpError("prelu: unknown data_format %r" % (data_format,))
    return prelu_op(x, weight, data_format)


def glu(x, axis=-1, name=None):
    """Gated linear unit: split ``x`` in two halves ``a, b`` along ``axis``,
    return ``a * sigmoid(b)``."""
    a = _axis_arg(axis, x, 'glu')
    n = x.shape[a]
    if n % 2:
        raise OpError("glu: the size of axis %d of input %s must be even"
                      % (a, list(x.shape)))
    first, second = lib.split(x, 2, axis=a)
    return first * sigmoid(second)


def maxout(x, groups, axis=1, name=None):
    """Max over ``groups`` consecutive channels: [N, C, ...] -> [N, C/groups, ...]."""
    shape = list(x.shape)
    a = _axis_arg(axis, x, 'maxout') % len(shape)
    if shape[a] % groups:
        raise OpError("maxout: groups=%d must divide the size %d of axis %d of input %s"
                      % (groups, shape[a], a, shape))
    split = shape[:a] + [shape[a] // groups, groups] + shape[a + 1:]
    return lib.max(lib.reshape(x, split), axis=a + 1)


# ---- public API: normalisation -------------------------------------------------

_BN_FORMATS = ('NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', 'NDHWC')


def _check_format(data_format, api, allowed=_BN_FORMATS):
    if data_format not in allowed:
        raise OpError("%s: data_format must be one of %s, got %r"
                      % (api, ', '.join(allowed), data_format))


def _write_stat(t, value):
    """Store an updated running statistic into the buffer ``t``.

    The array is replaced, not mutated, and the version counter is left alone
    on purpose: batch_norm's own grad node saved ``t`` as an input, but its
    gradient never reads statistics that this call updated (they are only
    updated when batch statistics are used)."""
    arr = value.data
    t.data = arr if arr.dtype == t.data.dtype else arr.astype(t.data.dtype)


def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format='NCHW', use_global_stats=None,
               name=None):
    """Batch normalisation (Paddle's ``F.batch_norm``).

    Batch statistics are used when ``use_global_stats`` is False, or when it
    is None and ``training`` is True; the running statistics are then updated
    in place: ``running = momentum * running + (1 - momentum) * batch_stat``.
    Otherwise the running statistics normalise the input.
    """
    _check_format(data_format, 'batch_norm')
    use_global = (not training) if use_global_stats is None else bool(use_global_stats)
    out, mean_out, var_out, _, _ = batch_norm_op(
        x, running_mean, running_var, weight, bias, float(momentum), float(epsilon),
        data_format, use_global)
    if not in_static_mode() and not use_global:
        for t, v in ((running_mean, mean_out), (running_var, var_out)):
            if hasattr(t, 'data') and hasattr(t, '_version'):
                _write_stat(t, v)
    return out


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format='NCHW',
                  name=None):
    """Normalise each sample and channel over its spatial axes."""
    _check_format(data_format, 'instance_norm')
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise OpError("instance_norm: use_input_stats=False needs running_mean and "
                          "running_var")
        return batch_norm(x, running_mean, running_var, weight, bias, False, momentum,
                          eps, data_format, True)
    c = x.shape[_channel_axis(len(x.shape), data_format)]
    out, _, _ = group_norm_op(x, weight, bias, int(c), float(eps), data_format)
    return out


def _normalized_shape(normalized_shape):
    if isinstance(normalized_shape, (int, np.integer)):
        return [int(normalized_shape)]
    return [int(d) for d in normalized_shape]


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalise over the trailing ``normalized_shape`` axes, then scale and shift."""
    ns = _normalized_shape(normalized_shape)
    xs = list(x.shape)
    if len(ns) > len(xs) or [d for d in xs[len(xs) - len(ns):] if d != -1] != \
            [n for n, d in zip(ns, xs[len(xs) - len(ns):]) if d != -1]:
        raise OpError("layer_norm: normalized_shape %s does not match the trailing dims of "
                      "input %s" % (ns, xs))
    out, _, _ = layer_norm_op(x, weight, bias, len(xs) - len(ns), float(epsilon))
    return out


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format='NCHW',
               name=None):
    """Normalise each sample over groups of ``C / num_groups`` channels."""
    _check_format(data_format, 'group_norm')
    out, _, _ = group_norm_op(x, weight, bias, int(num_groups), float(epsilon), data_format)
    return out


def normalize(x, p=2, axis=1, epsilon=1e-12, name=None):
    """``x / max(||x||_p, epsilon)`` along ``axis``."""
    p = float(p)
    if not p > 0 or math.isinf(p):
        raise OpError("normalize: p must be a positive finite number, got %r" % p)
    return normalize_op(x, p, _axis_arg(axis, x, 'normalize'), float(epsilon))


def local_response_norm(x, size, alpha=1e-4, beta=0.75, k=1.0, data_format='NCHW',
                        name=None):
    """``x / (k + alpha / size * sum of x^2 over `size` neighbouring channels) ** beta``."""
    _check_format(data_format, 'local_response_norm')
    nd = len(x.shape)
    ca = _channel_axis(nd, data_format)
    sq = x * x
    pads = [(0, 0)] * nd
    pads[ca] = (size // 2, (size - 1) // 2)
    zeros = [_zeros_like_slab(sq, ca, n) for n in pads[ca]]
    padded = lib.concat([z for z in (zeros[0],) if z is not None] + [sq] +
                        [z for z in (zeros[1],) if z is not None], axis=ca)
    c = x.shape[ca]
    windows = [lib.slice(padded, [ca], [i], [i + c]) for i in range(size)]
    div = (lib.sum(lib.stack(windows, axis=0), axis=0) * (alpha / size) + k) ** beta
    return x / div


def _zeros_like_slab(t, axis, n):
    if n == 0:
        return None
    shape = list(t.shape)
    shape[axis] = n
    return lib.zeros(shape, str(np.dtype(t.dtype)))


# ---- public API: dropout, embedding, linear ---------------------------------------

def _check_p(p, api):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating, np.integer)):
        raise OpError("%s: p must be a float in [0, 1], got %r" % (api, p))
    if not 0 <= p <= 1:
        raise OpError("%s: p must be in [0, 1], got %r" % (api, p))
    return float(p)


def dropout(x, p=0.5, axis=None, training=True, inplace=False, mode='upscale_in_train',
            name=None):
    """Zero elements with probability ``p`` while training.

    ``mode='upscale_in_train'`` scales kept elements by ``1/(1-p)`` while
    training and is the identity at inference; ``'downscale_in_infer'`` keeps
    training outputs unscaled and multiplies by ``1-p`` at inference.
    ``axis`` (int or list) draws one mask value per index of those axes only.
    ``inplace=True`` writes the result into ``x`` (and returns ``x``).
    """
    p = _check_p(p, 'dropout')
    if mode not in ('upscale_in_train', 'downscale_in_infer'):
        raise OpError("dropout: mode must be 'upscale_in_train' or 'downscale_in_infer', "
                      "got %r" % (mode,))
    if not training:
        out = x if mode == 'upscale_in_train' or p == 0 else x * (1.0 - p)
    elif p == 0:
        out = x
    else:
        if axis is not None:
            nd = len(x.shape)
            axis = tuple(sorted(meta.normalize_axes(
                list(axis) if isinstance(axis, (list, tuple)) else int(axis), nd)))
        out, _ = dropout_op(x, p, axis, mode)
    if inplace and out is not x:
        return x._inplace_assign(out)
    return out


def dropout2d(x, p=0.5, training=True, data_format='NCHW', name=None):
    """Drop whole channels of a 4-D input."""
    _check_format(data_format, 'dropout2d', ('NCHW', 'NHWC'))
    return dropout(x, p, [0, 1] if data_format == 'NCHW' else [0, 3], training)


def dropout3d(x, p=0.5, training=True, data_format='NCDHW', name=None):
    """Drop whole channels of a 5-D input."""
    _check_format(data_format, 'dropout3d', ('NCDHW', 'NDHWC'))
    return dropout(x, p, [0, 1] if data_format == 'NCDHW' else [0, 4], training)


def alpha_dropout(x, p=0.5, training=True, name=None):
    """Dropout for SELU networks: keeps zero mean and unit variance."""
    p = _check_p(p, 'alpha_dropout')
    if not training or p == 0:
        return x
    if p == 1:
        return x * 0.0
    out, _ = alpha_dropout_op(x, p)
    return out


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Look up rows of ``weight`` ([num_embeddings, dim]) by the integer ids ``x``.

    Output rows for ``padding_idx`` are zero and that row gets no gradient; a
    negative ``padding_idx`` counts from the end, as in Paddle. ``max_norm``
    first rescales, in place and outside autograd, the rows ``x`` uses whose
    ``norm_type``-norm exceeds it (Paddle's ``embedding_renorm_``).
    ``scale_grad_by_freq`` divides each id's gradient by how often it occurs
    in ``x``. ``sparse`` is accepted for compatibility (gradients are dense).
    """
    n = int(weight.shape[0])
    if padding_idx is None:
        pad = -1
    else:
        pad = int(padding_idx)
        if not -n <= pad < n:
            raise OpError("embedding: padding_idx %d is out of range for num_embeddings=%d"
                          % (pad, n))
        pad = pad % n
    if scale_grad_by_freq and sparse:
        raise OpError("embedding: scale_grad_by_freq=True is not supported with sparse=True")
    if max_norm:
        weight = _embedding_renorm_(x, weight, float(max_norm), float(norm_type))
    out = embedding_op(x, weight, pad)
    if scale_grad_by_freq:
        # the value of `out`, the gradient of `out / count(id)`
        fixed = out.detach()
        out = fixed + (out - fixed) / _id_counts(x, n, weight.dtype)
    return out


def _embedding_renorm_(ids, weight, max_norm, norm_type):
    """Paddle's ``embedding_renorm_``: the rows of ``weight`` that ``ids`` uses
    and whose norm exceeds ``max_norm`` are scaled down to it, outside
    autograd. Eagerly ``weight`` itself is updated (and returned). While a
    program is built the renormed table is used for this lookup, with the
    gradient going to ``weight`` unchanged, but the stored parameter is not
    rewritten (the program would have to write a variable it also reads)."""
    frozen = weight.detach()    # every op below has only inputs outside autograd
    flat = lib.reshape(ids, [-1])
    rows = lib.index_select(frozen, flat)
    a = lib.abs(rows)
    if norm_type == float('inf'):
        norm = lib.max(a, axis=1, keepdim=True)
    else:
        norm = lib.sum(a ** norm_type, axis=1, keepdim=True) ** (1.0 / norm_type)
    scale = lib.where(norm > max_norm, max_norm / (norm + 1e-7), lib.ones_like(norm))
    renormed = lib.scatter_op(frozen, flat, rows * scale, True).detach()
    if in_static_mode():
        return renormed + (weight - frozen)
    weight.data = renormed.data
    weight._version += 1
    return weight


def _id_counts(ids, n, dtype):
    """How often each position's id occurs in ``ids``: shape ``ids.shape + [1]``."""
    flat = lib.reshape(ids, [-1])
    ones = lib.full_like(lib.unsqueeze(flat, [1]), 1.0, dtype=dtype)
    per_id = embedding_grad_op(ones, flat, n, -1)           # [n, 1]: occurrences of each id
    return embedding_op(ids, per_id, -1).detach()


def linear(x, weight, bias=None, name=None):
    """``x @ weight + bias``; ``weight`` is [in_features, out_features] (Paddle's layout).

    >>> import framework as paddle
    >>> import framework.nn.functional as F
    >>> F.linear(paddle.ones([1, 2]), paddle.ones([2, 3])).shape
    paddle.Size([1, 3])
    """
    return linear_op(x, weight, bias)


# ---- public API: interpolation ------------------------------------------------

def _as_int(v):
    if hasattr(v, 'item') and not isinstance(v, (int, np.integer)):
        v = v.item()   # a 1-element Tensor
    return int(v)


def interpolate(x, size=None, scale_factor=None, mode='nearest', align_corners=False,
                align_mode=0, data_format=None, recompute_scale_factor=None, antialias=False,
                name=None):
    """Resize the spatial axes of a 3-D/4-D/5-D input (Paddle's ``F.interpolate``).

    Modes: 'nearest' and 'area' (adaptive average pooling; 3-D/4-D/5-D),
    'linear' (3-D), 'bilinear' and 'bicubic' (4-D), 'trilinear' (5-D), with
    Paddle's ``align_corners``/``align_mode`` index rules; ``antialias``
    (bilinear and bicubic) widens the filter when downscaling, as Pillow does.
    Give exactly one of ``size`` (ints or 1-element tensors) and ``scale_factor``.
    ``data_format`` None means channels first (NCW, NCHW or NCDHW by rank).
    With ``scale_factor``, source coordinates use that factor unless
    ``recompute_scale_factor`` is True, which uses the ratio of the sizes.
    """
    mode = mode.lower() if isinstance(mode, str) else mode
    nd = len(x.shape)
    if data_format is None:
        data_format = {3: 'NCW', 4: 'NCHW', 5: 'NCDHW'}.get(nd, 'NCHW')
    if mode not in _MODE_RANK:
        raise OpError("interpolate: mode %r is not supported; use 'nearest', 'linear', "
                      "'bilinear', 'bicubic', 'trilinear' or 'area'" % (mode,))
    if antialias and mode not in ('bilinear', 'bicubic'):
        raise OpError("interpolate: antialias is only supported with mode 'bilinear' or "
                      "'bicubic', got %r" % (mode,))
    if mode == 'area' and size is None:
        raise OpError("interpolate: output size can not be None in AREA mode")
    ranks = _MODE_RANK[mode]
    if nd not in (ranks if isinstance(ranks, tuple) else (ranks,)):
        raise OpError("interpolate: mode %r needs a %s-D input, got shape %s"
                      % (mode, ranks if isinstance(ranks, int) else '3/4/5', list(x.shape)))
    formats = {3: ('NCW', 'NWC'), 4: ('NCHW', 'NHWC'), 5: ('NCDHW', 'NDHWC')}[nd]
    if data_format not in formats:
        raise OpError("interpolate: data_format must be %s or %s for a %d-D input, got %r"
                      % (formats[0], formats[1], nd, data_format))
    if align_corners and mode in ('nearest', 'area'):
        raise OpError("interpolate: align_corners option can only be set with the "
                      "interpolating modes: linear | bilinear | bicubic | trilinear")
    if align_mode not in (0, 1):
        raise OpError("interpolate: align_mode must be 0 or 1, got %r" % (align_mode,))
    fmt = 'NLC' if data_format == 'NWC' else data_format
    axes = _spatial_axes(nd, fmt)
    in_size = [int(x.shape[a]) for a in axes]
    if any(s < 0 for s in in_size):
        raise OpError("interpolate: spatial dims of input %s must be known" % list(x.shape))
    k = len(axes)
    if (size is None) == (scale_factor is None):
        raise OpError("interpolate: give exactly one of size and scale_factor")
    scales = None
    if size is not None:
        if hasattr(size, 'tolist') and not isinstance(size, (list, tuple)):
            size = size.tolist() if hasattr(size, 'numpy') else list(size)
        size = [size] * k if isinstance(size, (int, np.integer)) else list(size)
        if len(size) != k:
            raise OpError("interpolate: size %s must have %d entries for input %s"
                          % (size, k, list(x.shape)))
        out_size = [_as_int(s) for s in size]
    else:
        sf = scale_factor
        if hasattr(sf, 'tolist') and not isinstance(sf, (list, tuple)):
            sf = sf.tolist()
        sf = [float(sf)] * k if isinstance(sf, (int, float, np.number)) else [float(s) for s in sf]
        if len(sf) != k or any(s <= 0 for s in sf):
            raise OpError("interpolate: scale_factor must be positive with %d entries, got %r"
                          % (k, scale_factor))
        scales = None if recompute_scale_factor else tuple(sf)
        out_size = [int(i * s) for i, s in zip(in_size, sf)]
    if any(s <= 0 for s in out_size):
        raise OpError("interpolate: output size %s must be positive" % out_size)
    return interpolate_op(x, tuple(in_size), tuple(out_size), scales, mode,
                          bool(align_corners), int(align_mode), fmt, bool(antialias))


def upsample(x, size=None, scale_factor=None, mode='nearest', align_corners=False,
             align_mode=0, data_format=None, name=None):
    """Alias of ``interpolate``."""
    return interpolate(x, size, scale_factor, mode, align_corners, align_mode, data_format)


# ---- public API: misc ---------------------------------------------------------

def cosine_similarity(x1, x2, axis=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``axis``."""
    w12 = lib.sum(x1 * x2, axis=axis)
    w1 = lib.sum(x1 * x1, axis=axis)
    w2 = lib.sum(x2 * x2, axis=axis)
    return w12 / maximum_op(w1 * w2, eps * eps) ** 0.5


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """``(1 - epsilon) * label + epsilon * prior`` (uniform prior by default)."""
    if not 0 <= epsilon <= 1:
        raise OpError("label_smooth: epsilon must be in [0, 1], got %r" % epsilon)
    if prior_dist is None:
        return label * (1 - epsilon) + epsilon / label.shape[-1]
    return label * (1 - epsilon) + prior_dist * epsilon


__all__ = [
    'relu', 'relu_', 'relu6', 'leaky_relu', 'elu', 'elu_', 'selu', 'celu', 'gelu', 'silu',
    'swish', 'mish', 'softplus', 'softsign', 'tanhshrink', 'hardswish', 'hardsigmoid',
    'hardtanh', 'hardshrink', 'softshrink', 'thresholded_relu', 'sigmoid', 'tanh',
    'log_sigmoid', 'softmax', 'softmax_', 'log_softmax', 'prelu', 'glu', 'maxout',
    'batch_norm', 'instance_norm', 'layer_norm', 'group_norm', 'normalize',
    'local_response_norm', 'dropout', 'dropout2d', 'dropout3d', 'alpha_dropout',
    'embedding', 'linear', 'interpolate', 'upsample', 'cosine_similarity', 'label_smooth',
]

# Paddle's Tensor has none of the nn.functional activations as methods (tanh
# is the math module's).
TENSOR_METHODS = {}


# ---- test cases (independent numpy references) ------------------------------------

_rng = np.random.default_rng(21)


def _away(shape, lo=-3.0, hi=3.0, kinks=(0.0,), gap=0.15, rng=None):
    """Uniform samples pushed at least ``gap`` away from the kinks."""
    v = (rng or _rng).uniform(lo, hi, shape)
    for k in kinks:
        close = np.abs(v - k) < gap
        v[close] = k + np.where(v[close] >= k, 2 * gap, -2 * gap)
    return v


def _ew(fn):
    """Elementwise reference from a scalar Python function."""
    return lambda x, *attrs: np.vectorize(lambda v: fn(float(v), *attrs))(x)


def _sig(v):
    return 1.0 / (1.0 + math.exp(-v))


def _sp(v):
    return math.log1p(math.exp(v))


add_test_case(relu_op, _away((3, 4)), ref=_ew(lambda v: v if v > 0 else 0.0))
# feature maps (what oneDNN's layouts hold in a static plan: _eltwise_layout),
# both signs and past the clips
add_test_case(relu_op, _away((2, 20, 5, 3)), ref=lambda x: np.maximum(x, 0))
def _masked_grad_cases(op, attrs, kinks, lo=-3.0, hi=3.0, operand=lambda v: v):
    """Cases of an activation's gradient op: a feature map (what a oneDNN
    plan's layouts hold) and a matrix, 0-d operands on both sides of the
    kinks, a 0-size case and a float32 one; ``operand`` makes the saved value
    from samples (the output, for relu_grad). (Their own generator: the
    cases of the ops declared after them keep their inputs.)"""
    rng = np.random.default_rng(len(op.name))

    def case(shape, dtype=np.float64, **opts):
        g = rng.standard_normal(shape).astype(dtype)
        v = _away(shape, lo, hi, kinks, rng=rng)
        v.reshape(-1)[:len(kinks)] = kinks[:v.size]      # and the kinks themselves
        v = np.asarray(operand(v)).astype(dtype)
        add_test_case(op, g, v, *attrs, ref=lambda g, v, *a: _masked_ref(op, g, v, *a),
                      **opts)
    case((2, 20, 5, 3))
    case((3, 4))
    for v in (lo - 1.0, hi + 1.0, (kinks[0] + (kinks[-1] if len(kinks) > 1 else hi)) / 2) + \
            tuple(kinks):
        add_test_case(op, rng.standard_normal(()), np.array(operand(v)), *attrs,
                      ref=lambda g, v, *a: _masked_ref(op, g, v, *a))
    case((0, 3))
    case((2, 3), np.float32, grad=False)


_MASKS = {'relu_grad': lambda v: 1.0 if v > 0 else 0.0,
          'relu6_grad': lambda v, t: 1.0 if 0 < v < t else 0.0,
          'leaky_relu_grad': lambda v, s: 1.0 if v > 0 else s,
          'hardtanh_grad': lambda v, lo, hi: 1.0 if lo < v < hi else 0.0}


def _masked_ref(op, g, v, *attrs):
    """The gradient from the activation's derivative, value by value."""
    d = np.vectorize(lambda a: _MASKS[op.name](float(a), *attrs), otypes=[np.float64])(v)
    return (g * d).astype(g.dtype)


_masked_grad_cases(relu_grad_op, (), (0.0,), operand=lambda v: np.maximum(v, 0))
_masked_grad_cases(relu6_grad_op, (6.0,), (0.0, 6.0), -3, 9)
_masked_grad_cases(leaky_relu_grad_op, (0.1,), (0.0,))
_masked_grad_cases(hardtanh_grad_op, (-2.0, 3.0), (-2.0, 3.0), -4, 5)
add_test_case(relu6_op, _away((2, 20, 5, 3), -3, 9, (0, 6)), 6.0,
              ref=lambda x, t: np.minimum(np.maximum(x, 0), t))
add_test_case(leaky_relu_op, _away((2, 20, 5, 3)), 0.1,
              ref=lambda x, s: np.where(x > 0, x, s * x))
add_test_case(hardtanh_op, _away((2, 20, 5, 3), -3, 4, (-2, 3)), -2.0, 3.0,
              ref=lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi))
add_test_case(relu6_op, _away((3, 4), -2, 8, (0, 6)), 6.0,
              ref=_ew(lambda v, t: min(max(v, 0.0), t)))
add_test_case(leaky_relu_op, _away((3, 4)), 0.1, ref=_ew(lambda v, s: v if v > 0 else s * v))
add_test_case(hardtanh_op, _away((3, 4), -2, 2, (-0.5, 1.5)), -0.5, 1.5,
              ref=_ew(lambda v, lo, hi: lo if v < lo else hi if v > hi else v))
add_test_case(hardsigmoid_op, _away((3, 4), -5, 5, (-3.0, 3.0)), 1 / 6, 0.5,
              ref=_ew(lambda v, s, o: min(1.0, max(0.0, s * v + o))))
add_test_case(hardswish_op, _away((3, 5), -5, 5, (-3.0, 3.0)),
              ref=_ew(lambda v: 0.0 if v <= -3 else v if v >= 3 else v * (v + 3) / 6))
add_test_case(hardshrink_op, _away((3, 4), -2, 2, (-0.5, 0.5)), 0.5,
              ref=_ew(lambda v, t: v if abs(v) > t else 0.0))
add_test_case(softshrink_op, _away((3, 4), -2, 2, (-0.5, 0.5)), 0.5,
              ref=_ew(lambda v, t: v - t if v > t else v + t if v < -t else 0.0))
add_test_case(thresholded_relu_op, _away((3, 4), -2, 3, (1.0,)), 1.0,
              ref=_ew(lambda v, t: v if v > t else 0.0))
add_test_case(elu_op, _away((3, 4)), 1.5,
              ref=_ew(lambda v, a: v if v > 0 else a * (math.exp(v) - 1)))
add_test_case(selu_op, _away((3, 4)), _SELU_SCALE, _SELU_ALPHA,
              ref=_ew(lambda v, s, a: s * (v if v > 0 else a * (math.exp(v) - 1))))
add_test_case(celu_op, _away((3, 4)), 0.7,
              ref=_ew(lambda v, a: max(0.0, v) + min(0.0, a * (math.exp(v / a) - 1))))
add_test_case(gelu_op, _rng.uniform(-3, 3, (3, 4)), False,
              ref=_ew(lambda v, ap: 0.5 * v * (1 + math.erf(v / math.sqrt(2)))))
add_test_case(gelu_op, _rng.uniform(-3, 3, (3, 4)), True,
              ref=_ew(lambda v, ap: 0.5 * v * (1 + math.tanh(
                  math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))))
# activations as large as a oneDNN kernel takes (ONEDNN_MIN_SIZE), both forms
# (their own generator: the later cases keep the data they were written with)
_big = np.random.default_rng(48)
for _approximate in (False, True):
    add_test_case(gelu_op, _big.uniform(-4, 4, (2, 48, 48)), _approximate,
                  ref=lambda v, ap: 0.5 * v * (1 + (
                      np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)) if ap
                      else np.vectorize(math.erf)(v / math.sqrt(2)))), rtol=1e-6, atol=1e-7,
                  grad=False)   # gradients: the small cases (finite differences per element)
add_test_case(silu_op, _rng.uniform(-4, 4, (3, 4)), ref=_ew(lambda v: v * _sig(v)))
add_test_case(softplus_op, _away((3, 4), -3, 3, (1.5,)), 2.0, 3.0,
              ref=_ew(lambda v, b, t: v if b * v > t else _sp(b * v) / b))
add_test_case(mish_op, _rng.uniform(-3, 3, (3, 4)), 20.0,
              ref=_ew(lambda v, t: v * math.tanh(_sp(v))))
add_test_case(softsign_op, _away((3, 4)), ref=_ew(lambda v: v / (1 + abs(v))))
add_test_case(tanhshrink_op, _rng.uniform(-2, 2, (3, 4)), ref=_ew(lambda v: v - math.tanh(v)))
add_test_case(log_sigmoid_op, _rng.uniform(-5, 5, (3, 4)), ref=_ew(lambda v: math.log(_sig(v))))


def _softmax_ref(x, axis):
    xm = np.moveaxis(x, axis, -1)
    out = np.empty_like(xm)
    for idx in np.ndindex(xm.shape[:-1]):
        e = [math.exp(v) for v in xm[idx]]
        out[idx] = [v / sum(e) for v in e]
    return np.moveaxis(out, -1, axis)


add_test_case(softmax_op, _rng.standard_normal((2, 3, 4)), 1, ref=_softmax_ref)
add_test_case(softmax_op, _rng.standard_normal((3, 5)), -1, ref=_softmax_ref)
add_test_case(log_softmax_op, _rng.standard_normal((3, 5)), -1,
              ref=lambda x, a: np.log(_softmax_ref(x, a)))
add_test_case(log_softmax_op, _rng.standard_normal((2, 3, 2)), 0,
              ref=lambda x, a: np.log(_softmax_ref(x, a)))


def _rrelu_ref(x, lower, upper, is_test):
    slope = ((lower + upper) / 2 if is_test
             else np.random.default_rng(1234).uniform(lower, upper, x.shape))  # seed(1234)
    noise = np.where(x >= 0, 1.0, slope).astype(x.dtype)
    return x * noise, noise


add_test_case(rrelu_op, _away((3, 4)), 0.1, 0.3, False, ref=_rrelu_ref)
add_test_case(rrelu_op, _away((2, 3, 2)).astype(np.float32), 0.2, 0.5, True, ref=_rrelu_ref,
              grad=False)
add_test_case(rrelu_op, np.array(-1.5), 0.1, 0.3, False, ref=_rrelu_ref)
add_test_case(rrelu_op, np.zeros((0, 3)), 0.1, 0.3, False, ref=_rrelu_ref)


def _gumbel_ref(x, noise, t, hard, axis):
    if x.ndim == 0:
        return np.ones_like(x)
    y = _softmax_ref((x + noise) / t, axis)
    if hard:
        y = (y == y.max(axis=axis, keepdims=True)).astype(x.dtype)
    return y


add_test_case(gumbel_softmax_op, _rng.standard_normal((3, 4)), _rng.gumbel(size=(3, 4)), 0.5,
              False, -1, ref=_gumbel_ref)
add_test_case(gumbel_softmax_op, _rng.standard_normal((2, 3, 2)).astype(np.float32),
              _rng.gumbel(size=(2, 3, 2)).astype(np.float32), 1.0, False, 1, ref=_gumbel_ref,
              grad=False)
add_test_case(gumbel_softmax_op, _rng.standard_normal((2, 3, 4)), _rng.gumbel(size=(1, 3, 4)),
              2.0, True, -1, ref=_gumbel_ref)          # broadcast noise; hard
add_test_case(gumbel_softmax_op, np.array(0.7), np.array(-0.2), 1.0, False, -1, ref=_gumbel_ref)
add_test_case(gumbel_softmax_op, np.zeros((0, 4)), np.zeros((0, 4)), 1.0, True, -1,
              ref=_gumbel_ref)


def _ccs_ref(label, num_classes, num_samples):
    positive = sorted(set(label.tolist()))
    remapped = np.array([positive.index(v) for v in label.tolist()], label.dtype)
    negative = [c for c in range(num_classes) if c not in positive]
    extra = np.random.default_rng(1234).permutation(negative)[:max(num_samples - len(positive), 0)]
    return remapped, np.array(positive + list(extra), label.dtype)


add_test_case(class_center_sample_op, np.array([0, 5, 3, 5]), 10, 6, ref=_ccs_ref)
add_test_case(class_center_sample_op, np.array([7, 2, 2, 9], np.int32), 12, 2, ref=_ccs_ref)


def _sequence_mask_ref(x, maxlen, dtype):
    n = int(x.max()) if maxlen < 0 else maxlen
    out = np.zeros(x.shape + (n,), dtype)
    for idx in np.ndindex(*x.shape):
        out[idx][:x[idx]] = 1
    return out


add_test_case(sequence_mask_op, np.array([1, 3, 0]), 4, 'int64', ref=_sequence_mask_ref)
add_test_case(sequence_mask_op, np.array([[1, 3], [2, 0]], np.int32), -1, 'float32',
              ref=_sequence_mask_ref)
add_test_case(sequence_mask_op, np.array(2), 3, 'bool', ref=_sequence_mask_ref)


def _gather_tree_ref(ids, parents):
    out = np.zeros_like(ids)
    for b in range(ids.shape[1]):
        for k in range(ids.shape[2]):
            beam = k
            for t in range(ids.shape[0] - 1, -1, -1):
                out[t, b, k] = ids[t, b, beam]
                beam = parents[t, b, beam]
    return out


add_test_case(gather_tree_op, np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]]),
              np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]]),
              ref=_gather_tree_ref)
add_test_case(gather_tree_op, _rng.integers(0, 9, (4, 3, 3)).astype(np.int32),
              _rng.integers(0, 3, (4, 3, 3)).astype(np.int32), ref=_gather_tree_ref)


def _prelu_ref(x, w, data_format):
    out = x.copy()
    for idx in np.ndindex(x.shape):
        c = idx[x.ndim - 1 if data_format in _CHANNEL_LAST else 1] if w.size > 1 else 0
        if x[idx] <= 0:
            out[idx] = w.reshape(-1)[c] * x[idx]
    return out


add_test_case(prelu_op, _away((2, 3, 2, 2)), _rng.uniform(0.1, 0.5, 3), 'NCHW', ref=_prelu_ref)
add_test_case(prelu_op, _away((2, 2, 3)), _rng.uniform(0.1, 0.5, 3), 'NLC', ref=_prelu_ref)
add_test_case(prelu_op, _away((3, 4)), np.array([0.25]), 'NCHW', ref=_prelu_ref)


def _bn_ref(x, rm, rv, w, b, momentum, eps, data_format, use_global):
    ca = x.ndim - 1 if data_format in _CHANNEL_LAST else 1
    xm = np.moveaxis(x, ca, 0)
    c = xm.shape[0]
    out = np.empty_like(xm)
    means, variances, new_m, new_v, invs = [], [], [], [], []
    for k in range(c):
        vals = xm[k].reshape(-1)
        if use_global:
            mu, var = rm[k], rv[k]
        else:
            mu = sum(vals) / len(vals)
            var = sum((v - mu) ** 2 for v in vals) / len(vals)
        inv = 1 / math.sqrt(var + eps)
        out[k] = (xm[k] - mu) * inv * (1 if w is None else w[k]) + (0 if b is None else b[k])
        means.append(mu)
        invs.append(inv)
        new_m.append(rm[k] if use_global else momentum * rm[k] + (1 - momentum) * mu)
        new_v.append(rv[k] if use_global else momentum * rv[k] + (1 - momentum) * var)
    return (np.moveaxis(out, 0, ca), np.array(new_m), np.array(new_v), np.array(means),
            np.array(invs))


def _bn_case(shape, c, fmt, use_global, affine=True):
    stats = _rng.standard_normal(c), _rng.uniform(0.5, 2.0, c)
    wb = (_rng.uniform(0.5, 1.5, c), _rng.standard_normal(c)) if affine else (None, None)
    add_test_case(batch_norm_op, _rng.standard_normal(shape), *stats, *wb, 0.9, 1e-5, fmt,
                  use_global, ref=_bn_ref)


_bn_case((3, 2, 2, 2), 2, 'NCHW', False)
_bn_case((4, 3), 3, 'NCHW', False)
_bn_case((2, 2, 2, 3), 3, 'NHWC', False)
_bn_case((2, 3, 2), 3, 'NCL', True)
_bn_case((3, 2, 3), 2, 'NCL', False, affine=False)


def _bn_grad_ref(g, x, w, eps, fmt):
    """batch_norm's gradients with batch statistics, one channel at a time."""
    ca = x.ndim - 1 if fmt in _CHANNEL_LAST else 1
    gm, xm = np.moveaxis(g, ca, 0), np.moveaxis(x, ca, 0)
    dx, dw, db = np.empty_like(xm), [], []
    for k in range(xm.shape[0]):
        xk, gk = xm[k], gm[k]
        inv = 1 / math.sqrt(np.mean((xk - xk.mean()) ** 2) + eps)
        xh = (xk - xk.mean()) * inv
        scale = inv * (1 if w is None else w[k])
        dx[k] = scale * (gk - gk.mean() - xh * np.mean(gk * xh))
        dw.append(np.sum(gk * xh))
        db.append(np.sum(gk))
    stat = x.dtype if w is None else w.dtype
    return (np.moveaxis(dx, 0, ca), np.array(dw, stat), np.array(db, stat))


def _bn_grad_case(shape, fmt, weight=True, dtype=np.float64, **opts):
    c = shape[-1 if fmt in _CHANNEL_LAST else 1]
    w = _rng.uniform(-1.5, 1.5, c).astype(dtype) if weight else None
    add_test_case(batch_norm_grad_op, _rng.standard_normal(shape).astype(dtype),
                  _rng.standard_normal(shape).astype(dtype), w, 1e-5, fmt, ref=_bn_grad_ref,
                  **opts)


_bn_grad_case((3, 2, 2, 2), 'NCHW')
_bn_grad_case((4, 3), 'NCHW')
_bn_grad_case((2, 2, 2, 3), 'NHWC')
_bn_grad_case((3, 2, 3), 'NCL', weight=False)
_bn_grad_case((2, 3, 2, 2, 2), 'NCDHW')
_bn_grad_case((3, 2, 4), 'NCL', dtype=np.float32, grad=False, rtol=1e-5, atol=1e-6)


def _ln_ref(x, w, b, begin, eps):
    lead = x.shape[:begin]
    rows = x.reshape(int(np.prod(lead)), -1)
    out = np.empty_like(rows)
    means, variances = [], []
    for i, r in enumerate(rows):
        mu = sum(r) / len(r)
        var = sum((v - mu) ** 2 for v in r) / len(r)
        out[i] = (r - mu) / math.sqrt(var + eps)
        means.append(mu)
        variances.append(var)
    if w is not None:
        out = out * w.reshape(-1)
    if b is not None:
        out = out + b.reshape(-1)
    return out.reshape(x.shape), np.reshape(means, lead), np.reshape(variances, lead)


add_test_case(layer_norm_op, _rng.standard_normal((2, 3, 4)), _rng.uniform(0.5, 1.5, 12),
              _rng.standard_normal(12), 1, 1e-5, ref=_ln_ref)
add_test_case(layer_norm_op, _rng.standard_normal((2, 3, 4)), _rng.uniform(0.5, 1.5, 4),
              None, 2, 1e-5, ref=_ln_ref)
add_test_case(layer_norm_op, _rng.standard_normal((3, 5)), None, None, 1, 1e-5, ref=_ln_ref)


def _gn_ref(x, w, b, groups, eps, data_format):
    xf = np.moveaxis(x, -1, 1) if data_format in _CHANNEL_LAST else x
    n, c = xf.shape[:2]
    out = np.empty_like(xf)
    means = np.zeros((n, groups))
    variances = np.zeros((n, groups))
    per = c // groups
    for i in range(n):
        for gi in range(groups):
            blk = xf[i, gi * per:(gi + 1) * per]
            vals = blk.reshape(-1)
            mu = sum(vals) / len(vals)
            var = sum((v - mu) ** 2 for v in vals) / len(vals)
            means[i, gi], variances[i, gi] = mu, var
            for ci in range(gi * per, (gi + 1) * per):
                o = (xf[i, ci] - mu) / math.sqrt(var + eps)
                out[i, ci] = o * (1 if w is None else w[ci]) + (0 if b is None else b[ci])
    if data_format in _CHANNEL_LAST:
        out = np.moveaxis(out, 1, -1)
    return out, means, variances


add_test_case(group_norm_op, _rng.standard_normal((2, 4, 3)), _rng.uniform(0.5, 1.5, 4),
              _rng.standard_normal(4), 2, 1e-5, 'NCHW', ref=_gn_ref)
add_test_case(group_norm_op, _rng.standard_normal((2, 2, 2, 4)), _rng.uniform(0.5, 1.5, 4),
              None, 2, 1e-5, 'NHWC', ref=_gn_ref)
add_test_case(group_norm_op, _rng.standard_normal((2, 3, 2)), None, None, 3, 1e-5, 'NCHW',
              ref=_gn_ref)


def _normalize_ref(x, p, axis, eps):
    xm = np.moveaxis(x, axis, -1)
    out = np.empty_like(xm)
    for idx in np.ndindex(xm.shape[:-1]):
        n = sum(abs(v) ** p for v in xm[idx]) ** (1 / p)
        out[idx] = xm[idx] / max(n, eps)
    return np.moveaxis(out, -1, axis)


add_test_case(normalize_op, _rng.standard_normal((3, 4)), 2.0, 1, 1e-12, ref=_normalize_ref)
add_test_case(normalize_op, _away((2, 3, 2)), 3.0, 1, 1e-12, ref=_normalize_ref)
add_test_case(normalize_op, _rng.standard_normal((2, 3)) * 1e-3, 2.0, 0, 0.01,
              ref=_normalize_ref)


def _dropout_ref(x, p, axis, mode):
    shape = x.shape if axis is None else tuple(d if i in axis else 1 for i, d in enumerate(x.shape))
    u = np.random.default_rng(1234).random(shape, dtype=np.float32)   # framework.seed(1234)
    keep = (u >= p)
    kept = np.where(np.broadcast_to(keep, x.shape), x, 0)
    out = kept / (1 - p) if mode == 'upscale_in_train' else kept
    return out, keep.astype(np.uint8)


add_test_case(dropout_op, _rng.standard_normal((4, 5)), 0.4, None, 'upscale_in_train',
              ref=_dropout_ref)
add_test_case(dropout_op, _rng.standard_normal((3, 2, 4)), 0.5, (0, 1), 'downscale_in_infer',
              ref=_dropout_ref)


def _alpha_dropout_ref(x, p):
    keep = np.random.default_rng(1234).random(x.shape, dtype=np.float32) >= p
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = 1 / math.sqrt((1 - p) * (1 + p * alpha_p ** 2))
    return a * np.where(keep, x, alpha_p) - a * alpha_p * p, keep.astype(np.uint8)


add_test_case(alpha_dropout_op, _rng.standard_normal((4, 5)), 0.3, ref=_alpha_dropout_ref)


def _embedding_ref(ids, w, pad):
    out = np.zeros(ids.shape + (w.shape[1],))
    for idx in np.ndindex(ids.shape):
        if ids[idx] != pad:
            out[idx] = w[ids[idx]]
    return out


def _embedding_grad_ref(g, ids, n, pad):
    gw = np.zeros((n, g.shape[-1]))
    for idx in np.ndindex(ids.shape):
        if ids[idx] != pad:
            gw[ids[idx]] += g[idx]
    return gw


_ids = np.array([[0, 2, 1], [2, 4, 2]])
add_test_case(embedding_op, _ids, _rng.standard_normal((5, 4)), -1, ref=_embedding_ref)
add_test_case(embedding_op, _ids, _rng.standard_normal((5, 4)), 2, ref=_embedding_ref)
add_test_case(embedding_grad_op, _rng.standard_normal((2, 3, 4)), _ids, 5, 1,
              ref=_embedding_grad_ref)


def _linear_ref(x, w, b):
    out = np.zeros(x.shape[:-1] + (w.shape[1],))
    for idx in np.ndindex(x.shape[:-1]):
        for j in range(w.shape[1]):
            out[idx + (j,)] = sum(x[idx + (i,)] * w[i, j] for i in range(w.shape[0]))
            out[idx + (j,)] += 0 if b is None else b[j]
    return out


add_test_case(linear_op, _rng.standard_normal((2, 3, 4)), _rng.standard_normal((4, 5)),
              _rng.standard_normal(5), ref=_linear_ref)
add_test_case(linear_op, _rng.standard_normal((3, 4)), _rng.standard_normal((4, 2)), None,
              ref=_linear_ref)
add_test_case(linear_op, _rng.standard_normal((4, 32, 256)), _rng.standard_normal((256, 128)),
              _rng.standard_normal(128), ref=lambda x, w, b: x @ w + b, grad=False)


def _paddle_taps(n_in, n_out, mode, align_corners, align_mode, scale):
    """Per output index, the (source index, weight) pairs, written the way
    Paddle's CPU loops compute them (float32 ratio)."""
    f = np.float32
    if n_out > 1:
        ratio = (f(n_in - 1) / f(n_out - 1) if align_corners
                 else f(1.0 / scale) if scale else f(n_in) / f(n_out))
    else:
        ratio = f(0)
    taps = []
    for k in range(n_out):
        if mode == 'area':
            lo, hi = (k * n_in) // n_out, -((-(k + 1) * n_in) // n_out)
            taps.append([(i, 1.0 / (hi - lo)) for i in range(lo, hi)])
            continue
        if mode == 'bicubic':
            src = float(ratio * f(k)) if align_corners else float(ratio * (f(k) + f(0.5)) - f(0.5))
            base = math.floor(src)
            t = src - base
            a = -0.75
            w = [((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
                 ((a + 2) * t - (a + 3)) * t * t + 1,
                 ((a + 2) * (1 - t) - (a + 3)) * (1 - t) ** 2 + 1,
                 ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a]
            taps.append([(min(max(base - 1 + j, 0), n_in - 1), w[j]) for j in range(4)])
            continue
        if mode == 'nearest':
            i = int(float(ratio * f(k)) + 0.5) if align_corners else int(ratio * f(k))
            taps.append([(i, 1.0)])
            continue
        flag = align_mode == 0 and not align_corners
        y0 = int(float(ratio) * (k + 0.5) - 0.5) if flag else int(ratio * f(k))
        y0 = max(y0, 0)
        y1 = y0 + 1 if y0 + 1 < n_in - 1 else n_in - 1
        src = f(max(float(ratio) * (k + 0.5) - 0.5, 0))
        d = float(src - y0) if flag else float(ratio * f(k) - y0)
        taps.append([(y0, 1 - d), (y1, d)])
    return taps


def _aa_taps(n_in, n_out, mode, scale):
    """Pillow's anti-aliased taps: a (bi)linear or cubic (a = -0.5) filter
    stretched by the downscale factor, normalised per output pixel."""
    ratio = 1.0 / scale if scale else n_in / n_out
    support = (1.0 if mode == 'bilinear' else 2.0) * max(ratio, 1.0)
    taps = []
    for k in range(n_out):
        center = ratio * (k + 0.5)
        pts = range(max(int(center - support + 0.5), 0), min(int(center + support + 0.5), n_in))
        w = []
        for i in pts:
            d = abs((i - center + 0.5) / max(ratio, 1.0))
            if mode == 'bilinear':
                w.append(max(0.0, 1 - d))
            else:
                w.append(1.5 * d ** 3 - 2.5 * d ** 2 + 1 if d < 1
                         else -0.5 * d ** 3 + 2.5 * d ** 2 - 4 * d + 2 if d < 2 else 0.0)
        taps.append([(i, v / sum(w)) for i, v in zip(pts, w)])
    return taps


def _interp_ref(x, in_size, out_size, scales, mode, ac, am, fmt, antialias=False,
                adjoint=False):
    last = fmt in _CHANNEL_LAST
    xf = np.moveaxis(x, -1, 1) if last else x
    k = xf.ndim - 2
    src_sizes, dst_sizes = (out_size, in_size) if adjoint else (in_size, out_size)
    out = np.zeros(xf.shape[:2] + tuple(dst_sizes))
    if tuple(in_size) == tuple(out_size) and not antialias:
        out = xf.copy()
    else:
        taps = [_aa_taps(in_size[i], out_size[i], mode, scales[i] if scales else None)
                if antialias else
                _paddle_taps(in_size[i], out_size[i], mode, ac, am, scales[i] if scales else None)
                for i in range(k)]
        for o in np.ndindex(*out_size):
            combos = [[]]
            for i in range(k):
                combos = [c + [t] for c in combos for t in taps[i][o[i]]]
            for c in combos:
                src = tuple(t[0] for t in c)
                w = float(np.prod([t[1] for t in c]))
                if adjoint:
                    out[(slice(None), slice(None)) + src] += w * xf[(slice(None), slice(None)) + o]
                else:
                    out[(slice(None), slice(None)) + o] += w * xf[(slice(None), slice(None)) + src]
    return np.moveaxis(out, 1, -1) if last else out


def _interp_case(shape, in_size, out_size, scales, mode, ac=False, am=0, fmt='NCHW', aa=False,
                 **options):
    x = _rng.standard_normal(shape)
    add_test_case(interpolate_op, x, in_size, out_size, scales, mode, ac, am, fmt, aa,
                  ref=_interp_ref, **options)


_interp_case((1, 2, 2, 3), (2, 3), (4, 6), (2.0, 2.0), 'nearest')
_interp_case((1, 1, 3, 3), (3, 3), (5, 4), None, 'nearest', True)
_interp_case((1, 2, 2, 3), (2, 3), (3, 5), None, 'bilinear')
_interp_case((1, 1, 3, 3), (3, 3), (5, 4), None, 'bilinear', False, 1)
_interp_case((1, 1, 3, 2), (3, 2), (4, 5), None, 'bilinear', True)
_interp_case((1, 1, 4, 5), (4, 5), (2, 3), None, 'bilinear')
_interp_case((1, 3, 2, 2), (3, 2), (5, 3), (1.7, 1.7), 'bilinear', False, 0, 'NHWC')
_interp_case((2, 1, 3), (3,), (5,), None, 'linear', False, 0, 'NCW')
_interp_case((1, 1, 2, 2, 2), (2, 2, 2), (3, 3, 2), None, 'trilinear', False, 0, 'NCDHW')
_interp_case((1, 2, 4, 5), (4, 5), (6, 3), None, 'bicubic')
_interp_case((1, 1, 3, 4), (3, 4), (5, 7), None, 'bicubic', True, 0, 'NCHW')
_interp_case((2, 5, 4, 1), (5, 4), (3, 2), None, 'area', False, 0, 'NHWC')
_interp_case((1, 2, 7), (7,), (3,), None, 'area', False, 0, 'NCW')
_interp_case((1, 1, 8, 6), (8, 6), (3, 4), None, 'bilinear', False, 0, 'NCHW', True)
_interp_case((1, 2, 7, 5), (7, 5), (3, 9), None, 'bicubic', False, 0, 'NCHW', True)
add_test_case(interpolate_op, _rng.standard_normal((1, 2, 3, 3)).astype(np.float32), (3, 3),
              (2, 5), None, 'bicubic', False, 0, 'NCHW', False, ref=_interp_ref, grad=False,
              rtol=1e-5)
add_test_case(interpolate_grad_op, _rng.standard_normal((1, 2, 3, 5)), (2, 3), (3, 5), None,
              'bilinear', False, 0, 'NCHW',
              ref=lambda g, *a: _interp_ref(g, *a, adjoint=True))
add_test_case(interpolate_grad_op, _rng.standard_normal((1, 1, 3, 4)), (8, 6), (3, 4), None,
              'bicubic', False, 0, 'NCHW', True,
              ref=lambda g, *a: _interp_ref(g, *a, adjoint=True))
add_test_case(interpolate_grad_op, _rng.standard_normal((1, 1, 5, 4)), (3, 3), (5, 4), None,
              'nearest', True, 0, 'NCHW',
              ref=lambda g, *a: _interp_ref(g, *a, adjoint=True))
