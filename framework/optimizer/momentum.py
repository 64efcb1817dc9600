"""Gradient descent with (Nesterov) momentum."""
from ..ops.optim import momentum_op
from ..regularizer import L2Decay
from .optimizer import Optimizer, float_arg

__all__ = ['Momentum']


class Momentum(Optimizer):
    r"""Momentum SGD (Paddle's rule, equal to torch's SGD with dampening 0):

    velocity = momentum * velocity + grad
    param = param - learning_rate * velocity            (use_nesterov=False)
    param = param - learning_rate * (grad + momentum * velocity)   (Nesterov)

    L2 weight decay is fused into the update op; ``rescale_grad`` scales the
    gradient first.
    """
    _accumulator_names = ('velocity',)
    _group_options = {'momentum': '_momentum'}

    def __init__(self, learning_rate=0.001, momentum=0.9, parameters=None, use_nesterov=False,
                 weight_decay=None, grad_clip=None, multi_precision=False, rescale_grad=1.0,
                 use_multi_tensor=False, name=None):
        self._momentum = float_arg('Momentum', 'momentum', momentum)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._use_nesterov = bool(use_nesterov)
        self._rescale_grad = float_arg('Momentum', 'rescale_grad', rescale_grad)
        self._multi_precision = multi_precision

    def _fuses(self, regularizer):
        return isinstance(regularizer, L2Decay)

    def _create_state(self, param, opts):
        return (self._add_accumulator('velocity', param, self._acc_dtype(param)),)

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        if isinstance(regularizer, L2Decay):
            method, coeff = 'l2_decay', regularizer.coeff
        else:
            method, coeff = '', 0.0
        outs = momentum_op(param, grad, lr, state[0], float(opts['momentum']),
                           self._use_nesterov, method, coeff, self._rescale_grad)
        self._write((param,) + state, outs)
