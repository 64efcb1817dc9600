"""The eager Tensor as a user sees it: construction, dtypes, conversion, repr."""
import numpy as np
import pytest

import framework as paddle


def test_to_tensor_dtype_defaults():
    assert paddle.to_tensor(1.5).dtype == paddle.float32
    assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    assert paddle.to_tensor([True, False]).dtype == paddle.bool
    assert paddle.to_tensor(np.zeros(2, 'float64')).dtype == paddle.float64
    assert paddle.to_tensor([1, 2], dtype='float32').dtype == 'float32'
    assert paddle.to_tensor([1, 2], dtype=paddle.float16).dtype == np.float16
    assert paddle.to_tensor([1, 2], dtype=np.int32).dtype == paddle.int32


def test_to_tensor_copies_numpy_input():
    a = np.ones(3, 'float32')
    x = paddle.to_tensor(a)
    a[0] = 5
    assert x.numpy()[0] == 1


def test_shape_ndim_size_place_name():
    x = paddle.zeros([2, 3])
    assert x.shape == [2, 3] and isinstance(x.shape, list)
    assert x.ndim == 2 and x.dim() == 2
    assert x.size == 6 and x.numel() == 6
    assert repr(x.place) == 'Place(cpu)'
    assert isinstance(x.name, str) and x.name != paddle.zeros([1]).name


def test_python_conversions():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert np.asarray(x).shape == (2, 2)
    assert len(x) == 2
    rows = [r.numpy().tolist() for r in x]
    assert rows == [[1.0, 2.0], [3.0, 4.0]]
    one = paddle.to_tensor([3])
    assert int(one) == 3 and float(one) == 3.0 and bool(one) is True
    assert [10, 20, 30, 40][one] == 40
    assert paddle.to_tensor(2.5).item() == 2.5
    with pytest.raises(ValueError, match='one element'):
        x.item()
    with pytest.raises(TypeError, match='one element'):
        bool(x)


def test_astype_and_cast():
    x = paddle.to_tensor([1.7, -2.2])
    y = x.astype('int32')
    assert y.dtype == paddle.int32
    assert y.tolist() == [1, -2]
    assert paddle.cast(x, paddle.float64).dtype == np.float64


def test_reflected_operators_with_numpy_and_scalars():
    x = paddle.to_tensor([1.0, 2.0])
    assert (2.0 - x).tolist() == [1.0, 0.0]
    assert (1.0 / paddle.to_tensor([2.0, 4.0])).tolist() == [0.5, 0.25]
    r = np.array([1.0, 1.0], 'float32') + x
    assert isinstance(r, paddle.Tensor)
    assert (2 ** x).tolist() == [2.0, 4.0]
    assert (x > 1.5).tolist() == [False, True]
    assert (x == paddle.to_tensor([1.0, 0.0])).tolist() == [True, False]


def test_scalar_keeps_tensor_dtype():
    x = paddle.to_tensor([1.0, 2.0], dtype='float32')
    assert (x * 1.01).dtype == paddle.float32
    assert (x + 1).dtype == paddle.float32


def test_repr_shows_shape_dtype_stop_gradient_and_values():
    x = paddle.to_tensor([[1.0, 2.0]])
    s = repr(x)
    assert 'shape=[1, 2]' in s and 'dtype=float32' in s and 'stop_gradient=True' in s
    assert '1.' in s and '2.' in s


def test_tensors_are_hashable_by_identity():
    a, b = paddle.to_tensor([1.0]), paddle.to_tensor([1.0])
    assert len({a, b}) == 2


def test_kernel_error_names_the_op_and_shapes():
    a = paddle.to_tensor(np.ones((2, 3)))
    b = paddle.to_tensor(np.ones((4, 5)))
    with pytest.raises(ValueError) as e:
        a + b
    msg = str(e.value)
    assert 'add' in msg and '[2, 3]' in msg and '[4, 5]' in msg


def test_set_value_and_fill():
    x = paddle.zeros([2])
    x.set_value(np.array([1.0, 2.0]))
    assert x.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match='shape'):
        x.set_value(np.ones(3))
    x.zero_()
    assert x.tolist() == [0.0, 0.0]


def test_seed_makes_runs_repeatable():
    paddle.seed(7)
    a = paddle.rand([3]).numpy()
    paddle.seed(7)
    b = paddle.rand([3]).numpy()
    np.testing.assert_array_equal(a, b)


def test_grad_is_a_class_attribute_and_tensors_take_new_attributes():
    """``Tensor.grad`` exists on the class (API introspection finds it), and,
    as in Paddle, a user may hang attributes on a tensor."""
    assert getattr(paddle.Tensor, 'grad', None) is not None
    t = paddle.to_tensor([1.0, 2.0])
    assert t.grad is None and t.persistable is False
    t.note = 'mine'
    assert t.note == 'mine'
    y = t * 2.0
    assert y.grad is None and y.persistable is False
