"""NAdam: Adam with Nesterov momentum."""
from ..ops.optim import nadam_op
from .optimizer import Optimizer, float_arg

__all__ = ['NAdam']


class NAdam(Optimizer):
    r"""NAdam (Dozat, "Incorporating Nesterov Momentum into Adam"; Paddle's rule):

    mu_t = beta1 * (1 - 0.96 ** (t * momentum_decay) / 2)
    m_t = beta1 * m + (1 - beta1) * g,   v_t = beta2 * v + (1 - beta2) * g ** 2
    m_hat = mu_{t+1} m_t / (1 - prod_{i<=t+1} mu_i) + (1 - mu_t) g / (1 - prod_{i<=t} mu_i)
    param = param - lr * m_hat / (sqrt(v_t / (1 - beta2 ** t)) + epsilon)

    ``weight_decay`` (a float) adds ``weight_decay * param`` to the gradient.

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([1.0, -1.0]), name='w')
    >>> (w * w).sum().backward()
    >>> opt = paddle.optimizer.NAdam(learning_rate=0.1, parameters=[w])
    >>> opt.step()
    >>> np.round(w.numpy(), 4).tolist()
    [0.8944, -0.8944]
    """
    _accumulator_names = ('momentum_decay_pow', 'beta2_pow', 'mu_product', 'moment1', 'moment2')
    _group_options = {'beta1': '_beta1', 'beta2': '_beta2', 'epsilon': '_epsilon',
                      'momentum_decay': '_momentum_decay'}

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 momentum_decay=0.004, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        api = type(self).__name__
        self._beta1 = float_arg(api, 'beta1', beta1, 0.0, 1.0, high_open=True)
        self._beta2 = float_arg(api, 'beta2', beta2, 0.0, 1.0, high_open=True)
        self._epsilon = float_arg(api, 'epsilon', epsilon, 0.0)
        self._momentum_decay = float_arg(api, 'momentum_decay', momentum_decay, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('momentum_decay_pow', param, dt, 1.0),
                self._add_accumulator('beta2_pow', param, dt, 1.0),
                self._add_accumulator('mu_product', param, dt, 1.0),
                self._add_accumulator('moment1', param, dt),
                self._add_accumulator('moment2', param, dt))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = nadam_op(param, grad, lr, *state, float(opts['beta1']), float(opts['beta2']),
                        float(opts['epsilon']), float(opts['momentum_decay']))
        self._write((param,) + state, outs)
