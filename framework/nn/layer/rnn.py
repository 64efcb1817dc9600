"""Recurrent layers: SimpleRNN/LSTM/GRU cells, the ``RNN``/``BiRNN`` wrappers
and the multi-layer ``SimpleRNN``/``LSTM``/``GRU`` (Paddle 2.x API).

Everything is written with framework ops, so the layers run eagerly, under
static ``program_guard`` and inside ``@to_static``.

Conventions (as Paddle):

* Gate order: LSTM ``i, f, g(cell), o``; GRU ``r, z, c`` with the reset gate
  applied *after* the hidden matmul, ``c = tanh(W_ic x + b_ic + r * (W_hc h + b_hc))``
  and ``h = z * h_prev + (1 - z) * c`` (the cuDNN form, equal to PyTorch's GRU).
* ``weight_ih``: ``[gates * hidden, input]``, ``weight_hh``: ``[gates * hidden, hidden]``,
  all parameters ``Uniform(-1/sqrt(hidden), 1/sqrt(hidden))``.
* Cells return ``(output, new_states)``; multi-layer networks return
  ``(outputs, final_states)`` with states of shape
  ``[num_layers * num_directions, batch, hidden]`` (LSTM: a tuple ``(h, c)``),
  forward/backward states interleaved per layer.
* ``sequence_length``: the state stops changing after a sequence's last valid
  step (so final states are the states at each sequence's end); the
  multi-layer networks also output zeros at padded steps (cuDNN's padded
  layout), while ``RNN``/``BiRNN`` return whatever the cell produced there.

Speed: the built-in LSTM and GRU cells (LSTM without ``proj_size``) run a
whole sequence as one op per layer and direction (``lstm_seq`` / ``gru_seq``
in ``ops/rnn_seq.py``: the time loop inside one numpy kernel, a fused
backward), also in a static graph, whose time dimension may then be unknown.
Otherwise, for the built-in cells the input projection ``x @ W_ih^T + b`` of
all time steps is one matmul; the loop then runs one fused op per step
(``lstm_cell`` / ``gru_cell`` in ``ops/rnn_cells.py``), and a static graph
unrolls the known number of steps. A cell used alone (``LSTMCell(x, h)``)
runs the cell op.

>>> import framework as paddle
>>> lstm = paddle.nn.LSTM(16, 32, num_layers=2)
>>> y, (h, c) = lstm(paddle.randn([4, 23, 16]))
>>> y.shape, h.shape, c.shape
(paddle.Size([4, 23, 32]), paddle.Size([2, 4, 32]), paddle.Size([2, 4, 32]))
"""
import math

from ... import dtype as _dt
from ...ops.creation import arange, full, full_like, zeros
from ...ops.manipulation import cast, concat, reshape, stack, unsqueeze, unstack
from ...ops.math import less_than, matmul
from ...ops.rnn_cells import gru_cell_op, lstm_cell_op
from ...ops.rnn_seq import gru_seq_op, lstm_seq_op
from ...ops.subscript import strided_slice
from .. import functional as F
from .container import LayerList
from ..initializer import Constant, Uniform
from .layers import Layer

__all__ = ['RNNCellBase', 'SimpleRNNCell', 'LSTMCell', 'GRUCell', 'RNN', 'BiRNN',
           'SimpleRNN', 'LSTM', 'GRU']


# ---- helpers ----------------------------------------------------------------

def _map(fn, *trees):
    """Apply ``fn`` leaf-wise over equally nested tuples/lists of tensors."""
    first = trees[0]
    if isinstance(first, (tuple, list)):
        return type(first)(_map(fn, *leaves) for leaves in zip(*trees))
    return fn(*trees)


