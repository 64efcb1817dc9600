"""Top-p (nucleus) sampling, Paddle's ``paddle.tensor.top_p_sampling``: one
token per row of a probability matrix, drawn from the most probable tokens
whose probabilities sum to ``p``.

Paddle's CPU build has no kernel for it (only GPU/XPU ones); this one follows
the GPU kernel's rules:

* ``'truncated'``: draw u ~ U(0, p) and take the first token, in order of
  decreasing probability, at which the running sum reaches u (inverse-CDF
  sampling of the distribution cut off at mass p).
* ``'non-truncated'``: sample in proportion to the probabilities among the
  tokens before the running sum reaches p, the token crossing p included.
* A token below its row's ``threshold`` is not drawn: 'truncated' moves to the
  nearest more probable token at or above it (else the most probable one),
  'non-truncated' gives such tokens no weight.

One place differs on purpose: when a row's probabilities sum to less than p
(p = 1 with rounding), Paddle's GPU kernel falls back to the most probable
token; here the whole row is the nucleus.
"""
import numpy as np

from .. import random as _random
from . import meta
from .registry import Meta, OpError, add_test_case, def_op

_MODES = ('truncated', 'non-truncated')


def _top_p_meta(x, ps, threshold, topp_seed, seed, k, mode):
    meta.check_rank('top_p_sampling', 'x', x, (2,))
    rows = meta.shape_of(x)[0]
    col = Meta((rows, 1), meta.dtype_of(x))
    ids = Meta((rows, 1), np.int64)
    return col, ids, Meta((rows, k), meta.dtype_of(x)), Meta((rows, k), np.int64)


def _row_generators(rows, topp_seed, seed):
    """One numpy generator per row: the row's own seed, else the op's seed,
    else the global generator (``framework.seed``)."""
    if topp_seed is not None:
        return [np.random.default_rng(int(s)) for s in np.ravel(topp_seed)]
    gen = np.random.default_rng(seed) if seed != -1 else _random.generator()
    return [gen] * rows


def _pick_truncated(probs, p, floor, gen):
    reach = np.cumsum(probs)
    u = gen.random() * min(p, reach[-1])
    i = int(np.argmax(reach >= u))
    if probs[i] < floor:                       # walk back to a token at or above the floor
        above = np.nonzero(probs[:i] >= floor)[0]
        i = int(above[-1]) if above.size else 0
    return i


def _pick_non_truncated(probs, p, floor, gen):
    before = np.cumsum(probs) - probs
    size = max(1, int(np.count_nonzero(before < p)))
    weight = np.where(probs[:size] >= floor, probs[:size], 0.0)
    if not weight.any():
        return 0
    # exponential race: argmax w / E with E ~ Exp(1) draws index i with prob w_i / sum(w)
    return int(np.argmax(weight / gen.exponential(size=size)))


def _check_rows(name, value, rows):
    if value is not None and np.size(value) != rows:
        raise OpError("top_p_sampling: %s must have one entry per row of x (%d), got shape %s"
                      % (name, rows, list(np.shape(value))))


@def_op('top_p_sampling', _top_p_meta, inputs=('x', 'ps', 'threshold?', 'topp_seed?'),
        outputs=('out', 'ids', 'topk_scores', 'topk_ids'),
        attrs={'seed': -1, 'k': 0,
               'mode': 'truncated'}, effects=('random',), differentiable=False, pattern='opaque')
def top_p_sampling_op(x, ps, threshold=None, topp_seed=None, seed=-1, k=0, mode='truncated'):
    """Per row of x: the drawn probability and token id, and the k most
    probable ones."""
    if mode not in _MODES:
        raise OpError("top_p_sampling: mode must be 'truncated' or 'non-truncated', got %r"
                      % (mode,))
    rows, vocab = np.shape(x)
    if rows and not vocab:
        raise OpError("top_p_sampling: x (shape %s) has no tokens to draw from" % [rows, vocab])
    if not 0 <= k <= vocab:
        raise OpError("top_p_sampling: k must be in [0, %d] (x's last dim), got %d" % (vocab, k))
    for name, value in (('ps', ps), ('threshold', threshold), ('topp_seed', topp_seed)):
        _check_rows(name, value, rows)
    order = np.argsort(-np.asarray(x, np.float64), axis=1, kind='stable')
    ranked = np.take_along_axis(np.asarray(x, np.float64), order, axis=1)
    p = np.ravel(ps).astype(np.float64)
    floor = np.zeros(rows) if threshold is None else np.ravel(threshold).astype(np.float64)
    pick = _pick_truncated if mode == 'truncated' else _pick_non_truncated
    gens = _row_generators(rows, topp_seed, seed)
    picks = [pick(ranked[r], p[r], floor[r], gens[r]) for r in range(rows)]
    at = np.array(picks, np.int64).reshape(rows, 1)
    ids = np.take_along_axis(order, at, axis=1).astype(np.int64)
    return (np.take_along_axis(x, ids, axis=1), ids,
            np.take_along_axis(x, order[:, :k], axis=1), order[:, :k].astype(np.int64))


