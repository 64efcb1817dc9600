"""Region-of-interest pooling: roi_align, roi_pool and psroi_pool (Paddle's
``paddle.vision.ops``), with the conventions of Paddle's CPU kernels.

Every op takes the feature map ``x`` [N, C, H, W], ``boxes`` [R, 4] as
``(x1, y1, x2, y2)`` in input-image coordinates (times ``spatial_scale`` on
the feature map) and ``boxes_num`` [N], how many of the boxes (in order)
belong to each image. Boxes get no gradient, as in Paddle.

* ``roi_align`` averages bilinear samples on a ``sampling_ratio``-square grid
  per bin (adaptive ``ceil(roi_size / output_size)`` when ``sampling_ratio <=
  0``); ``aligned`` shifts boxes by half a pixel. The samples of one RoI are
  separable, so a RoI's output is ``Ay @ x[b] @ Ax^T`` with two small weight
  matrices; the op is linear in x and ``roi_align_grad`` (the adjoint) and
  ``roi_align`` are each other's gradients.
* ``psroi_pool`` averages each bin over its own channel group
  (position-sensitive); linear too, with the ``psroi_pool_grad`` adjoint.
* ``roi_pool`` takes the maximum of each bin and also outputs its position
  (a flat index into x, -1 for an empty bin); its gradient scatters into those
  positions with ``pool_scatter``, whose own gradient is ``pool_gather``.
"""
import numpy as np

from .. import meta
from ..conv.pool import pool_scatter_op
from ..manipulation import reshape_as_op, reshape_op
from ..registry import Meta, OpError, add_test_case, def_op
from . import reference as ref
from .common import box_batch_ids, c_round, check_boxes, check_float, pair

__all__ = ['roi_align', 'roi_pool', 'psroi_pool']


def _as_attr_float(value, dtype):
    """A float attribute as Paddle's kernels see it: float32, then the data's dtype."""
    return np.float32(value).astype(dtype)


def _roi_meta(api, x, boxes, boxes_num, channels, pooled_height, pooled_width):
    check_boxes(api, x, boxes, boxes_num)
    return Meta([meta.shape_of(boxes)[0], channels, pooled_height, pooled_width],
                meta.dtype_of(x))


def _prepare(api, x, boxes, boxes_num):
    """Boxes in x's dtype and the image index of each box."""
    check_boxes(api, x, boxes, boxes_num)
    return boxes.astype(x.dtype, copy=False), box_batch_ids(api, boxes_num, len(boxes))


# ---- roi_align -----------------------------------------------------------------------

_ALIGN_ATTRS = {'pooled_height': 1, 'pooled_width': 1, 'spatial_scale': 1.0,
                'sampling_ratio': -1, 'aligned': True}


def _align_axis(start, length, pooled, grid, size, dtype):
    """[pooled, size]: row p sums the 1-D bilinear weights of bin p's ``grid``
    samples along one axis (the border clamped, samples beyond -1 / size dropped)."""
    weights = np.zeros((pooled, size), dtype)
    if grid <= 0 or size == 0:
        return weights
    bin_size = length / dtype.type(pooled)
    frac = (np.arange(grid) + 0.5).astype(dtype) / dtype.type(grid)
    pos = start + bin_size * (np.arange(pooled, dtype=dtype)[:, None] + frac[None, :])
    inside = ~((pos < -1) | (pos > size))
    pos = np.maximum(pos, 0)
    low = pos.astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    pos = np.where(edge, low.astype(dtype), pos)
    w_low = (high.astype(dtype) - pos) * inside
    rows = np.broadcast_to(np.arange(pooled)[:, None], pos.shape)
    np.add.at(weights, (rows, low), w_low)
    np.add.at(weights, (rows, high), inside - w_low)
    return weights


