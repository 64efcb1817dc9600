"""Paddle 3's index-driven reads and writes beyond the core gather/scatter set.

* ``scatter_reduce`` (the one new op here): PyTorch's ``scatter_`` with a
  reduction. ``index`` has x's rank and no larger dims than x (except along
  ``axis``); the value at index position p goes to x at p with p[axis]
  replaced by ``index[p]``, and is combined by ``assign``, ``add``/``sum``,
  ``mul``/``prod``, ``mean``, ``amin`` or ``amax``, with or without x's own
  value (``include_self``). Behind ``scatter_reduce``, ``scatter_add``,
  ``put_along_axis`` (every mode, ``broadcast=False``) and the PyTorch form
  of ``scatter``. Its grad rules are compositions of registered ops, so they
  differentiate again: ties of ``amin``/``amax`` share the gradient evenly,
  ``prod`` is exact also at zeros (Paddle gives NaN there).
* compositions: ``take``, ``take_along_dim``, ``index_fill``, ``index_put``,
  ``index_sample``, ``masked_scatter``, ``select_scatter``, ``slice_scatter``,
  ``diagonal_scatter``, ``shard_index``.
"""
import numpy as np

from .. import dtype as _dt
from .compat_args import aliases
from . import meta
from .creation import full_like_op, to_tensor
from .grad_utils import is_value
from .manipulation import (_as_int, _check_index_dtype, _int_list, _norm_axis, _out, cast,
                           expand, gather_op, nonzero, put_along_axis_op, reshape, reshape_op,
                           scatter_nd_add_op, scatter_op, stack, take_along_axis_op,
                           transpose_op, unbind, where, where_op)
from .math import (cumsum_op, divide_op, equal_op, floor_divide_op, maximum_op, multiply_op,
                   remainder_op, subtract_op)
from .modes import is_static_var
from .registry import Meta, OpError, add_test_case, def_op
from .subscript import set_items, strided_slice

_REDUCE_ALIASES = {'sum': 'add', 'multiply': 'mul', 'prod': 'mul'}
_REDUCTIONS = ('assign', 'add', 'mul', 'mean', 'amin', 'amax')


def _reduce_name(reduce, api):
    name = _REDUCE_ALIASES.get(reduce, reduce)
    if name not in _REDUCTIONS:
        raise OpError("%s: reduce must be one of 'assign', 'add', 'sum', 'mul', 'multiply', "
                      "'prod', 'mean', 'amin', 'amax', got %r" % (api, reduce))
    return name


# ---- the scatter_reduce op --------------------------------------------------------

def _scatter_reduce_meta(x, index, src, axis, reduce, include_self):
    _check_index_dtype(index)
    shape, ishape, sshape = meta.shape_of(x), meta.shape_of(index), meta.shape_of(src)
    if len(ishape) != len(shape):
        raise OpError("index (shape %s) must have as many dims as x (shape %s)"
                      % (list(ishape), list(shape)))
    ax = meta.normalize_axis(axis, len(shape))
    if not meta.is_scalar(src) and tuple(sshape) != tuple(ishape):
        raise OpError("src (shape %s) must have index's shape %s" % (list(sshape), list(ishape)))
    for d, (n, i) in enumerate(zip(shape, ishape)):
        if d != ax and n >= 0 and i > n:
            raise OpError("index (shape %s) is larger than x (shape %s) in dim %d"
                          % (list(ishape), list(shape), d))
    if reduce not in _REDUCTIONS:
        raise OpError("reduce must be one of %s, got %r" % (list(_REDUCTIONS), reduce))
    return meta.unchanged(x)


def _targets(index, axis, n):
    """The fancy index of x's positions that index's entries write."""
    idx = np.asarray(index).astype(np.int64, copy=False)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx[(idx < -n) | (idx >= n)].reshape(-1)[0]
        raise OpError("index %d is out of bounds for dim %d with size %d" % (bad, axis, n))
    grid = list(np.indices(idx.shape, sparse=True))
    grid[axis] = np.where(idx < 0, idx + n, idx)
    return tuple(grid)


def _identity(reduce, dtype):
    if reduce in ('add', 'mean', 'assign'):
        return 0
    if reduce == 'mul':
        return 1
    big = np.inf if dtype.kind in 'fc' else np.iinfo(dtype).max
    return big if reduce == 'amin' else -big


