"""Python subscripts: ``x[index]`` and ``x[index] = value``, and Paddle's
``slice``/``strided_slice`` built on them.

Kept apart from ``indexing`` (ops that take their indices as tensor arguments:
``scatter_reduce``, ``take``, ``index_put``, ...): this module turns a Python
index (ints, slices, None, ``...``, lists, arrays, tensors) into the
``getitem``/``set_value`` ops, whose attributes describe it, the same in both
modes; ``Tensor.__getitem__``/``__setitem__`` and a static Variable's are
``getitem``/``setitem`` here.

Indices are stored as JSON-able attributes: a list of items ``['int', i]``,
``['slice', start, stop, step]``, ``['none']``, ``['ellipsis']`` and
``['tensor', k]`` (the k-th tensor of the op's variadic ``indices`` input, an
integer or bool array), so a static Program can serialise them. A slice bound
may itself be ``['tensor', k]`` (a static-mode tensor known only at run time).
"""
import builtins

import numpy as np

from . import meta
from .creation import full_like_op, to_tensor
from .grad_utils import is_value, sum_like, ub
from .manipulation import _as_int, _int_list, cast, reshape_op, where_op
from .modes import in_static_mode
from .registry import Meta, OpError, add_test_case, def_op
from .shape_args import shape_arg

_pyslice = builtins.slice   # this module exports a Paddle ``slice``; keep the builtin
_ndarray = np.ndarray
_SCALARS = (bool, int, float, complex)


def _slice_bound(v, tensors):
    """A slice bound: an int, None, or (a static-mode tensor whose value is only
    known at run time) ``['tensor', k]``."""
    if v is None or type(v) is int:
        return v
    if is_value(v) and not _is_eager_array(v):
        if np.dtype(v.dtype).kind not in 'iu':
            raise IndexError("slice bounds must be integer tensors, got dtype %s" % v.dtype)
        tensors.append(v)
        return ['tensor', len(tensors) - 1]
    try:
        return _as_int(v, 'getitem', 'a slice bound')
    except TypeError:
        raise IndexError("slice bounds must be integers, None or integer tensors, got %r"
                         % (v,)) from None


def _slice_item(k, tensors):
    return ['slice', _slice_bound(k.start, tensors), _slice_bound(k.stop, tensors),
            _slice_bound(k.step, tensors)]


def _is_eager_array(k):
    return isinstance(getattr(k, 'data', None), np.ndarray)


def _index_item(k, tensors):
    """One element of a user index -> its JSON-able item (tensors collected)."""
    tk = type(k)
    if tk is int:
        return ['int', k]
    if tk is _pyslice:
        return _slice_item(k, tensors)
    if k is None:
        return ['none']
    if k is Ellipsis:
        return ['ellipsis']
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        return ['int', int(k)]
    if isinstance(k, _pyslice):
        return _slice_item(k, tensors)
    if is_value(k):
        kind = np.dtype(k.dtype).kind
        if kind not in 'iub':
            raise IndexError("tensors used as indices must be integer or bool, got dtype %s"
                             % k.dtype)
        if kind != 'b' and len(k.shape) == 0 and _is_eager_array(k):
            return ['int', int(k.data)]
        tensors.append(k)
        return ['tensor', len(tensors) - 1]
    if isinstance(k, (list, tuple, range, np.ndarray, bool, np.bool_)):
        arr = np.asarray(k if isinstance(k, np.ndarray) else _plain(k))
        if arr.size == 0 and arr.dtype.kind not in 'iub':
            arr = arr.astype(np.int64)
        if arr.dtype.kind not in 'iub':
            raise IndexError("array indices must be integers or bools, got dtype %s" % arr.dtype)
        if arr.ndim == 0 and arr.dtype.kind != 'b':
            return ['int', int(arr)]
        tensors.append(to_tensor(arr) if in_static_mode() else arr)
        return ['tensor', len(tensors) - 1]
    raise IndexError("unsupported index %r (type %s): use ints, slices, None, ..., integer "
                     "or bool tensors, or lists of ints/bools" % (k, type(k).__name__))


def _plain(k):
    """Nested lists that may hold tensors -> nested lists of numbers."""
    if isinstance(k, (list, tuple, range)):
        return [_plain(v) for v in k]
    return np.asarray(getattr(k, 'data', k)) if is_value(k) else k


