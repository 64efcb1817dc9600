"""Streaming metrics of static programs: ``static.auc`` and ``ctr_metric_bundle``.

Their statistics are persistable variables (zeros from the startup program)
that every run of the main program adds the batch to, so fetching the metric
after many runs gives it over all the data seen, as in Paddle.
"""
import numpy as np

from .. import dtype as _dt
from ..ops.registry import Meta, OpError, add_test_case, def_op


def _auc_from_stats(pos, neg):
    """ROC AUC from per-threshold-bucket positive/negative counts: the
    trapezoids under the (FP, TP) curve, swept from the highest bucket down."""
    tp = np.cumsum(pos[::-1].astype(np.float64))
    fp = np.cumsum(neg[::-1].astype(np.float64))
    tp_prev = np.concatenate([[0.0], tp[:-1]])
    fp_prev = np.concatenate([[0.0], fp[:-1]])
    area = np.sum(np.abs(fp - fp_prev) * (tp + tp_prev) / 2.0)
    total_pos, total_neg = tp[-1] if tp.size else 0.0, fp[-1] if fp.size else 0.0
    return area / total_pos / total_neg if total_pos > 0 and total_neg > 0 else 0.0


def _auc_meta(predict, label, stat_pos, stat_neg, weight, curve='ROC', num_thresholds=4095,
              slide_steps=1):
    return (Meta((), np.float64), Meta(stat_pos.shape, stat_pos.dtype),
            Meta(stat_neg.shape, stat_neg.dtype))


@def_op('auc', _auc_meta, inputs=('predict', 'label', 'stat_pos', 'stat_neg', 'weight?'),
        outputs=('auc', 'stat_pos_out', 'stat_neg_out'),
        attrs={'curve': 'ROC', 'num_thresholds': 4095, 'slide_steps': 1}, differentiable=False,
        inplace_map={'stat_pos_out': 'stat_pos', 'stat_neg_out': 'stat_neg'},
        effects=('stateful',), pattern='opaque')
def auc_op(predict, label, stat_pos, stat_neg, weight, curve, num_thresholds, slide_steps):
    """Add the batch to the bucket counts and give the AUC over them.

    ``predict[:, -1]`` is the positive-class probability; bucket
    ``int(p * num_thresholds)``. With ``slide_steps`` 0 the stats are one row of
    buckets over everything; otherwise ``slide_steps`` rows (a ring of the latest
    batches) and a last element counting batches, the AUC over the ring."""
    if curve != 'ROC':
        raise OpError("auc: curve must be 'ROC' (the curve Paddle's kernel computes), got %r"
                      % (curve,))
    p = np.asarray(predict)
    p = p.reshape(p.shape[0], int(np.prod(p.shape[1:])))[:, -1]
    if _dt.is_half(p.dtype):   # p * num_thresholds in float16 would round into other buckets
        p = p.astype(np.float32)
    lab = np.asarray(label).reshape(-1)
    if lab.size != p.size:
        raise OpError("auc: label has %d values for %d predictions" % (lab.size, p.size))
    keep = np.ones(p.size, bool) if weight is None else np.broadcast_to(
        np.asarray(weight).reshape(-1) != 0, p.shape) if np.asarray(weight).size in (1, p.size) \
        else np.ones(p.size, bool)
    buckets = np.clip((p * num_thresholds).astype(np.int64), 0, num_thresholds)
    n = num_thresholds + 1
    batch_pos = np.bincount(buckets[keep & (lab > 0)], minlength=n)
    batch_neg = np.bincount(buckets[keep & (lab <= 0)], minlength=n)
    if slide_steps == 0:
        pos = stat_pos.reshape(-1)[:n] + batch_pos
        neg = stat_neg.reshape(-1)[:n] + batch_neg
        return (np.float64(_auc_from_stats(pos, neg)), pos.reshape(stat_pos.shape).astype(
            stat_pos.dtype), neg.reshape(stat_neg.shape).astype(stat_neg.dtype))
    outs = []
    for stat, batch in ((stat_pos, batch_pos), (stat_neg, batch_neg)):
        flat = stat.reshape(-1).copy()
        step = int(flat[-1])
        ring = flat[:slide_steps * n].reshape(slide_steps, n)
        ring[step % slide_steps] = batch
        flat[-1] = step + 1
        flat[slide_steps * n:(slide_steps + 1) * n] = ring.sum(axis=0)   # the window's sum
        outs.append(flat.reshape(stat.shape))
    window = slice(slide_steps * n, (slide_steps + 1) * n)
    value = _auc_from_stats(outs[0].reshape(-1)[window], outs[1].reshape(-1)[window])
    return np.float64(value), outs[0], outs[1]


def _ref_auc(predict, label, pos, neg, weight, curve, t, slide):
    """Rank AUC: P(score of a positive > score of a negative), ties counting
    half, on the bucketed scores; the stats of one batch added to empty ones."""
    p = np.floor(np.asarray(predict, np.float64)[:, -1] * t)
    lab = label.reshape(-1)
    keep = np.ones(p.size, bool) if weight is None else weight.reshape(-1) != 0
    sp, sn = p[keep & (lab > 0)], p[keep & (lab <= 0)]
    wins = (sp[:, None] > sn[None, :]).sum() + 0.5 * (sp[:, None] == sn[None, :]).sum()
    value = wins / (sp.size * sn.size) if sp.size and sn.size else 0.0
    counts = [np.bincount(v.astype(int), minlength=t + 1) for v in (sp, sn)]
    if slide == 0:
        return value, pos + counts[0].reshape(pos.shape), neg + counts[1].reshape(neg.shape)
    stats = []
    for c in counts:       # ring slot 0 and the window sum hold the batch; one batch seen
        stats.append(np.concatenate([c, np.zeros((slide - 1) * (t + 1), np.int64), c, [1]]))
    return value, stats[0], stats[1]


