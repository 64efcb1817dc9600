"""Loss layers: configuration holders around ``framework.nn.functional`` losses.

>>> import framework as paddle
>>> loss = paddle.nn.MSELoss()
>>> float(loss(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, 4.0])))
2.0
"""
from ... import dtype as _dt
from ...ops import manipulation as _manip, reduce as _reduce
from .. import functional as F
from .layers import Layer

__all__ = ['CrossEntropyLoss', 'MSELoss', 'L1Loss', 'NLLLoss', 'BCELoss', 'BCEWithLogitsLoss',
           'SmoothL1Loss', 'KLDivLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss',
           'CosineEmbeddingLoss', 'GaussianNLLLoss', 'MultiLabelMarginLoss',
           'MultiLabelSoftMarginLoss', 'MultiMarginLoss', 'PoissonNLLLoss', 'SoftMarginLoss',
           'TripletMarginLoss', 'TripletMarginWithDistanceLoss', 'CTCLoss', 'RNNTLoss',
           'HSigmoidLoss', 'AdaptiveLogSoftmaxWithLoss']

_REDUCTIONS = ('mean', 'sum', 'none')


class _Loss(Layer):
    def __init__(self, reduction='mean'):
        super().__init__()
        if reduction not in _REDUCTIONS:
            raise ValueError("%s: reduction must be 'mean', 'sum' or 'none', got %r"
                             % (type(self).__name__, reduction))
        self.reduction = reduction

    def extra_repr(self):
        return 'reduction=%s' % self.reduction


class CrossEntropyLoss(_Loss):
    """Softmax + negative log likelihood over ``axis`` (hard or soft labels,
    class ``weight``, ``ignore_index``, ``label_smoothing``)."""

    def __init__(self, weight=None, ignore_index=-100, reduction='mean', soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index
        self.soft_label = soft_label
        self.axis = axis
        self.use_softmax = use_softmax
        self.label_smoothing = label_smoothing

    def forward(self, input, label):
        return F.cross_entropy(input, label, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               soft_label=self.soft_label, axis=self.axis,
                               use_softmax=self.use_softmax,
                               label_smoothing=self.label_smoothing)


class MSELoss(_Loss):
    """Mean squared error."""

    def forward(self, input, label):
        return F.mse_loss(input, label, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error."""

    def __init__(self, reduction='mean', name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.l1_loss(input, label, reduction=self.reduction)


class NLLLoss(_Loss):
    """Negative log likelihood of log-probabilities ``input`` at ``label``."""

    def __init__(self, weight=None, ignore_index=-100, reduction='mean', name=None):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def forward(self, input, label):
        return F.nll_loss(input, label, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class BCELoss(_Loss):
    """Binary cross entropy of probabilities."""

    def __init__(self, weight=None, reduction='mean', name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits (numerically stable), with optional
    ``pos_weight`` for the positive class."""

    def __init__(self, weight=None, reduction='mean', pos_weight=None, name=None):
        super().__init__(reduction)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, weight=self.weight,
                                                  reduction=self.reduction,
                                                  pos_weight=self.pos_weight)


class SmoothL1Loss(_Loss):
    """Huber-style loss: quadratic below ``delta``, linear above
    (``is_huber=False`` divides it by ``delta``)."""

    def __init__(self, reduction='mean', delta=1.0, is_huber=True, name=None):
        super().__init__(reduction)
        self.delta = delta
        self.is_huber = is_huber

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, reduction=self.reduction, delta=self.delta,
                                is_huber=self.is_huber)


class KLDivLoss(_Loss):
    """``label * (log(label) - input)`` with ``input`` log-probabilities
    (``exp(label) * (label - input)`` with ``log_target``: ``label`` is a
    log-probability too); ``reduction`` may also be ``'batchmean'`` (sum
    divided by the batch size)."""

    def __init__(self, reduction='mean', log_target=False):
        super().__init__(reduction if reduction != 'batchmean' else 'mean')
        self.reduction = reduction
        self.log_target = log_target

    def forward(self, input, label):
        return F.kl_div(input, label, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, reduction='mean', name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, margin=self.margin,
                                     reduction=self.reduction)




class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, reduction='mean', name=None):
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, margin=self.margin,
                                      reduction=self.reduction)


