"""Random draws with a parameter tensor: ``standard_gamma``, ``poisson`` and
``binomial`` (Paddle's names). They draw from ``framework.random.generator()``
like every random op, so ``framework.seed(n)`` makes them repeatable.

As in Paddle the draws have no gradient. ``standard_gamma_grad`` gives what a
reparameterized gamma sample needs instead: the implicit gradient dx/da of a
sample x at its quantile u = P(a, x), -(dP/da)(a, x) / density(x) (Figurnov et
al. 2018). numpy's fast rejection sampler is not the inverse CDF, so the draws'
own path derivative is not that gradient: ``framework.distribution`` attaches
it (``Gamma.rsample``, ``Beta.rsample``, ``Dirichlet.rsample``).
"""
import math

import numpy as np

from .. import dtype as _dt
from .. import random as _random
from . import lib, meta
from .registry import Meta, OpError, add_test_case, def_op
from .special import gamma_sample_grad


def _float_param_meta(x, *attrs):
    d = np.dtype(meta.dtype_of(x))
    return Meta(meta.shape_of(x), d if d.kind == 'f' else _dt.default_float())


def _float_dtype(x):
    return x.dtype if x.dtype.kind == 'f' else _dt.default_float()


@def_op('standard_gamma', _float_param_meta, inputs=('x',), attrs={}, effects=('random',),
        differentiable=False, pattern='opaque')
def standard_gamma_op(x):
    """Gamma(x, 1) samples; a non-positive shape gives 0 (as Paddle)."""
    a = np.asarray(x, np.float64)
    if np.isnan(a).any():
        raise OpError("standard_gamma: the shape parameter x contains NaN")
    ok = a > 0
    draw = _random.generator().standard_gamma(np.where(ok, a, 1.0))
    return np.where(ok, draw, 0.0).astype(_float_dtype(x), copy=False)


@def_op('standard_gamma_grad', meta.broadcast, inputs=('out', 'x'), attrs={},
        differentiable=False, promote=('out', 'x'), pattern='opaque')
def standard_gamma_grad_op(out, x):
    """d out / d x of standard gamma samples ``out`` with shapes ``x``, at a fixed
    quantile of each sample."""
    return gamma_sample_grad(x, out).astype(out.dtype, copy=False)


@def_op('poisson', meta.unchanged, inputs=('x',), attrs={}, effects=('random',), pattern='opaque')
def poisson_op(x):
    """Poisson(x) counts in x's dtype; a non-positive rate gives 0 (as Paddle)."""
    lam = np.asarray(x, np.float64)
    if np.isnan(lam).any():
        raise OpError("poisson: the rate x contains NaN")
    return np.asarray(_random.generator().poisson(np.maximum(lam, 0.0)), x.dtype)


@poisson_op.def_grad
def _poisson_grad(g, x, out):
    return lib.zeros_like(g)   # counts are piecewise constant in the rate (Paddle: zeros too)


def _binomial_meta(count, prob):
    return Meta(meta.broadcast_shapes(meta.shape_of(count), meta.shape_of(prob),
                                      'binomial: count and prob'), np.int64)


@def_op('binomial', _binomial_meta, inputs=('count', 'prob'), attrs={},
        differentiable=False, effects=('random',), pattern='opaque')
def binomial_op(count, prob):
    """Binomial(count, prob) successes (int64); prob is clipped to [0, 1]."""
    p = np.asarray(prob, np.float64)
    if np.isnan(p).any():
        raise OpError("binomial: prob contains NaN")
    n = np.asarray(count)
    if n.dtype.kind == 'f':
        n = np.trunc(n)
    n = n.astype(np.int64)
    if (n < 0).any():
        raise OpError("binomial: count must be non-negative, got a minimum of %d" % n.min())
    return np.asarray(_random.generator().binomial(n, np.clip(p, 0.0, 1.0)), np.int64)


def standard_gamma(x, name=None):
    """Samples of Gamma(x, 1), elementwise (no gradient, as in Paddle).

    >>> import framework as paddle
    >>> paddle.standard_gamma(paddle.to_tensor([0.5, 2.0])).shape
    paddle.Size([2])
    """
    return standard_gamma_op(x)


