"""nn.LSTM / nn.GRU through the whole-sequence ops (``ops/rnn_seq.py``) against
the per-step path (one fused cell op per step, which the same networks take
when their cells are told not to run sequences): values and gradients
(first and second order) over layers, directions, layouts, sequence lengths,
initial states, dropout, float32/float64 and edge shapes; one op per layer
and direction in eager and static mode; a static graph and a saved model whose
time dimension is unknown."""
import numpy as np
import pytest

import framework as paddle
from framework import nn, static
from framework.ops import rnn_seq

RNG = np.random.default_rng(11)


def _t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def _make(mode, *args, **kwargs):
    return (nn.LSTM if mode == 'lstm' else nn.GRU)(*args, **kwargs)


def _hidden(st):
    """The final hidden state of an LSTM's (h, c) or a GRU's h."""
    return st[0] if isinstance(st, tuple) else st


def _unknown_time_net(mode, time_major=False):
    """Inside a program guard: a 2-layer bidirectional net over data ``x`` of
    unknown batch and time sizes with lengths ``len``: (net, x, y, h)."""
    xv = static.data('x', [None, None, 3], 'float32')
    lv = static.data('len', [None], 'int64')
    snet = _make(mode, 3, 4, 2, 'bidirect', time_major=time_major)
    yv, st = snet(xv, sequence_length=lv)
    return snet, xv, yv, _hidden(st)


def _per_step_twin(net):
    """The same network (same parameters) whose cells take the per-step path."""
    twin = _make('lstm' if isinstance(net, nn.LSTM) else 'gru', net.input_size,
                 net.hidden_size, net.num_layers, net.direction, time_major=net.time_major,
                 dropout=net.dropout)
    twin.to(dtype=str(net.weight_ih_l0.dtype).replace('paddle.', ''))
    twin.set_state_dict(net.state_dict())
    for layer in range(twin.num_layers):
        for cell in twin._cells(layer):
            cell._runs_sequences = lambda: False
    return twin


def _states(mode, net, batch, dtype):
    n = net.num_layers * net.num_directions
    shape = (n, batch, net.hidden_size)
    if mode == 'lstm':
        return tuple(_t(RNG.uniform(-1, 1, shape).astype(dtype), grad=True) for _ in range(2))
    return _t(RNG.uniform(-1, 1, shape).astype(dtype), grad=True)


def _loss_and_grads(net, x, init, lengths, create_graph=False):
    y, st = net(x, init, sequence_length=lengths)
    h = _hidden(st)
    loss = (y * y).sum() + (h * paddle.tanh(h)).sum()
    if isinstance(st, tuple):
        loss = loss + (st[1] * st[1] * st[1]).sum()
    leaves = [x] + ([] if init is None else list(init) if isinstance(init, tuple)
                    else [init]) + net.parameters()
    return [y] + (list(st) if isinstance(st, tuple) else [st]), paddle.grad(
        loss, leaves, create_graph=create_graph)


CONFIGS = [
    # mode, batch, steps, layers, direction, time_major, lengths, with initial states
    ('lstm', 3, 5, 1, 'forward', False, None, False),
    ('gru', 3, 5, 1, 'forward', False, None, True),
    ('lstm', 3, 5, 2, 'bidirect', False, [5, 2, 4], True),
    ('gru', 3, 5, 2, 'bidirect', True, [1, 5, 3], False),
    ('lstm', 2, 4, 1, 'bidirect', True, [4, 4], True),
    ('gru', 1, 1, 1, 'forward', False, None, True),
    ('lstm', 1, 3, 2, 'forward', False, [2], False),
]


