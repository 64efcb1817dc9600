"""Activations, dropout variants, padding, sequence helpers, attention and
interpolation modes added for Paddle 3's ``nn.functional``: values against
numpy / closed forms, gradients by finite differences, static / @to_static
agreement, Paddle's signatures (``out=``, ``pad_from_left_axis``, ...), and
the answers Paddle's CPU build gives for CUDA-only names."""
import math

import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F

from nn_check import check_grads, check_modes

rng = np.random.default_rng(29)


def t(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


def test_inplace_activations_and_out_argument():
    x = rng.standard_normal((3, 4))
    for fn, ref in ((F.tanh_, np.tanh), (lambda v: F.hardtanh_(v, -0.5, 0.5),
                                          lambda v: np.clip(v, -0.5, 0.5)),
                    (lambda v: F.leaky_relu_(v, 0.2), lambda v: np.where(v > 0, v, 0.2 * v)),
                    (lambda v: F.thresholded_relu_(v, 0.3, -1.0),
                     lambda v: np.where(v > 0.3, v, -1.0))):
        y = t(x.copy())
        r = fn(y)
        assert r is y
        np.testing.assert_allclose(y.numpy(), ref(x), rtol=1e-12)
    out = paddle.zeros([3, 4], 'float64')
    r = F.sigmoid(t(x), out=out)
    np.testing.assert_allclose(out.numpy(), 1 / (1 + np.exp(-x)))
    F.softmax(t(x), axis=0, out=out)
    np.testing.assert_allclose(out.numpy(), np.exp(x) / np.exp(x).sum(0))
    F.tanh(t(x), out=out)
    np.testing.assert_allclose(out.numpy(), np.tanh(x))
    F.normalize(t(x), out=out)
    np.testing.assert_allclose(out.numpy(), x / np.linalg.norm(x, axis=1, keepdims=True))
    assert F.logsigmoid is F.log_sigmoid


def test_rrelu_training_and_eval():
    x = rng.standard_normal((200,))
    np.testing.assert_allclose(F.rrelu(t(x), 0.1, 0.3, training=False).numpy(),
                               np.where(x >= 0, x, 0.2 * x))
    paddle.seed(5)
    y = F.rrelu(t(x), 0.1, 0.3).numpy()
    slope = y[x < 0] / x[x < 0]
    assert (slope >= 0.1).all() and (slope <= 0.3).all() and slope.std() > 0.01
    np.testing.assert_array_equal(y[x >= 0], x[x >= 0])
    xg = t(x, grad=True)
    paddle.seed(5)
    F.rrelu(xg, 0.1, 0.3).sum().backward()
    np.testing.assert_allclose(xg.grad.numpy()[x < 0], slope)
    layer = paddle.nn.RReLU(0.1, 0.3)
    layer.eval()
    np.testing.assert_allclose(layer(t(x)).numpy(), np.where(x >= 0, x, 0.2 * x))
    with pytest.raises(ValueError, match='upper'):
        F.rrelu(t(x), 0.5, 0.2)


def test_gumbel_softmax_distribution_hard_and_gradient():
    paddle.seed(2)
    logits = np.log(np.array([0.2, 0.5, 0.3]))
    draws = F.gumbel_softmax(t(np.tile(logits, (4000, 1))), temperature=0.1, hard=True).numpy()
    assert set(np.unique(draws)) <= {0.0, 1.0} and (draws.sum(1) == 1).all()
    np.testing.assert_allclose(draws.mean(0), [0.2, 0.5, 0.3], atol=0.03)
    soft = F.gumbel_softmax(t(rng.standard_normal((5, 4))), temperature=2.0, axis=0).numpy()
    np.testing.assert_allclose(soft.sum(0), 1)
    # Paddle's gradient is the softmax gradient at the output: zero for one-hot samples
    x = t(rng.standard_normal((3, 4)), grad=True)
    (F.gumbel_softmax(x, hard=True) * t(rng.standard_normal((3, 4)))).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 0, atol=1e-12)


