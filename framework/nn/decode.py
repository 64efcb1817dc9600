"""Step-by-step decoding (Paddle's ``paddle.nn.decode``): the ``Decoder``
protocol, ``BeamSearchDecoder`` and ``dynamic_decode``, which runs a decoder
until every sequence has finished.

Eagerly ``dynamic_decode`` is a Python loop. In static mode (and inside
``@to_static``) the first step runs before a ``while`` op that runs the
rest, so the per-step outputs start as one-item arrays the loop appends to
(their first dim grows; the other dims are known from that first step).
"""
import collections
import warnings

import numpy as np

from .. import dtype as _dt
from .._nest import flatten, map_structure, pack_sequence_as
from ..ops import creation as _creation, manipulation as _manip, math as _math, reduce as _reduce
from ..ops.modes import in_static_mode
from ..graph.control_flow import while_loop
from . import functional as F

__all__ = ['Decoder', 'BeamSearchDecoder', 'dynamic_decode']


class Decoder:
    """The interface ``dynamic_decode`` drives: ``initialize(inits)`` gives
    ``(inputs, states, finished)``; ``step(time, inputs, states, **kwargs)``
    gives ``(outputs, next_states, next_inputs, finished)``; the optional
    ``finalize(outputs, final_states, sequence_lengths)`` post-processes the
    stacked outputs. ``tracks_own_finished`` says whether ``step``'s finished
    flags already include the earlier ones (beam search reorders its beams)."""

    def initialize(self, inits):
        raise NotImplementedError("%s must implement initialize()" % type(self).__name__)

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError("%s must implement step()" % type(self).__name__)

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError("%s has no finalize()" % type(self).__name__)

    @property
    def tracks_own_finished(self):
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over an RNN cell: each step scores every (beam, token)
    continuation by its total log-probability and keeps the ``beam_size``
    best per batch entry; finished beams only extend with ``end_token`` (at no
    cost). ``embedding_fn`` maps token ids to the cell's inputs,
    ``output_fn`` the cell's outputs to vocabulary logits.

    >>> import framework as paddle
    >>> _ = paddle.seed(0)
    >>> cell = paddle.nn.GRUCell(4, 8)
    >>> decoder = paddle.nn.BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=3,
    ...     embedding_fn=paddle.nn.Embedding(10, 4), output_fn=paddle.nn.Linear(8, 10))
    >>> ids, _ = paddle.nn.dynamic_decode(decoder, cell.get_initial_states(
    ...     paddle.zeros([2, 8])), max_step_num=5)
    >>> ids.shape[0], ids.shape[2]
    (2, 3)
    """

    OutputWrapper = collections.namedtuple('OutputWrapper',
                                           ['scores', 'predicted_ids', 'parent_ids'])
    StateWrapper = collections.namedtuple('StateWrapper',
                                          ['cell_states', 'log_probs', 'finished', 'lengths'])
    kinf = 1e9

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        self.cell = cell
        self.embedding_fn = embedding_fn
        self.output_fn = output_fn
        self.start_token = start_token
        self.end_token = end_token
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """``[batch, ...]`` -> ``[batch * beam_size, ...]``, each entry repeated
        ``beam_size`` times in a row."""
        x = _manip.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = beam_size
        x = _manip.tile(x, times)
        return _manip.reshape(x, [-1] + list(x.shape[2:]))

    def _split_batch_beams(self, x):
        return _manip.reshape(x, [-1, self.beam_size] + list(x.shape[1:]))

    def _merge_batch_beams(self, x):
        return _manip.reshape(x, [-1] + list(x.shape[2:]))

    def _expand_to_beam_size(self, x):
        x = _manip.unsqueeze(x, [1])
        times = [1] * len(x.shape)
        times[1] = self.beam_size
        return _manip.tile(x, times)

    def _mask_probs(self, probs, finished):
        """Finished beams may only continue with ``end_token``, at log-prob 0."""
        f = _manip.unsqueeze(_manip.cast(finished, probs.dtype), [2])
        return f * self.noend_mask_tensor + probs * (1 - f)

    def _gather(self, x, indices, batch_size):
        """``x[b, indices[b, k]]`` for every batch entry ``b`` and beam ``k``."""
        idx = _manip.cast(indices, 'int64')
        rows = _manip.tile(_manip.unsqueeze(_creation.arange(0, batch_size, 1, dtype='int64'), [1]),
                           [1, self.beam_size])
        coords = _manip.stack([rows, idx], axis=2)
        coords.stop_gradient = True
        return _manip.gather_nd(x, coords)

    def initialize(self, initial_cell_states):
        state = flatten(initial_cell_states)[0]
        self.batch_size = state.shape[0]
        if self.batch_size is None or self.batch_size < 0:
            raise ValueError("BeamSearchDecoder: the batch size of the initial states must be "
                             "known (got shape %s)" % list(state.shape))
        float_dtype = 'float64' if str(_dt.get_default_dtype()) == 'float64' else 'float32'
        cell_states = map_structure(self._expand_to_beam_size, initial_cell_states)
        inputs = _creation.full([self.batch_size, self.beam_size], self.start_token, 'int64')
        first = np.array([[0.0] + [-self.kinf] * (self.beam_size - 1)], float_dtype)
        log_probs = _manip.tile(_creation.to_tensor(first), [self.batch_size, 1])
        finished = _creation.full([self.batch_size, self.beam_size], False, 'bool')
        lengths = _creation.zeros_like(inputs)
        if self.embedding_fn:
            inputs = self.embedding_fn(inputs)
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = logits.shape[-1]
        self.vocab_size = vocab
        noend = np.full(vocab, -self.kinf, str(np.dtype(logits.dtype)))
        noend[self.end_token] = 0
        self.noend_mask_tensor = _creation.to_tensor(noend)
        step_log_probs = _math.log(F.softmax(logits))
        step_log_probs = self._mask_probs(step_log_probs, beam_state.finished)
        log_probs = step_log_probs + _manip.unsqueeze(beam_state.log_probs, [2])
        scores = _manip.reshape(log_probs, [-1, self.beam_size * vocab])
        topk_scores, topk_indices = _manip.topk(scores, k=self.beam_size)
        beam_indices = _math.floor_divide(topk_indices, _creation.full_like(topk_indices, vocab))
        token_indices = _math.remainder(topk_indices, _creation.full_like(topk_indices, vocab))
        next_log_probs = self._gather(scores, topk_indices, self.batch_size)
        next_cell_states = map_structure(
            lambda x: self._gather(x, beam_indices, self.batch_size), next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices, self.batch_size)
        next_lengths = self._gather(beam_state.lengths, beam_indices, self.batch_size)
        next_lengths = next_lengths + _manip.cast(_math.logical_not(next_finished),
                                                  beam_state.lengths.dtype)
        next_finished = _math.logical_or(
            next_finished, _math.equal(token_indices,
                                       _creation.full_like(token_indices, self.end_token)))
        return (self.OutputWrapper(topk_scores, token_indices, beam_indices),
                self.StateWrapper(next_cell_states, next_log_probs, next_finished,
                                  next_lengths))

    def step(self, time, inputs, states, **kwargs):
        inputs = map_structure(self._merge_batch_beams, inputs)
        cell_states = map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        sample_ids = output.predicted_ids
        sample_ids.stop_gradient = True
        next_inputs = self.embedding_fn(sample_ids) if self.embedding_fn else sample_ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """Back-trace the beams: the full token sequence of every final beam."""
        ids = F.gather_tree(outputs.predicted_ids, outputs.parent_ids)
        return _manip.cast(ids, outputs.predicted_ids.dtype), final_states

    @property
    def tracks_own_finished(self):
        return True


def _like(template, value):
    """``value`` (a nest of lists/tuples) rebuilt with ``template``'s container
    types, so namedtuples (``StateWrapper``) survive flattening."""
    if isinstance(template, tuple) and hasattr(template, '_fields'):
        return type(template)(*[_like(t, v) for t, v in zip(template, value)])
    if isinstance(template, (list, tuple)):
        return type(template)(_like(t, v) for t, v in zip(template, value))
    if isinstance(template, dict):
        return {k: _like(template[k], value[k]) for k in template}
    return value


def _maybe_copy(state, new_state, step_mask):
    """``state`` where ``step_mask`` (finished) is set, ``new_state`` elsewhere."""
    dtype = state.dtype
    is_bool = str(dtype).endswith('bool')
    if is_bool:
        state, new_state = _manip.cast(state, 'float32'), _manip.cast(new_state, 'float32')
    mask = _manip.cast(step_mask, state.dtype)
    mask = _manip.reshape(mask, list(mask.shape) + [1] * (len(state.shape) - len(mask.shape)))
    mask.stop_gradient = True
    out = state * mask + new_state * (1 - mask)
    return _manip.cast(out, dtype) if is_bool else out


def _decode_step(decoder, step, inputs, states, finished, lengths, impute_finished, kwargs):
    """One decoder step with ``dynamic_decode``'s bookkeeping of the finished
    flags and sequence lengths."""
    outputs, next_states, next_inputs, next_finished = decoder.step(step, inputs, states,
                                                                    **kwargs)
    if not decoder.tracks_own_finished:
        next_finished = _math.logical_or(next_finished, finished)
        next_lengths = lengths + _manip.cast(_math.logical_not(finished), lengths.dtype)
        if impute_finished:
            next_states = _like(next_states, map_structure(
                lambda old, new: _maybe_copy(old, new, finished), states, next_states))
    else:
        if not hasattr(next_states, 'lengths'):
            warnings.warn("`next_states` has no `lengths` attribute, the returned "
                          "`sequence_lengths` would be all zeros.")
        next_lengths = getattr(next_states, 'lengths', lengths)
    return outputs, next_states, next_inputs, next_finished, next_lengths


def _finish(decoder, outputs, states, lengths, output_time_major, return_length):
    try:
        outputs, states = decoder.finalize(outputs, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = map_structure(
            lambda x: _manip.transpose(x, [1, 0] + list(range(2, len(x.shape)))), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _decode_eager(decoder, inits, max_step_num, output_time_major, impute_finished,
                  return_length, kwargs):
    inputs, states, finished = decoder.initialize(inits)
    lengths = _manip.cast(_creation.zeros_like(finished), 'int64')
    steps = []
    step = 0
    while not bool(_reduce.all(finished)):
        out, states, inputs, finished, lengths = _decode_step(
            decoder, _creation.full([1], step, 'int64'), inputs, states, finished, lengths,
            impute_finished, kwargs)
        steps.append(out)
        step += 1
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise ValueError("dynamic_decode: every sequence is finished before the first step")
    leaves = [flatten(o) for o in steps]
    stacked = [_manip.stack([leaf[i] for leaf in leaves], axis=0) for i in range(len(leaves[0]))]
    outputs = _like(steps[0], pack_sequence_as(steps[0], stacked))
    return _finish(decoder, outputs, states, lengths, output_time_major, return_length)


def _decode_static(decoder, inits, max_step_num, output_time_major, impute_finished,
                   is_test, return_length, kwargs):
    """The first step, then a ``while`` op appending each step's outputs."""
    inputs, states, finished = decoder.initialize(inits)
    lengths = _manip.cast(_creation.zeros_like(finished), 'int64')
    step = _creation.full([1], 0, 'int64')
    out, states, inputs, finished, lengths = _decode_step(
        decoder, step, inputs, states, finished, lengths, impute_finished, kwargs)
    arrays = [_manip.unsqueeze(leaf, 0) for leaf in flatten(out)]
    step = step + 1
    limit = _creation.full(
        [1], max_step_num if max_step_num is not None else np.iinfo(np.int64).max, 'int64')

    input_like, state_like = inputs, states

    def cond(step, inputs, states, finished, lengths, arrays):
        return _math.logical_and(_math.logical_not(_reduce.all(finished)),
                                 _reduce.all(_math.less_equal(step, limit)))

    def body(step, inputs, states, finished, lengths, arrays):
        o, s, i, f, ln = _decode_step(decoder, step, _like(input_like, inputs),
                                      _like(state_like, states), finished, lengths,
                                      impute_finished, kwargs)
        grown = [_manip.concat([a, _manip.unsqueeze(leaf, 0)], axis=0)
                 for a, leaf in zip(arrays, flatten(o))]
        return step + 1, i, s, f, ln, grown

    _, _, states, _, lengths, arrays = while_loop(
        cond, body, [step, inputs, states, finished, lengths, arrays], is_test=is_test)
    states = _like(state_like, states)
    outputs = _like(out, pack_sequence_as(out, list(arrays)))
    return _finish(decoder, outputs, states, lengths, output_time_major, return_length)


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Run ``decoder`` from ``decoder.initialize(inits)`` until every sequence is
    finished, or for at most ``max_step_num + 1`` steps. Returns
    ``(outputs, final_states)`` (plus the sequence lengths with
    ``return_length``); outputs are batch-major unless ``output_time_major``.
    ``impute_finished`` keeps finished sequences' states unchanged (for
    decoders that do not track their own finished flags); extra ``kwargs``
    go to every ``decoder.step``."""
    if in_static_mode():
        return _decode_static(decoder, inits, max_step_num, output_time_major,
                              impute_finished, is_test, return_length, kwargs)
    return _decode_eager(decoder, inits, max_step_num, output_time_major, impute_finished,
                         return_length, kwargs)
