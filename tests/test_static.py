"""Static mode: Program IR, executor, static backward, control flow, save/load."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import framework as paddle
from framework import static

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(fn, feeds):
    """Build ``fn(*data_vars)`` into a new program; returns (program, outputs)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        vs = [static.data(n, s, d) for n, s, d in feeds]
        out = fn(*vs)
    return main, out


def test_program_ir_api(static_mode):
    main, y = build(lambda x: paddle.tanh(x * 2.0 + 1.0), [('x', [None, 3], 'float32')])
    gb = main.global_block()
    assert main.num_blocks == 1 and main.block(0) is gb and gb.idx == 0 and gb.parent_idx == -1
    types = [op.type for op in gb.ops]
    assert types[-1] == 'tanh' and 'multiply' in types and 'add' in types
    op = gb.ops[-1]
    assert op.input('x') == op.input_arg_names and op.output_arg_names == [y.name]
    assert gb.var('x').shape == [-1, 3] and gb.var('x').dtype == paddle.float32
    assert y.shape == [-1, 3]
    text = str(main)
    assert 'tanh' in text and text.count('\n') >= len(gb.ops)
    assert any(v.name == 'x' for v in main.list_vars())


def test_infer_meta_errors_at_build_time_name_op_and_shapes(static_mode):
    with pytest.raises(ValueError) as e:
        build(lambda a, b: a + b, [('a', [2, 3], 'float32'), ('b', [4, 5], 'float32')])
    assert 'add' in str(e.value) and '[2, 3]' in str(e.value)


def test_executor_runs_and_checks_feeds(static_mode):
    main, y = build(lambda x: x * 3.0, [('x', [None, 2], 'float32')])
    exe = static.Executor(paddle.CPUPlace())
    out, = exe.run(main, feed={'x': np.ones((4, 2), 'float32')}, fetch_list=[y])
    np.testing.assert_allclose(out, 3 * np.ones((4, 2)))
    out2, = exe.run(main, feed={'x': np.ones((1, 2), 'float32')}, fetch_list=[y.name])
    assert out2.shape == (1, 2)
    with pytest.raises(ValueError, match="shape"):
        exe.run(main, feed={'x': np.ones((4, 3), 'float32')}, fetch_list=[y])
    with pytest.raises(TypeError, match='dtype'):
        exe.run(main, feed={'x': np.ones((4, 2), 'int64')}, fetch_list=[y])
    with pytest.raises(ValueError, match='not a variable'):
        exe.run(main, feed={'nope': np.ones(1)}, fetch_list=[y])


def test_plan_is_cached_per_program_version(static_mode):
    main, y = build(lambda x: x + 1.0, [('x', [2], 'float32')])
    exe = static.Executor()
    exe.run(main, feed={'x': np.zeros(2, 'float32')}, fetch_list=[y])
    exe.run(main, feed={'x': np.zeros(2, 'float32')}, fetch_list=[y])
    assert len(exe._cache) == 1
    with static.program_guard(main):
        z = y * 2.0
    r, = exe.run(main, feed={'x': np.zeros(2, 'float32')}, fetch_list=[z])
    np.testing.assert_allclose(r, [2, 2])
    assert len(exe._cache) == 2


def test_gradients_match_eager(static_mode):
    xv = np.random.default_rng(0).standard_normal((3, 4))
    main, (x, y) = build(lambda x: (x, (paddle.tanh(x) * x).sum()), [('x', [3, 4], 'float64')])
    with static.program_guard(main):
        gx, = static.gradients([y], [x])
        ggx, = static.gradients([gx], [x])
    exe = static.Executor()
    g1, g2 = exe.run(main, feed={'x': xv}, fetch_list=[gx, ggx])
    paddle.disable_static()
    xe = paddle.to_tensor(xv, stop_gradient=False)
    ye = (paddle.tanh(xe) * xe).sum()
    (e1,) = paddle.grad(ye, xe, create_graph=True)
    (e2,) = paddle.grad(e1, xe, paddle.ones_like(e1))
    paddle.enable_static()
    np.testing.assert_allclose(g1, e1.numpy(), rtol=1e-10)
    np.testing.assert_allclose(g2, e2.numpy(), rtol=1e-10)


