"""Box ops: nms, matrix_nms, box_coder, prior_box, generate_proposals and
distribute_fpn_proposals (Paddle's ``paddle.vision.ops``), none differentiable.

They follow Paddle's CPU kernels, conventions included: boxes are
``(x1, y1, x2, y2)``; "unnormalized" / ``pixel_offset`` boxes count their
end pixels (width ``x2 - x1 + 1``); float attributes are float32 numbers, as
Paddle stores them; tied scores come out in Paddle's order, its kernels'
libstdc++ sorts replayed (``cxx_sort``).
"""
import numpy as np

from .. import meta
from ..registry import Meta, OpError, add_test_case, def_op
from . import reference as ref
from .common import check_float, check_int, check_shape
from .cxx_sort import (partial_sort_descending, select_descending, sort_descending,
                       top_k_descending)

__all__ = ['nms', 'matrix_nms', 'box_coder', 'prior_box', 'generate_proposals',
           'distribute_fpn_proposals']


def _f32(value, dtype):
    """A float attribute as the kernel sees it: float32, then the data's dtype."""
    return np.float32(value).astype(dtype)


def _area(boxes, offset):
    """Paddle's BBoxArea: 0 for inverted boxes, (w + offset) * (h + offset)."""
    w = boxes[..., 2] - boxes[..., 0]
    h = boxes[..., 3] - boxes[..., 1]
    area = (w + offset) * (h + offset)
    return np.where((w < 0) | (h < 0), boxes.dtype.type(0), area)


def jaccard(a, b, normalized=True):
    """Paddle's JaccardOverlap of the boxes ``a`` [..., 4] with ``b`` [..., 4]
    (broadcast): 0 when they do not touch; unnormalized boxes count end pixels."""
    off = a.dtype.type(0 if normalized else 1)
    apart = ((b[..., 0] > a[..., 2]) | (b[..., 2] < a[..., 0]) | (b[..., 1] > a[..., 3])
             | (b[..., 3] < a[..., 1]))
    iw = np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]) + off
    ih = np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]) + off
    inter = iw * ih
    with np.errstate(divide='ignore', invalid='ignore'):
        iou = inter / (_area(a, off) + _area(b, off) - inter)
    return np.where(apart, a.dtype.type(0), iou)


# ---- nms -------------------------------------------------------------------------------

def _plain_iou(a, b):
    """IoU of ``nms``: no end pixels, no special case for boxes that miss."""
    iw = np.maximum(np.minimum(a[..., 2], b[..., 2]) - np.maximum(a[..., 0], b[..., 0]), 0)
    ih = np.maximum(np.minimum(a[..., 3], b[..., 3]) - np.maximum(a[..., 1], b[..., 1]), 0)
    inter = iw * ih
    union = ((a[..., 2] - a[..., 0]) * (a[..., 3] - a[..., 1])
             + (b[..., 2] - b[..., 0]) * (b[..., 3] - b[..., 1]) - inter)
    with np.errstate(divide='ignore', invalid='ignore'):
        return inter / union


def greedy_nms(boxes, threshold):
    """Indices (in order) of the boxes that no earlier kept box overlaps with
    IoU > ``threshold``."""
    suppressed = np.zeros(len(boxes), bool)
    thr = _f32(threshold, boxes.dtype)
    for i in range(len(boxes)):
        if not suppressed[i]:
            suppressed[i + 1:] |= _plain_iou(boxes[i], boxes[i + 1:]) > thr
    return np.flatnonzero(~suppressed)


def _nms_meta(boxes, scores, category_idxs, iou_threshold, categories, top_k):
    check_shape('nms', 'boxes', boxes, 2, 4)
    check_float('nms', 'boxes', boxes)
    n = meta.shape_of(boxes)[0]
    for name, m in (('scores', scores), ('category_idxs', category_idxs)):
        if m is not None:
            shape = check_shape('nms', name, m, 1)
            if -1 not in (n, shape[0]) and shape[0] != n:
                raise OpError("nms: %s must hold one entry per box: boxes has shape %s, "
                              "%s %s" % (name, list(meta.shape_of(boxes)), name, shape))
    return Meta([-1], np.int64)


@def_op('nms', _nms_meta, inputs=('boxes', 'scores?', 'category_idxs?'),
        attrs={'iou_threshold': 0.3, 'categories': (), 'top_k': -1}, differentiable=False,
        attr_types={'categories': 'ints'}, pattern='opaque')
def nms_op(boxes, scores, category_idxs, iou_threshold, categories, top_k):
    """Indices of the boxes non-maximum suppression keeps, as ``paddle.vision.ops.nms``:
    in box order without scores; by descending score with them; per category
    (``categories`` lists the ones to keep) then by score, at most ``top_k``."""
    _nms_meta(boxes, scores, category_idxs, iou_threshold, categories, top_k)
    # the sorts are Paddle's eager ones (argsort: std::sort, topk: its
    # partial sort / nth_element), so tied scores come out in Paddle's order
    if scores is None:
        return greedy_nms(boxes, iou_threshold).astype(np.int64)
    if category_idxs is None:
        order = sort_descending(scores)
        return order[greedy_nms(boxes[order], iou_threshold)].astype(np.int64)
    if top_k >= 0 and top_k > len(boxes):
        raise OpError("nms: top_k (%d) should be smaller equal than the number of boxes (%d)"
                      % (top_k, len(boxes)))
    kept = np.zeros(len(boxes), bool)
    for category in categories:
        members = np.flatnonzero(category_idxs == category)
        order = members[sort_descending(scores[members])]
        kept[order[greedy_nms(boxes[order], iou_threshold)]] = True
    keep = np.flatnonzero(kept)
    if top_k < 0:
        return keep[sort_descending(scores[keep])].astype(np.int64)
    return keep[top_k_descending(scores[keep], top_k)].astype(np.int64)


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None,
        top_k=None):
    """Non-maximum suppression: the indices (int64) of the boxes kept.

    Boxes [num_boxes, 4] ``(x1, y1, x2, y2)``; one overlapping another that is
    kept with IoU > ``iou_threshold`` is dropped. Without ``scores`` boxes are
    taken in order; with ``scores`` by descending score. With
    ``category_idxs`` and ``categories`` each category is suppressed on its own
    and the kept boxes are sorted by score, the first ``top_k`` returned.

    >>> import framework as paddle
    >>> boxes = paddle.to_tensor([[0.0, 0.0, 2.0, 2.0], [0.0, 0.0, 2.0, 1.9],
    ...                           [3.0, 3.0, 4.0, 4.0]])
    >>> paddle.vision.ops.nms(boxes, 0.5).tolist()
    [0, 2]
    """
    if category_idxs is not None and scores is not None and categories is None:
        raise ValueError("nms: with category_idxs, categories (the list of the category "
                         "ids to keep) is necessary")
    cats = tuple(int(c) for c in categories) if categories is not None else ()
    return nms_op(boxes, scores, category_idxs if scores is not None else None,
                  float(iou_threshold), cats, -1 if top_k is None else int(top_k))


