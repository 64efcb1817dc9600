"""Special functions (lgamma, digamma, polygamma, gammaln, multigammaln,
gammainc, gammaincc) and parameter-tensor draws (standard_gamma, poisson,
binomial) as a Paddle user calls them."""
import math

import numpy as np
import pytest

import framework as paddle
from framework import OpError
from framework.jit import to_static

EULER = 0.5772156649015329
ZETA3 = 1.2020569031595942


def t(data, dtype='float64', grad=False):
    return paddle.to_tensor(np.asarray(data, dtype), stop_gradient=not grad)


# ---- values -----------------------------------------------------------------------

def test_lgamma_matches_math_lgamma_across_the_real_line():
    x = np.concatenate([np.linspace(-30.3, 30.3, 3001), np.geomspace(1e-300, 1e300, 400)])
    x = x[np.abs(x - np.round(x)) > 1e-6]
    got = paddle.lgamma(t(x)).numpy()
    want = np.array([math.lgamma(v) for v in x])
    assert np.max(np.abs(got - want) / np.maximum(1.0, np.abs(want))) < 1e-13
    assert paddle.gammaln(t(x)).numpy().tolist() == got.tolist()


def test_lgamma_poles_infinities_and_dtypes():
    out = paddle.lgamma(t([0.0, -1.0, -4.0, np.inf, -np.inf, np.nan])).numpy()
    assert out[:5].tolist() == [np.inf] * 5 and np.isnan(out[5])
    assert paddle.lgamma(t([1.5], 'float32')).dtype == paddle.float32
    assert paddle.lgamma(paddle.to_tensor([1, 2, 3])).dtype == paddle.float32
    assert paddle.lgamma(t(4.0)).shape == []
    np.testing.assert_allclose(t([3.0, 5.0]).lgamma().numpy(), np.log([2.0, 24.0]), rtol=1e-14)


def test_digamma_closed_forms_and_recurrence():
    got = paddle.digamma(t([1.0, 0.5, 2.0, 0.25])).numpy()
    want = [-EULER, -EULER - 2 * math.log(2), 1 - EULER, -EULER - math.pi / 2 - 3 * math.log(2)]
    np.testing.assert_allclose(got, want, rtol=1e-14)
    x = np.concatenate([np.linspace(-9.7, 20, 500), np.geomspace(1e-6, 1e8, 50)])
    x = x[np.abs(x - np.round(x)) > 1e-6]
    lhs = paddle.digamma(t(x + 1)).numpy()
    rhs = paddle.digamma(t(x)).numpy() + 1 / x
    # rhs cancels two terms of size 1/x: compare within that scale
    assert np.all(np.abs(lhs - rhs) <= 1e-13 * np.maximum(np.abs(1 / x), np.abs(lhs)) + 1e-13)
    # reflection: psi(1 - x) - psi(x) = pi cot(pi x)
    y = np.array([0.3, -1.7, -5.2, 2.6])
    np.testing.assert_allclose(paddle.digamma(t(1 - y)).numpy() - paddle.digamma(t(y)).numpy(),
                               math.pi / np.tan(math.pi * y), rtol=1e-12)


def test_digamma_poles_follow_paddle():
    out = paddle.digamma(t([0.0, -1.0, -3.0, np.inf, -np.inf])).numpy()
    assert out[0] == -np.inf and np.isnan(out[1]) and np.isnan(out[2])
    assert out[3] == np.inf and np.isnan(out[4])


def test_polygamma_closed_forms():
    x = t([1.0, 0.5, 2.0])
    np.testing.assert_allclose(paddle.polygamma(x, 1).numpy(),
                               [math.pi ** 2 / 6, math.pi ** 2 / 2, math.pi ** 2 / 6 - 1],
                               rtol=1e-14)
    np.testing.assert_allclose(paddle.polygamma(x, 2).numpy()[[0, 1]],
                               [-2 * ZETA3, -14 * ZETA3], rtol=1e-13)
    np.testing.assert_allclose(paddle.polygamma(x, 0).numpy(), paddle.digamma(x).numpy())
    np.testing.assert_allclose(x.polygamma(3).numpy()[0], math.pi ** 4 / 15, rtol=1e-13)
    # the series definition holds for negative non-integers too
    v = -2.5
    direct = math.fsum(1 / (v + k) ** 2 for k in range(200000)) + 1 / (v + 200000)
    np.testing.assert_allclose(paddle.polygamma(t([v]), 1).numpy(), [direct], rtol=1e-9)


