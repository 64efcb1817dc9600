"""Losses (Paddle's ``paddle.nn.functional.loss``): the fused ops of
``framework.ops.loss`` and the losses composed of registered ops."""
import math

import numpy as np

from ...ops import alignment_loss as _alignment
from ...ops import creation as _creation, indexing as _indexing, manipulation as _manip
from ...ops import math as _math, nn as _nn, reduce as _reduce_ops
from ...ops.loss import (binary_cross_entropy, binary_cross_entropy_with_logits,  # noqa: F401
                         cross_entropy, hinge_embedding_loss, kl_div, l1_loss,
                         margin_ranking_loss, mse_loss, nll_loss, sigmoid_focal_loss,
                         smooth_l1_loss, softmax_with_cross_entropy, square_error_cost)
from ...ops.modes import in_static_mode

__all__ = ['adaptive_log_softmax_with_loss', 'binary_cross_entropy',
           'binary_cross_entropy_with_logits', 'cosine_embedding_loss', 'cross_entropy',
           'ctc_loss', 'dice_loss', 'gaussian_nll_loss', 'hinge_embedding_loss',
           'hsigmoid_loss', 'kl_div', 'l1_loss', 'log_loss', 'margin_cross_entropy',
           'margin_ranking_loss', 'mse_loss', 'multi_label_margin_loss',
           'multi_label_soft_margin_loss', 'multi_margin_loss', 'nll_loss', 'npair_loss',
           'poisson_nll_loss', 'rnnt_loss', 'sigmoid_focal_loss', 'smooth_l1_loss',
           'soft_margin_loss', 'softmax_with_cross_entropy', 'square_error_cost',
           'triplet_margin_loss', 'triplet_margin_with_distance_loss']


def _check_reduction(api, reduction):
    if reduction not in ('sum', 'mean', 'none'):
        raise ValueError("%s: reduction must be 'sum', 'mean' or 'none', got %r"
                         % (api, reduction))


def _reduce(loss, reduction):
    if reduction == 'mean':
        return _reduce_ops.mean(loss)
    if reduction == 'sum':
        return _reduce_ops.sum(loss)
    return loss


def _check_same_shape(api, *named):
    shapes = [(n, list(t.shape)) for n, t in named]
    if any(s != shapes[0][1] for _, s in shapes):
        raise ValueError("%s: %s must have the same shape, got %s"
                         % (api, ', '.join(n for n, _ in shapes),
                            ', '.join(str(s) for _, s in shapes)))


def _check_float(api, **tensors):
    for name, v in tensors.items():
        if np.dtype(v.dtype).kind != 'f':
            raise TypeError("%s: %s must be a float tensor, got dtype %s" % (api, name, v.dtype))


def log_loss(input, label, epsilon=1e-4, name=None):  # noqa: A002
    """Negative log likelihood of probabilities: ``-label * log(input + eps)
    - (1 - label) * log(1 - input + eps)``, elementwise.

    >>> import framework as paddle, framework.nn.functional as F
    >>> round(float(F.log_loss(paddle.to_tensor([[0.5]]), paddle.to_tensor([[1.0]]), 0.0)), 4)
    0.6931
    """
    if len(input.shape) != 2 or input.shape[1] != 1:
        raise ValueError("log_loss: input must be [N, 1] (one probability per row), got shape "
                         "%s" % list(input.shape))
    _check_same_shape('log_loss', ('input', input), ('label', label))
    return (-label * _math.log(input + epsilon)
            - (1 - label) * _math.log(1 - input + epsilon))


def dice_loss(input, label, epsilon=1e-5, name=None):  # noqa: A002
    """``1 - 2 |X ∩ Y| / (|X| + |Y|)`` per sample, averaged: ``input`` holds class
    probabilities in its last dim, ``label`` the class ids ``[..., 1]``."""
    if len(input.shape) < 2 or len(input.shape) != len(label.shape) or label.shape[-1] != 1 \
            or list(input.shape[:-1]) != list(label.shape[:-1]):
        raise ValueError("dice_loss: input must be [N, ..., C] and label [N, ..., 1] with the "
                         "same leading dims, got %s and %s"
                         % (list(input.shape), list(label.shape)))
    if np.dtype(label.dtype).kind not in 'iu':
        raise TypeError("dice_loss: label must be an integer tensor, got %s" % label.dtype)
    from .input import one_hot
    onehot = _manip.cast(one_hot(_manip.squeeze(label, [-1]), input.shape[-1]), input.dtype)
    axes = list(range(1, len(input.shape)))
    inter = _reduce_ops.sum(input * onehot, axis=axes)
    denom = _reduce_ops.sum(input, axis=axes) + _reduce_ops.sum(onehot, axis=axes)
    return _reduce_ops.mean(1 - inter * 2 / (denom + epsilon))


