"""Creation ops: tensors from data, constants, ranges and random draws.

Random ops are declared ``effects=('random',)`` and draw from
``framework.random.generator()``, so ``framework.seed(n)`` makes them repeatable.
"""
import math

import numpy as np

from .. import dtype as _dt
from .. import random as _random
from ..place import check_device
from .compat_args import aliases, size_args
from . import lib, meta
from .grad_utils import is_value
from .modes import handlers, in_static_mode, is_static_var
from .out_param import write_out
from .registry import Meta, OpError, add_test_case, def_op
from .shape_args import shape_arg


def to_tensor(data, dtype=None, place=None, stop_gradient=True):
    """Make a tensor from a Python scalar, (nested) list, numpy array or Tensor.

    Floats default to float32 and ints to int64, as in Paddle.

    >>> import framework as paddle
    >>> paddle.to_tensor([1.0, 2.0]).dtype
    paddle.float32
    """
    _check_data(data)
    if in_static_mode():
        out = _static_tensor(data, dtype)
        out.stop_gradient = stop_gradient
        return out
    return handlers.make_tensor(data, dtype, stop_gradient)


_DATA_TYPES = (bool, int, float, complex, np.generic, np.ndarray, list, tuple)
# a shape attribute: dims >= 0 (verify.MAX_NUMEL bounds the size a loaded file may fix)
SHAPE_ATTR = {'attr_types': {'shape': 'ints'}, 'attr_ranges': {'shape': (0, None)}}


def _check_data(data):
    if not (isinstance(data, _DATA_TYPES) or is_value(data)):
        raise TypeError("to_tensor: Do not support transform type `%s` to tensor; give a "
                        "number, a (nested) list or tuple, a numpy array or a tensor"
                        % type(data))


def _holds_value(data):
    """True if a (nested) list/tuple holds a tensor or Variable."""
    return any(_holds_value(d) if isinstance(d, (list, tuple)) else is_value(d) for d in data)


def _list_dtype(data):
    """The dtype eager ``to_tensor`` gives a nested list mixing tensors and numbers:
    numpy's promotion of the items, float64 -> the default float, ints -> int64."""
    dtypes = []

    def walk(d):
        if isinstance(d, (list, tuple)):
            for v in d:
                walk(v)
        else:
            dtypes.append(np.dtype(d.dtype) if is_value(d) else np.asarray(d).dtype)
    walk(data)
    dt = np.result_type(*dtypes)
    if dt == np.float64:
        return str(_dt.default_float())
    if dt.kind in 'iu':
        return 'int64'
    return str(dt)


def _static_tensor(data, dtype=None):
    """A tensor made while a program is built: a Variable (or a captured eager
    tensor) is copied, a nested list holding Variables is stacked, anything
    else becomes a constant. Gradients never flow back to the source, as with
    an eager ``to_tensor``."""
    if is_value(data):
        out = lib.assign_op(data)
        if dtype is not None and np.dtype(out.dtype) != _dt.convert_dtype(dtype):
            out = lib.cast(out, dtype)
        return out
    if isinstance(data, (list, tuple)) and data and _holds_value(data):
        target = dtype if dtype is not None else _list_dtype(data)
        return lib.stack([_static_tensor(d, target) for d in data])
    arr = np.asarray(data)
    if arr.size == 0:   # an empty nested list in the attribute would lose the shape
        d = dtype if dtype is not None else (arr.dtype if isinstance(data, np.ndarray)
                                             else _dt.default_float())
        return full_op(arr.shape, 0, str(_dt.convert_dtype(d)))
    return assign_value(data, dtype)


def _finish(t, api, out=None, device=None, requires_grad=False, pin_memory=False):
    """Paddle 3's keyword-only creation arguments: ``device`` (only the CPU
    here, as in Paddle's CPU build), ``requires_grad`` (clears
    ``stop_gradient``), ``pin_memory`` (refused, as on a CPU build) and
    ``out`` (the tensor that takes the result)."""
    if out is None and device is None and not requires_grad and not pin_memory:
        return t
    check_device(device, api)
    if pin_memory:
        raise RuntimeError("%s: pinning memory is not supported for Place(cpu) (pin_memory=True "
                           "needs a CUDA build)" % api)
    if requires_grad:
        t.stop_gradient = False
    return t if out is None else write_out(out, t)


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


# a bool tensor is filled with a bool (full([2], True, 'bool'), folded bool constants)
@def_op('full', _full_meta, differentiable=False, attr_ranges=SHAPE_ATTR['attr_ranges'],
        attr_types=dict(SHAPE_ATTR['attr_types'], value='float|bool'), pattern='opaque')
def full_op(shape=(), value=0.0, dtype='float32'):
    return np.full(shape, value, dtype=dtype)


def _onnx_filled(g, value, dtype, shape):
    """``value`` broadcast to the int64 1-D ``shape`` (an ONNX value name)."""
    return g.op('Expand', g.const(np.asarray(value, dtype=dtype), hint='fill_value'), shape)


full_op.def_onnx(lambda g, shape, value, dtype: _onnx_filled(g, value, dtype, g.ints(shape)))


def _value_dtype(value, dtype):
    if dtype is not None:
        return str(_dt.convert_dtype(dtype))
    if isinstance(value, (bool, np.bool_)):
        return 'bool'
    if isinstance(value, complex):
        return 'complex128'           # Paddle's full: a Python complex is complex128
    return str(_dt.default_float())   # ints too: Paddle 3's full([2], 7) is float32


def _dynamic_full_meta(shape_tensor, shape, value, dtype):
    return Meta(shape, dtype)


@def_op('dynamic_full', _dynamic_full_meta, differentiable=False, attr_types={'shape': 'ints'},
        attr_ranges={'shape': (-1, None)}, pattern='opaque')
def dynamic_full_op(shape_tensor, shape=(), value=0.0, dtype='float32'):
    """``full`` whose shape is the int tensor ``shape_tensor`` (``shape`` has -1
    where an entry is known only at run time)."""
    dims = [int(d) for d in shape_tensor]
    if any(d < 0 for d in dims):
        raise OpError("full: shape must not have negative dims, got %s" % dims)
    return np.full(dims, value, dtype=dtype)


