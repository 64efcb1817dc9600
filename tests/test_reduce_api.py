"""Reductions as a Paddle user calls them: axes, keepdim, dtypes, 0-D results,
gradients (including Paddle's max/amax tie rules) and clear errors."""
import numpy as np
import pytest

import framework as paddle
from framework import OpError


def t(data, dtype='float64', grad=False):
    return paddle.to_tensor(np.asarray(data, dtype), stop_gradient=not grad)


X = np.arange(24, dtype='float64').reshape(2, 3, 4) / 7.0 - 1.0


# ---- axes, keepdim, 0-D results ----------------------------------------------------

@pytest.mark.parametrize('axis,np_axis', [
    (None, None), (0, 0), (-1, 2), ([0, 2], (0, 2)), ((1, -1), (1, 2)), ([], None),
    ([0, 1, 2], None), (paddle.to_tensor([1]), 1),
])
@pytest.mark.parametrize('keepdim', [False, True])
def test_sum_axes_and_keepdim(axis, np_axis, keepdim):
    out = paddle.sum(t(X), axis=axis, keepdim=keepdim)
    want = X.sum(axis=np_axis, keepdims=keepdim)
    assert out.shape == list(want.shape)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-12)


def test_full_reductions_are_0d():
    x = t(X)
    for fn in (paddle.sum, paddle.mean, paddle.max, paddle.min, paddle.prod, paddle.amax,
               paddle.amin, paddle.logsumexp, paddle.var, paddle.std, paddle.argmax,
               paddle.argmin, paddle.all, paddle.any):
        out = fn(x)
        assert out.shape == [], fn.__name__
    assert paddle.sum(t(X), axis=None, keepdim=True).shape == [1, 1, 1]
    assert paddle.sum(t(3.0)).shape == [] and paddle.sum(t(3.0), axis=0).item() == 3.0


def test_tensor_methods():
    x = t(X)
    assert x.sum(axis=1).shape == [2, 4]
    assert x.mean().item() == pytest.approx(X.mean())
    assert x.max().item() == X.max() and x.min(axis=-1).tolist() == X.min(-1).tolist()
    assert x.argmax().item() == 23 and x.argmin(axis=0, keepdim=True).shape == [1, 3, 4]
    assert x.prod(axis=[0, 1]).shape == [4]
    assert x.logsumexp(axis=2).shape == [2, 3]
    assert x.var().item() == pytest.approx(X.var(ddof=1))
    assert x.std(unbiased=False).item() == pytest.approx(X.std())
    assert x.amax(axis=0).shape == [3, 4] and x.amin().item() == X.min()
    assert (x > 0).all().item() is False and (x > 0).any(axis=0).shape == [3, 4]


# ---- dtypes ---------------------------------------------------------------------------

def test_sum_dtype_rules():
    assert paddle.sum(paddle.to_tensor([True, True, False])).dtype == paddle.int64
    assert paddle.sum(paddle.to_tensor([True, True, False])).item() == 2
    assert paddle.sum(paddle.to_tensor([1, 2], dtype='int32')).dtype == paddle.int64
    assert paddle.sum(paddle.to_tensor([1, 2], dtype='int64')).dtype == paddle.int64
    assert paddle.sum(t([1.0], 'float32')).dtype == paddle.float32
    assert paddle.sum(t([1.0], 'float32'), dtype='float64').dtype == paddle.float64
    assert paddle.sum(paddle.to_tensor([1, 2]), dtype=paddle.float32).dtype == paddle.float32


def test_sum_with_wider_dtype_returns_grad_in_input_dtype():
    x = t([1.0, 2.0], 'float32', grad=True)
    paddle.sum(x, dtype='float64').backward()
    assert x.grad.dtype == paddle.float32 and x.grad.tolist() == [1.0, 1.0]


def test_other_result_dtypes():
    assert paddle.mean(paddle.to_tensor([1, 2])).dtype == paddle.float32
    assert paddle.mean(paddle.to_tensor([1, 2])).item() == 1.5
    assert paddle.max(paddle.to_tensor([1, 5])).dtype == paddle.int64
    assert paddle.argmax(t(X)).dtype == paddle.int64
    assert paddle.argmax(t(X), axis=1, dtype='int32').dtype == paddle.int32
    assert paddle.all(t([1.0, 2.0])).dtype == paddle.bool
    assert paddle.prod(paddle.to_tensor([2, 3], dtype='int32')).dtype == paddle.int32
    assert paddle.prod(paddle.to_tensor([2, 3], dtype='int32'), dtype='int64').dtype == paddle.int64
    assert paddle.var(t([1.0, 2.0], 'float32')).dtype == paddle.float32


# ---- arg reductions ---------------------------------------------------------------------

def test_argmax_argmin_like_paddle_docs():
    x = paddle.to_tensor([[5, 8, 9, 5], [0, 0, 1, 7], [6, 9, 2, 4]])
    assert paddle.argmax(x).item() == 2                         # flattened
    assert paddle.argmax(x, axis=0).tolist() == [2, 2, 0, 1]
    assert paddle.argmax(x, axis=-1).tolist() == [2, 3, 1]
    assert paddle.argmax(x, axis=0, keepdim=True).tolist() == [[2, 2, 0, 1]]
    assert paddle.argmin(x, axis=1).tolist() == [0, 0, 2]
    assert paddle.argmax(x, keepdim=True).shape == [1, 1]
    assert paddle.argmax(x).stop_gradient
    with pytest.raises(OpError, match='argmax: dtype'):
        paddle.argmax(x, dtype='float32')
    with pytest.raises(OpError, match='argmax: axis'):
        paddle.argmax(x, axis=[0, 1])