def soft_margin_loss(input, label, reduction='mean', name=None):  # noqa: A002
    """Two-class logistic loss ``log(1 + exp(-label * input))`` (labels ±1)."""
    _check_reduction('soft_margin_loss', reduction)
    _check_same_shape('soft_margin_loss', ('input', input), ('label', label))
    label = _manip.cast(label, input.dtype)
    return _reduce(_math.log(1 + _math.exp(-label * input)), reduction)


def multi_label_soft_margin_loss(input, label, weight=None, reduction='mean',  # noqa: A002
                                 name=None):
    """Multi-label one-vs-all logistic loss: per sample the mean over classes of
    ``-(y log sigmoid(x) + (1 - y) log sigmoid(-x))`` (times ``weight``)."""
    from .activation import log_sigmoid
    _check_reduction('multi_label_soft_margin_loss', reduction)
    _check_same_shape('multi_label_soft_margin_loss', ('input', input), ('label', label))
    loss = -(label * log_sigmoid(input) + (1 - label) * log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce(_reduce_ops.mean(loss, axis=-1), reduction)


def multi_margin_loss(input, label, p=1, margin=1.0, weight=None, reduction='mean',  # noqa
                      name=None):
    """Multi-class hinge loss: ``sum_{i != y} w_y * max(0, margin - x_y + x_i)^p / C``
    per sample ``x`` ``[C]`` with class ``y``."""
    _check_reduction('multi_margin_loss', reduction)
    if len(input.shape) != 2 or input.shape[0] != label.shape[0]:
        raise ValueError("multi_margin_loss: input must be [N, C] and label [N], got %s and %s"
                         % (list(input.shape), list(label.shape)))
    c = input.shape[1]
    label = _manip.reshape(label, [-1, 1])
    picked = _indexing.take_along_axis(input, label, axis=1)
    hinge = _math.pow(_math.clip(margin - picked + input, min=0.0), p)
    if weight is not None:
        if list(weight.shape) != [c]:
            raise ValueError("multi_margin_loss: weight must have shape [%d], got %s"
                             % (c, list(weight.shape)))
        w = _manip.reshape(_manip.gather(weight, _manip.reshape(label, [-1])), [-1, 1])
        loss = _reduce_ops.mean(w * hinge, axis=1) - _manip.reshape(w, [-1]) * (margin ** p / c)
    else:
        loss = _reduce_ops.mean(hinge, axis=1) - margin ** p / c
    return _reduce(loss, reduction)


def multi_label_margin_loss(input, label, reduction='mean', name=None):  # noqa: A002
    """Multi-label hinge loss: ``label`` ``[N, C]`` lists each sample's target
    classes, ended by the first -1; per sample
    ``sum_{j target} sum_{i not target} max(0, 1 - (x_j - x_i)) / C``."""
    _check_reduction('multi_label_margin_loss', reduction)
    if len(input.shape) != 2 or len(label.shape) != 2:
        raise ValueError("multi_label_margin_loss: input and label must be 2-D, got %s and %s"
                         % (list(input.shape), list(label.shape)))
    n, c = input.shape
    ended = _math.cumsum(_manip.cast(_math.equal(label, _creation.full_like(label, -1)), 'int64'),
                         axis=1)
    valid = _manip.cast(_math.equal(ended, _creation.zeros_like(ended)), input.dtype)  # before -1
    safe = _manip.where(valid > 0, label, _creation.zeros_like(label))
    from .input import one_hot
    is_target = _reduce_ops.sum(_manip.cast(one_hot(safe, c), input.dtype)
                                * _manip.unsqueeze(valid, -1), axis=1)
    others = _manip.cast(is_target == 0, input.dtype)                       # [N, C]
    x_t = _indexing.take_along_axis(input, safe, axis=1)                       # [N, L]
    margins = 1 - _manip.unsqueeze(x_t, -1) + _manip.unsqueeze(input, 1)       # [N, L, C]
    mask = _manip.unsqueeze(valid, -1) * _manip.unsqueeze(others, 1)
    loss = _reduce_ops.sum(_nn.relu(margins) * mask, axis=[1, 2]) / c
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction='mean', name=None):
    """``1 - cos(x1, x2)`` where ``label == 1``, ``max(0, cos(x1, x2) - margin)``
    where ``label == -1``."""
    _check_reduction('cosine_embedding_loss', reduction)
    if len(label.shape) != 1:
        raise ValueError("cosine_embedding_loss: 1-D target tensor expected, got shape %s"
                         % list(label.shape))
    _check_same_shape('cosine_embedding_loss', ('input1', input1), ('input2', input2))
    if len(input1.shape) > 2:
        raise ValueError("cosine_embedding_loss: inputs must be 1-D or 2-D, got shape %s"
                         % list(input1.shape))
    _check_float('cosine_embedding_loss', input1=input1)
    prod = _reduce_ops.sum(input1 * input2, axis=-1)
    mag1 = _reduce_ops.sum(_math.square(input1), axis=-1) + 10e-12
    mag2 = _reduce_ops.sum(_math.square(input2), axis=-1) + 10e-12
    cos = prod / _math.sqrt(mag1 * mag2)
    zeros = _creation.zeros_like(cos)
    lab = _manip.cast(label, cos.dtype)
    pos = _manip.where(lab == 1, 1 - cos, zeros)
    neg = _manip.where(lab == -1, _math.clip(cos - margin, min=0), zeros)
    return _reduce(pos + neg, reduction)


