"""Lean kernel calls in generated code (graph/lean.py).

Where the Program's dtypes and shapes prove what a kernel would check, the
generated code calls numpy itself. Each specialised op must give exactly the
general kernel's values (and aliasing: split and getitem stay views), in
float32 and float64, for batch 1, non-contiguous feeds and gradients, and fall
back to the kernel where the proof is missing (half precision, integers,
unknown sizes, tensor indices).
"""
import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.ops import fused

F = paddle.nn.functional


pytestmark = pytest.mark.usefixtures('static_mode')   # (tests/conftest.py)


def strategy(lean):
    bs = static.BuildStrategy()
    bs.specialize_kernels = lean
    return bs


def build(fn, *feeds):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        vs = [static.data(n, s, d) for n, s, d in feeds]
        out = fn(*vs)
    return main, (list(out) if isinstance(out, (list, tuple)) else [out])


def plan(main, feed, fetch, lean=True):
    exe = static.Executor()
    names = tuple(f.name for f in fetch)
    return exe._plan(main, tuple(sorted(feed)), names, strategy(lean))


def run(main, feed, fetch, lean):
    exe = static.Executor()
    return exe.run(static.CompiledProgram(main, build_strategy=strategy(lean)),
                   feed=feed, fetch_list=fetch)


def same_as_general(main, feed, fetch):
    """Values with lean calls equal the general kernels' exactly (and dtypes)."""
    got = run(main, feed, fetch, True)
    want = run(main, feed, fetch, False)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    return got