# ---- box_coder -----------------------------------------------------------------------

_CODE_TYPES = ('encode_center_size', 'decode_center_size')


def _coder_meta(prior_box, prior_box_var, target_box, code_type, box_normalized, axis,
                variance):
    api = 'box_coder'
    if code_type not in _CODE_TYPES:
        raise OpError("%s: code_type must be one of %s, got %r" % (api, _CODE_TYPES, code_type))
    ps = check_shape(api, 'prior_box', prior_box, 2, 4)
    check_float(api, 'prior_box', prior_box)
    check_float(api, 'target_box', target_box)
    if prior_box_var is not None:
        vs = check_shape(api, 'prior_box_var', prior_box_var, 2, 4)
        if -1 not in (vs[0], ps[0]) and vs[0] != ps[0]:
            raise OpError("%s: prior_box_var must have prior_box's shape %s, got %s"
                          % (api, ps, vs))
    if variance and len(variance) != 4:
        raise OpError("%s: variance must have 4 numbers, got %r" % (api, list(variance)))
    if code_type == 'encode_center_size':
        ts = check_shape(api, 'target_box (encode_center_size)', target_box, 2, 4)
        return Meta([ts[0], ps[0], 4], meta.dtype_of(prior_box))
    ts = check_shape(api, 'target_box (decode_center_size)', target_box, 3, 4)
    if axis not in (0, 1):
        raise OpError("%s: axis must be 0 or 1, got %r" % (api, axis))
    along = ts[1 - axis]
    if -1 not in (along, ps[0]) and along != ps[0]:
        raise OpError("%s: decoding with axis=%d needs prior_box [%d, 4] (target_box.shape[%d])"
                      ", got prior_box shape %s and target_box shape %s"
                      % (api, axis, along, 1 - axis, ps, ts))
    return Meta(ts, meta.dtype_of(prior_box))


def _center_size(boxes, offset):
    w = boxes[..., 2] - boxes[..., 0] + offset
    h = boxes[..., 3] - boxes[..., 1] + offset
    return boxes[..., 0] + w / 2, boxes[..., 1] + h / 2, w, h


@def_op('box_coder', _coder_meta, inputs=('prior_box', 'prior_box_var?', 'target_box'),
        attrs={'code_type': 'encode_center_size', 'box_normalized': True, 'axis': 0,
               'variance': ()}, differentiable=False, attr_types={'variance': 'floats'},
        pattern='opaque')
def box_coder_op(prior_box, prior_box_var, target_box, code_type, box_normalized, axis,
                 variance):
    """Encode target boxes [N, 4] against priors [M, 4] (-> [N, M, 4] center/size
    deltas) or decode deltas [N, M, 4] into boxes."""
    _coder_meta(prior_box, prior_box_var, target_box, code_type, box_normalized, axis, variance)
    dt = prior_box.dtype
    target_box = target_box.astype(dt, copy=False)
    off = dt.type(0 if box_normalized else 1)
    if prior_box_var is not None:
        var = prior_box_var.astype(dt, copy=False)
    elif variance:
        var = np.asarray(variance, np.float32).astype(dt)
    else:
        var = None
    if code_type == 'encode_center_size':
        pcx, pcy, pw, ph = _center_size(prior_box[None], off)
        tcx = (target_box[:, None, 2] + target_box[:, None, 0]) / dt.type(2)
        tcy = (target_box[:, None, 3] + target_box[:, None, 1]) / dt.type(2)
        tw = target_box[:, None, 2] - target_box[:, None, 0] + off
        th = target_box[:, None, 3] - target_box[:, None, 1] + off
        with np.errstate(divide='ignore', invalid='ignore'):
            out = np.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, np.log(np.abs(tw / pw)),
                            np.log(np.abs(th / ph))], axis=-1)
            return out if var is None else out / var
    # decode: prior i (axis 1) or j (axis 0) of target [i, j]
    prior = prior_box[None] if axis == 0 else prior_box[:, None]
    pcx, pcy, pw, ph = _center_size(prior, off)
    if var is None:
        var = np.ones(4, dt)
    elif var.ndim == 2:
        var = var[None] if axis == 0 else var[:, None]
    cx = var[..., 0] * target_box[..., 0] * pw + pcx
    cy = var[..., 1] * target_box[..., 1] * ph + pcy
    w = np.exp(var[..., 2] * target_box[..., 2]) * pw
    h = np.exp(var[..., 3] * target_box[..., 3]) * ph
    two = dt.type(2)
    return np.stack([cx - w / two, cy - h / two, cx + w / two - off, cy + h / two - off],
                    axis=-1)