def test_append_backward_prunes_no_grad_and_names_grads(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [2, 2], 'float32')
        w = static.create_parameter([2, 2], 'float32', name='w')
        loss = (paddle.matmul(x, w) * 2.0).sum()
        pairs = static.append_backward(loss)
    assert [p.name for p, _ in pairs] == ['w']
    assert pairs[0][1].name == 'w@GRAD'
    assert all(op.attr('op_role') == 'backward' for op in main.global_block().ops
               if 'GRAD' in ''.join(op.output_arg_names))
    exe = static.Executor()
    exe.run(startup)
    xv = np.arange(4, dtype='float32').reshape(2, 2)
    g, = exe.run(main, feed={'x': xv}, fetch_list=['w@GRAD'])
    np.testing.assert_allclose(g, 2 * xv.T @ np.ones((2, 2)))


def fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x).reshape(-1)
        d[i] = eps
        d = d.reshape(x.shape)
        g.reshape(-1)[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def test_cond_values_and_gradients(static_mode):
    def net(x, p):
        return static.nn.cond(p, lambda: (x * x).sum(), lambda: (paddle.tanh(x) * 3.0).sum())
    main, out = build(net, [('x', [3], 'float64'), ('p', [1], 'bool')])
    x = main.global_block().var('x')
    with static.program_guard(main):
        gx, = static.gradients([out], [x])
    ops = [op.type for op in main.global_block().ops]
    assert ops.count('cond') == 2     # forward cond and its grad cond
    exe = static.Executor()
    xv = np.array([0.5, -1.0, 2.0])
    for pv, f in ((True, lambda v: (v * v).sum()), (False, lambda v: (np.tanh(v) * 3).sum())):
        o, g = exe.run(main, feed={'x': xv, 'p': np.array([pv])}, fetch_list=[out, gx])
        np.testing.assert_allclose(o, f(xv))
        np.testing.assert_allclose(g, fd_grad(f, xv), rtol=1e-6)


def test_cond_branch_structure_mismatch_is_a_clear_error(static_mode):
    def net(x, p):
        return static.nn.cond(p, lambda: (x, x), lambda: x)
    with pytest.raises(ValueError, match='same structure'):
        build(net, [('x', [3], 'float32'), ('p', [1], 'bool')])


def test_nested_cond_inside_while_with_gradients(static_mode):
    def net(x, n):
        i = paddle.full([1], 0, 'int64')

        def body(i, s):
            s2 = static.nn.cond(i < 2, lambda: s * x, lambda: s + x)
            return i + 1, s2
        _, s = static.nn.while_loop(lambda i, s: i < n, body, [i, x])
        return s.sum()
    main, out = build(net, [('x', [2], 'float64'), ('n', [1], 'int64')])
    x = main.global_block().var('x')
    with static.program_guard(main):
        gx, = static.gradients([out], [x])
    exe = static.Executor()
    xv = np.array([0.7, 1.3])

    def f(v, n):
        s = v.copy()
        for i in range(n):
            s = s * v if i < 2 else s + v
        return s.sum()
    for n in (1, 2, 4):
        o, g = exe.run(main, feed={'x': xv, 'n': np.array([n])}, fetch_list=[out, gx])
        np.testing.assert_allclose(o, f(xv, n))
        np.testing.assert_allclose(g, fd_grad(lambda v: f(v, n), xv), rtol=1e-6)


def test_while_loop_variable_changing_shape_gets_unknown_dims(static_mode):
    def net(x, n):
        i = paddle.full([1], 0, 'int64')
        return static.nn.while_loop(lambda i, s: i < n,
                                    lambda i, s: (i + 1, paddle.concat([s, s * 2.0])), [i, x])
    main, (_, s) = build(net, [('x', [2], 'float32'), ('n', [1], 'int64')])
    assert list(s.shape) == [-1]
    exe = static.Executor()
    for n, expect in ((0, [1, 2]), (2, [1, 2, 2, 4, 2, 4, 4, 8])):
        out, = exe.run(main, feed={'x': np.array([1, 2], 'float32'), 'n': np.array([n])},
                       fetch_list=[s])
        np.testing.assert_allclose(out, expect)


def test_while_loop_variable_changing_dtype_starts_as_the_body_dtype(static_mode):
    def net(x):
        i = paddle.full([1], 0, 'int64')
        return static.nn.while_loop(lambda i, s: i < 2,
                                    lambda i, s: (i + 1, paddle.cast(s, 'float64') + 0.5), [i, x])
    main, (_, s) = build(net, [('x', [2], 'float32')])
    assert s.dtype == np.float64
    out, = static.Executor().run(main, feed={'x': np.array([1, 2], 'float32')}, fetch_list=[s])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, [2, 3])


