"""Tensor arrays (``paddle.tensor.create_array`` / ``array_write`` / ``array_read``
/ ``array_length``) as Python lists of tensors, in both modes.

An index may be a Python int, an eager tensor, or a static Variable whose
value is known while the program is built (``paddle.zeros([1], 'int64') + i``).
Inside a tensor-dependent loop of a ``@to_static`` function, a list that is
appended to becomes a stacked tensor array (see ``dy2static``).
"""
from .. import dtype as _dt


def _position(i, api):
    from ..graph.program import build_time_value
    value = build_time_value(i, api, 'i')
    if getattr(value, 'size', 1) != 1:
        raise TypeError("%s: the index i must hold one integer, got shape %s"
                        % (api, list(getattr(value, 'shape', []))))
    return int(getattr(value, 'reshape', lambda *_: value)(()))


def create_array(dtype, initialized_list=None):
    """A new (empty, or holding ``initialized_list``) tensor array."""
    _dt.convert_dtype(dtype)     # reject bad dtypes here, as Paddle does
    items = list(initialized_list) if initialized_list is not None else []
    for k, x in enumerate(items):
        if not hasattr(x, 'shape') or not hasattr(x, 'dtype'):
            raise TypeError("create_array: initialized_list[%d] must be a tensor, got %s"
                            % (k, type(x).__name__))
    return items


def array_write(x, i, array=None):
    """``array[i] = x`` (``i == len(array)`` appends); returns the array."""
    if array is None:
        array = []
    if not isinstance(array, list):
        raise TypeError("array_write: array must be a tensor array (a list from "
                        "create_array), got %s" % type(array).__name__)
    k = _position(i, 'array_write')
    if k < 0 or k > len(array):
        raise IndexError("array_write: index %d is out of range for an array of length %d "
                         "(write at most one past the end)" % (k, len(array)))
    if k == len(array):
        array.append(x)
    else:
        array[k] = x
    return array


def array_read(array, i):
    """``array[i]``."""
    k = _position(i, 'array_read')
    if not 0 <= k < len(array):
        raise IndexError("array_read: index %d is out of range for an array of length %d"
                         % (k, len(array)))
    return array[k]


def array_length(array):
    """The number of items of ``array``: an int eagerly (as Paddle's), a
    1-element int64 tensor in a static program."""
    from ..ops.creation import full
    from ..ops.modes import in_static_mode
    if not in_static_mode():
        return len(array)
    return full([1], len(array), 'int64')


__all__ = ['create_array', 'array_write', 'array_read', 'array_length']
