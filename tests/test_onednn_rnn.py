"""The LSTM on oneDNN (``backends/onednn/rnn.py`` behind ``lstm_seq``'s onednn
kernel): nn.LSTM's values and gradients against the numpy kernels over
layouts, directions and layers; the reserve says which kernel wrote it, and
that kernel's backward reads it whichever backend is active then; what the
kernel leaves to numpy."""
import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.backends import onednn
from framework.ops import backends, registry, rnn_seq

pytestmark = pytest.mark.skipif(not onednn.available(), reason="oneDNN did not load: %s"
                                % onednn.why_unavailable())


def _train_step(backend, time_major, direction, layers, seed=3):
    """Loss, parameter grads and the input grad of one nn.LSTM step."""
    rng = np.random.default_rng(seed)
    shape = (6, 4, 5) if time_major else (4, 6, 5)
    x = paddle.to_tensor(rng.uniform(-1, 1, shape).astype(np.float32), stop_gradient=False)
    paddle.seed(seed)
    net = nn.LSTM(5, 7, layers, direction, time_major=time_major)
    with backends.using(backend):
        y, (h, c) = net(x)
        loss = (y * y).sum() + (h * c).sum()
        loss.backward()
    grads = {n: p.grad.numpy() for n, p in net.named_parameters()}
    return float(loss), grads, x.grad.numpy()


@pytest.mark.parametrize('time_major,direction,layers', [
    (False, 'forward', 1), (True, 'forward', 2), (False, 'bidirect', 2), (True, 'bidirect', 1)])
def test_lstm_training_step_agrees_with_numpy(time_major, direction, layers):
    loss, grads, gx = _train_step('onednn', time_major, direction, layers)
    ref_loss, ref_grads, ref_gx = _train_step('numpy', time_major, direction, layers)
    assert abs(loss - ref_loss) <= 1e-5 * max(1.0, abs(ref_loss))
    np.testing.assert_allclose(gx, ref_gx, rtol=1e-4, atol=1e-5)
    assert grads.keys() == ref_grads.keys()
    for name in grads:
        np.testing.assert_allclose(grads[name], ref_grads[name], rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def _call(rng, reverse=False, lengths=None):
    f = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)  # noqa: E731
    return (f(5, 3, 4), f(8, 4), f(8, 2), f(8), f(8), f(3, 2), f(3, 2), lengths, reverse, True)


def test_the_reserve_says_which_kernel_wrote_it():
    op = registry.lookup('lstm_seq')
    args = _call(np.random.default_rng(0))
    dnnl = op.kernels['onednn'](*args)[3]
    numpy_made = op.kernels['numpy'](*args)[3]
    assert dnnl[-1] == rnn_seq.RESERVE_ONEDNN and numpy_made[-1] == rnn_seq.RESERVE_NUMPY
    assert dnnl.ctypes.data % 64 == 0         # oneDNN's workspace starts on a cache line
    # sequence lengths are numpy's alone
    lengths = np.array([5, 2, 4])
    assert op.kernels['onednn'](*_call(np.random.default_rng(0), lengths=lengths)) \
        is NotImplemented


@pytest.mark.parametrize('forward_on,backward_on', [('onednn', 'numpy'), ('numpy', 'onednn')])
def test_the_backward_is_the_one_of_the_kernel_that_ran_the_forward(forward_on, backward_on):
    args = _call(np.random.default_rng(1), reverse=True)
    grads = {}
    for fwd, bwd in ((forward_on, backward_on), (forward_on, forward_on)):
        ins = [paddle.to_tensor(a, stop_gradient=False) for a in args[:7]]
        with backends.using(fwd):
            y, h, c, _ = rnn_seq.lstm_seq_op(*ins, *args[7:])
        with backends.using(bwd):
            ((y * y).sum() + c.sum()).backward()
        grads[bwd] = [t.grad.numpy() for t in ins]
    for a, b in zip(grads[backward_on], grads[forward_on]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_a_reserve_of_another_shape_is_refused_with_the_op_named():
    reserve = rnn_seq.pack_reserve(*(np.zeros((2, 3, k)) for k in (8, 2, 2, 2)))
    with pytest.raises(ValueError, match='lstm_seq: the reserve'):
        rnn_seq._reserve_views(reserve, 2, 3, 4)


def test_an_unaligned_copy_of_the_workspace_still_runs_the_backward():
    # (a static plan or a user may copy the reserve: oneDNN reads it anywhere)
    op = registry.lookup('lstm_seq')
    args = _call(np.random.default_rng(2))
    y, h, c, reserve = op.kernels['onednn'](*args)
    shifted = np.empty(reserve.size + 1, np.float32)[1:]
    shifted[...] = reserve
    assert shifted.ctypes.data % 64
    gy = np.ones_like(y)
    want = rnn_seq._lstm_backward((True,) * 3, gy, None, None, *args[:8], y, h, c, reserve,
                                  False, True)
    got = rnn_seq._lstm_backward((True,) * 3, gy, None, None, *args[:8], y, h, c, shifted,
                                 False, True)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_reserve_outputs_must_be_nondiff():
    with pytest.raises(ValueError, match='reserve_outputs must be nondiff_outputs: r'):
        registry.OpDef('example_reserve', lambda x: (x, x), None, ['x'], ['out', 'r'], {},
                       reserve_outputs=('r',), pattern='opaque')
