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


class SingularValues(paddle.nn.Layer):
    """A model with an op ONNX has no operator for (an SVD)."""
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(4, 4)

    def forward(self, x):
        h = paddle.reshape(self.fc(x), [-1, 2, 2])
        return paddle.linalg.svd(h)[1]


def test_an_op_without_lowering_is_named_with_the_users_line(tmp_path):
    with pytest.raises(paddle.onnx.OnnxExportError) as e:
        paddle.onnx.export(SingularValues(), str(tmp_path / 'bad'),
                           input_spec=[InputSpec([None, 4])])
    msg = str(e.value)
    assert 'svd' in msg and '1 op type' in msg
    assert 'test_onnx_export.py' in msg          # the user's line
    assert not (tmp_path / 'bad.onnx').exists()


def run_all(path, inputs):
    sess = ort.InferenceSession(path, providers=['CPUExecutionProvider'])
    return sess.run(None, {i.name: x for i, x in zip(sess.get_inputs(), inputs)})


def small_cnn():
    paddle.seed(5)
    net = paddle.nn.Sequential(
        paddle.nn.Conv2D(3, 8, 3, padding=1), paddle.nn.BatchNorm2D(8), paddle.nn.ReLU(),
        paddle.nn.Conv2D(8, 8, 3, stride=2, padding='SAME', groups=2, bias_attr=False),
        paddle.nn.BatchNorm2D(8), paddle.nn.Hardswish(), paddle.nn.AdaptiveAvgPool2D(1),
        paddle.nn.Flatten(), paddle.nn.Dropout(0.5), paddle.nn.Linear(8, 4))
    rng = np.random.RandomState(0)
    for layer in net.sublayers():
        if isinstance(layer, paddle.nn.BatchNorm2D):
            layer._mean.set_value(rng.uniform(-1, 1, 8).astype('float32'))
            layer._variance.set_value(rng.uniform(0.5, 2, 8).astype('float32'))
            layer.weight.set_value(rng.uniform(0.5, 2, 8).astype('float32'))
    net.eval()
    return net


CNN_SPEC = [InputSpec([None, 3, 9, 9], 'float32', 'image')]


def cnn_inputs(n):
    return [np.random.RandomState(n).randn(n, 3, 9, 9).astype('float32')]


