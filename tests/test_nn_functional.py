"""Behaviour of framework.nn.functional (activations, normalisation, dropout,
embedding, linear, interpolate). Op-level forward/grad/grad-of-grad checks
live in the registry-generated suite; these test the public API semantics."""
import math

import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework.ops.registry import OpError


def t(a, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a), stop_gradient=stop_gradient)


rng = np.random.default_rng(0)


# ---- activations ----------------------------------------------------------------

@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('size', [7, 5000, 2 * 65536 + 5])
def test_relu_blockwise_kernel_matches_maximum_with_zero(dtype, size):
    # the kernel runs np.maximum against a zeros block, block by block, on
    # contiguous inputs: same values (NaN, infinities, signed zeros) as np.maximum(x, 0)
    x = rng.standard_normal(size).astype(dtype)
    x[:4] = [np.nan, -np.inf, np.inf, -0.0]
    x = x.reshape(-1, 1) if size % 2 else x.reshape(2, -1)
    for xin in (x, x[::-1], np.asfortranarray(x)):
        xt = paddle.to_tensor(xin, stop_gradient=False)
        out = F.relu(xt)
        want = np.maximum(xin, 0)
        assert out.dtype == xt.dtype and out.shape == list(xin.shape)
        np.testing.assert_array_equal(out.numpy(), want)
        assert np.array_equal(np.signbit(out.numpy()), np.signbit(want))
        out.sum().backward()
        np.testing.assert_array_equal(xt.grad.numpy(), (want > 0).astype(dtype))


def test_activations_match_textbook_formulas():
    x = np.array([-2.5, -0.7, 0.3, 1.9, 4.0])
    xt = t(x)
    sig = 1 / (1 + np.exp(-x))
    cases = {
        'relu': np.maximum(x, 0), 'relu6': np.clip(x, 0, 6), 'silu': x * sig,
        'swish': x * sig, 'softsign': x / (1 + abs(x)), 'tanhshrink': x - np.tanh(x),
        'log_sigmoid': np.log(sig), 'sigmoid': sig, 'tanh': np.tanh(x),
        'hardswish': x * np.clip(x + 3, 0, 6) / 6,
        'hardsigmoid': np.clip(x * 0.1666667 + 0.5, 0, 1),
        'hardtanh': np.clip(x, -1, 1), 'mish': x * np.tanh(np.log1p(np.exp(x))),
        'selu': 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    }
    for name, expect in cases.items():
        np.testing.assert_allclose(getattr(F, name)(xt).numpy(), expect, rtol=1e-6,
                                   atol=1e-7, err_msg=name)
    np.testing.assert_allclose(F.leaky_relu(xt, 0.2).numpy(), np.where(x > 0, x, 0.2 * x))
    np.testing.assert_allclose(F.elu(xt, 0.5).numpy(), np.where(x > 0, x, 0.5 * np.expm1(x)))
    np.testing.assert_allclose(F.softplus(xt, beta=2, threshold=5).numpy(),
                               np.where(2 * x > 5, x, np.log1p(np.exp(2 * x)) / 2))


def test_gelu_exact_and_tanh_approximation():
    x = np.linspace(-3, 3, 13)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x])
    approx = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(F.gelu(t(x)).numpy(), exact, rtol=1e-10)
    np.testing.assert_allclose(F.gelu(t(x), approximate=True).numpy(), approx, rtol=1e-10)


def test_activations_keep_float32_and_do_not_overflow():
    x = t(np.array([-1000.0, -30.0, 0.5, 30.0, 1000.0], np.float32))
    for fn in (F.silu, F.log_sigmoid, F.softplus, F.mish, F.elu, F.selu, F.celu, F.gelu):
        with np.errstate(over='raise', divide='raise', invalid='raise'):
            out = fn(x)
        assert out.dtype == paddle.float32, fn.__name__
        assert np.all(np.isfinite(out.numpy())), fn.__name__


def test_softmax_and_log_softmax_are_stable_and_normalised():
    x = t(np.array([[1000.0, 1001.0, 1002.0], [-5.0, 0.0, 5.0]]))
    s = F.softmax(x).numpy()
    np.testing.assert_allclose(s.sum(axis=-1), 1.0)
    np.testing.assert_allclose(np.exp(F.log_softmax(x).numpy()), s, rtol=1e-12)
    assert F.softmax(x, axis=0).shape == [2, 3]
    assert F.softmax(t(np.ones((2, 2), np.float64)), dtype='float32').dtype == paddle.float32


