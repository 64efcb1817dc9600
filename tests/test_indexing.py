"""Indexing as users write it: ``x[...]`` and ``x[...] = v``, numpy semantics,
gradients through every index form, and clear errors."""
import numpy as np
import pytest

import framework as paddle
from framework.ops import subscript as S
from framework.ops.registry import Meta


def _t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def _x(shape=(3, 4), grad=True, seed=0):
    a = np.random.default_rng(seed).standard_normal(shape)
    return a, _t(a, grad)


def _grad_of(x, y, seed=1):
    """d(sum(y * w))/dx for a random w, via backward()."""
    w = np.random.default_rng(seed).standard_normal(y.shape)
    y.backward(paddle.to_tensor(w))
    return x.grad.numpy(), w


def _expected_grad(shape, index, w):
    """Reference: scatter-add w through a numpy index (repeated indices add up)."""
    z = np.zeros(shape)
    np.add.at(z, index, w)
    return z


# ---- getitem: forms and values --------------------------------------------------

def test_basic_forms_match_numpy():
    a, x = _x((3, 4, 5), grad=False)
    cases = [
        (lambda v: v[0], lambda v: v[0]),
        (lambda v: v[-1], lambda v: v[-1]),
        (lambda v: v[:, 1:3], lambda v: v[:, 1:3]),
        (lambda v: v[..., ::-1], lambda v: v[..., ::-1]),
        (lambda v: v[None, 1], lambda v: v[None, 1]),
        (lambda v: v[1, :, None, 2:0:-1], lambda v: v[1, :, None, 2:0:-1]),
        (lambda v: v[::2, ..., 1], lambda v: v[::2, ..., 1]),
        (lambda v: v[-2:, -3::-2], lambda v: v[-2:, -3::-2]),
        (lambda v: v[1:1], lambda v: v[1:1]),
        (lambda v: v[...], lambda v: v[...]),
        (lambda v: v[2, 3, 4], lambda v: v[2, 3, 4]),
    ]
    for ours, ref in cases:
        out = ours(x)
        np.testing.assert_array_equal(out.numpy(), ref(a))
        assert out.shape == list(ref(a).shape)


def test_advanced_forms_match_numpy():
    a, x = _x((3, 4, 5), grad=False)
    idx = paddle.to_tensor([2, 0, 2])
    np.testing.assert_array_equal(x[idx].numpy(), a[[2, 0, 2]])
    np.testing.assert_array_equal(x[[0, 2]].numpy(), a[[0, 2]])
    np.testing.assert_array_equal(x[np.array([1, -1])].numpy(), a[[1, -1]])
    np.testing.assert_array_equal(x[x > 0].numpy(), a[a > 0])
    np.testing.assert_array_equal(x[x[:, :, 0] > 0].numpy(), a[a[:, :, 0] > 0])
    np.testing.assert_array_equal(x[1, [0, 2]].numpy(), a[1, [0, 2]])
    # int and array indices separated by a slice: advanced dims go first (numpy rule)
    np.testing.assert_array_equal(x[[0, 1], :, 0].numpy(), a[[0, 1], :, 0])
    np.testing.assert_array_equal(x[:, [[0], [3]], [1, 2]].numpy(), a[:, [[0], [3]], [1, 2]])
    np.testing.assert_array_equal(x[[True, False, True]].numpy(), a[[True, False, True]])
    # a 0-d int tensor acts like an int
    assert x[paddle.to_tensor(1)].shape == [4, 5]


