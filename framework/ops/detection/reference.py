"""Loop-by-loop numpy references for the detection ops' test cases.

Each follows the published algorithm one sample (or one pixel) at a time, as
Paddle's CPU kernels do, so the vectorised kernels are checked against code
that shares nothing with them but the definition.
"""
import numpy as np

from .common import c_round


def _batch_ids(boxes_num):
    return np.repeat(np.arange(len(boxes_num)), np.asarray(boxes_num, np.int64))


def _align_sample(plane, y, x):
    """One RoIAlign sample: bilinear with the border clamped, 0 far outside."""
    h, w = plane.shape
    if y < -1.0 or y > h or x < -1.0 or x > w:
        return 0.0
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= h - 1:
        y0 = y1 = h - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= w - 1:
        x0 = x1 = w - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    return ((1 - ly) * (1 - lx) * plane[y0, x0] + (1 - ly) * lx * plane[y0, x1]
            + ly * (1 - lx) * plane[y1, x0] + ly * lx * plane[y1, x1])


def roi_align(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale=1.0,
              sampling_ratio=-1, aligned=True):
    out = np.zeros((len(boxes), x.shape[1], pooled_height, pooled_width), x.dtype)
    off = 0.5 if aligned else 0.0
    for r, b in enumerate(_batch_ids(boxes_num)):
        x1, y1, x2, y2 = [float(v) * spatial_scale - off for v in boxes[r]]
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        gh = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rh / pooled_height))
        gw = sampling_ratio if sampling_ratio > 0 else int(np.ceil(rw / pooled_width))
        for c in range(x.shape[1]):
            for ph in range(pooled_height):
                for pw in range(pooled_width):
                    total = 0.0
                    for iy in range(gh):
                        y = y1 + rh / pooled_height * (ph + (iy + 0.5) / gh)
                        for ix in range(gw):
                            xx = x1 + rw / pooled_width * (pw + (ix + 0.5) / gw)
                            total += _align_sample(x[b, c], y, xx)
                    out[r, c, ph, pw] = total / (gh * gw) if gh * gw else np.nan
    return out


def roi_pool(x, boxes, boxes_num, pooled_height, pooled_width, spatial_scale=1.0):
    """The bin maxima and their first positions (flat indices into x, -1 when empty)."""
    _, c_, h, w = x.shape
    out = np.zeros((len(boxes), c_, pooled_height, pooled_width), x.dtype)
    argmax = np.full(out.shape, -1, np.int64)
    for r, b in enumerate(_batch_ids(boxes_num)):
        x1, y1, x2, y2 = [int(c_round(float(v) * spatial_scale)) for v in boxes[r]]
        bh, bw = max(y2 - y1 + 1, 1), max(x2 - x1 + 1, 1)
        for ph in range(pooled_height):
            for pw in range(pooled_width):
                hs = min(max(int(np.floor(ph * bh / pooled_height)) + y1, 0), h)
                he = min(max(int(np.ceil((ph + 1) * bh / pooled_height)) + y1, 0), h)
                ws = min(max(int(np.floor(pw * bw / pooled_width)) + x1, 0), w)
                we = min(max(int(np.ceil((pw + 1) * bw / pooled_width)) + x1, 0), w)
                for c in range(c_):
                    for yy in range(hs, he):
                        for xx in range(ws, we):
                            if argmax[r, c, ph, pw] < 0 or x[b, c, yy, xx] > out[r, c, ph, pw]:
                                out[r, c, ph, pw] = x[b, c, yy, xx]
                                argmax[r, c, ph, pw] = ((b * c_ + c) * h + yy) * w + xx
    return out, argmax


def psroi_pool(x, boxes, boxes_num, pooled_height, pooled_width, output_channels,
               spatial_scale=1.0):
    _, _, h, w = x.shape
    out = np.zeros((len(boxes), output_channels, pooled_height, pooled_width), x.dtype)
    for r, b in enumerate(_batch_ids(boxes_num)):
        x1, y1 = [float(c_round(v)) * spatial_scale for v in boxes[r][:2]]
        x2, y2 = [(float(c_round(v)) + 1.0) * spatial_scale for v in boxes[r][2:]]
        bin_h = max(y2 - y1, 0.1) / pooled_height
        bin_w = max(x2 - x1, 0.1) / pooled_width
        for c in range(output_channels):
            for ph in range(pooled_height):
                for pw in range(pooled_width):
                    hs = min(max(int(np.floor(ph * bin_h + y1)), 0), h)
                    he = min(max(int(np.ceil((ph + 1) * bin_h + y1)), 0), h)
                    ws = min(max(int(np.floor(pw * bin_w + x1)), 0), w)
                    we = min(max(int(np.ceil((pw + 1) * bin_w + x1)), 0), w)
                    if he > hs and we > ws:
                        ch = (c * pooled_height + ph) * pooled_width + pw
                        out[r, c, ph, pw] = x[b, ch, hs:he, ws:we].mean()
    return out


