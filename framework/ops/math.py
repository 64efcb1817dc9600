"""Elementwise math ops, matrix products and cumulative sums.

Each op sits next to its rules: the numpy kernel, ``infer_meta``, the grad
rule written with registered ops (via Tensor/Variable operators), and where it
pays off a numpy fast grad. Binary ops accept Python scalars as weak operands
(``x * 1.01`` keeps x's dtype, as numpy's NEP 50 promotion does).

Float-valued unary ops (``sqrt``, ``sin``, ``erf`` ...) compute integer and
bool inputs in the default float dtype. Rounding ops (``floor``, ``ceil``,
``round``, ``trunc``) and ``sign`` have a zero gradient, as in Paddle.
"""
import math
from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np

from .. import dtype as _dt
from ..backends import onednn, plain
from ..backends.onednn import binary as dnnl_binary
from ..backends.onednn import layout as dnnl_layout
from ..backends.onednn import matmul as dnnl_matmul
from . import lib, meta, registry
from .grad_utils import is_value, scalar_array, sum_like, ub, wants
from .lowp import float32_compute
from .out_param import write_out
from .properties import flops_per_input_element, per_sample
from .registry import Meta, OpError, add_test_case, def_op

_ndarray = np.ndarray


# ---- binary arithmetic ------------------------------------------------------

@def_op('add', meta.broadcast, save_inputs=False, promote=('x', 'y'), pattern='broadcast',
        ufunc=np.add, identity={'x': 0, 'y': 0}, flops=flops_per_input_element,
        paddle_names=('elementwise_add',))
def add_op(x, y):
    return np.add(x, y)


@add_op.def_grad
def _add_grad(g, x, y, out):
    return sum_like(g, x), sum_like(g, y)


@add_op.def_fast_grad
def _add_fast(g, x, y, out):
    return ub(g, x), ub(g, y)


@add_op.def_onnx
def _add_onnx(g, x, y):
    return g.op('Add', *g.cast_to_output(x, y))


def _same_shape_4d(op, block):
    """The layout pass's condition for add: two NCHW-ranked operands of one
    shape (oneDNN's layouts are per shape; a broadcast add stays on numpy)."""
    x, y = (block._find_var(op.inputs[n][0]) for n in ('x', 'y'))
    return x is not None and y is not None and len(x.shape) == 4 and \
        list(x.shape) == list(y.shape)


@add_op.def_layout_kernel('onednn', takes=('x', 'y'), gives=('out',), applies=_same_shape_4d)
def _add_onednn_layout(x, y, keep):
    """A residual add between oneDNN layouts (float32 addition, as numpy's)."""
    if not (dnnl_layout.takes(x, y) and x is not None and y is not None
            and x.shape == y.shape):
        return NotImplemented
    out = dnnl_binary.forward(onednn.runtime(), onednn.constants.BINARY_ADD, x, y,
                              dnnl_layout.like(x))
    return NotImplemented if out is None else out if 'out' in keep else plain(out)


def _onnx_binary(onnx_type):
    """A broadcasting binary op's lowering (inputs share the output dtype:
    promotion casts them in the Program, divide computes ints as floats)."""
    return lambda g, x, y: g.op(onnx_type, *g.cast_to_output(x, y))


@def_op('subtract', meta.broadcast, save_inputs=False, promote=('x', 'y'), pattern='broadcast',
        ufunc=np.subtract, identity={'y': 0}, flops=flops_per_input_element,
        paddle_names=('elementwise_sub',))
def subtract_op(x, y):
    return np.subtract(x, y)


@subtract_op.def_grad
def _subtract_grad(g, x, y, out):
    return sum_like(g, x), sum_like(-g, y)


@subtract_op.def_fast_grad
def _subtract_fast(g, x, y, out):
    return ub(g, x), (ub(-g, y) if type(y) is _ndarray else None)


subtract_op.def_onnx(_onnx_binary('Sub'))


@def_op('multiply', meta.broadcast, promote=('x', 'y'), pattern='broadcast', ufunc=np.multiply,
        identity={'x': 1, 'y': 1}, flops=flops_per_input_element,
        paddle_names=('elementwise_mul',))
def multiply_op(x, y):
    return np.multiply(x, y)


def _conj(v):
    """The complex conjugate of a complex operand (graph value, array or number);
    real ones unchanged. The gradient of a product is the cotangent times the
    conjugate of the other factor (the convention of ops/complex.py)."""
    if isinstance(v, complex):
        return v.conjugate()
    if not np.dtype(getattr(v, 'dtype', np.float64)).kind == 'c':
        return v
    if type(v) is _ndarray:
        return np.asarray(np.conj(v))   # keep 0-D arrays arrays (the fast paths test the type)
    if isinstance(v, np.generic):
        return np.conj(v)
    return lib.conj_op(v)


@multiply_op.def_grad
def _multiply_grad(g, x, y, out):
    return sum_like(g * _conj(y), x), sum_like(g * _conj(x), y)


@multiply_op.def_fast_grad
def _multiply_fast(g, x, y, out):
    if g.dtype.kind == 'c':
        x, y = _conj(x), _conj(y)
    if type(y) is not _ndarray:          # x * scalar: the common case
        return ub(g * scalar_array(y, g.dtype), x), None
    if type(x) is not _ndarray:
        return None, ub(g * scalar_array(x, g.dtype), y)
    return ub(g * y, x), ub(g * x, y)


multiply_op.def_onnx(_onnx_binary('Mul'))


def _true_divide(x, y):
    out = np.true_divide(x, y)
    if np.asarray(x).dtype.kind in 'biu' and np.asarray(y).dtype.kind in 'biu':
        out = out.astype(_dt.default_float())   # int / int gives the default float
    return out


@def_op('divide', meta.broadcast_float, promote=('x', 'y'), pattern='broadcast',
        ufunc=np.true_divide, ufunc_on='float', identity={'y': 1}, flops=flops_per_input_element,
        paddle_names=('elementwise_div',))
def divide_op(x, y):
    return _true_divide(x, y)


@divide_op.def_grad
def _divide_grad(g, x, y, out):
    gx = g / _conj(y)
    return sum_like(gx, x), sum_like(-gx * _conj(out), y)


@divide_op.def_fast_grad
def _divide_fast(g, x, y, out):
    if g.dtype.kind == 'c':
        y, out = _conj(y), _conj(out)
    gx = g / (y if type(y) is _ndarray else scalar_array(y, g.dtype))
    return ub(gx, x), (ub(-gx * out, y) if type(y) is _ndarray else None)


divide_op.def_onnx(_onnx_binary('Div'))


@def_op('floor_divide', meta.broadcast, differentiable=False, promote=('x', 'y'),
        pattern='broadcast', ufunc=np.floor_divide, identity=None, flops=flops_per_input_element,
        paddle_names=('elementwise_floordiv',))
def floor_divide_op(x, y):
    return np.floor_divide(x, y)


@floor_divide_op.def_onnx
def _floor_divide_onnx(g, x, y):
    if g.meta(x).dtype.kind == 'f':
        return g.op('Floor', g.op('Div', x, y))
    # ints: ONNX's Div truncates; x - mod(x, y) (Python's modulo) divides exactly
    return g.op('Div', g.op('Sub', x, g.op('Mod', x, y, fmod=0)), y)


def _trunc_divide(x, y):
    if x.dtype.kind in 'fc':
        with np.errstate(divide='ignore', invalid='ignore'):
            return np.trunc(np.true_divide(x, y)).astype(x.dtype, copy=False)
    q = np.floor_divide(x, y)
    # floor and trunc differ when the quotient is negative and inexact
    return q + ((q < 0) & (q * y != x)).astype(q.dtype)


trunc_divide_op = def_op('trunc_divide', meta.broadcast, inputs=('x', 'y'), attrs={},
                         differentiable=False, promote=('x', 'y'), pattern='broadcast',
                         ufunc=None, identity=None, flops=None)(_trunc_divide)
trunc_divide_op.doc = "The quotient rounded toward zero (``divide(rounding_mode='trunc')``)."


@trunc_divide_op.def_onnx
def _trunc_divide_onnx(g, x, y):
    q = g.op('Div', x, y)        # ints: ONNX's Div truncates already
    return onnx_trunc(g, q, g.meta(x).dtype) if g.meta(x).dtype.kind == 'f' else q


def onnx_trunc(g, x, dtype):
    """Rounding toward zero of a ``dtype`` value (ONNX has Floor and Ceil only)."""
    return g.op('Where', g.op('Less', x, g.scalar(0, dtype)), g.op('Ceil', x), g.op('Floor', x))


@def_op('remainder', meta.broadcast, promote=('x', 'y'), pattern='broadcast', ufunc=None,
        identity=None, flops=flops_per_input_element, paddle_names=('elementwise_mod',))
def remainder_op(x, y):
    return np.remainder(x, y)


@remainder_op.def_grad
def _remainder_grad(g, x, y, out):
    return sum_like(g, x), sum_like(-g * floor_divide_op(x, y), y)


@remainder_op.def_onnx
def _remainder_onnx(g, x, y):
    if g.meta(x).dtype.kind == 'f':      # Python's modulo: the sign of the divisor
        return g.op('Sub', x, g.op('Mul', g.op('Floor', g.op('Div', x, y)), y))
    return g.op('Mod', x, y, fmod=0)


@def_op('elementwise_pow', meta.broadcast, promote=('x', 'y'), pattern='broadcast',
        ufunc=np.power, ufunc_on='float', identity={'y': 1}, flops=flops_per_input_element,
        paddle_names=('pow',), amp='black')
def pow_op(x, y):
    return np.power(x, y)


@pow_op.def_grad
def _pow_grad(g, x, y, out):
    gx = sum_like(g * y * pow_op(x, y - 1), x)
    gy = sum_like(g * out * log_op(x), y) if is_value(y) else None
    return gx, gy


@pow_op.def_fast_grad
def _pow_fast(g, x, y, out):
    gx = ub(g * y * np.power(x, y - 1), x) if type(x) is _ndarray else None
    gy = ub(g * out * np.log(x), y) if type(y) is _ndarray else None
    return gx, gy


pow_op.def_onnx(_onnx_binary('Pow'))


@def_op('maximum', meta.broadcast, promote=('x', 'y'), pattern='broadcast', ufunc=np.maximum,
        identity=None, flops=flops_per_input_element, paddle_names=('elementwise_max',))
def maximum_op(x, y):
    return np.maximum(x, y)


@maximum_op.def_grad
def _maximum_grad(g, x, y, out):
    mask = cast_like(greater_equal_op(x, y), g)
    return sum_like(g * mask, x), sum_like(g * (1 - mask), y)


@maximum_op.def_fast_grad
def _maximum_fast(g, x, y, out):
    gx = g * (x >= y)
    return ub(gx, x), ub(g - gx, y)


maximum_op.def_onnx(_onnx_binary('Max'))


@def_op('minimum', meta.broadcast, promote=('x', 'y'), pattern='broadcast', ufunc=np.minimum,
        identity=None, flops=flops_per_input_element, paddle_names=('elementwise_min',))
def minimum_op(x, y):
    return np.minimum(x, y)


@minimum_op.def_grad
def _minimum_grad(g, x, y, out):
    mask = cast_like(less_equal_op(x, y), g)
    return sum_like(g * mask, x), sum_like(g * (1 - mask), y)