@dynamic_full_op.def_onnx
def _dynamic_full_onnx(g, shape_tensor, shape, value, dtype):
    dims = g.op('Cast', shape_tensor, to=g.tensor_type(np.int64))
    return _onnx_filled(g, value, dtype, dims)


def _full(shape, value, dtype, api):
    ints, tensor = shape_arg(shape, api)
    if tensor is not None:
        return dynamic_full_op(tensor, tuple(ints), value, dtype)
    if any(d < 0 for d in ints):
        raise OpError("%s: shape must not have negative dims, got %s" % (api, ints))
    return full_op(tuple(ints), value, dtype)


@aliases(shape=('size',))
def full(shape, fill_value, dtype=None, name=None, *, out=None, device=None,
         requires_grad=False, pin_memory=False):
    """A tensor of ``shape`` filled with ``fill_value`` (shape entries and the
    value may be tensors)."""
    if is_static_var(fill_value) and fill_value._value is None:
        t = _full_of_tensor(shape, fill_value, dtype)
    else:
        if hasattr(fill_value, 'item') and not isinstance(fill_value, np.ndarray):
            fill_value = fill_value.item()
        t = _full(shape, fill_value, _value_dtype(fill_value, dtype), 'full')
    return _finish(t, 'full', out, device, requires_grad, pin_memory)


def _full_of_tensor(shape, value, dtype):
    """``full`` with a one-element tensor value known only at run time: the value
    broadcast to ``shape``."""
    if value.size not in (1, -1):
        raise OpError("full: fill_value must be a number or a one-element tensor, got a "
                      "tensor of shape %s" % list(value.shape))
    value = lib.reshape(value, [])
    if dtype is not None and np.dtype(value.dtype) != _dt.convert_dtype(dtype):
        value = lib.cast(value, dtype)
    return lib.expand(value, shape)


@size_args
def zeros(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
          pin_memory=False):
    """A tensor of ``shape`` filled with 0 (the default float dtype unless given)."""
    return _finish(_full(shape, 0, _float_or(dtype), 'zeros'), 'zeros', out, device,
                   requires_grad, pin_memory)


@size_args
def ones(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
         pin_memory=False):
    """A tensor of ``shape`` filled with 1 (the default float dtype unless given)."""
    return _finish(_full(shape, 1, _float_or(dtype), 'ones'), 'ones', out, device,
                   requires_grad, pin_memory)


@size_args
def empty(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
          pin_memory=False):
    """A tensor of ``shape`` whose values are not to be relied on (zeros here:
    numpy gives no cheaper honest 'uninitialised' memory)."""
    return _finish(_full(shape, 0, _float_or(dtype), 'empty'), 'empty', out, device,
                   requires_grad, pin_memory)


def _float_or(dtype):
    return str(_dt.convert_dtype(dtype)) if dtype is not None else str(_dt.default_float())


def _like_meta(x, value, dtype):
    return Meta(meta.shape_of(x), dtype if dtype is not None else meta.dtype_of(x))


@def_op('full_like', _like_meta, differentiable=False, attr_types={'dtype': 'str|None'},
        pattern='opaque')
def full_like_op(x, value=0.0, dtype=None):
    return np.full(np.shape(x), value, dtype=dtype if dtype is not None else x.dtype)


full_like_op.def_onnx(lambda g, x, value, dtype: _onnx_filled(
    g, value, dtype if dtype is not None else g.meta(x).dtype, g.op('Shape', x)))


@aliases(x=('input',))
def full_like(x, fill_value, dtype=None, name=None, *, device=None, requires_grad=False,
              pin_memory=False):
    """A tensor of x's shape (and dtype, unless given) filled with ``fill_value``."""
    d = str(_dt.convert_dtype(dtype)) if dtype is not None else None
    return _finish(full_like_op(x, fill_value, d), 'full_like', None, device, requires_grad,
                   pin_memory)


@aliases(x=('input',))
def zeros_like(x, dtype=None, name=None, *, device=None, requires_grad=False,
               pin_memory=False):
    return full_like(x, 0, dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)


@aliases(x=('input',))
def ones_like(x, dtype=None, name=None, *, device=None, requires_grad=False, pin_memory=False):
    return full_like(x, 1, dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)


@aliases(x=('input',))
def empty_like(x, dtype=None, name=None, *, device=None, requires_grad=False,
               pin_memory=False):
    """Like ``empty``: zeros of x's shape (and dtype, unless given)."""
    return full_like(x, 0, dtype, device=device, requires_grad=requires_grad,
                     pin_memory=pin_memory)


def _assign_value_meta(value, dtype):
    arr = np.asarray(value)
    shape = arr.shape[:-1] if np.dtype(dtype).kind == 'c' else arr.shape
    return Meta(shape, dtype)


@def_op('assign_value', _assign_value_meta, differentiable=False, attr_types={'value': 'value'},
        pattern='opaque')
def assign_value_op(value=None, dtype='float32'):
    """A constant; a complex one is stored as [real, imag] pairs (attributes hold
    plain JSON numbers only)."""
    if np.dtype(dtype).kind == 'c':
        pairs = np.asarray(value, np.float64)
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(dtype)
    return np.array(value, dtype=dtype)


@assign_value_op.def_onnx
def _assign_value_onnx(g, value, dtype):
    if np.dtype(dtype).kind == 'c':
        raise OpError("assign_value: a %s constant cannot be exported (ONNX runtimes have no "
                      "complex tensors)" % dtype)
    return g.const(assign_value_op.kernel(value, dtype), hint='constant')


def assign_value_attr(arr):
    """The ``value`` attribute of an ``assign_value`` op holding ``arr``."""
    if arr.dtype.kind == 'c':
        return np.stack([arr.real, arr.imag], -1).tolist()
    if _dt.is_bfloat16(arr.dtype):      # exact in float32, which lists (and JSON) hold
        return arr.astype(np.float32).tolist()
    return arr.tolist()