@def_op('scatter_reduce', _scatter_reduce_meta, no_grad_inputs=('index',), pattern='opaque')
def scatter_reduce_op(x, index, src, axis=0, reduce='add', include_self=True):
    """x with ``src`` written at ``index`` along ``axis`` (PyTorch's scatter)
    and combined by ``reduce``."""
    if _dt.is_bfloat16(x.dtype):   # numpy's ufunc.at has no bfloat16 loops
        out = scatter_reduce_op.kernel(x.astype(np.float32), index,
                                       np.asarray(src).astype(np.float32), axis, reduce,
                                       include_self)
        return out.astype(x.dtype)
    out = np.array(x, copy=True)
    where = _targets(index, axis, out.shape[axis])
    src = np.broadcast_to(np.asarray(src, out.dtype), np.shape(index))
    if reduce == 'assign':
        out[where] = src
        return out
    if not include_self:
        out[where] = _identity(reduce, out.dtype)
    if reduce == 'add':
        np.add.at(out, where, src)
    elif reduce == 'mul':
        np.multiply.at(out, where, src)
    elif reduce == 'amin':
        np.minimum.at(out, where, src)
    elif reduce == 'amax':
        np.maximum.at(out, where, src)
    else:   # mean: the sum over the count of contributions (x counts when included)
        np.add.at(out, where, src)
        count = np.zeros(out.shape, np.int64)
        np.add.at(count, where, 1)
        count += include_self
        count = np.maximum(count, 1)
        if out.dtype.kind in 'fc':
            out = out / count.astype(out.dtype)
        else:   # integer division truncates, as Paddle's kernel
            out = np.trunc(out / count).astype(out.dtype)
    return out


def _take_at(y, index, axis):
    """``y`` at the positions ``index`` addresses (the grad of a scatter
    reads its output gradient there)."""
    if tuple(y.shape) != tuple(index.shape):
        nd = len(index.shape)
        dims = [d for d in range(nd) if d != axis and index.shape[d] != y.shape[d]]
        if dims:
            y = strided_slice(y, dims, [0] * len(dims), [index.shape[d] for d in dims],
                              [1] * len(dims), api='scatter_reduce grad')
    return take_along_axis_op(y, index, axis)


def _hit_count(x, index, axis):
    """How many entries of index write each position of x (a float tensor)."""
    return scatter_reduce_op(full_like_op(x, 0, None), index, full_like_op(index, 1, str(
        np.dtype(x.dtype))), axis, 'add', True)


def _not_hit(x, index, axis):
    return cast(equal_op(_hit_count(x, index, axis), 0), x.dtype)


def _prod_of_others(x, index, src, axis, include_self):
    """For each src entry, the product of the other values combined at its
    target, exact when some are zero: from the product of the non-zero
    contributions and the number of zeros."""
    dt = str(np.dtype(x.dtype))
    one_x, one_s = full_like_op(x, 1, None), full_like_op(src, 1, None)
    zero_s = cast(equal_op(src, 0), dt)
    src_nz = where_op(equal_op(src, 0), one_s, src)
    base_nz = where_op(equal_op(x, 0), one_x, x) if include_self else one_x
    base_zeros = cast(equal_op(x, 0), dt) if include_self else full_like_op(x, 0, None)
    zeros = scatter_reduce_op(base_zeros, index, zero_s, axis, 'add', True)
    nonzero_prod = scatter_reduce_op(base_nz, index, src_nz, axis, 'mul', True)
    z, p = _take_at(zeros, index, axis), _take_at(nonzero_prod, index, axis)
    zero_o = full_like_op(src, 0, None)
    if_nonzero = where_op(equal_op(z, 0), divide_op(p, src_nz), zero_o)
    if_zero = where_op(equal_op(z, 1), p, zero_o)
    return where_op(equal_op(src, 0), if_zero, if_nonzero)


@scatter_reduce_op.def_grad
def _scatter_reduce_grad(g, x, index, src, out, axis, reduce, include_self):
    has_src = is_value(src)
    if reduce in ('add', 'assign') or (reduce == 'mean' and not include_self) or (
            not include_self and reduce == 'mul'):
        gx = g if include_self and reduce == 'add' else multiply_op(g, _not_hit(x, index, axis))
    if reduce == 'assign':
        winners = scatter_winners_op(index, axis)
        gs = multiply_op(_take_at(g, index, axis), cast(winners, g.dtype)) if has_src else None
    elif reduce == 'add':
        gs = _take_at(g, index, axis) if has_src else None
    elif reduce == 'mean':
        count = _hit_count(x, index, axis)
        if include_self:
            count = count + 1.0
            gx = divide_op(g, count)
        per = divide_op(g, maximum_op(count, full_like_op(count, 1, None)))
        gs = _take_at(per, index, axis) if has_src else None
    elif reduce == 'mul':
        if include_self:
            gx = multiply_op(g, scatter_reduce_op(full_like_op(x, 1, None), index, src, axis,
                                                  'mul', True))
        gs = multiply_op(_take_at(g, index, axis),
                         _prod_of_others(x, index, src, axis, include_self)) if has_src else None
    else:   # amin / amax: the gradient is shared by every contribution equal to the result
        at_src = cast(equal_op(src, _take_at(out, index, axis)), g.dtype) if has_src else None
        ties = scatter_reduce_op(full_like_op(x, 0, None), index, at_src, axis, 'add', True) \
            if has_src else full_like_op(x, 0, None)
        if include_self:
            at_x = cast(equal_op(x, out), g.dtype)
            share = divide_op(g, ties + at_x)
            gx = multiply_op(share, at_x)
        else:
            share = divide_op(g, maximum_op(ties, full_like_op(ties, 1, None)))
            gx = multiply_op(g, _not_hit(x, index, axis))
        gs = multiply_op(_take_at(share, index, axis), at_src) if has_src else None
    return gx, None, gs


