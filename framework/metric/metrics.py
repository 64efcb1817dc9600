"""Evaluation metrics (Paddle's ``paddle.metric``).

A ``Metric`` keeps running statistics over batches. ``framework.Model`` calls,
for every batch, ``compute(*outputs, *labels)`` (on Tensors, inside the model's
forward pass: cheap tensor work such as a top-k) and then
``update(*numpy results of compute)``, whose return value is the metric of
that batch; ``accumulate()`` gives the value over all batches since the last
``reset()``.

>>> import numpy as np
>>> import framework as paddle
>>> m = paddle.metric.Accuracy()
>>> pred = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])
>>> label = paddle.to_tensor([[1], [1], [1]])
>>> m.update(m.compute(pred, label))
np.float64(0.6666666666666666)
>>> m.accumulate()
0.6666666666666666
"""
import abc
import numbers

import numpy as np

from ..dygraph import Tensor, no_grad
from ..ops.manipulation import assign, cast, reshape, topk
from ..ops.math import equal
from ..ops.reduce import any as _any, argmax, mean, sum as _sum

__all__ = ['Metric', 'Accuracy', 'Precision', 'Recall', 'Auc', 'accuracy']


def _to_numpy(value, api, what):
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (numbers.Number, list, tuple)):
        return np.asarray(value)
    raise TypeError("%s: '%s' must be a numpy array or a Tensor, got %s"
                    % (api, what, type(value).__name__))


class Metric(metaclass=abc.ABCMeta):
    """Base class of metrics: subclasses implement ``reset``, ``update``,
    ``accumulate`` and ``name``, and may override ``compute`` to turn the
    model outputs and labels (Tensors) into what ``update`` receives."""

    def __init__(self):
        pass

    @abc.abstractmethod
    def reset(self):
        """Clear the running statistics."""

    @abc.abstractmethod
    def update(self, *args):
        """Add one batch (numpy arrays); returns the batch's metric."""

    @abc.abstractmethod
    def accumulate(self):
        """The metric over every batch since the last ``reset()``."""

    @abc.abstractmethod
    def name(self):
        """The metric's name (a list of names when it reports several values)."""

    def compute(self, *args):
        """Preprocess ``(*outputs, *labels)`` with tensor ops; by default
        they are passed to ``update`` unchanged."""
        return args


def _check_topk(topk):
    ks = (topk,) if isinstance(topk, numbers.Integral) else tuple(topk)
    if not ks or any(isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1
                     for k in ks):
        raise ValueError("Accuracy: topk must be a positive int or a non-empty tuple of "
                         "positive ints, got %r" % (topk,))
    return tuple(int(k) for k in ks)


def _label_column(label, api):
    """Labels as an int64 [N, 1] column: class ids [N] / [N, 1] as they are,
    one-hot (or soft) [N, C] labels through their argmax."""
    shape = label.shape
    if len(shape) == 1 or (len(shape) == 2 and shape[-1] == 1):
        label = reshape(label, [-1, 1])
    elif len(shape) >= 2:
        label = argmax(label, axis=-1, keepdim=True)
    else:
        raise ValueError("%s: label must be class ids of shape [N] or [N, 1], or one-hot "
                         "labels [N, C]; got shape %s" % (api, list(shape)))
    return cast(label, 'int64') if label.dtype != 'int64' else label


class Accuracy(Metric):
    """Top-k classification accuracy.

    ``compute(pred, label)`` returns a float32 [N, maxk] tensor whose column
    j is 1 where the label is the (j+1)-th highest prediction (so row sums of
    the first k columns tell top-k hits); ``update`` returns the batch's
    accuracy and ``accumulate`` the running one -- a float, or a list with one
    value per k when ``topk`` has several entries (named ``acc_top1``, ...).

    >>> import framework as paddle
    >>> m = paddle.metric.Accuracy(topk=(1, 2))
    >>> pred = paddle.to_tensor([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1]])
    >>> m.update(m.compute(pred, paddle.to_tensor([[2], [0]])))
    [np.float64(0.5), np.float64(1.0)]
    >>> m.name()
    ['acc_top1', 'acc_top2']
    """

    def __init__(self, topk=(1,), name=None, *args, **kwargs):
        super().__init__()
        self.topk = _check_topk(topk)
        self.maxk = max(self.topk)
        self._init_name(name)
        self.reset()

    def _init_name(self, name):
        name = name or 'acc'
        if self.maxk != 1:
            self._name = ['%s_top%d' % (name, k) for k in self.topk]
        else:
            self._name = [name]

    def compute(self, pred, label, *args):
        if len(pred.shape) < 1 or pred.shape[-1] < self.maxk:
            raise ValueError("Accuracy: pred of shape %s has fewer than maxk=%d classes in its "
                             "last axis" % (list(pred.shape), self.maxk))
        with no_grad():
            _, idx = topk(pred, self.maxk)
            label = _label_column(label, 'Accuracy')
            return cast(equal(idx, label), 'float32')

    def update(self, correct, *args):
        correct = _to_numpy(correct, 'Accuracy.update', 'correct')
        if correct.ndim < 1 or correct.shape[-1] < self.maxk:
            raise ValueError("Accuracy.update: correct must have at least maxk=%d columns (the "
                             "output of compute), got shape %s" % (self.maxk, list(correct.shape)))
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            num_corrects = float(correct[..., :k].sum())
            accs.append(np.float64(num_corrects / num_samples if num_samples else 0.0))
            self.total[i] += num_corrects
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self):
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [t / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self):
        return self._name