def _parse_index(index):
    """A user index -> (items, index tensors) for the getitem/set_value ops."""
    if not isinstance(index, tuple):
        index = (index,)
    tensors = []
    items = [_index_item(k, tensors) for k in index]
    return items, tensors


_ITEM_SIZES = {'int': 2, 'slice': 4, 'tensor': 2, 'none': 1, 'ellipsis': 1}


def _is_index_ref(v, n):
    return type(v) is int and 0 <= v < n


def _valid_item(it, n):
    if not isinstance(it, (list, tuple)) or not it or it[0] not in _ITEM_SIZES \
            or len(it) != _ITEM_SIZES[it[0]]:
        return False
    if it[0] == 'int':
        return type(it[1]) is int
    if it[0] == 'tensor':
        return _is_index_ref(it[1], n)
    if it[0] == 'slice':
        return all(b is None or type(b) is int or (
            isinstance(b, (list, tuple)) and len(b) == 2 and b[0] == 'tensor'
            and _is_index_ref(b[1], n)) for b in it[1:])
    return True


def check_index_items(items, inputs):
    """The attribute type of ``items`` (getitem, set_value): the encoding in
    the module doc, tensor references within the op's ``indices``."""
    n = inputs.get('indices', 0)
    if not isinstance(items, (list, tuple)):
        raise OpError("index items must be a list, got %r" % (items,))
    for it in items:
        if not _valid_item(it, n):
            raise OpError("invalid index item %r: items are ['int', i], ['slice', start, stop, "
                          "step], ['none'], ['ellipsis'] or ['tensor', k] with k < %d" % (it, n))


_ITEM_TYPES = {'items': check_index_items}


def _np_index(items, arrays):
    out = []
    for it in items:
        kind = it[0]
        if kind == 'slice':
            b = it[1:]
            if not all(v is None or type(v) is int for v in b):
                # ['tensor', k] bounds (the program may store them as tuples)
                b = [int(np.asarray(arrays[v[1]]).reshape(()))
                     if isinstance(v, (list, tuple)) else v for v in b]
            out.append(_pyslice(*b))
        elif kind == 'int':
            out.append(it[1])
        elif kind == 'tensor':
            out.append(arrays[it[1]])
        elif kind == 'none':
            out.append(None)
        else:
            out.append(Ellipsis)
    return tuple(out)


def _has_advanced(items):
    return any(it[0] == 'tensor' for it in items)


def _slice_len(n, start, stop, step):
    if step == 0:
        raise OpError("slice step cannot be zero")
    if n < 0 or any(isinstance(v, (list, tuple)) for v in (start, stop, step)):
        return -1
    return len(range(*_pyslice(start, stop, step).indices(n)))


def _expand_ellipsis(items, ndim, idx_metas):
    def consumed(it):
        if it[0] in ('int', 'slice'):
            return 1
        if it[0] == 'tensor':
            m = idx_metas[it[1]]
            return len(meta.shape_of(m)) if np.dtype(meta.dtype_of(m)) == np.bool_ else 1
        return 0
    used = sum(consumed(it) for it in items)
    if used > ndim:
        raise OpError("too many indices for a tensor with %d dims: the index addresses %d"
                      % (ndim, used))
    n_ell = sum(1 for it in items if it[0] == 'ellipsis')
    if n_ell > 1:
        raise OpError("an index can have only one ellipsis ('...')")
    full = ['slice', None, None, None]
    out = []
    for it in items:
        if it[0] == 'ellipsis':
            out.extend([full] * (ndim - used))
        else:
            out.append(it)
    if not n_ell:
        out.extend([full] * (ndim - used))
    return out


