"""Deformable convolution v1 / v2 (Paddle's ``paddle.vision.ops.deform_conv2d``).

Composed of registered ops, so gradients reach x, offset, mask, weight and
bias to any order, in eager mode, static programs and ``@to_static`` alike:

1. the sampling positions: the regular grid of each kernel tap plus its
   learned offset (``offset`` [N, 2 * dg * kh * kw, Ho, Wo] holds (dy, dx) pairs
   for each deformable group, tap and output pixel);
2. ``bilinear_sample`` reads each deformable group's channels there (zeros
   outside the image), times the modulation ``mask`` (v2);
3. a grouped matrix product of the sampled columns with the weight.
"""
import numpy as np

from .. import meta
from ..manipulation import reshape_op, unbind_op
from ..math import matmul_op
from ..registry import OpError
from .common import pair
from .sampling import bilinear_sample_op

__all__ = ['deform_conv2d']

_API = 'deform_conv2d'


def _known(api, name, shape):
    if any(d < 0 for d in shape):
        raise OpError("%s: %s needs known channel and spatial sizes, got shape %s"
                      % (api, name, list(shape)))


def _geometry(xs, os_, ws, ms, stride, padding, dilation, deformable_groups, groups):
    """Check the shapes against each other (as Paddle's shape inference); the
    output spatial size."""
    for name, shape in (('x', xs), ('offset', os_), ('weight', ws)) + (
            (('mask', ms),) if ms is not None else ()):
        if len(shape) != 4:
            raise OpError("%s: %s must be 4-D, got shape %s" % (_API, name, list(shape)))
    _known(_API, 'x', xs[1:])
    _known(_API, 'weight', ws)
    c, h, w = xs[1:]
    m, cg, kh, kw = ws
    taps = kh * kw
    if groups < 1 or deformable_groups < 1:
        raise OpError("%s: groups and deformable_groups must be positive, got %d and %d"
                      % (_API, groups, deformable_groups))
    if c != cg * groups:
        raise OpError("%s: x has %d channels (shape %s) but weight shape %s with groups=%d "
                      "expects %d" % (_API, c, list(xs), list(ws), groups, cg * groups))
    if m % groups:
        raise OpError("%s: the %d filters (weight shape %s) must be divisible by groups=%d"
                      % (_API, m, list(ws), groups))
    if c % deformable_groups:
        raise OpError("%s: x's %d channels must be divisible by deformable_groups=%d"
                      % (_API, c, deformable_groups))
    ho = (h + 2 * padding[0] - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    wo = (w + 2 * padding[1] - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    if ho <= 0 or wo <= 0:
        raise OpError("%s: the output would be empty: x shape %s, kernel %s, stride %s, "
                      "padding %s, dilation %s" % (_API, list(xs), [kh, kw], list(stride),
                                                   list(padding), list(dilation)))
    want = [2 * deformable_groups * taps, ho, wo]
    if list(os_[1:]) != want:
        raise OpError("%s: offset must be [N, 2 * deformable_groups * kh * kw, Ho, Wo] = "
                      "[N, %d, %d, %d] for x shape %s and weight shape %s, got %s"
                      % (_API, want[0], ho, wo, list(xs), list(ws), list(os_)))
    if ms is not None and list(ms[1:]) != [deformable_groups * taps, ho, wo]:
        raise OpError("%s: mask must be [N, deformable_groups * kh * kw, Ho, Wo] = "
                      "[N, %d, %d, %d], got %s" % (_API, deformable_groups * taps, ho, wo,
                                                   list(ms)))
    for name, shape in (('offset', os_),) + ((('mask', ms),) if ms is not None else ()):
        if -1 not in (xs[0], shape[0]) and shape[0] != xs[0]:
            raise OpError("%s: %s has batch size %d but x has %d" % (_API, name, shape[0],
                                                                      xs[0]))
    return ho, wo


def _grid(kernel, out_size, stride, padding, dilation, dtype):
    """Undeformed sampling positions [taps, Ho * Wo] along rows and columns."""
    kh, kw = kernel
    ho, wo = out_size
    i, j = np.divmod(np.arange(kh * kw), kw)
    rows = np.arange(ho) * stride[0] - padding[0]
    cols = np.arange(wo) * stride[1] - padding[1]
    py = (rows[None, :, None] + i[:, None, None] * dilation[0]) + np.zeros((1, 1, wo))
    px = (cols[None, None, :] + j[:, None, None] * dilation[1]) + np.zeros((1, ho, 1))
    return (py.reshape(1, -1).astype(dtype), px.reshape(1, -1).astype(dtype))


def deform_conv2d(x, offset, weight, bias=None, stride=1, padding=0, dilation=1,
                  deformable_groups=1, groups=1, mask=None, name=None):
    """Deformable convolution: each kernel tap of each output pixel reads x
    (bilinearly) at its grid position moved by a learned ``offset``; with
    ``mask`` (v2) the reads are also scaled by it.

    x [N, C, H, W]; offset [N, 2 * deformable_groups * kh * kw, Ho, Wo] as
    (dy, dx) pairs; weight [M, C / groups, kh, kw]; mask [N, deformable_groups *
    kh * kw, Ho, Wo]; bias [M]. Returns [N, M, Ho, Wo].

    >>> import framework as paddle
    >>> x = paddle.rand([1, 2, 5, 5])
    >>> offset = paddle.zeros([1, 18, 3, 3])
    >>> weight = paddle.rand([4, 2, 3, 3])
    >>> paddle.vision.ops.deform_conv2d(x, offset, weight).shape   # == conv2d(x, weight)
    paddle.Size([1, 4, 3, 3])
    """
    stride = pair(stride, _API, 'stride')
    padding = pair(padding, _API, 'padding')
    dilation = pair(dilation, _API, 'dilation')
    xs, os_, ws = meta.shape_of(x), meta.shape_of(offset), meta.shape_of(weight)
    ms = meta.shape_of(mask) if mask is not None else None
    dg, groups = int(deformable_groups), int(groups)
    ho, wo = _geometry(xs, os_, ws, ms, stride, padding, dilation, dg, groups)
    named = (('x', x), ('offset', offset), ('weight', weight), ('mask', mask), ('bias', bias))
    meta.same_dtype(_API, [n for n, v in named if v is not None],
                    *[v for _, v in named if v is not None])
    c, h, w = xs[1:]
    m, cg, kh, kw = ws
    taps, pixels = kh * kw, ho * wo
    base_y, base_x = _grid((kh, kw), (ho, wo), stride, padding, dilation,
                           meta.dtype_of(offset))
    # offsets [N * dg, taps, 2, Ho * Wo]: one (dy, dx) per group, tap and pixel
    dy, dx = unbind_op(reshape_op(offset, (-1, taps, 2, pixels)), 2)
    py = reshape_op(dy, (-1, taps * pixels)) + base_y
    px = reshape_op(dx, (-1, taps * pixels)) + base_x
    planes = x if dg == 1 else reshape_op(x, (-1, c // dg, h, w))
    cols = bilinear_sample_op(planes, py, px, 0, 0)     # [N * dg, C / dg, taps * Ho * Wo]
    if mask is not None:
        cols = cols * reshape_op(mask, (-1, 1, taps * pixels))
    cols = reshape_op(cols, (-1, groups, cg * taps, pixels))
    out = matmul_op(reshape_op(weight, (groups, m // groups, cg * taps)), cols)
    out = reshape_op(out, (-1, m, ho, wo))
    if bias is not None:
        if list(meta.shape_of(bias)) != [m]:
            raise OpError("%s: bias must have shape [%d] (one per filter), got %s"
                          % (_API, m, list(meta.shape_of(bias))))
        out = out + reshape_op(bias, (1, m, 1, 1))
    return out
