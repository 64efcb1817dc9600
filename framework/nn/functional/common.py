"""Common functionals (Paddle's ``paddle.nn.functional.common``): dropout
variants, padding, linear/bilinear, interpolation, unfold/fold and class
center sampling."""
import warnings

import numpy as np

from ...ops import manipulation as _manip, math as _math, nn as _nn, reduce as _reduce
from ...ops.conv import fold, unfold  # noqa: F401
from ...ops.nn import (alpha_dropout, cosine_similarity, dropout, dropout2d,  # noqa: F401
                       dropout3d, interpolate, label_smooth, linear, upsample)
from ...ops.registry import OpError

__all__ = ['alpha_dropout', 'bilinear', 'class_center_sample', 'cosine_similarity', 'dropout',
           'dropout1d', 'dropout2d', 'dropout3d', 'feature_alpha_dropout', 'fold',
           'interpolate', 'label_smooth', 'linear', 'pad', 'unfold', 'upsample', 'zeropad2d']

_DEFAULT_FORMAT = {3: 'NCL', 4: 'NCHW', 5: 'NCDHW'}


def pad(x, pad, mode='constant', value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """Pad ``x``. ``pad`` is a list of [before, after] amounts:

    * ``2 * (ndim - 2)`` values (3-D/4-D/5-D inputs, and always for 'reflect',
      'replicate', 'circular'): the spatial dims of ``data_format`` from the last
      one, ``[left, right, top, bottom, front, back]``;
    * ``2 * ndim`` values in 'constant' mode: every dim, from the first one
      (``pad_from_left_axis=True``) or from the last one (False);
    * fewer values in 'constant' mode: the last dims, from the last one.

    ``data_format`` None means channels first for the input's rank.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.pad(paddle.ones([1, 1, 2, 3]), [1, 0, 0, 1]).shape
    paddle.Size([1, 1, 3, 4])
    """
    nd = len(x.shape)
    if data_format is None:
        data_format = _DEFAULT_FORMAT.get(nd, 'NCHW')
    if (mode == 'constant' and isinstance(pad, (list, tuple)) and len(pad) == 2 * nd
            and not pad_from_left_axis and len(pad) != 2 * (nd - 2)):
        pairs = [list(pad[2 * i:2 * i + 2]) for i in range(nd)]
        pad = [v for pair in reversed(pairs) for v in pair]
    return _manip.pad(x, pad, mode, value, data_format)


def zeropad2d(x, padding, data_format='NCHW', name=None):
    """Zero padding of a 4-D input by ``[left, right, top, bottom]``."""
    if isinstance(padding, int):
        padding = [padding] * 4
    return pad(x, padding, 'constant', 0.0, data_format)


def bilinear(x1, x2, weight, bias=None, name=None):
    """``out[n, k] = x1[n] @ weight[k] @ x2[n] + bias[k]`` with ``weight`` of
    shape ``[out_features, in1_features, in2_features]`` and ``bias`` of
    shape ``[1, out_features]``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.bilinear(paddle.ones([2, 3]), paddle.ones([2, 4]), paddle.ones([5, 3, 4])).shape
    paddle.Size([2, 5])
    """
    s1, s2, sw = list(x1.shape), list(x2.shape), list(weight.shape)
    if len(s1) != 2 or len(s2) != 2 or len(sw) != 3 or s1[1] != sw[1] or s2[1] != sw[2]:
        raise OpError("bilinear: expects x1 [N, in1], x2 [N, in2] and weight [out, in1, in2], "
                      "got x1 %s, x2 %s, weight %s" % (s1, s2, sw))
    # [out, N, in2] = x1 [N, in1] @ W [out, in1, in2], then contract with x2
    out = _manip.transpose(_reduce.sum(_math.matmul(x1, weight) * x2, axis=-1), [1, 0])
    return out if bias is None else out + bias


def dropout1d(input, p=0.5, training=True, inplace=False):  # noqa: A002
    """Dropout of whole channels of a ``[N, C, L]`` (or ``[C, L]``) input. As in
    Paddle, the mask is drawn per channel (axis 1) and shared by the batch."""
    if not 0 <= p <= 1:
        raise ValueError("dropout1d: dropout probability must be in [0, 1], got %r" % (p,))
    nd = len(input.shape)
    if nd not in (2, 3):
        raise RuntimeError("dropout1d expects a 2-D or 3-D input, got %d-D" % nd)
    if inplace:
        warnings.warn("dropout1d: inplace=True is not supported and is ignored (as in Paddle)")
    x = _manip.unsqueeze(input, 0) if nd == 2 else input
    out = dropout(x, p=p, axis=1, training=training)
    return _manip.squeeze(out, 0) if nd == 2 else out


def feature_alpha_dropout(x, p=0.5, training=True, name=None):
    """Alpha dropout of whole channels: every ``[N, C]`` entry of the input is
    kept or set to SELU's negative saturation value for all its positions,
    then the affine fix-up of ``alpha_dropout`` restores mean and variance."""
    if not isinstance(p, (float, int)):
        raise TypeError("feature_alpha_dropout: p must be a float or int, got %r" % (p,))
    if not 0 <= p <= 1:
        raise ValueError("feature_alpha_dropout: p must be in [0, 1], got %r" % (p,))
    if not training:
        return x
    if p == 1:
        return x * 0.0
    if len(x.shape) < 2:
        raise ValueError("feature_alpha_dropout: needs at least a 2-D input, got shape %s"
                         % list(x.shape))
    from ...ops.creation import uniform
    shape = list(x.shape[:2]) + [1] * (len(x.shape) - 2)
    keep = _manip.cast(uniform(shape, 'float32', 0.0, 1.0) >= p, x.dtype)
    alpha_p = _nn._ALPHA_P
    a, b = _nn._alpha_coeffs(p)
    return (x * keep + (1 - keep) * alpha_p) * a + b


def class_center_sample(label, num_classes, num_samples, group=None):
    """Sample class centers for a (partial-FC) margin loss: every class in
    ``label`` (sorted) plus random other classes up to ``num_samples`` in
    total. Returns ``(remapped_label, sampled_class_center)``, the labels as
    indices into the sampled centers. One process here, so ``group`` only
    accepts None/False."""
    if not (group is False or group is None or hasattr(group, 'is_member')):
        raise ValueError("class_center_sample: group must be False, None or a Group, got %r"
                         % (group,))
    if num_samples > num_classes:
        raise ValueError("class_center_sample: num_samples (%d) must not exceed num_classes "
                         "(%d)" % (num_samples, num_classes))
    if len(label.shape) != 1:
        raise ValueError("class_center_sample: label must be 1-D, got shape %s"
                         % list(label.shape))
    if label.shape[0] == 0:
        raise ValueError("class_center_sample: label must not be empty")
    return _nn.class_center_sample_op(label, int(num_classes), int(num_samples))