def box_coder(prior_box, prior_box_var, target_box, code_type='encode_center_size',
              box_normalized=True, axis=0, name=None):
    """Encode boxes as center/size deltas of prior boxes, or decode them back.

    ``encode_center_size``: target_box [N, 4] and prior_box [M, 4] give [N, M, 4]
    ``((tx - px) / pw / vx, (ty - py) / ph / vy, log(tw / pw) / vw, log(th / ph) / vh)``.
    ``decode_center_size``: target_box [N, M, 4] deltas with prior_box [M, 4]
    (``axis=0``) or [N, 4] (``axis=1``) give boxes [N, M, 4]. ``prior_box_var``
    is a tensor like prior_box or 4 numbers; ``box_normalized=False``
    counts end pixels (``w = x2 - x1 + 1``).

    >>> import framework as paddle
    >>> prior = paddle.to_tensor([[0.0, 0.0, 2.0, 2.0]])
    >>> paddle.vision.ops.box_coder(prior, [1.0, 1.0, 1.0, 1.0],
    ...                             paddle.to_tensor([[1.0, 1.0, 3.0, 3.0]])).tolist()
    [[[0.5, 0.5, 0.0, 0.0]]]
    """
    if prior_box_var is not None and hasattr(prior_box_var, 'shape'):
        var_tensor, variance = prior_box_var, ()
    elif isinstance(prior_box_var, (list, tuple)):
        if len(prior_box_var) != 4:
            raise ValueError("box_coder: prior_box_var as a list must have 4 numbers, got %r"
                             % (prior_box_var,))
        var_tensor, variance = None, tuple(float(v) for v in prior_box_var)
    else:
        raise TypeError("box_coder: prior_box_var must be a Tensor or a list or tuple of 4 "
                        "numbers, got %s" % type(prior_box_var).__name__)
    return box_coder_op(prior_box, var_tensor, target_box, code_type, bool(box_normalized),
                        int(axis), variance)


# ---- prior_box --------------------------------------------------------------------------

def expand_aspect_ratios(aspect_ratios, flip):
    """1 first, then each new ratio (and its inverse with ``flip``), as Paddle."""
    out = [1.0]
    for ar in aspect_ratios:
        if all(abs(ar - o) >= 1e-6 for o in out):
            out.append(ar)
            if flip:
                out.append(float(np.float32(1.0) / np.float32(ar)))
    return out


def _prior_sizes(min_sizes, max_sizes, aspect_ratios, flip, min_max_aspect_ratios_order):
    """(half width, half height) of every prior at one position, in output order."""
    ratios = expand_aspect_ratios(aspect_ratios, flip)
    sizes = []
    for s, smin in enumerate(min_sizes):
        by_ratio = [(smin * np.sqrt(ar) / 2, smin / np.sqrt(ar) / 2) for ar in ratios]
        square = [(np.sqrt(smin * max_sizes[s]) / 2,) * 2] if max_sizes else []
        if min_max_aspect_ratios_order:
            rest = [wh for wh, ar in zip(by_ratio, ratios) if abs(ar - 1.0) >= 1e-6]
            sizes += [(smin / 2, smin / 2)] + square + rest
        else:
            sizes += by_ratio + square
    return np.array(sizes, np.float64).reshape(-1, 2)


def _num_priors(min_sizes, max_sizes, aspect_ratios, flip):
    return len(expand_aspect_ratios(aspect_ratios, flip)) * len(min_sizes) + len(max_sizes)


def _check_prior_inputs(input, image):
    for name, m in (('input', input), ('image', image)):
        check_shape('prior_box', name, m, 4)


def _prior_meta(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
                step_w, step_h, offset, min_max_aspect_ratios_order):
    _check_prior_inputs(input, image)
    if max_sizes and len(max_sizes) != len(min_sizes):
        raise OpError("prior_box: max_sizes must have one entry per min size, got %d min "
                      "sizes and %d max sizes" % (len(min_sizes), len(max_sizes)))
    h, w = meta.shape_of(input)[2:]
    shape = [h, w, _num_priors(min_sizes, max_sizes, aspect_ratios, flip), len(variances)]
    dt = meta.dtype_of(input)
    dt = dt if np.dtype(dt).kind == 'f' else np.float32
    return Meta(shape[:3] + [4], dt), Meta(shape, dt)


def _prior_values(input_shape, image_shape, dtype, min_sizes, max_sizes, aspect_ratios,
                  variances, flip, clip, step_w, step_h, offset, min_max_aspect_ratios_order):
    dt = np.dtype(dtype) if np.dtype(dtype).kind == 'f' else np.dtype(np.float32)
    fh, fw = input_shape[2:]
    ih, iw = image_shape[2:]
    step_w, step_h, offset = (_f32(v, dt) for v in (step_w, step_h, offset))
    if step_w == 0 or step_h == 0:
        step_w, step_h = dt.type(iw) / dt.type(fw), dt.type(ih) / dt.type(fh)
    cx = (np.arange(fw, dtype=dt) + offset) * step_w
    cy = (np.arange(fh, dtype=dt) + offset) * step_h
    half = _prior_sizes([float(np.float32(v)) for v in min_sizes],
                        [float(np.float32(v)) for v in max_sizes],
                        [float(np.float32(v)) for v in aspect_ratios], flip,
                        min_max_aspect_ratios_order).astype(dt)
    cx, cy = cx[None, :, None], cy[:, None, None]
    bw, bh = half[None, None, :, 0], half[None, None, :, 1]
    boxes = np.stack(np.broadcast_arrays((cx - bw) / dt.type(iw), (cy - bh) / dt.type(ih),
                                         (cx + bw) / dt.type(iw), (cy + bh) / dt.type(ih)),
                     axis=-1)
    if clip:
        boxes = np.clip(boxes, 0, 1)
    var = np.broadcast_to(np.asarray(variances, np.float32).astype(dt),
                          boxes.shape[:3] + (len(variances),)).copy()
    return np.ascontiguousarray(boxes, dt), var


