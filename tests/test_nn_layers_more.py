"""Layers and utilities added for Paddle 3's ``paddle.nn``: the padding
layers, weight / spectral normalisation (``nn.utils`` hooks and the
``SpectralNorm`` layer), Kaiming's ``mode``, beam search with
``dynamic_decode`` (eager and @to_static), and the pooling layers."""
import numpy as np
import pytest

import framework as paddle
import framework.nn as nn

from nn_check import check_grads

rng = np.random.default_rng(31)


def t(a):
    return paddle.to_tensor(a)


@pytest.mark.parametrize('name,mode,args', [
    ('ZeroPad1D', 'constant', ()), ('ZeroPad3D', 'constant', ()),
    ('ConstantPad1D', 'constant', (2.5,)), ('ConstantPad2D', 'constant', (-1.0,)),
    ('ConstantPad3D', 'constant', (3.0,)), ('ReflectionPad1D', 'reflect', ()),
    ('ReflectionPad2D', 'reflect', ()), ('ReflectionPad3D', 'reflect', ()),
    ('ReplicationPad1D', 'edge', ()), ('ReplicationPad2D', 'edge', ()),
    ('ReplicationPad3D', 'edge', ()), ('CircularPad1D', 'wrap', ()),
    ('CircularPad2D', 'wrap', ()), ('CircularPad3D', 'wrap', ())])
def test_padding_layers_match_numpy_pad(name, mode, args):
    nd = int(name[-2])
    x = rng.standard_normal((2, 3) + (4,) * nd)
    pads = [1, 2, 2, 1, 1, 0][:2 * nd]
    y = getattr(nn, name)(pads, *args)(t(x)).numpy()
    pairs = [(0, 0), (0, 0)] + [(pads[2 * i], pads[2 * i + 1]) for i in range(nd)][::-1]
    kw = {'constant_values': args[0] if args else 0.0} if mode == 'constant' else {}
    np.testing.assert_allclose(y, np.pad(x, pairs, mode=mode, **kw))
    channels_last = getattr(nn, name)(1, *args, data_format=('NLC', 'NHWC', 'NDHWC')[nd - 1])
    assert channels_last(t(np.moveaxis(x, 1, -1))).shape == [2] + [6] * nd + [3]


def test_weight_norm_reparametrises_and_removes():
    conv = nn.Conv2D(3, 4, 3)
    w0 = conv.weight.numpy().copy()
    nn.utils.weight_norm(conv, dim=0)
    names = sorted(n for n, _ in conv.named_parameters())
    assert names == ['bias', 'weight_g', 'weight_v']
    np.testing.assert_allclose(conv.weight_g.numpy(),
                               np.linalg.norm(w0.reshape(4, -1), axis=1), rtol=1e-6)
    x = t(rng.standard_normal((1, 3, 5, 5)).astype('float32'))
    y0 = nn.functional.conv2d(x, t(w0), conv.bias).numpy()
    np.testing.assert_allclose(conv(x).numpy(), y0, rtol=1e-5, atol=1e-5)
    # training moves g and v; the weight is recomputed before every forward
    conv(x).sum().backward()
    assert conv.weight_g.grad is not None and conv.weight_v.grad is not None
    with paddle.no_grad():
        conv.weight_g.set_value(conv.weight_g.numpy() * 2)
    np.testing.assert_allclose(conv(x).numpy() - conv.bias.numpy()[None, :, None, None],
                               2 * (y0 - conv.bias.numpy()[None, :, None, None]),
                               rtol=1e-4, atol=1e-4)
    nn.utils.remove_weight_norm(conv)
    assert sorted(n for n, _ in conv.named_parameters()) == ['bias', 'weight']
    np.testing.assert_allclose(conv.weight.numpy(), 2 * w0, rtol=1e-5)
    with pytest.raises(ValueError, match='not found'):
        nn.utils.remove_weight_norm(conv)
    fc = nn.utils.weight_norm(nn.Linear(3, 2), dim=None)
    assert fc.weight_g.shape == [] and np.isclose(float(fc.weight_g), np.linalg.norm(
        fc.weight_v.numpy()), rtol=1e-6)


