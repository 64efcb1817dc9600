"""The LSTM and the GRU on oneDNN (``backends/onednn/rnn.py`` behind
``lstm_seq``'s and ``gru_seq``'s onednn kernels): nn.LSTM's and nn.GRU's
values and gradients against the numpy kernels over layouts, directions and
layers; the reserve says which kernel wrote it, and that kernel's backward
reads it whichever backend is active then; what the kernels leave to numpy."""
import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.backends import onednn
from framework.ops import backends, registry, rnn_seq

pytestmark = pytest.mark.skipif(not onednn.available(), reason="oneDNN did not load: %s"
                                % onednn.why_unavailable())


def _train_step(layer, backend, time_major, direction, layers, seed=3):
    """Loss, parameter grads and the input grad of one nn.LSTM / nn.GRU step."""
    rng = np.random.default_rng(seed)
    shape = (6, 4, 5) if time_major else (4, 6, 5)
    x = paddle.to_tensor(rng.uniform(-1, 1, shape).astype(np.float32), stop_gradient=False)
    paddle.seed(seed)
    net = layer(5, 7, layers, direction, time_major=time_major)
    with backends.using(backend):
        y, states = net(x)
        h = states[0] if layer is nn.LSTM else states
        last = (h * states[1]).sum() if layer is nn.LSTM else (h * h * h).sum()
        loss = (y * y).sum() + last
        loss.backward()
    grads = {n: p.grad.numpy() for n, p in net.named_parameters()}
    return float(loss), grads, x.grad.numpy()


@pytest.mark.parametrize('layer', [nn.LSTM, nn.GRU])
@pytest.mark.parametrize('time_major,direction,layers', [
    (False, 'forward', 1), (True, 'forward', 2), (False, 'bidirect', 2), (True, 'bidirect', 1)])
def test_training_step_agrees_with_numpy(layer, time_major, direction, layers):
    loss, grads, gx = _train_step(layer, 'onednn', time_major, direction, layers)
    ref_loss, ref_grads, ref_gx = _train_step(layer, 'numpy', time_major, direction, layers)
    assert abs(loss - ref_loss) <= 1e-5 * max(1.0, abs(ref_loss))
    np.testing.assert_allclose(gx, ref_gx, rtol=1e-4, atol=1e-5)
    assert grads.keys() == ref_grads.keys()
    for name in grads:
        np.testing.assert_allclose(grads[name], ref_grads[name], rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def _call(op, rng, reverse=False, lengths=None):
    """Float32 arguments of an ``op`` call: [5 steps, batch 3, 4 -> 2]."""
    f = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)  # noqa: E731
    g = 4 if op == 'lstm_seq' else 3
    states = (f(3, 2), f(3, 2)) if op == 'lstm_seq' else (f(3, 2),)
    return (f(5, 3, 4), f(g * 2, 4), f(g * 2, 2), f(g * 2), f(g * 2)) + states + \
        (lengths, reverse, True)


def _n_inputs(op):
    return 7 if op == 'lstm_seq' else 6


SEQ_OPS = ['lstm_seq', 'gru_seq']


@pytest.mark.parametrize('name', SEQ_OPS)
def test_the_reserve_says_which_kernel_wrote_it(name):
    op = registry.lookup(name)
    args = _call(name, np.random.default_rng(0))
    dnnl = op.kernels['onednn'](*args)[-1]
    numpy_made = op.kernels['numpy'](*args)[-1]
    assert dnnl[-1] == rnn_seq.RESERVE_ONEDNN and numpy_made[-1] == rnn_seq.RESERVE_NUMPY
    assert dnnl.ctypes.data % 64 == 0         # oneDNN's workspace starts on a cache line
    # sequence lengths are numpy's alone
    lengths = np.array([5, 2, 4])
    assert op.kernels['onednn'](*_call(name, np.random.default_rng(0), lengths=lengths)) \
        is NotImplemented


