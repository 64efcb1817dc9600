"""Xavier (Glorot) initialization (Paddle's ``paddle.nn.initializer.xavier``)."""

import math

from .initializer import Initializer, _uniform, _gaussian, compute_fans

__all__ = ['XavierUniform', 'XavierNormal']


class XavierUniform(Initializer):
    """Glorot uniform: U(-l, l), ``l = gain * sqrt(6 / (fan_in + fan_out))``."""

    def __init__(self, fan_in=None, fan_out=None, gain=1.0, name=None):
        self.fan_in = fan_in
        self.fan_out = fan_out
        self.gain = float(gain)

    def _fans(self, shape):
        fi, fo = compute_fans(shape)
        return (self.fan_in if self.fan_in is not None else fi,
                self.fan_out if self.fan_out is not None else fo)

    def init_value(self, shape, dtype):
        fan_in, fan_out = self._fans(shape)
        limit = self.gain * math.sqrt(6.0 / float(fan_in + fan_out))
        return _uniform(shape, -limit, limit, dtype)


class XavierNormal(XavierUniform):
    """Glorot normal: N(0, std), ``std = gain * sqrt(2 / (fan_in + fan_out))``."""

    def init_value(self, shape, dtype):
        fan_in, fan_out = self._fans(shape)
        std = self.gain * math.sqrt(2.0 / float(fan_in + fan_out))
        return _gaussian(shape, 0.0, std, dtype)