def _prior_from_meta(input, image, *attrs):
    return _prior_values(meta.shape_of(input), meta.shape_of(image), meta.dtype_of(input),
                         *attrs)


@def_op('prior_box', _prior_meta, inputs=('input', 'image'), outputs=('boxes', 'variances'),
        attrs={'min_sizes': (), 'max_sizes': (), 'aspect_ratios': (1.0,),
               'variances': (0.1, 0.1, 0.2, 0.2), 'flip': False, 'clip': False,
               'step_w': 0.0, 'step_h': 0.0, 'offset': 0.5,
               'min_max_aspect_ratios_order': False},
        differentiable=False, value_from_meta=_prior_from_meta,
        attr_types={'min_sizes': 'floats', 'max_sizes': 'floats'}, pattern='opaque')
def prior_box_op(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
                 step_w, step_h, offset, min_max_aspect_ratios_order):
    """SSD prior boxes [H, W, num_priors, 4] (normalised by the image size) for
    the feature map ``input`` and their variances; only the shapes are read."""
    _check_prior_inputs(input, image)
    if input.size == 0 or image.size == 0:
        m = _prior_meta(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip,
                        clip, step_w, step_h, offset, min_max_aspect_ratios_order)
        return tuple(np.zeros(x.shape, x.dtype) for x in m)
    return _prior_values(input.shape, image.shape, input.dtype, min_sizes, max_sizes,
                         aspect_ratios, variances, flip, clip, step_w, step_h, offset,
                         min_max_aspect_ratios_order)


