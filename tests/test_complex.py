"""Complex tensors as a Paddle user meets them: real/imag/conj/angle/as_real/as_complex/
complex/polar, Paddle's gradient convention (dL/da + i dL/db for z = a + ib, so a
product's gradient is the cotangent times the conjugate of the other factor),
complex constants in static programs, and Python complex numbers defaulting to
complex64."""
import numpy as np
import pytest

import framework as paddle
from framework import static

RNG = np.random.default_rng(21)


def t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def test_parts_and_constructors():
    z = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    np.testing.assert_array_equal(paddle.real(t(z)).numpy(), z.real)
    np.testing.assert_array_equal(t(z).imag().numpy(), z.imag)
    np.testing.assert_array_equal(paddle.conj(t(z)).numpy(), np.conj(z))
    np.testing.assert_allclose(t(z).angle().numpy(), np.angle(z))
    np.testing.assert_array_equal(paddle.as_real(t(z)).numpy(), np.stack([z.real, z.imag], -1))
    np.testing.assert_array_equal(paddle.as_complex(paddle.as_real(t(z))).numpy(), z)
    np.testing.assert_array_equal(paddle.complex(t(z.real), t(z.imag)).numpy(), z)
    np.testing.assert_allclose(paddle.polar(t(np.abs(z)), t(np.angle(z))).numpy(), z, rtol=1e-12)
    assert paddle.is_complex(t(z)) and not paddle.is_complex(t(z.real))
    assert paddle.real(t(z.astype(np.complex64))).dtype == paddle.float32
    # real tensors: real is a copy, imag zeros, conj unchanged, angle 0 or pi
    x = np.array([1.5, -2.0])
    np.testing.assert_array_equal(paddle.imag(t(x)).numpy(), [0.0, 0.0])
    np.testing.assert_allclose(paddle.angle(t(x)).numpy(), [0.0, np.pi])
    with pytest.raises(ValueError, match="as_complex.*size 2"):
        paddle.as_complex(t(np.ones((2, 3))))
    with pytest.raises(ValueError, match="complex.*float32 or both float64"):
        paddle.complex(t(x), t(x.astype(np.float32)))


def test_sgn_isreal_and_view_aliases():
    z = np.array([3 + 4j, 0, -2j])
    np.testing.assert_allclose(paddle.sgn(t(z)).numpy(), [0.6 + 0.8j, 0, -1j])
    np.testing.assert_array_equal(t(np.array([-2.0, 0.0, 3.0])).sgn().numpy(), [-1, 0, 1])
    np.testing.assert_array_equal(paddle.isreal(t(z)).numpy(), [False, True, False])
    assert paddle.isreal(t([1.0, 2.0])).numpy().all()
    np.testing.assert_array_equal(paddle.view_as_real(t(z)).numpy(), paddle.as_real(t(z)).numpy())
    np.testing.assert_array_equal(t(np.ones((2, 2))).view_as_complex().numpy(), [1 + 1j] * 2)
    x = t(np.array([3 + 4j, 1j]), grad=True)
    paddle.real(paddle.sgn(x)).sum().backward()   # d Re(z/|z|) = (b^2 - i ab) / |z|^3
    np.testing.assert_allclose(x.grad.numpy(), [0.128 - 0.096j, 1.0])


def test_python_complex_numbers_default_to_complex64():
    assert paddle.to_tensor(1 + 2j).dtype == paddle.complex64
    assert paddle.to_tensor([1 + 2j, 3.0]).dtype == paddle.complex64
    assert paddle.to_tensor(np.array([1 + 2j])).dtype == paddle.complex128   # numpy keeps its dtype


def test_gradient_convention_matches_paddle():
    # L = 2 Re(z) + 3 Im(z): dL/da + i dL/db = 2 + 3i
    z = t(np.array([1 + 2j, 3 + 1j]), grad=True)
    (paddle.real(z) * 2 + paddle.imag(z) * 3).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [2 + 3j, 2 + 3j])
    # L = Re(z * w): the gradient is conj(w)
    w = np.array([1 + 1j, 2j])
    z = t(np.array([1 + 2j, 3 + 1j]), grad=True)
    paddle.real(z * t(w)).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), np.conj(w))
    # L = angle(z): (-b + ia) / |z|^2
    z = t(np.array([1 + 2j, 3 + 1j]), grad=True)
    paddle.angle(z).sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), [-0.4 + 0.2j, -0.1 + 0.3j])
    # |complex(a, b)|^2 = a^2 + b^2
    a, b = t([1.0, 2.0], grad=True), t([3.0, -1.0], grad=True)
    (paddle.abs(paddle.complex(a, b)) ** 2).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(b.grad.numpy(), [6.0, -2.0])


def test_complex_matmul_and_division_gradients_by_finite_differences():
    a = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
    b = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))
    w = RNG.standard_normal((2, 2)) + 1j * RNG.standard_normal((2, 2))

    def loss(x):   # Re(sum(conj(w) * (x @ b / (1 + x @ b))))
        p = x @ b
        return float(np.real(np.sum(np.conj(w) * (p / (1 + p)))))
    x = t(a, grad=True)
    p = paddle.matmul(x, t(b))
    paddle.real((p / (p + 1)) * t(np.conj(w))).sum().backward()
    num = np.zeros_like(a)
    for i in np.ndindex(*a.shape):
        for unit in (1.0, 1j):
            d = np.zeros_like(a)
            d[i] = 1e-6 * unit
            num[i] += unit * (loss(a + d) - loss(a - d)) / 2e-6
    np.testing.assert_allclose(x.grad.numpy(), num, rtol=1e-6, atol=1e-8)


def test_complex_constants_in_static_programs():
    c = np.array([1 + 2j, 3j, -1.0])
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data('x', [3], 'complex128')
            y = x * paddle.to_tensor(c) + paddle.fft.fft(paddle.to_tensor(c))
        got, = static.Executor().run(main.clone(), feed={'x': np.ones(3, complex)},
                                     fetch_list=[y])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got, c + np.fft.fft(c), rtol=1e-12)

    @paddle.jit.to_static
    def f(v):
        return paddle.real(v * (1 - 2j)) + paddle.imag(paddle.conj(v))
    v = np.array([1 + 1j, 2 - 3j])
    np.testing.assert_allclose(f(t(v)).numpy(), np.real(v * (1 - 2j)) - v.imag)
