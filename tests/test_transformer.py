"""MultiHeadAttention and the Transformer layers: forward against an
independent numpy implementation (masks of every kind, caches), PyTorch with
copied weights, pre/post norm, cloning in the stacks, gradients by finite
differences, static mode and @to_static."""
import numpy as np
import pytest

import framework as paddle
from framework import nn

RNG = np.random.default_rng(11)


def _arr(*shape):
    return RNG.uniform(-1, 1, shape)


def _t(a, grad=False, dtype=None):
    a = np.asarray(a)
    if dtype is not None:
        a = a.astype(dtype)
    return paddle.to_tensor(a, stop_gradient=not grad)


def _np(t):
    return t.numpy().astype(np.float64)


def _f64(layer):
    layer.to(dtype='float64')
    return layer


# ---- numpy reference -------------------------------------------------------------

def _lin(layer, x):
    out = x @ _np(layer.weight)          # Paddle's Linear weight is [in, out]
    return out if layer.bias is None else out + _np(layer.bias)


def _softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def ref_mha(mha, query, key, value, add_mask=None):
    """Per batch element and head, with an additive float mask that
    broadcasts to [B, H, Lq, Lk]."""
    q, k, v = _lin(mha.q_proj, query), _lin(mha.k_proj, key), _lin(mha.v_proj, value)
    b, lq, e = q.shape
    lk = k.shape[1]
    nh, d = mha.num_heads, e // mha.num_heads
    mask = np.zeros((b, nh, lq, lk)) if add_mask is None else \
        np.broadcast_to(add_mask, (b, nh, lq, lk))
    out = np.zeros((b, lq, e))
    weights = np.zeros((b, nh, lq, lk))
    for i in range(b):
        for h in range(nh):
            sl = slice(h * d, (h + 1) * d)
            w = _softmax(q[i, :, sl] @ k[i, :, sl].T / np.sqrt(d) + mask[i, h])
            weights[i, h] = w
            out[i, :, sl] = w @ v[i, :, sl]
    return _lin(mha.out_proj, out), weights


def _ln(norm, x):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + norm._epsilon) * _np(norm.weight) + _np(norm.bias)


def _ffn(layer, x, act='relu'):
    h = _lin(layer.linear1, x)
    if act == 'relu':
        h = np.maximum(h, 0)
    else:
        from math import erf
        h = 0.5 * h * (1 + np.vectorize(erf)(h / np.sqrt(2)))
    return _lin(layer.linear2, h)


def ref_encoder_layer(layer, x, mask=None, act='relu'):
    def attn(z):
        return ref_mha(layer.self_attn, z, z, z, mask)[0]
    if layer.normalize_before:
        x = x + attn(_ln(layer.norm1, x))
        return x + _ffn(layer, _ln(layer.norm2, x), act)
    x = _ln(layer.norm1, x + attn(x))
    return _ln(layer.norm2, x + _ffn(layer, x, act))


def ref_decoder_layer(layer, x, memory, tgt_mask=None, memory_mask=None):
    def self_attn(z):
        return ref_mha(layer.self_attn, z, z, z, tgt_mask)[0]

    def cross(z):
        return ref_mha(layer.cross_attn, z, memory, memory, memory_mask)[0]
    if layer.normalize_before:
        x = x + self_attn(_ln(layer.norm1, x))
        x = x + cross(_ln(layer.norm2, x))
        return x + _ffn(layer, _ln(layer.norm3, x))
    x = _ln(layer.norm1, x + self_attn(x))
    x = _ln(layer.norm2, x + cross(x))
    return _ln(layer.norm3, x + _ffn(layer, x))


# ---- MultiHeadAttention ------------------------------------------------------------

def test_mha_matches_numpy_without_mask_and_returns_weights():
    mha = _f64(nn.MultiHeadAttention(8, 2, need_weights=True))
    x = _arr(2, 4, 8)
    out, w = mha(_t(x))
    ref_out, ref_w = ref_mha(mha, x, x, x)
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-10, atol=1e-12)
    assert w.shape == [2, 2, 4, 4]