@minimum_op.def_fast_grad
def _minimum_fast(g, x, y, out):
    gx = g * (x <= y)
    return ub(gx, x), ub(g - gx, y)


minimum_op.def_onnx(_onnx_binary('Min'))


def _lerp_meta(x, y, weight):
    shape = meta.broadcast_shapes(meta.shape_of(x), meta.shape_of(y), 'x and y')
    shape = meta.broadcast_shapes(shape, meta.shape_of(weight), '(x, y) and weight')
    return Meta(shape, meta.result_dtype(x, y, weight))


@def_op('lerp', _lerp_meta, promote=('x', 'y', 'weight'), pattern='broadcast', ufunc=None,
        identity=None, flops=None)
def lerp_op(x, y, weight):
    """``x + weight * (y - x)``; ``weight`` is a tensor or a Python float."""
    return x + weight * (y - x)


@lerp_op.def_grad
def _lerp_grad(g, x, y, weight, out):
    gy = g * weight
    return sum_like(g - gy, x), sum_like(gy, y), sum_like(g * (y - x), weight)


@lerp_op.def_fast_grad
def _lerp_fast(g, x, y, weight, out):
    gy = g * weight
    gw = ub(g * (y - x), weight) if type(weight) is _ndarray else None
    return ub(g - gy, x), ub(gy, y), gw


@lerp_op.def_onnx
def _lerp_onnx(g, x, y, weight):
    x, y, weight = g.cast_to_output(x, y, weight)
    return g.op('Add', x, g.op('Mul', weight, g.op('Sub', y, x)))


def _add_n_meta(xs):
    if not xs:
        raise OpError("inputs must be a non-empty list of tensors")
    shape = meta.shape_of(xs[0])
    for m in xs[1:]:
        shape = meta.broadcast_shapes(shape, meta.shape_of(m), 'inputs')
    return Meta(shape, meta.result_dtype(*xs))


@def_op('add_n', _add_n_meta, inputs=('inputs*',), attrs={}, save_inputs=False,
        promote=('inputs',), pattern='opaque', fresh=True)
def add_n_op(inputs):
    """Sum of a list of tensors."""
    if len(inputs) == 1:
        return np.array(inputs[0], copy=True)
    out = np.add(inputs[0], inputs[1])
    for x in inputs[2:]:
        if type(x) is _ndarray and x.shape == out.shape and x.dtype == out.dtype:
            out += x     # out is our own buffer
        else:
            out = out + x
    return out


add_n_op.def_onnx(lambda g, inputs: g.op('Sum', *g.cast_to_output(*inputs)))


@add_n_op.def_grad
def _add_n_grad(g, inputs, out):
    return [sum_like(g, x) for x in inputs]


@add_n_op.def_fast_grad
def _add_n_fast(g, inputs, out):
    return [ub(g, x) for x in inputs]


# ---- comparisons, logic and bit ops (no gradient) ---------------------------

def _no_grad_binary(name, ufunc, infer=meta.compare, promote=('x', 'y')):
    """Comparisons and bit ops compute in the promoted dtype; logical ops
    only look at truth values, so they take their inputs as they are. The
    kernel is ``ufunc`` itself (Paddle counts no FLOPs for these)."""
    return def_op(name, infer, inputs=('x', 'y'), attrs={}, differentiable=False,
                  promote=promote, pattern='broadcast', ufunc=ufunc, identity=None,
                  flops=None)(lambda x, y: ufunc(x, y))


def _no_grad_unary(name, ufunc, infer=meta.logical_unary):
    return def_op(name, infer, inputs=('x',), attrs={}, differentiable=False,
                  pattern='elementwise', ufunc=ufunc, flops=None)(lambda x: ufunc(x))


equal_op = _no_grad_binary('equal', np.equal)
not_equal_op = _no_grad_binary('not_equal', np.not_equal)
less_than_op = _no_grad_binary('less_than', np.less)
less_equal_op = _no_grad_binary('less_equal', np.less_equal)
greater_than_op = _no_grad_binary('greater_than', np.greater)
greater_equal_op = _no_grad_binary('greater_equal', np.greater_equal)
logical_and_op = _no_grad_binary('logical_and', np.logical_and, promote=())
logical_or_op = _no_grad_binary('logical_or', np.logical_or, promote=())
logical_xor_op = _no_grad_binary('logical_xor', np.logical_xor, promote=())
logical_not_op = _no_grad_unary('logical_not', np.logical_not)
isnan_op = _no_grad_unary('isnan', np.isnan)
isinf_op = _no_grad_unary('isinf', np.isinf)
isfinite_op = _no_grad_unary('isfinite', np.isfinite)


def _onnx_compare(onnx_type, negate=False):
    """A comparison's lowering: its inputs already share one dtype (promotion
    casts them in the Program)."""
    def lower(g, x, y):
        out = g.op(onnx_type, x, y)
        return g.op('Not', out) if negate else out
    return lower


def _as_bool(g, x):
    """Logical ops look at truth values: a non-bool input is cast."""
    return x if g.meta(x).dtype == np.bool_ else g.op('Cast', x, to=g.tensor_type(np.bool_))


def _onnx_logical(onnx_type):
    return lambda g, x, y: g.op(onnx_type, _as_bool(g, x), _as_bool(g, y))


for _op, _lower in ((equal_op, _onnx_compare('Equal')),
                    (not_equal_op, _onnx_compare('Equal', negate=True)),
                    (less_than_op, _onnx_compare('Less')),
                    (less_equal_op, _onnx_compare('LessOrEqual')),
                    (greater_than_op, _onnx_compare('Greater')),
                    (greater_equal_op, _onnx_compare('GreaterOrEqual')),
                    (logical_and_op, _onnx_logical('And')),
                    (logical_or_op, _onnx_logical('Or')),
                    (logical_xor_op, _onnx_logical('Xor'))):
    _op.def_onnx(_lower)
logical_not_op.def_onnx(lambda g, x: g.op('Not', _as_bool(g, x)))
isnan_op.def_onnx(lambda g, x: g.op('IsNaN', x))
isinf_op.def_onnx(lambda g, x: g.op('IsInf', x))
isfinite_op.def_onnx(lambda g, x: g.op('Not', g.op('Or', g.op('IsNaN', x), g.op('IsInf', x))))


def _check_bit_dtypes(*ms):
    for m in ms:
        if meta.is_scalar(m):
            if isinstance(m, float):
                raise OpError("bitwise ops need integer or bool operands, got the float %r" % m)
        elif np.dtype(m.dtype).kind not in 'biu':
            raise OpError("bitwise ops need integer or bool tensors, got dtype %s (shape %s)"
                          % (np.dtype(m.dtype), list(meta.shape_of(m))))


def _bitwise_meta(x, y):
    _check_bit_dtypes(x, y)
    return meta.broadcast(x, y)


def _bitwise_not_meta(x):
    _check_bit_dtypes(x)
    return meta.unchanged(x)


bitwise_and_op = _no_grad_binary('bitwise_and', np.bitwise_and, _bitwise_meta)
bitwise_or_op = _no_grad_binary('bitwise_or', np.bitwise_or, _bitwise_meta)
bitwise_xor_op = _no_grad_binary('bitwise_xor', np.bitwise_xor, _bitwise_meta)
bitwise_not_op = _no_grad_unary('bitwise_not', np.invert, _bitwise_not_meta)


def _onnx_bitwise(onnx_type, logical):
    """Bitwise ops: ONNX's Bitwise* (opset 18); bools as the logical ops."""
    def lower(g, *xs):
        if g.meta(xs[0]).dtype == np.bool_:
            return g.op(logical, *xs)
        if g.opset < 18:
            raise OpError("%s on integers needs opset_version >= 18 (ONNX's %s), got %d"
                          % (g.current_op.type, onnx_type, g.opset))
        return g.op(onnx_type, *xs)
    return lower


for _op, _types in ((bitwise_and_op, ('BitwiseAnd', 'And')), (bitwise_or_op, ('BitwiseOr', 'Or')),
                    (bitwise_xor_op, ('BitwiseXor', 'Xor')),
                    (bitwise_not_op, ('BitwiseNot', 'Not'))):
    _op.def_onnx(_onnx_bitwise(*_types))


# ---- unary ------------------------------------------------------------------

def unary(name, kernel, grad, fast_grad=None, infer=meta.unchanged, **properties):
    """Declare a one-input elementwise op. ``grad(g, x, out)``;
    ``fast_grad='same'`` reuses a grad rule that only uses arithmetic
    operators (valid on arrays too). Its ufunc: the kernel itself when it is
    one, else what it is on float arrays (``float_kernel``) when that is one."""
    on_float = getattr(kernel, 'float_kernel', None)
    if isinstance(kernel, np.ufunc):
        properties.setdefault('ufunc', kernel)
    elif isinstance(on_float, np.ufunc):
        properties.setdefault('ufunc', on_float)
        properties.setdefault('ufunc_on', 'float')
    properties.setdefault('ufunc', None)
    op = def_op(name, infer, inputs=('x',), attrs={}, pattern='elementwise', flops=None,
                **properties)(kernel)
    op.def_grad(grad)
    if fast_grad == 'same':
        fast_grad = grad
    op.fast_grad = fast_grad
    return op


def _float_meta(x, *attrs):
    """Same shape; integer/bool inputs give the default float dtype."""
    d = np.dtype(meta.dtype_of(x)) if not meta.is_scalar(x) else np.dtype(float)
    return Meta(meta.shape_of(x), d if _dt.is_inexact(d) else _dt.default_float())


def _floating(fn):
    """A kernel applying ``fn`` in floating point: integer and bool inputs are
    computed in the default float dtype (numpy would pick float64)."""
    def kernel(x):
        if type(x) is not _ndarray:
            x = np.asarray(x)
        if x.dtype.kind not in 'fc' and not _dt.is_bfloat16(x.dtype):
            x = x.astype(_dt.default_float())
        return fn(x)
    kernel.__name__ = getattr(fn, '__name__', 'kernel')
    # what the kernel is on a float array: the static code generator calls it
    # directly where the Program's dtypes prove the input float (graph/lean.py)
    kernel.float_kernel = fn
    return kernel


def float_unary(name, fn, grad, fast_grad=None, **properties):
    """A one-input op whose result is floating point (see ``_floating``)."""
    return unary(name, _floating(fn), grad, fast_grad, _float_meta, **properties)


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0

neg_op = unary('neg', np.negative, lambda g, x, out: -g, 'same')
tanh_op = float_unary('tanh', np.tanh, lambda g, x, out: g * (1 - out * out), 'same')
exp_op = float_unary('exp', np.exp, lambda g, x, out: g * out, 'same', amp='black')
log_op = float_unary('log', np.log, lambda g, x, out: g / x, 'same', amp='black')
log1p_op = float_unary('log1p', np.log1p, lambda g, x, out: g / (x + 1), 'same')
log2_op = float_unary('log2', np.log2, lambda g, x, out: g / (x * _LN2), 'same', amp='black')
log10_op = float_unary('log10', np.log10, lambda g, x, out: g / (x * _LN10), 'same', amp='black')
sqrt_op = float_unary('sqrt', np.sqrt, lambda g, x, out: g * 0.5 / out, 'same')
square_op = unary('square', np.square, lambda g, x, out: g * 2 * x, 'same', amp='black')
reciprocal_op = float_unary('reciprocal', np.reciprocal,
                            lambda g, x, out: -g * out * out, 'same', amp='black')
