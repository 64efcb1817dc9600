"""Dirac (identity) conv initialization (Paddle's ``paddle.nn.initializer.dirac``)."""

import numpy as np

from ... import dtype as _dt
from ...ops import creation as _creation
from .initializer import Initializer

__all__ = ['Dirac']


class Dirac(Initializer):
    """Identity-preserving conv weights ``[out, in/groups, *k]``: each output
    channel copies one input channel through the kernel centre."""

    def __init__(self, groups=1, name=None):
        if int(groups) < 1:
            raise ValueError("Dirac: groups must be >= 1, got %r" % (groups,))
        self.groups = int(groups)

    def init_value(self, shape, dtype):
        if len(shape) not in (3, 4, 5):
            raise ValueError("Dirac: expects a 3-D, 4-D or 5-D conv weight, got shape %s"
                             % list(shape))
        if shape[0] % self.groups:
            raise ValueError("Dirac: out channels %d not divisible by groups %d"
                             % (shape[0], self.groups))
        w = np.zeros(shape, dtype=_dt.convert_dtype(dtype))
        per_group = shape[0] // self.groups
        n = min(per_group, shape[1])
        centre = tuple(k // 2 for k in shape[2:])
        idx = np.arange(n)
        for g in range(self.groups):
            w[(g * per_group + idx, idx) + centre] = 1
        return _creation.to_tensor(w)
