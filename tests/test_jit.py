"""jit.save / jit.load, TracedLayer, and the Paddle 1.8 (fluid) forms of the seed examples."""
import os
import subprocess
import sys

import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework import nn
from framework.static import InputSpec

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SmallNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    @paddle.jit.to_static
    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.sum() > 1.0:
            h = h * 0.5
        return self.fc2(h)


def run_fresh(code):
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_jit_save_load_in_fresh_process_and_predictor(tmp_path):
    paddle.seed(3)
    net = SmallNet()
    net.eval()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype('float32')
    expected = net(paddle.to_tensor(x)).numpy()
    path = str(tmp_path / 'small')
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], 'float32', 'x')])
    np.save(path + '.x.npy', x)
    np.save(path + '.y.npy', expected)
    out = run_fresh("""
import numpy as np, framework as paddle
from framework.inference import Config, create_predictor
p = %r
x, y = np.load(p + '.x.npy'), np.load(p + '.y.npy')
layer = paddle.jit.load(p)
layer.eval()
assert np.allclose(layer(paddle.to_tensor(x)).numpy(), y, atol=1e-6)
paddle.enable_static()
exe = paddle.static.Executor()
prog, feeds, fetches = paddle.static.load_inference_model(p, exe)
assert np.allclose(exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)[0], y, atol=1e-6)
paddle.disable_static()
pred = create_predictor(Config(p + '.pdmodel', p + '.pdiparams'))
h = pred.get_input_handle(pred.get_input_names()[0]); h.copy_from_cpu(x); pred.run()
assert np.allclose(pred.get_output_handle(pred.get_output_names()[0]).copy_to_cpu(), y, atol=1e-6)
print('OK')
""" % path)
    assert 'OK' in out


def test_translated_layer_is_fine_tunable(tmp_path):
    paddle.seed(1)
    net = SmallNet()
    path = str(tmp_path / 'ft')
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 4], 'float32')])
    layer = paddle.jit.load(path)
    params = layer.parameters()
    assert len(params) == 4
    opt = paddle.optimizer.SGD(0.1, parameters=params)
    x = paddle.to_tensor(np.ones((2, 4), 'float32'))
    before = layer(x).numpy()
    loss = (layer(x) ** 2).mean()
    loss.backward()
    assert all(p.grad is not None for p in params)
    opt.step()
    assert not np.allclose(layer(x).numpy(), before)


def test_traced_layer_round_trip(tmp_path):
    paddle.seed(2)
    net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((2, 3)).astype('float32'))
    out, traced = paddle.jit.TracedLayer.trace(net, inputs=[x])
    np.testing.assert_allclose(traced([x]).numpy(), out.numpy(), rtol=1e-6)
    path = str(tmp_path / 'traced')
    traced.save_inference_model(path)
    np.save(path + '.x.npy', x.numpy())
    np.save(path + '.y.npy', out.numpy())
    assert 'OK' in run_fresh("""
import numpy as np, framework as paddle
p = %r
layer = paddle.jit.load(p)
assert np.allclose(layer(paddle.to_tensor(np.load(p + '.x.npy'))).numpy(), np.load(p + '.y.npy'),
                   atol=1e-6)
print('OK')
""" % path)


def test_program_translator_get_output_and_save(tmp_path):
    def fn(x):
        if x.mean() > 0:
            return x + 1
        return x - 1
    pt = paddle.jit.ProgramTranslator()
    x = paddle.to_tensor([1.0, 2.0])
    assert pt.get_output(fn, x).tolist() == [2.0, 3.0]
    main, startup, inputs, outputs = pt.get_program(fn, x)
    assert any(op.type == 'cond' for op in main.global_block().ops)
    assert 'IfElse' in pt.get_code(fn)
    pt.save_inference_model(str(tmp_path / 'pt'))
    assert os.path.exists(str(tmp_path / 'pt' / 'model.pdmodel'))


# ---- the seed's MNIST example in its Paddle 1.8 (fluid) form ------------------------------

fluid = paddle.fluid


class SimpleImgConvPool(fluid.dygraph.Layer):
    def __init__(self, num_channels, num_filters, filter_size, pool_size, pool_stride,
                 pool_padding=0, pool_type='max', act=None):
        super().__init__()
        self._conv2d = fluid.dygraph.Conv2D(num_channels=num_channels, num_filters=num_filters,
                                            filter_size=filter_size, act=act)
        self._pool2d = fluid.dygraph.Pool2D(pool_size=pool_size, pool_type=pool_type,
                                            pool_stride=pool_stride, pool_padding=pool_padding)

    def forward(self, inputs):
        return self._pool2d(self._conv2d(inputs))