def assign_value(data, dtype=None):
    """Static-mode constant: the value is stored in the op's attributes."""
    arr = np.asarray(getattr(data, 'data', data))
    if dtype is None:
        dtype = (_dt.default_float() if arr.dtype == np.float64 and not isinstance(data, np.ndarray)
                 else arr.dtype)
    dtype = _dt.convert_dtype(dtype)
    return assign_value_op(assign_value_attr(arr.astype(dtype)), str(dtype))


# ---- ranges and matrices ----------------------------------------------------

def _arange_len(start, end, step):
    if step == 0:
        raise OpError("step cannot be 0")
    return max(int(math.ceil((end - start) / step)), 0)


def _arange_meta(start, end, step, dtype):
    return Meta((_arange_len(start, end, step),), dtype)


# start/end/step: ints or floats (arange(0.0, 1.0, 0.1)); the defaults alone would say int
@def_op('arange', _arange_meta, differentiable=False,
        attr_types={'start': 'float', 'end': 'float', 'step': 'float'}, pattern='opaque')
def arange_op(start=0, end=1, step=1, dtype='int64'):
    _arange_len(start, end, step)
    # computed in float64 / int64 and then cast, so float32 ranges do not drift
    return np.arange(start, end, step).astype(dtype, copy=False)


arange_op.def_onnx(lambda g, start, end, step, dtype: g.const(
    arange_op.kernel(start, end, step, dtype), hint='arange'))


def _scalar_value(v, api, what):
    if hasattr(v, 'item') and not isinstance(v, (int, float)):
        if np.size(v) != 1:
            raise OpError("%s: %s must be a number or a one-element tensor, got shape %s"
                          % (api, what, list(np.shape(v))))
        v = v.item()
    if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool):
        raise TypeError("%s: %s must be a number, got %r" % (api, what, v))
    return v


def arange(start=0, end=None, step=1, dtype=None, *, out=None, device=None,
           requires_grad=False, pin_memory=False, name=None):
    """Values in ``[start, end)`` spaced by ``step``; ``arange(n)`` counts to n.

    int64 when all arguments are integers, else the default float dtype.

    >>> import framework as paddle
    >>> paddle.arange(5).tolist()
    [0, 1, 2, 3, 4]
    """
    if end is None:
        start, end = 0, start
    start, end, step = (_scalar_value(v, 'arange', n) for v, n in
                        [(start, 'start'), (end, 'end'), (step, 'step')])
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = 'int64' if ints else str(_dt.default_float())
    return _finish(arange_op(start, end, step, str(_dt.convert_dtype(dtype))), 'arange', out,
                   device, requires_grad, pin_memory)


def _linspace_meta(start, stop, num, dtype):
    return Meta((num,), dtype)


@def_op('linspace', _linspace_meta, differentiable=False, pattern='opaque')
def linspace_op(start=0.0, stop=1.0, num=1, dtype='float32'):
    return np.linspace(start, stop, num).astype(dtype, copy=False)


linspace_op.def_onnx(lambda g, start, stop, num, dtype: g.const(
    linspace_op.kernel(start, stop, num, dtype), hint='linspace'))


@aliases(stop=('end',), num=('steps',))
def linspace(start, stop, num, dtype=None, name=None, *, out=None, device=None,
             requires_grad=False):
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive)."""
    num = int(_scalar_value(num, 'linspace', 'num'))
    if num < 0:
        raise OpError("linspace: num must be non-negative, got %d" % num)
    t = linspace_op(float(_scalar_value(start, 'linspace', 'start')),
                    float(_scalar_value(stop, 'linspace', 'stop')), num, _float_or(dtype))
    return _finish(t, 'linspace', out, device, requires_grad)


def _eye_meta(num_rows, num_columns, dtype):
    return Meta((num_rows, num_columns), dtype)


@def_op('eye', _eye_meta, differentiable=False, pattern='opaque')
def eye_op(num_rows=1, num_columns=1, dtype='float32'):
    return np.eye(num_rows, num_columns, dtype=dtype)


eye_op.def_onnx(lambda g, num_rows, num_columns, dtype: g.const(
    eye_op.kernel(num_rows, num_columns, dtype), hint='eye'))


@aliases(num_rows=('n',), num_columns=('m',))
def eye(num_rows, num_columns=None, dtype=None, name=None, *, out=None, device=None,
        requires_grad=False, pin_memory=False):
    """A ``num_rows x num_columns`` matrix with ones on the diagonal."""
    rows = int(_scalar_value(num_rows, 'eye', 'num_rows'))
    cols = rows if num_columns is None else int(_scalar_value(num_columns, 'eye', 'num_columns'))
    if rows < 0 or cols < 0:
        raise OpError("eye: sizes must be non-negative, got %d x %d" % (rows, cols))
    return _finish(eye_op(rows, cols, _float_or(dtype)), 'eye', out, device, requires_grad,
                   pin_memory)


def _tri_meta(x, diagonal):
    if len(meta.shape_of(x)) < 2:
        raise OpError("input 'x' must have at least 2 dims, got shape %s"
                      % list(meta.shape_of(x)))
    return meta.unchanged(x)


@def_op('tril', _tri_meta, save_inputs=False, pattern='opaque')
def tril_op(x, diagonal=0):
    """The lower triangle (below ``diagonal``) of the last two dims; the rest 0."""
    _tri_meta(x, diagonal)   # numpy would silently turn a 1-D x into a matrix
    return np.tril(x, diagonal)


@def_op('triu', _tri_meta, save_inputs=False, pattern='opaque')
def triu_op(x, diagonal=0):
    """The upper triangle (above ``diagonal``) of the last two dims; the rest 0."""
    _tri_meta(x, diagonal)
    return np.triu(x, diagonal)


def _onnx_trilu(upper):
    def lower(g, x, diagonal):
        if g.opset < 14:
            raise OpError("%s export needs opset_version >= 14 (ONNX's Trilu)"
                          % ('triu' if upper else 'tril'))
        return g.op('Trilu', x, g.const(np.asarray(diagonal, np.int64), hint='k'),
                    upper=int(upper))
    return lower


tril_op.def_onnx(_onnx_trilu(False))
triu_op.def_onnx(_onnx_trilu(True))


tril_op.def_grad(lambda g, x, out, diagonal: tril_op(g, diagonal))
tril_op.def_fast_grad(lambda g, x, out, diagonal: np.tril(g, diagonal))
triu_op.def_grad(lambda g, x, out, diagonal: triu_op(g, diagonal))
triu_op.def_fast_grad(lambda g, x, out, diagonal: np.triu(g, diagonal))


def tril(x, diagonal=0, name=None, *, out=None):
    """The lower triangle of the last two dims of ``x`` (on and below
    ``diagonal``); the rest 0."""
    return _finish(tril_op(x, int(diagonal)), 'tril', out)


def triu(x, diagonal=0, name=None, *, out=None):
    """The upper triangle of the last two dims of ``x`` (on and above
    ``diagonal``); the rest 0."""
    return _finish(triu_op(x, int(diagonal)), 'triu', out)


def _diag_meta(x, offset, padding_value):
    shape = meta.shape_of(x)
    if len(shape) == 1:
        n = shape[0] + abs(offset) if shape[0] >= 0 else -1
        return Meta((n, n), meta.dtype_of(x))
    if len(shape) == 2:
        r, c = shape
        if r < 0 or c < 0:
            return Meta((-1,), meta.dtype_of(x))
        n = min(r, c - offset) if offset >= 0 else min(r + offset, c)
        return Meta((max(n, 0),), meta.dtype_of(x))
    raise OpError("x must be 1-D or 2-D, got shape %s" % list(shape))


@def_op('diag', _diag_meta, save_inputs=False, attr_types={'padding_value': 'float'},
        pattern='opaque')
def diag_op(x, offset=0, padding_value=0):
    """1-D x: a matrix with x on diagonal ``offset`` (``padding_value`` elsewhere);
    2-D x: its diagonal ``offset``."""
    if x.ndim == 1:
        out = np.diag(x, offset)
        if padding_value:
            out[~np.eye(*out.shape, k=offset, dtype=bool)] = padding_value
        return out
    if x.ndim != 2:
        raise OpError("x must be 1-D or 2-D, got shape %s" % list(x.shape))
    return np.diagonal(x, offset).copy()


def _diag_grad_meta(g, x, offset):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('diag_grad', _diag_grad_meta, no_grad_inputs=('x',), save_inputs=False, pattern='opaque')
def diag_grad_op(g, x, offset=0):
    """The grad of taking a matrix diagonal: zeros of x's shape with g on it."""
    z = np.zeros(np.shape(x), g.dtype)
    rows, cols = np.nonzero(np.eye(*z.shape, k=offset, dtype=bool))
    z[rows, cols] = g
    return z