def _winners_meta(index, axis):
    return Meta(meta.shape_of(index), np.bool_)


@def_op('scatter_winners', _winners_meta, differentiable=False, pattern='opaque')
def scatter_winners_op(index, axis=0):
    """True where an entry of index is the last one writing its target (the
    one an overwriting scatter keeps)."""
    idx = np.asarray(index)
    if not idx.size:
        return np.zeros(idx.shape, bool)
    moved = np.moveaxis(idx, axis, -1)
    rest = np.indices(moved.shape)[:-1]
    keys = np.stack([*(r.reshape(-1) for r in rest), moved.reshape(-1)], axis=1)
    _, first_from_end = np.unique(keys[::-1], axis=0, return_index=True)
    win = np.zeros(len(keys), bool)
    win[len(keys) - 1 - first_from_end] = True
    return np.moveaxis(win.reshape(moved.shape), -1, axis)


# ---- scatter_reduce / scatter_add / put_along_axis ------------------------------------

def _scatter_reduce(x, index, src, axis, reduce, include_self, api):
    """Check and normalise arguments, then the op. ``src`` is cut to index's
    shape (entries beyond it are ignored, as in Paddle)."""
    nd = len(x.shape)
    axis = _norm_axis(x, axis, api)
    if len(index.shape) != nd:
        raise OpError("%s: index (shape %s) must have as many dims as x (shape %s)"
                      % (api, list(index.shape), list(x.shape)))
    if is_value(src):
        if len(src.shape) != nd:
            raise OpError("%s: src (shape %s) must have as many dims as x (shape %s)"
                          % (api, list(src.shape), list(x.shape)))
        for d in range(nd):
            if (d != axis and x.shape[d] >= 0 and index.shape[d] > x.shape[d]) or (
                    src.shape[d] >= 0 and index.shape[d] > src.shape[d]):
                raise OpError("%s: index (shape %s) must be no larger than src (shape %s) in "
                              "every dim and than x (shape %s) outside dim %d"
                              % (api, list(index.shape), list(src.shape), list(x.shape), axis))
        if tuple(src.shape) != tuple(index.shape):
            src = strided_slice(src, list(range(nd)), [0] * nd, list(index.shape), [1] * nd,
                                api=api)
        if np.dtype(src.dtype) != np.dtype(x.dtype):
            src = cast(src, x.dtype)
    else:
        src = expand(to_tensor(np.asarray(src, np.dtype(x.dtype))), list(index.shape))
    return scatter_reduce_op(x, index, src, axis, reduce, bool(include_self))


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):  # noqa: A002
    """``input`` with ``src`` scattered along ``dim`` at ``index`` and combined
    by ``reduce`` ('sum', 'prod', 'mean', 'amin', 'amax'), including
    ``input``'s own values unless ``include_self=False``."""
    if reduce not in ('sum', 'prod', 'mean', 'amin', 'amax'):
        raise OpError("scatter_reduce: reduce must be 'sum', 'prod', 'mean', 'amin' or 'amax', "
                      "got %r" % (reduce,))
    return _scatter_reduce(input, index, src, dim, _reduce_name(reduce, 'scatter_reduce'),
                           include_self, 'scatter_reduce')


def scatter_add(input, dim, index, src):  # noqa: A002
    """``input`` with ``src`` added along ``dim`` at ``index`` (PyTorch's scatter_add)."""
    return _scatter_reduce(input, index, src, dim, 'add', True, 'scatter_add')


