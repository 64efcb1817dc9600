"""paddle.static.nn's layer-building functions (conv, norms, prelu, embedding,
bilinear product, spectral norm, row conv, nce), py_func and static_pylayer:
parameters as Paddle's old static mode creates them, values against numpy
references computed from the created parameters, and training gradients."""
import numpy as np
import pytest

import framework as paddle
from framework import static

rng = np.random.default_rng(7)


def run(build, feed, seed=None):
    """Build ``build(*data)`` in fresh programs, run startup and main; returns
    (outputs, {parameter name: value}, main program)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        data = [static.data(n, list(v.shape), str(v.dtype)) for n, v in feed.items()]
        outs = build(*data)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe = static.Executor()
    exe.run(startup)
    params = main.all_parameters()
    if seed is not None:
        paddle.seed(seed)
    got = exe.run(main, feed=feed, fetch_list=outs + params)
    return got[:len(outs)], dict(zip([p.name for p in params], got[len(outs):])), main


def conv_ref(x, w, stride=1, pad=0):
    """Plain NCHW cross-correlation with zero padding."""
    x = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.einsum('nchw,ochw->no', patch, w)
    return out


def test_conv2d_parameters_values_and_activation(static_mode):
    x = rng.standard_normal((2, 3, 6, 6)).astype('float32')
    (y,), params, main = run(lambda x: static.nn.conv2d(x, 4, 3, stride=2, padding=1,
                                                          act='relu'), {'x': x})
    b_name, w_name = sorted(params)
    w, b = params[w_name], params[b_name]
    # Paddle's LayerHelper names: conv2d_<n>.w_0 / conv2d_<n>.b_0
    assert w_name.startswith('conv2d_') and w_name.endswith('.w_0')
    assert b_name == w_name.replace('.w_0', '.b_0')
    assert w.shape == (4, 3, 3, 3) and b.shape == (4,)
    np.testing.assert_array_equal(b, 0)
    # Paddle's default filter: N(0, sqrt(2 / (3 * 3 * 3)))
    assert 0.1 < w.std() < 0.45
    ref = np.maximum(conv_ref(x, w, 2, 1) + b[:, None, None], 0)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)


def test_conv_groups_no_bias_nhwc_and_conv3d(static_mode):
    x = rng.standard_normal((1, 5, 5, 4)).astype('float32')
    (y,), params, _ = run(lambda x: static.nn.conv2d(x, 6, 3, groups=2, bias_attr=False,
                                                       data_format='NHWC'), {'x': x})
    w, = params.values()
    assert w.shape == (6, 2, 3, 3)
    xc = x.transpose(0, 3, 1, 2)
    ref = np.concatenate([conv_ref(xc[:, 2 * g:2 * g + 2], w[3 * g:3 * g + 3])
                          for g in range(2)], axis=1).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5)
    x3 = rng.standard_normal((1, 2, 3, 4, 4)).astype('float32')
    (y3,), params, _ = run(lambda x: static.nn.conv3d(x, 3, [1, 2, 2]), {'x': x3})
    w3 = next(v for k, v in params.items() if '.w_' in k)
    ref = np.stack([conv_ref(x3[:, :, d], w3[:, :, 0]) for d in range(3)], axis=2)
    np.testing.assert_allclose(y3, ref, rtol=1e-4, atol=1e-5)


def test_conv_transpose_filter_from_output_size_is_the_adjoint(static_mode):
    x = rng.standard_normal((2, 3, 4, 4)).astype('float32')
    (y,), params, _ = run(lambda x: static.nn.conv2d_transpose(x, 2, output_size=[9, 9],
                                                                 stride=2), {'x': x})
    w = next(v for k, v in params.items() if '.w_' in k)
    assert w.shape == (3, 2, 3, 3)          # (9 - 3 * 2 - 1) // 1 + 1 = 3
    assert y.shape == (2, 2, 9, 9)
    # <conv_transpose(x, w), z> == <x, conv(z, w)>
    z = rng.standard_normal(y.shape)
    np.testing.assert_allclose((y * z).sum(), (x * conv_ref(z, w, 2)).sum(),
                               rtol=1e-4)
    x3 = rng.standard_normal((1, 2, 2, 3, 3)).astype('float32')
    (y3,), _, _ = run(lambda x: static.nn.conv3d_transpose(x, 4, filter_size=2, stride=2),
                      {'x': x3})
    assert y3.shape == (1, 4, 4, 6, 6)
    with pytest.raises(ValueError, match='output_size must be set'):
        run(lambda x: static.nn.conv2d_transpose(x, 2), {'x': x})


def test_deform_conv2d_zero_offsets_is_conv_and_mask_scales(static_mode):
    x = rng.standard_normal((2, 4, 5, 5)).astype('float32')
    off = np.zeros((2, 18, 3, 3), 'float32')
    mask = np.full((2, 9, 3, 3), 0.5, 'float32')
    (y, ym), params, _ = run(lambda x, o, m: (
        static.nn.deform_conv2d(x, o, None, 3, 3, weight_attr=paddle.ParamAttr(name='dw')),
        static.nn.deform_conv2d(x, o, m, 3, 3, weight_attr=paddle.ParamAttr(name='dw2'),
                                bias_attr=False)), {'x': x, 'o': off, 'm': mask})
    w, w2 = params['dw'], params['dw2']
    assert w.shape == (3, 4, 3, 3) and len(params) == 3      # one bias only
    b = next(v for k, v in params.items() if k.startswith('deformable_conv_'))
    np.testing.assert_allclose(y, conv_ref(x, w) + b[:, None, None], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ym, 0.5 * conv_ref(x, w2), rtol=1e-4, atol=1e-5)
    # a whole-pixel offset moves every tap: dy = 1 everywhere samples row i + 1
    # (zeros below the last row)
    shift = np.zeros((2, 18, 3, 3), 'float32')
    shift[:, 0::2] = 1.0
    (ys,), params, _ = run(lambda x, o: static.nn.deform_conv2d(
        x, o, None, 3, 3, bias_attr=False), {'x': x, 'o': shift})
    w, = params.values()
    below = np.concatenate([x[:, :, 1:], np.zeros_like(x[:, :, :1])], axis=2)
    np.testing.assert_allclose(ys, conv_ref(below, w), rtol=1e-4, atol=1e-5)


def test_batch_norm_trains_its_moving_statistics(static_mode):
    x = rng.standard_normal((8, 3, 2, 2)).astype('float32') * 2 + 1
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data('x', [8, 3, 2, 2], 'float32')
        y = static.nn.batch_norm(xv, momentum=0.5, moving_mean_name='mm',
                                 moving_variance_name='mv')
        test_prog = main.clone(for_test=True)
    names = [(p.name, p.trainable) for p in main.all_parameters()]
    assert ('mm', False) in names and ('mv', False) in names
    assert sum(t for _, t in names) == 2
    exe = static.Executor()
    exe.run(startup)
    out, mm, mv = exe.run(main, feed={'x': x}, fetch_list=[y, 'mm', 'mv'])
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    ref = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mm, 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(mv, 0.5 + 0.5 * var, rtol=1e-5)
    # the inference clone normalises by the moving statistics and leaves them
    inf, = exe.run(test_prog, feed={'x': x}, fetch_list=[y])
    np.testing.assert_allclose(inf, (x - mm[:, None, None]) / np.sqrt(mv[:, None, None] + 1e-5),
                               rtol=1e-4, atol=1e-5)
    mm2 = np.asarray(static.global_scope().find_var('mm').get_tensor())
    np.testing.assert_allclose(mm2, mm)
    # is_test: the moving statistics normalise
    main2, startup2 = static.Program(), static.Program()
    with static.program_guard(main2, startup2):
        xv = static.data('x', [8, 3, 2, 2], 'float32')
        y2 = static.nn.batch_norm(xv, is_test=True, act='relu', data_layout='NCHW')
    exe.run(startup2)
    got, = exe.run(main2, feed={'x': x}, fetch_list=[y2])
    np.testing.assert_allclose(got, np.maximum(x / np.sqrt(1 + 1e-5), 0), rtol=1e-5)
    with pytest.raises(ValueError, match='bias_attr should not be False'):
        with static.program_guard(static.Program(), static.Program()):
            static.nn.batch_norm(static.data('x', [2, 3], 'float32'), bias_attr=False)


def test_layer_instance_group_norm_parameters_as_paddle(static_mode):
    x = rng.standard_normal((2, 4, 3, 3)).astype('float32')
    (ln, inorm, gn, gn2), params, _ = run(lambda x: (
        static.nn.layer_norm(x, begin_norm_axis=2),
        static.nn.instance_norm(x),
        static.nn.group_norm(x, 2),
        static.nn.group_norm(x, 2, param_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(2.0)), bias_attr=True)), {'x': x})
    # layer_norm: scale and shift of the flattened normalised size; instance_norm and
    # group_norm: no parameters unless the attrs are given (Paddle's rule)
    assert sorted(v.shape for v in params.values()) == [(4,), (4,), (9,), (9,)]

    def norm(v, axes):
        return (v - v.mean(axes, keepdims=True)) / np.sqrt(v.var(axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(ln, norm(x, (2, 3)), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(inorm, norm(x, (2, 3)), rtol=1e-4, atol=1e-5)
    g = norm(x.reshape(2, 2, 2, 3, 3), (2, 3, 4)).reshape(x.shape)
    np.testing.assert_allclose(gn, g, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(gn2, 2 * g, rtol=1e-4, atol=1e-5)


def test_prelu_modes(static_mode):
    x = rng.standard_normal((2, 3, 2, 2)).astype('float32')
    (a, c, e), params, _ = run(lambda x: (static.nn.prelu(x, 'all'),
                                          static.nn.prelu(x, 'channel'),
                                          static.nn.prelu(x, 'element')), {'x': x})
    assert sorted(v.shape for v in params.values()) == [(1,), (1, 3, 1, 1), (1, 3, 2, 2)]
    ref = np.where(x > 0, x, 0.25 * x)
    for got in (a, c, e):
        np.testing.assert_allclose(got, ref, rtol=1e-6)
    with pytest.raises(ValueError, match='mode should be one of'):
        run(lambda x: static.nn.prelu(x, 'row'), {'x': x})


def test_embedding_sparse_embedding_and_padding_idx(static_mode):
    ids = np.array([[1, 0, 3], [2, 2, 0]], np.int64)
    (e,), params, _ = run(lambda i: static.nn.embedding(i, [4, 5], padding_idx=0), {'i': ids})
    table, = params.values()
    ref = table[ids] * (ids != 0)[..., None]
    np.testing.assert_allclose(e, ref)
    ids1 = ids.reshape(6, 1)
    (s,), params, _ = run(lambda i: static.nn.sparse_embedding(i, [4, 5]), {'i': ids1})
    table, = params.values()
    np.testing.assert_allclose(s, table[ids1[:, 0]])
    with pytest.raises(ValueError, match="last dimensions of the 'Ids'"):
        run(lambda i: static.nn.sparse_embedding(i, [4, 5]), {'i': ids})


def test_bilinear_tensor_product_and_row_conv(static_mode):
    x = rng.standard_normal((3, 4)).astype('float32')
    y = rng.standard_normal((3, 2)).astype('float32')
    (out,), params, _ = run(lambda x, y: static.nn.bilinear_tensor_product(x, y, 5,
                                                                            act='tanh'),
                            {'x': x, 'y': y})
    w = next(v for v in params.values() if v.ndim == 3)
    b = next(v for v in params.values() if v.ndim == 2)
    assert w.shape == (5, 4, 2) and b.shape == (1, 5)
    np.testing.assert_allclose(out, np.tanh(np.einsum('ni,kij,nj->nk', x, w, y) + b),
                               rtol=1e-5, atol=1e-6)
    seq = rng.standard_normal((2, 4, 3)).astype('float32')
    (rc,), params, _ = run(lambda s: static.nn.row_conv(s, 2), {'s': seq})
    f, = params.values()
    assert f.shape == (3, 3)
    ref = np.zeros_like(seq)
    for t in range(4):
        for i in range(3):
            if t + i < 4:
                ref[:, t] += seq[:, t + i] * f[i]
    np.testing.assert_allclose(rc, ref, rtol=1e-5, atol=1e-6)
    # a sequence shorter than the context
    short = rng.standard_normal((1, 3)).astype('float32')
    (rs,), params, _ = run(lambda s: static.nn.row_conv(s, 2), {'s': short})
    f, = params.values()
    np.testing.assert_allclose(rs, short * f[0], rtol=1e-6)


def test_spectral_norm_divides_by_the_top_singular_value(static_mode):
    w = rng.standard_normal((4, 2, 3)).astype('float64')
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        wv = static.data('w', [4, 2, 3], 'float64')
        out = static.nn.spectral_norm(wv, dim=1, power_iters=60)
    exe = static.Executor()
    exe.run(startup)
    got, = exe.run(main, feed={'w': w}, fetch_list=[out])
    sigma = np.linalg.svd(w.transpose(1, 0, 2).reshape(2, -1), compute_uv=False)[0]
    np.testing.assert_allclose(got, w / sigma, rtol=1e-6)
    assert sorted(list(p.shape) for p in main.all_parameters()) == [[2], [12]]


def test_spectral_norm_also_runs_eagerly_with_gradients():
    w = paddle.to_tensor(rng.standard_normal((3, 4)), stop_gradient=False)
    out = static.nn.spectral_norm(w, power_iters=50)
    assert abs(np.linalg.svd(out.numpy(), compute_uv=False)[0] - 1) < 1e-8
    # u and v are constants of the gradient: d(sum(W / sigma)) with sigma = u W v^T
    out.sum().backward()
    u, s, vt = np.linalg.svd(w.numpy())
    sigma, uu, vv = s[0], u[:, 0], vt[0]
    ref = 1 / sigma - w.numpy().sum() / sigma ** 2 * np.outer(uu, vv)
    np.testing.assert_allclose(w.grad.numpy(), ref, rtol=1e-6, atol=1e-9)


def test_nce_with_a_deterministic_sampler_matches_the_formula(static_mode):
    x = rng.standard_normal((3, 4)).astype('float32')
    label = np.array([[1], [0], [2]], np.int64)
    dist = [0.0, 0.0, 0.0, 1.0, 0.0]          # every negative is class 3
    (cost,), params, _ = run(lambda x, l: static.nn.nce(
        x, l, 5, num_neg_samples=2, sampler='custom_dist', custom_dist=dist,
        bias_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1))),
        {'x': x, 'l': label})
    w = next(v for v in params.values() if v.shape == (5, 4))
    b = next(v for v in params.values() if v.shape == (5, 1))[:, 0]

    def sig(v):
        return 1 / (1 + np.exp(-v))
    ref = []
    for n in range(3):
        o_true = sig(x[n] @ w[label[n, 0]] + b[label[n, 0]])
        q_true = 2 * dist[label[n, 0]]
        o_neg = sig(x[n] @ w[3] + b[3])
        c = -np.log(o_true / (o_true + q_true)) - 2 * np.log(2.0 / (o_neg + 2.0))
        ref.append([c / 3])
    np.testing.assert_allclose(cost, np.array(ref), rtol=1e-5)


def test_nce_trains_with_uniform_and_log_uniform_samplers(static_mode):
    x = rng.standard_normal((16, 4)).astype('float32')
    label = (np.abs(x[:, :1]) * 3).astype(np.int64) % 6
    for sampler in ('uniform', 'log_uniform'):
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data('x', [None, 4], 'float32')
            lv = static.data('l', [None, 1], 'int64')
            loss = paddle.mean(static.nn.nce(xv, lv, 6, num_neg_samples=3, sampler=sampler))
            paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
        exe = static.Executor()
        exe.run(startup)
        paddle.seed(3)
        first, = exe.run(main, feed={'x': x, 'l': label}, fetch_list=[loss])
        for _ in range(40):
            last, = exe.run(main, feed={'x': x, 'l': label}, fetch_list=[loss])
        assert np.isfinite(first) and last < first


def test_static_nn_layers_train_a_small_cnn(static_mode):
    x = rng.standard_normal((8, 1, 6, 6)).astype('float32')
    y = x.mean((1, 2, 3))[:, None].astype('float32')
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data('x', [None, 1, 6, 6], 'float32')
        yv = static.data('y', [None, 1], 'float32')
        h = static.nn.conv2d(xv, 4, 3, padding=1, act='relu')
        h = static.nn.batch_norm(h)
        h = static.nn.layer_norm(h)
        h = static.nn.prelu(h, 'channel')
        pred = static.nn.fc(h, 1)
        loss = paddle.mean((pred - yv) ** 2)
        paddle.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    first, = exe.run(main, feed={'x': x, 'y': y}, fetch_list=[loss])
    for _ in range(60):
        last, = exe.run(main, feed={'x': x, 'y': y}, fetch_list=[loss])
    assert last < 0.2 * first


def test_layer_builders_are_static_only():
    x = paddle.ones([1, 3, 4, 4])
    with pytest.raises(RuntimeError, match='only supported in static graph mode'):
        static.nn.conv2d(x, 2, 3)
    with pytest.raises(RuntimeError, match='only supported in static graph mode'):
        static.nn.py_func(lambda a: a, x, None)


# ---- py_func and static_pylayer -----------------------------------------------------

def test_py_func_forward_backward_and_skip(static_mode):
    calls = []

    def tanh(a):
        calls.append(a.shape)
        return np.tanh(a)

    def tanh_grad(y, dy):                     # x skipped: gets (out, out grad)
        return dy * (1 - np.square(y))
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 3], 'float32')
        x.stop_gradient = False
        out = main.current_block().create_var(name='tanh_out', shape=[-1, 3],
                                              dtype='float32')
        y = static.nn.py_func(tanh, x, out, backward_func=tanh_grad,
                              skip_vars_in_backward_input=x)
        assert y is out
        loss = paddle.sum(y * y)
        gx, = static.gradients([loss], [x])
    xv = rng.standard_normal((2, 3)).astype('float32')
    got, g = static.Executor().run(main, feed={'x': xv}, fetch_list=[y, gx])
    np.testing.assert_allclose(got, np.tanh(xv), rtol=1e-6)
    np.testing.assert_allclose(g, 2 * np.tanh(xv) * (1 - np.tanh(xv) ** 2), rtol=1e-5)
    assert calls == [(2, 3)]


def test_static_nn_module_layout_is_paddles():
    from framework.static.nn.common import conv2d, fc, py_func
    from framework.static.nn.control_flow import cond
    from framework.static.nn.loss import nce
    from framework.static.nn.sequence_lod import sequence_pool
    from framework.static.nn.static_pylayer import static_pylayer
    assert (conv2d, fc, cond, nce, sequence_pool, static_pylayer) == (
        static.nn.conv2d, static.nn.fc, static.nn.cond, static.nn.nce, static.nn.sequence_pool,
        static.nn.static_pylayer)
    assert py_func is static.nn.py_func is static.py_func


def test_py_func_multiple_outputs_and_errors(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        a = static.data('a', [2], 'float64')
        b = static.data('b', [2], 'float64')
        blk = main.current_block()
        s = blk.create_var(name='s', shape=[2], dtype='float64')
        p = blk.create_var(name='p', shape=[2], dtype='int64')
        static.nn.py_func(lambda u, v: (u + v, (u * v).astype('int64')), [a, b], [s, p])
    exe = static.Executor()
    av, bv = np.array([1.5, 2.0]), np.array([2.0, 3.0])
    got_s, got_p = exe.run(main, feed={'a': av, 'b': bv}, fetch_list=[s, p])
    np.testing.assert_allclose(got_s, av + bv)
    assert got_p.dtype == np.int64 and got_p.tolist() == [3, 6]
    with static.program_guard(main, startup):
        bad = blk.create_var(name='bad', shape=[3], dtype='float64')
        static.nn.py_func(lambda u: u, a, bad)
    # a callback runs whatever is fetched (effect 'callback'), as in Paddle
    with pytest.raises(Exception, match='has shape \\[2\\], but its Variable has shape \\[3\\]'):
        exe.run(main, feed={'a': av, 'b': bv}, fetch_list=[s])
    with pytest.raises(TypeError, match='func must be a Python function'):
        static.nn.py_func(None, a, s)


def test_py_func_without_outputs_still_runs(static_mode):
    """``out=None``: a callback run for what it does (Paddle's debugging use)."""
    seen = []
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        a = static.data('a', [2], 'float64')
        static.nn.py_func(lambda u: seen.append(u.tolist()), a, None)
        y = a * 2
    out, = static.Executor().run(main, feed={'a': np.array([1.0, 2.0])}, fetch_list=[y])
    assert seen == [[1.0, 2.0]] and out.tolist() == [2.0, 4.0]


def test_static_pylayer_custom_backward(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [3], 'float64')
        x.stop_gradient = False
        # forward exp, backward "3 * grad": the custom rule replaces the true one
        y = static.nn.static_pylayer(lambda v: paddle.exp(v), [x], lambda dy: dy * 3)
        gx, = static.gradients([paddle.sum(y)], [x])
        z = static.data('z', [3], 'float64')
        w = static.nn.static_pylayer(lambda v: v * 2, [z])
    xv = np.array([0.0, 1.0, -1.0])
    got, g, wv = static.Executor().run(main, feed={'x': xv, 'z': xv}, fetch_list=[y, gx, w])
    np.testing.assert_allclose(got, np.exp(xv))
    np.testing.assert_allclose(g, [3.0, 3.0, 3.0])
    np.testing.assert_allclose(wv, 2 * xv)
    assert w.stop_gradient
    with pytest.raises(ValueError, match='stop_gradient'):
        with static.program_guard(static.Program(), static.Program()):
            v = static.data('v', [3], 'float64')
            v.stop_gradient = False
            static.nn.static_pylayer(lambda t: t, [v])


@pytest.mark.parametrize('api,args', [
    ('sequence_pool', ('sum',)), ('sequence_first_step', ()), ('sequence_last_step', ()),
    ('sequence_softmax', ()), ('sequence_conv', (2,)), ('sequence_expand', None)])
def test_lod_sequence_layers_answer_as_paddle_3(api, args):
    """No LoD tensors here, as in Paddle 3's default modes: both refuse these."""
    x = paddle.ones([4, 3])
    with pytest.raises(AssertionError, match='not supported in dygraph mode'):
        getattr(static.nn, api)(x, *(args if args is not None else (x,)))
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            v = static.data('v', [4, 3], 'float32', lod_level=1)
            with pytest.raises(AssertionError, match='not supported in pir mode'):
                getattr(static.nn, api)(v, *(args if args is not None else (v,)))
    finally:
        paddle.disable_static()


def test_a_saved_py_func_program_is_refused_at_load(static_mode, tmp_path):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 3], 'float32')
        out = main.current_block().create_var(name='tanh_out', shape=[-1, 3],
                                              dtype='float32')
        y = static.nn.py_func(np.tanh, x, out)
        z = y * 2.0
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / 'model')
    static.save_inference_model(prefix, [x], [z], exe, program=main)
    with pytest.raises(paddle.static.io.ModelFormatError, match="py_func"):
        static.load_inference_model(prefix, exe)
