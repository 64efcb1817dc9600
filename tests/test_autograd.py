"""Autograd semantics: accumulation, retain_graph, stop_gradient, non-leaf grads,
hooks, in-place version checks, grad() with create_graph, memory release."""
import gc
import tracemalloc

import numpy as np
import pytest

import framework as paddle


def t(values, stop_gradient=False, dtype='float64'):
    return paddle.to_tensor(np.asarray(values, dtype=dtype), stop_gradient=stop_gradient)


def test_backward_accumulates_into_leaf_grad():
    x = t([1.0, 2.0, 3.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    np.testing.assert_allclose(x.grad.numpy(), [2, 4, 6])
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4, 8, 12])
    assert isinstance(x.grad, paddle.Tensor)
    np.testing.assert_allclose(x.gradient(), [4, 8, 12])


def test_second_backward_through_freed_graph_names_retain_graph():
    x = t([1.0, 2.0])
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match='retain_graph=True'):
        y.backward()


def test_clear_grad_zeroes_the_gradient():
    x = t([1.0, 2.0])
    (x * 3.0).sum().backward()
    x.clear_grad()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0])
    (x * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 3])


def test_stop_gradient_defaults_and_propagation():
    a = paddle.to_tensor([1.0])
    assert a.stop_gradient is True
    p = paddle.Parameter(np.ones(2, 'float32'))
    assert p.stop_gradient is False and p.trainable
    b = a * 2.0
    assert b.stop_gradient is True
    c = p * a
    assert c.stop_gradient is False
    with pytest.raises(RuntimeError, match='stop_gradient'):
        b.sum().backward()
    p.trainable = False
    assert p.stop_gradient is True


def test_stop_gradient_input_gets_no_grad():
    x = t([1.0, 2.0])
    w = t([3.0, 4.0], stop_gradient=True)
    (x * w).sum().backward()
    assert w.grad is None
    np.testing.assert_allclose(x.grad.numpy(), [3, 4])


def test_nonleaf_grad_as_in_the_seed_example():
    a = t([2.0])
    b = t([3.0])
    d = t([4.0])
    c = a * b
    e = c * d
    e.backward()
    np.testing.assert_allclose(c.grad.numpy(), d.numpy())
    np.testing.assert_allclose(a.grad.numpy(), [12.0])
    assert not c.is_leaf and a.is_leaf


def test_gradient_sums_over_shared_uses():
    x = t([1.0, 2.0])
    y = x * x + x * 3.0 + x.tanh()
    y.sum().backward()
    expect = 2 * x.numpy() + 3 + (1 - np.tanh(x.numpy()) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expect)


def test_broadcast_gradient_reduces_to_input_shape():
    x = t(np.ones((3, 1)))
    y = t(np.arange(4.0))
    (x * y).sum().backward()
    assert x.grad.shape == [3, 1] and y.grad.shape == [4]
    np.testing.assert_allclose(x.grad.numpy(), np.full((3, 1), 6.0))
    np.testing.assert_allclose(y.grad.numpy(), np.full(4, 3.0))


def test_leaf_hook_replaces_gradient_and_handle_removes_it():
    x = t([1.0, 2.0])
    h = x.register_hook(lambda g: g * 10)
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [20, 20])
    h.remove()
    x.clear_grad()
    (x * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2, 2])


def test_nonleaf_hook_changes_upstream_gradient():
    x = t([1.0, 2.0])
    y = x * 3.0
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy()) or g * 0.5)
    (y * y).sum().backward()
    np.testing.assert_allclose(seen[0], 2 * 3 * x.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 0.5 * 2 * 9 * x.numpy())


def test_hook_returning_none_keeps_gradient():
    x = t([1.0])
    x.register_hook(lambda g: None)
    (x * 5.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0])


def test_inplace_modification_of_saved_tensor_raises_naming_op():
    x = t([1.0, 2.0], stop_gradient=True)
    w = t([3.0, 4.0])
    y = (x * w).sum()
    x.add_(paddle.to_tensor(np.ones(2)))
    with pytest.raises(RuntimeError, match="multiply"):
        y.backward()


def test_inplace_on_leaf_requiring_grad_is_refused():
    x = t([1.0, 2.0])
    with pytest.raises(RuntimeError, match='in place'):
        x.add_(paddle.to_tensor(np.ones(2)))
    with paddle.no_grad():
        x.add_(paddle.to_tensor(np.ones(2)))
    np.testing.assert_allclose(x.numpy(), [2, 3])