def test_mha_cross_attention_with_kdim_vdim():
    mha = _f64(nn.MultiHeadAttention(8, 4, kdim=3, vdim=5))
    assert mha.k_proj.weight.shape == [3, 8] and mha.v_proj.weight.shape == [5, 8]
    q, k, v = _arr(2, 3, 8), _arr(2, 6, 3), _arr(2, 6, 5)
    out = mha(_t(q), _t(k), _t(v))
    np.testing.assert_allclose(out.numpy(), ref_mha(mha, q, k, v)[0], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize('kind', ['bool', 'int', 'float'])
def test_mha_masks_broadcast_and_block_as_paddle(kind):
    mha = _f64(nn.MultiHeadAttention(8, 2, need_weights=True))
    x = _arr(2, 4, 8)
    keep = RNG.random((2, 1, 4, 4)) > 0.4          # broadcast over heads
    keep[..., 0] = True                             # no fully blocked row
    if kind == 'bool':
        mask = _t(keep)
    elif kind == 'int':
        mask = _t(keep.astype('int64'))
    else:
        mask = _t(np.where(keep, 0.0, -np.inf))
    out, w = mha(_t(x), attn_mask=mask)
    ref_out, ref_w = ref_mha(mha, x, x, x, np.where(keep, 0.0, -np.inf))
    np.testing.assert_allclose(out.numpy(), ref_out, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.numpy(), ref_w, rtol=1e-9, atol=1e-12)
    assert np.all(w.numpy()[np.broadcast_to(~keep, (2, 2, 4, 4))] < 1e-300)


def test_mha_additive_float_mask_of_rank_two():
    mha = _f64(nn.MultiHeadAttention(6, 3))
    x = _arr(2, 5, 6)
    bias = _arr(5, 5)                               # any additive bias, [Lq, Lk]
    out = mha(_t(x), attn_mask=_t(bias))
    np.testing.assert_allclose(out.numpy(), ref_mha(mha, x, x, x, bias)[0], rtol=1e-10,
                               atol=1e-12)


def test_fully_blocked_row_stays_finite_as_paddle():
    # Paddle adds -1e9 (not -inf) for blocked positions: a row blocked
    # everywhere is shifted uniformly, so softmax gives the unmasked weights
    mha = _f64(nn.MultiHeadAttention(4, 1, need_weights=True))
    keep = np.ones((3, 3), bool)
    keep[1] = False
    x = _t(_arr(1, 3, 4))
    _, w = mha(x, attn_mask=_t(keep))
    _, free = mha(x)
    assert np.all(np.isfinite(w.numpy()))
    np.testing.assert_allclose(w.numpy()[0, 0, 1], free.numpy()[0, 0, 1], atol=1e-6)


def test_mha_incremental_cache_equals_causal_attention():
    mha = _f64(nn.MultiHeadAttention(8, 2))
    x = _arr(2, 5, 8)
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    full = mha(_t(x), attn_mask=_t(causal)).numpy()
    cache = mha.gen_cache(_t(x))
    assert cache.k.shape == [2, 2, 0, 4]
    steps = []
    for t in range(5):
        out, cache = mha(_t(x[:, t:t + 1]), cache=cache)
        steps.append(out.numpy())
    assert cache.k.shape == [2, 2, 5, 4]
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-10, atol=1e-12)


def test_mha_static_cache_replaces_key_and_value():
    mha = _f64(nn.MultiHeadAttention(8, 2))
    q, mem = _arr(2, 3, 8), _arr(2, 6, 8)
    want = mha(_t(q), _t(mem), _t(mem)).numpy()
    cache = mha.gen_cache(_t(mem), _t(mem), type=nn.MultiHeadAttention.StaticCache)
    out, same = mha(_t(q), None, None, cache=cache)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10, atol=1e-12)
    assert same is cache


def test_mha_attention_dropout_only_in_training():
    mha = nn.MultiHeadAttention(8, 2, dropout=0.5, need_weights=True)
    x = paddle.randn([2, 4, 8])
    paddle.seed(3)
    _, w = mha(x)
    assert (w.numpy() == 0).mean() > 0.2            # dropped attention weights
    mha.eval()
    _, w = mha(x)
    np.testing.assert_allclose(w.numpy().sum(-1), 1.0, rtol=1e-5)


