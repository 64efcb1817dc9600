"""Pooling ops: max / average / adaptive, 1-D, 2-D and 3-D, channels first or last.

Kernels loop over the kernel window's taps (each tap a strided view of the
padded input covering every output pixel), never over output pixels.

Gradients stay differentiable to any order:

* ``max_pool`` also outputs the argmax ``mask`` (flat ``h*W + w`` index into
  each unpadded input plane; a non-differentiable output). Its grad is
  ``pool_scatter`` (linear in g: adds g at the mask positions), whose grad is
  ``pool_gather`` (reads at the mask positions), whose grad is ``pool_scatter``.
* ``avg_pool`` is linear: its grad ``avg_pool_grad`` is its adjoint, and the
  adjoint's grad is ``avg_pool`` again. Same for the adaptive average pair.

Shape-only inputs (``target``) give the grad ops their output shape without an
attribute, so unknown batch sizes in static mode are fine.
"""
import itertools

import numpy as np

from ... import random as _random
from ...backends import Opaque, onednn
from ...backends.onednn import layout as dnnl_layout
from ...backends.onednn import pool as dnnl_pool
from .. import lib, meta
from ..lowp import float32_compute
from ..properties import per_sample
from ..registry import Meta, OpError, add_test_case, def_op
from . import params as P
from . import reference as ref

# ---- geometry ---------------------------------------------------------------


def pool_out_size(size, k, s, p0, p1, ceil_mode):
    if size < 0:
        return -1
    num = size + p0 + p1 - k
    return (num + s - 1) // s + 1 if ceil_mode else num // s + 1


class _Pool:
    """Sizes of one pooling call on an NCHW view."""
    __slots__ = ('h', 'w', 'kh', 'kw', 'sh', 'sw', 'pt', 'pb', 'pl', 'pr', 'oh', 'ow',
                 'hp', 'wp')

    def __init__(self, hw, ksize, stride, padding, ceil_mode):
        self.h, self.w = hw
        self.kh, self.kw = P.hw2(ksize, 1)
        self.sh, self.sw = P.hw2(stride, 1)
        self.pt, self.pb, self.pl, self.pr = P.pad4(padding)
        self.oh = pool_out_size(self.h, self.kh, self.sh, self.pt, self.pb, ceil_mode)
        self.ow = pool_out_size(self.w, self.kw, self.sw, self.pl, self.pr, ceil_mode)
        if self.oh <= 0 or self.ow <= 0:
            raise OpError("pool: the output would be empty: input spatial size %s, kernel %s, "
                          "stride %s, padding %s" % ([self.h, self.w], [self.kh, self.kw],
                                                     [self.sh, self.sw], list(padding)))
        # ceil_mode windows may run past the bottom/right padding
        self.hp = max(self.h + self.pt + self.pb, (self.oh - 1) * self.sh + self.kh)
        self.wp = max(self.w + self.pl + self.pr, (self.ow - 1) * self.sw + self.kw)

    def taps(self):
        for i in range(self.kh):
            for j in range(self.kw):
                yield i, j

    def tap(self, xp, i, j):
        return xp[..., i:i + self.sh * (self.oh - 1) + 1:self.sh,
                  j:j + self.sw * (self.ow - 1) + 1:self.sw]

    def padded(self, x4, fill):
        if (self.hp, self.wp) == (self.h, self.w):
            return x4
        xp = np.full(x4.shape[:2] + (self.hp, self.wp), fill, x4.dtype)
        xp[:, :, self.pt:self.pt + self.h, self.pl:self.pl + self.w] = x4
        return xp

    def counts(self, include_pad=False):
        """Number of input pixels in every window, ``[OH, OW]``: the real ones, or
        with ``include_pad`` the ones inside the padded input (a ceil_mode window
        running past the padding counts only its part inside)."""
        return _window_counts(self.oh, self.sh, self.kh, self.pt, self.pb, self.h,
                              include_pad)[:, None] * \
            _window_counts(self.ow, self.sw, self.kw, self.pl, self.pr, self.w,
                           include_pad)[None, :]


def _window_counts(o, s, k, p0, p1, n, include_pad):
    start = np.arange(o) * s - p0
    if include_pad:
        return np.minimum(start + k, n + p1) - start
    return np.clip(np.minimum(start + k, n) - np.maximum(start, 0), 0, None)


class _PoolND:
    """Sizes of one pooling call on ``[N, C, *spatial]`` with any number of
    spatial dims (3-D pools; the 2-D ones use ``_Pool`` and its fast paths)."""

    def __init__(self, sizes, ksize, stride, padding, ceil_mode):
        self.sizes, self.k, self.s = tuple(sizes), tuple(ksize), tuple(stride)
        self.p0, self.p1 = tuple(padding[0::2]), tuple(padding[1::2])
        self.out = tuple(pool_out_size(n, k, st, a, b, ceil_mode) for n, k, st, a, b in
                         zip(self.sizes, self.k, self.s, self.p0, self.p1))
        if any(o <= 0 for o in self.out):
            raise OpError("pool: the output would be empty: input spatial size %s, kernel %s, "
                          "stride %s, padding %s" % (list(sizes), list(ksize), list(stride),
                                                     list(padding)))
        self.padded_sizes = tuple(max(n + a + b, (o - 1) * st + k) for n, k, st, a, b, o in
                                  zip(self.sizes, self.k, self.s, self.p0, self.p1, self.out))

    def taps(self):
        return itertools.product(*[range(k) for k in self.k])

    def tap(self, xp, t):
        return xp[(Ellipsis,) + tuple(slice(i, i + st * (o - 1) + 1, st)
                                      for i, st, o in zip(t, self.s, self.out))]

    def interior(self):
        return (Ellipsis,) + tuple(slice(a, a + n) for a, n in zip(self.p0, self.sizes))

    def padded(self, x, fill):
        if self.padded_sizes == self.sizes:
            return x
        xp = np.full(x.shape[:2] + self.padded_sizes, fill, x.dtype)
        xp[self.interior()] = x
        return xp

    def counts(self, include_pad=False):
        """``_Pool.counts`` for every spatial dim."""
        total = np.ones((), np.int64)
        for o, st, k, a, b, n in zip(self.out, self.s, self.k, self.p0, self.p1, self.sizes):
            total = np.multiply.outer(total, _window_counts(o, st, k, a, b, n, include_pad))
        return total


def _geom(x4, ksize, stride, padding, ceil_mode):
    if x4.ndim == 5:
        return _PoolND(x4.shape[2:], ksize, stride, padding, ceil_mode)
    return _Pool(x4.shape[2:], ksize, stride, padding, ceil_mode)


def _max_pool_nd(x, g):
    """Running max over the taps (first max wins), then the flat index of
    each winner into its unpadded input volume (-1 when it is padding)."""
    xp = g.padded(x, -np.inf)
    best = tid = None
    for t, tap in enumerate(g.taps()):
        v = g.tap(xp, tap)
        if best is None:
            best, tid = v.copy(), np.zeros(v.shape, np.int32)
        else:
            win = np.greater(v, best)
            np.maximum(best, v, out=best)
            np.copyto(tid, t, where=win)
    offsets = np.unravel_index(tid, g.k)
    idx = np.zeros(tid.shape, np.int64)
    outside = np.zeros(tid.shape, bool)
    for ax, (off, o, st, a, n) in enumerate(zip(offsets, g.out, g.s, g.p0, g.sizes)):
        view = [1] * len(g.out)
        view[ax] = o
        pos = (np.arange(o) * st - a).reshape(view) + off
        outside |= (pos < 0) | (pos >= n)
        idx = idx * n + pos
    idx[outside] = -1
    return best, idx.astype(np.int32)


def _avg_pool_nd(x, g, exclusive, divisor):
    xp = g.padded(x, 0)
    acc = None
    for t in g.taps():
        v = g.tap(xp, t)
        acc = v.copy() if acc is None else np.add(acc, v, out=acc)
    return (acc / _divisor(g, exclusive, divisor)).astype(x.dtype, copy=False)


def _avg_pool_adjoint_nd(gy, xshape, g, exclusive, divisor):
    gs = (gy / _divisor(g, exclusive, divisor)).astype(gy.dtype, copy=False)
    gxp = np.zeros(tuple(xshape[:2]) + g.padded_sizes, gy.dtype)
    for t in g.taps():
        g.tap(gxp, t)[...] += gs
    return gxp[g.interior()]


def _pool_meta_shape(xs, ksize, stride, padding, ceil_mode, data_format):
    nd = P.SPATIAL_RANK[data_format]
    if len(xs) != nd + 2:
        raise OpError("input x must be %d-D (%s), got shape %s" % (nd + 2, data_format, list(xs)))
    sp = P.spatial_shape(xs, data_format)
    out = [pool_out_size(s, k, st, padding[2 * i], padding[2 * i + 1], ceil_mode)
           for i, (s, k, st) in enumerate(zip(sp, ksize, stride))]
    return _with_spatial(xs, out, data_format)


def _with_spatial(xs, spatial, data_format):
    xs = list(xs)
    if P.channel_last(data_format):
        return [xs[0]] + list(spatial) + [xs[-1]]
    return xs[:2] + list(spatial)


# ---- max pool + scatter/gather -------------------------------------------------