tan_op = float_unary('tan', np.tan, lambda g, x, out: g * (1 + out * out), 'same', amp='black')
atan_op = float_unary('atan', np.arctan, lambda g, x, out: g / (1 + x * x), 'same')


def _rsqrt(x):
    out = np.sqrt(x)
    if out.ndim == 0:     # numpy returns a scalar for a 0-d input: no buffer to reuse
        return np.divide(1, out)
    return np.divide(1, out, out=out)


rsqrt_op = float_unary('rsqrt', _rsqrt, lambda g, x, out: g * -0.5 * out * out * out, 'same',
                       amp='black')


def _exp_(a):
    """``exp`` in place, overflowing to inf without a warning."""
    return np.exp(a, out=a)


if np.lib.NumpyVersion(np.__version__) >= '2.0.0':
    # numpy 2's errstate decorator keeps its state per call (numpy 1's would
    # share it between threads) and costs half a ``with np.errstate`` block
    _exp_overflowing_ = np.errstate(over='ignore')(_exp_)
else:
    def _exp_overflowing_(a):
        with np.errstate(over='ignore'):
            return _exp_(a)


def _sigmoid(x):
    # 1 / (1 + e^-x), in place. Relative precision holds wherever the result
    # is a normal float; e^-x overflowing to inf (x below about -88 in float32)
    # gives 0 where the true value is subnormal.
    if x.ndim == 0:      # the in-place steps below need an array, not a scalar
        return _sigmoid(x.reshape(1)).reshape(())
    out = _exp_overflowing_(np.negative(x))
    out += 1
    return np.divide(1, out, out=out)


def _sigmoid_grad(g, x, out):
    return g * out * (1 - out)


sigmoid_op = float_unary('sigmoid', _sigmoid, _sigmoid_grad, 'same')

sin_op = float_unary('sin', np.sin, lambda g, x, out: g * cos_op(x),
                     lambda g, x, out: g * np.cos(x))
cos_op = float_unary('cos', np.cos, lambda g, x, out: -g * sin_op(x),
                     lambda g, x, out: -g * np.sin(x))
sinh_op = float_unary('sinh', np.sinh, lambda g, x, out: g * cosh_op(x),
                      lambda g, x, out: g * np.cosh(x), amp='black')
cosh_op = float_unary('cosh', np.cosh, lambda g, x, out: g * sinh_op(x),
                      lambda g, x, out: g * np.sinh(x), amp='black')
asin_op = float_unary('asin', np.arcsin, lambda g, x, out: g / sqrt_op(1 - x * x),
                      lambda g, x, out: g / np.sqrt(1 - x * x), amp='black')
acos_op = float_unary('acos', np.arccos, lambda g, x, out: -g / sqrt_op(1 - x * x),
                      lambda g, x, out: -g / np.sqrt(1 - x * x), amp='black')
abs_op = unary('abs', np.abs, lambda g, x, out: g * sign_op(x),
               lambda g, x, out: g * np.sign(x))


# ---- erf and erfinv ---------------------------------------------------------
# W. J. Cody, "Rational Chebyshev approximations for the error function",
# Math. Comp. 23 (1969) 631-637: erf(x) = x R1(x^2) for |x| <= 0.46875,
# erfc(x) = exp(-x^2) R2(x) for |x| <= 4 and
# erfc(x) = exp(-x^2) / x (1/sqrt(pi) + R3(1/x^2) / x^2) beyond (the published
# double-precision coefficient sets, numerator and denominator, low degree
# first; the leading denominator coefficient is 1). Max relative error against
# math.erf is below 5e-16 (see tests/test_math_api.py).
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
          3.20937758913846947e03, 1.85777706184603153e-1)
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
          2.84423683343917062e03)
_ERF_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
          2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
          2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_ERF_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
          1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
          3.43936767414372164e03, 1.23033935480374942e03)
_ERF_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
          1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_ERF_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1,
          6.05183413124413191e-2, 2.33520497626869185e-3)
_RSQRT_PI = 1.0 / math.sqrt(math.pi)


def _cody_rational(t, num, den):
    """Cody's nested form: num[-1] is the highest numerator coefficient
    (applied first), num[-2] the constant term; den is monic. In place."""
    n = t * num[-1]
    for a in num[:-2]:
        n += a
        n *= t
    n += num[-2]
    d = t + den[0]
    for b in den[1:]:
        d *= t
        d += b
    n /= d
    return n


def _erf(x):
    """Vectorised erf to ~1 ulp in float64 (float32 stays float32)."""
    if x.ndim == 0:      # the in-place steps below need an array, not a scalar
        return _erf(x.reshape(1)).reshape(())
    t = x * x
    y = np.abs(x)
    near = y <= 0.46875
    if near.all():
        return x * _cody_rational(t, _ERF_A, _ERF_B)
    # both main ranges on every element, then select: boolean gathers and
    # scatters cost more than the arithmetic they would save. Rounding of x*x
    # costs < 1e-17 absolute in the mid range, so exp needs no argument splitting.
    small = x * _cody_rational(np.minimum(t, 1.0), _ERF_A, _ERF_B)   # (inf/inf)
    r = _cody_rational(np.minimum(y, 4.0), _ERF_C, _ERF_D)
    np.negative(t, out=t)
    np.exp(t, out=t)
    r *= t
    np.subtract(1.0, r, out=r)
    np.copysign(r, x, out=r)
    r = np.where(near, small, r)
    far = y > 4.0
    if far.any():
        yf = np.minimum(y[far], 30.0)   # erfc underflows to 0 long before 30
        z = 1.0 / (yf * yf)
        erfc = np.exp(-yf * yf) * (_RSQRT_PI - z * _cody_rational(z, _ERF_P, _ERF_Q)) / yf
        r[far] = np.copysign(1.0 - erfc, x[far])
    return r


def _erfinv(y):
    """Inverse erf: Winitzki's closed form (a = 0.147, relative error < 2e-3)
    refined by Halley steps on erf (cubic convergence: 3 steps reach float64).
    Computed in float64 whatever y's float dtype: near +-1 a step divides
    erf's rounding error by its tiny slope, which float32 would feel."""
    if y.dtype != np.float64:
        return _erfinv(y.astype(np.float64)).astype(y.dtype)
    if y.ndim == 0:
        return _erfinv(y.reshape(1)).reshape(())
    a = 0.147
    with np.errstate(divide='ignore', invalid='ignore'):
        ln = np.log1p(-y * y)
        b = 2.0 / (math.pi * a) + 0.5 * ln
        x = np.copysign(np.sqrt(np.sqrt(b * b - ln / a) - b), y)
        edge = np.abs(y) >= 1
        x[edge] = 0.0
        for _ in range(3):
            f = _erf(x) - y
            step = f / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
            x -= step / (1.0 + x * step)
        if edge.any():   # +-1 -> +-inf, beyond -> nan
            x[edge] = np.where(np.abs(y[edge]) == 1, np.copysign(np.inf, y[edge]), np.nan)
    return x


# half precision in float32: Cody's rational terms overflow float16
erf_op = float_unary('erf', float32_compute(_erf),
                     lambda g, x, out: g * _TWO_OVER_SQRT_PI * exp_op(-(x * x)),
                     lambda g, x, out: g * _TWO_OVER_SQRT_PI * np.exp(-(x * x)))
erfinv_op = float_unary('erfinv', _erfinv,
                        lambda g, x, out: g * _SQRT_PI_OVER_TWO * exp_op(out * out),
                        lambda g, x, out: g * _SQRT_PI_OVER_TWO * np.exp(out * out), amp='black')


# ---- rounding and sign: zero gradient (as Paddle) ----------------------------

def _zero_grad(g, *args):
    return lib.zeros_like(g)


def _zero_fast(g, *args):
    return np.zeros_like(g)


def _int_identity(fn):
    """Rounding kernel: integer tensors are already integral (numpy's floor of
    an int array would return float64)."""
    def kernel(x):
        if x.dtype.kind in 'iub':
            return x.copy()
        return fn(x)
    kernel.__name__ = getattr(fn, '__name__', 'kernel')
    # what the kernel is on a float array: the static code generator calls it
    # directly where the Program's dtypes prove the input float (graph/lean.py)
    kernel.float_kernel = fn
    return kernel


floor_op = unary('floor', _int_identity(np.floor), _zero_grad, _zero_fast)
ceil_op = unary('ceil', _int_identity(np.ceil), _zero_grad, _zero_fast)
trunc_op = unary('trunc', _int_identity(np.trunc), _zero_grad, _zero_fast)
sign_op = unary('sign', np.sign, _zero_grad, _zero_fast)


def _onnx_unary(*onnx_types):
    """A one-input op's lowering as a chain of ONNX ops (ints computed as
    floats are cast first, as the kernel does)."""
    def lower(g, x):
        x, = g.cast_to_output(x)
        for t in onnx_types:
            x = g.op(t, x)
        return x
    return lower


def _onnx_log_base(base):
    return lambda g, x: g.op('Div', g.op('Log', *g.cast_to_output(x)),
                             g.scalar(math.log(base), g.out_meta().dtype))


def _onnx_int_identity(onnx_type):
    """floor/ceil/trunc: ints are returned as they are."""
    def lower(g, x):
        if g.meta(x).dtype.kind in 'iub':
            return g.op('Identity', x)
        return onnx_trunc(g, x, g.meta(x).dtype) if onnx_type is None else g.op(onnx_type, x)
    return lower


for _op, _lower in (
        (neg_op, _onnx_unary('Neg')), (tanh_op, _onnx_unary('Tanh')),
        (exp_op, _onnx_unary('Exp')), (log_op, _onnx_unary('Log')),
        (sqrt_op, _onnx_unary('Sqrt')), (reciprocal_op, _onnx_unary('Reciprocal')),
        (tan_op, _onnx_unary('Tan')), (atan_op, _onnx_unary('Atan')),
        (rsqrt_op, _onnx_unary('Sqrt', 'Reciprocal')), (sigmoid_op, _onnx_unary('Sigmoid')),
        (sin_op, _onnx_unary('Sin')), (cos_op, _onnx_unary('Cos')),
        (sinh_op, _onnx_unary('Sinh')), (cosh_op, _onnx_unary('Cosh')),
        (asin_op, _onnx_unary('Asin')), (acos_op, _onnx_unary('Acos')),
        (abs_op, _onnx_unary('Abs')), (erf_op, _onnx_unary('Erf')),
        (sign_op, _onnx_unary('Sign')),
        (log2_op, _onnx_log_base(2.0)), (log10_op, _onnx_log_base(10.0)),
        (floor_op, _onnx_int_identity('Floor')), (ceil_op, _onnx_int_identity('Ceil')),
        (trunc_op, _onnx_int_identity(None))):
    _op.def_onnx(_lower)
square_op.def_onnx(lambda g, x: g.op('Mul', x, x))
log1p_op.def_onnx(lambda g, x: g.op('Log', g.op('Add', *g.cast_to_output(x),
                                                g.scalar(1, g.out_meta().dtype))))


