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
