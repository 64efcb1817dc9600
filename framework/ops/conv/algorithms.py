"""Numpy convolution algorithms for the three conv directions.

Every algorithm works on NCHW arrays (1-D convs arrive with H == 1; NHWC
inputs arrive as transposed views) and a ``ConvGeom`` that fixes all sizes:

* ``FORWARD[name](x, w, geom)``      -> y   ``[N, OC, OH, OW]``
* ``BACKWARD_DATA[name](g, w, geom)`` -> gx ``[N, C, H, W]``  (the transposed conv)
* ``BACKWARD_FILTER[name](x, g, geom)`` -> gw ``[OC, C/groups, KH, KW]``

with ``w`` of shape ``[OC, C/groups, KH, KW]``. All algorithms of a direction
compute the same function (tests compare each against a loop reference);
they differ only in speed, which depends on the shapes. ``applicable(name,
direction, geom)`` says which ones handle a geometry.

Algorithms (``candidates(direction, geom)`` lists the applicable ones):

* ``im2col``      column matrix + one GEMM per image/group (col2im scatter-adds
                  for the input gradient);
* ``batched``     the same with the batch innermost (``[C, H, W, n]``): one GEMM
                  per chunk of images, for small output planes;
* ``shift``       one GEMM per kernel tap, accumulated; for stride 1 each tap
                  is a copy-free slice of the flattened padded input (the
                  stride-1 input gradient: one GEMM for all taps, whose
                  blocks are added at their offsets);
* ``winograd``, ``winograd4``  F(2x2,3x3) and F(4x4,3x3) for 3x3, stride 1,
                  dilation 1 (forward and input gradient);
* ``im2col_forward``, ``batched_forward``  the stride-1 input gradient as a
                  forward im2col / batched conv with the flipped kernel;
* ``depthwise``   C/groups == 1: elementwise multiply-accumulate per tap.

The batch is processed in chunks sized so the largest temporary (the im2col
matrix, the Winograd tiles) stays around a few MB: reused heap blocks stay in
cache, and fresh large allocations (page faults) are avoided.
"""
import collections
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

# ---- geometry ----------------------------------------------------------------

ConvGeom = collections.namedtuple(
    'ConvGeom', 'n c h w oc kh kw oh ow sh sw dh dw pt pb pl pr groups')

_CHUNK_BYTES = 4 << 20


def conv_out_size(size, k, s, d, p0, p1):
    return (size + p0 + p1 - d * (k - 1) - 1) // s + 1


def geom_forward(xshape, wshape, stride, padding, dilation, groups):
    n, c, h, w = xshape
    oc, _, kh, kw = wshape
    (sh, sw), (dh, dw), (pt, pb, pl, pr) = stride, dilation, padding
    return ConvGeom(n, c, h, w, oc, kh, kw,
                    conv_out_size(h, kh, sh, dh, pt, pb), conv_out_size(w, kw, sw, dw, pl, pr),
                    sh, sw, dh, dw, pt, pb, pl, pr, groups)


def transpose_out_size(size, k, s, d, p0, p1, op):
    return (size - 1) * s - p0 - p1 + d * (k - 1) + 1 + op


def geom_transpose(gshape, wshape, stride, padding, output_padding, dilation, groups):
    """Geometry of the conv whose input-gradient is this transposed conv."""
    n, oc, oh, ow = gshape
    _, cg, kh, kw = wshape
    (sh, sw), (dh, dw), (pt, pb, pl, pr) = stride, dilation, padding
    h = transpose_out_size(oh, kh, sh, dh, pt, pb, output_padding[0])
    w = transpose_out_size(ow, kw, sw, dw, pl, pr, output_padding[1])
    return ConvGeom(n, cg * groups, h, w, oc, kh, kw, oh, ow, sh, sw, dh, dw,
                    pt, pb, pl, pr, groups)


def geom_filter(xshape, gshape, ksize, stride, padding, dilation, groups):
    n, c, h, w = xshape
    _, oc, oh, ow = gshape
    (kh, kw), (sh, sw), (dh, dw), (pt, pb, pl, pr) = ksize, stride, dilation, padding
    return ConvGeom(n, c, h, w, oc, kh, kw, oh, ow, sh, sw, dh, dw, pt, pb, pl, pr, groups)


