"""Tensors kept in the layout a oneDNN primitive chose: ``Blocked`` values.

In a static plan the layout pass (``graph/passes/layout.py``) lets an
activation stay in, say, ``nChw16c`` from the convolution that wrote it to
the next oneDNN op that reads it, instead of a reorder back to NCHW and
another one in. Such a value is a ``Blocked``: a buffer of the layout's size
and its ``Layout``. Layouts are interned per runtime by what oneDNN reports
of them (dims, blocking, strides, padding), so equal layouts are one object
and plan keys can name them.
"""
import ctypes

import numpy as np

from .. import Opaque
from . import constants as C
from .core import DTYPES, Owned, _handle, aligned_bytes, plain_strides

_NP_DTYPES = {v: k for k, v in DTYPES.items()}


class Layout:
    """One memory layout of one logical shape; ``md`` is the runtime's own
    descriptor of it, ``size`` its bytes (padding included)."""
    __slots__ = ('key', 'md', 'size', 'dims', 'dtype')

    def __init__(self, key, md, size, dims, dtype):
        self.key, self.md, self.size, self.dims, self.dtype = key, md, size, dims, dtype

    def empty(self):
        return Blocked(self)

    def __repr__(self):
        return 'Layout(%s)' % (self.key,)


class Blocked(Opaque):
    """An activation in a oneDNN layout (see the module doc). ``strides`` is
    the layout's key: plan keys read it where they read a numpy array's
    strides, so a plan made for one layout never runs on another."""
    __slots__ = ('layout', 'shape', 'dtype', 'strides', 'ptr', '_raw')

    def __init__(self, layout):
        self.layout, self.shape, self.dtype = layout, layout.dims, layout.dtype
        self.strides = layout.key
        self._raw = aligned_bytes(layout.size)
        self.ptr = self._raw.ctypes.data

    def plain(self):
        from . import runtime
        rt = runtime()
        out = np.empty(self.shape, self.dtype)
        key = ('to_plain', self.layout.key, rt.threads())

        def build(plan):
            plan.reorder_into(plan.user(0, self.layout.md), self.layout.md,
                              plan.user(1, rt.desc_of(out)), rt.desc_of(out))
        if not rt.run(key, build, self, out):
            raise RuntimeError('oneDNN cannot reorder %r to a plain layout' % (self.layout,))
        return out

    def __repr__(self):
        return 'Blocked(shape=%s, %s)' % (list(self.shape), self.layout.key[2])


def _query(rt, md, what, ctype):
    out = ctype()
    rt.check(rt.lib.dnnl_memory_desc_query(md, what, ctypes.byref(out)),
             'dnnl_memory_desc_query')
    return out.value


def _query_dims(rt, md, what, n):
    ptr = _query(rt, md, what, ctypes.c_void_p)
    if not ptr or not n:
        return ()
    return tuple(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_int64 * C.MAX_NDIMS)).contents[:n])


def describe(rt, md):
    """What oneDNN reports of descriptor ``md``: (dims, dtype, blocking
    name, strides, inner blocks, their axes, padded dims, padded offsets,
    offset); a descriptor whose layout is not chosen yet (format 'any')
    reports only (dims, dtype, 'any')."""
    h = _handle(md)       # (``md`` itself stays referenced: it may be a temporary)
    nd = _query(rt, h, C.QUERY_NDIMS_S32, ctypes.c_int)
    if _query(rt, h, C.QUERY_FORMAT_KIND, ctypes.c_int) != C.BLOCKED:
        # (its blocking fields are not defined: oneDNN leaves them unset)
        return (_query_dims(rt, h, C.QUERY_DIMS, nd),
                _query(rt, h, C.QUERY_DATA_TYPE, ctypes.c_int), 'any')
    nblks = _query(rt, h, C.QUERY_INNER_NBLKS_S32, ctypes.c_int)
    blks = _query_dims(rt, h, C.QUERY_INNER_BLKS, nblks)
    idxs = _query_dims(rt, h, C.QUERY_INNER_IDXS, nblks)
    name = ''.join('abcdefghijkl'[i] for i in range(nd)) + ''.join(
        '%d%s' % (b, 'abcdefghijkl'[i]) for b, i in zip(blks, idxs))
    return (_query_dims(rt, h, C.QUERY_DIMS, nd), _query(rt, h, C.QUERY_DATA_TYPE, ctypes.c_int),
            name, _query_dims(rt, h, C.QUERY_STRIDES, nd), blks, idxs,
            _query_dims(rt, h, C.QUERY_PADDED_DIMS, nd),
            _query_dims(rt, h, C.QUERY_PADDED_OFFSETS, nd),
            _query(rt, h, C.QUERY_SUBMEMORY_OFFSET_S64, ctypes.c_int64))


