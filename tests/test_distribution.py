"""paddle.distribution as a Paddle user calls it: densities, entropies, moments
and KL divergences against closed forms, draws by their statistics,
reparameterized gradients by finite differences at a fixed seed (or closed
forms), transforms, the KL registry, static mode and @to_static, and the
errors Paddle raises for invalid parameters."""
import math
import warnings

import numpy as np
import pytest

import framework as paddle
from framework.distribution import (AbsTransform, AffineTransform, Bernoulli, Beta, Binomial,
                                    Categorical, Cauchy, ChainTransform, Chi2,
                                    ContinuousBernoulli, Dirichlet, Distribution, ExpTransform,
                                    Exponential, ExponentialFamily, Gamma, Geometric, Gumbel,
                                    Independent, IndependentTransform, Laplace, LKJCholesky,
                                    LogNormal, Multinomial, MultivariateNormal, Normal, Poisson,
                                    PowerTransform, ReshapeTransform, SigmoidTransform,
                                    SoftmaxTransform, StackTransform, StickBreakingTransform,
                                    StudentT, TanhTransform, TransformedDistribution, Uniform,
                                    kl_divergence, register_kl)
from framework.jit import to_static

EULER = 0.5772156649015329
lgamma = np.vectorize(math.lgamma)


def t(data, dtype='float64', grad=False):
    return paddle.to_tensor(np.asarray(data, dtype), stop_gradient=not grad)


def close(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(np.asarray(got.numpy() if hasattr(got, 'numpy') else got),
                               want, rtol=rtol, atol=atol)


def digamma(x):
    """psi by the recurrence up to 30 and the asymptotic series (reference)."""
    x = np.asarray(x, float)
    acc = np.zeros_like(x)
    for _ in range(30):
        acc -= 1 / x
        x = x + 1
    return acc + np.log(x) - 0.5 / x - 1 / (12 * x ** 2) + 1 / (120 * x ** 4) - 1 / (252 * x ** 6)


def seeded_fd(f, x, eps=1e-6, seed=7):
    """Central differences of f(x) (a scalar) with the generator reseeded before
    every evaluation, so each sees the same draws."""
    x = np.asarray(x, float)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        paddle.seed(seed)
        fp = f(hi)
        paddle.seed(seed)
        fm = f(lo)
        g[i] = (fp - fm) / (2 * eps)
    return g


def seeded_grad(f, x, seed=7):
    xt = t(x, grad=True)
    paddle.seed(seed)
    out = f(xt)
    g, = paddle.grad(out, xt)
    return g.numpy()


# ---- Normal, Uniform, LogNormal -------------------------------------------------------

def test_normal_density_entropy_moments_cdf_and_kl():
    loc, scale = np.array([0.0, 1.5, -2.0]), np.array([1.0, 0.5, 3.0])
    d = Normal(t(loc), t(scale))
    v = np.array([0.3, 1.0, 4.0])
    logp = -((v - loc) ** 2) / (2 * scale ** 2) - np.log(scale) - 0.5 * math.log(2 * math.pi)
    close(d.log_prob(t(v)), logp)
    close(d.prob(t(v)), np.exp(logp))
    close(d.probs(t(v)), np.exp(logp))
    close(d.entropy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log(scale))
    close(d.mean, loc)
    close(d.variance, scale ** 2)
    close(d.cdf(t(loc)), [0.5] * 3)
    close(d.icdf(d.cdf(t(v))), v, rtol=1e-9)
    q = Normal(t([1.0, 1.0, 1.0]), t([2.0, 1.0, 0.5]))
    qloc, qscale = q.loc.numpy(), q.scale.numpy()
    kl = np.log(qscale / scale) + (scale ** 2 + (loc - qloc) ** 2) / (2 * qscale ** 2) - 0.5
    close(d.kl_divergence(q), kl)
    close(kl_divergence(d, q), kl)


def test_normal_parameter_conversion_follows_paddle():
    d = Normal(0.0, 1.0)
    assert d.loc.dtype == paddle.float32 and d.batch_shape == () and d.event_shape == ()
    assert d.sample([3]).shape == [3] and d.sample().shape == []
    d = Normal([0.0, 1.0], [1.0, 2.0])
    assert d.loc.dtype == paddle.float32 and d.batch_shape == (2,)
    d = Normal(np.array([0.0, 1.0]), np.array([1.0, 2.0]))
    assert d.loc.dtype == paddle.float64
    d = Normal(t([[0.0], [1.0]]), t([1.0, 2.0, 3.0]))
    assert d.batch_shape == (2, 3) and d.sample([4]).shape == [4, 2, 3]
    assert d.sample([4]).dtype == paddle.float64
    with pytest.raises(TypeError, match='sample shape'):
        d.sample(3)
    with pytest.raises(TypeError):
        Normal('a', 1.0)
    with pytest.raises(ValueError, match='all arguments should be Tensor'):
        Normal(t([0.0]), 1.0)


def test_normal_log_prob_casts_value_dtype_with_a_warning():
    d = Normal(t([0.0], 'float32'), t([1.0], 'float32'))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        out = d.log_prob(t([0.5], 'float64'))
    assert out.dtype == paddle.float32 and any('dtype' in str(x.message) for x in w)


def test_normal_and_uniform_draws_have_their_moments_and_repeat_with_the_seed():
    paddle.seed(11)
    x = Normal(t([1.0, -2.0]), t([0.5, 3.0])).sample([40000]).numpy()
    np.testing.assert_allclose(x.mean(0), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(x.std(0), [0.5, 3.0], rtol=0.02)
    u = Uniform(t([0.0, -1.0]), t([2.0, 5.0])).sample([40000]).numpy()
    assert u.min() >= -1.0 and (u[:, 0] < 2).all() and (u[:, 1] < 5).all()
    np.testing.assert_allclose(u.mean(0), [1.0, 2.0], atol=0.05)
    np.testing.assert_allclose(u.var(0), [4 / 12, 36 / 12], rtol=0.03)
    paddle.seed(4)
    a = Normal(0.0, 1.0).rsample([5]).numpy()
    paddle.seed(4)
    assert Normal(0.0, 1.0).rsample([5]).numpy().tolist() == a.tolist()
    # a non-zero seed argument gives a fixed stream, as Paddle's
    d = Normal(0.0, 1.0)
    assert d.sample([4], seed=3).numpy().tolist() == d.sample([4], seed=3).numpy().tolist()


@pytest.mark.parametrize('make', [
    lambda p: Normal(p[0], p[1]),
    lambda p: Uniform(p[0], p[0] + p[1]),
    lambda p: LogNormal(p[0], p[1]),
    lambda p: Laplace(p[0], p[1]),
    lambda p: Cauchy(p[0], p[1]),
    lambda p: Gumbel(p[0], p[1]),
], ids=['normal', 'uniform', 'lognormal', 'laplace', 'cauchy', 'gumbel'])
def test_location_scale_rsample_gradients_match_finite_differences(make):
    params = np.array([[0.3, -1.2], [0.8, 2.0]])

    def total(p):
        return float(make(t(p)).rsample([6]).sum().numpy()) if not hasattr(p, 'stop_gradient') \
            else make(p).rsample([6]).sum()
    want = seeded_fd(total, params)
    got = seeded_grad(total, params)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_uniform_density_entropy_cdf_and_kl():
    d = Uniform(t([0.0, -1.0]), t([2.0, 3.0]))
    close(d.log_prob(t([1.0, 5.0])), [-math.log(2.0), -np.inf])
    close(d.probs(t([1.0, -2.0])), [0.5, 0.0])
    close(d.entropy(), np.log([2.0, 4.0]))
    close(d.mean, [1.0, 1.0])
    close(d.variance, [4 / 12, 16 / 12])
    close(d.cdf(t([1.0, 4.0])), [0.5, 1.0])
    close(d.icdf(t([0.25, 0.5])), [0.5, 1.0])
    wide = Uniform(t([-1.0, -1.0]), t([4.0, 2.0]))
    close(kl_divergence(d, wide), [math.log(5 / 2), np.inf])


def test_lognormal_is_exp_of_normal():
    loc, scale = np.array([0.2, -0.5]), np.array([0.7, 1.3])
    d = LogNormal(t(loc), t(scale))
    v = np.array([0.5, 2.0])
    logp = -((np.log(v) - loc) ** 2) / (2 * scale ** 2) - np.log(scale * v * math.sqrt(2 * math.pi))
    close(d.log_prob(t(v)), logp)
    close(d.probs(t(v)), np.exp(logp))
    close(d.mean, np.exp(loc + scale ** 2 / 2))
    close(d.variance, np.expm1(scale ** 2) * np.exp(2 * loc + scale ** 2))
    close(d.entropy(), loc + 0.5 + 0.5 * np.log(2 * math.pi * scale ** 2))
    q = LogNormal(t([0.0, 0.0]), t([1.0, 1.0]))
    base_kl = Normal(t(loc), t(scale)).kl_divergence(Normal(t([0.0] * 2), t([1.0] * 2)))
    close(kl_divergence(d, q), base_kl)
    paddle.seed(2)
    x = d.sample([40000]).numpy()
    assert x.min() > 0
    np.testing.assert_allclose(np.log(x).mean(0), loc, atol=0.03)
    # small variances: expm1 keeps the relative precision
    close(LogNormal(t([0.0]), t([1e-6])).variance, [np.expm1(1e-12)], rtol=1e-9)


# ---- discrete: Categorical, Bernoulli, Binomial, Geometric, Poisson, Multinomial ----

def test_categorical_follows_paddles_two_normalisations():
    logits = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 2.0]])
    d = Categorical(t(logits))
    p_soft = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    close(d.entropy(), -(p_soft * np.log(p_soft)).sum(-1))
    q = Categorical(t([[1.0, 1.0, 1.0], [3.0, 0.0, 1.0]]))
    q_soft = np.exp(q.logits.numpy()) / np.exp(q.logits.numpy()).sum(-1, keepdims=True)
    close(d.kl_divergence(q), (p_soft * np.log(p_soft / q_soft)).sum(-1, keepdims=True))
    close(kl_divergence(d, q), (p_soft * np.log(p_soft / q_soft)).sum(-1, keepdims=True))
    p_norm = logits / logits.sum(-1, keepdims=True)        # probs: logits / sum
    # a 1-D value is evaluated in every batch row (Paddle's broadcast)
    close(d.probs(t([2, 0], 'int64')), [[p_norm[0, 2], p_norm[0, 0]], [p_norm[1, 2], p_norm[1, 0]]])
    close(d.log_prob(t([[0, 1], [2, 2]], 'int64')), np.log([[p_norm[0, 0], p_norm[0, 1]],
                                                            [p_norm[1, 2], p_norm[1, 2]]]))
    one = Categorical(t([1.0, 3.0]))
    close(one.probs(t([1, 1, 0], 'int64')), [0.75, 0.75, 0.25])
    assert d.batch_shape == (2,)