def test_softmax_backward():
    x = paddle.to_tensor(rng.standard_normal((2, 4)), stop_gradient=False)
    w = rng.standard_normal((2, 4))
    (F.softmax(x) * t(w)).sum().backward()
    s = F.softmax(x).numpy()
    np.testing.assert_allclose(x.grad.numpy(), s * (w - (w * s).sum(-1, keepdims=True)),
                               rtol=1e-10)


def test_relu_inplace_updates_the_tensor():
    x = t(np.array([-1.0, 2.0]))
    y = F.relu_(x)
    assert y is x
    np.testing.assert_array_equal(x.numpy(), [0.0, 2.0])


def test_prelu_per_channel_and_single_slope():
    x = rng.standard_normal((2, 3, 2, 2))
    w = np.array([0.1, 0.2, 0.3])
    expect = np.where(x > 0, x, x * w.reshape(1, 3, 1, 1))
    np.testing.assert_allclose(F.prelu(t(x), t(w)).numpy(), expect)
    np.testing.assert_allclose(F.prelu(t(x), t(np.array([0.25]))).numpy(),
                               np.where(x > 0, x, 0.25 * x))
    with pytest.raises(OpError, match='prelu'):
        F.prelu(t(x), t(np.ones(4)))


def test_glu_and_maxout():
    x = rng.standard_normal((2, 6))
    a, b = x[:, :3], x[:, 3:]
    np.testing.assert_allclose(F.glu(t(x)).numpy(), a / (1 + np.exp(-b)), rtol=1e-12)
    y = rng.standard_normal((1, 4, 2, 2))
    np.testing.assert_allclose(F.maxout(t(y), 2).numpy(),
                               y.reshape(1, 2, 2, 2, 2).max(axis=2))


def test_activations_vs_torch():
    torch = pytest.importorskip('torch')
    x = rng.standard_normal((3, 5)) * 3
    tx = torch.tensor(x)
    pairs = [(F.relu, torch.relu), (F.gelu, torch.nn.functional.gelu),
             (lambda v: F.gelu(v, True),
              lambda v: torch.nn.functional.gelu(v, approximate='tanh')),
             (F.silu, torch.nn.functional.silu), (F.mish, torch.nn.functional.mish),
             (F.log_sigmoid, torch.nn.functional.logsigmoid),
             (F.hardswish, torch.nn.functional.hardswish),
             (lambda v: F.celu(v, 0.5), lambda v: torch.nn.functional.celu(v, 0.5)),
             (F.softsign, torch.nn.functional.softsign),
             (lambda v: F.softmax(v, 0), lambda v: torch.softmax(v, 0)),
             (lambda v: F.log_softmax(v, 1), lambda v: torch.log_softmax(v, 1))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(t(x)).numpy(), theirs(tx).numpy(), rtol=1e-7,
                                   atol=1e-10)


# ---- batch_norm -------------------------------------------------------------------

def _bn_buffers(c):
    return (paddle.to_tensor(np.zeros(c, np.float32)), paddle.to_tensor(np.ones(c, np.float32)))


def test_batch_norm_training_updates_running_stats_with_momentum():
    x = rng.standard_normal((4, 3, 2, 2)).astype(np.float32) * 2 + 1
    rm, rv = _bn_buffers(3)
    rm_id = id(rm)
    out = F.batch_norm(t(x), rm, rv, training=True, momentum=0.9)
    mu = x.mean(axis=(0, 2, 3))
    var = x.var(axis=(0, 2, 3))       # biased, as Paddle's kernel uses
    np.testing.assert_allclose(rm.numpy(), 0.1 * mu, rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), 0.9 + 0.1 * var, rtol=1e-5)
    assert id(rm) == rm_id and rm.stop_gradient and rm.dtype == paddle.float32
    expect = (x - mu.reshape(1, 3, 1, 1)) / np.sqrt(var.reshape(1, 3, 1, 1) + 1e-5)
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-4, atol=1e-5)
    # a second step folds in again
    F.batch_norm(t(x), rm, rv, training=True, momentum=0.9)
    np.testing.assert_allclose(rm.numpy(), 0.9 * 0.1 * mu + 0.1 * mu, rtol=1e-5)


