"""paddle.static: places and annotations, programs as bytes, global variables,
ExponentialMovingAverage, WeightNormParamAttr, py_func (static.nn's), auc, ctr_metric_bundle."""
import numpy as np
import pytest

import framework as paddle
from framework import static


@pytest.fixture
def progs():
    paddle.enable_static()
    main, start = static.Program(), static.Program()
    with static.program_guard(main, start):
        yield main, start
    paddle.disable_static()


def _run(main, start, feed, fetch):
    exe = static.Executor()
    exe.run(start)
    return exe, exe.run(main, feed=feed, fetch_list=fetch)


def test_places_as_paddle_cpu():
    assert static.cpu_places(2) == [paddle.CPUPlace(), paddle.CPUPlace()]
    with pytest.raises(AssertionError, match='CUDA'):
        static.cuda_places()
    with pytest.raises(AssertionError, match='XPU'):
        static.xpu_places()
    with pytest.raises(RuntimeError, match='IPU'):
        static.IpuStrategy()
    with pytest.raises(ValueError, match='IPU'):
        static.IpuCompiledProgram()
    with pytest.raises(ValueError, match='IPU'):
        with static.ipu_shard_guard(0):
            pass
    wrapped = static.set_ipu_shard(lambda x: x, index=1)
    with pytest.raises(ValueError, match='IPU'):
        wrapped(1)


def test_device_guard_and_name_scope_annotate_ops(progs):
    main, start = progs
    x = static.data('x', [2], 'float32')
    with static.device_guard('gpu'):
        y = x * 2.0
    with static.name_scope('outer'):
        with static.name_scope('inner'):
            z = y + 1.0
    w = z - 1.0
    ops = {op.type: op for op in main.global_block().ops}
    assert ops['multiply'].attr('op_device') == 'gpu'
    assert ops['add'].attr('op_namescope') == '/outer/inner/'
    assert ops['add'].attr('op_device') is None
    assert ops['subtract'].attr('op_namescope') is None
    _, (out,) = _run(main, start, {'x': np.array([1.0, 2.0], 'float32')}, [w])
    np.testing.assert_array_equal(out, [2.0, 4.0])      # annotations change nothing else
    with pytest.raises(ValueError):
        with static.device_guard('tpu'):
            pass


def test_create_global_var(progs):
    main, start = progs
    g = static.create_global_var([2, 2], 3.5, 'float32', persistable=True, name='gv')
    h = static.create_global_var([3], 7, 'int64')
    out = g * 2.0
    exe, (a, b) = _run(main, start, {}, [out, h])
    np.testing.assert_array_equal(a, np.full((2, 2), 7.0))
    np.testing.assert_array_equal(b, [7, 7, 7])
    assert g.persistable and g.name == 'gv' and not h.persistable


def test_programs_and_parameters_as_bytes(progs, tmp_path):
    main, start = progs
    x = static.data('x', [None, 3], 'float32')
    y = static.nn.fc(x, 2)
    loss = y.mean()
    exe, _ = _run(main, start, {'x': np.ones((1, 3), 'float32')}, [loss])
    feed = np.random.rand(4, 3).astype('float32')
    expected, = exe.run(main, feed={'x': feed}, fetch_list=[y])
    program_bytes = static.serialize_program([x], [y])
    param_bytes = static.serialize_persistables([x], [y], exe)
    static.save_to_file(str(tmp_path / 'p.bin'), program_bytes)
    assert static.load_from_file(str(tmp_path / 'p.bin')) == program_bytes
    program = static.deserialize_program(program_bytes)
    assert program._feed_names == ['x'] and program._fetch_names == [y.name]
    normalized = static.normalize_program(main, [x], [y])
    assert len(normalized.global_block().ops) < len(main.global_block().ops)
    scope = static.Scope()
    with static.scope_guard(scope):
        static.deserialize_persistables(program, param_bytes, exe)
        got, = static.Executor().run(program, feed={'x': feed}, fetch_list=[y.name])
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    with pytest.raises(ValueError):
        static.deserialize_program(b'not a program')