@diag_grad_op.def_grad
def _diag_grad_grad(gg, g, x, out, offset):
    return diag_op(gg, offset, 0), None


@diag_op.def_grad
def _diag_grad(g, x, out, offset, padding_value):
    if len(x.shape) == 1:
        return diag_op(g, offset, 0)
    return diag_grad_op(g, x, offset)


@diag_op.def_fast_grad
def _diag_fast(g, x, out, offset, padding_value):
    if x.ndim == 1:
        return np.diagonal(g, offset).copy()
    return diag_grad_op.kernel(g, x, offset)


def diag(x, offset=0, padding_value=0, name=None):
    """Build a diagonal matrix from a 1-D tensor, or take a 2-D tensor's diagonal."""
    return diag_op(x, int(offset), padding_value)


def meshgrid(*args, **kwargs):
    """Coordinate grids ('ij' indexing) from 1-D tensors; differentiable."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    args = list(args)
    for i, a in enumerate(args):
        if len(a.shape) > 1:
            raise OpError("meshgrid: input %d must be 0-D or 1-D, got shape %s"
                          % (i, list(a.shape)))
    sizes = [int(np.prod(a.shape)) for a in args]
    outs = []
    for i, a in enumerate(args):
        shape = [1] * len(args)
        shape[i] = sizes[i]
        outs.append(lib.expand(lib.reshape(a, shape), sizes))
    return outs


# ---- random -------------------------------------------------------------------

def _generator_for(seed):
    """A fixed stream for a non-zero op seed, else the global generator."""
    return np.random.default_rng(seed) if seed else _random.generator()


def _uniform_meta(shape, min, max, dtype, seed):  # noqa: A002
    return Meta(shape, dtype)


@def_op('uniform_random', _uniform_meta, differentiable=False, effects=('random',),
        **SHAPE_ATTR, pattern='opaque')
def uniform_random_op(shape=(), min=-1.0, max=1.0, dtype='float32', seed=0):  # noqa: A002
    return _generator_for(seed).uniform(min, max, shape).astype(dtype, copy=False)


def _gaussian_meta(shape, mean, std, dtype, seed):
    return Meta(shape, dtype)


@def_op('gaussian_random', _gaussian_meta, differentiable=False, effects=('random',),
        **SHAPE_ATTR, pattern='opaque')
def gaussian_random_op(shape=(), mean=0.0, std=1.0, dtype='float32', seed=0):
    return _generator_for(seed).normal(mean, std, shape).astype(dtype, copy=False)


def _randint_meta(low, high, shape, dtype):
    if low >= high:
        raise OpError("low (%d) must be smaller than high (%d)" % (low, high))
    return Meta(shape, dtype)


@def_op('randint', _randint_meta, differentiable=False, effects=('random',), **SHAPE_ATTR,
        pattern='opaque')
def randint_op(low=0, high=1, shape=(), dtype='int64'):
    _randint_meta(low, high, shape, dtype)
    return _random.generator().integers(low, high, shape).astype(dtype, copy=False)


def _randperm_meta(n, dtype):
    return Meta((n,), dtype)


@def_op('randperm', _randperm_meta, differentiable=False, effects=('random',), pattern='opaque')
def randperm_op(n=1, dtype='int64'):
    return _random.generator().permutation(n).astype(dtype, copy=False)


@def_op('bernoulli', meta.unchanged, differentiable=False, effects=('random',), pattern='opaque')
def bernoulli_op(x):
    """1 with probability x, else 0 (x's dtype)."""
    if x.size and (x.min() < 0 or x.max() > 1):
        raise OpError("probabilities must be in [0, 1], got values in [%g, %g]"
                      % (x.min(), x.max()))
    return (_random.generator().random(x.shape) < x).astype(x.dtype)


def _multinomial_meta(x, num_samples, replacement):
    meta.check_rank('multinomial', 'x', x, (1, 2))
    return Meta(meta.shape_of(x)[:-1] + (num_samples,), np.int64)


@def_op('multinomial', _multinomial_meta, differentiable=False, effects=('random',),
        pattern='opaque')
def multinomial_op(x, num_samples=1, replacement=False):
    """Category indices drawn from (unnormalised) probabilities along the last dim."""
    p = np.asarray(x, np.float64)
    if p.ndim not in (1, 2):
        raise OpError("x must be 1-D or 2-D, got shape %s" % list(p.shape))
    if p.size and (p.min() < 0 or np.any(p.sum(-1) <= 0)):
        raise OpError("probabilities must be non-negative with a positive sum per row")
    gen = _random.generator()
    if replacement:
        cdf = np.cumsum(p / p.sum(-1, keepdims=True), axis=-1)
        u = gen.random(p.shape[:-1] + (num_samples,))
        idx = (u[..., :, None] >= cdf[..., None, :]).sum(-1)
        return np.minimum(idx, p.shape[-1] - 1).astype(np.int64)
    if num_samples > np.count_nonzero(p, axis=-1).min():
        raise OpError("cannot draw %d samples without replacement from %s categories with "
                      "non-zero probability" % (num_samples, np.count_nonzero(p, axis=-1).min()))
    # Gumbel top-k: the k largest of log p + Gumbel noise are a sample without replacement
    with np.errstate(divide='ignore'):
        keys = np.log(p) + gen.gumbel(size=p.shape)
    return np.argsort(-keys, axis=-1, kind='stable')[..., :num_samples].astype(np.int64)


@def_op('uniform_random_like', meta.unchanged, differentiable=False, effects=('random',),
        pattern='opaque')
def uniform_like_op(x, min=-1.0, max=1.0, seed=0):  # noqa: A002
    return _generator_for(seed).uniform(min, max, np.shape(x)).astype(x.dtype, copy=False)


@def_op('gaussian_random_like', meta.unchanged, differentiable=False, effects=('random',),
        pattern='opaque')
def normal_like_op(x, mean=0.0, std=1.0, seed=0):
    return _generator_for(seed).normal(mean, std, np.shape(x)).astype(x.dtype, copy=False)


def _shape_tuple(shape, api):
    shape = tuple(_shape_list(shape, api))
    if any(s < 0 for s in shape):
        raise OpError("%s: shape must not contain negative dims, got %s" % (api, list(shape)))
    return shape


def _draw(kind, shape, a, b, dtype, seed, api):
    """A uniform (``a``=min, ``b``=max) or gaussian (mean, std) draw of ``shape``;
    a shape holding values known only at run time draws like a run-time zeros."""
    ints, tensor = shape_arg(shape, api)
    if tensor is not None:
        like = dynamic_full_op(tensor, tuple(ints), 0, dtype)
        op = uniform_like_op if kind == 'uniform' else normal_like_op
        return op(like, a, b, seed)
    if any(d < 0 for d in ints):
        raise OpError("%s: shape must not contain negative dims, got %s" % (api, ints))
    op = uniform_random_op if kind == 'uniform' else gaussian_random_op
    return op(tuple(ints), a, b, dtype, seed)


@size_args
def rand(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
         pin_memory=False):
    """Uniform samples in [0, 1) (default float dtype)."""
    return _finish(_draw('uniform', shape, 0.0, 1.0, _float_or(dtype), 0, 'rand'), 'rand', out,
                   device, requires_grad, pin_memory)


@size_args
def randn(shape, dtype=None, name=None, *, out=None, device=None, requires_grad=False,
          pin_memory=False):
    """Standard normal samples (default float dtype)."""
    return _finish(_draw('gaussian', shape, 0.0, 1.0, _float_or(dtype), 0, 'randn'), 'randn',
                   out, device, requires_grad, pin_memory)


def standard_normal(shape, dtype=None, name=None, *, out=None, device=None,
                    requires_grad=False):
    """Standard normal samples (default float dtype)."""
    return _finish(_draw('gaussian', shape, 0.0, 1.0, _float_or(dtype), 0, 'standard_normal'),
                   'standard_normal', out, device, requires_grad)


def uniform(shape, dtype=None, min=0, max=1.0, seed=0, name=None, *, out=None,  # noqa: A002
            device=None, requires_grad=False):
    """Uniform samples in [min, max) ([0, 1) by default, as Paddle 3); a
    non-zero ``seed`` gives a fixed stream."""
    lo = float(_scalar_value(min, 'uniform', 'min'))
    hi = float(_scalar_value(max, 'uniform', 'max'))
    return _finish(_draw('uniform', shape, lo, hi, _float_or(dtype), int(seed), 'uniform'),
                   'uniform', out, device, requires_grad)


@aliases(shape=('size',))
def normal(mean=0.0, std=1.0, shape=None, name=None, *, out=None):
    """Normal samples; ``mean``/``std`` may be tensors (then the output has
    their broadcast shape and is differentiable with respect to them)."""
    return _finish(_normal(mean, std, shape), 'normal', out)


def _normal(mean, std, shape):
    if is_value(mean) or is_value(std):
        shapes = [tuple(v.shape) for v in (mean, std) if is_value(v)]
        out_shape = shapes[0] if len(shapes) == 1 else meta.broadcast_shapes(*shapes)
        dtype = str(np.dtype((mean if is_value(mean) else std).dtype))
        noise = gaussian_random_op(out_shape, 0.0, 1.0, dtype, 0)
        return noise * std + mean
    return _draw('gaussian', (1,) if shape is None else shape, float(mean), float(std),
                   str(_dt.default_float()), 0, 'normal')


def randint(low=0, high=None, shape=[1], dtype=None, name=None):  # noqa: B006  (Paddle's default)
    """Integers uniform in [low, high) (``randint(n)``: [0, n)); int64 by default."""
    if high is None:
        low, high = 0, low
    low = int(_scalar_value(low, 'randint', 'low'))
    high = int(_scalar_value(high, 'randint', 'high'))
    if low >= high:
        raise OpError("randint: low (%d) must be smaller than high (%d)" % (low, high))
    d = 'int64' if dtype is None else str(_dt.convert_dtype(dtype))
    return randint_op(low, high, _shape_tuple(shape, 'randint'), d)


def randint_like(x, low=0, high=None, dtype=None, name=None):
    return randint(low, high, list(x.shape), dtype if dtype is not None else x.dtype)


def randperm(n, dtype='int64', name=None, *, out=None, device=None, requires_grad=False,
             pin_memory=False):
    """A random permutation of 0..n-1."""
    n = int(_scalar_value(n, 'randperm', 'n'))
    if n < 0:
        raise OpError("randperm: n must be non-negative, got %d" % n)
    return _finish(randperm_op(n, str(_dt.convert_dtype(dtype))), 'randperm', out, device,
                   requires_grad, pin_memory)


def bernoulli(x, p=None, name=None):
    """0/1 samples with probabilities ``x`` (x's dtype); with ``p`` every
    element has probability p (x gives only the shape and dtype)."""
    if p is not None:
        x = full_like_op(x, float(p), None)
    return bernoulli_op(x)


@aliases(x=('input',))
def multinomial(x, num_samples=1, replacement=False, name=None, *, out=None):
    """``num_samples`` category indices per row of probabilities ``x``."""
    return _finish(multinomial_op(x, int(num_samples), bool(replacement)), 'multinomial', out)


def uniform_like(x, min=0, max=1.0, seed=0, name=None):  # noqa: A002
    """Uniform samples with x's shape and dtype (behind ``Tensor.uniform_``)."""
    return uniform_like_op(x, float(min), float(max), int(seed))


def normal_like(x, mean=0.0, std=1.0, name=None):
    """Normal samples with x's shape and dtype (behind ``Tensor.normal_``)."""
    return normal_like_op(x, float(mean), float(std), 0)



# ---- Paddle 3 creation: as_tensor / asarray / from_numpy / logspace / range / *_like -------

def as_tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding ``data`` (``to_tensor`` with Paddle 3's
    arguments); the data is copied."""
    return _finish(_copy_of(data, dtype), 'as_tensor', None, device, requires_grad, pin_memory)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """A new tensor holding ``obj``. The data is always copied (tensors here
    never share memory with numpy arrays or other tensors), whatever ``copy``
    says."""
    return _finish(_copy_of(obj, dtype), 'asarray', None, device, requires_grad)


def _copy_of(data, dtype):
    if is_value(data):
        out = lib.assign_op(data)
        out.stop_gradient = True
        if dtype is not None and _dt.convert_dtype(dtype) != np.dtype(data.dtype):
            out = lib.cast(out, str(_dt.convert_dtype(dtype)))
        return out
    return to_tensor(data, dtype)


def from_numpy(ndarray):
    """A tensor with the values and dtype of a numpy array (a copy: tensors
    here never share memory with the array)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError("from_numpy: the input must be a numpy.ndarray, got %s; use "
                        "to_tensor for other data" % type(ndarray).__name__)
    return to_tensor(ndarray)


def from_dlpack(dlpack, *, device=None, copy=None):
    """A tensor sharing the memory of a DLPack producer: an object with
    ``__dlpack__`` (a numpy array, another framework's tensor) or a DLPack
    PyCapsule (``to_dlpack``'s, torch's); ``copy=True`` copies instead."""
    producer = _CapsuleHolder(dlpack) if type(dlpack).__name__ == 'PyCapsule' else dlpack
    if not hasattr(producer, '__dlpack__'):
        raise TypeError("from_dlpack: expected a DLPack capsule or an object with __dlpack__, "
                        "got %s" % type(dlpack).__name__)
    arr = np.from_dlpack(producer)
    if copy:
        arr = arr.copy()
    t = to_tensor(np.zeros((), arr.dtype))
    t.data = arr                    # the producer's memory itself
    return _finish(t, 'from_dlpack', None, device)


class _CapsuleHolder:
    """A DLPack capsule for numpy, which reads producers, not bare capsules.
    A capsule holds no device query: it is taken to be on the CPU (numpy
    refuses another device's capsule when it reads it)."""
    __slots__ = ('_capsule',)

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)       # kDLCPU, device 0


