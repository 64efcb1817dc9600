"""Data types.

Dtypes are plain ``numpy.dtype`` objects, so ``x.dtype == framework.float32``,
``x.dtype == 'float32'`` and ``x.dtype == np.float32`` all hold. Paddle's names
(``'float32'``, ``paddle.int64``, ``'bool'``) and numpy dtypes are both accepted
wherever a dtype is asked for.
"""
import numpy as np

float16 = np.dtype('float16')
float32 = np.dtype('float32')
float64 = np.dtype('float64')
int8 = np.dtype('int8')
int16 = np.dtype('int16')
int32 = np.dtype('int32')
int64 = np.dtype('int64')
uint8 = np.dtype('uint8')
bool_ = np.dtype('bool')
complex64 = np.dtype('complex64')
complex128 = np.dtype('complex128')

_ALIASES = {
    'float': float32, 'fp32': float32, 'fp16': float16, 'fp64': float64,
    'double': float64, 'int': int64, 'long': int64, 'half': float16,
    'paddle.float32': float32, 'paddle.float64': float64, 'paddle.float16': float16,
    'paddle.int32': int32, 'paddle.int64': int64, 'paddle.bool': bool_,
    'paddle.int8': int8, 'paddle.uint8': uint8, 'paddle.int16': int16,
}

_default_dtype = [float32]


def convert_dtype(dtype):
    """Normalise any accepted dtype spelling to a ``numpy.dtype`` (None -> None)."""
    if dtype is None:
        return None
    if isinstance(dtype, np.dtype):
        return dtype
    if isinstance(dtype, str):
        hit = _ALIASES.get(dtype.lower())
        if hit is not None:
            return hit
    if dtype is float:
        return _default_dtype[0]
    if dtype is int:
        return int64
    if dtype is bool:
        return bool_
    try:
        return np.dtype(dtype)
    except TypeError:
        raise TypeError("unsupported dtype %r; use e.g. 'float32', 'int64', 'bool' "
                        "or a numpy dtype" % (dtype,)) from None


def set_default_dtype(d):
    d = convert_dtype(d)
    if d.kind != 'f':
        raise TypeError("set_default_dtype only accepts float dtypes, got %s" % d)
    _default_dtype[0] = d


def get_default_dtype():
    return str(_default_dtype[0])


def default_float():
    return _default_dtype[0]


def is_floating(dtype):
    return np.dtype(dtype).kind == 'f'


def is_integer(dtype):
    return np.dtype(dtype).kind in 'iu'