def _binary_inputs(api, preds, labels):
    """Rounded predictions and labels as flat int arrays of equal length."""
    preds = _to_numpy(preds, api, 'preds')
    labels = _to_numpy(labels, api, 'labels')
    for what, arr in (('preds', preds), ('labels', labels)):
        if arr.ndim == 0 or arr.ndim > 2 or (arr.ndim == 2 and arr.shape[1] != 1):
            raise ValueError("%s: %s must have shape [N] or [N, 1], got %s"
                             % (api, what, list(arr.shape)))
    if preds.shape[0] != labels.shape[0]:
        raise ValueError("%s: preds (shape %s) and labels (shape %s) must hold the same number "
                         "of samples" % (api, list(preds.shape), list(labels.shape)))
    # a prediction is positive when its probability rounds to 1 (>= 0.5)
    hard = np.floor(preds.reshape(-1).astype(np.float64) + 0.5).astype(np.int64)
    return hard, labels.reshape(-1).astype(np.int64)


class Precision(Metric):
    """Binary precision ``tp / (tp + fp)``: ``preds`` are probabilities of the
    positive class ([N] or [N, 1]; >= 0.5 counts as positive), ``labels`` 0/1.

    >>> import numpy as np
    >>> import framework as paddle
    >>> m = paddle.metric.Precision()
    >>> m.update(np.array([0.1, 0.5, 0.6, 0.9]), np.array([0, 1, 0, 1]))
    >>> m.accumulate()
    0.6666666666666666
    """

    def __init__(self, name='precision', *args, **kwargs):
        super().__init__()
        self.tp = 0
        self.fp = 0
        self._name = name

    def update(self, preds, labels):
        pred, label = _binary_inputs('Precision.update', preds, labels)
        positive = pred == 1
        self.tp += int(np.count_nonzero(positive & (label == 1)))
        self.fp += int(np.count_nonzero(positive & (label != 1)))

    def reset(self):
        self.tp = 0
        self.fp = 0

    def accumulate(self):
        predicted = self.tp + self.fp
        return float(self.tp) / predicted if predicted else 0.0

    def name(self):
        return self._name


class Recall(Metric):
    """Binary recall ``tp / (tp + fn)`` (same inputs as ``Precision``).

    >>> import numpy as np
    >>> import framework as paddle
    >>> m = paddle.metric.Recall()
    >>> m.update(np.array([0.1, 0.5, 0.6, 0.9]), np.array([1, 1, 0, 1]))
    >>> m.accumulate()
    0.6666666666666666
    """

    def __init__(self, name='recall', *args, **kwargs):
        super().__init__()
        self.tp = 0
        self.fn = 0
        self._name = name

    def update(self, preds, labels):
        pred, label = _binary_inputs('Recall.update', preds, labels)
        actual = label == 1
        self.tp += int(np.count_nonzero(actual & (pred == 1)))
        self.fn += int(np.count_nonzero(actual & (pred != 1)))

    def reset(self):
        self.tp = 0
        self.fn = 0

    def accumulate(self):
        actual = self.tp + self.fn
        return float(self.tp) / actual if actual else 0.0

    def name(self):
        return self._name