def test_random_index_battery_matches_numpy_and_infer_meta():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 5, 6))
    x = _t(a)
    pieces = [lambda: slice(None), lambda: slice(1, None, 2), lambda: slice(None, None, -1),
              lambda: slice(-2, 0, -1), lambda: 1, lambda: -1, lambda: None,
              lambda: np.array([0, 2, 0]), lambda: np.array([[1], [0]])]
    checked = 0
    for _ in range(300):
        k = rng.integers(1, 4)
        index = tuple(pieces[i]() for i in rng.integers(0, len(pieces), k))
        if rng.random() < 0.3:
            index = index + (Ellipsis,)
        try:
            expect = a[index]
        except IndexError:
            continue
        got = x[index]
        np.testing.assert_array_equal(got.numpy(), expect, err_msg=repr(index))
        items, tensors = S._parse_index(index)
        metas = [Meta(np.shape(t), np.asarray(t).dtype) for t in tensors]
        assert S._index_shape(a.shape, items, metas) == expect.shape, repr(index)
        checked += 1
    assert checked > 100


def test_infer_meta_with_unknown_dims():
    items, _ = S._parse_index((slice(1, None), 0, None))
    assert S._index_shape((-1, 4, 5), items, []) == (-1, 1, 5)
    items, tensors = S._parse_index((slice(None), np.array([True, False, True, True])))
    metas = [Meta(t.shape, t.dtype) for t in tensors]
    assert S._index_shape((2, 4), items, metas) == (2, -1)


def test_getitem_result_is_a_new_tensor_for_autograd():
    a, x = _x((3, 4))
    y = x[0]
    assert not y.stop_gradient and y.grad_fn is not None


# ---- getitem: gradients through backward() ------------------------------------------

@pytest.mark.parametrize('index', [
    0, -1, (slice(None), slice(1, 3)), (Ellipsis, slice(None, None, -1)), (None, 1),
    (slice(None, None, 2), 3), (1, slice(3, 0, -2)),
])
def test_basic_index_gradients(index):
    a, x = _x((3, 4))
    g, w = _grad_of(x, x[index])
    np.testing.assert_allclose(g, _expected_grad(a.shape, index, w))


def test_int_tensor_index_gradient_accumulates_repeats():
    a, x = _x((3, 4))
    idx = paddle.to_tensor([2, 0, 2, 2])
    g, w = _grad_of(x, x[idx])
    np.testing.assert_allclose(g, _expected_grad(a.shape, ([2, 0, 2, 2],), w))
    assert np.allclose(g[2], w[0] + w[2] + w[3])


def test_list_and_mixed_index_gradients():
    a, x = _x((3, 4))
    g, w = _grad_of(x, x[[0, 2]])
    np.testing.assert_allclose(g, _expected_grad(a.shape, ([0, 2],), w))
    a, x = _x((3, 4, 2))
    index = (slice(None), [1, 1, 3], 0)
    g, w = _grad_of(x, x[index])
    np.testing.assert_allclose(g, _expected_grad(a.shape, index, w))


def test_bool_mask_gradient():
    a, x = _x((3, 4))
    mask = x > 0
    g, w = _grad_of(x, x[mask])
    expect = np.zeros_like(a)
    expect[a > 0] = w
    np.testing.assert_allclose(g, expect)


def test_grad_of_grad_through_getitem():
    a, x = _x((3, 4))
    y = x[paddle.to_tensor([0, 0, 2]), 1:]
    s = y * y * y
    (gx,) = paddle.grad([s], [x], [paddle.ones(s.shape, 'float64')], create_graph=True)
    expect = np.zeros_like(a)
    np.add.at(expect, ([0, 0, 2], slice(1, None)), 3 * a[[0, 0, 2], 1:] ** 2)
    np.testing.assert_allclose(gx.numpy(), expect)
    w = np.random.default_rng(2).standard_normal(a.shape)
    (ggx,) = paddle.grad([gx], [x], [paddle.to_tensor(w)])
    expect2 = np.zeros_like(a)
    np.add.at(expect2, ([0, 0, 2], slice(1, None)), 6 * a[[0, 0, 2], 1:] * w[[0, 0, 2], 1:])
    np.testing.assert_allclose(ggx.numpy(), expect2)


@pytest.mark.slow   # importing torch takes seconds
def test_getitem_matches_torch_gradients():
    torch = pytest.importorskip('torch')
    a, x = _x((4, 3, 5))
    index = (slice(1, None), [0, 2, 2], slice(None, None, 2))
    g, w = _grad_of(x, x[index])
    ta = torch.tensor(a, requires_grad=True)
    ta[1:, [0, 2, 2], ::2].backward(torch.tensor(w))
    np.testing.assert_allclose(g, ta.grad.numpy())