def deform_sample(plane, y, x):
    """One deformable-conv sample: bilinear with zeros outside the image."""
    h, w = plane.shape
    if not (-1 < y < h and -1 < x < w):
        return 0.0
    y0, x0 = int(np.floor(y)), int(np.floor(x))
    ly, lx = y - y0, x - x0
    total = 0.0
    for yy, wy in ((y0, 1 - ly), (y0 + 1, ly)):
        for xx, wx in ((x0, 1 - lx), (x0 + 1, lx)):
            if 0 <= yy < h and 0 <= xx < w:
                total += wy * wx * plane[yy, xx]
    return total


def bilinear_sample(x, py, px, dy=0, dx=0):
    """``x`` [B, C, H, W] sampled at ``(py, px)`` [B, P]; ``dy``/``dx`` = 1 take
    the derivative along that axis instead of interpolating."""
    b_, c_, h, w = x.shape
    out = np.zeros((b_, c_, py.shape[1]), x.dtype)
    for b in range(b_):
        for p in range(py.shape[1]):
            y0, x0 = int(np.floor(py[b, p])), int(np.floor(px[b, p]))
            ly, lx = py[b, p] - y0, px[b, p] - x0
            wys = (-1.0, 1.0) if dy else (1 - ly, ly)
            wxs = (-1.0, 1.0) if dx else (1 - lx, lx)
            for yy, wy in zip((y0, y0 + 1), wys):
                for xx, wx in zip((x0, x0 + 1), wxs):
                    if 0 <= yy < h and 0 <= xx < w:
                        out[b, :, p] += wy * wx * x[b, :, yy, xx]
    return out


def deform_conv2d(x, offset, weight, mask, stride, padding, dilation, deformable_groups,
                  groups):
    """Deformable convolution v1/v2, one output pixel at a time."""
    n, c, h, w = x.shape
    m, cg, kh, kw = weight.shape
    ho, wo = offset.shape[2:]
    cpd = c // deformable_groups
    mpg = m // groups
    out = np.zeros((n, m, ho, wo), x.dtype)
    for b in range(n):
        for oy in range(ho):
            for ox in range(wo):
                cols = np.zeros((c, kh, kw))
                for ch in range(c):
                    g = ch // cpd
                    for i in range(kh):
                        for j in range(kw):
                            k = i * kw + j
                            y = oy * stride[0] - padding[0] + i * dilation[0] + \
                                offset[b, g * 2 * kh * kw + 2 * k, oy, ox]
                            xx = ox * stride[1] - padding[1] + j * dilation[1] + \
                                offset[b, g * 2 * kh * kw + 2 * k + 1, oy, ox]
                            v = deform_sample(x[b, ch], y, xx)
                            if mask is not None:
                                v *= mask[b, g * kh * kw + k, oy, ox]
                            cols[ch, i, j] = v
                for oc in range(m):
                    grp = oc // mpg
                    out[b, oc, oy, ox] = np.sum(weight[oc] * cols[grp * cg:(grp + 1) * cg])
    return out


# ---- box ops --------------------------------------------------------------------------

def _iou(a, b, normalized=True):
    """JaccardOverlap of two boxes, as Paddle's detection utilities."""
    if b[0] > a[2] or b[2] < a[0] or b[1] > a[3] or b[3] < a[1]:
        return 0.0
    off = 0.0 if normalized else 1.0

    def area(x):
        if x[2] < x[0] or x[3] < x[1]:
            return 0.0
        return (x[2] - x[0] + off) * (x[3] - x[1] + off)
    inter = (min(a[2], b[2]) - max(a[0], b[0]) + off) * (min(a[3], b[3]) - max(a[1], b[1]) + off)
    return inter / (area(a) + area(b) - inter)