class CosineEmbeddingLoss(_Loss):
    """``1 - cos`` for similar pairs (label 1), ``max(0, cos - margin)`` for
    dissimilar ones (label -1)."""

    def __init__(self, margin=0, reduction='mean', name=None):
        if not -1 <= margin <= 1:
            raise ValueError("CosineEmbeddingLoss: margin should be in [-1, 1], got %r"
                             % (margin,))
        super().__init__(reduction)
        self.margin = margin

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, margin=self.margin,
                                       reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log likelihood with predicted ``variance``."""

    def __init__(self, full=False, epsilon=1e-6, reduction='mean', name=None):
        super().__init__(reduction)
        self.full = full
        self.epsilon = epsilon

    def forward(self, input, label, variance):
        return F.gaussian_nll_loss(input, label, variance, self.full, self.epsilon,
                                   self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss (targets listed per sample, ended by -1)."""

    def __init__(self, reduction='mean', name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.multi_label_margin_loss(input, label, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_Loss):
    """Multi-label one-vs-all logistic loss (optional per-class ``weight``)."""

    def __init__(self, weight=None, reduction='mean', name=None):
        super().__init__(reduction)
        self.weight = weight

    def forward(self, input, label):
        return F.multi_label_soft_margin_loss(input, label, weight=self.weight,
                                              reduction=self.reduction)


class MultiMarginLoss(_Loss):
    """Multi-class hinge loss ``max(0, margin - x_y + x_i)^p``."""

    def __init__(self, p=1, margin=1.0, weight=None, reduction='mean', name=None):
        super().__init__(reduction)
        self.p = p
        self.margin = margin
        self.weight = weight

    def forward(self, input, label):
        return F.multi_margin_loss(input, label, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Poisson negative log likelihood (``log_input``: the input is the log rate)."""

    def __init__(self, log_input=True, full=False, epsilon=1e-8, reduction='mean', name=None):
        if epsilon <= 0:
            raise ValueError("PoissonNLLLoss: epsilon must be positive, got %r" % (epsilon,))
        super().__init__(reduction)
        self.log_input = log_input
        self.full = full
        self.epsilon = epsilon

    def forward(self, input, label):
        return F.poisson_nll_loss(input, label, self.log_input, self.full, self.epsilon,
                                  self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss with labels ±1."""

    def __init__(self, reduction='mean', name=None):
        super().__init__(reduction)

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction)


class TripletMarginLoss(_Loss):
    """Triplet loss with the pairwise ``p``-norm distance.

    >>> import framework as paddle
    >>> a = paddle.to_tensor([[0.0, 0.0]])
    >>> float(paddle.nn.TripletMarginLoss(epsilon=0.0)(a, a, a + 3.0))
    0.0
    """

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-6, swap=False, reduction='mean',
                 name=None):
        super().__init__(reduction)
        self.margin = margin
        self.p = p
        self.epsilon = epsilon
        self.swap = swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with any ``distance_function`` (default: pairwise 2-norm)."""

    def __init__(self, distance_function=None, margin=1.0, swap=False, reduction='mean',
                 name=None):
        super().__init__(reduction)
        self.distance_function = distance_function
        self.margin = margin
        self.swap = swap

    def forward(self, input, positive, negative):
        return F.triplet_margin_with_distance_loss(input, positive, negative,
                                                   self.distance_function, self.margin,
                                                   self.swap, self.reduction)


class CTCLoss(_Loss):
    """Connectionist temporal classification loss (see ``F.ctc_loss``)."""

    def __init__(self, blank=0, reduction='mean', zero_infinity=False):
        super().__init__(reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return F.ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                          self.reduction, norm_by_times, self.zero_infinity)


class RNNTLoss(_Loss):
    """RNN-transducer loss (see ``F.rnnt_loss``)."""

    def __init__(self, blank=0, fastemit_lambda=0.001, reduction='mean', name=None):
        super().__init__(reduction)
        self.blank = blank
        self.fastemit_lambda = fastemit_lambda

    def forward(self, input, label, input_lengths, label_lengths):
        return F.rnnt_loss(input, label, input_lengths, label_lengths, self.blank,
                           self.fastemit_lambda, self.reduction)


class HSigmoidLoss(Layer):
    """Hierarchical sigmoid loss over ``num_classes`` leaves: a weight row (and a
    bias) per internal node of Paddle's default tree (``num_classes - 1`` of
    them) or, with ``is_custom``, ``num_classes`` rows indexed by the custom
    ``path_table`` given to ``forward``."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__()
        if num_classes < 2 and not is_custom:
            raise ValueError("HSigmoidLoss: num_classes must not be less than 2 with the "
                             "default tree")
        self._feature_size = feature_size
        self._num_classes = num_classes
        self._is_custom = is_custom
        self._is_sparse = is_sparse and is_custom
        self._dtype = _dt.get_default_dtype()
        nodes = num_classes if is_custom else num_classes - 1
        self.weight = self.create_parameter([nodes, feature_size], attr=weight_attr,
                                            dtype=self._dtype)
        self.bias = self.create_parameter([nodes, 1], attr=bias_attr, dtype=self._dtype,
                                          is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table=path_table, path_code=path_code,
                               is_sparse=self._is_sparse)

    def extra_repr(self):
        return 'feature_size=%d, num_classes=%d, is_custom=%s' % (
            self._feature_size, self._num_classes, self._is_custom)