def test_categorical_draws_follow_softmax_of_logits():
    paddle.seed(1)
    d = Categorical(t([[0.0, math.log(3.0)], [math.log(4.0), 0.0]]))
    x = d.sample([20000])
    assert x.shape == [20000, 2] and x.dtype == paddle.int64
    np.testing.assert_allclose(x.numpy().mean(0), [0.75, 0.2], atol=0.015)
    assert Categorical(t([1.0, 2.0])).sample([2, 3]).shape == [2, 3]


def test_bernoulli_values_and_relaxed_rsample():
    p = np.array([0.2, 0.5, 0.9])
    d = Bernoulli(t(p))
    close(d.log_prob(t([1.0, 0.0, 1.0])), np.log([0.2, 0.5, 0.9]))
    close(d.prob(t([0.0, 0.0, 0.0])), 1 - p)
    close(d.cdf(t([-1.0, 0.5, 1.0])), [0.0, 0.5, 1.0])
    close(d.entropy(), -(p * np.log(p) + (1 - p) * np.log(1 - p)))
    close(d.mean, p)
    close(d.variance, p * (1 - p))
    q = Bernoulli(t([0.5, 0.5, 0.5]))
    close(kl_divergence(d, q), p * np.log(p / 0.5) + (1 - p) * np.log((1 - p) / 0.5))
    close(ExponentialFamily.entropy(d), d.entropy().numpy(), rtol=1e-9)
    paddle.seed(8)
    x = Bernoulli(t(p, 'float32')).sample([20000])
    assert x.dtype == paddle.float32 and x.shape == [20000, 3] and x.stop_gradient
    np.testing.assert_allclose(x.numpy().mean(0), p, atol=0.015)
    # rsample: the relaxed logit (Paddle returns logits); sigmoid of it is Bernoulli-like
    r = d.rsample([20000], temperature=0.05)
    np.testing.assert_allclose((r.numpy() > 0).mean(0), p, atol=0.015)
    with pytest.raises(TypeError, match='temperature'):
        d.rsample([2], temperature='1')
    with pytest.raises(TypeError):
        Bernoulli(1)               # ints are refused, as by Paddle
    assert Bernoulli(1.0).probs.numpy() < 1.0   # probs are clipped by eps


def test_binomial_pmf_entropy_kl_and_draws():
    n, p = np.array([10.0, 20.0]), np.array([0.3, 0.6])
    d = Binomial(t(n), t(p))
    k = np.array([3.0, 12.0])
    logp = (lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * np.log(p)
            + (n - k) * np.log(1 - p))
    close(d.log_prob(t(k)), logp, rtol=1e-9)
    support = np.arange(21)[:, None]
    with np.errstate(invalid='ignore', divide='ignore'):
        pmf = np.exp(lgamma(n + 1) - lgamma(support + 1)
                     - lgamma(np.maximum(n - support + 1, 1e-300))
                     + support * np.log(p) + (n - support) * np.log(1 - p)) * (support <= n)
    ent = -(pmf * np.log(np.where(pmf > 0, pmf, 1))).sum(0)
    close(d.entropy(), ent, rtol=1e-8)
    close(d.mean, n * p)
    close(d.variance, n * p * (1 - p))
    q = Binomial(t(n), t([0.5, 0.5]))
    qpmf = np.exp(lgamma(n + 1) - lgamma(support + 1) - lgamma(np.maximum(n - support + 1, 1e-300))
                  + np.log(0.5) * n) * (support <= n)
    kl = (pmf * (np.log(np.where(pmf > 0, pmf, 1)) - np.log(np.where(qpmf > 0, qpmf, 1)))).sum(0)
    close(kl_divergence(d, q), kl, rtol=1e-8)
    paddle.seed(3)
    x = d.sample([20000])
    assert x.shape == [20000, 2] and x.dtype == paddle.float64
    np.testing.assert_allclose(x.numpy().mean(0), n * p, rtol=0.02)
    assert Binomial(10, 0.3).mean.item() == pytest.approx(3.0)


def test_geometric_pmf_cdf_entropy_kl():
    p = np.array([0.2, 0.7])
    d = Geometric(t(p))
    k = np.array([3.0, 0.0])
    close(d.pmf(t(k)), (1 - p) ** k * p)
    close(d.log_pmf(t(k)), np.log((1 - p) ** k * p))
    close(d.log_prob(t(k)), np.log((1 - p) ** k * p))
    close(d.cdf(t(k)), 1 - (1 - p) ** (k + 1))
    close(d.pmf(2), (1 - p) ** 2 * p)
    close(d.mean, 1 / p - 1)
    close(d.variance, (1 - p) / p ** 2)
    close(d.entropy(), -((1 - p) * np.log(1 - p) + p * np.log(p)) / p)
    q = Geometric(t([0.5, 0.5]))
    close(kl_divergence(d, q), p * np.log(p / 0.5) + (1 - p) * np.log((1 - p) / 0.5))
    paddle.seed(6)
    x = d.sample([40000]).numpy()
    np.testing.assert_allclose(x.mean(0), 1 / p - 1, rtol=0.03)
    assert np.all(x == np.floor(x)) and x.min() >= 0
    with pytest.raises(TypeError):
        d.pmf(1.5)