def _index_shape(shape, items, idx_metas):
    """The shape of ``x[index]`` (numpy rules), -1 where unknown."""
    shape = tuple(shape)
    items = _expand_ellipsis(items, len(shape), idx_metas)
    adv = _has_advanced(items)
    ADV = object()
    out, adv_shapes = [], []
    axis = 0
    for it in items:
        kind = it[0]
        if kind == 'none':
            out.append(1)
        elif kind == 'slice':
            out.append(_slice_len(shape[axis], it[1], it[2], it[3]))
            axis += 1
        elif kind == 'int':
            n = shape[axis]
            if n >= 0 and not -n <= it[1] < n:
                raise OpError("index %d is out of range for axis %d with size %d"
                              % (it[1], axis, n))
            if adv:   # an int next to array indices takes part in their broadcast
                adv_shapes.append(())
                out.append(ADV)
            axis += 1
        else:
            m = idx_metas[it[1]]
            ms = meta.shape_of(m)
            if np.dtype(meta.dtype_of(m)) == np.bool_:
                for j, d in enumerate(ms):
                    n = shape[axis + j]
                    if d >= 0 and n >= 0 and d != n:
                        raise OpError("boolean mask of shape %s does not match the indexed "
                                      "tensor's shape %s at axis %d (size %d vs %d)"
                                      % (list(ms), list(shape), axis + j, d, n))
                adv_shapes.append((-1,))
                axis += len(ms)
            else:
                adv_shapes.append(ms)
                axis += 1
            out.append(ADV)
    if not adv_shapes:
        return tuple(out)
    bshape = ()
    for s in adv_shapes:
        bshape = meta.broadcast_shapes(bshape, s, 'index arrays')
    pos = [i for i, v in enumerate(out) if v is ADV]
    rest = [v for v in out if v is not ADV]
    if pos == list(range(pos[0], pos[0] + len(pos))):   # adjacent: stay in place
        return tuple(rest[:pos[0]]) + bshape + tuple(rest[pos[0]:])
    return bshape + tuple(rest)


def _getitem_meta(x, indices, items):
    return Meta(_index_shape(meta.shape_of(x), items, indices), meta.dtype_of(x))


@def_op('getitem', _getitem_meta, inputs=('x', 'indices*'), attrs={'items': ()},
        no_grad_inputs=('indices',), save_inputs=False, attr_types=_ITEM_TYPES,
        pattern='view', passthrough=None)
def getitem_op(x, indices, items=()):
    """``x[index]`` with numpy semantics; ``items`` encode the index."""
    return x[_np_index(items, indices)]


_INT64_MAX, _INT64_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


@getitem_op.def_onnx
def _getitem_onnx(g, x, indices, items):
    """Basic indexing is one Slice (its bounds may be tensors) and a Squeeze of
    the int-indexed axes; one integer tensor index is a Gather, one boolean
    mask over the leading axes a GatherND of its NonZero positions; None
    items are an Unsqueeze."""
    metas = [g.meta(i) for i in indices]
    items = _expand_ellipsis(items, len(g.meta(x).shape), metas)
    tensors = [it[1] for it in items if it[0] == 'tensor']
    if len(tensors) > 1 or (tensors and metas[tensors[0]].dtype == np.bool_):
        return _onnx_advanced_index(g, x, indices, items)
    bounds, drop, gather = [], [], None
    axis = 0
    for it in items:
        kind = it[0]
        if kind == 'slice':
            if not all(b is None for b in it[1:]) and list(it[1:]) != [None, None, 1]:
                bounds.append((axis,) + _onnx_slice_bounds(g, it[1], it[2], it[3], indices))
            axis += 1
        elif kind == 'int':
            i = it[1]
            bounds.append((axis, g.ints([i]), g.ints([i + 1 if i != -1 else _INT64_MAX]),
                           g.ints([1])))
            drop.append(axis)
            axis += 1
        elif kind == 'tensor':
            gather = (axis, indices[it[1]])
            axis += 1
    out = _onnx_slices(g, x, bounds)
    width = 0       # the dims the tensor index gives the result
    if gather is not None:
        at, index = gather
        out = g.op('Gather', out, index, axis=at)
        width = len(g.meta(index).shape)
        drop = [a + width - 1 if a > at else a for a in drop]
    if drop:
        out = g.op('Squeeze', out, g.ints(drop))
    moved = gather is not None and _onnx_advanced_moves(items)
    if moved:     # numpy puts the dims of a split advanced group first
        at = gather[0] - sum(1 for a in drop if a < gather[0])
        out = _onnx_move_first(g, out, at, width, axis - len(drop) - 1 + width)
    return _onnx_new_axes(g, out, items, width, moved, x)


@getitem_op.def_lean
def _getitem_lean(call):
    """An index of constants only (ints, constant slices, None, ...): built once."""
    x, indices = call.ins
    items = call.attrs.get('items', ())
    if indices or any(it[0] == 'tensor' or (it[0] == 'slice' and not all(
            b is None or type(b) is int for b in it[1:])) for it in items):
        return None
    return call.Lean('%s[%s]' % (x, call.const(_np_index(items, []), 'index')))


