"""Adamax: Adam with the infinity norm."""
from ..ops.optim import adamax_op
from .optimizer import Optimizer, float_arg

__all__ = ['Adamax']


class Adamax(Optimizer):
    r"""Adamax (Paddle's rule):

    moment = beta1 * moment + (1 - beta1) * grad
    inf_norm = max(beta2 * inf_norm + epsilon, |grad|)
    param = param - learning_rate / (1 - beta1 ** t) * moment / inf_norm

    (torch adds epsilon to |grad| instead; the results differ by at most epsilon
    in the denominator.)
    """
    _accumulator_names = ('moment', 'inf_norm', 'beta1_pow_acc')
    _group_options = {'beta1': '_beta1', 'beta2': '_beta2', 'epsilon': '_epsilon'}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        self._beta1 = float_arg('Adamax', 'beta1', beta1, 0.0, 1.0, high_open=True)
        self._beta2 = float_arg('Adamax', 'beta2', beta2, 0.0, 1.0, high_open=True)
        self._epsilon = float_arg('Adamax', 'epsilon', epsilon, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('moment', param, dt),
                self._add_accumulator('inf_norm', param, dt),
                self._add_accumulator('beta1_pow_acc', param, dt, float(opts['beta1']), [1]))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = adamax_op(param, grad, lr, *state, float(opts['beta1']), float(opts['beta2']),
                         float(opts['epsilon']))
        self._write((param,) + state, outs)
