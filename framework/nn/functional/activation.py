"""Activations (Paddle's ``paddle.nn.functional.activation``)."""
import numpy as np

from ...ops import nn as _nn
from ...ops.nn import (celu, elu, elu_, gelu, glu, hardshrink, hardsigmoid,  # noqa: F401
                       hardswish, hardtanh, leaky_relu, log_sigmoid, log_softmax, maxout, mish,
                       prelu, relu, relu6, relu_, selu, silu, softmax_, softplus, softshrink,
                       softsign, swish, tanhshrink, thresholded_relu)
from ...ops.registry import OpError

__all__ = ['celu', 'elu', 'elu_', 'gelu', 'glu', 'gumbel_softmax', 'hardshrink', 'hardsigmoid',
           'hardswish', 'hardtanh', 'hardtanh_', 'leaky_relu', 'leaky_relu_', 'log_sigmoid',
           'log_softmax', 'maxout', 'mish', 'prelu', 'relu', 'relu6', 'relu_', 'rrelu', 'selu',
           'sigmoid', 'silu', 'softmax', 'softmax_', 'softplus', 'softshrink', 'softsign',
           'swiglu', 'swish', 'tanh', 'tanh_', 'tanhshrink', 'thresholded_relu',
           'thresholded_relu_']


def _into(result, out):
    """Paddle 3's ``out=``: the result is also written into ``out``."""
    if out is None:
        return result
    from ...ops.manipulation import assign
    return assign(result, out)


def sigmoid(x, name=None, *, out=None):
    """``1 / (1 + exp(-x))``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.sigmoid(paddle.to_tensor([0.0])).numpy().tolist()
    [0.5]
    """
    return _into(_nn.sigmoid(x), out)


def tanh(x, name=None, *, out=None):
    """Hyperbolic tangent."""
    return _into(_nn.tanh(x), out)


def softmax(x, axis=-1, dtype=None, name=None, *, out=None):
    """``exp(x) / sum(exp(x))`` along ``axis`` (``dtype`` casts ``x`` first)."""
    return _into(_nn.softmax(x, axis, dtype), out)


def tanh_(x, name=None):
    """In-place ``tanh``."""
    return x._inplace_update(_nn.tanh(x))


def hardtanh_(x, min=-1.0, max=1.0, name=None):  # noqa: A002
    """In-place ``hardtanh``."""
    return x._inplace_update(hardtanh(x, min, max))


def leaky_relu_(x, negative_slope=0.01, name=None):
    """In-place ``leaky_relu``."""
    return x._inplace_update(leaky_relu(x, negative_slope))


def thresholded_relu_(x, threshold=1.0, value=0.0, name=None):
    """In-place ``thresholded_relu``."""
    return x._inplace_update(thresholded_relu(x, threshold, value))


def rrelu(x, lower=1.0 / 8.0, upper=1.0 / 3.0, training=True, name=None):
    """Randomized leaky relu: in training a negative input is multiplied by a
    slope drawn uniformly from ``[lower, upper]`` (per element), otherwise by
    ``(lower + upper) / 2``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.rrelu(paddle.to_tensor([-1.0, 2.0]), 0.2, 0.4, training=False).numpy().tolist()
    [-0.30000001192092896, 2.0]
    """
    if not isinstance(lower, float) or not isinstance(upper, float):
        raise TypeError("rrelu: lower and upper must be floats, got lower %r, upper %r"
                        % (lower, upper))
    if not 0 <= lower <= 1:
        raise ValueError("rrelu: lower must be in [0, 1], got %r" % lower)
    if upper < lower:
        raise ValueError("rrelu: upper (%r) must not be less than lower (%r)" % (upper, lower))
    if upper > 1:
        raise ValueError("rrelu: upper must be no greater than 1, got %r" % upper)
    return _nn.rrelu_op(x, float(lower), float(upper), not training)[0]


def gumbel_softmax(x, temperature=1.0, hard=False, axis=-1, name=None):
    """Samples from the Gumbel-softmax distribution: ``softmax((x + g) / temperature)``
    with ``g = -log(-log(U))``, ``U ~ U(0, 1)``; ``hard=True`` returns the one-hot
    of each sample's maximum (which, as in Paddle, passes no gradient)."""
    if temperature <= 0:
        raise OpError("gumbel_softmax: temperature must be positive, got %r" % temperature)
    axis = _nn._axis_arg(axis, x, 'gumbel_softmax') if len(x.shape) else -1
    from ...ops.creation import uniform_like_op
    from ...ops.math import log
    u = uniform_like_op(x, np.finfo(np.float32).tiny, 1.0, 0)
    noise = -log(-log(u))
    return _nn.gumbel_softmax_op(x, noise, float(temperature), bool(hard), axis)


def swiglu(x, y=None, name=None):
    """``silu(x) * y``; without ``y``, ``x`` is split in two halves along its
    last axis and the first half gates the second.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.swiglu(paddle.to_tensor([1.0, 3.0]), paddle.to_tensor([2.0, 1.0])).shape
    paddle.Size([2])
    """
    if y is None:
        n = x.shape[-1] if len(x.shape) else 0
        if n < 0 or n % 2:
            raise OpError("swiglu: without y, the last dim of x (shape %s) must be even"
                          % list(x.shape))
        from ...ops.manipulation import split
        x, y = split(x, 2, axis=-1)
    elif list(x.shape) != list(y.shape):
        raise OpError("swiglu: x and y must have the same shape, got %s and %s"
                      % (list(x.shape), list(y.shape)))
    return silu(x) * y
