"""Rprop: resilient backpropagation (full-batch training)."""
from ..ops.optim import rprop_op
from .optimizer import Optimizer

__all__ = ['Rprop']


class Rprop(Optimizer):
    r"""Rprop (Riedmiller & Braun; Paddle's rule). Every element has its own
    step size, starting at ``learning_rate``:

    g * g_prev > 0: step = min(step * etas[1], learning_rate_range[1])
    g * g_prev < 0: step = max(step * etas[0], learning_rate_range[0]), g = 0
    param = param - sign(g) * step;  g_prev = g

    Only the gradient's sign is used, so it suits full-batch training.

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([1.0, -1.0]), name='w')
    >>> (w * w).sum().backward()
    >>> opt = paddle.optimizer.Rprop(learning_rate=0.1, parameters=[w])
    >>> opt.step()
    >>> w.numpy().tolist()
    [0.9, -0.9]
    """
    _accumulator_names = ('prevs', 'learning_rates')

    def __init__(self, learning_rate=0.001, learning_rate_range=(1e-5, 50), parameters=None,
                 etas=(0.5, 1.2), grad_clip=None, multi_precision=False, name=None):
        if learning_rate is None:
            raise ValueError("Rprop: learning_rate is not set")
        lr = float(learning_rate() if callable(learning_rate) else learning_rate)
        lo, hi = (float(v) for v in learning_rate_range)
        if not 0.0 < lo <= lr <= hi:
            raise ValueError("Rprop: '0.0 < learning_rate_range[0] <= learning_rate <= "
                             "learning_rate_range[1]' must be true, got %r and %r"
                             % (learning_rate, tuple(learning_rate_range)))
        eta_neg, eta_pos = (float(v) for v in etas)
        if not 0.0 < eta_neg < 1.0 < eta_pos:
            raise ValueError("Rprop: '0.0 < etas[0] < 1.0 < etas[1]' must be true, got %r"
                             % (tuple(etas),))
        super().__init__(learning_rate, parameters, 0.0, grad_clip, name)
        self._initial_learning_rate = lr
        self._learning_rate_range = (lo, hi)
        self._etas = (eta_neg, eta_pos)
        self._multi_precision = multi_precision

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('prevs', param, dt),
                self._add_accumulator('learning_rates', param, dt, self._initial_learning_rate))

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = rprop_op(param, grad, *state, self._learning_rate_range, self._etas)
        self._write((param,) + state, outs)