def test_batch_norm_eval_uses_running_stats_and_leaves_them():
    x = rng.standard_normal((4, 3)).astype(np.float32)
    rm = t(np.array([0.5, -1.0, 2.0], np.float32))
    rv = t(np.array([1.5, 0.5, 4.0], np.float32))
    w = t(np.array([1.0, 2.0, 0.5], np.float32))
    b = t(np.array([0.0, 1.0, -1.0], np.float32))
    out = F.batch_norm(t(x), rm, rv, w, b, training=False)
    expect = (x - rm.numpy()) / np.sqrt(rv.numpy() + 1e-5) * w.numpy() + b.numpy()
    np.testing.assert_allclose(out.numpy(), expect, rtol=1e-5)
    np.testing.assert_array_equal(rm.numpy(), [0.5, -1.0, 2.0])
    # use_global_stats=True while training: running stats, no update
    out2 = F.batch_norm(t(x), rm, rv, w, b, training=True, use_global_stats=True)
    np.testing.assert_allclose(out2.numpy(), expect, rtol=1e-5)
    np.testing.assert_array_equal(rv.numpy(), [1.5, 0.5, 4.0])


def test_batch_norm_nhwc_equals_nchw_and_backward_runs_after_stat_update():
    x = rng.standard_normal((2, 3, 4, 4))
    w = paddle.to_tensor(rng.uniform(0.5, 1.5, 3), stop_gradient=False)
    b = paddle.to_tensor(rng.standard_normal(3), stop_gradient=False)
    rm1, rv1 = _bn_buffers(3)
    rm2, rv2 = _bn_buffers(3)
    xt = paddle.to_tensor(x, stop_gradient=False)
    a = F.batch_norm(xt, rm1, rv1, w, b, training=True)
    c = F.batch_norm(t(x.transpose(0, 2, 3, 1)), rm2, rv2, w, b, training=True,
                     data_format='NHWC')
    np.testing.assert_allclose(a.numpy(), c.numpy().transpose(0, 3, 1, 2), atol=1e-12)
    np.testing.assert_allclose(rv1.numpy(), rv2.numpy(), rtol=1e-6)
    (a * a).sum().backward()      # the updated buffers must not break backward
    assert xt.grad is not None and w.grad is not None and b.grad is not None


