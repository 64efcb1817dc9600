"""Weight-decay regularizers (Paddle's ``paddle.regularizer``).

A regularizer adds the gradient of its penalty to a parameter's gradient
before the optimizer's update rule runs ("coupled" weight decay):

* ``L2Decay(coeff)``: penalty ``coeff / 2 * sum(w ** 2)``, gradient ``coeff * w``
* ``L1Decay(coeff)``: penalty ``coeff * sum(|w|)``, gradient ``coeff * sign(w)``

Give one to an optimizer (``weight_decay=L2Decay(1e-4)``; a float means
``L2Decay``) or to a single parameter (``ParamAttr(regularizer=...)``); the
parameter's own regularizer wins over the optimizer's.

>>> import numpy as np
>>> import framework as paddle
>>> w = paddle.Parameter(np.array([1.0, -2.0]), name='w')
>>> w.grad = paddle.to_tensor(np.zeros(2))
>>> opt = paddle.optimizer.SGD(learning_rate=1.0, parameters=[w],
...                            weight_decay=paddle.regularizer.L1Decay(0.5))
>>> opt.step()
>>> w.numpy().tolist()
[0.5, -1.5]
"""
from .ops.optim import regularized_grad_op

__all__ = ['L1Decay', 'L2Decay', 'WeightDecayRegularizer']


class WeightDecayRegularizer:
    """Base class: subclasses set ``_method`` (the ``regularized_grad`` op mode)."""
    _method = None

    def __init__(self, coeff=0.0):
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            coeff = _number(coeff, type(self).__name__)
        self._regularization_coeff = float(coeff)

    @property
    def coeff(self):
        return self._regularization_coeff

    def __call__(self, param, grad=None, block=None):
        """The decay term for ``param`` (what Paddle's regularizers return)."""
        return regularized_grad_op(0.0, param, self._method, self._regularization_coeff)

    def _apply(self, param, grad):
        """``grad`` plus the decay term, in one op."""
        return regularized_grad_op(grad, param, self._method, self._regularization_coeff)

    def __str__(self):
        return '%s, coeff=%f' % (type(self).__name__, self._regularization_coeff)

    __repr__ = __str__


def _number(value, api):
    """A one-element tensor given as coeff (Paddle allows it) as a float."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError("%s: coeff must be a float, got %r" % (api, value)) from None


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: adds ``coeff * sign(param)`` to the gradient."""
    _method = 'l1_decay'


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: adds ``coeff * param`` to the gradient."""
    _method = 'l2_decay'


# Paddle 1.x names
L1DecayRegularizer = L1Decay
L2DecayRegularizer = L2Decay
