"""paddle.autograd.saved_tensors_hooks, Function, backward(dump_backward_graph_path),
and incubate.autograd's primitive-op switch."""
import numpy as np
import pytest

import framework as paddle


def _pair():
    a = paddle.to_tensor(np.arange(6, dtype='float32').reshape(2, 3), stop_gradient=False)
    b = paddle.to_tensor(np.full((2, 3), 2.0, 'float32'), stop_gradient=False)
    return a, b


def test_saved_tensors_hooks_pack_and_unpack_the_saved_inputs():
    a, b = _pair()
    events = []

    def pack(t):
        events.append(('pack', tuple(t.shape)))
        return t.numpy() * 1.0          # stored as numpy: backward only sees this copy

    def unpack(v):
        events.append(('unpack', v.shape))
        return paddle.to_tensor(v)
    with paddle.autograd.saved_tensors_hooks(pack, unpack):
        y = paddle.multiply(a, b)
    z = paddle.exp(y)                   # outside the region: not packed
    assert [e[0] for e in events] == ['pack', 'pack']
    z.sum().backward()
    assert [e[0] for e in events] == ['pack', 'pack', 'unpack', 'unpack']
    ya = np.arange(6, dtype='float32').reshape(2, 3)
    np.testing.assert_allclose(a.grad.numpy(), np.exp(ya * 2) * 2, rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), np.exp(ya * 2) * ya, rtol=1e-6)


def test_unpacked_values_are_what_backward_uses():
    a, b = _pair()
    with paddle.autograd.saved_tensors_hooks(lambda t: t.numpy(),
                                             lambda v: paddle.to_tensor(v * 0 + 5.0)):
        y = a * b
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.full((2, 3), 5.0))   # d(ab)/da = b := 5


def test_saved_tensors_hooks_reach_pylayer_save_for_backward():
    class Mul(paddle.autograd.Function):      # Function is PyLayer
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx, dz):
            x, y = ctx.saved_tensor()
            return dz * y, dz * x
    assert paddle.autograd.Function is paddle.autograd.PyLayer
    a, b = _pair()
    calls = []
    with paddle.autograd.saved_tensors_hooks(lambda t: calls.append('p') or t.numpy(),
                                             lambda v: calls.append('u') or paddle.to_tensor(v)):
        z = Mul.apply(a, b)
    z.sum().backward()
    assert calls == ['p', 'p', 'u', 'u']
    np.testing.assert_array_equal(a.grad.numpy(), b.numpy())


def test_saved_tensors_hooks_checks():
    with pytest.raises(TypeError):
        paddle.autograd.saved_tensors_hooks(None, lambda v: v)
    a, b = _pair()
    with paddle.autograd.saved_tensors_hooks(lambda t: t, lambda v: 'not a tensor'):
        y = a * b
    with pytest.raises(TypeError, match='unpack_hook'):
        y.sum().backward()


def test_backward_dumps_the_backward_graph(tmp_path):
    a, b = _pair()
    path = str(tmp_path / 'graph.txt')
    paddle.autograd.backward([(a * b).sum()], dump_backward_graph_path=path)
    text = open(path).read()
    assert 'multiply_grad' in text and 'sum_grad' in text
    np.testing.assert_array_equal(a.grad.numpy(), b.numpy())


def test_prim_switch_is_static_only():
    ia = paddle.incubate.autograd
    with pytest.raises(AssertionError, match='static'):
        ia.enable_prim()
    paddle.enable_static()
    try:
        assert ia.prim_enabled() is False
        ia.enable_prim()
        assert ia.prim_enabled() is True
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data('x', [3], 'float32')
            x.stop_gradient = False
            y = paddle.tanh(x).sum()
            gx = ia.grad(y, x)
            ia.prim2orig()
        exe = paddle.static.Executor()
        value = np.array([0.1, -0.5, 2.0], 'float32')
        g, = exe.run(main, feed={'x': value}, fetch_list=[gx])
        np.testing.assert_allclose(g, 1 - np.tanh(value) ** 2, rtol=1e-6)
        ia.disable_prim()
        assert ia.prim_enabled() is False
    finally:
        paddle.disable_static()
