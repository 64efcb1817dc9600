"""Stochastic gradient descent."""
from ..ops.optim import sgd_op
from .optimizer import Optimizer

__all__ = ['SGD']


class SGD(Optimizer):
    r"""Plain gradient descent: ``param = param - learning_rate * grad``.

    >>> import numpy as np
    >>> import framework as paddle
    >>> w = paddle.Parameter(np.array([1.0, 2.0]), name='w')
    >>> (w * w).sum().backward()
    >>> opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=[w])
    >>> opt.step(); opt.clear_grad()
    >>> w.numpy().tolist()
    [0.8, 1.6]
    """

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None,
                 grad_clip=None, multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._multi_precision = multi_precision

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        self._write((param,), (sgd_op(param, grad, lr),))
