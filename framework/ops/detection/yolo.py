"""YOLOv3 heads: ``yolo_box`` (decoding) and ``yolo_loss`` (training), as
Paddle's CPU kernels compute them.

The head output x [N, A * (5 + class_num), H, W] holds, per anchor, the box
logits (tx, ty, tw, th), the objectness logit and the class logits (with
``iou_aware`` yolo_box also reads A IoU logits in front).

``yolo_loss`` is split in two: the ``yolo_loss_targets`` op does the
discrete part (which anchor and cell each ground-truth box falls on, which
predictions overlap a ground truth enough to be ignored; no gradient, as in
Paddle), and the loss itself is composed of registered ops (sigmoid cross
entropy, L1, gathers), so its gradient in x is exact and differentiable again.
"""
import numpy as np

from .. import meta
from . import reference as ref
from ..loss import bce_logits_op
from ..manipulation import gather_op, reshape_op, transpose_op
from ..math import abs_op
from ..reduce import sum_op
from ..registry import Meta, OpError, add_test_case, def_op
from .common import check_float, check_int, check_shape

__all__ = ['yolo_box', 'yolo_loss']


def _sigmoid(x):
    """Paddle's ``1.0 / (1.0 + exp(-x))``: exp in x's dtype, the division in double."""
    return (1.0 / (1.0 + np.exp(-x).astype(np.float64))).astype(x.dtype)


def _check_anchors(api, anchors):
    if len(anchors) == 0 or len(anchors) % 2:
        raise OpError("%s: anchors must hold (width, height) pairs, got %r"
                      % (api, list(anchors)))


def _check_head(api, x, anchors_used, class_num, extra=0):
    xs = check_shape(api, 'x', x, 4)
    check_float(api, 'x', x)
    if class_num <= 0:
        raise OpError("%s: class_num must be positive, got %r" % (api, class_num))
    want = anchors_used * (5 + extra + class_num)
    if xs[1] >= 0 and xs[1] != want:
        raise OpError("%s: x must have %d anchors * (%d + class_num=%d) = %d channels, got "
                      "shape %s" % (api, anchors_used, 5 + extra, class_num, want, xs))
    return xs


# ---- yolo_box -----------------------------------------------------------------------------