def test_polygamma_argument_errors_are_paddles():
    with pytest.raises(ValueError, match='greater than or equal to 0'):
        paddle.polygamma(t([1.0]), -1)
    with pytest.raises(TypeError, match='must be int'):
        paddle.polygamma(t([1.0]), 1.5)


def test_multigammaln_is_the_sum_of_shifted_lgammas():
    x = np.array([2.5, 3.0, 7.25])
    got = paddle.multigammaln(t(x), 3).numpy()
    want = [3 * 2 / 4 * math.log(math.pi) + sum(math.lgamma(v + (1 - j) / 2) for j in (1, 2, 3))
            for v in x]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    with pytest.raises(ValueError):
        paddle.multigammaln(t(x), 0)


def test_gammainc_closed_forms_and_complement():
    y = np.array([0.0, 0.1, 1.0, 3.0, 12.0, 50.0])
    np.testing.assert_allclose(paddle.gammainc(t(np.ones(6)), t(y)).numpy(), -np.expm1(-y),
                               rtol=1e-13, atol=1e-300)
    erf = np.array([math.erf(math.sqrt(v)) for v in y])
    np.testing.assert_allclose(paddle.gammainc(t(np.full(6, 0.5)), t(y)).numpy(), erf, rtol=1e-13)
    a = t([0.3, 2.0, 7.5, 40.0])
    yy = t([0.2, 2.5, 6.0, 45.0])
    total = paddle.gammainc(a, yy) + paddle.gammaincc(a, yy)
    np.testing.assert_allclose(total.numpy(), 1.0, rtol=1e-14)
    # Q(2, y) = (1 + y) e^-y
    np.testing.assert_allclose(paddle.gammaincc(t([2.0]), t([4.0])).numpy(), [5 * math.exp(-4)],
                               rtol=1e-13)
    np.testing.assert_allclose(a.gammainc(yy).numpy(), paddle.gammainc(a, yy).numpy())


def test_gammainc_rejects_negative_arguments():
    with pytest.raises(ValueError, match='x must be greater than or equal to 0'):
        paddle.gammainc(t([-1.0]), t([1.0]))
    with pytest.raises(ValueError, match='y must be greater than or equal to 0'):
        paddle.gammaincc(t([1.0]), t([-1.0]))


# ---- gradients --------------------------------------------------------------------

