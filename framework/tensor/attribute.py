"""Tensor attributes (``paddle.tensor.attribute``)."""
import numpy as np

from .. import dtype as _dt

from ..ops.manipulation import shape  # noqa: F401


def rank(input):  # noqa: A002  (Paddle's argument name)
    """The number of dims of ``input`` as a 0-d int32 tensor."""
    from ..ops.creation import full
    return full([], len(input.shape), 'int32')


def is_floating_point(x):
    return _dt.is_floating(x.dtype)


def is_integer(x):
    return np.dtype(x.dtype).kind in 'iu'


def is_complex(x):
    return np.dtype(x.dtype).kind == 'c'


__all__ = ['shape', 'rank', 'is_floating_point', 'is_integer', 'is_complex']
