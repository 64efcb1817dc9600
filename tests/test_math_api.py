"""Elementwise math, matrix products and cumsum as a Paddle user calls them."""
import math
import warnings

import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework import OpError


def t(data, dtype='float64', grad=False):
    return paddle.to_tensor(np.asarray(data, dtype), stop_gradient=not grad)


# ---- erf / erfinv accuracy -------------------------------------------------------

def test_erf_matches_math_erf_to_double_precision():
    x = np.concatenate([np.linspace(-7, 7, 20001), np.geomspace(1e-300, 6, 500),
                        -np.geomspace(1e-300, 6, 500), [0.46875, -0.46875, 4.0, -4.0, 27.0]])
    got = paddle.erf(t(x)).numpy()
    want = np.array([math.erf(v) for v in x])
    rel = np.abs(got - want) / np.maximum(np.abs(want), 1e-300)
    assert rel.max() < 1e-15


def test_erf_special_values_and_dtypes():
    x = t([np.nan, np.inf, -np.inf, -0.0, 0.0, 40.0])
    out = paddle.erf(x).numpy()
    assert np.isnan(out[0]) and out[1:3].tolist() == [1.0, -1.0]
    assert np.signbit(out[3]) and out[4] == 0 and out[5] == 1.0
    assert paddle.erf(t([0.5], 'float32')).dtype == paddle.float32
    assert paddle.erf(paddle.to_tensor([1, 2])).dtype == paddle.float32   # int -> float
    assert paddle.erf(t(0.5)).shape == []                                  # 0-D stays 0-D
    np.testing.assert_allclose(t([0.3, -1.2]).erf().numpy(), [math.erf(0.3), math.erf(-1.2)],
                               rtol=1e-15)


def test_erfinv_inverts_erf():
    y = np.linspace(-0.999, 0.999, 999)
    x = paddle.erfinv(t(y))
    np.testing.assert_allclose(paddle.erf(x).numpy(), y, rtol=0, atol=4e-16)
    edge = paddle.erfinv(t([-1.0, 1.0, 1.5])).numpy()
    assert edge[0] == -np.inf and edge[1] == np.inf and np.isnan(edge[2])


def test_erf_gradient_is_gaussian():
    x = t([-1.0, 0.0, 0.7], grad=True)
    paddle.erf(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 / math.sqrt(math.pi) * np.exp(-x.numpy() ** 2))


# ---- unary ops -------------------------------------------------------------------