@def_op('round', meta.unchanged, pattern='elementwise', ufunc=None, flops=None)
def round_op(x, decimals=0):
    # halves to even, as Paddle 3.3.1 rounds on CPU (round(-0.5) == -0.0,
    # round(2.5) == 2.0, measured) and numpy's rint does
    if x.dtype.kind in 'iub':
        return x.copy()
    if not decimals:
        return np.rint(x)
    s = 10.0 ** decimals
    return (np.rint(x * s) / s).astype(x.dtype, copy=False)


round_op.def_grad(_zero_grad)
round_op.def_fast_grad(_zero_fast)


@round_op.def_onnx
def _round_onnx(g, x, decimals):
    if g.meta(x).dtype.kind in 'iub':
        return g.op('Identity', x)
    dtype = g.meta(x).dtype
    s = g.scalar(10.0 ** decimals, dtype)
    y = g.op('Mul', x, s) if decimals else x
    y = g.op('Round', y)           # halves to even, as the kernel
    return g.op('Div', y, s) if decimals else y


# ---- unary ops with attributes -----------------------------------------------

@def_op('clip', meta.unchanged, attr_types={'min': 'float|None', 'max': 'float|None'},
        pattern='elementwise', ufunc=None, flops=None)
def clip_op(x, min=None, max=None):  # noqa: A002  (Paddle's attribute names)
    if min is None and max is None:
        return x.copy()
    out = np.clip(x, min, max)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


@clip_op.def_grad
def _clip_grad(g, x, out, min, max):  # noqa: A002
    # Paddle passes the gradient strictly inside (min, max)
    mask = None
    if min is not None:
        mask = greater_than_op(x, min)
    if max is not None:
        below = less_than_op(x, max)
        mask = below if mask is None else logical_and_op(mask, below)
    return g if mask is None else g * cast_like(mask, g)


@clip_op.def_fast_grad
def _clip_fast(g, x, out, min, max):  # noqa: A002
    if min is not None:
        g = g * (x > min)
    if max is not None:
        g = g * (x < max)
    return g


@clip_op.def_onnx
def _clip_onnx(g, x, min, max):  # noqa: A002
    return g.op('Clip', x, None if min is None else g.scalar(min, x),
                None if max is None else g.scalar(max, x))


@def_op('scale', meta.unchanged, save_inputs=False, pattern='elementwise', ufunc=None, flops=None,
        passthrough=('x', lambda a: float(a['scale']) == 1.0 and float(a['bias']) == 0.0))
def scale_op(x, scale=1.0, bias=0.0, bias_after_scale=True):
    if bias_after_scale:
        out = x * scale
        if bias:
            out = out + bias
    else:
        out = (x + bias) * scale
    return out if out.dtype == x.dtype else out.astype(x.dtype)


@scale_op.def_grad
def _scale_grad(g, x, out, scale, bias, bias_after_scale):
    return scale_op(g, scale, 0.0, True)


@scale_op.def_fast_grad
def _scale_fast(g, x, out, scale, bias, bias_after_scale):
    return g * scale


@scale_op.def_onnx
def _scale_onnx(g, x, scale, bias, bias_after_scale):
    dtype = g.meta(x).dtype
    if not bias_after_scale and bias:
        x = g.op('Add', x, g.scalar(bias, dtype))
    if scale != 1.0:
        x = g.op('Mul', x, g.scalar(scale, dtype))
    if bias_after_scale and bias:
        x = g.op('Add', x, g.scalar(bias, dtype))
    return g.op('Identity', x) if scale == 1.0 and not bias else x


@def_op('stanh', _float_meta, pattern='elementwise', ufunc=None, flops=None)
@float32_compute
def stanh_op(x, scale_a=0.67, scale_b=1.7159):
    """``scale_b * tanh(scale_a * x)``."""
    if x.dtype.kind not in 'fc':
        x = x.astype(_dt.default_float())
    out = np.tanh(x * scale_a)
    out *= scale_b
    return out


@stanh_op.def_grad
def _stanh_grad(g, x, out, scale_a, scale_b):
    t = out * (1.0 / scale_b)
    return g * (scale_a * scale_b) * (1 - t * t)


stanh_op.def_fast_grad(_stanh_grad)


@stanh_op.def_onnx
def _stanh_onnx(g, x, scale_a, scale_b):
    x, = g.cast_to_output(x)
    dtype = g.meta(x).dtype
    return g.op('Mul', g.op('Tanh', g.op('Mul', x, g.scalar(scale_a, dtype))),
                g.scalar(scale_b, dtype))


@def_op('logit', _float_meta, attr_types={'eps': 'float|None'}, pattern='elementwise',
        ufunc=None, flops=None)
@float32_compute
def logit_op(x, eps=None):
    """``log(x / (1 - x))``, with x clipped to [eps, 1 - eps] when eps is set."""
    if x.dtype.kind not in 'fc':
        x = x.astype(_dt.default_float())
    if eps is not None:
        x = np.clip(x, eps, 1.0 - eps)
    return np.log(x / (1 - x))


@logit_op.def_grad
def _logit_grad(g, x, out, eps):
    gx = g / (x * (1 - x))
    if eps is None:
        return gx
    inside = logical_and_op(greater_equal_op(x, eps), less_equal_op(x, 1.0 - eps))
    return gx * cast_like(inside, gx)


@logit_op.def_fast_grad
def _logit_fast(g, x, out, eps):
    gx = g / (x * (1 - x))
    if eps is not None:
        gx = gx * ((x >= eps) & (x <= 1.0 - eps))
    return gx


@logit_op.def_onnx
def _logit_onnx(g, x, eps):
    x, = g.cast_to_output(x)
    dtype = g.meta(x).dtype
    if eps is not None:
        x = g.op('Clip', x, g.scalar(eps, dtype), g.scalar(1.0 - eps, dtype))
    return g.op('Log', g.op('Div', x, g.op('Sub', g.scalar(1, dtype), x)))


def cast_like(x, like):
    """``x`` cast to the dtype of ``like`` (used by grad rules for masks)."""
    return lib.cast(x, like.dtype)


# ---- matrix products ----------------------------------------------------------

def _swap_last(shape):
    return shape[:-2] + [shape[-1], shape[-2]]


def _matmul_meta(x, y, transpose_x=False, transpose_y=False):
    xs, ys = list(meta.shape_of(x)), list(meta.shape_of(y))
    if not xs or not ys:
        raise OpError("both inputs must be at least 1-D, got x shape %s and y shape %s"
                      % (xs, ys))
    # 1-D operands follow numpy: x is a row vector, y a column vector, and
    # transposing them is a no-op (as in Paddle)
    xe = [1] + xs if len(xs) == 1 else (_swap_last(xs) if transpose_x else xs)
    ye = ys + [1] if len(ys) == 1 else (_swap_last(ys) if transpose_y else ys)
    k1, k2 = xe[-1], ye[-2]
    if k1 != k2 and k1 != -1 and k2 != -1:
        raise OpError(
            "the inner dimensions do not match: x shape %s%s and y shape %s%s (%d != %d)"
            % (xs, ' (transposed)' if transpose_x and len(xs) > 1 else '',
               ys, ' (transposed)' if transpose_y and len(ys) > 1 else '', k1, k2))
    out = list(meta.broadcast_shapes(xe[:-2], ye[:-2], 'batch dimensions of x and y'))
    if len(xs) > 1:
        out.append(xe[-2])
    if len(ys) > 1:
        out.append(ye[-1])
    return Meta(out, meta.same_dtype('matmul', ('x', 'y'), x, y))


def _matmul_flops(ins, outs, attrs):
    """Paddle's count: the rows of y times the output's elements per sample."""
    return ins['y'][0] * per_sample(outs['out'])


@def_op('matmul', _matmul_meta, pattern='opaque', fresh=True, amp='white',
        paddle_names=('matmul_v2',), flops=_matmul_flops)
@float32_compute
def matmul_op(x, y, transpose_x=False, transpose_y=False):
    """Matrix product with numpy semantics (1-D operands, batch broadcasting)."""
    if x.dtype is not y.dtype:
        meta.same_dtype('matmul', ('x', 'y'), x, y)
    if transpose_x and x.ndim > 1:
        x = x.swapaxes(-1, -2)
    if transpose_y and y.ndim > 1:
        y = y.swapaxes(-1, -2)
    return _matmul_flat(x, y)


def _matmul_flat(x, y):
    """``np.matmul``; a stack of matrices times one matrix runs as a single
    2-D product (numpy's matmul would call BLAS once per matrix of the stack)."""
    if x.ndim > 2 and y.ndim == 2:
        return np.matmul(_rows(x), y).reshape(x.shape[:-1] + y.shape[-1:])
    return np.matmul(x, y)


