"""Shape, layout and index ops.

reshape/transpose/concat/split/..., padding, gather/scatter, where/masked ops,
sorting, one_hot/assign/shape. Each op sits next to its rules: the numpy
kernel, ``infer_meta`` (-1 = unknown dim), a grad rule written with registered
ops (so grad-of-grad works in both modes), a numpy fast grad where it is
cheaper, and test cases with an independent numpy reference. Python subscripts
(``x[index]``, ``x[index] = value``, ``slice``, ``strided_slice``) are in
``subscript``.
"""
import builtins
import inspect

import numpy as np

from .. import dtype as _dt
from .compat_args import aliases, dims_after_tensor, torch_order
from . import attr_types as _attr_types
from . import lib, meta
from .creation import _holds_value, _list_dtype, full_like_op, to_tensor, zeros
from .grad_utils import expand_as as expand_as_op
from .grad_utils import is_value, reduce_as, sum_like, ub, unbroadcast
from .out_param import write_out
from .registry import Meta, OpError, add_test_case, def_op
from .shape_args import all_python_ints, shape_arg

_pyslice = builtins.slice   # this module exports a Paddle ``slice``; keep the builtin
_ndarray = np.ndarray
_SCALARS = (bool, int, float, complex)
# repeat counts >= 0 (verify.MAX_NUMEL bounds the size a loaded file may fix)
_REPEATS_ATTR = {'attr_types': {'repeat_times': 'ints'},
                 'attr_ranges': {'repeat_times': (0, None)}}


# ---- cast -------------------------------------------------------------------

def _cast_meta(x, dtype):
    return Meta(meta.shape_of(x), dtype)


@def_op('cast', _cast_meta, save_inputs=False, pattern='elementwise', ufunc=None, flops=None,
        passthrough='x', amp='never')
def cast_op(x, dtype='float32'):
    """A new array (also to x's own dtype, as Paddle's cast: elementwise kernels
    never return their input, see ops/properties.py)."""
    if not isinstance(x, np.ndarray):
        return np.array(x, dtype)
    if x.dtype.kind == 'c' and np.dtype(dtype).kind != 'c':
        x = x.real       # complex -> real keeps the real part (what the gradient of real -> complex is)
    return x.astype(dtype)


@cast_op.def_grad
def _cast_grad(g, x, out, dtype):
    if not _dt.is_inexact(x.dtype):
        return None
    return cast_op(g, str(np.dtype(x.dtype)))


@cast_op.def_onnx
def _cast_onnx(g, x, dtype):
    return g.op('Cast', x, to=g.tensor_type(dtype))


@cast_op.def_fast_grad
def _cast_fast(g, x, out, dtype):
    if not _dt.is_inexact(x.dtype):
        return None
    if g.dtype.kind == 'c' and x.dtype.kind != 'c':
        g = g.real
    return g.astype(x.dtype, copy=False)


def cast(x, dtype):
    """``x`` converted to ``dtype`` (differentiable between float dtypes)."""
    return cast_op(x, _dt.dtype_name(dtype))


# ---- small helpers ----------------------------------------------------------

def _numel(shape):
    """Element count, or -1 when a dim is unknown."""
    n = 1
    for d in shape:
        if d < 0:
            return -1
        n *= d
    return n


def _zeros_like(x):
    return full_like_op(x, 0, None)


def _as_int(v, api, what):
    """A Python int from an int, numpy integer or one-element integer tensor."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError("%s: %s must be an integer, got %r" % (api, what, v))
    if isinstance(v, (int, np.integer)):
        return int(v)
    if hasattr(v, 'dtype') and np.dtype(v.dtype).kind in 'iu':
        arr = np.asarray(getattr(v, 'data', v))
        if arr.size == 1:
            return int(arr.reshape(()))
    raise TypeError("%s: %s must be an integer or a one-element integer tensor, got %r"
                    % (api, what, v))


def _int_list(v, api, what):
    """A list of ints from an int, a list/tuple (of ints or 0-d tensors) or a 1-D tensor."""
    tv = type(v)
    if (tv is list or tv is tuple) and all_python_ints(v):
        return list(v)   # the common case, kept cheap
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        return [int(v)]
    if hasattr(v, 'dtype') and not isinstance(v, (list, tuple)):
        arr = np.asarray(getattr(v, 'data', v))
        if arr.dtype.kind not in 'iu':
            raise TypeError("%s: %s must hold integers, got dtype %s" % (api, what, arr.dtype))
        return [int(a) for a in arr.reshape(-1)]
    if isinstance(v, (list, tuple)):
        return [_as_int(a, api, what) for a in v]
    raise TypeError("%s: %s must be an int, a list of ints or an integer tensor, got %r"
                    % (api, what, v))


def _axis_list(axis, api):
    if axis is None:
        return None
    return _int_list(axis, api, 'axis')


# ---- reshape family: reshape, squeeze, unsqueeze, flatten ---------------------

def _reshape_error(in_shape, shape):
    return OpError("cannot reshape a tensor of shape %s (%s elements) to shape %s"
                   % (list(in_shape), _numel(in_shape) if _numel(in_shape) >= 0 else 'unknown',
                      list(shape)))


def _reshape_shape(in_shape, shape):
    """Paddle reshape: one -1 is inferred, 0 copies the input dim at that index."""
    in_shape = tuple(in_shape)
    out, infer = [], -1
    for i, s in enumerate(shape):
        s = int(s)
        if s == 0:
            if i >= len(in_shape):
                raise OpError("shape[%d] is 0 (copy the input dim) but x has only %d dims "
                              "(shape %s)" % (i, len(in_shape), list(in_shape)))
            out.append(in_shape[i])
        elif s == -1:
            if infer >= 0:
                raise OpError("only one dim of shape may be -1, got %s" % list(shape))
            infer = i
            out.append(-1)
        elif s < 0:
            raise OpError("shape[%d] is %d; dims must be positive, 0 (copy the input dim) "
                          "or -1 (inferred), got shape %s" % (i, s, list(shape)))
        else:
            out.append(s)
    total = _numel(in_shape)
    if infer >= 0:
        rest = _numel(out[:infer] + out[infer + 1:])
        if total >= 0 and rest >= 0:
            if rest == 0 or total % rest:
                raise _reshape_error(in_shape, shape)
            out[infer] = total // rest
        else:
            out[infer] = _inferred_dim(in_shape, out[:infer] + out[infer + 1:])
    elif total >= 0 and _numel(out) >= 0 and total != _numel(out):
        raise _reshape_error(in_shape, shape)
    return tuple(out)


def _inferred_dim(in_shape, others):
    """The -1 of a reshape whose other target dims are ``others``, where a
    dim is unknown: the symbolic dims (``ops/meta.py``) that appear on both
    sides cancel (x of ``batch * 12`` elements reshaped to ``[batch, -1]``
    gives 12), and one unknown of x left over, with the known sizes equal, is
    the inferred dim itself (``[batch, 3, 4]`` to ``[-1, 12]`` gives batch).
    Anything else is unknown (-1)."""
    left = [d for d in in_shape if d < 0]
    for d in (d for d in others if d < 0):
        match = next((i for i, e in enumerate(left) if meta.same_dim(e, d)), None)
        if match is None:
            return -1
        del left[match]
    known_in = _numel([d for d in in_shape if d >= 0])
    known_out = _numel([d for d in others if d >= 0])
    if not left:
        return known_in // known_out if known_out and known_in % known_out == 0 else -1
    return left[0] if len(left) == 1 and known_in == known_out else -1


def _squeeze_shape(shape, axis):
    """Drop size-1 dims (all, or those in ``axis``; other named dims stay, as in Paddle)."""
    if not axis:
        return tuple(d for d in shape if d != 1)
    axes = {meta.normalize_axis(int(a), len(shape)) for a in axis} if shape else set()
    return tuple(d for i, d in enumerate(shape) if not (i in axes and d in (1, -1)))


def _unsqueeze_shape(shape, axis):
    """Insert size-1 dims one after another, each axis counted in the growing shape."""
    out = list(shape)
    for a in axis:
        n = len(out) + 1
        if not -n <= a < n:
            raise OpError("axis %d is out of range for inserting a dim into a tensor of "
                          "shape %s" % (a, out))
        out.insert(a % n, 1)
    return tuple(out)


def _flatten_shape(shape, start_axis, stop_axis):
    shape = tuple(shape)
    if not shape:
        return (1,)
    s = meta.normalize_axis(start_axis, len(shape), 'start_axis')
    e = meta.normalize_axis(stop_axis, len(shape), 'stop_axis')
    if s > e:
        raise OpError("start_axis (%d) must not be after stop_axis (%d) for shape %s"
                      % (start_axis, stop_axis, list(shape)))
    return shape[:s] + (_numel(shape[s:e + 1]),) + shape[e + 1:]


def _view_op(name, shape_fn, attr_types=None, attr_ranges=None):
    """Declare an op that only changes the shape; its grad reshapes g back."""
    def infer(x, *attrs):
        return Meta(shape_fn(meta.shape_of(x), *attrs), meta.dtype_of(x))

    def decorate(kernel):
        op = def_op(name, infer, save_inputs=False, attr_types=attr_types,
                    attr_ranges=attr_ranges, pattern='view', passthrough='x')(kernel)
        op.def_grad(lambda g, x, out, *attrs: reshape_as_op(g, x))
        op.def_fast_grad(lambda g, x, out, *attrs: g.reshape(np.shape(x)))
        return op
    return decorate


@_view_op('reshape', _reshape_shape, {'shape': 'ints'}, {'shape': (-1, None)})
def reshape_op(x, shape=()):
    if 0 not in shape:          # numpy infers a -1 itself; 0 is Paddle's "keep x's dim"
        try:
            return x.reshape(shape)
        except (ValueError, TypeError, AttributeError):
            pass                # _reshape_shape says what is wrong
    return np.reshape(x, _reshape_shape(np.shape(x), shape))


@_view_op('squeeze', _squeeze_shape, {'axis': 'int|ints'})
def squeeze_op(x, axis=()):
    return np.reshape(x, _squeeze_shape(np.shape(x), axis))


@_view_op('unsqueeze', _unsqueeze_shape, {'axis': 'int|ints'})
def unsqueeze_op(x, axis=()):
    return np.reshape(x, _unsqueeze_shape(np.shape(x), axis))


@_view_op('flatten', _flatten_shape)
def flatten_op(x, start_axis=0, stop_axis=-1):
    return np.reshape(x, _flatten_shape(np.shape(x), start_axis, stop_axis))


# ---- ONNX lowerings of the view ops ---------------------------------------------

reshape_op.def_onnx(lambda g, x, shape: g.op('Reshape', x, g.ints(shape)))   # 0 and -1 as ours


@squeeze_op.def_onnx
def _squeeze_onnx(g, x, axis):
    shape = g.meta(x).shape
    if not axis:
        if -1 in shape:      # which dims are 1 is known only at run time
            return g.squeeze(x)
        axis = [i for i, d in enumerate(shape) if d == 1]
        if not axis:
            return g.op('Identity', x)
    axes = sorted({meta.normalize_axis(int(a), len(shape)) for a in axis} if shape else set())
    axes = [a for a in axes if shape[a] in (1, -1)]     # other named dims stay
    return g.squeeze(x, axes) if axes else g.op('Identity', x)


@unsqueeze_op.def_onnx
def _unsqueeze_onnx(g, x, axis):
    # ours inserts one dim after another; ONNX takes the new dims' final positions
    dims = [False] * g.rank(x)
    for a in axis:
        dims.insert(a % (len(dims) + 1), True)
    return g.unsqueeze(x, [i for i, new in enumerate(dims) if new])


@flatten_op.def_onnx
def _flatten_onnx(g, x, start_axis, stop_axis):
    shape = g.meta(x).shape
    if not shape:
        return g.op('Reshape', x, g.ints([1]))
    s = meta.normalize_axis(start_axis, len(shape))
    e = meta.normalize_axis(stop_axis, len(shape))
    tail = list(shape[e + 1:])
    if all(d >= 0 for d in tail):      # 0 keeps a leading dim, -1 takes the merged ones
        return g.op('Reshape', x, g.ints([0] * s + [-1] + tail))
    return g.op('Reshape', x, g.op('Concat', g.shape_of(x, 0, s), g.ints([-1]),
                                   g.shape_of(x, e + 1), axis=0))


def _reshape_as_meta(x, target):
    return Meta(meta.shape_of(target), meta.dtype_of(x))


@def_op('reshape_as', _reshape_as_meta, no_grad_inputs=('target',), save_inputs=False,
        pattern='view', passthrough='x')
def reshape_as_op(x, target):
    """``x`` reshaped to ``target``'s shape (the grad of every view op)."""
    return np.reshape(x, np.shape(target))


@reshape_as_op.def_grad
def _reshape_as_grad(g, x, target, out):
    return reshape_as_op(g, x), None


