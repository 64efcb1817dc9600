"""Adagrad."""
from ..ops.optim import adagrad_op
from .optimizer import Optimizer, float_arg

__all__ = ['Adagrad']


class Adagrad(Optimizer):
    r"""Adagrad:

    moment = moment + grad ** 2
    param = param - learning_rate * grad / (sqrt(moment) + epsilon)

    ``moment`` starts at ``initial_accumulator_value``.
    """
    _accumulator_names = ('moment',)
    _group_options = {'epsilon': '_epsilon',
                      'initial_accumulator_value': '_initial_accumulator_value'}

    def __init__(self, learning_rate, epsilon=1e-06, parameters=None, weight_decay=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        if learning_rate is None:
            raise ValueError("Adagrad: learning_rate is not set")
        self._epsilon = float_arg('Adagrad', 'epsilon', epsilon, 0.0)
        self._initial_accumulator_value = float_arg(
            'Adagrad', 'initial_accumulator_value', initial_accumulator_value, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_state(self, param, opts):
        return (self._add_accumulator('moment', param, self._acc_dtype(param),
                                      float(opts['initial_accumulator_value'])),)

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = adagrad_op(param, grad, lr, state[0], float(opts['epsilon']))
        self._write((param,) + state, outs)
