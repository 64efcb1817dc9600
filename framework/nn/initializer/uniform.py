"""Uniform initialization (Paddle's ``paddle.nn.initializer.uniform``)."""

from .initializer import Initializer, _uniform

__all__ = ['Uniform']


class Uniform(Initializer):
    """Uniform on ``[low, high)``; ``low == high`` makes every value ``low``
    (Paddle accepts it: a constant initialization)."""

    def __init__(self, low=-1.0, high=1.0, name=None):
        if not low <= high:
            raise ValueError("Uniform: low (%r) must not be larger than high (%r)"
                             % (low, high))
        self.low = float(low)
        self.high = float(high)

    def init_value(self, shape, dtype):
        return _uniform(shape, self.low, self.high, dtype)