def _paddle_broadcast_shape(arr, indices, axis):
    """Paddle's rule: indices and values broadcast to arr's shape (with index's
    size along axis), unless indices is larger than arr somewhere."""
    if any(a >= 0 and i > a for a, i in zip(arr.shape, indices.shape)):
        return None
    shape = list(arr.shape)
    shape[axis] = indices.shape[axis]
    return shape


def put_along_axis(arr, indices, values, axis, reduce='assign', include_self=True,
                   broadcast=True):
    """``arr`` with ``values`` put at ``indices`` along ``axis`` and combined
    by ``reduce`` ('assign', 'add', 'mul'/'multiply', 'mean', 'amin', 'amax').
    With ``broadcast`` indices and values broadcast to arr's shape (index's
    size along axis); without, index addresses the leading block of arr and
    values."""
    api = 'put_along_axis'
    name = _reduce_name(reduce, api)
    if reduce in ('sum', 'prod'):
        raise OpError("put_along_axis: reduce must be 'assign', 'add', 'mul', 'multiply', "
                      "'mean', 'amin' or 'amax', got %r" % (reduce,))
    if len(arr.shape) != len(indices.shape):
        raise OpError("put_along_axis: indices (shape %s) and arr (shape %s) must have the same "
                      "number of dims" % (list(indices.shape), list(arr.shape)))
    axis = _norm_axis(arr, axis, api)
    if isinstance(values, np.generic):
        values = values.item()
    if broadcast:
        if name in ('assign', 'add') and include_self:
            return put_along_axis_op(arr, indices, values, axis, name)
        shape = _paddle_broadcast_shape(arr, indices, axis)
        if shape is not None:
            indices = expand(indices, shape)
        target = shape if shape is not None else list(indices.shape)
        values = expand(values if is_value(values) else to_tensor(
            np.asarray(values, np.dtype(arr.dtype))), target)
    return _scatter_reduce(arr, indices, values, axis, name, include_self, api)


@aliases(arr=('input',), axis=('dim',))
def take_along_axis(arr, indices, axis, broadcast=True, *, out=None):
    """``arr`` at ``indices`` along ``axis``: with ``broadcast`` indices
    broadcast against arr (numpy's take_along_axis); without, the output has
    indices' shape and indices address the leading block of arr (PyTorch's
    gather)."""
    axis = _norm_axis(arr, axis, 'take_along_axis')
    if len(arr.shape) != len(indices.shape):
        raise OpError("take_along_axis: indices (shape %s) and arr (shape %s) must have the same "
                      "number of dims" % (list(indices.shape), list(arr.shape)))
    if broadcast:
        result = take_along_axis_op(arr, indices, axis)
    else:
        for d, (a, i) in enumerate(zip(arr.shape, indices.shape)):
            if d != axis and a >= 0 and i > a:
                raise OpError("take_along_axis: indices (shape %s) is larger than arr (shape %s) "
                              "in dim %d" % (list(indices.shape), list(arr.shape), d))
        result = _take_at(arr, indices, axis)
    return _out(out, result)


take_along_dim = take_along_axis


def scatter(x, index, updates, overwrite=True, name=None, out=None, **torch_form):
    """Paddle's scatter: rows ``index`` of ``x`` get ``updates`` (with
    ``overwrite=True`` a repeated index keeps its last update; with False the
    rows get the sum of their updates). ``scatter(input, dim, index, src,
    reduce=None)`` (an int second argument) is PyTorch's form:
    ``put_along_axis(input, index, src, dim, reduce or 'assign',
    broadcast=False)``."""
    if isinstance(index, (int, np.integer)) and not isinstance(index, bool):
        return _out(out, _torch_scatter(x, index, updates, overwrite, name, torch_form))
    if torch_form:
        raise TypeError("scatter() got unexpected keyword arguments %s" % sorted(torch_form))
    return _out(out, scatter_op(x, index, updates, bool(overwrite)))


def scatter_(*args, **kwargs):
    """In-place ``scatter``, in either of its forms: the first argument
    takes the result and is returned."""
    if not args:
        raise TypeError("scatter_() needs the tensor to update as its first argument")
    return args[0]._inplace_update(scatter(*args, **kwargs))


def _torch_scatter(input, dim, index, src, reduce, extra):  # noqa: A002
    src = extra.pop('src', src if src is not True else None)
    value = extra.pop('value', None)
    reduce = extra.pop('reduce', reduce)
    if extra:
        raise TypeError("scatter() got unexpected keyword arguments %s" % sorted(extra))
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter(input, dim, index, src): src (or value) is missing")
    return put_along_axis(input, index, src, dim, reduce or 'assign', broadcast=False)


# ---- take / index_fill / index_put / index_sample / masked_scatter ----------------------