# ---- setitem --------------------------------------------------------------------

def test_setitem_scalar_row_and_mask():
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4))
    v0 = x.inplace_version
    x[1, :] = 5
    expect = np.arange(12.0).reshape(3, 4)
    expect[1, :] = 5
    np.testing.assert_array_equal(x.numpy(), expect)
    assert x.inplace_version == v0 + 1
    x[x > 6] = 0
    expect[expect > 6] = 0
    np.testing.assert_array_equal(x.numpy(), expect)


def test_setitem_values_broadcast_and_cast():
    x = paddle.zeros([2, 3, 4])
    x[:, 1] = np.arange(4)                       # numpy array broadcast over dim 0
    x[0, ::-1, 0] = paddle.to_tensor([1.0, 2.0, 3.0])
    x[1, [0, 2], :] = [[7.0] * 4]                # leading 1-dims are dropped, as numpy does
    x[..., -1] = np.float64(9)
    expect = np.zeros((2, 3, 4), np.float32)
    expect[:, 1] = np.arange(4)
    expect[0, ::-1, 0] = [1.0, 2.0, 3.0]
    expect[1, [0, 2], :] = 7.0
    expect[..., -1] = 9
    np.testing.assert_array_equal(x.numpy(), expect)
    assert x.dtype == paddle.float32
    y = paddle.to_tensor([1, 2, 3])
    y[0] = 2.7                                   # int tensors keep their dtype
    assert y.dtype == paddle.int64 and y.tolist() == [2, 2, 3]


def test_setitem_gradients_to_x_and_value():
    a, base = _x((3, 4))
    x = base * 1.0                               # non-leaf: may be modified in place
    v = paddle.to_tensor(np.array([10.0, 20.0]), stop_gradient=False)
    x[1, 1:3] = v
    w = np.random.default_rng(4).standard_normal((3, 4))
    (x * paddle.to_tensor(w)).backward(paddle.ones([3, 4], 'float64'))
    gx = w.copy()
    gx[1, 1:3] = 0
    np.testing.assert_allclose(base.grad.numpy(), gx)
    np.testing.assert_allclose(v.grad.numpy(), w[1, 1:3])


def test_setitem_broadcast_value_gradient_is_reduced():
    a, base = _x((3, 4))
    x = base * 1.0
    v = paddle.to_tensor(np.array([[2.0]]), stop_gradient=False)
    mask = paddle.to_tensor(a > 0)
    x[mask] = v.reshape([1])
    x[0] = v                                     # [1, 1] into a [4] region
    w = np.random.default_rng(5).standard_normal((3, 4))
    x.backward(paddle.to_tensor(w))
    region = (a > 0)
    region[0] = True
    gx = np.where(region, 0.0, w)
    np.testing.assert_allclose(base.grad.numpy(), gx)
    expect_v = w[0].sum() + w[1:][(a > 0)[1:]].sum()   # row 0 overwrote the masked part there
    np.testing.assert_allclose(v.grad.numpy(), [[expect_v]])


def test_setitem_with_index_tensor_and_double_grad():
    a, base = _x((4, 3))
    x = base * 1.0
    v = paddle.to_tensor(np.array([1.5, -2.0, 0.5]), stop_gradient=False)
    x[paddle.to_tensor([3, 0])] = v * v
    (g,) = paddle.grad([x], [v], [paddle.ones([4, 3], 'float64')], create_graph=True)
    np.testing.assert_allclose(g.numpy(), 2 * 2 * v.numpy())
    (gg,) = paddle.grad([g], [v], [paddle.ones([3], 'float64')])
    np.testing.assert_allclose(gg.numpy(), [4.0, 4.0, 4.0])