def _nms_iou(a, b):
    iw = max(min(a[2], b[2]) - max(a[0], b[0]), 0.0)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]), 0.0)
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - iw * ih
    return iw * ih / union if union else float('nan')


def _greedy(boxes, order, threshold):
    kept = []
    for i in order:
        if all(not _nms_iou(boxes[k], boxes[i]) > threshold for k in kept):
            kept.append(i)
    return kept


def _by_score(idx, scores):
    return sorted(idx, key=lambda i: (-scores[i], i))


def nms(boxes, scores, category_idxs, iou_threshold, categories, top_k):
    boxes = [[float(v) for v in b] for b in boxes]
    thr = float(np.float32(iou_threshold))
    if scores is None:
        return np.array(_greedy(boxes, range(len(boxes)), thr), np.int64)
    if category_idxs is None:
        return np.array(_greedy(boxes, _by_score(range(len(boxes)), scores), thr), np.int64)
    kept = []
    for c in categories:
        members = [i for i in range(len(boxes)) if category_idxs[i] == c]
        kept += _greedy(boxes, _by_score(members, scores), thr)
    kept = _by_score(kept, scores)
    return np.array(kept if top_k < 0 else kept[:top_k], np.int64)


def box_coder(prior_box, prior_box_var, target_box, code_type, box_normalized, axis, variance):
    off = 0.0 if box_normalized else 1.0

    def center_size(b):
        w, h = b[2] - b[0] + off, b[3] - b[1] + off
        return b[0] + w / 2, b[1] + h / 2, w, h

    def var_of(j):
        if prior_box_var is not None:
            return prior_box_var[j]
        return variance if variance else (1.0, 1.0, 1.0, 1.0)
    if code_type == 'encode_center_size':
        out = np.zeros((len(target_box), len(prior_box), 4), prior_box.dtype)
        for i, t in enumerate(target_box):
            tw, th = t[2] - t[0] + off, t[3] - t[1] + off
            tx, ty = (t[2] + t[0]) / 2, (t[3] + t[1]) / 2
            for j, p in enumerate(prior_box):
                px, py, pw, ph = center_size(p)
                v = var_of(j)
                out[i, j] = [(tx - px) / pw / v[0], (ty - py) / ph / v[1],
                             np.log(abs(tw / pw)) / v[2], np.log(abs(th / ph)) / v[3]]
        return out
    out = np.zeros(target_box.shape, prior_box.dtype)
    for i in range(target_box.shape[0]):
        for j in range(target_box.shape[1]):
            k = j if axis == 0 else i
            px, py, pw, ph = center_size(prior_box[k])
            v, t = var_of(k), target_box[i, j]
            cx, cy = v[0] * t[0] * pw + px, v[1] * t[1] * ph + py
            w, h = np.exp(v[2] * t[2]) * pw, np.exp(v[3] * t[3]) * ph
            out[i, j] = [cx - w / 2, cy - h / 2, cx + w / 2 - off, cy + h / 2 - off]
    return out


def prior_box(input, image, min_sizes, max_sizes, aspect_ratios, variances, flip, clip,
              step_w, step_h, offset, min_max_aspect_ratios_order):
    ratios = [1.0]
    for ar in aspect_ratios:
        if all(abs(ar - r) >= 1e-6 for r in ratios):
            ratios += [ar, 1.0 / ar] if flip else [ar]
    fh, fw = input.shape[2:]
    ih, iw = image.shape[2:]
    if step_w == 0 or step_h == 0:
        step_w, step_h = iw / fw, ih / fh
    boxes = []
    for h in range(fh):
        for w in range(fw):
            cx, cy = (w + offset) * step_w, (h + offset) * step_h
            for s, smin in enumerate(min_sizes):
                sizes = [(smin * np.sqrt(ar), smin / np.sqrt(ar)) for ar in ratios]
                square = [(np.sqrt(smin * max_sizes[s]),) * 2] if max_sizes else []
                if min_max_aspect_ratios_order:
                    sizes = [(smin, smin)] + square + [
                        wh for wh, ar in zip(sizes, ratios) if abs(ar - 1) >= 1e-6]
                else:
                    sizes = sizes + square
                for bw, bh in sizes:
                    boxes.append([(cx - bw / 2) / iw, (cy - bh / 2) / ih, (cx + bw / 2) / iw,
                                  (cy + bh / 2) / ih])
    dtype = input.dtype if input.dtype.kind == 'f' else np.float32
    out = np.array(boxes, dtype).reshape(fh, fw, -1, 4)
    if clip:
        out = np.clip(out, 0, 1)
    return out, np.broadcast_to(np.array(variances, dtype), out.shape[:3] + (len(variances),))