def test_poisson_pmf_entropy_kl_and_draws():
    rate = np.array([0.5, 4.0, 20.0])
    d = Poisson(t(rate))
    k = np.array([0.0, 3.0, 25.0])
    close(d.log_prob(t(k)), -rate + k * np.log(rate) - lgamma(k + 1), rtol=1e-10)
    support = np.arange(200)[:, None]
    lp = -rate + support * np.log(rate) - lgamma(support + 1)
    close(d.entropy(), -(np.exp(lp) * lp).sum(0), rtol=1e-9)
    q = Poisson(t([1.0, 1.0, 1.0]))
    close(kl_divergence(d, q), rate * np.log(rate) - rate + 1.0, rtol=1e-8)
    close(d.mean, rate)
    close(d.variance, rate)
    assert Poisson(2.0).rate.shape == [1]         # a number gives shape [1], as Paddle
    paddle.seed(2)
    x = d.sample([20000]).numpy()
    np.testing.assert_allclose(x.mean(0), rate, rtol=0.03)
    with pytest.raises(ValueError, match='batch_shape'):
        d.kl_divergence(Poisson(t([1.0])))


def test_multinomial_pmf_entropy_and_draws():
    probs = np.array([[0.2, 0.3, 0.5], [0.1, 0.0, 0.9]])
    d = Multinomial(10, t(probs))
    x = np.array([[2.0, 3.0, 5.0], [1.0, 0.0, 9.0]])
    with np.errstate(divide='ignore', invalid='ignore'):
        logp = lgamma(11) - lgamma(x + 1).sum(-1) + np.where(x > 0, x * np.log(probs), 0).sum(-1)
    close(d.log_prob(t(x)), logp)
    close(d.mean, 10 * probs)
    close(d.variance, 10 * probs * (1 - probs))
    # entropy by enumerating all count vectors of 3 categories summing to 10
    single = Multinomial(10, t(probs[0]))
    pmf = []
    for a in range(11):
        for b in range(11 - a):
            c = 10 - a - b
            pmf.append(math.exp(math.lgamma(11) - math.lgamma(a + 1) - math.lgamma(b + 1)
                                - math.lgamma(c + 1) + a * math.log(0.2) + b * math.log(0.3)
                                + c * math.log(0.5)))
    pmf = np.array(pmf)
    close(single.entropy(), -(pmf * np.log(pmf)).sum(), rtol=1e-8)
    paddle.seed(5)
    s = d.sample([5000])
    assert s.shape == [5000, 2, 3]
    assert np.all(s.numpy().sum(-1) == 10)
    np.testing.assert_allclose(s.numpy().mean(0), 10 * probs, atol=0.1)
    with pytest.raises(ValueError, match='total_count'):
        Multinomial(0, t(probs))


# ---- continuous: Gamma, Chi2, Exponential, Beta, Dirichlet, Laplace, Cauchy ... ----

def test_gamma_and_chi2_closed_forms():
    a, b = np.array([0.5, 2.0, 7.0]), np.array([1.0, 0.5, 3.0])
    d = Gamma(t(a), t(b))
    v = np.array([0.3, 2.0, 1.5])
    logp = a * np.log(b) + (a - 1) * np.log(v) - b * v - lgamma(a)
    close(d.log_prob(t(v)), logp)
    close(d.prob(t(v)), np.exp(logp))
    close(d.entropy(), a - np.log(b) + lgamma(a) + (1 - a) * digamma(a), rtol=1e-9)
    close(d.mean, a / b)
    close(d.variance, a / b ** 2)
    a2, b2 = np.array([1.0, 1.0, 2.0]), np.array([2.0, 2.0, 2.0])
    kl = ((a - a2) * digamma(a) - lgamma(a) + lgamma(a2) + a2 * (np.log(b) - np.log(b2))
          + a * (b2 - b) / b)
    close(kl_divergence(d, Gamma(t(a2), t(b2))), kl, rtol=1e-9)
    close(ExponentialFamily.entropy(d), d.entropy().numpy(), rtol=1e-9)
    c = Chi2(t([3.0, 8.0]))
    close(c.mean, [3.0, 8.0])
    close(c.variance, [6.0, 16.0])
    close(c.log_prob(t([2.0, 2.0])), Gamma(t([1.5, 4.0]), t([0.5, 0.5])).log_prob(t([2.0, 2.0])))
    with pytest.raises(ValueError, match='positive'):
        Chi2(t([-1.0]))
    with pytest.raises(ValueError, match='all arguments should be Tensor'):
        Gamma(t([1.0]), 2.0)


def test_gamma_rsample_is_reparameterized():
    """Draws have Gamma's moments; d x / d rate = -x / rate; the shape gradient
    averages to d E[x] / d a = 1 / rate (implicit reparameterization)."""
    paddle.seed(12)
    a = t([0.4, 3.0, 40.0], grad=True)
    b = t([2.0, 1.0, 0.5], grad=True)
    x = Gamma(a, b).rsample([30000])
    np.testing.assert_allclose(x.numpy().mean(0), [0.2, 3.0, 80.0], rtol=0.03)
    np.testing.assert_allclose(x.numpy().var(0), [0.1, 3.0, 160.0], rtol=0.06)
    ga, gb = paddle.grad(x.mean(0).sum(), [a, b])
    np.testing.assert_allclose(ga.numpy(), 1 / b.numpy(), rtol=0.03)
    np.testing.assert_allclose(gb.numpy(), -x.numpy().mean(0) / b.numpy(), rtol=1e-10)
    assert Gamma(a, b).sample([3]).stop_gradient


def test_gamma_rsample_gradient_per_draw_is_minus_dcdf_over_density():
    paddle.seed(3)
    a = t([0.7, 5.0], grad=True)
    x = Gamma(a, t([1.0, 1.0])).rsample([4])
    g = np.stack([paddle.grad(x[i, j], a, retain_graph=True)[0].numpy()[j]
                  for i in range(4) for j in range(2)])
    xs = x.numpy().ravel()
    av = np.tile(a.numpy(), 4)
    h = 1e-6
    dcdf = (paddle.gammainc(t(av + h), t(xs)) - paddle.gammainc(t(av - h), t(xs))).numpy() / (2 * h)
    dens = np.exp((av - 1) * np.log(xs) - xs - lgamma(av))
    np.testing.assert_allclose(g, -dcdf / dens, rtol=1e-5)


def test_exponential_closed_forms_and_draws():
    r = np.array([0.5, 2.0])
    d = Exponential(t(r))
    v = np.array([1.0, 0.3])
    close(d.log_prob(t(v)), np.log(r) - r * v)
    close(d.prob(t(v)), r * np.exp(-r * v))
    close(d.cdf(t(v)), 1 - np.exp(-r * v))
    close(d.icdf(t([0.5, 0.9])), -np.log1p(-np.array([0.5, 0.9])) / r)
    close(d.entropy(), 1 - np.log(r))
    close(d.mean, 1 / r)
    close(d.variance, 1 / r ** 2)
    q = Exponential(t([1.0, 1.0]))
    close(kl_divergence(d, q), np.log(r) + 1 / r - 1)
    paddle.seed(1)
    x = d.sample([40000]).numpy()
    np.testing.assert_allclose(x.mean(0), 1 / r, rtol=0.03)
    rate = np.array([0.5, 2.0])
    f = lambda p: (float(Exponential(t(p)).rsample([5]).sum().numpy())  # noqa: E731
                   if not hasattr(p, 'stop_gradient') else Exponential(p).rsample([5]).sum())
    np.testing.assert_allclose(seeded_grad(f, rate), seeded_fd(f, rate), rtol=1e-6)


