"""In-place math (``x.sin_()``, ``paddle.add_(x, y)``, ...): the value equals the
out-of-place function's, the tensor itself is returned and updated, the
version counter catches a changed tensor a pending backward still needs,
leaf tensors that require grad refuse, gradients flow through in-place
updates of non-leaves, Paddle's dtype rule holds, and static programs and
``@to_static`` rebind the variable as eager mode updates the tensor."""
import inspect

import numpy as np
import pytest

import framework as paddle
from framework.ops import (bessel, cumulative, distance, elementwise, math, products, special,
                           stat, tensor_methods)

from test_math_more import t

rng = np.random.default_rng(2)

# in-place method -> (out-of-place function, arguments after x, input range)
_POS = (0.3, 0.9)
CASES = {
    'abs_': ('abs', (), (-2, 2)), 'acos_': ('acos', (), (-0.9, 0.9)),
    'acosh_': ('acosh', (), (1.2, 3)), 'asin_': ('asin', (), (-0.9, 0.9)),
    'asinh_': ('asinh', (), (-2, 2)), 'atan_': ('atan', (), (-2, 2)),
    'atanh_': ('atanh', (), (-0.9, 0.9)), 'ceil_': ('ceil', (), (-2, 2)),
    'cos_': ('cos', (), (-2, 2)), 'cosh_': ('cosh', (), (-2, 2)), 'erf_': ('erf', (), (-2, 2)),
    'erfinv_': ('erfinv', (), (-0.9, 0.9)), 'exp_': ('exp', (), (-2, 2)),
    'expm1_': ('expm1', (), (-2, 2)), 'floor_': ('floor', (), (-2, 2)),
    'frac_': ('frac', (), (-2, 2)), 'i0_': ('i0', (), (-2, 2)), 'log_': ('log', (), (0.5, 2)),
    'log10_': ('log10', (), (0.5, 2)), 'log1p_': ('log1p', (), (0.5, 2)),
    'log2_': ('log2', (), (0.5, 2)), 'logit_': ('logit', (), _POS), 'neg_': ('neg', (), (-2, 2)),
    'reciprocal_': ('reciprocal', (), (0.5, 2)), 'round_': ('round', (), (-2, 2)),
    'rsqrt_': ('rsqrt', (), (0.5, 2)), 'sigmoid_': ('sigmoid', (), (-2, 2)),
    'sin_': ('sin', (), (-2, 2)), 'sinc_': ('sinc', (), (-2, 2)), 'sinh_': ('sinh', (), (-2, 2)),
    'sqrt_': ('sqrt', (), (0.5, 2)), 'square_': ('square', (), (-2, 2)),
    'tan_': ('tan', (), (-1, 1)), 'tanh_': ('tanh', (), (-2, 2)), 'trunc_': ('trunc', (), (-2, 2)),
    'nan_to_num_': ('nan_to_num', (), (-2, 2)), 'clip_': ('clip', (-0.5, 0.5), (-2, 2)),
    'clamp_': ('clamp', (-0.5, 0.5), (-2, 2)), 'scale_': ('scale', (2.0, 1.0), (-2, 2)),
    'pow_': ('pow', (2.0,), (-2, 2)), 'cumsum_': ('cumsum', (1,), (-2, 2)),
    'cumprod_': ('cumprod', (1,), (-2, 2)), 'renorm_': ('renorm', (2, 0, 1.0), (-2, 2)),
    'lerp_': ('lerp', ('Y', 0.3), (-2, 2)),
    'add_': ('add', ('Y',), (-2, 2)), 'subtract_': ('subtract', ('Y',), (-2, 2)),
    'sub_': ('subtract', ('Y',), (-2, 2)), 'multiply_': ('multiply', ('Y',), (-2, 2)),
    'mul_': ('multiply', ('Y',), (-2, 2)), 'divide_': ('divide', ('Y',), (-2, 2)),
    'div_': ('divide', ('Y',), (-2, 2)), 'remainder_': ('remainder', ('Y',), (0.5, 2)),
    'mod_': ('remainder', ('Y',), (0.5, 2)), 'floor_mod_': ('remainder', ('Y',), (0.5, 2)),
    'floor_divide_': ('floor_divide', ('Y',), (0.5, 2)), 'hypot_': ('hypot', ('Y',), (-2, 2)),
    'copysign_': ('copysign', ('Y',), (-2, 2)), 'ldexp_': ('ldexp', ('Y',), (-2, 2)),
    'lgamma_': ('lgamma', (), (-2.5, 3)), 'gammaln_': ('gammaln', (), (0.5, 3)),
    'digamma_': ('digamma', (), (0.5, 3)), 'polygamma_': ('polygamma', (1,), (0.5, 3)),
    'multigammaln_': ('multigammaln', (3,), (1.5, 3)),
    'gammainc_': ('gammainc', ('Y',), (0.5, 2)), 'gammaincc_': ('gammaincc', ('Y',), (0.5, 2)),
}
TABLE = tensor_methods.inplace_table()
# the math in-place names: the core ones of tensor_methods.INPLACE and the math modules' tables
MATH_INPLACE = {'add_', 'subtract_', 'multiply_', 'divide_', 'scale_', 'clip_', 'exp_', 'sqrt_',
                'rsqrt_', 'tanh_', 'reciprocal_', 'floor_', 'ceil_', 'round_', 'abs_', 'neg_',
                'pow_', 'remainder_', 'square_', 'sigmoid_', 'log_'}