class AdaptiveLogSoftmaxWithLoss(Layer):
    """Adaptive softmax (Grave et al. 2017) for many classes: a head over the
    ``cutoffs[0]`` most frequent classes plus one entry per tail cluster, and
    per cluster a low-rank projection (its size divided by ``div_value`` per
    level). ``forward(input, label)`` gives ``(output, loss)``; ``log_prob``
    the full log-distribution, ``predict`` the most likely class."""

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None,
                 div_value=4.0, head_bias=False, name=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (cutoffs != sorted(cutoffs) or not cutoffs or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("AdaptiveLogSoftmaxWithLoss: cutoffs should be a sequence of "
                             "unique, positive integers sorted in an increasing order, where "
                             "each value is between 1 and n_classes-1, got %r" % (cutoffs,))
        self._dtype = _dt.get_default_dtype()
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.is_head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([in_features, self.head_size],
                                                 attr=weight_attr, dtype=self._dtype)
        self.head_bias = (self.create_parameter([self.head_size], attr=bias_attr,
                                                dtype=self._dtype, is_bias=True)
                          if head_bias else None)
        self.tail_weights = []
        for i in range(self.n_clusters):
            hsz = int(in_features // (div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            proj = [self.create_parameter([in_features, hsz], attr=weight_attr,
                                          dtype=self._dtype),
                    self.create_parameter([hsz, osz], attr=weight_attr, dtype=self._dtype)]
            for k, p in enumerate(proj):
                self.add_parameter('tail_%d_%d' % (i, k), p)
            self.tail_weights.append(proj)

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                self.tail_weights, self.cutoffs,
                                                self.head_bias)

    def _full_log_prob(self, input, head_output):
        head_lp = F.log_softmax(head_output, axis=1)
        parts = [head_lp[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.linear(F.linear(input, self.tail_weights[i][0]),
                               self.tail_weights[i][1])
            parts.append(F.log_softmax(cluster, axis=1)
                         + head_lp[:, self.shortlist_size + i:self.shortlist_size + i + 1])
        return _manip.concat(parts, axis=1)

    def log_prob(self, input):
        """Log-probabilities of all ``n_classes`` classes, ``[N, n_classes]``."""
        return self._full_log_prob(input, F.linear(input, self.head_weight, self.head_bias))

    def predict(self, input):
        """The most likely class per sample (float32 when every head's choice is
        a shortlist class, as Paddle returns it)."""
        head = F.linear(input, self.head_weight, self.head_bias)
        choice = _manip.cast(_reduce.argmax(head, axis=1), 'float32')
        outside = choice >= self.shortlist_size
        if not bool(_reduce.any(outside)):
            return choice
        best = _reduce.argmax(self._full_log_prob(input, head), axis=1)
        if bool(_reduce.all(outside)):
            return best
        return _manip.where(outside, _manip.cast(best, 'float32'), choice)

    def extra_repr(self):
        return 'in_features=%d, n_classes=%d, cutoffs=%s' % (
            self.in_features, self.n_classes, self.cutoffs[:-1])