def _align_weights(box, shape, pooled_height, pooled_width, spatial_scale, sampling_ratio,
                   aligned):
    """(Ay, Ax, grid count) of one RoI: its output is ``Ay @ plane @ Ax^T / count``."""
    dtype = box.dtype
    x1, y1, x2, y2 = box * _as_attr_float(spatial_scale, dtype) - dtype.type(0.5 if aligned else 0)
    width, height = x2 - x1, y2 - y1
    if not aligned:
        width, height = max(width, dtype.type(1)), max(height, dtype.type(1))
    grid_h = sampling_ratio if sampling_ratio > 0 else int(np.ceil(height / pooled_height))
    grid_w = sampling_ratio if sampling_ratio > 0 else int(np.ceil(width / pooled_width))
    ay = _align_axis(y1, height, pooled_height, grid_h, shape[2], dtype)
    ax = _align_axis(x1, width, pooled_width, grid_w, shape[3], dtype)
    return ay, ax, grid_h * grid_w


def _align_meta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
                sampling_ratio, aligned):
    return _roi_meta('roi_align', x, boxes, boxes_num, meta.shape_of(x)[1], pooled_height,
                     pooled_width)


@def_op('roi_align', _align_meta, inputs=('x', 'boxes', 'boxes_num'),
        no_grad_inputs=('boxes', 'boxes_num'), attrs=_ALIGN_ATTRS, pattern='opaque')
def roi_align_op(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale,
                 sampling_ratio, aligned):
    """RoIAlign: [R, C, pooled_height, pooled_width] bin averages of bilinear samples."""
    boxes, batch = _prepare('roi_align', x, boxes, boxes_num)
    out = np.zeros((len(boxes), x.shape[1], pooled_height, pooled_width), x.dtype)
    for r, b in enumerate(batch):
        ay, ax, count = _align_weights(boxes[r], x.shape, pooled_height, pooled_width,
                                       spatial_scale, sampling_ratio, aligned)
        # an empty sampling grid averages nothing: 0 * (1 / 0) = NaN, as in Paddle
        with np.errstate(divide='ignore', invalid='ignore'):
            out[r] = (ay @ x[b] @ ax.T) * (x.dtype.type(1) / x.dtype.type(count))
    return out


@roi_align_op.def_grad
def _roi_align_grad(g, x, boxes, boxes_num, out, *attrs):
    return roi_align_grad_op(g, boxes, boxes_num, x, *attrs), None, None


def _align_grad_meta(g, boxes, boxes_num, x, *attrs):
    check_boxes('roi_align_grad', x, boxes, boxes_num)
    check_float('roi_align_grad', 'out_grad', g)
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('roi_align_grad', _align_grad_meta, inputs=('out_grad', 'boxes', 'boxes_num', 'x'),
        no_grad_inputs=('boxes', 'boxes_num', 'x'), attrs=_ALIGN_ATTRS, pattern='opaque')
def roi_align_grad_op(out_grad, boxes, boxes_num, x, pooled_height, pooled_width,
                      spatial_scale, sampling_ratio, aligned):
    """The adjoint of ``roi_align`` in x: each bin's gradient spread back onto the
    pixels its samples read (``x`` only gives the shape)."""
    boxes, batch = _prepare('roi_align_grad', x, boxes, boxes_num)
    gx = np.zeros(x.shape, out_grad.dtype)
    for r, b in enumerate(batch):
        ay, ax, count = _align_weights(boxes[r], x.shape, pooled_height, pooled_width,
                                       spatial_scale, sampling_ratio, aligned)
        if count:
            gx[b] += ay.T @ (out_grad[r] / out_grad.dtype.type(count)) @ ax
    return gx


@roi_align_grad_op.def_grad
def _roi_align_grad_grad(gg, g, boxes, boxes_num, x, out, *attrs):
    return roi_align_op(gg, boxes, boxes_num, *attrs), None, None, None


# ---- psroi_pool ----------------------------------------------------------------------

_PS_ATTRS = {'pooled_height': 1, 'pooled_width': 1, 'output_channels': 1,
             'spatial_scale': 1.0}


def _bin_edges(start, bin_size, pooled):
    """[start, end) pixel ranges of the bins along one axis (not yet clipped)."""
    p = np.arange(pooled, dtype=start.dtype)
    lo = np.floor(p * bin_size + start).astype(np.int64)
    hi = np.ceil((p + 1) * bin_size + start).astype(np.int64)
    return lo, hi