def gaussian_nll_loss(input, label, variance, full=False, epsilon=1e-6,  # noqa: A002
                      reduction='mean', name=None):
    """Gaussian negative log likelihood ``0.5 * (log(var) + (input - label)^2 / var)``
    (``+ 0.5 log(2 pi)`` with ``full``). ``variance`` has ``input``'s shape, or
    one dim less, or a last dim of 1 (one variance per sample). As in Paddle,
    the variance is clamped to ``epsilon`` without recording the clamp, so no
    gradient flows to ``variance``."""
    vs, xs = list(variance.shape), list(input.shape)
    if vs != xs:
        if xs[:-1] == vs:
            variance = _manip.unsqueeze(variance, -1)
        elif not (xs[:-1] == vs[:-1] and vs[-1] == 1):
            raise ValueError("gaussian_nll_loss: variance shape %s does not fit input shape %s"
                             % (vs, xs))
    _check_reduction('gaussian_nll_loss', reduction)
    _check_float('gaussian_nll_loss', input=input, label=label, variance=variance)
    if not in_static_mode() and bool(_reduce_ops.any(variance < 0)):
        raise ValueError("gaussian_nll_loss: variance has negative entries")
    variance = _math.clip(variance.detach(), min=epsilon)
    loss = 0.5 * (_math.log(variance) + _math.square(input - label) / variance)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def poisson_nll_loss(input, label, log_input=True, full=False, epsilon=1e-8,  # noqa: A002
                     reduction='mean', name=None):
    """Poisson negative log likelihood: ``exp(input) - label * input`` with
    ``log_input``, else ``input - label * log(input + epsilon)``; ``full`` adds
    Stirling's term ``label log(label) - label + 0.5 log(2 pi label)`` where
    ``label > 1``."""
    if epsilon <= 0:
        raise ValueError("poisson_nll_loss: epsilon must be positive, got %r" % (epsilon,))
    _check_reduction('poisson_nll_loss', reduction)
    _check_same_shape('poisson_nll_loss', ('input', input), ('label', label))
    if log_input:
        loss = _math.exp(input) - label * input
    else:
        loss = input - label * _math.log(input + epsilon)
    if full:
        stirling = label * _math.log(label) - label + 0.5 * _math.log(2 * math.pi * label)
        loss = loss + _manip.where(label > 1, stirling, _creation.zeros_like(stirling))
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(input, positive, negative,  # noqa: A002
                                      distance_function=None, margin=1.0, swap=False,
                                      reduction='mean', name=None):
    """``max(d(input, positive) - d(input, negative) + margin, 0)`` with
    ``distance_function`` (default: the pairwise 2-norm); ``swap`` uses the
    smaller of ``d(a, n)`` and ``d(p, n)`` as the negative distance."""
    _check_reduction('triplet_margin_with_distance_loss', reduction)
    if margin < 0:
        raise ValueError("triplet_margin_with_distance_loss: margin must not be negative, "
                         "got %r" % (margin,))
    _check_same_shape('triplet_margin_with_distance_loss', ('input', input),
                      ('positive', positive), ('negative', negative))
    if distance_function is None:
        from .distance import pairwise_distance

        def distance_function(a, b):
            return pairwise_distance(a, b, 2.0)
    pos = distance_function(input, positive)
    neg = distance_function(input, negative)
    if swap:
        neg = _math.minimum(neg, distance_function(positive, negative))
    if not in_static_mode() and (not bool(_reduce_ops.all(pos >= 0))
                                 or not bool(_reduce_ops.all(neg >= 0))):
        raise ValueError("triplet_margin_with_distance_loss: the distance function gave "
                         "negative distances")
    return _reduce(_math.clip(pos - neg + margin, min=0.0), reduction)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-6,  # noqa
                        swap=False, reduction='mean', name=None):
    """Triplet loss with the pairwise ``p``-norm distance (``epsilon`` added to
    the differences, as ``pairwise_distance`` does)."""
    from .distance import pairwise_distance
    _check_reduction('triplet_margin_loss', reduction)
    if margin < 0:
        raise ValueError("triplet_margin_loss: margin must not be negative, got %r" % (margin,))
    _check_same_shape('triplet_margin_loss', ('input', input), ('positive', positive),
                      ('negative', negative))
    pos = pairwise_distance(input, positive, p, epsilon)
    neg = pairwise_distance(input, negative, p, epsilon)
    if swap:
        neg = _math.minimum(neg, pairwise_distance(positive, negative, p, epsilon))
    return _reduce(_math.clip(pos - neg + margin, min=0.0), reduction)


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """N-pair loss (Sohn 2016): softmax cross entropy of the anchor-positive
    similarities against the same-label distribution, plus
    ``0.25 * l2_reg * (mean |anchor|^2 + mean |positive|^2)``."""
    if anchor.shape[0] == 0 or positive.shape[0] == 0:
        raise ValueError("npair_loss: anchor and positive must not be empty")
    batch = labels.shape[0]
    lab = _manip.reshape(labels, [batch, 1])
    same = _manip.cast(_math.equal(lab, _manip.transpose(lab, [1, 0])), anchor.dtype)
    target = same / _reduce_ops.sum(same, axis=1, keepdim=True)
    l2 = (_reduce_ops.mean(_reduce_ops.sum(_math.square(anchor), 1))
          + _reduce_ops.mean(_reduce_ops.sum(_math.square(positive), 1)))
    sim = _math.matmul(anchor, positive, transpose_y=True)
    ce = softmax_with_cross_entropy(sim, target, soft_label=True)
    return l2 * 0.25 * l2_reg + _reduce_ops.mean(_reduce_ops.sum(target * ce, 0))


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction='mean',
             norm_by_times=False, zero_infinity=False):
    """Connectionist temporal classification loss of time-major scores
    ``log_probs`` ``[max_time, batch, classes]`` (normalised with a log-softmax
    inside, as Paddle's warpctc does) for padded ``labels`` ``[batch, L]``.
    ``reduction='mean'`` averages the losses divided by their label lengths;
    ``norm_by_times`` divides each sample's gradient by its input length.

    >>> import framework as paddle, framework.nn.functional as F
    >>> x = paddle.zeros([3, 1, 2])          # uniform over {blank, 1}
    >>> l = F.ctc_loss(x, paddle.to_tensor([[1]], 'int32'), paddle.to_tensor([3]),
    ...                paddle.to_tensor([1]), reduction='none')
    >>> round(float(l[0]), 4)                # 6 of the 8 paths give "1"
    0.2877
    """
    _check_reduction('ctc_loss', reduction)
    loss = _alignment.ctc_loss_op(log_probs, labels, input_lengths, label_lengths, int(blank),
                       bool(norm_by_times))[0]
    if zero_infinity:
        loss = _manip.where(_math.isinf(loss), _creation.zeros_like(loss), loss)
    if reduction == 'mean':
        return _reduce_ops.mean(loss / _manip.cast(label_lengths, loss.dtype))
    return _reduce_ops.sum(loss) if reduction == 'sum' else loss


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0,  # noqa: A002
              fastemit_lambda=0.001, reduction='mean', name=None):
    """RNN-transducer loss of the joint log-probabilities ``input`` ``[batch,
    max_time, max_label + 1, classes]`` (taken as given, as Paddle's CPU kernel
    does: apply ``log_softmax`` to joint-network logits first) for padded ``label``
    ``[batch, max_label]``. ``fastemit_lambda`` is FastEmit's regularisation
    (it scales the label-emission gradients, not the loss); ``'mean'``
    divides the summed loss by the batch size."""
    _check_reduction('rnnt_loss', reduction)
    loss = _alignment.rnnt_loss_op(input, label, input_lengths, label_lengths, int(blank),
                        float(fastemit_lambda))[0]
    if reduction == 'mean':
        return _reduce_ops.sum(loss) / input.shape[0]
    return _reduce_ops.sum(loss) if reduction == 'sum' else loss


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,  # noqa: A002
                  path_code=None, is_sparse=False, name=None):
    """Hierarchical sigmoid loss: ``-log p(label)`` as a product of binary
    decisions along the label's path in a tree of ``num_classes`` leaves
    (Paddle's default complete binary tree, or the custom paths ``path_table``
    / ``path_code``, padded with -1). ``weight`` holds one row per internal
    node, ``bias`` ``[nodes, 1]``. Returns ``[N, 1]``. As Paddle's kernel does,
    each path is padded to the longest one with zero scores, which adds
    ``log 2`` per padding step (a constant that cancels in gradients)."""
    from ...ops.loss import hsigmoid_codes_op
    if num_classes < 2:
        raise ValueError("hsigmoid_loss: num_classes must be >= 2, got %d" % num_classes)
    if len(input.shape) != 2 or len(weight.shape) != 2 or weight.shape[1] != input.shape[1]:
        raise ValueError("hsigmoid_loss: input must be [N, D] and weight [nodes, D], got %s and "
                         "%s" % (list(input.shape), list(weight.shape)))
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: give both path_table and path_code, or neither")
    if path_table is None:
        index, bit, valid = hsigmoid_codes_op(label, int(num_classes))
    else:
        valid = _manip.cast(_math.greater_equal(path_table, _creation.zeros_like(path_table)),
                            'int64')
        ended = _math.cumsum(1 - valid, axis=1)                       # a path ends at its first -1
        valid = _manip.cast(_math.equal(ended, _creation.zeros_like(ended)), 'int64')
        index = _manip.where(valid > 0, path_table, _creation.zeros_like(path_table))
        bit = path_code * valid
    n, depth = index.shape[0], index.shape[1]
    flat = _manip.reshape(index, [-1])
    rows = _manip.reshape(_manip.gather(weight, flat), [n, depth, -1])      # [N, depth, D]
    mask = _manip.cast(valid, input.dtype)
    pre = _reduce_ops.sum(rows * _manip.unsqueeze(input, 1), axis=-1)
    if bias is not None:
        pre = pre + _manip.reshape(_manip.gather(_manip.reshape(bias, [-1]), flat), [n, depth])
    pre = _math.clip(pre * mask, -40.0, 40.0)
    loss = (_reduce_ops.sum(_math.log(1 + _math.exp(pre)), axis=1)
            - _reduce_ops.sum(pre * _manip.cast(bit, pre.dtype), axis=1))
    return _manip.unsqueeze(loss, 1)


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,  # noqa
                                   head_bias=None, name=None):
    """Adaptive softmax (Grave et al. 2017): the head scores the shortlist
    classes below ``cutoffs[0]`` and one entry per tail cluster; cluster ``i``
    scores its classes through the projections ``tail_weights[i]``. Returns
    ``(output, loss)``: each sample's log-probability of its label and the
    mean negative log-likelihood."""
    from .activation import log_softmax
    from ...ops.nn import linear
    label_dim = len(label.shape)
    if label_dim == 1:
        if len(input.shape) != 2 or input.shape[0] != label.shape[0]:
            raise ValueError("adaptive_log_softmax_with_loss: a 1-D label needs a 2-D input "
                             "of the same batch, got input %s and label %s"
                             % (list(input.shape), list(label.shape)))
    elif label_dim == 0:
        if len(input.shape) != 1:
            raise ValueError("adaptive_log_softmax_with_loss: a 0-D label needs a 1-D input, "
                             "got %s" % list(input.shape))
    else:
        raise ValueError("adaptive_log_softmax_with_loss: 0-D or 1-D label expected, "
                         "multi-label is not supported")
    batched = label_dim > 0
    if not batched:
        input, label = _manip.unsqueeze(input, 0), _manip.unsqueeze(label, 0)
    bounds = [0] + [int(c) for c in cutoffs]
    if not in_static_mode():
        lab = label.numpy()
        if lab.size and (lab.min() < 0 or lab.max() >= bounds[-1]):
            raise ValueError("adaptive_log_softmax_with_loss: label values should be in [0, "
                             "n_classes - 1], but values in range [%d, %d] were found"
                             % (lab.min(), lab.max()))
    head_lp = log_softmax(linear(input, head_weight, head_bias), axis=1)
    lab2 = _manip.unsqueeze(label, 1)
    shortlist = bounds[1]
    in_head = _manip.cast(_math.less_than(label, _creation.full_like(label, shortlist)),
                          input.dtype)
    safe = _manip.where(in_head > 0, label, _creation.zeros_like(label))
    output = in_head * _manip.squeeze(
        _indexing.take_along_axis(head_lp, _manip.unsqueeze(safe, 1), 1), 1)
    for i, (lo, hi) in enumerate(zip(bounds[1:], bounds[2:])):
        inside = _math.logical_and(_math.greater_equal(lab2, _creation.full_like(lab2, lo)),
                                   _math.less_than(lab2, _creation.full_like(lab2, hi)))
        rel = _manip.where(inside, lab2 - lo, _creation.zeros_like(lab2))
        cluster = linear(linear(input, tail_weights[i][0]), tail_weights[i][1])
        local = _indexing.take_along_axis(log_softmax(cluster, axis=1), rel, axis=1)
        lp = local + head_lp[:, shortlist + i:shortlist + i + 1]
        output = output + _manip.squeeze(_manip.cast(inside, input.dtype) * lp, 1)
    loss = _reduce_ops.mean(-output)
    return (output if batched else _manip.squeeze(output, 0)), loss


