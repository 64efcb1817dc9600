"""Naive loop implementations, the independent references for the conv and
pooling kernels (op test cases and tests/test_conv.py, tests/test_pool.py).
Written from the definitions, one output pixel at a time; slow on purpose.
All take NCHW arrays and explicit paddings ``(top, bottom, left, right)``.
"""
import math

import numpy as np


def _pad(x, pad, value=0.0):
    pt, pb, pl, pr = pad
    return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=value)


def conv2d(x, w, stride, pad, dilation, groups):
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    xp = _pad(x, pad)
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    ocg = oc // groups
    out = np.zeros((n, oc, oh, ow), np.result_type(x, w))
    for b in range(n):
        for o in range(oc):
            c0 = (o // ocg) * cg
            for i in range(oh):
                for j in range(ow):
                    patch = xp[b, c0:c0 + cg, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                               j * sw:j * sw + dw * (kw - 1) + 1:dw]
                    out[b, o, i, j] = np.sum(patch * w[o])
    return out


def conv2d_transpose(y, w, stride, pad, dilation, groups, out_hw):
    """Adjoint of ``conv2d`` w.r.t. its input, producing spatial size out_hw."""
    n, oc, oh, ow = y.shape
    _, cg, kh, kw = w.shape
    (sh, sw), (dh, dw) = stride, dilation
    pt, pb, pl, pr = pad
    h, wd = out_hw
    ocg = oc // groups
    hp = max(h + pt + pb, (oh - 1) * sh + dh * (kh - 1) + 1)
    wp = max(wd + pl + pr, (ow - 1) * sw + dw * (kw - 1) + 1)
    gp = np.zeros((n, cg * groups, hp, wp), np.result_type(y, w))
    for b in range(n):
        for o in range(oc):
            c0 = (o // ocg) * cg
            for i in range(oh):
                for j in range(ow):
                    gp[b, c0:c0 + cg, i * sh:i * sh + dh * (kh - 1) + 1:dh,
                       j * sw:j * sw + dw * (kw - 1) + 1:dw] += y[b, o, i, j] * w[o]
    return gp[:, :, pt:pt + h, pl:pl + wd]


def conv2d_filter_grad(x, g, ksize, stride, pad, dilation, groups):
    n, c, h, wd = x.shape
    _, oc, oh, ow = g.shape
    kh, kw = ksize
    (sh, sw), (dh, dw) = stride, dilation
    cg, ocg = c // groups, oc // groups
    xp = _pad(x, pad)
    gw = np.zeros((oc, cg, kh, kw), np.result_type(x, g))
    for b in range(n):
        for o in range(oc):
            c0 = (o // ocg) * cg
            for i in range(oh):
                for j in range(ow):
                    gw[o] += g[b, o, i, j] * xp[b, c0:c0 + cg,
                                                i * sh:i * sh + dh * (kh - 1) + 1:dh,
                                                j * sw:j * sw + dw * (kw - 1) + 1:dw]
    return gw


# ---- pooling -----------------------------------------------------------------------

def pool_out_size(size, k, s, p0, p1, ceil_mode):
    num = size + p0 + p1 - k
    return (num + s - 1) // s + 1 if ceil_mode else num // s + 1


def _windows(h, w, ksize, stride, pad, ceil_mode):
    kh, kw = ksize
    sh, sw = stride
    pt, pb, pl, pr = pad
    oh = pool_out_size(h, kh, sh, pt, pb, ceil_mode)
    ow = pool_out_size(w, kw, sw, pl, pr, ceil_mode)
    for i in range(oh):
        for j in range(ow):
            h0, w0 = i * sh - pt, j * sw - pl
            yield i, j, max(h0, 0), min(h0 + kh, h), max(w0, 0), min(w0 + kw, w)


def max_pool2d(x, ksize, stride, pad, ceil_mode):
    """(out, flat argmax index h*W + w into the unpadded input)."""
    n, c, h, w = x.shape
    oh = pool_out_size(h, ksize[0], stride[0], pad[0], pad[1], ceil_mode)
    ow = pool_out_size(w, ksize[1], stride[1], pad[2], pad[3], ceil_mode)
    out = np.zeros((n, c, oh, ow), x.dtype)
    idx = np.zeros((n, c, oh, ow), np.int32)
    for i, j, h0, h1, w0, w1 in _windows(h, w, ksize, stride, pad, ceil_mode):
        for b in range(n):
            for ch in range(c):
                win = x[b, ch, h0:h1, w0:w1]
                k = int(np.argmax(win))
                out[b, ch, i, j] = win.flat[k]
                idx[b, ch, i, j] = (h0 + k // win.shape[1]) * w + w0 + k % win.shape[1]
    return out, idx


def avg_pool2d(x, ksize, stride, pad, ceil_mode, exclusive, divisor=None):
    n, c, h, w = x.shape
    oh = pool_out_size(h, ksize[0], stride[0], pad[0], pad[1], ceil_mode)
    ow = pool_out_size(w, ksize[1], stride[1], pad[2], pad[3], ceil_mode)
    out = np.zeros((n, c, oh, ow), x.dtype)
    for i, j, h0, h1, w0, w1 in _windows(h, w, ksize, stride, pad, ceil_mode):
        total = x[:, :, h0:h1, w0:w1].sum(axis=(2, 3))
        if divisor:
            d = divisor
        elif exclusive:
            d = (h1 - h0) * (w1 - w0)
        else:   # padding counts; a ceil_mode window past the padding counts its part inside
            hs, ws = i * stride[0] - pad[0], j * stride[1] - pad[2]
            d = ((min(hs + ksize[0], h + pad[1]) - hs) * (min(ws + ksize[1], w + pad[3]) - ws))
        out[:, :, i, j] = total / d
    return out


def adaptive_bounds(size, out):
    return [(math.floor(i * size / out), math.ceil((i + 1) * size / out)) for i in range(out)]


def adaptive_avg_pool2d(x, out_hw):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + tuple(out_hw), x.dtype)
    for i, (h0, h1) in enumerate(adaptive_bounds(h, out_hw[0])):
        for j, (w0, w1) in enumerate(adaptive_bounds(w, out_hw[1])):
            out[:, :, i, j] = x[:, :, h0:h1, w0:w1].mean(axis=(2, 3))
    return out


def adaptive_max_pool2d(x, out_hw):
    n, c, h, w = x.shape
    out = np.zeros((n, c) + tuple(out_hw), x.dtype)
    idx = np.zeros((n, c) + tuple(out_hw), np.int32)
    for i, (h0, h1) in enumerate(adaptive_bounds(h, out_hw[0])):
        for j, (w0, w1) in enumerate(adaptive_bounds(w, out_hw[1])):
            for b in range(n):
                for ch in range(c):
                    win = x[b, ch, h0:h1, w0:w1]
                    k = int(np.argmax(win))
                    out[b, ch, i, j] = win.flat[k]
                    idx[b, ch, i, j] = (h0 + k // win.shape[1]) * w + w0 + k % win.shape[1]
    return out, idx


# ---- any spatial rank (3-D convs and pools) -------------------------------------------
# ``pad`` lists (before, after) per spatial dim, flat: (p0, p1, p2, p3, ...).

def _pad_nd(x, pad, value=0.0):
    pairs = [(0, 0), (0, 0)] + [(pad[2 * i], pad[2 * i + 1]) for i in range(x.ndim - 2)]
    return np.pad(x, pairs, constant_values=value)


def _window(pos, stride, dilation, ksize):
    return tuple(slice(p * s, p * s + d * (k - 1) + 1, d)
                 for p, s, d, k in zip(pos, stride, dilation, ksize))


def conv_nd(x, w, stride, pad, dilation, groups):
    n, c = x.shape[:2]
    oc, cg = w.shape[:2]
    ksize = w.shape[2:]
    xp = _pad_nd(x, pad)
    osz = [(xp.shape[2 + i] - dilation[i] * (k - 1) - 1) // stride[i] + 1
           for i, k in enumerate(ksize)]
    ocg = oc // groups
    out = np.zeros((n, oc) + tuple(osz), np.result_type(x, w))
    for b in range(n):
        for o in range(oc):
            c0 = (o // ocg) * cg
            for pos in np.ndindex(*osz):
                patch = xp[(b, slice(c0, c0 + cg)) + _window(pos, stride, dilation, ksize)]
                out[(b, o) + pos] = np.sum(patch * w[o])
    return out


def conv_nd_transpose(y, w, stride, pad, dilation, groups, out_size):
    """Adjoint of ``conv_nd`` w.r.t. its input, producing spatial size out_size."""
    n, oc = y.shape[:2]
    cg = w.shape[1]
    ksize = w.shape[2:]
    ocg = oc // groups
    psz = [max(out_size[i] + pad[2 * i] + pad[2 * i + 1],
               (y.shape[2 + i] - 1) * stride[i] + dilation[i] * (k - 1) + 1)
           for i, k in enumerate(ksize)]
    gp = np.zeros((n, cg * groups) + tuple(psz), np.result_type(y, w))
    for b in range(n):
        for o in range(oc):
            c0 = (o // ocg) * cg
            for pos in np.ndindex(*y.shape[2:]):
                gp[(b, slice(c0, c0 + cg)) + _window(pos, stride, dilation, ksize)] += \
                    y[(b, o) + pos] * w[o]
    crop = tuple(slice(pad[2 * i], pad[2 * i] + s) for i, s in enumerate(out_size))
    return gp[(slice(None), slice(None)) + crop]


def conv_nd_filter_grad(x, g, ksize, stride, pad, dilation, groups):
    c, oc = x.shape[1], g.shape[1]
    cg, ocg = c // groups, oc // groups
    xp = _pad_nd(x, pad)
    gw = np.zeros((oc, cg) + tuple(ksize), np.result_type(x, g))
    for b in range(x.shape[0]):
        for o in range(oc):
            c0 = (o // ocg) * cg
            for pos in np.ndindex(*g.shape[2:]):
                gw[o] += g[(b, o) + pos] * xp[(b, slice(c0, c0 + cg))
                                              + _window(pos, stride, dilation, ksize)]
    return gw


def _pool_windows(size, ksize, stride, pad, ceil_mode):
    osz = [pool_out_size(s, k, st, pad[2 * i], pad[2 * i + 1], ceil_mode)
           for i, (s, k, st) in enumerate(zip(size, ksize, stride))]
    for pos in np.ndindex(*osz):
        lo = [p * st - pad[2 * i] for i, (p, st) in enumerate(zip(pos, stride))]
        yield pos, tuple(slice(max(a, 0), min(a + k, s)) for a, k, s in zip(lo, ksize, size))


def _pool_out_shape(x, ksize, stride, pad, ceil_mode):
    return x.shape[:2] + tuple(pool_out_size(s, k, st, pad[2 * i], pad[2 * i + 1], ceil_mode)
                               for i, (s, k, st) in enumerate(zip(x.shape[2:], ksize, stride)))


def max_pool_nd(x, ksize, stride, pad, ceil_mode):
    """(out, flat argmax index into each unpadded input plane/volume)."""
    shape = _pool_out_shape(x, ksize, stride, pad, ceil_mode)
    out = np.zeros(shape, x.dtype)
    idx = np.zeros(shape, np.int32)
    size = x.shape[2:]
    for pos, win in _pool_windows(size, ksize, stride, pad, ceil_mode):
        for b in range(x.shape[0]):
            for ch in range(x.shape[1]):
                v = x[(b, ch) + win]
                k = np.unravel_index(int(np.argmax(v)), v.shape)
                out[(b, ch) + pos] = v[k]
                idx[(b, ch) + pos] = np.ravel_multi_index(
                    tuple(w.start + kk for w, kk in zip(win, k)), size)
    return out, idx


def avg_pool_nd(x, ksize, stride, pad, ceil_mode, exclusive, divisor=None):
    out = np.zeros(_pool_out_shape(x, ksize, stride, pad, ceil_mode), x.dtype)
    axes = tuple(range(2, x.ndim))
    for pos, win in _pool_windows(x.shape[2:], ksize, stride, pad, ceil_mode):
        total = x[(slice(None), slice(None)) + win].sum(axis=axes)
        if divisor:
            d = divisor
        elif exclusive:
            d = np.prod([w.stop - w.start for w in win])
        else:
            starts = [p * st - pad[2 * i] for i, (p, st) in enumerate(zip(pos, stride))]
            d = np.prod([min(a + k, n + pad[2 * i + 1]) - a for i, (a, k, n) in
                         enumerate(zip(starts, ksize, x.shape[2:]))])
        out[(slice(None), slice(None)) + pos] = total / d
    return out


def adaptive_pool_nd(x, out_size, reduce):
    """Adaptive pooling with ``reduce`` 'avg' or 'max' (max also gives indices)."""
    shape = x.shape[:2] + tuple(out_size)
    out = np.zeros(shape, x.dtype)
    idx = np.zeros(shape, np.int32)
    bounds = [adaptive_bounds(s, o) for s, o in zip(x.shape[2:], out_size)]
    for pos in np.ndindex(*out_size):
        win = tuple(slice(*bounds[i][p]) for i, p in enumerate(pos))
        for b in range(x.shape[0]):
            for ch in range(x.shape[1]):
                v = x[(b, ch) + win]
                if reduce == 'avg':
                    out[(b, ch) + pos] = v.mean()
                else:
                    k = np.unravel_index(int(np.argmax(v)), v.shape)
                    out[(b, ch) + pos] = v[k]
                    idx[(b, ch) + pos] = np.ravel_multi_index(
                        tuple(w.start + kk for w, kk in zip(win, k)), x.shape[2:])
    return out if reduce == 'avg' else (out, idx)