@pytest.mark.parametrize('dtype', ['float64', 'float32'])
@pytest.mark.parametrize('config', CONFIGS, ids=lambda c: '-'.join(map(str, c[:6])))
def test_sequence_ops_equal_the_per_step_path(config, dtype):
    mode, batch, steps, layers, direction, time_major, lengths, with_init = config
    paddle.seed(1)
    net = _make(mode, 3, 4, layers, direction, time_major=time_major)
    net.to(dtype=dtype)
    twin = _per_step_twin(net)
    shape = (steps, batch, 3) if time_major else (batch, steps, 3)
    x = _t(RNG.uniform(-1, 1, shape).astype(dtype), grad=True)
    init = _states(mode, net, batch, dtype) if with_init else None
    lens = None if lengths is None else _t(lengths)
    outs, grads = _loss_and_grads(net, x, init, lens)
    touts, tgrads = _loss_and_grads(twin, x, init, lens)
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == 'float64' else dict(rtol=2e-5, atol=2e-6)
    for a, b in zip(outs + list(grads), touts + list(tgrads)):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_second_derivatives_equal_the_per_step_path(mode):
    paddle.seed(2)
    net = _make(mode, 2, 3, 2, 'bidirect')
    net.to(dtype='float64')
    twin = _per_step_twin(net)
    x = _t(RNG.uniform(-1, 1, (2, 4, 2)), grad=True)
    init = _states(mode, net, 2, 'float64')
    results = []
    for n in (net, twin):
        _, grads = _loss_and_grads(n, x, init, _t([4, 2]), create_graph=True)
        penalty = sum((g * g).sum() for g in grads)
        results.append(paddle.grad(penalty, [x] + n.parameters()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_dropout_between_layers_and_non_contiguous_inputs(mode):
    paddle.seed(3)
    net = _make(mode, 3, 4, 3, 'bidirect', dropout=0.4)
    net.to(dtype='float64')
    twin = _per_step_twin(net)
    big = RNG.uniform(-1, 1, (6, 5, 3))
    results = []
    for n in (net, twin):
        x = _t(big, grad=True)
        paddle.seed(9)                          # the same dropout masks on both paths
        y, _ = n(x[::2])                        # a strided view of the input
        (y * y).sum().backward()
        results.append((y.numpy(), x.grad.numpy(), [p.grad.numpy() for p in n.parameters()]))
    (y1, gx1, gp1), (y2, gx2, gp2) = results
    np.testing.assert_allclose(y1, y2, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gx1, gx2, rtol=1e-10, atol=1e-12)
    for a, b in zip(gp1, gp2):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_zero_size_batch():
    for mode in ('lstm', 'gru'):
        net = _make(mode, 3, 4, 2, 'bidirect')
        x = _t(np.zeros((0, 5, 3), 'float32'), grad=True)
        y, st = net(x)
        h = _hidden(st)
        assert y.shape == [0, 5, 8] and h.shape == [4, 0, 4]
        (y.sum() + h.sum()).backward()
        assert x.grad.shape == [0, 5, 3]
        assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())


def _count_kernel_calls(fn):
    from framework.ops import rnn_cells
    ops = (rnn_seq.lstm_seq_op, rnn_seq.gru_seq_op, rnn_cells.lstm_cell_op,
           rnn_cells.gru_cell_op)
    calls = []
    kernels = [op.kernel for op in ops]
    for op, kernel in zip(ops, kernels):
        op.kernel = lambda *a, _k=kernel, _n=op.name: calls.append(_n) or _k(*a)
        op.eager_fn = None
    try:
        fn()
    finally:
        for op, kernel in zip(ops, kernels):
            op.kernel = kernel
            op.eager_fn = None
    return calls


def test_one_op_per_layer_and_direction():
    calls = _count_kernel_calls(lambda: (
        nn.LSTM(3, 4, 2, 'bidirect')(paddle.randn([2, 5, 3]), sequence_length=_t([5, 3])),
        nn.GRU(3, 4, 3)(paddle.randn([2, 5, 3])),
        nn.RNN(nn.LSTMCell(3, 4))(paddle.randn([2, 5, 3]))))
    assert calls == ['lstm_seq'] * 4 + ['gru_seq'] * 3 + ['lstm_seq']
    # RNN with sequence_length returns the cell's outputs at padded steps
    # (not zeros), which the sequence ops do not compute: it steps
    calls = _count_kernel_calls(
        lambda: nn.RNN(nn.GRUCell(3, 4))(paddle.randn([2, 5, 3]), sequence_length=_t([5, 3])))
    assert calls == ['gru_cell'] * 5
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            nn.LSTM(3, 4, 2, 'bidirect')(static.data('x', [None, 5, 3], 'float32'))
        types = [op.type for op in main.global_block().ops]
        assert types.count('lstm_seq') == 4 and 'lstm_cell' not in types
    finally:
        paddle.disable_static()


@pytest.mark.parametrize('mode,time_major', [('lstm', False), ('gru', True)])
def test_static_program_with_unknown_time_dimension(mode, time_major):
    paddle.seed(4)
    net = _make(mode, 3, 4, 2, 'bidirect', time_major=time_major)
    values = {k: v.numpy() for k, v in net.state_dict().items()}
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            snet, _, yv, hv = _unknown_time_net(mode, time_major)
        exe = static.Executor()
        exe.run(startup)
        snet.set_state_dict(values)
        runs = []
        for steps, batch in ((4, 2), (7, 3)):
            shape = (steps, batch, 3) if time_major else (batch, steps, 3)
            x = RNG.uniform(-1, 1, shape).astype('float32')
            lengths = np.array([steps, 1, 3][:batch])
            runs.append((x, lengths, exe.run(main, feed={'x': x, 'len': lengths},
                                             fetch_list=[yv, hv])))
    finally:
        paddle.disable_static()
    for x, lengths, (got_y, got_h) in runs:
        y, st = net(_t(x), sequence_length=_t(lengths))
        h = _hidden(st)
        np.testing.assert_allclose(got_y, y.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_h, h.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_static_gradients_with_unknown_time_dimension(mode):
    """Without a known number of steps the grad rule cannot replay the steps;
    the backward is then one *_seq_grad op running the fused backward."""
    paddle.seed(7)
    net = _make(mode, 3, 4, 2, 'bidirect')
    values = {k: v.numpy() for k, v in net.state_dict().items()}
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            snet, xv, yv, hv = _unknown_time_net(mode)
            loss = (yv * yv).sum() + (hv * paddle.tanh(hv)).sum()
            params = snet.parameters()
            grads = static.gradients([loss], [xv] + params)
        types = [op.type for op in main.global_block().ops]
        assert types.count(mode + '_seq_grad') == 4 and mode + '_cell' not in types
        exe = static.Executor()
        exe.run(startup)
        snet.set_state_dict(values)
        x = RNG.uniform(-1, 1, (3, 6, 3)).astype('float32')
        lengths = np.array([6, 2, 4])
        got = exe.run(main, feed={'x': x, 'len': lengths}, fetch_list=grads)
    finally:
        paddle.disable_static()
    xe = _t(x, grad=True)
    y, st = net(xe, sequence_length=_t(lengths))
    h = _hidden(st)
    want = paddle.grad((y * y).sum() + (h * paddle.tanh(h)).sum(), [xe] + net.parameters())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_second_derivatives_with_unknown_time_dimension_raise(mode):
    """The *_seq_grad ops have no gradient: asking for one is a clear error,
    not a silently missing term."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data('x', [None, None, 3], 'float32')
            xv.stop_gradient = False
            yv, _ = _make(mode, 3, 4, 1, 'forward')(xv)
            (gx,) = static.gradients([(yv * yv).sum()], [xv])
            with pytest.raises(ValueError, match='known number of time steps'):
                static.gradients([(gx * gx).sum()], [xv])
    finally:
        paddle.disable_static()


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_jit_save_load_with_unknown_time_dimension(mode, tmp_path):
    paddle.seed(5)
    net = _make(mode, 3, 4, 2, 'bidirect')
    net.eval()
    path = str(tmp_path / 'rnn')
    paddle.jit.save(net, path, input_spec=[static.InputSpec([None, None, 3], 'float32')])
    loaded = paddle.jit.load(path)
    for steps in (2, 6):
        x = _t(RNG.uniform(-1, 1, (3, steps, 3)).astype('float32'))
        got = loaded(x)
        want = net(x)
        got_y = got[0] if isinstance(got, (list, tuple)) else got
        np.testing.assert_allclose(got_y.numpy(), want[0].numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_to_static_matches_eager_on_two_sequence_lengths(mode):
    paddle.seed(6)
    net = _make(mode, 3, 4, 2, 'bidirect')

    def run(x, lengths):
        y, st = net(x, sequence_length=lengths)
        return y, _hidden(st)
    fn = paddle.jit.to_static(run)
    for steps in (3, 6):
        x = RNG.uniform(-1, 1, (2, steps, 3)).astype('float32')
        lengths = _t([steps, 2])
        ye, he = run(_t(x), lengths)
        (ye.sum() + (he * he).sum()).backward()
        want = [p.grad.numpy().copy() for p in net.parameters()]
        net.clear_gradients()
        ys, hs = fn(_t(x), lengths)
        np.testing.assert_allclose(ys.numpy(), ye.numpy(), rtol=1e-5, atol=1e-6)
        (ys.sum() + (hs * hs).sum()).backward()
        for p, g in zip(net.parameters(), want):
            np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-5, atol=1e-6)
        net.clear_gradients()


def test_ops_name_bad_arguments():
    x, w = paddle.zeros([5, 2, 3]), paddle.zeros([16, 3])
    whh, b, h = paddle.zeros([16, 4]), paddle.zeros([16]), paddle.zeros([2, 4])
    with pytest.raises(ValueError, match=r'lstm_seq: weight_ih must have shape \[4 \* hidden'):
        rnn_seq.lstm_seq_op(x, paddle.zeros([12, 3]), whh, b, b, h, h, None)
    with pytest.raises(ValueError, match='lstm_seq: x must be 3-D'):
        rnn_seq.lstm_seq_op(paddle.zeros([5, 3]), w, whh, b, b, h, h, None)
    with pytest.raises(ValueError, match='gru_seq: sequence_length must be integers'):
        rnn_seq.gru_seq_op(x, paddle.zeros([12, 3]), paddle.zeros([12, 4]), paddle.zeros([12]),
                           paddle.zeros([12]), h, paddle.zeros([2]))
    with pytest.raises(ValueError, match='lstm_seq.*dtype'):
        rnn_seq.lstm_seq_op(x, w, whh, b, b, paddle.zeros([2, 4], 'float64'), h, None)


@pytest.mark.parametrize('mode', ['lstm', 'gru'])
def test_float32_is_as_accurate_as_the_per_step_path(mode):
    """Against float64 runs, the float32 sequence op's outputs and gradients
    are on average no further off than the float32 per-step path's (relative
    RMS errors, averaged over everything a step computes and over seeds)."""
    errors = np.zeros(2)
    for seed in range(3):
        paddle.seed(seed)
        net64 = _make(mode, 8, 16, 2, 'bidirect')
        net64.to(dtype='float64')
        x = np.random.default_rng(seed).uniform(-1, 1, (4, 12, 8))
        lengths = _t([12, 5, 9, 1])
        outs, grads = _loss_and_grads(net64, _t(x, grad=True), None, lengths)
        want = outs + list(grads)
        for k, per_step in enumerate((False, True)):
            net = _make(mode, 8, 16, 2, 'bidirect')
            net.set_state_dict({key: v.numpy().astype('float32')
                                for key, v in net64.state_dict().items()})
            if per_step:
                net = _per_step_twin(net)
            outs, grads = _loss_and_grads(net, _t(x.astype('float32'), grad=True), None,
                                          lengths)
            errors[k] += np.mean([np.sqrt(np.mean((g.numpy() - w.numpy()) ** 2)
                                          / np.mean(w.numpy() ** 2))
                                  for g, w in zip(outs + list(grads), want)])
    assert errors[0] <= 1.05 * errors[1], errors


def test_cells_that_redefine_their_step_run_step_by_step():
    class ScaledGRUCell(nn.GRUCell):
        def _step(self, xw, h):
            h, _ = super()._step(xw, h)
            return h * 0.5, h * 0.5
    paddle.seed(12)
    cell = ScaledGRUCell(3, 4)
    x = paddle.randn([2, 5, 3])
    calls = _count_kernel_calls(lambda: nn.RNN(cell)(x))
    assert calls == ['gru_cell'] * 5
    y, h = nn.RNN(cell)(x)
    np.testing.assert_allclose(y.numpy()[:, -1], h.numpy(), rtol=1e-6)
    h0 = paddle.zeros([2, 4])
    y1, _ = cell(x[:, 0], h0)
    np.testing.assert_allclose(y.numpy()[:, 0], y1.numpy(), rtol=1e-6)