for _mod in (math, elementwise, bessel, stat, cumulative, products, distance, special):
    MATH_INPLACE |= set(getattr(_mod, 'INPLACE_METHODS', {}))


def _args(args, y):
    return [y if a == 'Y' else a for a in args]


@pytest.mark.parametrize('name', sorted(CASES))
def test_inplace_method_equals_the_function_and_updates_the_tensor(name):
    base, args, (lo, hi) = CASES[name]
    x0 = rng.uniform(lo, hi, (2, 3))
    y = t(rng.uniform(0.5, 2, (2, 3)))
    want = getattr(paddle, base)(t(x0), *_args(args, y)).numpy()
    x = t(x0)
    v0 = x.inplace_version
    assert getattr(x, name)(*_args(args, y)) is x
    assert x.inplace_version == v0 + 1
    np.testing.assert_allclose(x.numpy(), want, rtol=1e-12, equal_nan=True)
    if name in MATH_INPLACE:      # paddle.sin_(x) too
        x = t(x0)
        assert getattr(paddle, name)(x, *_args(args, y)) is x
        np.testing.assert_allclose(x.numpy(), want, rtol=1e-12, equal_nan=True)


def test_every_math_inplace_method_is_tested_here_or_exists():
    math_names = MATH_INPLACE
    for name in math_names:
        assert hasattr(paddle.Tensor, name) and hasattr(paddle.static.Variable, name), name
        assert callable(getattr(paddle, name)), name
    int_only = {'gcd_', 'lcm_', 'bitwise_and_', 'bitwise_or_', 'bitwise_xor_', 'bitwise_not_',
                'bitwise_invert_', 'bitwise_left_shift_', 'bitwise_right_shift_'}
    compare = {n for n in math_names if n.startswith(('equal', 'not_equal', 'less', 'greater',
                                                      'logical'))}
    untested = math_names - set(CASES) - int_only - compare - {'addmm_', 'baddbmm_'}
    assert not untested, sorted(untested)


