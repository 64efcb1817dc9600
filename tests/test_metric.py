"""framework.metric: Accuracy / Precision / Recall / Auc and the functional
accuracy, checked against hand computations."""
import numpy as np
import pytest

import framework as paddle
from framework.metric import Accuracy, Auc, Metric, Precision, Recall

PRED = np.array([[0.1, 0.6, 0.3],      # ranking 1, 2, 0
                 [0.5, 0.2, 0.3],      # ranking 0, 2, 1
                 [0.2, 0.3, 0.5],      # ranking 2, 1, 0
                 [0.7, 0.2, 0.1]],     # ranking 0, 1, 2
                dtype='float32')
LABEL = np.array([[1], [2], [1], [2]], dtype='int64')
# column j = 1 where the label is the (j+1)-th ranked class
HAND_CORRECT = np.array([[1, 0, 0], [0, 1, 0], [0, 1, 0], [0, 0, 1]], dtype='float32')


def test_accuracy_compute_is_per_sample_rank_hits():
    m = Accuracy(topk=(1, 3))
    correct = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL))
    assert correct.shape == [4, 3]
    assert str(correct.dtype).endswith('float32')
    np.testing.assert_array_equal(correct.numpy(), HAND_CORRECT)


def test_accuracy_update_and_accumulate_top1():
    m = Accuracy()
    assert m.name() == ['acc']
    batch1 = m.update(m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL)))
    assert batch1 == pytest.approx(1 / 4)
    # second batch: both right
    pred2 = np.array([[0.9, 0.1, 0.0], [0.0, 0.2, 0.8]], 'float32')
    batch2 = m.update(m.compute(paddle.to_tensor(pred2), paddle.to_tensor([[0], [2]])))
    assert batch2 == pytest.approx(1.0)
    assert m.accumulate() == pytest.approx(3 / 6)
    m.reset()
    assert m.accumulate() == 0.0


def test_accuracy_several_k_gives_lists_and_names():
    m = Accuracy(topk=(1, 2), name='top')
    assert m.name() == ['top_top1', 'top_top2']
    res = m.update(m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL)))
    # top-2 hits: rows 0, 1, 2 -> 3 / 4
    assert res == pytest.approx([1 / 4, 3 / 4])
    assert m.accumulate() == pytest.approx([1 / 4, 3 / 4])


def test_accuracy_label_layouts():
    m = Accuracy()
    flat = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL.reshape(-1)))
    onehot = np.eye(3, dtype='float32')[LABEL.reshape(-1)]
    from_onehot = m.compute(paddle.to_tensor(PRED), paddle.to_tensor(onehot))
    np.testing.assert_array_equal(flat.numpy(), HAND_CORRECT[:, :1])
    np.testing.assert_array_equal(from_onehot.numpy(), HAND_CORRECT[:, :1])
    # update accepts numpy directly
    assert m.update(HAND_CORRECT[:, :1]) == pytest.approx(0.25)


def test_accuracy_rejects_bad_arguments():
    with pytest.raises(ValueError, match='topk'):
        Accuracy(topk=(0,))
    m = Accuracy(topk=(5,))
    with pytest.raises(ValueError, match='maxk=5'):
        m.compute(paddle.to_tensor(PRED), paddle.to_tensor(LABEL))
    with pytest.raises(TypeError, match="'correct'"):
        Accuracy().update('nope')


def test_functional_accuracy_and_counters():
    pred, label = paddle.to_tensor(PRED), paddle.to_tensor(LABEL)
    assert float(paddle.metric.accuracy(pred, label)) == pytest.approx(0.25)
    correct = paddle.zeros([1], 'int32')
    total = paddle.zeros([1], 'int32')
    acc2 = paddle.metric.accuracy(pred, label, k=2, correct=correct, total=total)
    assert float(acc2) == pytest.approx(0.75)
    assert correct.numpy().tolist() == [3] and total.numpy().tolist() == [4]
    assert float(paddle.metric.accuracy(pred, label, k=3)) == pytest.approx(1.0)


def test_functional_accuracy_errors():
    pred = paddle.to_tensor(PRED)
    with pytest.raises(ValueError, match='label'):
        paddle.metric.accuracy(pred, paddle.to_tensor([[1], [2]]))
    with pytest.raises(ValueError, match='k must'):
        paddle.metric.accuracy(pred, paddle.to_tensor(LABEL), k=4)
    with pytest.raises(ValueError, match='2-D'):
        paddle.metric.accuracy(paddle.to_tensor(PRED[0]), paddle.to_tensor(LABEL))