def take(x, index, mode='raise', name=None):
    """The elements of ``x`` (read flattened) at ``index``; the output has
    index's shape. ``mode``: 'raise' (indices in [-n, n)), 'wrap' (modulo n)
    or 'clip' (into [0, n-1])."""
    if mode not in ('raise', 'wrap', 'clip'):
        raise OpError("take: mode must be 'raise', 'wrap' or 'clip', got %r" % (mode,))
    _check_index_dtype(index, 'take: index')
    n = int(np.prod(x.shape)) if all(d >= 0 for d in x.shape) else -1
    if n < 0:
        raise OpError("take: x's shape must be known, got %s" % list(x.shape))
    flat = reshape_op(x, (-1,))
    idx = cast(index, 'int64')
    if mode == 'wrap':
        idx = remainder_op(idx, n)
    elif mode == 'clip':
        idx = maximum_op(idx, full_like_op(idx, 0, None))
        idx = subtract_op(idx, maximum_op(subtract_op(idx, n - 1), full_like_op(idx, 0, None)))
    elif hasattr(index, 'data') and not is_static_var(index):
        arr = np.asarray(index.data)
        if arr.size and (arr.min() < -n or arr.max() >= n):
            raise OpError("take: index %d is out of range for a tensor of %d elements"
                          % (arr[(arr < -n) | (arr >= n)].reshape(-1)[0], n))
    return reshape(gather_op(flat, reshape_op(idx, (-1,)), 0), list(index.shape))


def _axis_mask(x, index, axis):
    """A bool tensor, broadcastable to x, true at ``index`` along ``axis``."""
    n = x.shape[axis]
    if n < 0:
        raise OpError("index_fill: the size of axis %d must be known, got shape %s"
                      % (axis, list(x.shape)))
    flags = scatter_op(to_tensor(np.zeros(n, np.int64)), reshape_op(cast(index, 'int64'), (-1,)),
                       full_like_op(reshape_op(index, (-1,)), 1, 'int64'), True)
    shape = [1] * len(x.shape)
    shape[axis] = n
    return reshape_op(equal_op(flags, 1), tuple(shape))


def index_fill(x, index, axis, value, name=None):
    """``x`` with the slices ``index`` along ``axis`` set to ``value`` (a
    number or a 0-D tensor)."""
    axis = _norm_axis(x, axis, 'index_fill')
    _check_index_dtype(index, 'index_fill: index')
    if is_value(value):
        if len(value.shape):
            raise OpError("index_fill: value must be a number or a 0-D tensor, got shape %s"
                          % list(value.shape))
        fill = expand(cast(value, x.dtype) if np.dtype(value.dtype) != np.dtype(x.dtype)
                      else value, list(x.shape))
    else:
        fill = full_like_op(x, value, None)
    return where_op(expand(_axis_mask(x, index, axis), list(x.shape)), fill, x)


def _index_tuple(x, indices, api):
    """index_put's indices as integer tensors (a bool mask becomes the
    coordinates of its true entries)."""
    if not isinstance(indices, (list, tuple)):
        raise TypeError("%s: indices must be a tuple or list of tensors, got %s"
                        % (api, type(indices).__name__))
    out = []
    for i, t in enumerate(indices):
        t = t if is_value(t) else to_tensor(t)
        if np.dtype(t.dtype) == np.bool_:
            out.extend(unbind(nonzero(t), 1))
        elif np.dtype(t.dtype).kind in 'iu':
            out.append(t)
        else:
            raise OpError("%s: indices[%d] must be an integer or bool tensor, got dtype %s"
                          % (api, i, t.dtype))
    if len(out) > len(x.shape):
        raise OpError("%s: %d index tensors for a tensor with %d dims (shape %s)"
                      % (api, len(out), len(x.shape), list(x.shape)))
    return out


def index_put(x, indices, value, accumulate=False, name=None):
    """``x`` with ``x[indices] = value`` (``accumulate=True``: ``+=``, repeated
    positions adding up). ``indices`` is a tuple of integer tensors (broadcast
    together) or a bool mask; value broadcasts to the indexed region."""
    idx = _index_tuple(x, indices, 'index_put')
    if not accumulate:
        return set_items(x, tuple(idx), value)
    shape = meta.broadcast_shapes(*[tuple(t.shape) for t in idx]) if len(idx) > 1 \
        else tuple(idx[0].shape)
    coords = [cast(expand(t, list(shape)), 'int64') for t in idx]
    where = stack(coords, -1)
    region = list(shape) + list(x.shape[len(idx):])
    value = value if is_value(value) else to_tensor(np.asarray(value, np.dtype(x.dtype)))
    if np.dtype(value.dtype) != np.dtype(x.dtype):
        value = cast(value, x.dtype)
    return scatter_nd_add_op(x, where, expand(value, region))