def test_swiglu_rms_norm_and_pairwise_distance():
    x = rng.standard_normal((3, 6))
    a, b = x[:, :3], x[:, 3:]
    np.testing.assert_allclose(F.swiglu(t(x)).numpy(), a / (1 + np.exp(-a)) * b, rtol=1e-12)
    np.testing.assert_allclose(F.swiglu(t(a), t(b)).numpy(), a / (1 + np.exp(-a)) * b)
    w = rng.standard_normal(6)
    out, inv = F.rms_norm(t(x), [6], t(w), eps=1e-6)
    r = 1 / np.sqrt((x ** 2).mean(1, keepdims=True) + 1e-6)
    np.testing.assert_allclose(out.numpy(), x * r * w, rtol=1e-10)
    assert inv.dtype == paddle.float32 and np.allclose(inv.numpy(), r.ravel())
    y = rng.standard_normal((3, 6))
    np.testing.assert_allclose(F.pairwise_distance(t(x), t(y), keepdim=True).numpy(),
                               np.linalg.norm(x - y + 1e-6, axis=1, keepdims=True), rtol=1e-12)
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    np.testing.assert_allclose(F.pdist(t(x), 1.0).numpy(),
                               [np.abs(x[i] - x[j]).sum() for i, j in pairs])

    def f(x, w):
        return F.rms_norm(x, [6], w)[0] + F.swiglu(x, x)
    check_grads(f, [x, w])
    check_modes(f, [x, w])


def test_bilinear_dropout1d_and_feature_alpha_dropout():
    x1, x2 = rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    w, b = rng.standard_normal((5, 3, 2)), rng.standard_normal((1, 5))
    np.testing.assert_allclose(F.bilinear(t(x1), t(x2), t(w), t(b)).numpy(),
                               np.einsum('ni,kij,nj->nk', x1, w, x2) + b, rtol=1e-12)
    check_grads(lambda a, c, w, b: F.bilinear(a, c, w, b), [x1, x2, w, b])
    paddle.seed(3)
    y = F.dropout1d(t(np.ones((8, 6, 5))), 0.5).numpy()
    # one mask per channel shared by the batch (Paddle draws it along axis 1 only)
    assert set(np.unique(y)) <= {0.0, 2.0} and (y == y[:1, :, :1]).all()
    assert F.dropout1d(t(np.ones((6, 5))), 0.5, training=False).shape == [6, 5]
    paddle.seed(4)
    z = F.feature_alpha_dropout(t(np.zeros((50, 4, 3))), 0.3).numpy()
    assert (z == z[:, :, :1]).all()                      # whole channels
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - 0.3) * (1 + 0.3 * alpha_p ** 2)) ** -0.5
    np.testing.assert_allclose(np.unique(z.round(6)),
                               sorted({round(a * alpha_p + -a * alpha_p * 0.3, 6),
                                       round(-a * alpha_p * 0.3, 6)}))
    assert F.feature_alpha_dropout(t(np.ones((2, 3))), 0.3, training=False).numpy().sum() == 6
    layer = paddle.nn.FeatureAlphaDropout(0.3)
    layer.eval()
    assert layer(t(np.ones((2, 3)))).numpy().sum() == 6


def test_pad_signatures_and_zeropad2d():
    x = np.arange(3.0).reshape(1, 1, 3) + 1
    left = F.pad(t(x), [1, 0, 0, 1, 0, 0], pad_from_left_axis=True).numpy()
    assert left.shape == (2, 2, 3) and left[1, 0].tolist() == [1, 2, 3]
    right = F.pad(t(x), [1, 0, 0, 1, 0, 0], pad_from_left_axis=False).numpy()
    assert right.shape == (1, 2, 4) and right[0, 0].tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(F.pad(t(x), [1, 0, 0, 1]).numpy(), right)
    y = F.pad(t(np.arange(6.0).reshape(1, 1, 2, 3)), [1, 2, 1, 1], mode='circular').numpy()
    np.testing.assert_array_equal(y[0, 0, 1], [2, 0, 1, 2, 0, 1])
    z = F.zeropad2d(t(np.ones((1, 1, 2, 2))), [1, 0, 2, 0]).numpy()
    assert z.shape == (1, 1, 4, 3) and z.sum() == 4
    np.testing.assert_array_equal(F.one_hot(t(np.array([0, 2, 1]))).numpy(), np.eye(3)[[0, 2, 1]])


