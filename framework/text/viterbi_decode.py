"""Viterbi decoding of linear-chain CRF scores (``paddle.text.viterbi_decode``)."""
import numpy as np

from ..nn import Layer
from ..ops import meta
from ..ops.registry import Meta, OpError, add_test_case, def_op

__all__ = ['viterbi_decode', 'ViterbiDecoder']


def _viterbi_meta(potentials, transition_params, lengths, include_bos_eos_tag=True):
    meta.check_rank('viterbi_decode', 'potentials', potentials, (3,))
    meta.check_rank('viterbi_decode', 'transition_params', transition_params, (2,))
    meta.check_rank('viterbi_decode', 'lengths', lengths, (1,))
    batch, _, tags = potentials.shape
    if tuple(transition_params.shape) != (tags, tags) and -1 not in transition_params.shape:
        raise OpError("viterbi_decode: transition_params must be [num_tags, num_tags] = [%d, %d], "
                      "got %s" % (tags, tags, list(transition_params.shape)))
    # the path is as long as the longest sequence: known only from the lengths' values
    return Meta((batch,), potentials.dtype), Meta((batch, -1), np.int64)


@def_op('viterbi_decode', _viterbi_meta, outputs=('scores', 'path'), differentiable=False,
        pattern='opaque')
def viterbi_decode_op(potentials, transition_params, lengths, include_bos_eos_tag=True):
    """Best tag sequence per batch row: ``scores`` [B] and ``path`` [B, max(lengths)]
    (positions past a row's length are 0). With ``include_bos_eos_tag`` the last
    row of ``transition_params`` scores the start and the second-to-last row
    the stop transitions, as in Paddle's kernel."""
    batch, steps, _ = potentials.shape
    lengths = np.asarray(lengths).astype(np.int64)
    if batch and (lengths.min() < 1 or lengths.max() > steps):
        raise OpError("viterbi_decode: lengths must be in [1, %d] (the sequence axis of "
                      "potentials), got %s" % (steps, lengths.tolist()))
    longest = int(lengths.max()) if batch else 0
    trans = transition_params
    alpha = potentials[:, 0].copy() if steps else np.zeros(potentials.shape[::2], potentials.dtype)
    if include_bos_eos_tag:
        alpha += trans[-1]
        alpha += (lengths == 1)[:, None] * trans[-2]
    history = []
    for t in range(1, longest):
        total = alpha[:, :, None] + trans[None]        # [batch, previous tag, tag]
        history.append(total.argmax(axis=1))
        step = total.max(axis=1) + potentials[:, t]
        alpha = np.where((lengths > t)[:, None], step, alpha)
        if include_bos_eos_tag:
            alpha += (lengths == t + 1)[:, None] * trans[-2]
    path = np.zeros((batch, longest), np.int64)
    for b in range(batch):
        tag = int(alpha[b].argmax())
        path[b, lengths[b] - 1] = tag
        for t in range(int(lengths[b]) - 1, 0, -1):
            tag = int(history[t - 1][b, tag])
            path[b, t - 1] = tag
    return alpha.max(axis=1) if batch else alpha[:, 0], path


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """The highest-scoring tag sequences of a linear-chain CRF.

    Args:
        potentials (Tensor): emission scores [batch, seq_len, num_tags], float32/64.
        transition_params (Tensor): [num_tags, num_tags]; entry (i, j) scores tag i
            followed by tag j.
        lengths (Tensor): int64 [batch], the real length of each sequence.
        include_bos_eos_tag (bool): the last row of ``transition_params`` holds the
            start scores and the second-to-last row the stop scores.

    Returns:
        (scores, path): float [batch] and int64 [batch, max(lengths)].

    >>> import framework as paddle
    >>> scores, path = paddle.text.viterbi_decode(
    ...     paddle.to_tensor([[[1.0, 0.0], [0.0, 2.0]]]), paddle.zeros([2, 2]),
    ...     paddle.to_tensor([2]), include_bos_eos_tag=False)
    >>> scores.tolist(), path.tolist()
    ([3.0], [[0, 1]])
    """
    return viterbi_decode_op(potentials, transition_params, lengths, bool(include_bos_eos_tag))


class ViterbiDecoder(Layer):
    """``viterbi_decode`` with fixed ``transitions``: ``forward(potentials, lengths)``."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        self.transitions = transitions
        self.include_bos_eos_tag = include_bos_eos_tag
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)


def _brute_force(potentials, transition_params, lengths, include_bos_eos_tag=True):
    """Reference: score every tag sequence of every row."""
    import itertools
    batch, _, tags = potentials.shape
    longest = int(max(lengths)) if batch else 0
    scores, path = np.zeros(batch, potentials.dtype), np.zeros((batch, longest), np.int64)
    for b in range(batch):
        best = None
        for seq in itertools.product(range(tags), repeat=int(lengths[b])):
            s = sum(potentials[b, t, y] for t, y in enumerate(seq))
            s += sum(transition_params[a, c] for a, c in zip(seq, seq[1:]))
            if include_bos_eos_tag:
                s += transition_params[-1, seq[0]] + transition_params[-2, seq[-1]]
            if best is None or s > best:
                best, path[b, :len(seq)] = s, seq
        scores[b] = best
    return scores, path


def _case_rng(seed):
    return np.random.default_rng(seed)


add_test_case(viterbi_decode_op, _case_rng(0).standard_normal((3, 4, 3)),
              _case_rng(1).standard_normal((3, 3)), np.array([4, 2, 1]), True, ref=_brute_force)
add_test_case(viterbi_decode_op, _case_rng(2).standard_normal((2, 3, 4)),
              _case_rng(3).standard_normal((4, 4)), np.array([2, 3]), False, ref=_brute_force)
add_test_case(viterbi_decode_op, _case_rng(4).standard_normal((2, 2, 2)).astype('float32'),
              _case_rng(5).standard_normal((2, 2)).astype('float32'), np.array([2, 1]), True,
              ref=_brute_force)
add_test_case(viterbi_decode_op, np.zeros((0, 3, 2)), np.zeros((2, 2)),
              np.zeros(0, np.int64), True, ref=_brute_force)