def test_batch_norm_vs_torch_output_and_grads():
    torch = pytest.importorskip('torch')
    x = rng.standard_normal((5, 3, 2))
    w, b = rng.uniform(0.5, 1.5, 3), rng.standard_normal(3)
    xt = paddle.to_tensor(x, stop_gradient=False)
    wt = paddle.to_tensor(w, stop_gradient=False)
    bt = paddle.to_tensor(b, stop_gradient=False)
    rm, rv = paddle.to_tensor(np.zeros(3)), paddle.to_tensor(np.ones(3))
    g = rng.standard_normal(x.shape)
    out = F.batch_norm(xt, rm, rv, wt, bt, training=True, data_format='NCL')
    (out * t(g)).sum().backward()
    tx, tw, tb = (torch.tensor(v, requires_grad=True) for v in (x, w, b))
    ref = torch.nn.functional.batch_norm(tx, torch.zeros(3, dtype=torch.float64),
                                         torch.ones(3, dtype=torch.float64), tw, tb,
                                         training=True, momentum=0.1, eps=1e-5)
    (ref * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    for ours, theirs in ((xt, tx), (wt, tw), (bt, tb)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-8,
                                   atol=1e-10)


def _bn_step(x, fmt, affine, g):
    c = x.shape[-1] if fmt in ('NHWC', 'NLC') else x.shape[1]
    w = paddle.to_tensor(np.linspace(0.5, 1.5, c).astype(x.dtype), stop_gradient=False)
    b = paddle.to_tensor(np.linspace(-1, 1, c).astype(x.dtype), stop_gradient=False)
    rm = paddle.to_tensor(np.zeros(c, x.dtype))
    rv = paddle.to_tensor(np.ones(c, x.dtype))
    xt = paddle.to_tensor(x, stop_gradient=False)
    out = F.batch_norm(xt, rm, rv, w if affine else None, b if affine else None,
                       training=True, data_format=fmt)
    (out * t(g)).sum().backward()
    grads = [xt.grad.numpy()] + ([w.grad.numpy(), b.grad.numpy()] if affine else [])
    return [out.numpy(), rm.numpy(), rv.numpy()] + grads


@pytest.mark.parametrize('shape,fmt,affine', [
    ((4, 3, 5, 6), 'NCHW', True), ((1, 3, 4, 5), 'NCHW', False), ((3, 4, 5, 2), 'NHWC', True),
    ((6, 4), 'NCHW', True), ((2, 3, 7), 'NCL', True), ((2, 3, 2, 2, 3), 'NCDHW', False)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_batch_norm_fast_statistics_match_the_general_formulas(shape, fmt, affine, dtype,
                                                                monkeypatch):
    # the few-pass float32/float64 kernels against the general path, forward,
    # running statistics and gradients, on an off-centre input and a strided view
    from framework.ops import nn as nn_ops
    x = (3 + 2 * rng.standard_normal(shape)).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    for xin in (x, np.flip(x, axis=0)):
        fast = _bn_step(xin, fmt, affine, g)
        monkeypatch.setattr(nn_ops, '_BN_FAST_DTYPES', ())
        general = _bn_step(xin, fmt, affine, g)
        monkeypatch.undo()
        tol = 2e-5 if dtype == np.float32 else 1e-12
        for a, b in zip(fast, general):
            assert a.dtype == dtype
            np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_batch_norm_errors_name_the_shapes():
    rm, rv = _bn_buffers(4)
    with pytest.raises(OpError, match=r'batch_norm: running_mean must have shape \[3\]'
                                      r'.*\[2, 3, 5\].*got \[4\]'):
        F.batch_norm(t(np.ones((2, 3, 5))), rm, rv, training=True)
    with pytest.raises(OpError, match='more than 1 value per channel'):
        F.batch_norm(t(np.ones((1, 4))), rm, rv, training=True)
    with pytest.raises(OpError, match='data_format'):
        F.batch_norm(t(np.ones((2, 4))), rm, rv, data_format='CHWN')


# ---- layer / group / instance norm, normalize ---------------------------------------

def test_layer_norm_matches_formula_and_accepts_flat_weight():
    x = rng.standard_normal((2, 3, 4))
    w, b = rng.uniform(0.5, 1.5, (3, 4)), rng.standard_normal((3, 4))
    mu = x.mean(axis=(1, 2), keepdims=True)
    var = x.var(axis=(1, 2), keepdims=True)
    expect = (x - mu) / np.sqrt(var + 1e-5) * w + b
    np.testing.assert_allclose(F.layer_norm(t(x), [3, 4], t(w), t(b)).numpy(), expect,
                               rtol=1e-10)
    np.testing.assert_allclose(F.layer_norm(t(x), [3, 4], t(w.reshape(-1)),
                                            t(b.reshape(-1))).numpy(), expect, rtol=1e-10)
    with pytest.raises(OpError, match='normalized_shape'):
        F.layer_norm(t(x), [5])


def test_norms_vs_torch():
    torch = pytest.importorskip('torch')
    tF = torch.nn.functional
    x = rng.standard_normal((2, 4, 3, 3))
    w, b = rng.uniform(0.5, 1.5, 4), rng.standard_normal(4)
    tx = torch.tensor(x)
    np.testing.assert_allclose(F.group_norm(t(x), 2, 1e-5, t(w), t(b)).numpy(),
                               tF.group_norm(tx, 2, torch.tensor(w), torch.tensor(b)).numpy(),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(F.instance_norm(t(x), weight=t(w), bias=t(b)).numpy(),
                               tF.instance_norm(tx, weight=torch.tensor(w),
                                                bias=torch.tensor(b)).numpy(),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(F.layer_norm(t(x), [3, 3]).numpy(),
                               tF.layer_norm(tx, [3, 3]).numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(F.normalize(t(x), p=3, axis=1).numpy(),
                               tF.normalize(tx, p=3, dim=1).numpy(), rtol=1e-10)
    np.testing.assert_allclose(F.local_response_norm(t(x), 3).numpy(),
                               tF.local_response_norm(tx, 3).numpy(), rtol=1e-10)


def test_group_norm_nhwc_and_errors():
    x = rng.standard_normal((2, 3, 3, 4))
    a = F.group_norm(t(x.transpose(0, 3, 1, 2)), 2).numpy()
    c = F.group_norm(t(x), 2, data_format='NHWC').numpy()
    np.testing.assert_allclose(c.transpose(0, 3, 1, 2), a, atol=1e-12)
    with pytest.raises(OpError, match='num_groups=3 must divide the channel count 4'):
        F.group_norm(t(x.transpose(0, 3, 1, 2)), 3)


def test_normalize_guards_small_norms():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(F.normalize(t(x), axis=1).numpy(), [[0.6, 0.8], [0.0, 0.0]])


# ---- dropout ------------------------------------------------------------------------

def test_dropout_statistics_and_scaling():
    paddle.seed(3)
    x = t(np.ones((200, 500)))
    out = F.dropout(x, p=0.3).numpy()
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.01
    np.testing.assert_allclose(out[kept], 1 / 0.7)
    assert abs(out.mean() - 1.0) < 0.02
    down = F.dropout(x, p=0.3, mode='downscale_in_infer').numpy()
    assert set(np.unique(down)) <= {0.0, 1.0}


def test_dropout_is_repeatable_under_seed():
    x = t(rng.standard_normal((8, 8)))
    paddle.seed(42)
    a = F.dropout(x, 0.5).numpy()
    b = F.dropout(x, 0.5).numpy()
    paddle.seed(42)
    c = F.dropout(x, 0.5).numpy()
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)


def test_dropout_eval_and_edge_probabilities():
    x = t(rng.standard_normal((3, 4)))
    assert F.dropout(x, 0.5, training=False) is x
    np.testing.assert_allclose(F.dropout(x, 0.4, training=False, mode='downscale_in_infer')
                               .numpy(), x.numpy() * 0.6)
    np.testing.assert_array_equal(F.dropout(x, 1.0).numpy(), np.zeros((3, 4)))
    assert F.dropout(x, 0.0) is x
    with pytest.raises(OpError, match='dropout: p must be in'):
        F.dropout(x, 1.5)
    with pytest.raises(OpError, match='mode'):
        F.dropout(x, 0.5, mode='scale')


def test_dropout_axis_shares_the_mask_and_grad_uses_it():
    paddle.seed(0)
    x = paddle.to_tensor(np.ones((4, 3, 5)), stop_gradient=False)
    out = F.dropout(x, 0.5, axis=[0, 1])
    o = out.numpy()
    assert np.all((o == 0).all(axis=2) | (o != 0).all(axis=2))   # whole rows dropped
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), o)   # grad = mask * 2 = output of ones
    paddle.seed(0)
    y = F.dropout2d(t(np.ones((2, 3, 4, 4))), 0.5).numpy()
    assert np.all((y == 0).all(axis=(2, 3)) | (y != 0).all(axis=(2, 3)))


def test_alpha_dropout_keeps_mean_and_variance():
    paddle.seed(1)
    x = t(rng.standard_normal((400, 500)))
    out = F.alpha_dropout(x, 0.2).numpy()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    assert F.alpha_dropout(x, 0.2, training=False) is x


# ---- embedding, linear -------------------------------------------------------------------

def test_embedding_lookup_padding_and_grad():
    w = paddle.to_tensor(rng.standard_normal((5, 3)), stop_gradient=False)
    ids = t(np.array([[0, 2, 4], [2, 2, 1]]))
    out = F.embedding(ids, w, padding_idx=2)
    expect = w.numpy()[ids.numpy()]
    expect[ids.numpy() == 2] = 0
    np.testing.assert_allclose(out.numpy(), expect)
    out.sum().backward()
    np.testing.assert_allclose(w.grad.numpy()[:, 0], [1, 1, 0, 0, 1])
    # negative padding_idx counts from the end
    out = F.embedding(ids, w, padding_idx=-1)
    np.testing.assert_array_equal(out.numpy()[0, 2], 0)


def test_embedding_out_of_range_id_is_a_clear_error():
    w = t(np.ones((5, 3)))
    with pytest.raises(OpError, match=r'embedding: id 7 is out of range \[0, 5\)'):
        F.embedding(t(np.array([1, 7])), w)
    with pytest.raises(OpError, match='padding_idx'):
        F.embedding(t(np.array([1])), w, padding_idx=5)


def test_linear_layout_and_grads():
    x = paddle.to_tensor(rng.standard_normal((2, 3, 4)), stop_gradient=False)
    w = paddle.to_tensor(rng.standard_normal((4, 5)), stop_gradient=False)
    b = paddle.to_tensor(rng.standard_normal(5), stop_gradient=False)
    out = F.linear(x, w, b)
    np.testing.assert_allclose(out.numpy(), x.numpy() @ w.numpy() + b.numpy(), rtol=1e-12)
    g = rng.standard_normal((2, 3, 5))
    (out * t(g)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), g @ w.numpy().T, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(),
                               x.numpy().reshape(-1, 4).T @ g.reshape(-1, 5), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(axis=(0, 1)), rtol=1e-12)


def test_linear_shape_mismatch_names_both_shapes():
    with pytest.raises(OpError, match=r'linear.*\[2, 3\].*\[4, 5\]'):
        F.linear(t(np.ones((2, 3))), t(np.ones((4, 5))))


def test_linear_double_grad():
    x = paddle.to_tensor(rng.standard_normal((2, 3)), stop_gradient=False)
    w = paddle.to_tensor(rng.standard_normal((3, 2)), stop_gradient=False)
    y = F.gelu(F.linear(x, w)).sum()
    (gx,) = paddle.grad(y, [x], create_graph=True)
    (gx * gx).sum().backward()
    assert w.grad is not None and np.all(np.isfinite(w.grad.numpy()))


# ---- interpolate --------------------------------------------------------------------

def test_nearest_upsample_by_two_repeats_pixels():
    x = rng.standard_normal((1, 2, 2, 3))
    out = F.interpolate(t(x), scale_factor=2, mode='nearest').numpy()
    np.testing.assert_array_equal(out, x.repeat(2, axis=2).repeat(2, axis=3))
    assert F.upsample(t(x), size=[4, 6]).shape == [1, 2, 4, 6]


def test_bilinear_align_corners_keeps_corners():
    x = rng.standard_normal((1, 1, 3, 4))
    out = F.interpolate(t(x), size=[5, 7], mode='bilinear', align_corners=True).numpy()
    for i, j in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
        assert out[0, 0, i, j] == pytest.approx(x[0, 0, i, j])


def test_interpolate_vs_torch_forward_and_grad():
    torch = pytest.importorskip('torch')
    x = rng.standard_normal((2, 3, 4, 5))
    configs = [dict(size=[7, 9], mode='bilinear', align_corners=False),
               dict(size=[7, 9], mode='bilinear', align_corners=True),
               dict(size=[3, 2], mode='bilinear', align_corners=False),
               dict(size=[8, 10], mode='nearest'),
               dict(size=[6, 7], mode='nearest')]
    for cfg in configs:
        xt = paddle.to_tensor(x, stop_gradient=False)
        out = F.interpolate(xt, **cfg)
        g = rng.standard_normal(out.shape)
        (out * t(g)).sum().backward()
        tx = torch.tensor(x, requires_grad=True)
        kw = {k: v for k, v in cfg.items()
              if not (k == 'align_corners' and cfg['mode'] == 'nearest')}
        ref = torch.nn.functional.interpolate(tx, **kw)
        (ref * torch.tensor(g)).sum().backward()
        # Paddle (and so we) compute source coordinates in float32; torch in float64
        np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-5,
                                   err_msg=str(cfg))
        np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5,
                                   err_msg=str(cfg))


