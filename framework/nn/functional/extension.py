"""Sequence helpers (Paddle's ``paddle.nn.functional.extension``)."""
from ... import dtype as _dt
from ...ops import creation as _creation, manipulation as _manip, math as _math
from ...ops import nn as _nn
from ...ops.registry import OpError

__all__ = ['diag_embed', 'gather_tree', 'sequence_mask', 'temporal_shift']


def sequence_mask(x, maxlen=None, dtype='int64', name=None):
    """Masks of the lengths ``x``: ``out[..., j] = j < x[...]`` with ``maxlen``
    columns (None: ``max(x)``). Not differentiable.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.sequence_mask(paddle.to_tensor([1, 3]), 4).numpy().tolist()
    [[1, 0, 0, 0], [1, 1, 1, 0]]
    """
    if maxlen is None:
        maxlen = -1
    elif hasattr(maxlen, 'numpy'):
        maxlen = int(maxlen.numpy().reshape(-1)[0])
    out = _nn.sequence_mask_op(x, int(maxlen), str(_dt.convert_dtype(dtype)))
    out.stop_gradient = True
    return out


def gather_tree(ids, parents):
    """Back-trace beam search: ``ids`` and ``parents`` are ``[max_time, batch,
    beam]``; the result holds, for every final beam, the ids along its path."""
    if len(ids.shape) != 3:
        raise ValueError("gather_tree: ids must be a 3-D tensor [length, batch_size, "
                         "beam_size], got shape %s" % list(ids.shape))
    if len(parents.shape) != len(ids.shape):
        raise ValueError("gather_tree: ids' shape must be the same as parents' shape")
    return _nn.gather_tree_op(ids, parents)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format='NCHW'):
    """Temporal shift (TSM): ``x`` is ``[N*T, C, H, W]`` with ``T = seg_num``
    frames per clip; the first ``C * shift_ratio`` channels take the previous
    frame's values, the next ``C * shift_ratio`` the next frame's (zeros past
    the clip's ends), the rest stay.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.temporal_shift(paddle.ones([4, 4, 1, 1]), 2).shape
    paddle.Size([4, 4, 1, 1])
    """
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("temporal_shift: data_format must be 'NCHW' or 'NHWC', got %r"
                         % (data_format,))
    if not isinstance(seg_num, int) or seg_num <= 0:
        raise TypeError("temporal_shift: seg_num must be a positive int, got %r" % (seg_num,))
    if not 0 < shift_ratio < 0.5:
        raise ValueError("temporal_shift: shift_ratio must be in (0, 0.5), got %r"
                         % (shift_ratio,))
    if len(x.shape) != 4:
        raise OpError("temporal_shift: x must be 4-D, got shape %s" % list(x.shape))
    if data_format == 'NHWC':
        x = _manip.transpose(x, [0, 3, 1, 2])
    _, c, h, w = x.shape
    v = _manip.reshape(x, [-1, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    zero = _creation.zeros_like(v[:, :1])
    back = _manip.concat([zero[:, :, :c1], v[:, :-1, :c1]], axis=1)          # from t - 1
    fwd = _manip.concat([v[:, 1:, c1:c2], zero[:, :, c1:c2]], axis=1)        # from t + 1
    out = _manip.reshape(_manip.concat([back, fwd, v[:, :, c2:]], axis=2), [-1, c, h, w])
    return _manip.transpose(out, [0, 2, 3, 1]) if data_format == 'NHWC' else out


def diag_embed(input, offset=0, dim1=-2, dim2=-1):  # noqa: A002
    """Tensors whose ``(dim1, dim2)`` planes hold the last dim of ``input`` on
    their ``offset`` diagonal (above it for ``offset > 0``), zeros elsewhere.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.diag_embed(paddle.to_tensor([1.0, 2.0])).numpy().tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    import numpy as np
    nd = len(input.shape) + 1
    d1, d2 = dim1 % nd, dim2 % nd
    if d1 == d2:
        raise OpError("diag_embed: dim1 and dim2 must differ, got %d and %d" % (dim1, dim2))
    n = input.shape[-1]
    size = n + abs(offset)
    # selection[k, r, c] = 1 where (r, c) is the k-th entry of the diagonal
    sel = np.zeros((n, size, size), np.dtype(input.dtype))
    k = np.arange(n)
    sel[k, k + max(-offset, 0), k + max(offset, 0)] = 1
    out = _math.matmul(_manip.unsqueeze(input, -2),
                       _manip.reshape(_creation.to_tensor(sel), [n, size * size]))
    out = _manip.reshape(out, list(input.shape[:-1]) + [size, size])
    # the two new axes are last; move them to (dim1, dim2)
    rest = [a for a in range(nd) if a not in (d1, d2)]
    perm = [0] * nd
    for src, dst in enumerate(rest + [d1, d2]):
        perm[dst] = src
    return _manip.transpose(out, perm)