@pytest.mark.parametrize('name', SEQ_OPS)
@pytest.mark.parametrize('forward_on,backward_on', [('onednn', 'numpy'), ('numpy', 'onednn')])
def test_the_backward_is_the_one_of_the_kernel_that_ran_the_forward(name, forward_on,
                                                                     backward_on):
    op = registry.lookup(name)
    args = _call(name, np.random.default_rng(1), reverse=True)
    k = _n_inputs(name)
    grads = {}
    for fwd, bwd in ((forward_on, backward_on), (forward_on, forward_on)):
        ins = [paddle.to_tensor(a, stop_gradient=False) for a in args[:k]]
        with backends.using(fwd):
            outs = op(*ins, *args[k:])
        with backends.using(bwd):
            ((outs[0] * outs[0]).sum() + outs[-2].sum()).backward()
        grads[bwd] = [t.grad.numpy() for t in ins]
    for a, b in zip(grads[backward_on], grads[forward_on]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('name,widths', [('lstm_seq', (8, 2, 2, 2)), ('gru_seq', (6, 6, 2))])
def test_a_reserve_of_another_shape_is_refused_with_the_op_named(name, widths):
    reserve = rnn_seq.pack_reserve(name, *(np.zeros((2, 3, k)) for k in widths))
    assert rnn_seq._reserve_views(name, reserve, 2, 3, 2)[0].shape == (2, 3, widths[0])
    with pytest.raises(ValueError, match=name + ': the reserve'):
        rnn_seq._reserve_views(name, reserve, 2, 3, 4)


def _backward(name, args, outs, reserve, gy):
    k = _n_inputs(name)
    if name == 'lstm_seq':
        return rnn_seq._lstm_backward((True,) * 3, gy, None, None, *args[:k + 1], *outs,
                                      reserve, *args[k + 1:])
    return rnn_seq._gru_backward((True,) * 3, gy, None, *args[:k + 1], *outs, reserve,
                                 *args[k + 1:])


@pytest.mark.parametrize('name', SEQ_OPS)
def test_an_unaligned_copy_of_the_workspace_still_runs_the_backward(name):
    # (a static plan or a user may copy the reserve: oneDNN reads it anywhere)
    op = registry.lookup(name)
    args = _call(name, np.random.default_rng(2))
    *outs, reserve = op.kernels['onednn'](*args)
    shifted = np.empty(reserve.size + 1, np.float32)[1:]
    shifted[...] = reserve
    assert shifted.ctypes.data % 64
    gy = np.ones_like(outs[0])
    want = _backward(name, args, outs, reserve, gy)
    got = _backward(name, args, outs, shifted, gy)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_gru_gates_map_onto_onednn_order_and_back():
    # (z, r, c) rows -> oneDNN's (u = z, r, o = c); the bias keeps b_hc apart (u')
    n = 2
    w = np.arange(6 * 3).reshape(6, 3)
    mapped = rnn_seq._gru_onednn_order(w, n)
    np.testing.assert_array_equal(mapped[:n], w[n:2 * n])
    np.testing.assert_array_equal(mapped[n:2 * n], w[:n])
    np.testing.assert_array_equal(mapped[2 * n:], w[2 * n:])
    np.testing.assert_array_equal(rnn_seq._gru_onednn_order(mapped, n), w)
    b_ih, b_hh = np.arange(6.0), 10 * np.arange(6.0)
    np.testing.assert_array_equal(rnn_seq._gru_onednn_bias(b_ih, b_hh, n),
                                  [22, 33, 0, 11, 4, 5, 40, 50])


def test_reserve_outputs_must_be_nondiff():
    with pytest.raises(ValueError, match='reserve_outputs must be nondiff_outputs: r'):
        registry.OpDef('example_reserve', lambda x: (x, x), None, ['x'], ['out', 'r'], {},
                       reserve_outputs=('r',), pattern='opaque')


@pytest.mark.parametrize('name', SEQ_OPS)
def test_missing_state_gradients_count_as_zeros_on_both_backends(name):
    # (a loss of y alone: the final states get no gradient)
    op = registry.lookup(name)
    args = _call(name, np.random.default_rng(4))
    got = {}
    for backend in ('onednn', 'numpy'):
        *outs, reserve = op.kernels[backend](*args)
        got[backend] = _backward(name, args, outs, reserve, np.ones_like(outs[0]))
    for a, b in zip(got['onednn'], got['numpy']):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize('name', SEQ_OPS)
@pytest.mark.parametrize('bad', ['batch', 'state'])
def test_mismatched_shapes_get_the_numpy_kernels_clear_error(name, bad):
    args = list(_call(name, np.random.default_rng(5)))
    k = _n_inputs(name)
    if bad == 'batch':                   # h0 for a batch of 2, x has 3
        args[5] = args[5][:2]
    elif name == 'lstm_seq':             # c0 of another shape than h0
        args[6] = args[6][:2]
    else:
        args[5] = args[5][:, :1]         # a hidden size the weights do not have
    ins = [paddle.to_tensor(a) for a in args[:k]]
    with backends.using('onednn'), pytest.raises(ValueError, match=name + ': '):
        registry.lookup(name)(*ins, *args[k:])
