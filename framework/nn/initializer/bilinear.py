"""Bilinear-upsampling kernel initialization (Paddle's ``paddle.nn.initializer.bilinear``)."""

import math
import numpy as np

from ... import dtype as _dt
from ...ops import creation as _creation
from .initializer import Initializer

__all__ = ['Bilinear']


class Bilinear(Initializer):
    """Bilinear-interpolation kernels for a ``Conv2DTranspose`` upsampler
    (weight ``[C, 1, K, K]`` or any 4-D shape with square kernels)."""

    def init_value(self, shape, dtype):
        if len(shape) != 4 or shape[2] != shape[3]:
            raise ValueError("Bilinear: expects a 4-D weight with square kernels, got "
                             "shape %s" % list(shape))
        size = shape[3]
        f = math.ceil(size / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        ramp = 1 - np.abs(np.arange(size) / f - c)
        kernel = np.outer(ramp, ramp)
        w = np.broadcast_to(kernel, shape).astype(_dt.convert_dtype(dtype))
        return _creation.to_tensor(w)
