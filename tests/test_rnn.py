"""Recurrent layers: cells and multi-layer networks against an independent
numpy implementation of Paddle's equations (and PyTorch with copied weights,
whose LSTM/GRU/RNN use the same gate layout), sequence_length semantics,
shapes, state_dict names, gradients by finite differences, static mode and
@to_static."""
import numpy as np
import pytest

import framework as paddle
from framework import nn

RNG = np.random.default_rng(7)


def _arr(*shape, scale=1.0):
    return RNG.uniform(-scale, scale, shape)


def _t(a, grad=False, dtype=None):
    a = np.asarray(a)
    if dtype is not None:
        a = a.astype(dtype)
    return paddle.to_tensor(a, stop_gradient=not grad)


def _np(t):
    return t.numpy().astype(np.float64)


# ---- numpy reference (textbook equations, per example, per valid step) -----------

def _sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def _params(cell):
    p = {k: _np(getattr(cell, k)) for k in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh')}
    if getattr(cell, 'proj_size', 0):
        p['weight_ho'] = _np(cell.weight_ho)
    return p


def ref_step(mode, p, x, state):
    """One step for ONE example: x [I]; state h [H] (LSTM: (h, c))."""
    if mode in ('tanh', 'relu'):
        a = p['weight_ih'] @ x + p['bias_ih'] + p['weight_hh'] @ state + p['bias_hh']
        h = np.tanh(a) if mode == 'tanh' else np.maximum(a, 0)
        return h, h
    if mode == 'lstm':
        h, c = state
        g = p['weight_ih'] @ x + p['bias_ih'] + p['weight_hh'] @ h + p['bias_hh']
        n = c.shape[0]
        i, f, cand, o = _sig(g[:n]), _sig(g[n:2 * n]), np.tanh(g[2 * n:3 * n]), _sig(g[3 * n:])
        c = f * c + i * cand
        h = o * np.tanh(c)
        if 'weight_ho' in p:
            h = h @ p['weight_ho']
        return h, (h, c)
    # gru: reset gate applied to (W_hc h + b_hc)
    n = state.shape[0]
    gx = p['weight_ih'] @ x + p['bias_ih']
    gh = p['weight_hh'] @ state + p['bias_hh']
    r = _sig(gx[:n] + gh[:n])
    z = _sig(gx[n:2 * n] + gh[n:2 * n])
    cand = np.tanh(gx[2 * n:] + r * gh[2 * n:])
    h = z * state + (1 - z) * cand
    return h, h


def ref_direction(mode, p, x, states, lengths, reverse):
    """x [B, T, I]; states per example; runs only the valid steps of each
    example (reversed for the backward direction). Returns (out [B, T, H]
    with zeros at padded steps, final states per example)."""
    b, steps = x.shape[:2]
    outs, finals = None, []
    for e in range(b):
        s = states[e]
        n = steps if lengths is None else lengths[e]
        order = range(n - 1, -1, -1) if reverse else range(n)
        for t in order:
            y, s = ref_step(mode, p, x[e, t], s)
            if outs is None:
                outs = np.zeros((b, steps, y.shape[0]))
            outs[e, t] = y
        finals.append(s)
    return outs, finals


def ref_network(mode, net, x, init=None, lengths=None):
    """Multi-layer (bi)directional network; init: stacked state array(s)."""
    layers, dirs = net.num_layers, net.num_directions
    b = x.shape[0]
    finals = []
    for layer in range(layers):
        cells = net._cells(layer)
        outs = []
        for d, cell in enumerate(cells):
            k = layer * dirs + d
            if mode == 'lstm':
                hs = init[0][k] if init else np.zeros((b, net.proj_size or net.hidden_size))
                cs = init[1][k] if init else np.zeros((b, net.hidden_size))
                states = list(zip(hs, cs))
            else:
                states = list(init[k]) if init is not None else \
                    [np.zeros(net.hidden_size)] * b
            out, fin = ref_direction(mode, _params(cell), x, states, lengths, d == 1)
            outs.append(out)
            finals.append(fin)
        x = np.concatenate(outs, axis=-1)
    if mode == 'lstm':
        return x, (np.array([[f[e][0] for e in range(b)] for f in finals]),
                   np.array([[f[e][1] for e in range(b)] for f in finals]))
    return x, np.array(finals)


# ---- cells ------------------------------------------------------------------

@pytest.mark.parametrize('cls,gates', [(nn.SimpleRNNCell, 1), (nn.LSTMCell, 4),
                                       (nn.GRUCell, 3)])
def test_cell_parameters_are_named_shaped_and_initialised_as_paddle(cls, gates):
    cell = cls(5, 16)
    names = [n for n, _ in cell.named_parameters()]
    assert names == ['weight_ih', 'weight_hh', 'bias_ih', 'bias_hh']
    assert cell.weight_ih.shape == [gates * 16, 5]
    assert cell.weight_hh.shape == [gates * 16, 16]
    assert cell.bias_ih.shape == cell.bias_hh.shape == [gates * 16]
    bound = 1 / np.sqrt(16)
    for p in cell.parameters():
        v = p.numpy()
        assert np.all(np.abs(v) <= bound) and v.std() > bound / 4   # Uniform(-b, b)
        assert not p.stop_gradient


def test_cell_attr_false_gives_frozen_constants_as_paddle():
    cell = nn.GRUCell(3, 4, weight_hh_attr=False, bias_ih_attr=False)
    assert np.all(cell.weight_hh.numpy() == 1) and cell.weight_hh.stop_gradient
    assert np.all(cell.bias_ih.numpy() == 0) and cell.bias_ih.stop_gradient
    assert not cell.weight_ih.stop_gradient


@pytest.mark.parametrize('mode', ['tanh', 'relu', 'lstm', 'gru'])
def test_cell_step_matches_numpy(mode):
    b, i, h = 3, 4, 5
    if mode == 'lstm':
        cell = nn.LSTMCell(i, h)
    elif mode == 'gru':
        cell = nn.GRUCell(i, h)
    else:
        cell = nn.SimpleRNNCell(i, h, activation=mode)
    x = _arr(b, i)
    if mode == 'lstm':
        h0, c0 = _arr(b, h), _arr(b, h)
        y, (hn, cn) = cell(_t(x, dtype='float32'), (_t(h0, dtype='float32'),
                                                    _t(c0, dtype='float32')))
        refs = [ref_step(mode, _params(cell), x[e], (h0[e], c0[e])) for e in range(b)]
        np.testing.assert_allclose(_np(cn), [r[1][1] for r in refs], rtol=1e-5, atol=1e-6)
    else:
        h0 = _arr(b, h)
        y, hn = cell(_t(x, dtype='float32'), _t(h0, dtype='float32'))
        refs = [ref_step(mode, _params(cell), x[e], h0[e]) for e in range(b)]
    np.testing.assert_allclose(_np(y), [r[0] for r in refs], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(hn), _np(y))


def test_cells_default_to_zero_states():
    x = _t(_arr(2, 3), dtype='float32')
    for cell in (nn.SimpleRNNCell(3, 4), nn.GRUCell(3, 4)):
        y0, _ = cell(x)
        y1, _ = cell(x, paddle.zeros([2, 4]))
        np.testing.assert_array_equal(y0.numpy(), y1.numpy())
    cell = nn.LSTMCell(3, 4)
    y0, (h0, c0) = cell(x)
    y1, _ = cell(x, (paddle.zeros([2, 4]), paddle.zeros([2, 4])))
    np.testing.assert_array_equal(y0.numpy(), y1.numpy())
    assert c0.shape == [2, 4]


def test_lstm_cell_projection_matches_numpy():
    cell = nn.LSTMCell(3, 6, proj_size=2)
    assert cell.weight_hh.shape == [24, 2] and cell.weight_ho.shape == [6, 2]
    x, h0, c0 = _arr(2, 3), _arr(2, 2), _arr(2, 6)
    y, (h, c) = cell(_t(x, dtype='float32'), (_t(h0, dtype='float32'), _t(c0, dtype='float32')))
    refs = [ref_step('lstm', _params(cell), x[e], (h0[e], c0[e])) for e in range(2)]
    assert y.shape == [2, 2] and c.shape == [2, 6]
    np.testing.assert_allclose(_np(y), [r[0] for r in refs], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(c), [r[1][1] for r in refs], rtol=1e-5, atol=1e-6)
    _, (h_zero, c_zero) = cell(_t(x, dtype='float32'))      # default states fit proj_size
    assert h_zero.shape == [2, 2] and c_zero.shape == [2, 6]


def test_cells_match_torch_with_copied_weights():
    torch = pytest.importorskip('torch')
    x, h0, c0 = _arr(3, 4), _arr(3, 5), _arr(3, 5)
    pairs = [(nn.SimpleRNNCell(4, 5), torch.nn.RNNCell(4, 5)),
             (nn.SimpleRNNCell(4, 5, 'relu'), torch.nn.RNNCell(4, 5, nonlinearity='relu')),
             (nn.GRUCell(4, 5), torch.nn.GRUCell(4, 5)),
             (nn.LSTMCell(4, 5), torch.nn.LSTMCell(4, 5))]
    for ours, theirs in pairs:
        theirs = theirs.double()
        with torch.no_grad():
            for name in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'):
                getattr(theirs, name).copy_(torch.tensor(_np(getattr(ours, name))))
        ours.to(dtype='float64')
        if isinstance(ours, nn.LSTMCell):
            y, (_, c) = ours(_t(x), (_t(h0), _t(c0)))
            th, tc = theirs(torch.tensor(x), (torch.tensor(h0), torch.tensor(c0)))
            np.testing.assert_allclose(c.numpy(), tc.detach().numpy(), rtol=1e-10)
        else:
            y, _ = ours(_t(x), _t(h0))
            th = theirs(torch.tensor(x), torch.tensor(h0))
        np.testing.assert_allclose(y.numpy(), th.detach().numpy(), rtol=1e-10, atol=1e-12)


# ---- multi-layer networks -----------------------------------------------------

def _net(mode, *args, **kwargs):
    if mode == 'lstm':
        return nn.LSTM(*args, **kwargs)
    if mode == 'gru':
        return nn.GRU(*args, **kwargs)
    return nn.SimpleRNN(*args, activation=mode, **kwargs)


def _init(mode, net, b):
    n = net.num_layers * net.num_directions
    if mode == 'lstm':
        return (_arr(n, b, net.proj_size or net.hidden_size), _arr(n, b, net.hidden_size))
    return _arr(n, b, net.hidden_size)


def _to_t(init):
    return tuple(_t(a, dtype='float32') for a in init) if isinstance(init, tuple) \
        else _t(init, dtype='float32')


def _close(got, want, **kw):
    if isinstance(want, tuple):
        for g, w in zip(got, want):
            np.testing.assert_allclose(_np(g), w, **kw)
    else:
        np.testing.assert_allclose(_np(got), want, **kw)


@pytest.mark.parametrize('mode', ['tanh', 'relu', 'lstm', 'gru'])
@pytest.mark.parametrize('direction', ['forward', 'bidirect'])
def test_network_matches_numpy_with_initial_states(mode, direction):
    net = _net(mode, 3, 4, num_layers=2, direction=direction)
    x = _arr(2, 5, 3)
    init = _init(mode, net, 2)
    y, states = net(_t(x, dtype='float32'), _to_t(init))
    ry, rstates = ref_network(mode, net, x, init)
    _close(y, ry, rtol=1e-5, atol=1e-6)
    _close(states, rstates, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('mode', ['tanh', 'lstm', 'gru'])
def test_sequence_length_freezes_states_and_zeroes_padded_outputs(mode):
    net = _net(mode, 3, 4, num_layers=2, direction='bidirectional')
    x = _arr(3, 6, 3)
    lengths = [6, 2, 4]
    init = _init(mode, net, 3)
    y, states = net(_t(x, dtype='float32'), _to_t(init), sequence_length=_t(lengths))
    ry, rstates = ref_network(mode, net, x, init, lengths)
    _close(y, ry, rtol=1e-5, atol=1e-6)
    _close(states, rstates, rtol=1e-5, atol=1e-6)
    assert np.all(y.numpy()[1, 2:] == 0)


def test_time_major_gives_the_transposed_result():
    net = nn.GRU(3, 4, 2, direction='bidirect')
    x = _arr(2, 5, 3).astype('float32')
    y, h = net(_t(x))
    net.time_major = True
    for layer in net:
        layer.time_major = True
    yt, ht = net(_t(x.transpose(1, 0, 2)))
    assert yt.shape == [5, 2, 8]
    np.testing.assert_allclose(yt.numpy().transpose(1, 0, 2), y.numpy(), rtol=1e-6)
    np.testing.assert_allclose(ht.numpy(), h.numpy(), rtol=1e-6)
    built = nn.GRU(3, 4, time_major=True)
    assert built(_t(x.transpose(1, 0, 2)))[0].shape == [5, 2, 4]


@pytest.mark.parametrize('mode,cls_name', [('tanh', 'RNN'), ('relu', 'RNN'),
                                           ('lstm', 'LSTM'), ('gru', 'GRU')])
def test_network_matches_torch_with_copied_weights(mode, cls_name):
    torch = pytest.importorskip('torch')
    net = _net(mode, 3, 4, num_layers=2, direction='bidirect')
    kwargs = {'nonlinearity': mode} if cls_name == 'RNN' else {}
    tnet = getattr(torch.nn, cls_name)(3, 4, num_layers=2, batch_first=True,
                                       bidirectional=True, **kwargs).double()
    with torch.no_grad():
        for name, p in tnet.named_parameters():
            p.copy_(torch.tensor(_np(getattr(net, name))))   # Paddle's flat names = torch's
    net.to(dtype='float64')
    x = _arr(3, 5, 3)
    init = _init(mode, net, 3)
    y, states = net(_t(x), tuple(_t(a) for a in init) if mode == 'lstm' else _t(init))
    tinit = tuple(torch.tensor(a) for a in init) if mode == 'lstm' else torch.tensor(init)
    ty, tstates = tnet(torch.tensor(x), tinit)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    if mode == 'lstm':
        for a, b in zip(states, tstates):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    else:
        np.testing.assert_allclose(states.numpy(), tstates.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_sequence_length_matches_torch_packed_sequences():
    torch = pytest.importorskip('torch')
    net = nn.LSTM(3, 4, num_layers=2, direction='bidirect')
    tnet = torch.nn.LSTM(3, 4, num_layers=2, batch_first=True, bidirectional=True).double()
    with torch.no_grad():
        for name, p in tnet.named_parameters():
            p.copy_(torch.tensor(_np(getattr(net, name))))
    net.to(dtype='float64')
    x, lengths = _arr(3, 6, 3), [6, 2, 4]
    y, (h, c) = net(_t(x), sequence_length=_t(lengths))
    packed = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), lengths, batch_first=True,
                                                     enforce_sorted=False)
    tout, (th, tc) = tnet(packed)
    ty, _ = torch.nn.utils.rnn.pad_packed_sequence(tout, batch_first=True, total_length=6)
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), th.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), tc.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_lstm_projection_network_matches_torch():
    torch = pytest.importorskip('torch')
    net = nn.LSTM(3, 5, num_layers=2, proj_size=2)
    assert net.weight_ih_l1.shape == [20, 2]
    tnet = torch.nn.LSTM(3, 5, num_layers=2, batch_first=True, proj_size=2).double()
    with torch.no_grad():
        for layer in range(2):
            for name in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'):
                getattr(tnet, '%s_l%d' % (name, layer)).copy_(
                    torch.tensor(_np(getattr(net, '%s_l%d' % (name, layer)))))
            # torch projects with h @ W_hr^T; Paddle with h @ W_ho
            getattr(tnet, 'weight_hr_l%d' % layer).copy_(
                torch.tensor(_np(getattr(net, 'weight_ho_l%d' % layer)).T))
    net.to(dtype='float64')
    x = _arr(2, 4, 3)
    y, (h, c) = net(_t(x))
    ty, (th, tc) = tnet(torch.tensor(x))
    assert y.shape == [2, 4, 2] and h.shape == [2, 2, 2] and c.shape == [2, 2, 5]
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), tc.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('direction,dirs', [('forward', 1), ('bidirect', 2),
                                            ('bidirectional', 2)])
