"""Creation ops: tensors from data, constants and random draws."""
import numpy as np

from .. import dtype as _dt
from . import meta
from .registry import Meta, OpError, add_test_case, def_op, mode


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Make a tensor from a Python scalar, (nested) list, numpy array or Tensor.

    Floats default to float32 and ints to int64, as in Paddle.

    >>> import framework as paddle
    >>> paddle.to_tensor([1.0, 2.0]).dtype
    dtype('float32')
    """
    if mode.static:
        return assign_value(data, dtype)
    return mode.make_tensor(data, dtype, stop_gradient)


def _shape_list(shape, api):
    if hasattr(shape, 'tolist') and not isinstance(shape, (list, tuple)):
        shape = shape.tolist()   # a Tensor or array holding the shape
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    try:
        return [int(s) for s in shape]
    except TypeError:
        raise OpError("%s: shape must be a list of ints or a tensor, got %r" % (api, shape)) from None


def _full_meta(shape, value, dtype):
    return Meta(shape, dtype)


@def_op('full', _full_meta, differentiable=False)
def full_op(shape=(), value=0.0, dtype='float32'):
    return np.full(shape, value, dtype=dtype)


def _value_dtype(value, dtype):
    if dtype is not None:
        return str(_dt.convert_dtype(dtype))
    if isinstance(value, bool):
        return 'bool'
    if isinstance(value, (int, np.integer)):
        return 'int64'
    return str(_dt.default_float())


def full(shape, fill_value, dtype=None, name=None):
    """A tensor of ``shape`` filled with ``fill_value``."""
    if hasattr(fill_value, 'item') and not isinstance(fill_value, np.ndarray):
        fill_value = fill_value.item()
    return full_op(tuple(_shape_list(shape, 'full')), fill_value,
                   _value_dtype(fill_value, dtype))


def zeros(shape, dtype=None, name=None):
    return full_op(tuple(_shape_list(shape, 'zeros')), 0, _float_or(dtype))


def ones(shape, dtype=None, name=None):
    return full_op(tuple(_shape_list(shape, 'ones')), 1, _float_or(dtype))


def empty(shape, dtype=None, name=None):
    return zeros(shape, dtype)


def _float_or(dtype):
    return str(_dt.convert_dtype(dtype)) if dtype is not None else str(_dt.default_float())


def _like_meta(x, value, dtype):
    return Meta(meta.shape_of(x), dtype if dtype is not None else meta.dtype_of(x))


@def_op('full_like', _like_meta, differentiable=False)
def full_like_op(x, value=0.0, dtype=None):
    return np.full(np.shape(x), value, dtype=dtype if dtype is not None else x.dtype)


def full_like(x, fill_value, dtype=None, name=None):
    d = str(_dt.convert_dtype(dtype)) if dtype is not None else None
    return full_like_op(x, fill_value, d)


def zeros_like(x, dtype=None, name=None):
    return full_like(x, 0, dtype)


def ones_like(x, dtype=None, name=None):
    return full_like(x, 1, dtype)


def empty_like(x, dtype=None, name=None):
    return full_like(x, 0, dtype)


def _assign_value_meta(value, dtype):
    arr = np.asarray(value)
    return Meta(arr.shape, dtype)


@def_op('assign_value', _assign_value_meta, differentiable=False)
def assign_value_op(value=None, dtype='float32'):
    return np.array(value, dtype=dtype)


def assign_value(data, dtype=None):
    """Static-mode constant: the value is stored in the op's attributes."""
    arr = np.asarray(getattr(data, 'data', data))
    if dtype is None:
        dtype = (_dt.default_float() if arr.dtype == np.float64 and not isinstance(data, np.ndarray)
                 else arr.dtype)
    return assign_value_op(arr.tolist(), str(_dt.convert_dtype(dtype)))


__all__ = ['to_tensor', 'full', 'zeros', 'ones', 'empty', 'full_like', 'zeros_like',
           'ones_like', 'empty_like']
TENSOR_METHODS = {}

add_test_case(full_op, (2, 3), 1.5, 'float64', ref=lambda s, v, d: np.ones(s) * v)
add_test_case(full_like_op, np.zeros((2, 3)), 2.0, None, ref=lambda x, v, d: x + v)
add_test_case(assign_value_op, [[1.0, 2.0]], 'float64', ref=lambda v, d: np.array(v))
