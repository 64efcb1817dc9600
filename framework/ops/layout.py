"""Paddle 3's shape and layout functions beyond the core set in ``manipulation``.

view / permute / narrow / unflatten / ravel, matrix transposes, the numpy-style
splits (tensor_split, hsplit, vsplit, dsplit) and stacks (hstack, vstack,
dstack, column_stack, row_stack), atleast_Nd, rot90, crop, sliding windows
(``Tensor.unfold``) and ``as_strided``.

Almost everything here is a composition of registered ops (reshape,
transpose, split, slice, concat, flip, gather), so gradients, static mode and
``@to_static`` come from those ops. The one new op is ``view_dtype`` (a bit
reinterpretation, not differentiable).

Views: numpy kernels give every op a new result, and an in-place update
replaces a tensor's array, so a "view" here is a new tensor with the viewed
shape: in-place updates of a view do NOT reach its base (in Paddle 3 on a
stride-kernel build they do). Values, shapes, dtypes and gradients are
Paddle's.
"""
import numpy as np

from .. import dtype as _dt
from .compat_args import aliases, dims_after_tensor
from . import meta
from .creation import to_tensor
from .grad_utils import is_value
from .manipulation import (_as_int, _int_list, _norm_axis, _out, _tensor_list, cast, concat,
                           flip, gather_op, reshape, sort, split_op, tile, transpose,
                           transpose_op)
from .modes import in_static_mode, is_static_var
from .registry import Meta, OpError, add_test_case, def_op
from .subscript import strided_slice


# ---- view: a new shape, or the same bytes read as another dtype -------------------

def _is_dtype_like(v):
    return isinstance(v, (str, np.dtype, _dt.DataType)) or isinstance(v, type)


