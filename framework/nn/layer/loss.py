"""Loss layers: configuration holders around ``framework.nn.functional`` losses.

>>> import framework as paddle
>>> loss = paddle.nn.MSELoss()
>>> float(loss(paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([1.0, 4.0])))
2.0
"""
from .. import functional as F
from .layers import Layer

__all__ = ['CrossEntropyLoss', 'MSELoss', 'L1Loss', 'NLLLoss', 'BCELoss', 'BCEWithLogitsLoss',
           'SmoothL1Loss', 'KLDivLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss']

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