def _onnx_slices(g, x, bounds):
    """One Slice node for all (axis, starts, ends, steps) ``bounds``."""
    if not bounds:
        return x
    cat = lambda k: g.op('Concat', *[b[k] for b in bounds], axis=0)  # noqa: E731
    return g.op('Slice', x, cat(1), cat(2), g.ints([b[0] for b in bounds]), cat(3))


def _onnx_move_first(g, x, at, width, rank):
    """``x`` with its dims ``at .. at + width - 1`` moved in front."""
    lead = list(range(at, at + width))
    return g.op('Transpose', x, perm=lead + [d for d in range(rank) if d not in lead])


def _onnx_new_axes(g, out, items, width, moved, x):
    """Unsqueeze for the None items: each is an axis of the result, counted
    after the advanced dims when they moved in front, else in index order."""
    new_axes, pos, seen_adv = [], width if moved else 0, False
    for it in items:
        if it[0] == 'none':
            new_axes.append(pos)
            pos += 1
        elif it[0] == 'slice':
            pos += 1
        elif not moved and not seen_adv and (it[0] == 'tensor' or (width and it[0] == 'int')):
            pos += width       # the advanced group's dims stand where it starts
            seen_adv = True
    if new_axes:
        out = g.op('Unsqueeze', out, g.ints(new_axes))
    return out if out != x else g.op('Identity', x)


def _onnx_advanced_index(g, x, indices, items):
    """Several tensor indices (or a boolean mask): the indexed axes move in
    front, the ints and index arrays (a mask: its NonZero rows) broadcast to
    one shape and stack into a GatherND index, and the result's dims go back
    where numpy puts them."""
    bounds, adv_axes, adv_index = [], [], []
    axis = 0
    for it in items:
        if it[0] == 'slice':
            if not all(b is None for b in it[1:]) and list(it[1:]) != [None, None, 1]:
                bounds.append((axis,) + _onnx_slice_bounds(g, it[1], it[2], it[3], indices))
            axis += 1
        elif it[0] == 'int':
            adv_axes.append(axis)
            adv_index.append(g.const(np.asarray(it[1], np.int64), hint='index'))
            axis += 1
        elif it[0] == 'tensor':
            index = indices[it[1]]
            m = g.meta(index)
            if m.dtype == np.bool_:
                rows = g.op('NonZero', index)
                parts = ([g.op('Squeeze', r, g.ints([0])) for r in
                          g.op('Split', rows, g.ints([1] * len(m.shape)), axis=0,
                               outputs=len(m.shape))] if len(m.shape) > 1
                         else [g.op('Squeeze', rows, g.ints([0]))])
                adv_axes += list(range(axis, axis + len(m.shape)))
                adv_index += parts
                axis += len(m.shape)
            else:
                adv_axes.append(axis)
                adv_index.append(g.op('Cast', index, to=g.tensor_type(np.int64)))
                axis += 1
    width = max(len(g.meta(i).shape) if g.meta(i).dtype != np.bool_ else 1
                for i in (indices[it[1]] for it in items if it[0] == 'tensor'))
    out = _onnx_slices(g, x, bounds)
    rest = [a for a in range(axis) if a not in adv_axes]
    if adv_axes != list(range(len(adv_axes))):
        out = g.op('Transpose', out, perm=adv_axes + rest)
    # broadcast the index arrays against each other (adding zeros of every one's shape)
    zero = adv_index[0]
    for i in adv_index[1:]:
        zero = g.op('Add', zero, i)
    zero = g.op('Mul', zero, g.const(np.asarray(0, np.int64), hint='zero'))
    stacked = g.op('Concat', *[g.op('Unsqueeze', g.op('Add', i, zero), g.ints([-1]))
                               for i in adv_index], axis=-1)
    out = g.op('GatherND', out, stacked)
    moved = _onnx_advanced_moves(items)
    if not moved and adv_axes[0] > 0:    # the result's dims stand where the group starts
        rank = width + len(rest)
        lead = list(range(width))
        perm = list(range(width, width + adv_axes[0])) + lead + \
            list(range(width + adv_axes[0], rank))
        out = g.op('Transpose', out, perm=perm)
    return _onnx_new_axes(g, out, items, width, moved, x)


