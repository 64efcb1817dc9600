"""The vision model zoo: output shapes, parameter counts equal to the
published ones (Paddle's ``paddle.summary`` / the papers), Paddle's
state_dict names, forward against a PyTorch functional re-implementation
with the same weights, pretrained=True without the file errors, and a VGG-11 training step
on a 224x224 image."""
import time

import numpy as np
import pytest

import framework as paddle
from framework.vision import models

RNG = np.random.default_rng(5)


def _count(model):
    """Trainable parameters."""
    return sum(int(np.prod(p.shape)) for p in model.parameters() if p.trainable)


def _buffers(model):
    """Non-trainable parameters (batch norm's running statistics, as Paddle)."""
    return sum(int(np.prod(p.shape)) for p in model.parameters() if not p.trainable)


def _randomize_batch_norms(model):
    """Non-trivial BN statistics and affine parameters, so eval-mode BN is not
    an identity in the comparisons below."""
    state = {k: v.numpy() for k, v in model.state_dict().items()}
    for k, v in model.state_dict().items():
        if k.endswith('_mean') or (k.endswith('.bias') and v.ndim == 1):
            state[k] = RNG.uniform(-0.2, 0.2, v.shape).astype('float32')
        elif k.endswith('_variance') or (k.endswith('.weight') and v.ndim == 1):
            state[k] = RNG.uniform(0.5, 1.5, v.shape).astype('float32')
    model.set_state_dict(state)


# ---- shapes ---------------------------------------------------------------------

def test_lenet_shapes_and_paddle_layout():
    model = models.LeNet()
    assert model(paddle.rand([2, 1, 28, 28])).shape == [2, 10]
    shapes = {k: v.shape for k, v in model.state_dict().items()}
    assert shapes == {'features.0.weight': [6, 1, 3, 3], 'features.0.bias': [6],
                      'features.3.weight': [16, 6, 5, 5], 'features.3.bias': [16],
                      'fc.0.weight': [400, 120], 'fc.0.bias': [120],
                      'fc.1.weight': [120, 84], 'fc.1.bias': [84],
                      'fc.2.weight': [84, 10], 'fc.2.bias': [10]}
    assert _count(model) == 61610
    assert models.LeNet(num_classes=0)(paddle.rand([1, 1, 28, 28])).shape == [1, 16, 5, 5]
    assert models.LeNet(num_classes=3)(paddle.rand([1, 1, 28, 28])).shape == [1, 3]


@pytest.mark.parametrize('build', [models.resnet18, models.resnet50, models.mobilenet_v1,
                                   models.mobilenet_v2])
def test_classifier_shapes_on_small_inputs(build):
    model = build(num_classes=7)
    model.eval()
    assert model(paddle.rand([2, 3, 32, 32])).shape == [2, 7]


@pytest.mark.parametrize('build,channels', [(models.resnet18, 512), (models.mobilenet_v1, 1024),
                                            (models.mobilenet_v2, 1280)])
def test_without_classifier_and_pool_returns_feature_maps(build, channels):
    model = build(num_classes=0, with_pool=False)
    assert model(paddle.rand([1, 3, 64, 64])).shape == [1, channels, 2, 2]
    pooled = build(num_classes=0)
    assert pooled(paddle.rand([1, 3, 64, 64])).shape == [1, channels, 1, 1]


@pytest.mark.slow
@pytest.mark.parametrize('build', [models.resnet34, models.resnet101, models.resnet152,
                                   models.resnext50_32x4d, models.wide_resnet50_2])
def test_deeper_resnet_shapes(build):
    model = build(num_classes=7)
    assert model(paddle.rand([2, 3, 32, 32])).shape == [2, 7]


@pytest.mark.slow
@pytest.mark.parametrize('build', [models.vgg13, models.vgg16, models.vgg19])
def test_deeper_vgg_feature_shapes(build):
    model = build(num_classes=0)
    assert model(paddle.rand([1, 3, 32, 32])).shape == [1, 512, 7, 7]


def test_scaled_mobilenets():
    v1 = models.mobilenet_v1(scale=0.5, num_classes=5)
    assert v1.fc.weight.shape == [512, 5]
    assert v1(paddle.rand([2, 3, 32, 32])).shape == [2, 5]
    v2 = models.mobilenet_v2(scale=0.5, num_classes=5)
    assert v2.last_channel == 1280          # the last conv is never narrowed below 1280
    assert v2(paddle.rand([2, 3, 32, 32])).shape == [2, 5]


