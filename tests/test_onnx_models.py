"""Whole models through ``paddle.onnx.export``: the vision zoo, the MNIST demo's
LeNet and a Transformer encoder. Each is exported with a symbolic batch
dimension, re-loaded with ``onnx.load``, passed through the full checker and
run in onnxruntime on two batch sizes; outputs match the framework's eager
forward (eval mode) within 1e-5 relative."""
import numpy as np
import pytest

import framework as paddle
from framework.static import InputSpec

onnx = pytest.importorskip('onnx', reason="the 'onnx' extra is not installed")
ort = pytest.importorskip('onnxruntime', reason="the 'onnx' extra is not installed")

M = paddle.vision.models


def with_running_stats(net, seed=0):
    """``net`` with random batch-norm running statistics (fresh ones are 0 and
    1, which would not test that inference uses them)."""
    rng = np.random.RandomState(seed)
    for layer in net.sublayers():
        if isinstance(layer, paddle.nn.layer.norm._BatchNormBase):
            c = layer._mean.shape[0]
            layer._mean.set_value(rng.uniform(-0.5, 0.5, c).astype('float32'))
            layer._variance.set_value(rng.uniform(0.5, 2.0, c).astype('float32'))
    return net


def export_and_compare(net, specs, make_inputs, tmp_path, batches=(1, 3), **configs):
    """Export ``net``, check the file, run it on each batch size against eager."""
    net.eval()
    path = str(tmp_path / 'model')
    paddle.onnx.export(net, path, input_spec=specs, **configs)
    model = onnx.load(path + '.onnx')
    onnx.checker.check_model(model, full_check=True)
    sess = ort.InferenceSession(path + '.onnx', providers=['CPUExecutionProvider'])
    for n in batches:
        inputs = make_inputs(n)
        got = sess.run(None, {i.name: x for i, x in zip(sess.get_inputs(), inputs)})
        want = net(*[paddle.to_tensor(x) for x in inputs])
        want = want if isinstance(want, (list, tuple)) else [want]
        assert len(got) == len(want)
        for o, w in zip(got, want):
            w = w.numpy()
            assert o.shape == w.shape
            np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-5 * max(np.abs(w).max(), 1e-3))
    return model


def images(size, channels=3):
    return lambda n: [np.random.RandomState(n).randn(n, channels, size, size).astype('float32')]


def image_spec(size, channels=3):
    return [InputSpec([None, channels, size, size], 'float32', 'image')]


VISION = {
    'lenet': (lambda: M.LeNet(num_classes=10), 28, 1),
    'vgg11': (lambda: M.vgg11(num_classes=10), 32, 3),
    'vgg11_bn': (lambda: M.vgg11(batch_norm=True, num_classes=10), 32, 3),
    'resnet18': (lambda: M.resnet18(num_classes=10), 32, 3),
    'mobilenet_v1': (lambda: M.mobilenet_v1(scale=0.25, num_classes=10), 32, 3),
    'mobilenet_v2': (lambda: M.mobilenet_v2(scale=0.25, num_classes=10), 32, 3),
    'mobilenet_v3_small': (lambda: M.mobilenet_v3_small(scale=0.35, num_classes=10), 32, 3),
    'mobilenet_v3_large': (lambda: M.mobilenet_v3_large(scale=0.35, num_classes=10), 32, 3),
    'squeezenet1_0': (lambda: M.squeezenet1_0(num_classes=10), 64, 3),
    'squeezenet1_1': (lambda: M.squeezenet1_1(num_classes=10), 64, 3),
    'shufflenet_v2_x0_25': (lambda: M.shufflenet_v2_x0_25(num_classes=10), 32, 3),
    'shufflenet_v2_swish': (lambda: M.shufflenet_v2_swish(num_classes=10), 32, 3),
}

# the bigger members of the zoo (each a few seconds to a minute in our eager forward)
VISION_SLOW = {
    'resnet50': (lambda: M.resnet50(num_classes=10), 32, 3),
    'resnext50_32x4d': (lambda: M.resnext50_32x4d(num_classes=10), 32, 3),
    'wide_resnet50_2': (lambda: M.wide_resnet50_2(num_classes=10), 32, 3),
    'densenet121': (lambda: M.densenet121(num_classes=10), 32, 3),
    'inception_v3': (lambda: M.inception_v3(num_classes=10), 96, 3),
    'googlenet': (lambda: M.googlenet(num_classes=10), 224, 3),
    'alexnet': (lambda: M.alexnet(num_classes=10), 224, 3),
}