def to_dlpack(x):
    """A DLPack PyCapsule sharing ``x``'s memory (a copy when its array is
    read-only, which DLPack cannot say); read once by a consumer, as Paddle's."""
    if not hasattr(x, 'data') or is_static_var(x):
        raise TypeError("to_dlpack: needs an eager tensor, got %s" % type(x).__name__)
    arr = x.data if x.data.flags.writeable else x.data.copy()
    return arr.__dlpack__()


def _logspace_meta(start, stop, num, base, dtype):
    return Meta((num,), dtype)


@def_op('logspace', _logspace_meta, differentiable=False, pattern='opaque')
def logspace_op(start=0.0, stop=1.0, num=1, base=10.0, dtype='float32'):
    """``base ** linspace(start, stop, num)``; for an integer dtype the
    arguments are truncated to integers first (as Paddle) and so is the result."""
    d = np.dtype(dtype)
    if d.kind in 'iu':
        start, stop, base = int(start), int(stop), int(base)
    with np.errstate(over='ignore'):
        out = np.power(float(base), np.linspace(start, stop, num))
    return (np.trunc(out) if d.kind in 'iu' else out).astype(d)


def logspace(start, stop, num, base=10.0, dtype=None, name=None):
    """``num`` values from ``base ** start`` to ``base ** stop``, evenly
    spaced in the exponent."""
    num = int(_scalar_value(num, 'logspace', 'num'))
    if num < 0:
        raise OpError("logspace: num must be non-negative, got %d" % num)
    return logspace_op(float(_scalar_value(start, 'logspace', 'start')),
                       float(_scalar_value(stop, 'logspace', 'stop')), num,
                       float(_scalar_value(base, 'logspace', 'base')), _float_or(dtype))