def test_while_loop_variable_changing_rank_names_the_variable(static_mode):
    def net(x):
        i = paddle.full([1], 0, 'int64')
        return static.nn.while_loop(lambda i, s: i < 3,
                                    lambda i, s: (i + 1, paddle.stack([s, s])), [i, x])
    with pytest.raises(ValueError, match=r"loop variable 1.*rank"):
        build(net, [('x', [2], 'float32')])


def test_case_and_switch_case(static_mode):
    def net(x, k):
        a = static.nn.case([(k < 1, lambda: x * 1.0), (k < 2, lambda: x * 2.0)],
                           default=lambda: x * 3.0)
        b = static.nn.switch_case(k, {0: lambda: x + 10.0, 1: lambda: x + 20.0},
                                  default=lambda: x + 30.0)
        return a, b
    main, (a, b) = build(net, [('x', [1], 'float32'), ('k', [1], 'int64')])
    exe = static.Executor()
    for k, ea, eb in ((0, 1, 11), (1, 2, 21), (5, 3, 31)):
        ra, rb = exe.run(main, feed={'x': np.ones(1, 'float32'), 'k': np.array([k])},
                         fetch_list=[a, b])
        assert ra[0] == ea and rb[0] == eb


def test_control_flow_in_dynamic_mode_runs_python():
    x = paddle.to_tensor([2.0])
    assert static.nn.cond(x > 1, lambda: x * 2, lambda: x).item() == 4.0
    i, s = static.nn.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2),
                                [paddle.to_tensor(0), x])
    assert s.item() == 16.0


def test_nan_inf_check_names_the_op(static_mode):
    main, y = build(lambda x: paddle.log(x) * 2.0, [('x', [2], 'float32')])
    exe = static.Executor()
    paddle.set_flags({'FLAGS_check_nan_inf': True})
    try:
        with pytest.raises(FloatingPointError, match="'log'"):
            exe.run(main, feed={'x': np.array([-1.0, 1.0], 'float32')}, fetch_list=[y])
    finally:
        paddle.set_flags({'FLAGS_check_nan_inf': False})


def test_runtime_kernel_error_names_the_op(static_mode):
    main, y = build(lambda a, b: paddle.matmul(a, b), [('a', [-1, 3], 'float32'),
                                                       ('b', [-1, 2], 'float32')])
    exe = static.Executor()
    with pytest.raises(ValueError, match='matmul'):
        exe.run(main, feed={'a': np.ones((2, 3), 'float32'), 'b': np.ones((4, 2), 'float32')},
                fetch_list=[y])


def test_clone_for_test_drops_backward_ops(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [2], 'float32')
        w = static.create_parameter([2], 'float32', name='w2')
        loss = (x * w).sum()
        static.append_backward(loss)
    test_prog = main.clone(for_test=True)
    assert all(op.attr('op_role') != 'backward' for op in test_prog.global_block().ops)
    assert len(test_prog.global_block().ops) < len(main.global_block().ops)