def matrix_nms(bboxes, scores, score_threshold, nms_top_k, keep_top_k, post_threshold,
               use_gaussian, gaussian_sigma, background_label, normalized):
    rows, index, counts = [], [], []
    for b in range(len(bboxes)):
        dets = []
        for c in range(scores.shape[1]):
            if c == background_label:
                continue
            s = scores[b, c]
            cand = _by_score([i for i in range(len(s)) if s[i] > score_threshold], s)
            if nms_top_k > -1:
                cand = cand[:nms_top_k]
            iou = [[_iou(bboxes[b][cand[i]], bboxes[b][cand[j]], normalized) for j in range(i)]
                   for i in range(len(cand))]
            iou_max = [max(row) if row else 0.0 for row in iou]
            for i, k in enumerate(cand):
                decay = 1.0
                for j in range(i):
                    if use_gaussian:
                        d = np.exp((iou_max[j] ** 2 - iou[i][j] ** 2) * gaussian_sigma)
                    else:
                        d = (1 - iou[i][j]) / (1 - iou_max[j])
                    decay = min(decay, d)
                if decay * s[k] > post_threshold:
                    dets.append((c, decay * s[k], k))
        dets = sorted(dets, key=lambda d: -d[1])
        if keep_top_k > -1:
            dets = dets[:keep_top_k]
        for c, sc, k in dets:
            rows.append([c, sc] + list(bboxes[b][k]))
            index.append(b * bboxes.shape[1] + k)
        counts.append(len(dets))
    return (np.array(rows, bboxes.dtype).reshape(-1, 6), np.array(index, np.int32).reshape(-1, 1),
            np.array(counts, np.int32))


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n,
                       post_nms_top_n, nms_thresh, min_size, eta, pixel_offset):
    off = 1.0 if pixel_offset else 0.0
    n, a, h, w = scores.shape
    anchors, variances = anchors.reshape(-1, 4), variances.reshape(-1, 4)
    rois, probs, counts = [], [], []
    for i in range(n):
        sc = scores[i].transpose(1, 2, 0).ravel()
        de = bbox_deltas[i].transpose(1, 2, 0).reshape(-1, 4)
        order = _by_score(range(len(sc)), sc)
        if 0 < pre_nms_top_n < len(sc):
            order = order[:pre_nms_top_n]
        im_h, im_w = img_size[i]
        cands = []
        for k in order:
            an, d, v = anchors[k], de[k], variances[k]
            aw, ah = an[2] - an[0] + off, an[3] - an[1] + off
            cx, cy = an[0] + 0.5 * aw + v[0] * d[0] * aw, an[1] + 0.5 * ah + v[1] * d[1] * ah
            bw = np.exp(min(v[2] * d[2], np.log(1000.0 / 16))) * aw
            bh = np.exp(min(v[3] * d[3], np.log(1000.0 / 16))) * ah
            box = [cx - bw / 2, cy - bh / 2, cx + bw / 2 - off, cy + bh / 2 - off]
            box = [max(min(box[j], (im_w if j % 2 == 0 else im_h) - off), 0.0) for j in range(4)]
            bw, bh = box[2] - box[0] + off, box[3] - box[1] + off
            ok = bw >= max(min_size, 1.0) and bh >= max(min_size, 1.0)
            if pixel_offset:
                ok = ok and box[0] + bw / 2 <= im_w and box[1] + bh / 2 <= im_h
            if ok:
                cands.append((box, sc[k]))
        if not cands:
            cands = [([0.0] * 4, 0.0)]
        elif nms_thresh > 0:
            kept, thr = [], nms_thresh
            for box, s in sorted(cands, key=lambda c: -c[1]):
                if all(_iou(box, kb, not pixel_offset) <= thr for kb, _ in kept):
                    kept.append((box, s))
                    if eta < 1 and thr > 0.5:
                        thr *= eta
            cands = kept[:post_nms_top_n] if post_nms_top_n > 0 else kept
        rois += [c[0] for c in cands]
        probs += [[c[1]] for c in cands]
        counts.append(len(cands))
    return (np.array(rois, scores.dtype).reshape(-1, 4),
            np.array(probs, scores.dtype).reshape(-1, 1), np.array(counts, np.int32))


