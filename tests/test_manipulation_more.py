"""Paddle 3's shape, indexing, set and structured-matrix functions as users call
them: values against numpy (or closed forms checked against Paddle 3.3.1),
gradients by finite differences, and the same results inside ``@to_static``
and in a static Program (``api_check.check_api``)."""
import itertools

import numpy as np
import pytest

import framework as paddle
from api_check import check_api

T = paddle.to_tensor


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- view / permute / narrow / unflatten / ravel / transposes ------------------------

def test_view_reshapes_and_reinterprets_bytes():
    a = _r(2, 6)
    out = check_api(lambda x: paddle.view(x, [3, 4]), a)[0]
    np.testing.assert_array_equal(out, a.reshape(3, 4))
    np.testing.assert_array_equal(check_api(lambda x: x.view_as(paddle.zeros([4, 3])), a)[0],
                                  a.reshape(4, 3))
    bits = paddle.view(T(a), 'int32')
    assert bits.shape == [2, 12] and bits.dtype == paddle.int32
    np.testing.assert_array_equal(bits.numpy(), a.view(np.int32))
    assert paddle.view(T(a), paddle.int64).shape == [2, 6]
    with pytest.raises(ValueError, match='not a multiple of the item size'):
        paddle.view(paddle.zeros([3], 'int8'), 'int32')


def test_view_is_a_new_tensor_in_place_writes_do_not_reach_the_base():
    x = paddle.arange(6.0)
    v = x.view([2, 3])
    v[0, 0] = 100.0
    assert x.numpy()[0] == 0.0 and v.numpy()[0, 0] == 100.0


def test_permute_accepts_a_list_or_separate_dims():
    a = _r(2, 3, 4)
    out = check_api(lambda x: paddle.permute(x, [2, 0, 1]), a)[0]
    np.testing.assert_array_equal(out, a.transpose(2, 0, 1))
    np.testing.assert_array_equal(T(a).permute(1, 0, 2).numpy(), a.transpose(1, 0, 2))