class Auc(Metric):
    """Area under the ROC curve, from histograms of the predicted positive
    probability over ``num_thresholds + 1`` buckets (Paddle's algorithm).

    ``preds`` is [N, 2] (column 1 is the positive probability, as Paddle's)
    or [N] / [N, 1] positive probabilities; ``labels`` are 0/1.

    >>> import numpy as np
    >>> import framework as paddle
    >>> m = paddle.metric.Auc()
    >>> m.update(np.array([0.1, 0.4, 0.35, 0.8]), np.array([0, 0, 1, 1]))
    >>> round(m.accumulate(), 4)
    0.75
    """

    def __init__(self, curve='ROC', num_thresholds=4095, name='auc', *args, **kwargs):
        super().__init__()
        if curve != 'ROC':
            raise ValueError("Auc: only curve='ROC' is supported, got %r" % (curve,))
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, numbers.Integral) \
                or num_thresholds < 1:
            raise ValueError("Auc: num_thresholds must be a positive int, got %r"
                             % (num_thresholds,))
        self._curve = curve
        self._num_thresholds = int(num_thresholds)
        self._name = name
        self.reset()

    def update(self, preds, labels):
        preds = _to_numpy(preds, 'Auc.update', 'preds').astype(np.float64)
        labels = _to_numpy(labels, 'Auc.update', 'labels').reshape(-1)
        if preds.ndim == 2 and preds.shape[1] == 2:
            prob = preds[:, 1]
        elif preds.ndim == 1 or (preds.ndim == 2 and preds.shape[1] == 1):
            prob = preds.reshape(-1)
        else:
            raise ValueError("Auc.update: preds must have shape [N, 2], [N, 1] or [N], got %s"
                             % list(preds.shape))
        if prob.shape[0] != labels.shape[0]:
            raise ValueError("Auc.update: preds (shape %s) and labels (shape %s) must hold the "
                             "same number of samples" % (list(preds.shape), list(labels.shape)))
        if prob.size and (prob.min() < 0 or prob.max() > 1 or np.isnan(prob).any()):
            raise ValueError("Auc.update: predicted probabilities must lie in [0, 1], got values "
                             "in [%g, %g]" % (prob.min(), prob.max()))
        bins = (prob * self._num_thresholds).astype(np.int64)
        positive = labels.astype(bool)
        n = self._num_thresholds + 1
        self._stat_pos += np.bincount(bins[positive], minlength=n)
        self._stat_neg += np.bincount(bins[~positive], minlength=n)

    def accumulate(self):
        # walk thresholds from high to low: cumulative positives (TP) and
        # negatives (FP), trapezoids between consecutive ROC points
        pos = np.cumsum(self._stat_pos[::-1])
        neg = np.cumsum(self._stat_neg[::-1])
        tot_pos, tot_neg = pos[-1], neg[-1]
        if tot_pos <= 0 or tot_neg <= 0:
            return 0.0
        prev_pos = np.concatenate([[0.0], pos[:-1]])
        prev_neg = np.concatenate([[0.0], neg[:-1]])
        area = np.sum(np.abs(neg - prev_neg) * (pos + prev_pos) / 2.0)
        return float(area / tot_pos / tot_neg)

    def reset(self):
        self._stat_pos = np.zeros(self._num_thresholds + 1)
        self._stat_neg = np.zeros(self._num_thresholds + 1)

    def name(self):
        return self._name


def accuracy(input, label, k=1, correct=None, total=None, name=None):  # noqa: A002
    """Top-``k`` accuracy of predictions ``input`` [N, C] against class ids
    ``label`` [N, 1] (or [N]), as a float32 0-D tensor. ``correct`` and
    ``total``, when given, receive the number of hits and of samples.

    >>> import framework as paddle
    >>> pred = paddle.to_tensor([[0.1, 0.5, 0.4], [0.6, 0.3, 0.1]])
    >>> float(paddle.metric.accuracy(pred, paddle.to_tensor([[2], [0]]), k=2))
    1.0
    """
    shape = list(input.shape)
    if len(shape) != 2:
        raise ValueError("accuracy: input must be 2-D [N, C], got shape %s" % shape)
    lshape = list(label.shape)
    if lshape not in ([shape[0]], [shape[0], 1]) and -1 not in shape[:1] + lshape[:1]:
        raise ValueError("accuracy: label must have shape [N, 1] or [N] with N=%d (input shape "
                         "%s), got %s" % (shape[0], shape, lshape))
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1 or \
            (shape[1] != -1 and k > shape[1]):
        raise ValueError("accuracy: k must be an int in [1, %d] (input shape %s), got %r"
                         % (shape[1], shape, k))
    with no_grad():
        _, idx = topk(input, int(k))
        lab = reshape(label, [-1, 1])
        if lab.dtype != 'int64':
            lab = cast(lab, 'int64')
        hit = cast(_any(equal(idx, lab), axis=1), 'float32')
        acc = mean(hit)
        if correct is not None:
            _write_count(_sum(hit), correct)
        if total is not None:
            # counted with ops (not shape[0]) so that an unknown batch size works in static mode
            _write_count(_sum(cast(hit >= 0, 'float32')), total)
    return acc


def _write_count(value, target):
    assign(reshape(cast(value, target.dtype), target.shape), output=target)