_rng = np.random.default_rng(5)
_T = 1000
_zeros = np.zeros((1, _T + 1), np.int64)
add_test_case(auc_op, _rng.uniform(size=(8, 2)), np.array([1, 0, 1, 1, 0, 0, 1, 0]),
              _zeros, _zeros, None, 'ROC', _T, 0, ref=_ref_auc)
add_test_case(auc_op, _rng.uniform(size=(6, 2)).astype(np.float32),
              np.array([[1], [0], [0], [1], [1], [0]]), np.zeros(3 * (_T + 1) + 1, np.int64),
              np.zeros(3 * (_T + 1) + 1, np.int64), None, 'ROC', _T, 2, ref=_ref_auc)
add_test_case(auc_op, _rng.uniform(size=(5, 2)), np.array([1, 0, 1, 0, 1]), _zeros, _zeros,
              np.array([1.0, 1.0, 0.0, 1.0, 0.0]), 'ROC', _T, 0, ref=_ref_auc)
add_test_case(auc_op, np.zeros((0, 2)), np.zeros(0, np.int64), _zeros, _zeros, None, 'ROC',
              _T, 0, ref=_ref_auc)


def _persistable(name_prefix, shape, dtype):
    """A persistable zero-filled variable of the main program (zeros set by the
    startup program)."""
    from ..nn import initializer as I
    from ..nn.static_params import append_initializer
    from ..graph.program import default_main_program, default_startup_program
    main = default_main_program()
    name = main._names(name_prefix)
    var = main.global_block().create_var(name, shape, dtype, persistable=True,
                                         stop_gradient=True)
    append_initializer(default_startup_program(), name, shape, dtype, False, I.Constant(0.0))
    return var


def auc(input, label, curve='ROC', num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1,  # noqa: A002
        ins_tag_weight=None):
    """ROC AUC of a binary classifier's ``input`` ([N, 2] probabilities, the
    positive class last) against ``label`` ([N] or [N, 1], 0/1), accumulated
    over runs. Returns ``(auc, batch_auc, [batch_stat_pos, batch_stat_neg,
    stat_pos, stat_neg])``: the AUC over all runs, over the last ``slide_steps``
    runs, and the bucket counts. ``ins_tag_weight`` 0 marks instances to skip."""
    from ..ops.modes import in_static_mode
    if not in_static_mode():
        raise RuntimeError("static.auc builds ops of a static program; eagerly use "
                           "paddle.metric.Auc")
    if topk != 1:
        raise ValueError("static.auc: topk must be 1, got %r" % (topk,))
    if slide_steps < 0:
        raise ValueError("static.auc: slide_steps must be >= 0, got %r" % (slide_steps,))
    n = num_thresholds + 1
    batch_pos = _persistable('auc.batch_stat_pos', [(1 + slide_steps) * n + 1], 'int64')
    batch_neg = _persistable('auc.batch_stat_neg', [(1 + slide_steps) * n + 1], 'int64')
    stat_pos = _persistable('auc.stat_pos', [1, n], 'int64')
    stat_neg = _persistable('auc.stat_neg', [1, n], 'int64')
    batch_auc, _, _ = auc_op(input, label, batch_pos, batch_neg, ins_tag_weight, curve,
                             num_thresholds, slide_steps)
    global_auc, _, _ = auc_op(input, label, stat_pos, stat_neg, ins_tag_weight, curve,
                              num_thresholds, 0)
    return global_auc, batch_auc, [batch_pos, batch_neg, stat_pos, stat_neg]


def ctr_metric_bundle(input, label, ins_tag_weight=None):  # noqa: A002
    """Click-through-rate statistics summed over runs: squared error, absolute
    error, predicted CTR, q (sum of p / (1 - p)), positives and instances.
    Divide by the instance count for MAE, RMSE (after sqrt), predicted CTR and q.
    ``ins_tag_weight`` 0 marks fake instances (not counted)."""
    from ..ops import math as X
    from ..ops import reduce as R
    from ..ops.creation import full_like
    from ..ops.modes import in_static_mode
    from ..graph.program import default_main_program
    if not in_static_mode():
        raise RuntimeError("static.ctr_metric_bundle builds ops of a static program")
    block = default_main_program().global_block()
    p = input.astype('float32')
    y = label.astype('float32')
    w = full_like(p, 1.0) if ins_tag_weight is None else \
        full_like(p, 1.0) * ins_tag_weight.astype('float32')
    diff = (p - y) * w
    batch = [R.sum(diff * diff), R.sum(X.abs(diff)), R.sum(p * w),
             R.sum(p / (1.0 - p) * w), R.sum(y * w), R.sum(w)]
    names = ['local_sqrerr', 'local_abserr', 'local_prob', 'local_q', 'local_pos_num',
             'local_ins_num']
    outs = []
    for name, value in zip(names, batch):
        acc = _persistable('ctr.' + name, [1], 'float32')
        block._rename_output(acc + value.reshape([1]), acc)
        outs.append(acc)
    return tuple(outs)