def _ps_bins(box, shape, pooled_height, pooled_width, spatial_scale):
    """The non-empty bins of one RoI: (i, j, row slice, column slice, area), with
    the box corners rounded and then scaled, as Paddle's kernel."""
    dtype = box.dtype
    scale = _as_attr_float(spatial_scale, dtype)
    x1, y1 = c_round(box[:2]).astype(dtype) * scale
    x2, y2 = (c_round(box[2:]) + 1).astype(dtype) * scale
    bin_h = max(y2 - y1, dtype.type(0.1)) / dtype.type(pooled_height)
    bin_w = max(x2 - x1, dtype.type(0.1)) / dtype.type(pooled_width)
    hs, he = np.clip(_bin_edges(y1, bin_h, pooled_height), 0, shape[2])
    ws, we = np.clip(_bin_edges(x1, bin_w, pooled_width), 0, shape[3])
    for i in range(pooled_height):
        for j in range(pooled_width):
            if he[i] > hs[i] and we[j] > ws[j]:
                area = dtype.type((he[i] - hs[i]) * (we[j] - ws[j]))
                yield i, j, slice(hs[i], he[i]), slice(ws[j], we[j]), area


def _check_ps_channels(api, channels, output_channels, pooled_height, pooled_width):
    if channels >= 0 and channels != output_channels * pooled_height * pooled_width:
        raise OpError("%s: x has %d channels but output_channels * pooled_height * "
                      "pooled_width = %d * %d * %d = %d" % (
                          api, channels, output_channels, pooled_height, pooled_width,
                          output_channels * pooled_height * pooled_width))


def _ps_meta(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
             spatial_scale):
    _check_ps_channels('psroi_pool', meta.shape_of(x)[1], output_channels, pooled_height,
                       pooled_width)
    return _roi_meta('psroi_pool', x, boxes, boxes_num, output_channels, pooled_height,
                     pooled_width)


@def_op('psroi_pool', _ps_meta, inputs=('x', 'boxes', 'boxes_num'),
        no_grad_inputs=('boxes', 'boxes_num'), attrs=_PS_ATTRS, pattern='opaque')
def psroi_pool_op(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
                  spatial_scale):
    """Position-sensitive RoI average pooling: bin (i, j) of output channel c
    averages input channel ``(c * pooled_height + i) * pooled_width + j``."""
    _check_ps_channels('psroi_pool', x.shape[1], output_channels, pooled_height, pooled_width)
    boxes, batch = _prepare('psroi_pool', x, boxes, boxes_num)
    out = np.zeros((len(boxes), output_channels, pooled_height, pooled_width), x.dtype)
    grouped = x.reshape(x.shape[0], output_channels, pooled_height, pooled_width,
                        *x.shape[2:])
    for r, b in enumerate(batch):
        for i, j, rows, cols, area in _ps_bins(boxes[r], x.shape, pooled_height, pooled_width,
                                               spatial_scale):
            out[r, :, i, j] = grouped[b, :, i, j, rows, cols].sum(axis=(1, 2)) / area
    return out


@psroi_pool_op.def_grad
def _psroi_pool_grad(g, x, boxes, boxes_num, out, *attrs):
    return psroi_pool_grad_op(g, boxes, boxes_num, x, *attrs), None, None


def _ps_grad_meta(g, boxes, boxes_num, x, *attrs):
    check_boxes('psroi_pool_grad', x, boxes, boxes_num)
    check_float('psroi_pool_grad', 'out_grad', g)
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('psroi_pool_grad', _ps_grad_meta, inputs=('out_grad', 'boxes', 'boxes_num', 'x'),
        no_grad_inputs=('boxes', 'boxes_num', 'x'), attrs=_PS_ATTRS, pattern='opaque')
