"""Paddle 3's in-place random fills (``x.exponential_()``, ``x.random_()``,
``x.bernoulli_()``, ``x.cauchy_()``, ``x.geometric_()``, ``x.log_normal_()``)
and ``log_normal``. (``poisson``, ``binomial`` and ``standard_gamma``, draws
whose parameters are tensors, live with the distributions.)

Every draw comes from the default generator (``framework.seed``), so runs
repeat. The samples carry no gradient (as in Paddle).
"""
import numpy as np

from .. import random as _random
from .compat_args import aliases
from . import lib, meta
from .creation import bernoulli_op, full_like_op, normal, normal_like_op, uniform_like_op
from .grad_utils import is_value
from .registry import OpError, add_test_case, def_op


def _float_input(x, api):
    if np.dtype(x.dtype).kind != 'f':
        raise OpError("%s: x must have a float dtype, got %s" % (api, x.dtype))


# ---- ops ------------------------------------------------------------------------------

@def_op('exponential_random_like', meta.unchanged, differentiable=False, effects=('random',),
        pattern='opaque')
def exponential_like_op(x, lam=1.0):
    """Exponential samples of rate ``lam`` with x's shape and dtype."""
    return _random.generator().exponential(1.0 / lam, np.shape(x)).astype(x.dtype)


@def_op('randint_like', meta.unchanged, differentiable=False, effects=('random',), pattern='opaque')
def randint_like_op(x, low=0, high=1):
    """Integers uniform in [low, high) with x's shape, in x's dtype."""
    return _random.generator().integers(low, high, np.shape(x), dtype=np.int64,
                                        endpoint=False).astype(x.dtype)


# ---- functions ----------------------------------------------------------------------------

def log_normal(mean=1.0, std=2.0, shape=None, name=None):
    """``exp`` of normal samples with ``mean`` and ``std`` (numbers or tensors)."""
    return lib.exp(normal(mean, std, shape))


# ---- in-place samplers ----------------------------------------------------------------------

@aliases(lam=('lambd',))
def exponential_(x, lam=1.0, name=None):
    """Fill ``x`` with exponential samples of rate ``lam``."""
    _float_input(x, 'exponential_')
    if lam <= 0:
        raise OpError("exponential_: lam must be positive, got %g" % lam)
    return x._inplace_update(exponential_like_op(x, float(lam)))


def _random_bounds(dtype, from_, to):
    if to is None:
        if from_:
            return 0, from_
        if dtype.kind == 'f':
            return 0, 2 ** {2: 11, 4: 24, 8: 53}.get(dtype.itemsize, 8)
        return 0, int(np.iinfo(dtype).max)
    return from_, to


def random_(x, from_=0, to=None, *, generator=None):
    """Fill ``x`` with integers uniform in [from_, to) (``random_(n)``: [0, n);
    with neither, [0, 2**mantissa] for floats, [0, max] for integers). A
    ``generator`` other than the default one is not supported: draws come
    from the default generator."""
    d = np.dtype(x.dtype)
    low, high = _random_bounds(d, int(from_), None if to is None else int(to))
    if low >= high:
        raise OpError("random_: 'from' must be less than 'to', got from=%d >= to=%d"
                      % (low, high))
    if generator is not None and generator is not _random.default_generator():
        raise OpError("random_: only the default generator feeds random ops here")
    return x._inplace_update(randint_like_op(x, low, high))


def bernoulli_(x, p=0.5, name=None):
    """Fill ``x`` with 0/1 samples that are 1 with probability ``p`` (a number
    or a tensor broadcast to x). As Paddle's in-place kernel, a ``p`` below 0
    samples 0 and above 1 samples 1 (``paddle.bernoulli`` refuses them)."""
    if is_value(p):
        probs = lib.clip(lib.expand(lib.cast(p, x.dtype), list(x.shape)), 0.0, 1.0)
    else:
        probs = full_like_op(x, min(max(float(p), 0.0), 1.0), None)
    return x._inplace_update(bernoulli_op(probs))


def cauchy_(x, loc=0, scale=1, name=None):
    """Fill ``x`` with Cauchy samples, ``loc + scale * tan(pi * (u - 0.5))``
    for uniform u (Paddle 3.3.1 puts a normal sample in place of u, which
    does not give a Cauchy distribution)."""
    _float_input(x, 'cauchy_')
    u = uniform_like_op(x, 0.0, 1.0, 0)
    return x._inplace_update(lib.tan((u - 0.5) * np.pi) * scale + loc)


def geometric_(x, probs, name=None):
    """Fill ``x`` with ``log(u) / log(1 - probs)`` for uniform u in (0, 1], as
    Paddle's geometric_ (a continuous value; ``ceil`` of it is a geometric
    count of trials)."""
    _float_input(x, 'geometric_')
    d = np.dtype(x.dtype)
    u = uniform_like_op(x, float(np.finfo(d).tiny), 1.0, 0)
    p = probs if is_value(probs) else full_like_op(x, float(probs), None)
    return x._inplace_update(lib.log(u) / lib.log1p(-p))


def log_normal_(x, mean=1.0, std=2.0, name=None):
    """Fill ``x`` with ``exp`` of normal samples of ``mean`` and ``std``."""
    _float_input(x, 'log_normal_')
    return x._inplace_update(lib.exp(normal_like_op(x, float(mean), float(std), 0)))


__all__ = ['log_normal', 'bernoulli_', 'cauchy_', 'geometric_', 'log_normal_']
TENSOR_METHODS = {
    'exponential_': exponential_, 'random_': random_, 'bernoulli_': bernoulli_,
    'cauchy_': cauchy_, 'geometric_': geometric_, 'log_normal_': log_normal_,
}


def _seeded():
    return np.random.default_rng(1234)


add_test_case(exponential_like_op, np.zeros((2, 3)), 2.0,
              ref=lambda x, lam: _seeded().exponential(0.5, x.shape))
add_test_case(randint_like_op, np.zeros(4, np.int32), -2, 3,
              ref=lambda x, lo, hi: _seeded().integers(lo, hi, x.shape).astype(np.int32))
add_test_case(exponential_like_op, np.zeros((), np.float32), 0.5,
              ref=lambda x, lam: _seeded().exponential(2.0, ()).astype(np.float32))
add_test_case(randint_like_op, np.zeros((0, 2)), 0, 5, ref=lambda x, lo, hi: np.zeros((0, 2)))
