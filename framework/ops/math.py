"""Elementwise math ops.

Each op sits next to its rules: the numpy kernel, ``infer_meta``, the grad
rule written with registered ops (via Tensor/Variable operators), and where it
pays off a numpy fast grad. Binary ops accept Python scalars as weak operands
(``x * 1.01`` keeps x's dtype, as numpy's NEP 50 promotion does).
"""
import math

import numpy as np

from . import meta
from .grad_utils import is_value, sum_like, ub
from .registry import add_test_case, def_op

_ndarray = np.ndarray


# ---- binary arithmetic ------------------------------------------------------

@def_op('add', meta.broadcast, save_inputs=False)
def add_op(x, y):
    return np.add(x, y)


@add_op.def_grad
def _add_grad(g, x, y, out):
    return sum_like(g, x), sum_like(g, y)


@add_op.def_fast_grad
def _add_fast(g, x, y, out):
    return ub(g, x), ub(g, y)


@def_op('subtract', meta.broadcast, save_inputs=False)
def subtract_op(x, y):
    return np.subtract(x, y)


@subtract_op.def_grad
def _subtract_grad(g, x, y, out):
    return sum_like(g, x), sum_like(-g, y)


@subtract_op.def_fast_grad
def _subtract_fast(g, x, y, out):
    return ub(g, x), (ub(-g, y) if type(y) is _ndarray else None)


@def_op('multiply', meta.broadcast)
def multiply_op(x, y):
    return np.multiply(x, y)


@multiply_op.def_grad
def _multiply_grad(g, x, y, out):
    return sum_like(g * y, x), sum_like(g * x, y)


@multiply_op.def_fast_grad
def _multiply_fast(g, x, y, out):
    return (ub(g * y, x) if type(x) is _ndarray else None,
            ub(g * x, y) if type(y) is _ndarray else None)


def _true_divide(x, y):
    out = np.true_divide(x, y)
    if out.dtype == np.float64 and _all_int(x, y):
        out = out.astype(np.float32)   # int / int gives the default float
    return out


def _all_int(*vals):
    return all(not isinstance(v, float) and np.asarray(v).dtype.kind in 'iub' for v in vals)


@def_op('divide', meta.broadcast_float)
def divide_op(x, y):
    return _true_divide(x, y)


@divide_op.def_grad
def _divide_grad(g, x, y, out):
    gx = g / y
    return sum_like(gx, x), sum_like(-gx * out, y)


@divide_op.def_fast_grad
def _divide_fast(g, x, y, out):
    gx = g / y
    return ub(gx, x), (ub(-gx * out, y) if type(y) is _ndarray else None)


@def_op('floor_divide', meta.broadcast, differentiable=False)
def floor_divide_op(x, y):
    return np.floor_divide(x, y)


@def_op('remainder', meta.broadcast)
def remainder_op(x, y):
    return np.remainder(x, y)


@remainder_op.def_grad
def _remainder_grad(g, x, y, out):
    return sum_like(g, x), sum_like(-g * floor_divide_op(x, y), y)


@def_op('elementwise_pow', meta.broadcast)
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


@def_op('maximum', meta.broadcast)
def maximum_op(x, y):
    return np.maximum(x, y)


@maximum_op.def_grad
def _maximum_grad(g, x, y, out):
    mask = cast_like(greater_equal_op(x, y), g)
    return sum_like(g * mask, x), sum_like(g * (1 - mask), y)


@def_op('minimum', meta.broadcast)
def minimum_op(x, y):
    return np.minimum(x, y)


@minimum_op.def_grad
def _minimum_grad(g, x, y, out):
    mask = cast_like(less_equal_op(x, y), g)
    return sum_like(g * mask, x), sum_like(g * (1 - mask), y)


# ---- comparisons and logic (no gradient) ------------------------------------

def _no_grad_binary(name, fn, infer=meta.compare):
    return def_op(name, infer, inputs=('x', 'y'), attrs={}, differentiable=False)(fn)


equal_op = _no_grad_binary('equal', lambda x, y: np.equal(x, y))
not_equal_op = _no_grad_binary('not_equal', lambda x, y: np.not_equal(x, y))
less_than_op = _no_grad_binary('less_than', lambda x, y: np.less(x, y))
less_equal_op = _no_grad_binary('less_equal', lambda x, y: np.less_equal(x, y))
greater_than_op = _no_grad_binary('greater_than', lambda x, y: np.greater(x, y))
greater_equal_op = _no_grad_binary('greater_equal', lambda x, y: np.greater_equal(x, y))
logical_and_op = _no_grad_binary('logical_and', lambda x, y: np.logical_and(x, y))
logical_or_op = _no_grad_binary('logical_or', lambda x, y: np.logical_or(x, y))
logical_xor_op = _no_grad_binary('logical_xor', lambda x, y: np.logical_xor(x, y))
logical_not_op = def_op('logical_not', meta.logical_unary, inputs=('x',), attrs={},
                        differentiable=False)(lambda x: np.logical_not(x))


# ---- unary ------------------------------------------------------------------