SAVE_SCRIPT = """
import numpy as np, framework as paddle
from framework import static
paddle.enable_static()
main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    x = static.data('x', [None, 3], 'float32')
    w = static.create_parameter([3, 2], 'float32', name='w')
    y = paddle.tanh(paddle.matmul(x, w) + 0.5)
exe = static.Executor()
exe.run(startup)
static.save_inference_model(PREFIX, [x], [y], exe, program=main)
out, = exe.run(main, feed={'x': np.arange(6, dtype='float32').reshape(2, 3)}, fetch_list=[y])
np.save(PREFIX + '.expected.npy', out)
"""

LOAD_SCRIPT = """
import numpy as np, framework as paddle
from framework import static
from framework.inference import Config, create_predictor
paddle.enable_static()
exe = static.Executor()
prog, feeds, fetches = static.load_inference_model(PREFIX, exe)
xv = np.arange(6, dtype='float32').reshape(2, 3)
out, = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
exp = np.load(PREFIX + '.expected.npy')
assert np.array_equal(out, exp), (out, exp)
pred = create_predictor(Config(PREFIX + '.pdmodel', PREFIX + '.pdiparams'))
h = pred.get_input_handle(pred.get_input_names()[0])
h.copy_from_cpu(xv)
pred.run()
res = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
assert np.array_equal(res, exp)
print('OK')
"""


def _run(script, prefix):
    env = dict(os.environ, PYTHONPATH=ROOT)
    code = 'PREFIX = %r\n' % prefix + script
    r = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_save_and_load_inference_model_in_fresh_processes(tmp_path):
    prefix = str(tmp_path / 'model' / 'net')
    _run(SAVE_SCRIPT, prefix)
    assert 'OK' in _run(LOAD_SCRIPT, prefix)
    model = json.loads(open(prefix + '.pdmodel').read())
    assert model['feed'] == ['x'] and model['version'] == 1


def test_corrupted_or_foreign_model_files_give_clear_errors(tmp_path):
    prefix = str(tmp_path / 'net')
    _run(SAVE_SCRIPT, prefix)
    from framework.graph.model_files import ModelFormatError, read_model
    good = open(prefix + '.pdmodel').read()
    params = open(prefix + '.pdiparams', 'rb').read()
    open(prefix + '.pdmodel', 'w').write(good[: len(good) // 2])
    with pytest.raises(ModelFormatError, match='truncated or corrupted'):
        read_model(prefix)
    m = json.loads(good)
    m['version'] = 99
    open(prefix + '.pdmodel', 'w').write(json.dumps(m))
    with pytest.raises(ModelFormatError, match='version'):
        read_model(prefix)
    m = json.loads(good)
    m['program']['blocks'][0]['ops'][0]['type'] = 'os_system'
    open(prefix + '.pdmodel', 'w').write(json.dumps(m))
    with pytest.raises(ModelFormatError, match="unknown op type 'os_system'"):
        read_model(prefix)
    open(prefix + '.pdmodel', 'w').write(good)
    open(prefix + '.pdiparams', 'wb').write(params[:-10])
    with pytest.raises(ModelFormatError, match='checksum'):
        read_model(prefix)


def test_linear_regression_trains_with_minimize_and_scheduler(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 3], 'float32')
        y = static.data('y', [None, 1], 'float32')
        pred = paddle.nn.Linear(3, 1)(x)
        loss = paddle.nn.functional.mse_loss(pred, y)
        sched = paddle.optimizer.lr.StepDecay(0.1, step_size=100, gamma=0.5)
        opt = paddle.optimizer.Adam(learning_rate=sched)
        ops, params_grads = opt.minimize(loss)
    assert ops and all(op.attr('op_role') == 'optimize' for op in ops)
    assert len(params_grads) == 2
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    xv = rng.standard_normal((64, 3)).astype('float32')
    yv = xv @ np.array([[1.5], [-2.0], [0.5]], 'float32') + 0.3
    for _ in range(300):
        lv, = exe.run(main, feed={'x': xv, 'y': yv}, fetch_list=[loss])
        sched.step()
    assert lv < 1e-6
    assert opt.get_lr() == 0.1 * 0.5 ** 3


def test_sgd_minimize_matches_hand_update(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [2, 2], 'float32')
        w = static.create_parameter([2, 1], 'float32', name='w_sgd',
                                    default_initializer=paddle.nn.initializer.Constant(1.0))
        loss = paddle.matmul(x, w).sum()
        paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
    exe = static.Executor()
    exe.run(startup)
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], 'float32')
    exe.run(main, feed={'x': xv})
    wv = static.global_scope().find_var('w_sgd').get_tensor()
    np.testing.assert_allclose(np.asarray(wv), 1.0 - 0.5 * xv.sum(0, keepdims=True).T)


