"""Argument checks and helpers shared by the detection ops."""
import numpy as np

from .. import meta
from ..registry import OpError


def pair(value, api, name):
    """An int or a pair of ints as ``(h, w)`` (``output_size``, ``stride``...)."""
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError("%s: %s must be an int or a pair of ints, got %r"
                        % (api, name, value)) from None
    if len(out) != 2:
        raise ValueError("%s: %s must be an int or a pair of ints, got %r" % (api, name, value))
    return out


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def check_float(api, name, m):
    d = np.dtype(meta.dtype_of(m))
    if d not in _FLOATS:
        raise OpError("%s: %s must be float32 or float64, got %s" % (api, name, d))
    return d


def check_int(api, name, m):
    d = np.dtype(meta.dtype_of(m))
    if d.kind not in 'iu':
        raise OpError("%s: %s must be an int32 or int64 tensor, got %s" % (api, name, d))
    return d


def check_shape(api, name, m, rank, last=None):
    """``m`` has ``rank`` dims (and a last dim of ``last`` when it is known)."""
    shape = list(meta.shape_of(m))
    if len(shape) != rank or (last is not None and shape[-1] not in (last, -1)):
        want = '%d-D' % rank + ('' if last is None else ' with last dim %d' % last)
        raise OpError("%s: %s must be %s, got shape %s" % (api, name, want, shape))
    return shape


def check_boxes(api, x, boxes, boxes_num):
    """The RoI inputs of roi_align / roi_pool / psroi_pool (metas or arrays)."""
    check_shape(api, 'x', x, 4)
    check_float(api, 'x', x)
    check_shape(api, 'boxes', boxes, 2, 4)
    check_float(api, 'boxes', boxes)
    check_shape(api, 'boxes_num', boxes_num, 1)
    check_int(api, 'boxes_num', boxes_num)
    n, b = meta.shape_of(x)[0], meta.shape_of(boxes_num)[0]
    if n >= 0 and b >= 0 and n != b:
        raise OpError("%s: boxes_num must hold one count per image: x has batch size %d "
                      "but boxes_num has shape [%d]" % (api, n, b))


def box_batch_ids(api, boxes_num, n_boxes):
    """The image index of every box, from the per-image counts ``boxes_num``."""
    counts = np.asarray(boxes_num).astype(np.int64).reshape(-1)
    if (counts < 0).any() or counts.sum() != n_boxes:
        raise OpError("%s: boxes_num %s must count the %d boxes (non-negative counts "
                      "summing to boxes.shape[0])" % (api, counts.tolist(), n_boxes))
    return np.repeat(np.arange(len(counts)), counts)


def c_round(v):
    """C's ``round``: halves away from zero (numpy rounds them to even)."""
    return np.sign(v) * np.floor(np.abs(v) + 0.5)

