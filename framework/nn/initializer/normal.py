"""Normal and truncated normal initialization (Paddle's ``paddle.nn.initializer.normal``)."""

from ...ops import init_ops as _init_ops
from .initializer import Initializer, _dtype_str, _gaussian

__all__ = ['Normal', 'TruncatedNormal']


class Normal(Initializer):
    """Normal with ``mean`` and standard deviation ``std``."""

    def __init__(self, mean=0.0, std=1.0, name=None):
        if std < 0:
            raise ValueError("Normal: std must be non-negative, got %r" % (std,))
        self.mean = float(mean)
        self.std = float(std)

    def init_value(self, shape, dtype):
        return _gaussian(shape, self.mean, self.std, dtype)


class TruncatedNormal(Initializer):
    """Normal(mean, std) restricted to ``[a, b]`` (absolute bounds, as Paddle's
    and PyTorch's ``trunc_normal_``)."""

    def __init__(self, mean=0.0, std=1.0, a=-2.0, b=2.0, name=None):
        if std <= 0:
            raise ValueError("TruncatedNormal: std must be positive, got %r" % (std,))
        if not a < b:
            raise ValueError("TruncatedNormal: a (%r) must be smaller than b (%r)" % (a, b))
        self.mean = float(mean)
        self.std = float(std)
        self.a = float(a)
        self.b = float(b)

    def init_value(self, shape, dtype):
        return _init_ops.truncated_gaussian_random(shape, self.mean, self.std, self.a,
                                                   self.b, dtype=_dtype_str(dtype))
