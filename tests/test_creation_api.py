"""Creation APIs: ranges, matrices, triangles, grids and random draws."""
import numpy as np
import pytest

import framework as paddle


def _t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


# ---- ranges and matrices ----------------------------------------------------------

def test_arange_dtypes_and_forms():
    assert paddle.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert paddle.arange(5).dtype == paddle.int64
    assert paddle.arange(2, 8, 3).tolist() == [2, 5]
    assert paddle.arange(5, 0, -2).tolist() == [5, 3, 1]
    f = paddle.arange(0, 1, 0.1)
    assert f.dtype == paddle.float32 and f.shape == [10]
    np.testing.assert_allclose(f.numpy(), np.arange(10) / 10.0, rtol=1e-6)
    assert paddle.arange(3, dtype='float64').dtype == paddle.float64
    assert paddle.arange(paddle.to_tensor(4)).tolist() == [0, 1, 2, 3]
    assert paddle.arange(3, 3).shape == [0]
    with pytest.raises(Exception, match='step cannot be 0'):
        paddle.arange(0, 3, 0)


def test_linspace_eye_full():
    lin = paddle.linspace(0, 1, 5)
    assert lin.dtype == paddle.float32
    np.testing.assert_allclose(lin.numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    assert paddle.linspace(-1, 1, 3, dtype='float64').tolist() == [-1.0, 0.0, 1.0]
    e = paddle.eye(2, 3)
    assert e.dtype == paddle.float32 and e.tolist() == [[1, 0, 0], [0, 1, 0]]
    assert paddle.eye(3, dtype='int64').numpy().trace() == 3
    assert paddle.full([2], 7).dtype == paddle.float32      # Paddle 3: ints give the default float
    assert paddle.full([2], True).dtype == paddle.bool
    assert paddle.zeros((2, 1)).shape == [2, 1]
    assert paddle.ones(paddle.to_tensor([3])).shape == [3]


def test_tril_triu_values_and_gradients():
    a = np.arange(1.0, 13.0).reshape(3, 4)
    x = _t(a, True)
    lo = paddle.tril(x)
    np.testing.assert_array_equal(lo.numpy(), np.tril(a))
    np.testing.assert_array_equal(paddle.triu(_t(a), 1).numpy(), np.triu(a, 1))
    np.testing.assert_array_equal(_t(a).tril(-1).numpy(), np.tril(a, -1))
    lo.backward(paddle.ones([3, 4], 'float64'))
    np.testing.assert_array_equal(x.grad.numpy(), np.tril(np.ones((3, 4))))
    with pytest.raises(Exception, match=r"at least 2 dims, got shape \[2\]"):
        paddle.tril(_t([1.0, 2.0]))


def test_diag_both_directions():
    v = _t([1.0, 2.0], True)
    m = paddle.diag(v, offset=1)
    np.testing.assert_array_equal(m.numpy(), [[0, 1, 0], [0, 0, 2], [0, 0, 0]])
    assert paddle.diag(_t([1.0, 2.0]), padding_value=5).tolist() == [[1, 5], [5, 2]]
    w = _t(np.arange(6.0).reshape(2, 3), True)
    d = paddle.diag(w, offset=-1)
    assert d.tolist() == [3.0]
    d.backward(paddle.ones([1], 'float64'))
    np.testing.assert_array_equal(w.grad.numpy(), [[0, 0, 0], [1, 0, 0]])


def test_meshgrid_shapes_values_and_gradients():
    x = _t([1.0, 2.0, 3.0], True)
    y = _t([4.0, 5.0], True)
    gx, gy = paddle.meshgrid(x, y)
    assert gx.shape == [3, 2] and gy.shape == [3, 2]
    ex, ey = np.meshgrid([1.0, 2.0, 3.0], [4.0, 5.0], indexing='ij')
    np.testing.assert_array_equal(gx.numpy(), ex)
    np.testing.assert_array_equal(gy.numpy(), ey)
    (gx * gy).backward(paddle.ones([3, 2], 'float64'))
    np.testing.assert_array_equal(x.grad.numpy(), [9.0, 9.0, 9.0])
    np.testing.assert_array_equal(y.grad.numpy(), [6.0, 6.0])
    grids = paddle.meshgrid([_t([1, 2]), _t([3]), _t([4, 5, 6])])
    assert [g.shape for g in grids] == [[2, 1, 3]] * 3


# ---- random -------------------------------------------------------------------------

def test_random_dtype_defaults_and_shapes():
    assert paddle.rand([2, 3]).dtype == paddle.float32
    assert paddle.randn((4,)).dtype == paddle.float32
    assert paddle.standard_normal([2]).shape == [2]
    assert paddle.uniform([3]).dtype == paddle.float32
    assert paddle.rand([2], dtype='float64').dtype == paddle.float64
    assert paddle.randint(5).dtype == paddle.int64 and paddle.randint(5).shape == [1]
    assert paddle.randint(0, 3, [2, 2], dtype='int32').dtype == paddle.int32
    assert paddle.randperm(4).dtype == paddle.int64
    assert paddle.rand(paddle.to_tensor([2, 2])).shape == [2, 2]
    assert paddle.normal(shape=[3]).dtype == paddle.float32


def test_random_values_are_in_range():
    paddle.seed(0)
    u = paddle.rand([2000]).numpy()
    assert u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.05
    v = paddle.uniform([2000], min=2.0, max=3.0).numpy()
    assert v.min() >= 2 and v.max() < 3
    n = paddle.randn([4000]).numpy()
    assert abs(n.mean()) < 0.1 and abs(n.std() - 1) < 0.1
    m = paddle.normal(3.0, 0.5, [4000]).numpy()
    assert abs(m.mean() - 3) < 0.05 and abs(m.std() - 0.5) < 0.05
    r = paddle.randint(-2, 3, [1000]).numpy()
    assert set(r.tolist()) == {-2, -1, 0, 1, 2}
    assert sorted(paddle.randperm(10).tolist()) == list(range(10))


def test_seed_makes_random_ops_repeatable():
    def draw():
        return [paddle.rand([3]).numpy(), paddle.randn([3]).numpy(),
                paddle.randint(0, 100, [3]).numpy(), paddle.randperm(5).numpy(),
                paddle.bernoulli(paddle.full([4], 0.5)).numpy()]
    paddle.seed(123)
    first = draw()
    paddle.seed(123)
    second = draw()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(paddle.rand([3]).numpy(), first[0])


def test_uniform_op_seed_gives_a_fixed_stream():
    a = paddle.uniform([4], seed=7).numpy()
    paddle.rand([10])
    b = paddle.uniform([4], seed=7).numpy()
    np.testing.assert_array_equal(a, b)


def test_normal_with_tensor_mean_and_std():
    mean = _t(np.array([0.0, 10.0, -10.0]), True)
    std = _t(np.array([1.0, 0.0, 2.0]), True)
    out = paddle.normal(mean, std)
    assert out.shape == [3] and out.dtype == paddle.float64
    assert out.numpy()[1] == 10.0
    out.backward(paddle.ones([3], 'float64'))
    np.testing.assert_array_equal(mean.grad.numpy(), [1.0, 1.0, 1.0])


def test_bernoulli_and_multinomial():
    paddle.seed(3)
    p = paddle.to_tensor([0.0, 1.0, 0.3])
    b = paddle.bernoulli(paddle.expand(p, [2000, 3])).numpy()
    assert set(np.unique(b).tolist()) <= {0.0, 1.0}
    assert b[:, 0].sum() == 0 and b[:, 1].sum() == 2000 and abs(b[:, 2].mean() - 0.3) < 0.05
    probs = paddle.to_tensor([[0.1, 0.0, 0.9], [0.5, 0.5, 0.0]])
    draws = paddle.multinomial(probs, 3000, replacement=True).numpy()
    assert draws.shape == (2, 3000) and draws.dtype == np.int64
    assert (draws[0] != 1).all() and abs((draws[0] == 2).mean() - 0.9) < 0.03
    assert (draws[1] != 2).all()
    no_rep = paddle.multinomial(paddle.to_tensor([1.0, 1.0, 1.0, 1.0]), 4).numpy()
    assert sorted(no_rep.tolist()) == [0, 1, 2, 3]
    with pytest.raises(Exception, match='without replacement'):
        paddle.multinomial(paddle.to_tensor([1.0, 0.0]), 2)


def test_inplace_uniform_and_normal_methods():
    x = paddle.zeros([500], 'float64')
    x.uniform_(min=5.0, max=6.0)
    assert x.dtype == paddle.float64 and x.numpy().min() >= 5 and x.numpy().max() < 6
    y = paddle.zeros([3, 4])
    v0 = y.inplace_version
    y.normal_(mean=1.0, std=0.0)
    np.testing.assert_array_equal(y.numpy(), np.ones((3, 4)))
    assert y.inplace_version == v0 + 1


def test_random_argument_errors():
    with pytest.raises(Exception, match='low'):
        paddle.randint(3, 3)
    with pytest.raises(Exception, match='negative'):
        paddle.rand([2, -1])
    with pytest.raises(Exception, match=r'\[0, 1\]'):
        paddle.bernoulli(paddle.to_tensor([1.5]))