def _max_pool_np(x4, g):
    """Running max over the taps, remembering which tap won (first max on
    ties); the flat input index is computed from the winning tap at the end."""
    if isinstance(g, _PoolND):
        return _max_pool_nd(x4, g)
    if (g.kh, g.kw, g.sh, g.sw) == (2, 2, 2, 2) and not (g.pt or g.pb or g.pl or g.pr) \
            and 2 * g.oh <= g.h and 2 * g.ow <= g.w:
        return _max_pool_2x2(x4, g)
    xp = g.padded(x4, -np.inf)
    ntaps = g.kh * g.kw
    best = tid = None
    for t, (i, j) in enumerate(g.taps()):
        v = g.tap(xp, i, j)
        if best is None:
            best = v.copy()
            tid = np.zeros(best.shape, np.uint8 if ntaps < 256 else np.int32)
        else:
            win = np.greater(v, best)
            np.maximum(best, v, out=best)
            np.copyto(tid, t, where=win)
    return best, _tap_to_index(tid, g)


def _max_pool_2x2(x4, g):
    """The common 2x2/2 pool as a tournament of the four taps: half the passes
    of the general loop, and the same winners (first max on ties)."""
    rows, cols = slice(0, 2 * g.oh, 2), slice(0, 2 * g.ow, 2)
    rows1, cols1 = slice(1, 2 * g.oh, 2), slice(1, 2 * g.ow, 2)
    a, b = x4[:, :, rows, cols], x4[:, :, rows, cols1]
    c, d = x4[:, :, rows1, cols], x4[:, :, rows1, cols1]
    right_top = b > a                    # strict: the earlier tap wins ties
    right_bottom = d > c
    top = np.maximum(a, b)
    bottom = np.maximum(c, d)
    lower = bottom > top
    best = np.maximum(top, bottom, out=top)
    base = ((np.arange(g.oh, dtype=np.int32) * 2 * g.w)[:, None]
            + np.arange(g.ow, dtype=np.int32)[None, :] * 2)
    col = np.where(lower, right_bottom, right_top)
    idx = lower.astype(np.int32)
    idx *= g.w
    idx += col
    idx += base
    return best, idx


