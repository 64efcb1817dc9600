"""Orthogonal initialization (Paddle's ``paddle.nn.initializer.orthogonal``)."""

from ...ops import init_ops as _init_ops
from .initializer import Initializer, _dtype_str

__all__ = ['Orthogonal']


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix over the parameter flattened to
    ``[shape[0], prod(shape[1:])]``, times ``gain``."""

    def __init__(self, gain=1.0, name=None):
        self.gain = float(gain)

    def init_value(self, shape, dtype):
        if len(shape) < 2:
            raise ValueError("Orthogonal: the parameter must have at least 2 dims, got "
                             "shape %s" % list(shape))
        return _init_ops.orthogonal_random(shape, self.gain, dtype=_dtype_str(dtype))
