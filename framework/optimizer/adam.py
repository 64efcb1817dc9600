"""Adam."""
from ..ops.optim import adam_amsgrad_op, adam_op
from .optimizer import Optimizer, float_arg

__all__ = ['Adam']


class Adam(Optimizer):
    r"""Adam (Paddle's formulation, equal to the textbook bias-corrected one):

    moment1 = beta1 * moment1 + (1 - beta1) * grad
    moment2 = beta2 * moment2 + (1 - beta2) * grad ** 2
    lr_t = learning_rate * sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
    param = param - lr_t * moment1 / (sqrt(moment2) + epsilon * sqrt(1 - beta2 ** t))

    ``beta1 ** t`` / ``beta2 ** t`` are the ``beta1_pow_acc`` / ``beta2_pow_acc``
    accumulators. ``amsgrad=True`` uses the running maximum of moment2.
    ``lazy_mode`` only matters for sparse gradients, which this framework does
    not produce; it is accepted for compatibility.

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([1.0, -1.0]), name='w')
    >>> (w * w).sum().backward()
    >>> opt = paddle.optimizer.Adam(learning_rate=0.1, parameters=[w])
    >>> opt.step()
    >>> np.round(w.numpy(), 6).tolist()   # the first Adam step moves by ~lr
    [0.9, -0.9]
    """
    _accumulator_names = ('moment1', 'moment2', 'beta1_pow_acc', 'beta2_pow_acc',
                          'moment2_max')
    _group_options = {'beta1': '_beta1', 'beta2': '_beta2', 'epsilon': '_epsilon',
                      'lazy_mode': '_lazy_mode'}

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameters=None, weight_decay=None, grad_clip=None, lazy_mode=False,
                 multi_precision=False, use_multi_tensor=False, amsgrad=False, name=None):
        api = type(self).__name__
        self._beta1 = float_arg(api, 'beta1', beta1, 0.0, 1.0, high_open=True)
        self._beta2 = float_arg(api, 'beta2', beta2, 0.0, 1.0, high_open=True)
        self._epsilon = float_arg(api, 'epsilon', epsilon, 0.0)
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._lazy_mode = lazy_mode
        self._multi_precision = multi_precision
        self._amsgrad = bool(amsgrad)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        accs = [self._add_accumulator('moment1', param, dt),
                self._add_accumulator('moment2', param, dt),
                self._add_accumulator('beta1_pow_acc', param, dt, float(opts['beta1']), [1]),
                self._add_accumulator('beta2_pow_acc', param, dt, float(opts['beta2']), [1])]
        if self._amsgrad:
            accs.append(self._add_accumulator('moment2_max', param, dt))
        return tuple(accs)

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        op = adam_amsgrad_op if self._amsgrad else adam_op
        outs = self._run_update(op, param, grad, lr, *state, float(opts['beta1']),
                                float(opts['beta2']), float(opts['epsilon']))
        self._write((param,) + state, outs)