def test_swapaxes_matrix_transpose_and_mT():
    a = _r(2, 3, 4)
    np.testing.assert_array_equal(check_api(lambda x: paddle.swapaxes(x, 0, 2), a)[0],
                                  np.swapaxes(a, 0, 2))
    np.testing.assert_array_equal(paddle.swapdims(T(a), [1, 0, 2]).numpy(), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(paddle.transpose(T(a), 1, 2).numpy(), np.swapaxes(a, 1, 2))
    np.testing.assert_array_equal(check_api(lambda x: x.mT, a)[0], np.swapaxes(a, -1, -2))
    with pytest.raises(ValueError, match='at least 2 dims'):
        paddle.zeros([3]).mT


def test_narrow_unflatten_ravel():
    a = _r(3, 5)
    np.testing.assert_array_equal(check_api(lambda x: paddle.narrow(x, 1, 1, 3), a)[0], a[:, 1:4])
    np.testing.assert_array_equal(paddle.narrow(T(a), -1, -2, 2).numpy(), a[:, 3:])
    np.testing.assert_array_equal(paddle.narrow(T(a), 0, T(1), 2).numpy(), a[1:3])
    with pytest.raises(ValueError, match='exceeds dim 1 of size 5'):
        paddle.narrow(T(a), 1, 4, 2)
    b = _r(6, 4)
    assert check_api(lambda x: paddle.unflatten(x, 0, [2, -1]), b)[0].shape == (2, 3, 4)
    assert paddle.unflatten(T(b), -1, T([2, 2])).shape == [6, 2, 2]
    with pytest.raises(ValueError, match='does not multiply to the size 6'):
        paddle.unflatten(T(b), 0, [4, -1])
    np.testing.assert_array_equal(check_api(paddle.ravel, a)[0], a.ravel())
    assert paddle.ravel(T(3.0)).shape == [1]


# ---- splits and stacks ------------------------------------------------------------

@pytest.mark.parametrize('spec', [3, [2, 5], [5, 2], (-2, 9), [0]])
def test_tensor_split_is_numpy_array_split(spec):
    a = _r(7, 2)
    got = check_api(lambda x: paddle.tensor_split(x, spec), a)
    want = np.array_split(a, spec) if isinstance(spec, int) else np.split(a, spec)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_hsplit_vsplit_dsplit_and_split_with_sizes():
    a = _r(4, 6, 2)
    for fn, ref in [(paddle.hsplit, np.hsplit), (paddle.vsplit, np.vsplit),
                    (paddle.dsplit, np.dsplit)]:
        for spec in (2, [1, 3]):
            for g, w in zip(fn(T(a), spec), ref(a, spec)):
                np.testing.assert_array_equal(g.numpy(), w)
    assert [t.shape for t in paddle.hsplit(T(np.arange(5)), 2)] == [[3], [2]]
    with pytest.raises(ValueError, match='at least 3 dims'):
        paddle.dsplit(paddle.zeros([2, 2]), 2)
    parts = check_api(lambda x: x.split_with_sizes([1, 4, 1], dim=1), a)
    assert [p.shape for p in parts] == [(4, 1, 2), (4, 4, 2), (4, 1, 2)]
    with pytest.raises(ValueError, match='add up to the size 6'):
        T(a).split_with_sizes([1, 2], dim=1)


def test_numpy_style_stacks():
    a, b = _r(2, 3), _r(2, 3, seed=1)
    for fn, ref in [(paddle.hstack, np.hstack), (paddle.vstack, np.vstack),
                    (paddle.dstack, np.dstack), (paddle.column_stack, np.column_stack),
                    (paddle.row_stack, np.vstack)]:
        np.testing.assert_array_equal(check_api(lambda x, y: fn([x, y]), a, b)[0], ref([a, b]))
    u, v = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    for fn, ref in [(paddle.hstack, np.hstack), (paddle.vstack, np.vstack),
                    (paddle.dstack, np.dstack), (paddle.column_stack, np.column_stack)]:
        np.testing.assert_array_equal(fn([T(u), T(v)]).numpy(), ref([u, v]))
    np.testing.assert_array_equal(paddle.cat([T(u), T(v)]).numpy(), np.concatenate([u, v]))
    np.testing.assert_array_equal(paddle.concatenate([T(a), T(b)], 1).numpy(),
                                  np.concatenate([a, b], 1))


def test_atleast_nd_follow_numpy():
    for fn, ref in [(paddle.atleast_1d, np.atleast_1d), (paddle.atleast_2d, np.atleast_2d),
                    (paddle.atleast_3d, np.atleast_3d)]:
        for a in (np.array(1.5), np.arange(3.0), np.ones((2, 3))):
            assert tuple(fn(T(a)).shape) == ref(a).shape
        outs = fn(T(1.0), T([1.0, 2.0]))
        assert isinstance(outs, list) and len(outs) == 2
        assert fn([T(1.0)]).shape == list(ref(1.0).shape)     # a list of one tensor
    assert check_api(lambda x: paddle.atleast_3d(x), _r(3))[0].shape == (1, 3, 1)


# ---- rot90 / reverse / crop / unfold / as_strided -------------------------------------

@pytest.mark.parametrize('k,axes', [(1, [0, 1]), (2, [0, 1]), (3, [0, 1]), (-1, [1, 0]),
                                    (5, [2, 0]), (0, [0, 1])])
def test_rot90_matches_numpy(k, axes):
    a = _r(2, 3, 4)
    np.testing.assert_array_equal(check_api(lambda x: paddle.rot90(x, k, axes), a)[0],
                                  np.rot90(a, k, axes))


def test_reverse_and_crop():
    a = _r(3, 4)
    np.testing.assert_array_equal(check_api(lambda x: paddle.reverse(x, [0, 1]), a)[0],
                                  a[::-1, ::-1])
    np.testing.assert_array_equal(check_api(lambda x: paddle.crop(x, [2, 2], [1, 1]), a)[0],
                                  a[1:3, 1:3])
    np.testing.assert_array_equal(paddle.crop(T(a), [-1, 2], [1, 0]).numpy(), a[1:, :2])
    np.testing.assert_array_equal(paddle.crop(T(a)).numpy(), a)
    with pytest.raises(ValueError, match='exceed dim 0'):
        paddle.crop(T(a), offsets=[1, 0])


def test_unfold_gives_sliding_windows():
    a = _r(2, 7, 3)
    out = check_api(lambda x: x.unfold(1, 3, 2), a)[0]
    want = np.stack([a[:, s:s + 3] for s in range(0, 5, 2)], axis=1).transpose(0, 1, 3, 2)
    np.testing.assert_array_equal(out, want)
    assert paddle.unfold(T(a), -1, 3, 1).shape == [2, 7, 1, 3]
    with pytest.raises(ValueError, match='size'):
        T(a).unfold(1, 8, 1)


def test_as_strided_reads_elements_offset_in_bytes():
    a = np.arange(12.0)
    out = check_api(lambda x: paddle.as_strided(x, [3, 2], [3, 1], 8), a)[0]
    np.testing.assert_array_equal(out, np.lib.stride_tricks.as_strided(
        a[1:], (3, 2), (24, 8)))
    with pytest.raises(ValueError, match='multiple of the item size'):
        paddle.as_strided(T(a), [2], [1], 3)
    with pytest.raises(ValueError, match='reads element 12'):
        paddle.as_strided(T(a), [2], [12], 0)


def test_broadcast_shape_rank_and_tensor_repeat():
    assert paddle.broadcast_shape([2, 1, 3], [4, 1]) == [2, 4, 3]
    assert paddle.broadcast_shapes([2, 1], [1, 3], [5, 1, 1]) == [5, 2, 3]
    with pytest.raises(ValueError, match='cannot be broadcast'):
        paddle.broadcast_shape([2], [3])
    r = paddle.rank(paddle.zeros([2, 3]))
    assert r.dtype == paddle.int32 and r.shape == [] and int(r) == 2
    a = _r(2, 3)
    np.testing.assert_array_equal(check_api(lambda x: x.repeat(2, 1, 2), a)[0],
                                  np.tile(a, (2, 1, 2)))
    np.testing.assert_array_equal(T(a).repeat([2, 2]).numpy(), np.tile(a, (2, 2)))


# ---- take / take_along_dim / index_fill / index_put / index_sample -----------------------

def test_take_modes():
    a = _r(2, 3)
    idx = np.array([[0, 5], [-1, 2]])
    np.testing.assert_array_equal(check_api(lambda x, i: paddle.take(x, i), a, idx)[0],
                                  np.take(a, idx))
    big = np.array([7, -8, 13])
    np.testing.assert_array_equal(paddle.take(T(a), T(big), mode='wrap').numpy(),
                                  np.take(a, big, mode='wrap'))
    np.testing.assert_array_equal(check_api(lambda x, i: paddle.take(x, i, mode='clip'),
                                            a, big)[0], [a.flat[5], a.flat[0], a.flat[5]])
    with pytest.raises(ValueError, match='index 6 is out of range'):
        paddle.take(T(a), T([6]))


def test_take_along_dim_with_and_without_broadcast():
    a = _r(2, 3)
    idx = np.array([[0], [2]])
    np.testing.assert_array_equal(check_api(lambda x, i: paddle.take_along_dim(x, i, 1), a,
                                            idx)[0], np.take_along_axis(a, idx, 1))
    rows = np.array([[1, 0]])
    out = check_api(lambda x, i: paddle.take_along_axis(x, i, 0, broadcast=False), a, rows)[0]
    np.testing.assert_array_equal(out, [[a[1, 0], a[0, 1]]])
    o = paddle.zeros([1])
    assert paddle.take_along_axis(T(a), T(idx), 1, out=o) is o and o.shape == [2, 1]


def test_index_fill():
    a = _r(3, 4)
    out = check_api(lambda x, i: paddle.index_fill(x, i, 1, -1.5), a, np.array([0, 2, 2]))[0]
    want = a.copy()
    want[:, [0, 2]] = -1.5
    np.testing.assert_array_equal(out, want)
    got = paddle.index_fill(T(a), T([1]), 0, T(7.0)).numpy()
    assert (got[1] == 7).all() and (got[[0, 2]] == a[[0, 2]]).all()


def test_index_put_assign_and_accumulate():
    a = _r(3, 3)
    rows, cols = np.array([0, 1, 0]), np.array([1, 2, 1])
    v = np.array([1.0, 2.0, 3.0])
    out = check_api(lambda x, r, c, val: paddle.index_put(x, (r, c), val), a, rows, cols, v)[0]
    want = a.copy()
    want[rows, cols] = v
    np.testing.assert_array_equal(out, want)
    acc = check_api(lambda x, r, c, val: paddle.index_put(x, (r, c), val, accumulate=True),
                    a, rows, cols, v)[0]
    want = a.copy()
    np.add.at(want, (rows, cols), v)
    np.testing.assert_allclose(acc, want)
    mask = a > 0
    got = paddle.index_put(T(a), (T(mask),), T(9.0)).numpy()
    np.testing.assert_array_equal(got, np.where(mask, 9.0, a))
    got = paddle.index_put(T(a), (T([0, 2]),), T([5.0, 6.0, 7.0])).numpy()
    np.testing.assert_array_equal(got[[0, 2]], [[5, 6, 7]] * 2)


def test_index_sample_and_shard_index():
    a = _r(2, 4)
    idx = np.array([[0, 3, 3], [1, 1, 2]])
    np.testing.assert_array_equal(check_api(paddle.index_sample, a, idx)[0],
                                  np.take_along_axis(a, idx, 1))
    lab = np.array([[16], [1], [10]])
    np.testing.assert_array_equal(paddle.shard_index(T(lab), 20, 2, 0).numpy(), [[-1], [1], [-1]])
    np.testing.assert_array_equal(paddle.shard_index(T(lab), 20, 2, 1, -5).numpy(),
                                  [[6], [-5], [0]])


def test_masked_scatter_fills_true_entries_in_order():
    a = _r(2, 3)
    mask = a > 0
    v = _r(6, seed=3)
    out = check_api(lambda x, val: paddle.masked_scatter(x, paddle.to_tensor(mask), val), a, v)[0]
    want = a.copy()
    want[mask] = v[:mask.sum()]
    np.testing.assert_array_equal(out, want)
    row = np.array([True, False, True])
    got = paddle.masked_scatter(T(a), T(row), T(v)).numpy()
    want = a.copy()
    want[:, row] = v[:4].reshape(2, 2)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match='6 true entries but value has only 2'):
        paddle.masked_scatter(T(a), T(np.ones((2, 3), bool)), T(np.array([1.0, 2.0])))