def test_mha_argument_errors():
    with pytest.raises(ValueError, match='divisible'):
        nn.MultiHeadAttention(10, 3)
    mha = nn.MultiHeadAttention(8, 2)
    with pytest.raises(ValueError, match=r'query must have shape \[batch_size, length, 8\]'):
        mha(paddle.randn([2, 3, 6]))
    with pytest.raises(TypeError, match='cache'):
        mha(paddle.randn([2, 3, 8]), cache=(1, 2))


def test_mha_gradients_match_finite_differences():
    mha = _f64(nn.MultiHeadAttention(4, 2))
    q = _t(_arr(2, 3, 4), grad=True)
    kv = _t(_arr(2, 2, 4), grad=True)
    keep = _t(np.array([[True, False], [True, True], [False, True]]))
    cot = _t(_arr(2, 3, 4))
    loss = lambda: (mha(q, kv, kv, attn_mask=keep) * cot).sum()  # noqa: E731
    targets = [q, kv] + mha.parameters()
    grads = paddle.grad(loss(), targets)
    eps = 1e-6
    for t, g in zip(targets, grads):
        base = t.data
        num = np.zeros(base.size)
        for k in range(base.size):
            for sign in (1, -1):
                pert = base.copy().reshape(-1)
                pert[k] += sign * eps
                t.data = pert.reshape(base.shape)
                with paddle.no_grad():
                    num[k] += sign * float(loss().numpy())
            t.data = base
        np.testing.assert_allclose(g.numpy().reshape(-1), num / (2 * eps), rtol=1e-5,
                                   atol=1e-8)


# ---- encoder / decoder layers --------------------------------------------------------

@pytest.mark.parametrize('normalize_before', [False, True])
@pytest.mark.parametrize('act', ['relu', 'gelu'])
def test_encoder_layer_matches_numpy_pre_and_post_norm(normalize_before, act):
    layer = _f64(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation=act,
                                            normalize_before=normalize_before))
    x = _arr(2, 5, 8)
    keep = np.tril(np.ones((5, 5), bool))
    out = layer(_t(x), _t(keep))
    want = ref_encoder_layer(layer, x, np.where(keep, 0.0, -np.inf), act)
    assert out.shape == [2, 5, 8]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)


def test_encoder_layer_dropouts_default_to_dropout():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3)
    assert layer.self_attn.dropout == 0.3 and layer.dropout.p == 0.3
    assert layer.dropout1.p == layer.dropout2.p == 0.3
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3, attn_dropout=0.1, act_dropout=0.0)
    assert layer.self_attn.dropout == 0.1 and layer.dropout.p == 0.0
    layer = nn.TransformerEncoderLayer(8, 2, 16, bias_attr=[False, None])
    assert layer.self_attn.q_proj.bias is None and layer.linear1.bias is not None


def test_encoder_stacks_fresh_layers_and_applies_norm():
    first = _f64(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0))
    enc = nn.TransformerEncoder(first, 3, norm=nn.LayerNorm(8))
    enc.to(dtype='float64')
    assert enc.layers[0] is first
    w = [layer.linear1.weight.numpy() for layer in enc.layers]
    assert not np.allclose(w[0], w[1]) and not np.allclose(w[1], w[2])   # re-initialised
    assert len(enc.parameters()) == 3 * len(first.parameters()) + 2
    x = _arr(2, 4, 8)
    want = x
    for layer in enc.layers:
        want = ref_encoder_layer(layer, want)
    np.testing.assert_allclose(enc(_t(x)).numpy(), _ln(enc.norm, want), rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize('normalize_before', [False, True])
def test_decoder_layer_matches_numpy(normalize_before):
    layer = _f64(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0,
                                            normalize_before=normalize_before))
    x, mem = _arr(2, 4, 8), _arr(2, 6, 8)
    tgt_mask = np.triu(np.full((4, 4), -np.inf), 1)
    mem_keep = np.ones((2, 1, 1, 6), bool)
    mem_keep[1, ..., 4:] = False                    # padded memory positions
    out = layer(_t(x), _t(mem), _t(tgt_mask), _t(mem_keep))
    want = ref_decoder_layer(layer, x, mem, tgt_mask, np.where(mem_keep, 0.0, -np.inf))
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-9, atol=1e-11)


