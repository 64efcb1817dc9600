"""paddle.onnx.export: Programs lowered op by op to ONNX, run in onnxruntime."""
import numpy as np
import pytest

import framework as paddle
from framework.static import InputSpec

onnx = pytest.importorskip('onnx', reason="the 'onnx' extra is not installed")
ort = pytest.importorskip('onnxruntime', reason="the 'onnx' extra is not installed")


def run_onnx(path, *inputs):
    sess = ort.InferenceSession(path, providers=['CPUExecutionProvider'])
    feeds = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
    return sess.run(None, feeds)


def test_mlp_exports_with_a_symbolic_batch_dim(tmp_path):
    paddle.seed(1)
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.ReLU(), paddle.nn.Linear(8, 3))
    path = str(tmp_path / 'mlp')
    paddle.onnx.export(net, path, input_spec=[InputSpec([None, 4], 'float32', 'x')])
    model = onnx.load(path + '.onnx')
    onnx.checker.check_model(model, full_check=True)
    batch = model.graph.input[0].type.tensor_type.shape.dim[0]
    assert batch.dim_param and not batch.HasField('dim_value')
    for n in (1, 7):
        x = np.random.RandomState(n).randn(n, 4).astype('float32')
        got, = run_onnx(path + '.onnx', x)
        np.testing.assert_allclose(got, net(paddle.to_tensor(x)).numpy(), rtol=1e-5, atol=1e-6)


def test_an_op_without_lowering_is_named_with_the_users_line(tmp_path):
    net = paddle.nn.Sequential(paddle.nn.Linear(4, 8), paddle.nn.Tanhshrink())
    with pytest.raises(paddle.onnx.OnnxExportError) as e:
        paddle.onnx.export(net, str(tmp_path / 'bad'), input_spec=[InputSpec([None, 4])])
    msg = str(e.value)
    assert 'tanh_shrink' in msg or 'tanhshrink' in msg.replace('_', '')
    assert 'test_onnx_export.py' in msg
    assert not (tmp_path / 'bad.onnx').exists()
