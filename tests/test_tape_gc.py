"""The eager tape has no reference cycles: reference counting alone frees it,
so the cyclic garbage collector never has to (it is disabled in these tests)."""
import gc
import weakref

import numpy as np
import pytest

import framework as paddle
from framework.dygraph import autograd


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


def _fields(node):
    return {k: getattr(node, k) for k in autograd.GradNode.__slots__
            if k not in ('seq', '__dict__', '__weakref__')}


def test_inlined_one_output_node_matches_grad_node_init():
    """The tracer builds one-output nodes inline (a frame less per op); they
    must hold what ``GradNode.__init__`` would."""
    x = paddle.to_tensor(np.random.rand(3), stop_gradient=False)
    for y in (x * 1.5, x.tanh(), paddle.sum(x, axis=0), x + x):
        node = y.grad_fn
        ref = autograd.GradNode(node.op, node.ins, node.attrs, node.outs, node.edges,
                                node.versions)
        ref.out_refs = node.out_refs
        assert _fields(node) == _fields(ref)
        assert node.hooks is None and node.packed is None and not node.__dict__


def test_tape_objects_per_op_stay_few(no_cyclic_gc):
    """Each recorded one-output op leaves its Tensor, its node and its input
    tuple for the collector, and nothing more: no weakref to the output
    (backward learns it, ``autograd.learn_output``). The tape's cost in a
    process with many live objects grows with this count."""
    x0 = paddle.to_tensor(np.random.rand(16).astype('float32'), stop_gradient=False)

    def chain(n):
        x = x0
        for _ in range(n):
            x = (x * 1.01 + 0.1).tanh()
        return x
    def weakrefs():
        return sum(type(o) is weakref.ref for o in gc.get_objects())
    chain(3)
    gc.collect()
    before, refs = len(gc.get_objects()), weakrefs()
    keep = chain(100)
    assert weakrefs() - refs <= 1
    per_op = (len(gc.get_objects()) - before) / 300
    assert per_op <= 4.05, per_op   # + the outs tuple, untracked at the next gc
    gc.collect()                 # (the tape has no cycles: nothing is collected)
    per_op = (len(gc.get_objects()) - before) / 300
    assert per_op <= 3.05, per_op
    del keep


def test_multi_output_nodes_keep_no_weakrefs_until_backward(no_cyclic_gc):
    x = paddle.to_tensor(np.random.rand(8), stop_gradient=False)
    before = sum(type(o) is weakref.ref for o in gc.get_objects())
    parts = [paddle.split(x * 1.0, 4) for _ in range(50)]
    assert sum(type(o) is weakref.ref for o in gc.get_objects()) - before <= 1
    sum(p[1].sum() for p in parts).backward()
    np.testing.assert_allclose(parts[0][1].grad.numpy(), np.ones(2))
    assert parts[0][0].grad is None


def test_backward_frees_the_tape_as_it_goes():
    """Without retain_graph a node drops its edges once it has run, so the
    nodes behind it are freed during backward (not when the loss dies)."""
    x = paddle.to_tensor(np.random.rand(4), stop_gradient=False)
    h = x.tanh()
    inner = weakref.ref(h.grad_fn)
    loss = (h * 2.0).sum()
    del h
    loss.backward()
    assert inner() is None and loss.grad_fn is not None
    with pytest.raises(RuntimeError, match='second time'):
        loss.backward()


def test_nodes_keep_their_edges_when_an_input_moves_later():
    """Hot-path nodes read their edges off the inputs in backward; an input
    that moved in the graph after the node was made (in-place op, detach_)
    still sends the node's gradient where it went at the time."""
    a = np.random.rand(3)
    x = paddle.to_tensor(a, stop_gradient=False)
    h = x * 2.0                         # h = 2x
    s = h + 1.0                         # add saves no inputs: no version check
    h.exp_()                            # h moves to the exp node
    t = h + 0.0                         # made after the move: goes through exp
    (s.sum() + t.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 + 2.0 * np.exp(2.0 * a), rtol=1e-12)

    x = paddle.to_tensor(a, stop_gradient=False)
    h = x.tanh()
    s = h + h                           # two uses of h before the move
    h.detach_()
    s.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 * (1 - np.tanh(a) ** 2), rtol=1e-12)
    assert h.grad is None               # h is a leaf now: nothing reached it

    x = paddle.to_tensor(a, stop_gradient=False)
    h = x * 3.0
    s = h + 0.0
    h.scale_(2.0)                       # moves h twice
    h.add_(paddle.ones([3]))
    u = h + 0.0
    (s.sum() + u.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(3, 3.0 + 6.0), rtol=1e-12)


def test_derived_edges_follow_stop_gradient_as_it_was():
    """An input's stop_gradient is read when the op runs, as before."""
    w = paddle.to_tensor(np.ones(3), stop_gradient=True)
    x = paddle.to_tensor(np.ones(3), stop_gradient=False)
    y = x * w
    w.stop_gradient = False             # too late for y
    y.sum().backward()
    assert w.grad is None and x.grad is not None
