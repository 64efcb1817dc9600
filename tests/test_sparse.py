"""paddle.sparse: COO/CSR tensors, conversions, ops and their gradients, against
dense numpy references (gradients by finite differences in float64)."""
import numpy as np
import pytest

import framework as paddle
import framework.sparse as sparse

RNG = np.random.RandomState(0)


def _dense_example(shape=(3, 4), density=0.5, dtype='float64'):
    a = RNG.standard_normal(shape)
    a[RNG.uniform(size=shape) > density] = 0.0
    return a.astype(dtype)


def _fd_grad(loss, v, eps=1e-6):
    """Central differences of scalar ``loss(values array)`` at ``v``."""
    g = np.zeros_like(v)
    for i in np.ndindex(v.shape):
        hi, lo = v.copy(), v.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (loss(hi) - loss(lo)) / (2 * eps)
    return g


def _check_values_grad(build_loss, values):
    """build_loss(values Tensor) -> scalar Tensor; its gradient against FD."""
    v = paddle.to_tensor(values, stop_gradient=False)
    build_loss(v).backward()
    expect = _fd_grad(lambda a: float(build_loss(paddle.to_tensor(a))), values)
    np.testing.assert_allclose(v.grad.numpy(), expect, rtol=1e-5, atol=1e-7)


# ---- construction and conversions --------------------------------------------------------

def test_coo_from_indices_and_values_prints_as_paddle():
    coo = sparse.sparse_coo_tensor([[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0], [3, 3])
    assert coo.is_sparse() and coo.is_sparse_coo() and not coo.is_sparse_csr()
    assert coo.shape == [3, 3] and coo.dtype == paddle.float32 and coo.nnz() == 3
    assert coo.sparse_dim() == 2 and coo.dense_dim() == 0 and coo.stop_gradient
    assert str(coo) == (
        "Tensor(shape=[3, 3], dtype=paddle.float32, place=Place(cpu), stop_gradient=True,\n"
        "       indices=[[0, 1, 2],\n"
        "                [1, 2, 0]],\n"
        "       values=[1., 2., 3.])")
    np.testing.assert_array_equal(coo.to_dense().numpy(),
                                  [[0, 1, 0], [0, 0, 2], [3, 0, 0]])


def test_coo_shape_is_inferred_and_validated():
    coo = sparse.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0])
    assert coo.shape == [2, 3]
    hybrid = sparse.sparse_coo_tensor([[0, 1, 1], [2, 0, 2]], np.arange(6.).reshape(3, 2))
    assert hybrid.shape == [2, 3, 2] and hybrid.dense_dim() == 1
    with pytest.raises(ValueError, match='sparse_coo_tensor: values must have nnz = 3'):
        sparse.sparse_coo_tensor([[0, 1, 2]], [1.0, 2.0])
    with pytest.raises(ValueError, match='indices out of range for shape \\[2\\]'):
        sparse.sparse_coo_tensor([[0, 2]], [1.0, 2.0], [2])
    with pytest.raises(TypeError, match='indices must hold integers'):
        sparse.sparse_coo_tensor([[0.5]], [1.0], [2])


def test_csr_construction_prints_and_validates():
    csr = sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
    assert csr.is_sparse_csr() and csr.dtype == paddle.int64
    assert str(csr) == (
        "Tensor(shape=[3, 4], dtype=paddle.int64, place=Place(cpu), stop_gradient=True,\n"
        "       crows=[0, 2, 3, 5],\n"
        "       cols=[1, 3, 2, 0, 1],\n"
        "       values=[1, 2, 3, 4, 5])")
    np.testing.assert_array_equal(csr.to_dense().numpy(),
                                  [[0, 1, 0, 2], [0, 0, 3, 0], [4, 5, 0, 0]])
    with pytest.raises(ValueError, match='crows must have 4 entries'):
        sparse.sparse_csr_tensor([0, 2, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])
    with pytest.raises(ValueError, match='do not make a CSR pattern'):
        sparse.sparse_csr_tensor([0, 2, 1, 5], [1, 3, 2, 0, 1], [1, 2, 3, 4, 5], [3, 4])