def test_interpolate_nhwc_and_errors():
    x = rng.standard_normal((1, 3, 4, 2))
    a = F.interpolate(t(x.transpose(0, 3, 1, 2)), size=[5, 6], mode='bilinear').numpy()
    c = F.interpolate(t(x), size=[5, 6], mode='bilinear', data_format='NHWC').numpy()
    np.testing.assert_allclose(c.transpose(0, 3, 1, 2), a, atol=1e-12)
    with pytest.raises(OpError, match='exactly one of size and scale_factor'):
        F.interpolate(t(x), mode='bilinear')
    with pytest.raises(OpError, match="'bilinear' needs a 4-D input"):
        F.interpolate(t(np.ones((1, 2, 3))), size=[4], mode='bilinear')
    with pytest.raises(OpError, match='lanczos'):
        F.interpolate(t(x), size=[2, 2], mode='lanczos')
    with pytest.raises(OpError, match='align_corners'):
        F.interpolate(t(x), size=[2, 2], mode='nearest', align_corners=True)


def test_bilinear_double_backward_is_linear():
    x = paddle.to_tensor(rng.standard_normal((1, 1, 3, 3)), stop_gradient=False)
    y = F.interpolate(x, size=[5, 5], mode='bilinear')
    (gx,) = paddle.grad((y * y).sum(), [x], create_graph=True)
    (gg,) = paddle.grad(gx.sum(), [x])
    assert gg.shape == [1, 1, 3, 3]


