"""framework.autograd.PyLayer: custom forward/backward in eager mode (first
and higher order), under @to_static, and in static Programs."""
import numpy as np
import pytest

import framework as paddle
from framework import nn, static
from framework.autograd import PyLayer, PyLayerContext


def T(v, grad=True, dtype='float64'):
    return paddle.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


class Cube(PyLayer):
    """x**3 with a backward made of framework ops (so it is differentiable)."""
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, dy):
        x, = ctx.saved_tensor()
        return dy * 3.0 * x ** 2


class CusTanh(PyLayer):
    """Paddle's documented example: saves the OUTPUT for backward."""
    @staticmethod
    def forward(ctx, x):
        y = paddle.tanh(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        y, = ctx.saved_tensor()
        return dy * (1 - paddle.square(y))


class RoundSTE(PyLayer):
    """Straight-through rounding: the custom gradient is NOT the true one."""
    @staticmethod
    def forward(ctx, x, scale=1.0):
        ctx.scale = scale
        return paddle.round(x)

    @staticmethod
    def backward(ctx, dy):
        return dy * ctx.scale


class MulAdd(PyLayer):
    """Two tensor inputs (one by keyword), a Python argument, two outputs."""
    @staticmethod
    def forward(ctx, a, k, b=None):
        ctx.save_for_backward(a, b)
        ctx.k = k
        return a * b * k, a + b

    @staticmethod
    def backward(ctx, d1, d2):
        a, b = ctx.saved_tensor()
        return d1 * b * ctx.k + d2, d1 * a * ctx.k + d2


# ---- eager ---------------------------------------------------------------------------

def test_custom_backward_is_used():
    x = T([0.4, 1.6, -2.2])
    y = RoundSTE.apply(x, scale=0.5)
    np.testing.assert_array_equal(y.numpy(), [0, 2, -2])
    assert not y.stop_gradient
    (y * T([1.0, 2.0, 3.0], grad=False)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 1.0, 1.5])
    assert 'py_layer:RoundSTE' in repr(y.grad_fn)


def test_several_inputs_outputs_and_keyword_tensors():
    a, b = T([1.0, 2.0]), T([3.0, -1.0])
    p, s = MulAdd.apply(a, 2.0, b=b)
    np.testing.assert_allclose(p.numpy(), [6.0, -4.0])
    np.testing.assert_allclose(s.numpy(), [4.0, 1.0])
    ga, gb = paddle.grad([p.sum(), (s * s).sum()], [a, b])
    np.testing.assert_allclose(ga.numpy(), 2 * b.numpy() + 2 * s.numpy())
    np.testing.assert_allclose(gb.numpy(), 2 * a.numpy() + 2 * s.numpy())


def test_only_inputs_that_need_grad_receive_it():
    a, b = T([1.0, 2.0]), T([3.0, 4.0], grad=False)
    p, _ = MulAdd.apply(a, 1.0, b=b)
    p.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])
    assert b.grad is None
    c, d = T([1.0], grad=False), T([2.0], grad=False)
    out, _ = MulAdd.apply(c, 1.0, b=d)
    assert out.stop_gradient          # nothing to differentiate: no grad node


def test_unused_output_gets_zero_gradient():
    seen = {}

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 2.0, x * 3.0

        @staticmethod
        def backward(ctx, d1, d2):
            seen['d2'] = d2.numpy()
            return d1 * 2.0 + d2 * 3.0
    x = T([1.0, 2.0])
    y1, y2 = Two.apply(x)
    y1.sum().backward()
    np.testing.assert_array_equal(seen['d2'], [0.0, 0.0])
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])


def test_double_grad_through_a_backward_written_with_framework_ops():
    x = T([0.5, -1.5, 2.0])
    y = Cube.apply(x)
    g, = paddle.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    assert not g.stop_gradient
    gg, = paddle.grad(g.sum(), x, create_graph=True)
    np.testing.assert_allclose(gg.numpy(), 6 * x.numpy())
    ggg, = paddle.grad(gg.sum(), x)
    np.testing.assert_allclose(ggg.numpy(), [6.0, 6.0, 6.0])


def test_double_grad_through_a_saved_output():
    # y = tanh(x) is saved; d/dx of the first derivative must go through y
    x = T([0.3, -0.8])
    y = CusTanh.apply(x)
    g, = paddle.grad(y.sum(), x, create_graph=True)
    gg, = paddle.grad(g.sum(), x)
    t = np.tanh(x.numpy())
    np.testing.assert_allclose(g.numpy(), 1 - t * t, rtol=1e-12)
    np.testing.assert_allclose(gg.numpy(), -2 * t * (1 - t * t), rtol=1e-12)


