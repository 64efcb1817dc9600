"""Constant initialization (Paddle's ``paddle.nn.initializer.constant``)."""

import numpy as np

from ...ops import creation as _creation
from .initializer import Initializer, _dtype_str

__all__ = ['Constant']


class Constant(Initializer):
    """Every element equals ``value``."""

    def __init__(self, value=0.0):
        if not isinstance(value, (int, float, np.number)) or isinstance(value, bool):
            raise TypeError("Constant: value must be a number, got %r" % (value,))
        self.value = float(value)

    def init_value(self, shape, dtype):
        return _creation.full(shape, self.value, dtype=_dtype_str(dtype))
