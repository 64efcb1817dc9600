"""Paddle 3's PyTorch-style argument forms (keyword aliases, shapes as
separate ints, PyTorch's argument order) on the manipulation, indexing,
creation and random functions: each form equals Paddle's own, in eager mode,
in static programs and under @to_static, with gradients."""
import inspect

import numpy as np
import pytest

import framework as paddle

A = np.arange(12, dtype=np.float32).reshape(3, 4)
IDX = np.array([2, 0])


def T(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


PAIRS = [   # (PyTorch-style call, Paddle's own call)
    (lambda x: paddle.concat(tensors=[x, x], dim=1), lambda x: paddle.concat([x, x], axis=1)),
    (lambda x: paddle.stack(tensors=[x, x], dim=0), lambda x: paddle.stack([x, x], 0)),
    (lambda x: paddle.flatten(input=x, start_dim=0, end_dim=1), lambda x: paddle.flatten(x)),
    (lambda x: paddle.squeeze(input=x[None], dim=0), lambda x: paddle.squeeze(x[None], 0)),
    (lambda x: paddle.unsqueeze(input=x, dim=1), lambda x: paddle.unsqueeze(x, 1)),
    (lambda x: paddle.unbind(x, dim=1)[2], lambda x: paddle.unbind(x, 1)[2]),
    (lambda x: paddle.chunk(input=x, chunks=2, dim=1)[1], lambda x: paddle.chunk(x, 2, 1)[1]),
    (lambda x: paddle.tile(input=x, dims=[2, 1]), lambda x: paddle.tile(x, [2, 1])),
    (lambda x: paddle.broadcast_to(input=x[:1], size=[3, 4]),
     lambda x: paddle.broadcast_to(x[:1], [3, 4])),
    (lambda x: x[:1].expand(2, 4), lambda x: paddle.expand(x[:1], [2, 4])),
    (lambda x: paddle.expand(input=x[:1], size=[2, 4]), lambda x: paddle.expand(x[:1], [2, 4])),
    (lambda x: x.reshape(2, 6), lambda x: paddle.reshape(x, [2, 6])),
    (lambda x: x.reshape(-1), lambda x: paddle.reshape(x, [-1])),
    (lambda x: paddle.reshape(input=x, shape=[6, 2]), lambda x: paddle.reshape(x, [6, 2])),
    (lambda x: x.view(4, 3), lambda x: paddle.view(x, [4, 3])),
    (lambda x: x.view(size=[4, 3]), lambda x: paddle.view(x, [4, 3])),
    (lambda x: paddle.repeat_interleave(input=x, repeats=2, dim=1),
     lambda x: paddle.repeat_interleave(x, 2, 1)),
    (lambda x: paddle.take_along_axis(input=x, indices=T(np.zeros((3, 1), np.int64)), dim=1),
     lambda x: paddle.take_along_axis(x, T(np.zeros((3, 1), np.int64)), 1)),
    (lambda x: paddle.unflatten(input=x, dim=1, sizes=[2, 2]),
     lambda x: paddle.unflatten(x, 1, [2, 2])),
    (lambda x: paddle.tensor_split(input=x, sections=2, dim=1)[0],
     lambda x: paddle.tensor_split(x, 2, 1)[0]),
    (lambda x: paddle.index_select(x, 1, T(IDX)), lambda x: paddle.index_select(x, T(IDX), 1)),
    (lambda x: paddle.index_select(input=x, dim=0, index=T(IDX)),
     lambda x: paddle.index_select(x, T(IDX), 0)),
    (lambda x: x.index_select(1, T(IDX)), lambda x: paddle.index_select(x, T(IDX), 1)),
    (lambda x: paddle.index_add(x, 0, T(IDX), T(np.ones((2, 4), np.float32))),
     lambda x: paddle.index_add(x, T(IDX), 0, T(np.ones((2, 4), np.float32)))),
    (lambda x: paddle.index_add(input=x, dim=1, index=T(IDX), source=T(np.ones((3, 2), np.float32))),
     lambda x: paddle.index_add(x, T(IDX), 1, T(np.ones((3, 2), np.float32)))),
    (lambda x: paddle.gather(x, 1, T(np.array([[0], [3], [1]]))),
     lambda x: paddle.take_along_axis(x, T(np.array([[0], [3], [1]])), 1, broadcast=False)),
    (lambda x: paddle.gather(x, dim=0, index=T(np.array([[2, 1]]))),
     lambda x: paddle.take_along_axis(x, T(np.array([[2, 1]])), 0, broadcast=False)),
    (lambda x: paddle.where(x > 3, input=x, other=x * 0), lambda x: paddle.where(x > 3, x, x * 0)),
    (lambda x: paddle.masked_select(input=x, mask=x > 3), lambda x: paddle.masked_select(x, x > 3)),
    (lambda x: paddle.topk(input=x, k=2, dim=0)[0], lambda x: paddle.topk(x, 2, 0)[0]),
    (lambda x: paddle.roll(input=x, shifts=1, dims=0), lambda x: paddle.roll(x, 1, 0)),
    (lambda x: paddle.full_like(input=x, fill_value=2.0), lambda x: paddle.full_like(x, 2.0)),
    (lambda x: x * paddle.ones(3, 4), lambda x: x * paddle.ones([3, 4])),
    (lambda x: x + paddle.zeros(size=[3, 4]), lambda x: x + paddle.zeros([3, 4])),
    (lambda x: x + paddle.zeros_like(input=x), lambda x: x + paddle.zeros_like(x)),
]


@pytest.mark.parametrize('k', range(len(PAIRS)))
def test_torch_form_equals_paddle_form_with_grads(k):
    torch_form, own = PAIRS[k]
    xa, xb = T(A, grad=True), T(A, grad=True)
    a, b = torch_form(xa), own(xb)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    if a.dtype == paddle.float32 and a.size and not a.stop_gradient:
        (a * a).sum().backward()
        (b * b).sum().backward()
        np.testing.assert_array_equal(xa.grad.numpy(), xb.grad.numpy())


@pytest.mark.parametrize('k', range(0, len(PAIRS), 3))
def test_torch_forms_under_to_static(k):
    torch_form, own = PAIRS[k]
    got = paddle.jit.to_static(lambda x: torch_form(x))(T(A))
    np.testing.assert_array_equal(got.numpy(), own(T(A)).numpy())


def test_torch_forms_build_static_programs():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data('x', [3, 4], 'float32')
            outs = [x.reshape(2, 6), x[:1].expand(3, 4), paddle.squeeze(input=x[None], dim=0),
                    paddle.index_select(x, 1, paddle.to_tensor(IDX))]
        got = paddle.static.Executor().run(main, feed={'x': A}, fetch_list=outs)
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(got[0], A.reshape(2, 6))
    np.testing.assert_array_equal(got[1], np.broadcast_to(A[:1], (3, 4)))
    np.testing.assert_array_equal(got[2], A)
    np.testing.assert_array_equal(got[3], A[:, IDX])


def test_creation_and_random_shapes_as_separate_ints():
    assert paddle.ones(2, 3).shape == [2, 3] and paddle.ones(3).shape == [3]
    assert paddle.zeros(2, 3, dtype='int32').dtype == paddle.int32
    assert paddle.empty(2, 1).shape == [2, 1] and paddle.rand(2, 3).shape == [2, 3]
    assert paddle.randn(4).shape == [4] and paddle.randn(size=[2]).shape == [2]
    assert paddle.normal(size=[2, 2]).shape == [2, 2]
    assert paddle.full(size=[2], fill_value=1.0).numpy().tolist() == [1.0, 1.0]
    assert paddle.eye(n=2, m=3).shape == [2, 3]
    np.testing.assert_allclose(paddle.linspace(0, end=1, steps=3).numpy(), [0, 0.5, 1])
    assert paddle.randn_like(input=T(A)).shape == [3, 4]
    assert paddle.multinomial(input=T(np.full(4, 0.25, np.float32)), num_samples=2).shape == [2]
    assert T(A).exponential_(lambd=2.0).shape == [3, 4]
    assert paddle.is_complex(input=T(A)) is False and paddle.is_floating_point(input=T(A))
    assert paddle.nonzero(input=T(A)).shape == [11, 2]
    np.testing.assert_array_equal(
        paddle.bucketize(input=T(A), boundaries=T(np.array([2.0, 5.0], np.float32))).numpy(),
        np.searchsorted([2.0, 5.0], A))
    np.testing.assert_array_equal(
        paddle.searchsorted(T(np.array([2.0, 5.0], np.float32)), input=T(A)).numpy(),
        np.searchsorted([2.0, 5.0], A))
    assert paddle.argsort(input=T(A), dim=0).shape == [3, 4]
    assert paddle.unique_consecutive(input=T(A), dim=0).shape == [3, 4]
    assert T(A).unfold(dimension=1, size=2, step=2).shape == [3, 2, 2]


def test_aliases_keep_paddles_signatures_and_refuse_both_spellings():
    assert list(inspect.signature(paddle.reshape).parameters) == ['x', 'shape', 'name']
    assert list(inspect.signature(paddle.gather).parameters)[:3] == ['x', 'index', 'axis']
    assert 'input' not in inspect.signature(paddle.squeeze).parameters
    with pytest.raises(ValueError, match="both 'axis' and its alias 'dim'"):
        paddle.squeeze(T(A[None]), axis=0, dim=0)
    with pytest.raises(ValueError, match="both 'shape' and its alias 'size'"):
        paddle.ones(shape=[2], size=[2])
    with pytest.raises(TypeError, match='index'):
        paddle.index_select(T(A), 1)            # PyTorch's order still needs the index
