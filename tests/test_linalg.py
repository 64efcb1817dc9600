"""paddle.linalg as a Paddle user calls it: values against numpy (or closed forms),
Paddle's output layouts and errors, gradients by finite differences through the
public functions, and the same results in static mode and under @to_static."""
import math

import numpy as np
import pytest

import framework as paddle
from framework import static

LA = paddle.linalg
RNG = np.random.default_rng(5)


def t(a, grad=False):
    return paddle.to_tensor(np.asarray(a), stop_gradient=not grad)


def well(*shape):
    return RNG.standard_normal(shape) + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    b = RNG.standard_normal(shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


def run(mode, fn, *arrays):
    """``fn(*tensors)`` (a tensor or a list of them) in 'eager', 'static' or
    'to_static' mode; numpy results."""
    def as_list(o):
        return list(o) if isinstance(o, (list, tuple)) else [o]
    if mode == 'eager':
        return [o.numpy() for o in as_list(fn(*[t(a) for a in arrays]))]
    if mode == 'to_static':
        return [o.numpy() for o in as_list(paddle.jit.to_static(fn)(*[t(a) for a in arrays]))]
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = [static.data('x%d' % i, list(a.shape), str(a.dtype))
                  for i, a in enumerate(arrays)]
            outs = as_list(fn(*xs))
        exe = static.Executor()
        exe.run(startup)
        return exe.run(main, feed={'x%d' % i: a for i, a in enumerate(arrays)},
                       fetch_list=outs)
    finally:
        paddle.disable_static()


def numeric_grad(f, a, eps=1e-6):
    """Central differences of the scalar f; df/da + i df/db for a complex a."""
    parts = (1.0, 1j) if np.iscomplexobj(a) else (1.0,)
    g = np.zeros_like(a)
    for i in np.ndindex(*a.shape):
        for unit in parts:
            d = np.zeros_like(a)
            d[i] = eps * unit
            g[i] += unit * (f(a + d) - f(a - d)) / (2 * eps)
    return g


def check_grad(fn, a, rtol=1e-5, atol=1e-7, symmetric=False):
    """The gradient of sum(fn(x) * w) through the public API against finite differences
    of the same function evaluated by the framework (symmetric: perturb a
    symmetric matrix symmetrically and compare the symmetric part)."""
    w_rng = np.random.default_rng(0)
    out = fn(t(a))
    ws = [w_rng.standard_normal(o.shape) for o in (out if isinstance(out, (list, tuple))
                                                   else [out])]

    def value(v):
        outs = fn(t(v))
        outs = outs if isinstance(outs, (list, tuple)) else [outs]
        return sum(float((o.numpy() * w).sum()) for o, w in zip(outs, ws))
    x = t(a, grad=True)
    outs = fn(x)
    outs = outs if isinstance(outs, (list, tuple)) else [outs]
    loss = sum((o * t(w)).sum() for o, w in zip(outs, ws))
    g, = paddle.grad(loss, [x])
    got = g.numpy()
    if symmetric:   # symmetric (Hermitian) inputs: compare the symmetric parts
        got = (got + np.conj(np.swapaxes(got, -1, -2))) / 2
        f = lambda v: value((v + np.conj(np.swapaxes(v, -1, -2))) / 2)  # noqa: E731
    else:
        f = value
    np.testing.assert_allclose(got, numeric_grad(f, a), rtol=rtol, atol=atol)


# ---- inverse, determinants, powers ---------------------------------------------------------

def test_inv_det_slogdet_match_numpy_with_batches():
    a = well(2, 3, 3)
    np.testing.assert_allclose(LA.inv(t(a)).numpy(), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(paddle.inverse(t(a)).numpy(), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(t(a).inverse().numpy(), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(LA.det(t(a)).numpy(), np.linalg.det(a), rtol=1e-12)
    sign, logabs = np.linalg.slogdet(a)
    out = LA.slogdet(t(a))
    assert out.shape == [2, 2]   # Paddle stacks [sign, log|det|] first
    np.testing.assert_allclose(out.numpy(), np.stack([sign, logabs]), rtol=1e-12)
    np.testing.assert_allclose(LA.slogdet(t(-np.eye(3))).numpy(), [-1.0, 0.0])


def test_det_of_singular_empty_and_0x0_matrices():
    assert float(LA.det(t(np.zeros((2, 2))))) == 0.0
    assert LA.det(t(np.zeros((0, 3, 3)))).shape == [0]
    assert float(LA.det(t(np.zeros((0, 0))))) == 1.0
    np.testing.assert_array_equal(LA.slogdet(t(np.zeros((2, 2)))).numpy(), [0.0, -np.inf])


def test_inverse_errors_name_the_op_and_shape():
    with pytest.raises(ValueError, match=r"inverse.*square.*\[2, 3\]"):
        LA.inv(t(np.ones((2, 3))))
    with pytest.raises(ValueError, match=r"inverse.*at least 2-D.*\[3\]"):
        LA.inv(t(np.ones(3)))
    with pytest.raises(ValueError, match="inverse.*not invertible"):
        LA.inv(t(np.zeros((2, 2))))
    with pytest.raises(ValueError, match="inverse.*int64"):
        LA.inv(paddle.to_tensor([[1, 2], [3, 4]]))


def test_matrix_power_positive_zero_negative():
    a = well(2, 3, 3)
    np.testing.assert_allclose(LA.matrix_power(t(a), 5).numpy(),
                               np.linalg.matrix_power(a, 5), rtol=1e-10)
    np.testing.assert_allclose(LA.matrix_power(t(a), 0).numpy(), np.broadcast_to(np.eye(3), a.shape))
    np.testing.assert_allclose(t(a).matrix_power(-2).numpy(), np.linalg.matrix_power(a, -2),
                               rtol=1e-10)
    check_grad(lambda x: LA.matrix_power(x, 3), well(3, 3))
    check_grad(lambda x: LA.matrix_power(x, -1), well(3, 3))


def test_inverse_and_det_gradients_of_complex_inputs():
    a = RNG.standard_normal((2, 2)) + 1j * RNG.standard_normal((2, 2)) + 2 * np.eye(2)
    x = t(a, grad=True)
    paddle.real(LA.det(x)).backward()
    # d Re(det) / d(a + ib) = conj(det * A^-T), in Paddle's convention
    np.testing.assert_allclose(x.grad.numpy(), np.conj(np.linalg.det(a) * np.linalg.inv(a).T),
                               rtol=1e-12)


# ---- solvers ------------------------------------------------------------------------------

def test_solve_matrices_vectors_batches_and_right_side():
    a, b = well(2, 3, 3), RNG.standard_normal((3, 2))
    np.testing.assert_allclose(LA.solve(t(a), t(b)).numpy(), np.linalg.solve(a, b), rtol=1e-12)
    v = RNG.standard_normal(3)
    out = LA.solve(t(a), t(v))
    assert out.shape == [2, 3]
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, v[:, None])[..., 0], rtol=1e-12)
    vb = RNG.standard_normal((2, 3))   # a batch of vectors matching x's batch
    np.testing.assert_allclose(LA.solve(t(a), t(vb)).numpy(),
                               np.linalg.solve(a, vb[..., None])[..., 0], rtol=1e-12)
    y = RNG.standard_normal((2, 4, 3))
    np.testing.assert_allclose(LA.solve(t(a), t(y), left=False).numpy(),
                               y @ np.linalg.inv(a), rtol=1e-10)
    out = paddle.zeros([2, 3, 2], 'float64')
    LA.solve(t(a), t(b), out=out)
    np.testing.assert_allclose(out.numpy(), np.linalg.solve(a, b), rtol=1e-12)
    with pytest.raises(ValueError, match="not invertible"):
        LA.solve(t(np.zeros((2, 2))), t(np.ones((2, 1))))


def test_triangular_and_cholesky_solves():
    a, b = well(3, 3), RNG.standard_normal((3, 2))
    np.testing.assert_allclose(LA.triangular_solve(t(a), t(b)).numpy(),
                               np.linalg.solve(np.triu(a), b), rtol=1e-12)
    unit = np.tril(a, -1) + np.eye(3)
    np.testing.assert_allclose(
        LA.triangular_solve(t(a), t(b), upper=False, transpose=True, unitriangular=True).numpy(),
        np.linalg.solve(unit.T, b), rtol=1e-12)
    s = spd(3, 3)
    low, up = np.linalg.cholesky(s), np.linalg.cholesky(s).T
    np.testing.assert_allclose(LA.cholesky_solve(t(b), t(low)).numpy(), np.linalg.solve(s, b),
                               rtol=1e-10)
    np.testing.assert_allclose(LA.cholesky_solve(t(b), t(up), upper=True).numpy(),
                               np.linalg.solve(s, b), rtol=1e-10)
    np.testing.assert_allclose(LA.cholesky_inverse(t(low)).numpy(), np.linalg.inv(s), rtol=1e-10)
    np.testing.assert_allclose(t(up).cholesky_inverse(upper=True).numpy(), np.linalg.inv(s),
                               rtol=1e-10)
    check_grad(lambda x: LA.cholesky_solve(t(b), x), low)
    check_grad(lambda x: LA.triangular_solve(x, t(b), upper=False, transpose=True), a)


def test_lstsq_outputs_follow_the_driver():
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    want, res, rank, sv = np.linalg.lstsq(a, b, rcond=None)
    sol, r, k, s = LA.lstsq(t(a), t(b), driver='gelsd')
    np.testing.assert_allclose(sol.numpy(), want, rtol=1e-10)
    np.testing.assert_allclose(r.numpy(), res, rtol=1e-10)
    assert int(k) == 3 and k.dtype == paddle.int32
    np.testing.assert_allclose(s.numpy(), sv, rtol=1e-10)
    sol, r, k, s = LA.lstsq(t(a), t(b))   # the CPU default driver is gelsy
    np.testing.assert_allclose(sol.numpy(), want, rtol=1e-10)
    assert r.shape == [0] and s.shape == [0] and int(k) == 3
    sol, r, k, s = LA.lstsq(t(a), t(b), driver='gels')
    assert r.shape == [2] and k.shape == [0] and k.dtype == paddle.int64
    wide, rhs = RNG.standard_normal((2, 4)), RNG.standard_normal((2, 1))
    np.testing.assert_allclose(LA.lstsq(t(wide), t(rhs))[0].numpy(), np.linalg.pinv(wide) @ rhs,
                               rtol=1e-10)
    # rank-deficient: the minimum-norm solution, no residuals
    sol, r, k, _ = LA.lstsq(t(np.ones((4, 3))), t(np.arange(4.0)[:, None]), driver='gelsd')
    assert int(k) == 1 and r.shape == [0]
    np.testing.assert_allclose(sol.numpy(), np.full((3, 1), 0.5), rtol=1e-10)
    with pytest.raises(ValueError, match="driver"):
        LA.lstsq(t(a), t(b), driver='gesv')
    with pytest.raises(ValueError, match="same dtype"):
        LA.lstsq(t(a), t(b.astype(np.float32)))
    check_grad(lambda x: LA.lstsq(x, t(b))[0], a)
    check_grad(lambda x: LA.lstsq(x, t(rhs))[0], wide)


# ---- decompositions -------------------------------------------------------------------------

def test_cholesky_lower_upper_and_errors():
    s = spd(2, 3, 3)
    low = LA.cholesky(t(s)).numpy()
    np.testing.assert_allclose(low, np.linalg.cholesky(s), rtol=1e-12)
    np.testing.assert_allclose(paddle.cholesky(t(s), upper=True).numpy(),
                               np.swapaxes(low, -1, -2), rtol=1e-12)
    np.testing.assert_allclose(t(s).cholesky().numpy(), low, rtol=1e-12)
    bad = np.array([[1.0, 2.0], [2.0, 1.0]])
    with pytest.raises(ValueError, match="cholesky.*matrix 0.*not positive definite"):
        LA.cholesky(t(bad))
    # only one triangle is read
    skewed = np.triu(s[0], 1) * 7 + np.tril(s[0])
    np.testing.assert_allclose(LA.cholesky(t(skewed)).numpy(), low[0], rtol=1e-12)
    check_grad(LA.cholesky, spd(3, 3), symmetric=True)


def test_cholesky_gradient_is_symmetric_as_in_paddle():
    s = spd(3, 3)
    x = t(s, grad=True)
    (LA.cholesky(x) * t(np.arange(9.0).reshape(3, 3))).sum().backward()
    g = x.grad.numpy()
    np.testing.assert_allclose(g, g.T, rtol=1e-12)


def test_qr_modes_and_gradients():
    a = RNG.standard_normal((2, 4, 3))
    q, r = LA.qr(t(a))
    assert q.shape == [2, 4, 3] and r.shape == [2, 3, 3]
    np.testing.assert_allclose((q.numpy() @ r.numpy()), a, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.triu(r.numpy()), r.numpy())
    q, r = LA.qr(t(a), mode='complete')
    assert q.shape == [2, 4, 4] and r.shape == [2, 4, 3]
    assert LA.qr(t(a), mode='r').shape == [2, 3, 3]
    with pytest.raises(ValueError, match="mode"):
        LA.qr(t(a), mode='full')
    check_grad(lambda x: LA.qr(x), RNG.standard_normal((4, 3)))
    check_grad(lambda x: LA.qr(x), RNG.standard_normal((3, 5)))
    x = t(RNG.standard_normal((4, 3)), grad=True)
    with pytest.raises(ValueError, match="complete.*4 > 3"):
        sum(o.sum() for o in LA.qr(x, mode='complete')).backward()


def test_svd_values_and_reconstruction():
    a = RNG.standard_normal((2, 3, 5))
    u, s, vh = LA.svd(t(a))
    assert u.shape == [2, 3, 3] and s.shape == [2, 3] and vh.shape == [2, 3, 5]
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose((u.numpy() * s.numpy()[..., None, :]) @ vh.numpy(), a, atol=1e-12)
    u, s, vh = LA.svd(t(a), full_matrices=True)
    assert u.shape == [2, 3, 3] and vh.shape == [2, 5, 5]
    np.testing.assert_allclose(LA.svdvals(t(a)).numpy(), np.linalg.svd(a, compute_uv=False),
                               rtol=1e-12)
    check_grad(lambda x: LA.svd(x)[1], RNG.standard_normal((4, 3)))
    # singular vectors up to sign: a sign-invariant function of them
    check_grad(lambda x: LA.svd(x)[0] ** 2, RNG.standard_normal((4, 3)))
    check_grad(lambda x: LA.svd(x, full_matrices=True)[1], RNG.standard_normal((2, 4)))


def test_eigh_eigvalsh_and_uplo():
    s = spd(2, 3, 3)
    w, v = LA.eigh(t(s))
    np.testing.assert_allclose(w.numpy(), np.linalg.eigvalsh(s), rtol=1e-12)
    np.testing.assert_allclose(v.numpy() @ (w.numpy()[..., None] * np.swapaxes(v.numpy(), -1, -2)),
                               s, rtol=1e-10)
    upper_only = np.triu(s) + np.tril(RNG.standard_normal((3, 3)), -1)
    np.testing.assert_allclose(LA.eigvalsh(t(upper_only), UPLO='U').numpy(),
                               np.linalg.eigvalsh(s), rtol=1e-12)
    np.testing.assert_allclose(paddle.eigvalsh(t(s)).numpy(), np.linalg.eigvalsh(s), rtol=1e-12)
    with pytest.raises(ValueError, match="UPLO"):
        LA.eigh(t(s), UPLO='X')
    check_grad(lambda x: LA.eigh(x)[0], spd(3, 3), symmetric=True)
    check_grad(lambda x: LA.eigh(x)[1] ** 2, spd(3, 3), symmetric=True)


def test_complex_decompositions_differentiate_with_phase_invariant_losses():
    b = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    h = b @ np.conj(b.T) + 3 * np.eye(3)
    c = RNG.standard_normal((4, 3)) + 1j * RNG.standard_normal((4, 3))

    def re(v):
        return paddle.real(v) if v.is_complex() else v
    # singular vectors and eigenvectors are defined up to a phase each: |.|^2 is not
    check_grad(lambda x: [LA.svd(x)[1], paddle.abs(LA.svd(x)[0]) ** 2,
                          paddle.abs(LA.svd(x)[2]) ** 2], c)
    check_grad(lambda x: re(LA.svd(x)[0] @ LA.svd(x)[2]), c)   # U V^H is unique
    check_grad(lambda x: [LA.eigh(x)[0], paddle.abs(LA.eigh(x)[1]) ** 2], h, symmetric=True)
    check_grad(lambda x: [re(m) for m in LA.qr(x)] + [paddle.imag(m) for m in LA.qr(x)], c)
    check_grad(lambda x: [re(LA.cholesky(x)), paddle.imag(LA.cholesky(x))], h, symmetric=True)
    check_grad(lambda x: [re(LA.inv(x)), paddle.imag(LA.det(x))], b)


def test_eig_is_complex_and_differentiable():
    a = np.array([[2.0, 1.0, 0.0], [0.5, -1.0, 0.3], [0.1, 0.2, 3.0]])
    w, v = LA.eig(t(a))
    assert w.dtype == paddle.complex128 and v.dtype == paddle.complex128
    np.testing.assert_allclose(a @ v.numpy(), v.numpy() * w.numpy(), atol=1e-12)
    rot = np.array([[0.0, -1.0], [1.0, 0.0]])
    np.testing.assert_allclose(sorted(LA.eigvals(t(rot)).numpy(), key=lambda z: z.imag),
                               [-1j, 1j], atol=1e-12)
    assert LA.eigvals(t(rot.astype(np.float32))).dtype == paddle.complex64
    # d sum(w) / dA = I (the trace)
    x = t(a, grad=True)
    paddle.real(LA.eigvals(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.eye(3), atol=1e-10)
    check_grad(lambda x: paddle.abs(LA.eig(x)[1]), a)


def test_lu_pivots_are_one_based_and_unpack_rebuilds_x():
    for a in (RNG.standard_normal((3, 3)), RNG.standard_normal((2, 4, 3)),
              RNG.standard_normal((3, 5))):
        packed, piv, info = LA.lu(t(a), get_infos=True)
        k = min(a.shape[-2:])
        assert piv.dtype == paddle.int32 and piv.shape == list(a.shape[:-2]) + [k]
        assert piv.numpy().min() >= 1 and info.numpy().max() == 0
        p, lo, up = LA.lu_unpack(packed, piv)
        np.testing.assert_allclose(p.numpy() @ lo.numpy() @ up.numpy(), a, atol=1e-12)
    packed, piv = LA.lu(t([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(piv.numpy(), [2, 2])
    np.testing.assert_allclose(packed.numpy(), [[3, 4], [1 / 3, 2 / 3]], rtol=1e-12)
    p, lo, up = LA.lu_unpack(packed, piv, unpack_ludata=False)
    assert lo.shape == [0] and up.shape == [0] and p.shape == [2, 2]
    _, piv, info = LA.lu(t(np.zeros((3, 3))), get_infos=True)
    assert int(info) == 1 and piv.numpy().tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match="lu_unpack.*pivots"):
        LA.lu_unpack(packed, piv)
    for shape in ((3, 3), (4, 3), (3, 4)):
        check_grad(lambda x: LA.lu(x)[0], RNG.standard_normal(shape))
        check_grad(lambda x: LA.lu_unpack(*LA.lu(x))[1:], RNG.standard_normal(shape))


def test_lu_solve_each_transpose():
    a, b = well(2, 3, 3), RNG.standard_normal((2, 3, 2))
    packed, piv = LA.lu(t(a))
    np.testing.assert_allclose(LA.lu_solve(t(b), packed, piv).numpy(), np.linalg.solve(a, b),
                               rtol=1e-10)
    at = np.swapaxes(a, -1, -2)
    np.testing.assert_allclose(LA.lu_solve(t(b), packed, piv, trans='T').numpy(),
                               np.linalg.solve(at, b), rtol=1e-10)
    c = a + 1j * RNG.standard_normal(a.shape)
    packed, piv = LA.lu(t(c))
    np.testing.assert_allclose(LA.lu_solve(t(b + 0j), packed, piv, trans='C').numpy(),
                               np.linalg.solve(np.conj(np.swapaxes(c, -1, -2)), b), rtol=1e-10)
    check_grad(lambda x: LA.lu_solve(t(b[0]), *LA.lu(x), trans='T'), a[0])


def test_matrix_exp_against_eigen_decomposition_and_gradient():
    s = spd(3, 3) * 0.2
    w, v = np.linalg.eigh(s)
    np.testing.assert_allclose(LA.matrix_exp(t(s)).numpy(), (v * np.exp(w)) @ v.T, rtol=1e-12)
    big = RNG.standard_normal((2, 3, 3)) * 4   # needs scaling and squaring
    np.testing.assert_allclose(LA.matrix_exp(t(big)).numpy()[0] @ LA.matrix_exp(t(-big)).numpy()[0],
                               np.eye(3), atol=1e-8)
    np.testing.assert_allclose(float(LA.matrix_exp(t(np.array(0.5)))), math.exp(0.5))
    check_grad(LA.matrix_exp, RNG.standard_normal((3, 3)))


def test_householder_product_and_ormqr_rebuild_q():
    a = RNG.standard_normal((4, 3))
    q, _ = np.linalg.qr(a)
    # LAPACK's geqrf reflectors for a, built here by Householder steps
    r = a.copy()
    vs, taus = np.zeros_like(a), np.zeros(3)
    for j in range(3):
        x = r[j:, j]
        alpha = -np.sign(x[0]) * np.linalg.norm(x)
        v = x.copy()
        v[0] -= alpha
        v /= v[0]
        taus[j] = 2 / (v @ v)
        r[j:] -= taus[j] * np.outer(v, v @ r[j:])
        vs[j + 1:, j] = v[1:]
    packed = np.triu(r[:3]) + 0
    packed = np.vstack([packed, np.zeros((1, 3))]) + vs
    got = LA.householder_product(t(packed), t(taus)).numpy()
    np.testing.assert_allclose(np.abs(got), np.abs(q), rtol=1e-10)
    np.testing.assert_allclose(got @ np.triu(r[:3]), a, atol=1e-10)
    y = RNG.standard_normal((3, 2))
    np.testing.assert_allclose(LA.ormqr(t(packed), t(taus), t(y)).numpy(), got @ y, rtol=1e-10)
    y2 = RNG.standard_normal((2, 4))
    np.testing.assert_allclose(LA.ormqr(t(packed), t(taus), t(y2), left=False).numpy(),
                               y2 @ got, rtol=1e-10)
    check_grad(lambda x: LA.householder_product(x, t(taus)), packed)


# ---- norms, rank, condition ------------------------------------------------------------------

@pytest.mark.parametrize('p,axis', [
    (None, None), ('fro', None), (2, None), (1, 1), (np.inf, 0), (-np.inf, 1), (0, None),
    (3, 1), (-1, 0), (0.5, 1), ('fro', [0, 1]), ('nuc', [0, 1]), (2, [0, 1]), (-2, [0, 1]),
    (1, [0, 1]), (-1, [0, 1]), (np.inf, [0, 1]), (-np.inf, [0, 1]), (1, [1, 0]),
])
def test_norm_matches_numpy(p, axis):
    a = RNG.standard_normal((3, 4))
    got = LA.norm(t(a), p=p, axis=axis).numpy()
    if axis is None:   # Paddle: a vector norm of all elements ('fro' the 2-norm)
        want = np.linalg.norm(a.ravel(), ord=None if p in (None, 'fro') else p)
    else:
        want = np.linalg.norm(a, ord=p, axis=tuple(axis) if isinstance(axis, list) else axis)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_norm_variants_shapes_and_methods():
    b = RNG.standard_normal((2, 3, 4))
    assert LA.norm(t(b), keepdim=True).shape == [1, 1, 1]
    assert LA.norm(t(b), p='nuc', axis=[0, 2], keepdim=True).shape == [1, 3, 1]
    assert LA.norm(t(b), p=1, axis=[2, 0], keepdim=True).shape == [1, 3, 1]
    np.testing.assert_allclose(LA.vector_norm(t(b), p=1, axis=[0, 2]).numpy(),
                               np.abs(b).sum((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(LA.matrix_norm(t(b), p=-2).numpy(),
                               np.linalg.svd(b, compute_uv=False)[..., -1], rtol=1e-12)
    np.testing.assert_allclose(t(b).norm(p=2, axis=-1).numpy(), np.linalg.norm(b, axis=-1))
    assert LA.norm(t(b), dtype='float32').dtype == paddle.float32
    z = RNG.standard_normal((3,)) + 1j * RNG.standard_normal((3,))
    np.testing.assert_allclose(float(LA.norm(t(z))), np.linalg.norm(z), rtol=1e-12)
    with pytest.raises(ValueError, match="found 3"):
        LA.norm(t(b), p='nuc')
    with pytest.raises(ValueError, match="just support p value"):
        LA.matrix_norm(t(b), p=3)
    with pytest.raises(ValueError, match="only valid p type"):
        LA.vector_norm(t(b), p='fro')


def test_norm_gradients_including_at_zero():
    a = RNG.standard_normal((4, 3))
    for kw in ({}, {'p': 'nuc'}, {'p': 2, 'axis': [0, 1]}, {'p': -2, 'axis': [0, 1]},
               {'p': 1, 'axis': [0, 1]}, {'p': np.inf, 'axis': [0, 1]}, {'p': 3, 'axis': 1},
               {'p': np.inf}, {'p': 0.5, 'axis': 0}):
        check_grad(lambda x: LA.norm(x, **kw), a)
    x = t(np.zeros((2, 3)), grad=True)
    LA.norm(x).backward()   # Paddle's p_norm: a zero norm has a zero gradient, not NaN
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))


def test_cond_for_each_p():
    a = well(2, 3, 3)
    for p in (None, 'fro', 'nuc', 1, -1, 2, -2, np.inf, -np.inf):
        want = np.linalg.cond(a, p=p)
        np.testing.assert_allclose(LA.cond(t(a), p=p).numpy(), want, rtol=1e-10)
    rect = RNG.standard_normal((3, 5))
    np.testing.assert_allclose(float(LA.cond(t(rect))), np.linalg.cond(rect), rtol=1e-10)
    with pytest.raises(ValueError, match="square"):
        LA.cond(t(rect), p=1)
    with pytest.raises(ValueError, match="unsupported"):
        LA.cond(t(a), p=3)
    assert LA.cond(t(np.zeros((0, 3, 3)))).shape == [0]
    check_grad(LA.cond, well(3, 3))
    check_grad(lambda x: LA.cond(x, p='fro'), well(3, 3))


def test_matrix_rank_tolerances():
    a = RNG.standard_normal((2, 4, 3))
    np.testing.assert_array_equal(LA.matrix_rank(t(a)).numpy(), [3, 3])
    assert LA.matrix_rank(t(a)).dtype == paddle.int64
    d = t(np.diag([1.0, 1e-8, 0.0]))
    assert int(LA.matrix_rank(d)) == 2
    assert int(LA.matrix_rank(d, tol=1e-7)) == 1
    assert int(LA.matrix_rank(d, atol=0.0)) == 2
    assert int(LA.matrix_rank(d, rtol=1e-6)) == 1
    h = t(np.diag([1.0, -2.0, 0.1]))
    assert int(LA.matrix_rank(h, hermitian=True, tol=0.5)) == 2
    s = np.linalg.svd(a, compute_uv=False)
    tol = t(s[:, 1] + 1e-3)
    np.testing.assert_array_equal(LA.matrix_rank(t(a), tol=tol).numpy(), [1, 1])
    assert int(LA.matrix_rank(t(np.ones((3, 3))))) == 1
    with pytest.raises(ValueError, match="tol alone"):
        LA.matrix_rank(d, tol=0.1, atol=0.1)
    with pytest.raises(ValueError, match="square"):
        LA.matrix_rank(t(a[0]), hermitian=True)


def test_pinv_and_its_gradient():
    a = RNG.standard_normal((2, 4, 3))
    np.testing.assert_allclose(LA.pinv(t(a)).numpy(), np.linalg.pinv(a), rtol=1e-10)
    s = spd(3, 3)
    np.testing.assert_allclose(LA.pinv(t(s), hermitian=True).numpy(), np.linalg.inv(s), rtol=1e-10)
    low_rank = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    np.testing.assert_allclose(t(low_rank).pinv().numpy(), np.linalg.pinv(low_rank), rtol=1e-10)
    np.testing.assert_allclose(LA.pinv(t(a[0]), rcond=0.9).numpy(),
                               np.linalg.pinv(a[0], rcond=0.9), rtol=1e-10, atol=1e-12)
    check_grad(LA.pinv, RNG.standard_normal((4, 3)))


# ---- products and small helpers -------------------------------------------------------------

def test_cross_default_axis_and_gradient():
    x, y = RNG.standard_normal((4, 3, 2)), RNG.standard_normal((4, 3, 2))
    np.testing.assert_allclose(LA.cross(t(x), t(y)).numpy(), np.cross(x, y, axis=1))
    np.testing.assert_allclose(paddle.cross(t(x[..., 0]), t(y[..., 0]), axis=1).numpy(),
                               np.cross(x[..., 0], y[..., 0]))
    assert LA.cross(paddle.to_tensor([[1, 2, 3]]), paddle.to_tensor([[3, 2, 1]])).tolist() == \
        [[-4, 8, -4]]
    with pytest.raises(ValueError, match="same shape|should be equal"):
        LA.cross(t(np.ones((2, 3))), t(np.ones(3)))
    check_grad(lambda v: LA.cross(v, t(y)), x)


def test_multi_dot_vectors_and_order():
    a, b, c, d = (RNG.standard_normal(s) for s in ((2, 30), (30, 3), (3, 40), (40,)))
    np.testing.assert_allclose(LA.multi_dot([t(a), t(b), t(c), t(d)]).numpy(),
                               np.linalg.multi_dot([a, b, c, d]), rtol=1e-12)
    v = RNG.standard_normal(2)
    out = LA.multi_dot([t(v), t(a), t(b[:, 0])])
    assert out.shape == []
    np.testing.assert_allclose(float(out), v @ a @ b[:, 0], rtol=1e-12)
    with pytest.raises(ValueError, match="> 1"):
        LA.multi_dot([t(a)])
    with pytest.raises(ValueError, match="2-D"):
        LA.multi_dot([t(a), t(np.ones((30, 2, 2))), t(c)])


def test_diagonal_transpose_vecdot_cov_corrcoef():
    b = RNG.standard_normal((2, 3, 4))
    np.testing.assert_array_equal(paddle.diagonal(t(b), offset=1, axis1=1, axis2=2).numpy(),
                                  np.diagonal(b, 1, 1, 2))
    np.testing.assert_array_equal(t(b).diagonal(-1, 0, 2).numpy(), np.diagonal(b, -1, 0, 2))
    assert paddle.matrix_transpose(t(b)).shape == [2, 4, 3]
    np.testing.assert_allclose(paddle.vecdot(t(b), t(b)).numpy(), (b * b).sum(-1))
    z = b + 1j
    np.testing.assert_allclose(LA.vecdot(t(z), t(b), axis=1).numpy(), (np.conj(z) * b).sum(1))
    m = RNG.standard_normal((3, 5))
    np.testing.assert_allclose(LA.cov(t(m)).numpy(), np.cov(m), rtol=1e-12)
    np.testing.assert_allclose(t(m).cov(rowvar=False, ddof=False).numpy(),
                               np.cov(m, rowvar=False, ddof=0), rtol=1e-12)
    fw, aw = np.array([1, 2, 1, 3, 1]), np.array([0.5, 1.0, 2.0, 1.0, 0.3])
    np.testing.assert_allclose(
        LA.cov(t(m), fweights=paddle.to_tensor(fw), aweights=t(aw)).numpy(),
        np.cov(m, fweights=fw, aweights=aw), rtol=1e-12)
    np.testing.assert_allclose(LA.corrcoef(t(m)).numpy(), np.corrcoef(m), rtol=1e-12)
    with pytest.raises(ValueError, match="negative"):
        LA.cov(t(m), fweights=paddle.to_tensor([1, -2, 1, 1, 1]))
    check_grad(LA.cov, m)
    check_grad(LA.corrcoef, m)


def test_low_rank_svd_and_pca_recover_a_low_rank_matrix():
    paddle.seed(3)
    a = RNG.standard_normal((20, 3)) @ RNG.standard_normal((3, 15))
    u, s, v = LA.svd_lowrank(t(a), q=4)
    assert u.shape == [20, 4] and s.shape == [4] and v.shape == [15, 4]
    np.testing.assert_allclose(s.numpy()[:3], np.linalg.svd(a, compute_uv=False)[:3], rtol=1e-8)
    np.testing.assert_allclose((u.numpy() * s.numpy()) @ v.numpy().T, a, atol=1e-8)
    u, s, v = LA.pca_lowrank(t(a), q=3)
    centred = a - a.mean(0)
    np.testing.assert_allclose(s.numpy(), np.linalg.svd(centred, compute_uv=False)[:3], rtol=1e-6)
    with pytest.raises(ValueError, match="q"):
        LA.svd_lowrank(t(a), q=30)


def test_gpu_only_gemm_answers_as_the_cpu_build():
    with pytest.raises(RuntimeError, match="not registered"):
        LA.fp8_fp8_half_gemm_fused(paddle.ones([2, 2]), paddle.ones([2, 2]))


def test_float32_inputs_keep_float32():
    a = well(3, 3).astype(np.float32)
    for fn in (LA.inv, LA.det, LA.cholesky, LA.matrix_exp, LA.pinv, LA.svdvals, LA.eigvalsh):
        assert fn(t(a @ a.T)).dtype == paddle.float32, fn
    assert LA.eig(t(a))[0].dtype == paddle.complex64
    assert LA.slogdet(t(a)).dtype == paddle.float32
    assert LA.norm(t(a), p='nuc').dtype == paddle.float32


# ---- static mode and @to_static ----------------------------------------------------------------

def _pipeline(x, y):
    s = paddle.matmul(x, x, transpose_y=True) + 3 * paddle.eye(3, dtype='float64')
    low = LA.cholesky(s)
    q, r = LA.qr(x)
    w, v = LA.eigh(s)
    sol = LA.solve(s, y)
    packed, piv = LA.lu(x)
    return [low, LA.inv(s), LA.det(s), LA.slogdet(s), q, r, w, paddle.abs(v), sol,
            LA.svd(x)[1], packed, LA.norm(x, p='nuc'), LA.norm(x, p=1, axis=[0, 1]),
            LA.cond(s), LA.matrix_rank(x), LA.pinv(x), LA.matrix_exp(s * 0.1),
            LA.lstsq(x, y)[0], LA.cross(x, y), LA.matrix_power(s, 3), LA.multi_dot([x, s, y])]


@pytest.mark.parametrize('mode', ['static', 'to_static'])
def test_static_and_to_static_agree_with_eager(mode):
    x, y = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    want = run('eager', _pipeline, x, y)
    got = run(mode, _pipeline, x, y)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _loss_and_grads(x):
    s = paddle.matmul(x, x, transpose_y=True) + 3 * paddle.eye(3, dtype='float64')
    loss = (LA.cholesky(s).sum() + LA.slogdet(s)[1] + LA.svd(x)[1].sum()
            + LA.eigh(s)[0][-1] + LA.inv(s).sum() + LA.norm(x, p='nuc') + LA.det(s) * 0.01
            + LA.lu(x)[0].sum() + LA.matrix_exp(x * 0.1).sum())
    return [loss] + paddle.grad(loss, [x], create_graph=True)


@pytest.mark.parametrize('mode', ['static', 'to_static'])
def test_gradients_in_static_modes_match_eager(mode):
    x = RNG.standard_normal((3, 3))

    def eager():
        v = t(x, grad=True)
        return [o.numpy() for o in _loss_and_grads(v)]
    want = eager()
    if mode == 'static':
        paddle.enable_static()
        try:
            main, startup = static.Program(), static.Program()
            with static.program_guard(main, startup):
                v = static.data('x', [3, 3], 'float64')
                v.stop_gradient = False
                outs = _loss_and_grads(v)
            got = static.Executor().run(main, feed={'x': x}, fetch_list=outs)
        finally:
            paddle.disable_static()
    else:
        fn = paddle.jit.to_static(lambda v: _loss_and_grads(v))
        got = [o.numpy() for o in fn(t(x, grad=True))]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-12)