def test_output_and_state_shapes(direction, dirs):
    x = paddle.randn([4, 7, 3])
    y, h = nn.SimpleRNN(3, 5, 3, direction=direction)(x)
    assert y.shape == [4, 7, 5 * dirs] and h.shape == [3 * dirs, 4, 5]
    y, (h, c) = nn.LSTM(3, 5, 3, direction=direction)(x)
    assert y.shape == [4, 7, 5 * dirs] and h.shape == c.shape == [3 * dirs, 4, 5]
    y, h = nn.GRU(3, 5, 3, direction=direction)(x)
    assert y.shape == [4, 7, 5 * dirs] and h.shape == [3 * dirs, 4, 5]


def test_state_dict_has_paddles_flat_and_structured_names():
    net = nn.LSTM(3, 4, num_layers=2, direction='bidirect')
    keys = list(net.state_dict())
    for layer in range(2):
        for suffix in ('', '_reverse'):
            for name in ('weight_ih', 'weight_hh', 'bias_ih', 'bias_hh'):
                assert '%s_l%d%s' % (name, layer, suffix) in keys
    assert '0.cell_fw.weight_ih' in keys and '1.cell_bw.bias_hh' in keys
    assert net.weight_ih_l1_reverse is net[1].cell_bw.weight_ih
    assert len(net.parameters()) == 16        # each tensor once
    assert net.weight_ih_l1.shape == [16, 8]  # second layer reads both directions
    other = nn.LSTM(3, 4, num_layers=2, direction='bidirect')
    other.set_state_dict(net.state_dict())
    x = paddle.randn([2, 3, 3])
    np.testing.assert_array_equal(net(x)[0].numpy(), other(x)[0].numpy())