def test_beta_and_dirichlet_closed_forms():
    al, be = np.array([0.5, 2.0, 5.0]), np.array([0.7, 3.0, 1.5])
    d = Beta(t(al), t(be))
    v = np.array([0.2, 0.5, 0.9])
    lbeta = lgamma(al) + lgamma(be) - lgamma(al + be)
    close(d.log_prob(t(v)), (al - 1) * np.log(v) + (be - 1) * np.log(1 - v) - lbeta, rtol=1e-9)
    close(d.mean, al / (al + be))
    close(d.variance, al * be / ((al + be) ** 2 * (al + be + 1)))
    ent = (lbeta - (al - 1) * digamma(al) - (be - 1) * digamma(be)
           + (al + be - 2) * digamma(al + be))
    close(d.entropy(), ent, rtol=1e-9)
    q = Beta(t([1.0, 1.0, 1.0]), t([1.0, 1.0, 1.0]))
    close(kl_divergence(d, q), -ent, rtol=1e-9)        # KL to the uniform is -entropy
    conc = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, 4.0]])
    di = Dirichlet(t(conc))
    assert di.batch_shape == (2,) and di.event_shape == (3,)
    x = np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]])
    c0 = conc.sum(-1)
    logp = lgamma(c0) - lgamma(conc).sum(-1) + ((conc - 1) * np.log(x)).sum(-1)
    close(di.log_prob(t(x)), logp, rtol=1e-9)
    close(di.mean, conc / c0[:, None])
    close(di.variance, conc * (c0[:, None] - conc) / (c0[:, None] ** 2 * (c0[:, None] + 1)))
    ent = (lgamma(conc).sum(-1) - lgamma(c0) + (c0 - 3) * digamma(c0)
           - ((conc - 1) * digamma(conc)).sum(-1))
    close(di.entropy(), ent, rtol=1e-9)
    with pytest.raises(NotImplementedError, match='_mean_carrier_measure'):
        ExponentialFamily.entropy(di)            # as Paddle: Dirichlet/Beta leave it out
    with pytest.raises(NotImplementedError):
        ExponentialFamily.entropy(d)
    flat = Dirichlet(t(np.ones((2, 3))))
    close(kl_divergence(di, flat), -ent - lgamma(np.array([3.0, 3.0])), rtol=1e-9)