def _onnx_advanced_moves(items):
    """A tensor index keeps its place unless a slice or None separates it from
    an int index (ints join its broadcast): then numpy moves its dims first."""
    group = [k for k, it in enumerate(items) if it[0] in ('tensor', 'int')]
    return group != list(range(group[0], group[-1] + 1))


def _onnx_slice_bounds(g, start, stop, step, indices):
    """(starts, ends, steps) 1-element int64 values of one slice item."""
    if isinstance(step, (list, tuple)) and (start is None or stop is None):
        raise OpError("getitem export: a slice with a tensor step needs explicit bounds")
    up = step is None or isinstance(step, (list, tuple)) or step > 0
    defaults = (0, _INT64_MAX) if up else (_INT64_MAX, _INT64_MIN)

    def bound(v, default):
        if v is None:
            return g.ints([default])
        if isinstance(v, (list, tuple)):     # ['tensor', k]: known when the program runs
            t = g.op('Cast', indices[v[1]], to=g.tensor_type(np.int64))
            return g.op('Reshape', t, g.ints([1]))
        return g.ints([v])
    return bound(start, defaults[0]), bound(stop, defaults[1]), bound(step, 1)


def _getitem_grad_meta(g, x, indices, items):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


def _scatter_index_add(shape, g, items, indices):
    z = np.zeros(shape, g.dtype)
    idx = _np_index(items, indices)
    if _has_advanced(items):
        np.add.at(z, idx, g)    # repeated indices accumulate
    else:
        z[idx] = g
    return z


@def_op('getitem_grad', _getitem_grad_meta, inputs=('g', 'x', 'indices*'),
        attrs={'items': ()}, no_grad_inputs=('x', 'indices'), save_inputs=False,
        attr_types=_ITEM_TYPES, pattern='opaque')
def getitem_grad_op(g, x, indices, items=()):
    """Zeros of x's shape with g added at ``x[index]`` (the grad of getitem)."""
    return _scatter_index_add(np.shape(x), g, items, indices)


@getitem_grad_op.def_grad
def _getitem_grad_grad(gg, g, x, indices, out, items):
    return getitem_op(gg, indices, items), None, None


@getitem_op.def_grad
def _getitem_grad(g, x, indices, out, items):
    return getitem_grad_op(g, x, indices, items), None


@getitem_op.def_fast_grad
def _getitem_fast(g, x, indices, out, items):
    return _scatter_index_add(np.shape(x), g, items, indices), None


def _set_value_meta(x, value, indices, items):
    region = _index_shape(meta.shape_of(x), items, indices)
    vs = list(meta.shape_of(value))
    while len(vs) > len(region) and vs[0] == 1:
        vs.pop(0)
    try:
        ok = meta.broadcast_shapes(vs, region) == tuple(region)
    except OpError:
        ok = False
    if not ok and -1 not in region:
        raise OpError("value of shape %s cannot be broadcast to the indexed region of shape %s"
                      % (list(meta.shape_of(value)), list(region)))
    return meta.unchanged(x)


@def_op('set_value', _set_value_meta, inputs=('x', 'value', 'indices*'), attrs={'items': ()},
        no_grad_inputs=('indices',), save_inputs=False, attr_types=_ITEM_TYPES,
        pattern='opaque', amp='never')
def set_value_op(x, value, indices, items=()):
    """A copy of x with ``x[index] = value`` (value broadcast to the region)."""
    out = np.array(x, copy=True)
    out[_np_index(items, indices)] = value
    return out


@set_value_op.def_onnx
def _set_value_onnx(g, x, value, indices, items):
    """The flat positions of the region are ``getitem`` of an iota of x's
    shape (any index getitem exports); the value, broadcast to the region,
    scatters there into the flattened x."""
    m = g.meta(x)
    shape = g.op('Shape', x)
    flat_ids = g.op('Range', g.const(np.asarray(0, np.int64), hint='zero'), g.op('Size', x),
                    g.const(np.asarray(1, np.int64), hint='one'))
    ids = g.op('Reshape', flat_ids, shape)
    g.set_meta(ids, Meta(m.shape, np.int64))
    region = _getitem_onnx(g, ids, indices, items)
    value = g.cast(value, m.dtype)
    vm = g.meta(value)
    rank = len(_index_shape(m.shape, items, [g.meta(i) for i in indices]))
    if len(vm.shape) > rank:           # numpy drops a value's extra leading 1-dims
        value = g.op('Reshape', value, g.ints(vm.shape[len(vm.shape) - rank:]))
    updates = g.op('Expand', value, g.op('Shape', region))
    flat = lambda v: g.op('Reshape', v, g.ints([-1]))  # noqa: E731
    out = g.op('ScatterElements', flat(x), flat(region), flat(updates), axis=0)
    return g.op('Reshape', out, shape)


