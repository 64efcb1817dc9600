"""paddle.fft as a Paddle user calls it: every transform against numpy.fft with each
norm, sizes that crop and pad, Paddle's axes rules and errors, gradients by finite
differences (real and complex inputs), and static mode / @to_static agreement."""
import numpy as np
import pytest

import framework as paddle
from framework import static

FFT = paddle.fft
RNG = np.random.default_rng(9)
NORMS = ['backward', 'ortho', 'forward']


def t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def real(*shape):
    return RNG.standard_normal(shape)


def cplx(*shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def close(got, want, tol=1e-10):
    np.testing.assert_allclose(got.numpy(), want, rtol=tol, atol=tol)


# ---- values against numpy ---------------------------------------------------------------

@pytest.mark.parametrize('norm', NORMS)
def test_one_dimensional_transforms_match_numpy(norm):
    x, z = real(3, 8), cplx(3, 8)
    close(FFT.fft(t(x), norm=norm), np.fft.fft(x, norm=norm))
    close(FFT.fft(t(z), n=5, axis=0, norm=norm), np.fft.fft(z, n=5, axis=0, norm=norm))
    close(FFT.ifft(t(z), n=11, norm=norm), np.fft.ifft(z, n=11, norm=norm))
    close(FFT.ifft(t(x), norm=norm), np.fft.ifft(x, norm=norm))
    close(FFT.rfft(t(x), n=7, norm=norm), np.fft.rfft(x, n=7, norm=norm))
    close(FFT.irfft(t(z), norm=norm), np.fft.irfft(z, norm=norm))
    close(FFT.irfft(t(z), n=9, axis=0, norm=norm), np.fft.irfft(z, n=9, axis=0, norm=norm))
    close(FFT.hfft(t(z), n=6, norm=norm), np.fft.hfft(z, n=6, norm=norm))
    close(FFT.ihfft(t(x), norm=norm), np.fft.ihfft(x, norm=norm))


@pytest.mark.parametrize('norm', NORMS)
def test_nd_and_2d_transforms_match_numpy(norm):
    x, z = real(2, 3, 6), cplx(2, 3, 4)
    close(FFT.fftn(t(z), norm=norm), np.fft.fftn(z, norm=norm))
    close(FFT.fftn(t(x), s=[4, 5], norm=norm), np.fft.fftn(x, s=[4, 5], norm=norm))
    close(FFT.fftn(t(z), axes=[2, 0], norm=norm), np.fft.fftn(z, axes=[2, 0], norm=norm))
    close(FFT.ifftn(t(z), s=[3, 2], axes=[0, 2], norm=norm),
          np.fft.ifftn(z, s=[3, 2], axes=[0, 2], norm=norm))
    close(FFT.rfftn(t(x), norm=norm), np.fft.rfftn(x, norm=norm))
    close(FFT.rfftn(t(x), s=[2, 7], axes=[0, 2], norm=norm),
          np.fft.rfftn(x, s=[2, 7], axes=[0, 2], norm=norm))
    close(FFT.irfftn(t(z), norm=norm), np.fft.irfftn(z, norm=norm))
    close(FFT.irfftn(t(z), s=[3, 5], norm=norm), np.fft.irfftn(z, s=[3, 5], norm=norm))
    close(FFT.fft2(t(z), norm=norm), np.fft.fft2(z, norm=norm))
    close(FFT.ifft2(t(x), s=[2, 2], axes=[0, 1], norm=norm),
          np.fft.ifft2(x, s=[2, 2], axes=[0, 1], norm=norm))
    close(FFT.rfft2(t(x), norm=norm), np.fft.rfft2(x, norm=norm))
    close(FFT.irfft2(t(z), norm=norm), np.fft.irfft2(z, norm=norm))


def test_hermitian_nd_transforms_by_their_definitions():
    z, x = cplx(3, 4), real(4, 6)
    # hfftn: the forward transform of the Hermitian signal whose half is z
    close(FFT.hfftn(t(z)), np.fft.irfftn(np.conj(z), norm='forward'))
    close(FFT.hfft2(t(z), s=[3, 6], norm='ortho'), np.fft.irfftn(np.conj(z), s=[3, 6],
                                                                 norm='ortho'))
    # ihfftn: the one-sided half of the inverse transform of a real signal
    close(FFT.ihfftn(t(x)), np.fft.ifftn(x)[:, :4])
    close(FFT.ihfft2(t(x), norm='forward'), np.fft.ifftn(x, norm='forward')[:, :4])


def test_round_trips_and_dtypes():
    x = real(2, 10).astype(np.float32)
    assert FFT.fft(t(x)).dtype == paddle.complex64
    assert FFT.rfft(t(x)).dtype == paddle.complex64
    assert FFT.irfft(FFT.rfft(t(x))).dtype == paddle.float32
    np.testing.assert_allclose(FFT.irfft(FFT.rfft(t(x)), n=10).numpy(), x, atol=1e-6)
    np.testing.assert_allclose(FFT.ifftn(FFT.fftn(t(x))).numpy(), x, atol=1e-6)
    assert FFT.fft(paddle.to_tensor([1, 2, 3])).dtype == paddle.complex64   # ints -> float32
    assert FFT.fft(t(real(4))).dtype == paddle.complex128
    out = paddle.zeros([10], 'complex128')
    FFT.fft(t(real(10)), out=out)
    assert out.dtype == paddle.complex128


def test_frequencies_and_shifts():
    close(FFT.fftfreq(7, d=0.5), np.fft.fftfreq(7, d=0.5), 1e-6)
    close(FFT.rfftfreq(8), np.fft.rfftfreq(8), 1e-6)
    assert FFT.fftfreq(4).dtype == paddle.float32
    assert FFT.fftfreq(4, dtype='float64').dtype == paddle.float64
    with pytest.raises(ValueError, match="should not be 0"):
        FFT.fftfreq(0)
    x = real(3, 4)
    close(FFT.fftshift(t(x)), np.fft.fftshift(x))
    close(FFT.fftshift(t(x), axes=1), np.fft.fftshift(x, axes=1))
    close(FFT.ifftshift(t(x), axes=[0]), np.fft.ifftshift(x, axes=[0]))
    x5 = real(5)
    close(FFT.ifftshift(FFT.fftshift(t(x5))), x5)


def test_argument_errors_as_paddle():
    x = t(real(4, 4))
    with pytest.raises(ValueError, match="Unexpected norm"):
        FFT.fft(x, norm='bad')
    with pytest.raises(ValueError, match="should be positive"):
        FFT.fft(x, n=0)
    with pytest.raises(ValueError, match="Invalid FFT axis"):
        FFT.fft(x, axis=2)
    with pytest.raises(ValueError, match="rank of the input"):
        FFT.fft2(t(real(4)))
    with pytest.raises(ValueError, match="sequence of 2 integers"):
        FFT.fft2(x, s=[2, 2, 2])
    with pytest.raises(ValueError, match="does not match"):
        FFT.fftn(x, s=[2, 2], axes=[0])
    with pytest.raises(ValueError, match="should not be larger"):
        FFT.fftn(x, s=[1, 2, 3])
    with pytest.raises(TypeError, match="rfft.*real"):
        FFT.rfft(t(cplx(4)))


# ---- gradients ----------------------------------------------------------------------------

def numeric_grad(f, a, eps=1e-6):
    """Central differences; a complex input gets df/da + i df/db."""
    parts = (1.0, 1j) if np.iscomplexobj(a) else (1.0,)
    g = np.zeros(a.shape, complex if np.iscomplexobj(a) else float)
    for i in np.ndindex(*a.shape):
        for unit in parts:
            d = np.zeros(a.shape, a.dtype)
            d[i] = eps * unit
            g[i] += unit * (f(a + d) - f(a - d)) / (2 * eps)
    return g


def check_grad(fn, a):
    out = fn(t(a))
    w = RNG.standard_normal(out.shape) + (1j * RNG.standard_normal(out.shape)
                                          if out.is_complex() else 0)

    def value(v):   # Re(sum(conj(w) * out)): its gradient in out is w
        return float(np.real(np.sum(np.conj(w) * fn(t(v)).numpy())))
    x = t(a, grad=True)
    o = fn(x)
    loss = paddle.real(o * t(np.conj(w))).sum() if o.is_complex() else (o * t(w)).sum()
    g, = paddle.grad(loss, [x])
    np.testing.assert_allclose(g.numpy(), numeric_grad(value, a), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize('fn,make', [
    (lambda v: FFT.fft(v, n=7), lambda: real(5)),
    (lambda v: FFT.ifft(v, norm='ortho'), lambda: cplx(6)),
    (lambda v: FFT.rfft(v, n=9, norm='forward'), lambda: real(2, 6)),
    (lambda v: FFT.irfft(v, n=7), lambda: cplx(2, 4)),
    (lambda v: FFT.irfft(v), lambda: cplx(5)),
    (lambda v: FFT.hfft(v, n=6, norm='ortho'), lambda: cplx(4)),
    (lambda v: FFT.ihfft(v), lambda: real(7)),
    (lambda v: FFT.fft2(v, s=[3, 5]), lambda: real(2, 4)),
    (lambda v: FFT.rfftn(v, axes=[0, 1]), lambda: real(3, 4)),
    (lambda v: FFT.irfftn(v, s=[3, 6]), lambda: cplx(3, 4)),
    (lambda v: FFT.hfft2(v), lambda: cplx(2, 3)),
    (lambda v: FFT.ihfftn(v, norm='forward'), lambda: real(3, 4)),
    (lambda v: FFT.fftshift(FFT.fft(v)), lambda: real(5)),
])
def test_gradients_match_finite_differences(fn, make):
    check_grad(fn, make())


def test_irfft_of_rfft_has_identity_gradient():
    x = t(real(8), grad=True)
    FFT.irfft(FFT.rfft(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones(8), atol=1e-12)


def test_second_order_gradient_through_abs_of_spectrum():
    # |fft(x)|^2 summed is n * |x|^2 (Parseval): gradient 2 n x, Hessian 2 n I
    x = t(real(6), grad=True)
    power = (paddle.abs(FFT.fft(x)) ** 2).sum()
    g, = paddle.grad(power, [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), 12 * x.numpy(), rtol=1e-10)
    h, = paddle.grad(g.sum(), [x])
    np.testing.assert_allclose(h.numpy(), np.full(6, 12.0), rtol=1e-10)


# ---- static mode and @to_static ------------------------------------------------------------

def _spectra(x, z):
    return [FFT.fft(x), FFT.rfft(x, n=10, norm='ortho'), FFT.irfft(z), FFT.hfft(z, n=5),
            FFT.fftn(z, axes=[0, 1]), FFT.rfft2(x), FFT.irfftn(z, s=[3, 6]), FFT.ihfft2(x),
            FFT.fftshift(x), FFT.ifft(z, norm='forward')]


@pytest.mark.parametrize('mode', ['static', 'to_static'])
def test_static_and_to_static_agree_with_eager(mode):
    x, z = real(3, 8), cplx(3, 4)
    want = [o.numpy() for o in _spectra(t(x), t(z))]
    if mode == 'to_static':
        got = [o.numpy() for o in paddle.jit.to_static(_spectra)(t(x), t(z))]
    else:
        paddle.enable_static()
        try:
            main = static.Program()
            with static.program_guard(main, static.Program()):
                xv = static.data('x', [3, 8], 'float64')
                zv = static.data('z', [3, 4], 'complex128')
                outs = _spectra(xv, zv)
            got = static.Executor().run(main, feed={'x': x, 'z': z}, fetch_list=outs)
        finally:
            paddle.disable_static()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_static_gradient_of_a_spectral_loss():
    x = real(3, 8)

    def loss_and_grad(v):
        loss = (paddle.abs(FFT.rfft(v)) ** 2).sum() + paddle.real(FFT.fft2(v)).sum()
        return [loss] + paddle.grad(loss, [v])
    v = t(x, grad=True)
    want = [o.numpy() for o in loss_and_grad(v)]
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            xv = static.data('x', [3, 8], 'float64')
            xv.stop_gradient = False
            outs = loss_and_grad(xv)
        got = static.Executor().run(main, feed={'x': x}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