def _tap_to_index(tid, g):
    """Flat ``h*W + w`` input index of each window's winning tap; -1 when that
    tap lies in the padding (a window with no real pixel)."""
    if g.pt or g.pb or g.pl or g.pr or (g.hp, g.wp) != (g.h, g.w):
        r = (np.arange(g.oh) * g.sh - g.pt)[:, None] + tid // g.kw
        c = (np.arange(g.ow) * g.sw - g.pl)[None, :] + tid % g.kw
        idx = (r * g.w + c).astype(np.int32)
        idx[(r < 0) | (r >= g.h) | (c < 0) | (c >= g.w)] = -1
        return idx
    # no padding: each window's first pixel plus its tap's offset (a table
    # lookup and an add instead of a division and a remainder per window)
    taps = np.arange(g.kh * g.kw, dtype=np.int32)
    offsets = (taps // g.kw) * g.w + taps % g.kw
    idx = np.take(offsets, tid)
    idx += ((np.arange(g.oh, dtype=np.int32) * (g.sh * g.w))[:, None]
            + np.arange(g.ow, dtype=np.int32)[None, :] * g.sw)
    return idx


def _pool_flops(ins, outs, attrs):
    """Paddle counts 2-D pools (NCHW): (kernel elements + 1) per output element,
    the kernel taken as the input/output size ratio."""
    x, out = ins['x'], outs['out']
    if len(x) != 4:
        return 0
    kernel = 1
    for a, b in zip(x[2:], out[2:]):
        kernel *= a // b
    return (kernel + 1) * per_sample(out)


_POOL_ATTRS = {'kernel_size': [1, 1], 'stride': [1, 1], 'padding': [0, 0, 0, 0],
               'ceil_mode': False, 'data_format': 'NCHW'}


def _max_pool_meta(x, kernel_size, stride, padding, ceil_mode, data_format):
    shape = _pool_meta_shape(meta.shape_of(x), kernel_size, stride, padding, ceil_mode,
                             data_format)
    return Meta(shape, meta.dtype_of(x)), Meta(shape, np.int32)


@def_op('max_pool', _max_pool_meta, inputs=('x',), attrs=_POOL_ATTRS,
        outputs=('out', 'mask'), nondiff_outputs=('mask',), pattern='opaque',
        flops=_pool_flops)
def max_pool_op(x, kernel_size, stride, padding, ceil_mode, data_format):
    """Max pooling; ``mask`` is the flat argmax index into each input plane."""
    x4 = P.to_nchw(x, data_format)
    out, idx = _max_pool_np(x4, _geom(x4, kernel_size, stride, padding, ceil_mode))
    return P.from_nchw(out, data_format), P.from_nchw(idx, data_format)


@max_pool_op.def_grad
def _max_pool_grad(g, gmask, x, out, mask, kernel_size, stride, padding, ceil_mode,
                   data_format):
    return pool_scatter_op(g, mask, x, data_format, _overlapping(kernel_size, stride))


@max_pool_op.def_fast_grad
def _max_pool_fast(g, gmask, x, out, mask, kernel_size, stride, padding, ceil_mode,
                   data_format):
    # without padding or ceil_mode every window lies inside the input: no -1 in mask
    return _scatter_np(g, mask, x.shape, data_format, _overlapping(kernel_size, stride),
                       may_be_outside=bool(any(padding) or ceil_mode))


def _onednn_geometry(g):
    """oneDNN's ``(kernel, stride, pad_l, pad_r)`` of 2-D pool ``g``, or None:
    ceil_mode's last windows run past the padding, which oneDNN sees as
    more right padding (never less than none)."""
    pad_r = [(g.oh - 1) * g.sh + g.kh - g.h - g.pt, (g.ow - 1) * g.sw + g.kw - g.w - g.pl]
    if min(pad_r) < 0:
        return None
    return [g.kh, g.kw], [g.sh, g.sw], [g.pt, g.pl], pad_r


# max pooling plans whose taps were checked against the numpy kernel (the
# first call of each shape): oneDNN's workspace is read as tap indices
_checked_taps = set()


@max_pool_op.def_kernel('onednn')
def _max_pool_onednn(x, kernel_size, stride, padding, ceil_mode, data_format):
    # 2-D NCHW float32 only: there oneDNN's workspace is one tap index per output
    if not (isinstance(x, np.ndarray) and x.dtype == np.float32 and x.ndim == 4 and x.size
            and data_format == 'NCHW'):
        return NotImplemented
    x = np.ascontiguousarray(x)      # a view's strides must not decide what runs
    g = _geom(x, kernel_size, stride, padding, ceil_mode)
    geometry = _onednn_geometry(g)
    if geometry is None or g.kh * g.kw >= 256:
        return NotImplemented
    rt = onednn.runtime()
    y = np.empty(x.shape[:2] + (g.oh, g.ow), np.float32)
    taps = dnnl_pool.max_forward(rt, x, *geometry, y)
    if taps is None:
        return NotImplemented
    mask = _tap_to_index(taps, g)
    key = dnnl_pool.plan_key(x, y, *geometry, rt)
    if key not in _checked_taps:
        want, want_mask = max_pool_op.kernels['numpy'](x, kernel_size, stride, padding,
                                                       ceil_mode, data_format)
        if not (np.array_equal(y, want) and np.array_equal(mask, want_mask)):
            rt.decline(key)
            return want, want_mask
        _checked_taps.add(key)
    return y, mask


def nchw_pool(op, block):
    """The layout pass's condition for a pooling op: 2-D, channels first."""
    x = block._find_var(op.inputs['x'][0])
    return op.attrs.get('data_format', 'NCHW') == 'NCHW' and x is not None and len(x.shape) == 4


def _pool_layout(algorithm, x, g, geometry, keep):
    """Pooling ``x`` (``Blocked`` or NCHW float32) on oneDNN, inference form;
    the result stays in oneDNN's layout with ``out`` in ``keep``."""
    shape = [x.shape[0], x.shape[1], g.oh, g.ow]
    out = dnnl_pool.forward(onednn.runtime(), algorithm, x, *geometry,
                            None if 'out' in keep else np.empty(shape, np.float32),
                            out_shape=shape)
    return NotImplemented if out is None else out


def _takes_4d(x):
    return x is not None and dnnl_layout.takes(x) and x.ndim == 4


@max_pool_op.def_layout_kernel('onednn', takes=('x',), gives=('out',), drops=('mask',),
                               applies=nchw_pool)
def _max_pool_onednn_layout(x, kernel_size, stride, padding, ceil_mode, data_format, keep):
    """Max pooling without its mask (nothing reads it: an inference program)."""
    if not _takes_4d(x) or data_format != 'NCHW':
        return NotImplemented
    g = _geom(x, kernel_size, stride, padding, ceil_mode)
    geometry = _onednn_geometry(g)
    if geometry is None:
        return NotImplemented
    out = _pool_layout(onednn.constants.POOLING_MAX, _dense_data(x), g, geometry, keep)
    return out if out is NotImplemented else (out, None)


def _dense_data(x):
    return x if isinstance(x, Opaque) else np.ascontiguousarray(x)


def _onnx_pool_attrs(kernel_size, stride, padding, ceil_mode):
    return dict(kernel_shape=list(kernel_size), strides=list(stride),
                pads=list(padding[0::2]) + list(padding[1::2]), ceil_mode=int(bool(ceil_mode)))


@max_pool_op.def_onnx
def _max_pool_onnx(g, x, kernel_size, stride, padding, ceil_mode, data_format):
    # the argmax mask is a training-time output (max_pool's grad): not exported
    nd = g.rank(x)
    y = g.op('MaxPool', g.channel_first(x, data_format, nd),
             **_onnx_pool_attrs(kernel_size, stride, padding, ceil_mode))
    return g.channel_last(y, data_format, nd)


def _planes(a, data_format):
    """``[N*C, spatial...]`` flattening of an NCHW view (copy only if needed)."""
    a4 = P.to_nchw(a, data_format)
    return a4.reshape(a4.shape[0] * a4.shape[1], int(np.prod(a4.shape[2:]))), a4.shape


def _scatter_np(g, mask, xshape, data_format, overlapping=True, may_be_outside=True):
    g2, _ = _planes(g, data_format)
    m2, _ = _planes(mask, data_format)
    x4shape = P.to_nchw(np.broadcast_to(np.zeros((), g.dtype), xshape), data_format).shape
    plane = int(np.prod(x4shape[2:]))
    rows = np.arange(g2.shape[0])[:, None] * plane
    lin = (rows + m2).ravel()
    w = g2.ravel()
    if may_be_outside:         # -1: a window with no pixel of the input
        valid = m2.ravel() >= 0
        if not valid.all():
            lin, w = lin[valid], w[valid]
    if overlapping:      # an input pixel may be the max of several windows: sum
        flat = np.bincount(lin, weights=w, minlength=g2.shape[0] * plane).astype(g.dtype)
    else:                # disjoint windows: every index appears once
        flat = np.zeros(g2.shape[0] * plane, g.dtype)
        flat[lin] = w
    return P.from_nchw(flat.reshape(x4shape), data_format)


def _overlapping(kernel_size, stride):
    return any(s < k for k, s in zip(kernel_size, stride))


def _gather_np(x, mask, data_format):
    x2, _ = _planes(x, data_format)
    m2, m4shape = _planes(mask, data_format)
    out = np.take_along_axis(x2, np.maximum(m2, 0), axis=1)
    if (m2 < 0).any():
        out = np.where(m2 < 0, 0, out)
    return P.from_nchw(out.reshape(m4shape), data_format)


def _scatter_meta(g, mask, target, data_format, overlapping):
    return Meta(meta.shape_of(target), meta.dtype_of(g))


@def_op('pool_scatter', _scatter_meta, no_grad_inputs=('mask', 'target'), pattern='opaque')
def pool_scatter_op(g, mask, target, data_format='NCHW', overlapping=True):
    """Zeros of ``target``'s shape with ``g`` added at the pooled ``mask`` positions
    (``overlapping=False`` promises distinct positions: a faster plain store)."""
    return _scatter_np(g, mask, np.shape(target), data_format, overlapping)


@pool_scatter_op.def_grad
def _scatter_grad(gg, g, mask, target, out, data_format, overlapping):
    return pool_gather_op(gg, mask, data_format), None, None


def _gather_meta(x, mask, data_format):
    return Meta(meta.shape_of(mask), meta.dtype_of(x))


@def_op('pool_gather', _gather_meta, no_grad_inputs=('mask',), pattern='opaque')
def pool_gather_op(x, mask, data_format='NCHW'):
    """``x`` read at the pooled ``mask`` positions (one value per output pixel)."""
    return _gather_np(x, mask, data_format)


@pool_gather_op.def_grad
def _gather_grad(g, x, mask, out, data_format):
    return pool_scatter_op(g, mask, x, data_format, True), None


# ---- average pool ---------------------------------------------------------------

_AVG_ATTRS = {'kernel_size': [1, 1], 'stride': [1, 1], 'padding': [0, 0, 0, 0],
              'ceil_mode': False, 'exclusive': True, 'divisor': 0, 'data_format': 'NCHW'}


def _divisor(g, exclusive, divisor):
    if divisor:
        return float(divisor)
    if exclusive:
        return np.maximum(g.counts(), 1)     # empty (all-padding) windows give 0
    return g.counts(include_pad=True)


def _avg_pool_np(x4, g, exclusive, divisor):
    if isinstance(g, _PoolND):
        return _avg_pool_nd(x4, g, exclusive, divisor)
    xp = g.padded(x4, 0)
    acc = None
    for i, j in g.taps():
        v = g.tap(xp, i, j)
        acc = v.copy() if acc is None else np.add(acc, v, out=acc)
    d = _divisor(g, exclusive, divisor)
    return np.divide(acc, d, out=acc) if np.ndim(d) == 0 else (acc / d).astype(acc.dtype)


def _avg_pool_adjoint_np(g4, x4shape, geo, exclusive, divisor):
    if isinstance(geo, _PoolND):
        return _avg_pool_adjoint_nd(g4, x4shape, geo, exclusive, divisor)
    d = _divisor(geo, exclusive, divisor)
    gs = (g4 / d).astype(g4.dtype, copy=False)
    if (geo.sh, geo.sw) == (geo.kh, geo.kw) and (geo.oh * geo.kh, geo.ow * geo.kw) == \
            (geo.h, geo.w) and (geo.hp, geo.wp) == (geo.h, geo.w):
        # windows tile the input exactly: one broadcast write
        gx = np.empty(x4shape[:2] + (geo.oh, geo.kh, geo.ow, geo.kw), g4.dtype)
        gx[...] = gs[:, :, :, None, :, None]
        return gx.reshape(x4shape)
    gxp = np.zeros(x4shape[:2] + (geo.hp, geo.wp), g4.dtype)
    for i, j in geo.taps():
        geo.tap(gxp, i, j)[...] += gs
    return gxp[:, :, geo.pt:geo.pt + geo.h, geo.pl:geo.pl + geo.w]


def _avg_meta(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor, data_format):
    return Meta(_pool_meta_shape(meta.shape_of(x), kernel_size, stride, padding, ceil_mode,
                                 data_format), meta.dtype_of(x))


@def_op('avg_pool', _avg_meta, inputs=('x',), attrs=_AVG_ATTRS, save_inputs=False, pattern='opaque',
        flops=_pool_flops)
@float32_compute
def avg_pool_op(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor, data_format):
    """Average pooling (``exclusive``: padding is not counted; ``divisor`` > 0 overrides)."""
    x4 = P.to_nchw(x, data_format)
    out = _avg_pool_np(x4, _geom(x4, kernel_size, stride, padding, ceil_mode), exclusive,
                       divisor)
    return P.from_nchw(out, data_format)


@avg_pool_op.def_grad
def _avg_pool_grad(g, x, out, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                   data_format):
    return avg_pool_grad_op(g, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                            data_format)


@avg_pool_op.def_fast_grad
def _avg_pool_fast(g, x, out, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                   data_format):
    # the adjoint op's kernel: the active backend's
    return avg_pool_grad_op.kernel(g, x, kernel_size, stride, padding, ceil_mode, exclusive,
                                   divisor, data_format)


@avg_pool_op.def_onnx
def _avg_pool_onnx(g, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                   data_format):
    nd = g.rank(x)
    xc = g.channel_first(x, data_format, nd)
    sizes = P.spatial_shape(g.meta(x).shape, data_format)
    if divisor and all(n >= 0 for n in sizes):
        # a fixed divisor: the window sums, every window padded to its full size
        # with zeros (ceil_mode windows past the padding too)
        ends = [max((pool_out_size(n, k, s, a, b, ceil_mode) - 1) * s + k - n - a, b)
                for n, k, s, a, b in zip(sizes, kernel_size, stride, padding[0::2],
                                         padding[1::2])]
        xc = g.op('Pad', xc, g.ints([0, 0] + list(padding[0::2]) + [0, 0] + ends))
        padding, ceil_mode = [0] * len(padding), False
    y = g.op('AveragePool', xc, count_include_pad=int(not exclusive or bool(divisor)),
             **_onnx_pool_attrs(kernel_size, stride, padding, ceil_mode))
    if divisor:
        y = g.op('Mul', y, g.scalar(float(np.prod(kernel_size)) / divisor, x))
    return g.channel_last(y, data_format, nd)


def _avg_adjoint(g, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                 data_format):
    x4 = P.to_nchw(np.broadcast_to(np.zeros((), g.dtype), np.shape(x)), data_format)
    geo = _geom(x4, kernel_size, stride, padding, ceil_mode)
    _check_grad_shape('avg_pool_grad', g, geo.out if isinstance(geo, _PoolND)
                      else (geo.oh, geo.ow), data_format)
    gx = _avg_pool_adjoint_np(P.to_nchw(g, data_format), x4.shape, geo, exclusive, divisor)
    return P.from_nchw(np.ascontiguousarray(gx), data_format)


def _check_grad_shape(api, g, out_hw, data_format):
    got = tuple(P.to_nchw(g, data_format).shape[2:])
    if got != tuple(out_hw):
        raise OpError("%s: output grad shape %s does not match the pooled size %s"
                      % (api, list(np.shape(g)), list(out_hw)))


def _avg_grad_meta(g, target, *attrs):
    return Meta(meta.shape_of(target), meta.dtype_of(g))


@def_op('avg_pool_grad', _avg_grad_meta, inputs=('g', 'target'), attrs=_AVG_ATTRS,
        no_grad_inputs=('target',), save_inputs=False, pattern='opaque')
@float32_compute
def avg_pool_grad_op(g, target, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                     data_format):
    """Adjoint of ``avg_pool``: spreads each output grad over its window."""
    return _avg_adjoint(g, target, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                        data_format)


@avg_pool_grad_op.def_grad
def _avg_pool_grad_grad(gg, g, target, out, kernel_size, stride, padding, ceil_mode,
                        exclusive, divisor, data_format):
    return avg_pool_op(gg, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                       data_format), None


# on oneDNN

def _avg_geometry(x4, kernel_size, stride, padding, ceil_mode, exclusive, divisor):
    """oneDNN's ``(kernel, stride, pad_l, pad_r)`` of an average pool (2-D),
    or None where its averages are not Paddle's: a divisor override, or
    ceil_mode's windows past the padding when padding counts (Paddle counts
    only their part inside the padded input)."""
    if divisor or (ceil_mode and not exclusive):
        return None
    g = _geom(x4, kernel_size, stride, padding, ceil_mode)
    geometry = _onednn_geometry(g)
    return None if geometry is None else (g, geometry)


def _float32_2d(*arrays):
    return all(isinstance(a, np.ndarray) and a.dtype == np.float32 and a.ndim in (3, 4)
               and a.size for a in arrays)


@avg_pool_op.def_kernel('onednn')
def _avg_pool_onednn(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                     data_format):
    if not _float32_2d(x):
        return NotImplemented
    x4 = P.to_nchw(np.ascontiguousarray(x), data_format)
    found = _avg_geometry(x4, kernel_size, stride, padding, ceil_mode, exclusive, divisor)
    if found is None:
        return NotImplemented
    g, geometry = found
    out = np.empty(_with_spatial(x.shape, [g.oh, g.ow] if x.ndim == 4 else [g.ow],
                                 data_format), np.float32)
    if dnnl_pool.forward(onednn.runtime(), dnnl_pool.AVERAGES[bool(exclusive)], x4, *geometry,
                         P.to_nchw(out, data_format)) is None:
        return NotImplemented
    return out


@avg_pool_op.def_layout_kernel('onednn', takes=('x',), gives=('out',), applies=nchw_pool)
def _avg_pool_onednn_layout(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
                            data_format, keep):
    if not _takes_4d(x) or data_format != 'NCHW':
        return NotImplemented
    found = _avg_geometry(x, kernel_size, stride, padding, ceil_mode, exclusive, divisor)
    if found is None:
        return NotImplemented
    g, geometry = found
    return _pool_layout(dnnl_pool.AVERAGES[bool(exclusive)], _dense_data(x), g, geometry, keep)


@avg_pool_grad_op.def_kernel('onednn')
def _avg_pool_grad_onednn(g, target, kernel_size, stride, padding, ceil_mode, exclusive,
                          divisor, data_format):
    if not _float32_2d(g) or np.ndim(target) != g.ndim:
        return NotImplemented
    gx = np.empty(np.shape(target), np.float32)
    x4 = P.to_nchw(gx, data_format)
    found = _avg_geometry(x4, kernel_size, stride, padding, ceil_mode, exclusive, divisor)
    if found is None:
        return NotImplemented
    geo, geometry = found
    if tuple(P.to_nchw(g, data_format).shape) != x4.shape[:2] + (geo.oh, geo.ow):
        return NotImplemented            # the numpy kernel names the mismatch
    g4 = P.to_nchw(np.ascontiguousarray(g), data_format)
    if dnnl_pool.avg_backward(onednn.runtime(), g4, *geometry, bool(exclusive), x4) is None:
        return NotImplemented
    return gx


# ---- adaptive pools ---------------------------------------------------------------

def adaptive_bounds(size, out):
    i = np.arange(out)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _avg_matrix(size, out, dtype):
    """``[out, size]`` averaging matrix of the adaptive windows."""
    start, end = adaptive_bounds(size, out)
    pos = np.arange(size)
    inside = (pos[None, :] >= start[:, None]) & (pos[None, :] < end[:, None])
    return (inside / (end - start)[:, None]).astype(dtype)


def _adaptive_sizes(x4, output_size):
    return P.hw2(output_size, 1) if x4.shape[2] == 1 and len(output_size) == 1 else output_size


def _adaptive_meta(x, output_size, data_format):
    xs = meta.shape_of(x)
    nd = P.SPATIAL_RANK[data_format]
    if len(xs) != nd + 2:
        raise OpError("input x must be %d-D (%s), got shape %s" % (nd + 2, data_format, list(xs)))
    return Meta(_with_spatial(xs, output_size, data_format), meta.dtype_of(x))


@def_op('adaptive_avg_pool', _adaptive_meta, inputs=('x',),
        attrs={'output_size': [1, 1], 'data_format': 'NCHW'}, save_inputs=False, pattern='opaque',
        flops=_pool_flops)
@float32_compute
def adaptive_avg_pool_op(x, output_size, data_format):
    """Average over adaptive windows [floor(i*H/OH), ceil((i+1)*H/OH)); separable,
    so two small matmuls."""
    x4 = P.to_nchw(x, data_format)
    if x4.ndim == 5:
        mats = [_avg_matrix(n, o, x.dtype) for n, o in zip(x4.shape[2:], output_size)]
        return P.from_nchw(np.einsum('pd,qh,rw,ncdhw->ncpqr', *mats, x4, optimize=True),
                           data_format)
    oh, ow = _adaptive_sizes(x4, output_size)
    ph = _avg_matrix(x4.shape[2], oh, x.dtype)
    pw = _avg_matrix(x4.shape[3], ow, x.dtype)
    return P.from_nchw(np.matmul(np.matmul(ph, x4), pw.T), data_format)


def _adaptive_avg_adjoint(g, xshape, data_format):
    x4shape = P.to_nchw(np.broadcast_to(np.zeros((), g.dtype), xshape), data_format).shape
    g4 = P.to_nchw(g, data_format)
    if g4.ndim == 5:
        mats = [_avg_matrix(n, o, g.dtype) for n, o in zip(x4shape[2:], g4.shape[2:])]
        return P.from_nchw(np.ascontiguousarray(
            np.einsum('pd,qh,rw,ncpqr->ncdhw', *mats, g4, optimize=True)), data_format)
    ph = _avg_matrix(x4shape[2], g4.shape[2], g.dtype)
    pw = _avg_matrix(x4shape[3], g4.shape[3], g.dtype)
    return P.from_nchw(np.ascontiguousarray(np.matmul(np.matmul(ph.T, g4), pw)), data_format)


@adaptive_avg_pool_op.def_grad
def _adaptive_avg_grad(g, x, out, output_size, data_format):
    return adaptive_avg_pool_grad_op(g, x, data_format)


@adaptive_avg_pool_op.def_fast_grad
def _adaptive_avg_fast(g, x, out, output_size, data_format):
    return _adaptive_avg_adjoint(g, np.shape(x), data_format)


def _adaptive_onnx(g, x, output_size, data_format, kind):
    """An adaptive pool as a global or a plain pool when the windows allow it;
    averages on known sizes also as products with the window matrices (exact)."""
    nd = g.rank(x)
    xc = g.channel_first(x, data_format, nd)
    sizes = P.spatial_shape(g.meta(x).shape, data_format)
    out = [n if o is None else o for n, o in zip(sizes, output_size)]
    if all(o == 1 for o in out):
        y = g.op('Global%sPool' % kind, xc)
    elif all(n >= 0 and n % o == 0 for n, o in zip(sizes, out)):
        k = [n // o for n, o in zip(sizes, out)]
        y = g.op('%sPool' % kind, xc, kernel_shape=k, strides=k)
    elif all(n >= 0 for n in sizes):     # uneven windows: axis by axis (both separate)
        y = xc
        for i, (n, o) in enumerate(zip(sizes, out)):
            y = (_along_axis_matmul(g, y, _avg_matrix(n, o, g.meta(x).dtype), 2 + i, nd)
                 if kind == 'Average' else _along_axis_max(g, y, n, o, 2 + i))
    else:
        raise OpError("adaptive_%s_pool: output size %s needs the input's spatial sizes "
                      "(input shape %s) or sizes it divides, to export to ONNX"
                      % ('avg' if kind == 'Average' else 'max', list(out),
                         list(g.meta(x).shape)))
    return g.channel_last(y, data_format, nd)


def _along_axis_max(g, y, n, o, axis):
    """Adaptive max windows along one axis: one slice and max per output index."""
    parts = [g.reduce('ReduceMax', g.op('Slice', y, g.ints([a]), g.ints([b]), g.ints([axis])),
                      [axis], True) for a, b in zip(*adaptive_bounds(n, o))]
    return g.op('Concat', *parts, axis=axis)


def _along_axis_matmul(g, y, mat, axis, nd):
    """``mat`` ([out, n]) applied along ``axis`` of the ``nd``-D value ``y``."""
    if axis == nd - 1:
        return g.op('MatMul', y, g.const(np.ascontiguousarray(mat.T)))
    perm = list(range(nd))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    y = g.op('MatMul', g.transpose(y, perm), g.const(np.ascontiguousarray(mat.T)))
    return g.transpose(y, perm)


@adaptive_avg_pool_op.def_onnx
def _adaptive_avg_onnx(g, x, output_size, data_format):
    return _adaptive_onnx(g, x, output_size, data_format, 'Average')


@def_op('adaptive_avg_pool_grad', _avg_grad_meta, inputs=('g', 'target'),
        attrs={'data_format': 'NCHW'}, no_grad_inputs=('target',), save_inputs=False,
        pattern='opaque')
@float32_compute
def adaptive_avg_pool_grad_op(g, target, data_format):
    """Adjoint of ``adaptive_avg_pool`` (output size read from ``g``)."""
    return _adaptive_avg_adjoint(g, np.shape(target), data_format)


@adaptive_avg_pool_grad_op.def_grad
def _adaptive_avg_grad_grad(gg, g, target, out, data_format):
    sizes = P.spatial_shape(g.shape, data_format)
    return adaptive_avg_pool_op(gg, list(sizes), data_format), None


def _adaptive_max_np(x4, oh, ow):
    h, w = x4.shape[2:]
    hs, he = adaptive_bounds(h, oh)
    ws, we = adaptive_bounds(w, ow)
    best = idx = None
    for i in range(int((he - hs).max())):
        r = np.minimum(hs + i, he - 1)        # short windows repeat their last row
        rows = x4[:, :, r, :]
        for j in range(int((we - ws).max())):
            c = np.minimum(ws + j, we - 1)
            v = rows[..., c]
            tap = (r[:, None] * w + c[None, :]).astype(np.int32)
            if best is None:
                best = v.copy()
                idx = np.empty(best.shape, np.int32)
                idx[...] = tap
            else:
                win = v > best
                np.copyto(best, v, where=win)
                np.copyto(idx, tap, where=win)
    return best, idx


def _windowed_max(x, bounds):
    """Max (and flat argmax into each input plane/volume) over the windows
    ``[start, end)`` given per spatial axis as ``(starts, ends)`` arrays: every
    offset inside the longest window of each axis, short windows repeating
    their last entry; the first maximum wins."""
    sizes = x.shape[2:]
    best = idx = None
    for offs in itertools.product(*[range(int((e - b).max())) for b, e in bounds]):
        pos = [np.minimum(b + o, e - 1) for (b, e), o in zip(bounds, offs)]
        v = x[(slice(None), slice(None)) + np.ix_(*pos)]
        tap = np.ravel_multi_index(np.ix_(*pos), sizes).astype(np.int32)
        if best is None:
            best = v.copy()
            idx = np.empty(best.shape, np.int32)
            idx[...] = tap
        else:
            win = v > best
            np.copyto(best, v, where=win)
            np.copyto(idx, tap, where=win)
    return best, idx


def _adaptive_max_nd(x, out_size):
    return _windowed_max(x, [adaptive_bounds(n, o) for n, o in zip(x.shape[2:], out_size)])


def _adaptive_max_meta(x, output_size, data_format):
    m = _adaptive_meta(x, output_size, data_format)
    return m, Meta(m.shape, np.int32)


@def_op('adaptive_max_pool', _adaptive_max_meta, inputs=('x',),
        attrs={'output_size': [1, 1], 'data_format': 'NCHW'}, outputs=('out', 'mask'),
        nondiff_outputs=('mask',), pattern='opaque', flops=_pool_flops)
def adaptive_max_pool_op(x, output_size, data_format):
    """Max over adaptive windows, with the flat argmax ``mask``."""
    x4 = P.to_nchw(x, data_format)
    if x4.ndim == 5:
        out, idx = _adaptive_max_nd(x4, output_size)
    else:
        out, idx = _adaptive_max_np(x4, *_adaptive_sizes(x4, output_size))
    return P.from_nchw(out, data_format), P.from_nchw(idx, data_format)


@adaptive_max_pool_op.def_grad
def _adaptive_max_grad(g, gmask, x, out, mask, output_size, data_format):
    return pool_scatter_op(g, mask, x, data_format, True)


@adaptive_max_pool_op.def_fast_grad
def _adaptive_max_fast(g, gmask, x, out, mask, output_size, data_format):
    return _scatter_np(g, mask, x.shape, data_format)


@adaptive_max_pool_op.def_onnx
def _adaptive_max_onnx(g, x, output_size, data_format):
    return _adaptive_onnx(g, x, output_size, data_format, 'Max')


# ---- fractional max pool --------------------------------------------------------------

def fractional_bounds(size, out, k, u):
    """Windows ``(starts, ends)`` of fractional max pooling along one axis, the
    pseudo-random sequence of Graham (2014) as Paddle's kernel computes it, in
    float32: ``start_i = int((i + u) * alpha) - int(u * alpha)`` with
    ``alpha = (size - k) / (out - 1)`` and ``end = start + k`` for a kernel size
    ``k``; without one (``k == 0``) ``alpha = size / out``, windows end where
    the next one starts, and ``u`` is first scaled so every window stays inside."""
    f = np.float32
    u = f(u)
    alpha = f(size - k) / f(out - (1 if k > 0 else 0)) if out > (1 if k > 0 else 0) else f(0)
    if k == 0:
        base = size // out
        u = u * min(f(base + 2) / alpha - f(1), f(size + 1 - base) / alpha - f(out - 1))
    i = np.arange(out).astype(f)
    shift = np.trunc(u * alpha).astype(np.int64)
    starts = np.trunc((i + u) * alpha).astype(np.int64) - shift
    ends = starts + k if k > 0 else np.trunc((i + f(1) + u) * alpha).astype(np.int64) - shift
    return np.maximum(starts, 0), np.minimum(ends, size)


def _fractional_meta(x, output_size, kernel_size, random_u):
    xs = meta.shape_of(x)
    if len(xs) not in (4, 5) or len(output_size) != len(xs) - 2:
        raise OpError("fractional_max_pool: x must be 4-D or 5-D with one output size per "
                      "spatial dim, got x shape %s and output_size %s"
                      % (list(xs), list(output_size)))
    shape = list(xs[:2]) + list(output_size)
    return Meta(shape, meta.dtype_of(x)), Meta(shape, np.int32)


@def_op('fractional_max_pool', _fractional_meta, inputs=('x',),
        attrs={'output_size': [1, 1], 'kernel_size': [0, 0], 'random_u': 0.0},
        outputs=('out', 'mask'), nondiff_outputs=('mask',), effects=('random',), pattern='opaque')
def fractional_max_pool_op(x, output_size, kernel_size, random_u):
    """Fractional max pooling of NCHW / NCDHW ``x``: pseudo-random windows (a
    kernel size of 0 means windows that tile the input); ``random_u`` in (0, 1)
    fixes the sequence, 0 draws it. ``mask`` is the flat argmax per plane."""
    if not random_u:
        random_u = float(_random.generator().uniform(0.0, 1.0))
    for n, o in zip(x.shape[2:], output_size):
        if not 0 < o <= n:
            raise OpError("fractional_max_pool: output_size %s must be in [1, %s]"
                          % (list(output_size), list(x.shape[2:])))
    bounds = [fractional_bounds(n, o, k, random_u)
              for n, o, k in zip(x.shape[2:], output_size, kernel_size)]
    return _windowed_max(x, bounds)


@fractional_max_pool_op.def_grad
def _fractional_grad(g, gmask, x, out, mask, output_size, kernel_size, random_u):
    return pool_scatter_op(g, mask, x, _CHANNEL_FIRST[len(x.shape)], True)


@fractional_max_pool_op.def_fast_grad
def _fractional_fast(g, gmask, x, out, mask, output_size, kernel_size, random_u):
    return _scatter_np(g, mask, x.shape, _CHANNEL_FIRST[x.ndim])


_CHANNEL_FIRST = {3: 'NCL', 4: 'NCHW', 5: 'NCDHW'}


# ---- max unpool ---------------------------------------------------------------------

def _unpool_meta(x, indices, output_size, data_format):
    xs = meta.shape_of(x)
    if list(meta.shape_of(indices)) != list(xs):
        raise OpError("max_unpool: indices shape %s must equal x shape %s"
                      % (list(meta.shape_of(indices)), list(xs)))
    return Meta(_with_spatial(xs, output_size, data_format), meta.dtype_of(x))


@def_op('max_unpool', _unpool_meta, inputs=('x', 'indices'),
        attrs={'output_size': [1, 1], 'data_format': 'NCHW'}, no_grad_inputs=('indices',),
        save_inputs=False, pattern='opaque')
def max_unpool_op(x, indices, output_size, data_format):
    """Zeros of spatial size ``output_size`` with each ``x`` value stored at its
    flat ``indices`` position in its plane (a later value wins a repeated index).
    Channels-first layouts only, as in Paddle."""
    if P.channel_last(data_format):
        raise OpError("max_unpool: data_format must be channels first, got %r" % data_format)
    plane = int(np.prod(output_size))
    if indices.size and (indices.min() < 0 or indices.max() >= plane):
        raise OpError("max_unpool: indices must be in [0, %d) for output_size %s, got values "
                      "in [%d, %d]" % (plane, list(output_size), indices.min(), indices.max()))
    rows, per_row = x.shape[0] * x.shape[1], int(np.prod(x.shape[2:]))
    flat = np.zeros((rows, plane), x.dtype)
    np.put_along_axis(flat, indices.reshape(rows, per_row).astype(np.int64),
                      x.reshape(rows, per_row), axis=1)
    return flat.reshape(x.shape[:2] + tuple(output_size))


@max_unpool_op.def_grad
def _unpool_grad(g, x, indices, out, output_size, data_format):
    return pool_gather_op(g, indices, data_format), None


@max_unpool_op.def_fast_grad
def _unpool_fast(g, x, indices, out, output_size, data_format):
    return _gather_np(g, indices, data_format), None


# ---- public API (Paddle 2.x) ---------------------------------------------------------

def _pool_args(api, x, kernel_size, stride, padding, ceil_mode, data_format, nd):
    P.check_format(api, data_format, nd)
    if len(x.shape) != nd + 2:
        raise OpError("%s: input x must be %d-D (%s), got shape %s"
                      % (api, nd + 2, data_format, list(x.shape)))
    ksize = P.int_list(kernel_size, nd, api, 'kernel_size', 1)
    stride = ksize if stride is None else P.int_list(stride, nd, api, 'stride', 1)
    if isinstance(padding, str) and padding.upper() == 'VALID' and ceil_mode:
        raise OpError("%s: padding='VALID' requires ceil_mode=False" % api)
    pad, _ = P.parse_padding(api, padding, nd, data_format,
                             P.spatial_shape(x.shape, data_format), ksize, stride)
    sp = P.spatial_shape(x.shape, data_format)
    for i, (s, k, st) in enumerate(zip(sp, ksize, stride)):
        if s >= 0 and pool_out_size(s, k, st, pad[2 * i], pad[2 * i + 1], ceil_mode) <= 0:
            raise OpError("%s: kernel_size %s is larger than the padded input (x shape %s, "
                          "padding %s)" % (api, ksize, list(x.shape), pad))
    return ksize, stride, pad


def _max_pool(api, nd, x, kernel_size, stride, padding, return_mask, ceil_mode, data_format):
    ksize, stride, pad = _pool_args(api, x, kernel_size, stride, padding, ceil_mode,
                                    data_format, nd)
    if return_mask and P.channel_last(data_format):
        raise OpError("%s: return_mask=True requires data_format %s"
                      % (api, P.FORMATS[nd][0]))
    out, mask = max_pool_op(x, ksize, stride, pad, bool(ceil_mode), data_format)
    return (out, mask) if return_mask else out


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """1-D max pooling of ``[N, C, L]``; ``return_mask`` also gives the argmax indices."""
    return _max_pool('max_pool1d', 1, x, kernel_size, stride, padding, return_mask, ceil_mode,
                     'NCL')


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format='NCHW', name=None):
    """2-D max pooling. Padded positions never win; ``return_mask`` gives the
    flat index ``h*W + w`` of each maximum in its input plane.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.max_pool2d(paddle.ones([1, 1, 5, 5]), 2, ceil_mode=True).shape
    paddle.Size([1, 1, 3, 3])
    """
    return _max_pool('max_pool2d', 2, x, kernel_size, stride, padding, return_mask, ceil_mode,
                     data_format)


def _avg_pool(api, nd, x, kernel_size, stride, padding, ceil_mode, exclusive, divisor,
              data_format):
    ksize, stride, pad = _pool_args(api, x, kernel_size, stride, padding, ceil_mode,
                                    data_format, nd)
    if divisor is not None and (not isinstance(divisor, (int, float)) or divisor <= 0):
        raise OpError("%s: divisor_override must be a positive number, got %r" % (api, divisor))
    return avg_pool_op(x, ksize, stride, pad, bool(ceil_mode), bool(exclusive),
                       divisor or 0, data_format)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """1-D average pooling of ``[N, C, L]``."""
    return _avg_pool('avg_pool1d', 1, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     None, 'NCL')


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format='NCHW', name=None):
    """2-D average pooling. ``exclusive=True`` divides by the number of real
    (non-padding) pixels in the window, ``False`` by the kernel area;
    ``divisor_override`` divides every window sum by that number instead.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.avg_pool2d(paddle.ones([1, 1, 4, 4]), 2, padding=1).shape
    paddle.Size([1, 1, 3, 3])
    """
    return _avg_pool('avg_pool2d', 2, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def _adaptive_size(api, x, output_size, nd, data_format):
    P.check_format(api, data_format, nd)
    if len(x.shape) != nd + 2:
        raise OpError("%s: input x must be %d-D (%s), got shape %s"
                      % (api, nd + 2, data_format, list(x.shape)))
    sp = P.spatial_shape(x.shape, data_format)
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nd:
            raise OpError("%s: output_size must be an int or %d values, got %r"
                          % (api, nd, output_size))
        sizes = [s if o is None else o for o, s in zip(output_size, sp)]   # None keeps a dim
    else:
        sizes = [output_size] * nd
    return P.int_list(sizes, nd, api, 'output_size', 1)


def adaptive_avg_pool1d(x, output_size, name=None):
    """Adaptive average pooling of ``[N, C, L]`` to length ``output_size``."""
    return adaptive_avg_pool_op(x, _adaptive_size('adaptive_avg_pool1d', x, output_size, 1,
                                                  'NCL'), 'NCL')


def adaptive_avg_pool2d(x, output_size, data_format='NCHW', name=None):
    """Adaptive average pooling to ``output_size`` (int or [OH, OW]; None keeps a dim).

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.adaptive_avg_pool2d(paddle.ones([2, 3, 7, 7]), 1).shape
    paddle.Size([2, 3, 1, 1])
    """
    size = _adaptive_size('adaptive_avg_pool2d', x, output_size, 2, data_format)
    return adaptive_avg_pool_op(x, size, data_format)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling of ``[N, C, L]``."""
    out, mask = adaptive_max_pool_op(
        x, _adaptive_size('adaptive_max_pool1d', x, output_size, 1, 'NCL'), 'NCL')
    return (out, mask) if return_mask else out


def adaptive_max_pool2d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling of NCHW ``x``; ``return_mask`` gives the argmax indices."""
    out, mask = adaptive_max_pool_op(
        x, _adaptive_size('adaptive_max_pool2d', x, output_size, 2, 'NCHW'), 'NCHW')
    return (out, mask) if return_mask else out


def max_pool3d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format='NCDHW', name=None):
    """3-D max pooling of ``[N, C, D, H, W]`` (or NDHWC); ``return_mask`` gives the
    flat index ``(d*H + h)*W + w`` of each maximum in its input volume.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.max_pool3d(paddle.ones([1, 2, 4, 4, 4]), 2).shape
    paddle.Size([1, 2, 2, 2, 2])
    """
    return _max_pool('max_pool3d', 3, x, kernel_size, stride, padding, return_mask, ceil_mode,
                     data_format)


def avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format='NCDHW', name=None):
    """3-D average pooling (``exclusive``/``divisor_override`` as in ``avg_pool2d``)."""
    return _avg_pool('avg_pool3d', 3, x, kernel_size, stride, padding, ceil_mode, exclusive,
                     divisor_override, data_format)


def adaptive_avg_pool3d(x, output_size, data_format='NCDHW', name=None):
    """Adaptive average pooling of a 5-D input to ``output_size`` (int or 3 values;
    None keeps a dim)."""
    size = _adaptive_size('adaptive_avg_pool3d', x, output_size, 3, data_format)
    return adaptive_avg_pool_op(x, size, data_format)


def adaptive_max_pool3d(x, output_size, return_mask=False, name=None):
    """Adaptive max pooling of NCDHW ``x``; ``return_mask`` gives the argmax indices."""
    out, mask = adaptive_max_pool_op(
        x, _adaptive_size('adaptive_max_pool3d', x, output_size, 3, 'NCDHW'), 'NCDHW')
    return (out, mask) if return_mask else out


def _lp_pool(api, nd, x, norm_type, kernel_size, stride, padding, ceil_mode, data_format):
    """``(sum over the window of x ** p) ** (1 / p)``; ``p = inf`` is the max.
    As in Paddle, no absolute value is taken (an odd or fractional power of a
    negative window sum is nan) and padding adds zeros to the sum."""
    if norm_type == 0:
        raise OpError("%s: norm_type cannot be 0" % api)
    norm_type = float(norm_type)
    ksize, stride, pad = _pool_args(api, x, kernel_size, stride, padding, ceil_mode,
                                    data_format, nd)
    if norm_type == float('inf'):
        return max_pool_op(x, ksize, stride, pad, bool(ceil_mode), data_format)[0]
    total = avg_pool_op(lib.pow(x, norm_type), ksize, stride, pad, bool(ceil_mode), True, 1,
                        data_format)
    return lib.pow(total, 1.0 / norm_type)