def _may_repeat(items, indices):
    """An integer-array index can name one position twice (x[[1, 1]] = v)."""
    return any(it[0] == 'tensor' and np.dtype(indices[it[1]].dtype).kind != 'b' for it in items)


def _written_mask(shape, idx):
    """Over the region ``x[idx]``: True for the elements whose write lands
    (of repeated positions only one, the same one numpy's assignment keeps)."""
    region = np.shape(np.empty(shape, np.bool_)[idx])
    ids = np.arange(int(np.prod(region)), dtype=np.int64).reshape(region)
    owner = np.full(shape, -1, np.int64)
    owner[idx] = ids
    mask = np.zeros(ids.size, np.bool_)
    mask[owner[owner >= 0]] = True
    return mask.reshape(region)


def _written_meta(x, indices, items):
    return Meta(_index_shape(meta.shape_of(x), items, indices), np.bool_)


@def_op('set_value_written', _written_meta, inputs=('x', 'indices*'), attrs={'items': ()},
        differentiable=False, save_inputs=False, attr_types=_ITEM_TYPES,
        pattern='opaque', amp='never')
def set_value_written_op(x, indices, items=()):
    """The mask of ``x[index]`` whose elements ``x[index] = value`` really
    writes: a position named twice by an integer-array index takes one write."""
    return _written_mask(np.shape(x), _np_index(items, indices))


@set_value_op.def_grad
def _set_value_grad(g, x, value, indices, out, items):
    gx = set_value_op(g, 0.0, indices, items)
    if not is_value(value):
        return gx, None, None
    gr = getitem_op(g, indices, items)
    if _may_repeat(items, indices):     # an overwritten write gets no gradient
        gr = where_op(set_value_written_op(x, indices, items), gr, full_like_op(gr, 0.0))
    return gx, sum_like(gr, value), None


@set_value_op.def_fast_grad
def _set_value_fast(g, x, value, indices, out, items):
    idx = _np_index(items, indices)
    gv = None
    if type(value) is _ndarray:
        gr = np.asarray(g[idx])
        if _may_repeat(items, indices):
            gr = np.where(_written_mask(np.shape(x), idx), gr, 0)
        gv = ub(gr, value)
    gx = g.copy()
    gx[idx] = 0
    return gx, gv, None


def getitem(x, index):
    """``x[index]``: ints, slices (any step), None, ..., integer/bool tensors,
    lists and numpy arrays, with numpy's rules. Differentiable."""
    items, tensors = _parse_index(index)
    return getitem_op(x, tensors, items)


