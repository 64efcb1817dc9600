"""RAdam: Adam with a rectified adaptive learning rate."""
from ..ops.optim import radam_op
from .optimizer import Optimizer, float_arg

__all__ = ['RAdam']


class RAdam(Optimizer):
    r"""RAdam (Liu et al., "On the Variance of the Adaptive Learning Rate and
    Beyond"; Paddle's rule). With rho_inf = 2 / (1 - beta2) - 1 and
    rho_t = rho_inf - 2 t beta2 ** t / (1 - beta2 ** t):

    m_t = beta1 * m + (1 - beta1) * g,   v_t = beta2 * v + (1 - beta2) * g ** 2
    m_hat = m_t / (1 - beta1 ** t)
    rho_t > 5: param -= lr * m_hat * r_t * sqrt(1 - beta2 ** t) / (sqrt(v_t) + epsilon),
               r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
    otherwise: param -= lr * m_hat

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([1.0, -1.0]), name='w')
    >>> (w * w).sum().backward()
    >>> opt = paddle.optimizer.RAdam(learning_rate=0.1, parameters=[w])
    >>> opt.step()
    >>> np.round(w.numpy(), 4).tolist()      # the first steps are momentum SGD
    [0.8, -0.8]
    """
    _accumulator_names = ('beta1_pow', 'beta2_pow', 'rho', 'moment1', 'moment2')
    _group_options = {'beta1': '_beta1', 'beta2': '_beta2', 'epsilon': '_epsilon'}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1.0e-8,
                 parameters=None, weight_decay=None, grad_clip=None, name=None):
        api = type(self).__name__
        self._beta1 = float_arg(api, 'beta1', beta1, 0.0, 1.0, high_open=True)
        self._beta2 = float_arg(api, 'beta2', beta2, 0.0, 1.0, high_open=True)
        self._epsilon = float_arg(api, 'epsilon', epsilon, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('beta1_pow', param, dt, 1.0),
                self._add_accumulator('beta2_pow', param, dt, 1.0),
                self._add_accumulator('rho', param, dt, 1.0),
                self._add_accumulator('moment1', param, dt),
                self._add_accumulator('moment2', param, dt))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = radam_op(param, grad, lr, *state, float(opts['beta1']), float(opts['beta2']),
                        float(opts['epsilon']))
        self._write((param,) + state, outs)