def unary(name, kernel, grad, fast_grad=None, infer=meta.unchanged):
    """Declare a one-input op. ``grad(g, x, out)``; ``fast_grad='same'`` reuses
    a grad rule that only uses arithmetic operators (valid on arrays too)."""
    op = def_op(name, infer, inputs=('x',), attrs={})(kernel)
    op.def_grad(grad)
    if fast_grad == 'same':
        fast_grad = grad
    op.fast_grad = fast_grad
    return op


neg_op = unary('neg', np.negative, lambda g, x, out: -g, 'same')
tanh_op = unary('tanh', np.tanh, lambda g, x, out: g * (1 - out * out), 'same')
exp_op = unary('exp', np.exp, lambda g, x, out: g * out, 'same')
log_op = unary('log', np.log, lambda g, x, out: g / x, 'same', meta.unchanged_float)


def cast_like(x, like):
    """``x`` cast to the dtype of ``like`` (used by grad rules for masks)."""
    from .manipulation import cast
    return cast(x, like.dtype)


_rng = np.random.default_rng(1)
_r = _rng.standard_normal
_u = _rng.uniform

add_test_case(add_op, _r((3, 4)), _r(4), ref=lambda x, y: x + y)
add_test_case(add_op, _r((2, 1, 3)), _r((4, 1)), ref=lambda x, y: x + y)
add_test_case(add_op, _r((3, 4)), 1.5, ref=lambda x, y: x + y)
add_test_case(subtract_op, _r((3, 4)), _r((3, 1)), ref=lambda x, y: x - y)
add_test_case(subtract_op, 2.0, _r((3, 1)), ref=lambda x, y: x - y)
add_test_case(multiply_op, _r((3, 4)), _r((1, 4)), ref=lambda x, y: x * y)
add_test_case(multiply_op, _r((3, 4)), 2.5, ref=lambda x, y: x * y)
add_test_case(divide_op, _r((3, 4)), _u(1, 2, 4), ref=lambda x, y: x / y)
add_test_case(floor_divide_op, _u(1, 9, (3, 4)).round(), 2.0, ref=lambda x, y: (x // y))
add_test_case(remainder_op, _u(1, 9, (3, 4)), _u(1.1, 1.9, 4), ref=lambda x, y: x % y)
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
add_test_case(tanh_op, _r((3, 4)), ref=np.vectorize(math.tanh))
add_test_case(exp_op, _r((3, 4)), ref=np.vectorize(math.exp))
add_test_case(log_op, _u(0.5, 2, (3, 4)), ref=np.vectorize(math.log))


# ---- public API (Paddle 2.x names) -----------------------------------------

def add(x, y, name=None):
    """Elementwise ``x + y`` with broadcasting."""
    return add_op(x, y)


def subtract(x, y, name=None):
    """Elementwise ``x - y`` with broadcasting."""
    return subtract_op(x, y)


def multiply(x, y, name=None):
    """Elementwise ``x * y`` with broadcasting."""
    return multiply_op(x, y)


def divide(x, y, name=None):
    """Elementwise true division ``x / y``."""
    return divide_op(x, y)


def floor_divide(x, y, name=None):
    return floor_divide_op(x, y)


def remainder(x, y, name=None):
    return remainder_op(x, y)


mod = floor_mod = remainder


def pow(x, y, name=None):  # noqa: A001
    """``x ** y``; ``y`` is a tensor or a Python number."""
    return pow_op(x, y)


def maximum(x, y, name=None):
    return maximum_op(x, y)


def minimum(x, y, name=None):
    return minimum_op(x, y)


def neg(x, name=None):
    return neg_op(x)


def tanh(x, name=None):
    return tanh_op(x)


def exp(x, name=None):
    return exp_op(x)


def log(x, name=None):
    return log_op(x)


def equal(x, y, name=None):
    return equal_op(x, y)


def not_equal(x, y, name=None):
    return not_equal_op(x, y)


def less_than(x, y, name=None):
    return less_than_op(x, y)


def less_equal(x, y, name=None):
    return less_equal_op(x, y)


def greater_than(x, y, name=None):
    return greater_than_op(x, y)


def greater_equal(x, y, name=None):
    return greater_equal_op(x, y)


def logical_and(x, y, out=None, name=None):
    return logical_and_op(x, y)


def logical_or(x, y, out=None, name=None):
    return logical_or_op(x, y)


def logical_xor(x, y, out=None, name=None):
    return logical_xor_op(x, y)


def logical_not(x, out=None, name=None):
    return logical_not_op(x)


__all__ = ['add', 'subtract', 'multiply', 'divide', 'floor_divide', 'remainder', 'mod',
           'floor_mod', 'pow', 'maximum', 'minimum', 'neg', 'tanh', 'exp', 'log', 'equal',
           'not_equal', 'less_than', 'less_equal', 'greater_than', 'greater_equal',
           'logical_and', 'logical_or', 'logical_xor', 'logical_not']

TENSOR_METHODS = {n: globals()[n] for n in __all__}