@pytest.mark.parametrize('name', sorted(VISION))
def test_vision_model_matches_onnxruntime(name, tmp_path):
    make, size, channels = VISION[name]
    paddle.seed(7)
    net = with_running_stats(make())
    export_and_compare(net, image_spec(size, channels), images(size, channels), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize('name', sorted(VISION_SLOW))
def test_big_vision_model_matches_onnxruntime(name, tmp_path):
    make, size, channels = VISION_SLOW[name]
    paddle.seed(7)
    net = with_running_stats(make())
    export_and_compare(net, image_spec(size, channels), images(size, channels), tmp_path,
                       batches=(1, 2))


def test_mnist_demo_lenet_after_training_matches(tmp_path):
    """The demo's model (LeNet on 1x28x28 images) after a few training steps,
    exported from its ``@to_static`` form as the demo saves it."""
    paddle.seed(2024)
    net = M.LeNet(num_classes=10)
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    rng = np.random.RandomState(0)
    for _ in range(3):
        x = paddle.to_tensor(rng.randn(8, 1, 28, 28).astype('float32'))
        y = paddle.to_tensor(rng.randint(0, 10, (8, 1)).astype('int64'))
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    static_net = paddle.jit.to_static(net, input_spec=image_spec(28, 1))
    export_and_compare(static_net, None, images(28, 1), tmp_path)


class Encoder(paddle.nn.Layer):
    """A Transformer encoder classifier: attention with an additive mask,
    layer_norm (pre- and post-norm), gelu and relu feed-forwards, dropout."""
    def __init__(self, d_model=16, heads=2, layers=2, normalize_before=False, act='gelu'):
        super().__init__()
        layer = paddle.nn.TransformerEncoderLayer(d_model, heads, 32, dropout=0.1,
                                                  activation=act,
                                                  normalize_before=normalize_before)
        self.encoder = paddle.nn.TransformerEncoder(
            layer, layers, paddle.nn.LayerNorm(d_model) if normalize_before else None)
        self.head = paddle.nn.Linear(d_model, 3)

    def forward(self, x, mask):
        h = self.encoder(x, mask)
        return paddle.nn.functional.softmax(self.head(h.mean(axis=1)), axis=-1), h


def encoder_inputs(n, seq=5, d=16, heads=2):
    rng = np.random.RandomState(n)
    x = rng.randn(n, seq, d).astype('float32')
    # an additive mask hiding the padded tail of each sequence
    lengths = rng.randint(2, seq + 1, n)
    keep = np.arange(seq)[None, :] < lengths[:, None]
    mask = np.where(keep, 0.0, -1e9).astype('float32')[:, None, None, :]
    return [x, np.broadcast_to(mask, (n, heads, seq, seq)).copy()]


@pytest.mark.parametrize('normalize_before,act', [(False, 'gelu'), (True, 'relu')])
def test_transformer_encoder_matches(normalize_before, act, tmp_path):
    paddle.seed(3)
    net = Encoder(normalize_before=normalize_before, act=act)
    specs = [InputSpec([None, 5, 16], 'float32', 'x'),
             InputSpec([None, 2, 5, 5], 'float32', 'mask')]
    model = export_and_compare(net, specs, encoder_inputs, tmp_path)
    types = {n.op_type for n in model.graph.node}
    assert 'Dropout' not in types and 'Softmax' in types


def test_encoder_with_a_bool_mask(tmp_path):
    """MultiHeadAttention with a bool mask (True = attend), converted inside."""
    paddle.seed(4)

    class Attend(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.attn = paddle.nn.MultiHeadAttention(16, 4)

        def forward(self, x, mask):
            return self.attn(x, x, x, attn_mask=mask)

    def inputs(n):
        x, m = encoder_inputs(n, heads=4)
        return [x, m == 0]

    specs = [InputSpec([None, 5, 16], 'float32', 'x'), InputSpec([None, 4, 5, 5], 'bool', 'm')]
    export_and_compare(Attend(), specs, inputs, tmp_path)


@pytest.mark.parametrize('name', ['resnet18', 'mobilenet_v3_small'])
def test_unknown_image_sizes_stay_dynamic(name, tmp_path):
    """Height and width given as None: one file serves every image size."""
    make, _, channels = VISION[name]
    paddle.seed(8)
    net = with_running_stats(make())
    net.eval()
    path = str(tmp_path / 'dyn')
    model = paddle.onnx.export(net, path, input_spec=[
        InputSpec([None, channels, None, None], 'float32', 'image')])
    dims = model.graph.input[0].type.tensor_type.shape.dim
    assert [bool(d.dim_param) for d in dims] == [True, False, True, True]
    sess = ort.InferenceSession(path + '.onnx', providers=['CPUExecutionProvider'])
    for shape in [(1, channels, 32, 32), (2, channels, 48, 40)]:
        x = np.random.RandomState(shape[0]).randn(*shape).astype('float32')
        want = net(paddle.to_tensor(x)).numpy()
        got, = sess.run(None, {'image': x})
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())