def _float_list(value, api, name):
    values = value if isinstance(value, (list, tuple)) else [value]
    try:
        return tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise TypeError("%s: %s must be a number or a list of numbers, got %r"
                        % (api, name, value)) from None


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],  # noqa: B006
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, steps=[0.0, 0.0],  # noqa: B006
              offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD prior (anchor) boxes for every position of a feature map.

    Returns ``(boxes, variances)``, both [H, W, num_priors, 4]: boxes are
    ``(x1, y1, x2, y2)`` divided by the image size, centred at ``(w + offset) *
    step`` (steps default to image size / feature size); per position come the
    aspect-ratio boxes of each min size (then its ``sqrt(min * max)`` square),
    or with ``min_max_aspect_ratios_order`` (Caffe) min, square, ratios.

    >>> import framework as paddle
    >>> boxes, var = paddle.vision.ops.prior_box(paddle.rand([1, 3, 2, 2]),
    ...                                          paddle.rand([1, 3, 8, 8]), [4.0])
    >>> boxes.shape, boxes[0, 0, 0].tolist()
    (paddle.Size([2, 2, 1, 4]), [0.0, 0.0, 0.5, 0.5])
    """
    api = 'prior_box'
    min_sizes = _float_list(min_sizes, api, 'min_sizes')
    steps = _float_list(steps, api, 'steps')
    if len(steps) != 2:
        raise ValueError('prior_box: steps should be (step_w, step_h), got %r' % (steps,))
    max_sizes = _float_list(max_sizes, api, 'max_sizes') if max_sizes is not None else ()
    if not max_sizes or max_sizes[0] <= 0:
        max_sizes = ()
    return prior_box_op(input, image, min_sizes, max_sizes,
                        _float_list(aspect_ratios, api, 'aspect_ratios'),
                        _float_list(variance, api, 'variance'), bool(flip), bool(clip),
                        steps[0], steps[1], float(offset), bool(min_max_aspect_ratios_order))


# ---- matrix_nms ---------------------------------------------------------------------------

def _matrix_nms_class(boxes, scores, score_threshold, post_threshold, top_k, use_gaussian,
                      sigma, normalized):
    """(box indices, decayed scores) kept for one class."""
    dt = scores.dtype
    cand = np.flatnonzero(scores > score_threshold)
    cand = cand[partial_sort_descending(scores[cand], top_k if top_k > -1 else len(cand))]
    if len(cand) == 0:
        return cand, scores[:0]
    iou = np.tril(jaccard(boxes[cand][:, None], boxes[cand][None, :], normalized), -1)
    iou_max = iou.max(axis=1)             # each box's largest IoU with a higher-scored one
    if use_gaussian:
        decay = np.exp((iou_max[None, :] ** 2 - iou ** 2) * _f32(sigma, dt))
    else:
        with np.errstate(divide='ignore', invalid='ignore'):
            decay = (1 - iou) / (1 - iou_max[None, :])
    lower = np.tri(len(cand), k=-1, dtype=bool)
    decay = np.where(lower, decay, dt.type(1)).min(axis=1)
    decayed = decay * scores[cand]
    keep = decayed > post_threshold
    keep[0] = scores[cand[0]] > post_threshold
    return cand[keep], decayed[keep]


def _matrix_nms_meta(bboxes, scores, score_threshold, nms_top_k, keep_top_k, post_threshold,
                     use_gaussian, gaussian_sigma, background_label, normalized):
    api = 'matrix_nms'
    bs = check_shape(api, 'bboxes', bboxes, 3, 4)
    ss = check_shape(api, 'scores', scores, 3)
    check_float(api, 'bboxes', bboxes)
    check_float(api, 'scores', scores)
    if -1 not in (bs[1], ss[2]) and bs[1] != ss[2]:
        raise OpError("%s: scores [N, C, M] must score the M = bboxes.shape[1] boxes: bboxes "
                      "shape %s, scores shape %s" % (api, bs, ss))
    return (Meta([-1, 6], meta.dtype_of(bboxes)), Meta([-1, 1], np.int32),
            Meta([bs[0]], np.int32))


@def_op('matrix_nms', _matrix_nms_meta, inputs=('bboxes', 'scores'),
        outputs=('out', 'index', 'rois_num'),
        attrs={'score_threshold': 0.0, 'nms_top_k': -1, 'keep_top_k': -1,
               'post_threshold': 0.0, 'use_gaussian': False, 'gaussian_sigma': 2.0,
               'background_label': 0, 'normalized': True}, differentiable=False, pattern='opaque')
def matrix_nms_op(bboxes, scores, score_threshold, nms_top_k, keep_top_k, post_threshold,
                  use_gaussian, gaussian_sigma, background_label, normalized):
    """Matrix NMS (SOLOv2): per class, scores decayed by the IoU with higher-scored
    boxes; detections [label, score, x1, y1, x2, y2] of every image, their box
    indices (across the batch) and the count per image."""
    _matrix_nms_meta(bboxes, scores, score_threshold, nms_top_k, keep_top_k, post_threshold,
                     use_gaussian, gaussian_sigma, background_label, normalized)
    dt = bboxes.dtype
    scores = scores.astype(dt, copy=False)
    st, pt = _f32(score_threshold, dt), _f32(post_threshold, dt)
    rows, index, counts = [], [], []
    for b in range(len(bboxes)):
        labels, kept, decayed = [], [], []
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            idx, ds = _matrix_nms_class(bboxes[b], scores[b, c], st, pt, nms_top_k,
                                        use_gaussian, gaussian_sigma, normalized)
            labels += [c] * len(idx)
            kept.append(idx)
            decayed.append(ds)
        kept = np.concatenate(kept) if kept else np.zeros(0, np.int64)
        decayed = np.concatenate(decayed) if decayed else np.zeros(0, dt)
        order = partial_sort_descending(decayed, keep_top_k if keep_top_k > -1 else len(decayed))
        labels = np.asarray(labels, dt)[order]
        rows.append(np.concatenate([labels[:, None], decayed[order][:, None],
                                    bboxes[b][kept[order]]], axis=1))
        index.append(kept[order] + b * bboxes.shape[1])
        counts.append(len(order))
    out = np.concatenate(rows).astype(dt) if rows else np.zeros((0, 6), dt)
    index = np.concatenate(index) if index else np.zeros(0)
    return out, index.astype(np.int32).reshape(-1, 1), np.asarray(counts, np.int32)


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """Matrix non-maximum suppression (SOLOv2) on bboxes [N, M, 4] with class
    scores [N, C, M].

    Returns ``(out, rois_num, index)`` as Paddle: out [No, 6] rows ``[label,
    score, x1, y1, x2, y2]`` (each image's detections by descending decayed
    score, at most ``keep_top_k``), rois_num [N] int32 (None unless
    ``return_rois_num``) and index [No, 1] int32 box indices across the batch
    (None unless ``return_index``).

    >>> import framework as paddle
    >>> boxes = paddle.to_tensor([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.9]]])
    >>> scores = paddle.to_tensor([[[0.0, 0.0], [0.9, 0.8]]])
    >>> out, num, _ = paddle.vision.ops.matrix_nms(boxes, scores, 0.1, 0.5, -1, -1)
    >>> out.shape, num.tolist()
    (paddle.Size([1, 6]), [1])
    """
    out, index, rois_num = matrix_nms_op(bboxes, scores, float(score_threshold),
                                         int(nms_top_k), int(keep_top_k), float(post_threshold),
                                         bool(use_gaussian), float(gaussian_sigma),
                                         int(background_label), bool(normalized))
    return out, (rois_num if return_rois_num else None), (index if return_index else None)


# ---- generate_proposals ---------------------------------------------------------------------

_BBOX_CLIP = np.log(1000.0 / 16.0)


def _decode_proposals(anchors, deltas, variances, offset):
    """Paddle's RPN box decoding (variances scale the deltas; sizes capped)."""
    dt = anchors.dtype
    w = anchors[:, 2] - anchors[:, 0] + offset
    h = anchors[:, 3] - anchors[:, 1] + offset
    cx = anchors[:, 0] + (0.5 * w).astype(dt)
    cy = anchors[:, 1] + (0.5 * h).astype(dt)
    d = deltas * variances
    clip = dt.type(_BBOX_CLIP)
    pcx, pcy = d[:, 0] * w + cx, d[:, 1] * h + cy
    pw, ph = np.exp(np.minimum(d[:, 2], clip)) * w, np.exp(np.minimum(d[:, 3], clip)) * h
    two = dt.type(2)
    return np.stack([pcx - pw / two, pcy - ph / two, pcx + pw / two - offset,
                     pcy + ph / two - offset], axis=1)


def adaptive_nms(boxes, scores, threshold, eta, normalized):
    """Greedy NMS by descending score (IoU <= threshold survives); with ``eta < 1``
    the threshold shrinks by eta after each kept box while it is above 0.5."""
    # a stable ascending sort taken from the back: ties keep the higher index first
    order = np.argsort(scores, kind='stable')[::-1]
    if eta >= 1:          # a fixed threshold: each kept box suppresses the rest at once
        alive = np.ones(len(order), bool)
        for k in range(len(order)):
            if alive[k]:
                later = order[k + 1:]
                alive[k + 1:] &= jaccard(boxes[order[k]], boxes[later], normalized) <= threshold
        return order[alive].astype(np.int64)
    kept = []
    for i in order:
        if not kept or (jaccard(boxes[i], boxes[kept], normalized) <= threshold).all():
            kept.append(i)
            if threshold > 0.5:
                threshold = threshold * eta
    return np.asarray(kept, np.int64)


