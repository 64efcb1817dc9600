"""Initialization from a given value (Paddle's ``paddle.nn.initializer.assign``)."""

import numpy as np

from ...dygraph.tensor import Tensor
from ...ops import creation as _creation
from .initializer import Initializer, _dtype_str

__all__ = ['Assign']


class Assign(Initializer):
    """Copy a given value (numpy array, list, scalar or Tensor); the shapes must match."""

    def __init__(self, value, name=None):
        arr = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
        if arr.dtype == object or arr.dtype.kind not in 'biuf':
            raise TypeError("Assign: value must be numeric, got dtype %s" % arr.dtype)
        self.value = arr

    def init_value(self, shape, dtype):
        if list(self.value.shape) != list(shape):
            raise ValueError("Assign: the value has shape %s but the parameter has shape %s"
                             % (list(self.value.shape), list(shape)))
        return _creation.to_tensor(self.value, dtype=_dtype_str(dtype))

    def __repr__(self):
        return 'Assign(shape=%s)' % list(self.value.shape)