def _rows(a):
    """``a`` as a 2-D array of its last-axis rows (a view when contiguous)."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


def onednn_product(a, b, bias=None):
    """``a @ b (+ bias)`` on oneDNN for 2-D float32 operands (any strides)
    large enough to pay its call, else None: the caller runs numpy."""
    if a.ndim != 2 or b.ndim != 2 or not dnnl_layout.takes(a, b, bias) or \
            a.shape[1] != b.shape[0] or not dnnl_matmul.large_enough(*a.shape, b.shape[1]):
        return None
    if bias is not None and bias.shape != (b.shape[1],):
        return None
    return dnnl_matmul.product(onednn.runtime(), a, b,
                               None if bias is None else np.ascontiguousarray(bias))


def gemm(a, b):
    """``a @ b`` for 2-D operands on the active backend (fast grads' products)."""
    if registry.active_backend() == 'onednn':
        out = onednn_product(a, b)
        if out is not None:
            return out
    return np.matmul(a, b)


@matmul_op.def_kernel('onednn')
def _matmul_onednn(x, y, transpose_x=False, transpose_y=False):
    # matrices, and a stack of them times one matrix (as its rows)
    if x.ndim < 2 or y.ndim != 2 or (transpose_x and x.ndim > 2):
        return NotImplemented
    a = x.swapaxes(-1, -2) if transpose_x else x
    b = y.T if transpose_y else y
    out = onednn_product(_rows(a) if a.ndim > 2 else a, b)
    if out is None:
        return NotImplemented
    return out.reshape(a.shape[:-1] + b.shape[-1:])


@matmul_op.def_grad
def _matmul_grad(g, x, y, out, transpose_x, transpose_y):
    xd, yd = len(x.shape), len(y.shape)
    if xd == 1 or yd == 1:
        return _matmul_vector_grad(g, x, y, xd, yd, transpose_x, transpose_y)
    tx, ty = transpose_x, transpose_y
    x, y = _conj(x), _conj(y)   # complex: dX' = g @ Y'^H, dY' = X'^H @ g
    # out = X' @ Y'; dX' = g @ Y'^T and dY' = X'^T @ g, transposed back when
    # the operand was given transposed
    gx = matmul_op(y, g, ty, True) if tx else matmul_op(g, y, False, not ty)
    gy = matmul_op(g, x, True, tx) if ty else matmul_op(x, g, not tx, False)
    return sum_like(gx, x), sum_like(gy, y)


def _matmul_vector_grad(g, x, y, xd, yd, tx, ty):
    """Grads when an operand is 1-D: the vector is broadcast against the
    matrix along its contracted axis ``ka`` and products are summed."""
    x, y = _conj(x), _conj(y)
    if xd == 1 and yd == 1:
        return g * y, g * x
    if xd == 1:
        ka = yd - 1 if ty else yd - 2
        others = tuple(i for i in range(yd) if i != ka)
        ge = lib.expand_reduced(g, y, (ka,), False)
        return lib.sum_op(y * ge, others), ge * lib.expand_reduced(x, y, others, False)
    ka = xd - 2 if tx else xd - 1
    others = tuple(i for i in range(xd) if i != ka)
    ge = lib.expand_reduced(g, x, (ka,), False)
    return ge * lib.expand_reduced(y, x, others, False), lib.sum_op(x * ge, others)


@matmul_op.def_fast_grad
def _matmul_fast(g, x, y, out, transpose_x, transpose_y):
    if g.dtype.kind == 'c':
        x, y = _conj(x), _conj(y)
    xv, yv = x.ndim == 1, y.ndim == 1
    # promote vectors to matrices and work on the effective operands X', Y'
    X = x[None, :] if xv else (x.swapaxes(-1, -2) if transpose_x else x)
    Y = y[:, None] if yv else (y.swapaxes(-1, -2) if transpose_y else y)
    if xv and yv:
        G = g.reshape(1, 1)
    elif xv:
        G = g[..., None, :]
    elif yv:
        G = g[..., None]
    else:
        G = g
    gx = gy = None
    if wants(0):
        if G.ndim == 2 and Y.ndim == 2:
            gX = gemm(G, Y.T)
        else:
            gX = _matmul_flat(G, Y.swapaxes(-1, -2))
        if xv:
            gx = gX.reshape(-1, gX.shape[-1]).sum(0) if gX.ndim > 2 else gX[0]
        else:
            gx = ub(gX.swapaxes(-1, -2) if transpose_x else gX, x)
    if wants(1):
        if Y.ndim == 2 and X.ndim >= 2:
            # one matrix against a matrix or a stack: the stack's sum of X_k^T G_k is
            # one product
            gY = gemm(_rows(X).T, _rows(G))
        else:
            gY = np.matmul(X.swapaxes(-1, -2), G)
        if yv:
            gy = gY.reshape(-1, gY.shape[-2], 1).sum(0)[:, 0] if gY.ndim > 2 else gY[:, 0]
        else:
            gy = ub(gY.swapaxes(-1, -2) if transpose_y else gY, y)
    return gx, gy


@matmul_op.def_onnx
def _matmul_onnx(g, x, y, transpose_x, transpose_y):
    nx, ny = g.rank(x), g.rank(y)
    a, b = _onnx_swap_last(g, x, transpose_x), _onnx_swap_last(g, y, transpose_y)
    # a transposed operand times a vector: as a matrix product (onnxruntime 1.32's
    # Transpose+MatMul fusion gets the vector case wrong)
    if ny == 1 and a != x:
        return g.squeeze(g.op('MatMul', a, g.unsqueeze(b, [1])), [-1])
    if nx == 1 and b != y:
        return g.squeeze(g.op('MatMul', g.unsqueeze(a, [0]), b), [-2])
    return g.op('MatMul', a, b)


def _onnx_swap_last(g, x, transpose):
    n = g.rank(x)
    if not transpose or n < 2:      # a 1-D operand is not transposed (as in Paddle)
        return x
    return g.op('Transpose', x, perm=list(range(n - 2)) + [n - 1, n - 2])


def lean_is_product(call):
    """Two matrices of one non-half float dtype: the kernel is ``np.matmul``."""
    vx, vy = call.vars[0], call.vars[1]
    return call.all_float_same([vx, vy]) and vx.ndim == 2 and vy.ndim == 2


def lean_product(call):
    """The code of ``matmul(x, y)`` where ``lean_is_product``, or None."""
    if not lean_is_product(call):
        return None
    tx, ty = call.attrs.get('transpose_x', False), call.attrs.get('transpose_y', False)
    return '%s(%s%s, %s%s)' % (call.kernel(np.matmul), call.ins[0], '.T' if tx else '',
                               call.ins[1], '.T' if ty else '')


@matmul_op.def_lean
def _matmul_lean(call):
    code = lean_product(call)
    return None if code is None else call.Lean(code)


def _dot_meta(x, y):
    xs, ys = list(meta.shape_of(x)), list(meta.shape_of(y))
    if len(xs) not in (1, 2) or len(xs) != len(ys) or any(
            a != b and a != -1 and b != -1 for a, b in zip(xs, ys)):
        raise OpError("x and y must both be 1-D or both 2-D with the same shape, got "
                      "shapes %s and %s" % (xs, ys))
    return Meta(xs[:-1], meta.same_dtype('dot', ('x', 'y'), x, y))


@def_op('dot', _dot_meta, pattern='opaque')
@float32_compute
def dot_op(x, y):
    """Inner product of vectors; 2-D inputs are batches of row vectors."""
    if x.shape != y.shape or x.ndim not in (1, 2) or x.dtype is not y.dtype:
        _dot_meta(x, y)   # raises the clear error; numpy would broadcast
    if x.ndim == 1:
        return np.dot(x, y)
    return np.einsum('ij,ij->i', x, y)


@dot_op.def_grad
def _dot_grad(g, x, y, out):
    ge = lib.expand_reduced(g, x, (len(x.shape) - 1,), False)
    return ge * _conj(y), ge * _conj(x)


@dot_op.def_fast_grad
def _dot_fast(g, x, y, out):
    ge = g[..., None]
    return ge * _conj(y), ge * _conj(x)


dot_op.def_onnx(lambda g, x, y: g.reduce('ReduceSum', g.op('Mul', x, y), [-1], False))


def _outer_meta(x, y):
    xs, ys = list(meta.shape_of(x)), list(meta.shape_of(y))
    if len(xs) != 1 or len(ys) != 1:
        raise OpError("x and y must be 1-D, got shapes %s and %s" % (xs, ys))
    return Meta(xs + ys, meta.result_dtype(x, y))


@def_op('outer', _outer_meta, promote=('x', 'y'), pattern='opaque')
def outer_op(x, y):
    if x.ndim != 1 or y.ndim != 1:
        _outer_meta(x, y)
    return np.multiply.outer(x, y)


@outer_op.def_grad
def _outer_grad(g, x, y, out):
    return matmul_op(g, _conj(y)), matmul_op(g, _conj(x), True, False)


@outer_op.def_fast_grad
def _outer_fast(g, x, y, out):
    return g @ _conj(y), _conj(x) @ g


@outer_op.def_onnx
def _outer_onnx(g, x, y):
    x, y = g.cast_to_output(x, y)
    return g.op('Mul', g.unsqueeze(x, [1]), g.unsqueeze(y, [0]))


# ---- cumulative sum -------------------------------------------------------------

def _cumsum_meta(x, axis=-1, reverse=False):
    shape = meta.shape_of(x)
    meta.normalize_axis(axis, len(shape))
    d = np.dtype(meta.dtype_of(x))
    return Meta(shape, np.int64 if d == np.bool_ else d)


@def_op('cumsum', _cumsum_meta, save_inputs=False, pattern='opaque', amp='black')
def cumsum_op(x, axis=-1, reverse=False):
    """Cumulative sum along ``axis``; ``reverse`` sums from the end."""
    # numpy would widen small ints to int64; Paddle keeps the dtype
    dt = np.int64 if x.dtype == np.bool_ else x.dtype
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis, dt), axis)
    return np.cumsum(x, axis, dt)


@cumsum_op.def_grad
def _cumsum_grad(g, x, out, axis, reverse):
    return cumsum_op(g, axis, not reverse)


@cumsum_op.def_fast_grad
def _cumsum_fast(g, x, out, axis, reverse):
    return cumsum_op.kernel(g, axis, not reverse)


@cumsum_op.def_onnx
def _cumsum_onnx(g, x, axis, reverse):
    x = g.cast(x, g.out_meta().dtype)     # bool sums as int64
    return g.op('CumSum', x, g.const(np.asarray(axis, np.int64)), reverse=int(bool(reverse)))


# ---- test cases -------------------------------------------------------------------

_rng = np.random.default_rng(1)
_r = _rng.standard_normal
_u = _rng.uniform

add_test_case(add_op, _r((3, 4)), _r(4), ref=lambda x, y: x + y)
add_test_case(add_op, _r((2, 1, 3)), _r((4, 1)), ref=lambda x, y: x + y)
add_test_case(add_op, _r((3, 4)), 1.5, ref=lambda x, y: x + y)
# a residual add of two feature maps: the shape oneDNN layouts carry
add_test_case(add_op, _r((2, 20, 5, 3)), _r((2, 20, 5, 3)), ref=lambda x, y: x + y)
add_test_case(subtract_op, _r((3, 4)), _r((3, 1)), ref=lambda x, y: x - y)
add_test_case(subtract_op, 2.0, _r((3, 1)), ref=lambda x, y: x - y)
add_test_case(multiply_op, _r((3, 4)), _r((1, 4)), ref=lambda x, y: x * y)
add_test_case(multiply_op, _r((3, 4)), 2.5, ref=lambda x, y: x * y)
add_test_case(divide_op, _r((3, 4)), _u(1, 2, 4), ref=lambda x, y: x / y)
add_test_case(floor_divide_op, _u(1, 9, (3, 4)).round(), 2.0, ref=lambda x, y: (x // y))
add_test_case(remainder_op, _u(1, 9, (3, 4)), _u(1.1, 1.9, 4), ref=lambda x, y: x % y)
add_test_case(trunc_divide_op, np.array([[7, -7, 6, -6, 0]]), np.array([[2], [-3]]),
              ref=lambda x, y: np.vectorize(lambda a, b: int(a / b), otypes=[np.int64])(x, y))
add_test_case(trunc_divide_op, np.array([7.5, -7.5, 1.0]), np.array([2.0, 2.0, 0.0]),
              ref=lambda x, y: np.array([3.0, -3.0, np.inf]))
add_test_case(trunc_divide_op, np.asarray(-5, np.int32), np.asarray(3, np.int32),
              ref=lambda x, y: np.asarray(-1, np.int32))
add_test_case(pow_op, _u(0.5, 2, (3, 4)), _u(0.5, 2, 4), ref=lambda x, y: x ** y)
add_test_case(pow_op, _u(0.5, 2, (3, 4)), 3.0, ref=lambda x, y: x ** y)
add_test_case(maximum_op, _r((3, 4)), _r(4), ref=lambda x, y: np.where(x > y, x, y))
add_test_case(minimum_op, _r((3, 4)), _r(4), ref=lambda x, y: np.where(x < y, x, y))
for _op, _ref in [(equal_op, lambda x, y: x == y), (not_equal_op, lambda x, y: x != y),
                  (less_than_op, lambda x, y: x < y), (less_equal_op, lambda x, y: x <= y),
                  (greater_than_op, lambda x, y: x > y),
                  (greater_equal_op, lambda x, y: x >= y)]:
    add_test_case(_op, _rng.integers(0, 3, (3, 4)).astype('float64'),
                  _rng.integers(0, 3, 4).astype('float64'), ref=_ref)
for _op, _ref in [(logical_and_op, lambda x, y: x & y), (logical_or_op, lambda x, y: x | y),
                  (logical_xor_op, lambda x, y: x ^ y)]:
    add_test_case(_op, _r((3, 4)) > 0, _r(4) > 0, ref=_ref)
add_test_case(logical_not_op, _r((3, 4)) > 0, ref=lambda x: ~x)
add_test_case(neg_op, _r(5), ref=lambda x: -x)


def _vec(fn, otype=float):
    """Elementwise reference from a scalar Python function."""
    return np.vectorize(fn, otypes=[otype])


_SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5])
add_test_case(tanh_op, _r((3, 4)), ref=_vec(math.tanh))
add_test_case(exp_op, _r((3, 4)), ref=_vec(math.exp))
add_test_case(log_op, _u(0.5, 2, (3, 4)), ref=_vec(math.log))
add_test_case(log1p_op, _u(-0.5, 2, (3, 4)), ref=_vec(math.log1p))
add_test_case(log2_op, _u(0.5, 4, (3, 4)), ref=_vec(math.log2))
add_test_case(log10_op, _u(0.5, 20, (3, 4)), ref=_vec(math.log10))
add_test_case(sqrt_op, _u(0.5, 3, (3, 4)), ref=_vec(math.sqrt))
add_test_case(rsqrt_op, _u(0.5, 3, (3, 4)), ref=_vec(lambda v: 1 / math.sqrt(v)))
add_test_case(rsqrt_op, np.array(2.5), ref=_vec(lambda v: 1 / math.sqrt(v)))
add_test_case(square_op, _r((3, 4)), ref=_vec(lambda v: v * v))
add_test_case(square_op, np.array([[-3, 2], [0, 7]]), ref=_vec(lambda v: v * v, np.int64))
add_test_case(reciprocal_op, _u(0.5, 2, (3, 4)) * np.sign(_r((3, 4))), ref=_vec(lambda v: 1 / v))
add_test_case(sin_op, _r((3, 4)) * 3, ref=_vec(math.sin))
add_test_case(cos_op, _r((3, 4)) * 3, ref=_vec(math.cos))
add_test_case(tan_op, _u(-1.4, 1.4, (3, 4)), ref=_vec(math.tan))
add_test_case(asin_op, _u(-0.9, 0.9, (3, 4)), ref=_vec(math.asin))
add_test_case(acos_op, _u(-0.9, 0.9, (3, 4)), ref=_vec(math.acos))
add_test_case(atan_op, _r((3, 4)) * 3, ref=_vec(math.atan))
add_test_case(sinh_op, _r((3, 4)), ref=_vec(math.sinh))
add_test_case(cosh_op, _r((3, 4)), ref=_vec(math.cosh))
add_test_case(sigmoid_op, _r((3, 4)) * 3, ref=_vec(lambda v: 1 / (1 + math.exp(-v))))
add_test_case(sigmoid_op, np.array(-0.7), ref=_vec(lambda v: 1 / (1 + math.exp(-v))))
add_test_case(sigmoid_op, np.array([-800.0, -40.0, 0.0, 40.0, 800.0]),
              ref=_vec(lambda v: math.exp(v) / (1 + math.exp(v)) if v < 0
                       else 1 / (1 + math.exp(-v))), grad=False, rtol=1e-12, atol=0)