PROBS = np.array([0.9, 0.2, 0.7, 0.4, 0.55, 0.1, 0.8, 0.49], dtype='float32')
TRUTH = np.array([1, 0, 0, 1, 1, 0, 1, 1], dtype='int64')
# predicted positive (>= 0.5): idx 0, 2, 4, 6 -> tp = 0, 4, 6 (3), fp = 2 (1)
# actual positive: idx 0, 3, 4, 6, 7 -> tp 3, fn = 3, 7 (2)


def test_precision_hand_count():
    m = Precision()
    m.update(PROBS[:4], TRUTH[:4])
    m.update(paddle.to_tensor(PROBS[4:].reshape(-1, 1)), paddle.to_tensor(TRUTH[4:, None]))
    assert (m.tp, m.fp) == (3, 1)
    assert m.accumulate() == pytest.approx(3 / 4)
    assert m.name() == 'precision'
    m.reset()
    assert m.accumulate() == 0.0     # nothing predicted positive


def test_recall_hand_count():
    m = Recall()
    m.update(PROBS, TRUTH)
    assert (m.tp, m.fn) == (3, 2)
    assert m.accumulate() == pytest.approx(3 / 5)
    m.reset()
    assert m.accumulate() == 0.0


def test_binary_metrics_check_shapes():
    with pytest.raises(ValueError, match='same number'):
        Precision().update(PROBS, TRUTH[:3])
    with pytest.raises(ValueError, match=r'\[N\] or \[N, 1\]'):
        Recall().update(PROBS.reshape(2, 4), TRUTH.reshape(2, 4))


def _pairwise_auc(scores, labels):
    """Mann-Whitney: P(score of a positive > score of a negative), ties count 1/2."""
    pos = scores[labels == 1]
    neg = scores[labels == 0]
    wins = 0.0
    for p in pos:
        for n in neg:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(pos) * len(neg))


def test_auc_matches_pairwise_probability():
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 200)
    # distinct buckets: scores on a grid coarser than 1 / num_thresholds
    scores = (rng.permutation(1000)[:200] + 0.5) / 1000.0 * 0.5 + labels * 0.25
    m = Auc(num_thresholds=4095)
    preds2 = np.stack([1 - scores, scores], axis=1)
    m.update(preds2[:120], labels[:120, None])
    m.update(preds2[120:], labels[120:, None])
    assert m.accumulate() == pytest.approx(_pairwise_auc(scores, labels), abs=1e-12)


def test_auc_ties_within_a_bucket_count_half():
    m = Auc(num_thresholds=10)
    # 0.31 and 0.35 share bucket 3: that positive/negative pair counts 1/2
    m.update(np.array([0.31, 0.35, 0.9, 0.1]), np.array([1, 0, 1, 0]))
    assert m.accumulate() == pytest.approx((1 + 1 + 1 + 0.5) / 4)
    m.reset()
    assert m.accumulate() == 0.0
    with pytest.raises(ValueError, match=r'\[0, 1\]'):
        m.update(np.array([1.5]), np.array([1]))


def test_auc_against_sklearn():
    metrics = pytest.importorskip('sklearn.metrics')
    rng = np.random.default_rng(7)
    labels = rng.integers(0, 2, 300)
    scores = np.clip(rng.normal(0.4 + 0.2 * labels, 0.15), 0, 1)
    m = Auc(num_thresholds=2 ** 16)
    m.update(scores, labels)
    assert m.accumulate() == pytest.approx(metrics.roc_auc_score(labels, scores), abs=1e-3)


def test_metric_base_is_abstract_and_compute_passes_through():
    with pytest.raises(TypeError):
        Metric()

    class Mean(Metric):
        def __init__(self):
            super().__init__()
            self.reset()

        def reset(self):
            self.s, self.n = 0.0, 0

        def update(self, x):
            self.s += float(np.sum(x))
            self.n += int(np.size(x))

        def accumulate(self):
            return self.s / self.n

        def name(self):
            return 'mean'

    m = Mean()
    args = m.compute(1, 2)
    assert args == (1, 2)
    m.update(np.array([1.0, 3.0]))
    assert m.accumulate() == 2.0
