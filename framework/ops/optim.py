"""Optimizer update rules and gradient-clipping primitives, as registered ops.

Every update rule takes ``(param, grad, learning_rate, *state)`` tensors and
returns the new parameter and the new state (``param_out``, ``moment1_out``,
...). Hyper-parameters are attributes. ``inplace_map`` maps each ``*_out``
to the input it replaces, so static mode can write the result back into the
same persistable variable; eager mode (``framework.optimizer``) swaps the new
arrays into the parameter and its accumulator tensors. The rules follow
Paddle's kernels (epsilon placement, bias correction through the
``beta*_pow`` accumulators, which start at ``beta`` and are multiplied by it
after each step). None of them has a gradient.

``learning_rate`` may be a one-element tensor (static mode: the global
learning-rate variable) or a Python float (eager mode); either way the update
is computed in the parameter's dtype, in float32 for float16/bfloat16.
"""
import functools

import numpy as np

from .. import dtype as _dt
from . import lib, meta
from .registry import Meta, OpError, add_test_case, def_op

__all__ = []
TENSOR_METHODS = {}

_ndarray = np.ndarray


# ---- helpers ----------------------------------------------------------------

def _scalar(v, dtype):
    """A one-element array as a numpy scalar of ``dtype``; Python numbers stay
    weak (they take the array's dtype in arithmetic)."""
    if type(v) is _ndarray:
        if v.size != 1:
            raise OpError("expected a one-element tensor, got shape %s" % list(v.shape))
        return v.reshape(-1)[0].astype(dtype)
    return v


def _check_shapes(param, **arrays):
    """Kernels validate shapes themselves: numpy would silently broadcast a
    wrongly shaped gradient or state into the parameter."""
    shape = param.shape
    for name, a in arrays.items():
        if a.shape != shape:
            raise OpError("%s shape %s does not match param shape %s"
                          % (name, list(a.shape), list(shape)))


def _update_meta(names, outs, scalars=()):
    """infer_meta for an update op: inputs other than the scalars must have the
    parameter's shape; each output mirrors the input it replaces."""
    def infer(*args):
        ins = dict(zip(names, args))
        pshape = meta.shape_of(ins['param'])
        for name, m in ins.items():
            if m is None or name == 'param' or meta.is_scalar(m):
                continue
            shape = meta.shape_of(m)
            if name == 'learning_rate' or name in scalars:
                if all(d >= 0 for d in shape) and int(np.prod(shape)) != 1:
                    raise OpError("%s must hold one value, got shape %s" % (name, list(shape)))
            elif len(shape) != len(pshape) or any(
                    a != b and a != -1 and b != -1 for a, b in zip(shape, pshape)):
                raise OpError("%s shape %s does not match param shape %s"
                              % (name, list(shape), list(pshape)))
        res = tuple(Meta(meta.shape_of(ins[o]), meta.dtype_of(ins[o])) for o in outs)
        return res[0] if len(res) == 1 else res
    return infer


def _update_op(name, inputs, outputs, attrs, scalars=()):
    """Declare an update op: outputs are ``<input>_out``, written in place."""
    outs = tuple(o + '_out' for o in outputs)
    declare = def_op(name, _update_meta(inputs, outputs, scalars), inputs=inputs,
                     outputs=outs, attrs=attrs, differentiable=False,
                     inplace_map={o + '_out': o for o in outputs}, effects=('stateful',),
                     pattern='opaque')
    sources = tuple(inputs.index(o) for o in outputs)
    return lambda kernel: declare(_half_in_float32(kernel, sources))


def _is_half(a):
    return type(a) is _ndarray and a.dtype.itemsize == 2 and _dt.is_half(a.dtype)


def _half_in_float32(kernel, sources):
    """``kernel`` computing half-precision inputs in float32, each output then
    rounded to the dtype of the input it replaces (``sources``: their indices),
    as Paddle's kernels compute float16 in float32: in bfloat16, beta2 = 0.999
    is 1 and 1 - beta2 ** t is 0."""
    @functools.wraps(kernel)
    def run(*args, **options):
        if not any(_is_half(a) for a in args):
            return kernel(*args, **options)
        outs = kernel(*[a.astype(np.float32) if _is_half(a) else a for a in args], **options)
        if not isinstance(outs, tuple):
            return _cast(outs, args[sources[0]])
        return tuple(_cast(o, args[i]) for o, i in zip(outs, sources))
    return run


# update ops whose kernels take ``inplace=True``: the state buffers (not the
# parameter, which views and saved graphs may share) are updated where they are
INPLACE_STATE_UPDATES = frozenset({'adam', 'adam_amsgrad', 'adamw', 'adamw_amsgrad', 'momentum'})


def _cast(a, like):
    return a if a.dtype == like.dtype else a.astype(like.dtype)


def _minus(param, update):
    """``param - update`` into ``update``'s buffer (a temporary of the
    caller's) when the dtypes agree: one new array per step, not two (a
    ResNet-50 step updates 100 MB of weights)."""
    return np.subtract(param, update, out=update if update.dtype == param.dtype else None)


# ---- SGD and momentum -------------------------------------------------------

@_update_op('sgd', ('param', 'grad', 'learning_rate'), ('param',), {})
def sgd_op(param, grad, learning_rate):
    """param_out = param - lr * grad"""
    _check_shapes(param, grad=grad)
    lr = _scalar(learning_rate, param.dtype)
    return _cast(_minus(param, np.multiply(grad, lr)), param)