def layout_of(rt, md):
    """The interned ``Layout`` of descriptor ``md`` (a primitive's choice),
    or None when it is the plain row-major layout of its dims (the value is
    then an ordinary numpy array)."""
    key = describe(rt, md)
    if key[2] == 'any':
        raise ValueError('layout_of: a descriptor whose layout is not chosen (format any)')
    dims, dtype, _, strides, blks = key[:5]
    if not blks and list(strides) == plain_strides(dims) and not any(key[7]) and not key[8]:
        return None
    table = rt.layouts
    layout = table.get(key)
    if layout is None:
        copy = ctypes.c_void_p()
        rt.check(rt.lib.dnnl_memory_desc_clone(ctypes.byref(copy), _handle(md)),
                 'dnnl_memory_desc_clone')
        owned = Owned(copy, rt.lib.dnnl_memory_desc_destroy)
        layout = table[key] = Layout(key, owned, rt.lib.dnnl_memory_desc_get_size(copy),
                                     tuple(dims), _NP_DTYPES[dtype])
    return layout


def new_output(rt, md, dims):
    """A fresh value for a primitive's output described by ``md``: a
    ``Blocked`` in its layout, or a numpy array when that is plain."""
    layout = layout_of(rt, md)
    if layout is None:
        dtype = _NP_DTYPES[describe(rt, md)[1]]
        return lambda: np.empty(dims, dtype)
    return layout.empty


def keep_output(plan, pd, query, dims):
    """For a plan whose output stays in the primitive's layout: the
    descriptor ``pd`` writes it in (``query``); ``run`` makes each run's
    value of it (logical ``dims``)."""
    md = pd.md(query)
    plan.facts['new_output'] = new_output(plan.rt, md, dims)
    return md


def run(rt, key, build, *arrays, out):
    """``Runtime.run`` returning ``arrays[out]``, which is made fresh in the
    plan's layout when it is None (``keep_output``); None where oneDNN has
    no implementation."""
    plan = rt.plan_for(key, build)
    if plan is None:
        return None
    if arrays[out] is None:
        arrays = list(arrays)
        arrays[out] = plan.facts['new_output']()
    plan.run(*arrays)
    return arrays[out]


def like(x):
    """A fresh value laid out as ``x``: a ``Blocked`` of its layout, or a
    C-contiguous numpy array of its shape and dtype."""
    return Blocked(x.layout) if isinstance(x, Blocked) else np.empty(x.shape, x.dtype)


def to_layout(rt, arr, tag):
    """Numpy array ``arr`` (float32) reordered into oneDNN format ``tag``
    (``constants.ABCD16B``: nChw16c, ...): a ``Blocked``, or a numpy array
    when that format is plain for its shape."""
    target = rt.desc(arr.shape, DTYPES[arr.dtype], tag=tag)
    out = new_output(rt, target, tuple(arr.shape))()
    key = ('to_layout', arr.shape, arr.strides, tag, rt.threads())

    def build(plan):
        src = rt.desc_of(arr)
        plan.reorder_into(plan.user(0, src), src, plan.user(1, target), target)
    if not rt.run(key, build, arr, out):
        raise RuntimeError('oneDNN cannot reorder an array of shape %s into format %d'
                           % (list(arr.shape), tag))
    return out


def takes(*values):
    """Whether oneDNN's kernels may take these values: each None, or a
    non-empty float32 numpy array or ``Blocked``."""
    return all(v is None or (isinstance(v, (np.ndarray, Blocked)) and v.dtype == np.float32
                             and v.size) for v in values)