def psroi_pool_grad_op(out_grad, boxes, boxes_num, x, pooled_height, pooled_width,
                       output_channels, spatial_scale):
    """The adjoint of ``psroi_pool`` in x (``x`` only gives the shape)."""
    boxes, batch = _prepare('psroi_pool_grad', x, boxes, boxes_num)
    gx = np.zeros(x.shape, out_grad.dtype)
    grouped = gx.reshape(x.shape[0], output_channels, pooled_height, pooled_width,
                         *x.shape[2:])
    for r, b in enumerate(batch):
        for i, j, rows, cols, area in _ps_bins(boxes[r], x.shape, pooled_height, pooled_width,
                                               spatial_scale):
            grouped[b, :, i, j, rows, cols] += (out_grad[r, :, i, j] / area)[:, None, None]
    return gx


@psroi_pool_grad_op.def_grad
def _psroi_pool_grad_grad(gg, g, boxes, boxes_num, x, out, *attrs):
    return psroi_pool_op(gg, boxes, boxes_num, *attrs), None, None, None


# ---- roi_pool ------------------------------------------------------------------------

_POOL_ATTRS = {'pooled_height': 1, 'pooled_width': 1, 'spatial_scale': 1.0}


def _pool_bins(box, shape, pooled_height, pooled_width, spatial_scale):
    """Pixel ranges (hs, he, ws, we) of one RoI's bins, as Paddle's kernel: box
    corners rounded on the feature map, at least 1x1, bins in float32."""
    x1, y1, x2, y2 = c_round(box * _as_attr_float(spatial_scale, box.dtype)).astype(np.int64)
    height = np.float32(max(y2 - y1 + 1, 1))
    width = np.float32(max(x2 - x1 + 1, 1))
    hs, he = np.clip(_bin_edges(np.float32(0), height / np.float32(pooled_height),
                                pooled_height) + y1, 0, shape[2])
    ws, we = np.clip(_bin_edges(np.float32(0), width / np.float32(pooled_width),
                                pooled_width) + x1, 0, shape[3])
    return hs, he, ws, we


def _pool_meta(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale):
    m = _roi_meta('roi_pool', x, boxes, boxes_num, meta.shape_of(x)[1], pooled_height,
                  pooled_width)
    return m, Meta(m.shape, np.int64)


@def_op('roi_pool', _pool_meta, outputs=('out', 'argmax'), nondiff_outputs=('argmax',),
        inputs=('x', 'boxes', 'boxes_num'), no_grad_inputs=('boxes', 'boxes_num'),
        attrs=_POOL_ATTRS, pattern='opaque')