def distribute_fpn_proposals(fpn_rois, rois_num, min_level, max_level, refer_level, refer_scale,
                             pixel_offset):
    counts = [len(fpn_rois)] if rois_num is None else list(rois_num)
    image = [i for i, c in enumerate(counts) for _ in range(c)]
    off = 1.0 if pixel_offset else 0.0
    levels = []
    for b in fpn_rois:
        w, h = b[2] - b[0], b[3] - b[1]
        area = 0.0 if w < 0 or h < 0 else (w + off) * (h + off)
        lv = int(np.floor(np.log2(np.sqrt(area) / refer_scale + 1e-6) + refer_level))
        levels.append(min(max(lv, min_level), max_level))
    multi, restore, per_level, pos = [], np.zeros((len(fpn_rois), 1), np.int32), [], 0
    for lv in range(min_level, max_level + 1):
        members = [i for i in range(len(fpn_rois)) if levels[i] == lv]
        multi.append(fpn_rois[members].reshape(-1, 4))
        for i in members:
            restore[i] = pos
            pos += 1
        per_level.append(np.array([sum(1 for i in members if image[i] == b)
                                   for b in range(len(counts))], np.int32))
    return multi + [restore] + (per_level if rois_num is not None else [])


# ---- YOLOv3 ------------------------------------------------------------------------------

def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox,
             scale_x_y, iou_aware, iou_aware_factor):
    """Boxes and scores one anchor and cell at a time."""
    n, _, h, w = x.shape
    an = len(anchors) // 2
    bias = -0.5 * (scale_x_y - 1.0)
    boxes = np.zeros((n, an, h, w, 4), x.dtype)
    scores = np.zeros((n, an, h, w, class_num), x.dtype)
    for i in range(n):
        img_h, img_w = float(img_size[i, 0]), float(img_size[i, 1])
        for a in range(an):
            base = an + a * (5 + class_num) if iou_aware else a * (5 + class_num)
            for r in range(h):
                for c in range(w):
                    v = x[i, base:base + 5 + class_num, r, c].astype(np.float64)
                    conf = _sigmoid(v[4])
                    if iou_aware:
                        conf = conf ** (1 - iou_aware_factor) * \
                            _sigmoid(float(x[i, a, r, c])) ** iou_aware_factor
                    if conf < conf_thresh:
                        continue
                    cx = (c + _sigmoid(v[0]) * scale_x_y + bias) * img_w / w
                    cy = (r + _sigmoid(v[1]) * scale_x_y + bias) * img_h / h
                    bw = np.exp(v[2]) * anchors[2 * a] * img_w / (downsample_ratio * w)
                    bh = np.exp(v[3]) * anchors[2 * a + 1] * img_h / (downsample_ratio * h)
                    box = [cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2]
                    if clip_bbox:
                        box = [max(box[0], 0.0), max(box[1], 0.0), min(box[2], img_w - 1),
                               min(box[3], img_h - 1)]
                    boxes[i, a, r, c] = box
                    scores[i, a, r, c] = conf * _sigmoid(v[5:])
    return boxes.reshape(n, an * h * w, 4), scores.reshape(n, an * h * w, class_num)


