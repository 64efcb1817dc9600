"""Constraints: which values a random variable may take (checked elementwise)."""
from ..ops import math as _m
from ..ops import reduce as _r


class Constraint:
    """Base of constraints: ``check(value)`` is a bool tensor."""

    def __call__(self, value):
        raise NotImplementedError("%s does not define a check" % type(self).__name__)

    def check(self, value):
        return self(value)


class Real(Constraint):
    """Any real number (not NaN)."""

    def __call__(self, value):
        return value == value


class Range(Constraint):
    """lower <= value <= upper."""

    def __init__(self, lower, upper):
        self._lower = lower
        self._upper = upper
        super().__init__()

    def __call__(self, value):
        return (self._lower <= value) & (value <= self._upper)


class Positive(Constraint):
    """value >= 0."""

    def __call__(self, value):
        return value >= 0.0


class Simplex(Constraint):
    """Non-negative entries summing to 1 along the last dim."""

    def __call__(self, value):
        return _r.all(value >= 0, axis=-1) & (_m.abs(_r.sum(value, -1) - 1.0) < 1e-6)


real = Real()
positive = Positive()
simplex = Simplex()