def poisson(x, name=None):
    """Poisson samples with rates ``x`` (same shape and dtype)."""
    return poisson_op(x)


def binomial(count, prob, name=None):
    """Binomial samples: ``count`` trials with success probability ``prob``."""
    return binomial_op(count, prob)


__all__ = ['standard_gamma', 'poisson', 'binomial']


# ---- test cases ---------------------------------------------------------------
# op tests seed the generator with 1234 before each run; the references draw the
# same stream (statistics of the draws are tested in tests/test_distribution.py)

_rng = np.random.default_rng(29)


def _seeded():
    return np.random.default_rng(1234)


def _gamma_ref(a):
    a = np.asarray(a)
    draw = _seeded().standard_gamma(np.where(a > 0, a, 1.0))
    return np.where(a > 0, draw, 0.0).astype(a.dtype)


def _poisson_ref(lam):
    return np.asarray(_seeded().poisson(np.maximum(lam, 0.0)), np.asarray(lam).dtype)


def _binomial_ref(n, p):
    return np.asarray(_seeded().binomial(np.trunc(n).astype(np.int64), np.clip(p, 0, 1)), np.int64)


add_test_case(standard_gamma_op, _rng.uniform(0.5, 4, (3, 4)), ref=_gamma_ref, grad=False)
add_test_case(standard_gamma_op, np.array([-1.0, 0.0, 2.0]), ref=_gamma_ref, grad=False)
add_test_case(standard_gamma_op, np.array(1.5, np.float32), ref=_gamma_ref, grad=False)
add_test_case(standard_gamma_op, np.zeros((0, 2)), ref=_gamma_ref, grad=False)
_sg_grad_ref = np.vectorize(lambda x, a: float(gamma_sample_grad(np.array(a), np.array(x))),
                            otypes=[float])
add_test_case(standard_gamma_grad_op, _rng.uniform(0.1, 5, (2, 3)), _rng.uniform(0.5, 3, 3),
              ref=lambda x, a: _sg_grad_ref(x, a))
# the exponential (a = 1) in closed form, see _exp_shape_grad
add_test_case(standard_gamma_grad_op, np.array([0.0, 1e-3, 0.5, 3.0, 8.0]), np.array(1.0),
              ref=lambda x, a: _exp_shape_grad(x), rtol=1e-10, atol=1e-13)
add_test_case(standard_gamma_grad_op, np.array(2.0, np.float32), np.array(3.0, np.float32),
              ref=lambda x, a: np.array(_sg_grad_ref(x, a), np.float32))
add_test_case(poisson_op, _rng.uniform(0.5, 30, (3, 4)), ref=_poisson_ref)
add_test_case(poisson_op, np.array([-1.0, 0.0, 2.5], np.float32), ref=_poisson_ref, grad=False)
add_test_case(poisson_op, np.array(4.0), ref=_poisson_ref, grad=False)
add_test_case(poisson_op, np.zeros((2, 0)), ref=_poisson_ref, grad=False)
add_test_case(binomial_op, np.array([[10], [3]]), np.array([0.2, 0.5, 1.5]), ref=_binomial_ref)
add_test_case(binomial_op, np.array(5.0, np.float32), np.array(0.4, np.float32),
              ref=_binomial_ref)
add_test_case(binomial_op, np.zeros((0,), np.int64), np.zeros((0,)), ref=_binomial_ref)


def _exp_shape_grad(x):
    """dx/da at a = 1, where the density is e^-x: dx/da = -e^x dP/da with
    dP/da = int_0^x e^-t (log t - psi(1)) dt = (1 - e^-x)(log x + gamma) - Ein(x)
    (integration by parts), Ein(x) = sum_k (-1)^(k+1) x^k / (k k!)."""
    euler = 0.5772156649015329
    out = []
    for v in np.atleast_1d(x).astype(float):
        if v == 0:
            out.append(0.0)
            continue
        ein = math.fsum((-1) ** (k + 1) * v ** k / (k * math.factorial(k)) for k in range(1, 80))
        dpda = -math.expm1(-v) * (math.log(v) + euler) - ein
        out.append(-dpda * math.exp(v))
    return np.array(out).reshape(np.shape(x))
