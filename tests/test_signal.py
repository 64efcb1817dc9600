"""paddle.signal.stft / istft: values against a direct numpy STFT, Paddle's defaults
(hop n_fft // 4, window ones(win_length) centred in n_fft, reflect padding,
onesided for real input), perfect reconstruction, gradients, static mode."""
import numpy as np
import pytest

import framework as paddle
from framework import static

SIG = paddle.signal
RNG = np.random.default_rng(13)


def t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def numpy_stft(x, n_fft, hop, window, center=True, pad_mode='reflect', normalized=False,
               onesided=True):
    """A direct STFT: frame i is x[i * hop : i * hop + n_fft] of the padded signal."""
    if center:
        x = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(n_fft // 2, n_fft // 2)], mode=pad_mode)
    n = 1 + (x.shape[-1] - n_fft) // hop
    frames = np.stack([x[..., i * hop:i * hop + n_fft] * window for i in range(n)], -2)
    spec = np.fft.fft(frames, norm='ortho' if normalized else 'backward')
    if onesided:
        spec = spec[..., :n_fft // 2 + 1]
    return np.swapaxes(spec, -1, -2)


def test_stft_defaults_match_a_direct_stft():
    x = RNG.standard_normal(64)
    got = SIG.stft(t(x), 16)
    assert got.shape == [9, 17] and got.dtype == paddle.complex128
    np.testing.assert_allclose(got.numpy(), numpy_stft(x, 16, 4, np.ones(16)), atol=1e-12)
    assert t(x).stft(16).shape == [9, 17]   # Tensor method


def test_stft_options():
    xb = RNG.standard_normal((2, 40))
    win = np.hanning(6)
    padded = np.r_[0.0, win, 0.0]   # win_length < n_fft: centred with zeros
    np.testing.assert_allclose(
        SIG.stft(t(xb), 8, hop_length=3, win_length=6, window=t(win)).numpy(),
        numpy_stft(xb, 8, 3, padded), atol=1e-12)
    np.testing.assert_allclose(SIG.stft(t(xb), 8, center=False, normalized=True).numpy(),
                               numpy_stft(xb, 8, 2, np.ones(8), center=False, normalized=True),
                               atol=1e-12)
    np.testing.assert_allclose(SIG.stft(t(xb), 8, pad_mode='constant', onesided=False).numpy(),
                               numpy_stft(xb, 8, 2, np.ones(8), pad_mode='constant',
                                          onesided=False), atol=1e-12)
    z = RNG.standard_normal(20) + 1j * RNG.standard_normal(20)
    got = SIG.stft(t(z), 8)   # complex input: two-sided by default
    np.testing.assert_allclose(got.numpy(), numpy_stft(z, 8, 2, np.ones(8), onesided=False),
                               atol=1e-12)
    assert SIG.stft(t(xb.astype(np.float32)), 8).dtype == paddle.complex64


def test_stft_argument_errors():
    x = t(RNG.standard_normal(16))
    with pytest.raises(ValueError, match="n_fft"):
        SIG.stft(x, 32)
    with pytest.raises(AssertionError, match="win_length"):   # Paddle asserts these
        SIG.stft(x, 8, win_length=9)
    with pytest.raises(ValueError, match="pad_mode"):
        SIG.stft(x, 8, pad_mode='circular')
    with pytest.raises(ValueError, match="window"):
        SIG.stft(x, 8, window=t(np.ones(5)))
    with pytest.raises(ValueError, match="onesided"):
        SIG.stft(t(RNG.standard_normal(16) + 1j), 8, onesided=True)
    with pytest.raises(ValueError, match="1D or 2D"):
        SIG.stft(t(np.ones((2, 2, 16))), 8)


@pytest.mark.parametrize('kw', [
    dict(n_fft=16), dict(n_fft=16, hop_length=5, window=np.hanning(16) + 0.1),
    dict(n_fft=8, win_length=6, hop_length=2, window=np.hamming(6)),
    dict(n_fft=16, normalized=True, center=False),
])
def test_istft_inverts_stft(kw):
    x = RNG.standard_normal((2, 64))
    kw = {k: (t(v) if k == 'window' else v) for k, v in kw.items()}
    spec = SIG.stft(t(x), **kw)
    back = SIG.istft(spec, **kw)   # the samples the frames cover
    np.testing.assert_allclose(back.numpy(), x[:, :back.shape[-1]], atol=1e-10)
    back = SIG.istft(spec, length=50, **kw)
    assert back.shape == [2, 50]
    np.testing.assert_allclose(back.numpy(), x[:, :50], atol=1e-10)


def test_istft_two_sided_and_complex_output():
    z = RNG.standard_normal(32) + 1j * RNG.standard_normal(32)
    spec = SIG.stft(t(z), 8)
    back = SIG.istft(spec, 8, onesided=False, return_complex=True)
    np.testing.assert_allclose(back.numpy(), z[:back.shape[-1]], atol=1e-10)
    x = RNG.standard_normal(32)
    back = SIG.istft(SIG.stft(t(x), 8, onesided=False), 8, onesided=False)
    np.testing.assert_allclose(back.numpy(), x[:back.shape[-1]], atol=1e-10)
    assert t(spec.numpy()).istft(8, onesided=False, return_complex=True).shape == back.shape


def test_istft_errors():
    spec = SIG.stft(t(RNG.standard_normal(32)), 8)
    with pytest.raises(ValueError, match="complex"):
        SIG.istft(t(np.ones((5, 9))), 8)
    with pytest.raises(ValueError, match="fft_size"):
        SIG.istft(spec, 16)
    with pytest.raises(ValueError, match="NOLA"):
        # frames every 8 samples under a window that is 0 at both ends leave gaps
        SIG.istft(spec, 8, hop_length=8, window=t(np.r_[0.0, 0, 1, 1, 1, 1, 0, 0]))


def test_gradients_through_stft_and_istft():
    def numeric(f, a, eps=1e-6):
        g = np.zeros_like(a)
        for i in np.ndindex(*a.shape):
            d = np.zeros_like(a)
            d[i] = eps
            g[i] = (f(a + d) - f(a - d)) / (2 * eps)
        return g
    x = RNG.standard_normal(24)
    win = np.hanning(8) + 0.2
    w = RNG.standard_normal((5, 7))

    def loss(v):
        return (paddle.abs(SIG.stft(v, 8, hop_length=4, window=t(win))) * t(w)).sum()
    v = t(x, grad=True)
    g, = paddle.grad(loss(v), [v])
    np.testing.assert_allclose(g.numpy(), numeric(lambda a: float(loss(t(a))), x), rtol=1e-6,
                               atol=1e-8)
    # istft(stft(x)) is the identity on the covered samples, so is its gradient
    v = t(x, grad=True)
    SIG.istft(SIG.stft(v, 8, hop_length=2), 8, hop_length=2).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), np.ones(24), atol=1e-10)


def _specs(x):
    s = SIG.stft(x, 8, hop_length=2, window=paddle.to_tensor(np.hanning(8)))
    return [paddle.abs(s), SIG.istft(s, 8, hop_length=2, window=paddle.to_tensor(np.hanning(8)),
                                     length=30)]


@pytest.mark.parametrize('mode', ['static', 'to_static'])
def test_static_and_to_static_agree_with_eager(mode):
    x = RNG.standard_normal((2, 30))
    want = [o.numpy() for o in _specs(t(x))]
    if mode == 'to_static':
        got = [o.numpy() for o in paddle.jit.to_static(_specs)(t(x))]
    else:
        paddle.enable_static()
        try:
            main = static.Program()
            with static.program_guard(main, static.Program()):
                outs = _specs(static.data('x', [2, 30], 'float64'))
            got = static.Executor().run(main, feed={'x': x}, fetch_list=outs)
        finally:
            paddle.disable_static()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