def index_sample(x, index):
    """``out[i, j] = x[i, index[i, j]]`` for a 2-D x and index with as many rows."""
    if len(x.shape) != 2 or len(index.shape) != 2:
        raise OpError("index_sample: x and index must be 2-D, got shapes %s and %s"
                      % (list(x.shape), list(index.shape)))
    if x.shape[0] >= 0 and index.shape[0] >= 0 and x.shape[0] != index.shape[0]:
        raise OpError("index_sample: x (shape %s) and index (shape %s) must have the same "
                      "number of rows" % (list(x.shape), list(index.shape)))
    _check_index_dtype(index, 'index_sample: index')
    return take_along_axis_op(x, index, 1)


def masked_scatter(x, mask, value, name=None):
    """``x`` with its entries where ``mask`` (broadcast to x) is true replaced,
    in row-major order, by the first entries of ``value``."""
    if np.dtype(mask.dtype) != np.bool_:
        raise OpError("masked_scatter: mask must be a bool tensor, got dtype %s" % mask.dtype)
    if np.dtype(value.dtype) != np.dtype(x.dtype):
        raise OpError("masked_scatter: x and value must have the same dtype, got %s and %s"
                      % (x.dtype, value.dtype))
    shape = list(meta.broadcast_shapes(tuple(x.shape), tuple(mask.shape), 'x and mask'))
    mask = expand(mask, shape)
    if tuple(x.shape) != tuple(shape):
        x = expand(x, shape)
    flat_mask = reshape_op(cast(mask, 'int64'), (-1,))
    # the k-th true entry takes value's k-th element
    source = maximum_op(cumsum_op(flat_mask, 0, False) - 1, full_like_op(flat_mask, 0, None))
    if hasattr(mask, 'data') and not is_static_var(mask):
        count, size = int(np.count_nonzero(mask.data)), int(np.prod(value.shape))
        if count > size:
            raise OpError("masked_scatter: mask has %d true entries but value has only %d "
                          "elements" % (count, size))
        if size == 0:
            return x
    taken = gather_op(reshape_op(value, (-1,)), source, 0)
    return where_op(mask, reshape(taken, shape), x)


# ---- select_scatter / slice_scatter / diagonal_scatter -----------------------------------

def select_scatter(x, values, axis, index, name=None):
    """``x`` with its slice ``index`` along ``axis`` replaced by ``values``
    (whose shape is x's without that dim)."""
    axis = _norm_axis(x, axis, 'select_scatter')
    index = _as_int(index, 'select_scatter', 'index')
    n = x.shape[axis]
    if n >= 0 and not -n <= index < n:
        raise OpError("select_scatter: index %d is out of range for dim %d of size %d"
                      % (index, axis, n))
    want = list(x.shape[:axis]) + list(x.shape[axis + 1:])
    if list(values.shape) != want:
        raise OpError("select_scatter: values must have shape %s (x's shape %s without dim %d), "
                      "got %s" % (want, list(x.shape), axis, list(values.shape)))
    return set_items(x, (slice(None),) * axis + (index,), values)


def slice_scatter(x, value, axes, starts, ends, strides, name=None):
    """``x`` with the strided slice (``axes``, ``starts``, ``ends``,
    ``strides``) replaced by ``value`` (of the slice's shape, or
    broadcastable to it, as Paddle's)."""
    axes = _int_list(axes, 'slice_scatter', 'axes')
    starts, ends = (_int_list(v, 'slice_scatter', w) for v, w in ((starts, 'starts'),
                                                                  (ends, 'ends')))
    strides = _int_list(strides, 'slice_scatter', 'strides')
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise OpError("slice_scatter: axes, starts, ends and strides must have the same length")
    index = [slice(None)] * len(x.shape)
    for a, s, e, st in zip(axes, starts, ends, strides):
        index[meta.normalize_axis(a, len(x.shape))] = slice(s, e, st)
    region = strided_slice(x, axes, starts, ends, strides, api='slice_scatter')
    if list(value.shape) != list(region.shape):
        try:
            fits = meta.broadcast_shapes(value.shape, region.shape) == tuple(region.shape)
        except OpError:
            fits = False
        if not fits:
            raise OpError("slice_scatter: value must have the slice's shape %s or broadcast "
                          "to it, got %s" % (list(region.shape), list(value.shape)))
        value = expand(value, list(region.shape))
    return set_items(x, tuple(index), value)