@_update_op('momentum', ('param', 'grad', 'learning_rate', 'velocity'),
            ('param', 'velocity'),
            {'mu': 0.9, 'use_nesterov': False, 'regularization_method': '',
             'regularization_coeff': 0.0, 'rescale_grad': 1.0})
def momentum_op(param, grad, learning_rate, velocity, mu, use_nesterov,
                regularization_method, regularization_coeff, rescale_grad, *, inplace=False):
    """velocity_out = mu * velocity + g, with g = grad * rescale_grad (+ coeff *
    param for the fused 'l2_decay'); param_out = param - lr * velocity_out, or
    param - lr * (g + mu * velocity_out) with Nesterov momentum. ``inplace``:
    the velocity is updated in its own buffer (the eager optimizer owns it)."""
    _check_shapes(param, grad=grad, velocity=velocity)
    lr = _scalar(learning_rate, param.dtype)
    g = grad * rescale_grad if rescale_grad != 1.0 else grad
    if regularization_method == 'l2_decay':
        g = g + regularization_coeff * param
    elif regularization_method:
        raise OpError("regularization_method must be '' or 'l2_decay', got %r"
                      % (regularization_method,))
    same = velocity.dtype == np.result_type(velocity, g)
    v = np.multiply(velocity, mu, out=velocity if inplace and same else None)
    v = np.add(v, g, out=v if same else None)
    step = (g + mu * v) if use_nesterov else v
    return _cast(_minus(param, np.multiply(step, lr)), param), _cast(v, velocity)


# ---- Adam family ------------------------------------------------------------

def _adam_core(param, grad, lr, m1, m2, b1p, b2p, m2max, beta1, beta2, epsilon,
               inplace=False):
    """Paddle's Adam: lr_t = lr * sqrt(1 - beta2_pow) / (1 - beta1_pow),
    param -= lr_t * m1 / (sqrt(m2) + epsilon * sqrt(1 - beta2_pow)).
    ``inplace``: the moments are updated in their own buffers (the eager
    optimizer owns them), so a step allocates one array, the new parameter."""
    _check_shapes(param, grad=grad, moment1=m1, moment2=m2)
    if m2max is not None:
        _check_shapes(param, moment2_max=m2max)
    b1 = _scalar(b1p, b1p.dtype)
    b2 = _scalar(b2p, b2p.dtype)
    tmp = np.multiply(grad, 1 - beta1)
    m1o = np.multiply(m1, beta1, out=m1 if inplace else None)
    m1o += tmp
    np.multiply(grad, grad, out=tmp)
    tmp *= 1 - beta2
    m2o = np.multiply(m2, beta2, out=m2 if inplace else None)
    m2o += tmp
    if m2max is not None:
        m2max = np.maximum(m2o, m2max, out=m2max if inplace else None)
    c2 = np.sqrt(1 - b2)
    lr_t = lr * c2 / (1 - b1)
    np.sqrt(m2o if m2max is None else m2max, out=tmp)
    tmp += epsilon * c2
    np.divide(m1o, tmp, out=tmp)
    tmp *= lr_t
    p = _minus(param, tmp)
    outs = [_cast(p, param), _cast(m1o, m1), _cast(m2o, m2),
            _cast(b1p * beta1, b1p), _cast(b2p * beta2, b2p)]
    if m2max is not None:
        outs.append(_cast(m2max, m2))
    return tuple(outs)


_ADAM_IN = ('param', 'grad', 'learning_rate', 'moment1', 'moment2', 'beta1_pow', 'beta2_pow')
_ADAM_OUT = ('param', 'moment1', 'moment2', 'beta1_pow', 'beta2_pow')
_POWS = ('beta1_pow', 'beta2_pow')
_ADAM_ATTRS = {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-8}
_ADAMW_ATTRS = dict(_ADAM_ATTRS, coeff=0.01, lr_ratio=1.0, with_decay=True)


@_update_op('adam', _ADAM_IN, _ADAM_OUT, _ADAM_ATTRS, _POWS)
def adam_op(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
            beta1, beta2, epsilon, *, inplace=False):
    """Adam (Kingma & Ba) with bias correction through the beta pow accumulators."""
    lr = _scalar(learning_rate, param.dtype)
    return _adam_core(param, grad, lr, moment1, moment2, beta1_pow, beta2_pow, None,
                      beta1, beta2, epsilon, inplace)


@_update_op('adam_amsgrad', _ADAM_IN + ('moment2_max',), _ADAM_OUT + ('moment2_max',),
            _ADAM_ATTRS, _POWS)
def adam_amsgrad_op(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                    moment2_max, beta1, beta2, epsilon, *, inplace=False):
    """Adam with AMSGrad: the denominator uses the running maximum of moment2."""
    lr = _scalar(learning_rate, param.dtype)
    return _adam_core(param, grad, lr, moment1, moment2, beta1_pow, beta2_pow, moment2_max,
                      beta1, beta2, epsilon, inplace)


def _decoupled(param, learning_rate, coeff, lr_ratio, with_decay):
    """AdamW's decay: param *= 1 - lr * lr_ratio * coeff, before the Adam step,
    which also uses lr * lr_ratio (Paddle's adamw kernel)."""
    lr = _scalar(learning_rate, param.dtype) * lr_ratio
    if with_decay and coeff:
        param = _cast(param * (1 - lr * coeff), param)
    return param, lr