add_test_case(abs_op, _r((3, 4)), ref=_vec(math.fabs))
add_test_case(abs_op, np.array([-3, 0, 5]), ref=_vec(lambda v: -v if v < 0 else v, np.int64))
add_test_case(erf_op, _r((3, 5)) * 2, ref=_vec(math.erf), rtol=1e-14, atol=1e-15)
add_test_case(erf_op, np.array([-30.0, -4.5, -4.0, -1.0, -0.46875, -1e-20, 0.0, 0.3, 0.47,
                                2.0, 3.99, 4.01, 6.0, 30.0]),
              ref=_vec(math.erf), rtol=1e-15, atol=0, grad=False)
add_test_case(erf_op, _SPECIAL, ref=_vec(math.erf), grad=False)


def _erfinv_ref(v):
    """Bisection on math.erf: an independent inverse."""
    if math.fabs(v) >= 1:     # (abs is this module's op)
        return math.copysign(math.inf, v) if math.fabs(v) == 1 else math.nan
    lo, hi = -6.0, 6.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < v:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


add_test_case(erfinv_op, _u(-0.95, 0.95, (3, 4)), ref=_vec(_erfinv_ref), rtol=1e-12, atol=1e-14)
# near +-1 erfinv is ill-conditioned (dx/dy ~ e^(x^2)): the tolerance reflects
# that, not the kernel (tests/test_math_api.py checks erf(erfinv(y)) == y)
add_test_case(erfinv_op, np.array([-1.0, -0.999999, -1e-10, 0.0, 0.5, 0.9999999999, 1.0, 1.5]),
              ref=_vec(_erfinv_ref), rtol=1e-7, atol=1e-15, grad=False)
# rounding: values away from the jumps for grad checks; exact halves separately
_frac = _u(0.1, 0.4, (3, 4)) * np.sign(_r((3, 4))) + _rng.integers(-3, 4, (3, 4))
add_test_case(floor_op, _frac, ref=_vec(math.floor))
add_test_case(ceil_op, _frac, ref=_vec(math.ceil))
add_test_case(trunc_op, _frac, ref=_vec(math.trunc))
add_test_case(floor_op, np.array([-3, 0, 4]), ref=_vec(math.floor, np.int64))
add_test_case(sign_op, _r((3, 4)), ref=_vec(lambda v: (v > 0) - (v < 0)))
add_test_case(sign_op, np.array([-2.0, 0.0, 3.0]), ref=_vec(lambda v: (v > 0) - (v < 0)),
              grad=False)


def _round_ref(v, decimals=0):
    if not math.isfinite(v):
        return v
    q = Decimal(1).scaleb(-decimals)
    return float(Decimal(v).quantize(q, rounding=ROUND_HALF_EVEN))


add_test_case(round_op, _frac, ref=_vec(_round_ref))
add_test_case(round_op, np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, -3.2]),
              ref=_vec(_round_ref), grad=False)
add_test_case(round_op, np.array([1.234, -5.678, 0.125]), 2,
              ref=np.vectorize(_round_ref, otypes=[float]), grad=False)
add_test_case(round_op, np.array([1, -2, 3]), ref=_vec(_round_ref, np.int64), grad=False)
for _op, _ref in [(isnan_op, math.isnan), (isinf_op, math.isinf), (isfinite_op, math.isfinite)]:
    add_test_case(_op, _SPECIAL, ref=_vec(_ref, bool))
_ints = _rng.integers(-8, 9, (3, 4))
for _op, _ref in [(bitwise_and_op, lambda a, b: a & b), (bitwise_or_op, lambda a, b: a | b),
                  (bitwise_xor_op, lambda a, b: a ^ b)]:
    add_test_case(_op, _ints, _rng.integers(-8, 9, 4),
                  ref=lambda a, b, f=_ref: _vec(f, np.int64)(a, b))
    add_test_case(_op, _r((3, 4)) > 0, _r(4) > 0, ref=lambda a, b, f=_ref: _vec(f, bool)(a, b))
add_test_case(bitwise_not_op, _ints, ref=_vec(lambda v: -v - 1, np.int64))
add_test_case(bitwise_not_op, _r(5) > 0, ref=_vec(lambda v: not v, bool))


def _clip_ref(x, lo, hi):
    return _vec(lambda v: (lo if lo is not None and v < lo else
                           hi if hi is not None and v > hi else v))(x)


_clip_x = np.array([[-1.7, -0.9, -0.3, 0.2], [0.45, 0.8, 1.3, 2.2], [-0.6, 0.05, 0.95, 1.05]])
add_test_case(clip_op, _clip_x, -0.5, 1.0, ref=_clip_ref)
add_test_case(clip_op, _clip_x, None, 0.5, ref=_clip_ref)
add_test_case(clip_op, _clip_x, 0.0, None, ref=_clip_ref)
add_test_case(clip_op, _clip_x, None, None, ref=_clip_ref)
add_test_case(clip_op, np.array([-5, 0, 3, 9]), 0, 4,
              ref=lambda x, lo, hi: np.array([0, 0, 3, 4]))
add_test_case(scale_op, _r((3, 4)), 2.5, 0.5, True, ref=lambda x, s, b, a: x * s + b)
add_test_case(scale_op, _r((3, 4)), -1.5, 0.5, False, ref=lambda x, s, b, a: (x + b) * s)
add_test_case(scale_op, _r((3, 4)), 1.0, 0.0, False, ref=lambda x, s, b, a: x)
add_test_case(scale_op, np.array([1, 2, 3]), 2.0, 1.0, True,
              ref=lambda x, s, b, a: np.array([3, 5, 7]))
add_test_case(stanh_op, _r((3, 4)), 0.67, 1.7159,
              ref=lambda x, a, b: _vec(lambda v: b * math.tanh(a * v))(x))
add_test_case(logit_op, _u(0.05, 0.95, (3, 4)), None,
              ref=lambda x, e: _vec(lambda v: math.log(v / (1 - v)))(x))
add_test_case(logit_op, np.array([0.02, 0.2, 0.5, 0.7, 0.97]), 0.1,
              ref=lambda x, e: _vec(lambda v: math.log(min(max(v, e), 1 - e) /
                                                       (1 - min(max(v, e), 1 - e))))(x))
add_test_case(lerp_op, _r((3, 4)), _r(4), _u(0, 1, (3, 1)),
              ref=lambda x, y, w: x + w * (y - x))
add_test_case(lerp_op, _r((3, 4)), _r((3, 4)), 0.3, ref=lambda x, y, w: x + w * (y - x))
add_test_case(add_n_op, [_r((3, 4)), _r((3, 4)), _r((3, 4))],
              ref=lambda xs: np.array([[math.fsum(v[i, j] for v in xs) for j in range(4)]
                                       for i in range(3)]))
add_test_case(add_n_op, [_r((2, 3))], ref=lambda xs: xs[0])
add_test_case(add_n_op, [_r((2, 3)), _r(3)], ref=lambda xs: xs[0] + xs[1][None, :])


def _matmul_ref(x, y, tx=False, ty=False):
    """Textbook product: promote vectors, transpose, broadcast, sum over k."""
    X = x[None, :] if x.ndim == 1 else (np.swapaxes(x, -1, -2) if tx else x)
    Y = y[:, None] if y.ndim == 1 else (np.swapaxes(y, -1, -2) if ty else y)
    out = (X[..., :, :, None] * Y[..., None, :, :]).sum(axis=-2)
    if x.ndim == 1:
        out = out[..., 0, :]
    if y.ndim == 1:
        out = out[..., 0]
    return out


add_test_case(matmul_op, _r((3, 4)), _r((4, 2)), ref=_matmul_ref)
add_test_case(matmul_op, _r((2, 1, 3, 4)), _r((3, 4, 2)), ref=_matmul_ref)
add_test_case(matmul_op, _r((4, 3)), _r((2, 2, 4)), True, True, ref=_matmul_ref)
add_test_case(matmul_op, _r((2, 3, 4)), _r((2, 4)), False, True, ref=_matmul_ref)
add_test_case(matmul_op, _r((2, 4, 3)), _r((4, 2)), True, False, ref=_matmul_ref)
add_test_case(matmul_op, _r(4), _r((2, 4, 3)), ref=_matmul_ref)
add_test_case(matmul_op, _r(4), _r((2, 3, 4)), False, True, ref=_matmul_ref)
add_test_case(matmul_op, _r((2, 3, 4)), _r(4), ref=_matmul_ref)
add_test_case(matmul_op, _r((2, 4, 3)), _r(4), True, False, ref=_matmul_ref)
add_test_case(matmul_op, _r((3, 4)), _r(4), ref=_matmul_ref)
# a stack of matrices times one matrix (run as one 2-D product), empty sizes included
add_test_case(matmul_op, _r((2, 2, 3, 4)), _r((4, 2)), ref=_matmul_ref)
add_test_case(matmul_op, _r((2, 3, 0)), _r((0, 4)), ref=_matmul_ref)
add_test_case(matmul_op, _r((0, 3, 4)), _r((2, 4)), False, True, ref=_matmul_ref)
add_test_case(matmul_op, _r(4), _r((4, 3)), ref=_matmul_ref)
add_test_case(matmul_op, _r(4), _r(4), ref=_matmul_ref)
# products large enough for oneDNN's kernel (a transposed operand read through
# its strides; a stack as its rows); their gradients: tests/test_onednn.py
add_test_case(matmul_op, _r((128, 256)), _r((128, 256)), False, True, ref=_matmul_ref,
              grad=False)
