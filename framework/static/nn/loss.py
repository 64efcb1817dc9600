"""``paddle.static.nn.loss``: the noise-contrastive estimation loss layer."""
import numpy as np

from ...nn import functional as F
from ...ops import creation as _creation, manipulation as _manip, math as _math
from ...ops import reduce as _reduce
from .common import _Params, _static_only

__all__ = ['nce']


def _sampler_probs(sampler, num_classes, custom_dist):
    """Each class's probability under nce's negative sampler."""
    if sampler == 'uniform':
        return np.full(num_classes, 1.0 / num_classes)
    if sampler == 'log_uniform':
        k = np.arange(num_classes, dtype=np.float64)
        return (np.log(k + 2) - np.log(k + 1)) / np.log(num_classes + 1)
    if sampler == 'custom_dist':
        if custom_dist is None:
            raise ValueError("static.nn.nce: sampler 'custom_dist' needs custom_dist")
        p = np.asarray(custom_dist, np.float64).reshape(-1)
        if p.size != num_classes or p.min() < 0:
            raise ValueError("static.nn.nce: custom_dist must hold %d non-negative "
                             "probabilities, got %d values" % (num_classes, p.size))
        return p
    raise ValueError("static.nn.nce: Unsupported sampler type %r (use 'uniform', "
                     "'log_uniform' or 'custom_dist')" % (sampler,))


def nce(input, label, num_total_classes, sample_weight=None, param_attr=None,  # noqa: A002
        bias_attr=None, num_neg_samples=None, name=None, sampler='uniform', custom_dist=None,
        seed=0, is_sparse=False):
    """Noise-contrastive estimation loss ``[N, 1]``: each sample's true
    labels and ``num_neg_samples`` (default 10) classes drawn from
    ``sampler`` are scored by ``o = sigmoid(w_c . x + b_c)`` (weight
    ``[num_total_classes, D]``, bias ``[num_total_classes, 1]``); with
    ``q = num_neg_samples * P_sampler(c)`` the cost is
    ``-log(o / (o + q))`` per true label and ``-log(q / (o + q))`` per drawn
    one, times ``sample_weight``, divided by ``num_neg_samples + 1`` (Paddle's
    kernel). Negatives come from the framework's random generator (seed it
    with ``paddle.seed``)."""
    api = 'nce'
    _static_only(api)
    if len(input.shape) != 2:
        raise ValueError("static.nn.nce: The rank of `input` must be 2, but received %d."
                         % len(input.shape))
    if np.dtype(label.dtype) != np.int64:
        raise TypeError("static.nn.nce: label must be int64, got %s" % label.dtype)
    num_neg = 10 if num_neg_samples is None else int(num_neg_samples)
    probs = _sampler_probs(sampler, int(num_total_classes), custom_dist)
    params = _Params(api)
    w = params.make([num_total_classes, input.shape[1]], str(input.dtype), param_attr)
    b = params.make([num_total_classes, 1], str(input.dtype), bias_attr, is_bias=True)
    num_true = label.shape[1]
    # one row of sampler probabilities per sample, so the draws follow the batch size
    rows = _creation.ones_like(input[:, :1]) * \
        _creation.to_tensor(probs.astype(input.dtype)[None, :])
    drawn = _creation.multinomial(rows, num_neg, replacement=True)
    classes = _manip.concat([label, drawn], axis=1)                       # [N, T + S]
    flat = _manip.reshape(classes, [-1])
    n_cls = num_true + num_neg
    picked = _manip.reshape(_manip.gather(w, flat), [-1, n_cls, input.shape[1]])
    logits = _reduce.sum(picked * _manip.unsqueeze(input, 1), axis=-1)
    if b is not None:
        bias = _manip.gather(_manip.reshape(b, [-1]), flat)
        logits = logits + _manip.reshape(bias, [-1, n_cls])
    o = F.sigmoid(logits)
    expected = _creation.to_tensor((probs * num_neg).astype(input.dtype))
    q = _manip.reshape(_manip.gather(expected, flat), [-1, n_cls])
    is_true = np.arange(n_cls) < num_true
    cost = -_math.log(_manip.where(_creation.to_tensor(is_true), o, q) / (o + q))
    cost = _reduce.sum(cost, axis=1, keepdim=True)
    if sample_weight is not None:
        cost = cost * _manip.reshape(sample_weight, [-1, 1])
    return cost / (num_neg + 1)