def test_beta_and_dirichlet_draws_and_reparameterized_gradients():
    paddle.seed(21)
    conc = t([[2.0, 3.0, 5.0]], grad=True)
    x = Dirichlet(conc).rsample([30000])
    assert x.shape == [30000, 1, 3]
    np.testing.assert_allclose(x.numpy().sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(x.numpy().mean(0)[0], [0.2, 0.3, 0.5], atol=0.005)
    # d E[x_0] / d c = (e_0 c0 - c_0 1) / c0^2
    g, = paddle.grad(x.mean(0)[0, 0], conc)
    np.testing.assert_allclose(g.numpy()[0], [0.08, -0.02, -0.02], atol=0.004)
    al = t([2.0], grad=True)
    y = Beta(al, t([6.0])).rsample([30000])
    np.testing.assert_allclose(y.numpy().mean(), 0.25, atol=0.004)
    ga, = paddle.grad(y.mean(), al)
    np.testing.assert_allclose(ga.numpy(), [6.0 / 64.0], atol=0.005)    # d/da a/(a+b)
    s = Beta(2.0, 3.0).sample([4])
    assert s.shape == [4] and s.stop_gradient
    with pytest.raises(ValueError, match='at least one dimensional'):
        Dirichlet(t(1.0))


def test_laplace_closed_forms():
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    d = Laplace(t(loc), t(scale))
    v = np.array([-0.5, 4.0])
    close(d.log_prob(t(v)), -np.log(2 * scale) - np.abs(v - loc) / scale)
    close(d.cdf(t(v)), np.where(v < loc, 0.5 * np.exp((v - loc) / scale),
                                1 - 0.5 * np.exp(-(v - loc) / scale)))
    close(d.icdf(d.cdf(t(v))), v, rtol=1e-9)
    close(d.entropy(), 1 + np.log(2 * scale))
    close(d.variance, 2 * scale ** 2)
    close(d.stddev, math.sqrt(2) * scale)
    q = Laplace(t([0.5, 0.5]), t([1.0, 1.0]))
    dd = np.abs(loc - 0.5)
    close(kl_divergence(d, q), np.log(1.0 / scale) + dd + scale * np.exp(-dd / scale) - 1)
    close(Laplace(0.0, 1.0).log_prob(0.5), -math.log(2) - 0.5, rtol=1e-6)


def test_cauchy_gumbel_student_t_closed_forms():
    c = Cauchy(t([0.0, 1.0]), t([1.0, 2.0]))
    v = np.array([0.5, -1.0])
    loc, scale = np.array([0.0, 1.0]), np.array([1.0, 2.0])
    close(c.log_prob(t(v)), -np.log(math.pi * scale * (1 + ((v - loc) / scale) ** 2)))
    close(c.cdf(t(v)), np.arctan((v - loc) / scale) / math.pi + 0.5)
    close(c.entropy(), np.log(4 * math.pi * scale))
    q = Cauchy(t([0.5, 0.5]), t([1.0, 1.0]))
    close(kl_divergence(c, q), np.log(((scale + 1) ** 2 + (loc - 0.5) ** 2) / (4 * scale)))
    with pytest.raises(ValueError, match='no mean'):
        c.mean
    with pytest.raises(TypeError):
        Cauchy([0.0], 1.0)
    g = Gumbel(t([0.0, 2.0]), t([1.0, 0.5]))
    z = (v - np.array([0.0, 2.0])) / np.array([1.0, 0.5])
    close(g.log_prob(t(v)), -(z + np.exp(-z)) - np.log([1.0, 0.5]))
    close(g.cdf(t(v)), np.exp(-np.exp(-z)))
    close(g.mean, np.array([0.0, 2.0]) + EULER * np.array([1.0, 0.5]))
    close(g.variance, math.pi ** 2 / 6 * np.array([1.0, 0.25]))
    close(g.entropy(), np.log([1.0, 0.5]) + 1 + EULER)
    df = np.array([0.8, 1.5, 5.0])
    s = StudentT(t(df), t([0.0, 1.0, -1.0]), t([1.0, 2.0, 0.5]))
    x = np.array([0.3, 2.0, -1.0])
    y = (x - np.array([0.0, 1.0, -1.0])) / np.array([1.0, 2.0, 0.5])
    logp = (lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * np.log(df * math.pi)
            - np.log([1.0, 2.0, 0.5]) - (df + 1) / 2 * np.log1p(y ** 2 / df))
    close(s.log_prob(t(x)), logp, rtol=1e-9)
    mean = s.mean.numpy()
    assert np.isnan(mean[0]) and mean[1:].tolist() == [1.0, -1.0]
    var = s.variance.numpy()
    assert np.isnan(var[0]) and var[1] == np.inf and var[2] == pytest.approx(0.25 * 5 / 3)
    lbeta = lgamma(df / 2) + math.lgamma(0.5) - lgamma((df + 1) / 2)
    ent = (np.log([1.0, 2.0, 0.5]) + (df + 1) / 2 * (digamma((df + 1) / 2) - digamma(df / 2))
           + 0.5 * np.log(df) + lbeta)
    close(s.entropy(), ent, rtol=1e-9)
    with pytest.raises(ValueError, match='df'):
        StudentT(-1.0, 0.0, 1.0)


def test_draws_of_heavy_and_bounded_families_have_their_quantiles():
    paddle.seed(17)
    n = 40000
    x = Cauchy(t([1.0]), t([2.0])).sample([n]).numpy()
    np.testing.assert_allclose(np.median(x), 1.0, atol=0.06)
    np.testing.assert_allclose(np.percentile(x, 75) - np.percentile(x, 25), 4.0, rtol=0.04)
    g = Gumbel(t([1.0]), t([2.0])).sample([n]).numpy()
    np.testing.assert_allclose(g.mean(), 1 + 2 * EULER, atol=0.05)
    lap = Laplace(t([1.0]), t([0.5])).sample([n]).numpy()
    np.testing.assert_allclose(np.abs(lap - 1).mean(), 0.5, rtol=0.02)
    st = StudentT(t([6.0]), t([1.0]), t([2.0])).sample([n]).numpy()
    np.testing.assert_allclose(st.var(), 4 * 6 / 4, rtol=0.08)
    cb = ContinuousBernoulli(t([0.2, 0.5])).sample([n]).numpy()
    np.testing.assert_allclose(cb.mean(0), ContinuousBernoulli(t([0.2, 0.5])).mean.numpy(),
                               atol=0.006)


def test_continuous_bernoulli_normalises_and_inverts():
    p = np.array([0.1, 0.3, 0.4995, 0.8])
    d = ContinuousBernoulli(t(p))
    grid = (np.arange(20000) + 0.5) / 20000
    dens = np.exp(d.log_prob(t(np.repeat(grid[:, None], 4, 1))).numpy())
    np.testing.assert_allclose(dens.mean(0), 1.0, rtol=1e-6)                 # integrates to 1
    np.testing.assert_allclose((dens * grid[:, None]).mean(0), d.mean.numpy(), rtol=1e-5)
    np.testing.assert_allclose((dens * grid[:, None] ** 2).mean(0) - d.mean.numpy() ** 2,
                               d.variance.numpy(), rtol=1e-4)
    np.testing.assert_allclose(-(dens * np.log(dens)).mean(0), d.entropy().numpy(), atol=1e-6)
    u = t([0.1, 0.4, 0.5, 0.95])
    close(d.cdf(d.icdf(u)), u.numpy(), rtol=1e-9)
    q = ContinuousBernoulli(t([0.5, 0.5, 0.5, 0.5]))
    qd = np.exp(q.log_prob(t(np.repeat(grid[:, None], 4, 1))).numpy())
    np.testing.assert_allclose((dens * np.log(dens / qd)).mean(0),
                               kl_divergence(d, q).numpy(), atol=1e-6)
    assert ContinuousBernoulli(0.3).probs.shape == [1]


# ---- multivariate normal and LKJ ------------------------------------------------------

def _mvn_reference(loc, cov, x):
    n = len(loc)
    diff = x - loc
    sol = np.linalg.solve(cov, diff[..., None])[..., 0]
    return -0.5 * (n * math.log(2 * math.pi) + np.linalg.slogdet(cov)[1] + (diff * sol).sum(-1))


def test_multivariate_normal_parameterisations_agree_with_the_density():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((3, 3))
    cov = A @ A.T + np.eye(3)
    loc = np.array([0.5, -1.0, 2.0])
    x = rng.standard_normal((4, 3))
    want = _mvn_reference(loc, cov, x)
    for d in [MultivariateNormal(t(loc), covariance_matrix=t(cov)),
              MultivariateNormal(t(loc), precision_matrix=t(np.linalg.inv(cov))),
              MultivariateNormal(t(loc), scale_tril=t(np.linalg.cholesky(cov)))]:
        close(d.log_prob(t(x)), want, rtol=1e-9)
        close(d.entropy(), 0.5 * (3 * (1 + math.log(2 * math.pi)) + np.linalg.slogdet(cov)[1]),
              rtol=1e-10)
        close(d.variance, np.diag(cov), rtol=1e-10)
        close(d._unbroadcasted_scale_tril, np.linalg.cholesky(cov), rtol=1e-9, atol=1e-12)
    B = rng.standard_normal((3, 3))
    cov2 = B @ B.T + 0.5 * np.eye(3)
    p = MultivariateNormal(t(loc), covariance_matrix=t(cov))
    q = MultivariateNormal(t(np.zeros(3)), covariance_matrix=t(cov2))
    inv2 = np.linalg.inv(cov2)
    kl = 0.5 * (np.trace(inv2 @ cov) + loc @ inv2 @ loc - 3
                + np.linalg.slogdet(cov2)[1] - np.linalg.slogdet(cov)[1])
    close(kl_divergence(p, q), kl, rtol=1e-9)


def test_multivariate_normal_batches_and_draws():
    rng = np.random.default_rng(1)
    covs = np.stack([np.eye(2) * 2.0, np.array([[1.0, 0.8], [0.8, 1.0]])])
    d = MultivariateNormal(t(np.zeros((2, 2))), covariance_matrix=t(covs))
    assert d.batch_shape == (2,) and d.event_shape == (2,)
    x = rng.standard_normal((5, 2, 2))
    want = np.stack([_mvn_reference(np.zeros(2), covs[i], x[:, i]) for i in range(2)], 1)
    close(d.log_prob(t(x)), want, rtol=1e-9)
    shared = MultivariateNormal(t(np.zeros(2)), covariance_matrix=t(covs))
    close(shared.log_prob(t(x[0, 0])), [_mvn_reference(np.zeros(2), c, x[0, 0]) for c in covs],
          rtol=1e-9)
    paddle.seed(4)
    s = d.sample([30000]).numpy()
    assert s.shape == (30000, 2, 2)
    np.testing.assert_allclose(np.cov(s[:, 1].T), covs[1], atol=0.03)
    with pytest.raises(ValueError, match='Exactly one'):
        MultivariateNormal(t(np.zeros(2)))
    with pytest.raises(ValueError, match='positive definite'):
        MultivariateNormal(t(np.zeros(2)), covariance_matrix=t([[1.0, 2.0], [2.0, 1.0]]))


def test_multivariate_normal_rsample_gradients_match_finite_differences():
    loc = np.array([0.3, -0.7])
    cov = np.array([[2.0, 0.6], [0.6, 1.0]])

    def total(c):
        if hasattr(c, 'stop_gradient'):
            return MultivariateNormal(t(loc), covariance_matrix=c).rsample([5]).sum()
        return float(MultivariateNormal(t(loc), covariance_matrix=t(c)).rsample([5]).sum().numpy())
    np.testing.assert_allclose(seeded_grad(total, cov), seeded_fd(total, cov), rtol=1e-6,
                               atol=1e-8)
    def lp(c):
        if hasattr(c, 'stop_gradient'):
            return MultivariateNormal(t(loc), covariance_matrix=c).log_prob(t([[1.0, 2.0]])).sum()
        d = MultivariateNormal(t(loc), covariance_matrix=t(c))
        return float(d.log_prob(t([[1.0, 2.0]])).sum().numpy())
    np.testing.assert_allclose(seeded_grad(lp, cov), seeded_fd(lp, cov), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize('method', ['onion', 'cvine'])
def test_lkj_cholesky_draws_are_cholesky_factors_of_correlations(method):
    paddle.seed(2)
    d = LKJCholesky(4, t(2.0), method)
    L = d.sample([2000]).numpy()
    assert L.shape == (2000, 4, 4)
    assert np.allclose(np.triu(L, 1), 0)
    corr = L @ np.swapaxes(L, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, rtol=1e-10)
    # LKJ(eta): each off-diagonal correlation ~ 2 Beta(a, a) - 1, a = eta - 1 + dim / 2
    a = 2.0 - 1 + 4 / 2
    for i, j in [(1, 0), (2, 0), (3, 1), (3, 2)]:
        off = corr[:, i, j]
        np.testing.assert_allclose(off.var(), 1 / (2 * a + 1), rtol=0.12)
        assert abs(off.mean()) < 0.04


def test_lkj_cholesky_log_prob_is_the_normalised_density_in_2d():
    # dim 2: L = [[1, 0], [r, sqrt(1 - r^2)]] and p(r) = (1 - r^2)^(eta - 1) / B(1/2, eta)
    eta = 1.7
    d = LKJCholesky(2, eta)
    r = np.linspace(-0.99999, 0.99999, 200001)
    Ls = np.zeros((len(r), 2, 2))
    Ls[:, 0, 0] = 1
    Ls[:, 1, 0] = r
    Ls[:, 1, 1] = np.sqrt(1 - r ** 2)
    lp = d.log_prob(t(Ls, 'float32')).numpy().astype(float)
    log_b = math.lgamma(0.5) + math.lgamma(eta) - math.lgamma(eta + 0.5)
    np.testing.assert_allclose(lp, (eta - 1) * np.log(1 - r ** 2) - log_b, atol=2e-4)
    np.testing.assert_allclose(np.trapezoid(np.exp(lp), r), 1.0, atol=1e-5)
    with pytest.raises(ValueError, match='dim'):
        LKJCholesky(1)


def test_lkj_module_helpers_follow_paddle():
    from framework.distribution.lkj_cholesky import (matrix_to_tril, mvlgamma, tril_indices,
                                                     tril_matrix_to_vec, vec_to_tril_matrix)
    m = t(np.arange(18.0).reshape(2, 3, 3))
    v = tril_matrix_to_vec(m, -1)
    close(v, [[3.0, 6.0, 7.0], [12.0, 15.0, 16.0]])
    assert tril_matrix_to_vec(m).shape == [2, 6]
    back = vec_to_tril_matrix(v.reshape([-1]), 3, 3, 6, (2,), -1)
    assert back.shape == [2, 1, 3, 3]
    close(back.numpy()[:, 0], np.tril(m.numpy(), -1))
    close(matrix_to_tril(m), m.numpy()[np.broadcast_to(np.tril(np.ones((3, 3))) > 0, (2, 3, 3))])
    rows, cols = tril_indices(3)
    assert rows.numpy().tolist() == [0, 1, 1, 2, 2, 2]
    assert cols.numpy().tolist() == [0, 0, 1, 0, 1, 2]
    close(mvlgamma(t([2.5]), 3), paddle.multigammaln(t([2.5]), 3).numpy())
    with pytest.raises(ValueError, match='diag'):
        tril_matrix_to_vec(m, 3)
    x = t(np.ones((3, 3)), grad=True)
    g, = paddle.grad(tril_matrix_to_vec(x, -1).sum(), x)
    close(g, np.tril(np.ones((3, 3)), -1))


# ---- Independent, transforms, TransformedDistribution ---------------------------------

def test_independent_sums_log_prob_and_entropy():
    base = Normal(t(np.zeros((2, 3))), t(np.ones((2, 3))))
    d = Independent(base, 1)
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = np.arange(6.0).reshape(2, 3) / 5
    close(d.log_prob(t(x)), base.log_prob(t(x)).numpy().sum(-1))
    close(d.entropy(), base.entropy().numpy().sum(-1))
    assert d.sample([4]).shape == [4, 2, 3]
    with pytest.raises(ValueError, match='reinterpreted_batch_rank'):
        Independent(base, 3)
    with pytest.raises(TypeError):
        Independent(3, 1)


TRANSFORMS = [
    ('affine', lambda: AffineTransform(t(0.5), t(-2.0)), np.array([[0.3, -1.2, 2.0]])),
    ('exp', ExpTransform, np.array([[0.3, -1.2, 2.0]])),
    ('power', lambda: PowerTransform(t(3.0)), np.array([[0.3, 1.2, 2.0]])),
    ('sigmoid', SigmoidTransform, np.array([[0.3, -1.2, 2.0]])),
    ('tanh', TanhTransform, np.array([[0.3, -1.2, 2.0]])),
    ('chain', lambda: ChainTransform([ExpTransform(), AffineTransform(t(1.0), t(3.0))]),
     np.array([[0.3, -1.2, 2.0]])),
    ('stack', lambda: StackTransform([ExpTransform(), TanhTransform(), SigmoidTransform()], 1),
     np.array([[0.3, -1.2, 2.0]])),
]


@pytest.mark.parametrize('name,make,x', TRANSFORMS, ids=[c[0] for c in TRANSFORMS])
def test_elementwise_transforms_invert_and_log_det_is_log_derivative(name, make, x):
    tr = make()
    y = tr.forward(t(x))
    close(tr.inverse(y), x, rtol=1e-9)
    eps = 1e-6
    deriv = (tr.forward(t(x + eps)).numpy() - tr.forward(t(x - eps)).numpy()) / (2 * eps)
    close(tr.forward_log_det_jacobian(t(x)), np.log(np.abs(deriv)), rtol=1e-6, atol=1e-8)
    close(tr.inverse_log_det_jacobian(y), -np.log(np.abs(deriv)), rtol=1e-6, atol=1e-8)
    assert tuple(tr.forward_shape((2, 3))) == (2, 3)
    close(tr(t(x)), y.numpy())


def test_stick_breaking_softmax_reshape_abs_independent_transforms():
    x = np.array([[0.3, -1.2, 2.0], [1.0, 0.0, -0.5]])
    sb = StickBreakingTransform()
    y = sb.forward(t(x))
    assert y.shape == [2, 4]
    close(y.numpy().sum(-1), [1.0, 1.0])
    close(sb.inverse(y), x, rtol=1e-9)
    # log|det J| of x -> y[:-1] by finite differences of the Jacobian
    eps = 1e-6
    for row in range(2):
        J = np.zeros((3, 3))
        for j in range(3):
            hi, lo = x[row].copy(), x[row].copy()
            hi[j] += eps
            lo[j] -= eps
            J[:, j] = (sb.forward(t(hi)).numpy()[:3] - sb.forward(t(lo)).numpy()[:3]) / (2 * eps)
        close(sb.forward_log_det_jacobian(t(x[row])), np.linalg.slogdet(J)[1], rtol=1e-6)
    assert sb.forward_shape((2, 3)) == (2, 4) and sb.inverse_shape((2, 4)) == (2, 3)
    sm = SoftmaxTransform()
    p = sm.forward(t(x))
    close(p.numpy(), np.exp(x) / np.exp(x).sum(-1, keepdims=True))
    close(sm.forward(sm.inverse(p)), p.numpy())
    with pytest.raises(NotImplementedError, match='not injective'):
        sm.forward_log_det_jacobian(t(x))
    rs = ReshapeTransform((3,), (3, 1))
    assert rs.forward(t(x)).shape == [2, 3, 1] and rs.inverse(rs.forward(t(x))).shape == [2, 3]
    assert rs.forward_log_det_jacobian(t(x)).shape == [2]
    with pytest.raises(ValueError, match='numel'):
        ReshapeTransform((3,), (2, 2))
    ab = AbsTransform()
    neg, pos = ab.inverse(t([1.5]))
    assert neg.numpy().tolist() == [-1.5] and pos.numpy().tolist() == [1.5]
    it = IndependentTransform(ExpTransform(), 1)
    close(it.forward_log_det_jacobian(t(x)), x.sum(-1))
    with pytest.raises(ValueError):
        IndependentTransform(ExpTransform(), 0)
    with pytest.raises(TypeError):
        AffineTransform(0.0, 1.0)


def test_transform_call_builds_chains_and_transformed_distributions():
    e, a = ExpTransform(), AffineTransform(t(1.0), t(2.0))
    chain = a(e)
    assert isinstance(chain, ChainTransform)
    close(chain.forward(t([0.0])), [math.e])         # ChainTransform([a, e]): a first, then e
    td = e(Normal(t([0.0]), t([1.0])))
    assert isinstance(td, TransformedDistribution)
    close(td.log_prob(t([2.0])), LogNormal(t([0.0]), t([1.0])).log_prob(t([2.0])).numpy())


def test_transformed_distribution_shapes_and_log_prob():
    base = Normal(t(np.zeros((2, 3))), t(np.ones((2, 3))))
    d = TransformedDistribution(base, [StickBreakingTransform()])
    assert d.batch_shape == (2,) and d.event_shape == (4,)
    assert d.sample([5]).shape == [5, 2, 4]
    y = d.sample([3])
    x = StickBreakingTransform().inverse(y)
    want = (base.log_prob(x).numpy().sum(-1)
            - StickBreakingTransform().forward_log_det_jacobian(x).numpy())
    close(d.log_prob(y), want, rtol=1e-9)
    aff = TransformedDistribution(Normal(t([0.0]), t([1.0])), [AffineTransform(t(2.0), t(3.0))])
    close(aff.log_prob(t([5.0])), Normal(t([2.0]), t([3.0])).log_prob(t([5.0])).numpy())
    with pytest.raises(TypeError):
        TransformedDistribution(base, [1])


# ---- parameter gradients of densities, entropies and KL divergences ------------------

def _fd_check(fn, params, rtol=1e-6, atol=1e-8):
    """fn(*tensors) -> tensor; autograd vs central differences per parameter."""
    arrays = [np.asarray(p, float) for p in params]
    leaves = [t(a, grad=True) for a in arrays]
    grads = paddle.grad(fn(*leaves).sum(), leaves)
    for k, (a, g) in enumerate(zip(arrays, grads)):
        def f(v, k=k):
            args = [t(x) for x in arrays]
            args[k] = t(v)
            return float(fn(*args).sum().numpy())
        np.testing.assert_allclose(g.numpy(), seeded_fd(f, a), rtol=rtol, atol=atol)


def _lp_plus(make, value, extra='entropy'):
    """params -> log_prob(value) + a second quantity (entropy, cdf, variance)."""
    def fn(*ps):
        d = make(*ps)
        second = getattr(d, extra)
        second = second(t(value)) if extra == 'cdf' else (second if extra == 'variance'
                                                           else second())
        return d.log_prob(t(value)) + second
    return fn


GRAD_CASES = [
    ('normal', _lp_plus(Normal, [0.3, -1.0]), ([0.2, 0.5], [1.0, 2.0])),
    ('uniform', _lp_plus(Uniform, [0.5, 0.7], 'cdf'), ([0.1, -1.0], [1.0, 2.0])),
    ('bernoulli', _lp_plus(Bernoulli, [1.0, 0.0]), ([0.3, 0.8],)),
    ('beta', _lp_plus(Beta, [0.3, 0.6]), ([0.7, 2.0], [1.5, 3.0])),
    ('gamma', _lp_plus(Gamma, [0.3, 2.0]), ([0.7, 2.0], [1.5, 3.0])),
    ('dirichlet', _lp_plus(Dirichlet, [0.2, 0.3, 0.5]), ([0.7, 2.0, 1.3],)),
    ('laplace', _lp_plus(Laplace, [0.3, 2.0], 'cdf'), ([0.7, 2.5], [1.5, 3.0])),
    ('cauchy', _lp_plus(Cauchy, [0.3, 2.0], 'cdf'), ([0.7, 2.5], [1.5, 3.0])),
    ('gumbel', _lp_plus(Gumbel, [0.3, 2.0], 'cdf'), ([0.7, 2.5], [1.5, 3.0])),
    ('studentt', _lp_plus(StudentT, [0.3, 2.0]), ([2.5, 7.0], [0.7, 2.5], [1.5, 3.0])),
    ('poisson', _lp_plus(Poisson, [0.0, 3.0]), ([0.7, 4.0],)),
    ('binomial', _lp_plus(lambda p: Binomial(t([5.0, 8.0]), p), [1.0, 3.0]), ([0.3, 0.6],)),
    ('geometric', _lp_plus(Geometric, [2.0, 0.0]), ([0.3, 0.6],)),
    ('cont_bernoulli', _lp_plus(ContinuousBernoulli, [0.2, 0.7]), ([0.2, 0.8],)),
    ('exponential', _lp_plus(Exponential, [0.3, 2.0]), ([0.7, 4.0],)),
    ('lognormal', _lp_plus(LogNormal, [0.3, 2.0], 'variance'), ([0.2, 0.5], [0.4, 0.9])),
    ('multinomial', _lp_plus(lambda p: Multinomial(4, p), [1.0, 0.0, 3.0]), ([0.2, 0.3, 0.5],)),
    ('categorical', lambda l: Categorical(l).entropy() + Categorical(l).log_prob(
        t([2], 'int64')).sum(), ([0.2, 0.3, 0.5],)),
    ('kl_gamma', lambda a, b: kl_divergence(Gamma(a, b), Gamma(b, a)), ([0.7, 2.0], [1.5, 3.0])),
    ('kl_beta', lambda a, b: kl_divergence(Beta(a, b), Beta(b, a)), ([0.7, 2.0], [1.5, 3.0])),
    ('kl_bregman_bernoulli', lambda p, q: ExponentialFamily.entropy(Bernoulli(p)) +
     kl_divergence(Bernoulli(p), Bernoulli(q)), ([0.2, 0.6], [0.5, 0.9])),
    ('lkj', lambda c: LKJCholesky(3, c).log_prob(t(np.linalg.cholesky(
        [[1.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.0]]))), ([1.5, 3.0],)),
]


@pytest.mark.parametrize('name,fn,params', GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_parameter_gradients_match_finite_differences(name, fn, params):
    _fd_check(fn, params)


def _static_values(fn, params, known=False):
    """fn(*params) built in a static program from fed data (first dim unknown
    unless ``known``, or for 1-D parameters that hold an event)."""
    arrays = [np.asarray(p, float) for p in params]
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            ins = [paddle.static.data('p%d' % i, [-1] + list(a.shape[1:]) if a.ndim > 1 or
                                      not known else list(a.shape), 'float64')
                   for i, a in enumerate(arrays)]
            out = fn(*ins)
        return paddle.static.Executor().run(
            main, feed={'p%d' % i: a for i, a in enumerate(arrays)}, fetch_list=[out])[0]
    finally:
        paddle.disable_static()


@pytest.mark.parametrize('name,fn,params', GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_static_programs_compute_what_eager_does(name, fn, params):
    eager = fn(*[t(p) for p in params]).numpy()
    known = name == 'dirichlet'          # its 1-D parameter is the event
    np.testing.assert_allclose(_static_values(fn, params, known), eager, rtol=1e-12, atol=1e-14)


SAMPLERS = [
    ('normal', lambda a, b: Normal(a, b), ([0.2, 0.5], [1.0, 2.0])),
    ('uniform', lambda a, b: Uniform(a, a + b), ([0.2, 0.5], [1.0, 2.0])),
    ('bernoulli', lambda p: Bernoulli(p), ([0.3, 0.8],)),
    ('beta', lambda a, b: Beta(a, b), ([0.7, 2.0], [1.5, 3.0])),
    ('gamma', lambda a, b: Gamma(a, b), ([0.7, 2.0], [1.5, 3.0])),
    ('dirichlet', lambda c: Dirichlet(c), ([[0.7, 2.0, 1.3]],)),
    ('laplace', lambda a, b: Laplace(a, b), ([0.7, 2.5], [1.5, 3.0])),
    ('cauchy', lambda a, b: Cauchy(a, b), ([0.7, 2.5], [1.5, 3.0])),
    ('gumbel', lambda a, b: Gumbel(a, b), ([0.7, 2.5], [1.5, 3.0])),
    ('lognormal', lambda a, b: LogNormal(a, b), ([0.2, 0.5], [0.4, 0.9])),
    ('exponential', lambda r: Exponential(r), ([0.7, 4.0],)),
    ('geometric', lambda p: Geometric(p), ([0.3, 0.6],)),
    ('poisson', lambda r: Poisson(r), ([0.7, 4.0],)),
    ('studentt', lambda d, a, b: StudentT(d, a, b), ([2.5, 7.0], [0.7, 2.5], [1.5, 3.0])),
    ('cont_bernoulli', lambda p: ContinuousBernoulli(p), ([0.2, 0.8],)),
    ('binomial', lambda p: Binomial(t([5.0, 8.0]), p), ([0.3, 0.6],)),
    ('categorical', lambda l: Categorical(l), ([[0.2, 0.3, 0.5]],)),
    ('multinomial', lambda p: Multinomial(4, p), ([[0.2, 0.3, 0.5]],)),
    ('mvn', lambda m: MultivariateNormal(m, covariance_matrix=t([[2.0, 0.3], [0.3, 1.0]])),
     ([[0.2, 0.5]],)),
]


@pytest.mark.parametrize('name,make,params', SAMPLERS, ids=[c[0] for c in SAMPLERS])
def test_draws_in_static_programs_have_eager_shapes(name, make, params):
    eager = make(*[t(p) for p in params])
    want = (3,) + tuple(eager.batch_shape) + tuple(eager.event_shape)
    got = _static_values(lambda *ps: make(*ps).sample([3]), params)
    assert got.shape == want
    assert got.dtype == eager.sample([3]).numpy().dtype
    if name not in ('bernoulli', 'poisson', 'binomial', 'categorical', 'multinomial'):
        assert _static_values(lambda *ps: make(*ps).rsample([3]), params).shape == want


# ---- the KL registry --------------------------------------------------------------------

def test_kl_pairs_beyond_paddles_match_numerical_integration():
    p, q = Gumbel(t([0.3, -1.0]), t([1.5, 0.7])), Gumbel(t([1.0, 0.0]), t([0.8, 2.0]))
    x = np.linspace(-30, 60, 400001)[:, None]
    lp = p.log_prob(t(np.broadcast_to(x, (len(x), 2)))).numpy()
    lq = q.log_prob(t(np.broadcast_to(x, (len(x), 2)))).numpy()
    numeric = np.trapezoid(np.exp(lp) * (lp - lq), x[:, 0], axis=0)
    close(kl_divergence(p, q), numeric, rtol=1e-7)
    pi = Independent(Normal(t([[0.0, 1.0]]), t([[1.0, 2.0]])), 1)
    qi = Independent(Normal(t([[0.5, 0.0]]), t([[1.0, 1.0]])), 1)
    close(kl_divergence(pi, qi), kl_divergence(pi._base, qi._base).numpy().sum(-1))


def test_register_kl_dispatches_to_the_most_specific_pair():
    class MyNormal(Normal):
        pass

    calls = []

    @register_kl(MyNormal, Normal)
    def _kl(p, q):
        calls.append((type(p), type(q)))
        return p.loc * 0.0 + 42.0

    p = MyNormal(t([0.0]), t([1.0]))
    q = Normal(t([0.0]), t([2.0]))
    assert kl_divergence(p, q).numpy().tolist() == [42.0] and calls == [(MyNormal, Normal)]
    # (Normal, MyNormal) still resolves to (Normal, Normal)
    close(kl_divergence(q, p), Normal(t([0.0]), t([2.0])).kl_divergence(Normal(t([0.0]), t([1.0]))))
    with pytest.raises(NotImplementedError, match='register_kl'):
        kl_divergence(Normal(0.0, 1.0), Laplace(0.0, 1.0))
    with pytest.raises(TypeError):
        register_kl(int, Normal)


def test_exponential_family_bregman_kl_for_same_types():
    class MyExp(Exponential):
        pass                     # no registered pair: falls back to the Bregman rule... of
    p, q = Exponential(t([0.5, 2.0])), Exponential(t([1.5, 1.0]))
    from framework.distribution.kl import _kl_expfamily_expfamily
    close(_kl_expfamily_expfamily(p, q), kl_divergence(p, q).numpy(), rtol=1e-9)
    d1 = Dirichlet(t([[1.0, 2.0, 3.0]]))
    d2 = Dirichlet(t([[2.0, 2.0, 0.5]]))
    close(_kl_expfamily_expfamily(d1, d2), kl_divergence(d1, d2).numpy(), rtol=1e-9)
    with pytest.raises(NotImplementedError):
        _kl_expfamily_expfamily(p, Gamma(t([1.0, 1.0]), t([1.0, 1.0])))
    assert isinstance(MyExp(t([1.0])), ExponentialFamily)


def test_user_exponential_family_gets_entropy_and_kl_from_its_log_normalizer():
    class RateExp(ExponentialFamily):
        """An exponential written only through its exponential-family form."""
        _mean_carrier_measure = 0

        def __init__(self, rate):
            self.rate = rate
            super().__init__(batch_shape=rate.shape)

        @property
        def _natural_parameters(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -paddle.log(-x)

    rate = np.array([0.5, 2.0, 7.0])
    p, q = RateExp(t(rate)), RateExp(t([1.0, 1.0, 1.0]))
    close(ExponentialFamily.entropy(p), 1 - np.log(rate))
    close(kl_divergence(p, q), np.log(rate) + 1 / rate - 1)   # the Bregman rule

    class NoCarrier(ExponentialFamily):
        @property
        def _natural_parameters(self):
            return (1.0,)

        def _log_normalizer(self, x):
            return -paddle.log(-x)
    with pytest.raises(NotImplementedError):
        ExponentialFamily.entropy(NoCarrier())


def test_every_distribution_is_a_distribution_with_shapes():
    cases = [Normal(0.0, 1.0), Uniform(0.0, 1.0), Bernoulli(0.3), Beta(1.0, 2.0),
             Gamma(t([1.0]), t([2.0])), Exponential(1.0), Laplace(0.0, 1.0),
             Cauchy(0.0, 1.0), Gumbel(0.0, 1.0), Geometric(0.5), Chi2(2.0), Poisson(1.0),
             Binomial(5, 0.5), ContinuousBernoulli(0.3), StudentT(3.0, 0.0, 1.0),
             Categorical(t([1.0, 2.0])), Dirichlet(t([1.0, 2.0])),
             Multinomial(3, t([0.5, 0.5])), LKJCholesky(3),
             MultivariateNormal(t([0.0, 0.0]), scale_tril=t(np.eye(2)))]
    for d in cases:
        assert isinstance(d, Distribution)
        s = d.sample([2])
        assert tuple(s.shape) == (2,) + tuple(d.batch_shape) + tuple(d.event_shape), type(d)


def test_scalar_parameters_give_0d_results():
    cases = [(Normal(0.5, 2.0), 0.3), (Uniform(0.0, 2.0), 0.5), (Bernoulli(0.3), 1.0),
             (Beta(2.0, 3.0), 0.4), (Gamma(t(2.0), t(3.0)), 0.4), (Exponential(2.0), 0.4),
             (Laplace(0.0, 1.0), 0.4), (Cauchy(0.0, 1.0), 0.4), (Gumbel(0.0, 1.0), 0.4),
             (Geometric(0.5), 2.0), (Chi2(t(3.0)), 0.4), (LogNormal(0.0, 1.0), 0.4),
             (StudentT(3.0, 0.0, 1.0), 0.4)]
    for d, v in cases:
        value = t(v, np.dtype(d.sample().dtype))
        for out in (d.log_prob(value), d.entropy()):
            assert out.shape == [], (type(d).__name__, out.shape)
        if not isinstance(d, StudentT):        # no registered KL (none in closed form)
            assert d.kl_divergence(d).shape == []
            assert abs(float(d.kl_divergence(d))) < 1e-6, type(d).__name__
        assert d.sample().shape == [] and d.rsample().shape == []
    for tr in (SigmoidTransform(), TanhTransform(), ExpTransform(), AbsTransform()):
        assert tr.forward(t(0.5)).shape == []


# ---- static mode and @to_static ------------------------------------------------------------

def normal_and_gamma(loc, scale, v):
    n = Normal(loc, scale)
    g = Gamma(scale, scale + 1.0)
    out = n.log_prob(v) + n.entropy() + g.log_prob(v * v + 0.5) + g.entropy()
    if out.sum() > 0:
        out = out + kl_divergence(n, Normal(loc * 0.5, scale + 1.0))
    else:
        out = out - Beta(scale, scale * 2.0).log_prob(scale / (scale + 1.0))
    return out


@pytest.mark.parametrize('v', [0.1, 6.0])
def test_distributions_agree_in_to_static_with_gradients(v):
    def run(fn):
        loc = t([0.2, -0.4, 1.0], grad=True)
        scale = t([0.5, 1.5, 2.0], grad=True)
        out = fn(loc, scale, t([v] * 3))
        gl, gs = paddle.grad(out.sum(), [loc, scale])
        return out.numpy(), gl.numpy(), gs.numpy()
    for e, s in zip(run(normal_and_gamma), run(to_static(normal_and_gamma))):
        np.testing.assert_allclose(s, e, rtol=1e-12)


def mvn_rsample_mean(loc, cov):
    d = MultivariateNormal(loc, covariance_matrix=cov)
    return d.rsample([8]).mean(0) + d.log_prob(loc * 0.5)


def test_multivariate_normal_rsample_agrees_in_to_static_at_a_fixed_seed():
    def run(fn):
        loc = t([0.2, -0.4], grad=True)
        cov = t([[2.0, 0.3], [0.3, 1.0]], grad=True)
        paddle.seed(5)
        out = fn(loc, cov)
        gl, gc = paddle.grad(out.sum(), [loc, cov])
        return out.numpy(), gl.numpy(), gc.numpy()
    for e, s in zip(run(mvn_rsample_mean), run(to_static(mvn_rsample_mean))):
        np.testing.assert_allclose(s, e, rtol=1e-12)


def test_distributions_in_a_static_program_match_eager():
    alpha = np.array([[1.5], [3.0]])
    beta = np.array([[2.0, 0.5, 4.0], [1.0, 1.0, 1.0]])
    value = np.array([[0.3, 0.6, 0.9], [0.2, 0.5, 0.8]])
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            a = paddle.static.data('a', [2, 1], 'float64')
            b = paddle.static.data('b', [-1, 3], 'float64')
            v = paddle.static.data('v', [-1, 3], 'float64')
            a.stop_gradient = False
            d = Beta(a, b)
            fetch = [d.log_prob(v), d.entropy(), d.mean, d.sample(),
                     paddle.static.gradients([d.rsample([4]).sum()], [a])[0],
                     ExponentialFamily.entropy(Gamma(a, b)),
                     kl_divergence(Normal(a, b), Normal(b, a))]
        out = paddle.static.Executor().run(main, feed={'a': alpha, 'b': beta, 'v': value},
                                           fetch_list=fetch)
    finally:
        paddle.disable_static()
    e = Beta(t(alpha), t(beta))
    close(out[0], e.log_prob(t(value)).numpy())
    close(out[1], e.entropy().numpy())
    close(out[2], e.mean.numpy())
    assert out[3].shape == (2, 3) and np.all((out[3] > 0) & (out[3] < 1))
    assert out[4].shape == (2, 1) and np.all(np.isfinite(out[4]))
    close(out[5], Gamma(t(alpha), t(beta)).entropy().numpy(), rtol=1e-9)
    close(out[6], kl_divergence(Normal(t(alpha), t(beta)), Normal(t(beta), t(alpha))).numpy())