def test_sequence_mask_gather_tree_and_temporal_shift():
    lens = np.array([[1, 3], [0, 2]])
    m = F.sequence_mask(t(lens), dtype='float32').numpy()
    np.testing.assert_array_equal(m, (np.arange(3) < lens[..., None]).astype('float32'))
    assert F.sequence_mask(t(np.array([2])), maxlen=4).numpy().tolist() == [[1, 1, 0, 0]]
    ids = np.array([[[2, 2], [6, 1]], [[3, 9], [6, 1]], [[0, 1], [9, 0]]])
    parents = np.array([[[0, 0], [1, 1]], [[1, 0], [1, 0]], [[0, 0], [0, 1]]])
    assert F.gather_tree(t(ids), t(parents)).numpy().tolist() == [
        [[2, 2], [1, 6]], [[3, 3], [6, 1]], [[0, 1], [9, 0]]]      # Paddle's values
    x = np.arange(32.0).reshape(2, 4, 2, 2)               # one clip of 2 frames, 4 channels
    y = F.temporal_shift(t(x), 2, 0.25).numpy()
    np.testing.assert_array_equal(y[0, 0], 0)             # channel 0 from the previous frame
    np.testing.assert_array_equal(y[1, 0], x[0, 0])
    np.testing.assert_array_equal(y[0, 1], x[1, 1])       # channel 1 from the next frame
    np.testing.assert_array_equal(y[1, 1], 0)
    np.testing.assert_array_equal(y[:, 2:], x[:, 2:])
    nhwc = F.temporal_shift(t(x.transpose(0, 2, 3, 1)), 2, 0.25, data_format='NHWC').numpy()
    np.testing.assert_array_equal(nhwc, y.transpose(0, 2, 3, 1))

    def f(x):
        return F.temporal_shift(x, 2, 0.25)
    check_grads(f, [rng.standard_normal((4, 4, 1, 2))])
    check_modes(f, [x])


def test_diag_embed_and_class_center_sample():
    v = rng.standard_normal((2, 3))
    d = F.diag_embed(t(v), offset=1).numpy()
    assert d.shape == (2, 4, 4)
    np.testing.assert_array_equal(d[1], np.diag(v[1], 1))
    np.testing.assert_array_equal(F.diag_embed(t(v), -1, 0, 2).numpy()[:, 0, :],
                                  np.diag(v[0], -1))
    paddle.seed(0)
    remapped, centers = F.class_center_sample(t(np.array([7, 2, 2, 9, 1])), 20, 8)
    c = centers.numpy()
    assert c[:4].tolist() == [1, 2, 7, 9] and len(set(c)) == 8 and c.max() < 20
    assert remapped.numpy().tolist() == [2, 1, 1, 3, 0]


def _attention(q, k, v, mask=None, causal=False, scale=None):
    q, k, v = (np.swapaxes(a, 1, 2) for a in (q, k, v))
    s = q @ np.swapaxes(k, -1, -2) * (scale or q.shape[-1] ** -0.5)
    if causal:
        s = s + np.triu(np.full(s.shape[-2:], -1e4), 1)
    if mask is not None:
        s = s + mask
    w = np.exp(s - s.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    return np.swapaxes(w @ v, 1, 2), w


def test_scaled_dot_product_attention_and_flash_attention():
    q, k, v = (rng.standard_normal((2, 5, 3, 4)) for _ in range(3))
    np.testing.assert_allclose(F.scaled_dot_product_attention(t(q), t(k), t(v)).numpy(),
                               _attention(q, k, v)[0], rtol=1e-10)
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(t(q), t(k), t(v), is_causal=True, scale=0.3).numpy(),
        _attention(q, k, v, causal=True, scale=0.3)[0], rtol=1e-10)
    keep = rng.random((2, 3, 5, 5)) > 0.3
    keep[..., 0] = True
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(t(q), t(k), t(v), attn_mask=t(keep)).numpy(),
        _attention(q, k, v, mask=np.where(keep, 0, -np.inf))[0], rtol=1e-10)
    kg, vg = k[:, :, :1], v[:, :, :1]                     # one key/value head for 3 query heads
    np.testing.assert_allclose(
        F.scaled_dot_product_attention(t(q), t(kg), t(vg)).numpy(),
        _attention(q, np.repeat(kg, 3, 2), np.repeat(vg, 3, 2))[0], rtol=1e-10)
    qkv = np.stack([q, k, v], axis=2)                     # [b, s, 3, heads, dim]
    out, sm = F.flash_attn_qkvpacked(t(qkv), causal=True, return_softmax=True)
    want, w = _attention(q, k, v, causal=True)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(sm.numpy(), w, rtol=1e-10)
    out, none = F.flash_attention.flash_attention(t(q), t(k), t(v))
    assert none is None and np.allclose(out.numpy(), _attention(q, k, v)[0])

    def f(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)
    check_grads(f, [a[:1, :3, :2] for a in (q, k, v)])
    check_modes(f, [q, k, v])