def test_weight_norm_gradient_by_finite_differences():
    v = rng.standard_normal((3, 4))
    g = rng.uniform(0.5, 2, 4)
    x = rng.standard_normal((2, 3))

    def f(v, g):
        fc = nn.Linear(3, 4, bias_attr=False)    # float64 weight: no float32 bias to mix in
        nn.utils.weight_norm(fc, dim=1)
        del fc._parameters['weight_v'], fc._parameters['weight_g']
        object.__setattr__(fc, 'weight_v', v)
        object.__setattr__(fc, 'weight_g', g)
        return fc(paddle.to_tensor(x))
    check_grads(f, [v, g])


def test_spectral_norm_hook_divides_by_the_top_singular_value():
    fc = nn.Linear(5, 4)
    # singular values 3 > 1 > ...: 30 power iterations converge from any start
    q1, _ = np.linalg.qr(rng.standard_normal((5, 4)))
    q2, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    w = (q1 @ np.diag([3.0, 1.0, 0.5, 0.2]) @ q2.T).astype('float32')
    fc.weight.set_value(w)
    nn.utils.spectral_norm(fc, n_power_iterations=30)
    x = t(np.eye(5, dtype='float32'))
    out = fc(x).numpy() - fc.bias.numpy()
    np.testing.assert_allclose(out, w / np.linalg.svd(w, compute_uv=False)[0], rtol=1e-4)
    u = fc.weight_u.numpy().copy()
    fc.eval()
    fc(x)
    np.testing.assert_array_equal(fc.weight_u.numpy(), u)      # no iteration in eval mode
    assert sorted(n for n, _ in fc.named_parameters()) == ['bias', 'weight_orig']
    with pytest.raises(RuntimeError, match='two spectral_norm'):
        nn.utils.spectral_norm(fc)


def test_spectral_norm_layer():
    sn = nn.SpectralNorm([3, 4, 2], dim=1, power_iters=50, dtype='float64')
    # a clear gap between the top singular values, so 50 power iterations converge
    # from any start (the finite differences below differentiate u and v too)
    q1, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    q2, _ = np.linalg.qr(rng.standard_normal((6, 4)))
    mat = q1 @ np.diag([3.0, 1.0, 0.5, 0.2]) @ q2.T
    w = np.ascontiguousarray(np.moveaxis(mat.reshape(4, 3, 2), 0, 1))
    sigma = np.linalg.svd(mat, compute_uv=False)[0]
    np.testing.assert_allclose(sn(t(w)).numpy(), w / sigma, rtol=1e-8)
    u = sn.weight_u.numpy().copy()
    sn(t(w))
    np.testing.assert_array_equal(sn.weight_u.numpy(), u)     # U/V are kept, as in Paddle
    # with u, v fixed by the power iteration the output is w / (u^T W v): its
    # exact gradient (Paddle 3.3.1's kernel returns a different one)
    check_grads(lambda w: sn(w), [w])
    with pytest.raises(ValueError, match='shape'):
        sn(t(np.ones((2, 2))))


def test_kaiming_fan_out_mode():
    init = nn.initializer.KaimingNormal(mode='fan_out')
    paddle.seed(0)
    w = paddle.create_parameter([400, 300], 'float64', default_initializer=init)
    assert abs(w.numpy().std() - np.sqrt(2 / 300)) < 0.003
    w = paddle.create_parameter([400, 300], 'float64',
                                default_initializer=nn.initializer.KaimingUniform(mode='fan_out'))
    assert abs(w.numpy().std() - np.sqrt(2 / 300)) < 0.003
    with pytest.raises(ValueError, match='fan_in'):
        nn.initializer.KaimingNormal(fan_in=3, mode='fan_out')
    with pytest.raises(ValueError, match='mode'):
        nn.initializer.KaimingUniform(mode='avg')