# ---- wrappers -----------------------------------------------------------------

class _ScaledCell(nn.RNNCellBase):
    """A user cell (generic path): h' = tanh(x W + h) * gain, with a forward kwarg."""

    def __init__(self, size):
        super().__init__()
        self.input_size = size
        self.w = self.create_parameter([size, size])

    def forward(self, x, h, gain=1.0):
        h = paddle.tanh(paddle.matmul(x, self.w) + h) * gain
        return h, h

    @property
    def state_shape(self):
        return (self.w.shape[1],)


def test_rnn_wrapper_runs_a_user_cell_with_kwargs_forward_and_reverse():
    cell = _ScaledCell(3)
    x = _arr(2, 4, 3).astype('float32')
    w = _np(cell.w)
    for reverse in (False, True):
        y, h = nn.RNN(cell, is_reverse=reverse)(_t(x), gain=0.5)
        want = np.zeros((2, 4, 3))
        s = np.zeros((2, 3))
        for t in (range(3, -1, -1) if reverse else range(4)):
            s = np.tanh(x[:, t] @ w + s) * 0.5
            want[:, t] = s
        np.testing.assert_allclose(_np(y), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(_np(h), s, rtol=1e-5, atol=1e-6)


def test_rnn_wrapper_with_builtin_cell_equals_stepping_the_cell():
    cell = nn.LSTMCell(3, 4)
    x = _t(_arr(2, 5, 3), dtype='float32')
    y, (h, c) = nn.RNN(cell)(x)
    states = None
    outs = []
    for t in range(5):
        o, states = cell(x[:, t], states)
        outs.append(o.numpy())
    np.testing.assert_allclose(y.numpy(), np.stack(outs, 1), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(c.numpy(), states[1].numpy(), rtol=1e-6, atol=1e-7)


def test_rnn_wrapper_sequence_length_keeps_states_but_not_outputs_zeroed():
    cell = nn.GRUCell(3, 4)
    x = _arr(2, 5, 3)
    y, h = nn.RNN(cell)(_t(x, dtype='float32'), sequence_length=_t([5, 2]))
    ry, rfin = ref_direction('gru', _params(cell), x, [np.zeros(4)] * 2, [5, 2], False)
    np.testing.assert_allclose(_np(h), np.array(rfin), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(y)[1, :2], ry[1, :2], rtol=1e-5, atol=1e-6)
    assert np.abs(y.numpy()[1, 2:]).max() > 0      # Paddle's rnn() leaves them as computed


def test_birnn_concatenates_directions_and_returns_both_states():
    fw, bw = nn.SimpleRNNCell(3, 4), nn.SimpleRNNCell(3, 2)
    x = _arr(2, 5, 3)
    y, (hf, hb) = nn.BiRNN(fw, bw)(_t(x, dtype='float32'))
    assert y.shape == [2, 5, 6] and hf.shape == [2, 4] and hb.shape == [2, 2]
    rf, _ = ref_direction('tanh', _params(fw), x, [np.zeros(4)] * 2, None, False)
    rb, _ = ref_direction('tanh', _params(bw), x, [np.zeros(2)] * 2, None, True)
    np.testing.assert_allclose(_np(y), np.concatenate([rf, rb], -1), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match='input sizes'):
        nn.BiRNN(nn.GRUCell(3, 4), nn.GRUCell(5, 4))


# ---- dropout, errors ------------------------------------------------------------

def test_dropout_between_layers_only_in_training():
    net = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = paddle.randn([2, 6, 3])
    paddle.seed(1)
    a = net(x)[0].numpy()
    paddle.seed(2)
    b = net(x)[0].numpy()
    assert not np.allclose(a, b)
    net.eval()
    c, d = net(x)[0].numpy(), net(x)[0].numpy()
    np.testing.assert_array_equal(c, d)
    single = nn.GRU(3, 4, num_layers=1, dropout=0.5)    # no layer above to drop into
    np.testing.assert_array_equal(single(x)[0].numpy(), single(x)[0].numpy())


def test_argument_errors_name_the_problem():
    with pytest.raises(ValueError, match='direction'):
        nn.LSTM(3, 4, direction='backward')
    with pytest.raises(ValueError, match='activation'):
        nn.SimpleRNN(3, 4, activation='sigmoid')
    with pytest.raises(ValueError, match='proj_size'):
        nn.LSTMCell(3, 4, proj_size=4)
    with pytest.raises(ValueError, match='hidden_size'):
        nn.GRUCell(3, 0)
    with pytest.raises(ValueError, match='input_size=3'):
        nn.GRU(3, 4)(paddle.randn([2, 5, 6]))
    with pytest.raises(ValueError, match=r'\[2, 2, 4\]'):
        nn.GRU(3, 4, 2)(paddle.randn([2, 5, 3]), paddle.zeros([1, 2, 4]))
    with pytest.raises(ValueError, match='tuple'):
        nn.LSTM(3, 4)(paddle.randn([2, 5, 3]), paddle.zeros([1, 2, 4]))
    with pytest.raises(ValueError, match='3-D'):
        nn.LSTM(3, 4)(paddle.randn([5, 3]))
    with pytest.raises(ValueError, match='sequence_length'):
        nn.GRU(3, 4)(paddle.randn([2, 5, 3]), sequence_length=_t([1, 2, 3]))
    with pytest.raises(ValueError, match='states'):
        nn.RNN(nn.SimpleRNNCell(3, 4))(paddle.randn([2, 5, 3]), paddle.zeros([2, 5]))


# ---- gradients -----------------------------------------------------------------

def fd_check(loss_fn, tensors, eps=1e-6, rtol=1e-5, atol=1e-8):
    """paddle.grad of loss_fn() w.r.t. tensors against central differences."""
    grads = paddle.grad(loss_fn(), tensors)
    for t, g in zip(tensors, grads):
        base = t.data
        num = np.zeros(base.size)
        for k in range(base.size):
            for sign in (1, -1):
                pert = base.copy().reshape(-1)
                pert[k] += sign * eps
                t.data = pert.reshape(base.shape)
                with paddle.no_grad():
                    num[k] += sign * float(loss_fn().numpy())
            t.data = base
        np.testing.assert_allclose(g.numpy().reshape(-1), num / (2 * eps), rtol=rtol,
                                   atol=atol, err_msg=getattr(t, 'name', ''))


@pytest.mark.parametrize('mode', ['tanh', 'lstm', 'gru'])
def test_gradients_match_finite_differences(mode):
    net = _net(mode, 2, 2, num_layers=2, direction='bidirect')
    net.to(dtype='float64')
    x = _t(_arr(2, 3, 2), grad=True)
    init = _init(mode, net, 2)
    init = tuple(_t(a, grad=True) for a in init) if mode == 'lstm' else _t(init, grad=True)
    lengths = _t([3, 2])
    cot = _t(_arr(2, 3, 4))
    hcot = _t(_arr(4, 2, 2))

    def loss():
        y, st = net(x, init, sequence_length=lengths)
        h = st[0] if mode == 'lstm' else st
        return (y * cot).sum() + (h * hcot).sum()
    leaves = [x] + (list(init) if mode == 'lstm' else [init]) + net.parameters()
    fd_check(loss, leaves)


def test_cell_gradients_match_finite_differences():
    cell = nn.GRUCell(2, 3)
    cell.to(dtype='float64')
    x, h = _t(_arr(2, 2), grad=True), _t(_arr(2, 3), grad=True)
    cot = _t(_arr(2, 3))
    fd_check(lambda: (cell(x, h)[0] * cot).sum(), [x, h] + cell.parameters())


# ---- static mode and @to_static ----------------------------------------------------

def test_static_program_matches_eager():
    from framework import static
    x = _arr(2, 5, 3).astype('float32')
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data('x', [None, 5, 3], 'float32')
            lv = static.data('len', [None], 'int64')
            net = nn.LSTM(3, 4, 2, direction='bidirect')
            y, (h, c) = net(xv, sequence_length=lv)
            static.append_backward(paddle.mean(y))
        scope = static.Scope()
        with static.scope_guard(scope):
            exe = static.Executor()
            exe.run(startup)
            got = exe.run(main, feed={'x': x, 'len': np.array([5, 3])}, fetch_list=[y, h, c])
            values = {k: np.array(scope.find_var(v.name).get_tensor())
                      for k, v in net.state_dict().items()}
    finally:
        paddle.disable_static()
    eager = nn.LSTM(3, 4, 2, direction='bidirect')
    eager.set_state_dict(values)
    ye, (he, ce) = eager(_t(x), sequence_length=_t([5, 3]))
    for a, b in zip(got, (ye, he, ce)):
        np.testing.assert_allclose(a, b.numpy(), rtol=1e-6, atol=1e-7)


def test_static_mode_needs_a_known_time_dimension_where_steps_are_unrolled():
    """nn.LSTM / nn.GRU run a sequence op, which takes any number of steps;
    the unrolled paths (SimpleRNN, an LSTM with proj_size) need it when the
    graph is built."""
    from framework import static
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            xv = static.data('x', [None, None, 3], 'float32')
            for net in (nn.SimpleRNN(3, 4), nn.LSTM(3, 4, proj_size=2)):
                with pytest.raises(ValueError, match='time steps must be known'):
                    net(xv)
            y, h = nn.GRU(3, 4)(xv)
            assert y.shape[:2] == [-1, -1] and h.shape == [1, -1, 4]
    finally:
        paddle.disable_static()


def test_to_static_matches_eager_forward_and_grads():
    net = nn.GRU(3, 4, 2, direction='bidirect')
    x = paddle.randn([2, 5, 3])
    y, h = net(x)
    (y.sum() + h.sum()).backward()
    eager_grads = [p.grad.numpy().copy() for p in net.parameters()]
    net.clear_gradients()
    static_net = paddle.jit.to_static(net)
    ys, hs = static_net(x)
    np.testing.assert_allclose(ys.numpy(), y.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(hs.numpy(), h.numpy(), rtol=1e-6, atol=1e-7)
    (ys.sum() + hs.sum()).backward()
    for p, g in zip(net.parameters(), eager_grads):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-5, atol=1e-6)


# ---- the fused cell ops against a plain composition of ops -----------------------

class _ComposedLSTMCell(nn.LSTMCell):
    """Paddle's LSTM step written with elementwise ops (no lstm_cell op); a
    forward of its own also sends the layers down their generic path."""

    def forward(self, x, states):
        h, c = states
        gates = (paddle.matmul(x, self.weight_ih, transpose_y=True) + self.bias_ih
                 + paddle.matmul(h, self.weight_hh, transpose_y=True) + self.bias_hh)
        i, f, g, o = paddle.split(gates, 4, axis=-1)
        c = paddle.nn.functional.sigmoid(f) * c + paddle.nn.functional.sigmoid(i) * paddle.tanh(g)
        h = paddle.nn.functional.sigmoid(o) * paddle.tanh(c)
        if self.proj_size:
            h = paddle.matmul(h, self.weight_ho)
        return h, (h, c)


class _ComposedGRUCell(nn.GRUCell):
    def forward(self, x, h):
        n = self.hidden_size
        xw = paddle.matmul(x, self.weight_ih, transpose_y=True) + self.bias_ih
        hw = paddle.matmul(h, self.weight_hh, transpose_y=True) + self.bias_hh
        x_r, x_z, x_c = paddle.split(xw, [n, n, n], axis=-1)
        h_r, h_z, h_c = paddle.split(hw, [n, n, n], axis=-1)
        r = paddle.nn.functional.sigmoid(x_r + h_r)
        z = paddle.nn.functional.sigmoid(x_z + h_z)
        c = paddle.tanh(x_c + r * h_c)
        return (h - c) * z + c, (h - c) * z + c


def _composed_twin(net):
    """A network with the same parameters whose cells run the composed step."""
    twin = type(net)(net.input_size, net.hidden_size, net.num_layers, net.direction,
                     **({'proj_size': net.proj_size} if net.proj_size else {}))
    twin.to(dtype='float64')
    twin.set_state_dict(net.state_dict())
    composed = _ComposedLSTMCell if isinstance(net, nn.LSTM) else _ComposedGRUCell
    for layer in range(twin.num_layers):
        for cell in twin._cells(layer):
            cell.__class__ = composed
    return twin


def _run_and_grads(net, x, init, lengths, create_graph=False):
    y, st = net(x, init, sequence_length=lengths)
    h = st[0] if isinstance(st, tuple) else st
    loss = (y * y).sum() + (h * paddle.tanh(h)).sum()
    if isinstance(st, tuple):
        loss = loss + (st[1] * st[1]).sum()
    leaves = [x] + (list(init) if isinstance(init, tuple) else [init]) + net.parameters()
    return y, st, paddle.grad(loss, leaves, create_graph=create_graph)


@pytest.mark.parametrize('mode,kwargs', [('lstm', {}), ('lstm', {'proj_size': 2}),
                                         ('gru', {})])
@pytest.mark.parametrize('with_lengths', [False, True])
def test_fused_cells_equal_the_composed_ops_values_and_gradients(mode, kwargs, with_lengths):
    net = _net(mode, 3, 4, num_layers=2, direction='bidirect', **kwargs)
    net.to(dtype='float64')
    twin = _composed_twin(net)
    for layer in range(2):
        assert type(twin._cells(layer)[0]).forward is not type(net._cells(layer)[0]).forward
    x = _t(_arr(3, 5, 3), grad=True)
    init = _init(mode, net, 3)
    init = tuple(_t(a, grad=True) for a in init) if mode == 'lstm' else _t(init, grad=True)
    lengths = _t([5, 2, 4]) if with_lengths else None
    y, st, grads = _run_and_grads(net, x, init, lengths)
    ty, tst, tgrads = _run_and_grads(twin, x, init, lengths)
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-10, atol=1e-12)
    for a, b in zip(st if mode == 'lstm' else [st], tst if mode == 'lstm' else [tst]):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-12)
    assert len(grads) == len(tgrads)
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_fused_cells_second_derivatives_equal_the_composed_ops(mode):
    net = _net(mode, 2, 3)
    net.to(dtype='float64')
    twin = _composed_twin(net)
    x = _t(_arr(2, 3, 2), grad=True)
    init = _init(mode, net, 2)
    init = tuple(_t(a, grad=True) for a in init) if mode == 'lstm' else _t(init, grad=True)
    results = []
    for n in (net, twin):
        _, _, grads = _run_and_grads(n, x, init, _t([3, 2]), create_graph=True)
        penalty = sum((g * g).sum() for g in grads)
        results.append(paddle.grad(penalty, [x] + n.parameters()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def test_cells_step_through_the_fused_ops():
    from framework.ops import rnn_cells
    calls = []
    ops = (rnn_cells.lstm_cell_op, rnn_cells.gru_cell_op)
    kernels = [op.kernel for op in ops]
    for op, kernel in zip(ops, kernels):
        op.kernel = lambda *a, _k=kernel, _n=op.name: calls.append(_n) or _k(*a)
        op.eager_fn = None          # the eager path may have bound the kernel
    try:
        # an LSTM with proj_size steps through the cell op (nn.LSTM / nn.GRU
        # without it run one sequence op: tests/test_rnn_seq.py)
        nn.LSTM(3, 4, proj_size=2)(paddle.randn([2, 5, 3]))
        nn.GRUCell(3, 4)(paddle.randn([2, 3]))
    finally:
        for op, kernel in zip(ops, kernels):
            op.kernel = kernel
            op.eager_fn = None
    assert calls.count('lstm_cell') == 5 and calls.count('gru_cell') == 1


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_fused_cells_to_static_and_static_mode_match_eager_with_lengths(mode):
    from framework import static
    net = _net(mode, 3, 4, num_layers=2, direction='bidirect')
    x = _arr(3, 5, 3).astype('float32')
    lengths = np.array([5, 2, 4])

    def run(n, xt, lt):
        y, st = n(xt, sequence_length=lt)
        h = st[0] if isinstance(st, tuple) else st
        return y, h

    y, h = run(net, _t(x), _t(lengths))
    (y.sum() + (h * h).sum()).backward()
    eager_grads = [p.grad.numpy().copy() for p in net.parameters()]
    net.clear_gradients()
    ys, hs = paddle.jit.to_static(lambda a, b: run(net, a, b))(_t(x), _t(lengths))
    np.testing.assert_allclose(ys.numpy(), y.numpy(), rtol=1e-6, atol=1e-7)
    (ys.sum() + (hs * hs).sum()).backward()
    for p, g in zip(net.parameters(), eager_grads):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-5, atol=1e-6)
    values = {k: v.numpy() for k, v in net.state_dict().items()}
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data('x', [None, 5, 3], 'float32')
            lv = static.data('len', [None], 'int64')
            snet = _net(mode, 3, 4, num_layers=2, direction='bidirect')
            yv, hv = run(snet, xv, lv)
            grads = static.gradients([yv.sum() + (hv * hv).sum()], [xv])
        # one sequence op per layer and direction (tests/test_rnn_seq.py)
        assert sum(op.type == mode + '_seq' for op in main.global_block().ops) == 4
        exe = static.Executor()
        exe.run(startup)
        snet.set_state_dict(values)
        got_y, got_gx = exe.run(main, feed={'x': x, 'len': lengths}, fetch_list=[yv, grads[0]])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got_y, y.numpy(), rtol=1e-6, atol=1e-7)
    xe = _t(x, grad=True)
    ye, he = run(net, xe, _t(lengths))
    gx, = paddle.grad(ye.sum() + (he * he).sum(), [xe])
    np.testing.assert_allclose(got_gx, gx.numpy(), rtol=1e-5, atol=1e-6)


def test_fused_cell_ops_name_bad_shapes():
    from framework.ops import rnn_cells
    with pytest.raises(ValueError, match=r'lstm_cell: x must have shape \[batch_size, 4'):
        rnn_cells.lstm_cell_op(paddle.zeros([2, 7]), paddle.zeros([2, 2]), paddle.zeros([2, 2]),
                               paddle.zeros([8, 2]), None)
    with pytest.raises(ValueError, match='gru_cell: weight_hh'):
        rnn_cells.gru_cell_op(paddle.zeros([2, 6]), paddle.zeros([2, 2]), paddle.zeros([5, 2]),
                              None)
    with pytest.raises(ValueError, match='lstm_cell.*dtype'):
        rnn_cells.lstm_cell_op(paddle.zeros([2, 8]), paddle.zeros([2, 2], 'float64'),
                               paddle.zeros([2, 2]), paddle.zeros([8, 2]), None)