def test_fold_batch_norm_removes_the_batch_norm_nodes_and_matches(tmp_path):
    net = small_cnn()
    plain = paddle.onnx.export(net, str(tmp_path / 'plain'), input_spec=CNN_SPEC)
    folded = paddle.onnx.export(net, str(tmp_path / 'folded'), input_spec=CNN_SPEC,
                                fold_batch_norm=True)
    assert sum(n.op_type == 'BatchNormalization' for n in plain.graph.node) == 2
    assert not any(n.op_type == 'BatchNormalization' for n in folded.graph.node)
    assert sum(n.op_type == 'Conv' for n in folded.graph.node) == 2
    assert not any(n.op_type == 'Dropout' for n in folded.graph.node)
    for n in (1, 4):
        x = cnn_inputs(n)
        want = net(paddle.to_tensor(x[0])).numpy()
        for path in ('plain', 'folded'):
            got, = run_all(str(tmp_path / path) + '.onnx', x)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_batch_norm_whose_conv_output_is_also_used_is_not_folded(tmp_path):
    class Branch(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(3, 4, 1)
            self.bn = paddle.nn.BatchNorm2D(4)

        def forward(self, x):
            h = self.conv(x)
            return self.bn(h) + h

    net = Branch()
    net.eval()
    model = paddle.onnx.export(net, str(tmp_path / 'b'), input_spec=CNN_SPEC,
                               fold_batch_norm=True)
    assert any(n.op_type == 'BatchNormalization' for n in model.graph.node)
    x = cnn_inputs(2)
    got, = run_all(str(tmp_path / 'b.onnx'), x)
    np.testing.assert_allclose(got, net(paddle.to_tensor(x[0])).numpy(), rtol=1e-5, atol=1e-6)


def test_export_of_a_function_and_of_to_static_forms(tmp_path):
    w = paddle.to_tensor(np.random.RandomState(0).randn(4, 3).astype('float32'))

    def fn(x):
        return paddle.nn.functional.gelu(paddle.matmul(x, w)) * 2.0 - x.mean()

    spec = [InputSpec([None, 4], 'float32', 'x')]
    x = np.random.RandomState(1).randn(5, 4).astype('float32')
    want = fn(paddle.to_tensor(x)).numpy()
    paddle.onnx.export(fn, str(tmp_path / 'fn'), input_spec=spec)
    np.testing.assert_allclose(run_all(str(tmp_path / 'fn.onnx'), [x])[0], want, rtol=1e-5,
                               atol=1e-6)
    # a @to_static function exports with its own input_spec
    static_fn = paddle.jit.to_static(fn, input_spec=spec)
    paddle.onnx.export(static_fn, str(tmp_path / 'sfn'))
    np.testing.assert_allclose(run_all(str(tmp_path / 'sfn.onnx'), [x])[0], want, rtol=1e-5,
                               atol=1e-6)
    # a @to_static Layer
    net = paddle.jit.to_static(small_cnn(), input_spec=CNN_SPEC)
    paddle.onnx.export(net, str(tmp_path / 'sub' / 'net'))     # the directory is made
    xi = cnn_inputs(3)
    np.testing.assert_allclose(run_all(str(tmp_path / 'sub' / 'net.onnx'), xi)[0],
                               net(paddle.to_tensor(xi[0])).numpy(), rtol=1e-5, atol=1e-6)


def test_output_spec_selects_the_outputs(tmp_path):
    class Two(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)

        def forward(self, x):
            h = self.fc(x)
            return paddle.nn.functional.softmax(h), paddle.tanh(h)

    net = Two()
    model = paddle.onnx.export(net, str(tmp_path / 'two'),
                               input_spec=[InputSpec([None, 4], 'float32', 'x')],
                               output_spec=[1])
    assert len(model.graph.output) == 1
    x = np.random.RandomState(0).randn(2, 4).astype('float32')
    got = run_all(str(tmp_path / 'two.onnx'), [x])
    np.testing.assert_allclose(got[0], net(paddle.to_tensor(x))[1].numpy(), rtol=1e-5)


def _static_program():
    """A training-style static program: data, fc, batch norm, dropout, softmax."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data('x', [None, 6], 'float32')
        h = paddle.static.nn.fc(x, 8, activation='relu')
        h = paddle.static.nn.batch_norm(h)
        h = paddle.nn.functional.dropout(h, 0.5, training=True)
        out = paddle.nn.functional.softmax(paddle.static.nn.fc(h, 3))
    return main, startup, x, out


def test_static_program_exports_through_save_inference_model_and_export_program(tmp_path):
    paddle.enable_static()
    try:
        main, startup, x, out = _static_program()
        exe = paddle.static.Executor()
        exe.run(startup)
        xv = np.random.RandomState(0).randn(5, 6).astype('float32')
        test_prog = main.clone(for_test=True)
        want, = exe.run(test_prog, feed={'x': xv}, fetch_list=[out])
        prefix = str(tmp_path / 'static')
        paddle.static.save_inference_model(prefix, [x], [out], exe, program=main, format='onnx')
        paddle.onnx.export_program(str(tmp_path / 'prog'), [x], [out], program=main)
        with pytest.raises(ValueError, match='format'):
            paddle.static.save_inference_model(prefix, [x], [out], exe, program=main,
                                               format='tflite')
    finally:
        paddle.disable_static()
    for path in (prefix, str(tmp_path / 'prog')):
        model = onnx.load(path + '.onnx')
        onnx.checker.check_model(model, full_check=True)
        assert not any(n.op_type == 'Dropout' for n in model.graph.node)
        got, = run_all(path + '.onnx', [xv])
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        got1, = run_all(path + '.onnx', [xv[:1]])      # another batch size
        np.testing.assert_allclose(got1, want[:1], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('opset', [13, 18, onnx.defs.onnx_opset_version()])
def test_every_supported_opset_exports_the_same_model(opset, tmp_path):
    class Mixed(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.cnn = small_cnn()
            self.norm = paddle.nn.LayerNorm(4)

        def forward(self, x):
            h = self.norm(self.cnn(x))
            return h.max(axis=-1, keepdim=True) + h.mean(axis=0) - paddle.logsumexp(h, axis=1,
                                                                                keepdim=True)
    net = Mixed()
    net.eval()
    model = paddle.onnx.export(net, str(tmp_path / 'm'), input_spec=CNN_SPEC,
                               opset_version=opset)
    assert model.opset_import[0].version == opset
    x = cnn_inputs(3)
    np.testing.assert_allclose(run_all(str(tmp_path / 'm.onnx'), x)[0],
                               net(paddle.to_tensor(x[0])).numpy(), rtol=1e-5, atol=1e-5)


def test_opset_and_configs_are_checked(tmp_path):
    net = paddle.nn.Linear(4, 2)
    spec = [InputSpec([None, 4], 'float32', 'x')]
    path = str(tmp_path / 'lin')
    with pytest.raises(paddle.onnx.OnnxExportError, match='opset_version=999'):
        paddle.onnx.export(net, path, input_spec=spec, opset_version=999)
    with pytest.raises(TypeError, match='opset_version'):
        paddle.onnx.export(net, path, input_spec=spec, opset_version='17')
    with pytest.raises(paddle.onnx.OnnxExportError, match='opset_version=9'):
        paddle.onnx.export(net, path, input_spec=spec, opset_version=9, auto_update_opset=False)
    with pytest.raises(ValueError, match="'bogus'"):
        paddle.onnx.export(net, path, input_spec=spec, bogus=1)
    with pytest.raises(ValueError, match='file prefix'):
        paddle.onnx.export(net, str(tmp_path) + '/', input_spec=spec)
    assert not (tmp_path / 'lin.onnx').exists()
    # Paddle's default opset (9) is raised to the oldest one written, as paddle2onnx does
    with pytest.warns(UserWarning, match='raised to 13'):
        model = paddle.onnx.export(net, path, input_spec=spec, opset_version=9,
                                   enable_onnx_checker=True)
    assert model.opset_import[0].version == 13
    assert (tmp_path / 'lin.onnx').exists()