class MNIST(fluid.dygraph.Layer):
    def __init__(self):
        super().__init__()
        self._conv_pool_1 = SimpleImgConvPool(1, 20, 5, 2, 2, act='relu')
        self._conv_pool_2 = SimpleImgConvPool(20, 50, 5, 2, 2, act='relu')
        self.pool_2_shape = 50 * 4 * 4
        scale = (2.0 / (self.pool_2_shape ** 2 * 10)) ** 0.5
        self._fc = fluid.dygraph.Linear(
            self.pool_2_shape, 10,
            param_attr=fluid.ParamAttr(initializer=fluid.initializer.NormalInitializer(
                loc=0.0, scale=scale)), act='softmax')

    @fluid.dygraph.declarative
    def forward(self, inputs, label=None):
        x = self._conv_pool_1(inputs)
        x = self._conv_pool_2(x)
        x = fluid.layers.reshape(x, shape=[-1, self.pool_2_shape])
        x = self._fc(x)
        if label is not None:
            acc = fluid.layers.accuracy(input=x, label=label)
            return x, acc
        return x


def test_seed_mnist_example_in_fluid_form_trains(tmp_path):
    rng = np.random.default_rng(0)
    images = rng.random((16, 1, 28, 28)).astype('float32')
    labels = rng.integers(0, 10, (16, 1)).astype('int64')
    with fluid.dygraph.guard():
        paddle.seed(0)
        mnist = MNIST()
        adam = fluid.optimizer.AdamOptimizer(learning_rate=0.001,
                                             parameter_list=mnist.parameters())
        losses = []
        for step in range(6):
            img = fluid.dygraph.to_variable(images)
            label = fluid.dygraph.to_variable(labels)
            cost, acc = mnist(img, label)
            loss = fluid.layers.cross_entropy(cost, label)
            avg_loss = fluid.layers.mean(loss)
            avg_loss.backward()
            adam.minimize(avg_loss)
            mnist.clear_gradients()
            losses.append(avg_loss.item())
        assert losses[-1] < losses[0]
        assert 0.0 <= acc.item() <= 1.0
        mnist.eval()
        prediction = mnist(fluid.dygraph.to_variable(images))
        assert prediction.shape == [16, 10]
        fluid.dygraph.ProgramTranslator().save_inference_model(str(tmp_path / 'mnist'))
        assert os.path.exists(str(tmp_path / 'mnist' / 'model.pdmodel'))


def test_seed_mnist_example_in_2x_form_matches_eager():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2D(1, 20, 5)
            self.conv2 = nn.Conv2D(20, 50, 5)
            self.fc = nn.Linear(800, 10)

        def forward(self, x, label=None):
            x = F.max_pool2d(F.relu(self.conv1(x)), 2, 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2, 2)
            x = F.softmax(self.fc(paddle.reshape(x, [-1, 800])))
            if label is not None:
                return x, paddle.metric.accuracy(x, label) if hasattr(paddle, 'metric') else x
            return x
    paddle.seed(5)
    net = Net()
    x = paddle.to_tensor(np.random.default_rng(2).random((4, 1, 28, 28)).astype('float32'))
    eager = net(x).numpy()
    static_net = paddle.jit.to_static(net)
    np.testing.assert_allclose(static_net(x).numpy(), eager, rtol=1e-5, atol=1e-6)


def test_fluid_mode_switches():
    fluid.enable_imperative()
    assert paddle.in_dynamic_mode()
    fluid.disable_dygraph()
    assert not paddle.in_dynamic_mode()
    fluid.enable_dygraph()
    assert paddle.in_dynamic_mode()
    x = fluid.layers.ones([2, 2], 'float32')
    assert fluid.dygraph.grad is paddle.grad and x.shape == [2, 2]


def test_jit_save_without_input_spec_uses_the_program_the_layer_ran(tmp_path):
    paddle.seed(4)
    net = SmallNet()
    net.eval()
    x = paddle.to_tensor(np.ones((3, 4), 'float32'))
    expected = net(x).numpy()
    path = str(tmp_path / 'nospec')
    paddle.jit.save(net, path)
    np.testing.assert_allclose(paddle.jit.load(path)(x).numpy(), expected, rtol=1e-6)


def test_translated_layer_has_paddles_constructor_and_program_method(tmp_path):
    import framework as paddle
    from framework.jit.api import LoadedProgram
    net = paddle.nn.Linear(3, 2)
    path = str(tmp_path / 'lin')
    paddle.jit.save(net, path, input_spec=[paddle.static.InputSpec([None, 3], 'float32')])
    loaded = paddle.jit.load(path)
    assert isinstance(loaded.program(), paddle.static.Program)
    assert loaded.program('forward') is loaded.program()
    with pytest.raises(ValueError, match="no method 'infer'"):
        loaded.program('infer')
    # the same layer built from its parts, as Paddle's TranslatedLayer(programs, persistable_vars)
    values = {p.name: p.numpy() for p in loaded.parameters()}
    again = paddle.jit.TranslatedLayer(
        {'forward': LoadedProgram(loaded.program().clone(), loaded.input_names(),
                                  loaded.output_names())}, values)
    x = paddle.rand([4, 3])
    np.testing.assert_allclose(again(x).numpy(), net(x).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="'forward'"):
        paddle.jit.TranslatedLayer({}, values)