@pytest.mark.parametrize('shape', [(3, 4), (2, 3, 4), (0, 3)])
def test_dense_coo_csr_round_trips(shape):
    a = _dense_example(shape)
    x = paddle.to_tensor(a)
    coo = x.to_sparse_coo(len(shape))
    assert coo.is_coalesced()
    np.testing.assert_array_equal(coo.to_dense().numpy(), a)
    assert coo.nnz() == np.count_nonzero(a)
    csr = x.to_sparse_csr()
    np.testing.assert_array_equal(csr.to_dense().numpy(), a)
    np.testing.assert_array_equal(coo.to_sparse_csr().crows().numpy(), csr.crows().numpy())
    np.testing.assert_array_equal(csr.to_sparse_coo().indices().numpy(),
                                  coo.indices().numpy())


def test_batched_csr_rows_restart_per_batch():
    a = np.array([[[0, 1.], [2, 0]], [[3, 0], [0, 0]]])
    csr = paddle.to_tensor(a).to_sparse_csr()
    assert csr.crows().numpy().tolist() == [0, 1, 2, 0, 1, 1]
    assert csr.cols().numpy().tolist() == [1, 0, 0]
    np.testing.assert_array_equal(csr.to_dense().numpy(), a)


def test_hybrid_coo_keeps_trailing_dims_dense():
    a = np.array([[-2., 0.], [0., 0.], [1., 2.]])
    coo = paddle.to_tensor(a).to_sparse_coo(1)
    assert coo.indices().numpy().tolist() == [[0, 2]]
    assert coo.values().numpy().tolist() == [[-2.0, 0.0], [1.0, 2.0]]
    np.testing.assert_array_equal(coo.to_dense().numpy(), a)
    with pytest.raises(ValueError, match='sparse_dim must be in \\[1, 2\\]'):
        paddle.to_tensor(a).to_sparse_coo(3)


def test_dense_tensor_sparse_queries():
    x = paddle.to_tensor([[1, 2, 3]])
    assert not x.is_sparse() and x.sparse_dim() == 0 and x.dense_dim() == 2
    assert x.to_dense() is x
    y = paddle.rand([2, 3]).to_sparse_csr()
    assert paddle.rand([2, 3]).is_same_shape(y) and not sparse.is_same_shape(x, y)


def test_coalesce_sums_duplicates_with_gradients():
    x = sparse.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0])
    assert not x.is_coalesced()
    c = sparse.coalesce(x)
    assert c.is_coalesced() and c.indices().numpy().tolist() == [[0, 1], [1, 2]]
    assert c.values().numpy().tolist() == [3.0, 3.0]
    _check_values_grad(lambda v: (sparse.sparse_coo_tensor([[1, 0, 1], [2, 1, 2]], v)
                                  .coalesce().values() * paddle.to_tensor([5.0, 7.0])).sum(),
                       np.array([1.0, 2.0, 3.0]))


# ---- value ops ----------------------------------------------------------------------------

@pytest.mark.parametrize('name,ref', [
    ('sin', np.sin), ('tan', np.tan), ('asin', np.arcsin), ('atan', np.arctan),
    ('sinh', np.sinh), ('tanh', np.tanh), ('asinh', np.arcsinh), ('atanh', np.arctanh),
    ('square', np.square), ('abs', np.abs), ('neg', np.negative), ('expm1', np.expm1),
    ('rad2deg', np.rad2deg), ('deg2rad', np.deg2rad), ('log1p', np.log1p)])
def test_unary_ops_map_values_and_keep_the_pattern(name, ref):
    a = np.array([[-0.5, 0.0, 0.25], [0.0, 0.75, 0.0]])
    for x in (paddle.to_tensor(a).to_sparse_coo(2), paddle.to_tensor(a).to_sparse_csr()):
        out = getattr(sparse, name)(x)
        assert out.format == x.format
        np.testing.assert_allclose(out.to_dense().numpy(), np.where(a != 0, ref(a), 0),
                                   rtol=1e-12)
    _check_values_grad(lambda v: getattr(sparse, name)(
        sparse.sparse_coo_tensor([[0, 1, 1]], v, [2])).values().sum(), np.array([-0.5, 0.3, 0.6]))