@_update_op('adamw', _ADAM_IN, _ADAM_OUT, _ADAMW_ATTRS, _POWS)
def adamw_op(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
             beta1, beta2, epsilon, coeff, lr_ratio, with_decay, *, inplace=False):
    """AdamW (Loshchilov & Hutter): decoupled weight decay then Adam."""
    decayed, lr = _decoupled(param, learning_rate, coeff, lr_ratio, with_decay)
    return _adam_core(decayed, grad, lr, moment1, moment2, beta1_pow, beta2_pow, None,
                      beta1, beta2, epsilon, inplace)


@_update_op('adamw_amsgrad', _ADAM_IN + ('moment2_max',), _ADAM_OUT + ('moment2_max',),
            _ADAMW_ATTRS, _POWS)
def adamw_amsgrad_op(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
                     moment2_max, beta1, beta2, epsilon, coeff, lr_ratio, with_decay, *,
                     inplace=False):
    """AdamW with AMSGrad."""
    decayed, lr = _decoupled(param, learning_rate, coeff, lr_ratio, with_decay)
    return _adam_core(decayed, grad, lr, moment1, moment2, beta1_pow, beta2_pow, moment2_max,
                      beta1, beta2, epsilon, inplace)


@_update_op('adamax', ('param', 'grad', 'learning_rate', 'moment', 'inf_norm', 'beta1_pow'),
            ('param', 'moment', 'inf_norm', 'beta1_pow'),
            {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-8}, ('beta1_pow',))
def adamax_op(param, grad, learning_rate, moment, inf_norm, beta1_pow, beta1, beta2, epsilon):
    """Adamax: inf_norm_out = max(beta2 * inf_norm + epsilon, |grad|),
    param_out = param - lr / (1 - beta1_pow) * moment_out / inf_norm_out."""
    _check_shapes(param, grad=grad, moment=moment, inf_norm=inf_norm)
    lr = _scalar(learning_rate, param.dtype)
    b1 = _scalar(beta1_pow, beta1_pow.dtype)
    m = beta1 * moment + (1 - beta1) * grad
    u = np.maximum(beta2 * inf_norm + epsilon, np.abs(grad))
    p = param - (lr / (1 - b1)) * (m / u)
    return (_cast(p, param), _cast(m, moment), _cast(u, inf_norm),
            _cast(beta1_pow * beta1, beta1_pow))


# ---- RMSProp, Adagrad, Adadelta ---------------------------------------------

@_update_op('rmsprop',
            ('param', 'grad', 'learning_rate', 'moment', 'mean_square', 'mean_grad'),
            ('param', 'moment', 'mean_square', 'mean_grad'),
            {'rho': 0.95, 'epsilon': 1e-6, 'momentum': 0.0, 'centered': False})
def rmsprop_op(param, grad, learning_rate, moment, mean_square, mean_grad,
               rho, epsilon, momentum, centered):
    """mean_square_out = rho * ms + (1 - rho) * g^2; moment_out = momentum *
    moment + lr * g / sqrt(mean_square_out + eps) (centered: subtract
    mean_grad_out^2 inside the root); param_out = param - moment_out."""
    _check_shapes(param, grad=grad, moment=moment, mean_square=mean_square,
                  mean_grad=mean_grad)
    lr = _scalar(learning_rate, param.dtype)
    ms = rho * mean_square + (1 - rho) * (grad * grad)
    if centered:
        mg = rho * mean_grad + (1 - rho) * grad
        denom = ms - mg * mg + epsilon
    else:
        mg = mean_grad
        denom = ms + epsilon
    mom = momentum * moment + lr * grad / np.sqrt(denom)
    return (_cast(param - mom, param), _cast(mom, moment), _cast(ms, mean_square),
            _cast(mg, mean_grad))


@_update_op('adagrad', ('param', 'grad', 'learning_rate', 'moment'), ('param', 'moment'),
            {'epsilon': 1e-6})
def adagrad_op(param, grad, learning_rate, moment, epsilon):
    """moment_out = moment + g^2; param_out = param - lr * g / (sqrt(moment_out) + eps)."""
    _check_shapes(param, grad=grad, moment=moment)
    lr = _scalar(learning_rate, param.dtype)
    m = moment + grad * grad
    p = param - lr * grad / (np.sqrt(m) + epsilon)
    return _cast(p, param), _cast(m, moment)


@_update_op('adadelta',
            ('param', 'grad', 'learning_rate', 'avg_squared_grad', 'avg_squared_update'),
            ('param', 'avg_squared_grad', 'avg_squared_update'),
            {'rho': 0.95, 'epsilon': 1e-6})
def adadelta_op(param, grad, learning_rate, avg_squared_grad, avg_squared_update, rho, epsilon):
    """E[g^2] = rho E[g^2] + (1 - rho) g^2; update = -sqrt((E[dx^2] + eps) /
    (E[g^2] + eps)) * g; E[dx^2] = rho E[dx^2] + (1 - rho) update^2;
    param_out = param + lr * update."""
    _check_shapes(param, grad=grad, avg_squared_grad=avg_squared_grad,
                  avg_squared_update=avg_squared_update)
    lr = _scalar(learning_rate, param.dtype)
    asg = rho * avg_squared_grad + (1 - rho) * (grad * grad)
    update = -np.sqrt((avg_squared_update + epsilon) / (asg + epsilon)) * grad
    asu = rho * avg_squared_update + (1 - rho) * (update * update)
    return (_cast(param + lr * update, param), _cast(asg, avg_squared_grad),
            _cast(asu, avg_squared_update))


# ---- LAMB --------------------------------------------------------------------

def _sum_sq(a):
    """sum(a ** 2), accumulated in float32 at least (half precision overflows)."""
    if _dt.is_half(a.dtype):
        a = a.astype(np.float32)
    return np.vdot(a, a).real