def test_load_program_state(progs, tmp_path):
    main, start = progs
    x = static.data('x', [None, 3], 'float32')
    y = static.nn.fc(x, 2)
    exe, _ = _run(main, start, {'x': np.ones((1, 3), 'float32')}, [y])
    static.save(main, str(tmp_path / 'model'))
    state = static.load_program_state(str(tmp_path / 'model'))
    w = main.global_block().all_parameters()[0]
    np.testing.assert_array_equal(state[w.name], np.asarray(
        static.global_scope().find_var(w.name).get_tensor()))
    assert list(static.load_program_state(str(tmp_path / 'model'), [w])) == [w.name]
    for name in state:
        state[name] = np.zeros_like(state[name])
    static.set_program_state(main, state)
    out, = exe.run(main, feed={'x': np.ones((1, 3), 'float32')}, fetch_list=[y])
    np.testing.assert_array_equal(out, np.zeros((1, 2)))


def test_exponential_moving_average(progs):
    main, start = progs
    w = static.create_parameter([2], 'float32',
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    x = static.data('x', [2], 'float32')
    loss = (w * x).sum()
    paddle.optimizer.SGD(0.5, parameters=[w]).minimize(loss)
    ema = static.ExponentialMovingAverage(0.9)
    ema.update()
    exe = static.Executor()
    exe.run(start)
    feed = np.array([1.0, -2.0], 'float32')
    value, avg, decay_pow = np.ones(2), np.zeros(2), 1.0
    for _ in range(3):
        exe.run(main, feed={'x': feed})
        value = value - 0.5 * feed
        avg = 0.9 * avg + 0.1 * value
        decay_pow *= 0.9
    scope = static.global_scope()
    current = lambda: np.asarray(scope.find_var(w.name).get_tensor()).copy()
    np.testing.assert_allclose(current(), value, rtol=1e-6)
    with ema.apply(exe):
        np.testing.assert_allclose(current(), avg / (1 - decay_pow), rtol=1e-5)
    np.testing.assert_allclose(current(), value, rtol=1e-6)
    with ema.apply(exe, need_restore=False):
        pass
    ema.restore(exe)
    np.testing.assert_allclose(current(), value, rtol=1e-6)


def test_exponential_moving_average_is_static_only():
    with pytest.raises(RuntimeError, match='dygraph'):
        static.ExponentialMovingAverage()


def test_weight_norm_param_attr(progs):
    main, start = progs
    x = static.data('x', [None, 3], 'float32')
    x.stop_gradient = False
    attr = static.WeightNormParamAttr(dim=1, initializer=paddle.nn.initializer.Assign(
        np.array([[1.0, 2.0], [2.0, 0.0], [2.0, 1.0]], np.float32)))
    w = static.create_parameter([3, 2], 'float32', attr=attr)
    y = paddle.matmul(x, w)
    params = {p.name: p for p in main.global_block().all_parameters()}
    assert sorted(params) == sorted([n for n in params if n.endswith(('_v', '_g'))])
    g = [p for n, p in params.items() if n.endswith('_g')][0]
    v = [p for n, p in params.items() if n.endswith('_v')][0]
    assert g.shape == [1, 2]
    grads = static.gradients(y.sum(), [g, v])
    exe, (w0, gg, gv) = _run(main, start, {'x': np.ones((1, 3), 'float32')}, [w] + grads)
    v0 = np.array([[1.0, 2.0], [2.0, 0.0], [2.0, 1.0]], np.float32)
    np.testing.assert_allclose(w0, v0, rtol=1e-6)        # g starts at ||v||: w = v
    norm = np.linalg.norm(v0, axis=0, keepdims=True)
    np.testing.assert_allclose(gg, (v0 / norm).sum(axis=0, keepdims=True), rtol=1e-6)
    assert gv.shape == (3, 2)
    with pytest.raises(TypeError):
        static.WeightNormParamAttr(dim='0')


def test_py_func_forward_and_backward(progs):
    main, start = progs
    x = static.data('x', [2, 3], 'float32')
    x.stop_gradient = False
    block = main.global_block()
    out = block.create_var(name='tanh_out', shape=[2, 3], dtype='float32')

    def forward(a):
        return np.tanh(a)

    def backward(a, y, dy):
        return np.asarray(dy) * (1 - np.asarray(y) ** 2)
    static.py_func(forward, x, out, backward_func=backward)
    loss = (out * out).sum()
    gx, = static.gradients(loss, [x])
    feed = np.random.rand(2, 3).astype('float32') - 0.5
    _, (y, g) = _run(main, start, {'x': feed}, [out, gx])
    np.testing.assert_allclose(y, np.tanh(feed), rtol=1e-6)
    np.testing.assert_allclose(g, 2 * np.tanh(feed) * (1 - np.tanh(feed) ** 2), rtol=1e-5)


def _rank_auc(p, y):
    pos, neg = p[y == 1], p[y == 0]
    return ((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) \
        / (pos.size * neg.size)


def test_auc_accumulates_over_runs(progs):
    main, start = progs
    predict = static.data('predict', [None, 2], 'float32')
    label = static.data('label', [None], 'int64')
    auc_out, batch_auc, stats = static.auc(predict, label, num_thresholds=10000)
    exe = static.Executor()
    exe.run(start)
    rng = np.random.default_rng(0)
    seen_p, seen_y = [], []
    for _ in range(3):
        p1 = rng.uniform(size=16).astype('float32')
        y = rng.integers(0, 2, size=16)
        a, b = exe.run(main, feed={'predict': np.stack([1 - p1, p1], 1), 'label': y},
                       fetch_list=[auc_out, batch_auc])
        seen_p.append(p1)
        seen_y.append(y)
        bucket = lambda v: np.floor(v * 10000)
        assert b == pytest.approx(_rank_auc(bucket(p1), y))
        assert a == pytest.approx(_rank_auc(bucket(np.concatenate(seen_p)),
                                            np.concatenate(seen_y)))
    assert len(stats) == 4 and all(s.persistable for s in stats)


def test_ctr_metric_bundle(progs):
    main, start = progs
    p = static.data('p', [None, 1], 'float32')
    y = static.data('y', [None, 1], 'int64')
    outs = static.ctr_metric_bundle(p, y)
    exe = static.Executor()
    exe.run(start)
    batches = [(np.array([[0.2], [0.9]], 'float32'), np.array([[0], [1]])),
               (np.array([[0.5]], 'float32'), np.array([[1]]))]
    for pv, yv in batches:
        res = exe.run(main, feed={'p': pv, 'y': yv}, fetch_list=list(outs))
    pv = np.concatenate([b[0] for b in batches]).ravel()
    yv = np.concatenate([b[1] for b in batches]).ravel()
    expected = [((pv - yv) ** 2).sum(), np.abs(pv - yv).sum(), pv.sum(), (pv / (1 - pv)).sum(),
                yv.sum(), 3.0]
    np.testing.assert_allclose([float(r[0]) for r in res], expected, rtol=1e-6)


def test_damaged_program_and_parameter_bytes_give_clean_errors(progs):
    """deserialize_program/persistables are loaders like load_inference_model:
    truncations, byte flips, duplicate keys and compressed members raise
    ModelFormatError, never a raw exception."""
    import io
    import zipfile
    from framework.graph.model_files import ModelFormatError
    main, start = progs
    x = static.data('x', [None, 3], 'float32')
    y = static.nn.fc(x, 2)
    exe, _ = _run(main, start, {'x': np.ones((1, 3), 'float32')}, [y])
    program_bytes = static.serialize_program([x], [y])
    param_bytes = static.serialize_persistables([x], [y], exe)
    program = static.deserialize_program(program_bytes)
    rng = np.random.default_rng(0)
    damaged = [program_bytes[:n] for n in (0, 10, len(program_bytes) // 2)]
    damaged.append(b'{"format": 1, "format": 2}')
    for _ in range(20):
        b = bytearray(program_bytes)
        b[rng.integers(len(b))] ^= 0xFF
        damaged.append(bytes(b))
    for data in damaged:
        try:
            static.deserialize_program(data)
        except ModelFormatError:
            pass
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(param_bytes)) as src, \
            zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, src.read(name))
    bad_params = [param_bytes[:n] for n in (0, 30, len(param_bytes) // 2)] + [buf.getvalue()]
    for data in bad_params:
        with pytest.raises(ModelFormatError):
            static.deserialize_persistables(program, data, exe)
