"""Adadelta."""
from ..ops.optim import adadelta_op
from .optimizer import Optimizer, float_arg

__all__ = ['Adadelta']


class Adadelta(Optimizer):
    r"""Adadelta (Zeiler), with a learning rate as in Paddle 2.x and torch:

    E[g^2] = rho * E[g^2] + (1 - rho) * grad ** 2
    update = -sqrt((E[dx^2] + epsilon) / (E[g^2] + epsilon)) * grad
    E[dx^2] = rho * E[dx^2] + (1 - rho) * update ** 2
    param = param + learning_rate * update
    """
    _accumulator_names = ('_avg_squared_grad', '_avg_squared_update')
    _group_options = {'epsilon': '_epsilon', 'rho': '_rho'}

    def __init__(self, learning_rate=0.001, epsilon=1e-06, rho=0.95, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("Adadelta: learning_rate is not set")
        self._epsilon = float_arg('Adadelta', 'epsilon', epsilon, 0.0)
        self._rho = float_arg('Adadelta', 'rho', rho, 0.0, 1.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('_avg_squared_grad', param, dt),
                self._add_accumulator('_avg_squared_update', param, dt))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = adadelta_op(param, grad, lr, *state, float(opts['rho']), float(opts['epsilon']))
        self._write((param,) + state, outs)