def _leaves(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


def _float_dtype(x):
    """``x``'s dtype when it is floating, else the default float dtype."""
    dt = _dt.convert_dtype(x.dtype)
    return str(dt) if _dt.is_floating(dt) else _dt.get_default_dtype()


def _batch_full(ref, batch_axis, rest, value, dtype):
    """A ``[batch] + rest`` tensor filled with ``value``, batch taken from
    ``ref.shape[batch_axis]``. When the batch is unknown (-1, static graphs)
    it is taken from ``ref`` at run time by broadcasting a ``[batch, 1..]``
    slice of it against ``[1] + rest``."""
    rest = [int(s) for s in rest]
    batch = ref.shape[batch_axis]
    if batch >= 0:
        return full([batch] + rest, value, dtype)
    axes = [a for a in range(len(ref.shape)) if a != batch_axis]
    col = strided_slice(ref, axes, [0] * len(axes), [1] * len(axes), [1] * len(axes))
    col = reshape(col, [-1] + [1] * len(rest))
    return full_like(col, value, dtype) + zeros([1] + rest, dtype)


def _lengths(sequence_length, batch, api):
    """``sequence_length`` as a ``[batch]`` tensor (lists are converted), checked."""
    if not hasattr(sequence_length, 'shape'):
        from ...ops.creation import to_tensor
        sequence_length = to_tensor(sequence_length, dtype='int64')
    shape = list(sequence_length.shape)
    if len(shape) != 1 or (batch >= 0 and shape[0] >= 0 and shape[0] != batch):
        raise ValueError("%s: sequence_length must have shape [batch_size] = [%d], got %s"
                         % (api, batch, shape))
    return sequence_length


def _step_masks(sequence_length, steps, batch, dtype, api):
    """``steps`` tensors of shape ``[batch, 1]``: 1 where step t < length."""
    sequence_length = _lengths(sequence_length, batch, api)
    lengths = unsqueeze(cast(sequence_length, 'int64'), [0])              # [1, B]
    mask = less_than(unsqueeze(arange(steps, dtype='int64'), [1]), lengths)  # [T, B]
    return unstack(unsqueeze(cast(mask, dtype), [2]), axis=0)


def _check_time(inputs, time_axis, api, known=True):
    """The number of time steps; it must be known when the steps are unrolled
    (``known``), a sequence op takes any."""
    if len(inputs.shape) < 2:
        raise ValueError("%s: inputs must have a batch and a time dimension, got shape %s"
                         % (api, list(inputs.shape)))
    steps = inputs.shape[time_axis]
    if steps < 0 and known:
        raise ValueError("%s: the number of time steps must be known when the network is "
                         "built (input shape %s); declare the time dimension in "
                         "static.data / InputSpec" % (api, list(inputs.shape)))
    if steps == 0:
        raise ValueError("%s: the input has no time steps (shape %s)"
                         % (api, list(inputs.shape)))
    return steps


def _unroll(cell, inputs, states, sequence_length, time_major, is_reverse, zero_padding,
            api, kwargs=None):
    """Run ``cell`` over the time axis of ``inputs``; returns (outputs, states).

    Built-in cells take a fast path: LSTM and GRU cells (without proj_size)
    run the whole sequence as one op (``ops/rnn_seq.py``) when padded steps
    output zeros or there are none; otherwise one matmul projects the inputs
    of all time steps, then each step only adds the hidden contribution.
    """
    time_axis = 0 if time_major else 1
    fast = not kwargs and type(cell).forward in _FAST_FORWARDS
    whole = fast and cell._runs_sequences() and (sequence_length is None or zero_padding)
    steps = _check_time(inputs, time_axis, api, known=not whole)
    if whole:
        cell._check_input(inputs, api)
        cell._check_states(states)
        if sequence_length is not None:
            sequence_length = _lengths(sequence_length, inputs.shape[1 - time_axis], api)
        return cell._sequence(inputs, states, sequence_length, time_major, is_reverse)
    if fast:
        cell._check_input(inputs, api)
        cell._check_states(states)
        step_inputs = unstack(cell._project(inputs), axis=time_axis)
        step = cell._step
    else:
        step_inputs = unstack(inputs, axis=time_axis)
        kwargs = kwargs or {}

        def step(x, s):
            return cell(x, s, **kwargs)
    masks = None
    if sequence_length is not None:
        masks = _step_masks(sequence_length, steps, inputs.shape[1 - time_axis],
                            _float_dtype(inputs), api)
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
        out, new_states = step(step_inputs[t], states)
        if masks is not None:
            m = masks[t]
            # a padded step leaves the state as it was
            new_states = _map(lambda old, new: old + m * (new - old), states, new_states)
            if zero_padding:
                out = _map(lambda o: o * m, out)
        states = new_states
        outputs[t] = out
    return _map(lambda *xs: stack(list(xs), axis=time_axis), *outputs), states


# ---- cells ------------------------------------------------------------------

class RNNCellBase(Layer):
    """Base class of RNN cells: ``forward(inputs, states) -> (outputs, new_states)``.

    Subclasses define ``state_shape`` (per-example shapes, nested for several
    states) so ``get_initial_states`` can build zero states.
    """

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with ``init_value``, batch size from
        ``batch_ref.shape[batch_dim_idx]``, shapes from ``shape`` (default
        ``self.state_shape``; a leading -1 for the batch is optional)."""
        batch_ref = _leaves(batch_ref)[0]
        shapes = self.state_shape if shape is None else shape
        if dtype is None:
            try:
                dtype = self.state_dtype
            except NotImplementedError:
                dtype = _float_dtype(batch_ref)

        def is_shape(s):
            return isinstance(s, (list, tuple)) and all(isinstance(d, int) for d in s)

        def build(s, dt):
            s = list(s)
            if s and s[0] == -1:
                s = s[1:]
            return _batch_full(batch_ref, batch_dim_idx, s, init_value,
                               str(_dt.convert_dtype(dt)))

        def walk(s, dt):
            if is_shape(s):
                return build(s, dt)
            dts = dt if isinstance(dt, (list, tuple)) else [dt] * len(s)
            return type(s)(walk(item, d) for item, d in zip(s, dts))
        return walk(shapes, dtype)

    @property
    def state_shape(self):
        raise NotImplementedError("%s must define state_shape (or pass shape= to "
                                  "get_initial_states)" % type(self).__name__)

    @property
    def state_dtype(self):
        raise NotImplementedError("%s defines no state_dtype" % type(self).__name__)


def _cell_parameter(cell, shape, attr, std, is_bias):
    """A cell parameter initialised ``Uniform(-std, std)``; ``attr=False``
    gives, as in Paddle, a frozen constant (weights 1, biases 0)."""
    if attr is False:
        p = cell.create_parameter(shape, None, cell._dtype, is_bias,
                                  Constant(0.0 if is_bias else 1.0))
        p.stop_gradient = True
        return p
    return cell.create_parameter(shape, attr, cell._dtype, is_bias, Uniform(-std, std))


class _GatedCell(RNNCellBase):
    """Shared construction and checks of the built-in cells (``_gates`` blocks
    of ``hidden_size`` rows in ``weight_ih``/``weight_hh``)."""
    _gates = 1

    def _build(self, input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
               bias_hh_attr, hh_cols=None):
        what = type(self).__name__
        if int(hidden_size) <= 0:
            raise ValueError("%s: hidden_size must be positive, got %r" % (what, hidden_size))
        if int(input_size) <= 0:
            raise ValueError("%s: input_size must be positive, got %r" % (what, input_size))
        self.input_size = int(input_size)
        self.hidden_size = int(hidden_size)
        self._dtype = _dt.get_default_dtype()
        rows = self._gates * self.hidden_size
        std = 1.0 / math.sqrt(self.hidden_size)
        self.weight_ih = _cell_parameter(self, [rows, self.input_size], weight_ih_attr, std,
                                         False)
        self.weight_hh = _cell_parameter(self, [rows, hh_cols or self.hidden_size],
                                         weight_hh_attr, std, False)
        self.bias_ih = _cell_parameter(self, [rows], bias_ih_attr, std, True)
        self.bias_hh = _cell_parameter(self, [rows], bias_hh_attr, std, True)
        return std

    def _check_input(self, inputs, api=None):
        if inputs.shape[-1] not in (self.input_size, -1):
            raise ValueError("%s: the last dimension of inputs must be input_size=%d, got "
                             "inputs of shape %s" % (api or type(self).__name__,
                                                     self.input_size, list(inputs.shape)))

    def _check_state(self, state, size, what):
        shape = list(state.shape)
        if len(shape) != 2 or shape[-1] not in (size, -1):
            raise ValueError("%s: %s must have shape [batch_size, %d], got %s"
                             % (type(self).__name__, what, size, shape))

    def _project_with(self, inputs, bias):
        xw = matmul(inputs, self.weight_ih, transpose_y=True)
        return xw if bias is None else xw + bias

    def _project(self, inputs):
        """``inputs @ W_ih^T + b_ih + b_hh`` (both biases are plain additions
        in SimpleRNN and LSTM, so they are folded into one)."""
        bias = self.bias_ih
        if self.bias_hh is not None:
            bias = self.bias_hh if bias is None else bias + self.bias_hh
        return self._project_with(inputs, bias)

    def _hidden(self, h):
        return matmul(h, self.weight_hh, transpose_y=True)

    def _runs_sequences(self):
        """Whether ``_sequence`` runs a whole sequence as one op."""
        return False

    def forward(self, inputs, states=None):
        if states is None:
            states = self.get_initial_states(inputs, self.state_shape)
        self._check_input(inputs)
        self._check_states(states)
        return self._step(self._project(inputs), states)

    def extra_repr(self):
        return '%d, %d' % (self.input_size, self.hidden_size)


class SimpleRNNCell(_GatedCell):
    """Elman cell: ``h = act(W_ih x + b_ih + W_hh h_prev + b_hh)``; returns ``(h, h)``.

    ``activation`` is ``'tanh'`` (default) or ``'relu'``.

    >>> import framework as paddle
    >>> cell = paddle.nn.SimpleRNNCell(16, 32)
    >>> y, h = cell(paddle.randn([4, 16]), paddle.randn([4, 32]))
    >>> y.shape
    paddle.Size([4, 32])
    """
    _gates = 1

    def __init__(self, input_size, hidden_size, activation='tanh', weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        if activation not in ('tanh', 'relu'):
            raise ValueError("SimpleRNNCell: activation must be 'tanh' or 'relu', got %r"
                             % (activation,))
        self._build(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                    bias_hh_attr)
        self.activation = activation
        self._activation_fn = F.tanh if activation == 'tanh' else F.relu

    def _check_states(self, states):
        self._check_state(states, self.hidden_size, 'states')

    def _step(self, xw, h):
        h = self._activation_fn(xw + self._hidden(h))
        return h, h

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def extra_repr(self):
        s = super().extra_repr()
        return s if self.activation == 'tanh' else s + ', activation=%s' % self.activation


class LSTMCell(_GatedCell):
    """LSTM cell (gate order ``i, f, g, o``)::

        i = sigmoid(W_ii x + b_ii + W_hi h + b_hi)     f, o likewise
        g = tanh(W_ig x + b_ig + W_hg h + b_hg)
        c' = f * c + i * g;   h' = o * tanh(c')        (h' = h' @ W_ho if proj_size)

    ``states`` is ``(h, c)``; returns ``(h', (h', c'))``.

    >>> import framework as paddle
    >>> cell = paddle.nn.LSTMCell(16, 32)
    >>> y, (h, c) = cell(paddle.randn([4, 16]))
    >>> y.shape, c.shape
    (paddle.Size([4, 32]), paddle.Size([4, 32]))
    """
    _gates = 4

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        proj_size = int(proj_size or 0)
        if proj_size < 0 or (proj_size and proj_size >= int(hidden_size)):
            raise ValueError("LSTMCell: proj_size must be 0 (none) or in (0, hidden_size=%s), "
                             "got %d" % (hidden_size, proj_size))
        self.proj_size = proj_size
        std = self._build(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                          bias_ih_attr, bias_hh_attr, hh_cols=proj_size or None)
        if proj_size:
            self.weight_ho = _cell_parameter(self, [self.hidden_size, proj_size],
                                             weight_hh_attr, std, False)

    def _check_states(self, states):
        if not isinstance(states, (list, tuple)) or len(states) != 2:
            raise ValueError("LSTMCell: states must be a tuple (h, c), got %s"
                             % type(states).__name__)
        self._check_state(states[0], self.proj_size or self.hidden_size, 'h')
        self._check_state(states[1], self.hidden_size, 'c')

    def _step(self, xw, states):
        h, c = states
        h, c, _ = lstm_cell_op(xw, h, c, self.weight_hh, None)   # biases are in xw
        if self.proj_size:
            h = matmul(h, self.weight_ho)
        return h, (h, c)

    def _runs_sequences(self):
        return not self.proj_size and _steps_as(self, LSTMCell)   # lstm_seq: no projection

    def _sequence(self, inputs, states, sequence_length, time_major, reverse):
        y, h, c = lstm_seq_op(inputs, self.weight_ih, self.weight_hh, self.bias_ih,
                              self.bias_hh, states[0], states[1], sequence_length, reverse,
                              time_major)[:3]
        return y, (h, c)

    @property
    def state_shape(self):
        return ((self.proj_size or self.hidden_size,), (self.hidden_size,))

    def extra_repr(self):
        s = super().extra_repr()
        return s + ', proj_size=%d' % self.proj_size if self.proj_size else s


class GRUCell(_GatedCell):
    """GRU cell (gate order ``r, z, c``; reset gate applied after the hidden
    matmul, as Paddle and cuDNN)::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)     z likewise
        c = tanh(W_ic x + b_ic + r * (W_hc h + b_hc))
        h' = z * h + (1 - z) * c

    Returns ``(h', h')``.

    >>> import framework as paddle
    >>> cell = paddle.nn.GRUCell(16, 32)
    >>> y, h = cell(paddle.randn([4, 16]))
    >>> h.shape
    paddle.Size([4, 32])
    """
    _gates = 3

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._build(input_size, hidden_size, weight_ih_attr, weight_hh_attr, bias_ih_attr,
                    bias_hh_attr)

    def _check_states(self, states):
        self._check_state(states, self.hidden_size, 'states')

    def _project(self, inputs):
        # b_hc sits inside r * (...), so b_hh cannot be folded into the input side
        return self._project_with(inputs, self.bias_ih)

    def _step(self, xw, h):
        h = gru_cell_op(xw, h, self.weight_hh, self.bias_hh)[0]
        return h, h

    def _runs_sequences(self):
        return _steps_as(self, GRUCell)

    def _sequence(self, inputs, states, sequence_length, time_major, reverse):
        y, h = gru_seq_op(inputs, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh,
                          states, sequence_length, reverse, time_major)[:2]
        return y, h

    @property
    def state_shape(self):
        return (self.hidden_size,)


def _steps_as(cell, cls):
    """Whether ``cell`` computes its steps as the built-in ``cls`` does (a
    subclass may redefine them; then its sequences run step by step)."""
    kind = type(cell)
    return kind._step is cls._step and kind._project is cls._project


# cells whose forward is exactly _step(_project(x)) (see _unroll)
_FAST_FORWARDS = frozenset([_GatedCell.forward])


# ---- wrappers -------------------------------------------------------------

class RNN(Layer):
    """Runs ``cell`` over the time steps of a sequence.

    ``forward(inputs, initial_states=None, sequence_length=None, **kwargs)``
    returns ``(outputs, final_states)``; inputs are ``[batch, time, ...]``
    (``[time, batch, ...]`` when ``time_major``); extra kwargs go to the cell.

    >>> import framework as paddle
    >>> rnn = paddle.nn.RNN(paddle.nn.SimpleRNNCell(16, 32))
    >>> y, h = rnn(paddle.rand([4, 23, 16]), paddle.randn([4, 32]))
    >>> y.shape, h.shape
    (paddle.Size([4, 23, 32]), paddle.Size([4, 32]))
    """

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        if not isinstance(cell, Layer):
            raise TypeError("RNN: cell must be a Layer (an RNN cell), got %s"
                            % type(cell).__name__)
        self.cell = cell
        self.is_reverse = bool(is_reverse)
        self.time_major = bool(time_major)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None:
            initial_states = self.cell.get_initial_states(
                inputs, batch_dim_idx=1 if self.time_major else 0)
        return _unroll(self.cell, inputs, initial_states, sequence_length, self.time_major,
                       self.is_reverse, False, 'RNN', kwargs)

    def extra_repr(self):
        return 'is_reverse=%s, time_major=%s' % (self.is_reverse, self.time_major)


class BiRNN(Layer):
    """A forward and a backward RNN over the same inputs; outputs are
    concatenated on the last axis and final states returned as
    ``(states_fw, states_bw)``.

    >>> import framework as paddle
    >>> rnn = paddle.nn.BiRNN(paddle.nn.LSTMCell(16, 32), paddle.nn.LSTMCell(16, 32))
    >>> y, ((h_fw, c_fw), (h_bw, c_bw)) = rnn(paddle.rand([2, 23, 16]))
    >>> y.shape, h_bw.shape
    (paddle.Size([2, 23, 64]), paddle.Size([2, 32]))
    """

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        size_fw = getattr(cell_fw, 'input_size', None)
        size_bw = getattr(cell_bw, 'input_size', None)
        if size_fw is not None and size_bw is not None and size_fw != size_bw:
            raise ValueError("BiRNN: the input sizes of the forward cell (%d) and the backward "
                             "cell (%d) differ" % (size_fw, size_bw))
        self.cell_fw = cell_fw
        self.cell_bw = cell_bw
        self.time_major = bool(time_major)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return self._run(inputs, initial_states, sequence_length, False, 'BiRNN', kwargs)

    def _run(self, inputs, initial_states, sequence_length, zero_padding, api, kwargs=None):
        batch_axis = 1 if self.time_major else 0
        if initial_states is None:
            initial_states = (self.cell_fw.get_initial_states(inputs, batch_dim_idx=batch_axis),
                              self.cell_bw.get_initial_states(inputs, batch_dim_idx=batch_axis))
        elif not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
            raise ValueError("%s: initial_states must be a pair (states_fw, states_bw)" % api)
        out_fw, st_fw = _unroll(self.cell_fw, inputs, initial_states[0], sequence_length,
                                self.time_major, False, zero_padding, api, kwargs)
        out_bw, st_bw = _unroll(self.cell_bw, inputs, initial_states[1], sequence_length,
                                self.time_major, True, zero_padding, api, kwargs)
        outputs = _map(lambda a, b: concat([a, b], axis=-1), out_fw, out_bw)
        return outputs, (st_fw, st_bw)

    def extra_repr(self):
        return 'time_major=%s' % self.time_major


# ---- multi-layer networks -----------------------------------------------------

_BIDIRECTIONAL = ('bidirect', 'bidirectional')


class RNNBase(LayerList):
    """Shared implementation of ``SimpleRNN``, ``LSTM`` and ``GRU``: a list of
    ``RNN`` (or ``BiRNN``) layers, one per stacked layer.

    Parameters are also exposed under Paddle's flat names
    (``weight_ih_l0``, ``bias_hh_l1_reverse``, ...), so ``state_dict`` holds
    both spellings of each tensor, as Paddle's does.
    """
    _mode = ''

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction='forward',
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, activation='tanh'):
        super().__init__()
        what = type(self).__name__
        if direction not in ('forward',) + _BIDIRECTIONAL:
            raise ValueError("%s: direction must be 'forward', 'bidirect' or 'bidirectional', "
                             "got %r" % (what, direction))
        if int(num_layers) < 1:
            raise ValueError("%s: num_layers must be at least 1, got %r" % (what, num_layers))
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError("%s: dropout must be a number in [0, 1], got %r" % (what, dropout))
        if proj_size and mode != 'LSTM':
            raise ValueError("%s: proj_size is only supported by LSTM" % what)
        self.mode = mode
        self.input_size = int(input_size)
        self.hidden_size = int(hidden_size)
        self.num_layers = int(num_layers)
        self.num_directions = 2 if direction in _BIDIRECTIONAL else 1
        self.direction = direction
        self.time_major = bool(time_major)
        self.dropout = dropout
        self.proj_size = int(proj_size or 0)
        self.state_components = 2 if mode == 'LSTM' else 1
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr)
        if mode == 'LSTM':
            cell_cls, attrs['proj_size'] = LSTMCell, self.proj_size
        elif mode == 'GRU':
            cell_cls = GRUCell
        else:
            cell_cls, attrs['activation'] = SimpleRNNCell, activation
        out_size = self.proj_size or self.hidden_size
        for layer in range(self.num_layers):
            in_size = self.input_size if layer == 0 else out_size * self.num_directions
            cells = [cell_cls(in_size, self.hidden_size, **attrs)
                     for _ in range(self.num_directions)]
            if self.num_directions == 1:
                self.append(RNN(cells[0], False, self.time_major))
            else:
                self.append(BiRNN(cells[0], cells[1], self.time_major))
            for d, cell in enumerate(cells):
                suffix = '_l%d%s' % (layer, '_reverse' if d else '')
                for pname in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'):
                    setattr(self, pname + suffix, getattr(cell, pname))
                if self.proj_size:
                    setattr(self, 'weight_ho' + suffix, cell.weight_ho)

    def flatten_parameters(self):
        """Paddle packs the weights into one cuDNN buffer here; the numpy
        kernels use each parameter in place, so there is nothing to do."""

    def _cells(self, layer):
        rnn = self[layer]
        return [rnn.cell] if self.num_directions == 1 else [rnn.cell_fw, rnn.cell_bw]

    def _split_states(self, initial_states, inputs):
        """Per (layer, direction) cell states from the stacked
        ``[num_layers * num_directions, batch, hidden]`` tensor(s)."""
        what = type(self).__name__
        n = self.num_layers * self.num_directions
        sizes = [self.proj_size or self.hidden_size, self.hidden_size]
        batch = inputs.shape[1 if self.time_major else 0]
        if initial_states is None:
            stacked = [None] * self.state_components
        else:
            stacked = initial_states
            if self.state_components == 1:
                stacked = [initial_states] if not isinstance(initial_states, (list, tuple)) \
                    else list(initial_states)
            if not isinstance(stacked, (list, tuple)) or len(stacked) != self.state_components:
                raise ValueError("%s: initial_states must be %s" % (
                    what, 'a tuple (h, c) of tensors' if self.state_components == 2
                    else 'a tensor'))
            for k, s in enumerate(stacked):
                shape = list(s.shape)
                expect = [n, batch, sizes[k]]
                if len(shape) != 3 or any(a != b and -1 not in (a, b)
                                          for a, b in zip(shape, expect)):
                    raise ValueError("%s: initial states must have shape [num_layers * "
                                     "num_directions, batch_size, hidden_size] = %s, got %s"
                                     % (what, expect, shape))
        per_component = []
        for k, s in enumerate(stacked):
            if s is None:
                zero = _batch_full(inputs, 1 if self.time_major else 0, [sizes[k]], 0.0,
                                   _float_dtype(inputs))
                per_component.append([zero] * n)
            else:
                per_component.append(unstack(s, axis=0))
        if self.state_components == 1:
            return per_component[0]
        return list(zip(*per_component))

    def forward(self, inputs, initial_states=None, sequence_length=None):
        what = type(self).__name__
        if len(inputs.shape) != 3:
            raise ValueError("%s: inputs must be 3-D [batch, time, input_size] (or [time, "
                             "batch, input_size] when time_major), got shape %s"
                             % (what, list(inputs.shape)))
        if inputs.shape[-1] not in (self.input_size, -1):
            raise ValueError("%s: the last dimension of inputs must be input_size=%d, got "
                             "shape %s" % (what, self.input_size, list(inputs.shape)))
        states = self._split_states(initial_states, inputs)
        finals = []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout:
                inputs = F.dropout(inputs, self.dropout, training=self.training,
                                   mode='upscale_in_train')
            outs = []
            for d, cell in enumerate(self._cells(layer)):
                state = states[layer * self.num_directions + d]
                out, final = _unroll(cell, inputs, state, sequence_length, self.time_major,
                                     d == 1, True, what)
                outs.append(out)
                finals.append(final)
            inputs = outs[0] if len(outs) == 1 else concat(outs, axis=-1)
        if self.state_components == 1:
            return inputs, stack(finals, axis=0)
        return inputs, tuple(stack([f[k] for f in finals], axis=0)
                             for k in range(self.state_components))

    def extra_repr(self):
        s = '%d, %d' % (self.input_size, self.hidden_size)
        if self.num_layers != 1:
            s += ', num_layers=%d' % self.num_layers
        if self.num_directions == 2:
            s += ', direction=%s' % self.direction
        if self.time_major:
            s += ', time_major=True'
        if self.dropout:
            s += ', dropout=%s' % self.dropout
        return s


class SimpleRNN(RNNBase):
    """Multi-layer Elman RNN: ``h_t = act(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)``.

    ``forward(inputs, initial_states=None, sequence_length=None)`` returns
    ``(outputs, final_states)``: outputs ``[batch, time, num_directions * hidden]``,
    final states ``[num_layers * num_directions, batch, hidden]``.

    >>> import framework as paddle
    >>> rnn = paddle.nn.SimpleRNN(16, 32, 2)
    >>> y, h = rnn(paddle.randn([4, 23, 16]), paddle.randn([2, 4, 32]))
    >>> y.shape, h.shape
    (paddle.Size([4, 23, 32]), paddle.Size([2, 4, 32]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction='forward',
                 time_major=False, dropout=0.0, activation='tanh', weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        if activation not in ('tanh', 'relu'):
            raise ValueError("SimpleRNN: activation must be 'tanh' or 'relu', got %r"
                             % (activation,))
        super().__init__('RNN_TANH' if activation == 'tanh' else 'RNN_RELU', input_size,
                         hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         activation=activation)
        self.activation = activation


class LSTM(RNNBase):
    """Multi-layer LSTM (see ``LSTMCell``); states are a tuple ``(h, c)``.

    >>> import framework as paddle
    >>> lstm = paddle.nn.LSTM(16, 32, 2, direction='bidirect')
    >>> y, (h, c) = lstm(paddle.randn([4, 23, 16]))
    >>> y.shape, h.shape
    (paddle.Size([4, 23, 64]), paddle.Size([4, 4, 32]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction='forward',
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__('LSTM', input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         proj_size)


class GRU(RNNBase):
    """Multi-layer GRU (see ``GRUCell``).

    >>> import framework as paddle
    >>> gru = paddle.nn.GRU(16, 32, 2)
    >>> y, h = gru(paddle.randn([4, 23, 16]))
    >>> y.shape, h.shape
    (paddle.Size([4, 23, 32]), paddle.Size([2, 4, 32]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, direction='forward',
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__('GRU', input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