def test_integer_and_comparison_inplace_methods():
    x = paddle.to_tensor([12, -18, 6])
    assert x.gcd_(paddle.to_tensor([8, 12, 4])) is x and x.tolist() == [4, 6, 2]
    x = paddle.to_tensor([4, 6])
    assert x.lcm_(paddle.to_tensor([6, 4])).tolist() == [12, 12]
    x = paddle.to_tensor([6, 5])
    assert x.bitwise_and_(paddle.to_tensor([3, 1])).tolist() == [2, 1]
    assert x.bitwise_or_(paddle.to_tensor([4, 4])).tolist() == [6, 5]
    assert x.bitwise_xor_(paddle.to_tensor([1, 1])).tolist() == [7, 4]
    assert x.bitwise_not_().tolist() == [-8, -5]
    assert x.bitwise_invert_().tolist() == [7, 4]
    assert x.bitwise_left_shift_(paddle.to_tensor([1, 2])).tolist() == [14, 16]
    assert x.bitwise_right_shift_(paddle.to_tensor([1, 2])).tolist() == [7, 4]
    # a comparison's bool result replaces the dtype, as in Paddle
    for name, want in [('equal_', [False, True, False]), ('not_equal_', [True, False, True]),
                       ('less_than_', [True, False, False]), ('less_', [True, False, False]),
                       ('less_equal_', [True, True, False]),
                       ('greater_than_', [False, False, True]),
                       ('greater_equal_', [False, True, True]),
                       ('logical_and_', [True, True, True]), ('logical_or_', [True, True, True]),
                       ('logical_xor_', [False, False, False])]:
        x = t([1.0, 2.0, 3.0])
        assert getattr(x, name)(t([2.0, 2.0, 2.0])) is x
        assert x.dtype == paddle.bool and x.tolist() == want, name
    x = paddle.to_tensor([True, False])
    assert x.logical_not_().tolist() == [False, True]


def test_inplace_dtype_rule():
    x = paddle.to_tensor([1, 2, 3])
    x.exp_()                                     # an integer tensor takes the float result
    assert x.dtype == paddle.float32
    np.testing.assert_allclose(x.numpy(), np.exp([1, 2, 3]), rtol=1e-6)
    x = paddle.to_tensor([1, 2])
    assert x.divide_(paddle.to_tensor([2, 2])).tolist() == [0.5, 1.0]
    x = t([1.0, 2.0], 'float32')                 # within a kind the tensor keeps its dtype
    x.add_(t([0.5, 0.5], 'float64'))
    assert x.dtype == paddle.float32 and x.tolist() == [1.5, 2.5]
    x = paddle.to_tensor([1, 2], 'int32')
    x.add_(paddle.to_tensor([1, 1], 'int64'))
    assert x.dtype == paddle.int32