def _l2(a):
    return np.sqrt(_sum_sq(a))


@_update_op('lamb', _ADAM_IN, _ADAM_OUT,
            {'weight_decay': 0.01, 'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-6,
             'always_adapt': False}, _POWS)
def lamb_op(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
            weight_decay, beta1, beta2, epsilon, always_adapt=False):
    """LAMB (You et al.): r = m_hat / (sqrt(v_hat) + eps) + wd * param;
    param_out = param - lr * (||param|| / ||r||) * r (ratio 1 if a norm is 0).
    As in Paddle, a parameter without weight decay skips the layer-wise
    adaptation (ratio 1) unless ``always_adapt``."""
    _check_shapes(param, grad=grad, moment1=moment1, moment2=moment2)
    lr = _scalar(learning_rate, param.dtype)
    b1 = _scalar(beta1_pow, beta1_pow.dtype)
    b2 = _scalar(beta2_pow, beta2_pow.dtype)
    m1 = beta1 * moment1 + (1 - beta1) * grad
    m2 = beta2 * moment2 + (1 - beta2) * (grad * grad)
    r = (m1 / (1 - b1)) / (np.sqrt(m2 / (1 - b2)) + epsilon) + weight_decay * param
    ratio = 1.0
    if weight_decay > 0 or always_adapt:
        pn, rn = _l2(param), _l2(r)
        ratio = pn / rn if pn > 0 and rn > 0 else 1.0
    p = param - (lr * ratio) * r
    return (_cast(p, param), _cast(m1, moment1), _cast(m2, moment2),
            _cast(beta1_pow * beta1, beta1_pow), _cast(beta2_pow * beta2, beta2_pow))


# ---- NAdam, RAdam, ASGD, Rprop ------------------------------------------------

@_update_op('nadam', ('param', 'grad', 'learning_rate', 'momentum_decay_pow', 'beta2_pow',
                      'mu_product', 'moment1', 'moment2'),
            ('param', 'momentum_decay_pow', 'beta2_pow', 'mu_product', 'moment1', 'moment2'),
            {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-8, 'momentum_decay': 0.004})
def nadam_op(param, grad, learning_rate, momentum_decay_pow, beta2_pow, mu_product, moment1,
             moment2, beta1, beta2, epsilon, momentum_decay):
    """Adam with Nesterov momentum (Dozat; Paddle's and PyTorch's NAdam). With
    d = momentum_decay_pow * 0.96 (0.96 ** t):
    mu_t = beta1 * (1 - d ** psi / 2), mu_t1 = beta1 * (1 - (0.96 d) ** psi / 2),
    m_hat = mu_t1 m / (1 - prod(mu_1..t+1)) + (1 - mu_t) g / (1 - prod(mu_1..t)),
    param -= lr m_hat / (sqrt(v / (1 - beta2 ** t)) + epsilon)."""
    _check_shapes(param, grad=grad, moment1=moment1, moment2=moment2)
    lr = _scalar(learning_rate, param.dtype)
    # hyper-parameters in the state's dtype, as Paddle's kernel has them
    beta1, beta2, epsilon, momentum_decay, c = (
        moment1.dtype.type(v) for v in (beta1, beta2, epsilon, momentum_decay, 0.96))
    one, half = moment1.dtype.type(1), moment1.dtype.type(0.5)
    decay_pow = momentum_decay_pow * c
    b2p = beta2_pow * beta2
    mu_t = beta1 * (one - half * decay_pow ** momentum_decay)
    mu_t1 = beta1 * (one - half * (decay_pow * c) ** momentum_decay)
    mu_prod = mu_product * mu_t
    m1 = beta1 * moment1 + (one - beta1) * grad
    m2 = beta2 * moment2 + (one - beta2) * grad * grad
    m_hat = mu_t1 * m1 / (one - mu_prod * mu_t1) + (one - mu_t) * grad / (one - mu_prod)
    v_hat = m2 / (one - b2p)
    out = param - lr * m_hat / (np.sqrt(v_hat) + epsilon)
    return (_cast(out, param), _cast(decay_pow, momentum_decay_pow), _cast(b2p, beta2_pow),
            _cast(mu_prod, mu_product), _cast(m1, moment1), _cast(m2, moment2))


