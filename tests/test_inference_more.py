"""paddle.inference: the enums and helpers, Config switches, Tensor handles,
PredictorPool, models from memory and convert_to_mixed_precision."""
import json
import os

import numpy as np
import pytest

import framework as paddle
import framework.nn as nn
import framework.nn.functional as F
from framework import inference as I


class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, bias_attr=False)
        self.bn = nn.BatchNorm2D(4)
        self.fc = nn.Linear(4 * 6 * 6, 5)

    def forward(self, x):
        return F.softmax(self.fc(F.relu(self.bn(self.conv(x))).flatten(1)))


@pytest.fixture
def model(tmp_path):
    paddle.seed(3)
    net = _Net()
    net.eval()
    prefix = str(tmp_path / 'm')
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 3, 8, 8],
                                                                     'float32', 'x')])
    return net, prefix


def _run(config, x):
    pred = I.create_predictor(config)
    h = pred.get_input_handle(pred.get_input_names()[0])
    h.copy_from_cpu(x)
    pred.run()
    return pred, pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()


def test_enums_and_helpers():
    assert int(I.DataType.FLOAT32) == 0 and int(I.DataType.BFLOAT16) == 8
    assert int(I.PrecisionType.Half) == 2 and int(I.PlaceType.GPU) == 1
    assert I.get_num_bytes_of_data_type(I.DataType.FLOAT64) == 8
    assert I.get_num_bytes_of_data_type(I.DataType.FLOAT16) == 2
    with pytest.raises(ValueError):
        I.get_num_bytes_of_data_type(42)
    assert I.get_trt_compile_version() == (0, 0, 0) == I.get_trt_runtime_version()
    assert I.get_version().startswith('version: ')
    assert I.Config.Precision is I.PrecisionType and I.Config.Half == I.PrecisionType.Half


def test_config_switches_answer_as_paddle_cpu(model):
    _, prefix = model
    c = I.Config(prefix + '.pdmodel', prefix + '.pdiparams')
    assert c.ir_optim() and not c.use_gpu() and c.cpu_math_library_num_threads() == 1
    c.switch_ir_optim(False)
    c.set_cpu_math_library_num_threads(4)
    assert not c.ir_optim() and c.cpu_math_library_num_threads() == 4
    with pytest.warns(UserWarning, match='GPU'):
        c.enable_use_gpu(100, 0)
    assert not c.use_gpu()
    with pytest.raises(RuntimeError, match='XPU'):
        c.enable_xpu()
    xc = I.XpuConfig()
    xc.device_id = 1
    c.set_xpu_config(xc)
    assert c.xpu_config().device_id == 1
    c.disable_glog_info()
    assert c.glog_info_disabled()
    assert 'cpu_math_thread' in c.summary()


def test_tensor_handles_and_pool(model):
    net, prefix = model
    x = np.random.rand(2, 3, 8, 8).astype('float32')
    pool = I.PredictorPool(I.Config(prefix), 2)
    pred = pool.retrieve(1)
    h = pred.get_input_handle('x')
    assert h.name() == 'x' and h.type() == I.DataType.FLOAT32
    h.share_external_data(paddle.to_tensor(x))
    h.set_lod([[0, 1, 2]])
    assert h.lod() == [[0, 1, 2]]
    seen = []
    pred.register_output_hook(lambda op, name, t: seen.append((op, name, t.shape)))
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0])
    np.testing.assert_allclose(out.copy_to_cpu(), net(paddle.to_tensor(x)).numpy(), rtol=1e-5)
    assert out.shape() == [2, 5] and seen[0][2] == (2, 5)
    tensors = pool.retrieve(0).run([paddle.to_tensor(x)])
    np.testing.assert_allclose(tensors[0].numpy(), out.copy_to_cpu(), rtol=1e-6)
    assert pred.try_shrink_memory() == 0
    with pytest.raises(IndexError):
        pool.retrieve(2)


def test_model_from_memory(model):
    net, prefix = model
    prog = open(prefix + '.pdmodel', 'rb').read()
    params = open(prefix + '.pdiparams', 'rb').read()
    c = I.Config()
    c.set_model_buffer(prog, len(prog), params, len(params))
    assert c.model_from_memory()
    x = np.random.rand(1, 3, 8, 8).astype('float32')
    _, out = _run(c, x)
    np.testing.assert_allclose(out, net(paddle.to_tensor(x)).numpy(), rtol=1e-5)