def test_hessian_and_jvp_through_pylayer():
    from framework.incubate.autograd import Hessian, jvp
    x = T([0.5, 2.0], grad=False)
    H = Hessian(lambda x: Cube.apply(x).sum(), x)
    np.testing.assert_allclose(H[:].numpy(), np.diag(6 * x.numpy()))
    _, t = jvp(lambda x: Cube.apply(x), x, T([1.0, -1.0], grad=False))
    np.testing.assert_allclose(t.numpy(), 3 * x.numpy() ** 2 * [1, -1])


def test_non_differentiable_outputs():
    class ArgmaxAndMax(PyLayer):
        @staticmethod
        def forward(ctx, x):
            idx = paddle.argmax(x)
            m = paddle.max(x)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return m, idx

        @staticmethod
        def backward(ctx, dm, didx):
            x, idx = ctx.saved_tensor()
            assert float(didx.numpy().sum()) == 0.0
            return paddle.nn.functional.one_hot(idx, x.shape[0]).astype(x.dtype) * dm
    x = T([1.0, 5.0, 2.0])
    m, idx = ArgmaxAndMax.apply(x)
    assert idx.stop_gradient and not m.stop_gradient
    m.backward()
    np.testing.assert_allclose(x.grad.numpy(), [0, 1, 0])


def test_context_holds_attributes_and_saved_tensor_defaults_to_none():
    ctx = PyLayerContext()
    assert ctx.saved_tensor() is None
    ctx.anything = 3
    assert ctx.anything == 3


def test_backward_twice_needs_retain_graph():
    x = T([1.0, 2.0])
    y = Cube.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * 3 * x.numpy() ** 2)
    z = Cube.apply(x).sum()
    z.backward()
    with pytest.raises(RuntimeError, match="second time"):
        z.backward()


def test_clear_errors():
    class WrongCount(PyLayer):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, d):
            return d
    with pytest.raises(ValueError, match="returned 1 gradient.*2 Tensor input"):
        WrongCount.apply(T([1.0]), T([2.0])).backward()

    class WrongShape(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x.sum()

        @staticmethod
        def backward(ctx, d):
            return d
    with pytest.raises(ValueError, match=r"gradient 0 has shape \[\] but the input has "
                                         r"shape \[2\]"):
        WrongShape.apply(T([1.0, 2.0])).backward()

    class NoBackward(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x
    with pytest.raises(NotImplementedError, match="backward"):
        NoBackward.apply(T([1.0]))

    with pytest.raises(TypeError, match="inside a list"):
        Cube.apply([T([1.0])])

    class UserError(PyLayer):
        @staticmethod
        def forward(ctx, x):
            raise KeyError('from the user')

        @staticmethod
        def backward(ctx, d):
            return d
    with pytest.raises(KeyError, match='from the user'):    # not rewrapped
        UserError.apply(T([1.0]))


# ---- @to_static --------------------------------------------------------------------

def test_to_static_uses_the_custom_backward():
    @paddle.jit.to_static
    def f(x):
        return (RoundSTE.apply(x, 0.5) * 2.0).sum()
    x = T([0.4, 1.6])
    loss = f(x)
    np.testing.assert_allclose(loss.numpy(), 4.0)
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    prog = f.concrete_program.main_program
    assert 'py_layer' in [op.type for op in prog.global_block().ops]


def test_to_static_double_grad_inside_the_function():
    @paddle.jit.to_static
    def f(x):
        y = Cube.apply(x)
        g, = paddle.grad(y.sum(), x, create_graph=True)
        gg, = paddle.grad(g.sum(), x, create_graph=True)
        return g, gg
    x = T([0.5, -2.0])
    g, gg = f(x)
    np.testing.assert_allclose(g.numpy(), 3 * x.numpy() ** 2)
    np.testing.assert_allclose(gg.numpy(), 6 * x.numpy())
    gg.sum().backward()                     # third order, through the program's backward
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


class ScaledLinear(PyLayer):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return paddle.matmul(x, w)

    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensor()
        # deliberately scaled weight gradient, to see the custom rule in action
        return paddle.matmul(dy, w, transpose_y=True), 0.5 * paddle.matmul(x, dy, transpose_x=True)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3, 2], dtype='float64')

    def forward(self, x):
        h = ScaledLinear.apply(x, self.w)
        if h.sum() > 0:                  # tensor condition: becomes a cond op
            h = h * 2.0
        return paddle.tanh(h).sum()


def test_layer_with_pylayer_trains_the_same_eagerly_and_under_to_static():
    paddle.seed(3)
    net = Net()
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((4, 3)))
    loss = net(x)
    loss.backward()
    g_eager = net.w.grad.numpy()
    net.clear_gradients()
    snet = paddle.jit.to_static(net)
    loss_s = snet(x)
    loss_s.backward()
    np.testing.assert_allclose(loss_s.numpy(), loss.numpy(), rtol=1e-12)
    np.testing.assert_allclose(net.w.grad.numpy(), g_eager, rtol=1e-12)
    # the custom rule (half the true weight gradient) was used in both modes
    w = paddle.to_tensor(net.w.numpy(), stop_gradient=False)
    h = paddle.matmul(x, w)
    true, = paddle.grad(paddle.tanh(h * (2.0 if h.sum().item() > 0 else 1.0)).sum(), w)
    np.testing.assert_allclose(g_eager, 0.5 * true.numpy(), rtol=1e-12)