def test_inplace_on_nonleaf_keeps_gradients_correct():
    x = t([1.0, 2.0])
    y = x * 2.0
    v0 = y.inplace_version
    y += 1.0
    assert y.inplace_version == v0 + 1
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 2 * (2 * x.numpy() + 1))


def test_grad_returns_gradients_without_touching_dot_grad():
    x = t([1.0, 2.0])
    y = (x * x * x).sum()
    (g,) = paddle.grad(y, x)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    assert x.grad is None


def test_double_and_triple_grad():
    x = t([1.0, 2.0])
    y = x * x * x
    (g1,) = paddle.grad(y, x, paddle.ones_like(y), create_graph=True)
    assert not g1.stop_gradient
    (g2,) = paddle.grad(g1, x, paddle.ones_like(g1), create_graph=True)
    (g3,) = paddle.grad(g2, x, paddle.ones_like(g2))
    np.testing.assert_allclose(g1.numpy(), 3 * x.numpy() ** 2)
    np.testing.assert_allclose(g2.numpy(), 6 * x.numpy())
    np.testing.assert_allclose(g3.numpy(), [6.0, 6.0])


def test_grad_of_nonleaf_input():
    x = t([1.0, 2.0])
    h = x * 2.0
    y = (h * h).sum()
    (gh,) = paddle.grad(y, h)
    np.testing.assert_allclose(gh.numpy(), 2 * h.numpy())


def test_grad_allow_unused():
    x = t([1.0])
    z = t([2.0])
    y = (x * 2.0).sum()
    with pytest.raises(RuntimeError, match='allow_unused'):
        paddle.grad(y, [x, z], retain_graph=True)
    gx, gz = paddle.grad(y, [x, z], allow_unused=True)
    assert gz is None
    np.testing.assert_allclose(gx.numpy(), [2.0])


def test_grad_no_grad_vars_are_constants():
    x = t([2.0])
    h = x * x
    y = (h * x).sum()   # d/dx with h constant = h = x^2
    (g,) = paddle.grad(y, x, no_grad_vars=[h])
    np.testing.assert_allclose(g.numpy(), [4.0])


def test_gradient_penalty_as_in_wgan_gp():
    w = t([0.5, -1.5, 2.0])
    x = t([1.0, 2.0, 3.0])
    out = (x * x * w).sum()
    (gx,) = paddle.grad(out, x, create_graph=True)
    penalty = ((gx * gx).sum() - 1.0) ** 2
    penalty.backward()
    # gx = 2 x w; s = sum(4 x^2 w^2); dpen/dw = 2 (s - 1) * 8 x^2 w
    xv, wv = x.numpy(), w.numpy()
    s = np.sum(4 * xv ** 2 * wv ** 2)
    np.testing.assert_allclose(w.grad.numpy(), 2 * (s - 1) * 8 * xv ** 2 * wv, rtol=1e-10)


def test_no_grad_context_and_decorator():
    x = t([1.0])
    with paddle.no_grad():
        y = x * 2.0
    assert y.stop_gradient

    @paddle.no_grad()
    def f(v):
        return v * 2.0
    assert f(x).stop_gradient

    @paddle.no_grad
    def g(v):
        return v * 2.0
    assert g(x).stop_gradient
    assert paddle.is_grad_enabled()
    with paddle.set_grad_enabled(False):
        assert not paddle.is_grad_enabled()
        assert (x * 2.0).stop_gradient
    assert paddle.is_grad_enabled()


def test_graph_is_freed_no_memory_growth():
    w = t(np.random.rand(64, 64))
    x = paddle.to_tensor(np.random.rand(8, 64))

    def step():
        h = (paddle.matmul(x, w)).tanh()
        loss = (h * h).mean()
        loss.backward()
        w.clear_grad()

    for _ in range(50):
        step()
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    for _ in range(1000):
        step()
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - base
    tracemalloc.stop()
    assert grown < 200_000, "memory grew by %d bytes over 1000 iterations" % grown