def _chunk(n, per_image_bytes):
    """Images per chunk, balanced so the chunks are (nearly) equal: fewer
    distinct shapes, so fewer workspace buffers (256 images at 69 a chunk
    run as 4 chunks of 64, not 3 of 69 and one of 49)."""
    most = max(1, min(n, _CHUNK_BYTES // max(per_image_bytes, 1)))
    chunks = -(-n // most)
    return -(-n // chunks) if n else most


def _has_padding(g):
    return bool(g.pt or g.pb or g.pl or g.pr)


def _padded(g):
    return g.h + g.pt + g.pb, g.w + g.pl + g.pr


padded_grid = _padded     # (Hp, Wp): the search's cost estimates use it too


def _pad(x, g, channel_major=False):
    """Zero-padded copy ``[n, C, Hp, Wp]`` (or ``[C, n, Hp, Wp]``); x itself
    when no padding or layout change is needed."""
    hp, wp = _padded(g)
    if channel_major:
        x = x.transpose(1, 0, 2, 3)
    elif hp == g.h and wp == g.w:
        return x
    out = np.zeros(x.shape[:2] + (hp, wp), x.dtype)
    out[:, :, g.pt:g.pt + g.h, g.pl:g.pl + g.w] = x
    return out


def _offsets(g):
    for i in range(g.kh):
        for j in range(g.kw):
            yield i, j


def _tap_slices(g, i, j):
    """(rows, columns) of the padded input that kernel tap (i, j) reads."""
    r0, c0 = i * g.dh, j * g.dw
    return (slice(r0, r0 + g.sh * (g.oh - 1) + 1, g.sh),
            slice(c0, c0 + g.sw * (g.ow - 1) + 1, g.sw))


def _tap(xp, g, i, j):
    """The input pixels kernel tap (i, j) sees, for every output pixel: a
    strided view ``[..., OH, OW]`` of a padded array."""
    return xp[(Ellipsis,) + _tap_slices(g, i, j)]


def _grouped_w(w, g):
    """``[G, OCg, Cg*KH*KW]``."""
    return w.reshape(g.groups, g.oc // g.groups, -1)


# ---- im2col + GEMM -----------------------------------------------------------
#
# The column matrix ``[n, C, KH, KW, OH, OW]`` of a batch chunk is filled tap by
# tap straight from the unpadded input: every tap copies only the output
# pixels whose input lies inside the image, the same region for every chunk,
# so the buffer's zero border (the padding) is written once and the buffer is
# reused chunk after chunk (it stays in cache; no padded copy of x is made).

def _valid_range(o, s, offset, size):
    """Output positions [lo, hi) of a tap at ``offset`` that read inside the
    input, and the first input position read."""
    lo = -(offset // s) if offset < 0 else 0
    hi = min(o, (size - 1 - offset) // s + 1) if size - 1 - offset >= 0 else 0
    return lo, max(hi, lo), lo * s + offset


class _Workspace(threading.local):
    """Per-thread scratch buffers reused across calls (like cuDNN's workspace):
    a column buffer keeps its zero padding border, so it is neither allocated
    (page faults) nor zeroed again. Least recently used out beyond
    ``total_bytes`` (a net's convs each keep their buffers: evicting them
    between layers would page-fault fresh ones every step)."""
    max_bytes = 32 << 20
    total_bytes = 96 << 20

    def __init__(self):
        self.entries = collections.OrderedDict()
        self.used = 0

    def get(self, key, make, nbytes):
        if nbytes > self.max_bytes:       # too big to keep around
            return make()
        entry = self.entries.pop(key, None)
        if entry is None:
            entry = (make(), nbytes)
            self.used += nbytes
        self.entries[key] = entry
        while self.used > self.total_bytes:
            self.used -= self.entries.popitem(last=False)[1][1]
        return entry[0]


_workspace = _Workspace()


class _Columns:
    def __init__(self, g, nb, dtype):
        self.g = g
        nbytes = nb * g.c * g.kh * g.kw * g.oh * g.ow * dtype.itemsize
        self.buf, self.taps = _workspace.get(('cols', g, nb, dtype.str),
                                             lambda: self._make(g, nb, dtype), nbytes)

    @staticmethod
    def _make(g, nb, dtype):
        shape = (nb, g.c, g.kh, g.kw, g.oh, g.ow)
        if not _has_padding(g):
            return np.empty(shape, dtype), None
        taps = []
        for i, j in _offsets(g):
            r = _valid_range(g.oh, g.sh, i * g.dh - g.pt, g.h)
            c = _valid_range(g.ow, g.sw, j * g.dw - g.pl, g.w)
            if r[1] > r[0] and c[1] > c[0]:
                taps.append((i, j, r, c))
        return np.zeros(shape, dtype), taps

    def fill(self, xc):
        """Columns of the images ``xc``: ``[n, G, Cg*KH*KW, OH*OW]``."""
        g, n = self.g, xc.shape[0]
        buf = self.buf[:n]
        if self.taps is None:
            # no padding: one strided copy beats KH*KW small ones
            s0, s1, s2, s3 = xc.strides
            np.copyto(buf, as_strided(xc, buf.shape, (s0, s1, s2 * g.dh, s3 * g.dw,
                                                      s2 * g.sh, s3 * g.sw), writeable=False))
            return buf.reshape(n, g.groups, -1, g.oh * g.ow)
        for i, j, (h0, h1, r0), (w0, w1, c0) in self.taps:
            buf[:, :, i, j, h0:h1, w0:w1] = xc[:, :, r0:r0 + (h1 - h0 - 1) * g.sh + 1:g.sh,
                                               c0:c0 + (w1 - w0 - 1) * g.sw + 1:g.sw]
        return buf.reshape(n, g.groups, -1, g.oh * g.ow)


def _fwd_im2col(x, w, g):
    out = np.empty((g.n, g.groups, g.oc // g.groups, g.oh * g.ow), x.dtype)
    wm = _grouped_w(w, g)
    if g.kh == g.kw == 1 and g.sh == g.sw == 1 and not _has_padding(g):
        # 1x1: the input already is the column matrix
        np.matmul(wm, x.reshape(g.n, g.groups, g.c // g.groups, g.h * g.w), out=out)
        return out.reshape(g.n, g.oc, g.oh, g.ow)
    k = g.c * g.kh * g.kw
    nb = _chunk(g.n, k * g.oh * g.ow * x.itemsize)
    cols = _Columns(g, nb, x.dtype)
    for n0 in range(0, g.n, nb):
        np.matmul(wm, cols.fill(x[n0:n0 + nb]), out=out[n0:n0 + nb])
    return out.reshape(g.n, g.oc, g.oh, g.ow)


def _col2im_add(gxp, cols, g):
    """Scatter-add the columns ``[n, C, KH, KW, OH, OW]`` back onto the padded image."""
    for i, j in _offsets(g):
        _tap(gxp, g, i, j)[...] += cols[:, :, i, j]


def _bwd_data_im2col(gy, w, g):
    gx = np.empty((g.n, g.c, g.h, g.w), gy.dtype)
    wt = _grouped_w(w, g).transpose(0, 2, 1)          # [G, Kg, OCg]
    hp, wp = _padded(g)
    k = g.c * g.kh * g.kw
    nb = _chunk(g.n, k * g.oh * g.ow * gy.itemsize)
    for n0 in range(0, g.n, nb):
        gc = gy[n0:n0 + nb]
        n = gc.shape[0]
        cols = np.matmul(wt, gc.reshape(n, g.groups, g.oc // g.groups, g.oh * g.ow))
        cols = cols.reshape(n, g.c, g.kh, g.kw, g.oh, g.ow)
        gxp = np.zeros((n, g.c, hp, wp), gy.dtype)
        _col2im_add(gxp, cols, g)
        gx[n0:n0 + n] = gxp[:, :, g.pt:g.pt + g.h, g.pl:g.pl + g.w]
    return gx


def _bwd_filter_im2col(x, gy, g):
    grp, cg, ocg = g.groups, g.c // g.groups, g.oc // g.groups
    kg = cg * g.kh * g.kw
    gwt = np.zeros((grp, kg, ocg), np.result_type(x, gy))
    nb = _chunk(g.n, g.c * g.kh * g.kw * g.oh * g.ow * x.itemsize)
    cols = _Columns(g, nb, x.dtype)
    for n0 in range(0, g.n, nb):
        # the forward's column layout, then one GEMM per image; cols @ g^T
        # (long rows on the left) runs faster in OpenBLAS than g @ cols^T
        cc = cols.fill(x[n0:n0 + nb])
        n = cc.shape[0]
        gc = gy[n0:n0 + n].reshape(n, grp, ocg, g.oh * g.ow)
        gwt += np.matmul(cc, gc.transpose(0, 1, 3, 2)).sum(axis=0)
    return np.ascontiguousarray(gwt.transpose(0, 2, 1)).reshape(g.oc, cg, g.kh, g.kw)


# ---- im2col with the batch innermost ---------------------------------------------
#
# With small output planes (LeNet's 10x10, a ResNet's 7x7) the per-image
# GEMMs above are skinny (N = OH*OW) and the column copy runs in short runs
# of OW pixels. Stored channel, row, column, image (``[C, Hp, Wp, n]``, the
# batch innermost), the pixels a tap reads for one output row are ONE run of
# OW*n values, and the column matrix ``[C*KH*KW, OH*OW*n]`` feeds one GEMM per
# chunk with the batch folded into its N dimension; col2im's scatter-adds
# (input gradient) are runs of OW*n too. The price is a transpose in and
# one out, cheap for small planes.

def _batched_columns(xc, g):
    """``[G, Kg, OH*OW*n]`` columns of the chunk ``xc`` (batch innermost)."""
    hp, wp = _padded(g)
    n, e, dt = xc.shape[0], xc.itemsize, xc.dtype
    buf = _workspace.get(('bat-x', g, n, dt.str), lambda: np.zeros((g.c, hp, wp, n), dt),
                         g.c * hp * wp * n * e)
    buf[:, g.pt:g.pt + g.h, g.pl:g.pl + g.w, :] = xc.transpose(1, 2, 3, 0)
    shape = (g.c, g.kh, g.kw, g.oh, g.ow, n)
    cols = _workspace.get(('bat-cols', g, n, dt.str), lambda: np.empty(shape, dt),
                          int(np.prod(shape)) * e)
    s = wp * n * e
    np.copyto(cols, as_strided(buf, shape, (hp * s, g.dh * s, g.dw * n * e, g.sh * s,
                                            g.sw * n * e, e), writeable=False))
    return cols.reshape(g.groups, -1, g.oh * g.ow * n)


def _batched_chunk(g, itemsize):
    return _chunk(g.n, g.c * g.kh * g.kw * g.oh * g.ow * itemsize)


def _fwd_batched(x, w, g):
    p = g.oh * g.ow
    out = np.empty((g.n, g.oc, p), x.dtype)
    wm = _grouped_w(w, g)
    nb = _batched_chunk(g, x.itemsize)
    for n0 in range(0, g.n, nb):
        cols = _batched_columns(x[n0:n0 + nb], g)
        n = cols.shape[-1] // p
        res = np.matmul(wm, cols)                          # [G, OCg, OH*OW*n]
        out[n0:n0 + n] = res.reshape(g.oc, p, n).transpose(2, 0, 1)
    return out.reshape(g.n, g.oc, g.oh, g.ow)


def _bwd_data_batched(gy, w, g):
    """The input gradient as GEMM + col2im with the batch innermost: each
    tap's scatter-add is a slice whose rows are runs of OW*n values."""
    grp, ocg = g.groups, g.oc // g.groups
    hp, wp = _padded(g)
    p = g.oh * g.ow
    gx = np.empty((g.n, g.c, g.h, g.w), gy.dtype)
    wt = _grouped_w(w, g).transpose(0, 2, 1)                 # [G, Kg, OCg]
    nb = _batched_chunk(g, gy.itemsize)
    for n0 in range(0, g.n, nb):
        gc = gy[n0:n0 + nb]
        n = gc.shape[0]
        gt = gc.reshape(n, grp, ocg, p).transpose(1, 2, 3, 0).reshape(grp, ocg, p * n)
        cols = np.matmul(wt, gt).reshape(g.c, g.kh, g.kw, g.oh, g.ow, n)
        gxt = np.zeros((g.c, hp, wp, n), gy.dtype)
        for i, j in _offsets(g):
            rows, columns = _tap_slices(g, i, j)
            gxt[:, rows, columns] += cols[:, i, j]
        gx[n0:n0 + n] = gxt[:, g.pt:g.pt + g.h, g.pl:g.pl + g.w].transpose(3, 0, 1, 2)
    return gx


def _bwd_filter_batched(x, gy, g):
    grp, cg, ocg = g.groups, g.c // g.groups, g.oc // g.groups
    p = g.oh * g.ow
    gwt = np.zeros((grp, cg * g.kh * g.kw, ocg), np.result_type(x, gy))
    nb = _batched_chunk(g, x.itemsize)
    for n0 in range(0, g.n, nb):
        cols = _batched_columns(x[n0:n0 + nb], g)
        kg, n = cols.shape[1], cols.shape[-1] // p
        gc = gy[n0:n0 + n].reshape(n, grp, ocg, p).transpose(1, 3, 0, 2)   # [G, P, n, OCg]
        # the reduction in n segments of P terms (GEMMs on strided views),
        # then a sum: float32 rounds as im2col's per-image GEMMs do, where one
        # reduction over all P*n terms erred up to 1.8x more
        parts = np.matmul(cols.reshape(grp, kg, n, p).transpose(0, 2, 1, 3),
                          gc.reshape(grp, n, p, ocg))
        gwt += parts.sum(axis=1)
    return np.ascontiguousarray(gwt.transpose(0, 2, 1)).reshape(g.oc, cg, g.kh, g.kw)


# ---- per-tap GEMM accumulation -------------------------------------------------
#
# Stride 1: with the padded input stored channel-major and flattened per
# channel ([C, n*Hp*Wp]), tap (i, j) is the contiguous slice starting at
# i*dh*Wp + j*dw, so each tap is one GEMM on a view without any copy; the
# result lives on the padded grid and the columns past OW are cropped. Other
# strides copy each tap's strided view (im2col in KH*KW slices).

def _flat_input(xc, g):
    """Channel-major padded input flattened per channel, with a zero tail so
    every tap's slice stays in bounds: ``([G, Cg, M + tail], M, Wp)``."""
    hp, wp = _padded(g)
    n = xc.shape[0]
    m = n * hp * wp
    tail = (g.kh - 1) * g.dh * wp + (g.kw - 1) * g.dw
    buf = np.zeros((g.c, m + tail), xc.dtype)
    buf[:, :m].reshape(g.c, n, hp, wp)[:, :, g.pt:g.pt + g.h, g.pl:g.pl + g.w] = \
        xc.transpose(1, 0, 2, 3)
    return buf.reshape(g.groups, g.c // g.groups, -1), m, wp


def _flat_grad(gc, g):
    """Output grad embedded in the padded grid, channel-major: ``[G, OCg, M]``."""
    hp, wp = _padded(g)
    n = gc.shape[0]
    buf = np.zeros((g.oc, n, hp, wp), gc.dtype)
    buf[:, :, :g.oh, :g.ow] = gc.transpose(1, 0, 2, 3)
    return buf.reshape(g.groups, g.oc // g.groups, -1)


def _w_tap(w, g, i, j):
    return w[:, :, i, j].reshape(g.groups, g.oc // g.groups, g.c // g.groups)


def _fwd_shift(x, w, g):
    out = np.empty((g.n, g.oc, g.oh, g.ow), x.dtype)
    hp, wp = _padded(g)
    per = (g.c + 2 * g.oc) * hp * wp * x.itemsize
    nb = _chunk(g.n, per)
    for n0 in range(0, g.n, nb):
        xc = x[n0:n0 + nb]
        n = xc.shape[0]
        if g.sh == 1 and g.sw == 1:
            buf, m, wp = _flat_input(xc, g)
            acc = tmp = None
            for i, j in _offsets(g):
                o = i * g.dh * wp + j * g.dw
                if acc is None:
                    acc = np.matmul(_w_tap(w, g, i, j), buf[:, :, o:o + m])
                    tmp = np.empty_like(acc)
                else:
                    acc += np.matmul(_w_tap(w, g, i, j), buf[:, :, o:o + m], out=tmp)
            y = acc.reshape(g.oc, n, hp, wp)[:, :, :g.oh, :g.ow]
        else:
            xp = _pad(xc, g, channel_major=True)
            acc = None
            for i, j in _offsets(g):
                tap = _tap(xp, g, i, j).reshape(g.groups, g.c // g.groups, -1)
                r = np.matmul(_w_tap(w, g, i, j), tap)
                acc = r if acc is None else np.add(acc, r, out=acc)
            y = acc.reshape(g.oc, n, g.oh, g.ow)
        out[n0:n0 + n] = y.transpose(1, 0, 2, 3)
    return out


def _bwd_data_flat(gc, w, g):
    """Stride-1 input gradient on the flat padded grid: ONE GEMM gives every
    tap's contribution ``W_t^T g`` at once (K = OC/groups), then each tap's
    block is added at its offset, a contiguous 1-D slice (no per-tap GEMM
    calls, no strided scatter): ``[G, Cg, M]``."""
    grp, cg, ocg = g.groups, g.c // g.groups, g.oc // g.groups
    taps = g.kh * g.kw
    gf = _flat_grad(gc, g)
    m = gf.shape[-1]
    wp = _padded(g)[1]
    wall = w.reshape(grp, ocg, cg, taps).transpose(0, 3, 2, 1).reshape(grp, taps * cg, ocg)
    contrib = np.matmul(wall, gf).reshape(grp, taps, cg, m)
    tail = (g.kh - 1) * g.dh * wp + (g.kw - 1) * g.dw
    acc = np.zeros((grp, cg, m + tail), gc.dtype)
    for t, (i, j) in enumerate(_offsets(g)):
        o = i * g.dh * wp + j * g.dw
        acc[:, :, o:o + m] += contrib[:, t]
    return acc[:, :, :m]


def _bwd_data_shift(gy, w, g):
    gx = np.empty((g.n, g.c, g.h, g.w), gy.dtype)
    hp, wp = _padded(g)
    per = (g.c * (g.kh * g.kw + 1) if g.sh == g.sw == 1 else 2 * g.c) + g.oc
    nb = _chunk(g.n, per * hp * wp * gy.itemsize)
    for n0 in range(0, g.n, nb):
        gc = gy[n0:n0 + nb]
        n = gc.shape[0]
        if g.sh == 1 and g.sw == 1:
            gxp = _bwd_data_flat(gc, w, g).reshape(g.c, n, hp, wp)
        else:
            gt = gc.transpose(1, 0, 2, 3).reshape(g.groups, g.oc // g.groups, -1)
            gxp = np.zeros((g.c, n, hp, wp), gy.dtype)
            for i, j in _offsets(g):
                r = np.matmul(_w_tap(w, g, i, j).transpose(0, 2, 1), gt)
                _tap(gxp, g, i, j)[...] += r.reshape(g.c, n, g.oh, g.ow)
        gx[n0:n0 + n] = gxp[:, :, g.pt:g.pt + g.h, g.pl:g.pl + g.w].transpose(1, 0, 2, 3)
    return gx


def _bwd_filter_shift(x, gy, g):
    grp, cg, ocg = g.groups, g.c // g.groups, g.oc // g.groups
    gw = np.zeros((g.kh, g.kw, grp, ocg, cg), np.result_type(x, gy))
    hp, wp = _padded(g)
    nb = _chunk(g.n, (g.c + g.oc) * hp * wp * x.itemsize)
    for n0 in range(0, g.n, nb):
        xc = x[n0:n0 + nb]
        if g.sh == 1 and g.sw == 1:
            buf, m, wp = _flat_input(xc, g)
            gf = _flat_grad(gy[n0:n0 + nb], g).transpose(0, 2, 1)   # [G, M, OCg]
            for i, j in _offsets(g):
                o = i * g.dh * wp + j * g.dw
                # (x_tap @ g^T)^T keeps the long axis contiguous for BLAS
                gw[i, j] += np.matmul(buf[:, :, o:o + m], gf).transpose(0, 2, 1)
        else:
            xp = _pad(xc, g, channel_major=True)
            gt = gy[n0:n0 + nb].transpose(1, 0, 2, 3).reshape(grp, ocg, -1)
            for i, j in _offsets(g):
                tap = _tap(xp, g, i, j).reshape(grp, cg, -1)
                gw[i, j] += np.matmul(gt, tap.transpose(0, 2, 1))
    return gw.reshape(g.kh, g.kw, g.oc, cg).transpose(2, 3, 0, 1).copy()


# ---- depthwise (C/groups == 1): elementwise multiply-accumulate ------------------

def _dw_weight(w, g):
    """``[C, mult, 1, 1]`` per tap, broadcasting against ``[n, C, 1, OH, OW]``."""
    return w.reshape(g.c, g.oc // g.c, g.kh, g.kw)


def _fwd_depthwise(x, w, g):
    out = np.empty((g.n, g.c, g.oc // g.c, g.oh, g.ow), x.dtype)
    wd = _dw_weight(w, g)
    hp, wp = _padded(g)
    nb = _chunk(g.n, g.c * hp * wp * x.itemsize * 4)
    for n0 in range(0, g.n, nb):
        xp = _pad(x[n0:n0 + nb], g)[:, :, None]
        acc = out[n0:n0 + nb]
        tmp = np.empty_like(acc)
        for t, (i, j) in enumerate(_offsets(g)):
            wij = wd[:, :, i, j][:, :, None, None]
            if t == 0:
                np.multiply(_tap(xp, g, i, j), wij, out=acc)
            else:
                acc += np.multiply(_tap(xp, g, i, j), wij, out=tmp)
    return out.reshape(g.n, g.oc, g.oh, g.ow)


def _bwd_data_depthwise(gy, w, g):
    gx = np.empty((g.n, g.c, g.h, g.w), gy.dtype)
    wd = _dw_weight(w, g)
    mult = g.oc // g.c
    hp, wp = _padded(g)
    nb = _chunk(g.n, g.c * hp * wp * gy.itemsize * 4)
    for n0 in range(0, g.n, nb):
        gc = gy[n0:n0 + nb]
        n = gc.shape[0]
        gc = gc.reshape(n, g.c, mult, g.oh, g.ow)
        gxp = np.zeros((n, g.c, hp, wp), gy.dtype)
        for i, j in _offsets(g):
            contrib = gc * wd[:, :, i, j][:, :, None, None]
            _tap(gxp, g, i, j)[...] += contrib[:, :, 0] if mult == 1 else contrib.sum(2)
        gx[n0:n0 + n] = gxp[:, :, g.pt:g.pt + g.h, g.pl:g.pl + g.w]
    return gx


def _bwd_filter_depthwise(x, gy, g):
    mult = g.oc // g.c
    gw = np.zeros((g.c, mult, g.kh, g.kw), np.result_type(x, gy))
    hp, wp = _padded(g)
    nb = _chunk(g.n, g.c * hp * wp * x.itemsize * 4)
    for n0 in range(0, g.n, nb):
        xp = _pad(x[n0:n0 + nb], g)
        n = xp.shape[0]
        gc = gy[n0:n0 + nb].reshape(n, g.c, mult, g.oh * g.ow)
        for i, j in _offsets(g):
            tap = _tap(xp, g, i, j).reshape(n, g.c, 1, g.oh * g.ow)
            # batched dot products over (batch, pixels) per channel
            gw[:, :, i, j] += np.einsum('ncmp,ncip->cm', gc, tap)
    return gw.reshape(g.oc, 1, g.kh, g.kw)


# ---- Winograd F(2x2, 3x3) and F(4x4, 3x3) ------------------------------------------
#
# Output tiles of m x m come from (m+2) x (m+2) input tiles (stride m):
# y = A^T [(G w G^T) * (B^T d B)] A. The (m+2)^2 transformed tile positions
# turn the conv into that many independent [OC x C] @ [C x tiles] GEMMs:
# 16 multiplies per 4 outputs (F2, 2.25x fewer than direct) or 36 per 16 (F4,
# 4x fewer). The transforms cost accuracy: in float32 the norm-relative error
# is ~1.7x a direct GEMM's for F2 and ~10x (1e-6 .. 3e-6) for F4, so neither
# is a default, and the exhaustive search rejects F4 (search.error_bound). The input is stored split
# by row/column phase (position mod m), so each of the (m+2)^2 tile taps is a
# contiguous slice of it (no strided gathers); both transforms are single
# small-matrix GEMMs with the Kronecker products of the 1-D transforms.

_WINOGRAD = {
    2: (np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64),
        np.array([[1, 0, 0], [.5, .5, .5], [.5, -.5, .5], [0, 0, 1]], np.float64),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64)),
    4: (np.array([[4, 0, -5, 0, 1, 0], [0, -4, -4, 1, 1, 0], [0, 4, -4, -1, 1, 0],
                  [0, -2, -1, 2, 1, 0], [0, 2, -1, -2, 1, 0], [0, 4, 0, -5, 0, 1]], np.float64),
        np.array([[1 / 4, 0, 0], [-1 / 6, -1 / 6, -1 / 6], [-1 / 6, 1 / 6, -1 / 6],
                  [1 / 24, 1 / 12, 1 / 6], [1 / 24, -1 / 12, 1 / 6], [0, 0, 1]], np.float64),
        np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0],
                  [0, 1, -1, 8, -8, 1]], np.float64)),
}


def _winograd_ok(g):
    return g.kh == 3 and g.kw == 3 and g.sh == g.sw == 1 and g.dh == g.dw == 1


def _phase_split(xc, g, m, tyq, txq):
    """Padded input as ``[m, m, C, n*tyq*txq + tail]``: row phase, column phase,
    channel, then (image, row//m, col//m) flattened."""
    n = xc.shape[0]
    size = n * tyq * txq
    xq = np.zeros((m, m, g.c, size + txq + 1), xc.dtype)
    grid = xq[..., :size].reshape(m, m, g.c, n, tyq, txq)
    xt = xc.transpose(1, 0, 2, 3)
    for ra in range(m):
        h0 = (ra - g.pt) % m
        q0, nh = (g.pt + h0) // m, len(range(h0, g.h, m))
        for rb in range(m):
            w0 = (rb - g.pl) % m
            r0, nw = (g.pl + w0) // m, len(range(w0, g.w, m))
            if nh and nw:
                grid[ra, rb, :, :, q0:q0 + nh, r0:r0 + nw] = xt[:, :, h0::m, w0::m]
    return xq, size


def _winograd(x, w, g, m):
    bt, gm, at = _WINOGRAD[m]
    a = m + 2
    dt = x.dtype
    grp, cg, ocg = g.groups, g.c // g.groups, g.oc // g.groups
    ty, tx = -(-g.oh // m), -(-g.ow // m)
    tyq, txq = ty + 1, tx + 1
    u = np.einsum('ik,ockl,jl->ijoc', gm, w.astype(np.float64), gm)
    u = u.reshape(a * a, grp, ocg, cg).astype(dt)
    bk, ak = np.kron(bt, bt).astype(dt), np.kron(at, at).astype(dt)
    out = np.empty((g.n, g.oc, ty, m, tx, m), dt)
    nb = _chunk(g.n, a * a * max(g.c, g.oc) * tyq * txq * x.itemsize)
    for n0 in range(0, g.n, nb):
        xc = x[n0:n0 + nb]
        n = xc.shape[0]
        xq, size = _phase_split(xc, g, m, tyq, txq)
        d = np.empty((a * a, g.c, size), dt)
        for i in range(a):
            for j in range(a):
                o = (i // m) * txq + j // m
                d[i * a + j] = xq[i % m, j % m, :, o:o + size]
        v = np.matmul(bk, d.reshape(a * a, -1)).reshape(a * a, grp, cg, size)
        mm = np.matmul(u, v)                                    # [a*a, G, OCg, tiles]
        y = np.matmul(ak, mm.reshape(a * a, -1)).reshape(m, m, g.oc, n, tyq, txq)
        out[n0:n0 + n] = y[:, :, :, :, :ty, :tx].transpose(3, 2, 4, 0, 5, 1)
    out = out.reshape(g.n, g.oc, m * ty, m * tx)
    return out if (m * ty, m * tx) == (g.oh, g.ow) else out[:, :, :g.oh, :g.ow]


def _fwd_winograd(x, w, g):
    return _winograd(x, w, g, 2)


def _fwd_winograd4(x, w, g):
    return _winograd(x, w, g, 4)


def _flip_transpose(w, g):
    """Weights of the stride-1 conv equal to this conv's transpose:
    spatially flipped, in/out channels swapped within each group."""
    grp, cg, ocg = g.groups, g.c // g.groups, g.oc // g.groups
    wt = w.reshape(grp, ocg, cg, g.kh, g.kw).transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]
    return np.ascontiguousarray(wt).reshape(g.c, ocg, g.kh, g.kw)


def _transpose_as_forward(g):
    """Geometry of the stride-1 forward conv computing this conv's transpose,
    or None when that needs negative padding."""
    top = g.dh * (g.kh - 1) - g.pt
    left = g.dw * (g.kw - 1) - g.pl
    bottom = g.h + g.dh * (g.kh - 1) - g.oh - top
    right = g.w + g.dw * (g.kw - 1) - g.ow - left
    if min(top, left, bottom, right) < 0 or g.sh != 1 or g.sw != 1:
        return None
    return ConvGeom(g.n, g.oc, g.oh, g.ow, g.c, g.kh, g.kw, g.h, g.w, 1, 1, g.dh, g.dw,
                    top, bottom, left, right, g.groups)


def _bwd_data_winograd(gy, w, g):
    return _fwd_winograd(gy, _flip_transpose(w, g), _transpose_as_forward(g))


def _bwd_data_winograd4(gy, w, g):
    return _fwd_winograd4(gy, _flip_transpose(w, g), _transpose_as_forward(g))


def _bwd_data_im2col_forward(gy, w, g):
    """Stride-1 transposed conv as a forward im2col conv (no scatter-adds)."""
    return _fwd_im2col(gy, _flip_transpose(w, g), _transpose_as_forward(g))


def _bwd_data_batched_forward(gy, w, g):
    """The same with the batch innermost."""
    return _fwd_batched(gy, _flip_transpose(w, g), _transpose_as_forward(g))


# ---- registry -------------------------------------------------------------------

def _always(g):
    return True


def _is_depthwise(g):
    return g.c // g.groups == 1 and g.groups > 1


def _winograd_bwd_ok(g):
    return _winograd_ok(g) and _transpose_as_forward(g) is not None


FORWARD = {'im2col': _fwd_im2col, 'batched': _fwd_batched,
           'shift': _fwd_shift, 'winograd': _fwd_winograd,
           'winograd4': _fwd_winograd4, 'depthwise': _fwd_depthwise}
BACKWARD_DATA = {'im2col': _bwd_data_im2col, 'shift': _bwd_data_shift,
                 'winograd': _bwd_data_winograd, 'winograd4': _bwd_data_winograd4,
                 'im2col_forward': _bwd_data_im2col_forward,
                 'batched_forward': _bwd_data_batched_forward,
                 'batched': _bwd_data_batched,
                 'depthwise': _bwd_data_depthwise}
BACKWARD_FILTER = {'im2col': _bwd_filter_im2col,
                   'batched': _bwd_filter_batched, 'shift': _bwd_filter_shift,
                   'depthwise': _bwd_filter_depthwise}
DIRECTIONS = {'forward': FORWARD, 'backward_data': BACKWARD_DATA,
              'backward_filter': BACKWARD_FILTER}

_APPLICABLE = {
    ('forward', 'winograd'): _winograd_ok,
    ('forward', 'winograd4'): _winograd_ok,
    ('backward_data', 'winograd'): _winograd_bwd_ok,
    ('backward_data', 'winograd4'): _winograd_bwd_ok,
    ('backward_data', 'im2col_forward'): lambda g: _transpose_as_forward(g) is not None,
    ('backward_data', 'batched_forward'): lambda g: _transpose_as_forward(g) is not None,
    ('forward', 'depthwise'): _is_depthwise,
    ('backward_data', 'depthwise'): _is_depthwise,
    ('backward_filter', 'depthwise'): _is_depthwise,
}


def applicable(name, direction, geom):
    return _APPLICABLE.get((direction, name), _always)(geom)


def candidates(direction, geom):
    return [n for n in DIRECTIONS[direction] if applicable(n, direction, geom)]


def run(direction, name, a, b, geom):
    """Run one algorithm; the result is always a C-contiguous array."""
    return np.ascontiguousarray(DIRECTIONS[direction][name](a, b, geom))