def diagonal_positions(shape, offset, axis1, axis2):
    """Positions of the diagonal ``offset`` in the (axis1, axis2) plane
    flattened row-major (``row * n2 + col``)."""
    n1, n2 = shape[axis1], shape[axis2]
    rows = np.arange(n1)
    rows = rows[(rows + offset >= 0) & (rows + offset < n2)]
    return (rows * n2 + rows + offset).astype(np.int64)


def plane_last(x, axis1, axis2, api):
    """x with the (axis1, axis2) plane moved last and flattened; also the
    other dims and the permutation used."""
    nd = len(x.shape)
    if any(d < 0 for d in x.shape):
        raise OpError("%s: x's shape must be known, got %s" % (api, list(x.shape)))
    others = [d for d in range(nd) if d not in (axis1, axis2)]
    perm = others + [axis1, axis2]
    lead = [x.shape[d] for d in others]
    moved = transpose_op(x, tuple(perm))
    return reshape_op(moved, tuple(lead + [x.shape[axis1] * x.shape[axis2]])), lead, perm


def diagonal_scatter(x, y, offset=0, axis1=0, axis2=1, name=None):
    """``x`` with its diagonal (``offset``, in the plane ``axis1``, ``axis2``)
    replaced by ``y`` (the diagonal's shape: the other dims, then its length)."""
    a1, a2 = (_norm_axis(x, a, 'diagonal_scatter') for a in (axis1, axis2))
    if a1 == a2:
        raise OpError("diagonal_scatter: axis1 and axis2 must differ, got %d and %d"
                      % (axis1, axis2))
    offset = _as_int(offset, 'diagonal_scatter', 'offset')
    flat, lead, perm = plane_last(x, a1, a2, 'diagonal_scatter')
    positions = diagonal_positions(x.shape, offset, a1, a2)
    want = lead + [len(positions)]
    if list(y.shape) != want:
        raise OpError("diagonal_scatter: y must have the diagonal's shape %s, got %s"
                      % (want, list(y.shape)))
    if np.dtype(y.dtype) != np.dtype(x.dtype):
        y = cast(y, x.dtype)
    where = to_tensor(np.ascontiguousarray(np.broadcast_to(positions, want)))
    written = put_along_axis_op(flat, where, y, len(lead), 'assign')
    plane = reshape_op(written, tuple(lead + [x.shape[a1], x.shape[a2]]))
    return transpose_op(plane, tuple(perm.index(d) for d in range(len(x.shape))))


def multiplex(inputs, index, name=None):
    """Row i of the result is row i of ``inputs[index[i]]`` (inputs: tensors
    of one shape [N, ...]; index: [N, 1] integers)."""
    xs = _tensor_list_of(inputs, 'multiplex')
    _check_index_dtype(index, 'multiplex: index')
    n = xs[0].shape[0]
    if len(index.shape) != 2 or index.shape[1] != 1 or (n >= 0 and index.shape[0] not in (n, -1)):
        raise OpError("multiplex: index must have shape [%s, 1], got %s" % (n, list(index.shape)))
    rows = stack(xs, 0)                      # [len(inputs), N, ...]
    pick = reshape_op(cast(index, 'int64'), (1, -1) + (1,) * (len(xs[0].shape) - 1))
    pick = expand(pick, [1] + list(xs[0].shape))
    return reshape_op(take_along_axis_op(rows, pick, 0), tuple(xs[0].shape))


def _tensor_list_of(xs, api):
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError("%s: inputs must be a non-empty list of tensors" % api)
    shape = list(xs[0].shape)
    for i, t in enumerate(xs):
        if list(t.shape) != shape:
            raise OpError("%s: inputs[%d] has shape %s but inputs[0] has %s"
                          % (api, i, list(t.shape), shape))
    return list(xs)


def where_(condition, x=None, y=None, name=None):
    """In-place ``where``: ``x`` becomes ``where(condition, x, y)`` (it must
    already have the broadcast shape) and is returned."""
    if x is None or y is None:
        raise TypeError("where_: x and y must both be given")
    return x._inplace_update(where(condition, x, y))


# ---- shard_index ----------------------------------------------------------------------------

def shard_index(input, index_num, nshards, shard_id, ignore_value=-1):  # noqa: A002
    """Indices of shard ``shard_id`` of ``nshards`` (each ``ceil(index_num /
    nshards)`` long) relative to the shard's start; other indices become
    ``ignore_value``."""
    _check_index_dtype(input, 'shard_index: input')
    index_num, nshards, shard_id = (_as_int(v, 'shard_index', w) for v, w in (
        (index_num, 'index_num'), (nshards, 'nshards'), (shard_id, 'shard_id')))
    if nshards <= 0 or not 0 <= shard_id < nshards:
        raise OpError("shard_index: need nshards > 0 and 0 <= shard_id < nshards, got %d and %d"
                      % (nshards, shard_id))
    size = (index_num + nshards - 1) // nshards
    inside = equal_op(floor_divide_op(input, size), shard_id)
    return where_op(inside, remainder_op(input, size),
                    full_like_op(input, int(ignore_value), None))