def test_detach_and_clone():
    x = t([1.0, 2.0])
    d = x.detach()
    assert d.stop_gradient and d.is_leaf
    c = x.clone()
    (c * 2.0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


# ---- non-leaf .grad: backward learns a node's output from its consumers --------------
# (the tracer keeps no weakref to a one-output node's output; autograd.learn_output)

def _nonleaf_cases():
    def via_unary(y):
        return y.tanh().sum()

    def via_binary(y):
        return (y * y).sum()

    def via_variadic(y):
        return (paddle.concat([y, y]) * 2.0).sum()

    def via_multi_output(y):
        a, b = paddle.split(y, 2)
        return (a * b).sum()

    def via_several_consumers(y):
        return y.sum() + y.exp().sum()

    def as_root(y):
        return y.sum()
    return [via_unary, via_binary, via_variadic, via_multi_output, via_several_consumers,
            as_root]


def test_held_outputs_of_a_multi_output_node_get_their_grads():
    """Multi-output nodes learn their outputs in backward too, one by one."""
    x = t([0.5, -1.0, 2.0, 0.25, 3.0, -2.0])
    a, b, c = paddle.split(x * 1.0, 3)
    del b                                        # not held: no grad, freed
    (a * c + c.exp()).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), c.numpy())
    np.testing.assert_allclose(c.grad.numpy(), a.numpy() + np.exp(c.numpy()))
    parts = paddle.unbind(x * 2.0)               # a variadic output list
    (parts[1] * parts[4]).backward()
    np.testing.assert_allclose(parts[1].grad.numpy(), parts[4].numpy())
    assert parts[0].grad is None                 # held, but no gradient reached it
    r = paddle.topk(x * 1.0, 2)[0]               # held as root
    r.sum().backward()
    np.testing.assert_allclose(r.grad.numpy(), [1.0, 1.0])


@pytest.mark.parametrize('loss_of', _nonleaf_cases(), ids=lambda f: f.__name__)
def test_held_nonleaf_gets_its_grad_whatever_consumes_it(loss_of):
    x = t([0.5, -1.0, 2.0, 0.25])
    y = x * 3.0
    loss_of(y).backward()
    yy = paddle.to_tensor(y.numpy(), stop_gradient=False)
    loss_of(yy).backward()
    np.testing.assert_allclose(y.grad.numpy(), yy.grad.numpy())
    np.testing.assert_allclose(x.grad.numpy(), 3.0 * yy.grad.numpy())


def test_nonleaf_the_user_dropped_gets_no_grad_and_is_freed():
    import weakref
    x = t([0.5, -1.0])
    y = x * 3.0
    alive = weakref.ref(y)
    loss = y.tanh().sum()
    del y
    loss.backward()
    assert alive() is None


def test_nonleaf_grad_under_saved_tensors_hooks_and_with_a_hook():
    x = t([0.5, -1.0, 2.0])
    seen = []
    with paddle.autograd.saved_tensors_hooks(lambda v: v.numpy(),
                                             lambda a: paddle.to_tensor(a)):
        y = x * 3.0
        z = y.tanh()                 # packs y: unpacked as another Tensor
    h = x * 2.0
    h.register_hook(lambda g: seen.append(g.numpy()))
    (z.sum() + (h * h).sum()).backward()
    np.testing.assert_allclose(y.grad.numpy(), 1 - np.tanh(y.numpy()) ** 2)
    np.testing.assert_allclose(h.grad.numpy(), 2 * h.numpy())
    np.testing.assert_allclose(seen[0], 2 * h.numpy())


def test_nonleaf_grads_accumulate_over_retained_backwards_and_create_graph():
    x = t([0.5, -1.0])
    y = x * x
    loss = (y * 2.0).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(y.grad.numpy(), [4.0, 4.0])
    x2 = t([0.5, -1.0])
    y2 = x2 * x2
    (g,) = paddle.grad((y2 * y2).sum(), x2, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 4 * x2.numpy() ** 3)


def test_nonleaf_moved_by_an_inplace_op_gets_the_grad_of_its_new_value():
    x = t([0.5, -1.0])
    y = x * 3.0
    y.exp_()                          # y now is exp(3x)
    (y * 2.0).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [2.0, 2.0])
    np.testing.assert_allclose(x.grad.numpy(), 6.0 * np.exp(3.0 * x.numpy()))


def test_nonleaf_root_gets_its_seed_as_grad():
    x = t([0.5, -1.0])
    y = (x * 3.0).sum()
    y.backward()
    np.testing.assert_allclose(y.grad.numpy(), 1.0)
    z = x * 2.0
    z.backward(paddle.to_tensor([1.0, -2.0], dtype='float64'))
    np.testing.assert_allclose(z.grad.numpy(), [1.0, -2.0])