def _proposals_one_image(scores, deltas, im_shape, anchors, variances, pre_nms_top_n,
                         post_nms_top_n, nms_thresh, min_size, eta, pixel_offset):
    dt = scores.dtype
    offset = dt.type(1 if pixel_offset else 0)
    # as Paddle's kernel: std::sort, or std::nth_element for the top n (unsorted)
    if 0 < pre_nms_top_n < len(scores):
        order = select_descending(scores, pre_nms_top_n)
    else:
        order = sort_descending(scores)
    scores, deltas, anchors, variances = (a[order] for a in (scores, deltas, anchors, variances))
    props = _decode_proposals(anchors, deltas, variances, offset)
    im_h, im_w = im_shape[0], im_shape[1]
    zero = dt.type(0)
    props[:, 0::2] = np.maximum(np.minimum(props[:, 0::2], im_w - offset), zero)
    props[:, 1::2] = np.maximum(np.minimum(props[:, 1::2], im_h - offset), zero)
    ws = props[:, 2] - props[:, 0] + offset
    hs = props[:, 3] - props[:, 1] + offset
    min_size = dt.type(max(np.float32(min_size), np.float32(1.0)))
    keep = (ws >= min_size) & (hs >= min_size)
    if pixel_offset:
        keep &= (props[:, 0] + ws / dt.type(2) <= im_w) & (props[:, 1] + hs / dt.type(2) <= im_h)
    keep = np.flatnonzero(keep)
    if len(keep) == 0:
        return np.zeros((1, 4), dt), np.zeros((1, 1), dt)
    props, scores = props[keep], scores[keep]
    if nms_thresh <= 0:
        return props, scores[:, None]
    kept = adaptive_nms(props, scores, _f32(nms_thresh, dt), np.float32(eta), not pixel_offset)
    if 0 < post_nms_top_n < len(kept):
        kept = kept[:post_nms_top_n]
    return props[kept], scores[kept][:, None]


def _proposals_meta(scores, bbox_deltas, img_size, anchors, variances, *attrs):
    api = 'generate_proposals'
    ss = check_shape(api, 'scores', scores, 4)
    bs = check_shape(api, 'bbox_deltas', bbox_deltas, 4)
    check_shape(api, 'img_size', img_size, 2, 2)
    check_shape(api, 'anchors', anchors, 4, 4)
    check_shape(api, 'variances', variances, 4, 4)
    for name, m in (('scores', scores), ('bbox_deltas', bbox_deltas), ('anchors', anchors),
                    ('variances', variances)):
        check_float(api, name, m)
    a = meta.shape_of(anchors)
    if -1 not in (ss[1], bs[1]) and bs[1] != 4 * ss[1]:
        raise OpError("%s: bbox_deltas [N, 4 * A, H, W] must have 4 channels per anchor of "
                      "scores [N, A, H, W]: got shapes %s and %s" % (api, bs, ss))
    if all(d >= 0 for d in ss[1:] + list(a[:3])) and list(a[:3]) != [ss[2], ss[3], ss[1]]:
        raise OpError("%s: anchors must be [H, W, A, 4] = [%d, %d, %d, 4] for scores shape "
                      "%s, got %s" % (api, ss[2], ss[3], ss[1], ss, list(a)))
    dt = meta.dtype_of(scores)
    return Meta([-1, 4], dt), Meta([-1, 1], dt), Meta([ss[0]], np.int32)


@def_op('generate_proposals', _proposals_meta,
        inputs=('scores', 'bbox_deltas', 'img_size', 'anchors', 'variances'),
        outputs=('rpn_rois', 'rpn_roi_probs', 'rpn_rois_num'),
        attrs={'pre_nms_top_n': 6000, 'post_nms_top_n': 1000, 'nms_thresh': 0.5,
               'min_size': 0.1, 'eta': 1.0, 'pixel_offset': False}, differentiable=False,
        pattern='opaque')
def generate_proposals_op(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n,
                          post_nms_top_n, nms_thresh, min_size, eta, pixel_offset):
    """RPN proposals per image: the top-scored anchors decoded by their deltas,
    clipped to the image, small ones dropped, then NMS."""
    _proposals_meta(scores, bbox_deltas, img_size, anchors, variances)
    dt = scores.dtype
    n, a, h, w = scores.shape
    sc = scores.transpose(0, 2, 3, 1).reshape(n, h * w * a)
    deltas = bbox_deltas.astype(dt, copy=False).transpose(0, 2, 3, 1).reshape(n, h * w * a, 4)
    anchors = anchors.astype(dt, copy=False).reshape(-1, 4)
    variances = variances.astype(dt, copy=False).reshape(-1, 4)
    rois, probs, counts = [], [], []
    for i in range(n):
        r, p = _proposals_one_image(sc[i], deltas[i], img_size[i].astype(dt), anchors,
                                    variances, pre_nms_top_n, post_nms_top_n, nms_thresh,
                                    min_size, eta, pixel_offset)
        rois.append(r)
        probs.append(p)
        counts.append(len(r))
    if not rois:
        return np.zeros((0, 4), dt), np.zeros((0, 1), dt), np.zeros(0, np.int32)
    return np.concatenate(rois), np.concatenate(probs), np.asarray(counts, np.int32)


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """Region proposals (Faster R-CNN's RPN) from anchor scores [N, A, H, W] and
    box deltas [N, 4 * A, H, W], for images of size ``img_size`` [N, 2] (h, w),
    with anchors and variances [H, W, A, 4].

    Per image: the ``pre_nms_top_n`` best anchors, decoded and clipped to the
    image, boxes under ``min_size`` dropped, NMS at ``nms_thresh`` (adaptive
    with ``eta < 1``), the ``post_nms_top_n`` best kept (an image left with
    nothing gets one zero box). Returns ``(rpn_rois [R, 4], rpn_roi_probs [R, 1],
    rpn_rois_num [N] int32 or None unless return_rois_num)``.
    """
    rois, probs, num = generate_proposals_op(
        scores, bbox_deltas, img_size, anchors, variances, int(pre_nms_top_n),
        int(post_nms_top_n), float(nms_thresh), float(min_size), float(eta),
        bool(pixel_offset))
    return rois, probs, (num if return_rois_num else None)