def top_p_sampling(x, ps, threshold=None, topp_seed=None, seed=-1, k=0, mode='truncated',
                   return_top=False, name=None):
    """(scores, ids) of one token drawn per row of the probabilities ``x``
    ([batch, vocab]) from its top-``ps`` nucleus, both [batch, 1]; with
    ``return_top`` also the ``k`` most probable (scores, ids), [batch, k].
    ``seed`` (not -1) or ``topp_seed`` (one per row) make the draws repeatable."""
    out, ids, topk_scores, topk_ids = top_p_sampling_op(x, ps, threshold, topp_seed,
                                                        int(seed), int(k), mode)
    return (out, ids, topk_scores, topk_ids) if return_top else (out, ids)


__all__ = []     # paddle.tensor.top_p_sampling and Tensor.top_p_sampling, not paddle.*
TENSOR_METHODS = {'top_p_sampling': top_p_sampling}


# ---- test cases ---------------------------------------------------------------
# op tests seed the global generator with 1234 before each run; the references
# replay that stream row by row

def _ref(x, ps, threshold=None, topp_seed=None, seed=-1, k=0, mode='truncated'):
    x = np.asarray(x)
    rows = x.shape[0]
    if topp_seed is not None:
        gens = [np.random.default_rng(int(s)) for s in topp_seed]
    else:
        gen = np.random.default_rng(1234 if seed == -1 else seed)
        gens = [gen] * rows
    floor = np.zeros(rows) if threshold is None else threshold
    ids = []
    for r in range(rows):
        order = sorted(range(x.shape[1]), key=lambda j: -x[r, j])
        probs = x[r, order].astype(float)
        if mode == 'truncated':
            u = gens[r].random() * min(ps[r], probs.sum())
            i = next(j for j in range(len(probs)) if probs[:j + 1].sum() >= u)
            while probs[i] < floor[r] and i > 0:
                i -= 1
        else:
            n = max(1, sum(probs[:j].sum() < ps[r] for j in range(len(probs))))
            w = [v if v >= floor[r] else 0.0 for v in probs[:n]]
            e = gens[r].exponential(size=n)
            i = int(np.argmax(np.array(w) / e)) if any(w) else 0
        ids.append(order[i])
    ids = np.array(ids, np.int64)[:, None]
    top = np.argsort(-x, axis=1, kind='stable')[:, :k]
    return (np.take_along_axis(x, ids, 1), ids, np.take_along_axis(x, top, 1), top)


def _probs(rows, vocab, seed):
    w = np.random.default_rng(seed).uniform(0.05, 1.0, (rows, vocab))
    return w / w.sum(1, keepdims=True)


add_test_case(top_p_sampling_op, _probs(3, 6, 1), np.array([0.5, 0.9, 1.0]), None, None, -1, 2,
              'truncated', ref=_ref)
add_test_case(top_p_sampling_op, _probs(2, 5, 2).astype(np.float32),
              np.array([0.7, -0.3], np.float32), np.array([0.15, 0.0], np.float32), None,
              -1, 0, 'non-truncated', ref=_ref)
add_test_case(top_p_sampling_op, _probs(2, 4, 3), np.array([0.8, 0.8]), np.array([0.2, 0.3]),
              np.array([7, 11]), -1, 4, 'truncated', ref=_ref)
add_test_case(top_p_sampling_op, _probs(4, 3, 4), np.full(4, 0.6), None, None, 5, 1,
              'non-truncated', ref=_ref)
add_test_case(top_p_sampling_op, np.zeros((0, 3)), np.zeros(0), None, None, -1, 0, 'truncated',
              ref=_ref)
