"""3-D convolutions as sums of 2-D ones over the depth taps of the kernel.

With depth stride ``sd``, dilation ``dd`` and padding ``(p0, p1)``, output
depth ``od`` reads input depth ``od * sd + kd * dd - p0`` through kernel
slice ``kd``. So for every ``kd`` the input planes it touches (a strided
slab of the depth-padded input) become a batch of ``N * OD`` images for a
2-D convolution with ``w[:, :, kd]``, and the results add up. The input
gradient scatters each slab's 2-D input gradient back onto the depth grid;
the filter gradient of slice ``kd`` is the 2-D filter gradient of that slab.
Each 2-D piece runs through the conv algorithms and their search, so 3-D
convs get the same algorithm choice as 2-D ones.

Arrays are ``[N, C, D, H, W]``; weights ``[OC, C/groups, KD, KH, KW]``;
``stride``/``dilation`` have 3 entries, ``padding`` 6 (front, back, top,
bottom, left, right).
"""
import numpy as np

from ..registry import OpError
from . import algorithms as algos
from .search import convolve


def _depth_pad(x, p0, p1):
    if not (p0 or p1):
        return x
    out = np.zeros(x.shape[:2] + (x.shape[2] + p0 + p1,) + x.shape[3:], x.dtype)
    out[:, :, p0:p0 + x.shape[2]] = x
    return out


def _slab(xp, kd, sd, dd, od):
    """The depth planes kernel slice kd reads, as ``[N * OD, C, H, W]``."""
    s = xp[:, :, kd * dd:kd * dd + sd * (od - 1) + 1:sd]
    n, c = s.shape[:2]
    return np.ascontiguousarray(s.transpose(0, 2, 1, 3, 4)).reshape((n * od, c) + s.shape[3:])


def _batched(a):
    """``[N, C, D, H, W]`` -> ``[N * D, C, H, W]``."""
    n, c, d = a.shape[:3]
    return np.ascontiguousarray(a.transpose(0, 2, 1, 3, 4)).reshape((n * d, c) + a.shape[3:])


def _unbatched(a, n):
    """``[N * D, C, H, W]`` -> ``[N, C, D, H, W]``."""
    nd, c = a.shape[:2]
    return a.reshape((n, nd // n, c) + a.shape[2:]).transpose(0, 2, 1, 3, 4)


def _check_out(api, sizes):
    if any(s <= 0 for s in sizes):
        raise OpError("%s: the output would be empty (spatial %s)" % (api, list(sizes)))


def conv(x, w, stride, padding, dilation, groups):
    """Forward 3-D conv -> ``[N, OC, OD, OH, OW]``."""
    sd, dd, (p0, p1) = stride[0], dilation[0], padding[:2]
    n, kd = x.shape[0], w.shape[2]
    od = algos.conv_out_size(x.shape[2], kd, sd, dd, p0, p1)
    g2 = algos.geom_forward((n * max(od, 0), x.shape[1]) + x.shape[3:], w[:, :, 0].shape,
                            stride[1:], padding[2:], dilation[1:], groups)
    _check_out('conv3d', (od, g2.oh, g2.ow))
    xp = _depth_pad(x, p0, p1)
    out = None
    for k in range(kd):
        y = convolve('forward', _slab(xp, k, sd, dd, od), np.ascontiguousarray(w[:, :, k]), g2)
        out = y if out is None else np.add(out, y, out=out)
    return np.ascontiguousarray(_unbatched(out, n))


def conv_transpose(y, w, stride, padding, output_padding, dilation, groups):
    """Transposed 3-D conv (the forward conv's input gradient) of
    ``y [N, C_in, D, H, W]`` with ``w [C_in, C_out/groups, KD, KH, KW]``."""
    sd, dd, (p0, p1) = stride[0], dilation[0], padding[:2]
    kd = w.shape[2]
    n, od = y.shape[0], y.shape[2]
    d = algos.transpose_out_size(od, kd, sd, dd, p0, p1, output_padding[0])
    g2 = algos.geom_transpose((n * od,) + (y.shape[1],) + y.shape[3:], w[:, :, 0].shape,
                              stride[1:], padding[2:], output_padding[1:], dilation[1:], groups)
    _check_out('conv3d_transpose', (d, g2.h, g2.w))
    yb = _batched(y)
    gxp = np.zeros((n, g2.c, d + p0 + p1, g2.h, g2.w), y.dtype)
    for k in range(kd):
        r = convolve('backward_data', yb, np.ascontiguousarray(w[:, :, k]), g2)
        gxp[:, :, k * dd:k * dd + sd * (od - 1) + 1:sd] += _unbatched(r, n)
    return np.ascontiguousarray(gxp[:, :, p0:p0 + d])


def filter_grad(x, gy, ksize, stride, padding, dilation, groups):
    """Weight gradient ``[OC, C/groups, KD, KH, KW]`` of the forward 3-D conv."""
    sd, dd, (p0, p1) = stride[0], dilation[0], padding[:2]
    n, od = x.shape[0], gy.shape[2]
    expect = [algos.conv_out_size(x.shape[2 + i], ksize[i], stride[i], dilation[i],
                                  padding[2 * i], padding[2 * i + 1]) for i in range(3)]
    if list(gy.shape[2:]) != expect:
        raise OpError("conv_filter_grad: output grad spatial size %s does not match the conv "
                      "output size %s of input spatial size %s"
                      % (list(gy.shape[2:]), expect, list(x.shape[2:])))
    g2 = algos.geom_filter((n * od, x.shape[1]) + x.shape[3:], (n * od,) + (gy.shape[1],)
                           + gy.shape[3:], ksize[1:], stride[1:], padding[2:], dilation[1:],
                           groups)
    xp = _depth_pad(x, p0, p1)
    gb = _batched(gy)
    gw = np.zeros((gy.shape[1], x.shape[1] // groups) + tuple(ksize), np.result_type(x, gy))
    for k in range(ksize[0]):
        gw[:, :, k] = convolve('backward_filter', _slab(xp, k, sd, dd, od), gb, g2)
    return gw