def lp_pool1d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format='NCL', name=None):
    """Power-average pooling of ``[N, C, L]``: ``(sum x ** p) ** (1 / p)`` per window.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.lp_pool1d(paddle.to_tensor([[[3.0, 4.0]]]), 2, 2).numpy().tolist()
    [[[5.0]]]
    """
    return _lp_pool('lp_pool1d', 1, x, norm_type, kernel_size, stride, padding, ceil_mode,
                    data_format)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format='NCHW', name=None):
    """Power-average pooling of ``[N, C, H, W]`` (or NHWC)."""
    return _lp_pool('lp_pool2d', 2, x, norm_type, kernel_size, stride, padding, ceil_mode,
                    data_format)


def _unpool(api, nd, x, indices, kernel_size, stride, padding, data_format, output_size):
    fmt = P.FORMATS[nd][0]
    if data_format != fmt:
        raise OpError("%s: data_format must be %r, got %r" % (api, fmt, data_format))
    if len(x.shape) != nd + 2 or len(indices.shape) != nd + 2:
        raise OpError("%s: x and indices must be %d-D (%s), got shapes %s and %s"
                      % (api, nd + 2, fmt, list(x.shape), list(indices.shape)))
    ksize = P.int_list(kernel_size, nd, api, 'kernel_size', 1)
    stride = ksize if stride is None else P.int_list(stride, nd, api, 'stride', 1)
    pad = P.int_list(padding, nd, api, 'padding', 0)
    insp = list(x.shape[2:])
    default = [(n - 1) * s + k - 2 * p for n, s, k, p in zip(insp, stride, ksize, pad)]
    if output_size is None:
        size = default
    else:
        if hasattr(output_size, 'tolist') and not isinstance(output_size, (list, tuple)):
            output_size = output_size.tolist()
        size = [int(getattr(v, 'item', lambda: v)()) for v in output_size]
        if len(size) == nd + 2:
            size = size[2:]
        if len(size) != nd:
            raise OpError("%s: output_size must have %d or %d entries, got %r"
                          % (api, nd, nd + 2, output_size))
        for d, (o, s) in enumerate(zip(size, stride)):
            if default[d] >= 0 and not default[d] - s < o < default[d] + s:
                raise OpError("%s: invalid output_size %s (dim %d must be between %d and %d)"
                              % (api, size, d, default[d] - s, default[d] + s))
    if any(o <= 0 for o in size):
        raise OpError("%s: the output would be empty (size %s)" % (api, size))
    return max_unpool_op(x, indices, size, fmt)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, data_format='NCL',
                 output_size=None, name=None):
    """Inverse of ``max_pool1d``: the pooled values put back at their ``indices``
    (the mask of ``max_pool1d(..., return_mask=True)``), zeros elsewhere."""
    return _unpool('max_unpool1d', 1, x, indices, kernel_size, stride, padding, data_format,
                   output_size)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, data_format='NCHW',
                 output_size=None, name=None):
    """Inverse of ``max_pool2d`` (see ``max_unpool1d``).

    >>> import framework as paddle, framework.nn.functional as F
    >>> y, idx = F.max_pool2d(paddle.rand([1, 1, 4, 4]), 2, return_mask=True)
    >>> F.max_unpool2d(y, idx, 2).shape
    paddle.Size([1, 1, 4, 4])
    """
    return _unpool('max_unpool2d', 2, x, indices, kernel_size, stride, padding, data_format,
                   output_size)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, data_format='NCDHW',
                 output_size=None, name=None):
    """Inverse of ``max_pool3d`` (see ``max_unpool1d``)."""
    return _unpool('max_unpool3d', 3, x, indices, kernel_size, stride, padding, data_format,
                   output_size)