# ---- scatter_reduce / scatter_add / put_along_axis / scatter's PyTorch form ---------------

def _ref_scatter(x, dim, index, src, reduce, include_self):
    out = x.copy()
    groups = {}
    for p in itertools.product(*map(range, index.shape)):
        t = list(p)
        t[dim] = index[p]
        groups.setdefault(tuple(t), []).append(src[p])
    for t, vals in groups.items():
        pool = ([x[t]] if include_self else []) + vals
        out[t] = {'sum': np.sum, 'prod': np.prod, 'mean': np.mean, 'amin': np.min,
                  'amax': np.max}[reduce](pool)
    return out


@pytest.mark.parametrize('reduce', ['sum', 'prod', 'mean', 'amin', 'amax'])
@pytest.mark.parametrize('include_self', [True, False])
def test_scatter_reduce_all_modes(reduce, include_self):
    x, src = _r(3, 4), _r(2, 4, seed=2)
    index = np.array([[0, 1, 0, 2], [2, 0, 0, 2]])
    out = check_api(lambda a, s: paddle.scatter_reduce(a, 0, paddle.to_tensor(index), s, reduce,
                                                       include_self=include_self), x, src)[0]
    np.testing.assert_allclose(out, _ref_scatter(x, 0, index, src, reduce, include_self))