add_test_case(matmul_op, _r((2, 64, 256)), _r((256, 128)), ref=_matmul_ref, grad=False)
add_test_case(matmul_op, _rng.integers(-3, 4, (2, 3)), _rng.integers(-3, 4, (3, 2)),
              ref=lambda x, y: _matmul_ref(x, y))
add_test_case(dot_op, _r(5), _r(5), ref=lambda x, y: math.fsum(x * y))
add_test_case(dot_op, _r((3, 4)), _r((3, 4)),
              ref=lambda x, y: np.array([math.fsum(a * b) for a, b in zip(x, y)]))
add_test_case(outer_op, _r(3), _r(4),
              ref=lambda x, y: np.array([[a * b for b in y] for a in x]))


def _cumsum_ref(x, axis=-1, reverse=False):
    x = np.moveaxis(x, axis, -1)
    out = np.zeros(x.shape, np.int64 if x.dtype == bool else x.dtype)
    n = x.shape[-1]
    for i in range(n):
        idx = range(i, n) if reverse else range(i + 1)
        for j in idx:
            out[..., i] += x[..., j]
    return np.moveaxis(out, -1, axis)


add_test_case(cumsum_op, _r((3, 4)), 1, ref=_cumsum_ref)
add_test_case(cumsum_op, _r((3, 4, 2)), 0, True, ref=_cumsum_ref)
add_test_case(cumsum_op, _r((3, 4)), -1, True, ref=_cumsum_ref)
add_test_case(cumsum_op, _rng.integers(0, 5, (2, 5)).astype(np.int32), 1, ref=_cumsum_ref)
add_test_case(cumsum_op, _r(6) > 0, 0, ref=_cumsum_ref)

# mixed dtypes: promoted inputs are cast first (framework.dtype.result_type), so
# infer_meta, the kernel and the gradient of the float input agree on dtypes
_mix = np.random.default_rng(9)
add_test_case(add_op, _mix.standard_normal((3, 4)), _mix.integers(-3, 4, 4),
              ref=lambda x, y: x + y)
add_test_case(multiply_op, _mix.integers(-3, 4, (2, 3)).astype(np.int32),
              np.asarray(_mix.standard_normal()), ref=lambda x, y: x * y)
add_test_case(subtract_op, _mix.standard_normal((2, 3)).astype(np.float32), 2,
              ref=lambda x, y: x - y, grad=False)   # float32: too coarse for finite differences
add_test_case(divide_op, _mix.integers(-6, 7, (2, 3)), _mix.integers(1, 4, 3).astype(np.int32),
              ref=lambda x, y: (x / y).astype(np.float32))
add_test_case(less_than_op, _mix.integers(-3, 4, (3, 4)), 0.5, ref=lambda x, y: x < y)
add_test_case(maximum_op, _mix.integers(-3, 4, (3, 4)).astype(np.int32), _mix.integers(-3, 4, 4),
              ref=lambda x, y: np.maximum(x, y))
add_test_case(lerp_op, _mix.standard_normal((2, 3)).astype(np.float32),
              _mix.standard_normal(3).astype(np.float32), np.asarray(0.25),
              ref=lambda x, y, w: x + 0.25 * (y - x), grad_inputs=(2,))
add_test_case(add_n_op, [_mix.standard_normal((2, 3)), _mix.integers(-3, 4, (2, 3))],
              ref=lambda xs: xs[0] + xs[1])


# ---- public API (Paddle 2.x names) -----------------------------------------

def add(x, y, name=None, *, alpha=1, out=None):
    """Elementwise ``x + alpha * y`` with broadcasting.

    >>> import framework as paddle
    >>> paddle.add(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, 1.0]), alpha=3).tolist()
    [4.0, 5.0]
    """
    if alpha != 1:
        y = _times(y, alpha)
    r = add_op(x, y)
    return r if out is None else write_out(out, r)


def subtract(x, y, name=None, *, alpha=1, out=None):
    """Elementwise ``x - alpha * y`` with broadcasting."""
    if alpha != 1:
        y = _times(y, alpha)
    r = subtract_op(x, y)
    return r if out is None else write_out(out, r)


def multiply(x, y, name=None, *, out=None):
    """Elementwise ``x * y`` with broadcasting."""
    r = multiply_op(x, y)
    return r if out is None else write_out(out, r)