def numeric(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_lgamma_digamma_polygamma_chain_of_gradients():
    x = t([0.3, 1.7, 6.0, -2.4], grad=True)
    g1, = paddle.grad(paddle.lgamma(x).sum(), x, create_graph=True)
    np.testing.assert_allclose(g1.numpy(), paddle.digamma(x).numpy(), rtol=1e-13)
    g2, = paddle.grad(g1.sum(), x, create_graph=True)
    np.testing.assert_allclose(g2.numpy(), paddle.polygamma(x, 1).numpy(), rtol=1e-13)
    g3, = paddle.grad(g2.sum(), x)
    fd = numeric(lambda v: paddle.polygamma(t(v), 1).numpy(), x.numpy())
    np.testing.assert_allclose(g3.numpy(), fd, rtol=1e-6)


def test_gammainc_gradient_in_y_is_the_density():
    a = t([0.5, 2.0, 5.0])
    y = t([0.4, 2.5, 4.0], grad=True)
    paddle.gammainc(a, y).sum().backward()
    fd = numeric(lambda v: paddle.gammainc(a, t(v)).numpy(), y.numpy())
    np.testing.assert_allclose(y.grad.numpy(), fd, rtol=1e-7)


# ---- static mode and @to_static ---------------------------------------------------

def special_mix(x):
    out = paddle.lgamma(x) + paddle.digamma(x) * 0.5
    if out.mean() > 0:
        out = out + paddle.polygamma(x, 1)
    else:
        out = out - paddle.gammainc(x, x * 2.0)
    return out


@pytest.mark.parametrize('data', [[0.5, 3.0, 4.5], [1.0, 1.5, 2.0]])
def test_special_functions_agree_in_to_static(data):
    eager = special_mix(t(data))
    static = to_static(special_mix)(t(data))
    np.testing.assert_allclose(static.numpy(), eager.numpy(), rtol=1e-13)


def test_special_functions_in_a_static_program():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', [-1], 'float64')
            x.stop_gradient = False
            y = paddle.lgamma(x) + paddle.gammaincc(x, x)
            g = paddle.static.gradients([y.sum()], [x])[0]
        out, grad = paddle.static.Executor().run(
            main, feed={'x': np.array([0.7, 2.0, 9.0])}, fetch_list=[y, g])
    finally:
        paddle.disable_static()
    x = np.array([0.7, 2.0, 9.0])
    want = paddle.lgamma(t(x)) + paddle.gammaincc(t(x), t(x))
    np.testing.assert_allclose(out, want.numpy(), rtol=1e-13)
    # d/dx Q(x, y) at y = x only through y here (Paddle differentiates gammaincc in y)
    dens = np.exp((x - 1) * np.log(x) - x - np.array([math.lgamma(v) for v in x]))
    np.testing.assert_allclose(grad, paddle.digamma(t(x)).numpy() - dens, rtol=1e-12)


# ---- draws with parameter tensors -------------------------------------------------

def test_standard_gamma_moments_dtype_and_seed():
    paddle.seed(5)
    a = t(np.array([0.3, 1.0, 4.0, 50.0]).repeat(1) * np.ones((40000, 1)))
    x = paddle.standard_gamma(a).numpy()
    np.testing.assert_allclose(x.mean(0), [0.3, 1.0, 4.0, 50.0], rtol=0.03)
    np.testing.assert_allclose(x.var(0), [0.3, 1.0, 4.0, 50.0], rtol=0.06)
    assert paddle.standard_gamma(t([1.0], 'float32')).dtype == paddle.float32
    paddle.seed(9)
    first = paddle.standard_gamma(t([2.0, 3.0])).numpy()
    paddle.seed(9)
    assert paddle.standard_gamma(t([2.0, 3.0])).numpy().tolist() == first.tolist()
    assert paddle.standard_gamma(t([-1.0, 0.0])).numpy().tolist() == [0.0, 0.0]   # as Paddle
    assert paddle.standard_gamma(t([2.0])).stop_gradient


def test_standard_gamma_grad_is_the_implicit_reparameterization_gradient():
    """dx/da at a fixed quantile u = P(a, x): -(dP/da) / density."""
    from framework.ops.sampling import standard_gamma_grad_op
    a = np.array([0.05, 0.7, 1.0, 3.0, 30.0, 2e4])
    x = np.array([1e-9, 0.4, 2.0, 5.0, 25.0, 2.01e4])
    got = standard_gamma_grad_op(t(x), t(a)).numpy()
    h = 1e-5 * a
    P = lambda v: paddle.gammainc(t(v), t(x)).numpy()  # noqa: E731
    dPda = (P(a + h) - P(a - h)) / (2 * h)
    dens = np.exp((a - 1) * np.log(x) - x - np.array([math.lgamma(v) for v in a]))
    np.testing.assert_allclose(got, -dPda / dens, rtol=2e-5)


def test_poisson_and_binomial_draws():
    paddle.seed(3)
    lam = t(np.array([0.5, 4.0, 30.0]) * np.ones((20000, 1)), 'float32')
    k = paddle.poisson(lam)
    assert k.dtype == paddle.float32 and k.shape == [20000, 3]
    np.testing.assert_allclose(k.numpy().mean(0), [0.5, 4.0, 30.0], rtol=0.03)
    np.testing.assert_allclose(k.numpy().var(0), [0.5, 4.0, 30.0], rtol=0.06)
    assert np.all(k.numpy() == np.round(k.numpy()))
    n = paddle.to_tensor(np.array([[10], [40]]) * np.ones((1, 20000), np.int64))
    p = t(np.array([[0.2], [0.9]]) * np.ones((1, 20000)), 'float32')
    b = paddle.binomial(n, p)
    assert b.dtype == paddle.int64 and b.shape == [2, 20000]
    np.testing.assert_allclose(b.numpy().mean(1), [2.0, 36.0], rtol=0.02)
    np.testing.assert_allclose(b.numpy().var(1), [1.6, 3.6], rtol=0.06)
    assert paddle.binomial(paddle.to_tensor([5]), t([1.5])).numpy().tolist() == [5]   # clipped
    with pytest.raises(OpError, match='count must be non-negative'):
        paddle.binomial(paddle.to_tensor([-2]), t([0.5]))


def test_poisson_gradient_is_zero_as_paddles():
    lam = t([1.0, 2.0], grad=True)
    g, = paddle.grad(paddle.poisson(lam).sum(), lam)
    assert g.numpy().tolist() == [0.0, 0.0]