# ---- distribute_fpn_proposals -----------------------------------------------------------------

def _levels(rois, min_level, max_level, refer_level, refer_scale, pixel_offset):
    """The FPN level of each RoI: floor(log2(sqrt(area) / refer_scale) + refer_level)."""
    dt = rois.dtype
    scale = np.sqrt(_area(rois, dt.type(1 if pixel_offset else 0)))
    with np.errstate(divide='ignore'):
        level = np.floor(np.log2(scale / dt.type(refer_scale) + dt.type(1e-6)) + refer_level)
    return np.clip(level, min_level, max_level).astype(np.int64)


def _fpn_meta(fpn_rois, rois_num, min_level, max_level, refer_level, refer_scale,
              pixel_offset):
    api = 'distribute_fpn_proposals'
    check_shape(api, 'fpn_rois', fpn_rois, 2, 4)
    check_float(api, 'fpn_rois', fpn_rois)
    levels = max_level - min_level + 1
    metas = [Meta([-1, 4], meta.dtype_of(fpn_rois))] * levels
    metas.append(Meta([meta.shape_of(fpn_rois)[0], 1], np.int32))
    if rois_num is not None:
        check_shape(api, 'rois_num', rois_num, 1)
        check_int(api, 'rois_num', rois_num)
        metas += [Meta(meta.shape_of(rois_num), np.int32)] * levels
    return metas


@def_op('distribute_fpn_proposals', _fpn_meta, inputs=('fpn_rois', 'rois_num?'),
        outputs=('outs*',), attrs={'min_level': 2, 'max_level': 5, 'refer_level': 4,
                                   'refer_scale': 224, 'pixel_offset': False},
        differentiable=False, pattern='opaque')
def distribute_fpn_proposals_op(fpn_rois, rois_num, min_level, max_level, refer_level,
                                refer_scale, pixel_offset):
    """The RoIs of each FPN level (image by image, in order), the index that
    restores the original order from their concatenation, and with ``rois_num``
    the per-image counts of every level: one flat list of outputs."""
    _fpn_meta(fpn_rois, rois_num, min_level, max_level, refer_level, refer_scale, pixel_offset)
    counts = (np.asarray(rois_num, np.int64) if rois_num is not None
              else np.array([len(fpn_rois)]))
    if (counts < 0).any() or counts.sum() != len(fpn_rois):
        raise OpError("distribute_fpn_proposals: rois_num %s must count the %d RoIs"
                      % (counts.tolist(), len(fpn_rois)))
    image = np.repeat(np.arange(len(counts)), counts)
    level = _levels(fpn_rois, min_level, max_level, refer_level, refer_scale, pixel_offset)
    # stable by level: within a level the RoIs keep their (image-major) order
    order = np.argsort(level, kind='stable')
    restore = np.empty(len(order), np.int32)
    restore[order] = np.arange(len(order))
    levels = range(min_level, max_level + 1)
    outs = [fpn_rois[level == lv] for lv in levels] + [restore.reshape(-1, 1)]
    if rois_num is not None:
        outs += [np.bincount(image[level == lv], minlength=len(counts)).astype(np.int32)
                 for lv in levels]
    return outs


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """Distribute RoIs over the FPN levels by size:
    ``level = floor(log2(sqrt(area) / refer_scale) + refer_level)`` clipped to
    ``[min_level, max_level]``.

    Returns ``(multi_rois, restore_ind, rois_num_per_level)``: the RoIs of each
    level (a list), the int32 [R, 1] index with ``concat(multi_rois)[restore_ind]
    == fpn_rois``, and with ``rois_num`` [B] the per-image count of each level
    (a list of int32 [B]; None without ``rois_num``).
    """
    if not (max_level > 0 and min_level > 0):
        raise ValueError("distribute_fpn_proposals: min_level and max_level should be "
                         "greater than 0, got %r and %r" % (min_level, max_level))
    levels = max_level - min_level + 1
    if not 1 < levels < 100:
        raise ValueError("distribute_fpn_proposals: needs 2 to 99 levels "
                         "(max_level - min_level + 1), got %d" % levels)
    outs = distribute_fpn_proposals_op(fpn_rois, rois_num, int(min_level), int(max_level),
                                       int(refer_level), int(refer_scale), bool(pixel_offset))
    per_level = outs[levels + 1:] if rois_num is not None else None
    return outs[:levels], outs[levels], per_level


# ---- registry test cases ------------------------------------------------------------------

def _rand_boxes(rng, shape, extent=10.0, size=(1.0, 5.0), dtype='float64'):
    xy = rng.uniform(0, extent, shape + (2,))
    wh = rng.uniform(size[0], size[1], shape + (2,))
    return np.concatenate([xy, xy + wh], axis=-1).astype(dtype)


_rng = np.random.default_rng(0)
_BX = _rand_boxes(_rng, (12,), extent=6.0)
_SC = _rng.permutation(12) / 12.0
_CAT = _rng.integers(0, 3, 12)
add_test_case(nms_op, _BX, None, None, 0.3, (), -1, ref=ref.nms)
add_test_case(nms_op, _BX, _SC, None, 0.5, (), -1, ref=ref.nms)
add_test_case(nms_op, _BX, _SC, _CAT, 0.2, (0, 2), 4, ref=ref.nms)
add_test_case(nms_op, _BX.astype('float32'), _SC.astype('float32'), _CAT, 0.4, (0, 1, 2), -1,
              ref=ref.nms)
