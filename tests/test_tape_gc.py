"""The eager tape has no reference cycles: reference counting alone frees it,
so the cyclic garbage collector never has to (it is disabled in these tests)."""
import gc
import weakref

import numpy as np
import pytest

import framework as paddle


@pytest.fixture
def no_cyclic_gc():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _graph(x, w):
    h = paddle.matmul(x, w).tanh()
    a, b = paddle.split(h, 2, axis=1)          # a multi-output node
    y = a * 1.5 + b.sigmoid()
    y.register_hook(lambda g: g * 2)            # a hook on a non-leaf
    z = y.exp()
    z.scale_(0.5)                               # an in-place op on a non-leaf
    return z.sum(), y


@pytest.mark.parametrize('retain_graph', [False, True])
def test_backward_leaves_nothing_for_the_cyclic_collector(no_cyclic_gc, retain_graph):
    x = paddle.to_tensor(np.random.rand(3, 4), stop_gradient=False)
    w = paddle.to_tensor(np.random.rand(4, 6), stop_gradient=False)
    loss, y = _graph(x, w)
    node = weakref.ref(loss.grad_fn)
    inner = weakref.ref(y.grad_fn)
    loss.backward(retain_graph=retain_graph)
    assert x.grad is not None and y.grad is not None
    del loss, y
    assert node() is None and inner() is None
    assert gc.collect() == 0


def test_tape_dropped_without_backward_is_freed(no_cyclic_gc):
    x = paddle.to_tensor(np.random.rand(3, 4), stop_gradient=False)
    w = paddle.to_tensor(np.random.rand(4, 6), stop_gradient=False)
    loss, y = _graph(x, w)
    node = weakref.ref(loss.grad_fn)
    del loss, y
    assert node() is None
    assert gc.collect() == 0


def test_double_backward_graph_is_freed(no_cyclic_gc):
    x = paddle.to_tensor(np.random.rand(5), stop_gradient=False)
    y = (x * x * x).sum()
    (g,) = paddle.grad(y, x, create_graph=True)
    node = weakref.ref(g.grad_fn)
    g.sum().backward()
    got = x.grad.numpy()
    del y, g
    assert node() is None
    assert gc.collect() == 0
    np.testing.assert_allclose(got, 6 * x.numpy())   # (numpy's checker makes cycles)
