"""paddle.framework extras (LayerHelper, OpProtoHolder, async_save, io_utils,
recall_error, ...), paddle.flops and the VisualDL / Wandb callbacks."""
import os
import sys
import types
import warnings

import numpy as np
import pytest

import framework as paddle
from framework import nn, static
from framework import framework as F


# ---- paddle.flops -------------------------------------------------------------------

class LeNet(nn.Layer):
    """Paddle's flops docstring network: 347560 FLOPs, 61610 parameters."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(),
                                      nn.MaxPool2D(2, 2), nn.Conv2D(6, 16, 5), nn.ReLU(),
                                      nn.MaxPool2D(2, 2))
        self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

    def forward(self, x):
        return self.fc(paddle.flatten(self.features(x), 1))


def test_flops_of_a_layer_by_paddle_rules(capsys):
    net = LeNet()
    net.train()
    assert paddle.flops(net, [1, 1, 28, 28], print_detail=True) == 347560
    out = capsys.readouterr().out
    assert 'Total Flops: 347560     Total Params: 61610' in out
    assert "Cannot find suitable count function" in out and 'MaxPool2D' in out
    assert net.features[0].full_name() in out and '[1, 6, 28, 28]' in out
    assert net.training                            # the mode is given back
    assert not hasattr(net.features[0], 'total_ops')
    assert set(net.state_dict()) == set(LeNet().state_dict())   # nothing left behind


def test_flops_closed_forms_and_custom_ops(capsys):
    conv = nn.Conv2D(4, 6, 3, groups=2, bias_attr=False)
    # out [1, 6, 6, 6]: 216 outputs * (4 / 2 * 9) multiply-adds
    assert paddle.flops(conv, [1, 4, 8, 8]) == 216 * 18
    bn = nn.Sequential(nn.BatchNorm2D(3), nn.LeakyReLU(), nn.AdaptiveAvgPool2D(2))
    # batch norm 2 * 48, leaky relu 48, adaptive pool (2*2 + 1) * 12
    assert paddle.flops(bn, [1, 3, 4, 4]) == 96 + 48 + 60

    def count_pool(m, x, y):
        m.total_ops += int(np.prod(y.shape)) * 3
    net = nn.Sequential(nn.MaxPool2D(2))
    assert paddle.flops(net, [1, 2, 4, 4], custom_ops={nn.MaxPool2D: count_pool}) == 24
    assert 'Customize Function has been applied' in capsys.readouterr().out
    with pytest.warns(UserWarning, match='Layer or paddle.static.Program'):
        assert paddle.flops(object(), [1]) == -1


def test_flops_of_a_static_program():
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static.program_guard(main, start):
            x = static.data('x', [None, 3, 8, 8], 'float32')
            y = nn.Conv2D(3, 4, 3)(x)                  # [N, 4, 6, 6]
            y = nn.BatchNorm2D(4)(y)
            y = nn.AvgPool2D(2)(y)                     # [N, 4, 3, 3]
            y = paddle.flatten(y, 1)
            nn.Linear(36, 2)(y) * 2.0
        # conv 144 * (27 + 1), bn 2 * 144, pool (4 + 1) * 36, linear 36 * 2 + 2, multiply 2
        assert paddle.flops(main, [1, 3, 8, 8]) == 144 * 28 + 288 + 180 + 74 + 2
    finally:
        paddle.disable_static()


def test_flops_of_a_static_program_count_each_op_by_its_own_formula(capsys):
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static.program_guard(main, start):
            x = static.data('x', [None, 1, 28, 28], 'float32')
            h = static.nn.conv2d(x, 6, 3)                           # [N, 6, 26, 26]
            h = paddle.nn.functional.max_pool2d(h, 2)               # [N, 6, 13, 13]
            h = paddle.reshape(paddle.nn.functional.avg_pool2d(h, 2), [-1, 216])
            w = static.create_parameter([216, 10], 'float32')
            y = paddle.pow(paddle.matmul(h, w) + 1.0, 2.0)
            paddle.maximum(y, paddle.exp(y))                        # exp: Paddle counts 0
            v = static.data('v', [None, 2, 4, 4, 4], 'float32')
            nn.Conv3D(2, 2, 3)(v)                                   # conv3d: Paddle counts 0
        # conv 4056 * 10, max pool (4 + 1) * 1014, avg pool (4 + 1) * 216, matmul
        # 216 * 10, then add, elementwise_pow and maximum 10 each
        assert paddle.flops(main, [1, 1, 28, 28], print_detail=True) == \
            40560 + 5070 + 1080 + 2160 + 30
        table = capsys.readouterr().out
        assert 'elementwise_pow' in table and w.name in table and 'exp' not in table
    finally:
        paddle.disable_static()


# ---- callbacks ----------------------------------------------------------------------

def _fit_with(callback, epochs=2):
    x = np.random.default_rng(0).normal(size=(32, 4)).astype('float32')
    y = (x[:, :1] > 0).astype('int64')
    net = nn.Sequential(nn.Linear(4, 2))
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    data = paddle.io.TensorDataset([x, y])
    model.fit(data, data, batch_size=16, epochs=epochs, verbose=0, callbacks=[callback])


def test_visualdl_callback_writes_scalars(monkeypatch, tmp_path):
    written = []

    class LogWriter:
        def __init__(self, logdir):
            written.append(('open', logdir))

        def add_scalar(self, tag, step, value):
            written.append((tag, step, round(value, 6)))

        def close(self):
            written.append(('close',))
    monkeypatch.setitem(sys.modules, 'visualdl', types.SimpleNamespace(LogWriter=LogWriter))
    _fit_with(paddle.callbacks.VisualDL(str(tmp_path)))
    assert written[0] == ('open', str(tmp_path)) and written[-1] == ('close',)
    train = [w for w in written if w[0] == 'train/loss']
    assert [w[1] for w in train] == [1, 2, 3, 4]            # per step, across epochs
    assert [w[1] for w in written if w[0] == 'eval/acc'] == [0, 1]     # per epoch
    assert all(isinstance(w[2], float) for w in train)


def test_visualdl_without_the_package_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'visualdl', None)
    with pytest.raises(ImportError, match='pip install visualdl'):
        _fit_with(paddle.callbacks.VisualDL(str(tmp_path)), epochs=1)


def test_wandb_callback_logs_to_a_run(monkeypatch):
    logged, defined = [], []

    class Run:
        def define_metric(self, name, step_metric=None):
            defined.append((name, step_metric))

        def log(self, values):
            logged.append(dict(values))

        def finish(self):
            logged.append('finish')
    fake = types.SimpleNamespace(run=None, init=lambda **kw: (logged.append(kw), Run())[1])
    monkeypatch.setitem(sys.modules, 'wandb', fake)
    cb = paddle.callbacks.WandbCallback(project='p', name='n', mode='offline', tags=['x'])
    assert logged[0]['project'] == 'p' and logged[0]['tags'] == ['x']
    _fit_with(cb, epochs=1)
    assert ('train/*', 'train/step') in defined
    steps = [v for v in logged if isinstance(v, dict) and 'train/step' in v]
    assert [v['train/step'] for v in steps] == [1, 2] and 'train/loss' in steps[0]
    assert any(isinstance(v, dict) and v.get('epoch') == 0 and 'eval/acc' in v for v in logged)
    assert logged[-1] == 'finish'
    monkeypatch.setitem(sys.modules, 'wandb', None)
    with pytest.raises(ImportError, match='pip install wandb'):
        paddle.callbacks.WandbCallback()


# ---- paddle.framework ---------------------------------------------------------------

def test_places_answer_as_paddle_cpu():
    for make in (lambda: F.XPUPlace(0), F.IPUPlace, F.XPUPinnedPlace,
                 lambda: F.CustomPlace('npu', 0)):
        with pytest.raises((ValueError, RuntimeError), match='CPU build'):
            make()


def test_async_save_copies_values_now_and_writes_later(tmp_path):
    w = paddle.to_tensor([1.0, 2.0])
    path = str(tmp_path / 'w.pdparams')
    F.async_save({'w': w, 'n': [np.arange(3)]}, path)
    w.set_value(np.array([5.0, 5.0], 'float32'))        # after the call: not saved
    F.clear_async_save_task_queue()
    got = paddle.load(path)
    np.testing.assert_array_equal(got['w'].numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(got['n'][0], [0, 1, 2])
    F.async_save({'w': w}, str(tmp_path / 'missing_dir' / 'x' / 'w.pdparams'))
    F.async_save({'w': w}, path, sync_other_task=True)
    F.clear_async_save_task_queue()
    np.testing.assert_array_equal(paddle.load(path)['w'].numpy(), [5.0, 5.0])
    paddle.enable_static()
    try:
        with pytest.raises(ValueError, match='static mode'):
            F.async_save({}, path)
    finally:
        paddle.disable_static()


def test_async_save_reports_a_failed_write(tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text('x')
    F.async_save({'a': np.ones(2)}, str(blocker / 'sub' / 'a.pdparams'))
    with pytest.raises(RuntimeError, match='async_save'):
        F.clear_async_save_task_queue()


def test_deprecate_stat_dict_and_small_helpers():
    @F.deprecate_stat_dict
    def load(state_dict=None):
        return state_dict
    with pytest.warns(DeprecationWarning, match='stat_dict'):
        assert load(stat_dict={'a': 1}) == {'a': 1}
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert load(state_dict=3) == 3
    assert F.disable_signal_handler() is None
    a, b = F.generate_control_dev_var_name(), F.generate_control_dev_var_name()
    assert a.startswith('control_dep@') and a != b
    F.monkey_patch_math_tensor()
    F.monkey_patch_variable()
    assert (paddle.to_tensor([1.0]) + 1).numpy()[0] == 2.0
    assert F.framework.get_default_dtype() == 'float32'


def test_recall_error():
    R = F.recall_error
    assert R.check_naninf(paddle.to_tensor([1.0, 2.0])) is None
    assert R.check_naninf(paddle.to_tensor([1.0, float('nan')])) == R.LOSS_NAN_ERROR
    assert R.check_naninf(paddle.to_tensor([float('inf')])) == R.LOSS_INF_ERROR
    assert R.LOSS_NAN_ERROR == "PaddleRecall error(102): LossNan"


def test_op_proto_holder_describes_registered_ops():
    holder = F.OpProtoHolder.instance()
    assert holder is F.OpProtoHolder.instance()
    proto = holder.get_op_proto('concat')
    assert proto.type == 'concat' and [i.name for i in proto.inputs] == ['xs']
    assert proto.inputs[0].duplicable and [a.name for a in proto.attrs] == ['axis']
    assert holder.has_op_proto('add') and not holder.has_op_proto('no_such_op')
    with pytest.raises(ValueError, match='no_such_op'):
        holder.get_op_proto('no_such_op')
    assert 'op_role' in F.OpProtoHolder.generated_op_attr_names()


def test_layer_helper_builds_a_static_layer():
    paddle.enable_static()
    try:
        main, start = static.Program(), static.Program()
        with static.program_guard(main, start):
            x = static.data('x', [None, 3], 'float32')
            helper = F.LayerHelper('my_fc', input=x, act='relu', bias_attr=None)
            assert helper.input_dtype() == 'float32' and helper.input() is x
            w = helper.create_parameter(None, [3, 2], 'float32',
                                        default_initializer=paddle.nn.initializer.Constant(0.5))
            assert w.name.startswith('my_fc') and w.name.endswith('.w_0')
            out = helper.create_variable_for_type_inference('float32')
            helper.append_op('matmul', {'x': x, 'y': w}, {'out': out})
            y = helper.append_activation(helper.append_bias_op(out))
            assert F.ir.get_data_vars(main) == ['x']
            with pytest.raises(Exception, match='nope'):
                helper.append_op('nope', {}, {})
        exe = static.Executor()
        exe.run(start)
        feed = np.array([[1.0, -4.0, 1.0]], 'float32')
        (got,) = exe.run(main, feed={'x': feed}, fetch_list=[y])
        np.testing.assert_allclose(got, np.maximum(feed @ np.full((3, 2), 0.5), 0))
        # io_utils read and write the scope
        assert F.io_utils.is_parameter(w) and not F.is_belong_to_optimizer(w)
        np.testing.assert_array_equal(F.io_utils.get_value(w), np.full((3, 2), 0.5))
        F.io_utils.set_value(w, np.ones((3, 2), 'float32'))
        (got,) = exe.run(main, feed={'x': feed}, fetch_list=[y])
        np.testing.assert_allclose(got, np.maximum(feed @ np.ones((3, 2)), 0))
        with pytest.raises(ValueError, match='shape'):
            F.io_utils.set_value(w, np.ones(4))
    finally:
        paddle.disable_static()


def test_layer_helper_eager_parameters():
    helper = F.LayerHelper('thing')
    p = helper.create_parameter(None, [2], 'float32', is_bias=True)
    assert isinstance(p, paddle.Tensor) and not p.stop_gradient and p.name.endswith('.b_0')
    assert helper.create_parameter(False, [2]) is None


# ---- signatures as Paddle's ----------------------------------------------------------

def test_grad_dumps_the_backward_graph(tmp_path):
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    path = str(tmp_path / 'g.txt')
    (g,) = paddle.grad([(x * x).sum()], [x], dump_backward_graph_path=path)
    np.testing.assert_array_equal(g.numpy(), [2.0, 4.0])
    text = open(path).read()
    assert 'multiply_grad' in text and 'sum_grad' in text
    assert F.grad is paddle.grad


def test_seed_dataloader_to_static_input_spec_keywords():
    paddle.seed(seed=3)
    a = paddle.rand([2]).numpy()
    paddle.seed(3)
    np.testing.assert_array_equal(a, paddle.rand([2]).numpy())
    data = paddle.io.TensorDataset([np.arange(6, dtype='float32').reshape(6, 1)])
    loader = paddle.io.DataLoader(data, batch_size=4, reader_buffer_size=3)
    assert loader.reader_buffer_size == 3 and [b[0].shape for b in loader] == [[4, 1], [2, 1]]
    with pytest.raises(ValueError, match='reader_buffer_size'):
        paddle.io.DataLoader(data, reader_buffer_size=0)

    def f(x):
        return x * 2 if x.sum() > 0 else -x
    for backend in ('CINN', None):
        sf = paddle.jit.to_static(f, backend=backend)
        np.testing.assert_array_equal(sf(paddle.to_tensor([1.0])).numpy(), [2.0])
    assert paddle.jit.to_static(f, full_graph=True)(paddle.to_tensor([-1.0])).numpy()[0] == 1.0
    with pytest.raises(ValueError, match='backend'):
        paddle.jit.to_static(f, backend='TVM')
    with pytest.raises(TypeError):
        static.InputSpec()