@pytest.mark.parametrize('name,fn,lo,hi', [
    ('sqrt', math.sqrt, 0.1, 4), ('rsqrt', lambda v: v ** -0.5, 0.1, 4),
    ('log1p', math.log1p, -0.5, 3), ('log2', math.log2, 0.1, 9), ('log10', math.log10, 0.1, 99),
    ('sin', math.sin, -4, 4), ('cos', math.cos, -4, 4), ('tan', math.tan, -1.4, 1.4),
    ('asin', math.asin, -0.99, 0.99), ('acos', math.acos, -0.99, 0.99),
    ('atan', math.atan, -5, 5), ('sinh', math.sinh, -3, 3), ('cosh', math.cosh, -3, 3),
    ('square', lambda v: v * v, -3, 3), ('reciprocal', lambda v: 1 / v, 0.2, 3),
    ('exp', math.exp, -3, 3), ('log', math.log, 0.1, 5), ('tanh', math.tanh, -3, 3),
    ('abs', math.fabs, -3, 3), ('sigmoid', lambda v: 1 / (1 + math.exp(-v)), -5, 5),
])
def test_unary_function_and_method_agree_with_python(name, fn, lo, hi):
    x = np.random.default_rng(0).uniform(lo, hi, (3, 4))
    want = np.vectorize(fn)(x)
    np.testing.assert_allclose(getattr(paddle, name)(t(x)).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(getattr(t(x), name)().numpy(), want, rtol=1e-12)


def test_float_ops_keep_float32_and_promote_ints():
    assert paddle.sqrt(t([4.0], 'float32')).dtype == paddle.float32
    out = paddle.sqrt(paddle.to_tensor([4, 9]))
    assert out.dtype == paddle.float32 and out.tolist() == [2.0, 3.0]
    assert paddle.abs(paddle.to_tensor([-3, 2])).dtype == paddle.int64
    assert paddle.square(paddle.to_tensor([-3, 2])).tolist() == [9, 4]


def test_builtin_abs_and_neg_use_the_ops():
    x = t([-2.0, 3.0], grad=True)
    y = abs(x)
    assert y.tolist() == [2.0, 3.0]
    y.sum().backward()
    assert x.grad.tolist() == [-1.0, 1.0]


def test_sigmoid_is_stable_and_exported_in_functional():
    x = t([-1000.0, -30.0, 0.0, 30.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        out = F.sigmoid(x).numpy()
    assert out[0] == 0.0 and out[2] == 0.5 and out[4] == 1.0
    np.testing.assert_allclose(out[1], math.exp(-30) / (1 + math.exp(-30)), rtol=1e-14)
    assert x.sigmoid().tolist() == out.tolist()
    with pytest.warns(RuntimeWarning, match='overflow'):     # numpy's own state untouched
        np.exp(np.float64(1000.0))


def test_rounding_follows_paddle():
    x = t([-2.5, -1.5, -0.5, -0.2, 0.5, 1.5, 2.5, 2.7])
    # halves to even, as Paddle 3.3.1 on CPU (its docstring: round(-0.5) is -0.)
    assert paddle.round(x).tolist() == [-2.0, -2.0, -0.0, -0.0, 0.0, 2.0, 2.0, 3.0]
    assert paddle.floor(x).tolist() == [-3.0, -2.0, -1.0, -1.0, 0.0, 1.0, 2.0, 2.0]
    assert paddle.ceil(x).tolist() == [-2.0, -1.0, -0.0, -0.0, 1.0, 2.0, 3.0, 3.0]
    assert paddle.trunc(x).tolist() == [-2.0, -1.0, -0.0, -0.0, 0.0, 1.0, 2.0, 2.0]
    assert paddle.round(t([1.234, -5.678]), decimals=2).tolist() == [1.23, -5.68]
    assert paddle.round(t([0.125, 0.375]), decimals=2).tolist() == [0.12, 0.38]
    assert paddle.sign(x).tolist() == [-1.0, -1.0, -1.0, -1.0, 1.0, 1.0, 1.0, 1.0]
    assert paddle.floor(paddle.to_tensor([3, -4])).dtype == paddle.int64


@pytest.mark.parametrize('name', ['floor', 'ceil', 'round', 'trunc', 'sign'])
def test_rounding_ops_have_zero_gradient(name):
    x = t([0.3, 1.7, -2.2], grad=True)
    (getattr(paddle, name)(x) * 3).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0, 0.0]


def test_clip_bounds_and_gradient():
    x = t([-2.0, -0.5, 0.3, 0.9, 4.0], grad=True)
    y = paddle.clip(x, min=-1.0, max=1.0)
    assert y.tolist() == [-1.0, -0.5, 0.3, 0.9, 1.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]
    assert x.clip(0, 1).tolist() == [0.0, 0.0, 0.3, 0.9, 1.0]
    assert paddle.clip(x, max=0.0).tolist() == [-2.0, -0.5, 0.0, 0.0, 0.0]
    assert paddle.clip(x, min=0.5).tolist() == [0.5, 0.5, 0.5, 0.9, 4.0]
    # 0-D tensors as bounds
    lo, hi = paddle.to_tensor(-0.6), paddle.to_tensor(0.6)
    assert paddle.clip(x, lo, hi).numpy().tolist() == pytest.approx([-0.6, -0.5, 0.3, 0.6, 0.6])
    ints = paddle.clip(paddle.to_tensor([-5, 1, 9]), 0, 4)
    assert ints.dtype == paddle.int64 and ints.tolist() == [0, 1, 4]
    with pytest.raises(OpError, match='clip: min'):
        paddle.clip(x, min='low')


def test_scale():
    x = t([1.0, 2.0], grad=True)
    assert paddle.scale(x, scale=2.0, bias=1.0).tolist() == [3.0, 5.0]
    assert paddle.scale(x, 2.0, 1.0, bias_after_scale=False).tolist() == [4.0, 6.0]
    y = x.scale(3)
    assert y.tolist() == [3.0, 6.0]
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    assert paddle.scale(paddle.to_tensor([1, 2]), 2.0).dtype == paddle.int64


def test_pow_with_number_and_tensor():
    x = t([1.0, 2.0, 3.0], grad=True)
    y = t([2.0, 0.5, 1.0])
    assert paddle.pow(x, 2).tolist() == [1.0, 4.0, 9.0]
    assert x.pow(2).tolist() == (x ** 2).tolist()
    np.testing.assert_allclose(paddle.pow(x, y).numpy(), [1.0, math.sqrt(2), 3.0])
    (x ** 3).sum().backward()
    assert x.grad.tolist() == [3.0, 12.0, 27.0]


def test_lerp_logit_stanh():
    x, y = t([0.0, 1.0]), t([10.0, 3.0])
    assert paddle.lerp(x, y, 0.5).tolist() == [5.0, 2.0]
    assert paddle.lerp(x, y, t([0.1, 1.0])).numpy().tolist() == pytest.approx([1.0, 3.0])
    p = t([0.25, 0.5])
    np.testing.assert_allclose(paddle.logit(p).numpy(), [math.log(1 / 3), 0.0])
    np.testing.assert_allclose(paddle.logit(t([0.0, 1.0]), eps=0.1).numpy(),
                               [math.log(1 / 9), math.log(9)])
    np.testing.assert_allclose(paddle.stanh(t([0.5])).numpy(), [1.7159 * math.tanh(0.335)])


def test_add_n_sums_a_list_and_routes_gradients():
    a, b, c = t([1.0, 2.0], grad=True), t([3.0, 4.0], grad=True), t([5.0, 6.0])
    s = paddle.add_n([a, b, c])
    assert s.tolist() == [9.0, 12.0]
    (s * t([1.0, 2.0])).sum().backward()
    assert a.grad.tolist() == [1.0, 2.0] and b.grad.tolist() == [1.0, 2.0]
    assert paddle.add_n(a).tolist() == [1.0, 2.0]
    with pytest.raises(OpError, match='add_n'):
        paddle.add_n([])


def test_isnan_isinf_isfinite():
    x = t([1.0, np.nan, np.inf, -np.inf])
    assert paddle.isnan(x).tolist() == [False, True, False, False]
    assert paddle.isinf(x).tolist() == [False, False, True, True]
    assert paddle.isfinite(x).tolist() == [True, False, False, False]
    assert x.isnan().dtype == paddle.bool


def test_bitwise_ops_and_operators():
    a, b = paddle.to_tensor([12, 10, -1]), paddle.to_tensor([10, 6, 5])
    assert paddle.bitwise_and(a, b).tolist() == [8, 2, 5]
    assert paddle.bitwise_or(a, b).tolist() == [14, 14, -1]
    assert paddle.bitwise_xor(a, b).tolist() == [6, 12, -6]
    assert paddle.bitwise_not(a).tolist() == [-13, -11, 0]
    assert (a & b).tolist() == [8, 2, 5] and (a | b).tolist() == [14, 14, -1]
    assert (a ^ b).tolist() == [6, 12, -6] and (~a).tolist() == [-13, -11, 0]
    p, q = paddle.to_tensor([True, False]), paddle.to_tensor([True, True])
    assert (p & q).tolist() == [True, False] and (~p).tolist() == [False, True]
    with pytest.raises(OpError, match='bitwise'):
        paddle.bitwise_and(t([1.0]), t([2.0]))


# ---- matrix products ----------------------------------------------------------------

@pytest.mark.parametrize('xs,ys,tx,ty,out', [
    ((2, 3), (3, 4), False, False, [2, 4]),
    ((3, 2), (3, 4), True, False, [2, 4]),
    ((2, 3), (4, 3), False, True, [2, 4]),
    ((5, 2, 3), (3, 4), False, False, [5, 2, 4]),
    ((5, 1, 2, 3), (6, 3, 4), False, False, [5, 6, 2, 4]),
    ((3,), (3,), False, False, []),
    ((3,), (3, 4), False, False, [4]),
    ((2, 3), (3,), False, False, [2]),
    ((5, 2, 3), (3,), False, False, [5, 2]),
    ((3,), (5, 3, 4), True, False, [5, 4]),
])
def test_matmul_shapes_follow_numpy(xs, ys, tx, ty, out):
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal(xs), rng.standard_normal(ys)
    z = paddle.matmul(t(x), t(y), transpose_x=tx, transpose_y=ty)
    assert z.shape == out
    xe = np.swapaxes(x, -1, -2) if tx and x.ndim > 1 else x
    ye = np.swapaxes(y, -1, -2) if ty and y.ndim > 1 else y
    np.testing.assert_allclose(z.numpy(), np.matmul(xe, ye), rtol=1e-12)


def test_matmul_operator_and_method():
    x, y = t(np.ones((2, 3))), t(np.full((3, 2), 2.0))
    assert (x @ y).tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert x.matmul(y).tolist() == (x @ y).tolist()
    assert (np.ones((1, 2)) @ x).tolist() == [[2.0, 2.0, 2.0]]   # __rmatmul__
    assert paddle.mm(x, y).shape == [2, 2]


def test_matmul_shape_error_names_op_and_shapes():
    with pytest.raises(OpError) as e:
        paddle.matmul(paddle.ones([2, 3]), paddle.ones([4, 5]))
    msg = str(e.value)
    assert 'matmul' in msg and '[2, 3]' in msg and '[4, 5]' in msg
    with pytest.raises(OpError, match=r'matmul.*\[2, 3\].*\[5, 2\]'):
        paddle.ones([2, 3]) @ paddle.ones([5, 2])
    with pytest.raises(OpError, match='batch'):
        paddle.matmul(paddle.ones([2, 2, 3]), paddle.ones([4, 3, 2]))
    with pytest.raises(OpError, match='1-D'):
        paddle.matmul(paddle.to_tensor(1.0), paddle.ones([2]))


def test_matmul_batch_broadcast_gradients_reduce_to_input_shapes():
    rng = np.random.default_rng(2)
    xv, yv = rng.standard_normal((4, 2, 3)), rng.standard_normal((3, 5))
    x, y = t(xv, grad=True), t(yv, grad=True)
    paddle.matmul(x, y).sum().backward()
    assert x.grad.shape == [4, 2, 3] and y.grad.shape == [3, 5]
    np.testing.assert_allclose(y.grad.numpy(), xv.sum(axis=(0, 1))[:, None] * np.ones((3, 5)))
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(yv.sum(axis=1), (4, 2, 3)))


def test_bmm_dot_outer():
    x, y = paddle.ones([2, 3, 4]), paddle.ones([2, 4, 5])
    assert paddle.bmm(x, y).shape == [2, 3, 5]
    with pytest.raises(OpError, match='bmm'):
        paddle.bmm(x, paddle.ones([3, 4, 5]))
    with pytest.raises(OpError, match='bmm'):
        paddle.bmm(paddle.ones([3, 4]), y)
    a, b = paddle.to_tensor([1, 2, 3]), paddle.to_tensor([4, 5, 6])
    d = paddle.dot(a, b)
    assert d.shape == [] and d.item() == 32 and d.dtype == paddle.int64
    rows = paddle.dot(paddle.to_tensor([[1, 2, 3], [2, 4, 6]]), paddle.to_tensor([[4, 5, 6]] * 2))
    assert rows.shape == [2] and rows.tolist() == [32, 64]
    with pytest.raises(OpError, match='dot'):
        paddle.dot(paddle.ones([3]), paddle.ones([4]))
    o = paddle.outer(t([1.0, 2.0]), t([1.0, 10.0, 100.0]))
    assert o.shape == [2, 3] and o.tolist()[1] == [2.0, 20.0, 200.0]
    assert paddle.outer(t([[1.0, 2.0]]), t([3.0])).shape == [2, 1]     # flattened first


def test_dot_and_outer_gradients():
    x, y = t([1.0, 2.0], grad=True), t([3.0, 4.0], grad=True)
    paddle.dot(x, y).backward()
    assert x.grad.tolist() == [3.0, 4.0] and y.grad.tolist() == [1.0, 2.0]
    x.clear_grad()
    y.clear_grad()
    paddle.outer(x, y).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0] and y.grad.tolist() == [3.0, 3.0]


