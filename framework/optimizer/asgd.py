"""ASGD: stochastic average gradient."""
from ..ops.optim import asgd_op
from .optimizer import Optimizer

__all__ = ['ASGD']


class ASGD(Optimizer):
    r"""Stochastic average gradient (Schmidt, Le Roux, Bach; Paddle's ASGD).
    Every step fills the next of ``batch_num`` slots (round robin) with the new
    gradient and moves along the average of the slots' latest gradients:

    i = m % batch_num;  d = d - y_i + g;  y_i = g;  m = m + 1
    param = param - learning_rate * d / min(m, batch_num)

    ``batch_num`` is the number of batches in an epoch (fewer saves memory: the
    optimizer keeps ``batch_num`` gradients per parameter).

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([1.0, -1.0]), name='w')
    >>> (w * w).sum().backward()
    >>> opt = paddle.optimizer.ASGD(learning_rate=0.1, batch_num=2, parameters=[w])
    >>> opt.step()
    >>> w.numpy().tolist()
    [0.8, -0.8]
    """
    _accumulator_names = ('d', 'y', 'm')

    def __init__(self, learning_rate=0.001, batch_num=1, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        if batch_num is None or isinstance(batch_num, bool) or not isinstance(batch_num, int) \
                or batch_num <= 0:
            raise ValueError("ASGD: batch_num must be a positive int, got %r" % (batch_num,))
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._n = batch_num
        self._multi_precision = multi_precision

    def _create_state(self, param, opts):
        dt = self._acc_dtype(param)
        return (self._add_accumulator('d', param, dt),
                self._add_accumulator('y', param, dt, shape=[self._n] + list(param.shape)),
                self._add_accumulator('m', param, 'int64', shape=[1]))

    def _state_shape(self, accumulator, param, param_shaped):
        prefix = self._name + '_' if self._name is not None else ''
        if accumulator == prefix + 'y':
            return [self._n] + list(param.shape)
        if accumulator == prefix + 'm':
            return [1]
        return list(param.shape)

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        outs = asgd_op(param, grad, lr, *state, self._n)
        self._write((param,) + state, outs)