def inclusive_range(start=0, end=None, step=1, dtype=None, *, out=None, device=None,
                    requires_grad=False, name=None):
    """Values from ``start`` to ``end`` INCLUDED, spaced by ``step`` (Paddle's
    deprecated ``range``; the default float dtype unless given). ``arange``
    excludes the end. Exported as ``framework.range``."""
    if end is None:
        start, end = 0, start
    start, end, step = (_scalar_value(v, 'range', n) for v, n in
                        [(start, 'start'), (end, 'end'), (step, 'step')])
    if step == 0:
        raise OpError("range: step cannot be 0")
    count = max(int(math.floor((end - start) / step)) + 1, 0)
    # an end half a step past the last value gives exactly ``count`` values
    t = arange_op(start, start + (count - 0.5) * step, step, _float_or(dtype))
    return _finish(t, 'range', out, device, requires_grad)


def _random_like(x, kind, dtype, api):
    d = np.dtype(x.dtype) if dtype is None else _dt.convert_dtype(dtype)
    if d.kind != 'f':
        raise OpError("%s: needs a float dtype, got %s" % (api, d))
    like = x if np.dtype(x.dtype) == d else lib.cast(x, str(d))
    op = uniform_like_op if kind == 'uniform' else normal_like_op
    return op(like, 0.0, 1.0, 0)