def divide(x, y, name=None, *, rounding_mode=None, out=None):
    """Elementwise division: true division (integers give the default float),
    or with ``rounding_mode='trunc'`` / ``'floor'`` the quotient rounded
    toward zero / down, in the operands' promoted dtype (no gradient then).

    >>> import framework as paddle
    >>> a, b = paddle.to_tensor([7, -7]), paddle.to_tensor([2, 2])
    >>> paddle.divide(a, b, rounding_mode='trunc').tolist(), paddle.divide(a, b, rounding_mode='floor').tolist()
    ([3, -3], [3, -4])
    """
    if rounding_mode is None:
        r = divide_op(x, y)
    elif rounding_mode == 'trunc':
        r = trunc_divide_op(x, y)
    elif rounding_mode == 'floor':
        r = floor_divide_op(x, y)
    else:
        raise ValueError("divide expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         "but found %r" % (rounding_mode,))
    return r if out is None else write_out(out, r)


def true_divide(input, other, *, out=None):  # noqa: A002  (Paddle's argument names)
    """``input / other`` (true division)."""
    r = divide_op(input, other)
    return r if out is None else write_out(out, r)


def floor_divide(x, y, name=None, *, out=None):
    """The quotient rounded down (no gradient)."""
    r = floor_divide_op(x, y)
    return r if out is None else write_out(out, r)


def remainder(x, y, name=None, *, out=None):
    """``x - floor(x / y) * y`` (the result has the sign of y)."""
    r = remainder_op(x, y)
    return r if out is None else write_out(out, r)


mod = floor_mod = remainder
sub = subtract
mul = multiply
div = divide


def _times(y, alpha):
    """``alpha * y`` for ``add``/``subtract``'s ``alpha`` (numbers stay numbers)."""
    return y * alpha if isinstance(y, (int, float, complex, np.generic)) else multiply_op(y, alpha)


def pow(x, y, name=None, *, out=None):  # noqa: A001
    """``x ** y``; ``y`` is a tensor or a Python number."""
    r = pow_op(x, y)
    return r if out is None else write_out(out, r)


def maximum(x, y, name=None, *, out=None):
    """Elementwise maximum (NaN propagates; see ``fmax``)."""
    r = maximum_op(x, y)
    return r if out is None else write_out(out, r)


def minimum(x, y, name=None, *, out=None):
    """Elementwise minimum (NaN propagates; see ``fmin``)."""
    r = minimum_op(x, y)
    return r if out is None else write_out(out, r)


def lerp(x, y, weight, name=None):
    """``x + weight * (y - x)``; ``weight`` is a tensor or a float."""
    return lerp_op(x, y, _scalar_or_tensor(weight))


def add_n(inputs, name=None):
    """Sum of a tensor or a list of tensors.

    >>> import framework as paddle
    >>> paddle.add_n([paddle.ones([2]), paddle.ones([2])]).tolist()
    [2.0, 2.0]
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    if not inputs:
        raise OpError("add_n: inputs must be a non-empty list of tensors")
    return add_n_op(list(inputs))


def neg(x, name=None):
    return neg_op(x)


def tanh(x, name=None, *, out=None):
    r = tanh_op(x)
    return r if out is None else write_out(out, r)


def exp(x, name=None, *, out=None):
    r = exp_op(x)
    return r if out is None else write_out(out, r)


def log(x, name=None, *, out=None):
    r = log_op(x)
    return r if out is None else write_out(out, r)


def log1p(x, name=None, *, out=None):
    r = log1p_op(x)
    return r if out is None else write_out(out, r)


def log2(x, name=None, *, out=None):
    r = log2_op(x)
    return r if out is None else write_out(out, r)


def log10(x, name=None, *, out=None):
    r = log10_op(x)
    return r if out is None else write_out(out, r)


def sqrt(x, name=None, *, out=None):
    r = sqrt_op(x)
    return r if out is None else write_out(out, r)


def rsqrt(x, name=None, *, out=None):
    """``1 / sqrt(x)``."""
    r = rsqrt_op(x)
    return r if out is None else write_out(out, r)


def square(x, name=None):
    return square_op(x)


def reciprocal(x, name=None):
    return reciprocal_op(x)


def abs(x, name=None, *, out=None):  # noqa: A001
    """Elementwise absolute value (also ``abs(tensor)``)."""
    r = abs_op(x)
    return r if out is None else write_out(out, r)


def sign(x, name=None, *, out=None):
    """-1, 0 or 1 by the sign of each element (zero gradient)."""
    r = sign_op(x)
    return r if out is None else write_out(out, r)


def sin(x, name=None, *, out=None):
    r = sin_op(x)
    return r if out is None else write_out(out, r)


def cos(x, name=None, *, out=None):
    r = cos_op(x)
    return r if out is None else write_out(out, r)


def tan(x, name=None):
    return tan_op(x)


def asin(x, name=None):
    return asin_op(x)


def acos(x, name=None, *, out=None):
    r = acos_op(x)
    return r if out is None else write_out(out, r)


def atan(x, name=None):
    return atan_op(x)


def sinh(x, name=None, *, out=None):
    r = sinh_op(x)
    return r if out is None else write_out(out, r)


def cosh(x, name=None, *, out=None):
    r = cosh_op(x)
    return r if out is None else write_out(out, r)


def sigmoid(x, name=None, *, out=None):
    """``1 / (1 + exp(-x))``, computed without overflow."""
    r = sigmoid_op(x)
    return r if out is None else write_out(out, r)


def erf(x, name=None):
    """The error function (Cody's rational approximation, ~1 ulp in float64)."""
    return erf_op(x)


def erfinv(x, name=None):
    """The inverse error function on (-1, 1); +-1 give +-inf."""
    return erfinv_op(x)


def floor(x, name=None, *, out=None):
    r = floor_op(x)
    return r if out is None else write_out(out, r)


def ceil(x, name=None, *, out=None):
    r = ceil_op(x)
    return r if out is None else write_out(out, r)


def trunc(input, name=None):  # noqa: A002  (Paddle's argument name)
    return trunc_op(input)


def round(x, decimals=0, name=None, *, out=None):  # noqa: A001
    """Round to the nearest integer (or ``decimals`` places), halves to even as
    Paddle does on CPU: ``round(2.5) == 2``, ``round(-0.5) == -0``."""
    r = round_op(x, int(decimals))
    return r if out is None else write_out(out, r)


def stanh(x, scale_a=0.67, scale_b=1.7159, name=None):
    """``scale_b * tanh(scale_a * x)``."""
    return stanh_op(x, float(scale_a), float(scale_b))


def logit(x, eps=None, name=None):
    """``log(x / (1 - x))``; with ``eps`` x is first clipped to [eps, 1 - eps]."""
    return logit_op(x, None if eps is None else float(eps))


def _scalar_or_tensor(v):
    return float(v) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else v


def _attr_float(v, api, what):
    """A float attribute from a number or a one-element tensor."""
    if v is None:
        return None
    if isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
        return float(v)
    if hasattr(v, 'item') and getattr(v, 'size', 1) == 1:
        try:
            return float(v.item())
        except (TypeError, ValueError, AttributeError):
            pass
    raise OpError("%s: %s must be a number or a one-element tensor, got %r" % (api, what, v))


def clip(x, min=None, max=None, name=None, *, out=None):  # noqa: A002
    """Limit values to [min, max]; either bound may be None. An integer
    tensor clipped by a Python float is computed in float32 (as Paddle).

    >>> import framework as paddle
    >>> paddle.clip(paddle.to_tensor([-1.0, 0.5, 2.0]), 0, 1).tolist()
    [0.0, 0.5, 1.0]
    """
    if np.dtype(x.dtype).kind in 'iu':
        if isinstance(min, float) or isinstance(max, float):
            x = lib.cast(x, 'float32')
    lo, hi = _attr_float(min, 'clip', 'min'), _attr_float(max, 'clip', 'max')
    if np.dtype(x.dtype).kind in 'iu':   # integer tensors keep integer bounds
        lo = None if lo is None else int(math.ceil(lo))
        hi = None if hi is None else int(math.floor(hi))
    r = clip_op(x, lo, hi)
    return r if out is None else write_out(out, r)


clamp = clip


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """``scale * x + bias`` (or ``scale * (x + bias)`` when not bias_after_scale)."""
    if act is not None:
        raise OpError("scale: act=%r is not supported; apply the activation afterwards" % act)
    return scale_op(x, _attr_float(scale, 'scale', 'scale'), _attr_float(bias, 'scale', 'bias'),
                    bool(bias_after_scale))


def _shape_str(x):
    return list(getattr(x, 'shape', ()))


def matmul(x, y, transpose_x=False, transpose_y=False, name=None, *, out=None):
    """Matrix product with numpy semantics: 1-D operands are vectors, leading
    dimensions broadcast as batches.

    >>> import framework as paddle
    >>> paddle.matmul(paddle.ones([2, 3]), paddle.ones([3, 4])).shape
    paddle.Size([2, 4])
    """
    r = matmul_op(x, y, bool(transpose_x), bool(transpose_y))
    return r if out is None else write_out(out, r)


def mm(input, mat2, name=None):  # noqa: A002
    """Matrix product (``matmul`` without transposes)."""
    meta.same_dtype('mm', ('input', 'mat2'), input, mat2)
    return matmul_op(input, mat2, False, False)


def bmm(x, y, name=None, *, out=None):
    """Batched matrix product of [b, m, k] and [b, k, n] tensors."""
    xs, ys = _shape_str(x), _shape_str(y)
    if len(xs) != 3 or len(ys) != 3:
        raise OpError("bmm: x and y must be 3-D, got shapes %s and %s" % (xs, ys))
    if xs[0] != ys[0] and -1 not in (xs[0], ys[0]):
        raise OpError("bmm: batch sizes differ: x shape %s and y shape %s" % (xs, ys))
    if xs[2] != ys[1] and -1 not in (xs[2], ys[1]):
        raise OpError("bmm: x.shape[2] must equal y.shape[1], got shapes %s and %s" % (xs, ys))
    meta.same_dtype('bmm', ('x', 'y'), x, y)
    r = matmul_op(x, y, False, False)
    return r if out is None else write_out(out, r)


def dot(x, y, name=None, *, out=None):
    """Inner product of 1-D tensors (0-D result) or row-wise of 2-D ones."""
    r = dot_op(x, y)
    return r if out is None else write_out(out, r)


def _flat(x):
    if len(_shape_str(x)) == 1:
        return x
    return lib.reshape(x, [-1])


def outer(x, y, name=None, *, out=None):
    """Outer product; inputs that are not 1-D are flattened first (as Paddle)."""
    r = outer_op(_flat(x), _flat(y))
    return r if out is None else write_out(out, r)


ger = outer


def cumsum(x, axis=None, dtype=None, name=None, *, out=None):
    """Cumulative sum along ``axis``; ``axis=None`` sums over the flattened tensor.

    >>> import framework as paddle
    >>> paddle.cumsum(paddle.to_tensor([1, 2, 3])).tolist()
    [1, 3, 6]
    """
    if dtype is not None:
        x = lib.cast(x, dtype)
    if axis is None:
        r = cumsum_op(_flat(x), 0, False)
    else:
        nd = len(_shape_str(x))
        try:
            axis = meta.normalize_axis(int(axis), nd)
        except OpError as e:
            raise OpError("cumsum: %s (shape %s)" % (e, _shape_str(x))) from None
        r = cumsum_op(x, axis, False)
    return r if out is None else write_out(out, r)


def isnan(x, name=None):
    return isnan_op(x)


def isinf(x, name=None):
    return isinf_op(x)


def isfinite(x, name=None):
    return isfinite_op(x)


def bitwise_and(x, y, out=None, name=None):
    r = bitwise_and_op(x, y)
    return r if out is None else write_out(out, r)


def bitwise_or(x, y, out=None, name=None):
    r = bitwise_or_op(x, y)
    return r if out is None else write_out(out, r)


def bitwise_xor(x, y, out=None, name=None):
    r = bitwise_xor_op(x, y)
    return r if out is None else write_out(out, r)


def bitwise_not(x, out=None, name=None):
    """``~x`` bit by bit (logical not for bool tensors)."""
    r = bitwise_not_op(x)
    return r if out is None else write_out(out, r)


bitwise_invert = bitwise_not


def equal(x, y, name=None, *, out=None):
    r = equal_op(x, y)
    return r if out is None else write_out(out, r)


def not_equal(x, y, name=None, *, out=None):
    r = not_equal_op(x, y)
    return r if out is None else write_out(out, r)


def less_than(x, y, name=None, *, out=None):
    r = less_than_op(x, y)
    return r if out is None else write_out(out, r)


def less_equal(x, y, name=None, *, out=None):
    r = less_equal_op(x, y)
    return r if out is None else write_out(out, r)


def greater_than(x, y, name=None, *, out=None):
    r = greater_than_op(x, y)
    return r if out is None else write_out(out, r)


def greater_equal(x, y, name=None, *, out=None):
    r = greater_equal_op(x, y)
    return r if out is None else write_out(out, r)


def logical_and(x, y, name=None, *, out=None):
    r = logical_and_op(x, y)
    return r if out is None else write_out(out, r)


def logical_or(x, y, name=None, *, out=None):
    r = logical_or_op(x, y)
    return r if out is None else write_out(out, r)


def logical_xor(x, y, name=None, *, out=None):
    r = logical_xor_op(x, y)
    return r if out is None else write_out(out, r)


def logical_not(x, name=None, *, out=None):
    r = logical_not_op(x)
    return r if out is None else write_out(out, r)


eq = equal
ne = not_equal
lt = less = less_than
le = less_equal
gt = greater = greater_than
ge = greater_equal


__all__ = ['add', 'subtract', 'multiply', 'divide', 'true_divide', 'floor_divide', 'remainder',
           'mod', 'sub', 'mul', 'div', 'clamp', 'ger', 'bitwise_invert', 'eq', 'ne', 'lt', 'less',
           'le', 'gt', 'greater', 'ge',
           'floor_mod', 'pow', 'maximum', 'minimum', 'lerp', 'add_n', 'neg', 'tanh', 'exp',
           'log', 'log1p', 'log2', 'log10', 'sqrt', 'rsqrt', 'square', 'reciprocal', 'abs',
           'sign', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'sigmoid',
           'erf', 'erfinv', 'floor', 'ceil', 'trunc', 'round', 'stanh', 'logit', 'clip',
           'scale', 'matmul', 'mm', 'bmm', 'dot', 'outer', 'cumsum', 'isnan', 'isinf',
           'isfinite', 'bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_not', 'equal',
           'not_equal', 'less_than', 'less_equal', 'greater_than', 'greater_equal',
           'logical_and', 'logical_or', 'logical_xor', 'logical_not']

# every public function is also a Tensor method (``x.add_n()`` sums [x], as in Paddle)
TENSOR_METHODS = {n: globals()[n] for n in __all__}

# in-place methods (see tensor_methods.INPLACE for add_, exp_, clip_ ...)
INPLACE_METHODS = {
    'sin_': 'sin', 'cos_': 'cos', 'tan_': 'tan', 'asin_': 'asin', 'acos_': 'acos',
    'atan_': 'atan', 'sinh_': 'sinh', 'cosh_': 'cosh', 'erf_': 'erf', 'erfinv_': 'erfinv',
    'log1p_': 'log1p', 'log2_': 'log2', 'log10_': 'log10', 'trunc_': 'trunc', 'lerp_': 'lerp',
    'logit_': 'logit', 'mul_': 'multiply', 'sub_': 'subtract', 'div_': 'divide',
    'mod_': 'mod', 'floor_mod_': 'floor_mod', 'floor_divide_': 'floor_divide',
    'clamp_': 'clamp', 'bitwise_and_': 'bitwise_and', 'bitwise_or_': 'bitwise_or',
    'bitwise_xor_': 'bitwise_xor', 'bitwise_not_': 'bitwise_not',
    'bitwise_invert_': 'bitwise_invert', 'equal_': 'equal', 'not_equal_': 'not_equal',
    'less_than_': 'less_than', 'less_': 'less', 'less_equal_': 'less_equal',
    'greater_than_': 'greater_than', 'greater_equal_': 'greater_equal',
    'logical_and_': 'logical_and', 'logical_or_': 'logical_or', 'logical_xor_': 'logical_xor',
    'logical_not_': 'logical_not',
}

# complex operands: the gradient of a product is the cotangent times the
# conjugate of the other factor
_crng = np.random.default_rng(2)


def _c(shape):
    return _crng.standard_normal(shape) + 1j * _crng.standard_normal(shape)


add_test_case(multiply_op, _c((2, 3)), _c(3), ref=lambda x, y: x * y)
add_test_case(multiply_op, _c((2, 3)), 1.5 - 2j, ref=lambda x, y: x * y)
add_test_case(divide_op, _c((2, 3)), _c(3) + 2, ref=lambda x, y: x / y)
add_test_case(matmul_op, _c((2, 3, 4)), _c((4, 2)), ref=_matmul_ref)
add_test_case(matmul_op, _c((3, 4)), _c(4), False, False, ref=_matmul_ref)
add_test_case(matmul_op, _c((4, 3)), _c((2, 4)), True, True, ref=_matmul_ref)
add_test_case(dot_op, _c((2, 3)), _c((2, 3)), ref=lambda x, y: (x * y).sum(-1))
add_test_case(outer_op, _c(3), _c(2), ref=np.outer)