# ---- cumsum -------------------------------------------------------------------------

def test_cumsum_axes_dtype_and_gradient():
    x = t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], grad=True)
    assert paddle.cumsum(x).tolist() == [1.0, 3.0, 6.0, 10.0, 15.0, 21.0]   # flattened
    assert paddle.cumsum(x, axis=0).tolist() == [[1.0, 2.0, 3.0], [5.0, 7.0, 9.0]]
    assert x.cumsum(-1).tolist() == [[1.0, 3.0, 6.0], [4.0, 9.0, 15.0]]
    ints = paddle.cumsum(paddle.to_tensor([1, 2, 3], dtype='int32'))
    assert ints.dtype == paddle.int32 and ints.tolist() == [1, 3, 6]
    assert paddle.cumsum(paddle.to_tensor([1, 2]), dtype='float64').dtype == paddle.float64
    paddle.cumsum(x, axis=1).sum().backward()
    assert x.grad.tolist() == [[3.0, 2.0, 1.0], [3.0, 2.0, 1.0]]
    with pytest.raises(OpError, match='cumsum'):
        paddle.cumsum(x, axis=2)


# ---- double grad and PyTorch cross-checks ---------------------------------------------

def test_second_derivatives_through_elementwise_ops():
    x = t([0.3, -1.1, 2.0], grad=True)
    (g,) = paddle.grad(paddle.sin(x).sum(), x, create_graph=True)
    (h,) = paddle.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), -np.sin(x.numpy()))
    (g,) = paddle.grad(paddle.erf(x).sum(), x, create_graph=True)
    (h,) = paddle.grad(g.sum(), x)
    xv = x.numpy()
    np.testing.assert_allclose(h.numpy(), -4 * xv / math.sqrt(math.pi) * np.exp(-xv ** 2))