def roi_pool_op(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale):
    """RoI max pooling: the maximum of each bin (0 for an empty bin) and its
    position, a flat index into ``x`` (-1 for an empty bin)."""
    boxes, batch = _prepare('roi_pool', x, boxes, boxes_num)
    n_boxes, channels, height, width = len(boxes), x.shape[1], x.shape[2], x.shape[3]
    out = np.zeros((n_boxes, channels, pooled_height, pooled_width), x.dtype)
    argmax = np.full(out.shape, -1, np.int64)
    for r, b in enumerate(batch):
        hs, he, ws, we = _pool_bins(boxes[r], x.shape, pooled_height, pooled_width,
                                    spatial_scale)
        for i in range(pooled_height):
            for j in range(pooled_width):
                if he[i] <= hs[i] or we[j] <= ws[j]:
                    continue
                window = x[b, :, hs[i]:he[i], ws[j]:we[j]].reshape(channels, -1)
                k = window.argmax(axis=1)          # the first maximum, as Paddle's scan
                out[r, :, i, j] = window[np.arange(channels), k]
                bw = we[j] - ws[j]
                argmax[r, :, i, j] = (((b * channels + np.arange(channels)) * height
                                       + hs[i] + k // bw) * width + ws[j] + k % bw)
    return out, argmax


@roi_pool_op.def_grad
def _roi_pool_grad(g, g_argmax, x, boxes, boxes_num, out, argmax, *attrs):
    # every output reads one pixel of x: scatter the gradients there, x seen as one row
    flat = pool_scatter_op(reshape_op(g, (1, 1, -1)), reshape_op(argmax, (1, 1, -1)),
                           reshape_op(x, (1, 1, -1)), 'NCL', True)
    return reshape_as_op(flat, x), None, None


# ---- public API (Paddle's paddle.vision.ops) ------------------------------------------

def _check_boxes_num(api, boxes_num):
    if boxes_num is None:
        raise ValueError("%s: boxes_num is required: the number of boxes of each image in "
                         "the batch (an int32 tensor [N])" % api)


def roi_align(x, boxes, boxes_num, output_size, spatial_scale=1.0, sampling_ratio=-1,
              aligned=True, name=None):
    """RoIAlign (Mask R-CNN): ``[num_boxes, C, *output_size]`` averages of
    bilinear samples in each bin of each box.

    ``boxes`` [num_boxes, 4] are ``(x1, y1, x2, y2)``; ``boxes_num`` [N] how many
    belong to each image. ``aligned`` shifts boxes by -0.5 pixel (Detectron2);
    ``sampling_ratio <= 0`` samples ``ceil(box_size / output_size)`` points per bin.

    >>> import framework as paddle
    >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
    >>> boxes = paddle.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> paddle.vision.ops.roi_align(x, boxes, paddle.to_tensor([1]), 1).tolist()
    [[[[2.5]]]]
    >>> paddle.vision.ops.roi_align(x, boxes, paddle.to_tensor([1]), 1, aligned=False).tolist()
    [[[[5.0]]]]
    """
    _check_boxes_num('roi_align', boxes_num)
    ph, pw = pair(output_size, 'roi_align', 'output_size')
    return roi_align_op(x, boxes, boxes_num, ph, pw, float(spatial_scale),
                        int(sampling_ratio), bool(aligned))


def roi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """RoI max pooling (Fast R-CNN): ``[num_boxes, C, *output_size]`` maxima of
    the bins of each box (corners rounded on the feature map).

    >>> import framework as paddle
    >>> x = paddle.arange(16, dtype='float32').reshape([1, 1, 4, 4])
    >>> boxes = paddle.to_tensor([[0.0, 0.0, 3.0, 3.0]])
    >>> paddle.vision.ops.roi_pool(x, boxes, paddle.to_tensor([1]), 2).tolist()
    [[[[5.0, 7.0], [13.0, 15.0]]]]
    """
    _check_boxes_num('roi_pool', boxes_num)
    ph, pw = pair(output_size, 'roi_pool', 'output_size')
    return roi_pool_op(x, boxes, boxes_num, ph, pw, float(spatial_scale))[0]


def psroi_pool(x, boxes, boxes_num, output_size, spatial_scale=1.0, name=None):
    """Position-sensitive RoI average pooling (R-FCN): ``[num_boxes, C / (h * w),
    h, w]`` for ``output_size = (h, w)``; bin (i, j) of output channel c averages
    input channel ``(c * h + i) * w + j``.

    >>> import framework as paddle
    >>> x = paddle.ones([1, 4, 3, 3])
    >>> boxes = paddle.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> paddle.vision.ops.psroi_pool(x, boxes, paddle.to_tensor([1]), 2).shape
    paddle.Size([1, 1, 2, 2])
    """
    _check_boxes_num('psroi_pool', boxes_num)
    ph, pw = pair(output_size, 'psroi_pool', 'output_size')
    if ph * pw == 0:
        raise ValueError('psroi_pool: output_size should not contain 0, got %r'
                         % (output_size,))
    if len(x.shape) != 4:
        raise ValueError("psroi_pool: x must be 4-D [N, C, H, W], got shape %s"
                         % list(x.shape))
    return psroi_pool_op(x, boxes, boxes_num, ph, pw, int(x.shape[1]) // (ph * pw),
                         float(spatial_scale))


# ---- registry test cases ------------------------------------------------------------------
# Gradient-checked cases stay tiny (finite differences run the kernel twice per
# element); the larger ones check values only.

def _case_rng(seed):
    return np.random.default_rng(seed)


def _adjoint_of(forward):
    """Reference adjoint of a linear reference ``forward``: its transposed matrix."""
    def adjoint(g, boxes, boxes_num, x, *attrs):
        cols = []
        for k in range(x.size):
            e = np.zeros(x.size)
            e[k] = 1
            cols.append(np.ravel(forward(e.reshape(x.shape), boxes, boxes_num, *attrs)))
        return (np.array(cols) @ g.ravel()).reshape(x.shape)
    return adjoint


_XS = _case_rng(0).standard_normal((2, 1, 4, 5))          # small: gradient checks
_XL = _case_rng(1).standard_normal((2, 3, 6, 7))          # larger: values only
_B = np.array([[0.3, 0.6, 4.2, 5.1], [1.0, 1.0, 6.5, 3.0], [-1.5, 2.0, 3.0, 9.0]])
_N = np.array([1, 2], np.int32)
_NO_BOXES = (np.zeros((0, 4)), np.zeros(1, np.int32))
_VALUES_ONLY = {'grad': False}
_F32 = {'grad': False, 'atol': 1e-5}       # float32: too coarse for finite differences

add_test_case(roi_align_op, _XS, _B, _N, 2, 3, 1.0, -1, True, ref=ref.roi_align)
add_test_case(roi_align_op, _XS, _B, _N, 3, 2, 0.5, 2, False, ref=ref.roi_align)
add_test_case(roi_align_op, _XL, _B, np.array([2, 1], np.int64), 2, 2, 0.8, 1, True,
              ref=ref.roi_align, **_VALUES_ONLY)
add_test_case(roi_align_op, _XL.astype('float32'), _B.astype('float32'), _N, 3, 3, 1.3, -1,
              False, ref=ref.roi_align, **_F32)
add_test_case(roi_align_op, _XS[:1], *_NO_BOXES, 2, 2, 1.0, -1, True, ref=ref.roi_align)

add_test_case(roi_align_grad_op, _case_rng(2).standard_normal((3, 1, 2, 3)), _B, _N, _XS,
              2, 3, 1.0, -1, True, ref=_adjoint_of(ref.roi_align))
add_test_case(roi_align_grad_op, np.zeros((0, 1, 2, 3)), *_NO_BOXES, _XS[:1], 2, 3, 1.0, -1,
              True, ref=_adjoint_of(ref.roi_align))

_XS4 = _case_rng(3).standard_normal((2, 4, 3, 5))        # 4 channels: 2x2 bins of 1
add_test_case(psroi_pool_op, _XS4, _B, _N, 2, 2, 1, 1.0, ref=ref.psroi_pool)
add_test_case(psroi_pool_op, _XS4, _B, _N, 1, 2, 2, 0.7, ref=ref.psroi_pool)
add_test_case(psroi_pool_op, _XL.repeat(4, axis=1).astype('float32'), _B.astype('float32'),
              _N, 2, 3, 2, 1.0, ref=ref.psroi_pool, **_F32)
add_test_case(psroi_pool_op, _XS4[:1], *_NO_BOXES, 2, 2, 1, 1.0, ref=ref.psroi_pool)

add_test_case(psroi_pool_grad_op, _case_rng(4).standard_normal((3, 1, 2, 2)), _B, _N, _XS4,
              2, 2, 1, 1.0, ref=_adjoint_of(ref.psroi_pool))

# distinct values: no ties, so the maxima (and finite differences) are well defined
_XP = _case_rng(5).permutation(40).reshape(2, 1, 4, 5) / 10.0 - 2.0
add_test_case(roi_pool_op, _XP, _B, _N, 2, 2, 1.0, ref=ref.roi_pool)
add_test_case(roi_pool_op, _XP, _B, _N, 3, 2, 0.6, ref=ref.roi_pool)
add_test_case(roi_pool_op, _XL.astype('float32'), _B.astype('float32'), _N, 2, 3, 1.0,
              ref=ref.roi_pool, **_F32)
add_test_case(roi_pool_op, _XP[:1], *_NO_BOXES, 2, 2, 1.0, ref=ref.roi_pool)