def test_pow_sqrt_isnan_cast():
    x = paddle.to_tensor([4.0, 0.0, 9.0]).to_sparse_coo(1)
    assert sparse.sqrt(x).values().numpy().tolist() == [2.0, 3.0]
    assert sparse.pow(x, 2).values().numpy().tolist() == [16.0, 81.0]
    nan = paddle.to_tensor([1.0, 0.0, float('nan')]).to_sparse_coo(1)
    out = sparse.isnan(nan)
    assert out.dtype == paddle.bool and out.values().numpy().tolist() == [False, True]
    c = sparse.cast(paddle.to_tensor([-2, 0, 1]).to_sparse_coo(1), 'int32', 'float64')
    assert c.dtype == paddle.float64 and c.indices().dtype == paddle.int32
    with pytest.raises(TypeError, match='sparse.sin: x must be a sparse'):
        sparse.sin(paddle.ones([2]))


# ---- binary ops -------------------------------------------------------------------------

X = np.array([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], 'float32')
Y = np.array([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], 'float32')


@pytest.mark.parametrize('fmt', ['coo', 'csr'])
@pytest.mark.parametrize('name,ref', [('add', np.add), ('subtract', np.subtract),
                                      ('multiply', np.multiply)])
def test_binary_ops_store_the_union_of_patterns(fmt, name, ref):
    conv = (lambda a: paddle.to_tensor(a).to_sparse_coo(2)) if fmt == 'coo' else \
        (lambda a: paddle.to_tensor(a).to_sparse_csr())
    out = getattr(sparse, name)(conv(X), conv(Y))
    assert out.format == fmt
    np.testing.assert_array_equal(out.to_dense().numpy(), ref(X, Y))
    assert out.nnz() == np.count_nonzero((X != 0) | (Y != 0))


def test_divide_stores_every_position_as_paddle():
    with np.errstate(divide='ignore', invalid='ignore'):
        expect = X / Y
    out = sparse.divide(paddle.to_tensor(X).to_sparse_csr(), paddle.to_tensor(Y).to_sparse_csr())
    assert out.nnz() == X.size
    np.testing.assert_array_equal(out.to_dense().numpy(), expect)


def test_binary_gradients_reach_both_operands():
    ix, iy = [[0, 1, 2], [1, 0, 2]], [[0, 2, 2], [1, 0, 2]]
    vy = np.array([0.5, -1.5, 2.0])
    w = paddle.to_tensor(RNG.standard_normal((3, 3)))

    def loss(v):
        z = sparse.multiply(sparse.sparse_coo_tensor(ix, v, [3, 3]),
                            sparse.sparse_coo_tensor(iy, paddle.to_tensor(vy), [3, 3]))
        return (z.to_dense() * w).sum()
    _check_values_grad(loss, np.array([1.0, -2.0, 3.0]))


def test_operators_and_dense_or_scalar_operands():
    x = paddle.to_tensor(X).to_sparse_coo(2)
    y = paddle.to_tensor(Y).to_sparse_coo(2)
    np.testing.assert_array_equal((x + y).to_dense().numpy(), X + Y)
    np.testing.assert_array_equal((x * 2.0).to_dense().numpy(), X * 2)
    np.testing.assert_array_equal((2.0 * x).to_dense().numpy(), X * 2)
    np.testing.assert_array_equal((-x).to_dense().numpy(), -X)
    scaled = x * paddle.to_tensor(Y)                      # x's pattern
    assert scaled.nnz() == x.nnz()
    np.testing.assert_array_equal(scaled.to_dense().numpy(), X * Y)
    dense_sum = sparse.add(x, paddle.to_tensor(Y))
    assert isinstance(dense_sum, paddle.Tensor)
    np.testing.assert_array_equal(dense_sum.numpy(), X + Y)
    with pytest.raises(ValueError, match='sparse.add: x and y must have the same shape'):
        sparse.add(x, paddle.ones([2, 2]).to_sparse_coo(2))
    with pytest.raises(TypeError, match='sparse.add: y must be a sparse or dense tensor'):
        x + 1.0


# ---- products ------------------------------------------------------------------------------