def test_scatter_reduce_values_match_paddle():
    inp = T([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    src = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    idx = T([[0, 1, 0], [1, 0, 0]])
    assert paddle.scatter_reduce(inp, 0, idx, src, 'mean').numpy().tolist() == \
        [[5.5, 12.5, 13.0], [22.0, 26.0, 60.0]]
    assert paddle.scatter_reduce(inp.astype('int64'), 0, idx, src.astype('int64'),
                                 'mean').numpy().tolist() == [[5, 12, 13], [22, 26, 60]]
    assert paddle.scatter_add(inp, 1, idx, src).numpy().tolist() == \
        [[14.0, 22.0, 30.0], [51.0, 54.0, 60.0]]
    assert paddle.scatter_reduce(inp, 1, T([[-1, 0]]), src, 'sum').numpy().tolist() == \
        [[12.0, 20.0, 31.0], [40.0, 50.0, 60.0]]
    with pytest.raises(ValueError, match='out of bounds for dim 1 with size 3'):
        paddle.scatter_reduce(inp, 1, T([[3, 0]]), src, 'sum')
    with pytest.raises(ValueError, match="reduce must be"):
        paddle.scatter_reduce(inp, 1, idx, src, 'max')


def test_scatter_reduce_gradients_ties_and_zeros():
    x = T([[5.0, 1.0], [3.0, 4.0]], stop_gradient=False)
    s = T([[5.0, 1.0]], stop_gradient=False)
    paddle.scatter_reduce(x, 0, T([[0, 0]]), s, 'amax').sum().backward()
    assert x.grad.numpy().tolist() == [[0.5, 0.5], [1.0, 1.0]]   # ties share evenly
    assert s.grad.numpy().tolist() == [[0.5, 0.5]]
    x = T([[2.0, 0.0]], stop_gradient=False)
    s = T([[3.0, 5.0], [0.0, 7.0]], stop_gradient=False)
    paddle.scatter_reduce(x, 0, T([[0, 0], [0, 0]]), s, 'prod').sum().backward()
    assert x.grad.numpy().tolist() == [[0.0, 35.0]]             # exact at zeros
    assert s.grad.numpy().tolist() == [[0.0, 0.0], [6.0, 0.0]]


def test_put_along_axis_modes_and_broadcast():
    inp = T([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]])
    src = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    idx = T([[0, 1, 0], [1, 0, 0]])
    assert paddle.put_along_axis(inp, idx, src, 0, 'mul').numpy().tolist() == \
        [[10.0, 100.0, 540.0], [160.0, 100.0, 60.0]]
    assert paddle.put_along_axis(inp, idx, src, 0, 'mean', include_self=False
                                 ).numpy().tolist() == [[1.0, 5.0, 4.5], [4.0, 2.0, 60.0]]
    assert paddle.put_along_axis(inp, T([[0], [1]]), 5.0, 1, 'amax').numpy().tolist() == \
        [[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]
    got = paddle.put_along_axis(inp, T([[0, 1], [1, 0]]), T([[7.0, 8.0], [9.0, 1.0]]), 1,
                                broadcast=False)
    assert got.numpy().tolist() == [[7.0, 8.0, 30.0], [1.0, 9.0, 60.0]]
    with pytest.raises(ValueError, match="reduce must be"):
        paddle.put_along_axis(inp, idx, src, 0, 'max')


def test_scatter_pytorch_form_and_paddle_form():
    z = paddle.zeros([2, 3])
    idx, src = T([[0, 1], [2, 2]]), T([[1.0, 2.0], [3.0, 4.0]])
    assert paddle.scatter(z, 1, idx, src).numpy().tolist() == [[1, 2, 0], [0, 0, 4]]
    assert paddle.scatter(z, 1, idx, src, reduce='add').numpy().tolist() == [[1, 2, 0], [0, 0, 7]]
    assert paddle.scatter(paddle.ones([2, 3]), 1, idx, src, reduce='multiply'
                          ).numpy().tolist() == [[1, 2, 1], [1, 1, 12]]
    rows = paddle.scatter(paddle.zeros([3, 2]), T([2, 2]), src, overwrite=False)
    assert rows.numpy().tolist() == [[0, 0], [0, 0], [4, 6]]


# ---- select / slice / diagonal scatter, diag_embed, diagflat -------------------------------

def test_select_and_slice_scatter():
    a, v = _r(2, 3), _r(3, seed=1)
    out = check_api(lambda x, y: paddle.select_scatter(x, y, 0, 1), a, v)[0]
    want = a.copy()
    want[1] = v
    np.testing.assert_array_equal(out, want)
    w = _r(3, 2, seed=2)
    out = check_api(lambda x, y: paddle.slice_scatter(x, y, [1], [0], [4], [2]), _r(3, 4), w)[0]
    want = _r(3, 4)
    want[:, 0:4:2] = w
    np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match="slice's shape"):
        paddle.slice_scatter(T(_r(3, 4)), T(_r(2, 2)), [1], [0], [4], [2])


@pytest.mark.parametrize('offset,a1,a2', [(0, 0, 1), (1, 1, 2), (-1, 2, 0), (2, -1, -2)])
def test_diagonal_scatter(offset, a1, a2):
    a = _r(3, 4, 5)
    y = _r(*np.diagonal(a, offset, a1, a2).shape, seed=4)
    out = check_api(lambda x, v: paddle.diagonal_scatter(x, v, offset, a1, a2), a, y)[0]
    np.testing.assert_array_equal(np.diagonal(out, offset, a1, a2), y)
    mask = np.ones_like(a, bool)
    idx = np.indices(a.shape)
    mask[idx[a1 % 3] + offset == idx[a2 % 3]] = False
    np.testing.assert_array_equal(out[mask], a[mask])


def test_diag_embed_and_diagflat():
    a = _r(2, 3)
    out = check_api(lambda x: paddle.diag_embed(x, 1), a)[0]
    want = np.zeros((2, 4, 4))
    for b in range(2):
        want[b] = np.diag(a[b], 1)
    np.testing.assert_array_equal(out, want)
    out = check_api(lambda x: paddle.diag_embed(x, -1, 0, 2), a)[0]
    assert out.shape == (4, 2, 4)
    np.testing.assert_array_equal(out.transpose(1, 0, 2), np.stack([np.diag(r, -1) for r in a]))
    np.testing.assert_array_equal(check_api(lambda x: paddle.diagflat(x, -1), a)[0],
                                  np.diagflat(a, -1))


def test_fill_diagonal_and_fill_diagonal_tensor_in_place():
    for shape, off, wrap in [((3, 3), 1, False), ((5, 2), 0, True), ((7, 3), 1, True),
                             ((2, 2, 2), 0, False)]:
        x = paddle.zeros(shape)
        assert x.fill_diagonal_(1.0, offset=off, wrap=wrap) is x and x.inplace_version == 1
        if len(shape) == 2 and off == 0:
            want = np.zeros(shape)
            np.fill_diagonal(want, 1.0, wrap=wrap)
            np.testing.assert_array_equal(x.numpy(), want)
    x = paddle.zeros([7, 3])
    x.fill_diagonal_(1.0, offset=1, wrap=True)
    assert np.argwhere(x.numpy()).tolist() == [[0, 1], [1, 2], [4, 1], [5, 2]]   # Paddle's rows
    x = paddle.zeros([2, 3, 3])
    x.fill_diagonal_tensor_(T([[1.0, 2.0], [3, 4], [5, 6]]), dim1=0, dim2=2)
    assert x.numpy()[1].tolist() == [[0, 2, 0], [0, 4, 0], [0, 6, 0]]


# ---- block_diag / cartesian_prod / combinations / vander / tri indices / repeat_interleave ---

def test_block_diag_cartesian_prod_combinations():
    a, b = _r(2, 2), _r(1, 3, seed=1)
    out = check_api(lambda x, y: paddle.block_diag([x, y]), a, b)[0]
    want = np.zeros((3, 5))
    want[:2, :2], want[2:, 2:] = a, b
    np.testing.assert_array_equal(out, want)
    assert paddle.block_diag([T([[1, 2]]), T([[3], [4]]), T(5)]).numpy().tolist() == \
        [[1, 2, 0, 0], [0, 0, 3, 0], [0, 0, 4, 0], [0, 0, 0, 5]]
    u, v = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    out = check_api(lambda x, y: paddle.cartesian_prod([x, y]), u, v)[0]
    np.testing.assert_array_equal(out, list(itertools.product(u, v)))
    w = _r(4)
    out = check_api(lambda x: paddle.combinations(x, 3), w)[0]
    np.testing.assert_array_equal(out, list(itertools.combinations(w, 3)))
    out = paddle.combinations(T(w), 2, with_replacement=True).numpy()
    np.testing.assert_array_equal(out, list(itertools.combinations_with_replacement(w, 2)))
    assert paddle.combinations(T([1, 2]), 3).shape == [0, 3]
    assert paddle.combinations(T([1, 2]), 0).shape == [0]


def test_vander_and_triangle_indices():
    x = _r(4)
    np.testing.assert_allclose(check_api(paddle.vander, x)[0], np.vander(x))
    np.testing.assert_allclose(check_api(lambda t: paddle.vander(t, 3, increasing=True), x)[0],
                               np.vander(x, 3, increasing=True))
    assert paddle.vander(T([2, 3]), 4).numpy().tolist() == [[8, 4, 2, 1], [27, 9, 3, 1]]
    assert paddle.vander(T([1.0, 2.0]), 0).shape == [2, 0]
    np.testing.assert_array_equal(paddle.tril_indices(4, 3, -1).numpy(), np.tril_indices(4, -1, 3))
    np.testing.assert_array_equal(paddle.triu_indices(3, 4, 1).numpy(), np.triu_indices(3, 1, 4))
    assert paddle.triu_indices(3).shape == [2, 6]
    assert paddle.tril_indices(3, 3, dtype='int32').dtype == paddle.int32


def test_repeat_interleave_int_and_tensor_repeats():
    a = _r(2, 3)
    np.testing.assert_array_equal(check_api(lambda x: paddle.repeat_interleave(x, 2, 1), a)[0],
                                  np.repeat(a, 2, 1))
    np.testing.assert_array_equal(check_api(lambda x: paddle.repeat_interleave(x, 2), a)[0],
                                  np.repeat(a, 2))
    reps = np.array([1, 0, 2])
    out = check_api(lambda x, r: paddle.repeat_interleave(x, r, axis=1), a, reps)[0]
    np.testing.assert_array_equal(out, np.repeat(a, reps, 1))
    assert paddle.repeat_interleave(T([1, 2]), 3, output_size=6).numpy().tolist() == \
        [1, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match='repeats has 2 entries but the axis has size 3'):
        paddle.repeat_interleave(T(a), T([1, 2]), axis=1)


# ---- unique / searchsorted / bucketize / isin / argwhere ----------------------------------

def test_unique_outputs_and_order():
    x = T([2, 3, 3, 1, 5, 3])
    out, index, inverse, counts = paddle.unique(x, return_index=True, return_inverse=True,
                                                return_counts=True)
    assert out.numpy().tolist() == [1, 2, 3, 5]
    assert index.numpy().tolist() == [3, 0, 1, 4]
    assert inverse.numpy().tolist() == [1, 2, 2, 0, 3, 2]
    assert counts.numpy().tolist() == [1, 1, 3, 1]
    assert len(paddle.unique(x, return_counts=True)) == 2
    m = T([[2, 1, 3], [3, 0, 1], [2, 1, 3]])
    rows, inv = paddle.unique(m, axis=0, return_inverse=True)
    assert rows.numpy().tolist() == [[2, 1, 3], [3, 0, 1]] and inv.numpy().tolist() == [0, 1, 0]
    assert paddle.unique(m, return_inverse=True)[1].shape == [9]
    assert paddle.unique(T([2.0, 1.0]), dtype='int32', return_index=True)[1].dtype == paddle.int32
    assert paddle.unique(T(5)).shape == [1]


def test_unique_consecutive():
    out, inv, cnt = paddle.unique_consecutive(T([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True,
                                              return_counts=True)
    assert out.numpy().tolist() == [1, 2, 3, 1, 2]
    assert inv.numpy().tolist() == [0, 0, 1, 1, 2, 3, 3, 4]
    assert cnt.numpy().tolist() == [2, 2, 1, 2, 1]
    rows, cnt = paddle.unique_consecutive(T([[1, 2], [1, 2], [3, 4]]), axis=0, return_counts=True)
    assert rows.numpy().tolist() == [[1, 2], [3, 4]] and cnt.numpy().tolist() == [2, 1]


def test_searchsorted_and_bucketize():
    s = np.array([[1, 3, 5, 7, 9], [2, 4, 6, 8, 10]])
    v = np.array([[3, 6, 9], [3, 6, 9]])
    left = check_api(lambda a, b: paddle.searchsorted(a, b), s, v)[0]
    np.testing.assert_array_equal(left, [np.searchsorted(s[i], v[i]) for i in range(2)])
    for right in (paddle.searchsorted(T(s), T(v), right=True),
                  paddle.searchsorted(T(s), T(v), side='right')):
        np.testing.assert_array_equal(right.numpy(), [np.searchsorted(s[i], v[i], 'right')
                                                      for i in range(2)])
    assert paddle.searchsorted(T(s), T(v), out_int32=True).dtype == paddle.int32
    assert paddle.searchsorted(T([5, 1, 3]), T([2, 4]), sorter=T([1, 2, 0])).numpy().tolist() == \
        [1, 2]
    assert paddle.searchsorted(T([1.0, 3.0]), T([np.nan, 2.0])).numpy().tolist() == [2, 1]
    with pytest.raises(ValueError, match='must agree in all but the last dim'):
        paddle.searchsorted(T(s), T([2, 3]))
    x = np.array([[2, 3], [7, 9]])
    np.testing.assert_array_equal(paddle.bucketize(T(x), T([1, 3, 5, 7])).numpy(),
                                  np.searchsorted([1, 3, 5, 7], x))
    with pytest.raises(ValueError, match='must be 1-D'):
        paddle.bucketize(T(x), T(s))


def test_isin_and_argwhere():
    x = np.array([[1, 2], [3, 4]])
    out = check_api(lambda a, b: paddle.isin(a, b), x, np.array([4, 1, 9]))[0]
    np.testing.assert_array_equal(out, np.isin(x, [4, 1, 9]))
    np.testing.assert_array_equal(paddle.isin(T(x), T([2]), invert=True).numpy(),
                                  np.isin(x, [2], invert=True))
    np.testing.assert_array_equal(paddle.argwhere(T(x > 2)).numpy(), np.argwhere(x > 2))
    assert paddle.argwhere(T([0, 0])).shape == [0, 1]
    with pytest.raises(ValueError, match='at least 1 dim'):
        paddle.argwhere(T(3))


# ---- in-place variants: values, version counter, leaf check, static mode --------------------

@pytest.mark.parametrize('name,args,expect', [
    ('squeeze_', ([0],), lambda a: a[0]),
    ('unsqueeze_', (1,), lambda a: a[:, None]),
    ('flatten_', (), lambda a: a.reshape(-1)),
    ('reshape_', ([3, 2],), lambda a: a.reshape(3, 2)),
    ('transpose_', ([2, 1, 0],), lambda a: a.transpose(2, 1, 0)),
    ('tril_', (), lambda a: np.tril(a)),
    ('triu_', (1,), lambda a: np.triu(a, 1)),
])
def test_inplace_shape_functions(name, args, expect):
    a = _r(1, 2, 3)
    x = T(a)
    out = getattr(paddle, name)(x, *args)
    assert out is x and x.inplace_version == 1
    np.testing.assert_array_equal(x.numpy(), expect(a))


def test_inplace_indexing_methods_update_and_bump_version():
    x = paddle.zeros([3, 3])
    x.index_fill_(T([1]), 0, 2.0)
    x.index_put_((T([0]), T([2])), T(5.0))
    x.masked_scatter_(x == 0, paddle.arange(9.0))
    x.index_add_(T([2]), 1, T([[1.0], [1.0], [1.0]]), alpha=10)
    x.scatter_add_(0, T([[0, 0, 0]]), T([[1.0, 1.0, 1.0]]))
    x.put_along_axis_(T([[1], [1], [1]]), -1.0, 1)
    assert x.inplace_version == 6
    assert x.numpy().tolist() == [[1.0, -1.0, 16.0], [2.0, -1.0, 12.0], [2.0, -1.0, 14.0]]
    t = paddle.ones([2, 3])
    assert paddle.t_(paddle.ones([2, 3])).shape == [3, 2] and t.t_().shape == [3, 2]
    y = paddle.zeros([3])
    paddle.where_(T([True, False, True]), y, paddle.ones([3]))
    assert y.numpy().tolist() == [0.0, 1.0, 0.0] and y.inplace_version == 1
    z = paddle.zeros([3])
    z.scatter_(T([1]), T([5.0]))
    assert z.numpy().tolist() == [0.0, 5.0, 0.0]
    w = paddle.zeros([2, 2])
    w.scatter_(1, T([[1], [0]]), T([[5.0], [6.0]]))
    assert w.numpy().tolist() == [[0.0, 5.0], [6.0, 0.0]]


def test_inplace_on_leaf_requiring_grad_refuses_and_saved_tensor_check():
    x = T(_r(2, 3), stop_gradient=False)
    with pytest.raises(RuntimeError, match='index_fill_'):
        x.index_fill_(T([0]), 0, 1.0)
    h = x * 2.0
    y = h * h                      # saves h
    h.index_fill_(T([0]), 0, 0.0)
    with pytest.raises(RuntimeError, match='modified by an inplace operation|version'):
        y.sum().backward()


def test_inplace_gradient_flows_through_the_update():
    a = _r(2, 3)
    x = T(a, stop_gradient=False)
    h = x * 1.0
    h.index_fill_(T([1]), 1, 0.0)
    h.transpose_([1, 0])
    (h * h).sum().backward()
    want = 2 * a
    want[:, 1] = 0
    np.testing.assert_allclose(x.grad.numpy(), want)


def test_inplace_functions_show_paddle_signatures():
    import inspect
    assert list(inspect.signature(paddle.squeeze_).parameters) == ['x', 'axis', 'name']
    assert list(inspect.signature(paddle.Tensor.index_fill_).parameters) == \
        ['x', 'index', 'axis', 'value', 'name']


def test_inplace_methods_in_to_static():
    def f(x):
        y = x * 1.0
        y.index_fill_(paddle.to_tensor([0]), 1, -1.0)
        y.unsqueeze_(0)
        return y
    a = _r(2, 3)
    got = paddle.jit.to_static(f)(T(a))
    np.testing.assert_array_equal(got.numpy(), f(T(a)).numpy())
    assert got.shape == [1, 2, 3]


def test_multiplex_picks_rows():
    a, b = _r(3, 2), _r(3, 2, seed=1)
    idx = np.array([[1], [0], [1]], np.int32)
    out = check_api(lambda x, y, i: paddle.multiplex([x, y], i), a, b, idx)[0]
    np.testing.assert_array_equal(out, np.where(idx == 1, b, a))
    with pytest.raises(ValueError, match='shape'):
        paddle.multiplex([T(a), T(b)], T([1, 0, 1]))


def test_msort_and_increment():
    a = _r(3, 2)
    np.testing.assert_array_equal(check_api(paddle.msort, a)[0], np.sort(a, axis=0))
    i = T(1, 'int64')
    assert paddle.increment(i) is i and int(i) == 2 and i.dtype == paddle.int64
    f = T([1.5])
    paddle.increment(f, 2)
    assert f.numpy().tolist() == [3.5]
    with pytest.raises(ValueError, match='exactly one element'):
        paddle.increment(paddle.ones([2]))

    @paddle.jit.to_static
    def count(n):
        i = paddle.zeros([1], 'int64')
        while i < n:
            i = paddle.increment(i)     # the converter tracks assigned loop variables
        return i
    assert int(count(T([4]))) == 4


def test_nonzero_as_tuple_gives_1d_indices():
    a = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 0.0]], np.float32)
    rows, cols = paddle.nonzero(T(a), as_tuple=True)
    assert rows.shape == [3] and cols.shape == [3]
    np.testing.assert_array_equal(rows.numpy(), np.nonzero(a)[0])
    np.testing.assert_array_equal(cols.numpy(), np.nonzero(a)[1])
    np.testing.assert_array_equal(T(a)[paddle.where(T(a) > 0)].numpy(), a[a > 0])
    with pytest.raises(ValueError, match='at least 1 dim'):
        paddle.nonzero(T(1.0))

    @paddle.jit.to_static
    def picked(x):
        return paddle.nonzero(x, as_tuple=True)[1]
    np.testing.assert_array_equal(picked(T(a)).numpy(), np.nonzero(a)[1])