def _yolo_box_meta(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
                   scale_x_y, iou_aware, iou_aware_factor):
    api = 'yolo_box'
    _check_anchors(api, anchors)
    n, _, h, w = _check_head(api, x, len(anchors) // 2, class_num, int(bool(iou_aware)))
    check_shape(api, 'img_size', img_size, 2, 2)
    check_int(api, 'img_size', img_size)
    boxes = len(anchors) // 2 * h * w if h >= 0 and w >= 0 else -1
    return Meta([n, boxes, 4], meta.dtype_of(x)), Meta([n, boxes, class_num], meta.dtype_of(x))


@def_op('yolo_box', _yolo_box_meta, inputs=('x', 'img_size'), outputs=('boxes', 'scores'),
        attrs={'anchors': (), 'class_num': 1, 'conf_thresh': 0.01, 'downsample_ratio': 32,
               'clip_bbox': True, 'scale_x_y': 1.0, 'iou_aware': False,
               'iou_aware_factor': 0.5}, differentiable=False, attr_types={'anchors': 'ints'},
        pattern='opaque')
def yolo_box_op(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
                scale_x_y, iou_aware, iou_aware_factor):
    """Boxes [N, A * H * W, 4] (x1, y1, x2, y2 in image pixels) and class scores
    [N, A * H * W, class_num]; predictions under ``conf_thresh`` are all zero."""
    _yolo_box_meta(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
                   scale_x_y, iou_aware, iou_aware_factor)
    dt = x.dtype
    n, _, h, w = x.shape
    an = len(anchors) // 2
    if iou_aware:
        iou, head = x[:, :an], x[:, an:].reshape(n, an, 5 + class_num, h, w)
    else:
        head = x.reshape(n, an, 5 + class_num, h, w)
    conf = _sigmoid(head[:, :, 4])
    if iou_aware:
        f = np.float32(iou_aware_factor)
        conf = (conf ** dt.type(1.0 - f)) * (_sigmoid(iou) ** dt.type(f))
    keep = ~(conf < np.float32(conf_thresh).astype(dt))
    scale = np.float32(scale_x_y).astype(dt)
    bias = (np.float32(-0.5) * (np.float32(scale_x_y) - np.float32(1))).astype(dt)
    img_h = img_size[:, 0].astype(dt)[:, None, None, None]
    img_w = img_size[:, 1].astype(dt)[:, None, None, None]
    aw = np.asarray(anchors[0::2], dt)[None, :, None, None]
    ah = np.asarray(anchors[1::2], dt)[None, :, None, None]
    col = np.arange(w, dtype=dt)[None, None, None, :]
    row = np.arange(h, dtype=dt)[None, None, :, None]
    cx = (col + _sigmoid(head[:, :, 0]) * scale + bias) * img_w / dt.type(w)
    cy = (row + _sigmoid(head[:, :, 1]) * scale + bias) * img_h / dt.type(h)
    bw = np.exp(head[:, :, 2]) * aw * img_w / dt.type(downsample_ratio * w)
    bh = np.exp(head[:, :, 3]) * ah * img_h / dt.type(downsample_ratio * h)
    two = dt.type(2)
    boxes = np.stack([cx - bw / two, cy - bh / two, cx + bw / two, cy + bh / two], axis=-1)
    if clip_bbox:
        boxes[..., 0] = np.where(boxes[..., 0] > 0, boxes[..., 0], dt.type(0))
        boxes[..., 1] = np.where(boxes[..., 1] > 0, boxes[..., 1], dt.type(0))
        boxes[..., 2] = np.minimum(boxes[..., 2], img_w - 1)
        boxes[..., 3] = np.minimum(boxes[..., 3], img_h - 1)
    scores = conf[:, :, None] * _sigmoid(head[:, :, 5:])         # [N, A, class, H, W]
    m = an * h * w
    boxes = np.where(keep[..., None], boxes, dt.type(0)).reshape(n, m, 4)
    scores = np.where(keep[:, :, None], scores, dt.type(0)).transpose(0, 1, 3, 4, 2)
    return boxes, scores.reshape(n, m, class_num)


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """Decode a YOLOv3 head into boxes and scores.

    x [N, A * (5 + class_num), H, W] (``iou_aware``: A IoU channels first);
    img_size [N, 2] int32 (h, w); anchors ``[w0, h0, w1, h1, ...]`` in input
    pixels. Box centers are ``(grid + sigmoid(t) * scale_x_y - (scale_x_y - 1)
    / 2) / grid_size``, sizes ``anchor * exp(t)``, both scaled to the image;
    scores are ``sigmoid(obj) * sigmoid(class)`` (``iou_aware``: objectness
    ``sigmoid(obj) ** (1 - f) * sigmoid(iou) ** f``). Returns ``(boxes [N, M, 4],
    scores [N, M, class_num])``, M = A * H * W, zero under ``conf_thresh``.
    """
    anchors = tuple(int(a) for a in anchors)
    return yolo_box_op(x, img_size, anchors, int(class_num), float(conf_thresh),
                       int(downsample_ratio), bool(clip_bbox), float(scale_x_y),
                       bool(iou_aware), float(iou_aware_factor))


# ---- yolo_loss ----------------------------------------------------------------------------

def _overlap(c1, w1, c2, w2):
    return np.minimum(c1 + w1 / 2, c2 + w2 / 2) - np.maximum(c1 - w1 / 2, c2 - w2 / 2)


def _iou_cwh(a, b):
    """IoU of center/size boxes ``a`` [..., 4] and ``b`` [..., 4] (broadcast)."""
    w = _overlap(a[..., 0], a[..., 2], b[..., 0], b[..., 2])
    h = _overlap(a[..., 1], a[..., 3], b[..., 1], b[..., 3])
    inter = np.where((w < 0) | (h < 0), 0, w * h)
    with np.errstate(divide='ignore', invalid='ignore'):
        return inter / (a[..., 2] * a[..., 3] + b[..., 2] * b[..., 3] - inter)


_TARGET_OUTPUTS = ('obj_target', 'obj_weight', 'row', 'box_target', 'box_weight', 'label_target',
                   'label_weight', 'gt_match_mask')


def _targets_meta(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                  ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
    api = 'yolo_loss'
    _check_anchors(api, anchors)
    for m in anchor_mask:
        if not 0 <= m < len(anchors) // 2:
            raise OpError("%s: anchor_mask %r indexes %d anchors" % (api, list(anchor_mask),
                                                                  len(anchors) // 2))
    n, _, h, w = _check_head(api, x, len(anchor_mask), class_num)
    gs = check_shape(api, 'gt_box', gt_box, 3, 4)
    ls = check_shape(api, 'gt_label', gt_label, 2)
    check_float(api, 'gt_box', gt_box)
    check_int(api, 'gt_label', gt_label)
    if gt_score is not None:
        if list(meta.shape_of(gt_score)) != ls:
            raise OpError("%s: gt_score must have gt_label's shape %s, got %s"
                          % (api, ls, list(meta.shape_of(gt_score))))
    if -1 not in ls + gs[:2] and ls != gs[:2]:
        raise OpError("%s: gt_label must be [N, B] for gt_box [N, B, 4], got shapes %s and %s"
                      % (api, ls, gs))
    if h >= 0 and w >= 0 and h != w:
        raise OpError("%s: x must be square (H == W), got shape %s"
                      % (api, list(meta.shape_of(x))))
    dt = meta.dtype_of(x)
    nb = [n, gs[1]]
    obj = Meta([n, len(anchor_mask), h, w], dt)
    return (obj, obj, Meta(nb, np.int64), Meta(nb + [4], dt), Meta(nb, dt),
            Meta(nb + [class_num], dt), Meta(nb, dt), Meta(nb, np.int32))


@def_op('yolo_loss_targets', _targets_meta, inputs=('x', 'gt_box', 'gt_label', 'gt_score?'),
        outputs=_TARGET_OUTPUTS,
        attrs={'anchors': (), 'anchor_mask': (), 'class_num': 1, 'ignore_thresh': 0.7,
               'downsample_ratio': 32, 'use_label_smooth': True, 'scale_x_y': 1.0},
        differentiable=False, attr_types={'anchors': 'ints', 'anchor_mask': 'ints'},
        attr_ranges={'anchor_mask': (0, None)}, pattern='opaque')
def yolo_loss_targets_op(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                         ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
    """What YOLOv3's loss compares x with, as Paddle's kernel decides it:

    * ``obj_target`` / ``obj_weight`` [N, M, H, W]: objectness is pushed to 1
      with the ground truth's score as weight on the cell and anchor each box is
      assigned to, to 0 with weight 1 on every other prediction that overlaps no
      ground truth by more than ``ignore_thresh``, and ignored (weight 0) on the
      rest;
    * per ground-truth box [N, B]: ``row``, its prediction's row in x seen as
      [N * M * H * W, 5 + class_num]; ``box_target`` (tx, ty, tw, th) with weight
      ``box_weight = (2 - w * h) * score``; ``label_target`` [N, B, class_num]
      (label smoothing) with weight ``label_weight`` (weights are 0 for boxes
      whose best anchor is not in ``anchor_mask`` and for empty boxes);
    * ``gt_match_mask`` [N, B]: the anchor_mask index of each box's anchor, or -1.
    """
    _targets_meta(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh,
                  downsample_ratio, use_label_smooth, scale_x_y)
    dt = x.dtype
    n, _, h, w = x.shape
    nm, b = len(anchor_mask), gt_box.shape[1]
    input_size = downsample_ratio * h
    gt = gt_box.astype(dt, copy=False)
    score = np.ones((n, b), dt) if gt_score is None else gt_score.astype(dt, copy=False)
    valid = ~((gt[..., 2] < 1e-6) | (gt[..., 3] < 1e-6))
    # predicted boxes (center/size, normalised) of every masked anchor and cell
    head = x.reshape(n, nm, 5 + class_num, h, w)
    scale = np.float32(scale_x_y)
    bias = np.float32(-0.5) * (scale - np.float32(1))
    aw = np.asarray([anchors[2 * m] for m in anchor_mask], dt)[None, :, None, None]
    ah = np.asarray([anchors[2 * m + 1] for m in anchor_mask], dt)[None, :, None, None]
    pred = np.stack([
        (np.arange(w, dtype=dt) + _sigmoid(head[:, :, 0]) * scale + bias) / dt.type(h),
        (np.arange(h, dtype=dt)[:, None] + _sigmoid(head[:, :, 1]) * scale + bias) / dt.type(h),
        np.exp(head[:, :, 2]) * aw / dt.type(input_size),
        np.exp(head[:, :, 3]) * ah / dt.type(input_size)], axis=-1)
    best = np.zeros((n, nm, h, w), dt)
    for t in range(b):
        iou = _iou_cwh(pred, gt[:, None, None, None, t])
        best = np.fmax(best, np.where(valid[:, t, None, None, None], iou, 0))
    obj = np.where(best > np.float32(ignore_thresh), dt.type(-1), dt.type(0))
    # each ground truth's best anchor by shape alone (both centered at 0)
    anchor_wh = np.asarray(anchors, dt).reshape(-1, 2) / dt.type(input_size)
    shape_iou = _iou_cwh(np.concatenate([np.zeros_like(anchor_wh), anchor_wh], 1)[None, None],
                         np.concatenate([np.zeros_like(gt[..., :2]), gt[..., 2:]], -1)[:, :, None])
    best_anchor = np.argmax(shape_iou.astype(np.float32), axis=2)    # first best, as Paddle
    mask_index = np.full(len(anchors) // 2, -1)
    mask_index[list(anchor_mask)] = np.arange(nm)
    match = np.where(valid, mask_index[best_anchor], -1).astype(np.int32)
    gi = np.clip((gt[..., 0] * w).astype(np.int64), 0, w - 1)
    gj = np.clip((gt[..., 1] * h).astype(np.int64), 0, h - 1)
    matched = match >= 0
    safe_anchor = np.where(matched, best_anchor, 0)
    anchor_w = np.asarray(anchors[0::2], dt)[safe_anchor]
    anchor_h = np.asarray(anchors[1::2], dt)[safe_anchor]
    with np.errstate(divide='ignore'):     # empty (padding) boxes: log(0), masked below
        box_target = np.stack([gt[..., 0] * dt.type(w) - gi.astype(dt),
                               gt[..., 1] * dt.type(h) - gj.astype(dt),
                               np.log(gt[..., 2] * input_size / anchor_w),
                               np.log(gt[..., 3] * input_size / anchor_h)], axis=-1)
    box_target = np.where(matched[..., None], box_target, dt.type(0))
    box_weight = np.where(matched, (2 - gt[..., 2] * gt[..., 3]) * score, dt.type(0))
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    labels = np.asarray(gt_label).astype(np.int64)
    label_target = np.where(np.arange(class_num) == labels[..., None], dt.type(1.0 - smooth),
                            dt.type(smooth))
    label_weight = np.where(matched, score, dt.type(0))
    cell = np.where(matched, match * (h * w) + gj * w + gi, 0)
    row = np.arange(n)[:, None] * (nm * h * w) + cell
    for i, t in zip(*np.nonzero(matched)):   # in order: a later box overwrites the mark
        obj[i, match[i, t], gj[i, t], gi[i, t]] = score[i, t]
    positive = obj > 1e-5
    obj_weight = np.where(positive, obj, (obj > -0.5).astype(dt))
    floats = (positive, obj_weight, box_target, box_weight, label_target, label_weight)
    positive, obj_weight, box_target, box_weight, label_target, label_weight = (
        a.astype(dt, copy=False) for a in floats)
    return (positive, obj_weight, row.astype(np.int64), box_target, box_weight, label_target,
            label_weight, match)


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None, scale_x_y=1.0):
    """YOLOv3 loss per image [N] for the head x [N, len(anchor_mask) * (5 +
    class_num), H, W] against ground-truth boxes gt_box [N, B, 4] (center x, y,
    width, height divided by the input size) with labels gt_label [N, B] int32.

    Each ground truth is assigned to the anchor (of all ``anchors``) with the
    closest shape, if it is in ``anchor_mask``, on the cell holding its center:
    there it adds sigmoid cross entropy on (tx, ty), L1 on (tw, th), both times
    ``2 - w * h``, and sigmoid cross entropy on the classes (smoothed labels with
    ``use_label_smooth``); objectness is pushed to 1 there and to 0 wherever
    no ground truth overlaps the prediction by more than ``ignore_thresh``.
    ``gt_score`` [N, B] (mixup) scales every term of its box.
    """
    anchors = tuple(int(a) for a in anchors)
    anchor_mask = tuple(int(a) for a in anchor_mask)
    class_num = int(class_num)
    (obj_target, obj_weight, row, box_target, box_weight, label_target, label_weight,
     _) = yolo_loss_targets_op(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                               float(ignore_thresh), int(downsample_ratio),
                               bool(use_label_smooth), float(scale_x_y))
    n, _, h, w = meta.shape_of(x)
    if h < 0 or w < 0:
        raise OpError("yolo_loss: x needs known spatial sizes, got shape %s"
                      % list(meta.shape_of(x)))
    entries = 5 + class_num
    per_anchor = reshape_op(x, (-1, len(anchor_mask), entries, h * w))
    # the predictions of the assigned cells: [N, B, 5 + class_num]
    cells = reshape_op(transpose_op(per_anchor, (0, 1, 3, 2)), (-1, entries))
    pred = gather_op(cells, row, 0)
    location = (bce_logits_op(pred[:, :, 0], box_target[:, :, 0], None, None, 'none')
                + bce_logits_op(pred[:, :, 1], box_target[:, :, 1], None, None, 'none')
                + abs_op(pred[:, :, 2] - box_target[:, :, 2])
                + abs_op(pred[:, :, 3] - box_target[:, :, 3]))
    classes = sum_op(bce_logits_op(pred[:, :, 5:], label_target, None, None, 'none'), (2,))
    objectness = bce_logits_op(reshape_op(per_anchor[:, :, 4], (-1, len(anchor_mask), h, w)),
                               obj_target, obj_weight, None, 'none')
    return (sum_op(location * box_weight + classes * label_weight, (1,))
            + sum_op(objectness, (1, 2, 3)))


# ---- registry test cases ------------------------------------------------------------------

_rng = np.random.default_rng(0)
_ANCHORS3 = (10, 13, 16, 30, 33, 23)
_HEAD = _rng.standard_normal((2, 3 * (5 + 2), 3, 4))
_IMG = np.array([[100, 120], [64, 80]], np.int32)
add_test_case(yolo_box_op, _HEAD, _IMG, _ANCHORS3, 2, 0.3, 32, True, 1.0, False, 0.5,
              ref=ref.yolo_box, atol=1e-5)
add_test_case(yolo_box_op, _HEAD[:1, :7], _IMG[:1], _ANCHORS3[:2], 2, 0.05, 16, False, 1.2,
              False, 0.5, ref=ref.yolo_box, atol=1e-5)
add_test_case(yolo_box_op, _rng.standard_normal((2, 3 * (6 + 2), 3, 4)).astype('float32'),
              _IMG, _ANCHORS3, 2, 0.2, 32, True, 1.0, True, 0.4, ref=ref.yolo_box, atol=1e-4)
add_test_case(yolo_box_op, _HEAD[:0], _IMG[:0], _ANCHORS3, 2, 0.3, 32, True, 1.0, False, 0.5,
              ref=ref.yolo_box)

_ANCHORS9 = (10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326)
_LX = _rng.standard_normal((2, 3 * (5 + 3), 4, 4))
_GT = np.concatenate([_rng.uniform(0.05, 0.95, (2, 5, 2)), _rng.uniform(0.05, 0.6, (2, 5, 2))],
                     axis=-1)
_GT[1, 3:] = 0                       # padding boxes
_LABEL = _rng.integers(0, 3, (2, 5)).astype(np.int32)
_SCORE = _rng.uniform(0.5, 1.0, (2, 5))
add_test_case(yolo_loss_targets_op, _LX, _GT, _LABEL, None, _ANCHORS9, (3, 4, 5), 3, 0.5, 32,
              True, 1.0, ref=ref.yolo_loss_targets)
add_test_case(yolo_loss_targets_op, _LX, _GT, _LABEL, _SCORE, _ANCHORS9, (0, 1, 2), 3, 0.2, 32,
              False, 1.1, ref=ref.yolo_loss_targets)
add_test_case(yolo_loss_targets_op, _LX.astype('float32'), _GT.astype('float32'), _LABEL,
              _SCORE.astype('float32'), _ANCHORS9, (6, 7, 8), 3, 0.3, 16, True, 1.0,
              ref=ref.yolo_loss_targets, atol=1e-5)
add_test_case(yolo_loss_targets_op, _LX, _GT[:, :0], _LABEL[:, :0], None, _ANCHORS9, (3, 4, 5),
              3, 0.5, 32, True, 1.0, ref=ref.yolo_loss_targets)