def test_clone_for_test_switches_dropout_and_batch_norm_to_inference(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 4], 'float32')
        net = paddle.nn.Sequential(paddle.nn.Linear(4, 4), paddle.nn.BatchNorm1D(4),
                                   paddle.nn.Dropout(0.5))
        y = net(x)
    test_prog = main.clone(for_test=True)
    types = [op.type for op in test_prog.global_block().ops]
    assert 'dropout' not in types and 'dropout' in [op.type for op in main.global_block().ops]
    bn = [op for op in test_prog.global_block().ops if op.type == 'batch_norm'][0]
    assert bn.attr('use_global_stats') is True
    exe = static.Executor()
    exe.run(startup)
    xv = np.random.default_rng(0).random((8, 4)).astype('float32')
    def stats():
        scope = static.global_scope()
        return [np.array(getattr(t, 'data', None) if hasattr(t, '_grad_node') else
                         np.asarray(scope.find_var(t.name).get_tensor()))
                for t in (net[1]._mean, net[1]._variance)]
    stats_before = stats()
    a, = exe.run(test_prog, feed={'x': xv}, fetch_list=[y])
    b, = exe.run(test_prog, feed={'x': xv}, fetch_list=[y])
    np.testing.assert_array_equal(a, b)
    for before, after in zip(stats_before, stats()):
        np.testing.assert_array_equal(before, after)      # inference does not update stats
    c, = exe.run(main, feed={'x': xv}, fetch_list=[y])
    assert not np.array_equal(a, c)


def test_static_nn_fc_trains_in_a_static_program(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 4], 'float32')
        y = static.data('y', [None, 1], 'float32')
        h = static.nn.fc(x, 8, activation='tanh')
        pred = static.nn.fc(h, 1)
        loss = paddle.mean((pred - y) ** 2)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    assert len(main.all_parameters()) == 4
    exe = static.Executor()
    exe.run(startup)
    rng = np.random.default_rng(1)
    xv = rng.standard_normal((32, 4)).astype('float32')
    yv = xv.sum(1, keepdims=True) * 0.5
    first = exe.run(main, feed={'x': xv, 'y': yv}, fetch_list=[loss])[0]
    for _ in range(100):
        last = exe.run(main, feed={'x': xv, 'y': yv}, fetch_list=[loss.name])[0]
    assert last < 0.1 * first


def test_stop_gradient_on_an_intermediate_blocks_static_gradients(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [3], 'float64')
        x.stop_gradient = False
        h = x * x
        h.stop_gradient = True            # a constant from here on
        y = (h * x).sum()
        gx, = static.gradients([y], [x])
    xv = np.array([1.0, 2.0, 3.0])
    g, = static.Executor().run(main, feed={'x': xv}, fetch_list=[gx])
    np.testing.assert_allclose(g, xv * xv)      # d(h*x)/dx with h constant
    clone = main.clone()
    assert clone.global_block().var(h.name).blocks_grad


def test_optimizer_backward_then_apply_gradients_in_static_mode(static_mode):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [2, 2], 'float32')
        w = static.create_parameter([2, 1], 'float32', name='w_apply',
                                    default_initializer=paddle.nn.initializer.Constant(1.0))
        loss = paddle.matmul(x, w).sum()
        opt = paddle.optimizer.SGD(learning_rate=0.5)
        params_grads = opt.backward(loss)
        ops = opt.apply_gradients(params_grads)
    assert [p.name for p, _ in params_grads] == ['w_apply'] and ops[-1].type == 'sgd'
    exe = static.Executor()
    exe.run(startup)
    xv = np.array([[1.0, 2.0], [3.0, 4.0]], 'float32')
    exe.run(main, feed={'x': xv})
    got = np.asarray(static.global_scope().find_var('w_apply').get_tensor())
    np.testing.assert_allclose(got, 1.0 - 0.5 * xv.sum(0, keepdims=True).T)


