"""Kaiming (He) initialization (Paddle's ``paddle.nn.initializer.kaiming``)."""

import math

from .initializer import Initializer, _uniform, _gaussian, compute_fans, calculate_gain

__all__ = ['KaimingNormal', 'KaimingUniform']


class KaimingNormal(Initializer):
    """He normal: N(0, std), ``std = gain / sqrt(fan)`` with
    ``gain = calculate_gain(nonlinearity, negative_slope)``; ``fan`` is the
    weight's fan-in (or ``fan_in`` when given), or its fan-out with
    ``mode='fan_out'``."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity='relu', mode='fan_in',
                 name=None):
        if mode not in ('fan_in', 'fan_out'):
            raise ValueError("The mode of KaimingNormal/KaimingUniform should be 'fan_in' or "
                             "'fan_out', but received %r." % (mode,))
        if mode == 'fan_out' and fan_in is not None:
            raise ValueError("The mode of KaimingNormal/KaimingUniform is 'fan_out', but "
                             "fan_in is set. Please set fan_in to None.")
        self.fan_in = fan_in
        self.negative_slope = negative_slope
        self.nonlinearity = nonlinearity
        self.mode = mode
        calculate_gain(nonlinearity, negative_slope)   # validate now, not at first use

    def _scale(self, shape):
        fans = compute_fans(shape)
        if self.mode == 'fan_out':
            fan_in = fans[1]
        else:
            fan_in = self.fan_in if self.fan_in is not None else fans[0]
        if fan_in <= 0:
            raise ValueError("%s: fan_in must be positive, got %r" % (type(self).__name__,
                                                                     fan_in))
        return calculate_gain(self.nonlinearity, self.negative_slope) / math.sqrt(fan_in)

    def init_value(self, shape, dtype):
        return _gaussian(shape, 0.0, self._scale(shape), dtype)


class KaimingUniform(KaimingNormal):
    """He uniform: U(-l, l), ``l = gain * sqrt(3 / fan_in)``."""

    def init_value(self, shape, dtype):
        limit = self._scale(shape) * math.sqrt(3.0)
        return _uniform(shape, -limit, limit, dtype)