def rand_like(input, name=None, *, dtype=None, device=None, requires_grad=False):  # noqa: A002
    """Uniform [0, 1) samples with input's shape (and dtype, unless given)."""
    return _finish(_random_like(input, 'uniform', dtype, 'rand_like'), 'rand_like', None, device,
                   requires_grad)


@aliases(x=('input',))
def randn_like(x, dtype=None, name=None, *, device=None, requires_grad=False):
    """Standard normal samples with x's shape (and dtype, unless given)."""
    return _finish(_random_like(x, 'gaussian', dtype, 'randn_like'), 'randn_like', None, device,
                   requires_grad)


# ---- Tensor.new_* : tensors like this one ----------------------------------------------

def _new(var, size, value, dtype, device, requires_grad, pin_memory, api):
    d = np.dtype(var.dtype) if dtype is None else _dt.convert_dtype(dtype)
    shape = list(size) if isinstance(size, (list, tuple)) else size
    return _finish(_full(shape, value, str(d), api), api, None, device, requires_grad,
                   pin_memory)


def new_empty(var, size, *more, dtype=None, device=None, requires_grad=False,
              pin_memory=False):
    """A tensor of ``size`` with this tensor's dtype (unless given); zeros here."""
    size = [size, *more] if more or isinstance(size, int) else size
    return _new(var, size, 0, dtype, device, requires_grad, pin_memory, 'new_empty')


def new_full(var, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             pin_memory=False):
    """A tensor of ``size`` filled with ``fill_value``, with this tensor's dtype (unless given)."""
    if hasattr(fill_value, 'item') and not isinstance(fill_value, np.ndarray):
        fill_value = fill_value.item()
    return _new(var, size, fill_value, dtype, device, requires_grad, pin_memory, 'new_full')


def new_zeros(var, size, *more, dtype=None, device=None, requires_grad=False,
              pin_memory=False):
    """Zeros of ``size`` with this tensor's dtype (unless given)."""
    size = [size, *more] if more or isinstance(size, int) else size
    return _new(var, size, 0, dtype, device, requires_grad, pin_memory, 'new_zeros')


def new_ones(var, size, *more, dtype=None, device=None, requires_grad=False,
             pin_memory=False):
    """Ones of ``size`` with this tensor's dtype (unless given)."""
    size = [size, *more] if more or isinstance(size, int) else size
    return _new(var, size, 1, dtype, device, requires_grad, pin_memory, 'new_ones')


# ---- FloatTensor, LongTensor, ...: PyTorch-style typed constructors ----------------------

def _typed_factory(class_name, dtype):
    """A class whose call makes a tensor of ``dtype``: ``C()`` (empty, shape
    [0]), ``C(2, 3)`` (uninitialised, here zeros, of shape [2, 3]) or
    ``C(data)`` (a list, tuple, array or tensor converted to ``dtype``)."""
    def __new__(cls, *args, **kwargs):
        if kwargs:
            raise TypeError("%s() takes no keyword arguments, got %s" % (class_name,
                                                                         sorted(kwargs)))
        if not args:
            return _full((0,), 0, dtype, class_name)
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            return _full([int(a) for a in args], 0, dtype, class_name)
        if len(args) != 1:
            raise TypeError("%s(): give sizes (ints) or one piece of data, got %r"
                            % (class_name, args))
        return _copy_of(args[0], dtype)
    doc = "Tensors of dtype %s (``%s([1, 2])``, ``%s(2, 3)``)." % (dtype, class_name, class_name)
    return type(class_name, (), {'__new__': __new__, '__doc__': doc, 'dtype': np.dtype(dtype)})


FloatTensor = _typed_factory('FloatTensor', 'float32')
DoubleTensor = _typed_factory('DoubleTensor', 'float64')
HalfTensor = _typed_factory('HalfTensor', 'float16')
ByteTensor = _typed_factory('ByteTensor', 'uint8')
CharTensor = _typed_factory('CharTensor', 'int8')
ShortTensor = _typed_factory('ShortTensor', 'int16')
IntTensor = _typed_factory('IntTensor', 'int32')
LongTensor = _typed_factory('LongTensor', 'int64')
BoolTensor = _typed_factory('BoolTensor', 'bool')

__all__ = ['to_tensor', 'full', 'zeros', 'ones', 'empty', 'full_like', 'zeros_like',
           'ones_like', 'empty_like', 'arange', 'linspace', 'eye', 'tril', 'triu', 'diag',
           'meshgrid', 'rand', 'randn', 'standard_normal', 'uniform', 'normal', 'randint',
           'randint_like', 'randperm', 'bernoulli', 'multinomial', 'as_tensor', 'asarray',
           'from_numpy', 'logspace', 'rand_like', 'randn_like', 'from_dlpack', 'to_dlpack',
           'FloatTensor',
           'DoubleTensor', 'HalfTensor', 'ByteTensor', 'CharTensor', 'ShortTensor', 'IntTensor',
           'LongTensor', 'BoolTensor']