def _fractional(api, nd, x, output_size, kernel_size, random_u, return_mask):
    if len(x.shape) != nd + 2:
        raise OpError("%s: input x must be %d-D, got shape %s" % (api, nd + 2, list(x.shape)))
    if random_u is None:
        random_u = 0.0
    elif not 0 < random_u < 1:
        raise ValueError("%s: random_u must be a float in (0, 1), got %r" % (api, random_u))
    ksize = [0] * nd if kernel_size is None else P.int_list(kernel_size, nd, api,
                                                           'kernel_size', 1)
    sp = list(x.shape[2:])
    if isinstance(output_size, (list, tuple)):
        size = [s if o is None else o for o, s in zip(output_size, sp)]
    else:
        size = [output_size] * nd
    size = P.int_list(size, nd, api, 'output_size', 1)
    out, mask = fractional_max_pool_op(x, size, ksize, float(random_u))
    return (out, mask) if return_mask else out


def fractional_max_pool2d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Fractional max pooling of NCHW ``x`` to ``output_size``: pseudo-random
    window boundaries (Graham 2014); ``kernel_size`` None makes the windows tile
    the input, ``random_u`` in (0, 1) fixes the sequence (None draws one)."""
    return _fractional('fractional_max_pool2d', 2, x, output_size, kernel_size, random_u,
                       return_mask)


def fractional_max_pool3d(x, output_size, kernel_size=None, random_u=None, return_mask=False,
                          name=None):
    """Fractional max pooling of NCDHW ``x`` (see ``fractional_max_pool2d``)."""
    return _fractional('fractional_max_pool3d', 3, x, output_size, kernel_size, random_u,
                       return_mask)


__all__ = ['max_pool1d', 'max_pool2d', 'max_pool3d', 'avg_pool1d', 'avg_pool2d', 'avg_pool3d',
           'adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d',
           'adaptive_max_pool1d', 'adaptive_max_pool2d', 'adaptive_max_pool3d', 'lp_pool1d',
           'lp_pool2d', 'max_unpool1d', 'max_unpool2d', 'max_unpool3d', 'fractional_max_pool2d',
           'fractional_max_pool3d']


# ---- test cases (references: loop implementations in reference.py) --------------------

def _ref_layout(fn, x, fmt, *args):
    res = fn(P.to_nchw(x, fmt), *args)
    if isinstance(res, tuple):
        return tuple(P.from_nchw(r, fmt) for r in res)
    return P.from_nchw(res, fmt)


def _ref_max(x, k, s, p, ceil, fmt):
    if x.ndim == 5:
        return _ref_layout(ref.max_pool_nd, x, fmt, k, s, p, ceil)
    return _ref_layout(ref.max_pool2d, x, fmt, P.hw2(k, 1), P.hw2(s, 1), P.pad4(p), ceil)


def _ref_avg(x, k, s, p, ceil, excl, div, fmt):
    if x.ndim == 5:
        return _ref_layout(ref.avg_pool_nd, x, fmt, k, s, p, ceil, excl, div or None)
    return _ref_layout(ref.avg_pool2d, x, fmt, P.hw2(k, 1), P.hw2(s, 1), P.pad4(p), ceil, excl,
                       div or None)


def _ref_avg_adjoint(g, target, k, s, p, ceil, excl, div, fmt):
    """A^T g with A built column by column from the loop reference applied to
    every basis image of the input."""
    flat = np.zeros(target.size)
    cols = []
    for t in range(target.size):
        flat[:] = 0
        flat[t] = 1
        cols.append(_ref_avg(flat.reshape(target.shape), k, s, p, ceil, excl, div, fmt).ravel())
    return (np.stack(cols) @ g.ravel()).reshape(target.shape)


def _ref_scatter(g, mask, target, fmt, overlapping=True):
    out = np.zeros(P.to_nchw(target, fmt).shape)
    g4, m4 = P.to_nchw(g, fmt), P.to_nchw(mask, fmt)
    for idx in np.ndindex(*g4.shape):
        n, c = idx[:2]
        out[(n, c) + np.unravel_index(int(m4[idx]), out.shape[2:])] += g4[idx]
    return P.from_nchw(out, fmt)


def _ref_gather(x, mask, fmt):
    x4, m4 = P.to_nchw(x, fmt), P.to_nchw(mask, fmt)
    out = np.zeros(m4.shape)
    for idx in np.ndindex(*m4.shape):
        k = int(m4[idx])
        out[idx] = x4[idx[0], idx[1], k // x4.shape[3], k % x4.shape[3]]
    return P.from_nchw(out, fmt)


def _ref_gather3(x, mask, fmt):
    x5, m5 = P.to_nchw(x, fmt), P.to_nchw(mask, fmt)
    out = np.zeros(m5.shape)
    for idx in np.ndindex(*m5.shape):
        out[idx] = x5[idx[:2] + np.unravel_index(int(m5[idx]), x5.shape[2:])]
    return P.from_nchw(out, fmt)


def _ref_adaptive_avg(x, size, fmt):
    if x.ndim == 5:
        return _ref_layout(ref.adaptive_pool_nd, x, fmt, size, 'avg')
    return _ref_layout(ref.adaptive_avg_pool2d, x, fmt, P.hw2(size, 1))


def _ref_adaptive_avg_adjoint(g, target, fmt):
    out_size = P.spatial_shape(g.shape, fmt)
    flat = np.zeros(target.size)
    cols = []
    for t in range(target.size):
        flat[:] = 0
        flat[t] = 1
        cols.append(_ref_adaptive_avg(flat.reshape(target.shape), out_size, fmt).ravel())
    return (np.stack(cols) @ g.ravel()).reshape(target.shape)


def _ref_adaptive_max(x, size, fmt):
    if x.ndim == 5:
        return _ref_layout(ref.adaptive_pool_nd, x, fmt, size, 'max')
    return _ref_layout(ref.adaptive_max_pool2d, x, fmt, P.hw2(size, 1))


def _distinct(shape, rng):
    """Inputs whose values are well separated, so max pooling has no near-ties
    (finite differences must not move the argmax)."""
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.1 + rng.uniform(-0.01, 0.01, shape))


_rng = np.random.default_rng(33)
_r = _rng.standard_normal
_x1 = _distinct((2, 2, 5, 5), _rng)
_x2 = _distinct((1, 4, 5, 3), _rng)

add_test_case(max_pool_op, _x1, [2, 2], [2, 2], [0, 0, 0, 0], True, 'NCHW', ref=_ref_max)
add_test_case(max_pool_op, _x1, [3, 2], [2, 1], [1, 1, 0, 1], False, 'NCHW', ref=_ref_max)
add_test_case(max_pool_op, _x2, [2, 2], [1, 2], [1, 0, 0, 1], True, 'NHWC', ref=_ref_max)
add_test_case(max_pool_op, _distinct((2, 3, 7), _rng), [3], [2], [1, 1], False, 'NCL',
              ref=_ref_max)
add_test_case(avg_pool_op, _r((2, 2, 5, 5)), [3, 3], [2, 2], [1, 1, 1, 1], True, True, 0,
              'NCHW', ref=_ref_avg)
add_test_case(avg_pool_op, _r((2, 2, 5, 5)), [2, 3], [2, 2], [1, 0, 1, 1], True, False, 0,
              'NCHW', ref=_ref_avg)
add_test_case(avg_pool_op, _r((1, 5, 4, 3)), [2, 2], [1, 1], [0, 1, 1, 0], False, True, 3,
              'NHWC', ref=_ref_avg)
add_test_case(avg_pool_op, _r((2, 6, 3)), [2], [2], [1, 1], True, True, 0, 'NLC',
              ref=_ref_avg)
_mask = max_pool_op.kernel(_x1, [3, 2], [2, 1], [1, 1, 0, 1], False, 'NCHW')[1]
add_test_case(pool_scatter_op, _r(_mask.shape), _mask, np.zeros(_x1.shape), 'NCHW', True,
              ref=_ref_scatter)
_mask2 = max_pool_op.kernel(_x2, [2, 2], [2, 2], [0, 0, 0, 0], True, 'NHWC')[1]
add_test_case(pool_scatter_op, _r(_mask2.shape), _mask2, np.zeros(_x2.shape), 'NHWC', False,
              ref=lambda g, m, t, f, o: _ref_scatter(g, m, t, f))
add_test_case(pool_gather_op, _r(_x1.shape), _mask, 'NCHW', ref=_ref_gather)
add_test_case(avg_pool_grad_op, _r((2, 2, 3, 3)), np.zeros((2, 2, 5, 5)), [3, 3], [2, 2],
              [1, 1, 1, 1], True, True, 0, 'NCHW', ref=_ref_avg_adjoint)
add_test_case(avg_pool_grad_op, _r((1, 4, 3, 2)), np.zeros((1, 4, 3, 2)), [2, 2], [1, 1],
              [0, 1, 1, 0], False, False, 0, 'NHWC', ref=_ref_avg_adjoint)
add_test_case(adaptive_avg_pool_op, _r((2, 2, 5, 7)), [3, 4], 'NCHW', ref=_ref_adaptive_avg)
add_test_case(adaptive_avg_pool_op, _r((1, 5, 4, 3)), [2, 3], 'NHWC', ref=_ref_adaptive_avg)
add_test_case(adaptive_avg_pool_op, _r((2, 3, 7)), [3], 'NCL', ref=_ref_adaptive_avg)
add_test_case(adaptive_avg_pool_grad_op, _r((2, 2, 3, 4)), np.zeros((2, 2, 5, 7)), 'NCHW',
              ref=_ref_adaptive_avg_adjoint)
add_test_case(adaptive_max_pool_op, _distinct((2, 2, 5, 7), _rng), [3, 4], 'NCHW',
              ref=_ref_adaptive_max)
add_test_case(adaptive_max_pool_op, _distinct((2, 3, 7), _rng), [3], 'NCL',
              ref=_ref_adaptive_max)

# 3-D (the N-D tap loops): padding, ceil_mode, both layouts; float32 without grads
_x3 = _distinct((2, 2, 4, 5, 3), _rng)
add_test_case(max_pool_op, _x3, [2, 2, 2], [2, 2, 1], [1, 0, 0, 1, 1, 0], True, 'NCDHW',
              ref=_ref_max)
add_test_case(max_pool_op, _distinct((1, 3, 4, 3, 2), _rng), [2, 3, 2], [1, 2, 1],
              [0, 1, 1, 1, 0, 1], False, 'NDHWC', ref=_ref_max)
add_test_case(max_pool_op, _distinct((1, 2, 3, 3, 3), _rng).astype(np.float32), [2, 2, 2],
              [1, 1, 1], [0, 0, 0, 0, 0, 0], False, 'NCDHW', ref=_ref_max, grad=False)
add_test_case(avg_pool_op, _r((2, 2, 4, 5, 3)), [3, 2, 2], [2, 2, 1], [1, 1, 0, 1, 1, 0],
              True, False, 0, 'NCDHW', ref=_ref_avg)
add_test_case(avg_pool_op, _r((1, 3, 4, 3, 2)), [2, 2, 2], [1, 1, 1], [1, 0, 0, 1, 0, 0],
              False, True, 0, 'NDHWC', ref=_ref_avg)
add_test_case(avg_pool_op, _r((1, 2, 3, 3, 3)).astype(np.float32), [2, 2, 2], [2, 2, 2],
              [0, 0, 0, 0, 0, 0], True, True, 5, 'NCDHW', ref=_ref_avg, grad=False)
_mask3 = max_pool_op.kernel(_x3, [2, 2, 2], [2, 2, 1], [1, 0, 0, 1, 1, 0], True, 'NCDHW')[1]
add_test_case(pool_scatter_op, _r(_mask3.shape), _mask3, np.zeros(_x3.shape), 'NCDHW', True,
              ref=_ref_scatter)
add_test_case(pool_gather_op, _r(_x3.shape), _mask3, 'NCDHW', ref=_ref_gather3)
add_test_case(avg_pool_grad_op, _r((1, 2, 2, 2, 4)), np.zeros((1, 2, 3, 4, 5)), [2, 2, 2],
              [2, 2, 2], [1, 0, 0, 0, 1, 1], True, False, 0, 'NCDHW', ref=_ref_avg_adjoint)
add_test_case(adaptive_avg_pool_op, _r((2, 2, 5, 4, 3)), [3, 2, 2], 'NCDHW',
              ref=_ref_adaptive_avg)
add_test_case(adaptive_avg_pool_op, _r((1, 4, 3, 5, 2)), [2, 3, 1], 'NDHWC',
              ref=_ref_adaptive_avg)
add_test_case(adaptive_avg_pool_grad_op, _r((1, 2, 2, 3, 2)), np.zeros((1, 2, 3, 5, 4)),
              'NCDHW', ref=_ref_adaptive_avg_adjoint)
add_test_case(adaptive_max_pool_op, _distinct((2, 2, 5, 4, 3), _rng), [3, 2, 2], 'NCDHW',
              ref=_ref_adaptive_max)


def _ref_fractional(x, output_size, kernel_size, u):
    """Loop reference over the windows (bounds from ``fractional_bounds``, which
    tests/test_nn_pool_more.py checks against Paddle's sequences)."""
    bounds = [fractional_bounds(n, o, k, u) for n, o, k in
              zip(x.shape[2:], output_size, kernel_size)]
    out = np.zeros(x.shape[:2] + tuple(output_size), x.dtype)
    idx = np.zeros(out.shape, np.int32)
    for pos in np.ndindex(*output_size):
        win = tuple(slice(b[0][p], b[1][p]) for b, p in zip(bounds, pos))
        for b in range(x.shape[0]):
            for c in range(x.shape[1]):
                v = x[(b, c) + win]
                k = np.unravel_index(int(np.argmax(v)), v.shape)
                out[(b, c) + pos] = v[k]
                idx[(b, c) + pos] = np.ravel_multi_index(
                    tuple(w.start + kk for w, kk in zip(win, k)), x.shape[2:])
    return out, idx


def _ref_unpool(x, indices, output_size, fmt):
    out = np.zeros(x.shape[:2] + tuple(output_size), x.dtype)
    for idx in np.ndindex(*x.shape):
        out[idx[:2] + np.unravel_index(int(indices[idx]), tuple(output_size))] = x[idx]
    return out


add_test_case(fractional_max_pool_op, _distinct((2, 2, 9, 11), _rng), [4, 5], [0, 0], 0.6,
              ref=_ref_fractional)
add_test_case(fractional_max_pool_op, _distinct((1, 3, 8, 7), _rng), [3, 3], [2, 3], 0.3,
              ref=_ref_fractional)
add_test_case(fractional_max_pool_op, _distinct((1, 2, 5, 6, 7), _rng), [2, 3, 4], [0, 2, 0],
              0.45, ref=_ref_fractional)
add_test_case(fractional_max_pool_op, _distinct((1, 2, 6, 6), _rng).astype(np.float32),
              [3, 2], [0, 0], 0.9, ref=_ref_fractional, grad=False)
_m2 = max_pool_op.kernel(_x1, [2, 2], [2, 2], [0, 0, 0, 0], False, 'NCHW')[1]
add_test_case(max_unpool_op, _r(_m2.shape), _m2, [5, 5], 'NCHW', ref=_ref_unpool)
_m1 = max_pool_op.kernel(_distinct((2, 3, 8), _rng), [2], [2], [0, 0], False, 'NCL')[1]
add_test_case(max_unpool_op, _r(_m1.shape), _m1, [8], 'NCL', ref=_ref_unpool)
add_test_case(max_unpool_op, _r(_mask3.shape).astype(np.float32), _mask3, [4, 5, 3], 'NCDHW',
              ref=_ref_unpool, grad=False)
add_test_case(max_unpool_op, np.zeros((0, 2, 2, 2)), np.zeros((0, 2, 2, 2), np.int32), [4, 4],
              'NCHW', ref=_ref_unpool)
