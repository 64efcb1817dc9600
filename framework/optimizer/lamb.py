"""LAMB: layer-wise adaptive moments."""
from ..ops.optim import lamb_op
from .optimizer import Optimizer, float_arg

__all__ = ['Lamb']


class Lamb(Optimizer):
    r"""LAMB (You et al. 2019), Paddle's rule:

    m = beta1 * m + (1 - beta1) * grad;  v = beta2 * v + (1 - beta2) * grad ** 2
    r = (m / (1 - beta1 ** t)) / (sqrt(v / (1 - beta2 ** t)) + epsilon) + lamb_weight_decay * param
    param = param - learning_rate * (||param|| / ||r||) * r     (ratio 1 if a norm is 0)

    ``exclude_from_weight_decay_fn(param)`` returning True sets the decay of that
    parameter to 0. A parameter without decay takes the plain step (ratio 1)
    unless ``always_adapt``, as in Paddle.
    """
    _accumulator_names = ('moment1', 'moment2', 'beta1_pow_acc', 'beta2_pow_acc')
    _group_options = {'beta1': '_beta1', 'beta2': '_beta2', 'epsilon': '_epsilon',
                      'lamb_weight_decay': '_lamb_weight_decay',
                      'exclude_from_weight_decay_fn': '_exclude_from_weight_decay_fn'}

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameters=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, multi_precision=False, always_adapt=False,
                 name=None):
        self._beta1 = float_arg('Lamb', 'beta1', beta1, 0.0, 1.0, high_open=True)
        self._beta2 = float_arg('Lamb', 'beta2', beta2, 0.0, 1.0, high_open=True)
        self._epsilon = float_arg('Lamb', 'epsilon', epsilon, 0.0)
        self._lamb_weight_decay = float_arg('Lamb', 'lamb_weight_decay', lamb_weight_decay)
        if exclude_from_weight_decay_fn is not None and not callable(
                exclude_from_weight_decay_fn):
            raise TypeError("Lamb: exclude_from_weight_decay_fn must be a function of the "
                            "parameter, got %r" % (exclude_from_weight_decay_fn,))
        self._exclude_from_weight_decay_fn = exclude_from_weight_decay_fn
        super().__init__(learning_rate, parameters, None, grad_clip, name)
        self._multi_precision = multi_precision
        self._always_adapt = bool(always_adapt)

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('moment1', param, dt),
                self._add_accumulator('moment2', param, dt),
                self._add_accumulator('beta1_pow_acc', param, dt, float(opts['beta1']), [1]),
                self._add_accumulator('beta2_pow_acc', param, dt, float(opts['beta2']), [1]))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        fn = opts['exclude_from_weight_decay_fn']
        wd = 0.0 if fn is not None and fn(param) else float(opts['lamb_weight_decay'])
        outs = lamb_op(param, grad, lr, *state, wd, float(opts['beta1']),
                       float(opts['beta2']), float(opts['epsilon']), self._always_adapt)
        self._write((param,) + state, outs)