def _beam_reference(step_logp, h0, beam, end, steps):
    """Plain beam search over a function of the previous token and state."""
    beams = [[(0.0 if k == 0 else -1e9, [], h0, False) for k in range(beam)]]
    for _ in range(steps):
        cand = []
        for score, toks, h, done in beams[-1]:
            prev = toks[-1] if toks else 0
            logp, h2 = step_logp(prev, h)
            for tok, lp in enumerate(logp):
                if done:
                    lp = 0.0 if tok == end else -1e9
                cand.append((score + lp, toks + [tok], h2 if not done else h, done or tok == end))
        cand.sort(key=lambda c: -c[0])
        beams.append(cand[:beam])
        if all(c[3] for c in beams[-1]):
            break
    return [c[1] for c in beams[-1]], [c[0] for c in beams[-1]]


def test_beam_search_decoder_matches_a_plain_beam_search():
    paddle.seed(7)
    cell = nn.SimpleRNNCell(3, 4)
    emb = nn.Embedding(6, 3)
    proj = nn.Linear(4, 6)
    decoder = nn.BeamSearchDecoder(cell, start_token=0, end_token=5, beam_size=3,
                                   embedding_fn=emb, output_fn=proj)
    h0 = rng.standard_normal((1, 4)).astype('float32')
    ids, states, lengths = nn.dynamic_decode(decoder, t(h0), max_step_num=4,
                                             return_length=True)

    def step(prev, h):
        with paddle.no_grad():
            out, h2 = cell(emb(t(np.array([prev]))), t(h[None]))
            logits = proj(out).numpy()[0]
        return logits - np.log(np.exp(logits).sum()), h2.numpy()[0]
    seqs, scores = _beam_reference(step, h0[0], 3, 5, 5)
    got = ids.numpy()[0].T                                # [beam, time]
    for k in range(3):
        np.testing.assert_array_equal(got[k][:len(seqs[k])], seqs[k])
    np.testing.assert_allclose(states.log_probs.numpy()[0], scores, rtol=1e-4)
    assert lengths.shape == [1, 3]
    tiled = nn.BeamSearchDecoder.tile_beam_merge_with_batch(t(np.arange(4.0).reshape(2, 2)), 3)
    np.testing.assert_array_equal(tiled.numpy(), np.repeat(np.arange(4.0).reshape(2, 2), 3, 0))


def test_dynamic_decode_under_to_static_matches_eager():
    paddle.seed(1)
    cell, emb, proj = nn.GRUCell(4, 5), nn.Embedding(8, 4), nn.Linear(5, 8)

    class Generator(nn.Layer):
        def __init__(self):
            super().__init__()
            self.cell, self.emb, self.proj = cell, emb, proj

        def forward(self, h0):
            decoder = nn.BeamSearchDecoder(self.cell, 0, 1, 2, self.emb, self.proj)
            ids, states = nn.dynamic_decode(decoder, h0, max_step_num=5)
            return ids, states.log_probs
    gen = Generator()
    h0 = t(rng.standard_normal((3, 5)).astype('float32'))
    eager = gen(h0)
    static = paddle.jit.to_static(gen)(h0)
    for e, s in zip(eager, static):
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-5)


def test_pooling_layers_3d_lp_unpool_fractional():
    x = t(rng.standard_normal((1, 2, 4, 6, 6)))
    assert nn.MaxPool3D(2)(x).shape == [1, 2, 2, 3, 3]
    assert nn.AvgPool3D(3, 1, 1)(x).shape == [1, 2, 4, 6, 6]
    assert nn.AdaptiveAvgPool3D([1, 2, 3])(x).shape == [1, 2, 1, 2, 3]
    out, mask = nn.AdaptiveMaxPool3D(2, return_mask=True)(x)
    assert out.shape == mask.shape == [1, 2, 2, 2, 2]
    assert nn.LPPool1D(2, 3)(t(rng.uniform(size=(1, 2, 9)))).shape == [1, 2, 3]
    y, idx = nn.MaxPool1D(2, return_mask=True)(t(rng.standard_normal((1, 2, 8))))
    assert nn.MaxUnPool1D(2)(y, idx).shape == [1, 2, 8]
    assert nn.FractionalMaxPool2D(3, kernel_size=2, random_u=0.5)(
        t(rng.standard_normal((1, 1, 7, 7)))).shape == [1, 1, 3, 3]
    assert nn.PairwiseDistance(p=1.0)(t(np.ones((2, 3))), t(np.zeros((2, 3)))).shape == [2]