def test_convert_to_float16_keeps_io_types(model, tmp_path):
    net, prefix = model
    mixed = str(tmp_path / 'mixed')
    I.convert_to_mixed_precision(prefix + '.pdmodel', prefix + '.pdiparams', mixed + '.pdmodel',
                                 mixed + '.pdiparams', I.PrecisionType.Half, I.PlaceType.CPU)
    x = np.random.rand(2, 3, 8, 8).astype('float32')
    pred, out = _run(I.Config(mixed + '.pdmodel', mixed + '.pdiparams'), x)
    ref = net(paddle.to_tensor(x)).numpy()
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, atol=2e-3)
    assert pred.get_output_names() == I.create_predictor(I.Config(prefix)).get_output_names()
    # what auto_cast would do: conv and linear weights stored in float16, the
    # batch norm statistics and softmax in float32
    program = json.load(open(mixed + '.pdmodel'))
    ops = [op['type'] for op in program['program']['blocks'][0]['ops']]
    assert ops.count('cast') >= 2 and 'softmax' in ops
    with np.load(mixed + '.pdiparams', allow_pickle=False) as z:
        dtypes = {str(z[k].dtype) for k in z.files}
    assert dtypes == {'float16', 'float32'}
    assert os.path.getsize(mixed + '.pdiparams') < os.path.getsize(prefix + '.pdiparams')


def test_convert_with_black_list_and_bfloat16(model, tmp_path):
    pytest.importorskip('ml_dtypes')
    net, prefix = model
    mixed = str(tmp_path / 'bf')
    I.convert_to_mixed_precision(prefix + '.pdmodel', prefix + '.pdiparams', mixed + '.pdmodel',
                                 mixed + '.pdiparams', I.PrecisionType.Bfloat16, I.PlaceType.CPU,
                                 keep_io_types=False, black_list={'linear_v2'})
    x = np.random.rand(2, 3, 8, 8).astype('float32')
    pred = I.create_predictor(I.Config(mixed + '.pdmodel', mixed + '.pdiparams'))
    h = pred.get_input_handle('x')
    assert h.type() == I.DataType.BFLOAT16          # inputs take the low dtype
    h.copy_from_cpu(x.astype(paddle.dtype.convert_dtype('bfloat16')))
    pred.run()
    out = pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out.astype('float32'), net(paddle.to_tensor(x)).numpy(), atol=2e-2)
    with pytest.raises(ValueError, match='PrecisionType'):
        I.convert_to_mixed_precision(prefix + '.pdmodel', prefix + '.pdiparams',
                                     mixed + '.pdmodel', mixed + '.pdiparams',
                                     I.PrecisionType.Int8, I.PlaceType.CPU)


class _MLP(nn.Layer):
    """A fully connected layer written as matmul + bias + relu."""

    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([6, 8])
        self.b = self.create_parameter([8], is_bias=True)

    def forward(self, x):
        return F.relu(paddle.matmul(x, self.w) + self.b)


def test_fc_passes_and_ir_optim_switch_the_predictors_passes(tmp_path):
    paddle.seed(4)
    net = _MLP()
    net.eval()
    prefix = str(tmp_path / 'mlp')
    paddle.jit.save(net, prefix, input_spec=[paddle.static.InputSpec([None, 6], 'float32', 'x')])
    x = np.random.default_rng(5).standard_normal((4, 6)).astype(np.float32)
    want = net(paddle.to_tensor(x)).numpy()
    outs, codes = [], []
    for switch in (None, 'fc', 'ir'):
        config = I.Config(prefix + '.json' if os.path.exists(prefix + '.json')
                          else prefix + '.pdmodel', prefix + '.pdiparams')
        if switch == 'fc':
            config.disable_onednn_fc_passes()
        elif switch == 'ir':
            config.switch_ir_optim(False)
        pred = I.create_predictor(config)
        h = pred.get_input_handle(pred.get_input_names()[0])
        h.copy_from_cpu(x)
        pred.run()
        outs.append(pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu())
        codes.append(pred._exe.generated_code(pred._compiled, feed={'x': x},
                                              fetch_list=pred._fetch))
    for out in outs:
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    # the FC fusion only off, then every pass off (no in-place buffer reuse either)
    assert 'fused_matmul_bias_act' in codes[0], codes[0]
    assert 'fused_matmul_bias_act' not in codes[1] and '_inplace' in codes[1], codes[1]
    assert 'fused' not in codes[2] and '_inplace' not in codes[2], codes[2]
    assert I.Config.disable_mkldnn_fc_passes is I.Config.disable_onednn_fc_passes