def test_python_control_flow_in_forward_is_converted():
    class SignDependent(PyLayer):
        @staticmethod
        def forward(ctx, x):
            if x.sum() > 0:
                y = x * 2.0
            else:
                y = x * -1.0
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, dy):
            return dy * 10.0

    @paddle.jit.to_static
    def f(x):
        return SignDependent.apply(x).sum()
    for v, expect in (([1.0, 2.0], 6.0), ([-1.0, -2.0], 3.0)):
        x = T(v)
        out = f(x)
        np.testing.assert_allclose(out.numpy(), expect)
        out.backward()
        np.testing.assert_allclose(x.grad.numpy(), [10.0, 10.0])
    assert len(f.program_cache) == 1


# ---- static Programs -----------------------------------------------------------------


def test_static_program_uses_custom_backward_and_double_grad(static_mode):
    main = static.Program()
    with static.program_guard(main):
        x = static.data('x', [3], 'float64')
        y = Cube.apply(x)
        r = RoundSTE.apply(x, 0.25)
        g, = static.gradients([y.sum()], [x])
        gg, = static.gradients([g.sum()], [x])
        gr, = static.gradients([r.sum()], [x])
        t = CusTanh.apply(x)
        gt, = paddle.grad(t.sum(), x, create_graph=True)
        ggt, = paddle.grad(gt.sum(), x)
    exe = static.Executor()
    xv = np.array([0.4, -1.3, 2.2])
    res = exe.run(main, feed={'x': xv}, fetch_list=[y, g, gg, r, gr, gt, ggt])
    th = np.tanh(xv)
    for got, want in zip(res, [xv ** 3, 3 * xv ** 2, 6 * xv, np.round(xv), [0.25] * 3,
                               1 - th ** 2, -2 * th * (1 - th ** 2)]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_static_training_with_append_backward(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [4, 3], 'float64')
        w = static.create_parameter([3, 2], 'float64', name='w_pl')
        loss = paddle.tanh(ScaledLinear.apply(x, w)).sum()
        pairs = static.append_backward(loss)
    assert [p.name for p, _ in pairs] == ['w_pl']
    exe = static.Executor()
    exe.run(startup)
    xv = np.random.default_rng(1).standard_normal((4, 3))
    wv, gw = exe.run(main, feed={'x': xv}, fetch_list=['w_pl', pairs[0][1]])
    h = xv @ wv
    np.testing.assert_allclose(gw, 0.5 * xv.T @ (1 - np.tanh(h) ** 2), rtol=1e-12)


def test_static_program_forward_survives_a_json_round_trip(static_mode):
    main = static.Program()
    with static.program_guard(main):
        x = static.data('x', [2], 'float64')
        y = Cube.apply(x) + 1.0
    clone = main.clone()
    xv = np.array([1.5, -0.5])
    out, = static.Executor().run(clone, feed={'x': xv}, fetch_list=[y.name])
    np.testing.assert_allclose(out, xv ** 3 + 1.0)


# ---- ctx.set_materialize_grads / set_grad_in_dtype_consistent -------------------------

def _two_outputs(materialize):
    seen = []

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 3, x * 2

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append(g2)
            return g1 * 3
    return Two, seen


@pytest.mark.parametrize('create_graph', [False, True])
def test_unused_output_gets_zeros_unless_materialize_grads_is_off(create_graph):
    for materialize in (True, False):
        Two, seen = _two_outputs(materialize)
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        loss = Two.apply(x)[0].sum()
        (gx,) = paddle.grad([loss], [x], create_graph=create_graph)
        np.testing.assert_array_equal(gx.numpy(), [3.0, 3.0])
        if materialize:
            np.testing.assert_array_equal(seen[0].numpy(), [0.0, 0.0])
        else:
            assert seen == [None]


def test_grads_reach_backward_in_the_output_dtype_unless_told_otherwise():
    seen = []

    def layer(consistent):
        class Tanh(PyLayer):
            @staticmethod
            def forward(ctx, x):
                ctx.set_grad_in_dtype_consistent(consistent)
                return paddle.tanh(x)

            @staticmethod
            def backward(ctx, dy):
                seen.append(dy.dtype)
                return dy
        return Tanh

    class HalfGrad(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, dy):
            return paddle.cast(dy, 'float16')

    for consistent in (True, False):
        x = paddle.randn([2, 2])
        x.stop_gradient = False
        HalfGrad.apply(layer(consistent).apply(x)).sum().backward()
    assert seen == [paddle.float32, paddle.float16]