def test_feeding_a_variable_replaces_its_producer_but_not_an_in_place_update(static_mode):
    from framework.ops.optim import sgd_op
    main = static.Program()
    with static.program_guard(main):
        p = static.data('p', [3], 'float64')
        g = static.data('g', [3], 'float64')
        h = paddle.exp(g)
        out = sgd_op(p, h, 0.5)          # writes p in place
    assert out is p
    exe = static.Executor()
    pv, gv = np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, -1.0])
    got, = exe.run(main, feed={'p': pv, 'g': gv}, fetch_list=[p])
    np.testing.assert_allclose(got, pv - 0.5 * np.exp(gv))
    # a fed intermediate is used as given: exp does not run
    got, = exe.run(main, feed={'p': pv, 'g': gv, h.name: np.ones(3)}, fetch_list=[p])
    np.testing.assert_allclose(got, pv - 0.5)


# ---- save_inference_model of a training program --------------------------------------

def _trained_program(dropout_and_bn=True):
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [None, 4], 'float32')
        y = static.data('y', [None, 1], 'float32')
        h = static.nn.fc(x, 8, activation='relu')
        if dropout_and_bn:
            h = paddle.nn.functional.dropout(static.nn.batch_norm(h), 0.5)
        pred = static.nn.fc(h, 1)
        loss = paddle.mean((pred - y) ** 2)
        paddle.optimizer.Adam(0.01).minimize(loss)
    return main, startup, x, y, pred, loss


def test_a_training_program_saves_as_an_inference_model(tmp_path):
    paddle.enable_static()
    try:
        main, startup, x, y, pred, loss = _trained_program()
        exe = static.Executor()
        exe.run(startup)
        rng = np.random.default_rng(3)
        xs = rng.standard_normal((6, 4)).astype('float32')
        for _ in range(3):
            exe.run(main, feed={'x': xs, 'y': np.ones((6, 1), 'float32')}, fetch_list=[loss])
        # the program's inference view, with the label fed (it is not needed)
        want = exe.run(main.clone(for_test=True), feed={'x': xs, 'y': np.ones((6, 1), 'float32')},
                       fetch_list=[pred])[0]
        prefix = str(tmp_path / 'trained')
        saved = static.save_inference_model(prefix, [x], [pred], exe, program=main)
        # no loss, backward or optimizer op is part of the model
        kinds = {op.type for op in saved.global_block().ops}
        assert not kinds & {'adam', 'subtract', 'mean', 'square', 'pow'}, kinds
        assert not any(op.attrs.get('op_role') == 'backward' for op in saved.global_block().ops)
        prog, feeds, fetches = static.load_inference_model(prefix, exe)
        assert feeds == ['x']
        got = exe.run(prog, feed={'x': xs}, fetch_list=fetches)[0]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
        # a second run of training leaves the saved model as it was
        exe.run(main, feed={'x': xs, 'y': np.ones((6, 1), 'float32')}, fetch_list=[loss])
        prog2, _, fetches2 = static.load_inference_model(prefix, static.Executor())
        np.testing.assert_allclose(static.Executor().run(prog2, feed={'x': xs},
                                                         fetch_list=fetches2)[0], want,
                                   rtol=1e-6, atol=1e-6)
    finally:
        paddle.disable_static()


def test_an_inference_model_needing_an_unfed_value_fails_the_save(tmp_path):
    paddle.enable_static()
    try:
        main, startup, x, y, pred, loss = _trained_program(dropout_and_bn=False)
        exe = static.Executor()
        exe.run(startup)
        with pytest.raises(ValueError, match="need variable 'y'.*add it to feed_vars"):
            static.save_inference_model(str(tmp_path / 'm'), [x], [loss], exe, program=main)
        assert not os.listdir(tmp_path)
    finally:
        paddle.disable_static()
