"""Loss ops (``paddle.nn.functional`` losses).

Cross-entropy and NLL are single fused ops: a numerically stable kernel
(log-sum-exp with the max subtracted), class weights, ``ignore_index``,
label smoothing and the reduction in one pass, and a fused numpy fast grad.
Their composite grad rules (double grad, static mode) get the target
distribution and per-sample scale from the non-differentiable helper op
``cross_entropy_target`` and combine them with registered ops. The
elementwise losses are fused ops too, with the reduction as an attribute.
"""
import numpy as np

from .. import dtype as _dt
from . import lib, meta
from .grad_utils import sum_like, ub
from .math import (cast_like, equal, exp, greater_than_op, less_than_op, log, maximum_op,
                   minimum_op, tanh_op)
from .nn import log_sigmoid_op, relu_op, softmax_op
from .registry import Meta, OpError, add_test_case, def_op, lookup

_REDUCTIONS = ('none', 'mean', 'sum')


def _check_reduction(reduction, api, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise OpError("%s: reduction must be one of %s, got %r"
                      % (api, ', '.join(repr(r) for r in allowed), reduction))


# ---- cross-entropy: shared numpy pieces -----------------------------------------

class _Labels:
    """A cross-entropy call's labels, in the class-last layout.

    ``safe`` are hard labels with ignored entries replaced by 0, ``valid`` the
    0/1 mask of non-ignored samples, ``soft`` the dense target for soft labels;
    ``keep_shape`` is the input's shape with the class axis set to 1 and
    ``none_shape`` the shape of the unreduced loss.
    """

    def __init__(self, x, label, soft_label, ignore_index, axis, api):
        self.ax = ax = axis % x.ndim
        self.c = c = x.shape[ax]
        keep = list(x.shape)
        keep[ax] = 1
        self.keep_shape = tuple(keep)
        sample_shape = tuple(d for i, d in enumerate(x.shape) if i != ax)
        self.soft = self.safe = self.valid = None
        if soft_label:
            if tuple(label.shape) != tuple(x.shape):
                raise OpError("%s: soft labels must have the input's shape %s, got %s"
                              % (api, list(x.shape), list(label.shape)))
            self.soft = np.moveaxis(label, ax, -1)
            self.none_shape = self.keep_shape
            return
        lab = label
        if lab.ndim == x.ndim and lab.shape[ax] == 1:
            lab = lab.reshape(sample_shape)
        if tuple(lab.shape) != sample_shape:
            raise OpError("%s: label of shape %s does not match input of shape %s (expected "
                          "label shape %s or %s for class axis %d)"
                          % (api, list(label.shape), list(x.shape), list(sample_shape),
                             list(self.keep_shape), ax))
        if lab.dtype.kind not in 'iu':
            if lab.dtype.kind == 'f' and np.all(lab == np.round(lab)):
                lab = lab.astype(np.int64)
            else:
                raise OpError("%s: hard labels must be integers, got dtype %s (pass "
                              "soft_label=True for class probabilities)" % (api, lab.dtype))
        self.none_shape = tuple(label.shape)
        valid = lab != ignore_index
        safe = np.where(valid, lab, 0)
        bad = (safe < 0) | (safe >= c)
        if bad.any():
            raise OpError("%s: label value %d is out of range: the input has %d classes, so "
                          "labels must be in [0, %d] (or ignore_index=%d)"
                          % (api, int(safe[bad].flat[0]), c, c - 1, ignore_index))
        self.safe = safe
        self.valid = valid


def _pick(a, safe):
    """``a[..., safe]`` per sample (class-last layout)."""
    return np.take_along_axis(a, safe[..., None], axis=-1)[..., 0]


def _sample_weights(lab, weight, smoothing, dtype):
    """Per-sample weight (Paddle: w[label] for hard labels, label @ w for soft
    ones) with ignored samples at 0."""
    if lab.soft is not None:
        if weight is None:
            return np.ones(lab.soft.shape[:-1], dtype)
        return np.matmul(lab.soft, weight).astype(dtype, copy=False)
    if weight is None:
        return lab.valid.astype(dtype)
    w = weight[lab.safe]
    if smoothing:
        w = (1 - smoothing) * w + smoothing / lab.c * weight.sum()
    return (w * lab.valid).astype(dtype, copy=False)


def _reduce_loss(per_sample, ws, lab, reduction, dtype):
    if reduction == 'none':
        return per_sample.reshape(lab.none_shape).astype(dtype, copy=False), 1.0
    total = per_sample.sum()
    if reduction == 'sum':
        return np.asarray(total, dtype), 1.0
    denom = float(ws.sum())
    denom = denom if denom != 0 else 1.0      # Paddle: x / (d + (d == 0))
    return np.asarray(total / denom, dtype), denom


def _grad_scale(g, ws, lab, reduction, denom):
    """Per-sample factor of the loss gradient: cotangent * weight / denominator."""
    if reduction == 'none':
        return g.reshape(ws.shape) * ws
    return ws * (g / denom)


def _check_weight(weight, c, api):
    if weight is not None and tuple(weight.shape) != (c,):
        raise OpError("%s: weight must have shape [%d] (one per class), got %s"
                      % (api, c, list(weight.shape)))


def _ce_meta(x, label, weight, soft_label=False, ignore_index=-100, axis=-1, use_softmax=True,
             reduction='mean', label_smoothing=0.0):
    xs, ls = meta.shape_of(x), meta.shape_of(label)
    ax = meta.normalize_axis(axis, len(xs))
    keep = tuple(1 if i == ax else d for i, d in enumerate(xs))
    if soft_label:
        none_shape = keep
    else:
        sample = tuple(d for i, d in enumerate(xs) if i != ax)
        if len(ls) not in (len(sample), len(xs)):
            raise OpError("label of shape %s does not match input of shape %s"
                          % (list(ls), list(xs)))
        none_shape = tuple(ls)
    out = none_shape if reduction == 'none' else ()
    return Meta(out, meta.dtype_of(x)), Meta(xs, meta.dtype_of(x))


@def_op('cross_entropy', _ce_meta, inputs=('input', 'label', 'weight?'),
        outputs=('loss', 'softmax'), nondiff_outputs=('softmax',),
        attrs={'soft_label': False, 'ignore_index': -100, 'axis': -1, 'use_softmax': True,
               'reduction': 'mean', 'label_smoothing': 0.0},
        no_grad_inputs=('label', 'weight'), pattern='opaque', amp='black',
        paddle_names=('softmax_with_cross_entropy', 'cross_entropy2'))
def cross_entropy_op(x, label, weight, soft_label, ignore_index, axis, use_softmax, reduction,
                     label_smoothing):
    """Cross entropy of logits (``use_softmax``) or probabilities against hard
    or soft labels, with Paddle's weighting and reduction. ``softmax`` is the
    probability tensor the gradient uses (the input itself without softmax)."""
    lab = _Labels(x, label, soft_label, ignore_index, axis, 'cross_entropy')
    _check_weight(weight, lab.c, 'cross_entropy')
    xl = np.moveaxis(x, lab.ax, -1)
    eps = label_smoothing
    if use_softmax:
        z = xl - xl.max(axis=-1, keepdims=True)
        e = np.exp(z)
        s = e.sum(axis=-1, keepdims=True)
        probs = e / s
        lse = np.log(s)[..., 0]
        if lab.soft is not None:
            nll = lse * lab.soft.sum(axis=-1) - (lab.soft * z).sum(axis=-1)
        else:
            nll = lse - _pick(z, lab.safe)
            if eps:
                nll = (1 - eps) * nll + eps * (lse - z.mean(axis=-1))
    else:
        probs = xl
        if lab.soft is not None:
            nll = -(lab.soft * np.log(xl)).sum(axis=-1)
        else:
            nll = -np.log(_pick(xl, lab.safe))
            if eps:
                nll = (1 - eps) * nll - eps * np.log(xl).mean(axis=-1)
    ws = _sample_weights(lab, weight, eps, x.dtype)
    loss, _ = _reduce_loss(nll * ws, ws, lab, reduction, x.dtype)
    return loss, np.moveaxis(probs, -1, lab.ax)


@cross_entropy_op.def_fast_grad
def _ce_fast(g, gsm, x, label, weight, out, probs, soft_label, ignore_index, axis, use_softmax,
             reduction, label_smoothing):
    lab = _Labels(x, label, soft_label, ignore_index, axis, 'cross_entropy')
    ws = _sample_weights(lab, weight, label_smoothing, x.dtype)
    denom = 1.0
    if reduction == 'mean':
        denom = float(ws.sum()) or 1.0
    coef = _grad_scale(g, ws, lab, reduction, denom)[..., None]
    pl = np.moveaxis(probs, lab.ax, -1)
    eps = label_smoothing
    if lab.soft is not None:
        if use_softmax:
            d = (pl * lab.soft.sum(axis=-1, keepdims=True) - lab.soft) * coef
        else:
            d = -lab.soft / pl * coef
        return np.moveaxis(d, -1, lab.ax), None, None
    if use_softmax:
        d = (pl - eps / lab.c) * coef if eps else pl * coef
        hit = (1 - eps) * coef[..., 0]
    else:
        d = (-eps / lab.c) / pl * coef if eps else np.zeros_like(pl)
        hit = (1 - eps) * coef[..., 0] / _pick(pl, lab.safe)
    d = np.ascontiguousarray(d)
    d2 = d.reshape(-1, lab.c)
    d2[np.arange(d2.shape[0]), lab.safe.reshape(-1)] -= hit.reshape(-1)
    return np.moveaxis(d, -1, lab.ax), None, None


def _target_meta(x, label, weight, soft_label=False, ignore_index=-100, axis=-1,
                 reduction='mean', label_smoothing=0.0):
    xs = meta.shape_of(x)
    ax = meta.normalize_axis(axis, len(xs))
    return (Meta(xs, meta.dtype_of(x)),
            Meta(tuple(1 if i == ax else d for i, d in enumerate(xs)), meta.dtype_of(x)))


@def_op('cross_entropy_target', _target_meta, inputs=('input', 'label', 'weight?'),
        outputs=('target', 'scale'),
        attrs={'soft_label': False, 'ignore_index': -100, 'axis': -1, 'reduction': 'mean',
               'label_smoothing': 0.0},
        differentiable=False, pattern='opaque')
def cross_entropy_target_op(x, label, weight, soft_label, ignore_index, axis, reduction,
                            label_smoothing):
    """For composite cross-entropy grads: the target distribution (input's
    layout; zero rows for ignored samples) and the per-sample weight divided by
    the mean's denominator (keepdim layout). Reads only ``input``'s shape."""
    lab = _Labels(x, label, soft_label, ignore_index, axis, 'cross_entropy')
    ws = _sample_weights(lab, weight, label_smoothing, x.dtype)
    if lab.soft is not None:
        t = lab.soft.astype(x.dtype, copy=True)
    else:
        eps = label_smoothing
        t = np.zeros(lab.safe.shape + (lab.c,), x.dtype)
        np.put_along_axis(t, lab.safe[..., None], 1.0, axis=-1)
        if eps:
            t = (1 - eps) * t + eps / lab.c
        t *= lab.valid[..., None]
    scale = ws
    if reduction == 'mean':
        scale = ws / (float(ws.sum()) or 1.0)
    return (np.moveaxis(t, -1, lab.ax),
            np.moveaxis(scale[..., None], -1, lab.ax).astype(x.dtype, copy=False))


def _loss_cotangent(g, keep_shape, reduction):
    """The loss cotangent in the keepdim layout (broadcastable against input)."""
    if reduction == 'none':
        return lib.reshape(g, list(keep_shape))
    return g


@cross_entropy_op.def_grad
def _ce_grad(g, gsm, x, label, weight, out, probs, soft_label, ignore_index, axis, use_softmax,
             reduction, label_smoothing):
    t, scale = cross_entropy_target_op(x, label, weight, soft_label, ignore_index, axis,
                                       reduction, label_smoothing)
    coef = _loss_cotangent(g, scale.shape, reduction) * scale
    if use_softmax:
        ax = axis % len(x.shape)
        tsum = lib.sum(t, axis=ax, keepdim=True)
        return (softmax_op(x, ax) * tsum - t) * coef, None, None
    return -(t / x) * coef, None, None


def _nll_meta(x, label, weight, ignore_index=-100, reduction='mean'):
    xs, ls = meta.shape_of(x), meta.shape_of(label)
    if len(xs) < 2:
        raise OpError("input must be at least 2-D [N, C, ...], got shape %s" % list(xs))
    expect = (xs[0],) + tuple(xs[2:])
    if len(ls) != len(expect) or any(a != b and -1 not in (a, b) for a, b in zip(ls, expect)):
        raise OpError("label of shape %s does not match input of shape %s (expected "
                      "%s)" % (list(ls), list(xs), list(expect)))
    return Meta(expect if reduction == 'none' else (), meta.dtype_of(x))


@def_op('nll_loss', _nll_meta, inputs=('input', 'label', 'weight?'),
        attrs={'ignore_index': -100, 'reduction': 'mean'}, no_grad_inputs=('label', 'weight'),
        save_inputs=False, pattern='opaque', amp='black')
def nll_loss_op(x, label, weight, ignore_index, reduction):
    """Negative log likelihood of log-probabilities ``x`` ([N, C, ...])."""
    if x.ndim < 2:
        raise OpError("nll_loss: input must be at least 2-D [N, C, ...], got shape %s"
                      % list(x.shape))
    lab = _Labels(x, label, False, ignore_index, 1, 'nll_loss')
    _check_weight(weight, lab.c, 'nll_loss')
    ws = _sample_weights(lab, weight, 0.0, x.dtype)
    nll = -_pick(np.moveaxis(x, 1, -1), lab.safe)
    return _reduce_loss(nll * ws, ws, lab, reduction, x.dtype)[0]


@nll_loss_op.def_fast_grad
def _nll_fast(g, x, label, weight, out, ignore_index, reduction):
    lab = _Labels(x, label, False, ignore_index, 1, 'nll_loss')
    ws = _sample_weights(lab, weight, 0.0, x.dtype)
    denom = (float(ws.sum()) or 1.0) if reduction == 'mean' else 1.0
    coef = _grad_scale(g, ws, lab, reduction, denom)
    d = np.zeros(lab.safe.shape + (lab.c,), x.dtype)
    np.put_along_axis(d, lab.safe[..., None], -coef[..., None], axis=-1)
    return np.moveaxis(d, -1, 1), None, None


@nll_loss_op.def_grad
def _nll_grad(g, x, label, weight, out, ignore_index, reduction):
    t, scale = cross_entropy_target_op(x, label, weight, False, ignore_index, 1, reduction, 0.0)
    return -t * (_loss_cotangent(g, scale.shape, reduction) * scale), None, None


# ---- elementwise losses -----------------------------------------------------------

def _reduced_meta(x, y, *rest):
    reduction = rest[-1]
    shape = meta.broadcast_shapes(meta.shape_of(x), meta.shape_of(y), 'input and label')
    return Meta(shape if reduction == 'none' else (), meta.dtype_of(x))


def _reduce_np(loss, reduction, dtype):
    if reduction == 'none':
        return loss.astype(dtype, copy=False)
    return np.asarray(loss.sum() if reduction == 'sum' else loss.mean(), dtype)


def _gscale(g, n, reduction):
    """Cotangent of the unreduced loss (numpy or tensors): ``g / n`` for mean."""
    return g / n if reduction == 'mean' else g


def _numel(shape):
    return int(np.prod(shape)) if len(shape) else 1


def _count(t, axis=None):
    """Elements of graph value ``t`` (over ``axis``): a Python int when the
    static shape is known, else a 0-D tensor computed at run time."""
    shape = tuple(t.shape)
    dims = shape if axis is None else [shape[a] for a in axis]
    if all(d >= 0 for d in dims):
        return _numel(dims)
    return lookup('reduced_numel')(t, axis, str(np.dtype(t.dtype)))


@def_op('mse_loss', _reduced_meta, attrs={'reduction': 'mean'}, pattern='opaque', amp='black',
        paddle_names=('square',))
def mse_loss_op(x, y, reduction='mean'):
    """``(x - y) ** 2`` reduced."""
    d = x - y
    return _reduce_np(d * d, reduction, x.dtype)


@mse_loss_op.def_fast_grad
def _mse_fast(g, x, y, out, reduction):
    d = x - y
    gd = 2 * _gscale(g, d.size, reduction) * d
    return ub(gd, x), ub(-gd, y)


@mse_loss_op.def_grad
def _mse_grad(g, x, y, out, reduction):
    d = x - y
    gd = 2 * _gscale(g, _count(d), reduction) * d
    return sum_like(gd, x), sum_like(-gd, y)


@def_op('l1_loss', _reduced_meta, attrs={'reduction': 'mean'}, pattern='opaque', amp='black',
        paddle_names=('mean',))
def l1_loss_op(x, y, reduction='mean'):
    """``|x - y|`` reduced."""
    return _reduce_np(np.abs(x - y), reduction, x.dtype)


@l1_loss_op.def_fast_grad
def _l1_fast(g, x, y, out, reduction):
    d = x - y
    gd = _gscale(g, d.size, reduction) * np.sign(d)
    return ub(gd, x), ub(-gd, y)


def _sign(d):
    return cast_like(greater_than_op(d, 0), d) - cast_like(less_than_op(d, 0), d)


@l1_loss_op.def_grad
def _l1_grad(g, x, y, out, reduction):
    d = x - y
    gd = _gscale(g, _count(d), reduction) * _sign(d)
    return sum_like(gd, x), sum_like(-gd, y)


def _smooth_meta(x, y, reduction='mean', delta=1.0):
    return _reduced_meta(x, y, reduction)


@def_op('smooth_l1_loss', _smooth_meta, attrs={'reduction': 'mean', 'delta': 1.0},
        pattern='opaque', amp='black', paddle_names=('huber_loss',))
def smooth_l1_loss_op(x, y, reduction='mean', delta=1.0):
    """Huber loss: ``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    d = np.abs(x - y)
    loss = np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduce_np(loss, reduction, x.dtype)


@smooth_l1_loss_op.def_fast_grad
def _smooth_l1_fast(g, x, y, out, reduction, delta):
    d = x - y
    gd = _gscale(g, d.size, reduction) * np.clip(d, -delta, delta)
    return ub(gd, x), ub(-gd, y)


@smooth_l1_loss_op.def_grad
def _smooth_l1_grad(g, x, y, out, reduction, delta):
    d = x - y
    gd = _gscale(g, _count(d), reduction) * maximum_op(minimum_op(d, delta), -delta)
    return sum_like(gd, x), sum_like(-gd, y)


def _bce_meta(x, y, weight, reduction='mean'):
    xs, ys = meta.shape_of(x), meta.shape_of(y)
    if tuple(xs) != tuple(ys) and -1 not in xs + ys:
        raise OpError("input of shape %s and label of shape %s must "
                      "have the same shape" % (list(xs), list(ys)))
    shape = xs
    if weight is not None:
        shape = meta.broadcast_shapes(xs, meta.shape_of(weight), 'input and weight')
    return Meta(shape if reduction == 'none' else (), meta.dtype_of(x))


_LOG_MIN = -100.0    # Paddle (like PyTorch) clamps the logs of bce at -100


@def_op('binary_cross_entropy', _bce_meta, inputs=('input', 'label', 'weight?'),
        attrs={'reduction': 'mean'}, no_grad_inputs=('label',), pattern='opaque')
def bce_op(x, y, weight, reduction):
    """``-w (y log x + (1 - y) log(1 - x))`` with the logs clamped at -100."""
    with np.errstate(divide='ignore'):
        lx = np.maximum(np.log(x), _LOG_MIN)
        l1x = np.maximum(np.log1p(-x), _LOG_MIN)
    loss = -(y * lx + (1 - y) * l1x)
    if weight is not None:
        loss = loss * weight
    return _reduce_np(loss, reduction, x.dtype)


_BCE_EPS = 1e-12


@bce_op.def_fast_grad
def _bce_fast(g, x, y, weight, out, reduction):
    n = np.broadcast_shapes(x.shape, np.shape(weight)) if weight is not None else x.shape
    gs = _gscale(g, _numel(n), reduction)
    dx = gs * (x - y) / np.maximum(x * (1 - x), _BCE_EPS)
    dw = None
    if weight is not None:
        dx = dx * weight
        with np.errstate(divide='ignore'):
            loss = -(y * np.maximum(np.log(x), _LOG_MIN)
                     + (1 - y) * np.maximum(np.log1p(-x), _LOG_MIN))
        dw = ub(gs * loss, weight)
    return ub(dx, x), None, dw


@bce_op.def_grad
def _bce_grad(g, x, y, weight, out, reduction):
    dx = (x - y) / maximum_op(x * (1 - x), _BCE_EPS)
    if weight is not None:
        dx = dx * weight
    gs = _gscale(g, _count(dx), reduction)     # dx has the loss's (broadcast) shape
    dw = None
    if weight is not None:
        loss = -(y * maximum_op(log(x), _LOG_MIN) + (1 - y) * maximum_op(log(1 - x), _LOG_MIN))
        dw = sum_like(gs * loss, weight)
    return sum_like(gs * dx, x), None, dw


def _bce_logits_meta(x, y, weight, pos_weight, reduction='mean'):
    xs, ys = meta.shape_of(x), meta.shape_of(y)
    if tuple(xs) != tuple(ys) and -1 not in xs + ys:
        raise OpError("logit of shape %s and label of "
                      "shape %s must have the same shape" % (list(xs), list(ys)))
    shape = xs
    for name, t in (('weight', weight), ('pos_weight', pos_weight)):
        if t is not None:
            shape = meta.broadcast_shapes(shape, meta.shape_of(t), 'logit and ' + name)
    return Meta(shape if reduction == 'none' else (), meta.dtype_of(x))


def _softplus_neg(x):
    """``log(1 + exp(-x))`` without overflow."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)


@def_op('binary_cross_entropy_with_logits', _bce_logits_meta,
        inputs=('logit', 'label', 'weight?', 'pos_weight?'), attrs={'reduction': 'mean'},
        no_grad_inputs=('label',),
        pattern='opaque', amp='black', paddle_names=('sigmoid_cross_entropy_with_logits',))
def bce_logits_op(x, y, weight, pos_weight, reduction):
    """Sigmoid cross entropy on logits: ``(1 - y) x + (1 + (pw - 1) y) log(1 + e^-x)``,
    computed stably, times ``weight``."""
    sp = _softplus_neg(x)
    lw = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * y
    loss = (1 - y) * x + lw * sp
    if weight is not None:
        loss = loss * weight
    return _reduce_np(loss, reduction, x.dtype)


@bce_logits_op.def_fast_grad
def _bce_logits_fast(g, x, y, weight, pos_weight, out, reduction):
    sp = _softplus_neg(x)
    lw = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * y
    shape = np.broadcast_shapes(*[np.shape(t) for t in (x, weight, pos_weight) if t is not None])
    gs = _gscale(g, _numel(shape), reduction)
    sig = np.exp(-sp)                         # sigmoid(x) = exp(-log(1 + e^-x))
    dx = gs * ((1 - y) - lw * (1 - sig))
    w = 1.0 if weight is None else weight
    dw = None if weight is None else ub(gs * ((1 - y) * x + lw * sp), weight)
    dpw = None if pos_weight is None else ub(gs * w * y * sp, pos_weight)
    return ub(dx * w, x), None, dw, dpw


@bce_logits_op.def_grad
def _bce_logits_grad(g, x, y, weight, pos_weight, out, reduction):
    sp = -log_sigmoid_op(x)                   # log(1 + e^-x)
    lw = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * y
    w = 1.0 if weight is None else weight
    sig_neg = 0.5 - 0.5 * tanh_op(0.5 * x)   # sigmoid(-x)
    dx = ((1 - y) - lw * sig_neg) * w         # has the loss's (broadcast) shape
    gs = _gscale(g, _count(dx), reduction)
    dw = None if weight is None else sum_like(gs * ((1 - y) * x + lw * sp), weight)
    dpw = None if pos_weight is None else sum_like(gs * w * y * sp, pos_weight)
    return sum_like(gs * dx, x), None, dw, dpw


def _kl_meta(x, y, reduction='mean'):
    return _reduced_meta(x, y, reduction)


@def_op('kl_div', _kl_meta, inputs=('input', 'label'), attrs={'reduction': 'mean'},
        no_grad_inputs=('label',), save_inputs=False, pattern='opaque')
def kl_div_op(x, y, reduction='mean'):
    """``y (log y - x)`` where ``y > 0`` (else 0); ``x`` is a log-probability."""
    with np.errstate(divide='ignore', invalid='ignore'):
        loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
    if reduction == 'batchmean':
        n = x.shape[0] if x.ndim else 1
        return np.asarray(loss.sum() / n, x.dtype)
    return _reduce_np(loss, reduction, x.dtype)


def _kl_scale(g, shape, reduction):
    if reduction == 'batchmean':
        return g / (shape[0] if len(shape) else 1)
    return _gscale(g, _numel(shape), reduction)


def _kl_scale_t(g, y_pos, reduction):
    """``_kl_scale`` for graph values, counting at run time if need be."""
    if reduction == 'batchmean':
        return g / (_count(y_pos, (0,)) if len(y_pos.shape) else 1)
    return _gscale(g, _count(y_pos), reduction)


@kl_div_op.def_fast_grad
def _kl_fast(g, x, y, out, reduction):
    shape = np.broadcast_shapes(x.shape, y.shape)
    return ub(-_kl_scale(g, shape, reduction) * np.maximum(y, 0), x), None


@kl_div_op.def_grad
def _kl_grad(g, x, y, out, reduction):
    y_pos = relu_op(y)
    if tuple(y.shape) != tuple(x.shape):
        y_pos = y_pos + 0 * x                 # broadcast to the loss's shape
    return sum_like(-_kl_scale_t(g, y_pos, reduction) * y_pos, x), None


# ---- test cases ---------------------------------------------------------------------

_rng = np.random.default_rng(31)


def _ce_rows(x, axis):
    xm = np.moveaxis(x, axis, -1)
    return xm.reshape(-1, xm.shape[-1])


def _lsm(row):
    m = max(row)
    lse = m + np.log(sum(np.exp(v - m) for v in row))
    return [v - lse for v in row]


def _ce_ref(x, label, weight, soft, ignore, axis, use_softmax, reduction, eps):
    """Row by row, Paddle's definitions: per-sample weight w[label] (hard) or
    label @ w (soft), weighted mean divides by the summed sample weights."""
    ax = axis % x.ndim
    rows = _ce_rows(x, ax)
    c = rows.shape[1]
    if soft:
        targets = _ce_rows(label, ax)
        labs = [None] * len(rows)
    else:
        labs = label.reshape(-1)
    losses, wsum = [], 0.0
    probs = np.array([np.exp(_lsm(r)) for r in rows]) if use_softmax else rows
    for i, r in enumerate(rows):
        logp = _lsm(r) if use_softmax else [np.log(v) for v in r]
        if soft:
            t = targets[i]
        else:
            if labs[i] == ignore:
                losses.append(0.0)
                continue
            t = [(1 - eps) * (k == labs[i]) + eps / c for k in range(c)]
        w = 1.0 if weight is None else sum(t[k] * weight[k] for k in range(c))
        losses.append(-w * sum(t[k] * logp[k] for k in range(c)))
        wsum += w
    losses = np.array(losses)
    if reduction == 'none':
        keep = list(x.shape)
        keep[ax] = 1
        out = losses.reshape(keep if soft else label.shape)
    elif reduction == 'sum':
        out = losses.sum()
    else:
        out = losses.sum() / (wsum if wsum else 1.0)
    sm = probs.reshape(np.moveaxis(x, ax, -1).shape)
    return out, np.moveaxis(sm, -1, ax)


def _soft(shape, axis=-1):
    p = _rng.uniform(0.1, 1.0, shape)
    return p / p.sum(axis=axis, keepdims=True)


_x45 = _rng.standard_normal((4, 5))
_lab4 = np.array([1, 0, 4, 2])
add_test_case(cross_entropy_op, _x45, _lab4, None, False, -100, -1, True, 'mean', 0.0,
              ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, _lab4.reshape(4, 1), _rng.uniform(0.5, 2, 5), False,
              -100, -1, True, 'mean', 0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, np.array([1, 3, 3, 2]), _rng.uniform(0.5, 2, 5), False,
              3, -1, True, 'none', 0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, np.array([1, 3, 0, 2]), None, False, 3, -1, True, 'sum',
              0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _rng.standard_normal((2, 3, 2)), np.array([[0, 2], [1, 1]]),
              None, False, -100, 1, True, 'mean', 0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, _soft((4, 5)), None, True, -100, -1, True, 'mean', 0.0,
              ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, _soft((4, 5)), _rng.uniform(0.5, 2, 5), True, -100, -1,
              True, 'mean', 0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, _soft((4, 5)) * 1.3, None, True, -100, -1, True, 'none',
              0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _soft((4, 5)), _lab4, None, False, -100, -1, False, 'mean', 0.0,
              ref=_ce_ref)
add_test_case(cross_entropy_op, _soft((4, 5)), _soft((4, 5)), None, True, -100, -1, False, 'sum',
              0.0, ref=_ce_ref)
add_test_case(cross_entropy_op, _x45, np.array([1, 0, 4, 0]), _rng.uniform(0.5, 2, 5), False,
              0, -1, True, 'mean', 0.1, ref=_ce_ref)
add_test_case(cross_entropy_op, _soft((4, 5)), _lab4, None, False, -100, -1, False, 'none', 0.2,
              ref=_ce_ref)


def _target_ref(x, label, weight, soft, ignore, axis, reduction, eps):
    ax = axis % x.ndim
    rows = _ce_rows(x, ax)
    c = rows.shape[1]
    t = np.zeros_like(rows)
    w = np.zeros(len(rows))
    for i in range(len(rows)):
        if soft:
            t[i] = _ce_rows(label, ax)[i]
        elif label.reshape(-1)[i] != ignore:
            t[i] = [(1 - eps) * (k == label.reshape(-1)[i]) + eps / c for k in range(c)]
        else:
            continue
        w[i] = 1.0 if weight is None else t[i] @ weight
    if reduction == 'mean':
        w = w / w.sum()
    shape = np.moveaxis(x, ax, -1).shape
    return (np.moveaxis(t.reshape(shape), -1, ax),
            np.moveaxis(w.reshape(shape[:-1] + (1,)), -1, ax))


add_test_case(cross_entropy_target_op, _x45, np.array([1, 3, 0, 2]), _rng.uniform(0.5, 2, 5),
              False, 3, -1, 'mean', 0.1, ref=_target_ref)
add_test_case(cross_entropy_target_op, _rng.standard_normal((2, 3, 2)), _soft((2, 3, 2), 1),
              None, True, -100, 1, 'sum', 0.0, ref=_target_ref)


def _nll_ref(x, label, weight, ignore, reduction):
    losses = np.zeros(label.shape)
    wsum = 0.0
    for idx in np.ndindex(label.shape):
        k = label[idx]
        if k == ignore:
            continue
        w = 1.0 if weight is None else weight[k]
        losses[idx] = -w * x[(idx[0], k) + idx[1:]]
        wsum += w
    if reduction == 'none':
        return losses
    return losses.sum() if reduction == 'sum' else losses.sum() / wsum


add_test_case(nll_loss_op, np.log(_soft((4, 5))), _lab4, None, -100, 'mean', ref=_nll_ref)
add_test_case(nll_loss_op, np.log(_soft((4, 5))), np.array([1, 2, 2, 0]),
              _rng.uniform(0.5, 2, 5), 2, 'mean', ref=_nll_ref)
add_test_case(nll_loss_op, np.log(_soft((2, 3, 2, 2), 1)), np.array([[[0, 2], [1, 1]], [[2, 2],
              [0, 1]]]), _rng.uniform(0.5, 2, 3), -100, 'none', ref=_nll_ref)
add_test_case(nll_loss_op, np.log(_soft((3, 4))), np.array([3, 0, 1]), None, -100, 'sum',
              ref=_nll_ref)


def _red(loss, reduction):
    return loss if reduction == 'none' else loss.sum() if reduction == 'sum' else loss.mean()


def _away_from(base, gap=0.1):
    """Values whose difference from ``base`` stays away from 0 (l1's kink)."""
    d = _rng.uniform(gap, 1.5, base.shape) * _rng.choice([-1, 1], base.shape)
    return base + d


_b34 = _rng.standard_normal((3, 4))
add_test_case(mse_loss_op, _rng.standard_normal((3, 4)), _rng.standard_normal((3, 4)), 'mean',
              ref=lambda x, y, r: _red((x - y) ** 2, r))
add_test_case(mse_loss_op, _rng.standard_normal((3, 4)), _rng.standard_normal(4), 'none',
              ref=lambda x, y, r: _red((x - y) ** 2, r))
add_test_case(mse_loss_op, _rng.standard_normal((2, 3)), _rng.standard_normal((2, 3)), 'sum',
              ref=lambda x, y, r: _red((x - y) ** 2, r))
add_test_case(l1_loss_op, _away_from(_b34), _b34, 'mean', ref=lambda x, y, r: _red(abs(x - y), r))
add_test_case(l1_loss_op, _away_from(_b34), _b34, 'none', ref=lambda x, y, r: _red(abs(x - y), r))


def _huber_ref(x, y, reduction, delta):
    d = np.vectorize(lambda a, b: 0.5 * (a - b) ** 2 if abs(a - b) < delta
                     else delta * abs(a - b) - 0.5 * delta ** 2)(x, y)
    return _red(d, reduction)


_hx = _b34 + np.where(_rng.uniform(size=(3, 4)) > 0.5, 1, -1) * \
    np.where(_rng.uniform(size=(3, 4)) > 0.5, _rng.uniform(0.05, 0.6, (3, 4)),
             _rng.uniform(0.9, 2.0, (3, 4)))
add_test_case(smooth_l1_loss_op, _hx, _b34, 'mean', 0.75, ref=_huber_ref)
add_test_case(smooth_l1_loss_op, _hx, _b34, 'sum', 1.0, ref=_huber_ref)
add_test_case(smooth_l1_loss_op, _hx, _b34, 'none', 0.7, ref=_huber_ref)


def _bce_ref(x, y, w, reduction):
    loss = np.vectorize(lambda p, t: -(t * np.log(p) + (1 - t) * np.log(1 - p)))(x, y)
    return _red(loss if w is None else loss * w, reduction)


_p34 = _rng.uniform(0.05, 0.95, (3, 4))
_y34 = _rng.uniform(0, 1, (3, 4))
add_test_case(bce_op, _p34, _y34, None, 'mean', ref=_bce_ref)
add_test_case(bce_op, _p34, (_y34 > 0.5).astype(float), _rng.uniform(0.5, 2, (3, 4)), 'none',
              ref=_bce_ref)
add_test_case(bce_op, _p34, _y34, _rng.uniform(0.5, 2, 4), 'sum', ref=_bce_ref)


def _bce_logits_ref(x, y, w, pw, reduction):
    sig = 1 / (1 + np.exp(-x))
    pw = 1.0 if pw is None else pw
    loss = -(pw * y * np.log(sig) + (1 - y) * np.log(1 - sig))
    return _red(loss if w is None else loss * w, reduction)


add_test_case(bce_logits_op, _rng.standard_normal((3, 4)) * 3, _y34, None, None, 'mean',
              ref=_bce_logits_ref)
add_test_case(bce_logits_op, _rng.standard_normal((3, 4)), _y34, _rng.uniform(0.5, 2, (3, 4)),
              _rng.uniform(0.5, 3, 4), 'none', ref=_bce_logits_ref)
add_test_case(bce_logits_op, _rng.standard_normal((3, 4)), _y34, None, _rng.uniform(0.5, 3, 4),
              'sum', ref=_bce_logits_ref)


def _kl_ref(x, y, reduction):
    loss = np.vectorize(lambda a, t: t * (np.log(t) - a) if t > 0 else 0.0)(x, y)
    if reduction == 'batchmean':
        return loss.sum() / x.shape[0]
    return _red(loss, reduction)


_lp = np.log(_soft((3, 4)))
_t = _soft((3, 4))
_t[0, 1] = 0.0
for _r in ('mean', 'batchmean', 'sum', 'none'):
    add_test_case(kl_div_op, _lp, _t, _r, ref=_kl_ref)


# ---- hierarchical sigmoid: the default tree's paths ------------------------------------

def _hsig_codes_meta(label, num_classes=2):
    n = meta.shape_of(label)[0] if meta.shape_of(label) else 1
    depth = max(int(num_classes - 1).bit_length(), 1)
    return (Meta((n, depth), np.int64), Meta((n, depth), np.int64),
            Meta((n, depth), np.int64))


@def_op('hsigmoid_codes', _hsig_codes_meta, outputs=('index', 'bit', 'valid'),
        differentiable=False, pattern='opaque')
def hsigmoid_codes_op(label, num_classes=2):
    """Paths of classes in Paddle's default complete binary tree: leaf ``c`` is
    node ``c + num_classes``; step ``j`` of its path visits the internal node
    ``(code >> (j + 1)) - 1`` and goes right when bit ``j`` of the code is set.
    Every path is padded to the tree's depth (``valid`` marks real steps)."""
    label = np.asarray(label).reshape(-1).astype(np.int64)
    if label.size and (label.min() < 0 or label.max() >= num_classes):
        raise OpError("hsigmoid_loss: labels must be in [0, num_classes=%d), got values in "
                      "[%d, %d]" % (num_classes, label.min(), label.max()))
    depth = max(int(num_classes - 1).bit_length(), 1)
    code = label[:, None] + num_classes
    j = np.arange(depth)[None, :]
    length = np.floor(np.log2(code)).astype(np.int64)      # highest set bit
    valid = (j < length).astype(np.int64)
    index = np.where(valid > 0, (code >> (j + 1)) - 1, 0)
    bit = ((code >> j) & 1) * valid
    return index, bit, valid


def _ref_hsig_codes(label, num_classes):
    depth = max(int(num_classes - 1).bit_length(), 1)
    out = [np.zeros((len(label), depth), np.int64) for _ in range(3)]
    for i, c in enumerate(label):
        code = int(c) + num_classes
        for j in range(code.bit_length() - 1):
            out[0][i, j] = (code >> (j + 1)) - 1
            out[1][i, j] = (code >> j) & 1
            out[2][i, j] = 1
    return tuple(out)


add_test_case(hsigmoid_codes_op, np.array([0, 3, 5, 2]), 6, ref=_ref_hsig_codes)
add_test_case(hsigmoid_codes_op, np.array([1, 0, 6], np.int32), 7, ref=_ref_hsig_codes)


# ---- public API ---------------------------------------------------------------------

def _label_smoothing(v, api):
    v = float(v)
    if not 0.0 <= v <= 1.0:
        raise OpError("%s: label_smoothing must be in [0, 1], got %r" % (api, v))
    return v


def cross_entropy(input, label, weight=None, ignore_index=-100, reduction='mean',  # noqa: A002
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Softmax cross entropy (Paddle 2.x ``F.cross_entropy``).

    ``input`` holds logits (or probabilities with ``use_softmax=False``) with
    the classes on ``axis``. Hard ``label`` has the input's shape without the
    class axis (or with it of size 1); soft labels have the input's shape.
    ``weight`` ([C]) weights each sample by ``weight[label]`` (hard) or
    ``label @ weight`` (soft), and ``'mean'`` then divides by the summed
    sample weights. ``ignore_index`` samples contribute nothing.
    ``label_smoothing`` turns hard labels into ``(1-eps) one_hot + eps/C``.

    >>> import framework as paddle
    >>> import framework.nn.functional as F
    >>> x = paddle.to_tensor([[0.0, 0.0]])
    >>> round(float(F.cross_entropy(x, paddle.to_tensor([1]))), 4)
    0.6931
    """
    _check_reduction(reduction, 'cross_entropy')
    if soft_label and ignore_index not in (-100, None) and ignore_index >= 0:
        raise OpError("cross_entropy: ignore_index is not supported with soft_label=True")
    nd = len(input.shape)
    if not -nd <= axis < nd:
        raise OpError("cross_entropy: axis %d is out of range for input of shape %s"
                      % (axis, list(input.shape)))
    eps = _label_smoothing(label_smoothing, 'cross_entropy')
    if eps > 0 and (soft_label or _dt.is_floating(label.dtype) and
                    list(label.shape) == list(input.shape) and input.shape[axis] != 1):
        # Paddle smooths soft labels too, and takes a float label of the
        # input's shape (one-hot, say) as a distribution to smooth
        c = input.shape[axis]
        label = lib.cast(label, input.dtype) * (1.0 - eps) + eps / c
        soft_label, eps = True, 0.0
    loss, _ = cross_entropy_op(input, label, weight, bool(soft_label), int(ignore_index),
                               int(axis), bool(use_softmax), reduction, eps)
    return loss


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Unreduced softmax cross entropy; the loss keeps the class axis with size 1."""
    nd = len(logits.shape)
    if not -nd <= axis < nd:
        raise OpError("softmax_with_cross_entropy: axis %d is out of range for logits of "
                      "shape %s" % (axis, list(logits.shape)))
    if not soft_label and len(label.shape) == nd - 1:
        label = lib.unsqueeze(label, axis % nd)
    loss, sm = cross_entropy_op(logits, label, None, bool(soft_label), int(ignore_index),
                                int(axis), True, 'none', 0.0)
    return (loss, sm) if return_softmax else loss


def nll_loss(input, label, weight=None, ignore_index=-100, reduction='mean',  # noqa: A002
             name=None):
    """Negative log likelihood of log-probabilities ``input`` ([N, C, ...])
    against integer ``label`` ([N, ...]); weighted mean like ``cross_entropy``."""
    _check_reduction(reduction, 'nll_loss')
    return nll_loss_op(input, label, weight, int(ignore_index), reduction)


def mse_loss(input, label, reduction='mean', name=None):  # noqa: A002
    """Mean squared error."""
    _check_reduction(reduction, 'mse_loss')
    return mse_loss_op(input, label, reduction)


def l1_loss(input, label, reduction='mean', name=None):  # noqa: A002
    """Mean absolute error."""
    _check_reduction(reduction, 'l1_loss')
    return l1_loss_op(input, label, reduction)


def smooth_l1_loss(input, label, reduction='mean', delta=1.0, is_huber=True,  # noqa: A002
                   name=None):
    """Huber loss (Paddle's definition): ``0.5 d^2`` for ``|d| < delta``,
    ``delta * |d| - 0.5 * delta^2`` otherwise; ``is_huber=False`` divides it
    by ``delta``."""
    _check_reduction(reduction, 'smooth_l1_loss')
    out = smooth_l1_loss_op(input, label, reduction, float(delta))
    return out if is_huber else out / float(delta)


def binary_cross_entropy(input, label, weight=None, reduction='mean', name=None):  # noqa: A002
    """Binary cross entropy of probabilities ``input`` (logs clamped at -100)."""
    _check_reduction(reduction, 'binary_cross_entropy')
    return bce_op(input, label, weight, reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction='mean',
                                     pos_weight=None, name=None):
    """Sigmoid + binary cross entropy, computed stably from logits;
    ``pos_weight`` ([C]) weights the positive term of each class."""
    _check_reduction(reduction, 'binary_cross_entropy_with_logits')
    return bce_logits_op(logit, label, weight, pos_weight, reduction)


def kl_div(input, label, reduction='mean', log_target=False, name=None):  # noqa: A002
    """Kullback-Leibler divergence ``label * (log(label) - input)``; ``input``
    is a log-probability, and with ``log_target`` so is ``label``:
    ``exp(label) * (label - input)``. Reductions: 'none', 'mean',
    'batchmean', 'sum'."""
    _check_reduction(reduction, 'kl_div', ('none', 'mean', 'batchmean', 'sum'))
    if input.dtype != label.dtype:
        if np.dtype(input.dtype).itemsize < np.dtype(label.dtype).itemsize:
            input = lib.cast(input, label.dtype)
        else:
            label = lib.cast(label, input.dtype)
    if not log_target:
        return kl_div_op(input, label, reduction)
    loss = exp(label) * (label - input)
    if reduction == 'batchmean':
        return lib.sum(loss) / (input.shape[0] if len(input.shape) else 1)
    return _reduce_public(loss, reduction)


def _reduce_public(loss, reduction):
    if reduction == 'sum':
        return lib.sum(loss)
    if reduction == 'mean':
        return lib.mean(loss)
    return loss


def margin_ranking_loss(input, other, label, margin=0.0, reduction='mean', name=None):  # noqa: A002
    """``max(0, -label * (input - other) + margin)`` reduced."""
    _check_reduction(reduction, 'margin_ranking_loss')
    return _reduce_public(relu_op(label * (other - input) + margin), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction='mean', name=None):  # noqa: A002
    """``input`` where ``label == 1``, ``max(0, margin - input)`` where ``label == -1``."""
    _check_reduction(reduction, 'hinge_embedding_loss')
    pos = cast_like(equal(label, 1.0), input)
    neg = cast_like(equal(label, -1.0), input)
    loss = pos * input + neg * relu_op(margin - input)
    return _reduce_public(loss, reduction)


def square_error_cost(input, label):  # noqa: A002
    """Elementwise ``(input - label) ** 2``."""
    return mse_loss_op(input, label, 'none')


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0,
                       reduction='sum', name=None):
    """Focal loss on logits: ``alpha_t * (1 - p_t)^gamma * bce_with_logits``."""
    _check_reduction(reduction, 'sigmoid_focal_loss')
    ce = bce_logits_op(logit, label, None, None, 'none')
    p = exp(log_sigmoid_op(logit))
    p_t = p * label + (1 - p) * (1 - label)
    loss = ce * (1 - p_t) ** gamma
    if alpha >= 0:
        loss = (alpha * label + (1 - alpha) * (1 - label)) * loss
    if normalizer is not None:
        loss = loss / normalizer
    return _reduce_public(loss, reduction)


__all__ = ['cross_entropy', 'softmax_with_cross_entropy', 'nll_loss', 'mse_loss', 'l1_loss',
           'smooth_l1_loss', 'binary_cross_entropy', 'binary_cross_entropy_with_logits',
           'kl_div', 'margin_ranking_loss', 'hinge_embedding_loss', 'square_error_cost',
           'sigmoid_focal_loss']

TENSOR_METHODS = {}
