"""Uniform initialization (Paddle's ``paddle.nn.initializer.uniform``)."""

from .initializer import Initializer, _uniform

__all__ = ['Uniform']


class Uniform(Initializer):
    """Uniform on ``[low, high)``."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        if not low < high:
            raise ValueError("Uniform: low (%r) must be smaller than high (%r)" % (low, high))
        self.low = float(low)
        self.high = float(high)

    def init_value(self, shape, dtype):
        return _uniform(shape, self.low, self.high, dtype)