def test_vgg_features_and_custom_config():
    features = models.vgg11(num_classes=0, with_pool=False)
    assert features(paddle.rand([1, 3, 32, 32])).shape == [1, 512, 1, 1]
    bn = models.vgg11(batch_norm=True, num_classes=0, with_pool=False)
    kinds = [type(layer).__name__ for layer in bn.features][:3]
    assert kinds == ['Conv2D', 'BatchNorm2D', 'ReLU']
    tiny = models.VGG(models.vgg.make_layers([8, 'M', 16, 'M']), num_classes=0)
    assert tiny(paddle.rand([1, 3, 16, 16])).shape == [1, 16, 7, 7]


# ---- parameter counts (trainable; BN running statistics are non-trainable
# parameters, as Paddle's summary lists them) ------------------------------------------

def test_parameter_counts_small_models():
    r18 = models.resnet18()
    assert _count(r18) == 11689512 and _buffers(r18) == 9600
    assert _count(models.mobilenet_v1()) == 4231976
    v2 = models.mobilenet_v2()
    assert _count(v2) == 3504872 and _buffers(v2) == 34112


@pytest.mark.slow
def test_parameter_counts_resnets():
    r50 = models.resnet50()
    assert _count(r50) == 25557032 and _buffers(r50) == 53120    # paddle.summary's split
    assert _count(models.resnet34()) == 21797672
    assert _count(models.resnet101()) == 44549160
    assert _count(models.resnet152()) == 60192808
    assert _count(models.resnext50_32x4d()) == 25028904
    assert _count(models.wide_resnet50_2()) == 68883240


@pytest.mark.slow
def test_parameter_counts_vggs():
    assert _count(models.vgg11()) == 132863336
    assert _count(models.vgg13()) == 133047848
    assert _count(models.vgg16()) == 138357544
    assert _count(models.vgg19()) == 143667240
    assert _count(models.vgg16(batch_norm=True)) == 138365992


# ---- names and errors -------------------------------------------------------------

def test_state_dict_names_follow_paddle():
    keys = set(models.resnet18().state_dict())
    for k in ('conv1.weight', 'bn1.weight', 'bn1._mean', 'bn1._variance',
              'layer1.0.conv1.weight', 'layer2.0.downsample.0.weight',
              'layer2.0.downsample.1._variance', 'layer4.1.bn2.bias', 'fc.weight', 'fc.bias'):
        assert k in keys, k
    assert 'conv1.bias' not in keys and 'layer1.0.downsample.0.weight' not in keys
    v1 = set(models.mobilenet_v1().state_dict())
    assert {'conv1.0.weight', 'conv1.1._mean', 'conv2_1._depthwise_conv.0.weight',
            'conv5_5._pointwise_conv.1.weight', 'conv6._pointwise_conv.0.weight',
            'fc.weight'} <= v1
    v2 = set(models.mobilenet_v2().state_dict())
    assert {'features.0.0.weight', 'features.1.conv.0.0.weight', 'features.2.conv.3.weight',
            'features.18.1._variance', 'classifier.1.weight'} <= v2


@pytest.mark.parametrize('build', [models.resnet18, models.vgg16, models.mobilenet_v1,
                                   models.mobilenet_v2, models.resnext50_32x4d])
def test_pretrained_weights_missing_locally_raise_a_clear_error(build, tmp_path, monkeypatch):
    import framework.utils.download as download
    monkeypatch.setattr(download, 'WEIGHTS_HOME', str(tmp_path))
    with pytest.raises((RuntimeError, ValueError), match='pretrained=False|does not download'):
        build(pretrained=True)


def test_models_are_reexported_from_vision():
    assert paddle.vision.resnet18 is models.resnet18
    assert paddle.vision.LeNet is models.LeNet
    with pytest.raises(ValueError, match='depth'):
        models.ResNet(models.resnet.BasicBlock, 20)


# ---- forward against PyTorch functional ops with the same weights ----------------------

def _torch_state(model, torch):
    return {k: torch.tensor(v.numpy().astype(np.float64)) for k, v in model.state_dict().items()}