# ---- misc ---------------------------------------------------------------------------

def test_cosine_similarity_and_label_smooth():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    expect = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(F.cosine_similarity(t(a), t(b)).numpy(), expect, rtol=1e-12)
    lab = np.eye(4)[[0, 2]]
    np.testing.assert_allclose(F.label_smooth(t(lab), epsilon=0.2).numpy(), lab * 0.8 + 0.05)


def test_functional_namespace_is_complete():
    required = ['relu', 'relu6', 'leaky_relu', 'elu', 'selu', 'celu', 'gelu', 'silu', 'swish',
                'mish', 'softplus', 'softsign', 'tanhshrink', 'hardswish', 'hardsigmoid',
                'hardtanh', 'sigmoid', 'log_sigmoid', 'tanh', 'softmax', 'log_softmax', 'prelu',
                'glu', 'relu_', 'batch_norm', 'layer_norm', 'group_norm', 'instance_norm',
                'normalize', 'local_response_norm', 'dropout', 'dropout2d', 'alpha_dropout',
                'embedding', 'linear', 'interpolate', 'upsample', 'cross_entropy',
                'softmax_with_cross_entropy', 'nll_loss', 'mse_loss', 'l1_loss',
                'smooth_l1_loss', 'binary_cross_entropy', 'binary_cross_entropy_with_logits',
                'kl_div', 'margin_ranking_loss', 'cosine_similarity', 'one_hot', 'pad']
    missing = [n for n in required if not hasattr(F, n)]
    assert not missing, missing


