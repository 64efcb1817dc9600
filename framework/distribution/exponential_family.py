"""Exponential-family distributions: entropy (and KL divergence, in kl.py)
from the log-normalizer by automatic differentiation (a Bregman divergence)."""
from ..ops.modes import in_static_mode
from . import _math
from .distribution import Distribution


class ExponentialFamily(Distribution):
    r"""Base of distributions with densities
    :math:`p(x; \theta) = h(x) \exp(\langle t(x), \theta\rangle - F(\theta))`.

    Subclasses give ``_natural_parameters`` (theta), ``_log_normalizer(*theta)``
    (F) and ``_mean_carrier_measure`` (E[log h(x)]); then
    entropy = F(theta) - <theta, grad F(theta)> - E[log h(x)]. As in Paddle,
    Beta and Dirichlet (whose carrier measures are not constant) leave the
    last one out, so this generic entropy raises NotImplementedError for them;
    their own ``entropy()`` is the closed form.
    """

    @property
    def _natural_parameters(self):
        raise NotImplementedError("%s does not define _natural_parameters"
                                  % type(self).__name__)

    def _log_normalizer(self, *natural_parameters):
        raise NotImplementedError("%s does not define _log_normalizer" % type(self).__name__)

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError("%s does not define _mean_carrier_measure, so its entropy has "
                                  "no exponential-family form here; %s.entropy() gives it"
                                  % ((type(self).__name__,) * 2))

    def entropy(self):
        carrier = self._mean_carrier_measure
        params = fresh_leaves(self._natural_parameters)
        log_norm = self._log_normalizer(*params)
        grads = gradients_of(log_norm, params)
        value = log_norm - carrier
        for p, g in zip(params, grads):
            value = value - _math.sum_rightmost(p * g, len(self.event_shape))
        return value


def fresh_leaves(params):
    """The natural parameters as tensors to differentiate F with respect to:
    broadcast to one shape (so each entry of F has its own parameter entries)
    and marked as needing gradients. They stay connected to the parameters, so
    the entropy / KL built from grad F differentiates in them too."""
    params = list(params)
    zero = params[0] * 0.0
    for p in params[1:]:
        zero = zero + p * 0.0
    leaves = []
    for p in params:
        leaf = p + zero
        leaf.stop_gradient = False
        leaves.append(leaf)
    return leaves


def gradients_of(y, xs):
    """d sum(y) / d xs, kept differentiable: ``paddle.grad(create_graph=True)``
    eagerly, grad ops appended to the program in static mode."""
    from ..ops.reduce import sum as _sum
    total = _sum(y)
    if not in_static_mode():
        from ..autograd import grad
        return grad([total], xs, create_graph=True)
    from ..static import gradients
    return gradients([total], xs)


__all__ = ['ExponentialFamily']
