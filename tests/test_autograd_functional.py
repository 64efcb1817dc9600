"""vjp / jvp / Jacobian / Hessian (incubate.autograd) and autograd.jacobian /
hessian, in eager mode, static mode (program_guard + Executor) and inside
@to_static, against closed forms and finite differences of the forward."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework import static
from framework.autograd import hessian, jacobian
from framework.dygraph import autograd as _engine
from framework.incubate.autograd import Hessian, Jacobian, forward_grad, jvp, vjp
from framework.ops import registry

import op_check

MODES = ['eager', 'static', 'to_static']
rng = np.random.default_rng(2024)


# ---- running the same computation in the three modes -------------------------------

def run(mode, fn, *arrays):
    """``fn(*inputs) -> list of tensors`` evaluated in ``mode``; numpy results."""
    if mode == 'eager':
        return [o.numpy() for o in fn(*[paddle.to_tensor(a) for a in arrays])]
    if mode == 'to_static':
        outs = paddle.jit.to_static(fn)(*[paddle.to_tensor(a) for a in arrays])
        return [o.numpy() for o in outs]
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = [static.data('x%d' % i, list(a.shape), str(a.dtype))
                  for i, a in enumerate(arrays)]
            outs = fn(*xs)
        exe = static.Executor()
        exe.run(startup)
        return exe.run(main, feed={'x%d' % i: a for i, a in enumerate(arrays)},
                       fetch_list=list(outs))
    finally:
        paddle.disable_static()


# ---- finite differences of the forward (no autograd involved) -------------------------

def forward_np(f, arrays):
    with paddle.no_grad():
        out = f(*[paddle.to_tensor(a) for a in arrays])
    return np.concatenate([o.numpy().reshape(-1) for o in
                           (out if isinstance(out, (list, tuple)) else [out])])


def split(vec, arrays):
    out, k = [], 0
    for a in arrays:
        out.append(vec[k:k + a.size].reshape(a.shape))
        k += a.size
    return out


def fd_jacobian(f, arrays, eps=1e-6):
    flat = np.concatenate([a.reshape(-1) for a in arrays])
    cols = []
    for j in range(flat.size):
        d = np.zeros_like(flat)
        d[j] = eps
        cols.append((forward_np(f, split(flat + d, arrays)) -
                     forward_np(f, split(flat - d, arrays))) / (2 * eps))
    return np.stack(cols, axis=1)


def fd_hessian(f, arrays, h=1e-4):
    flat = np.concatenate([a.reshape(-1) for a in arrays])
    n = flat.size
    val = lambda v: forward_np(f, split(v, arrays))[0]  # noqa: E731
    H = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            ei, ej = np.eye(n)[i] * h, np.eye(n)[j] * h
            H[i, j] = H[j, i] = (val(flat + ei + ej) - val(flat + ei - ej) -
                                 val(flat - ei + ej) + val(flat - ei - ej)) / (4 * h * h)
    return H


# ---- the functions ------------------------------------------------------------------

def poly(x, y):
    return x ** 3 * y + 2.0 * x * y ** 2


def chain(x):
    return paddle.log(1.0 + paddle.exp(paddle.tanh(x)) * x * x)


def mm(a, b):
    return paddle.matmul(a, b)


def softmax(x):
    return F.softmax(x * 1.5, axis=-1)


def layer_norm(x, w, b):
    return F.layer_norm(x, [3], w, b)


def conv(x, w):
    return F.conv2d(x, w, padding=1)


ZOO = {
    'poly': (poly, [rng.uniform(0.5, 1.5, 3), rng.uniform(0.5, 1.5, 3)]),
    'tanh_exp_log': (chain, [rng.uniform(0.3, 1.0, (2, 2))]),
    'matmul': (mm, [rng.standard_normal((2, 3)), rng.standard_normal((3, 2))]),
    'softmax': (softmax, [rng.standard_normal((2, 3))]),
    'layer_norm': (layer_norm, [rng.standard_normal((2, 3)), rng.uniform(0.5, 1.5, 3),
                                rng.standard_normal(3)]),
    'conv2d': (conv, [rng.standard_normal((1, 1, 3, 3)), rng.standard_normal((2, 1, 2, 2))]),
}


def scalar_of(f):
    return lambda *xs: paddle.sin(f(*xs)).sum()


# ---- Jacobian / Hessian / jvp / vjp vs finite differences in every mode ---------------

@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('name', sorted(ZOO))
def test_jacobian_matches_finite_differences(name, mode):
    f, arrays = ZOO[name]

    def build(*xs):
        J = Jacobian(f, list(xs))
        return [J[:], J[1], J[:, 0]]
    full, row1, col0 = run(mode, build, *arrays)
    expect = fd_jacobian(f, arrays)
    np.testing.assert_allclose(full, expect, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(row1, expect[1], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(col0, expect[:, 0], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('name', sorted(ZOO))
def test_hessian_matches_finite_differences(name, mode):
    f, arrays = ZOO[name]
    g = scalar_of(f)

    def build(*xs):
        return [Hessian(g, list(xs))[:]]
    H, = run(mode, build, *arrays)
    np.testing.assert_allclose(H, fd_hessian(g, arrays), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(H, H.T, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize('mode', MODES)
@pytest.mark.parametrize('name', sorted(ZOO))
def test_jvp_and_vjp_match_finite_differences(name, mode):
    f, arrays = ZOO[name]
    J = fd_jacobian(f, arrays)
    tangents = [rng.standard_normal(a.shape) for a in arrays]
    m = J.shape[0]
    cot = rng.standard_normal(m)

    def build(*vals):
        xs, vs = list(vals[:len(arrays)]), list(vals[len(arrays):])
        out, t = jvp(f, xs, vs)
        return [out, t]

    out, t = run(mode, build, *arrays, *tangents)
    np.testing.assert_allclose(out.reshape(-1), forward_np(f, arrays), rtol=1e-12)
    np.testing.assert_allclose(t.reshape(-1), J @ np.concatenate(
        [v.reshape(-1) for v in tangents]), rtol=1e-5, atol=1e-7)

    out_shape = out.shape

    def build_vjp(*vals):
        xs, u = list(vals[:-1]), vals[-1]
        _, g = vjp(f, xs, u)
        return list(g)
    grads = run(mode, build_vjp, *arrays, cot.reshape(out_shape))
    np.testing.assert_allclose(np.concatenate([g.reshape(-1) for g in grads]), cot @ J,
                               rtol=1e-5, atol=1e-7)


def test_paddle_doc_examples():
    x = paddle.ones([2, 2])
    v = paddle.to_tensor([[1.0, 0.0], [0.0, 0.0]])
    f = lambda x: paddle.matmul(x, x)  # noqa: E731
    assert vjp(f, x)[1].numpy().tolist() == [[4, 4], [4, 4]]
    assert vjp(f, x, v)[1].numpy().tolist() == [[2, 1], [1, 0]]
    assert jvp(f, x)[1].numpy().tolist() == [[4, 4], [4, 4]]
    assert jvp(f, x, v)[1].numpy().tolist() == [[2, 1], [1, 0]]
    x = paddle.to_tensor([[1., 2.], [3., 4.]])
    J = Jacobian(lambda a, b: paddle.matmul(a, b), [x, x])
    assert J.shape == [4, 8]
    assert J[0, :].numpy().tolist() == [1, 3, 0, 0, 1, 0, 2, 0]
    assert J[:, 0].numpy().tolist() == [1, 2, 0, 0]
    H = Hessian(lambda x: paddle.sum(x * x), paddle.ones([2, 2]))
    np.testing.assert_array_equal(H[:].numpy(), 2 * np.eye(4))


@pytest.mark.parametrize('mode', MODES)
def test_the_same_tensor_twice_gives_separate_partials(mode):
    def build(x):
        J = Jacobian(lambda a, b: paddle.matmul(a, b), [x, x])
        _, t = jvp(lambda a, b: a * b * b, [x, x], [paddle.ones_like(x), paddle.zeros_like(x)])
        return [J[:], t]
    J, t = run(mode, build, np.array([[1., 2.], [3., 4.]]))
    np.testing.assert_array_equal(J[0], [1, 3, 0, 0, 1, 0, 2, 0])
    np.testing.assert_array_equal(t, [[1, 4], [9, 16]])


# ---- closed forms ------------------------------------------------------------------

def test_closed_form_jacobian_and_hessian_of_polynomials():
    x0, x1 = 1.3, -0.7
    x = paddle.to_tensor([x0, x1], dtype='float64')
    f = lambda x: paddle.stack([x[0] ** 2 * x[1], 5.0 * x[0] + paddle.sin(x[1])])  # noqa
    J = Jacobian(f, x)
    np.testing.assert_allclose(J[:].numpy(), [[2 * x0 * x1, x0 ** 2], [5.0, np.cos(x1)]],
                               rtol=1e-12)
    g = lambda x: x[0] ** 2 * x[1] + x[1] ** 3  # noqa: E731
    H = Hessian(g, x)
    np.testing.assert_allclose(H[:].numpy(), [[2 * x1, 2 * x0], [2 * x0, 6 * x1]], rtol=1e-12)
    # jvp along e0 is the first Jacobian column; vjp with e1 the second row
    e0 = paddle.to_tensor([1.0, 0.0], dtype='float64')
    np.testing.assert_allclose(jvp(f, x, e0)[1].numpy(), [2 * x0 * x1, 5.0], rtol=1e-12)
    np.testing.assert_allclose(vjp(f, x, paddle.to_tensor([0.0, 1.0], dtype='float64'))[1]
                               .numpy(), [5.0, np.cos(x1)], rtol=1e-12)


def test_multiple_outputs_are_concatenated_and_v_keeps_structure():
    x = paddle.to_tensor([0.5, 2.0], dtype='float64')
    y = paddle.to_tensor([3.0], dtype='float64')
    f = lambda x, y: (x * y, (x ** 2).sum() + y)  # noqa: E731
    J = Jacobian(f, [x, y])
    assert J.shape == [3, 3]
    np.testing.assert_allclose(J[:].numpy(), [[3, 0, 0.5], [0, 3, 2.0], [1.0, 4.0, 1]])
    outs, t = jvp(f, [x, y], [paddle.ones([2], 'float64'), paddle.zeros([1], 'float64')])
    assert isinstance(outs, tuple) and isinstance(t, tuple) and len(t) == 2
    np.testing.assert_allclose(t[0].numpy(), [3, 3])
    np.testing.assert_allclose(t[1].numpy(), [5.0])
    _, g = vjp(f, [x, y], [paddle.ones([2], 'float64'), paddle.ones([1], 'float64')])
    assert isinstance(g, tuple)
    np.testing.assert_allclose(g[0].numpy(), [4.0, 7.0])
    np.testing.assert_allclose(g[1].numpy(), [3.5])


def test_unused_input_gives_zeros():
    x = paddle.to_tensor([1.0, 2.0])
    y = paddle.to_tensor([3.0])
    J = Jacobian(lambda x, y: x * 2.0, [x, y])
    np.testing.assert_allclose(J[:].numpy(), [[2, 0, 0], [0, 2, 0]])
    _, t = jvp(lambda x: paddle.ones([2]) * 1.0, x)
    np.testing.assert_allclose(t.numpy(), [0, 0])
    _, g = vjp(lambda x, y: y * 3.0, [x, y])
    np.testing.assert_allclose(g[0].numpy(), [0, 0])


# ---- batched --------------------------------------------------------------------------

def test_batched_jacobian_and_hessian_match_per_sample_results():
    W = rng.standard_normal((3, 2))
    xb = rng.standard_normal((4, 3))
    f = lambda x: paddle.tanh(paddle.matmul(x, paddle.to_tensor(W)))  # noqa: E731
    J = Jacobian(f, paddle.to_tensor(xb), is_batched=True)
    assert J.shape == [4, 2, 3]
    full = J[:].numpy()
    for b in range(4):
        np.testing.assert_allclose(full[b], fd_jacobian(f, [xb[b:b + 1]]), rtol=1e-6,
                                   atol=1e-8)
    np.testing.assert_allclose(J[:, 1].numpy(), full[:, 1])
    np.testing.assert_allclose(J[2].numpy(), full[2])
    np.testing.assert_allclose(J[:, :, 0].numpy(), full[:, :, 0])
    g = lambda x: (paddle.tanh(x) ** 2).sum(axis=1, keepdim=True)  # noqa: E731
    H = Hessian(g, paddle.to_tensor(xb), is_batched=True)
    assert H.shape == [4, 3, 3]
    Hv = H[:].numpy()
    for b in range(4):
        np.testing.assert_allclose(Hv[b], fd_hessian(g, [xb[b:b + 1]]), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize('mode', MODES)
def test_batched_jacobian_in_every_mode(mode):
    xb = rng.standard_normal((3, 2))

    def build(x):
        J = Jacobian(lambda x: paddle.exp(x) * x[:, :1], x, is_batched=True)
        H = Hessian(lambda x: (x ** 3).sum(axis=1), x, is_batched=True)
        return [J[:], H[:]]
    J, H = run(mode, build, xb)
    e = np.exp(xb)
    expect = np.zeros((3, 2, 2))
    expect[:, 0, 0] = e[:, 0] * xb[:, 0] + e[:, 0]
    expect[:, 1, 1] = e[:, 1] * xb[:, 0]
    expect[:, 1, 0] = e[:, 1]
    np.testing.assert_allclose(J, expect, rtol=1e-10)
    np.testing.assert_allclose(H, np.stack([np.diag(6 * r) for r in xb]), rtol=1e-10)


# ---- lazy evaluation ------------------------------------------------------------------------

class PassCounter:
    """Counts reverse passes of the eager engine."""

    def __init__(self, monkeypatch):
        self.n = 0
        run_ = _engine._Engine.run

        def counted(engine, *a):
            self.n += 1
            return run_(engine, *a)
        monkeypatch.setattr(_engine._Engine, 'run', counted)

    def take(self):
        n, self.n = self.n, 0
        return n


def test_jacobian_rows_are_lazy_and_cached(monkeypatch):
    passes = PassCounter(monkeypatch)
    x = paddle.to_tensor(rng.standard_normal(5))
    J = Jacobian(lambda x: paddle.tanh(x) * x.sum(), x)
    assert J.shape == [5, 5] and passes.take() == 0        # nothing evaluated yet
    r = J[2]
    assert passes.take() == 1                               # one row, one reverse pass
    np.testing.assert_allclose(J[2].numpy(), r.numpy())
    assert J[2, 3].shape == [] and passes.take() == 0       # cached
    J[1:4]
    assert passes.take() == 2                               # rows 1 and 3 only
    J[:, 0]                                                 # a column needs every row
    assert passes.take() == 2
    J[:]
    assert passes.take() == 0


def test_hessian_rows_cost_one_pass_after_the_gradient(monkeypatch):
    passes = PassCounter(monkeypatch)
    x = paddle.to_tensor(rng.standard_normal(4))
    H = Hessian(lambda x: (paddle.tanh(x) ** 3).sum(), x)
    assert passes.take() == 1      # the gradient, once (Paddle's "partially lazy")
    H[0]
    assert passes.take() == 1      # one second-order pass per row
    H[3]
    assert passes.take() == 1
    H[:]
    assert passes.take() == 2


def test_functional_jacobian_shares_rows_between_inputs(monkeypatch):
    x1 = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    x2 = paddle.to_tensor([0.5, -1.0, 2.0], stop_gradient=False)
    y = x1 * x2 + x1
    passes = PassCounter(monkeypatch)
    J1, J2 = jacobian(y, (x1, x2))
    np.testing.assert_allclose(J1[1].numpy(), [0, 0.0, 0])
    assert passes.take() == 1
    np.testing.assert_allclose(J2[1].numpy(), [0, 2.0, 0])
    assert passes.take() == 0      # row 1 already computed for both inputs
    np.testing.assert_allclose(J1[:].numpy(), np.diag(x2.numpy() + 1))
    np.testing.assert_allclose(J2[:].numpy(), np.diag(x1.numpy()))


def test_static_rows_are_built_once():
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main):
            x = static.data('x', [3], 'float64')
            J = Jacobian(lambda x: paddle.tanh(x) * x, x)
            n0 = len(main.global_block().ops)
            J[0]
            n1 = len(main.global_block().ops)
            J[0]
            assert len(main.global_block().ops) == n1 > n0
            J[:]
            n2 = len(main.global_block().ops)
            assert n2 > n1
            J[:, 1]
            assert len(main.global_block().ops) - n2 <= 3     # a stack + slice, no grads
    finally:
        paddle.disable_static()


# ---- framework.autograd.jacobian / hessian (Paddle 2.5 API) -------------------------------

def test_autograd_jacobian_shapes_follow_paddle():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    s = paddle.to_tensor(2.0, stop_gradient=False)
    assert jacobian(x * 2.0, x).shape == [3, 3]
    J = jacobian((x * x).sum(), x)          # 0-D ys: [N]
    assert J.shape == [3]
    np.testing.assert_allclose(J[:].numpy(), [2, 4, 6])
    np.testing.assert_allclose(J[1].numpy(), 4)
    J = jacobian(x * s, s)                  # 0-D xs: [M]
    assert J.shape == [3]
    np.testing.assert_allclose(J[:].numpy(), [1, 2, 3])
    J = jacobian(s * s, s)
    assert J.shape == []
    np.testing.assert_allclose(J[...].numpy(), 4.0)
    np.testing.assert_allclose((J + 1.0).numpy(), 5.0)   # evaluated on arithmetic
    ys = jacobian((x * 2.0, x.sum()), x)
    assert isinstance(ys, tuple) and [j.shape for j in ys] == [[3, 3], [3]]
    nested = jacobian((x * 2.0, x * s), (x, s))
    assert [[j.shape for j in r] for r in nested] == [[[3, 3], [3]], [[3, 3], [3]]]
    np.testing.assert_allclose(nested[1][0][:].numpy(), 2 * np.eye(3))


def test_autograd_jacobian_batched():
    xb = paddle.to_tensor(rng.standard_normal((4, 3)), stop_gradient=False)
    y = paddle.tanh(xb)[:, :2] * 3.0
    J = jacobian(y, xb, batch_axis=0)
    assert J.shape == [4, 2, 3]
    d = 3 * (1 - np.tanh(xb.numpy()) ** 2)
    expect = np.zeros((4, 2, 3))
    expect[:, 0, 0], expect[:, 1, 1] = d[:, 0], d[:, 1]
    np.testing.assert_allclose(J[:].numpy(), expect, rtol=1e-12)
    np.testing.assert_allclose(J[:, 1, :].numpy(), expect[:, 1, :], rtol=1e-12)
    J1 = jacobian(y.sum(axis=1), xb, batch_axis=0)      # [B] ys: [B, N]
    assert J1.shape == [4, 3]
    np.testing.assert_allclose(J1[:].numpy(), expect.sum(axis=1), rtol=1e-12)


def test_autograd_hessian_blocks():
    x1 = paddle.to_tensor([1.0, 2.0], dtype='float64', stop_gradient=False)
    x2 = paddle.to_tensor([0.5, 1.5, -1.0], dtype='float64', stop_gradient=False)
    y = (x1 ** 3).sum() * x2.sum() + (x2 ** 2).sum()
    H = hessian(y, (x1, x2))
    assert [[h.shape for h in r] for r in H] == [[[2, 2], [2, 3]], [[3, 2], [3, 3]]]
    s2 = x2.numpy().sum()
    np.testing.assert_allclose(H[0][0][:].numpy(), np.diag(6 * x1.numpy() * s2))
    np.testing.assert_allclose(H[0][1][:].numpy(), np.tile(3 * x1.numpy()[:, None] ** 2, 3))
    np.testing.assert_allclose(H[1][0][:].numpy(), H[0][1][:].numpy().T)
    np.testing.assert_allclose(H[1][1][:].numpy(), 2 * np.eye(3))
    Hb = hessian((paddle.tanh(x2.reshape([3, 1])) ** 2).sum(axis=1),
                 x2.reshape([3, 1]), batch_axis=0)
    assert Hb.shape == [3, 1, 1]


@pytest.mark.parametrize('mode', MODES)
def test_autograd_jacobian_and_hessian_in_every_mode(mode):
    xv = rng.uniform(0.5, 1.5, 3)

    def build(x):
        x.stop_gradient = False
        y = paddle.exp(x) * x.sum()
        J = jacobian(y, x)
        H = hessian((x ** 3).sum() * x[0], x)
        return [J[:], H[:]]
    J, H = run(mode, build, xv)
    e, s = np.exp(xv), xv.sum()
    np.testing.assert_allclose(J, np.diag(e * s) + e[:, None], rtol=1e-10)
    expect = np.diag(6 * xv * xv[0])
    expect[0, :] += 3 * xv ** 2
    expect[:, 0] += 3 * xv ** 2
    np.testing.assert_allclose(H, expect, rtol=1e-10)


def test_results_stay_differentiable_for_nesting():
    # gradient of a Jacobian entry with respect to the (differentiable) input
    x = paddle.to_tensor([0.3, -0.4], dtype='float64', stop_gradient=False)
    J = Jacobian(lambda x: paddle.tanh(x) * 2.0, x)
    g, = paddle.grad(J[:].sum(), x)
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(g.numpy(), 2 * (-2 * t * (1 - t * t)), rtol=1e-12)
    # a Jacobian of a Jacobian is the Hessian
    f = lambda x: (x ** 3).sum() * x[0]  # noqa: E731
    outer = Jacobian(lambda x: Jacobian(f, x)[0], x)
    np.testing.assert_allclose(outer[:].numpy(), Hessian(f, x)[:].numpy(), rtol=1e-12)
    # the caller's graph is not affected: x gets no .grad from Jacobian evaluation
    assert x.grad is None


def test_derivatives_are_recorded_even_under_no_grad():
    x = paddle.to_tensor([0.5, 1.0], dtype='float64')
    with paddle.no_grad():
        J = Jacobian(lambda x: x ** 2, x)
        _, t = jvp(lambda x: x ** 3, x)
        H = Hessian(lambda x: (x ** 3).sum(), x)
        np.testing.assert_allclose(J[:].numpy(), np.diag([1.0, 2.0]))
        np.testing.assert_allclose(t.numpy(), [0.75, 3.0])
        np.testing.assert_allclose(H[1].numpy(), [0.0, 6.0])
    xg = paddle.to_tensor([0.5, 1.0], dtype='float64', stop_gradient=False)
    y = xg ** 2
    with paddle.no_grad():
        np.testing.assert_allclose(jacobian(y, xg)[:].numpy(), np.diag([1.0, 2.0]))


def test_forward_grad_on_computed_outputs():
    x = paddle.to_tensor([0.2, 0.9], dtype='float64', stop_gradient=False)
    y = paddle.sin(x) * x
    t = forward_grad(y, x, paddle.to_tensor([1.0, 2.0], dtype='float64'))
    xv = x.numpy()
    np.testing.assert_allclose(t.numpy(), (np.cos(xv) * xv + np.sin(xv)) * [1, 2], rtol=1e-12)


# ---- errors -----------------------------------------------------------------------------

def test_clear_errors():
    x = paddle.to_tensor([1.0, 2.0])
    with pytest.raises(ValueError, match=r"v\[0\] has shape \[3\]"):
        jvp(lambda x: x * 2.0, x, paddle.ones([3]))
    with pytest.raises(ValueError, match="v has 2 tensor"):
        vjp(lambda x: x * 2.0, x, [paddle.ones([2]), paddle.ones([2])])
    with pytest.raises(TypeError, match="'xs' must be a Tensor"):
        vjp(lambda x: x, [1.0, 2.0])
    with pytest.raises(TypeError, match="callable"):
        Jacobian(3, x)
    with pytest.raises(ValueError, match="single element"):
        Hessian(lambda x: x * 2.0, x)[:]
    J = Jacobian(lambda x: x * 2.0, x)
    with pytest.raises(IndexError, match="out of range"):
        J[5]
    with pytest.raises(IndexError, match="too many indices"):
        J[0, 0, 0]
    with pytest.raises(TypeError, match="only integers, slices"):
        J[[0, 1]]
    xg = paddle.to_tensor(np.ones((2, 2)), stop_gradient=False)
    with pytest.raises(ValueError, match="1-D"):
        jacobian(xg * 2.0, xg)
    with pytest.raises(ValueError, match="batch_axis must be None or 0"):
        jacobian(xg * 2.0, xg, batch_axis=1)
    with pytest.raises(ValueError, match="one element"):
        hessian(xg[0] * 2.0, xg[0])
    with pytest.raises(ValueError, match="stop_gradient=True"):
        jacobian(x * 2.0, x)


def test_framework_grad_on_static_variables():
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main):
            x = static.data('x', [2], 'float64')
            y = static.data('y', [2], 'float64')
            z = (x ** 3).sum()
            g, = paddle.grad(z, x, create_graph=True)
            gg, = paddle.grad([g], [x], [paddle.ones_like(g)])
            with pytest.raises(RuntimeError, match="not used"):
                paddle.grad(z, [x, y])
            gx, gy = paddle.grad(z, [x, y], allow_unused=True)
            assert gy is None
        exe = static.Executor()
        r = exe.run(main, feed={'x': np.array([1.0, 2.0]), 'y': np.zeros(2)},
                    fetch_list=[g, gg])
        np.testing.assert_allclose(r[0], [3, 12])
        np.testing.assert_allclose(r[1], [6, 12])
    finally:
        paddle.disable_static()


# ---- forward mode through every registered op ------------------------------------------------

# jvp is a double vjp: cases declaring no grad-of-grad (double_grad=False: a
# user's backward function, as static.py_func) have no forward mode either, nor
# do ops whose gradient is an error (grad_error)
JVP_CASES = [(name, k) for name, op in sorted(registry.all_ops().items()) if op.differentiable
             for k, (args, opts) in enumerate(op.test_cases)
             if opts.get('grad', True) and opts.get('double_grad', True)
             and not opts.get('grad_error') and op_check.float_inputs(op, args)]


def _tangents(paths, opts, rng):
    """Random tangents (complex for complex inputs, symmetric for inputs the case
    marks symmetric)."""
    sym = opts.get('symmetric', ())
    ts = [op_check.random_like(a, rng) for _, a in paths]
    return [op_check.symmetric_part(t) if p[0] in sym else t for (p, _), t in zip(paths, ts)]


def _op_jvp_inputs(op, args, opts):
    idx = opts.get('grad_inputs', op_check.float_inputs(op, args))
    return idx, list(op_check._perturbable(op, args, idx))


def _op_func(op, args, paths):
    """func(*xs) running the op with the perturbable inputs replaced by xs."""
    def func(*xs):
        ins = op_check.to_tensors(op, args, ())
        for (i, j), x in zip([p for p, _ in paths], xs):
            if j is None:
                ins[i] = x
            else:
                ins[i] = list(ins[i])
                ins[i][j] = x
        paddle.seed(1234)
        out = op(*ins, *args[op.n_in:])
        return tuple(out) if isinstance(out, (tuple, list)) else out
    return func


def _diff_outputs(op, outs, only=None):
    names = op.output_names * len(outs) if op.variadic_out else op.output_names
    return [k for k, (n, o) in enumerate(zip(names, outs))
            if n not in op.nondiff_outputs and np.asarray(o).dtype.kind in 'fc'
            and (only is None or k in only)]


@pytest.mark.parametrize('name,k', JVP_CASES)
def test_jvp_through_every_op_matches_directional_finite_differences(name, k):
    """Forward mode (double vjp) must be exact for every differentiable op: the
    grad rules must be differentiable in the cotangent too, not only in x."""
    op = registry.lookup(name)
    args, opts = op.test_cases[k]
    idx, paths = _op_jvp_inputs(op, args, opts)
    tangents = _tangents(paths, opts, np.random.default_rng(5))
    func = _op_func(op, args, paths)
    xs = [paddle.to_tensor(a) for _, a in paths]
    outs, t = jvp(func, xs, [paddle.to_tensor(v) for v in tangents])
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    t = list(t) if isinstance(t, tuple) else [t]

    def kernel_at(sign, eps=1e-6):
        a = list(args)
        for (path, arr), v in zip(paths, tangents):
            a = op_check._replace(a, path, arr + sign * eps * v)
        paddle.seed(1234)
        return op_check.as_list(op.kernel(*a))
    plus, minus = kernel_at(1), kernel_at(-1)
    rtol, atol = opts.get('grad_rtol', 1e-4), opts.get('grad_atol', 1e-5)
    for i in _diff_outputs(op, [o.numpy() for o in outs], opts.get('grad_outputs')):
        wide = np.result_type(plus[i], np.float64)
        num = (np.asarray(plus[i], wide) - np.asarray(minus[i], wide)) / 2e-6
        np.testing.assert_allclose(t[i].numpy(), num, rtol=rtol, atol=atol,
                                   err_msg="jvp of op %s, output %d" % (name, i))


STATIC_JVP_OPS = ('matmul', 'softmax', 'layer_norm', 'conv2d', 'tanh', 'exp', 'log',
                  'elementwise_pow', 'multiply', 'divide', 'sum', 'mean', 'concat', 'slice')


@pytest.mark.parametrize('name', [n for n in STATIC_JVP_OPS if registry.has_op(n)])
def test_static_jvp_through_ops_matches_eager(name):
    op = registry.lookup(name)
    cases = [k for n, k in JVP_CASES if n == name]
    if not cases:
        pytest.skip('no differentiable float case')
    args, opts = op.test_cases[cases[0]]
    idx, paths = _op_jvp_inputs(op, args, opts)
    if any(j is not None for (_, j), _ in paths):
        pytest.skip('variadic input')
    tangents = _tangents(paths, opts, np.random.default_rng(5))
    func = _op_func(op, args, paths)
    xs = [paddle.to_tensor(a) for _, a in paths]
    _, te = jvp(func, xs, [paddle.to_tensor(v) for v in tangents])
    te = list(te) if isinstance(te, tuple) else [te]
    keep = _diff_outputs(op, [v.numpy() for v in te], opts.get('grad_outputs'))

    def build(*vals):
        n = len(paths)
        _, t = jvp(func, list(vals[:n]), list(vals[n:]))
        t = list(t) if isinstance(t, tuple) else [t]
        return [t[i] for i in keep]
    got = run('static', build, *[a for _, a in paths], *tangents)
    for g, i in zip(got, keep):
        np.testing.assert_allclose(g, te[i].numpy(), rtol=1e-10, atol=1e-12)


def test_detach_stops_gradients_in_static_programs_and_to_static():
    # core fix: static backward ignored Variable.detach()
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main):
            x = static.data('x', [2], 'float64')
            g, = paddle.grad((x.detach() * x).sum(), x)
        r, = static.Executor().run(main.clone(), feed={'x': np.array([1.0, 3.0])},
                                   fetch_list=[g.name])
        np.testing.assert_allclose(r, [1.0, 3.0])
    finally:
        paddle.disable_static()

    @paddle.jit.to_static
    def f(x):
        return (x.detach() * x * x).sum()
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    f(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 8.0])