TENSOR_METHODS = {'tril': tril, 'triu': triu, 'diag': diag,
                  'uniform_like': uniform_like, 'normal_like': normal_like,
                  'new_empty': new_empty, 'new_full': new_full, 'new_zeros': new_zeros,
                  'new_ones': new_ones}

add_test_case(full_op, (2, 3), 1.5, 'float64', ref=lambda s, v, d: np.ones(s) * v)
add_test_case(dynamic_full_op, np.array([2, 3]), (-1, 3), -1.5, 'float32',
              ref=lambda t, s, v, d: np.full((2, 3), v, np.float32))
add_test_case(dynamic_full_op, np.array([], np.int64), (), 2, 'int64',
              ref=lambda t, s, v, d: np.array(2))
add_test_case(dynamic_full_op, np.array([0, 4]), (-1, 4), 1.0, 'float64',
              ref=lambda t, s, v, d: np.ones((0, 4)))
add_test_case(full_like_op, np.zeros((2, 3)), 2.0, None, ref=lambda x, v, d: x + v)
add_test_case(assign_value_op, [[1.0, 2.0]], 'float64', ref=lambda v, d: np.array(v))
add_test_case(assign_value_op, [[1.0, 2.0], [0.5, -1.0]], 'complex64',
              ref=lambda v, d: np.array([1 + 2j, 0.5 - 1j], np.complex64))


def _seeded():
    """The generator the op tests' seed (1234) gives; references draw from it."""
    return np.random.default_rng(1234)


add_test_case(arange_op, 1, 7, 2, 'int64', ref=lambda a, b, s, d: np.array([1, 3, 5]))
add_test_case(arange_op, 0.0, 1.0, 0.25, 'float32',
              ref=lambda a, b, s, d: np.array([0, 0.25, 0.5, 0.75], np.float32))
add_test_case(arange_op, 3, 0, -1, 'int64', ref=lambda a, b, s, d: np.array([3, 2, 1]))
add_test_case(linspace_op, 0.0, 1.0, 5, 'float64',
              ref=lambda a, b, n, d: np.array([0.0, 0.25, 0.5, 0.75, 1.0]))
add_test_case(eye_op, 2, 3, 'float64', ref=lambda r, c, d: np.array([[1, 0, 0], [0, 1, 0.]]))
_rng = np.random.default_rng(6)
_m = _rng.standard_normal((3, 4))
add_test_case(tril_op, _m, 0, ref=lambda x, k: np.array(
    [[x[i, j] if j <= i + k else 0.0 for j in range(4)] for i in range(3)]))
add_test_case(triu_op, _rng.standard_normal((2, 3, 3)), 1, ref=lambda x, k: np.array(
    [[[x[b, i, j] if j >= i + k else 0.0 for j in range(3)] for i in range(3)] for b in range(2)]))
add_test_case(diag_op, _rng.standard_normal(3), 1, 0, ref=lambda x, k, p: np.array(
    [[x[i] if j == i + 1 else 0.0 for j in range(4)] for i in range(4)]))
add_test_case(diag_op, _rng.standard_normal(2), -1, 7.0, ref=lambda x, k, p: np.array(
    [[x[j] if i == j + 1 else 7.0 for j in range(3)] for i in range(3)]), grad_inputs=(0,))
add_test_case(diag_op, _rng.standard_normal((3, 4)), 1, 0,
              ref=lambda x, k, p: np.array([x[0, 1], x[1, 2], x[2, 3]]))
add_test_case(diag_grad_op, _rng.standard_normal(2), np.zeros((3, 2)), -1,
              ref=lambda g, x, k: np.array([[0, 0], [g[0], 0], [0, g[1]]]))
add_test_case(uniform_random_op, (2, 3), -2.0, 3.0, 'float64', 0,
              ref=lambda s, lo, hi, d, sd: _seeded().uniform(lo, hi, s))
add_test_case(uniform_random_op, (4,), 0.0, 1.0, 'float32', 7,
              ref=lambda s, lo, hi, d, sd: np.random.default_rng(7).uniform(lo, hi, s)
              .astype(np.float32))
add_test_case(gaussian_random_op, (2, 3), 1.0, 2.0, 'float32', 0,
              ref=lambda s, m, sd, d, se: (_seeded().standard_normal(s) * sd + m)
              .astype(np.float32), atol=1e-5)
add_test_case(randint_op, -3, 5, (3, 2), 'int32',
              ref=lambda lo, hi, s, d: _seeded().integers(lo, hi, s).astype(np.int32))
add_test_case(randperm_op, 6, 'int64', ref=lambda n, d: _seeded().permutation(n))
add_test_case(bernoulli_op, np.array([[0.0, 0.3], [0.9, 1.0]]),
              ref=lambda p: (_seeded().random(p.shape) < p).astype(p.dtype))
add_test_case(multinomial_op, np.array([[0.0, 0.0, 2.0], [1.0, 0.0, 0.0]]), 4, True,
              ref=lambda p, n, r: np.array([[2] * 4, [0] * 4]))
add_test_case(multinomial_op, np.array([0.0, 3.0, 0.0]), 1, False,
              ref=lambda p, n, r: np.array([1]))
add_test_case(uniform_like_op, np.zeros((2, 2), np.float32), 1.0, 2.0, 0,
              ref=lambda x, lo, hi, s: _seeded().uniform(lo, hi, x.shape).astype(np.float32))
add_test_case(normal_like_op, np.zeros((3,)), 0.0, 3.0, 0,
              ref=lambda x, m, s, sd: _seeded().standard_normal(x.shape) * s + m)
add_test_case(logspace_op, 0.0, 2.0, 3, 10.0, 'float64',
              ref=lambda a, b, n, base, d: np.array([1, 10, 100.]))
add_test_case(logspace_op, 0.5, 2.5, 3, 3.0, 'int64',
              ref=lambda a, b, n, base, d: np.array([1, 3, 9]))
add_test_case(logspace_op, 1.0, -1.0, 0, 2.0, 'float32',
              ref=lambda a, b, n, base, d: np.zeros(0, np.float32))
