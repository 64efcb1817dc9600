"""Normalisation (Paddle's ``paddle.nn.functional.norm``)."""
from ...ops import manipulation as _manip, math as _math, nn as _nn, reduce as _reduce
from ...ops.nn import (batch_norm, group_norm, instance_norm, layer_norm,  # noqa: F401
                       local_response_norm)
from ...ops.registry import OpError
from .activation import _into

__all__ = ['batch_norm', 'group_norm', 'instance_norm', 'layer_norm', 'local_response_norm',
           'normalize', 'rms_norm']


def normalize(x, p=2, axis=1, epsilon=1e-12, out=None, name=None):
    """``x / max(||x||_p, epsilon)`` along ``axis`` (``out`` also receives it)."""
    return _into(_nn.normalize(x, p, axis, epsilon), out)


def rms_norm(input, normalized_shape, weight=None, eps=1e-5, name=None):  # noqa: A002
    """Root-mean-square layer normalisation over the trailing
    ``normalized_shape`` dims: ``x * rsqrt(mean(x**2) + eps) * weight``.
    Returns ``(out, invvar)`` with ``invvar = rsqrt(mean(x**2) + eps)`` (float32,
    the shape of the leading dims), as Paddle's kernel does.

    >>> import framework as paddle, framework.nn.functional as F
    >>> out, invvar = F.rms_norm(paddle.to_tensor([[3.0, 4.0]]), [2], eps=0.0)
    >>> round(float(invvar[0]) ** -2, 4)
    12.5
    """
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    shape, k = list(input.shape), len(normalized_shape)
    if k == 0 or k > len(shape) or shape[len(shape) - k:] != list(normalized_shape):
        raise OpError("rms_norm: normalized_shape %s must match the trailing dims of input "
                      "shape %s" % (list(normalized_shape), shape))
    axes = list(range(len(shape) - k, len(shape)))
    invvar = _math.rsqrt(_reduce.mean(input * input, axis=axes, keepdim=True) + eps)
    out = input * invvar
    if weight is not None:
        if list(weight.shape) != list(normalized_shape):
            raise OpError("rms_norm: weight shape %s must equal normalized_shape %s"
                          % (list(weight.shape), list(normalized_shape)))
        out = out * weight
    return out, _manip.cast(_manip.reshape(invvar, shape[:len(shape) - k]), 'float32')