def margin_cross_entropy(logits, label, margin1=1.0, margin2=0.5, margin3=0.0, scale=64.0,
                         group=None, return_softmax=False, reduction='mean'):
    """Large-margin softmax cross entropy (ArcFace / CosFace / SphereFace):
    ``logits`` are cosines ``cos θ``; the label's becomes
    ``cos(margin1 * θ + margin2) - margin3``, then all are scaled by ``scale``
    before the softmax cross entropy. Returns the loss (``[N, 1]`` for
    reduction None/'none'), and the softmax with ``return_softmax``.
    Paddle's CPU build has no kernel for this; the formula is its GPU one.
    One process here, so ``group`` only accepts None/False."""
    if reduction not in ('mean', 'sum', 'none', None):
        raise ValueError("margin_cross_entropy: reduction must be 'mean', 'sum', 'none' or "
                         "None, got %r" % (reduction,))
    if not (group is False or group is None or hasattr(group, 'is_member')):
        raise ValueError("margin_cross_entropy: group must be False, None or a Group, got %r"
                         % (group,))
    if logits.shape[-1] == 0:
        raise ValueError("margin_cross_entropy: expected logits.shape[-1] > 0, got %s"
                         % list(logits.shape))
    nd, ld = len(logits.shape), len(label.shape)
    if nd - 1 != ld and nd != ld:
        raise ValueError("margin_cross_entropy: label must have the rank of logits or one "
                         "less, got logits %s and label %s"
                         % (list(logits.shape), list(label.shape)))
    if nd - 1 == ld:
        label = _manip.unsqueeze(label, -1)
    from .input import one_hot
    target = _manip.cast(one_hot(_manip.squeeze(label, -1), logits.shape[-1]), logits.dtype)
    theta = _math.acos(_math.clip(logits, -1.0, 1.0))
    modified = _math.cos(theta * margin1 + margin2) - margin3
    z = (logits + target * (modified - logits)) * scale
    from .activation import log_softmax, softmax
    loss = -_reduce_ops.sum(target * log_softmax(z, axis=-1), axis=-1, keepdim=True)
    if reduction == 'mean':
        loss = _reduce_ops.mean(loss)
    elif reduction == 'sum':
        loss = _reduce_ops.sum(loss)
    return (loss, softmax(z, axis=-1)) if return_softmax else loss