def _torch_resnet(model, x, torch, blocks, bottleneck):
    """ResNet v1.5 (stride on the 3x3 conv) in eval mode, from the weights."""
    F = torch.nn.functional
    sd = _torch_state(model, torch)

    def bn(t, p):
        return F.batch_norm(t, sd[p + '._mean'], sd[p + '._variance'], sd[p + '.weight'],
                            sd[p + '.bias'], training=False, eps=1e-5)

    def conv(t, p, stride=1, padding=0):
        return F.conv2d(t, sd[p + '.weight'], stride=stride, padding=padding)

    y = F.max_pool2d(F.relu(bn(conv(x, 'conv1', 2, 3), 'bn1')), 3, 2, 1)
    for stage, n in enumerate(blocks):
        for b in range(n):
            p = 'layer%d.%d' % (stage + 1, b)
            stride = 2 if b == 0 and stage > 0 else 1
            if bottleneck:
                out = F.relu(bn(conv(y, p + '.conv1'), p + '.bn1'))
                out = F.relu(bn(conv(out, p + '.conv2', stride, 1), p + '.bn2'))
                out = bn(conv(out, p + '.conv3'), p + '.bn3')
            else:
                out = F.relu(bn(conv(y, p + '.conv1', stride, 1), p + '.bn1'))
                out = bn(conv(out, p + '.conv2', 1, 1), p + '.bn2')
            if p + '.downsample.0.weight' in sd:
                y = bn(conv(y, p + '.downsample.0', stride), p + '.downsample.1')
            y = F.relu(out + y)
    y = F.adaptive_avg_pool2d(y, 1).flatten(1)
    return y @ sd['fc.weight'] + sd['fc.bias']


@pytest.mark.parametrize('build,blocks,bottleneck', [
    (models.resnet18, [2, 2, 2, 2], False), (models.resnet50, [3, 4, 6, 3], True)])
def test_resnet_matches_torch_functional_reference(build, blocks, bottleneck):
    torch = pytest.importorskip('torch')
    model = build(num_classes=10)
    _randomize_batch_norms(model)
    model.eval()
    x = RNG.standard_normal((2, 3, 40, 40))
    got = model(paddle.to_tensor(x.astype('float32'))).numpy()
    want = _torch_resnet(model, torch.tensor(x), torch, blocks, bottleneck).numpy()
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-4)


def test_lenet_matches_torch_functional_reference():
    torch = pytest.importorskip('torch')
    F = torch.nn.functional
    model = models.LeNet()
    sd = _torch_state(model, torch)
    x = RNG.standard_normal((2, 1, 28, 28))
    y = F.max_pool2d(F.relu(F.conv2d(torch.tensor(x), sd['features.0.weight'],
                                     sd['features.0.bias'], padding=1)), 2, 2)
    y = F.max_pool2d(F.relu(F.conv2d(y, sd['features.3.weight'], sd['features.3.bias'])), 2, 2)
    y = y.flatten(1)
    for i in range(3):        # Paddle's LeNet has no activation between its fc layers
        y = y @ sd['fc.%d.weight' % i] + sd['fc.%d.bias' % i]
    got = model(paddle.to_tensor(x.astype('float32'))).numpy()
    np.testing.assert_allclose(got, y.numpy(), rtol=1e-4, atol=1e-5)


def test_mobilenet_v2_residuals_only_where_shapes_match():
    v2 = models.mobilenet_v2()
    blocks = [b for b in v2.features if isinstance(b, models.mobilenetv2.InvertedResidual)]
    assert len(blocks) == 17
    assert [b.use_res_connect for b in blocks].count(True) == 10
    assert len(blocks[0].conv) == 3         # expand ratio 1: no 1x1 expansion


# ---- a training step on a full-size image ------------------------------------------------

@pytest.mark.slow
def test_vgg11_forward_backward_on_224_image():
    start = time.time()
    model = models.vgg11(num_classes=10)
    x = paddle.rand([1, 3, 224, 224])
    label = paddle.to_tensor([3])
    loss = paddle.nn.functional.cross_entropy(model(x), label)
    loss.backward()
    for name, p in model.named_parameters():
        assert p.grad is not None and p.grad.shape == p.shape, name
        assert np.all(np.isfinite(p.grad.numpy())), name
    assert np.abs(model.features[0].weight.grad.numpy()).sum() > 0
    print('vgg11 build + forward + backward: %.1f s' % (time.time() - start))