@pytest.mark.parametrize('shape', [(3, 4), (2, 3, 4)])
@pytest.mark.parametrize('fmt', ['coo', 'csr'])
def test_matmul_sparse_dense_values_and_gradients(shape, fmt):
    a = _dense_example(shape)
    b = RNG.standard_normal(shape[:-2] + (shape[-1], 2))
    sp = paddle.to_tensor(a).to_sparse_coo(len(shape)) if fmt == 'coo' else \
        paddle.to_tensor(a).to_sparse_csr()
    out = sparse.matmul(sp, paddle.to_tensor(b))
    np.testing.assert_allclose(out.numpy(), a @ b, rtol=1e-12)
    idx = sp.to_sparse_coo().indices().numpy()
    w = RNG.standard_normal(out.shape)
    y = paddle.to_tensor(b, stop_gradient=False)
    v = paddle.to_tensor(sp.values().numpy(), stop_gradient=False)
    (sparse.matmul(sparse.sparse_coo_tensor(idx, v, shape), y) * paddle.to_tensor(w)).sum() \
        .backward()
    np.testing.assert_allclose(y.grad.numpy(), np.swapaxes(a, -1, -2) @ w, rtol=1e-10)
    dense_grad = w @ np.swapaxes(b, -1, -2)
    np.testing.assert_allclose(v.grad.numpy(), dense_grad[tuple(idx)], rtol=1e-10)