def test_setitem_on_leaf_requiring_grad_needs_no_grad():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(RuntimeError, match='in place'):
        x[0] = 3.0
    with paddle.no_grad():
        x[0] = 3.0
    assert x.tolist() == [3.0, 2.0]


def test_setitem_does_not_touch_earlier_results():
    x = paddle.to_tensor(np.arange(6.0))
    row = x[1:3]
    x[1] = 100.0
    assert row.tolist() == [1.0, 2.0]


# ---- errors -----------------------------------------------------------------------

def test_out_of_range_int_names_axis_and_size():
    x = paddle.zeros([3, 4])
    with pytest.raises(Exception, match=r'index 5 is out of range for axis 1 with size 4'):
        x[0, 5]
    with pytest.raises(Exception, match=r'index -4 is out of range for axis 0 with size 3'):
        x[-4]
    with pytest.raises(Exception, match=r'axis 0 with size 3'):
        x[paddle.to_tensor([0, 7])]
    with pytest.raises(Exception, match=r'index 3 is out of range for axis 0 with size 3'):
        x[3] = 1.0


def test_other_index_errors_are_clear():
    x = paddle.zeros([3, 4])
    with pytest.raises(Exception, match='too many indices'):
        x[0, 1, 2]
    with pytest.raises(Exception, match='only one ellipsis'):
        x[..., 0, ...]
    with pytest.raises(IndexError, match='integer or bool'):
        x[paddle.to_tensor([0.5])]
    with pytest.raises(IndexError, match='unsupported index'):
        x['a']
    with pytest.raises(Exception, match=r'boolean mask of shape \[2\]'):
        x[paddle.to_tensor([True, False])]
    with pytest.raises(Exception, match=r'value of shape \[3\] cannot be broadcast to the '
                                        r'indexed region of shape \[4\]'):
        x[0] = np.ones(3)
    with pytest.raises(Exception, match='step cannot be zero'):
        x[::0]


# ---- static mode: the same index ops in a Program ----------------------------------

def test_indexing_in_static_mode_matches_eager():
    static = pytest.importorskip('framework.static')
    a = np.random.default_rng(9).standard_normal((3, 4)).astype('float32')
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [None, 4], 'float32')
            y = x[:, ::-2]
            z = x[[0, 2], 1]
            w = x * 1.0
            w[1:, 0] = 7.0
            n = static.data('n', [], 'int64')
            head = x[:n]                          # a bound known only when the program runs
        out = static.Executor().run(main, feed={'x': a, 'n': np.array(2)},
                                    fetch_list=[y, z, w, head])
    finally:
        paddle.disable_static()
    expect_w = a.copy()
    expect_w[1:, 0] = 7.0
    np.testing.assert_array_equal(out[0], a[:, ::-2])
    np.testing.assert_array_equal(out[1], a[[0, 2], 1])
    np.testing.assert_array_equal(out[2], expect_w)
    np.testing.assert_array_equal(out[3], a[:2])


def test_index_tensors_that_want_a_gradient_get_none_and_do_not_break_backward():
    # getitem / set_value run on the engine's inlined path: their index lists
    # get no gradient, even from tensors with stop_gradient=False
    x = paddle.to_tensor(np.arange(12.0).reshape(3, 4), stop_gradient=False)
    mask = paddle.to_tensor(np.array([[True, False, True, False]] * 3))
    mask.stop_gradient = False
    rows = paddle.to_tensor([0, 2])
    rows.stop_gradient = False
    a = x * 1.0
    v = paddle.to_tensor([5.0, 6.0], stop_gradient=False)
    a[rows, 1] = v
    ((x[mask] * 3.0).sum() + (a * a).sum()).backward()
    expect = 2 * a.numpy() + 3.0 * mask.numpy()
    expect[[0, 2], 1] = 3.0 * mask.numpy()[[0, 2], 1]
    np.testing.assert_allclose(x.grad.numpy(), expect)
    np.testing.assert_allclose(v.grad.numpy(), [10.0, 12.0])
    assert mask.grad is None and rows.grad is None