def _view_dtype_shape(shape, old, new, api='view'):
    """The shape of the same bytes read as items of ``new.itemsize`` (the last
    dim scales, as numpy's ``ndarray.view``)."""
    if old.itemsize == new.itemsize:
        return tuple(shape)
    if not shape:
        raise OpError("%s: a 0-D tensor of %s cannot be viewed as %s (the item sizes "
                      "differ)" % (api, old, new))
    last = shape[-1]
    if last >= 0 and (last * old.itemsize) % new.itemsize:
        raise OpError("%s: the last dim of shape %s (%d x %d bytes) is not a multiple of the "
                      "item size of %s (%d bytes)"
                      % (api, list(shape), last, old.itemsize, new, new.itemsize))
    return tuple(shape[:-1]) + ((last * old.itemsize // new.itemsize) if last >= 0 else -1,)


def _view_dtype_meta(x, dtype):
    d = np.dtype(dtype)
    return Meta(_view_dtype_shape(meta.shape_of(x), np.dtype(meta.dtype_of(x)), d), d)


@def_op('view_dtype', _view_dtype_meta, differentiable=False, pattern='view', passthrough=None)
def view_dtype_op(x, dtype='float32'):
    """x's bytes read as ``dtype`` (the last dim scales with the item size)."""
    _view_dtype_shape(x.shape, x.dtype, np.dtype(dtype))
    x = np.asarray(x)
    return (x if x.flags.c_contiguous else x.copy(order='C')).view(dtype)


@aliases(shape_or_dtype=('dtype', 'size'))
@dims_after_tensor('shape_or_dtype')
def view(x, shape_or_dtype, name=None):
    """``x`` with a new shape (like ``reshape``), or its bytes reinterpreted as
    another dtype (the last dim scales with the item size, as Paddle's view).

    The result is a new tensor: in-place updates of it do not reach ``x``.

    >>> import framework as paddle
    >>> paddle.arange(6).view([2, 3]).shape
    paddle.Size([2, 3])
    >>> paddle.zeros([2, 2], 'float64').view('int32').shape
    paddle.Size([2, 4])
    """
    if _is_dtype_like(shape_or_dtype):
        return view_dtype_op(x, str(_dt.convert_dtype(shape_or_dtype)))
    return reshape(x, shape_or_dtype)


def view_as(x, other, name=None):
    """``x`` reshaped to ``other``'s shape (a new tensor, see ``view``)."""
    return reshape(x, list(other.shape))


# ---- permutations of dims ---------------------------------------------------------

def permute(input, dims, *more_dims):  # noqa: A002  (Paddle's argument name)
    """``input`` with its dims reordered: ``permute(x, [1, 0, 2])`` or
    ``x.permute(1, 0, 2)``."""
    if more_dims or isinstance(dims, (int, np.integer)):
        dims = [dims, *more_dims]
    return transpose(input, dims)


def _swap_last_two(x, api):
    nd = len(x.shape)
    if nd < 2:
        raise OpError("%s: x must have at least 2 dims, got shape %s" % (api, list(x.shape)))
    perm = list(range(nd))
    perm[-2], perm[-1] = perm[-1], perm[-2]
    return transpose_op(x, tuple(perm))


def _mT(x):
    return _swap_last_two(x, 'mT')


# ---- narrow / unflatten / ravel -----------------------------------------------------

def narrow(input, dim, start, length):  # noqa: A002
    """``length`` entries of ``input`` along ``dim`` from ``start`` (which may
    be negative, counted from the end, or a one-element tensor)."""
    dim = _norm_axis(input, dim, 'narrow')
    length = _as_int(length, 'narrow', 'length')
    n = input.shape[dim]
    if is_static_var(start) and start._value is None:
        start = start.reshape([1])    # known only when the program runs
        return strided_slice(input, [dim], start, start + length, [1], api='narrow')
    start = _as_int(start, 'narrow', 'start')
    if n >= 0:
        if not -n <= start <= n:
            raise OpError("narrow: start %d is out of range for dim %d of size %d"
                          % (start, dim, n))
        start %= n if n else 1
        if length < 0 or start + length > n:
            raise OpError("narrow: start (%d) + length (%d) exceeds dim %d of size %d"
                          % (start, length, dim, n))
    return strided_slice(input, [dim], [start], [start + length], [1], api='narrow')


@aliases(x=('input',), axis=('dim',), shape=('sizes',))
def unflatten(x, axis, shape, name=None):
    """Split dim ``axis`` of ``x`` into the dims ``shape`` (one may be -1)."""
    in_shape = list(x.shape)
    axis = _norm_axis(x, axis, 'unflatten')
    sizes = _int_list(shape, 'unflatten', 'shape')
    if not sizes:
        raise OpError("unflatten: shape must not be empty")
    n = in_shape[axis]
    known = int(np.prod([s for s in sizes if s != -1]))
    if sizes.count(-1) > 1:
        raise OpError("unflatten: shape %s may hold at most one -1" % sizes)
    if n >= 0 and ((-1 not in sizes and known != n) or (-1 in sizes and (known == 0 or n % known))):
        raise OpError("unflatten: shape %s does not multiply to the size %d of dim %d of x "
                      "(shape %s)" % (sizes, n, axis, in_shape))
    # dims of x unknown while a program is built: 0 copies the input dim at the same
    # position (so only in front of axis, or anywhere when one dim replaces one)
    lead = [0 if d < 0 else d for d in in_shape[:axis]]
    tail = in_shape[axis + 1:]
    if any(d < 0 for d in tail):
        if len(sizes) == 1:
            tail = [0 if d < 0 else d for d in tail]
        elif tail.count(-1) == 1 and -1 not in sizes and n >= 0:
            pass    # the one unknown dim is inferred
        else:
            raise OpError("unflatten: x's dims after axis %d must be known, got shape %s"
                          % (axis, in_shape))
    return reshape(x, lead + sizes + tail)


def ravel(input):  # noqa: A002
    """``input`` flattened to 1-D."""
    return reshape(input, [-1])


# ---- numpy-style splits -----------------------------------------------------------

def _split_bounds(n, num_or_indices, api):
    """(start, stop) of every part along an axis of size n (numpy's array_split)."""
    if isinstance(num_or_indices, (list, tuple)) or (
            is_value(num_or_indices) and len(num_or_indices.shape) == 1):
        cuts = [0] + _int_list(num_or_indices, api, 'num_or_indices') + [n]
        cuts = [min(max(c + n if c < 0 else c, 0), n) for c in cuts]
        return [(a, max(a, b)) for a, b in zip(cuts[:-1], cuts[1:])]
    num = _as_int(num_or_indices, api, 'num_or_indices')
    if num <= 0:
        raise OpError("%s: the number of sections must be positive, got %d" % (api, num))
    size, extra = divmod(n, num)
    bounds, start = [], 0
    for k in range(num):
        stop = start + size + (k < extra)
        bounds.append((start, stop))
        start = stop
    return bounds


@aliases(x=('input',), axis=('dim',), num_or_indices=('indices_or_sections', 'indices', 'sections'))
def tensor_split(x, num_or_indices, axis=0, name=None):
    """Split ``x`` along ``axis`` into ``num`` parts as equal as possible (the
    first ``n % num`` get one more), or at the given indices (numpy's
    ``array_split``)."""
    axis = _norm_axis(x, axis, 'tensor_split')
    n = x.shape[axis]
    if n < 0:
        raise OpError("tensor_split: the size of axis %d must be known, got shape %s"
                      % (axis, list(x.shape)))
    bounds = _split_bounds(n, num_or_indices, 'tensor_split')
    if all(b[1] == c[0] for b, c in zip(bounds[:-1], bounds[1:])) and bounds[-1][1] == n \
            and bounds[0][0] == 0:
        return list(split_op(x, 0, tuple(b - a for a, b in bounds), axis))
    return [strided_slice(x, [axis], [a], [b], [1], api='tensor_split') for a, b in bounds]


def hsplit(x, num_or_indices, name=None):
    """``tensor_split`` along dim 1 (dim 0 for a 1-D tensor)."""
    if len(x.shape) < 1:
        raise OpError("hsplit: x must have at least 1 dim, got a 0-D tensor")
    return tensor_split(x, num_or_indices, 1 if len(x.shape) > 1 else 0)


def vsplit(x, num_or_indices, name=None):
    """``tensor_split`` along dim 0 (x must have at least 2 dims)."""
    if len(x.shape) < 2:
        raise OpError("vsplit: x must have at least 2 dims, got shape %s" % list(x.shape))
    return tensor_split(x, num_or_indices, 0)


def dsplit(x, num_or_indices, name=None):
    """``tensor_split`` along dim 2 (x must have at least 3 dims)."""
    if len(x.shape) < 3:
        raise OpError("dsplit: x must have at least 3 dims, got shape %s" % list(x.shape))
    return tensor_split(x, num_or_indices, 2)


def split_with_sizes(self: 'Tensor', split_sizes, dim=0):
    """``Tensor.split_with_sizes``: parts of the given sizes along ``dim``
    (they must add up to the size of ``dim``)."""
    sizes = _int_list(split_sizes, 'split_with_sizes', 'split_sizes')
    dim = _norm_axis(self, dim, 'split_with_sizes')
    n = self.shape[dim]
    if any(s < 0 for s in sizes) or (n >= 0 and sum(sizes) != n):
        raise OpError("split_with_sizes: split_sizes %s must be non-negative and add up to the "
                      "size %d of dim %d" % (sizes, n, dim))
    return list(split_op(self, 0, tuple(sizes), dim))


# ---- atleast_Nd and the numpy-style stacks -------------------------------------------

def _as_tensor(v):
    return v if is_value(v) else to_tensor(v)


def _atleast(inputs, ndim, api):
    if len(inputs) == 1 and isinstance(inputs[0], (list, tuple)) and any(
            is_value(v) for v in inputs[0]):
        inputs = inputs[0]
    out = []
    for v in inputs:
        t = _as_tensor(v)
        nd = len(t.shape)
        if nd < ndim:
            t = reshape(t, _atleast_shape(list(t.shape), ndim))
        out.append(t)
    return out[0] if len(out) == 1 else out


def _atleast_shape(shape, ndim):
    """numpy's rule: 0-D -> [1]*ndim, 1-D [n] -> [1, n] (and [1, n, 1] for 3-D),
    2-D [m, n] -> [m, n, 1]; unknown dims are copied (0)."""
    shape = [0 if d < 0 else d for d in shape]
    if not shape:
        return [1] * ndim
    if len(shape) == 1:
        return [1] + shape + ([1] if ndim == 3 else [])
    return shape + [1]


def atleast_1d(*inputs, name=None):
    """Each input with at least 1 dim (one tensor, or a list for several)."""
    return _atleast(inputs, 1, 'atleast_1d')


def atleast_2d(*inputs, name=None):
    """Each input with at least 2 dims (numpy's rule)."""
    return _atleast(inputs, 2, 'atleast_2d')


def atleast_3d(*inputs, name=None):
    """Each input with at least 3 dims (numpy's rule: [n] -> [1, n, 1])."""
    return _atleast(inputs, 3, 'atleast_3d')


def _as_list(v):
    return v if isinstance(v, list) else [v]


def hstack(x, name=None):
    """Concatenate along dim 1 (dim 0 for 1-D inputs), after ``atleast_1d``."""
    arrays = _as_list(atleast_1d(*_tensor_list(x, 'hstack')))
    return concat(arrays, axis=0 if len(arrays[0].shape) == 1 else 1)


def vstack(x, name=None):
    """Concatenate along dim 0 after ``atleast_2d`` (1-D inputs become rows)."""
    return concat(_as_list(atleast_2d(*_tensor_list(x, 'vstack'))), axis=0)


def row_stack(x, name=None):
    """Alias of ``vstack``."""
    return vstack(x)


def dstack(x, name=None):
    """Concatenate along dim 2 after ``atleast_3d``."""
    return concat(_as_list(atleast_3d(*_tensor_list(x, 'dstack'))), axis=2)


def column_stack(x, name=None):
    """Concatenate along dim 1; 0-D and 1-D inputs become columns."""
    cols = []
    for t in _tensor_list(x, 'column_stack'):
        t = _as_tensor(t)
        cols.append(reshape(t, [-1, 1]) if len(t.shape) < 2 else t)
    return concat(cols, axis=1)


# ---- rot90 / reverse / crop ------------------------------------------------------------

def rot90(x, k=1, axes=[0, 1], name=None):  # noqa: B006  (Paddle's default)
    """Rotate ``x`` by 90 degrees ``k`` times in the plane of ``axes`` (from
    the first axis towards the second, numpy's direction)."""
    axes = _int_list(axes, 'rot90', 'axes')
    nd = len(x.shape)
    if len(axes) != 2:
        raise OpError("rot90: axes must hold 2 dims, got %s" % axes)
    if nd < 2:
        raise OpError("rot90: x must have at least 2 dims, got shape %s" % list(x.shape))
    a, b = (meta.normalize_axis(v, nd, 'rot90 axes') for v in axes)
    if a == b:
        raise OpError("rot90: the two axes must differ, got %s" % axes)
    k = _as_int(k, 'rot90', 'k') % 4
    if k == 0:
        return x
    if k == 2:
        return flip(x, [a, b])
    perm = list(range(nd))
    perm[a], perm[b] = perm[b], perm[a]
    if k == 1:
        return transpose_op(flip(x, [b]), tuple(perm))
    return flip(transpose_op(x, tuple(perm)), [b])


def reverse(x, axis, name=None):
    """``x`` reversed along ``axis`` (an int or a list); the same as ``flip``."""
    return flip(x, axis)


def crop(x, shape=None, offsets=None, name=None):
    """The block of ``x`` of ``shape`` starting at ``offsets`` (default 0); a
    -1 in ``shape`` takes the rest of that dim."""
    in_shape = list(x.shape)
    nd = len(in_shape)
    offs = [0] * nd if offsets is None else _int_list(offsets, 'crop', 'offsets')
    sizes = in_shape if shape is None else _int_list(shape, 'crop', 'shape')
    if len(offs) != nd or len(sizes) != nd:
        raise OpError("crop: shape %s and offsets %s must have one entry per dim of x "
                      "(shape %s)" % (sizes, offs, in_shape))
    ends = []
    for i, (n, o, s) in enumerate(zip(in_shape, offs, sizes)):
        if o < 0:
            raise OpError("crop: offsets must be non-negative, got %s" % offs)
        stop = (n if s == -1 else o + s)
        if s < -1 or (n >= 0 and stop > n):
            raise OpError("crop: offsets[%d] (%d) + shape[%d] (%d) exceed dim %d of x (shape %s)"
                          % (i, o, i, s, i, in_shape))
        ends.append(stop if stop >= 0 else 2 ** 62)
    return strided_slice(x, list(range(nd)), offs, ends, [1] * nd, api='crop')


# ---- gathers at build-time positions: unfold, as_strided -----------------------------------

@aliases(axis=('dimension',))
def unfold(x, axis, size, step, name=None):
    """Sliding windows: dim ``axis`` becomes the number of windows of ``size``
    taken every ``step`` entries, and a last dim of ``size`` is added
    (``Tensor.unfold``)."""
    nd = len(x.shape)
    axis = _norm_axis(x, axis, 'unfold') if nd else 0
    size = _as_int(size, 'unfold', 'size')
    step = _as_int(step, 'unfold', 'step')
    n = x.shape[axis] if nd else 1
    if n < 0:
        raise OpError("unfold: the size of dim %d must be known, got shape %s"
                      % (axis, list(x.shape)))
    if step <= 0 or size < 0 or size > n:
        raise OpError("unfold: need 0 <= size (%d) <= %d (the size of dim %d) and step (%d) > 0"
                      % (size, n, axis, step))
    windows = (n - size) // step + 1
    index = to_tensor((np.arange(windows)[:, None] * step + np.arange(size)).reshape(-1))
    if not nd:
        return reshape(gather_op(reshape(x, [1]), index, 0), [size])
    # gather along a last axis, so the other dims keep their positions (0 copies them)
    others = [i for i in range(nd) if i != axis]
    moved = gather_op(transpose_op(x, tuple(others + [axis])), index, nd - 1)
    windowed = reshape(moved, [0] * (nd - 1) + [windows, size])
    perm = [nd - 1 if i == axis else i - (i > axis) for i in range(nd)] + [nd]
    return transpose_op(windowed, tuple(perm))


def as_strided(x, shape, stride, offset=0, name=None):
    """The elements of ``x`` (read in row-major order) at ``offset +
    sum(i_k * stride[k])`` for each index ``i`` of ``shape``. As in Paddle
    the strides count elements and ``offset`` counts bytes (a multiple of the
    item size). The result is a new tensor (see ``view``)."""
    shape = _int_list(shape, 'as_strided', 'shape')
    stride = _int_list(stride, 'as_strided', 'stride')
    offset = _as_int(offset, 'as_strided', 'offset')
    itemsize = np.dtype(x.dtype).itemsize
    if len(shape) != len(stride) or any(s < 0 for s in shape) or any(s < 0 for s in stride):
        raise OpError("as_strided: shape %s and stride %s must be non-negative and of equal "
                      "length" % (shape, stride))
    if offset < 0 or offset % itemsize:
        raise OpError("as_strided: offset %d must be a non-negative multiple of the item size "
                      "(%d bytes for %s)" % (offset, itemsize, np.dtype(x.dtype)))
    numel = int(np.prod(x.shape))
    if numel < 0 or any(d < 0 for d in x.shape):
        raise OpError("as_strided: x's shape must be known, got %s" % list(x.shape))
    index = np.full(shape, offset // itemsize, np.int64)
    for k, (n, st) in enumerate(zip(shape, stride)):
        index += (np.arange(n) * st).reshape([-1 if i == k else 1 for i in range(len(shape))])
    if index.size and index.max() >= numel:
        raise OpError("as_strided: shape %s with stride %s and offset %d reads element %d of a "
                      "tensor with %d elements" % (shape, stride, offset, index.max(), numel))
    flat = reshape(x, [-1])
    return reshape(gather_op(flat, to_tensor(index.reshape(-1).astype(np.int64)), 0), shape)


# ---- shapes as Python lists, rank ------------------------------------------------------

def broadcast_shape(x_shape, y_shape):
    """The shape ``x_shape`` and ``y_shape`` broadcast to (a list)."""
    return list(meta.broadcast_shapes(_int_list(x_shape, 'broadcast_shape', 'x_shape'),
                                      _int_list(y_shape, 'broadcast_shape', 'y_shape'),
                                      'broadcast_shape: shapes'))


def broadcast_shapes(*shapes):
    """The shape all ``shapes`` broadcast to (a list)."""
    out = ()
    for s in shapes:
        out = meta.broadcast_shapes(out, _int_list(s, 'broadcast_shapes', 'shape'),
                                    'broadcast_shapes: shapes')
    return list(out)


def rank(input):  # noqa: A002
    """The number of dims of ``input`` as a 0-D int32 tensor."""
    return to_tensor(np.asarray(len(input.shape), np.int32))


def msort(input, *, out=None):  # noqa: A002
    """``input`` sorted along its first dim."""
    if len(input.shape) == 0:
        raise OpError("msort: input must have at least 1 dim, got a 0-D tensor")
    r = sort(input, 0)
    return r if out is None else _out(out, r)


def increment(x, value=1.0, name=None):
    """In place: ``x`` (one element) becomes ``x + value`` (a loop counter's
    step, Paddle's ``increment``); returns x."""
    n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
    if n != 1 and n != -1:
        raise OpError("increment: x must have exactly one element, got shape %s"
                      % list(x.shape))
    step = x + value
    if np.dtype(step.dtype) != np.dtype(x.dtype):
        step = cast(step, x.dtype)
    return x._inplace_update(step)


def check_shape(shape, op_name, expected_shape_type=(list, tuple),
                expected_element_type=(int,), expected_tensor_dtype=('int32', 'int64')):
    """Check a shape argument while a program is built (a list or tuple of
    ints or integer tensors, or an integer tensor); eagerly nothing is
    checked, as in Paddle. Tensors (Variables) pass the type checks."""
    if not in_static_mode():
        return None
    if not (is_value(shape) or isinstance(shape, expected_shape_type)):
        raise TypeError("%s: shape must be one of %s or a tensor, got %s"
                        % (op_name, [t.__name__ for t in expected_shape_type],
                           type(shape).__name__))
    items = [shape] if is_value(shape) else list(shape)
    for item in items:
        if is_value(item):
            if expected_tensor_dtype and str(np.dtype(item.dtype)) not in expected_tensor_dtype:
                raise TypeError("%s: a tensor in shape must have dtype %s, got %s"
                                % (op_name, ' or '.join(expected_tensor_dtype), item.dtype))
        elif expected_element_type is not None and (
                not isinstance(item, expected_element_type) or isinstance(item, bool)):
            raise TypeError("%s: the elements of shape must be ints or tensors, got %r"
                            % (op_name, item))
    return None


def repeat(input, repeats, *more_repeats):  # noqa: A002
    """``Tensor.repeat``: tile ``input`` ``repeats[i]`` times along dim i
    (``x.repeat(2, 3)`` or ``x.repeat([2, 3])``); as ``tile``, extra leading
    repeats add dims and fewer repeats than dims apply to the last ones
    (Paddle 3.3.1: a 2-D ``x.repeat(2)`` is ``[2, 4]``; PyTorch refuses it)."""
    if more_repeats or isinstance(repeats, (int, np.integer)):
        repeats = [repeats, *more_repeats]
    return tile(input, _int_list(repeats, 'repeat', 'repeats'))


__all__ = ['view', 'view_as', 'permute', 'narrow', 'unflatten', 'ravel',
           'tensor_split', 'hsplit', 'vsplit', 'dsplit', 'atleast_1d', 'atleast_2d',
           'atleast_3d', 'hstack', 'vstack', 'row_stack', 'dstack', 'column_stack', 'rot90',
           'reverse', 'crop', 'unfold', 'as_strided', 'broadcast_shape', 'broadcast_shapes',
           'rank', 'check_shape', 'msort', 'increment']

TENSOR_METHODS = {
    'view': view, 'view_as': view_as, 'permute': permute,
    'mT': property(_mT), 'narrow': narrow, 'unflatten': unflatten, 'ravel': ravel,
    'tensor_split': tensor_split, 'hsplit': hsplit, 'vsplit': vsplit, 'dsplit': dsplit,
    'split_with_sizes': split_with_sizes, 'atleast_1d': atleast_1d, 'atleast_2d': atleast_2d,
    'atleast_3d': atleast_3d, 'rot90': rot90, 'reverse': reverse, 'unfold': unfold,
    'as_strided': as_strided, 'broadcast_shape': broadcast_shape,
    'broadcast_shapes': broadcast_shapes, 'rank': rank, 'repeat': repeat,
    'concat': concat, 'swapaxes': transpose, 'swapdims': transpose, 'msort': msort,
    'increment': increment,
}
INPLACE_METHODS = {'transpose_': 'transpose', 't_': 't'}


_rng = np.random.default_rng(21)
add_test_case(view_dtype_op, _rng.standard_normal((2, 4)), 'int32',
              ref=lambda x, d: x.view(np.int32), dtype_invariant=False)
add_test_case(view_dtype_op, _rng.standard_normal((3, 2)).astype(np.float32), 'int64',
              ref=lambda x, d: x.view(np.int64), dtype_invariant=False)
add_test_case(view_dtype_op, np.array(1.5), 'int64', ref=lambda x, d: x.view(np.int64),
              dtype_invariant=False)
add_test_case(view_dtype_op, np.zeros((0, 2)), 'float32', dtype_invariant=False,
              ref=lambda x, d: np.zeros((0, 4), np.float32))