# ---- static mode ---------------------------------------------------------------------

def _static_model(x, w, b, y, gamma):
    h = F.layer_norm(F.gelu(F.linear(x, w, b)), 3, gamma)
    img = F.interpolate(F.softmax(h).reshape([-1, 1, 1, 3]), size=[1, 5], mode='bilinear')
    h = img.reshape([-1, 5])
    loss = F.cross_entropy(h, y, label_smoothing=0.1) + F.nll_loss(F.log_softmax(h), y)
    loss = loss + F.mse_loss(h, h * 0.5) + F.l1_loss(h, h * 0.3) + F.smooth_l1_loss(h, h * 2)
    loss = loss + F.binary_cross_entropy_with_logits(h, F.sigmoid(h))
    loss = loss + F.binary_cross_entropy(F.sigmoid(h), F.sigmoid(h * 3))
    loss = loss + F.kl_div(F.log_softmax(h), F.softmax(h * 2), 'batchmean')
    return (loss + F.group_norm(h.reshape([-1, 5, 1]), 5).sum() + F.normalize(h).sum()
            + F.embedding(y, w).sum())


def test_static_program_matches_eager_with_unknown_batch():
    """Every op here builds with a -1 batch dim, and static grads (incl. a
    second-order one) equal eager's."""
    static = paddle.static
    feed = dict(x=rng.standard_normal((5, 4)), w=rng.standard_normal((4, 3)),
                b=rng.standard_normal(3), y=rng.integers(0, 3, 5),
                g=rng.uniform(0.5, 1.5, 3))
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            vs = {k: static.data(k, [None] + list(v.shape[1:]) if k in 'xy' else list(v.shape),
                                 str(v.dtype)) for k, v in feed.items()}
            for k in 'xwbg':
                vs[k].stop_gradient = False
            loss = _static_model(vs['x'], vs['w'], vs['b'], vs['y'], vs['g'])
            grads = static.gradients([loss], [vs[k] for k in 'xwbg'])
            gg = static.gradients([grads[0].sum()], [vs['w']])
        res = static.Executor().run(main, feed=feed, fetch_list=[loss] + grads + gg)
    finally:
        paddle.disable_static()
    ts = {k: paddle.to_tensor(v, stop_gradient=(k == 'y')) for k, v in feed.items()}
    le = _static_model(ts['x'], ts['w'], ts['b'], ts['y'], ts['g'])
    ge = paddle.grad(le, [ts[k] for k in 'xwbg'], create_graph=True)
    gge = paddle.grad(ge[0].sum(), [ts['w']])
    for a, e in zip(res, [le] + list(ge) + list(gge)):
        np.testing.assert_allclose(a, e.numpy(), rtol=1e-9, atol=1e-12)
