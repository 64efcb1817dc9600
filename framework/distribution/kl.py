"""KL divergence between distributions, dispatched on the pair of types.

``register_kl(P, Q)`` registers a function for KL(p || q) with p a P and q a
Q; ``kl_divergence(p, q)`` picks the most specific registered pair for
(type(p), type(q)) (a pair whose classes are both subclasses of another's is
more specific).
"""
import functools
import warnings

from . import _math
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .exponential_family import ExponentialFamily, fresh_leaves, gradients_of
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .laplace import Laplace
from .lognormal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .poisson import Poisson
from .uniform import Uniform
from ..ops import math as _m
from ..ops.special import digamma, lgamma
from ..ops import reduce as _r
from ..ops.manipulation import unsqueeze

__all__ = ['register_kl', 'kl_divergence']

_REGISTER_TABLE = {}
_EULER = 0.5772156649015329


class KLNotRegisteredError(NotImplementedError):
    """No KL divergence is registered for a pair of distribution types (a
    NotImplementedError, as Paddle raises)."""


def kl_divergence(p, q):
    """KL(p || q) = E_p[log p(x) - log q(x)], by the rule registered for the
    types of ``p`` and ``q``.

    >>> from framework.distribution import Normal, kl_divergence
    >>> kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0)).item()
    0.0
    """
    return _dispatch(type(p), type(q))(p, q)


def register_kl(cls_p, cls_q):
    """Decorator registering ``f(p, q)`` as KL(p || q) for p of type ``cls_p``
    and q of type ``cls_q`` (and their subclasses, unless a more specific pair
    is registered)."""
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution) and
            isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError('cls_p and cls_q must be subclass of Distribution')

    def decorator(f):
        _REGISTER_TABLE[cls_p, cls_q] = f
        return f
    return decorator


def _dispatch(cls_p, cls_q):
    matches = [(p, q) for p, q in _REGISTER_TABLE if issubclass(cls_p, p) and issubclass(cls_q, q)]
    if not matches:
        raise KLNotRegisteredError(
            "no KL divergence is registered for (%s, %s); register one with "
            "paddle.distribution.register_kl(%s, %s)"
            % (cls_p.__name__, cls_q.__name__, cls_p.__name__, cls_q.__name__))
    left_p, left_q = min(_Specificity(*m) for m in matches).classes
    right_q, right_p = min(_Specificity(q, p) for p, q in matches).classes
    if _REGISTER_TABLE[left_p, left_q] is not _REGISTER_TABLE[right_p, right_q]:
        warnings.warn("Ambiguous kl_divergence(%s, %s). Please register_kl(%s, %s)"
                      % (cls_p.__name__, cls_q.__name__, left_p.__name__, right_q.__name__),
                      RuntimeWarning)
    return _REGISTER_TABLE[left_p, left_q]


@functools.total_ordering
class _Specificity:
    """Orders class pairs lexicographically by subclassing: (A, B) <= (C, D)
    when A is a subclass of C, and B of D where A is C."""

    def __init__(self, *classes):
        self.classes = classes

    def __eq__(self, other):
        return self.classes == other.classes

    def __le__(self, other):
        for x, y in zip(self.classes, other.classes):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


# ---- registered pairs ----------------------------------------------------------

def _by_method(p, q):
    return p.kl_divergence(q)


for _cls in (Bernoulli, Binomial, Categorical, Cauchy, ContinuousBernoulli, Normal,
             MultivariateNormal, Uniform, Laplace, Geometric, Exponential, Gamma, Poisson):
    register_kl(_cls, _cls)(_by_method)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sp, sq = p.alpha + p.beta, q.alpha + q.beta
    return (lgamma(q.alpha) + lgamma(q.beta) + lgamma(sp)
            - (lgamma(p.alpha) + lgamma(p.beta) + lgamma(sq))
            + (p.alpha - q.alpha) * digamma(p.alpha) + (p.beta - q.beta) * digamma(p.beta)
            + (sq - sp) * digamma(sp))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    cp, cq = p.concentration, q.concentration
    sp = _r.sum(cp, -1)
    return (lgamma(sp) - lgamma(_r.sum(cq, -1)) - _r.sum(lgamma(cp) - lgamma(cq), -1)
            + _r.sum((cp - cq) * (digamma(cp) - unsqueeze(digamma(sp), -1)), -1))


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p, q):
    return p._base.kl_divergence(q._base)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    """With z ~ standard Gumbel: E[z] = Euler's gamma, E[e^(-t z)] = Gamma(1 + t);
    not registered by Paddle 3.3."""
    ratio = p.scale / q.scale
    shift = (q.loc - p.loc) / q.scale
    return (_m.log(q.scale / p.scale) - (1.0 + _EULER) + ratio * _EULER - shift
            + _m.exp(shift + lgamma(1.0 + ratio)))


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    """The base KL summed over the reinterpreted dims (not registered by Paddle 3.3)."""
    if p._reinterpreted_batch_rank != q._reinterpreted_batch_rank:
        raise KLNotRegisteredError(
            "kl_divergence(Independent, Independent) needs the same reinterpreted_batch_rank, "
            "got %d and %d" % (p._reinterpreted_batch_rank, q._reinterpreted_batch_rank))
    return _math.sum_rightmost(kl_divergence(p._base, q._base), p._reinterpreted_batch_rank)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """The Bregman divergence of the log-normalizer F between the natural
    parameters: F(theta_q) - F(theta_p) - <theta_q - theta_p, grad F(theta_p)>."""
    if type(p) is not type(q):
        raise KLNotRegisteredError(
            "no KL divergence is registered for (%s, %s); the exponential-family rule needs "
            "two distributions of the same type" % (type(p).__name__, type(q).__name__))
    p_params = fresh_leaves(p._natural_parameters)
    p_norm = p._log_normalizer(*p_params)
    grads = gradients_of(p_norm, p_params)
    kl = q._log_normalizer(*q._natural_parameters) - p_norm
    for pp, qq, g in zip(p_params, q._natural_parameters, grads):
        kl = kl - _math.sum_rightmost((qq - pp) * g, len(q.event_shape))
    return kl