add_test_case(nms_op, np.zeros((0, 4)), np.zeros(0), np.zeros(0, np.int64), 0.5, (0,), -1,
              ref=ref.nms)

_PRIOR = _rand_boxes(_rng, (5,))
_PVAR = _rng.uniform(0.1, 0.3, (5, 4))
_TGT = _rand_boxes(_rng, (3,))
_DELTA = _rng.standard_normal((3, 5, 4))
add_test_case(box_coder_op, _PRIOR, _PVAR, _TGT, 'encode_center_size', True, 0, (),
              ref=ref.box_coder)
add_test_case(box_coder_op, _PRIOR, None, _TGT, 'encode_center_size', False, 0,
              (0.1, 0.1, 0.2, 0.2), ref=ref.box_coder)
add_test_case(box_coder_op, _PRIOR, _PVAR, _DELTA, 'decode_center_size', False, 0, (),
              ref=ref.box_coder)
add_test_case(box_coder_op, _PRIOR[:3], None, _DELTA, 'decode_center_size', True, 1,
              (0.1, 0.2, 0.3, 0.4), ref=ref.box_coder)
add_test_case(box_coder_op, _PRIOR.astype('float32'), None, _DELTA.astype('float32'),
              'decode_center_size', True, 0, (), ref=ref.box_coder, atol=1e-5)
add_test_case(box_coder_op, _PRIOR, None, np.zeros((0, 4)), 'encode_center_size', True, 0, (),
              ref=ref.box_coder)

_FEAT, _IMG = np.zeros((1, 2, 3, 4)), np.zeros((1, 3, 12, 20))
add_test_case(prior_box_op, _FEAT, _IMG, (2.0, 4.0), (5.0, 8.0), (2.0, 0.5), (0.1, 0.1, 0.2, 0.2),
              True, True, 0.0, 0.0, 0.5, False, ref=ref.prior_box)
add_test_case(prior_box_op, _FEAT, _IMG, (3.0,), (6.0,), (2.0, 3.0), (0.1, 0.2, 0.3, 0.4), True,
              False, 4.0, 3.5, 0.25, True, ref=ref.prior_box)
add_test_case(prior_box_op, _FEAT.astype('float32'), _IMG, (3.0,), (), (1.0,),
              (0.1, 0.1, 0.2, 0.2), False, False, 0.0, 0.0, 0.5, False, ref=ref.prior_box,
              atol=1e-6)

_MB = _rand_boxes(_rng, (2, 8), extent=1.0, size=(0.2, 0.6))
_MS = _rng.uniform(0, 1, (2, 3, 8))
add_test_case(matrix_nms_op, _MB, _MS, 0.2, -1, -1, 0.3, False, 2.0, 0, True,
              ref=ref.matrix_nms)
add_test_case(matrix_nms_op, _MB * 10, _MS, 0.1, 5, 6, 0.2, True, 2.0, -1, False,
              ref=ref.matrix_nms)
add_test_case(matrix_nms_op, _MB.astype('float32'), _MS.astype('float32'), 0.3, 4, -1, 0.1,
              False, 2.0, 1, True, ref=ref.matrix_nms, atol=1e-6)
add_test_case(matrix_nms_op, _MB, _MS, 0.99, -1, -1, 0.5, False, 2.0, 0, True,
              ref=ref.matrix_nms)

_GA, _GH, _GW = 2, 3, 4
_ANCH = np.concatenate([_rand_boxes(_rng, (_GH, _GW, _GA), extent=20.0, size=(4.0, 12.0))],
                       axis=-1)
_GVAR = np.full((_GH, _GW, _GA, 4), 1.0) * np.array([0.1, 0.1, 0.2, 0.2])
_GSC = _rng.uniform(0, 1, (2, _GA, _GH, _GW))
_GDE = _rng.standard_normal((2, 4 * _GA, _GH, _GW))
_GIM = np.array([[24.0, 30.0], [18.0, 16.0]])
add_test_case(generate_proposals_op, _GSC, _GDE, _GIM, _ANCH, _GVAR, 10, 5, 0.5, 0.1, 1.0,
              False, ref=ref.generate_proposals)
add_test_case(generate_proposals_op, _GSC, _GDE, _GIM, _ANCH, _GVAR, -1, 0, 0.7, 2.0, 0.9,
              True, ref=ref.generate_proposals)
add_test_case(generate_proposals_op, *(a.astype('float32') for a in (_GSC, _GDE, _GIM, _ANCH,
                                                                    _GVAR)),
              6, 3, 0.6, 0.1, 1.0, False, ref=ref.generate_proposals, atol=1e-4)
add_test_case(generate_proposals_op, _GSC[:0], _GDE[:0], _GIM[:0], _ANCH, _GVAR, 10, 5, 0.5,
              0.1, 1.0, False, ref=ref.generate_proposals)

_FR = _rand_boxes(_rng, (9,), extent=200.0, size=(4.0, 300.0))
add_test_case(distribute_fpn_proposals_op, _FR, np.array([4, 0, 5], np.int32), 2, 5, 4, 224,
              False, ref=ref.distribute_fpn_proposals)
add_test_case(distribute_fpn_proposals_op, _FR.astype('float32'), None, 1, 3, 2, 56, True,
              ref=ref.distribute_fpn_proposals)
add_test_case(distribute_fpn_proposals_op, np.zeros((0, 4)), np.zeros(2, np.int64), 2, 3, 2, 56,
              False, ref=ref.distribute_fpn_proposals)