def test_inplace_refuses_a_shape_change_and_a_leaf_that_requires_grad():
    x = t([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match='shape'):
        x.add_(t([[1.0], [2.0]]))
    leaf = t([1.0, 2.0], grad=True)
    with pytest.raises(RuntimeError, match='leaf'):
        leaf.sin_()
    with paddle.no_grad():
        leaf.sin_()
    np.testing.assert_allclose(leaf.numpy(), np.sin([1.0, 2.0]))


def test_gradient_flows_through_inplace_updates_and_version_errors():
    x = t([0.5, 1.5], grad=True)
    y = x * 2
    y.sin_().mul_(y).add_(x, alpha=3)           # y = sin(2x)^2 + 3x
    g, = paddle.grad(y.sum(), x)
    xv = np.array([0.5, 1.5])
    np.testing.assert_allclose(g.numpy(), 4 * np.sin(2 * xv) * np.cos(2 * xv) + 3, rtol=1e-12)
    y = x * 1
    z = y.sin()                                 # saves y
    y.cos_()
    with pytest.raises(RuntimeError, match='in-place'):
        paddle.grad(z.sum(), x)
    y = x * 1
    z = paddle.cumprod(y, 0)
    y.clamp_(0.0, 1.0)
    with pytest.raises(RuntimeError, match='in-place'):
        paddle.grad(z.sum(), x)


def test_inplace_signatures_are_the_functions_without_out():
    assert str(inspect.signature(paddle.Tensor.add_)) == '(x, y, name=None, *, alpha=1)'
    assert str(inspect.signature(paddle.Tensor.clip_)) == '(x, min=None, max=None, name=None)'
    assert str(inspect.signature(paddle.sin_)) == '(x, name=None)'
    assert str(inspect.signature(paddle.divide_)) == '(x, y, name=None, *, rounding_mode=None)'
    assert TABLE['sub_'] == 'subtract' and TABLE['clamp_'] == 'clamp'
    # Paddle's in-place forms whose arguments differ from their base's
    assert str(inspect.signature(paddle.Tensor.cumprod_)) == '(x, dim=None, dtype=None, name=None)'
    assert str(inspect.signature(paddle.cumprod_)) == '(x, dim=None, dtype=None, name=None)'
    assert str(inspect.signature(paddle.Tensor.bitwise_left_shift_)) == \
        '(x, y, is_arithmetic=True, out=None, name=None)'
    assert str(inspect.signature(paddle.bitwise_and_)) == '(x, y, name=None)'
    x0 = rng.uniform(-2, 2, (2, 3))
    x = t(x0)
    assert x.cumprod_(1, 'float64') is x          # dtype positional, as Paddle's cumprod_
    np.testing.assert_allclose(x.numpy(), np.cumprod(x0, 1), rtol=1e-12)
    x = paddle.to_tensor([3, 5])
    assert paddle.bitwise_right_shift_(x, paddle.to_tensor([1, 2]), False) is x
    assert x.tolist() == [1, 1]
    x = t([7.0, -7.0])
    assert x.divide_(t([2.0, 2.0]), rounding_mode='floor').tolist() == [3.0, -4.0]


def test_addmm_baddbmm_inplace():
    inp, a, b = rng.standard_normal((2, 4)), rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    x = t(inp)
    assert x.addmm_(t(a), t(b), beta=0.5, alpha=2.0) is x
    np.testing.assert_allclose(x.numpy(), 0.5 * inp + 2 * a @ b)
    bi = rng.standard_normal((2, 2, 4))
    x = t(bi)
    paddle.baddbmm_(x, t(np.stack([a, a])), t(np.stack([b, b])))
    np.testing.assert_allclose(x.numpy(), bi + a @ b)


def _inplace_chain(x, y):
    z = x * 1.0
    z.sin_()
    z.add_(y, alpha=2.0)
    z.clamp_(-1.0, 2.5)
    paddle.mul_(z, y)
    z.expm1_()
    paddle.cumprod_(z, 1, 'float64')        # an in-place form with its own arguments
    w = z.greater_than(y * 0.5)
    return z + w.astype(z.dtype)


def test_inplace_in_static_programs_and_to_static_match_eager():
    from test_math_more import eager_run, static_run, assert_same
    x, y = rng.uniform(-2, 2, (3, 4)), rng.uniform(0.5, 1, (3, 4))
    assert_same(static_run(_inplace_chain, x, y), eager_run(_inplace_chain, x, y), rtol=1e-10)

    def looped(x, y):
        z = x * 1.0
        for _ in range(3):
            z.tanh_()
            if z.sum() > 0:            # a tensor condition: a static cond
                z.add_(y)
            else:
                z.sub_(y)
        return z
    conv = paddle.jit.to_static(looped)
    for a in (x, -np.abs(x)):
        xe, ye = t(a, grad=True), t(y, grad=True)
        e = looped(xe, ye)
        ge = paddle.grad(e.sum(), [xe, ye])
        xs, ys = t(a, grad=True), t(y, grad=True)
        s = conv(xs, ys)
        gs = paddle.grad(s.sum(), [xs, ys])
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-10)
        for u, v in zip(ge, gs):
            np.testing.assert_allclose(v.numpy(), u.numpy(), rtol=1e-10)


def test_to_static_carries_tensors_changed_in_place_out_of_tensor_loops_and_branches():
    def f(x, y):
        z = x * 1.0
        i = paddle.to_tensor(0)
        while i < 3:                   # a tensor condition: a while op
            paddle.sin_(z)             # the function form changes its first argument
            z.add_(y)
            i = i + 1
        if z.mean() > 10:
            z.mul_(y)
        else:
            paddle.subtract_(z, y)
        return z
    x, y = rng.uniform(-1, 1, (2, 3)), rng.uniform(0.5, 1, (2, 3))
    want = f(t(x), t(y)).numpy()
    np.testing.assert_allclose(paddle.jit.to_static(f)(t(x), t(y)).numpy(), want, rtol=1e-12)