def test_sparse_sparse_matmul_mv_addmm_masked_matmul():
    a, b = _dense_example((3, 4)), _dense_example((4, 2))
    ca, cb = paddle.to_tensor(a).to_sparse_csr(), paddle.to_tensor(b).to_sparse_csr()
    prod = sparse.matmul(ca, cb)
    assert prod.format == 'csr'
    np.testing.assert_allclose(prod.to_dense().numpy(), a @ b, rtol=1e-12)
    vec = RNG.standard_normal(4)
    np.testing.assert_allclose(sparse.mv(ca, paddle.to_tensor(vec)).numpy(), a @ vec)
    inp = RNG.standard_normal((3, 2))
    out = sparse.addmm(paddle.to_tensor(inp), ca, paddle.to_tensor(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * inp + 2.0 * (a @ b), rtol=1e-12)
    x, y = RNG.standard_normal((3, 5)), RNG.standard_normal((5, 4))
    masked = sparse.masked_matmul(paddle.to_tensor(x), paddle.to_tensor(y), ca)
    assert masked.format == 'csr' and masked.nnz() == ca.nnz()
    np.testing.assert_allclose(masked.to_dense().numpy(), np.where(a != 0, x @ y, 0),
                               rtol=1e-12)
    with pytest.raises(ValueError, match='sparse.matmul: y must be a dense tensor of shape'):
        sparse.matmul(ca, paddle.ones([3, 2], 'float64'))


# ---- moving entries --------------------------------------------------------------------

def test_reshape_transpose_slice():
    a = _dense_example((6, 2, 3))
    coo = paddle.to_tensor(a).to_sparse_coo(3)
    out = sparse.reshape(coo, [1, 0, 2, -1, 3])
    assert out.shape == [1, 2, 2, 3, 3]
    np.testing.assert_array_equal(out.to_dense().numpy(), a.reshape(1, 2, 2, 3, 3))
    t = sparse.transpose(coo, [2, 0, 1])
    np.testing.assert_array_equal(t.to_dense().numpy(), a.transpose(2, 0, 1))
    b = np.array([[4, 0, 7, 0], [0, 0, 5, 0], [-4, 2, 0, 0]])
    for sp in (paddle.to_tensor(b).to_sparse_coo(2), paddle.to_tensor(b).to_sparse_csr()):
        s = sparse.slice(sp, [0, 1], [1, 0], [3, -2])
        assert s.format == sp.format
        np.testing.assert_array_equal(s.to_dense().numpy(), b[1:3, 0:-2])
    with pytest.raises(ValueError, match='sparse.reshape: cannot reshape'):
        sparse.reshape(coo, [5, 7])


def test_sum_over_sparse_and_dense_dims():
    a = np.array([[-2., 0.], [1., 2.]])
    hybrid = paddle.to_tensor(a).to_sparse_coo(1)
    assert sparse.sum(hybrid).values().numpy().tolist() == [1.0]
    s0 = sparse.sum(hybrid, axis=0)
    assert s0.shape == [1, 2] and s0.values().numpy().tolist() == [[-1.0, 2.0]]
    s1 = sparse.sum(hybrid, axis=-1)
    assert s1.shape == [2] and s1.values().numpy().tolist() == [-2.0, 3.0]
    s2 = sparse.sum(hybrid, axis=1, keepdim=True)
    assert s2.shape == [2, 1] and s2.values().numpy().tolist() == [[-2.0], [3.0]]
    c = _dense_example((3, 4))
    full = paddle.to_tensor(c).to_sparse_coo(2)
    np.testing.assert_allclose(sparse.sum(full, axis=1).to_dense().numpy(), c.sum(1))
    np.testing.assert_allclose(sparse.sum(full, axis=0, keepdim=True).to_dense().numpy(),
                               c.sum(0, keepdims=True))


def test_mask_as_takes_the_dense_values_at_the_pattern():
    csr = sparse.sparse_csr_tensor([0, 2, 3, 5], [1, 3, 2, 0, 1], [1., 2., 3., 4., 5.], [3, 4])
    d = RNG.standard_normal((3, 4))
    out = sparse.mask_as(paddle.to_tensor(d), csr)
    assert out.format == 'csr'
    np.testing.assert_array_equal(out.to_dense().numpy(), np.where(csr.to_dense().numpy() != 0,
                                                                    d, 0))


# ---- nn ------------------------------------------------------------------------------------

def test_softmax_over_stored_entries_per_row_with_gradients():
    a = _dense_example((3, 4), density=0.7)
    a[1] = 0.0                                           # an empty row
    csr = paddle.to_tensor(a).to_sparse_csr()
    out = sparse.nn.functional.softmax(csr).to_dense().numpy()
    masked = np.where(a != 0, a, -np.inf)
    with np.errstate(invalid='ignore'):
        e = np.exp(masked - masked.max(1, keepdims=True))
        ref = np.nan_to_num(e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    idx = csr.to_sparse_coo().indices().numpy()
    w = paddle.to_tensor(RNG.standard_normal(csr.nnz()))
    _check_values_grad(lambda v: (sparse.nn.Softmax()(sparse.sparse_coo_tensor(idx, v, [3, 4]))
                                  .values() * w).sum(), csr.values().numpy())


def test_activations_and_batch_norm_layers():
    a = np.array([[-1.0, 0.0], [0.0, 7.0]])
    x = paddle.to_tensor(a).to_sparse_coo(2)
    assert sparse.nn.ReLU()(x).values().numpy().tolist() == [0.0, 7.0]
    assert sparse.nn.ReLU6()(x).values().numpy().tolist() == [0.0, 6.0]
    assert sparse.nn.LeakyReLU(0.5)(x).values().numpy().tolist() == [-0.5, 7.0]
    feats = RNG.standard_normal((2, 3, 3, 4)).astype('float32')
    feats[RNG.uniform(size=(2, 3, 3)) > 0.5] = 0.0
    sp = paddle.to_tensor(feats).to_sparse_coo(3)
    bn = sparse.nn.BatchNorm(4)
    out = bn(sp)
    v = sp.values().numpy()
    ref = (v - v.mean(0)) / np.sqrt(v.var(0) + 1e-5)
    np.testing.assert_allclose(out.values().numpy(), ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError, match='sparse.nn.BatchNorm: x must be a COO tensor'):
        bn(paddle.to_tensor(feats))


# ---- autograd surface -----------------------------------------------------------------

def test_grad_backward_and_stop_gradient_follow_the_values():
    x = paddle.to_tensor([[0.0, 2.0], [3.0, 0.0]]).to_sparse_coo(2)
    x.stop_gradient = False
    assert not x.values().stop_gradient
    y = sparse.square(x)
    y.backward()
    g = x.grad
    assert g.is_sparse_coo() and g.values().numpy().tolist() == [4.0, 6.0]
    assert g.indices().numpy().tolist() == x.indices().numpy().tolist()
    assert x.detach().stop_gradient
    with pytest.raises(TypeError, match='COO tensor: numpy\\(\\) needs a dense tensor'):
        x.numpy()


def test_to_dense_and_to_sparse_are_differentiable():
    a = np.array([[0.0, 1.5], [-2.0, 0.0]])
    d = paddle.to_tensor(a, stop_gradient=False)
    (d.to_sparse_csr().values() * paddle.to_tensor([3.0, 5.0])).sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), [[0.0, 3.0], [5.0, 0.0]])
    _check_values_grad(lambda v: (sparse.sparse_coo_tensor([[0, 1, 1], [1, 0, 0]], v, [2, 2])
                                  .to_dense() * paddle.to_tensor(a)).sum(),
                       np.array([1.0, 2.0, 3.0]))