__all__ = ['take', 'take_along_dim', 'index_fill', 'index_put', 'index_sample',
           'masked_scatter', 'scatter_reduce', 'scatter_add', 'select_scatter', 'slice_scatter',
           'diagonal_scatter', 'shard_index', 'where_', 'scatter_', 'multiplex']

TENSOR_METHODS = {
    'take': take, 'take_along_dim': take_along_dim, 'take_along_axis': take_along_axis,
    'index_fill': index_fill, 'index_put': index_put, 'index_sample': index_sample,
    'masked_scatter': masked_scatter, 'scatter_reduce': scatter_reduce,
    'scatter_add': scatter_add, 'put_along_axis': put_along_axis, 'scatter': scatter,
    'select_scatter': select_scatter, 'slice_scatter': slice_scatter,
    'diagonal_scatter': diagonal_scatter, 'shard_index': shard_index, 'where_': where_,
    'scatter_': scatter_, 'multiplex': multiplex,
}
INPLACE_METHODS = {
    'index_fill_': 'index_fill', 'index_put_': 'index_put', 'index_add_': 'index_add',
    'masked_scatter_': 'masked_scatter', 'scatter_add_': 'scatter_add',
    'put_along_axis_': 'put_along_axis',
}


# ---- test cases (numpy references written as loops over index positions) --------------------

def _ref_scatter_reduce(x, index, src, axis, reduce, include_self):
    out = np.array(x, dtype=np.float64)
    groups = {}
    for p in np.ndindex(*index.shape):
        t = list(p)
        t[axis] = index[p] % x.shape[axis]
        groups.setdefault(tuple(t), []).append(src[p])
    for t, vals in groups.items():
        own = [x[t]] if include_self else []
        allv = own + vals
        out[t] = {'assign': lambda v: vals[-1], 'add': np.sum, 'mul': np.prod,
                  'mean': np.mean, 'amin': np.min, 'amax': np.max}[reduce](allv)
    return out.astype(x.dtype)


def _ref_winners(index, axis):
    seen, win = set(), np.zeros(index.shape, bool)
    for p in reversed(list(np.ndindex(*index.shape))):
        key = p[:axis] + (index[p],) + p[axis + 1:]
        if key not in seen:
            seen.add(key)
            win[p] = True
    return win


_rng = np.random.default_rng(31)
_x = _rng.standard_normal((3, 4))
_i = np.array([[0, 2, 2], [1, 0, 2]])      # repeats: targets with several contributions
for _red, _inc in [('add', True), ('add', False), ('mean', True), ('mean', False),
                   ('mul', True), ('mul', False), ('amax', True), ('amin', False),
                   ('assign', True)]:
    add_test_case(scatter_reduce_op, _x, _i, _rng.standard_normal((2, 3)), 0, _red, _inc,
                  ref=_ref_scatter_reduce)
add_test_case(scatter_reduce_op, _rng.standard_normal((2, 3, 2)), np.array([[[1], [0]]]),
              _rng.standard_normal((1, 2, 1)), -2, 'amax', True, ref=lambda x, i, s, a, r, n:
              _ref_scatter_reduce(x, i, s, a % 3, r, n))
add_test_case(scatter_reduce_op, _rng.standard_normal(4).astype(np.float32), np.array([3, -1, 0]),
              _rng.standard_normal(3).astype(np.float32), 0, 'add', True,
              ref=_ref_scatter_reduce, grad=False)
add_test_case(scatter_reduce_op, np.array([[1, 2], [3, 4]]), np.array([[1, 1]]),
              np.array([[5, 6]]), 0, 'mean', True,
              ref=lambda x, i, s, a, r, n: np.array([[1, 2], [4, 5]]))
add_test_case(scatter_reduce_op, np.zeros((0, 3)), np.zeros((0, 3), np.int64), np.zeros((0, 3)),
              0, 'add', True, ref=lambda x, i, s, a, r, n: x)
add_test_case(scatter_winners_op, np.array([[0, 2, 2], [0, 0, 2]]), 0, ref=_ref_winners)
add_test_case(scatter_winners_op, np.array([[1, 1, 0]]), 1, ref=_ref_winners)
