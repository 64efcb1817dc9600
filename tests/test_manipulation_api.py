"""Shape, layout, gather/scatter and sorting APIs as Paddle users call them."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F


def _t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _backward(x, y, seed=1):
    """Run backward of sum(y * w) for a random w; returns (x.grad, w)."""
    w = np.random.default_rng(seed).standard_normal(y.shape)
    y.backward(paddle.to_tensor(w))
    return x.grad.numpy(), w


# ---- reshape family ----------------------------------------------------------------

def test_reshape_paddle_semantics():
    x = _t(np.arange(24.0).reshape(2, 3, 4))
    assert paddle.reshape(x, [0, -1]).shape == [2, 12]
    assert paddle.reshape(x, [-1, 0, 2]).shape == [4, 3, 2]
    assert x.reshape([4, 6]).shape == [4, 6]
    assert x.reshape((2, 12)).shape == [2, 12]
    assert paddle.reshape(x, [paddle.to_tensor(6), 4]).shape == [6, 4]   # 0-d tensors in shape
    assert paddle.reshape(x, paddle.to_tensor([3, 8])).shape == [3, 8]   # shape as a tensor
    np.testing.assert_array_equal(paddle.reshape(x, [-1]).numpy(), np.arange(24.0))


def test_reshape_errors_name_both_shapes():
    x = paddle.zeros([2, 3])
    with pytest.raises(Exception, match=r'shape \[2, 3\] \(6 elements\) to shape \[4, -1\]'):
        paddle.reshape(x, [4, -1])
    with pytest.raises(Exception, match=r'shape \[2, 3\].*to shape \[5\]'):
        x.reshape([5])
    with pytest.raises(Exception, match='only one dim of shape may be -1'):
        x.reshape([-1, -1])


def test_reshape_gradient_and_inplace_reshape():
    a = _rand(2, 6)
    x = _t(a, grad=True)
    g, w = _backward(x, x.reshape([3, -1]))
    np.testing.assert_allclose(g, w.reshape(2, 6))
    y = paddle.zeros([2, 3])
    y.reshape_([3, 2])
    assert y.shape == [3, 2]


def test_inplace_view_ops_on_non_leaf_keep_correct_gradients():
    a = np.array([[1.0, 2.0, 3.0]])
    x = _t(a, True)
    h = x * 2.0
    h.reshape_([3])                      # the reshape's backward must use h's old shape
    h.unsqueeze_(0)
    assert h.shape == [1, 3]
    (h * h).backward(paddle.ones([1, 3], 'float64'))
    np.testing.assert_allclose(x.grad.numpy(), 8 * a)


def test_squeeze_unsqueeze_flatten():
    x = paddle.zeros([1, 3, 1, 2])
    assert paddle.squeeze(x).shape == [3, 2]
    assert paddle.squeeze(x, axis=2).shape == [1, 3, 2]
    assert paddle.squeeze(x, axis=[0, -2]).shape == [3, 2]
    assert paddle.squeeze(x, axis=1).shape == [1, 3, 1, 2]    # non-1 dims stay, as Paddle
    y = paddle.zeros([5, 10])
    assert paddle.unsqueeze(y, [0, 2]).shape == [1, 5, 1, 10]  # inserted in order
    assert paddle.unsqueeze(y, -1).shape == [5, 10, 1]
    assert y.unsqueeze(paddle.to_tensor([1])).shape == [5, 1, 10]
    z = paddle.zeros([2, 3, 4, 5])
    assert paddle.flatten(z).shape == [120]
    assert paddle.flatten(z, 1, 2).shape == [2, 12, 5]
    assert z.flatten(start_axis=-2).shape == [2, 3, 20]
    assert paddle.flatten(paddle.to_tensor(3.0)).shape == [1]
    with pytest.raises(Exception, match='start_axis'):
        paddle.flatten(z, 3, 1)


def test_transpose_moveaxis_t_and_T():
    a = _rand(2, 3, 4)
    x = _t(a, grad=True)
    y = paddle.transpose(x, [2, 0, 1])
    np.testing.assert_array_equal(y.numpy(), a.transpose(2, 0, 1))
    g, w = _backward(x, y)
    np.testing.assert_allclose(g, w.transpose(1, 2, 0))
    assert x.transpose([0, -1, 1]).shape == [2, 4, 3]
    assert paddle.moveaxis(x, 0, -1).shape == [3, 4, 2]
    assert x.T.shape == [4, 3, 2]
    m = _t(_rand(2, 3))
    np.testing.assert_array_equal(m.t().numpy(), m.numpy().T)
    with pytest.raises(Exception, match='perm'):
        paddle.transpose(x, [0, 0, 1])


# ---- concat / stack / split / unbind -------------------------------------------------

def test_concat_and_stack_with_gradients():
    a, b = _rand(2, 3), _rand(1, 3, seed=1)
    x, y = _t(a, True), _t(b, True)
    c = paddle.concat([x, y], axis=0)
    np.testing.assert_array_equal(c.numpy(), np.concatenate([a, b]))
    w = np.random.default_rng(2).standard_normal(c.shape)
    c.backward(paddle.to_tensor(w))
    np.testing.assert_allclose(x.grad.numpy(), w[:2])
    np.testing.assert_allclose(y.grad.numpy(), w[2:])
    s = paddle.stack([_t(a), _t(a * 2)], axis=-1)
    assert s.shape == [2, 3, 2]
    np.testing.assert_array_equal(s.numpy()[..., 1], a * 2)
    assert paddle.concat([_t(a), _t(a)], axis=paddle.to_tensor(1)).shape == [2, 6]
    with pytest.raises(Exception, match=r'differ in dim 1'):
        paddle.concat([paddle.zeros([2, 3]), paddle.zeros([2, 4])])


def test_split_forms():
    x = _t(np.arange(18.0).reshape(3, 6))
    parts = paddle.split(x, 3, axis=1)
    assert isinstance(parts, list) and [p.shape for p in parts] == [[3, 2]] * 3
    parts = paddle.split(x, [1, -1, 2], axis=-1)
    assert [p.shape for p in parts] == [[3, 1], [3, 3], [3, 2]]
    np.testing.assert_array_equal(parts[1].numpy(), x.numpy()[:, 1:4])
    assert [p.shape for p in x.split([2, paddle.to_tensor(1)], axis=0)] == [[2, 6], [1, 6]]
    assert [p.shape for p in paddle.chunk(x, 2, axis=1)] == [[3, 3], [3, 3]]
    with pytest.raises(Exception, match='into 4 equal parts'):
        paddle.split(x, 4, axis=1)
    with pytest.raises(Exception, match='add up to 5'):
        paddle.split(x, [2, 3], axis=1)


def test_split_gradient_with_unused_parts():
    a = _rand(2, 6)
    x = _t(a, True)
    _, mid, _ = paddle.split(x, [1, 3, 2], axis=1)
    g, w = _backward(x, mid)
    expect = np.zeros_like(a)
    expect[:, 1:4] = w
    np.testing.assert_allclose(g, expect)


def test_unbind_and_unstack():
    a = _rand(2, 3)
    x = _t(a, True)
    cols = paddle.unbind(x, axis=1)
    assert len(cols) == 3 and cols[0].shape == [2]
    (cols[0] * 2.0 + cols[2]).backward(paddle.ones([2], 'float64'))
    np.testing.assert_allclose(x.grad.numpy(), [[2, 0, 1], [2, 0, 1]])
    assert [r.shape for r in paddle.unstack(_t(a))] == [[3], [3]]


# ---- expand / tile / flip / roll ----------------------------------------------------

def test_expand_broadcast_and_tile():
    a = _rand(3, 1)
    x = _t(a, True)
    y = paddle.expand(x, [2, -1, 4])
    np.testing.assert_array_equal(y.numpy(), np.broadcast_to(a, (2, 3, 4)))
    g, w = _backward(x, y)
    np.testing.assert_allclose(g, w.sum(axis=(0, 2))[:, None])
    assert paddle.broadcast_to(_t(a), [3, 5]).shape == [3, 5]
    assert _t(a).expand_as(paddle.zeros([2, 3, 2])).shape == [2, 3, 2]
    with pytest.raises(Exception, match='only size-1 dims can be expanded'):
        paddle.expand(paddle.zeros([3, 2]), [3, 4])
    b = _rand(2, 3)
    xb = _t(b, True)
    t = paddle.tile(xb, [2])                         # shorter: applies to the last dims
    np.testing.assert_array_equal(t.numpy(), np.tile(b, 2))
    g, w = _backward(xb, t)
    np.testing.assert_allclose(g, w[:, :3] + w[:, 3:])
    assert xb.tile([2, 1, 1]).shape == [2, 2, 3]


def test_flip_and_roll():
    a = np.arange(6.0).reshape(2, 3)
    x = _t(a, True)
    np.testing.assert_array_equal(paddle.flip(x, -1).numpy(), a[:, ::-1])
    np.testing.assert_array_equal(paddle.flip(x, [0, 1]).numpy(), a[::-1, ::-1])
    r = paddle.roll(x, 1, axis=1)
    np.testing.assert_array_equal(r.numpy(), [[2, 0, 1], [5, 3, 4]])
    np.testing.assert_array_equal(paddle.roll(x, -1).numpy(), [[1, 2, 3], [4, 5, 0]])
    np.testing.assert_array_equal(x.roll([1, 1], [0, 1]).numpy(), np.roll(a, (1, 1), (0, 1)))
    g, w = _backward(x, r)
    np.testing.assert_allclose(g, np.roll(w, -1, axis=1))


# ---- pad ----------------------------------------------------------------------------

def test_pad_order_and_modes():
    a = np.arange(1.0, 7.0).reshape(1, 1, 2, 3)
    x = _t(a)
    out = F.pad(x, [1, 0, 0, 1], value=9.0)          # [left, right, top, bottom]
    expect = np.full((1, 1, 3, 4), 9.0)
    expect[0, 0, :2, 1:] = a[0, 0]
    np.testing.assert_array_equal(out.numpy(), expect)
    np.testing.assert_array_equal(F.pad(x, [2, 2, 1, 1], mode='reflect').numpy()[0, 0, 0],
                                  [6, 5, 4, 5, 6, 5, 4])
    np.testing.assert_array_equal(F.pad(x, [1, 1, 0, 0], mode='replicate').numpy()[0, 0],
                                  [[1, 1, 2, 3, 3], [4, 4, 5, 6, 6]])
    np.testing.assert_array_equal(F.pad(x, [1, 2, 0, 0], mode='circular').numpy()[0, 0],
                                  [[3, 1, 2, 3, 1, 2], [6, 4, 5, 6, 4, 5]])
    # full-length list: pairs from the first dim
    assert F.pad(x, [0, 0, 1, 0, 0, 2, 0, 0]).shape == [1, 2, 4, 3]
    # channels-last
    nhwc = _t(np.zeros((1, 2, 3, 4)))
    assert F.pad(nhwc, [1, 1, 2, 2], data_format='NHWC').shape == [1, 6, 5, 4]
    ncl = _t(np.zeros((1, 2, 3)))
    assert F.pad(ncl, [1, 2], mode='replicate', data_format='NCL').shape == [1, 2, 6]


@pytest.mark.slow   # importing torch takes seconds
def test_pad_gradients_all_modes_match_torch():
    torch = pytest.importorskip('torch')
    a = _rand(1, 2, 3, 4)
    for mode in ('constant', 'reflect', 'replicate', 'circular'):
        x = _t(a, True)
        y = F.pad(x, [2, 1, 1, 2], mode=mode)
        ta = torch.tensor(a, requires_grad=True)
        ty = torch.nn.functional.pad(ta, (2, 1, 1, 2), mode=mode)
        np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), err_msg=mode)
        g, w = _backward(x, y)
        ty.backward(torch.tensor(w))
        np.testing.assert_allclose(g, ta.grad.numpy(), err_msg=mode)


def test_pad_errors():
    x = paddle.zeros([1, 1, 2, 3])
    with pytest.raises(Exception, match='reflect padding'):
        F.pad(x, [3, 0, 0, 0], mode='reflect')
    with pytest.raises(Exception, match='mode must be one of'):
        F.pad(x, [1, 1, 1, 1], mode='edge')
    with pytest.raises(Exception, match='does not fit'):
        F.pad(x, [1, 1, 1, 1, 1, 1], mode='reflect')
    with pytest.raises(Exception, match='even length'):
        F.pad(x, [1, 1, 1])


# ---- gather / scatter ------------------------------------------------------------

def test_gather_index_select_and_gradients():
    a = _rand(4, 3)
    x = _t(a, True)
    idx = _t([3, 1, 3])
    y = paddle.gather(x, idx)
    np.testing.assert_array_equal(y.numpy(), a[[3, 1, 3]])
    g, w = _backward(x, y)
    expect = np.zeros_like(a)
    expect[3] = w[0] + w[2]
    expect[1] = w[1]
    np.testing.assert_allclose(g, expect)
    np.testing.assert_array_equal(paddle.index_select(_t(a), _t([2, 0]), axis=1).numpy(),
                                  a[:, [2, 0]])
    np.testing.assert_array_equal(_t(a).gather(_t([0]), axis=-1).numpy(), a[:, [0]])
    with pytest.raises(Exception, match='integer tensor'):
        paddle.gather(x, _t([0.0]))


def test_gather_nd_scatter_nd():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = _t(a)
    idx = _t([[0, 1], [1, 2]])
    np.testing.assert_array_equal(paddle.gather_nd(x, idx).numpy(), [a[0, 1], a[1, 2]])
    np.testing.assert_array_equal(paddle.gather_nd(x, _t([[1, 0, 3]])).numpy(), [a[1, 0, 3]])
    upd = _t(np.ones((2, 4)))
    out = paddle.scatter_nd_add(x, _t([[0, 1], [0, 1]]), upd)
    expect = a.copy()
    expect[0, 1] += 2
    np.testing.assert_array_equal(out.numpy(), expect)
    sn = paddle.scatter_nd(_t([[1], [1], [0]]), _t([1.0, 2.0, 4.0]), [3])
    np.testing.assert_array_equal(sn.numpy(), [4.0, 3.0, 0.0])


def test_scatter_paddle_example():
    x = _t(np.array([[1, 1], [2, 2], [3, 3]], 'float32'))
    index = _t([2, 1, 0, 1])
    updates = _t(np.array([[1, 1], [2, 2], [3, 3], [4, 4]], 'float32'))
    np.testing.assert_array_equal(paddle.scatter(x, index, updates, overwrite=False).numpy(),
                                  [[3, 3], [6, 6], [1, 1]])
    np.testing.assert_array_equal(paddle.scatter(x, index, updates).numpy(),
                                  [[3, 3], [4, 4], [1, 1]])


def test_scatter_gradients():
    a, u = _rand(3, 2), _rand(4, 2, seed=1)
    for overwrite in (True, False):
        x, up = _t(a, True), _t(u, True)
        out = paddle.scatter(x, _t([2, 1, 0, 1]), up, overwrite=overwrite)
        w = np.random.default_rng(3).standard_normal(out.shape)
        out.backward(paddle.to_tensor(w))
        np.testing.assert_allclose(x.grad.numpy(), np.zeros_like(a))   # every row replaced
        gu = w[[2, 1, 0, 1]]
        if overwrite:
            gu[1] = 0          # row 1 was overwritten by the later update
        np.testing.assert_allclose(up.grad.numpy(), gu)


def test_take_put_along_axis_and_index_add():
    a = _rand(3, 4)
    idx = _t([[0, 3], [1, 1], [2, 0]])
    np.testing.assert_array_equal(paddle.take_along_axis(_t(a), idx, 1).numpy(),
                                  np.take_along_axis(a, idx.numpy(), 1))
    out = paddle.put_along_axis(_t(a), _t([[0], [1], [2]]), 0.0, 1)
    expect = a.copy()
    expect[[0, 1, 2], [0, 1, 2]] = 0
    np.testing.assert_array_equal(out.numpy(), expect)
    added = paddle.put_along_axis(_t(a), idx, _t(np.ones((3, 2))), 1, reduce='add')
    expect = a.copy()
    np.add.at(expect, (np.array([[0, 0], [1, 1], [2, 2]]), idx.numpy()), 1.0)
    np.testing.assert_allclose(added.numpy(), expect)
    ia = paddle.index_add(_t(a), _t([0, 0]), 0, _t(np.ones((2, 4))))
    np.testing.assert_allclose(ia.numpy(), a + np.array([[2.0], [0], [0]]))


# ---- where / nonzero / masked ---------------------------------------------------------

def test_where_three_and_one_argument_forms():
    a, b = _rand(2, 3), _rand(2, 3, seed=1)
    x, y = _t(a, True), _t(b, True)
    cond = x > y
    out = paddle.where(cond, x, y)
    np.testing.assert_array_equal(out.numpy(), np.maximum(a, b))
    out.backward(paddle.ones([2, 3], 'float64'))
    np.testing.assert_array_equal(x.grad.numpy(), (a > b).astype(float))
    np.testing.assert_array_equal(y.grad.numpy(), (a <= b).astype(float))
    assert paddle.where(cond, 1.0, 0.0).dtype == paddle.float32
    np.testing.assert_array_equal(paddle.where(_t(a) > 0, _t(a), 0.0).numpy(), np.maximum(a, 0))
    rows, cols = paddle.where(_t([[0, 1], [1, 1]]) > 0)
    assert rows.shape == [3] and rows.dtype == paddle.int64      # Paddle 3.3.1: 1-D [z]
    assert rows.numpy().ravel().tolist() == [0, 1, 1]
    assert cols.numpy().ravel().tolist() == [1, 0, 1]
    nz = paddle.nonzero(_t([[1.0, 0.0], [0.0, 2.0]]))
    assert nz.tolist() == [[0, 0], [1, 1]] and nz.dtype == paddle.int64


def test_masked_fill_and_masked_select():
    a = _rand(2, 3)
    x = _t(a, True)
    mask = _t([True, False, True])                     # broadcast over rows
    out = paddle.masked_fill(x, mask, -1.0)
    np.testing.assert_array_equal(out.numpy(), np.where([True, False, True], -1.0, a))
    g, w = _backward(x, out)
    np.testing.assert_allclose(g, np.where([True, False, True], 0.0, w))
    v = _t(np.array(2.0), True)
    filled = _t(a).masked_fill(mask, v)
    filled.backward(paddle.ones([2, 3], 'float64'))
    assert v.grad.item() == 4.0
    xi = _t([1, 2, 3])
    assert paddle.masked_fill(xi, xi > 1, 0).tolist() == [1, 0, 0]
    sel = paddle.masked_select(_t(a), _t(a) > 0)
    np.testing.assert_array_equal(sel.numpy(), a[a > 0])
    np.testing.assert_array_equal(paddle.masked_select(_t(a), mask).numpy(), a[:, [0, 2]].ravel())
    xs = _t(a, True)
    g, w = _backward(xs, paddle.masked_select(xs, mask))
    expect = np.zeros_like(a)
    expect[:, [0, 2]] = w.reshape(2, 2)
    np.testing.assert_allclose(g, expect)


# ---- sorting ----------------------------------------------------------------------

def test_sort_argsort_topk():
    a = np.array([[3.0, 1.0, 2.0, 5.0], [0.5, 4.0, -1.0, 2.0]])
    x = _t(a, True)
    np.testing.assert_array_equal(paddle.sort(x).numpy(), np.sort(a, axis=-1))
    np.testing.assert_array_equal(paddle.sort(x, axis=0, descending=True).numpy(),
                                  -np.sort(-a, axis=0))
    idx = paddle.argsort(x, descending=True)
    assert idx.dtype == paddle.int64
    np.testing.assert_array_equal(idx.numpy(), np.argsort(-a, axis=-1))
    vals, ids = paddle.topk(x, 2)
    np.testing.assert_array_equal(vals.numpy(), [[5.0, 3.0], [4.0, 2.0]])
    np.testing.assert_array_equal(ids.numpy(), [[3, 0], [1, 3]])
    assert ids.dtype == paddle.int64 and ids.stop_gradient
    small, _ = x.topk(1, axis=0, largest=False)
    np.testing.assert_array_equal(small.numpy(), [[0.5, 1.0, -1.0, 2.0]])
    g, w = _backward(x, vals)
    expect = np.zeros_like(a)
    expect[0, [3, 0]] = w[0]
    expect[1, [1, 3]] = w[1]
    np.testing.assert_allclose(g, expect)
    with pytest.raises(Exception, match='k \\(5\\) must be in'):
        paddle.topk(x, 5)


def test_sort_gradient():
    a = np.array([2.0, -1.0, 3.0])
    x = _t(a, True)
    g, w = _backward(x, paddle.sort(x, descending=True))
    np.testing.assert_allclose(g, [w[1], w[2], w[0]])


# ---- one_hot / slice / misc --------------------------------------------------------

def test_one_hot():
    out = F.one_hot(_t([[1, 0], [2, 2]]), num_classes=3)
    assert out.dtype == paddle.float32 and out.shape == [2, 2, 3]
    np.testing.assert_array_equal(out.numpy()[1, 0], [0, 0, 1])
    assert paddle.one_hot(_t([0]), 2).tolist() == [[1.0, 0.0]]
    with pytest.raises(Exception, match=r'labels must be in \[0, num_classes=3\)'):
        F.one_hot(_t([3]), 3)


def test_slice_and_strided_slice():
    a = np.arange(24.0).reshape(2, 3, 4)
    x = _t(a, True)
    y = paddle.slice(x, axes=[0, 2], starts=[1, -3], ends=[100, -1])
    np.testing.assert_array_equal(y.numpy(), a[1:, :, -3:-1])
    g, w = _backward(x, y)
    expect = np.zeros_like(a)
    expect[1:, :, -3:-1] = w
    np.testing.assert_allclose(g, expect)
    s = paddle.strided_slice(_t(a), axes=[1, 2], starts=[2, 0], ends=[0, 4], strides=[-1, 2])
    np.testing.assert_array_equal(s.numpy(), a[:, 2:0:-1, 0:4:2])


def test_assign_clone_shape_numel():
    a = _rand(2, 3)
    x = _t(a, True)
    c = x.clone()
    assert c is not x and not c.stop_gradient
    g, w = _backward(x, c * 3.0)
    np.testing.assert_allclose(g, 3 * w)
    assert paddle.assign(np.ones((2, 2), 'float32')).dtype == paddle.float32
    out = paddle.zeros([2, 3], 'float64')
    paddle.assign(_t(a), output=out)
    np.testing.assert_array_equal(out.numpy(), a)
    assert paddle.shape(_t(a)).tolist() == [2, 3] and paddle.shape(_t(a)).dtype == paddle.int64
    assert paddle.numel(_t(a)).item() == 6


def test_cast_and_astype_keep_working():
    x = _t([1.5, 2.5])
    assert x.astype('int64').tolist() == [1, 2]
    assert paddle.cast(x, 'float64').dtype == paddle.float64


def test_tensor_methods_are_installed():
    x = paddle.zeros([2, 3])
    for name in ['reshape', 'transpose', 'flatten', 'squeeze', 'unsqueeze', 'expand',
                 'expand_as', 'broadcast_to', 'tile', 'flip', 'roll', 'gather', 'gather_nd',
                 'scatter', 'index_select', 'masked_fill', 'sort', 'argsort', 'topk', 'split',
                 'chunk', 'unbind', 'cast', 'astype', 'clone', 't']:
        assert callable(getattr(x, name)), name
    y = x.clone()
    y.unsqueeze_(0)
    assert y.shape == [1, 2, 3]
    z = paddle.to_tensor([1.0, -1.0])
    z.masked_fill_(z < 0, 0.0)
    assert z.tolist() == [1.0, 0.0]


# ---- infer_meta with unknown (-1) dims, as static mode builds Variables -------------

def test_infer_meta_propagates_unknown_dims():
    from framework.ops import manipulation as M, subscript
    from framework.ops.registry import Meta
    f32 = np.float32
    x = Meta((-1, 4, 6), f32)
    assert M.reshape_op.infer_meta(x, (0, -1)).shape == (-1, -1)
    assert M.reshape_op.infer_meta(x, (0, 2, 12)).shape == (-1, 2, 12)
    assert M.reshape_op.infer_meta(Meta((2, 4, 6), f32), (0, -1, 3)).shape == (2, 8, 3)
    assert M.squeeze_op.infer_meta(Meta((-1, 1, 3), f32), ()).shape == (-1, 3)
    assert M.unsqueeze_op.infer_meta(x, (0, -1)).shape == (1, -1, 4, 6, 1)
    assert M.flatten_op.infer_meta(x, 0, 1).shape == (-1, 6)
    assert M.flatten_op.infer_meta(x, 1, 2).shape == (-1, 24)
    assert M.transpose_op.infer_meta(x, (2, 0, 1)).shape == (6, -1, 4)
    assert M.concat_op.infer_meta([x, Meta((3, 4, 6), f32)], 0).shape == (-1, 4, 6)
    assert M.concat_op.infer_meta([x, Meta((3, -1, 2), f32)], 2).shape == (3, 4, 8)
    assert M.stack_op.infer_meta([x, Meta((5, 4, 6), f32)], 1).shape == (5, 2, 4, 6)
    assert [m.shape for m in M.split_op.infer_meta(x, 0, (1, -1), 2)] == [(-1, 4, 1), (-1, 4, 5)]
    assert [m.shape for m in M.split_op.infer_meta(x, 2, (), 0)] == [(-1, 4, 6)] * 2
    assert M.expand_op.infer_meta(Meta((-1, 1), f32), (2, -1, 5)).shape == (2, -1, 5)
    assert M.tile_op.infer_meta(x, (2, 1, 1)).shape == (-1, 4, 6)
    assert M.pad_op.infer_meta(x, ((1, 1), (0, 2), (3, 0)), 'constant', 0.0).shape == (-1, 6, 9)
    assert M.gather_op.infer_meta(x, Meta((-1,), np.int64), 1).shape == (-1, -1, 6)
    vals, idx = M.topk_op.infer_meta(x, 2, -1, True, True)
    assert vals.shape == (-1, 4, 2) and idx.dtype == np.int64
    assert M.where_op.infer_meta(Meta((-1, 1), np.bool_), Meta((1, 3), f32), 0.5).shape == (-1, 3)
    assert M.nonzero_op.infer_meta(x).shape == (-1, 3)
    assert subscript.getitem_op.infer_meta(x, [], [['slice', 1, None, None], ['int', 0]]).shape == (-1, 6)
    assert M.one_hot_op.infer_meta(Meta((-1,), np.int64), 5).shape == (-1, 5)
    with pytest.raises(Exception, match='cannot reshape'):
        M.reshape_op.infer_meta(Meta((2, 3), f32), (4, -1))
