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
        else:
            d = ksize[0] * ksize[1]
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