def test_matmul_double_grad_with_vector_operand():
    rng = np.random.default_rng(3)
    A = t(rng.standard_normal((3, 4)), grad=True)
    v = t(rng.standard_normal(4), grad=True)
    out = paddle.matmul(A, v)                       # A v
    (gv,) = paddle.grad((out * out).sum(), v, create_graph=True)   # 2 A^T A v
    np.testing.assert_allclose(gv.numpy(), 2 * A.numpy().T @ A.numpy() @ v.numpy())
    (hv,) = paddle.grad(gv.sum(), v)                 # 2 A^T A 1
    np.testing.assert_allclose(hv.numpy(), 2 * A.numpy().T @ A.numpy() @ np.ones(4))


def test_against_torch():
    torch = pytest.importorskip('torch')
    rng = np.random.default_rng(4)
    xv, yv = rng.standard_normal((2, 1, 3, 4)), rng.standard_normal((5, 4, 2))
    x, y = t(xv, grad=True), t(yv, grad=True)
    (paddle.erf(paddle.matmul(x, y)) * paddle.sigmoid(paddle.matmul(x, y))).sum().backward()
    tx = torch.tensor(xv, requires_grad=True)
    ty = torch.tensor(yv, requires_grad=True)
    (torch.erf(tx @ ty) * torch.sigmoid(tx @ ty)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-10)
    z = rng.standard_normal(1000) * 4
    np.testing.assert_allclose(paddle.erf(t(z)).numpy(), torch.erf(torch.tensor(z)).numpy(),
                               rtol=1e-15, atol=1e-16)
    # away from +-1, where erfinv's condition number (~e^(x^2)) makes any two
    # correct implementations differ in the last digits
    w = np.tanh(z / 4)
    np.testing.assert_allclose(paddle.erfinv(t(w)).numpy(),
                               torch.erfinv(torch.tensor(w)).numpy(), rtol=1e-13)


def test_linalg_norm_values_and_gradient():
    import math
    import numpy as np
    import framework as paddle
    v = np.array([[3.0, -4.0], [1.0, 2.0]])
    x = paddle.to_tensor(v, stop_gradient=False)
    np.testing.assert_allclose(paddle.linalg.norm(x).numpy(), np.linalg.norm(v))
    np.testing.assert_allclose(paddle.norm(x, p=1, axis=1).numpy(), np.abs(v).sum(1))
    np.testing.assert_allclose(x.norm(p=math.inf, axis=0).numpy(), np.abs(v).max(0))
    np.testing.assert_allclose(paddle.linalg.norm(x, p=3).numpy(),
                               (np.abs(v) ** 3).sum() ** (1 / 3))
    paddle.linalg.norm(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), v / np.linalg.norm(v))
