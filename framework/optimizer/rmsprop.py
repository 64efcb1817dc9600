"""RMSProp."""
from ..ops.optim import rmsprop_op
from .optimizer import Optimizer, float_arg

__all__ = ['RMSProp']


class RMSProp(Optimizer):
    r"""RMSProp (Paddle's rule; epsilon is inside the square root):

    mean_square = rho * mean_square + (1 - rho) * grad ** 2
    centered:  mean_grad = rho * mean_grad + (1 - rho) * grad
               moment = momentum * moment + lr * grad / sqrt(mean_square - mean_grad ** 2 + eps)
    otherwise: moment = momentum * moment + lr * grad / sqrt(mean_square + eps)
    param = param - moment

    With a constant learning rate this is torch's RMSprop with ``alpha=rho``
    except for where epsilon sits.
    """
    _accumulator_names = ('momentum', 'mean_square', 'mean_grad')
    _group_options = {'rho': '_rho', 'epsilon': '_epsilon', 'momentum': '_momentum',
                      'centered': '_centered'}

    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        if learning_rate is None:
            raise ValueError("RMSProp: learning_rate is not set")
        self._rho = float_arg('RMSProp', 'rho', rho, 0.0)
        self._epsilon = float_arg('RMSProp', 'epsilon', epsilon, 0.0)
        self._momentum = float_arg('RMSProp', 'momentum', momentum, 0.0)
        self._centered = bool(centered)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('momentum', param, dt),
                self._add_accumulator('mean_square', param, dt),
                self._add_accumulator('mean_grad', param, dt))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = rmsprop_op(param, grad, lr, *state, float(opts['rho']), float(opts['epsilon']),
                          float(opts['momentum']), bool(opts['centered']))
        self._write((param,) + state, outs)