@reshape_as_op.def_fast_grad
def _reshape_as_fast(g, x, target, out):
    return g.reshape(np.shape(x)), None


reshape_as_op.def_onnx(lambda g, x, target: g.op('Reshape', x, g.op('Shape', target)))


def _dynamic_reshape_meta(x, shape_tensor, shape):
    """``shape`` has -1 where the entry is known only at run time, so only the
    known entries (and 0 = x's dim) are inferred."""
    in_shape = meta.shape_of(x)
    out = [in_shape[i] if s == 0 and i < len(in_shape) else (s if s > 0 else -1)
           for i, s in enumerate(shape)]
    return Meta(out, meta.dtype_of(x))


@def_op('dynamic_reshape', _dynamic_reshape_meta, no_grad_inputs=('shape_tensor',),
        save_inputs=False, attr_types={'shape': 'ints'}, attr_ranges={'shape': (-1,
                                                                                None)},
        pattern='view', passthrough='x')
def dynamic_reshape_op(x, shape_tensor, shape=()):
    """``reshape`` whose target shape is the int tensor ``shape_tensor`` (its
    entries follow reshape's rules: -1 inferred, 0 copies x's dim)."""
    return np.reshape(x, _reshape_shape(np.shape(x), [int(d) for d in shape_tensor]))


dynamic_reshape_op.def_grad(lambda g, x, shape_tensor, out, shape: (reshape_as_op(g, x), None))
dynamic_reshape_op.def_fast_grad(
    lambda g, x, shape_tensor, out, shape: (g.reshape(np.shape(x)), None))



@dynamic_reshape_op.def_onnx
def _dynamic_reshape_onnx(g, x, shape_tensor, shape):
    # ONNX Reshape's entries follow reshape's rules too (-1 inferred, 0 copies x's dim)
    return g.op('Reshape', x, g.op('Cast', shape_tensor, to=g.tensor_type(np.int64)))


@aliases(x=('input',))
@dims_after_tensor('shape')
def reshape(x, shape, name=None):
    """``x`` with a new shape: one dim may be -1 (inferred), 0 copies x's dim.
    Entries (or the whole shape) may be tensors, also ones whose value is known
    only when a static program runs.

    >>> import framework as paddle
    >>> paddle.arange(6).reshape([0, -1]).shape
    paddle.Size([6, 1])
    >>> paddle.arange(6).reshape([2, -1]).shape
    paddle.Size([2, 3])
    """
    ints, tensor = shape_arg(shape, 'reshape')
    if tensor is not None:
        return dynamic_reshape_op(x, tensor, tuple(ints))
    return reshape_op(x, tuple(ints))


@aliases(x=('input',), axis=('dim',))
def squeeze(x, axis=None, name=None):
    """Remove size-1 dims (all of them, or those listed in ``axis``)."""
    axis = _axis_list(axis, 'squeeze')
    return squeeze_op(x, tuple(axis) if axis else ())


@aliases(x=('input',), axis=('dim',))
def unsqueeze(x, axis, name=None):
    """Insert size-1 dims at ``axis`` (an int or a list, applied in order)."""
    return unsqueeze_op(x, tuple(_int_list(axis, 'unsqueeze', 'axis')))