# ---- gradients ------------------------------------------------------------------------

def test_sum_and_mean_gradients():
    x = t(X, grad=True)
    (paddle.sum(x, axis=[0, 2]) * t([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to([[1.0], [2.0], [3.0]], X.shape))
    x.clear_grad()
    x.mean(axis=-1, keepdim=True).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(X.shape, 0.25))


def test_max_gives_every_tie_the_gradient_and_amax_splits_it():
    data = [[0.1, 0.9, 0.9, 0.9], [0.9, 0.9, 0.6, 0.7]]     # Paddle's documented example
    x = t(data, grad=True)
    paddle.amax(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.2, 0.2, 0.2], [0.2, 0.2, 0, 0]])
    x.clear_grad()
    paddle.max(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 1, 1, 1], [1, 1, 0, 0]])
    x.clear_grad()
    paddle.amax(x, axis=0).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0.5, 1, 1], [1, 0.5, 0, 0]])
    y = t([[3.0, 1.0], [1.0, 1.0]], grad=True)
    paddle.amin(y, axis=1, keepdim=True).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), [[0, 1], [0.5, 0.5]])


def test_prod_gradient_handles_zeros():
    x = t([[2.0, 0.0, 3.0], [2.0, 5.0, 3.0], [0.0, 4.0, 0.0]], grad=True)
    paddle.prod(x, axis=1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0, 6, 0], [15, 6, 10], [0, 0, 0]])
    # the composite (create_graph) rule agrees with the fast one
    (g,) = paddle.grad(paddle.prod(x, axis=1).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [[0, 6, 0], [15, 6, 10], [0, 0, 0]])


def test_logsumexp_is_stable():
    x = t([[1000.0, 1000.0], [-1000.0, -1000.0], [-np.inf, 0.0]], grad=True)
    out = paddle.logsumexp(x, axis=1)
    np.testing.assert_allclose(out.numpy(), [1000 + np.log(2), -1000 + np.log(2), 0.0])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.5, 0.5], [0.5, 0.5], [0.0, 1.0]])
    assert paddle.logsumexp(t([-np.inf, -np.inf])).item() == -np.inf


def test_var_std_bias_and_gradients():
    x = t(X, grad=True)
    np.testing.assert_allclose(paddle.var(x, axis=1).numpy(), X.var(axis=1, ddof=1))
    np.testing.assert_allclose(paddle.var(x, axis=1, unbiased=False).numpy(), X.var(axis=1))
    np.testing.assert_allclose(paddle.std(x, axis=[0, 2], keepdim=True).numpy(),
                               X.std(axis=(0, 2), ddof=1, keepdims=True))
    paddle.var(x, axis=2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * (X - X.mean(2, keepdims=True)) / 3)
    assert np.isnan(paddle.var(t([1.0])).item())


def test_all_any():
    b = paddle.to_tensor([[True, False], [True, True]])
    assert paddle.all(b).item() is False and paddle.any(b).item() is True
    assert paddle.all(b, axis=1).tolist() == [False, True]
    assert paddle.any(b, axis=0, keepdim=True).tolist() == [[True, True]]
    assert paddle.all(t([1.0, 2.0])).item() is True


def test_double_grad_of_reductions():
    xv = np.array([0.5, -1.0, 2.0])
    x = t(xv, grad=True)
    (g,) = paddle.grad(paddle.var(x), x, create_graph=True)   # 2 (x - mean) / (n - 1)
    np.testing.assert_allclose(g.numpy(), xv - xv.mean())
    (h,) = paddle.grad((g * g).sum(), x)                       # 2 (I - 11^T/n) g
    np.testing.assert_allclose(h.numpy(), 2 * ((xv - xv.mean()) - (xv - xv.mean()).mean()))
    (g,) = paddle.grad(paddle.logsumexp(x), x, create_graph=True)
    s = np.exp(xv) / np.exp(xv).sum()
    (h,) = paddle.grad(g[0], x)
    np.testing.assert_allclose(h.numpy(), s[0] * (np.eye(3)[0] - s))


# ---- errors ---------------------------------------------------------------------------

def test_axis_errors_name_the_api_and_shape():
    x = t(X)
    with pytest.raises(OpError, match=r'sum: axis 3 is out of range.*\[2, 3, 4\]'):
        paddle.sum(x, axis=3)
    with pytest.raises(OpError, match=r'mean: axis -4'):
        paddle.mean(x, axis=[0, -4])
    with pytest.raises(OpError, match='max: axis must be an int'):
        paddle.max(x, axis=1.5)


# ---- PyTorch cross-check ----------------------------------------------------------------

def test_against_torch():
    torch = pytest.importorskip('torch')
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((3, 4, 5))
    x = t(xv, grad=True)
    loss = (paddle.logsumexp(x, axis=[0, 2]).sum() + paddle.std(x, axis=1).sum()
            + paddle.prod(x, axis=-1).sum() + paddle.max(x, axis=0).sum())
    loss.backward()
    tx = torch.tensor(xv, requires_grad=True)
    tloss = (torch.logsumexp(tx, dim=(0, 2)).sum() + torch.std(tx, dim=1).sum()
             + torch.prod(tx, dim=-1).sum() + torch.amax(tx, dim=0).sum())
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)