@_update_op('radam', ('param', 'grad', 'learning_rate', 'beta1_pow', 'beta2_pow', 'rho',
                      'moment1', 'moment2'),
            ('param', 'beta1_pow', 'beta2_pow', 'rho', 'moment1', 'moment2'),
            {'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-8})
def radam_op(param, grad, learning_rate, beta1_pow, beta2_pow, rho, moment1, moment2,
             beta1, beta2, epsilon):
    """Rectified Adam (Liu et al.). ``rho`` carries t beta2^t / (1 - beta2^t)
    (updated without knowing t); rho_t = rho_inf - 2 rho. While rho_t <= 5
    the step is plain momentum SGD, lr * m_hat; after it the adaptive step is
    scaled by the variance rectification r_t."""
    _check_shapes(param, grad=grad, moment1=moment1, moment2=moment2)
    lr = _scalar(learning_rate, param.dtype)
    # hyper-parameters in the state's dtype, as Paddle's kernel has them (rho_inf
    # of a float32 beta2 differs from the float64 one in the 4th digit)
    f = moment1.dtype.type
    beta1, beta2, epsilon, one, two = f(beta1), f(beta2), f(epsilon), f(1), f(2)
    b1p = beta1_pow * beta1
    b2p = beta2_pow * beta2
    rho_out = (rho * (beta2 - b2p) + b2p) / (one - b2p)
    rho_inf = two / (one - beta2) - one
    rho_t = rho_inf - two * rho_out
    m1 = beta1 * moment1 + (one - beta1) * grad
    m2 = beta2 * moment2 + (one - beta2) * grad * grad
    m_hat = m1 / (one - b1p)
    rectified = rho_t > 5
    safe_rho = np.where(rectified, rho_t, f(6))   # no sqrt of a negative where unused
    r_t = np.sqrt((safe_rho - 4) * (safe_rho - 2) * rho_inf
                  / ((rho_inf - 4) * (rho_inf - 2) * safe_rho))
    l_t = np.sqrt(one - b2p) / (np.sqrt(m2) + epsilon)
    step = np.where(rectified, m_hat * r_t * l_t, m_hat)
    out = param - lr * step
    return (_cast(out, param), _cast(b1p, beta1_pow), _cast(b2p, beta2_pow),
            _cast(rho_out, rho), _cast(m1, moment1), _cast(m2, moment2))


def _asgd_meta(param, grad, learning_rate, d, y, m, batch_num=1):
    pshape = meta.shape_of(param)
    for name, v in (('grad', grad), ('d', d)):
        if meta.shape_of(v) != pshape and -1 not in meta.shape_of(v) + pshape:
            raise OpError("asgd: %s shape %s does not match param shape %s"
                          % (name, list(meta.shape_of(v)), list(pshape)))
    ys = meta.shape_of(y)
    if len(ys) != len(pshape) + 1 or ys[0] not in (batch_num, -1):
        raise OpError("asgd: y must have shape [batch_num=%d] + param shape %s, got %s"
                      % (batch_num, list(pshape), list(ys)))
    return (Meta(pshape, meta.dtype_of(param)), Meta(meta.shape_of(d), meta.dtype_of(d)),
            Meta(ys, meta.dtype_of(y)), Meta(meta.shape_of(m), meta.dtype_of(m)))


@def_op('asgd', _asgd_meta, inputs=('param', 'grad', 'learning_rate', 'd', 'y', 'm'),
        outputs=('param_out', 'd_out', 'y_out', 'm_out'), attrs={'batch_num': 1},
        differentiable=False,
        inplace_map={'param_out': 'param', 'd_out': 'd', 'y_out': 'y', 'm_out': 'm'},
        effects=('stateful',), pattern='opaque')
def asgd_op(param, grad, learning_rate, d, y, m, batch_num):
    """Stochastic average gradient (Schmidt et al.): ``y[i]`` is the gradient
    batch slot i = m % batch_num gave last time, ``d`` their sum; d += grad - y[i],
    y[i] = grad, m += 1, param -= lr * d / min(m, batch_num)."""
    _check_shapes(param, grad=grad, d=d)
    lr = _scalar(learning_rate, param.dtype)
    step = int(np.asarray(m).reshape(-1)[0])
    slot = step % batch_num
    d_out = d - y[slot] + grad
    y_out = y.copy()
    y_out[slot] = grad
    count = min(step + 1, batch_num)
    out = param - lr / param.dtype.type(count) * d_out
    return (_cast(out, param), _cast(d_out, d), y_out,
            np.asarray(m) + np.ones_like(m))


@_update_op('rprop', ('param', 'grad', 'prev', 'learning_rates'),
            ('param', 'prev', 'learning_rates'),
            {'learning_rate_range': (1e-5, 50.0), 'etas': (0.5, 1.2)})
def rprop_op(param, grad, prev, learning_rates, learning_rate_range, etas):
    """Resilient backpropagation (Riedmiller & Braun): each element's step size
    (``learning_rates``) grows by etas[1] while its gradient keeps its sign and
    shrinks by etas[0] when the sign flips (that gradient then counts as 0: no
    move), staying within learning_rate_range; param -= sign(grad) * step."""
    _check_shapes(param, grad=grad, prev=prev, learning_rates=learning_rates)
    lo, hi = (np.asarray(v, learning_rates.dtype) for v in learning_rate_range)
    eta_neg, eta_pos = (np.asarray(v, learning_rates.dtype) for v in etas)
    prod = grad * prev
    lr = np.where(prod > 0, np.minimum(learning_rates * eta_pos, hi),
                  np.where(prod < 0, np.maximum(learning_rates * eta_neg, lo), learning_rates))
    g = np.where(prod < 0, 0, grad)
    out = param - np.sign(g) * lr
    return _cast(out, param), _cast(g, prev), _cast(lr, learning_rates)


# ---- regularization and clipping primitives ---------------------------------

def _regularized_meta(grad, param, method, coeff):
    return Meta(meta.broadcast_shapes(meta.shape_of(grad), meta.shape_of(param)),
                meta.result_dtype(grad, param))


@def_op('regularized_grad', _regularized_meta, differentiable=False, pattern='opaque')
def regularized_grad_op(grad, param, method='l2_decay', coeff=0.0):
    """Coupled weight decay: grad + coeff * param ('l2_decay') or
    grad + coeff * sign(param) ('l1_decay'). ``grad`` may be 0 to get the
    decay term alone (what a regularizer's ``__call__`` returns)."""
    if method == 'l2_decay':
        return np.asarray(grad + coeff * param)
    if method == 'l1_decay':
        return np.asarray(grad + coeff * np.sign(param))
    raise OpError("method must be 'l1_decay' or 'l2_decay', got %r" % (method,))


def _norm_dtype(dtype):
    """Half-precision inputs give a float32 norm (float16 overflows at 65504)."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if _dt.is_half(dtype) else dtype


def _norm_meta(x):
    return Meta((), _norm_dtype(meta.dtype_of(x)))


@def_op('squared_l2_norm', _norm_meta, pattern='opaque', amp='black',
        paddle_names=('frobenius_norm',))
def squared_l2_norm_op(x):
    """sum(x ** 2) as a 0-d tensor (the per-gradient term of global-norm clipping);
    float32 for half-precision x."""
    return np.asarray(_sum_sq(x), dtype=_norm_dtype(x.dtype))


@squared_l2_norm_op.def_grad
def _squared_l2_norm_grad(g, x, out):
    if g.dtype != x.dtype:          # the float32 norm of a half-precision x
        g = lib.cast(g, x.dtype)
    return x * g * 2.0


@squared_l2_norm_op.def_fast_grad
def _squared_l2_norm_fast(g, x, out):
    return ((2.0 * g) * x).astype(x.dtype, copy=False)


@def_op('clip_by_norm', meta.unchanged, differentiable=False, pattern='opaque')
def clip_by_norm_op(x, max_norm=1.0):
    """x * max_norm / ||x|| when ||x|| > max_norm, else x (Paddle's clip_by_norm)."""
    norm = _l2(x)
    if norm > max_norm:
        return _cast(x * (max_norm / norm), x)
    return x


# ---- test cases: independent textbook references ----------------------------

_rng = np.random.default_rng(41)
_r = _rng.standard_normal
_u = _rng.uniform
_S = (3, 4)
_LR = np.array(0.05)


def _ref_sgd(p, g, lr):
    return p - lr * g


def _ref_momentum(p, g, lr, v, mu, nesterov, method, coeff, rescale):
    g = g * rescale + (coeff * p if method == 'l2_decay' else 0.0)
    v = mu * v + g
    return (p - lr * (g + mu * v) if nesterov else p - lr * v), v


def _ref_adam(p, g, lr, m, v, b1p, b2p, beta1, beta2, eps, vmax=None):
    """Textbook Adam with explicit bias-corrected moments (the torch form);
    ``b1p``/``b2p`` hold beta ** t at step t."""
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    vd = v if vmax is None else np.maximum(vmax, v)
    m_hat, v_hat = m / (1 - float(b1p[0])), vd / (1 - float(b2p[0]))
    out = [p - lr * m_hat / (np.sqrt(v_hat) + eps), m, v, b1p * beta1, b2p * beta2]
    return out if vmax is None else out + [vd]


def _ref_amsgrad(p, g, lr, m, v, b1p, b2p, vmax, beta1, beta2, eps):
    return _ref_adam(p, g, lr, m, v, b1p, b2p, beta1, beta2, eps, vmax)


def _ref_adamw(p, g, lr, m, v, b1p, b2p, beta1, beta2, eps, coeff, ratio, on, vmax=None):
    lr = lr * ratio
    if on:
        p = p - lr * coeff * p
    return _ref_adam(p, g, lr, m, v, b1p, b2p, beta1, beta2, eps, vmax)


def _ref_adamw_amsgrad(p, g, lr, m, v, b1p, b2p, vmax, *attrs):
    return _ref_adamw(p, g, lr, m, v, b1p, b2p, *attrs, vmax=vmax)


def _ref_adamax(p, g, lr, m, u, b1p, beta1, beta2, eps):
    m = beta1 * m + (1 - beta1) * g
    u = np.array([max(a, b) for a, b in zip((beta2 * u + eps).ravel(), np.abs(g).ravel())]
                 ).reshape(u.shape)
    return p - lr / (1 - b1p[0]) * m / u, m, u, b1p * beta1


def _ref_rmsprop(p, g, lr, mom, ms, mg, rho, eps, momentum, centered):
    ms = rho * ms + (1 - rho) * g ** 2
    if centered:
        mg = rho * mg + (1 - rho) * g
        mom = momentum * mom + lr * g / np.sqrt(ms - mg ** 2 + eps)
    else:
        mom = momentum * mom + lr * g / np.sqrt(ms + eps)
    return p - mom, mom, ms, mg


def _ref_adagrad(p, g, lr, m, eps):
    m = m + g ** 2
    return p - lr * g / (np.sqrt(m) + eps), m


def _ref_adadelta(p, g, lr, eg, edx, rho, eps):
    eg = rho * eg + (1 - rho) * g ** 2
    dx = -np.sqrt(edx + eps) / np.sqrt(eg + eps) * g
    edx = rho * edx + (1 - rho) * dx ** 2
    return p + lr * dx, eg, edx


def _ref_lamb(p, g, lr, m, v, b1p, b2p, wd, beta1, beta2, eps, always_adapt=False):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    r = (m / (1 - b1p[0])) / (np.sqrt(v / (1 - b2p[0])) + eps) + wd * p
    w_norm, r_norm = np.linalg.norm(p), np.linalg.norm(r)
    trust = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
    if wd == 0 and not always_adapt:
        trust = 1.0
    return p - lr * trust * r, m, v, b1p * beta1, b2p * beta2


def _pows(t, b1=0.9, b2=0.999):
    return np.array([b1 ** t]), np.array([b2 ** t])


_p, _g = _r(_S), _r(_S)
add_test_case(sgd_op, _p, _g, _LR, ref=_ref_sgd)
add_test_case(sgd_op, _r(5), _r(5), 0.1, ref=_ref_sgd)
for _nest in (False, True):
    add_test_case(momentum_op, _r(_S), _r(_S), _LR, _r(_S), 0.9, _nest, '', 0.0, 1.0,
                  ref=_ref_momentum)
add_test_case(momentum_op, _r(_S), _r(_S), _LR, _r(_S), 0.8, False, 'l2_decay', 0.01, 0.5,
              ref=_ref_momentum)
add_test_case(adam_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(1),
              0.9, 0.999, 1e-8, ref=_ref_adam)
add_test_case(adam_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(5, 0.8, 0.99),
              0.8, 0.99, 1e-3, ref=_ref_adam)
add_test_case(adam_amsgrad_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(3),
              _u(0.1, 2, _S), 0.9, 0.999, 1e-8,
              ref=_ref_amsgrad)
add_test_case(adamw_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(2),
              0.9, 0.999, 1e-8, 0.1, 0.5, True, ref=_ref_adamw)
add_test_case(adamw_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(2),
              0.9, 0.999, 1e-8, 0.1, 1.0, False, ref=_ref_adamw)
add_test_case(adamw_amsgrad_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(4),
              _u(0.1, 2, _S), 0.9, 0.999, 1e-8, 0.01, 1.0, True,
              ref=_ref_adamw_amsgrad)
add_test_case(adamax_op, _r(_S), _r(_S), _LR, _r(_S), _u(0, 2, _S), np.array([0.9 ** 3]),
              0.9, 0.999, 1e-8, ref=_ref_adamax)
for _centered in (False, True):
    _mg = _r(_S)
    add_test_case(rmsprop_op, _r(_S), _r(_S), _LR, _r(_S), _mg ** 2 + _u(0.1, 1, _S), _mg,
                  0.95, 1e-6, 0.9, _centered, ref=_ref_rmsprop)
add_test_case(adagrad_op, _r(_S), _r(_S), _LR, _u(0, 1, _S), 1e-6, ref=_ref_adagrad)
add_test_case(adadelta_op, _r(_S), _r(_S), _LR, _u(0, 1, _S), _u(0, 1, _S), 0.95, 1e-6,
              ref=_ref_adadelta)
add_test_case(lamb_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(2),
              0.01, 0.9, 0.999, 1e-6, ref=_ref_lamb)
add_test_case(lamb_op, np.zeros(_S), _r(_S), _LR, np.zeros(_S), np.zeros(_S), *_pows(1),
              0.0, 0.9, 0.999, 1e-6, True, ref=_ref_lamb)   # zero param norm: trust ratio 1
for _adapt in (False, True):      # no weight decay: adapted only with always_adapt
    add_test_case(lamb_op, _r(_S), _r(_S), _LR, _r(_S), _u(0.1, 1, _S), *_pows(2),
                  0.0, 0.9, 0.999, 1e-6, _adapt, ref=_ref_lamb)
def _ref_nadam(p, g, lr, dpow, b2p, mup, m, v, beta1, beta2, eps, psi):
    """Dozat's NAdam at step t (dpow = 0.96 ** (t - 1) etc. on entry), in float64."""
    dpow, b2p = dpow * 0.96, b2p * beta2
    mu_t = beta1 * (1 - 0.5 * dpow ** psi)
    mu_next = beta1 * (1 - 0.5 * (dpow * 0.96) ** psi)
    mup = mup * mu_t
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = mu_next * m / (1 - mup * mu_next) + (1 - mu_t) * g / (1 - mup)
    return p - lr * m_hat / (np.sqrt(v / (1 - b2p)) + eps), dpow, b2p, mup, m, v


def _ref_radam(p, g, lr, b1p, b2p, rho, m, v, beta1, beta2, eps):
    """Liu et al.'s RAdam, with t recovered from beta2 ** t."""
    b1p, b2p = b1p * beta1, b2p * beta2
    t = np.round(np.log(b2p) / np.log(beta2))
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * t * b2p / (1 - b2p)
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    m_hat = m / (1 - b1p)
    with np.errstate(invalid='ignore'):
        r = np.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
    adaptive = p - lr * m_hat * r * np.sqrt(1 - b2p) / (np.sqrt(v) + eps)
    return (np.where(rho_t > 5, adaptive, p - lr * m_hat), b1p, b2p,
            t * b2p / (1 - b2p), m, v)


def _ref_asgd(p, g, lr, d, y, m, n):
    i = int(m[0]) % n
    d = d - y[i] + g
    y = y.copy()
    y[i] = g
    return p - lr * d / min(int(m[0]) + 1, n), d, y, m + 1


def _ref_rprop(p, g, prev, lrs, lr_range, etas):
    sign = np.sign(g * prev)
    lrs = np.clip(np.where(sign > 0, lrs * etas[1], np.where(sign < 0, lrs * etas[0], lrs)),
                  *lr_range)
    g = np.where(sign < 0, 0.0, g)
    return p - np.sign(g) * lrs, g, lrs


def _nadam_state(t, shape, beta2=0.999):
    """NAdam's power accumulators after t steps (mu product from the same rule)."""
    mup = 1.0
    for k in range(1, t + 1):
        mup *= 0.9 * (1 - 0.5 * (0.96 ** k) ** 0.004)
    return (np.full(shape, 0.96 ** t), np.full(shape, beta2 ** t), np.full(shape, mup))


def _radam_state(t, shape, beta1=0.9, beta2=0.999):
    b2 = beta2 ** t
    rho = t * b2 / (1 - b2) if t else 1.0
    return np.full(shape, beta1 ** t), np.full(shape, b2), np.full(shape, rho)


add_test_case(nadam_op, _r(_S), _r(_S), _LR, *_nadam_state(0, _S), np.zeros(_S), np.zeros(_S),
              0.9, 0.999, 1e-8, 0.004, ref=_ref_nadam)
add_test_case(nadam_op, _r(5), _r(5), 0.1, *_nadam_state(4, 5), _r(5), _u(0.1, 1, 5),
              0.9, 0.999, 1e-8, 0.004, ref=_ref_nadam)
add_test_case(nadam_op, _r(()), _r(()), _LR, *_nadam_state(2, ()), _r(()), _u(0.1, 1, ()),
              0.9, 0.999, 1e-8, 0.004, ref=_ref_nadam)
add_test_case(nadam_op, _r((0, 3)), _r((0, 3)), _LR, *_nadam_state(1, (0, 3)),
              np.zeros((0, 3)), np.zeros((0, 3)), 0.9, 0.999, 1e-8, 0.004, ref=_ref_nadam)
add_test_case(nadam_op, *[a.astype(np.float32) for a in (
    _r(_S), _r(_S), _LR, *_nadam_state(3, _S), _r(_S), _u(0.1, 1, _S))],
    0.9, 0.999, 1e-8, 0.004, ref=_ref_nadam, atol=1e-5, rtol=1e-5)
for _t in (0, 7):     # before and after the rectification starts (rho_t > 5 from t = 6)
    add_test_case(radam_op, _r(_S), _r(_S), _LR, *_radam_state(_t, _S), _r(_S),
                  _u(0.1, 1, _S), 0.9, 0.999, 1e-8, ref=_ref_radam)
add_test_case(radam_op, _r(()), _r(()), 0.1, *_radam_state(10, ()), _r(()), _u(0.1, 1, ()),
              0.9, 0.999, 1e-8, ref=_ref_radam)
add_test_case(radam_op, _r((0, 2)), _r((0, 2)), _LR, *_radam_state(3, (0, 2)),
              np.zeros((0, 2)), np.zeros((0, 2)), 0.9, 0.999, 1e-8, ref=_ref_radam)
add_test_case(radam_op, *[a.astype(np.float32) for a in (
    _r(5), _r(5), _LR, *_radam_state(9, 5, 0.8, 0.99), _r(5), _u(0.1, 1, 5))],
    0.8, 0.99, 1e-8, ref=_ref_radam, atol=1e-4, rtol=1e-4)
add_test_case(asgd_op, _r(_S), _r(_S), _LR, _r(_S), _r((3,) + _S), np.array([4]), 3,
              ref=_ref_asgd)
add_test_case(asgd_op, _r(5), _r(5), 0.1, np.zeros(5), np.zeros((2, 5)), np.array([0]), 2,
              ref=_ref_asgd)
add_test_case(asgd_op, _r(()), _r(()), _LR, _r(()), _r((1,)), np.array([3]), 1, ref=_ref_asgd)
add_test_case(asgd_op, _r((0, 2)), _r((0, 2)), _LR, _r((0, 2)), _r((2, 0, 2)), np.array([1]),
              2, ref=_ref_asgd)
add_test_case(asgd_op, *[a.astype(np.float32) for a in (_r(_S), _r(_S), _LR, _r(_S),
                                                       _r((2,) + _S))],
              np.array([5]), 2, ref=_ref_asgd, atol=1e-6)
_g_prev = _r(_S)
add_test_case(rprop_op, _r(_S), _r(_S), _g_prev, _u(0.01, 0.2, _S), (1e-3, 0.15), (0.5, 1.2),
              ref=_ref_rprop)
add_test_case(rprop_op, _r(6), _r(6), np.zeros(6), np.full(6, 0.1), (1e-5, 50.0), (0.3, 1.5),
              ref=_ref_rprop)
add_test_case(rprop_op, _r(()), _r(()), _r(()), np.array(0.1), (1e-5, 50.0), (0.5, 1.2),
              ref=_ref_rprop)
add_test_case(rprop_op, _r((0, 4)), _r((0, 4)), _r((0, 4)), np.zeros((0, 4)), (1e-5, 50.0),
              (0.5, 1.2), ref=_ref_rprop)
add_test_case(rprop_op, *[a.astype(np.float32) for a in (_r(_S), _r(_S), _r(_S),
                                                       _u(0.01, 0.2, _S))],
              (1e-3, 0.15), (0.5, 1.2), ref=_ref_rprop)
add_test_case(regularized_grad_op, _r(_S), _r(_S), 'l2_decay', 0.01,
              ref=lambda g, p, m, c: g + c * p)
add_test_case(regularized_grad_op, _r(_S), _r(_S), 'l1_decay', 0.01,
              ref=lambda g, p, m, c: g + c * np.where(p > 0, 1.0, -1.0))
add_test_case(regularized_grad_op, 0.0, _r(_S), 'l2_decay', 0.5,
              ref=lambda g, p, m, c: c * p)
add_test_case(squared_l2_norm_op, _r(_S), ref=lambda x: sum(v * v for v in x.ravel()))
add_test_case(squared_l2_norm_op, np.full(4, 200.0, np.float16), grad=False,
              ref=lambda x: np.float32(4 * 200.0 ** 2))    # float32 result: no overflow
add_test_case(clip_by_norm_op, _r(_S), 0.5,
              ref=lambda x, c: x * c / np.sqrt(sum(v * v for v in x.ravel())))
add_test_case(clip_by_norm_op, 0.01 * _r(_S), 10.0, ref=lambda x, c: x)