def _setitem_value(x, value, items, tensors):
    """Normalise the assigned value; drop leading size-1 dims numpy would ignore."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, _SCALARS):
        return value
    if not is_value(value):
        value = np.asarray(_plain(value))
        if value.dtype.kind in 'OUS':
            raise TypeError("setitem: cannot assign a value of type %s" % type(value).__name__)
    vs = tuple(value.shape)
    region = _index_shape(tuple(x.shape), items, tensors)
    extra = len(vs) - len(region)
    if extra > 0 and all(d == 1 for d in vs[:extra]):
        value = reshape_op(value, vs[extra:]) if is_value(value) else value.reshape(vs[extra:])
    if not is_value(value) and in_static_mode():
        value = to_tensor(value)
    if is_value(value) and np.dtype(value.dtype) != np.dtype(x.dtype):
        value = cast(value, x.dtype)    # x keeps its dtype; value's gradient comes back cast
    return value


def set_items(x, index, value):
    """The value ``x`` has after ``x[index] = value``, as a new tensor (x is
    not changed)."""
    items, tensors = _parse_index(index)
    value = _setitem_value(x, value, items, tensors)
    return set_value_op(x, value, tensors, items)


def setitem(x, index, value):
    """``x[index] = value`` in place; ``value`` (number, array or tensor) is
    broadcast to the indexed region and cast to x's dtype. Gradients flow to
    x (outside the region) and to value."""
    x._inplace_update(set_items(x, index, value))


def _slice_items(ndim, axes, starts, ends, strides, api):
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise OpError("%s: axes, starts, ends (and strides) must have the same length, got "
                      "%d, %d, %d, %d" % (api, len(axes), len(starts), len(ends), len(strides)))
    items = [['slice', None, None, None] for _ in range(ndim)]
    for a, s, e, st in zip(axes, starts, ends, strides):
        a = meta.normalize_axis(a, ndim)
        if st == 0:
            raise OpError("%s: strides cannot be 0" % api)
        items[a] = ['slice', s, e, st]
    return items


def _bound_items(values, api, what, tensors):
    """Slice bounds: ints, or ``['tensor', k]`` for entries known only at run time
    (their tensors are appended to ``tensors``)."""
    ints, tensor = shape_arg(values, api, what)
    if tensor is None:
        return ints
    out = []
    for k, v in enumerate(ints):
        if v == -1:
            tensors.append(tensor[k])
            out.append(['tensor', len(tensors) - 1])
        else:
            out.append(v)
    return out


def _slice_api(input, axes, starts, ends):  # noqa: A002
    """Paddle's ``slice``: ``input[starts[i]:ends[i]]`` along each ``axes[i]``
    (starts/ends may be tensors)."""
    return strided_slice(input, axes, starts, ends, [1] * len(_int_list(axes, 'slice', 'axes')),
                         api='slice')


def strided_slice(x, axes, starts, ends, strides, name=None, api='strided_slice'):
    """``x[starts[i]:ends[i]:strides[i]]`` along each ``axes[i]``."""
    axes = _int_list(axes, api, 'axes')
    strides = _int_list(strides, api, 'strides')
    tensors = []
    starts = _bound_items(starts, api, 'starts', tensors)
    ends = _bound_items(ends, api, 'ends', tensors)
    return getitem_op(x, tensors, _slice_items(len(x.shape), axes, starts, ends, strides, api))


slice = _slice_api   # noqa: A001  (Paddle's name; the module uses _pyslice internally)

__all__ = ['slice', 'strided_slice', 'getitem', 'setitem']


# ---- test cases (independent numpy references) ------------------------------------

def _ref_getitem_grad(g, x, indices, items):
    """Add g elementwise at the positions a one-hot probe picks out of x."""
    z = np.zeros(x.shape)
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = 1.0
        picked = e.reshape(x.shape)[_np_index(items, indices)]
        z.reshape(-1)[k] = np.sum(np.asarray(picked) * g)
    return z


_rng = np.random.default_rng(5)
_r = _rng.standard_normal
_S = ['slice', None, None, None]
_cond = _r((3, 4)) > 0
# getitem: basic, negative steps, None/Ellipsis, int arrays (repeated), bool masks
_x34 = _r((3, 4))
add_test_case(getitem_op, _x34, [], [['int', -1]], ref=lambda x, i, it: x[2])
add_test_case(getitem_op, _r((3, 4, 2)), [], [_S, ['slice', 3, 0, -2], ['none'], ['int', 1]],
              ref=lambda x, i, it: x[:, 3:0:-2, None, 1])
add_test_case(getitem_op, _r((2, 3, 4)), [], [['ellipsis'], ['slice', None, None, -1]],
              ref=lambda x, i, it: np.flip(x, -1))
add_test_case(getitem_op, _r((4, 3)), [np.array([0, 3, 0])],
              [['tensor', 0], ['slice', 1, None, None]],
              ref=lambda x, i, it: np.array([x[0, 1:], x[3, 1:], x[0, 1:]]))
add_test_case(getitem_op, _r((3, 4, 2)), [np.array([0, 2]), np.array([[1], [3]])],
              [['tensor', 0], ['tensor', 1]],
              ref=lambda x, i, it: np.array([[x[0, 1], x[2, 1]], [x[0, 3], x[2, 3]]]))
add_test_case(getitem_op, _r((3, 4, 2)), [np.array([1, 0])], [['int', 1], _S, ['tensor', 0]],
              ref=lambda x, i, it: np.array([x[1, :, 1], x[1, :, 0]]))
add_test_case(getitem_op, _r((3, 4)), [_cond[:, 0]], [['tensor', 0]],
              ref=lambda x, i, it: np.array([x[k] for k in range(3) if i[0][k]]).reshape(-1, 4))
add_test_case(getitem_op, _x34, [_cond], [['tensor', 0]],
              ref=lambda x, i, it: np.array([x[a, b] for a in range(3) for b in range(4)
                                             if i[0][a, b]]))
# a slice bound held by a tensor (static mode: known only at run time)
add_test_case(getitem_op, _r((4, 3)), [np.array(3), np.array(-1)],
              [['slice', ['tensor', 1], ['tensor', 0], None], ['int', 1]],
              ref=lambda x, i, it: x[-1:3, 1])
add_test_case(getitem_op, _r((5, 2)), [np.array(4)], [['slice', ['tensor', 0], None, -2]],
              ref=lambda x, i, it: x[[4, 2, 0]])
add_test_case(getitem_grad_op, _r((2, 2)), np.zeros((3, 4)), [np.array([2, 2])],
              [['tensor', 0], ['slice', 1, 4, 2]], ref=_ref_getitem_grad)
add_test_case(getitem_grad_op, _r((2, 1, 4)), np.zeros((3, 4)), [],
              [['slice', None, None, -2], ['none']], ref=_ref_getitem_grad)


def _ref_set_value(x, value, indices, items):
    out = x.copy()
    region = np.zeros(x.shape, bool)
    marks = np.arange(x.size).reshape(x.shape)[_np_index(items, indices)]
    region.reshape(-1)[np.asarray(marks).ravel()] = True
    vals = np.broadcast_to(value, np.shape(marks))
    for m, v in zip(np.asarray(marks).ravel(), np.asarray(vals).ravel()):
        out.reshape(-1)[m] = v
    return out


add_test_case(set_value_op, _r((3, 4)), _r(4), [], [['int', 1]], ref=_ref_set_value)
add_test_case(set_value_op, _r((3, 4)), 5.0, [], [_S, ['slice', None, None, -2]],
              ref=_ref_set_value)
add_test_case(set_value_op, _r((3, 4)), _r((2, 1)), [np.array([2, 0])],
              [['tensor', 0], ['slice', 1, 3, None]], ref=_ref_set_value)
add_test_case(set_value_op, _r((3, 4)), np.float64(0.5), [_cond], [['tensor', 0]],
              ref=_ref_set_value)
# a repeated position: one write lands, the other value gets no gradient
add_test_case(set_value_op, _r((3, 4)), _r((3, 4)), [np.array([1, 0, 1])], [['tensor', 0]],
              ref=_ref_set_value)
add_test_case(set_value_op, _r((2, 3)), _r((1, 2)), [np.array([[0, 0]])],
              [['slice', None, None, None], ['tensor', 0]], ref=_ref_set_value)
add_test_case(set_value_op, _r((2, 3)).astype(np.float32), _r((1, 2)).astype(np.float32),
              [np.array([[0, 2]])], [_S, ['tensor', 0]], ref=_ref_set_value, grad=False)


def _ref_written(x, indices, items):
    marks = np.arange(x.size).reshape(x.shape)[_np_index(items, indices)]
    seen = {}
    for k, m in enumerate(np.asarray(marks).ravel()):
        seen[m] = k                      # the last write to a position lands
    mask = np.zeros(np.size(marks), bool)
    mask[list(seen.values())] = True
    return mask.reshape(np.shape(marks))


add_test_case(set_value_written_op, _r((3, 4)), [np.array([1, 0, 1])], [['tensor', 0]],
              ref=_ref_written)
add_test_case(set_value_written_op, _r((2, 3)).astype(np.float32), [np.array([[2, 2], [0, 2]])],
              [['int', -1], ['tensor', 0]], ref=_ref_written)
add_test_case(set_value_written_op, _r((4,)), [_r((4,)) > 0], [['tensor', 0]], ref=_ref_written)
add_test_case(set_value_written_op, _r((0, 3)), [np.zeros(0, np.int64)],
              [['slice', None, None, None], ['tensor', 0]], ref=_ref_written)
add_test_case(set_value_written_op, _r(()), [], [['none']], ref=_ref_written)