def test_decoder_incremental_decoding_equals_causal_full_pass():
    dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2,
                                norm=nn.LayerNorm(8))
    dec.to(dtype='float64')
    tgt, mem = _arr(2, 4, 8), _arr(2, 5, 8)
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    full = dec(_t(tgt), _t(mem), tgt_mask=_t(causal)).numpy()
    cache = dec.gen_cache(_t(mem))
    steps = []
    for t in range(4):
        out, cache = dec(_t(tgt[:, t:t + 1]), _t(mem), cache=cache)
        steps.append(out.numpy())
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-9, atol=1e-11)
    zipped = dec.gen_cache(_t(mem), do_zip=True)
    assert len(zipped) == 2 and len(zipped[0]) == 2


def test_encoder_cache_equals_causal_full_pass():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    enc.to(dtype='float64')
    x = _arr(1, 4, 8)
    full = enc(_t(x), _t(np.triu(np.full((4, 4), -np.inf), 1))).numpy()
    cache = enc.gen_cache(_t(x))
    steps = []
    for t in range(4):
        out, cache = enc(_t(x[:, t:t + 1]), cache=cache)
        steps.append(out.numpy())
    np.testing.assert_allclose(np.concatenate(steps, 1), full, rtol=1e-9, atol=1e-11)


def test_transformer_shapes_masks_and_square_subsequent_mask():
    model = nn.Transformer(16, 2, 2, 1, 32, dropout=0.0)
    mask = model.generate_square_subsequent_mask(4).numpy()
    np.testing.assert_array_equal(mask, np.triu(np.full((4, 4), -np.inf), 1))
    src, tgt = paddle.rand([2, 6, 16]), paddle.rand([2, 4, 16])
    out = model(src, tgt, tgt_mask=paddle.to_tensor(mask))
    assert out.shape == [2, 4, 16]
    assert len(model.encoder.layers) == 2 and len(model.decoder.layers) == 1
    assert model.encoder.norm is not None and model.decoder.norm is not None
    with pytest.raises(ValueError, match='1, 2 or 3'):
        nn.Transformer(16, 2, 1, 1, 32, weight_attr=[None] * 4)
    with pytest.raises(ValueError, match='activation'):
        nn.TransformerEncoderLayer(8, 2, 16, activation='nope')


def _copy_mha_to_torch(mha, tm, torch):
    w = [_np(getattr(mha, n).weight).T for n in ('q_proj', 'k_proj', 'v_proj')]
    b = [_np(getattr(mha, n).bias) for n in ('q_proj', 'k_proj', 'v_proj')]
    tm.in_proj_weight.copy_(torch.tensor(np.concatenate(w)))
    tm.in_proj_bias.copy_(torch.tensor(np.concatenate(b)))
    tm.out_proj.weight.copy_(torch.tensor(_np(mha.out_proj.weight).T))
    tm.out_proj.bias.copy_(torch.tensor(_np(mha.out_proj.bias)))


def _copy_layer_to_torch(layer, tl, torch):
    attns = [('self_attn', 'self_attn'), ('cross_attn', 'multihead_attn')]
    for ours, theirs in attns:
        if hasattr(layer, ours):
            _copy_mha_to_torch(getattr(layer, ours), getattr(tl, theirs), torch)
    for name in ('linear1', 'linear2'):
        getattr(tl, name).weight.copy_(torch.tensor(_np(getattr(layer, name).weight).T))
        getattr(tl, name).bias.copy_(torch.tensor(_np(getattr(layer, name).bias)))
    for name in ('norm1', 'norm2', 'norm3'):
        if hasattr(layer, name):
            getattr(tl, name).weight.copy_(torch.tensor(_np(getattr(layer, name).weight)))
            getattr(tl, name).bias.copy_(torch.tensor(_np(getattr(layer, name).bias)))