def _cwh_iou(a, b):
    """IoU of two (cx, cy, w, h) boxes."""
    iw = min(a[0] + a[2] / 2, b[0] + b[2] / 2) - max(a[0] - a[2] / 2, b[0] - b[2] / 2)
    ih = min(a[1] + a[3] / 2, b[1] + b[3] / 2) - max(a[1] - a[3] / 2, b[1] - b[3] / 2)
    inter = 0.0 if iw < 0 or ih < 0 else iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def yolo_loss_targets(x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num,
                      ignore_thresh, downsample_ratio, use_label_smooth, scale_x_y):
    """The targets and weights of ``yolo_loss_targets``, one prediction and one
    ground truth at a time (YOLOv3's assignment)."""
    n, _, h, w = x.shape
    nm, nb = len(anchor_mask), gt_box.shape[1]
    input_size = downsample_ratio * h
    score = np.ones((n, nb)) if gt_score is None else gt_score
    bias = -0.5 * (scale_x_y - 1.0)
    obj = np.zeros((n, nm, h, w))
    row = np.zeros((n, nb), np.int64)
    box_target, box_weight = np.zeros((n, nb, 4)), np.zeros((n, nb))
    smooth = min(1.0 / class_num, 1.0 / 40) if use_label_smooth else 0.0
    label_target, label_weight = np.zeros((n, nb, class_num)), np.zeros((n, nb))
    match = np.full((n, nb), -1, np.int32)
    for i in range(n):
        valid = [gt_box[i, t, 2] >= 1e-6 and gt_box[i, t, 3] >= 1e-6 for t in range(nb)]
        for k, a in enumerate(anchor_mask):
            for r in range(h):
                for c in range(w):
                    v = x[i, k * (5 + class_num):k * (5 + class_num) + 4, r, c]
                    pred = [(c + _sigmoid(v[0]) * scale_x_y + bias) / w,
                            (r + _sigmoid(v[1]) * scale_x_y + bias) / h,
                            np.exp(v[2]) * anchors[2 * a] / input_size,
                            np.exp(v[3]) * anchors[2 * a + 1] / input_size]
                    best = max([_cwh_iou(pred, gt_box[i, t]) for t in range(nb) if valid[t]]
                               + [0.0])
                    if best > ignore_thresh:
                        obj[i, k, r, c] = -1
        for t in range(nb):
            label_target[i, t] = np.where(np.arange(class_num) == gt_label[i, t], 1 - smooth,
                                          smooth)
            row[i, t] = i * nm * h * w          # unmatched boxes read their image's first row
            if not valid[t]:
                continue
            gx, gy, gw, gh = gt_box[i, t]
            ious = [_cwh_iou([0, 0, anchors[2 * a] / input_size, anchors[2 * a + 1] / input_size],
                             [0, 0, gw, gh]) for a in range(len(anchors) // 2)]
            best_anchor = int(np.argmax(ious))
            if best_anchor not in anchor_mask:
                continue
            k = list(anchor_mask).index(best_anchor)
            gi, gj = min(max(int(gx * w), 0), w - 1), min(max(int(gy * h), 0), h - 1)
            match[i, t] = k
            row[i, t] = ((i * nm + k) * h + gj) * w + gi
            box_target[i, t] = [gx * w - gi, gy * h - gj,
                                np.log(gw * input_size / anchors[2 * best_anchor]),
                                np.log(gh * input_size / anchors[2 * best_anchor + 1])]
            box_weight[i, t] = (2 - gw * gh) * score[i, t]
            label_weight[i, t] = score[i, t]
            obj[i, k, gj, gi] = score[i, t]
    positive = obj > 1e-5
    obj_weight = np.where(positive, obj, obj > -0.5)
    dt = x.dtype
    return (positive.astype(dt), obj_weight.astype(dt), row, box_target.astype(dt),
            box_weight.astype(dt), label_target.astype(dt), label_weight.astype(dt), match)


def _sce(v, label):
    """Sigmoid cross entropy of a logit with a target probability."""
    return max(v, 0.0) - v * label + np.log1p(np.exp(-abs(v)))


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, scale_x_y=1.0):
    """YOLOv3's loss per image summed term by term from the targets above."""
    n, _, h, w = x.shape
    obj, obj_w, row, bt, bw, lt, lw, match = yolo_loss_targets(
        x, gt_box, gt_label, gt_score, anchors, anchor_mask, class_num, ignore_thresh,
        downsample_ratio, use_label_smooth, scale_x_y)
    e = 5 + class_num
    loss = np.zeros(n)
    for i in range(n):
        for k in range(len(anchor_mask)):
            for r in range(h):
                for c in range(w):
                    loss[i] += _sce(float(x[i, k * e + 4, r, c]), obj[i, k, r, c]) * \
                        obj_w[i, k, r, c]
        for t in range(gt_box.shape[1]):
            if match[i, t] < 0:
                continue
            k, rest = divmod(int(row[i, t]) - i * len(anchor_mask) * h * w, h * w)
            v = x[i, k * e:(k + 1) * e, rest // w, rest % w].astype(np.float64)
            loss[i] += bw[i, t] * (_sce(v[0], bt[i, t, 0]) + _sce(v[1], bt[i, t, 1])
                                   + abs(v[2] - bt[i, t, 2]) + abs(v[3] - bt[i, t, 3]))
            loss[i] += lw[i, t] * sum(_sce(v[5 + j], lt[i, t, j]) for j in range(class_num))
    return loss.astype(x.dtype)
