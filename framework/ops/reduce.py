"""Reductions: sum, mean, max/min (amax/amin), prod, argmax/argmin,
logsumexp, var/std and all/any.

Ops take ``axis`` as None (every axis) or a tuple of ints, ``keepdim`` as a
bool; the public wrappers accept Paddle's spellings (int, list, tuple, negative
axes, ``[]`` for all) and normalise them. Full reductions give 0-D tensors.

Gradients flow back through ``expand_reduced``, the op that broadcasts a
reduced value to the input's shape (the adjoint of ``sum``), so grad rules
never need the input's static shape. ``max``/``min`` send the whole gradient to
every element equal to the extreme value and ``amax``/``amin`` split it evenly
between them, as Paddle documents.
"""
import builtins   # sum/max/min/all/any below shadow the builtins in this module
import math as _pymath
import statistics

import numpy as np

from .. import dtype as _dt
from . import lib, meta
from . import math as _m
from .grad_utils import reduce_as as reduce_as_op
from .nn import softmax as _nn_softmax   # paddle.softmax (below): nn's, with a dim default
from .out_param import write_out
from .registry import Meta, OpError, add_test_case, def_op

_ndarray = np.ndarray
_INT64 = np.dtype(np.int64)
_SUM_TO_INT64 = frozenset([np.dtype(np.bool_), np.dtype(np.int32)])


# ---- helpers ----------------------------------------------------------------

def _axis_tuple(axis):
    """The axis attribute as numpy wants it (static mode may hand us a list)."""
    return tuple(axis) if type(axis) is list else axis


def _keep_shape(shape, axis):
    """``shape`` with the reduced axes set to 1 (what keepdim gives)."""
    nd = len(shape)
    if axis is None:
        return (1,) * nd
    ax = [a % nd for a in axis] if nd else []
    return tuple(1 if i in ax else d for i, d in enumerate(shape))


def _reduced_count(shape, axis):
    if axis is None:
        return _pymath.prod(shape)
    nd = len(shape)
    return _pymath.prod(shape[a % nd] for a in axis) if nd else 1


def _keep(v, shape, axis, keepdim):
    """numpy: a reduced value viewed with keepdim shape (broadcasts against x)."""
    if type(v) is not _ndarray:
        v = np.asarray(v)
    return v if keepdim else v.reshape(_keep_shape(shape, axis))


def _expand(g, shape, axis, keepdim, dtype=None):
    """numpy: a reduced gradient broadcast to ``shape`` as a fresh array."""
    g = _keep(g, shape, axis, keepdim)
    out = np.empty(shape, dtype or g.dtype)
    out[...] = g
    return out


def _float(x):
    return x if _dt.is_inexact(x.dtype) else x.astype(_dt.default_float())


def _float_reduce_meta(x, axis=None, keepdim=False, *rest):
    m = meta.reduce(x, axis, keepdim)
    return Meta(m.shape, m.dtype if _dt.is_inexact(m.dtype) else _dt.default_float())


def _count(x, axis):
    """Number of reduced elements of a graph value: a Python number when the
    static shape is known, else a 0-D tensor computed at run time."""
    shape = tuple(x.shape)
    n = _reduced_count(shape, axis)
    if n >= 0 and builtins.all(d >= 0 for d in shape):
        return float(n)
    return numel_op(x, axis, str(np.dtype(x.dtype)))


def _keep_value(v, x, axis, keepdim):
    """Graph value: a reduced result broadcast back against ``x``."""
    return expand_reduced(v, x, axis, keepdim)


# ---- expand_reduced: the adjoint of sum ------------------------------------------

def _expand_reduced_meta(x, target, axis=None, keepdim=False):
    return Meta(meta.shape_of(target), meta.dtype_of(x))


@def_op('expand_reduced', _expand_reduced_meta, no_grad_inputs=('target',),
        save_inputs=False, attr_types={'axis': 'int|ints|None'}, pattern='opaque')
def expand_reduced(x, target, axis=None, keepdim=False):
    """Broadcast ``x``, the result of reducing ``target`` over ``axis``, back to
    ``target``'s shape (only the shape of ``target`` is read)."""
    return _expand(x, np.shape(target), _axis_tuple(axis), keepdim)


@expand_reduced.def_grad
def _expand_reduced_grad(g, x, target, out, axis, keepdim):
    return sum_op(g, axis, keepdim), None


@expand_reduced.def_fast_grad
def _expand_reduced_fast(g, x, target, out, axis, keepdim):
    return np.add.reduce(g, _axis_tuple(axis), keepdims=keepdim), None


@expand_reduced.def_onnx
def _expand_reduced_onnx(g, x, target, axis, keepdim):
    if not keepdim:
        nd = g.rank(target)
        x = (g.op('Reshape', x, g.ints([1] * nd)) if axis is None
             else g.unsqueeze(x, sorted(a % nd for a in axis)))
    return g.op('Expand', x, g.op('Shape', target))