def rng_array(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def kernel_globals(p):
    return p.fn.__globals__


# ---- elementwise and products --------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('batch', [1, 5])
def test_lstm_like_cell_equals_general_kernels(dtype, batch):
    def fn(x, h, w, b):
        z = paddle.matmul(paddle.concat([x, h], 1), w) + b
        i, f, g, o = paddle.split(z, 4, axis=1)
        c = F.sigmoid(f) * h + F.sigmoid(i) * paddle.tanh(g)
        return F.sigmoid(o) * paddle.tanh(c), c
    main, outs = build(fn, ('x', [batch, 3], dtype), ('h', [batch, 2], dtype),
                       ('w', [5, 8], dtype), ('b', [8], dtype))
    feed = {'x': rng_array((batch, 3), dtype), 'h': rng_array((batch, 2), dtype, 1),
            'w': rng_array((5, 8), dtype, 2), 'b': rng_array((8,), dtype, 3)}
    got = same_as_general(main, feed, outs)
    x, h, w, b = feed['x'], feed['h'], feed['w'], feed['b']
    z = np.concatenate([x, h], 1) @ w + b
    sig = lambda v: 1 / (1 + np.exp(-v))  # noqa: E731
    c = sig(z[:, 2:4]) * h + sig(z[:, :2]) * np.tanh(z[:, 4:6])
    np.testing.assert_allclose(got[1], c, rtol=1e-6)
    np.testing.assert_allclose(got[0], sig(z[:, 6:]) * np.tanh(c), rtol=1e-6)
    glb = kernel_globals(plan(main, feed, outs))
    assert glb['k_concat'] is np.concatenate
    src = plan(main, feed, outs).source
    assert 'k_split(' not in src and "[:, 0:2]" in src
    assert 'k_split(' in plan(main, feed, outs, lean=False).source


def test_matmul_transposes_and_bias_fusion_are_numpy_calls():
    def fn(x, w, b):
        y = F.relu(paddle.matmul(x, w, transpose_y=True) + b)
        z = paddle.matmul(y, w)                       # read twice below: a plain matmul
        return paddle.tanh(paddle.matmul(z, w, transpose_y=True)), z * 2.0 + z, y
    main, outs = build(fn, ('x', [None, 4], 'float32'), ('w', [4, 4], 'float32'),
                       ('b', [4], 'float32'))
    feed = {'x': rng_array((3, 4), 'float32'), 'w': rng_array((4, 4), 'float32', 1),
            'b': rng_array((4,), 'float32', 2)}
    same_as_general(main, feed, outs)
    p = plan(main, feed, outs)
    assert kernel_globals(p)['k_fused_matmul_bias_act'] is np.matmul
    assert '.T)' in p.source and 'out=' in p.source


def test_non_contiguous_and_strided_feeds():
    def fn(x, w):
        return paddle.tanh(paddle.matmul(x, w)) * x.sum() + paddle.exp(x)[:, :3].sum()
    main, outs = build(fn, ('x', [4, 4], 'float64'), ('w', [4, 4], 'float64'))
    big = rng_array((8, 8), 'float64')
    feed = {'x': big[::2, ::2], 'w': rng_array((4, 4), 'float64', 1).T}
    assert not feed['x'].flags.c_contiguous
    same_as_general(main, feed, outs)


def test_half_precision_and_integer_inputs_take_the_kernels():
    def fn(a, b, n):
        return paddle.matmul(a, b), paddle.tanh(n), F.sigmoid(a)
    main, outs = build(fn, ('a', [2, 3], 'float16'), ('b', [3, 2], 'float16'),
                       ('n', [4], 'int32'))
    feed = {'a': rng_array((2, 3), 'float16'), 'b': rng_array((3, 2), 'float16', 1),
            'n': np.arange(4, dtype='int32')}
    got = same_as_general(main, feed, outs)
    assert got[0].dtype == np.float16 and got[1].dtype == np.float32
    glb = kernel_globals(plan(main, feed, outs))
    assert glb['k_matmul'] is not np.matmul              # float16 computes in float32
    assert glb['k_tanh'] is not np.tanh                  # int32 is computed as float32


def test_inplace_elementwise_writes_the_dying_buffer():
    def fn(x, y):
        t = paddle.exp(x) * y           # exp's result dies at the multiply
        return paddle.sin(t) - y
    main, outs = build(fn, ('x', [3, 4], 'float32'), ('y', [3, 4], 'float32'))
    feed = {'x': rng_array((3, 4), 'float32'), 'y': rng_array((3, 4), 'float32', 1)}
    same_as_general(main, feed, outs)
    bs = strategy(True)
    bs.fuse_elewise_add_act_ops = False
    exe = static.Executor()
    p = exe._plan(main, ('x', 'y'), (outs[0].name,), bs)
    assert 'out=' in p.source


def test_fused_elementwise_calls_its_compiled_function():
    def fn(x, v):
        return paddle.tanh(x * v + 1.0) * F.sigmoid(x)
    main, outs = build(fn, ('x', [3, 4], 'float32'), ('v', [4], 'float32'))
    feed = {'x': rng_array((3, 4), 'float32'), 'v': rng_array((4,), 'float32', 1)}
    same_as_general(main, feed, outs)
    p = plan(main, feed, outs)
    fns = [v for k, v in kernel_globals(p).items() if k.startswith('k_fused_elementwise')]
    assert fns and all(getattr(f, '__name__', '') == 'fused' for f in fns)


def test_fused_elementwise_all_float_form_equals_the_kernel_form():
    expr = (('sigmoid', (0,), ()), ('tanh', (1,), ()), ('multiply', (-1, -2), ()),
            ('divide', (-3, 2), ()), ('sqrt', (2,), ()), ('add', (-4, -5), ()))
    for dtype in ('float32', 'float64'):
        xs = [rng_array((3, 4), dtype, k) for k in range(2)] + [
            np.abs(rng_array((4,), dtype, 2)) + 0.5]
        general = fused.compiled_expr(expr, 3)(*[x.copy() for x in xs])
        lean = fused.compiled_expr(expr, 3, all_float=True)(*[x.copy() for x in xs])
        assert lean.dtype == general.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(lean, general)


def test_integer_fused_group_keeps_integer_kernels():
    def fn(n):
        return paddle.abs(n * 3 - 7) + n
    main, outs = build(fn, ('n', [5], 'int64'))
    feed = {'n': np.arange(-2, 3, dtype='int64')}
    got = same_as_general(main, feed, outs)
    np.testing.assert_array_equal(got[0], np.abs(feed['n'] * 3 - 7) + feed['n'])


# ---- shape ops -------------------------------------------------------------------------------

def test_split_of_unknown_size_and_sections_fall_back_or_slice():
    def fn(x, y):
        a, b = paddle.split(x, [1, -1], axis=0)           # unknown axis size: the kernel
        c, d, e = paddle.split(y, [2, -1, 1], axis=1)     # known: slices
        return a * 2.0, b + 1.0, c, d, e
    main, outs = build(fn, ('x', [None, 3], 'float32'), ('y', [2, 6], 'float32'))
    feed = {'x': rng_array((4, 3), 'float32'), 'y': rng_array((2, 6), 'float32', 1)}
    got = same_as_general(main, feed, outs)
    assert [o.shape for o in got[2:]] == [(2, 2), (2, 3), (2, 1)]
    src = plan(main, feed, outs).source
    assert src.count('k_split(') == 1 and '[:, 2:5]' in src


def test_getitem_constant_index_and_tensor_index():
    def fn(x, i):
        return x[1], x[:, 1:3], x[..., None, -1], x[i]
    main, outs = build(fn, ('x', [3, 4], 'float32'), ('i', [2], 'int64'))
    feed = {'x': rng_array((3, 4), 'float32'), 'i': np.array([2, 0], 'int64')}
    got = same_as_general(main, feed, outs)
    np.testing.assert_array_equal(got[3], feed['x'][[2, 0]])
    src = plan(main, feed, outs).source
    assert src.count('k_getitem(') == 1                   # only the tensor index


def test_zero_size_batch():
    def fn(x, w):
        z = paddle.matmul(x, w)
        a, b = paddle.split(z, 2, axis=1)
        return F.sigmoid(a) * paddle.tanh(b), paddle.concat([a, b], 0)
    main, outs = build(fn, ('x', [0, 3], 'float32'), ('w', [3, 4], 'float32'))
    feed = {'x': np.zeros((0, 3), 'float32'), 'w': rng_array((3, 4), 'float32')}
    got = same_as_general(main, feed, outs)
    assert got[0].shape == (0, 2) and got[1].shape == (0, 2)


# ---- gradients and errors ------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_gradients_equal_the_general_kernels(dtype):
    def fn(x, w, b):
        x.stop_gradient = w.stop_gradient = b.stop_gradient = False
        h = paddle.tanh(paddle.matmul(x, w) + b)
        i, j = paddle.split(h, 2, axis=1)
        loss = paddle.mean(F.sigmoid(i) * j)
        return [loss] + static.gradients([loss], [x, w, b])
    main, outs = build(fn, ('x', [3, 4], dtype), ('w', [4, 6], dtype), ('b', [6], dtype))
    feed = {'x': rng_array((3, 4), dtype), 'w': rng_array((4, 6), dtype, 1),
            'b': rng_array((6,), dtype, 2)}
    got = same_as_general(main, feed, outs)
    x, w, b = feed['x'], feed['w'], feed['b']
    h = np.tanh(x @ w + b)
    s = 1 / (1 + np.exp(-h[:, :3]))
    gi, gj = s * (1 - s) * h[:, 3:] / 9, s / 9
    gz = np.concatenate([gi, gj], 1) * (1 - h * h)
    tol = 1e-5 if dtype == 'float32' else 1e-12
    np.testing.assert_allclose(got[3], gz.sum(0), rtol=tol, atol=tol)
    np.testing.assert_allclose(got[2], x.T @ gz, rtol=tol, atol=tol)
    np.testing.assert_allclose(got[1], gz @ w.T, rtol=tol, atol=tol)
    src = plan(main, feed, outs).source
    assert 'k_reduce_as(' in src and kernel_globals(plan(main, feed, outs))[
        'k_reduce_as'] == np.add.reduce


def test_reduce_as_is_a_plain_sum_where_unknown_dims_are_the_same_by_name():
    """``x + mean(x, axis=0)`` with every size unknown: the grad's reduce_as to
    the mean's shape sums the leading axis only, because the symbolic shapes
    (the ops' own infer_meta on named dims) prove the trailing dims equal."""
    def fn(x):
        x.stop_gradient = False
        loss = paddle.sum(paddle.tanh(x + paddle.mean(x, axis=0)))
        return static.gradients([loss], [x])
    main, outs = build(fn, ('x', [None, None], 'float64'))
    feed = {'x': rng_array((5, 3), 'float64')}
    same_as_general(main, feed, outs)
    p = plan(main, feed, outs)
    assert kernel_globals(p).get('k_reduce_as') == np.add.reduce, p.source


def test_a_failing_lean_line_names_its_op():
    def fn(x, w):
        return paddle.matmul(x, w)
    main, outs = build(fn, ('x', [None, None], 'float32'), ('w', [4, 3], 'float32'))
    exe = static.Executor()
    with pytest.raises(Exception, match="op 'matmul' failed"):
        exe.run(main, feed={'x': np.ones((2, 5), 'float32'), 'w': np.ones((4, 3), 'float32')},
                fetch_list=outs)


def test_nan_inf_check_plans_call_the_kernels():
    def fn(x):
        return paddle.tanh(x) * 2.0
    main, outs = build(fn, ('x', [3], 'float32'))
    paddle.set_flags({'FLAGS_check_nan_inf': True})
    try:
        src = static.Executor().generated_code(main, ['x'], outs)
    finally:
        paddle.set_flags({'FLAGS_check_nan_inf': False})
    assert 'k_tanh(' in src and '_check_finite' in src


def test_to_static_training_step_with_and_without_lean_calls():
    paddle.disable_static()
    try:
        rng = np.random.default_rng(0)
        w0 = (rng.standard_normal((6, 8)) * 0.3).astype('float32')
        xs = rng.standard_normal((3, 2, 2)).astype('float32')

        class Cell(paddle.nn.Layer):
            def __init__(self):
                super().__init__()
                self.w = paddle.Parameter(w0.copy())

            def forward(self, xs):
                h = paddle.zeros([2, 4])
                for t in range(3):
                    z = paddle.matmul(paddle.concat([xs[t], h], 1), self.w)
                    a, b = paddle.split(z, 2, axis=1)
                    h = F.sigmoid(a) * paddle.tanh(b) + h * 0.5
                return h

        grads = []
        for lean in (True, False, None):
            net = Cell()
            if lean is not None:
                net = paddle.jit.to_static(net, build_strategy=strategy(lean))
            x = paddle.to_tensor(xs, stop_gradient=False)
            loss = (net(x) ** 2).sum()
            loss.backward()
            grads.append((float(loss), net.w.grad.numpy(), x.grad.numpy()))
        (l1, w1, x1), (l2, w2, x2), (le, we, xe) = grads
        assert l1 == l2
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(x1, x2)
        np.testing.assert_allclose(w1, we, rtol=1e-5, atol=1e-6)    # and eager agrees
        np.testing.assert_allclose(x1, xe, rtol=1e-5, atol=1e-6)
    finally:
        paddle.enable_static()


def test_fused_matmul_whose_bias_broadcasts_the_product_up_takes_the_kernel():
    from framework.ops import registry
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [1, 3], 'float32')
        w = static.data('w', [3, 4], 'float32')
        b = static.data('b', [2, 4], 'float32')
        out = main.global_block().create_var(name='out', shape=[2, 4], dtype='float32')
        main.global_block().append_op('fused_matmul_bias_act', {'x': [x.name], 'y': [w.name],
                                                               'bias': [b.name]},
                                      {'out': ['out']}, {'act': 'tanh'})
    assert registry.has_op('fused_matmul_bias_act')
    feed = {'x': rng_array((1, 3), 'float32'), 'w': rng_array((3, 4), 'float32', 1),
            'b': rng_array((2, 4), 'float32', 2)}
    got = same_as_general(main, feed, [out])
    np.testing.assert_allclose(got[0], np.tanh(feed['x'] @ feed['w'] + feed['b']), rtol=1e-6)
    assert np.matmul not in kernel_globals(plan(main, feed, [out])).values()