@pytest.mark.parametrize('call', [
    lambda: F.flash_attn_varlen_qkvpacked(None, None, None, 4, 4, 0.5),
    lambda: F.flashmask_attention(None, None, None),
    lambda: F.flash_attention_v3_varlen(None, None, None, None, None, 4, 4),
    lambda: F.sparse_attention(None, None, None, None, None),
    lambda: F.moe_permute(None, None, None, None, 2, [1, 1], 1),
    lambda: F.moe_unpermute(None, None, None, None, 2, 2)])
def test_cuda_only_names_raise_as_paddles_cpu_build(call):
    with pytest.raises(RuntimeError, match='not registered'):
        call()


def _cubic(x, a=-0.75):
    x = abs(x)
    if x <= 1:
        return (a + 2) * x ** 3 - (a + 3) * x ** 2 + 1
    return a * x ** 3 - 5 * a * x ** 2 + 8 * a * x - 4 * a if x < 2 else 0.0


def test_interpolate_bicubic_area_and_antialias():
    x = rng.standard_normal((1, 1, 5, 6))
    got = F.interpolate(t(x), size=[7, 4], mode='bicubic').numpy()[0, 0]

    def src(k, n_in, n_out):
        return (n_in / n_out) * (k + 0.5) - 0.5
    want = np.zeros((7, 4))
    for i in range(7):
        for j in range(4):
            sy, sx = src(i, 5, 7), src(j, 6, 4)
            y0, x0 = math.floor(sy), math.floor(sx)
            for dy in range(-1, 3):
                for dx in range(-1, 3):
                    want[i, j] += (_cubic(sy - (y0 + dy)) * _cubic(sx - (x0 + dx))
                                   * x[0, 0, min(max(y0 + dy, 0), 4), min(max(x0 + dx, 0), 5)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    area = F.interpolate(t(x), size=[2, 3], mode='area').numpy()
    np.testing.assert_allclose(area, F.adaptive_avg_pool2d(t(x), [2, 3]).numpy())
    # anti-aliased downscaling by an integer factor with the box-like bilinear
    # filter of width 2*factor: a constant image stays constant, a ramp stays linear
    ramp = np.tile(np.arange(8.0), (1, 1, 8, 1))
    down = F.interpolate(t(ramp), size=[4, 4], mode='bilinear', antialias=True).numpy()
    np.testing.assert_allclose(down[0, 0, 0], [0.5 + 2 * k for k in range(4)], atol=0.35)
    ones = F.interpolate(t(np.ones((1, 1, 9, 7))), size=[4, 3], mode='bicubic', antialias=True)
    np.testing.assert_allclose(ones.numpy(), 1, rtol=1e-12)
    with pytest.raises(ValueError, match='antialias'):
        F.interpolate(t(x), size=[2, 2], mode='nearest', antialias=True)

    def f(x):
        return (F.interpolate(x, size=[3, 8], mode='bicubic', align_corners=True)
                + F.interpolate(x, size=[3, 8], mode='bilinear', antialias=True))
    check_grads(f, [x])
    check_modes(f, [x])