def _numel_meta(x, axis=None, dtype='int64'):
    return Meta((), dtype)


@def_op('reduced_numel', _numel_meta, differentiable=False, save_inputs=False,
        attr_types={'axis': 'int|ints|None'}, pattern='opaque')
def numel_op(x, axis=None, dtype='int64'):
    """How many elements of ``x`` a reduction over ``axis`` combines (0-D);
    grad rules use it when the static shape is unknown."""
    return np.asarray(_reduced_count(np.shape(x), _axis_tuple(axis)), dtype)


# ---- sum and mean ---------------------------------------------------------------

def _sum_dtype(d, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    return _INT64 if d in _SUM_TO_INT64 else d


def _sum_meta(x, axis=None, keepdim=False, dtype=None):
    m = meta.reduce(x, axis, keepdim)
    return Meta(m.shape, _sum_dtype(m.dtype, dtype))


@def_op('sum', _sum_meta, save_inputs=False,
        attr_types={'axis': 'int|ints|None', 'dtype': 'str|None'}, pattern='reduce', identity=0,
        flops=None, amp='black', paddle_names=('reduce_sum',))
def sum_op(x, axis=None, keepdim=False, dtype=None):
    """Sum over ``axis``; bool and int32 inputs give int64 (Paddle's rule)."""
    d = x.dtype
    return np.add.reduce(x, _axis_tuple(axis), dtype if dtype is not None else
                         _INT64 if d in _SUM_TO_INT64 else d, keepdims=keepdim)


@sum_op.def_grad
def _sum_grad(g, x, out, axis, keepdim, dtype):
    gx = expand_reduced(g, x, axis, keepdim)
    xd = np.dtype(x.dtype)
    if _dt.is_inexact(xd) and np.dtype(gx.dtype) != xd:
        gx = _m.cast_like(gx, x)
    return gx


@sum_op.def_fast_grad
def _sum_fast(g, x, out, axis, keepdim, dtype):
    return _expand(g, x.shape, _axis_tuple(axis), keepdim, x.dtype)


@sum_op.def_onnx
def _sum_onnx(g, x, axis, keepdim, dtype):
    out = g.out_meta().dtype
    # ONNX sums no 8/16-bit ints: those sum in int64, then cast back
    acc = np.dtype(np.int64) if out.kind in 'iu' and out.itemsize < 4 else out
    s = g.reduce('ReduceSum', g.cast(x, acc), axis, keepdim)
    return s if acc == out else g.op('Cast', s, to=g.tensor_type(out))


@def_op('mean', _float_reduce_meta, save_inputs=False, attr_types={'axis': 'int|ints|None'},
        pattern='reduce', identity=None, flops=None, amp='black', paddle_names=('reduce_mean',))
def mean_op(x, axis=None, keepdim=False):
    """Arithmetic mean over ``axis`` (integer inputs give the default float)."""
    x = _float(x)
    axis = _axis_tuple(axis)
    s = np.add.reduce(x, axis, keepdims=keepdim)
    return np.true_divide(s, _reduced_count(x.shape, axis), dtype=x.dtype)


@mean_op.def_grad
def _mean_grad(g, x, out, axis, keepdim):
    return expand_reduced(g, x, axis, keepdim) / _count(x, axis)


@mean_op.def_fast_grad
def _mean_fast(g, x, out, axis, keepdim):
    axis = _axis_tuple(axis)
    return _expand(g / _reduced_count(x.shape, axis), x.shape, axis, keepdim)


mean_op.def_onnx(lambda g, x, axis, keepdim: g.reduce(
    'ReduceMean', g.cast(x, g.out_meta().dtype), axis, keepdim))


# ---- max / min / amax / amin ------------------------------------------------------

def _extreme(name, ufunc, split):
    """A max-like reduction. ``split``: ties share the gradient (amax/amin);
    otherwise every tied element gets all of it (max/min)."""
    def kernel(x, axis=None, keepdim=False):
        return ufunc.reduce(x, _axis_tuple(axis), keepdims=keepdim)
    kernel.__doc__ = "%s over ``axis``." % name
    # no identity: numpy refuses to reduce nothing (-inf would be one for floats only)
    op = def_op(name, meta.reduce, attr_types={'axis': 'int|ints|None'}, pattern='reduce',
                identity=None, flops=None)(kernel)

    @op.def_grad
    def grad(g, x, out, axis, keepdim):
        mask = _m.cast_like(_m.equal_op(x, _keep_value(out, x, axis, keepdim)), g)
        if split:
            mask = mask / _keep_value(sum_op(mask, axis, keepdim), x, axis, keepdim)
        return expand_reduced(g, x, axis, keepdim) * mask

    @op.def_fast_grad
    def fast_grad(g, x, out, axis, keepdim):
        axis = _axis_tuple(axis)
        mask = (x == _keep(out, x.shape, axis, keepdim)).astype(g.dtype)
        if split:
            mask /= np.add.reduce(mask, axis, keepdims=True)
        mask *= _keep(g, x.shape, axis, keepdim)
        return mask
    return op


max_op = _extreme('max', np.maximum, False)
min_op = _extreme('min', np.minimum, False)
amax_op = _extreme('amax', np.maximum, True)
amin_op = _extreme('amin', np.minimum, True)


for _op, _type in ((max_op, 'ReduceMax'), (min_op, 'ReduceMin'), (amax_op, 'ReduceMax'),
                  (amin_op, 'ReduceMin')):
    _op.def_onnx(lambda g, x, axis, keepdim, _type=_type: g.reduce(_type, x, axis, keepdim))


# ---- prod ------------------------------------------------------------------------

@def_op('prod', meta.reduce, attr_types={'axis': 'int|ints|None'}, pattern='reduce', identity=1,
        flops=None, amp='black', paddle_names=('reduce_prod',))
def prod_op(x, axis=None, keepdim=False):
    """Product over ``axis`` (keeps the input dtype)."""
    return np.multiply.reduce(x, _axis_tuple(axis), x.dtype, keepdims=keepdim)


@prod_op.def_grad
def _prod_grad(g, x, out, axis, keepdim):
    # d out / d x_i is out / x_i for x_i != 0; for a zero it is the product of
    # the other elements, which is nonzero only when it is the only zero
    zero = _m.cast_like(_m.equal_op(x, 0.0), x)
    safe = x + zero
    n_zero = sum_op(zero, axis, True)
    only = _m.cast_like(_m.equal_op(n_zero, 1.0), x) * prod_op(safe, axis, True)
    local = (1 - zero) * _keep_value(out, x, axis, keepdim) / safe + zero * only
    return expand_reduced(g, x, axis, keepdim) * local


@prod_op.def_fast_grad
def _prod_fast(g, x, out, axis, keepdim):
    axis = _axis_tuple(axis)
    shape = x.shape
    gk = _keep(g, shape, axis, keepdim)
    zero = x == 0
    if not zero.any():
        return gk * _keep(out, shape, axis, keepdim) / x
    safe = np.where(zero, 1, x)
    only = np.multiply.reduce(safe, axis, keepdims=True)
    only = np.where(np.add.reduce(zero, axis, keepdims=True) == 1, only, 0)
    local = np.where(zero, only, _keep(out, shape, axis, keepdim) / safe)
    return gk * local


prod_op.def_onnx(lambda g, x, axis, keepdim: g.reduce('ReduceProd', x, axis, keepdim))


# ---- argmax / argmin -------------------------------------------------------------

def _arg_meta(x, axis=None, keepdim=False, dtype='int64'):
    shape = meta.shape_of(x)
    if axis is None:
        out = (1,) * len(shape) if keepdim else ()
    else:
        out = meta.reduce(x, axis, keepdim).shape
    return Meta(out, dtype)


@def_op('argmax', _arg_meta, differentiable=False, save_inputs=False,
        attr_types={'axis': 'int|None'}, pattern='reduce', identity=None, flops=None)
def argmax_op(x, axis=None, keepdim=False, dtype='int64'):
    """Index of the first maximum along ``axis`` (None: of the flattened input)."""
    return np.argmax(x, axis, keepdims=keepdim).astype(dtype, copy=False)


@def_op('argmin', _arg_meta, differentiable=False, save_inputs=False,
        attr_types={'axis': 'int|None'}, pattern='reduce', identity=None, flops=None)
def argmin_op(x, axis=None, keepdim=False, dtype='int64'):
    """Index of the first minimum along ``axis`` (None: of the flattened input)."""
    return np.argmin(x, axis, keepdims=keepdim).astype(dtype, copy=False)


def _onnx_arg(onnx_type):
    def lower(g, x, axis, keepdim, dtype):
        nd = g.rank(x)
        if axis is None:      # of the flattened input
            idx = g.op(onnx_type, g.op('Reshape', x, g.ints([-1])), axis=0, keepdims=0)
            if keepdim:
                idx = g.op('Reshape', idx, g.ints([1] * nd))
        else:
            idx = g.op(onnx_type, x, axis=axis, keepdims=int(bool(keepdim)))
        return g.op('Cast', idx, to=g.tensor_type(dtype))
    return lower


argmax_op.def_onnx(_onnx_arg('ArgMax'))
argmin_op.def_onnx(_onnx_arg('ArgMin'))


# ---- logsumexp, var, std -------------------------------------------------------------

@def_op('logsumexp', _float_reduce_meta, attr_types={'axis': 'int|ints|None'}, pattern='reduce',
        identity=None, flops=None)
def logsumexp_op(x, axis=None, keepdim=False):
    """``log(sum(exp(x)))`` over ``axis``, shifted by the maximum for stability."""
    x = _float(x)
    axis = _axis_tuple(axis)
    m = np.maximum.reduce(x, axis, keepdims=True)
    finite = np.isfinite(m)
    if finite.all():
        out = np.log(np.add.reduce(np.exp(x - m), axis, keepdims=True))
    else:                # all -inf (or +inf) slices: shift by 0; log(0) = -inf is right
        m = np.where(finite, m, 0)
        with np.errstate(divide='ignore'):
            out = np.log(np.add.reduce(np.exp(x - m), axis, keepdims=True))
    out += m
    return out if keepdim else out.reshape(meta.reduce(x, axis, False).shape)


@logsumexp_op.def_grad
def _logsumexp_grad(g, x, out, axis, keepdim):
    soft = _m.exp_op(x - _keep_value(out, x, axis, keepdim))
    return expand_reduced(g, x, axis, keepdim) * soft


@logsumexp_op.def_fast_grad
def _logsumexp_fast(g, x, out, axis, keepdim):
    axis = _axis_tuple(axis)
    soft = np.exp(x - _keep(out, x.shape, axis, keepdim))
    soft *= _keep(g, x.shape, axis, keepdim)
    return soft


@logsumexp_op.def_onnx
def _logsumexp_onnx(g, x, axis, keepdim):
    x = g.cast(x, g.out_meta().dtype)
    dtype = g.meta(x).dtype

    def shift(keep):      # the maximum, 0 where it is not finite (all -inf slices)
        m = g.reduce('ReduceMax', x, axis, keep)
        bad = g.op('Or', g.op('IsInf', m), g.op('IsNaN', m))
        return g.op('Where', bad, g.scalar(0, dtype), m)

    s = g.reduce('ReduceSum', g.op('Exp', g.op('Sub', x, shift(True))), axis, keepdim)
    return g.op('Add', g.op('Log', s), shift(keepdim))


def _centered(x, axis):
    """numpy: x minus its mean over ``axis`` (keepdim shape), and the count."""
    n = _reduced_count(x.shape, axis)
    mean = np.add.reduce(x, axis, keepdims=True)
    mean /= n
    return x - mean, n


def _dof(n, correction):
    """Degrees of freedom n - correction, floored at 0 (as Paddle: the sum of
    squares over 0 gives inf, or nan for a single element)."""
    return builtins.max(n - correction, 0)


def _var_kernel(x, axis, keepdim, correction):
    x = _float(x)
    axis = _axis_tuple(axis)
    d, n = _centered(x, axis)
    np.square(d, out=d)
    s = np.add.reduce(d, axis, keepdims=keepdim)
    with np.errstate(divide='ignore', invalid='ignore'):
        return np.true_divide(s, _dof(n, correction), dtype=x.dtype)


@def_op('var', _float_reduce_meta, attr_types={'axis': 'int|ints|None'}, pattern='reduce',
        identity=None, flops=None, amp='black', paddle_names=('mean',))
def var_op(x, axis=None, keepdim=False, correction=1.0):
    """Variance over ``axis``: squared deviations summed and divided by
    n - correction (1: the unbiased estimate, 0: the population variance)."""
    return _var_kernel(x, axis, keepdim, correction)


@def_op('std', _float_reduce_meta, attr_types={'axis': 'int|ints|None'}, pattern='reduce',
        identity=None, flops=None, amp='black', paddle_names=('mean',))
def std_op(x, axis=None, keepdim=False, correction=1.0):
    """Standard deviation over ``axis`` (the square root of ``var``)."""
    out = _var_kernel(x, axis, keepdim, correction)
    return np.sqrt(out, out=out) if type(out) is _ndarray else np.sqrt(out)


def _var_terms(x, axis, correction):
    d = x - mean_op(x, axis, True)
    n = _count(x, axis)
    return d, (_dof(n, correction) if isinstance(n, float) else n - correction)


@var_op.def_grad
def _var_grad(g, x, out, axis, keepdim, correction):
    d, dof = _var_terms(x, axis, correction)
    return expand_reduced(g, x, axis, keepdim) * d * (2.0 / dof)


@std_op.def_grad
def _std_grad(g, x, out, axis, keepdim, correction):
    d, dof = _var_terms(x, axis, correction)
    return expand_reduced(g / out, x, axis, keepdim) * d / dof


@var_op.def_fast_grad
def _var_fast(g, x, out, axis, keepdim, correction):
    axis = _axis_tuple(axis)
    d, n = _centered(x, axis)
    d *= _keep(g, x.shape, axis, keepdim) * (2.0 / _dof(n, correction))
    return d


@std_op.def_fast_grad
def _std_fast(g, x, out, axis, keepdim, correction):
    axis = _axis_tuple(axis)
    d, n = _centered(x, axis)
    d *= _keep(g / out, x.shape, axis, keepdim) / _dof(n, correction)
    return d


def _onnx_var(g, x, axis, keepdim, correction):
    x = g.cast(x, g.out_meta().dtype)
    dtype = g.meta(x).dtype
    mean = g.reduce('ReduceMean', x, axis, True)
    d = g.op('Sub', x, mean)
    s = g.reduce('ReduceSum', g.op('Mul', d, d), axis, keepdim)
    # n - correction floored at 0, n read from the sizes (known or not)
    n = g.op('Div', g.op('Cast', g.op('Size', x), to=g.tensor_type(dtype)),
             g.op('Cast', g.op('Size', mean), to=g.tensor_type(dtype)))
    dof = g.op('Max', g.op('Sub', n, g.scalar(correction, dtype)), g.scalar(0, dtype))
    return g.op('Div', s, dof)


var_op.def_onnx(_onnx_var)
std_op.def_onnx(lambda g, x, axis, keepdim, correction: g.op(
    'Sqrt', _onnx_var(g, x, axis, keepdim, correction)))


# ---- all / any ---------------------------------------------------------------------

@def_op('all', meta.reduce_to_dtype(np.bool_), differentiable=False, save_inputs=False,
        attr_types={'axis': 'int|ints|None'}, pattern='reduce',
        identity=True, flops=None)
def all_op(x, axis=None, keepdim=False):
    """True where every element over ``axis`` is nonzero."""
    return np.logical_and.reduce(x, _axis_tuple(axis), keepdims=keepdim)


@def_op('any', meta.reduce_to_dtype(np.bool_), differentiable=False, save_inputs=False,
        attr_types={'axis': 'int|ints|None'}, pattern='reduce',
        identity=False, flops=None)
def any_op(x, axis=None, keepdim=False):
    """True where some element over ``axis`` is nonzero."""
    return np.logical_or.reduce(x, _axis_tuple(axis), keepdims=keepdim)


def _onnx_count(g, x, axis, keepdim, negate):
    """How many elements over ``axis`` are nonzero (``negate``: zero), as int64."""
    b = g.op('Cast', x, to=g.tensor_type(np.bool_))
    if negate:
        b = g.op('Not', b)
    return g.reduce('ReduceSum', g.op('Cast', b, to=g.tensor_type(np.int64)), axis, keepdim)


all_op.def_onnx(lambda g, x, axis, keepdim: g.op(
    'Equal', _onnx_count(g, x, axis, keepdim, True), g.scalar(0, np.int64)))
any_op.def_onnx(lambda g, x, axis, keepdim: g.op(
    'Greater', _onnx_count(g, x, axis, keepdim, False), g.scalar(0, np.int64)))


# ---- test cases: references reduce row by row in plain Python ----------------------

def _rows(x, axis):
    """x rearranged as (kept elements, reduced elements) rows."""
    nd = x.ndim
    axes = tuple(range(nd)) if axis is None else tuple(a % nd for a in axis)
    kept = [i for i in range(nd) if i not in axes]
    lead = [x.shape[i] for i in kept]
    rows = np.transpose(x, kept + list(axes)).reshape(_pymath.prod(lead), -1)
    return rows, lead, axes


def _ref(fn, otype=float):
    def ref(x, axis=None, keepdim=False, *rest):
        ax = (axis,) if isinstance(axis, int) else axis
        rows, lead, axes = _rows(x, ax)
        vals = np.array([fn([v.item() for v in r]) for r in rows], dtype=otype)
        vals = vals.reshape(lead)
        if keepdim:
            vals = vals.reshape([1 if i in axes else d for i, d in enumerate(x.shape)])
        return vals
    return ref


def _lse(v):
    m = builtins.max(v)
    return m + _pymath.log(_pymath.fsum(_pymath.exp(a - m) for a in v))


def _variance(v, unbiased):
    return statistics.variance(v) if unbiased else statistics.pvariance(v)


_rng = np.random.default_rng(5)
_r = _rng.standard_normal
_x234 = _r((2, 3, 4))

add_test_case(expand_reduced, _r((2, 4)), np.zeros((2, 3, 4)), (1,), False,
              ref=lambda g, t, a, k: np.stack([g] * 3, axis=1))
add_test_case(expand_reduced, _r((1, 3, 1)), np.zeros((2, 3, 4)), (0, 2), True,
              ref=lambda g, t, a, k: np.tile(g, (2, 1, 4)))
add_test_case(expand_reduced, _r(()), np.zeros((2, 3)), None, False,
              ref=lambda g, t, a, k: np.full((2, 3), g))
add_test_case(numel_op, _x234, (0, 2), 'int64', ref=lambda x, a, d: np.array(8))
add_test_case(numel_op, _x234, None, 'float32', ref=lambda x, a, d: np.float32(24))

add_test_case(sum_op, _x234, None, False, None, ref=_ref(_pymath.fsum))
add_test_case(sum_op, _x234, (1,), False, None, ref=_ref(_pymath.fsum))
add_test_case(sum_op, _x234, (0, 2), True, None, ref=_ref(_pymath.fsum))
add_test_case(sum_op, _x234, (-1,), False, None, ref=_ref(_pymath.fsum))
add_test_case(sum_op, _x234, None, True, None, ref=_ref(_pymath.fsum))
# float32 input: finite differences would be meaningless (cast-back of the
# gradient is covered in tests/test_reduce_api.py)
add_test_case(sum_op, _x234.astype(np.float32), (1,), False, 'float64', ref=_ref(_pymath.fsum),
              grad=False)
add_test_case(sum_op, _x234 > 0, (2,), False, None, ref=_ref(builtins.sum, np.int64))
add_test_case(sum_op, _rng.integers(-5, 5, (3, 4)).astype(np.int32), (0,), False, None,
              ref=_ref(builtins.sum, np.int64))
add_test_case(sum_op, _rng.integers(-5, 5, (3, 4)).astype(np.int16), (0,), False, None,
              ref=_ref(builtins.sum, np.int16))
add_test_case(mean_op, _x234, None, False, ref=_ref(statistics.fmean))
add_test_case(mean_op, _x234, (0, 2), False, ref=_ref(statistics.fmean))
add_test_case(mean_op, _x234, (1,), True, ref=_ref(statistics.fmean))
add_test_case(mean_op, np.arange(6).reshape(2, 3), (1,), False,
              ref=_ref(statistics.fmean, np.float32))
for _op, _fn in [(max_op, builtins.max), (min_op, builtins.min),
                 (amax_op, builtins.max), (amin_op, builtins.min)]:
    add_test_case(_op, _x234, None, False, ref=_ref(_fn))
    add_test_case(_op, _x234, (0, 2), True, ref=_ref(_fn))
    add_test_case(_op, _x234, (-2,), False, ref=_ref(_fn))
    add_test_case(_op, np.array([[1, 5, 5], [7, 2, 7]]), (1,), False, ref=_ref(_fn, np.int64))
_pos = _rng.uniform(0.5, 1.5, (2, 3, 4)) * np.sign(_r((2, 3, 4)))
add_test_case(prod_op, _pos, None, False, ref=_ref(_pymath.prod))
add_test_case(prod_op, _pos, (1,), False, ref=_ref(_pymath.prod))
add_test_case(prod_op, _pos, (0, 2), True, ref=_ref(_pymath.prod))
add_test_case(prod_op, np.array([[1, 2, 3], [4, 5, 6]], np.int32), (1,), False,
              ref=_ref(_pymath.prod, np.int32))
for _op, _fn in [(argmax_op, lambda v: v.index(builtins.max(v))),
                 (argmin_op, lambda v: v.index(builtins.min(v)))]:
    add_test_case(_op, _x234, None, False, 'int64', ref=_ref(_fn, np.int64))
    add_test_case(_op, _x234, 1, False, 'int64', ref=_ref(_fn, np.int64))
    add_test_case(_op, _x234, -1, True, 'int32', ref=_ref(_fn, np.int32))
    add_test_case(_op, _x234, None, True, 'int64', ref=_ref(_fn, np.int64))
    add_test_case(_op, np.array([[3, 1, 3], [0, 0, 2]]), 1, False, 'int64',
                  ref=_ref(_fn, np.int64))
add_test_case(logsumexp_op, _x234, None, False, ref=_ref(_lse))
add_test_case(logsumexp_op, _x234 * 30, (1,), False, ref=_ref(_lse))
add_test_case(logsumexp_op, _x234, (0, 2), True, ref=_ref(_lse))
add_test_case(logsumexp_op, np.array([[-np.inf, -np.inf], [0.0, -np.inf]]), (1,), False,
              ref=lambda x, a, k: np.array([-np.inf, 0.0]), grad=False)
for _unbiased in (True, False):
    _c = 1.0 if _unbiased else 0.0
    add_test_case(var_op, _x234, None, False, _c,
                  ref=_ref(lambda v, u=_unbiased: _variance(v, u)))
    add_test_case(var_op, _x234, (1,), True, _c,
                  ref=_ref(lambda v, u=_unbiased: _variance(v, u)))
    add_test_case(std_op, _x234, (0, 2), False, _c,
                  ref=_ref(lambda v, u=_unbiased: _pymath.sqrt(_variance(v, u))))
    add_test_case(std_op, _x234, None, True, _c,
                  ref=_ref(lambda v, u=_unbiased: _pymath.sqrt(_variance(v, u))))
add_test_case(var_op, _x234, (2,), False, 2.5,
              ref=_ref(lambda v: statistics.pvariance(v) * len(v) / (len(v) - 2.5)))
add_test_case(var_op, _r((1, 3)), (0,), False, 1.0,
              ref=lambda x, a, k, u: np.full(3, np.nan), grad=False)
add_test_case(var_op, np.array([1.0, 2.0]), None, False, 3.0,
              ref=lambda x, a, k, u: np.asarray(np.inf), grad=False)
for _op, _fn in [(all_op, builtins.all), (any_op, builtins.any)]:
    _b = _r((3, 4)) > -0.5
    add_test_case(_op, _b, None, False, ref=_ref(_fn, bool))
    add_test_case(_op, _b, (1,), True, ref=_ref(_fn, bool))
    add_test_case(_op, (_r((3, 4)) > 0) * 2.5, (0,), False, ref=_ref(_fn, bool))


# ---- public API (Paddle 2.x names) ---------------------------------------------------

def _shape(x):
    return list(getattr(x, 'shape', np.shape(x)))


def _axes(x, axis, api):
    """A user axis as None (all axes) or a sorted tuple of non-negative ints."""
    if axis is None:
        return None
    if type(axis) is int:            # the common case, kept cheap
        nd = len(x.shape)
        if nd > 1 and -nd <= axis < nd:
            return (axis % nd,)
    if hasattr(axis, 'tolist') and not isinstance(axis, (list, tuple)):
        axis = axis.tolist()      # a Tensor or array holding the axes
    vals = list(axis) if isinstance(axis, (list, tuple)) else [axis]
    if not vals:
        return None                   # Paddle: an empty axis list reduces everything
    shape = _shape(x)
    nd = len(shape)
    try:
        axes = sorted({meta.normalize_axis(_int_axis(a, api), nd) for a in vals})
    except OpError as e:
        raise OpError("%s: %s (input shape %s)" % (api, e, shape)) from None
    if nd == 0 or len(axes) == nd:
        return None
    return tuple(axes)


def _int_axis(a, api):
    if isinstance(a, (bool, float)) or not isinstance(a, (int, np.integer)):
        raise OpError("%s: axis must be an int, a list/tuple of ints or None, got %r"
                      % (api, a))
    return int(a)


def _dtype_str(dtype):
    return None if dtype is None else _dt.dtype_name(dtype)


def sum(x, axis=None, dtype=None, keepdim=False, name=None, *, out=None):  # noqa: A001
    """Sum over ``axis`` (None: all elements, giving a 0-D tensor).

    bool and int32 inputs give int64, as in Paddle.

    >>> import framework as paddle
    >>> x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> paddle.sum(x).item(), paddle.sum(x, axis=1).tolist()
    (10.0, [3.0, 7.0])
    """
    r = sum_op(x, _axes(x, axis, 'sum'), bool(keepdim), _dtype_str(dtype))
    return r if out is None else write_out(out, r)


def mean(x, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """Arithmetic mean over ``axis`` (``dtype``: cast the input first).

    >>> import framework as paddle
    >>> paddle.mean(paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0).tolist()
    [2.0, 3.0]
    """
    if dtype is not None:
        x = lib.cast(x, dtype)
    r = mean_op(x, _axes(x, axis, 'mean'), bool(keepdim))
    return r if out is None else write_out(out, r)


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """Maximum over ``axis``; every tied maximum receives the full gradient."""
    return max_op(x, _axes(x, axis, 'max'), bool(keepdim))


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001
    """Minimum over ``axis``; every tied minimum receives the full gradient."""
    return min_op(x, _axes(x, axis, 'min'), bool(keepdim))


def amax(x, axis=None, keepdim=False, name=None, *, out=None):
    """Maximum over ``axis``; tied maxima share the gradient evenly."""
    r = amax_op(x, _axes(x, axis, 'amax'), bool(keepdim))
    return r if out is None else write_out(out, r)


def amin(x, axis=None, keepdim=False, name=None, *, out=None):
    """Minimum over ``axis``; tied minima share the gradient evenly."""
    r = amin_op(x, _axes(x, axis, 'amin'), bool(keepdim))
    return r if out is None else write_out(out, r)


def prod(x, axis=None, keepdim=False, dtype=None, out=None, name=None):
    """Product over ``axis``; ``dtype`` casts the input first (avoids overflow)."""
    if dtype is not None:
        x = lib.cast(x, dtype)
    r = prod_op(x, _axes(x, axis, 'prod'), bool(keepdim))
    return r if out is None else write_out(out, r)


def _arg(op, api, x, axis, keepdim, dtype):
    d = _dtype_str(dtype)
    if d not in ('int32', 'int64'):
        raise OpError("%s: dtype must be int32 or int64, got %r" % (api, dtype))
    if axis is not None:
        shape = _shape(x)
        try:
            axis = meta.normalize_axis(_int_axis(axis, api), len(shape))
        except OpError as e:
            raise OpError("%s: %s (input shape %s)" % (api, e, shape)) from None
        if not shape:
            axis = None
    return op(x, axis, bool(keepdim), d)


def argmax(x, axis=None, keepdim=False, dtype='int64', name=None):
    """Index of the first maximum along ``axis`` (None: in the flattened tensor).

    >>> import framework as paddle
    >>> paddle.argmax(paddle.to_tensor([[1, 9], [7, 3]]), axis=1).tolist()
    [1, 0]
    """
    return _arg(argmax_op, 'argmax', x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype='int64', name=None):
    """Index of the first minimum along ``axis`` (None: in the flattened tensor)."""
    return _arg(argmin_op, 'argmin', x, axis, keepdim, dtype)


def logsumexp(x, axis=None, keepdim=False, name=None, *, out=None):
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""
    r = logsumexp_op(x, _axes(x, axis, 'logsumexp'), bool(keepdim))
    return r if out is None else write_out(out, r)


def var(x, axis=None, unbiased=None, keepdim=False, name=None, *, correction=1, out=None):
    """Variance over ``axis``: squared deviations divided by n - correction.
    ``unbiased`` is the older spelling (True: correction 1, False: 0); give
    one of the two.

    >>> import framework as paddle
    >>> x = paddle.to_tensor([1.0, 2.0, 4.0])
    >>> round(paddle.var(x).item(), 4), round(paddle.var(x, correction=0).item(), 4)
    (2.3333, 1.5556)
    """
    if unbiased is not None:
        if correction != 1:
            raise ValueError("var: only one of unbiased and correction may be given")
        correction = 1 if unbiased else 0
    r = var_op(x, _axes(x, axis, 'var'), bool(keepdim), float(correction))
    return r if out is None else write_out(out, r)


def std(x, axis=None, unbiased=True, keepdim=False, name=None):
    """Standard deviation over ``axis`` (``unbiased``: divide by n - 1)."""
    return std_op(x, _axes(x, axis, 'std'), bool(keepdim), 1.0 if unbiased else 0.0)


def all(x, axis=None, keepdim=False, name=None, *, out=None):  # noqa: A001
    """True where all elements over ``axis`` are nonzero (bool result)."""
    r = all_op(x, _axes(x, axis, 'all'), bool(keepdim))
    return r if out is None else write_out(out, r)


def any(x, axis=None, keepdim=False, name=None, *, out=None):  # noqa: A001
    """True where any element over ``axis`` is nonzero (bool result)."""
    r = any_op(x, _axes(x, axis, 'any'), bool(keepdim))
    return r if out is None else write_out(out, r)


def _not_nan(x):
    """(x with NaN replaced by 0, bool mask of the non-NaN elements)."""
    keep = _m.logical_not_op(_m.isnan_op(x))
    return lib.where_op(keep, x, 0.0), keep


def nansum(x, axis=None, dtype=None, keepdim=False, name=None):
    """``sum`` treating NaN as 0 (NaN elements get no gradient)."""
    if np.dtype(x.dtype).kind in 'fc':
        x, _ = _not_nan(x)
    return sum(x, axis, dtype, keepdim)


def nanmean(x, axis=None, keepdim=False, name=None):
    """``mean`` over the non-NaN elements (NaN where all are NaN)."""
    if np.dtype(x.dtype).kind not in 'fc':
        return mean(x, axis, keepdim)
    values, keep = _not_nan(x)
    axes = _axes(x, axis, 'nanmean')
    count = sum_op(_m.cast_like(keep, x), axes, bool(keepdim))
    return sum_op(values, axes, bool(keepdim)) / count


def count_nonzero(x, axis=None, keepdim=False, name=None):
    """Number of nonzero elements over ``axis`` (int64)."""
    nonzero = lib.cast(_m.not_equal_op(x, False if np.dtype(x.dtype) == np.bool_ else 0), 'int64')
    return sum_op(nonzero, _axes(x, axis, 'count_nonzero'), bool(keepdim))


def reduce_as(x, target, name=None):
    """Sum ``x`` over the dimensions it was broadcast along, down to
    ``target``'s shape (bool and int32 sum in int64, as ``sum``)."""
    xs, ts = _shape(x), _shape(target)
    try:
        fits = len(ts) <= len(xs) and list(meta.broadcast_shapes(xs, ts)) == xs
    except OpError:
        fits = False
    if not fits:
        raise OpError("reduce_as: x of shape %s cannot be reduced to target's shape %s"
                      % (xs, ts))
    if np.dtype(x.dtype) in _SUM_TO_INT64:
        x = lib.cast(x, 'int64')
    return reduce_as_op(x, target)


def softmax(input, dim=None, dtype=None, *, out=None):  # noqa: A002  (Paddle's names)
    """``exp(x) / sum(exp(x))`` along ``dim`` (``paddle.softmax``; None picks
    0 for 0-, 1- and 3-D input and 1 otherwise, PyTorch's legacy rule);
    ``dtype`` casts the input first."""
    if dim is None:
        dim = 0 if len(input.shape) in (0, 1, 3) else 1
    r = _nn_softmax(input, int(dim), dtype)
    return r if out is None else write_out(out, r)


__all__ = ['sum', 'mean', 'max', 'min', 'amax', 'amin', 'prod', 'argmax', 'argmin',
           'logsumexp', 'var', 'std', 'all', 'any', 'nansum', 'nanmean', 'count_nonzero',
           'reduce_as', 'softmax']

TENSOR_METHODS = {n: globals()[n] for n in __all__}
