"""The math side of ``paddle.*`` as a Paddle user calls it: the newer
elementwise functions, Bessel functions, aliases, ``out=``, ``alpha``,
``rounding_mode`` -- values against numpy / math / closed forms, gradients
against finite differences, static programs and ``@to_static`` against eager."""
import math

import numpy as np
import pytest

import framework as paddle
from framework import OpError

rng = np.random.default_rng(0)


def t(data, dtype='float64', grad=False):
    return paddle.to_tensor(np.asarray(data, dtype), stop_gradient=not grad)


def fd_grad(f, x, eps=1e-6):
    """Central finite differences of the scalar f(x) (numpy in, float out)."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[i] += eps
        m[i] -= eps
        g[i] = (f(p) - f(m)) / (2 * eps)
    return g


def check_grad(fn, *arrays, wrt=0, rtol=1e-5, atol=1e-7):
    """d sum(fn(...) * w) / d arrays[wrt] against finite differences."""
    w = rng.standard_normal(np.shape(fn(*[t(a) for a in arrays]).numpy()))
    ts = [t(a, grad=(i == wrt)) for i, a in enumerate(arrays)]
    out = fn(*ts)
    (g,) = paddle.grad((out * t(w)).sum(), [ts[wrt]])

    def f(v):
        args = [t(a) for a in arrays]
        args[wrt] = t(v)
        return float((fn(*args).numpy() * w).sum())
    np.testing.assert_allclose(g.numpy(), fd_grad(f, np.asarray(arrays[wrt], float)),
                               rtol=rtol, atol=atol)


def static_run(fn, *arrays, grad=True):
    """fn built into a static program (with its input gradients); returns the
    fetched [out, grads...]."""
    static = paddle.static
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = []
            for i, a in enumerate(arrays):
                v = static.data('x%d' % i, list(np.shape(a)), str(np.asarray(a).dtype))
                v.stop_gradient = not (grad and np.asarray(a).dtype.kind == 'f')
                xs.append(v)
            out = fn(*xs)
            fetch = [out]
            if grad:
                need = [v for v in xs if not v.stop_gradient]
                fetch += static.gradients([out.sum()], need)
        return static.Executor().run(main, feed={'x%d' % i: a for i, a in enumerate(arrays)},
                                     fetch_list=fetch)
    finally:
        paddle.disable_static()


def eager_run(fn, *arrays, grad=True):
    ts = [paddle.to_tensor(a, stop_gradient=not (grad and np.asarray(a).dtype.kind == 'f'))
          for a in arrays]
    out = fn(*ts)
    res = [out.numpy()]
    if grad:
        need = [v for v in ts if not v.stop_gradient]
        res += [g.numpy() for g in paddle.grad(out.sum(), need)]
    return res


def assert_same(a, b, **kw):
    assert len(a) == len(b)
    for u, v in zip(a, b):
        np.testing.assert_allclose(np.asarray(u), np.asarray(v), **kw)


# ---- new unary functions ------------------------------------------------------------------

@pytest.mark.parametrize('name,fn,lo,hi', [
    ('acosh', math.acosh, 1.05, 5), ('asinh', math.asinh, -4, 4), ('atanh', math.atanh, -0.95, 0.95),
    ('expm1', math.expm1, -3, 3), ('deg2rad', math.radians, -720, 720),
    ('rad2deg', math.degrees, -7, 7), ('frac', lambda v: math.fmod(v, 1.0), -9, 9),
    ('sinc', lambda v: math.sin(math.pi * v) / (math.pi * v), -3, 3),
])
def test_unary_functions_values_methods_and_gradients(name, fn, lo, hi):
    x = rng.uniform(lo, hi, (3, 4))
    want = np.vectorize(fn)(x)
    np.testing.assert_allclose(getattr(paddle, name)(t(x)).numpy(), want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(getattr(t(x), name)().numpy(), want, rtol=1e-12, atol=1e-14)
    check_grad(getattr(paddle, name), x)
    assert getattr(paddle, name)(t(x[0], 'float32')).dtype == paddle.float32


def test_float_functions_of_integers_give_float32():
    ints = paddle.to_tensor([1, 2, 3])
    for name in ['acosh', 'asinh', 'atanh', 'expm1', 'deg2rad', 'rad2deg', 'sinc', 'i0', 'i0e',
                 'i1', 'i1e']:
        assert getattr(paddle, name)(ints).dtype == paddle.float32, name
    assert paddle.frac(ints).dtype == paddle.int64 and paddle.frac(ints).tolist() == [0, 0, 0]
    np.testing.assert_allclose(paddle.deg2rad(ints).numpy(), np.radians([1, 2, 3]), rtol=1e-6)


def test_special_points():
    assert paddle.sinc(t([0.0])).item() == 1.0
    g, = paddle.grad(paddle.sinc(x := t([0.0, 0.5], grad=True)).sum(), x)
    assert g.numpy()[0] == 0 and math.isclose(g.numpy()[1], -4 / math.pi, rel_tol=1e-12)
    assert np.isnan(paddle.acosh(t([0.5])).item())
    assert paddle.atanh(t([1.0])).item() == math.inf
    assert paddle.expm1(t([1e-12])).item() == pytest.approx(1e-12, rel=1e-10)
    np.testing.assert_array_equal(paddle.frac(t([-1.5, 2.25])).numpy(), [-0.5, 0.25])


def test_predicates():
    x = t([-np.inf, -2.5, -0.0, 0.0, 3.0, np.inf, np.nan])
    assert paddle.signbit(x).tolist() == [True, True, True, False, False, False, False]
    assert paddle.isposinf(x).tolist() == [False] * 5 + [True, False]
    assert paddle.isneginf(x).tolist() == [True] + [False] * 6
    assert paddle.isreal(x).tolist() == [True] * 7
    assert paddle.isreal(paddle.to_tensor([1 + 0j, 1j])).tolist() == [True, False]
    assert paddle.signbit(paddle.to_tensor([-3, 0, 2])).tolist() == [True, False, False]
    assert x.signbit().dtype == paddle.bool


def test_sgn_positive_negative():
    x = t([-2.0, 0.0, 3.0])
    assert paddle.sgn(x).tolist() == [-1.0, 0.0, 1.0]
    np.testing.assert_allclose(paddle.sgn(paddle.to_tensor([3 + 4j, 0j])).numpy(), [0.6 + 0.8j, 0])
    assert paddle.positive(x) is x
    assert paddle.negative(x).tolist() == [2.0, -0.0, -3.0]
    with pytest.raises(TypeError, match='bool'):
        paddle.negative(paddle.to_tensor([True]))


def test_nan_to_num_defaults_are_the_dtype_limits_and_grad_skips_replaced():
    x = [np.nan, np.inf, -np.inf, 1.5]
    f32 = paddle.nan_to_num(t(x, 'float32')).numpy()
    assert f32.tolist() == [0.0, np.finfo(np.float32).max, np.finfo(np.float32).min, 1.5]
    f64 = paddle.nan_to_num(t(x)).numpy()
    assert f64[1] == np.finfo(np.float64).max
    assert paddle.nan_to_num(t(x), 1.0, 2.0, -3.0).tolist() == [1.0, 2.0, -3.0, 1.5]
    assert paddle.nan_to_num(paddle.to_tensor([1, 2])).tolist() == [1, 2]
    v = t(x, grad=True)
    g, = paddle.grad(paddle.nan_to_num(v).sum(), v)
    assert g.tolist() == [0.0, 0.0, 0.0, 1.0]


def test_frexp_round_trips_and_differentiates_the_mantissa():
    x = np.array([0.0, 1.0, -3.5, 1000.0, 1e-300, 6.0])
    m, e = paddle.frexp(t(x))
    want_m, want_e = np.frexp(x)
    np.testing.assert_array_equal(m.numpy(), want_m)
    np.testing.assert_array_equal(e.numpy(), want_e)
    assert e.dtype == paddle.float64 and paddle.frexp(t(x, 'float32'))[1].dtype == paddle.float32
    check_grad(lambda v: paddle.frexp(v)[0], np.array([0.3, -7.0, 12.5]))


# ---- Bessel functions ----------------------------------------------------------------------

def test_bessel_functions_against_scipy():
    special = pytest.importorskip('scipy.special')
    x = np.concatenate([np.linspace(-40, 40, 801), [0.0, 1e-8, -29.999, 30.001, 100.0, 700.0]])
    for name in ['i0', 'i0e', 'i1', 'i1e']:
        got = getattr(paddle, name)(t(x)).numpy()
        np.testing.assert_allclose(got, getattr(special, name)(x), rtol=2e-14, atol=1e-300,
                                   err_msg=name)
    assert paddle.i0(t([800.0])).item() == math.inf
    assert paddle.i0e(t([-800.0])).item() == pytest.approx(special.i0e(800.0), rel=1e-14)


def test_bessel_gradients_and_closed_forms():
    x = np.array([-2.5, -0.3, 0.7, 3.0])
    np.testing.assert_allclose(paddle.i0(t(x)).numpy(), np.i0(x), rtol=1e-14)
    for name in ['i0', 'i0e', 'i1', 'i1e']:
        check_grad(getattr(paddle, name), x)
    # d i1 / dx and d i1e / dx are 1/2 at 0
    for name in ['i1', 'i1e']:
        v = t([0.0], grad=True)
        g, = paddle.grad(getattr(paddle, name)(v).sum(), v)
        assert g.item() == 0.5
    v = t([0.5, 1.0], grad=True)
    g, = paddle.grad(paddle.i0(v).sum(), v, create_graph=True)
    gg, = paddle.grad(g.sum(), v)      # i0'' = i0 - i1 / x
    xv = np.array([0.5, 1.0])
    np.testing.assert_allclose(gg.numpy(), np.i0(xv) - paddle.i1(t(xv)).numpy() / xv, rtol=1e-12)


# ---- new binary functions ---------------------------------------------------------------------

@pytest.mark.parametrize('name,fn', [
    ('atan2', np.arctan2), ('hypot', np.hypot), ('logaddexp', np.logaddexp),
    ('copysign', np.copysign), ('ldexp', lambda a, b: a * 2.0 ** b), ('fmax', np.fmax),
    ('fmin', np.fmin),
])
def test_binary_functions_broadcast_and_differentiate(name, fn):
    x, y = rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, 4)
    np.testing.assert_allclose(getattr(paddle, name)(t(x), t(y)).numpy(), fn(x, y), rtol=1e-12)
    np.testing.assert_allclose(getattr(t(x), name)(t(y)).numpy(), fn(x, y), rtol=1e-12)
    check_grad(getattr(paddle, name), x, y, wrt=0)
    check_grad(getattr(paddle, name), x, y, wrt=1)     # copysign: 0, yet connected (Paddle)


def test_binary_dtypes_follow_paddle():
    i, j = paddle.to_tensor([1, -2, 3, 0]), paddle.to_tensor([2, 3, -4, 0])
    assert paddle.atan2(i, j).dtype == paddle.float64        # Paddle: integers in float64
    assert paddle.hypot(i, j).dtype == paddle.float32
    assert paddle.logaddexp(i, j).dtype == paddle.float32
    assert paddle.ldexp(i, j).dtype == paddle.float32
    assert paddle.copysign(i, j).tolist() == [1, 2, -3, 0]    # integers stay integer
    assert paddle.fmax(i, j).dtype == paddle.int64
    f32, f64 = t([1.0, 2.0], 'float32'), t([1.0, -2.0])
    assert paddle.hypot(f32, f64).dtype == paddle.float64     # promoted, as torch
    assert paddle.ldexp(f32, paddle.to_tensor([1, 2], 'int32')).tolist() == [2.0, 8.0]
    assert paddle.copysign(f32, -1.0).tolist() == [-1.0, -2.0]


def test_fmax_fmin_ignore_nan_and_gradient_follows_the_result():
    x = t([np.nan, 1.0, np.nan, 2.0, 0.5], grad=True)
    y = t([1.0, np.nan, np.nan, 2.0, 0.5], grad=True)
    out = paddle.fmax(x, y)
    np.testing.assert_array_equal(out.numpy(), [1.0, 1.0, np.nan, 2.0, 0.5])
    gx, gy = paddle.grad(out.sum(), [x, y])
    assert gx.tolist() == [0.0, 1.0, 1.0, 1.0, 1.0] and gy.tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    np.testing.assert_array_equal(paddle.fmin(x, y).numpy(), [1.0, 1.0, np.nan, 2.0, 0.5])
    assert np.isnan(paddle.maximum(x, y).numpy()[0])     # maximum propagates NaN


def test_heaviside_copysign_nextafter_special_values():
    x = t([-1.0, 0.0, 2.0, 0.0])
    assert paddle.heaviside(x, t([0.5, 0.25, 0.5, -1.0])).tolist() == [0.0, 0.25, 1.0, -1.0]
    v = t([0.0, 2.0], grad=True)
    gy, = paddle.grad(paddle.heaviside(t([0.0, 2.0]), v).sum(), v)
    assert gy.tolist() == [1.0, 0.0]
    assert paddle.copysign(t([1.5, -2.0]), t([-0.0, 0.0])).tolist() == [-1.5, 2.0]
    x, y = t([1.5, -2.0], grad=True), t([-1.0, 3.0], grad=True)
    gx, gy = paddle.grad(paddle.copysign(x, y).sum(), [x, y])   # y's gradient: zeros
    assert gx.tolist() == [-1.0, -1.0] and gy.tolist() == [0.0, 0.0]
    nxt = paddle.nextafter(t([1.0, 0.0], 'float32'), t([2.0, -1.0], 'float32')).numpy()
    np.testing.assert_array_equal(nxt, np.nextafter(np.float32([1, 0]), np.float32([2, -1])))
    with pytest.raises(OpError, match='nextafter'):
        paddle.nextafter(paddle.to_tensor([1]), paddle.to_tensor([2]))
    assert paddle.logaddexp(t([1000.0]), t([1000.0])).item() == pytest.approx(1000 + math.log(2))


def test_gcd_lcm():
    a, b = paddle.to_tensor([12, -18, 0, 7, 0]), paddle.to_tensor([8, 12, 5, 0, 0])
    assert paddle.gcd(a, b).tolist() == [4, 6, 5, 7, 0]
    assert paddle.lcm(a, b).tolist() == [24, 36, 0, 0, 0]
    assert paddle.lcm(paddle.to_tensor([-4, 6]), paddle.to_tensor([6, -4])).tolist() == [12, 12]
    with pytest.raises(OpError, match='gcd needs integer'):
        paddle.gcd(t([1.0]), t([2.0]))


def test_bit_shifts():
    x = paddle.to_tensor([-8, 5, 1, -1], 'int32')
    y = paddle.to_tensor([1, 2, 31, 33], 'int32')
    assert paddle.bitwise_left_shift(x, y).tolist() == [-16, 20, -2 ** 31, 0]
    assert paddle.bitwise_right_shift(x, y).tolist() == [-4, 1, 0, -1]
    assert paddle.bitwise_right_shift(x, y, is_arithmetic=False).tolist() == [2 ** 31 - 4, 1, 0, 0]
    neg = paddle.to_tensor([-1, 0, -5, 40], 'int32')
    assert paddle.bitwise_left_shift(x, neg).tolist() == [0, 5, 0, 0]
    assert paddle.bitwise_right_shift(x, neg).tolist() == [-1, 5, 0, -1]
    u = paddle.to_tensor([200, 5, 255], 'uint8')
    assert paddle.bitwise_right_shift(u, paddle.to_tensor([1, 2, 9], 'uint8')).tolist() == [100, 1, 0]
    assert paddle.bitwise_left_shift(u, paddle.to_tensor([1, 2, 9], 'uint8')).tolist() == [144, 20, 0]
    assert x.bitwise_left_shift(paddle.to_tensor([1, 1, 1, 1], 'int32')).tolist() == [-16, 10, 2, -2]
    assert paddle.bitwise_invert(x).tolist() == [7, -6, -2, 0]
    assert paddle.bitwise_invert(paddle.to_tensor([True, False])).tolist() == [False, True]
    with pytest.raises(OpError, match='integer'):
        paddle.bitwise_left_shift(t([1.0]), t([1.0]))


# ---- aliases, alpha, rounding_mode, clip --------------------------------------------------------

def test_aliases():
    x, y = t([1.0, 2.0, 3.0]), t([2.0, 2.0, 2.0])
    for short, full in [('eq', 'equal'), ('ne', 'not_equal'), ('gt', 'greater_than'),
                        ('ge', 'greater_equal'), ('lt', 'less_than'), ('le', 'less_equal'),
                        ('greater', 'greater_than'), ('less', 'less_than'),
                        ('sub', 'subtract'), ('mul', 'multiply'), ('div', 'divide'),
                        ('true_divide', 'divide'), ('clamp', 'clip'), ('ger', 'outer')]:
        if short == 'clamp':
            a, b = getattr(paddle, short)(x, 1.5, 2.5), getattr(paddle, full)(x, 1.5, 2.5)
        else:
            a, b = getattr(paddle, short)(x, y), getattr(paddle, full)(x, y)
        assert a.tolist() == b.tolist(), short
        assert callable(getattr(paddle.Tensor, short)), short
    assert x.eq(2.0).tolist() == [False, True, False]
    assert x.add_n().tolist() == [1.0, 2.0, 3.0]


def test_add_and_subtract_alpha():
    x, y = t([1.0, 2.0]), t([10.0, 20.0])
    assert paddle.add(x, y, alpha=0.5).tolist() == [6.0, 12.0]
    assert paddle.subtract(x, y, alpha=2).tolist() == [-19.0, -38.0]
    assert x.add(y, alpha=-1).tolist() == [-9.0, -18.0]
    assert paddle.add(paddle.to_tensor([1, 2]), paddle.to_tensor([3, 4]), alpha=2).tolist() == [7, 10]
    assert paddle.add(x, 3.0, alpha=2).tolist() == [7.0, 8.0]
    check_grad(lambda a, b: paddle.add(a, b, alpha=3), np.array([1.0, 2.0]), np.array([0.5, 1.0]),
               wrt=1)


def test_divide_rounding_modes():
    a, b = paddle.to_tensor([7, -7, 6, -6]), paddle.to_tensor([2, 2, -4, -4])
    assert paddle.divide(a, b, rounding_mode='trunc').tolist() == [3, -3, -1, 1]
    assert paddle.divide(a, b, rounding_mode='floor').tolist() == [3, -4, -2, 1]
    assert paddle.divide(a, b).dtype == paddle.float32
    f = t([7.5, -7.5])
    assert paddle.divide(f, t([2.0, 2.0]), rounding_mode='trunc').tolist() == [3.0, -3.0]
    assert paddle.divide(f, t([2.0, 2.0]), rounding_mode='floor').tolist() == [3.0, -4.0]
    assert paddle.div(a, b, rounding_mode='trunc').dtype == paddle.int64
    big = paddle.to_tensor([2 ** 62 + 1], 'int64')      # exact, not through float64
    assert paddle.divide(big, paddle.to_tensor([-1]), rounding_mode='trunc').item() == -(2 ** 62) - 1
    with pytest.raises(ValueError, match='rounding_mode'):
        paddle.divide(a, b, rounding_mode='round')


def test_clip_of_integers_with_float_bounds_computes_in_float32():
    x = paddle.to_tensor([1, 5, 9])
    out = paddle.clip(x, 2.5, 7.5)
    assert out.dtype == paddle.float32 and out.tolist() == [2.5, 5.0, 7.5]
    assert paddle.clip(x, 2, 7).dtype == paddle.int64
    assert x.clamp(max=4).tolist() == [1, 4, 4]


def test_bad_input_errors_name_the_function():
    with pytest.raises(OpError, match='atan2'):
        paddle.atan2(t(np.ones((2, 3))), t(np.ones((4,))))
    with pytest.raises(OpError, match='lcm'):
        paddle.lcm(t([1.5]), paddle.to_tensor([2]))


# ---- out= ----------------------------------------------------------------------------------------

def test_out_takes_over_the_result_and_is_returned():
    x = t([1.0, 2.0], grad=True)
    z = paddle.zeros([5], 'int32')
    r = paddle.add(x, t([3.0, 4.0]), out=z)
    assert r is z and z.tolist() == [4.0, 6.0] and z.dtype == paddle.float64
    assert not z.stop_gradient
    (z * z).sum().backward()              # the gradient flows through out
    assert x.grad.tolist() == [8.0, 12.0]
    for fn, args in [(paddle.sin, ()), (paddle.exp, ()), (paddle.sum, ()), (paddle.mean, ()),
                     (paddle.acosh, ()), (paddle.clip, (0.5, 1.5)), (paddle.cumsum, (0,)),
                     (paddle.round, ()), (paddle.logsumexp, ()), (paddle.amax, ())]:
        o = paddle.zeros([1])
        want = fn(t([1.0, 2.0]), *args)
        assert fn(t([1.0, 2.0]), *args, out=o) is o
        np.testing.assert_array_equal(o.numpy(), want.numpy())
    o = paddle.zeros([1])
    paddle.prod(t([2.0, 3.0]), None, False, None, o)     # prod's out is positional
    assert o.item() == 6.0
    o = paddle.zeros([1], 'int64')
    paddle.bitwise_and(paddle.to_tensor([6]), paddle.to_tensor([3]), o)
    assert o.tolist() == [2]


def test_out_in_static_mode_and_to_static():
    def f(x):
        o = paddle.zeros([2], 'float64')
        paddle.multiply(x, x, out=o)
        paddle.sin(o, out=o)
        return o
    x = np.array([0.5, 1.5])
    want = np.sin(x * x)
    assert_same(static_run(f, x, grad=False), [want], rtol=1e-12)
    np.testing.assert_allclose(paddle.jit.to_static(f)(t(x)).numpy(), want, rtol=1e-12)


# ---- eager vs static vs @to_static --------------------------------------------------------------

def _mix(x, y):
    a = paddle.atan2(x, y) + paddle.hypot(x, y) * paddle.logaddexp(x, y)
    b = paddle.copysign(paddle.expm1(x), y) + paddle.ldexp(x, y) + paddle.asinh(y)
    c = paddle.fmax(x, y) - paddle.fmin(x, y) + paddle.sinc(x) + paddle.i0e(y) + paddle.i1(x)
    d = paddle.add(x, y, alpha=2.0) + paddle.nan_to_num(paddle.frac(x)) + paddle.deg2rad(y)
    return a * b + c + d


def test_new_ops_in_static_programs_match_eager():
    x, y = rng.uniform(-2, 2, (3, 4)), rng.uniform(-2, 2, (3, 4))
    assert_same(static_run(_mix, x, y), eager_run(_mix, x, y), rtol=1e-10, atol=1e-12)


def test_new_ops_under_to_static_match_eager_with_gradients():
    x, y = rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (2, 3))

    def branchy(x, y):
        if (x > 0).sum() > 2:          # a tensor condition: a static cond
            out = _mix(x, y)
        else:
            out = paddle.heaviside(x, y) + paddle.gcd(paddle.cast(x, 'int64'), paddle.to_tensor(3))
        return out

    conv = paddle.jit.to_static(branchy)
    for a in (x, -np.abs(x)):
        xe, ye = t(a, grad=True), t(y, grad=True)
        e = branchy(xe, ye)
        ge = paddle.grad(e.sum(), [xe, ye], allow_unused=True)
        xs, ys = t(a, grad=True), t(y, grad=True)
        s = conv(xs, ys)
        gs = paddle.grad(s.sum(), [xs, ys], allow_unused=True)
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-10)
        for u, v in zip(ge, gs):
            if u is None:
                assert v is None or not v.numpy().any()
            else:
                np.testing.assert_allclose(v.numpy(), u.numpy(), rtol=1e-10)