@aliases(x=('input',), start_axis=('start_dim',), stop_axis=('end_dim',))
def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Merge dims ``start_axis..stop_axis`` into one."""
    return flatten_op(x, _as_int(start_axis, 'flatten', 'start_axis'),
                      _as_int(stop_axis, 'flatten', 'stop_axis'))


# ---- transpose ----------------------------------------------------------------

def _check_perm(perm, ndim):
    if sorted(perm) != list(range(ndim)):
        raise OpError("perm %s is not a permutation of the %d dims of x" % (list(perm), ndim))


def _transpose_meta(x, perm):
    shape = meta.shape_of(x)
    _check_perm(perm, len(shape))
    return Meta([shape[p] for p in perm], meta.dtype_of(x))


@def_op('transpose', _transpose_meta, save_inputs=False, attr_types={'perm': 'ints'},
        pattern='view', passthrough=None)
def transpose_op(x, perm=()):
    return x.transpose(perm) if isinstance(x, np.ndarray) else np.transpose(x, perm)


def _inverse_perm(perm):
    return tuple(int(i) for i in np.argsort(perm))


@transpose_op.def_grad
def _transpose_grad(g, x, out, perm):
    return transpose_op(g, _inverse_perm(perm))


@transpose_op.def_fast_grad
def _transpose_fast(g, x, out, perm):
    return np.transpose(g, _inverse_perm(perm))


transpose_op.def_onnx(lambda g, x, perm: g.op('Transpose', x, perm=list(perm)) if perm else g.op('Identity', x))


def transpose(x, perm, name=None):
    """Permute the dims of ``x``: output dim i is input dim ``perm[i]``.
    ``transpose(x, 0, 1)`` swaps two dims (Paddle 3's ``swapaxes`` form)."""
    if isinstance(perm, (int, np.integer)) and isinstance(name, (int, np.integer)):
        nd = len(x.shape)
        swapped = list(range(nd))
        a, b = (meta.normalize_axis(int(v), nd, 'transpose dim') for v in (perm, name))
        swapped[a], swapped[b] = swapped[b], swapped[a]
        return transpose_op(x, tuple(swapped))
    perm = _int_list(perm, 'transpose', 'perm')
    if min(perm, default=0) < 0:
        nd = len(x.shape)
        perm = [p % nd if nd and -nd <= p < 0 else p for p in perm]
    return transpose_op(x, tuple(perm))


def moveaxis(x, source, destination, name=None):
    """Move dims ``source`` to positions ``destination``."""
    nd = len(x.shape)
    src = [meta.normalize_axis(a, nd, 'source') for a in _int_list(source, 'moveaxis', 'source')]
    dst = [meta.normalize_axis(a, nd, 'destination')
           for a in _int_list(destination, 'moveaxis', 'destination')]
    if len(src) != len(dst):
        raise OpError("moveaxis: source %s and destination %s differ in length" % (src, dst))
    rest = [a for a in range(nd) if a not in src]
    perm = [None] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    it = iter(rest)
    return transpose_op(x, tuple(p if p is not None else next(it) for p in perm))


def t(input, name=None):  # noqa: A002  (Paddle's argument name)
    """Transpose of a tensor with at most 2 dims (Paddle's ``paddle.t``)."""
    nd = len(input.shape)
    if nd > 2:
        raise OpError("t: input must have at most 2 dims, got shape %s" % list(input.shape))
    return input if nd < 2 else transpose_op(input, (1, 0))


def _T(x):
    return transpose_op(x, tuple(range(len(x.shape) - 1, -1, -1)))


# ---- concat / stack / split / unbind -------------------------------------------

def _merge_dim(a, b):
    return b if a < 0 else a


def _concat_meta(xs, axis):
    if not xs:
        raise OpError("x must be a non-empty list of tensors")
    shapes = [meta.shape_of(m) for m in xs]
    nd = len(shapes[0])
    ax = meta.normalize_axis(axis, nd)
    out = list(shapes[0])
    for k, s in enumerate(shapes[1:], 1):
        if len(s) != nd:
            raise OpError("all inputs must have the same number of dims: x[0] has shape "
                          "%s, x[%d] has shape %s" % (list(shapes[0]), k, list(s)))
        for i in range(nd):
            if i != ax and out[i] >= 0 and s[i] >= 0 and out[i] != s[i]:
                raise OpError("x[0] (shape %s) and x[%d] (shape %s) differ in dim %d; only "
                              "the concat axis %d may differ"
                              % (list(shapes[0]), k, list(s), i, ax))
            out[i] = _merge_dim(out[i], s[i])
    sizes = [s[ax] for s in shapes]
    out[ax] = -1 if min(sizes) < 0 else sum(sizes)
    return Meta(out, meta.result_dtype(*xs))


@def_op('concat', _concat_meta, inputs=('xs*',), attrs={'axis': 0}, save_inputs=False,
        promote=('xs',), pattern='opaque')
def concat_op(xs, axis=0):
    return np.concatenate(xs, axis=axis)


@concat_op.def_grad
def _concat_grad(g, xs, out, axis):
    ax = axis % len(g.shape)
    sizes = tuple(int(x.shape[ax]) for x in xs)
    if min(sizes) >= 0:
        return split_op(g, 0, sizes, ax)
    # sizes known only when the program runs (a tensor grown in a loop): slice
    # g at the inputs' run-time sizes
    parts, start = [], 0
    for x in xs:
        stop = start + shape(x)[ax]
        parts.append(lib.getitem(g, (_pyslice(None),) * ax + (_pyslice(start, stop),)))
        start = stop
    return tuple(parts)


@concat_op.def_fast_grad
def _concat_fast(g, xs, out, axis):
    ax = axis % g.ndim
    return _parts_along(g, ax, [np.shape(x)[ax] for x in xs])


concat_op.def_onnx(lambda g, xs, axis: g.op('Concat', *g.cast_to_output(*xs), axis=axis))


@concat_op.def_lean
def _concat_lean(call):
    return call.Lean('%s([%s], %r)' % (call.kernel(np.concatenate), ', '.join(call.ins[0]),
                                       call.attrs.get('axis', 0)))


def _split_sizes(n, num, sections, axis):
    """Section sizes along an axis of size ``n`` (-1 = unknown)."""
    if num:
        if n >= 0 and n % num:
            raise OpError("cannot split axis %d of size %d into %d equal parts" % (axis, n, num))
        return [n // num if n >= 0 else -1] * num
    sizes = [int(s) for s in sections]
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1 or any(s < -1 for s in sizes):
        raise OpError("sections %s may contain at most one -1 and no other negative "
                      "size" % sizes)
    if n >= 0:
        known = sum(s for s in sizes if s >= 0)
        if unknown:
            if known > n:
                raise OpError("sections %s add up to more than the size %d of axis %d"
                              % (sizes, n, axis))
            sizes[unknown[0]] = n - known
        elif known != n:
            raise OpError("sections %s add up to %d, but axis %d has size %d"
                          % (sizes, known, axis, n))
    return sizes


def _split_meta(x, num, sections, axis):
    shape = meta.shape_of(x)
    ax = meta.normalize_axis(axis, len(shape))
    sizes = _split_sizes(shape[ax], num, sections, ax)
    return [Meta(shape[:ax] + (s,) + shape[ax + 1:], meta.dtype_of(x)) for s in sizes]


@def_op('split', _split_meta, outputs=('outs*',), save_inputs=False,
        attr_types={'sections': 'ints'}, pattern='view', passthrough=None)
def split_op(x, num=0, sections=(), axis=0):
    """Split into ``num`` equal parts, or into parts of sizes ``sections``."""
    ax = axis % x.ndim
    return _parts_along(x, ax, _split_sizes(x.shape[ax], num, sections, ax))


def _parts_along(a, ax, sizes):
    """Consecutive slices of ``a`` along axis ``ax`` of the given sizes (views;
    plain slicing: np.split's generic path costs tens of microseconds)."""
    lead = (_pyslice(None),) * ax
    parts, start = [], 0
    for size in sizes:
        parts.append(a[lead + (_pyslice(start, start + size),)])
        start += size
    return parts


@split_op.def_grad
def _split_grad(gs, x, outs, num, sections, axis):
    return concat_op(gs, axis)


@split_op.def_fast_grad
def _split_fast(gs, x, outs, num, sections, axis):
    return np.concatenate(gs, axis=axis)


@split_op.def_onnx
def _split_onnx(g, x, num, sections, axis):
    shape = g.meta(x).shape
    ax = axis % len(shape)
    sizes = _split_sizes(shape[ax], num, sections, ax)
    if -1 in sizes and not num:
        raise OpError("split: sections %s of an axis of unknown size (x shape %s) cannot be "
                      "exported to ONNX" % (list(sections), list(shape)))
    split = None if -1 in sizes else g.ints(sizes)    # equal parts of an unknown size
    return g.op('Split', x, split, axis=ax, outputs=['split'] * len(sizes))


@split_op.def_lean
def _split_lean(call):
    """Views of a known-size axis: the kernel's slices, worked out once."""
    (x,), (v,) = call.ins, call.vars
    if v is None or not v._shape:
        return None
    ax = call.attrs.get('axis', 0) % v.ndim
    n = v._shape[ax]
    if n < 0:
        return None
    try:
        sizes = _split_sizes(n, call.attrs.get('num', 0), call.attrs.get('sections', ()), ax)
    except OpError:
        return None           # the kernel raises its own error when the op runs
    lead = ':, ' * ax
    exprs, start = [], 0
    for s in sizes:
        exprs.append('%s[%s%d:%d]' % (x, lead, start, start + s))
        start += s
    return call.Lean(exprs=tuple(exprs))


def _stack_meta(xs, axis):
    if not xs:
        raise OpError("x must be a non-empty list of tensors")
    shapes = [meta.shape_of(m) for m in xs]
    out = list(shapes[0])
    for k, s in enumerate(shapes[1:], 1):
        if len(s) != len(out) or any(a >= 0 and b >= 0 and a != b for a, b in zip(out, s)):
            raise OpError("all inputs must have the same shape: x[0] has shape %s, x[%d] "
                          "has shape %s" % (list(shapes[0]), k, list(s)))
        out = [_merge_dim(a, b) for a, b in zip(out, s)]
    ax = meta.normalize_axis(axis, len(out) + 1)
    return Meta(out[:ax] + [len(xs)] + out[ax:], meta.result_dtype(*xs))


@def_op('stack', _stack_meta, inputs=('xs*',), attrs={'axis': 0}, save_inputs=False,
        promote=('xs',), pattern='opaque')
def stack_op(xs, axis=0):
    return np.stack(xs, axis=axis)


@stack_op.def_grad
def _stack_grad(g, xs, out, axis):
    return unbind_op(g, axis)


@stack_op.def_fast_grad
def _stack_fast(g, xs, out, axis):
    return list(np.moveaxis(g, axis, 0))


@stack_op.def_onnx
def _stack_onnx(g, xs, axis):
    ax = axis % (g.rank(xs[0]) + 1)
    return g.op('Concat', *[g.unsqueeze(x, [ax]) for x in g.cast_to_output(*xs)], axis=ax)


def _unbind_meta(x, axis):
    shape = meta.shape_of(x)
    ax = meta.normalize_axis(axis, len(shape))
    if shape[ax] < 0:
        raise OpError("unbind needs a known size along axis %d, got shape %s" % (ax, list(shape)))
    return [Meta(shape[:ax] + shape[ax + 1:], meta.dtype_of(x))] * shape[ax]


@def_op('unbind', _unbind_meta, outputs=('outs*',), save_inputs=False, pattern='view',
        passthrough=None)
def unbind_op(x, axis=0):
    return list(np.moveaxis(x, axis, 0))


@unbind_op.def_grad
def _unbind_grad(gs, x, outs, axis):
    return stack_op(gs, axis)


@unbind_op.def_fast_grad
def _unbind_fast(gs, x, outs, axis):
    return np.stack(gs, axis=axis)


@unbind_op.def_onnx
def _unbind_onnx(g, x, axis):
    shape = g.meta(x).shape
    ax = axis % len(shape)
    parts = g.op('Split', x, g.ints([1] * shape[ax]), axis=ax, outputs=['split'] * shape[ax])
    return [g.squeeze(p, [ax]) for p in parts]


def _tensor_list(x, api):
    if not isinstance(x, (list, tuple)):
        raise TypeError("%s: x must be a list or tuple of tensors, got %s"
                        % (api, type(x).__name__))
    return list(x)


def _out(out, result):
    """``result``, or ``out`` taking it over when given (Paddle's ``out=``)."""
    if out is None:
        return result
    return write_out(out, result)


@aliases(x=('tensors',), axis=('dim',))
def concat(x, axis=0, name=None, *, out=None):
    """Join tensors along an existing axis."""
    r = concat_op(_tensor_list(x, 'concat'), _as_int(axis, 'concat', 'axis'))
    return r if out is None else _out(out, r)


@aliases(x=('tensors',), axis=('dim',))
def stack(x, axis=0, name=None, *, out=None):
    """Join same-shaped tensors along a new axis."""
    r = stack_op(_tensor_list(x, 'stack'), _as_int(axis, 'stack', 'axis'))
    return r if out is None else _out(out, r)


def split(x, num_or_sections, axis=0, name=None):
    """Split ``x`` along ``axis`` into a list of tensors.

    ``num_or_sections`` is a number of equal parts or a list of part sizes
    (one may be -1, inferred).
    """
    axis = _as_int(axis, 'split', 'axis')
    nd = len(x.shape)
    if not -nd <= axis < nd:
        raise OpError("split: axis %d is out of range for a tensor of shape %s"
                      % (axis, list(x.shape)))
    axis %= nd
    if isinstance(num_or_sections, (list, tuple)):
        return split_op(x, 0, tuple(_int_list(num_or_sections, 'split', 'num_or_sections')), axis)
    num = _as_int(num_or_sections, 'split', 'num_or_sections')
    if num <= 0:
        raise OpError("split: num_or_sections must be positive, got %d" % num)
    return split_op(x, num, (), axis)


@aliases(x=('input',), axis=('dim',))
def chunk(x, chunks, axis=0, name=None):
    """Split ``x`` into ``chunks`` equal parts along ``axis``."""
    return split(x, _as_int(chunks, 'chunk', 'chunks'), axis)


@aliases(axis=('dim',))
def unbind(input, axis=0):  # noqa: A002  (Paddle's argument name)
    """The slices of ``input`` along ``axis``, as a list (that dim removed)."""
    axis = _as_int(axis, 'unbind', 'axis')
    nd = len(input.shape)
    if not -nd <= axis < nd:
        raise OpError("unbind: axis %d is out of range for a tensor of shape %s"
                      % (axis, list(input.shape)))
    return unbind_op(input, axis % nd)


def unstack(x, axis=0, num=None):
    return unbind(x, axis)


# ---- expand / broadcast / tile ------------------------------------------------

def _expand_shape(shape, target):
    shape, target = tuple(shape), tuple(target)
    if len(target) < len(shape):
        raise OpError("target shape %s has fewer dims than x's shape %s"
                      % (list(target), list(shape)))
    lead = len(target) - len(shape)
    out = []
    for i, t in enumerate(target):
        if i < lead:
            if t < 0:
                raise OpError("the new leading dims of shape %s cannot be -1 (x's shape is %s)"
                              % (list(target), list(shape)))
            out.append(t)
            continue
        d = shape[i - lead]
        if t == -1:
            out.append(d)
        elif d in (1, -1, t):
            out.append(t)
        else:
            raise OpError("cannot expand x of shape %s to %s: dim %d has size %d and only "
                          "size-1 dims can be expanded" % (list(shape), list(target), i - lead, d))
    return tuple(out)


def _expand_meta(x, shape):
    return Meta(_expand_shape(meta.shape_of(x), shape), meta.dtype_of(x))


@def_op('expand', _expand_meta, save_inputs=False, attr_types={'shape': 'ints'},
        attr_ranges={'shape': (-1, None)}, pattern='view', passthrough='x')
def expand_op(x, shape=()):
    # a copy, not a read-only broadcast view: later kernels may write into outputs
    return np.array(np.broadcast_to(x, _expand_shape(np.shape(x), shape)))


@expand_op.def_grad
def _expand_grad(g, x, out, shape):
    return reduce_as(g, x)


@expand_op.def_fast_grad
def _expand_fast(g, x, out, shape):
    return unbroadcast(g, np.shape(x))


def _onnx_expand_shape(shape):
    # -1 keeps x's dim: ONNX's Expand broadcasts, so 1 does the same
    return [1 if s == -1 else s for s in shape]


expand_op.def_onnx(lambda g, x, shape: g.op('Expand', x, g.ints(_onnx_expand_shape(shape))))


def _tile_layout(shape, reps):
    d = max(len(shape), len(reps))
    return (1,) * (d - len(shape)) + tuple(shape), (1,) * (d - len(reps)) + tuple(reps)


def _tile_meta(x, repeat_times):
    shape, reps = _tile_layout(meta.shape_of(x), repeat_times)
    return Meta([s * r if s >= 0 and r >= 0 else -1 for s, r in zip(shape, reps)],
                meta.dtype_of(x))


@def_op('tile', _tile_meta, save_inputs=False, **_REPEATS_ATTR, pattern='opaque')
def tile_op(x, repeat_times=()):
    return np.tile(x, repeat_times)


def _tile_reduce(g, x_shape, repeat_times):
    """Sum the tiled copies of g back onto x's shape (repeats known only at run
    time, -1, are read off the shapes)."""
    shape, reps = _tile_layout(x_shape, repeat_times)
    if any(r < 0 for r in reps):
        gs = np.shape(g)
        reps = tuple(gs[i] // d if r < 0 and d > 0 else (1 if r < 0 else r)
                     for i, (d, r) in enumerate(zip(shape, reps)))
    inter = [v for pair in zip(reps, shape) for v in pair]
    return g.reshape(inter).sum(axis=tuple(range(0, 2 * len(shape), 2))).reshape(x_shape)


def _tile_grad_meta(g, x, repeat_times):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


# a repeat of -1 is known only at run time (the grads of tile_like and dynamic_tile)
@def_op('tile_grad', _tile_grad_meta, no_grad_inputs=('x',), save_inputs=False,
        attr_types={'repeat_times': 'ints'}, attr_ranges={'repeat_times': (-1,
                                                                           None)}, pattern='opaque')
def tile_grad_op(g, x, repeat_times=()):
    """The gradient of ``tile``: g's tiles summed onto x's shape."""
    return _tile_reduce(g, np.shape(x), repeat_times)


@tile_grad_op.def_grad
def _tile_grad_grad(gg, g, x, out, repeat_times):
    if any(r < 0 for r in repeat_times):     # repeats known only at run time
        return tile_like_op(gg, g), None
    return tile_op(gg, repeat_times), None


def _tile_like_meta(x, target):
    return Meta(meta.shape_of(target), meta.dtype_of(x))


@def_op('tile_like', _tile_like_meta, no_grad_inputs=('target',), save_inputs=False,
        pattern='opaque')
def tile_like_op(x, target):
    """``x`` tiled to ``target``'s shape (each of target's dims a multiple of x's)."""
    shape, _ = _tile_layout(np.shape(x), np.shape(target))
    reps = [t // d if d else 1 for d, t in zip(shape, np.shape(target))]
    return np.tile(x, reps)


@tile_like_op.def_grad
def _tile_like_grad(g, x, target, out):
    return tile_grad_op(g, x, (-1,) * len(np.shape(target))), None


@tile_like_op.def_fast_grad
def _tile_like_fast(g, x, target, out):
    return _tile_reduce(g, np.shape(x), (-1,) * np.ndim(g)), None


@tile_like_op.def_onnx
def _tile_like_onnx(g, x, target):
    nx, nt = g.rank(x), g.rank(target)
    if nt > nx:
        x = g.op('Reshape', x, g.op('Concat', g.ints([1] * (nt - nx)), g.op('Shape', x), axis=0))
    xs = g.op('Shape', x)
    one = g.ints([1])
    # target's dims over x's; an empty dim of x repeats once (as the kernel)
    reps = g.op('Div', g.op('Shape', target), g.op('Max', xs, one))
    return g.op('Tile', x, g.op('Where', g.op('Equal', xs, g.ints([0])), one, reps))


@tile_op.def_grad
def _tile_grad(g, x, out, repeat_times):
    return tile_grad_op(g, x, repeat_times)


@tile_op.def_fast_grad
def _tile_fast(g, x, out, repeat_times):
    return _tile_reduce(g, np.shape(x), repeat_times)


def _onnx_tile(g, x, reps):
    """``x`` tiled by the int64 1-D value ``reps`` of ``n`` entries."""
    reps, n = reps
    nx = g.rank(x)
    if n > nx:        # more repeats than dims: x gets leading 1s
        x = g.unsqueeze(x, list(range(n - nx)))
    elif n < nx:
        reps = g.op('Concat', g.ints([1] * (nx - n)), reps, axis=0)
    return g.op('Tile', x, reps)


tile_op.def_onnx(lambda g, x, repeat_times: _onnx_tile(g, x, (g.ints(repeat_times),
                                                              len(repeat_times))))


def _dynamic_expand_meta(x, shape_tensor, shape):
    xs = meta.shape_of(x)
    if len(shape) < len(xs):
        raise OpError("target shape %s has fewer dims than x's shape %s"
                      % (list(shape), list(xs)))
    return Meta([s if s >= 0 else -1 for s in shape], meta.dtype_of(x))


@def_op('dynamic_expand', _dynamic_expand_meta, no_grad_inputs=('shape_tensor',),
        save_inputs=False, attr_types={'shape': 'ints'}, attr_ranges={'shape': (-1,
                                                                                None)},
        pattern='opaque')
def dynamic_expand_op(x, shape_tensor, shape=()):
    """``expand`` to the int tensor ``shape_tensor`` (-1 keeps x's dim)."""
    target = _expand_shape(np.shape(x), [int(d) for d in shape_tensor])
    return np.array(np.broadcast_to(x, target))


dynamic_expand_op.def_grad(lambda g, x, shape_tensor, out, shape: (reduce_as(g, x), None))
dynamic_expand_op.def_fast_grad(
    lambda g, x, shape_tensor, out, shape: (unbroadcast(g, np.shape(x)), None))


@dynamic_expand_op.def_onnx
def _dynamic_expand_onnx(g, x, shape_tensor, shape):
    target = g.op('Cast', shape_tensor, to=g.tensor_type(np.int64))
    ones = g.op('ConstantOfShape', g.op('Shape', target),
                value=g.tensor_proto(np.ones(1, np.int64)))
    keep = g.op('Equal', target, g.scalar(-1, np.int64))
    return g.op('Expand', x, g.op('Where', keep, ones, target))


def _expand(x, shape, api):
    ints, tensor = shape_arg(shape, api)
    if tensor is not None:
        return dynamic_expand_op(x, tensor, tuple(ints))
    return expand_op(x, tuple(ints))


@aliases(x=('input',), shape=('size',))
@dims_after_tensor('shape')
def expand(x, shape, name=None):
    """Broadcast ``x`` to ``shape``; -1 keeps x's dim. Entries may be tensors."""
    return _expand(x, shape, 'expand')


@aliases(x=('input',), shape=('size',))
def broadcast_to(x, shape, name=None):
    """Broadcast ``x`` to ``shape`` (same as ``expand``)."""
    return _expand(x, shape, 'broadcast_to')


def expand_as(x, y, name=None):
    """Broadcast ``x`` to the shape of ``y``."""
    return expand_as_op(x, y)


def broadcast_tensors(input, name=None):  # noqa: A002
    """Broadcast a list of tensors to their common shape."""
    shape = ()
    for t in input:
        shape = meta.broadcast_shapes(shape, tuple(t.shape), 'broadcast_tensors inputs')
    return [t if tuple(t.shape) == shape else expand_op(t, shape) for t in input]


@def_op('dynamic_tile', lambda x, reps_tensor, repeat_times: _tile_meta(x, repeat_times),
        no_grad_inputs=('reps_tensor',), save_inputs=False, attr_types={'repeat_times': 'ints'},
        attr_ranges={'repeat_times': (-1, None)}, pattern='opaque')
def dynamic_tile_op(x, reps_tensor, repeat_times=()):
    """``tile`` by the int tensor ``reps_tensor``."""
    reps = [int(r) for r in reps_tensor]
    if any(r < 0 for r in reps):
        raise OpError("tile: repeat_times must be non-negative, got %s" % reps)
    return np.tile(x, reps)


dynamic_tile_op.def_grad(
    lambda g, x, reps_tensor, out, repeat_times: (tile_grad_op(g, x, repeat_times), None))
dynamic_tile_op.def_fast_grad(
    lambda g, x, reps_tensor, out, repeat_times: (_tile_reduce(g, np.shape(x), repeat_times),
                                                  None))


dynamic_tile_op.def_onnx(lambda g, x, reps_tensor, repeat_times: _onnx_tile(
    g, x, (g.op('Cast', reps_tensor, to=g.tensor_type(np.int64)), len(repeat_times))))


@aliases(x=('input',), repeat_times=('dims',))
def tile(x, repeat_times, name=None):
    """Repeat ``x`` ``repeat_times[i]`` times along dim i (entries may be tensors)."""
    reps, tensor = shape_arg(repeat_times, 'tile', 'repeat_times')
    if tensor is not None:
        return dynamic_tile_op(x, tensor, tuple(reps))
    if any(r < 0 for r in reps):
        raise OpError("tile: repeat_times must be non-negative, got %s" % reps)
    return tile_op(x, tuple(reps))


# ---- flip / roll ----------------------------------------------------------------

@def_op('flip', meta.unchanged, save_inputs=False, attr_types={'axis': 'int|ints'}, pattern='view',
        passthrough=None)
def flip_op(x, axis=()):
    return np.flip(x, axis=tuple(axis))


@flip_op.def_grad
def _flip_grad(g, x, out, axis):
    return flip_op(g, axis)


@flip_op.def_fast_grad
def _flip_fast(g, x, out, axis):
    return np.flip(g, axis=tuple(axis))


@flip_op.def_onnx
def _flip_onnx(g, x, axis):
    if not axis:
        return g.op('Identity', x)
    n = len(axis)
    return g.op('Slice', x, g.ints([-1] * n), g.ints([np.iinfo(np.int64).min] * n),
                g.ints(list(axis)), g.ints([-1] * n))


@def_op('roll', meta.unchanged, save_inputs=False,
        attr_types={'shifts': 'int|ints',
                    'axis': 'int|ints|None'}, pattern='view', passthrough=None)
def roll_op(x, shifts=(), axis=None):
    return np.roll(x, tuple(shifts), axis=None if axis is None else tuple(axis))


@roll_op.def_grad
def _roll_grad(g, x, out, shifts, axis):
    return roll_op(g, tuple(-s for s in shifts), axis)


@roll_op.def_fast_grad
def _roll_fast(g, x, out, shifts, axis):
    return np.roll(g, tuple(-s for s in shifts), axis=None if axis is None else tuple(axis))


@roll_op.def_onnx
def _roll_onnx(g, x, shifts, axis):
    if axis is None:       # over the flattened tensor
        flat = g.op('Reshape', x, g.ints([-1]))
        shape = g.meta(x).shape
        n = int(np.prod(shape)) if all(d >= 0 for d in shape) else -1
        return g.op('Reshape', _onnx_roll_axis(g, flat, shifts[0], 0, n), g.op('Shape', x))
    for s, a in zip(shifts, axis):
        x0 = x
        x = _onnx_roll_axis(g, x, s, a, g.meta(x0).shape[a] if x0 in g._metas else -1)
    return x


def _onnx_roll_axis(g, x, shift, axis, n):
    """``x`` rolled by ``shift`` along ``axis`` of size ``n`` (-1: unknown)."""
    if n < 0:
        raise OpError("roll: the size of axis %d must be known to export to ONNX" % axis)
    k = shift % n if n else 0
    if not k:
        return g.op('Identity', x)
    big = np.iinfo(np.int64).max
    tail = g.op('Slice', x, g.ints([n - k]), g.ints([big]), g.ints([axis]))
    head = g.op('Slice', x, g.ints([0]), g.ints([n - k]), g.ints([axis]))
    return g.op('Concat', tail, head, axis=axis)


def flip(x, axis, name=None):
    """Reverse the order of elements along ``axis`` (an int or a list)."""
    nd = len(x.shape)
    return flip_op(x, tuple(meta.normalize_axis(a, nd) for a in _int_list(axis, 'flip', 'axis')))


@aliases(x=('input',), axis=('dims',))
def roll(x, shifts, axis=None, name=None):
    """Shift elements circularly; with ``axis=None`` over the flattened tensor."""
    shifts = _int_list(shifts, 'roll', 'shifts')
    axis = _axis_list(axis, 'roll')
    if axis is None:
        if len(shifts) != 1:
            raise OpError("roll: with axis=None, shifts must be a single int, got %s" % shifts)
    else:
        nd = len(x.shape)
        axis = [meta.normalize_axis(a, nd) for a in axis]
        if len(axis) != len(shifts):
            raise OpError("roll: shifts %s and axis %s must have the same length" % (shifts, axis))
        axis = tuple(axis)
    return roll_op(x, tuple(shifts), axis)


# ---- pad --------------------------------------------------------------------------

_NP_PAD_MODE = {'constant': 'constant', 'reflect': 'reflect', 'replicate': 'edge',
                'circular': 'wrap'}


def _check_pad(shape, paddings, mode):
    if len(paddings) != len(shape):
        raise OpError("paddings give %d dims for a tensor of shape %s"
                      % (len(paddings), list(shape)))
    for axis, ((b, a), n) in enumerate(zip(paddings, shape)):
        if b < 0 or a < 0:
            raise OpError("negative padding %s for axis %d is not supported" % ([b, a], axis))
        if n < 0 or not (b or a):
            continue
        if mode == 'reflect' and (b >= n or a >= n):
            raise OpError("reflect padding %s must be smaller than the size %d of axis %d"
                          % ([b, a], n, axis))
        if mode in ('replicate', 'circular') and n == 0:
            raise OpError("%s padding of the empty axis %d" % (mode, axis))
        if mode == 'circular' and (b > n or a > n):
            raise OpError("circular padding %s must not exceed the size %d of axis %d"
                          % ([b, a], n, axis))


def _paddings_type(value, inputs):
    """``pad``'s ``paddings``: one ``[before, after]`` pair of ints >= 0 per dim."""
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(p, (list, tuple)) and len(p) == 2
            and all(type(v) is int and 0 <= v <= _attr_types.INT64_MAX for v in p)
            for p in value):
        raise _attr_types.AttrTypeError('expected a list of [before, after] pairs of ints >= 0, '
                                       'got %r' % (value,))


def _pad_meta(x, paddings, mode, value):
    shape = meta.shape_of(x)
    _check_pad(shape, paddings, mode)
    return Meta([n + b + a if n >= 0 else -1 for n, (b, a) in zip(shape, paddings)],
                meta.dtype_of(x))


@def_op('pad', _pad_meta, save_inputs=False, attr_types={'paddings': _paddings_type},
        pattern='opaque')
def pad_op(x, paddings=(), mode='constant', value=0.0):
    """Pad each dim by ``paddings[i] = [before, after]``."""
    _check_pad(x.shape, paddings, mode)
    if mode == 'constant':
        return np.pad(x, paddings, mode='constant', constant_values=value)
    return np.pad(x, paddings, mode=_NP_PAD_MODE[mode])


def _pad_adjoint(g, paddings, mode):
    """Sum each padded position's gradient back onto the element it copies."""
    for axis, (b, a) in enumerate(paddings):
        if not (b or a):
            continue
        gm = np.moveaxis(g, axis, 0)
        n = gm.shape[0] - b - a
        out = gm[b:b + n].copy()
        if mode != 'constant':
            source = np.pad(np.arange(n), (b, a), mode=_NP_PAD_MODE[mode])
            border = np.r_[0:b, b + n:b + n + a]
            np.add.at(out, source[border], gm[border])
        g = np.moveaxis(out, 0, axis)
    return g


def _pad_grad_meta(g, x, paddings, mode):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('pad_grad', _pad_grad_meta, no_grad_inputs=('x',), save_inputs=False,
        attr_types={'paddings': _paddings_type}, pattern='opaque')
def pad_grad_op(g, x, paddings=(), mode='constant'):
    """The adjoint of ``pad`` (x only gives the shape)."""
    return _pad_adjoint(g, paddings, mode)


@pad_grad_op.def_grad
def _pad_grad_grad(gg, g, x, out, paddings, mode):
    return pad_op(gg, paddings, mode, 0.0), None


@pad_op.def_grad
def _pad_grad(g, x, out, paddings, mode, value):
    return pad_grad_op(g, x, paddings, mode)


@pad_op.def_fast_grad
def _pad_fast(g, x, out, paddings, mode, value):
    return _pad_adjoint(g, paddings, mode)


_ONNX_PAD_MODE = {'constant': 'constant', 'reflect': 'reflect', 'replicate': 'edge'}


@pad_op.def_onnx
def _pad_onnx(g, x, paddings, mode, value):
    if mode == 'circular':      # wrap (opset 19 only): copies of the far ends
        big = np.iinfo(np.int64).max
        for axis, (b, a) in enumerate(paddings):
            parts = [x]
            if b:
                parts.insert(0, g.op('Slice', x, g.ints([-b]), g.ints([big]), g.ints([axis])))
            if a:
                parts.append(g.op('Slice', x, g.ints([0]), g.ints([a]), g.ints([axis])))
            x = g.op('Concat', *parts, axis=axis) if len(parts) > 1 else x
        return g.op('Identity', x)
    pads = g.ints([b for b, _ in paddings] + [a for _, a in paddings])
    fill = g.scalar(value, x) if mode == 'constant' else None
    return g.op('Pad', x, pads, fill, mode=_ONNX_PAD_MODE[mode])


def _spatial_axes(ndim, data_format):
    fmt = str(data_format).upper()
    if len(fmt) != ndim or fmt[0] != 'N' or 'C' not in (fmt[1], fmt[-1]):
        # data_format does not describe this rank: default to channels-first
        return list(range(2, ndim))
    return list(range(2, ndim)) if fmt[1] == 'C' else list(range(1, ndim - 1))


def _pad_pairs(ndim, pad, mode, data_format):
    """Paddle's pad list -> one [before, after] pair per dim."""
    pairs = [[0, 0] for _ in range(ndim)]
    if len(pad) % 2:
        raise OpError("pad: the pad list must have an even length, got %s" % pad)
    if len(pad) == 2 * ndim:
        # a full list pads from the first dim: [d0_before, d0_after, d1_before, ...]
        for i in range(ndim):
            pairs[i] = [pad[2 * i], pad[2 * i + 1]]
    elif ndim in (3, 4, 5) and len(pad) == 2 * (ndim - 2):
        # [left, right, top, bottom, front, back]: the last spatial dim first
        for k, axis in enumerate(reversed(_spatial_axes(ndim, data_format))):
            pairs[axis] = [pad[2 * k], pad[2 * k + 1]]
    elif mode == 'constant' and len(pad) <= 2 * ndim:
        for k in range(len(pad) // 2):
            pairs[ndim - 1 - k] = [pad[2 * k], pad[2 * k + 1]]
    else:
        raise OpError("pad: a pad list of length %d does not fit a %d-D tensor in mode '%s' "
                      "(use 2*ndim values, or 2*(ndim-2) for 3-D/4-D/5-D inputs)"
                      % (len(pad), ndim, mode))
    return tuple(tuple(p) for p in pairs)


def pad(x, pad, mode='constant', value=0.0, data_format='NCHW', name=None):
    """Pad ``x`` (Paddle's ``paddle.nn.functional.pad``).

    ``pad`` lists 2*ndim values [before, after] per dim from the first dim, or
    for 3-D/4-D/5-D inputs 2*(ndim-2) values for the spatial dims starting
    from the last: ``[left, right, top, bottom, front, back]``. ``mode`` is
    'constant' (with ``value``), 'reflect', 'replicate' or 'circular'.
    """
    if mode not in _NP_PAD_MODE:
        raise OpError("pad: mode must be one of %s, got %r" % (sorted(_NP_PAD_MODE), mode))
    pad = _int_list(pad, 'pad', 'pad')
    pairs = _pad_pairs(len(x.shape), pad, mode, data_format)
    if hasattr(value, 'item') and not isinstance(value, np.ndarray):
        value = value.item()
    return pad_op(x, pairs, mode, float(value) if mode == 'constant' else 0.0)


# ---- gather / index_select / index_add -------------------------------------------

def _check_index_dtype(index, what='index'):
    d = np.dtype(meta.dtype_of(index)) if not isinstance(index, _SCALARS) else np.dtype(int)
    if d.kind not in 'iu':
        raise OpError("%s must be an integer tensor, got dtype %s" % (what, d))


def _gather_meta(x, index, axis):
    _check_index_dtype(index)
    shape = meta.shape_of(x)
    ax = meta.normalize_axis(axis, len(shape))
    return Meta(shape[:ax] + meta.shape_of(index) + shape[ax + 1:], meta.dtype_of(x))


@def_op('gather', _gather_meta, no_grad_inputs=('index',), save_inputs=False, pattern='opaque')
def gather_op(x, index, axis=0):
    """Rows (along ``axis``) of x picked by an integer index tensor."""
    return np.take(x, index, axis=axis)


def _axis_index(ndim, axis, index):
    return (_pyslice(None),) * (axis % ndim) + (index,)


@gather_op.def_grad
def _gather_grad(g, x, index, out, axis):
    return index_add_op(_zeros_like(x), index, g, axis), None


@gather_op.def_fast_grad
def _gather_fast(g, x, index, out, axis):
    z = np.zeros(np.shape(x), g.dtype)
    np.add.at(z, _axis_index(z.ndim, axis, index), g)
    return z, None


gather_op.def_onnx(lambda g, x, index, axis: g.op('Gather', x, index, axis=axis))


def _index_add_meta(x, index, value, axis):
    _check_index_dtype(index)
    return meta.unchanged(x)


@def_op('index_add', _index_add_meta, no_grad_inputs=('index',), save_inputs=False,
        pattern='opaque')
def index_add_op(x, index, value, axis=0):
    """x with ``value`` added at ``index`` along ``axis`` (repeated indices accumulate)."""
    out = np.array(x, copy=True)
    np.add.at(out, _axis_index(out.ndim, axis, index), value)
    return out


@index_add_op.def_grad
def _index_add_grad(g, x, index, value, out, axis):
    gv = sum_like(gather_op(g, index, axis), value) if is_value(value) else None
    return sum_like(g, x), None, gv


@index_add_op.def_onnx
def _index_add_onnx(g, x, index, value, axis):
    # every element of value names its target along axis: ScatterElements, summing
    nd = g.rank(x)
    ax = axis % nd
    shape = [1] * nd
    shape[ax] = -1
    idx = g.op('Reshape', g.cast(index, np.int64), g.ints(shape))
    idx = g.op('Expand', idx, g.op('Shape', value))
    return g.op('ScatterElements', x, idx, g.cast(value, g.meta(x).dtype), axis=ax,
                reduction='add')


@index_add_op.def_fast_grad
def _index_add_fast(g, x, index, value, out, axis):
    gv = ub(np.take(g, index, axis=axis), value)
    return ub(g, x), None, gv


def _norm_axis(x, axis, api):
    nd = len(x.shape)
    axis = _as_int(axis, api, 'axis')
    if not -max(nd, 1) <= axis < max(nd, 1):
        raise OpError("%s: axis %d is out of range for a tensor of shape %s"
                      % (api, axis, list(x.shape)))
    return axis % nd if nd else 0


def _gather(x, index, axis=None, name=None, out=None):
    """Slices of ``x`` along ``axis`` (default 0) picked by a 1-D index tensor."""
    r = gather_op(x, index, _norm_axis(x, 0 if axis is None else axis, 'gather'))
    return r if out is None else _out(out, r)


def _torch_gather(input, dim, index, out=None):  # noqa: A002
    return lib.take_along_axis(input, index, dim, broadcast=False, out=out)


def gather(*args, **kwargs):
    """``gather(x, index, axis=None)``: slices of x picked by a 1-D index; or
    PyTorch's ``gather(input, dim, index)`` (an int second argument or
    ``dim=``): ``take_along_axis(input, index, dim, broadcast=False)``, as
    Paddle 3 reads it."""
    torch_form = (len(args) >= 2 and isinstance(args[1], (int, np.integer))
                  and not isinstance(args[1], bool)) or (len(args) < 2 and 'dim' in kwargs)
    return _torch_gather(*args, **kwargs) if torch_form else _gather(*args, **kwargs)


gather.__signature__ = inspect.signature(_gather)


@aliases(x=('input',), axis=('dim',))
@torch_order('axis', 'index')
def index_select(x, index, axis=0, name=None, *, out=None):
    """Slices of ``x`` along ``axis`` picked by a 1-D index tensor."""
    r = gather_op(x, index, _norm_axis(x, axis, 'index_select'))
    return r if out is None else _out(out, r)


@aliases(x=('input',), axis=('dim',), value=('source',))
@torch_order('axis', 'index', 'value')
def index_add(x, index, axis, value, alpha=1, name=None, *, out=None):
    """``x`` with ``alpha * value`` added at ``index`` along ``axis``."""
    if alpha != 1:
        value = value * alpha
    r = index_add_op(x, index, value, _norm_axis(x, axis, 'index_add'))
    return r if out is None else _out(out, r)


# ---- gather_nd / scatter_nd_add ---------------------------------------------------

def _gather_nd_meta(x, index):
    _check_index_dtype(index)
    shape, ishape = meta.shape_of(x), meta.shape_of(index)
    if not ishape or ishape[-1] < 0:
        raise OpError("index must have a known last dim (the number of indexed dims), "
                      "got shape %s" % list(ishape))
    k = ishape[-1]
    if k > len(shape):
        raise OpError("index's last dim %d is larger than the %d dims of x (shape %s)"
                      % (k, len(shape), list(shape)))
    return Meta(ishape[:-1] + shape[k:], meta.dtype_of(x))


def _nd_index(index):
    return tuple(np.moveaxis(index, -1, 0))


@def_op('gather_nd', _gather_nd_meta, no_grad_inputs=('index',), save_inputs=False,
        pattern='opaque')
def gather_nd_op(x, index):
    """``out[i...] = x[index[i..., 0], ..., index[i..., k-1]]``."""
    if index.shape[-1] == 0:
        return np.array(np.broadcast_to(x, index.shape[:-1] + x.shape))
    return x[_nd_index(index)]


@gather_nd_op.def_grad
def _gather_nd_grad(g, x, index, out):
    return scatter_nd_add_op(_zeros_like(x), index, g), None


@gather_nd_op.def_fast_grad
def _gather_nd_fast(g, x, index, out):
    z = np.zeros(np.shape(x), g.dtype)
    if index.shape[-1] == 0:
        return unbroadcast(g, z.shape), None
    np.add.at(z, _nd_index(index), g)
    return z, None


gather_nd_op.def_onnx(lambda g, x, index: g.op('GatherND', x, g.cast(index, np.int64)))


def _scatter_nd_add_meta(x, index, updates):
    expect = _gather_nd_meta(x, index).shape
    us = meta.shape_of(updates)
    if len(us) != len(expect) or any(a >= 0 and b >= 0 and a != b for a, b in zip(us, expect)):
        raise OpError("updates must have shape index.shape[:-1] + x.shape[k:] = %s, got %s"
                      % (list(expect), list(us)))
    return meta.unchanged(x)


@def_op('scatter_nd_add', _scatter_nd_add_meta, no_grad_inputs=('index',), save_inputs=False,
        pattern='opaque')
def scatter_nd_add_op(x, index, updates):
    """x with ``updates`` added at the positions ``index`` names (accumulating)."""
    out = np.array(x, copy=True)
    if index.shape[-1] == 0:
        return out + unbroadcast(np.asarray(updates), out.shape)
    np.add.at(out, _nd_index(index), updates)
    return out


scatter_nd_add_op.def_onnx(lambda g, x, index, updates: g.op(
    'ScatterND', x, g.cast(index, np.int64), updates, reduction='add'))


@scatter_nd_add_op.def_grad
def _scatter_nd_add_grad(g, x, index, updates, out):
    return sum_like(g, x), None, sum_like(gather_nd_op(g, index), updates)


@scatter_nd_add_op.def_fast_grad
def _scatter_nd_add_fast(g, x, index, updates, out):
    gu = g[_nd_index(index)] if index.shape[-1] else np.broadcast_to(g, index.shape[:-1] + g.shape)
    return ub(g, x), None, ub(np.asarray(gu), updates)


def gather_nd(x, index, name=None):
    """Elements or slices of ``x`` addressed by the last dim of ``index``."""
    return gather_nd_op(x, index)


def scatter_nd_add(x, index, updates, name=None):
    """``x`` with ``updates`` added at ``index`` (repeated indices accumulate)."""
    return scatter_nd_add_op(x, index, updates)


def scatter_nd(index, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` added at ``index``."""
    return scatter_nd_add_op(zeros(shape, updates.dtype), index, updates)


# ---- scatter (Paddle semantics) ---------------------------------------------------

def _scatter_rows(index, n):
    """The 1-D index as non-negative rows, checked against the axis size ``n``."""
    idx = np.asarray(index).reshape(-1).astype(np.int64, copy=False)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise OpError("index %d is out of range for axis 0 with size %d" % (bad, n))
    return np.where(idx < 0, idx + n, idx)


def _last_occurrence(rows):
    """Positions in ``rows`` that are the last occurrence of their value."""
    _, first_in_reversed = np.unique(rows[::-1], return_index=True)
    return len(rows) - 1 - first_in_reversed


def _scatter_meta(x, index, updates, overwrite):
    _check_index_dtype(index)
    shape, us, ishape = meta.shape_of(x), meta.shape_of(updates), meta.shape_of(index)
    if len(ishape) > 2 or (len(ishape) == 2 and ishape[1] != 1):
        raise OpError("index must be 1-D (or [N, 1]), got shape %s" % list(ishape))
    if len(us) != len(shape) or any(a >= 0 and b >= 0 and a != b
                                    for a, b in zip(us[1:], shape[1:])):
        raise OpError("updates must have shape [len(index)] + x.shape[1:] = %s, got %s"
                      % ([ishape[0] if ishape else 1] + list(shape[1:]), list(us)))
    return meta.unchanged(x)


@def_op('scatter', _scatter_meta, no_grad_inputs=('index',), save_inputs=False, pattern='opaque',
        amp='always_black')
def scatter_op(x, index, updates, overwrite=True):
    """Rows ``index`` of x replaced by ``updates`` (overwrite: the last repeated
    index wins) or set to the sum of their updates (overwrite=False)."""
    out = np.array(x, copy=True)
    rows = _scatter_rows(index, out.shape[0])
    if overwrite:
        keep = _last_occurrence(rows)
        out[rows[keep]] = np.asarray(updates)[keep]
    else:
        out[rows] = 0
        np.add.at(out, rows, updates)
    return out


def _scatter_mask_meta(index, updates):
    return meta.unchanged(updates)


@def_op('scatter_update_mask', _scatter_mask_meta, differentiable=False, pattern='opaque',
        amp='always_black', paddle_names=('scatter',))
def scatter_update_mask_op(index, updates):
    """1 for the rows of ``updates`` an overwriting scatter keeps, else 0."""
    mask = np.zeros(np.shape(updates), np.asarray(updates).dtype)
    rows = np.asarray(index).reshape(-1)
    mask[_last_occurrence(rows)] = 1
    return mask


@scatter_op.def_grad
def _scatter_grad(g, x, index, updates, out, overwrite):
    gx = scatter_op(g, index, _zeros_like(updates), True)
    flat = reshape_op(index, (-1,))
    gu = gather_op(g, flat, 0)
    if overwrite:
        gu = gu * scatter_update_mask_op(flat, updates)
    return gx, None, gu


@scatter_op.def_fast_grad
def _scatter_fast(g, x, index, updates, out, overwrite):
    rows = _scatter_rows(index, g.shape[0])
    gx = g.copy()
    gx[rows] = 0
    gu = g[rows]
    if overwrite:
        dropped = np.ones(len(rows), bool)
        dropped[_last_occurrence(rows)] = False
        gu[dropped] = 0
    return gx, None, gu


@scatter_op.def_onnx
def _scatter_onnx(g, x, index, updates, overwrite):
    rows = g.unsqueeze(g.op('Reshape', g.cast(index, np.int64), g.ints([-1])), [1])
    if overwrite:
        return g.op('ScatterND', x, rows, updates)
    # the rows named are zeroed, then take the sum of their updates
    zeros = g.op('Mul', updates, g.scalar(0, g.meta(x).dtype))
    return g.op('ScatterND', g.op('ScatterND', x, rows, zeros), rows, updates, reduction='add')


# ---- where / nonzero / masked ops -----------------------------------------------

def _where_meta(condition, x, y):
    shape = meta.broadcast_shapes(meta.shape_of(condition), meta.shape_of(x), 'condition and x')
    shape = meta.broadcast_shapes(shape, meta.shape_of(y), 'condition, x and y')
    return Meta(shape, meta.result_dtype(x, y))


@def_op('where', _where_meta, no_grad_inputs=('condition',), promote=('x', 'y'),
        pattern='broadcast', ufunc=None, identity=None, flops=None)
def where_op(condition, x, y):
    return np.where(condition, x, y)


@where_op.def_grad
def _where_grad(g, condition, x, y, out):
    # zeros as a tensor, not 0.0: a static constant would take the bool
    # condition's dtype as its reference and promote g to float64
    zero = _zeros_like(g)
    gx = sum_like(where_op(condition, g, zero), x) if is_value(x) else None
    gy = sum_like(where_op(condition, zero, g), y) if is_value(y) else None
    return None, gx, gy


@where_op.def_fast_grad
def _where_fast(g, condition, x, y, out):
    gx = ub(np.where(condition, g, 0), x) if type(x) is _ndarray else None
    gy = ub(np.where(condition, 0, g), y) if type(y) is _ndarray else None
    return None, gx, gy


@where_op.def_onnx
def _where_onnx(g, condition, x, y):
    return g.op('Where', g.cast(condition, np.bool_), *g.cast_to_output(x, y))


def _nonzero_meta(x):
    return Meta((-1, len(meta.shape_of(x))), np.int64)


@def_op('nonzero', _nonzero_meta, differentiable=False, pattern='opaque')
def nonzero_op(x):
    return np.argwhere(x).astype(np.int64, copy=False)


nonzero_op.def_onnx(lambda g, x: g.op('Transpose', g.op('NonZero', x), perm=[1, 0]))


@aliases(x=('input',))
def nonzero(x, as_tuple=False, *, out=None):
    """Indices of the non-zero elements: ``[z, ndim]`` int64, or with
    ``as_tuple=True`` a tuple of 1-D ``[z]`` tensors, one per dim (as Paddle)."""
    if len(x.shape) == 0:
        raise OpError("nonzero: x must have at least 1 dim, got a 0-D tensor")
    idx = nonzero_op(x)
    if not as_tuple:
        return idx if out is None else _out(out, idx)
    return tuple(lib.getitem_op(idx, [], [['slice', None, None, None], ['int', i]])
                 for i in range(len(x.shape)))


@aliases(x=('input',), y=('other',))
def where(condition, x=None, y=None, name=None, *, out=None):
    """Elements of ``x`` where ``condition`` holds, else of ``y``; with only
    ``condition``, the indices of its true elements (``nonzero(as_tuple=True)``)."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if x is None or y is None:
        raise OpError("where: give both x and y, or neither")
    if isinstance(x, _SCALARS) and isinstance(y, _SCALARS):
        x = to_tensor(x)    # both scalars: Paddle's dtype defaults, not numpy's
    r = where_op(condition, x, y)
    return r if out is None else _out(out, r)


def _masked_fill_meta(x, mask, value):
    if np.dtype(meta.dtype_of(mask)) != np.bool_:
        raise OpError("mask must be a bool tensor, got dtype %s" % meta.dtype_of(mask))
    shape = meta.broadcast_shapes(meta.shape_of(x), meta.shape_of(mask), 'x and mask')
    return Meta(shape, meta.dtype_of(x))


@def_op('masked_fill', _masked_fill_meta, no_grad_inputs=('mask',), save_inputs=False,
        pattern='broadcast', ufunc=None, identity=None, flops=None)
def masked_fill_op(x, mask, value):
    """``value`` where ``mask`` is true, else x (keeps x's dtype)."""
    if np.asarray(mask).dtype != np.bool_:
        raise OpError("mask must be a bool tensor, got dtype %s" % np.asarray(mask).dtype)
    return np.where(mask, value, x).astype(np.asarray(x).dtype, copy=False)


@masked_fill_op.def_grad
def _masked_fill_grad(g, x, mask, value, out):
    zero = _zeros_like(g)
    gx = sum_like(where_op(mask, zero, g), x)
    gv = sum_like(where_op(mask, g, zero), value) if is_value(value) else None
    return gx, None, gv


@masked_fill_op.def_fast_grad
def _masked_fill_fast(g, x, mask, value, out):
    gv = ub(np.where(mask, g, 0), value) if type(value) is _ndarray else None
    return ub(np.where(mask, 0, g), x), None, gv


masked_fill_op.def_onnx(lambda g, x, mask, value: g.op('Where', mask, g.cast(value, g.meta(x).dtype),
                                                        x))


def masked_fill(x, mask, value, name=None):
    """``x`` with ``value`` (a number or 0-d tensor) where ``mask`` is true."""
    if isinstance(value, np.generic):
        value = value.item()
    return masked_fill_op(x, mask, value)


@aliases(x=('input',))
def masked_select(x, mask, name=None, *, out=None):
    """1-D tensor of the elements of ``x`` where ``mask`` is true (broadcasting)."""
    xs, ms = tuple(x.shape), tuple(mask.shape)
    if xs != ms:
        shape = meta.broadcast_shapes(xs, ms, 'masked_select: x and mask')
        x = x if xs == shape else expand_op(x, shape)
        mask = mask if ms == shape else expand_op(mask, shape)
    if np.dtype(mask.dtype) != np.bool_:
        raise OpError("masked_select: mask must be a bool tensor, got dtype %s" % mask.dtype)
    r = lib.getitem_op(x, [mask], [['tensor', 0]])
    return r if out is None else _out(out, r)


# ---- sort / argsort / topk / take_along_axis / put_along_axis ---------------------

def _sort_key(x, descending):
    """An array whose ascending order is the wanted order (stable for ties)."""
    if not descending:
        return x
    if x.dtype.kind == 'b':
        return ~x
    if x.dtype.kind == 'u':
        return -(x.astype(np.int64))
    return -x


def _argsort_meta(x, axis, descending):
    shape = meta.shape_of(x)
    meta.normalize_axis(axis, len(shape))
    return Meta(shape, np.int64)


@def_op('argsort', _argsort_meta, differentiable=False, pattern='opaque')
def argsort_op(x, axis=-1, descending=False):
    order = np.argsort(_sort_key(x, descending), axis=axis, kind='stable')
    return order.astype(np.int64, copy=False)


@argsort_op.def_onnx
def _argsort_onnx(g, x, axis, descending):
    # TopK over the whole axis; its ties keep the lower index first, a stable sort
    n = g.meta(x).shape[axis]
    k = g.ints([n]) if n >= 0 else g.op('Reshape', g.op('Gather', g.op('Shape', x),
                                                         g.const(np.int64(axis))), g.ints([1]))
    return g.op('TopK', x, k, axis=axis, largest=int(bool(descending)), sorted=1,
                outputs=['sorted', 'argsort'])[1]


def _along_axis_index(indices, axis, x_shape):
    """A fancy index addressing ``x[..., indices[...], ...]`` along ``axis``;
    size-1 dims of x broadcast against indices (as numpy's take_along_axis)."""
    nd = indices.ndim
    out_shape = list(np.broadcast_shapes(
        tuple(1 if d == axis else s for d, s in enumerate(x_shape)), indices.shape))
    out_shape[axis] = indices.shape[axis]
    idx = []
    for d in range(nd):
        if d == axis:
            idx.append(np.broadcast_to(indices, out_shape))
            continue
        n = out_shape[d]
        shape = [1] * nd
        shape[d] = n
        ar = np.arange(n) if x_shape[d] != 1 else np.zeros(n, np.int64)
        idx.append(ar.reshape(shape))
    return tuple(idx), tuple(out_shape)


def _along_meta(x, indices, axis):
    _check_index_dtype(indices, 'indices')
    shape, ishape = meta.shape_of(x), meta.shape_of(indices)
    if len(shape) != len(ishape):
        raise OpError("indices (shape %s) must have as many dims as x (shape %s)"
                      % (list(ishape), list(shape)))
    ax = meta.normalize_axis(axis, len(shape))
    out = [ishape[d] if d == ax else meta.broadcast_shapes((s,), (i,), 'x and indices')[0]
           for d, (s, i) in enumerate(zip(shape, ishape))]
    return ax, out


def _take_along_meta(x, indices, axis):
    _, out = _along_meta(x, indices, axis)
    return Meta(out, meta.dtype_of(x))


@def_op('take_along_axis', _take_along_meta, no_grad_inputs=('indices',), save_inputs=False,
        pattern='opaque')
def take_along_axis_op(x, indices, axis=0):
    return x[_along_axis_index(indices, axis % x.ndim, x.shape)[0]]


@take_along_axis_op.def_grad
def _take_along_grad(g, x, indices, out, axis):
    return put_along_axis_op(_zeros_like(x), indices, g, axis, 'add'), None


@take_along_axis_op.def_fast_grad
def _take_along_fast(g, x, indices, out, axis):
    z = np.zeros(np.shape(x), g.dtype)
    np.add.at(z, _along_axis_index(indices, axis % z.ndim, z.shape)[0], g)
    return z, None


take_along_axis_op.def_onnx(lambda g, x, indices, axis: g.op(
    'GatherElements', x, g.cast(indices, np.int64), axis=axis))


def _put_along_meta(x, indices, values, axis, reduce):
    if reduce not in ('assign', 'add'):
        raise OpError("reduce must be 'assign' or 'add', got %r" % (reduce,))
    _along_meta(x, indices, axis)
    return meta.unchanged(x)


@def_op('put_along_axis', _put_along_meta, no_grad_inputs=('indices',), save_inputs=False,
        pattern='opaque')
def put_along_axis_op(x, indices, values, axis=0, reduce='assign'):
    """x with ``values`` written ('assign') or added ('add') at ``indices`` along axis."""
    out = np.array(x, copy=True)
    idx, shape = _along_axis_index(indices, axis % out.ndim, out.shape)
    if reduce == 'add':
        np.add.at(out, idx, np.broadcast_to(values, shape))
    elif reduce == 'assign':
        out[idx] = np.broadcast_to(values, shape)
    else:
        raise OpError("reduce must be 'assign' or 'add', got %r" % (reduce,))
    return out


@put_along_axis_op.def_grad
def _put_along_grad(g, x, indices, values, out, axis, reduce):
    gx = g if reduce == 'add' else put_along_axis_op(g, indices, 0.0, axis, 'assign')
    gv = sum_like(take_along_axis_op(g, indices, axis), values) if is_value(values) else None
    return sum_like(gx, x), None, gv


@put_along_axis_op.def_fast_grad
def _put_along_fast(g, x, indices, values, out, axis, reduce):
    idx, _ = _along_axis_index(indices, axis % g.ndim, g.shape)
    gv = ub(g[idx], values) if type(values) is _ndarray else None
    if reduce != 'add':
        g = g.copy()
        g[idx] = 0
    return ub(g, x), None, gv


@put_along_axis_op.def_onnx
def _put_along_axis_onnx(g, x, indices, values, axis, reduce):
    indices = g.cast(indices, np.int64)
    values = g.op('Expand', g.cast(values, g.meta(x).dtype), g.op('Shape', indices))
    return g.op('ScatterElements', x, indices, values, axis=axis,
                reduction='add' if reduce == 'add' else 'none')


def _topk_meta(x, k, axis, largest, sorted):
    shape = list(meta.shape_of(x))
    ax = meta.normalize_axis(axis, len(shape))
    if shape[ax] >= 0 and not 0 <= k <= shape[ax]:
        raise OpError("k (%d) must be in [0, %d], the size of axis %d of x (shape %s)"
                      % (k, shape[ax], ax, shape))
    shape[ax] = k
    return Meta(shape, meta.dtype_of(x)), Meta(shape, np.int64)


@def_op('topk', _topk_meta, outputs=('out', 'indices'), nondiff_outputs=('indices',),
        save_inputs=False, pattern='opaque')
def topk_op(x, k=1, axis=-1, largest=True, sorted=True):  # noqa: A002
    """The k largest (or smallest) values along ``axis`` and their indices, sorted."""
    ax = axis % x.ndim
    n = x.shape[ax]
    if not 0 <= k <= n:
        raise OpError("k (%d) must be in [0, %d], the size of axis %d of x (shape %s)"
                      % (k, n, ax, list(x.shape)))
    key = _sort_key(x, largest)
    if k == 0:
        idx = np.zeros(x.shape[:ax] + (0,) + x.shape[ax + 1:], np.int64)
    elif 4 * k < n:   # partition first: O(n) instead of a full sort
        part = np.take(np.argpartition(key, k - 1, axis=ax), np.arange(k), axis=ax)
        order = np.argsort(np.take_along_axis(key, part, ax), axis=ax, kind='stable')
        idx = np.take_along_axis(part, order, ax)
    else:
        idx = np.take(np.argsort(key, axis=ax, kind='stable'), np.arange(k), axis=ax)
    idx = idx.astype(np.int64, copy=False)
    return np.take_along_axis(x, idx, ax), idx


@topk_op.def_grad
def _topk_grad(g, g_idx, x, out, indices, k, axis, largest, sorted):
    return put_along_axis_op(_zeros_like(x), indices, g, axis, 'add')


@topk_op.def_fast_grad
def _topk_fast(g, g_idx, x, out, indices, k, axis, largest, sorted):
    z = np.zeros(np.shape(x), g.dtype)
    np.put_along_axis(z, indices, g, axis % z.ndim)   # indices are distinct
    return z


@topk_op.def_onnx
def _topk_onnx(g, x, k, axis, largest, sorted):  # noqa: A002
    return g.op('TopK', x, g.ints([k]), axis=axis, largest=int(bool(largest)), sorted=1,
                outputs=['topk', 'topk_indices'])


@aliases(x=('input',), axis=('dim',))
def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """Indices (int64) that sort ``x`` along ``axis``. The sort is always
    stable (equal elements keep their order), which ``stable=False`` allows."""
    return argsort_op(x, _norm_axis(x, axis, 'argsort'), bool(descending))


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """``x`` sorted along ``axis`` (differentiable; always a stable sort)."""
    axis = _norm_axis(x, axis, 'sort')
    return take_along_axis_op(x, argsort_op(x, axis, bool(descending)), axis)


@aliases(x=('input',), axis=('dim',))
def topk(x, k, axis=None, largest=True, sorted=True, name=None, *, out=None):  # noqa: A002
    """``(values, indices)`` of the ``k`` largest (or smallest) elements along
    ``axis`` (default: the last); indices are int64. ``out`` is a (values,
    indices) pair of tensors that take the results."""
    axis = _norm_axis(x, -1 if axis is None else axis, 'topk')
    result = topk_op(x, _as_int(k, 'topk', 'k'), axis, bool(largest), bool(sorted))
    if out is None:
        return result
    return tuple(_out(o, r) for o, r in zip(out, result))


# ---- one_hot / assign / clone / shape / numel --------------------------------------

def _one_hot_meta(x, num_classes):
    _check_index_dtype(x, 'x')
    return Meta(meta.shape_of(x) + (num_classes,), np.float32)


@def_op('one_hot', _one_hot_meta, differentiable=False, pattern='opaque')
def one_hot_op(x, num_classes=1):
    if x.size and (x.min() < 0 or x.max() >= num_classes):
        raise OpError("labels must be in [0, num_classes=%d), got values in [%d, %d]"
                      % (num_classes, x.min(), x.max()))
    return (x[..., None] == np.arange(num_classes)).astype(np.float32)


@one_hot_op.def_onnx
def _one_hot_onnx(g, x, num_classes):
    return g.op('OneHot', x, g.ints([num_classes]), g.const(np.array([0, 1], np.float32)),
                axis=-1)


def one_hot(x, num_classes, name=None):
    """Float32 one-hot encoding: a new last dim of size ``num_classes``."""
    return one_hot_op(x, _as_int(num_classes, 'one_hot', 'num_classes'))


@def_op('assign', meta.unchanged, save_inputs=False, pattern='elementwise', ufunc=None, flops=None,
        passthrough='x', amp='never')
def assign_op(x):
    """A copy of x (differentiable)."""
    return np.array(x, copy=True)


assign_op.def_onnx(lambda g, x: g.op('Identity', x))


assign_op.def_grad(lambda g, x, out: g)
assign_op.def_fast_grad(lambda g, x, out: g)


def assign(x, output=None):
    """A copy of ``x`` (a tensor, numpy array, list or number); with
    ``output`` the copy is written into that tensor."""
    if isinstance(x, (list, tuple)) and _holds_value(x):
        out = _assign_list(x)
    elif is_value(x):
        out = assign_op(x)
    elif isinstance(x, (bool, int, float, np.number)):
        out = to_tensor([x])     # Paddle: a number becomes a 1-element tensor
    else:
        out = to_tensor(np.asarray(x) if isinstance(x, (list, tuple)) else x)
    if output is None:
        return out
    output._inplace_assign(out)
    return output


def _assign_list(items):
    """``assign([t, 2, ...])``: one-element tensors and numbers stacked into a 1-D
    tensor (Paddle's rule for a list holding tensors)."""
    dtype = _list_dtype(items)
    scalars = []
    for k, v in enumerate(items):
        if isinstance(v, (list, tuple)):
            raise TypeError("assign: a list holding tensors must be flat (tensors and "
                            "numbers), item %d is a %s" % (k, type(v).__name__))
        if is_value(v):
            if _numel(list(v.shape)) != 1:
                raise TypeError("assign: a list holding tensors takes one-element tensors, "
                                "item %d has shape %s" % (k, list(v.shape)))
            v = reshape_op(cast(v, dtype) if np.dtype(v.dtype) != np.dtype(dtype) else v, ())
        else:
            v = to_tensor(v, dtype)
        scalars.append(v)
    return stack(scalars)


def tolist(x):
    """The values of ``x`` as (nested) Python lists."""
    return x.tolist()


def clone(x, name=None):
    """A differentiable copy of ``x``."""
    return assign_op(x)


def _shape_meta(x):
    return Meta((len(meta.shape_of(x)),), np.int64)


@def_op('shape', _shape_meta, differentiable=False,
        value_from_meta=lambda x: np.asarray(meta.shape_of(x),
                                             np.int64), pattern='opaque', amp='never')
def shape_op(x):
    return np.asarray(np.shape(x), np.int64)


shape_op.def_onnx(lambda g, x: g.op('Shape', x))


def _numel_meta(x):
    return Meta((), np.int64)


@def_op('numel', _numel_meta, differentiable=False,
        value_from_meta=lambda x: np.asarray(_numel(meta.shape_of(x)),
                                             np.int64), pattern='opaque', amp='never')
def numel_op(x):
    return np.asarray(np.size(x), np.int64)


numel_op.def_onnx(lambda g, x: g.op('Size', x))


def _shape_api(input):  # noqa: A002
    """The shape of ``input`` as a 1-D int64 tensor (known at run time in static mode)."""
    return shape_op(input)


def numel(x, name=None):
    """The number of elements of ``x`` as a 0-D int64 tensor."""
    return numel_op(x)


shape = _shape_api


__all__ = ['cast', 'reshape', 'squeeze', 'unsqueeze', 'flatten', 'transpose', 'moveaxis', 't',
           'concat', 'stack', 'split', 'chunk', 'unbind', 'unstack', 'expand', 'broadcast_to',
           'expand_as', 'broadcast_tensors', 'tile', 'flip', 'roll', 'pad', 'gather',
           'index_select', 'index_add', 'gather_nd', 'scatter_nd_add', 'scatter_nd',
           'where', 'nonzero', 'masked_fill', 'masked_select', 'argsort', 'sort', 'topk',
           'one_hot', 'assign', 'clone', 'shape', 'numel', 'tolist']

TENSOR_METHODS = {
    'cast': cast, 'astype': cast,
    'reshape': reshape, 'squeeze': squeeze, 'unsqueeze': unsqueeze, 'flatten': flatten,
    'transpose': transpose, 'moveaxis': moveaxis, 't': t, 'T': property(_T),
    'split': split, 'chunk': chunk, 'unbind': unbind, 'unstack': unstack,
    'expand': expand, 'expand_as': expand_as, 'broadcast_to': broadcast_to, 'tile': tile,
    'flip': flip, 'roll': roll,
    'gather': gather, 'gather_nd': gather_nd, 'index_select': index_select,
    'index_add': index_add, 'scatter_nd_add': scatter_nd_add,
    'where': where, 'nonzero': nonzero, 'masked_fill': masked_fill,
    'masked_select': masked_select,
    'sort': sort, 'argsort': argsort, 'topk': topk,
    'clone': clone,
}


# ---- test cases (independent numpy references) ------------------------------------

def _ref_pad(x, pairs, mode, value=0.0):
    """Textbook padding: each output position maps to a source index per axis."""
    def source(j, n):
        if mode == 'replicate':
            return min(max(j, 0), n - 1)
        if mode == 'circular':
            return j % n
        while j < 0 or j >= n:     # reflect about the first and last element
            j = -j if j < 0 else 2 * (n - 1) - j
        return j
    out_shape = [n + b + a for n, (b, a) in zip(x.shape, pairs)]
    out = np.full(out_shape, value, dtype=x.dtype)
    for pos in np.ndindex(*out_shape):
        src = []
        for j, (n, (b, _)) in zip(pos, zip(x.shape, pairs)):
            k = j - b
            if mode == 'constant' and not 0 <= k < n:
                break
            src.append(source(k, n) if mode != 'constant' else k)
        else:
            out[pos] = x[tuple(src)]
    return out


def _ref_pad_adjoint(g, x, pairs, mode):
    z = np.zeros(x.shape)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1.0
        z.reshape(-1)[k] = np.sum(g * _ref_pad(e.reshape(x.shape), pairs, mode))
    return z


def _ref_topk(x, k, axis, largest, sorted_):
    xm = np.moveaxis(x, axis, -1)
    vals = np.zeros(xm.shape[:-1] + (k,), x.dtype)
    idx = np.zeros(xm.shape[:-1] + (k,), np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        row = list(xm[pos])
        order = sorted(range(len(row)), key=lambda i: row[i], reverse=largest)[:k]
        idx[pos] = order
        vals[pos] = [row[i] for i in order]
    return np.moveaxis(vals, -1, axis), np.moveaxis(idx, -1, axis)


def _ref_argsort(x, axis, descending):
    xm = np.moveaxis(x, axis, -1)
    out = np.zeros(xm.shape, np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        row = list(xm[pos])
        out[pos] = sorted(range(len(row)), key=lambda i: -row[i] if descending else row[i])
    return np.moveaxis(out, -1, axis)


def _ref_take_along(x, idx, axis):
    out = np.zeros(idx.shape, x.dtype)
    for pos in np.ndindex(*idx.shape):
        src = list(pos)
        src[axis] = idx[pos]
        out[pos] = x[tuple(src)]
    return out


def _ref_put_along(x, idx, values, axis, reduce):
    out = x.copy()
    values = np.broadcast_to(values, idx.shape)
    for pos in np.ndindex(*idx.shape):
        dst = list(pos)
        dst[axis] = idx[pos]
        dst = tuple(dst)
        out[dst] = out[dst] + values[pos] if reduce == 'add' else values[pos]
    return out


def _ref_scatter(x, index, updates, overwrite):
    out = x.copy()
    if not overwrite:
        for i in index:
            out[i] = 0
    for r, i in enumerate(index):
        out[i] = updates[r] if overwrite else out[i] + updates[r]
    return out


def _ref_gather_nd(x, index):
    k = index.shape[-1]
    out = np.zeros(index.shape[:-1] + x.shape[k:], x.dtype)
    for pos in np.ndindex(*index.shape[:-1]):
        out[pos] = x[tuple(index[pos])]
    return out


def _ref_scatter_nd_add(x, index, updates):
    out = x.copy()
    for pos in np.ndindex(*index.shape[:-1]):
        out[tuple(index[pos])] += updates[pos]
    return out


def _ref_index_add(x, index, value, axis):
    out = np.moveaxis(x.copy(), axis, 0)
    v = np.moveaxis(value, axis, 0)
    for r, i in enumerate(index):
        out[i] += v[r]
    return np.moveaxis(out, 0, axis)


_rng = np.random.default_rng(5)
_r = _rng.standard_normal


def _perm(*shape):
    """Distinct values (no ties for sorting ops)."""
    return _rng.permutation(int(np.prod(shape))).reshape(shape) + _rng.uniform(0.1, 0.4, shape)


_S = ['slice', None, None, None]
add_test_case(cast_op, np.arange(6.0).reshape(2, 3), 'float64', ref=lambda x, d: x.astype(d))
add_test_case(cast_op, np.arange(6.0).reshape(2, 3), 'float32', ref=lambda x, d: x.astype(d),
              grad=False)
add_test_case(cast_op, np.arange(6.0).reshape(2, 3), 'int32', ref=lambda x, d: x.astype(d))
add_test_case(reshape_op, _r((2, 6)), (0, -1, 2), ref=lambda x, s: x.reshape(2, 3, 2))
add_test_case(reshape_op, _r((2, 3, 2)), (-1,), ref=lambda x, s: x.ravel())
add_test_case(reshape_op, _r(()), (1, 1), ref=lambda x, s: np.array([[x]]))
# pass-through cases (passthrough='x'): to x's own shape, unknown dim inferred
add_test_case(reshape_op, _r((2, 3)), (-1, 3), ref=lambda x, s: x)
add_test_case(squeeze_op, _r((1, 3, 1, 2)), (), ref=lambda x, a: x[0, :, 0, :])
add_test_case(squeeze_op, _r((1, 3, 1, 2)), (-2, 1), ref=lambda x, a: x[:, :, 0, :])
add_test_case(squeeze_op, _r((3, 2)), (0,), ref=lambda x, a: x)
add_test_case(unsqueeze_op, _r((3, 2)), (0, -1), ref=lambda x, a: x[None, :, :, None])
add_test_case(unsqueeze_op, _r((3, 2)), (1, 1), ref=lambda x, a: x[:, None, None, :])
add_test_case(unsqueeze_op, _r(()), (), ref=lambda x, a: x)
add_test_case(flatten_op, _r((2, 3, 2)), 1, -1, ref=lambda x, s, e: x.reshape(2, 6))
add_test_case(flatten_op, _r((2, 3, 2, 1)), 0, -2, ref=lambda x, s, e: x.reshape(12, 1))
add_test_case(flatten_op, _r((2, 3)), 1, 1, ref=lambda x, s, e: x)
add_test_case(reshape_as_op, _r((2, 3)), np.zeros((3, 2)), ref=lambda x, t: x.reshape(3, 2))
add_test_case(reshape_as_op, _r((2, 3)), np.zeros((2, 3)), ref=lambda x, t: x)
add_test_case(transpose_op, _r((2, 3, 4)), (2, 0, 1),
              ref=lambda x, p: np.einsum('abc->cab', x))
add_test_case(concat_op, [_r((2, 3)), _r((1, 3)), _r((3, 3))], 0,
              ref=lambda xs, a: np.vstack(xs))
add_test_case(concat_op, [_r((2, 1)), _r((2, 3))], -1, ref=lambda xs, a: np.hstack(xs))
add_test_case(split_op, _r((6, 2)), 3, (), 0, ref=lambda x, n, s, a: [x[0:2], x[2:4], x[4:6]])
add_test_case(split_op, _r((2, 6)), 0, (1, -1, 2), 1,
              ref=lambda x, n, s, a: [x[:, :1], x[:, 1:4], x[:, 4:]])
add_test_case(stack_op, [_r((2, 3)), _r((2, 3))], 1,
              ref=lambda xs, a: np.array([[xs[0][i], xs[1][i]] for i in range(2)]))
add_test_case(stack_op, [_r(3), _r(3), _r(3)], -1, ref=lambda xs, a: np.array(xs).T)
add_test_case(unbind_op, _r((2, 3)), 1, ref=lambda x, a: [x[:, 0], x[:, 1], x[:, 2]])
add_test_case(expand_op, _r((3, 1)), (2, -1, 4),
              ref=lambda x, s: x[None, :, :] * np.ones((2, 3, 4)))
add_test_case(expand_op, _r((3, 1)), (-1, 1), ref=lambda x, s: x)
add_test_case(tile_op, _r((2, 3)), (2, 1, 2),
              ref=lambda x, r: np.array([np.hstack([x, x])] * 2))
_i64 = lambda *v: np.array(v, np.int64)  # noqa: E731  (a shape tensor)
add_test_case(dynamic_reshape_op, _r((2, 6)), _i64(0, -1, 2), (0, -1, -1),
              ref=lambda x, t, s: x.reshape(2, 3, 2))
add_test_case(dynamic_reshape_op, _r((2, 3, 2)).astype(np.float32), _i64(-1), (-1,),
              ref=lambda x, t, s: x.ravel(), grad=False)
add_test_case(dynamic_reshape_op, _r(()), _i64(1, 1), (-1, 1), ref=lambda x, t, s: x.reshape(1, 1))
add_test_case(dynamic_reshape_op, _r((2, 3)), _i64(2, 3), (-1, 3), ref=lambda x, t, s: x)
add_test_case(dynamic_reshape_op, _r((0, 3)), _i64(3, -1), (3, -1),
              ref=lambda x, t, s: x.reshape(3, 0))
add_test_case(dynamic_expand_op, _r((3, 1)), _i64(2, -1, 4), (2, -1, -1),
              ref=lambda x, t, s: np.broadcast_to(x, (2, 3, 4)))
add_test_case(dynamic_expand_op, _r(()).astype(np.float32), _i64(2), (-1,),
              ref=lambda x, t, s: np.broadcast_to(x, (2,)), grad=False)
add_test_case(dynamic_expand_op, _r((1, 2)), _i64(0, 2), (-1, 2),
              ref=lambda x, t, s: np.zeros((0, 2)))
add_test_case(dynamic_tile_op, _r((2, 3)), _i64(2, 1, 2), (-1, 1, 2),
              ref=lambda x, t, r: np.tile(x, (2, 1, 2)))
add_test_case(dynamic_tile_op, _r(()).astype(np.float32), _i64(3), (-1,),
              ref=lambda x, t, r: np.tile(x, 3), grad=False)
add_test_case(dynamic_tile_op, _r((2,)), _i64(0), (-1,), ref=lambda x, t, r: np.zeros((0,)))
add_test_case(tile_like_op, _r((2, 3)), np.zeros((2, 2, 6)),
              ref=lambda x, t: np.tile(x, (2, 1, 2)))
add_test_case(tile_like_op, _r(()).astype(np.float32), np.zeros(3),
              ref=lambda x, t: np.tile(x, 3).astype(np.float32), grad=False)
add_test_case(tile_like_op, _r((0, 2)), np.zeros((0, 4)), ref=lambda x, t: np.zeros((0, 4)))
add_test_case(tile_grad_op, _r((4, 6)), np.zeros((2, 3)), (-1, -1),
              ref=lambda g, x, r: g.reshape(2, 2, 2, 3).sum(axis=(0, 2)))
add_test_case(tile_grad_op, _r((4, 3)), np.zeros((2, 3)), (2, 1),
              ref=lambda g, x, r: g[:2] + g[2:])
add_test_case(flip_op, _r((2, 3)), (1,), ref=lambda x, a: x[:, ::-1])
add_test_case(flip_op, _r((2, 3)), (0, 1), ref=lambda x, a: x[::-1, ::-1])
add_test_case(roll_op, _r((2, 3)), (1,), (1,),
              ref=lambda x, s, a: np.hstack([x[:, -1:], x[:, :-1]]))
add_test_case(roll_op, _r((2, 3)), (2,), None,
              ref=lambda x, s, a: np.concatenate([x.ravel()[-2:], x.ravel()[:-2]]).reshape(2, 3))
for _mode in ('constant', 'reflect', 'replicate', 'circular'):
    _pairs = ((0, 0), (1, 2), (2, 1))
    add_test_case(pad_op, _r((1, 3, 3)), _pairs, _mode, 0.5,
                  ref=lambda x, p, m, v: _ref_pad(x, p, m, v))
    add_test_case(pad_grad_op, _r((1, 6, 6)), np.zeros((1, 3, 3)), _pairs, _mode,
                  ref=lambda g, x, p, m: _ref_pad_adjoint(g, x, p, m))
add_test_case(gather_op, _r((4, 3)), np.array([3, 0, 3]), 0,
              ref=lambda x, i, a: np.array([x[3], x[0], x[3]]))
add_test_case(gather_op, _r((2, 4)), np.array([1, 2]), 1,
              ref=lambda x, i, a: np.array([[r[1], r[2]] for r in x]))
add_test_case(index_add_op, _r((4, 3)), np.array([1, 1, 3]), _r((3, 3)), 0,
              ref=_ref_index_add)
add_test_case(index_add_op, _r((2, 4)), np.array([0, 2]), _r((2, 2)), 1, ref=_ref_index_add)
add_test_case(gather_nd_op, _r((3, 4, 2)), np.array([[0, 1], [2, 3], [0, 1]]),
              ref=_ref_gather_nd)
add_test_case(gather_nd_op, _r((3, 4)), np.array([[[2], [0]]]), ref=_ref_gather_nd)
add_test_case(scatter_nd_add_op, _r((3, 4)), np.array([[0, 1], [2, 3], [0, 1]]), _r(3),
              ref=_ref_scatter_nd_add)
add_test_case(scatter_op, _r((4, 2)), np.array([2, 0, 2]), _r((3, 2)), True,
              ref=_ref_scatter)
add_test_case(scatter_op, _r((4, 2)), np.array([2, 0, 2]), _r((3, 2)), False,
              ref=_ref_scatter)
add_test_case(scatter_update_mask_op, np.array([1, 0, 1, 1]), np.zeros((4, 2)),
              ref=lambda i, u: np.array([[0, 0], [1, 1], [0, 0], [1, 1]], float))
_cond = _r((3, 4)) > 0
add_test_case(where_op, _cond, _r((3, 4)), _r(4),
              ref=lambda c, x, y: np.array([[x[i, j] if c[i, j] else y[j] for j in range(4)]
                                            for i in range(3)]))
add_test_case(where_op, _cond, _r((3, 1)), 0.5,
              ref=lambda c, x, y: np.array([[x[i, 0] if c[i, j] else y for j in range(4)]
                                            for i in range(3)]))
add_test_case(nonzero_op, np.array([[0, 1.5, 0], [2, 0, 3]]),
              ref=lambda x: np.array([[0, 1], [1, 0], [1, 2]]))
add_test_case(masked_fill_op, _r((3, 4)), _cond, np.float64(2.5),
              ref=lambda x, m, v: np.array([[v if m[i, j] else x[i, j] for j in range(4)]
                                            for i in range(3)]))
add_test_case(masked_fill_op, _r((3, 4)), _cond[0], -1.0,
              ref=lambda x, m, v: np.array([[v if m[j] else x[i, j] for j in range(4)]
                                            for i in range(3)]))
add_test_case(argsort_op, _perm(3, 4), -1, False, ref=_ref_argsort)
add_test_case(argsort_op, _perm(3, 4), 0, True, ref=_ref_argsort)
add_test_case(take_along_axis_op, _r((3, 4)), np.array([[0, 3], [1, 1], [2, 0]]), 1,
              ref=_ref_take_along)
add_test_case(take_along_axis_op, _r((3, 2)), np.array([[2, 0], [0, 0]]), 0,
              ref=_ref_take_along)
add_test_case(put_along_axis_op, _r((3, 4)), np.array([[0, 3], [1, 2], [2, 0]]), _r((3, 2)),
              1, 'assign', ref=_ref_put_along)
add_test_case(put_along_axis_op, _r((3, 4)), np.array([[0, 0], [1, 2], [3, 3]]), _r((3, 2)),
              1, 'add', ref=_ref_put_along)
add_test_case(put_along_axis_op, _r((3, 4)), np.array([[0, 3], [1, 2], [2, 0]]), 0.5,
              1, 'assign', ref=_ref_put_along)
add_test_case(topk_op, _perm(3, 5), 2, -1, True, True, ref=_ref_topk)
add_test_case(topk_op, _perm(4, 3), 3, 0, False, True, ref=_ref_topk)
add_test_case(topk_op, _perm(2, 9), 2, 1, True, True, ref=_ref_topk)   # the partition path
add_test_case(one_hot_op, np.array([[0, 2], [1, 3]]), 4,
              ref=lambda x, n: np.array([[[float(c == v) for c in range(n)] for v in row]
                                         for row in x], np.float32))
add_test_case(assign_op, _r((2, 3)), ref=lambda x: x + 0.0)
add_test_case(shape_op, _r((2, 3, 1)), ref=lambda x: np.array([2, 3, 1], np.int64))
add_test_case(numel_op, _r((2, 3, 1)), ref=lambda x: np.array(6))
# mixed dtypes: x and y (the list items) are cast to their promoted dtype first
_mix = np.random.default_rng(9)
add_test_case(where_op, _cond, _mix.integers(-3, 4, (3, 4)), _mix.standard_normal(4),
              ref=lambda c, x, y: np.where(c, x, y))
add_test_case(concat_op, [_mix.standard_normal((2, 3)).astype(np.float32),
                          _mix.integers(-3, 4, (1, 3))], 0,
              ref=lambda xs, a: np.vstack(xs).astype(np.float32))
add_test_case(stack_op, [_mix.integers(-3, 4, 3), _mix.standard_normal(3)], 1,
              ref=lambda xs, a: np.stack(xs, 1))
