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
is computed in the parameter's dtype.
"""
import numpy as np

from . import meta
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
    return def_op(name, _update_meta(inputs, outputs, scalars), inputs=inputs, outputs=outs,
                  attrs=attrs, differentiable=False,
                  inplace_map={o + '_out': o for o in outputs})


# update ops whose kernels take ``inplace=True``: the state buffers (not the
# parameter, which views and saved graphs may share) are updated where they are
INPLACE_STATE_UPDATES = frozenset({'adam', 'adam_amsgrad', 'adamw', 'adamw_amsgrad'})


def _cast(a, like):
    return a if a.dtype == like.dtype else a.astype(like.dtype)


# ---- SGD and momentum -------------------------------------------------------

@_update_op('sgd', ('param', 'grad', 'learning_rate'), ('param',), {})
def sgd_op(param, grad, learning_rate):
    """param_out = param - lr * grad"""
    _check_shapes(param, grad=grad)
    lr = _scalar(learning_rate, param.dtype)
    return _cast(param - lr * grad, param)


@_update_op('momentum', ('param', 'grad', 'learning_rate', 'velocity'),
            ('param', 'velocity'),
            {'mu': 0.9, 'use_nesterov': False, 'regularization_method': '',
             'regularization_coeff': 0.0, 'rescale_grad': 1.0})
def momentum_op(param, grad, learning_rate, velocity, mu, use_nesterov,
                regularization_method, regularization_coeff, rescale_grad):
    """velocity_out = mu * velocity + g, with g = grad * rescale_grad (+ coeff *
    param for the fused 'l2_decay'); param_out = param - lr * velocity_out, or
    param - lr * (g + mu * velocity_out) with Nesterov momentum."""
    _check_shapes(param, grad=grad, velocity=velocity)
    lr = _scalar(learning_rate, param.dtype)
    g = grad * rescale_grad if rescale_grad != 1.0 else grad
    if regularization_method == 'l2_decay':
        g = g + regularization_coeff * param
    elif regularization_method:
        raise OpError("regularization_method must be '' or 'l2_decay', got %r"
                      % (regularization_method,))
    v = mu * velocity + g
    step = (g + mu * v) if use_nesterov else v
    return _cast(param - lr * step, param), _cast(v, velocity)


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
    p = np.subtract(param, tmp, out=tmp if tmp.dtype == param.dtype else None)
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
    if a.dtype.itemsize < 4 and a.dtype.kind == 'f':
        a = a.astype(np.float32)
    return np.vdot(a, a).real


def _l2(a):
    return np.sqrt(_sum_sq(a))


@_update_op('lamb', _ADAM_IN, _ADAM_OUT,
            {'weight_decay': 0.01, 'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-6}, _POWS)
def lamb_op(param, grad, learning_rate, moment1, moment2, beta1_pow, beta2_pow,
            weight_decay, beta1, beta2, epsilon):
    """LAMB (You et al.): r = m_hat / (sqrt(v_hat) + eps) + wd * param;
    param_out = param - lr * (||param|| / ||r||) * r (ratio 1 if a norm is 0)."""
    _check_shapes(param, grad=grad, moment1=moment1, moment2=moment2)
    lr = _scalar(learning_rate, param.dtype)
    b1 = _scalar(beta1_pow, beta1_pow.dtype)
    b2 = _scalar(beta2_pow, beta2_pow.dtype)
    m1 = beta1 * moment1 + (1 - beta1) * grad
    m2 = beta2 * moment2 + (1 - beta2) * (grad * grad)
    r = (m1 / (1 - b1)) / (np.sqrt(m2 / (1 - b2)) + epsilon) + weight_decay * param
    pn, rn = _l2(param), _l2(r)
    ratio = pn / rn if pn > 0 and rn > 0 else 1.0
    p = param - (lr * ratio) * r
    return (_cast(p, param), _cast(m1, moment1), _cast(m2, moment2),
            _cast(beta1_pow * beta1, beta1_pow), _cast(beta2_pow * beta2, beta2_pow))


# ---- regularization and clipping primitives ---------------------------------

def _regularized_meta(grad, param, method, coeff):
    return Meta(meta.broadcast_shapes(meta.shape_of(grad), meta.shape_of(param)),
                meta.result_dtype(grad, param))


@def_op('regularized_grad', _regularized_meta, differentiable=False)
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
    return np.dtype(np.float32) if dtype.itemsize < 4 and dtype.kind == 'f' else dtype


def _norm_meta(x):
    return Meta((), _norm_dtype(meta.dtype_of(x)))


@def_op('squared_l2_norm', _norm_meta)
def squared_l2_norm_op(x):
    """sum(x ** 2) as a 0-d tensor (the per-gradient term of global-norm clipping);
    float32 for half-precision x."""
    return np.asarray(_sum_sq(x), dtype=_norm_dtype(x.dtype))


@squared_l2_norm_op.def_grad
def _squared_l2_norm_grad(g, x, out):
    if g.dtype != x.dtype:          # the float32 norm of a half-precision x
        from .manipulation import cast
        g = cast(g, x.dtype)
    return x * g * 2.0


@squared_l2_norm_op.def_fast_grad
def _squared_l2_norm_fast(g, x, out):
    return ((2.0 * g) * x).astype(x.dtype, copy=False)


@def_op('clip_by_norm', meta.unchanged, differentiable=False)
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


def _ref_lamb(p, g, lr, m, v, b1p, b2p, wd, beta1, beta2, eps):
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g ** 2
    r = (m / (1 - b1p[0])) / (np.sqrt(v / (1 - b2p[0])) + eps) + wd * p
    w_norm, r_norm = np.linalg.norm(p), np.linalg.norm(r)
    trust = w_norm / r_norm if w_norm > 0 and r_norm > 0 else 1.0
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
              0.0, 0.9, 0.999, 1e-6, ref=_ref_lamb)   # zero param norm: trust ratio 1
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