@pytest.mark.filterwarnings('ignore:enable_nested_tensor')
@pytest.mark.parametrize('normalize_before', [False, True])
def test_transformer_matches_torch_with_copied_weights(normalize_before):
    torch = pytest.importorskip('torch')
    model = nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, normalize_before=normalize_before)
    tmodel = torch.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, batch_first=True,
                                  norm_first=normalize_before).double()
    assert sum(p.size for p in model.parameters()) == sum(p.numel()
                                                          for p in tmodel.parameters())
    with torch.no_grad():
        for ours, theirs in ((model.encoder, tmodel.encoder), (model.decoder, tmodel.decoder)):
            for lo, lt in zip(ours.layers, theirs.layers):
                _copy_layer_to_torch(lo, lt, torch)
            theirs.norm.weight.copy_(torch.tensor(_np(ours.norm.weight)))
            theirs.norm.bias.copy_(torch.tensor(_np(ours.norm.bias)))
    model.to(dtype='float64')
    src, tgt = _arr(2, 5, 8), _arr(2, 4, 8)
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    out = model(_t(src), _t(tgt), tgt_mask=_t(causal))
    tout = tmodel(torch.tensor(src), torch.tensor(tgt), tgt_mask=torch.tensor(causal))
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-9, atol=1e-11)


def test_default_transformer_parameter_count():
    # d_model 512, 8 heads, 6 + 6 layers, FFN 2048: the paper's base model
    # (44,140,544 parameters, as Paddle's and PyTorch's)
    d, f = 512, 2048
    mha = 4 * (d * d + d)
    ffn = d * f + f + f * d + d
    enc_layer = mha + ffn + 2 * 2 * d
    dec_layer = 2 * mha + ffn + 3 * 2 * d
    assert 6 * enc_layer + 6 * dec_layer + 2 * 2 * d == 44140544
    small = nn.Transformer(16, 2, 2, 3, 32)
    d, f = 16, 32
    mha = 4 * (d * d + d)
    ffn = d * f + f + f * d + d
    want = 2 * (mha + ffn + 4 * d) + 3 * (2 * mha + ffn + 6 * d) + 4 * d
    assert sum(p.size for p in small.parameters()) == want


# ---- static mode and @to_static -----------------------------------------------------

def test_encoder_static_program_with_unknown_batch_and_length_matches_eager():
    from framework import static
    x = _arr(2, 5, 8).astype('float32')
    keep = np.tril(np.ones((5, 5), bool))
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data('x', [None, None, 8], 'float32')
            mv = static.data('m', [None, None], 'bool')
            enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
            mha = nn.MultiHeadAttention(8, 2)
            y = enc(xv, mv)
            cache = mha.gen_cache(xv)
            z, _ = mha(xv, cache=cache)
            static.append_backward(paddle.mean(y))
        scope = static.Scope()
        with static.scope_guard(scope):
            exe = static.Executor()
            exe.run(startup)
            got, got_z = exe.run(main, feed={'x': x, 'm': keep}, fetch_list=[y, z])
            values = {k: np.array(scope.find_var(v.name).get_tensor())
                      for k, v in enc.state_dict().items()}
    finally:
        paddle.disable_static()
    eager = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2)
    eager.set_state_dict(values)
    np.testing.assert_allclose(got, eager(_t(x), _t(keep)).numpy(), rtol=1e-5, atol=1e-6)
    assert got_z.shape == (2, 5, 8)


def test_to_static_encoder_matches_eager():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                           normalize_before=True), 2)
    x = paddle.randn([2, 5, 8])
    keep = paddle.to_tensor(np.tril(np.ones((5, 5), bool)))
    want = enc(x, keep)
    want.sum().backward()
    grads = [p.grad.numpy().copy() for p in enc.parameters()]
    enc.clear_gradients()
    static_enc = paddle.jit.to_static(enc)
    got = static_enc(x, keep)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-5, atol=1e-6)
    got.sum().backward()
    for p, g in zip(enc.parameters(), grads):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-4, atol=1e-5)