def test_float32_values_keep_their_dtype():
    x = paddle.to_tensor(X).to_sparse_csr()
    assert sparse.sin(x).dtype == paddle.float32
    assert sparse.matmul(x, paddle.ones([4, 2])).dtype == paddle.float32
    assert sparse.add(x, x).dtype == paddle.float32


# ---- edges the mutation run asked for --------------------------------------------------------

def test_construction_edges():
    empty = sparse.sparse_coo_tensor(np.zeros((2, 0), np.int64), np.zeros((0,), 'float32'))
    assert empty.shape == [0, 0] and empty.nnz() == 0
    assert empty.indices().dtype == paddle.int64
    np.testing.assert_array_equal(empty.to_dense().numpy(), np.zeros((0, 0)))
    hybrid_empty = sparse.sparse_coo_tensor(np.zeros((1, 0), np.int64), np.zeros((0, 2)))
    assert hybrid_empty.shape == [0, 2]
    cast = sparse.sparse_coo_tensor([[0, 1]], paddle.to_tensor([1.0, 2.0]), [2], dtype='float64')
    assert cast.dtype == paddle.float64
    with pytest.raises(ValueError, match='does not fit indices of 1 sparse dims'):
        sparse.sparse_coo_tensor([[0, 1, 1]], np.ones((3, 2)), [2, 5])
    with pytest.raises(ValueError, match='cols out of range for 4 columns'):
        sparse.sparse_csr_tensor([0, 2], [0, 4], [1.0, 2.0], [1, 4])
    from_lists = sparse.sparse_coo_tensor([[], []], [], [2, 2])
    assert from_lists.indices().dtype == paddle.int64 and from_lists.nnz() == 0
    with pytest.raises(ValueError, match='sparse_dim must be in \\[1, 2\\]'):
        paddle.ones([2, 2]).to_sparse_coo(0)


def test_format_changes_between_hybrid_and_full_sparse_dims():
    a = np.array([[0.0, 1.0], [0.0, 0.0], [2.0, 3.0]])
    csr = paddle.to_tensor(a).to_sparse_csr()
    hybrid = csr.to_sparse_coo(1)
    assert hybrid.sparse_dim() == 1 and hybrid.indices().numpy().tolist() == [[0, 2]]
    np.testing.assert_array_equal(hybrid.to_dense().numpy(), a)
    assert csr.to_sparse_coo(2).sparse_dim() == 2
    full = hybrid.to_sparse_coo(2)
    assert full.sparse_dim() == 2 and full.nnz() == 3


def test_addmm_of_two_sparse_matrices_and_error_texts():
    a, b = _dense_example((3, 4)), _dense_example((4, 2))
    ca, cb = paddle.to_tensor(a).to_sparse_coo(2), paddle.to_tensor(b).to_sparse_coo(2)
    inp = RNG.standard_normal((3, 2))
    out = sparse.addmm(paddle.to_tensor(inp), ca, cb, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * inp + 2.0 * (a @ b), rtol=1e-12)
    sp_inp = paddle.to_tensor(np.where(inp > 0, inp, 0)).to_sparse_coo(2)
    both = sparse.addmm(sp_inp, ca, cb, beta=0.5, alpha=2.0)
    np.testing.assert_allclose(both.to_dense().numpy(),
                               0.5 * np.where(inp > 0, inp, 0) + 2.0 * (a @ b), rtol=1e-12)
    with pytest.raises(ValueError, match='x @ y has shape \\[3, 4\\], mask \\[3, 2\\]'):
        sparse.masked_matmul(paddle.ones([3, 5]), paddle.ones([5, 4]), sp_inp)
    with pytest.raises(TypeError, match='or a number, got str'):
        sparse.multiply(ca, 'x')
