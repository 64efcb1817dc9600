"""The rest of Paddle's model zoo: AlexNet, DenseNet, GoogLeNet, InceptionV3,
MobileNetV3, ShuffleNetV2, SqueezeNet.

Parameter counts and outputs are Paddle 3.3.1's: the counts were read from
Paddle's models, and the outputs were computed by Paddle's models with the
weights ``_fill`` gives (a seeded function of each state_dict key) on the
same inputs. Pretrained weights load from a local ``.pdparams`` file (a
pickled dict, read without unpickling arbitrary objects).
"""
import os
import pickle
import zlib

import numpy as np
import pytest

import framework as paddle
from framework.vision import models

# model -> (trainable parameters, all parameters incl. batch-norm statistics), Paddle's
PADDLE_COUNTS = {
    'alexnet': (61100840, 61100840), 'squeezenet1_0': (1248424, 1248424),
    'squeezenet1_1': (1235496, 1235496), 'densenet121': (7978856, 8062504),
    'googlenet': (11535736, 11535736), 'inception_v3': (23834568, 23869000),
    'mobilenet_v3_small': (2542856, 2554968), 'mobilenet_v3_large': (5483032, 5507432),
    'shufflenet_v2_x0_25': (603688, 607712), 'shufflenet_v2_x0_33': (647272, 652264),
    'shufflenet_v2_x0_5': (1366792, 1374744), 'shufflenet_v2_x1_0': (2278604, 2294784),
    'shufflenet_v2_x1_5': (3503624, 3527064), 'shufflenet_v2_x2_0': (7366536, 7399952),
    'shufflenet_v2_swish': (2278604, 2294784),
    'densenet161': (28681000, 28900936), 'densenet169': (14149480, 14307880),
    'densenet201': (20013928, 20242984), 'densenet264': (33337704, 33736232),
}
FAST_COUNTS = ['squeezenet1_0', 'squeezenet1_1', 'googlenet', 'mobilenet_v3_small',
               'mobilenet_v3_large', 'shufflenet_v2_x0_25', 'shufflenet_v2_swish']

# (builder, kwargs, input size) -> Paddle's outputs: per output its shape, the first four
# values and the sum, for inputs rng(0).standard_normal((2, 3, size, size))
PADDLE_OUTPUTS = {
    ('squeezenet1_1', (('num_classes', 10),), 32):
        [([2, 10], [0.0, 1.351634, 1.63011, 0.114509], 15.90323)],
    ('mobilenet_v3_small', (('num_classes', 10), ('scale', 0.5)), 32):
        [([2, 10], [-0.295606, -0.08545, 0.023218, 0.026098], -0.38034)],
    ('shufflenet_v2_x0_25', (('num_classes', 10),), 32):
        [([2, 10], [0.094333, -0.133646, -0.13023, -0.227298], -0.6373)],
    ('shufflenet_v2_swish', (('num_classes', 10),), 32):
        [([2, 10], [0.17399, -0.136182, -0.025854, -0.222841], -1.27646)],
}
PADDLE_OUTPUTS_SLOW = {
    ('alexnet', (('num_classes', 10),), 224):
        [([2, 10], [-0.822884, 1.1806, -1.156551, -2.265856], -16.2177)],
    ('squeezenet1_0', (('num_classes', 10),), 48):
        [([2, 10], [0.0, 1.472304, 0.875044, 0.112597], 18.02897)],
    ('densenet121', (('num_classes', 10),), 32):
        [([2, 10], [0.185868, -0.360713, 0.099982, -0.019028], -0.2552)],
    ('googlenet', (('num_classes', 10),), 224):
        [([2, 10], [-12.940269, -1.072512, -1.865713, 7.90367], -150.88162),
         ([2, 10], [10.203218, 1.679717, 8.182362, -2.643447], 15.60843),
         ([2, 10], [-19.623278, 32.741062, -27.481422, 10.995036], 16.55466)],
    ('inception_v3', (('num_classes', 10),), 75):
        [([2, 10], [0.415777, -0.167334, 0.305703, -0.138811], -0.57868)],
    ('mobilenet_v3_large', (('num_classes', 10), ('scale', 0.5)), 32):
        [([2, 10], [-0.291827, -0.079629, 0.082606, 0.247037], -0.17585)],
}


def _counts(model):
    return (sum(int(np.prod(p.shape)) for p in model.parameters() if p.trainable),
            sum(int(np.prod(p.shape)) for p in model.parameters()))


def _fill(model):
    """Deterministic weights: a seeded function of each state_dict key (He-scaled
    normals for weights, uniform batch-norm statistics and biases)."""
    state = {}
    for k, v in model.state_dict().items():
        shape = tuple(v.shape)
        rng = np.random.default_rng(zlib.crc32(k.encode()))
        if k.endswith('_variance'):
            a = rng.uniform(0.5, 1.5, shape)
        elif k.endswith('_mean') or len(shape) == 1:
            a = rng.uniform(-0.2, 0.2, shape)
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) == 4 else shape[0]
            a = rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        state[k] = a.astype('float32')
    model.set_state_dict(state)
    return model


def _check_outputs(spec, expected):
    name, kwargs, size = spec
    model = _fill(getattr(models, name)(**dict(kwargs)))
    model.eval()
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, size, size))
                         .astype('float32'))
    out = model(x)
    outs = out if isinstance(out, tuple) else (out,)
    assert len(outs) == len(expected)
    for o, (shape, head, total) in zip(outs, expected):
        assert o.shape == shape
        np.testing.assert_allclose(o.numpy().reshape(-1)[:4], head, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(o.numpy().sum(), total, rtol=1e-4, atol=2e-4)
    return model, x, out


# ---- parameter counts and names -----------------------------------------------------

@pytest.mark.parametrize('name', FAST_COUNTS)
def test_parameter_counts_equal_paddles(name):
    assert _counts(getattr(models, name)()) == PADDLE_COUNTS[name]


@pytest.mark.slow
@pytest.mark.parametrize('name', sorted(set(PADDLE_COUNTS) - set(FAST_COUNTS)))
def test_parameter_counts_equal_paddles_big_models(name):
    assert _counts(getattr(models, name)()) == PADDLE_COUNTS[name]


def test_state_dict_keys_follow_paddle():
    alex = models.AlexNet(num_classes=0)
    assert list(alex.state_dict())[:4] == ['_conv1._conv.weight', '_conv1._conv.bias',
                                           '_conv2._conv.weight', '_conv2._conv.bias']
    assert _counts(alex) == (2469696, 2469696)   # Paddle's
    squeeze = set(models.squeezenet1_1().state_dict())
    assert {'_conv.weight', '_conv1._conv._conv.weight', '_conv1._conv_path2._conv.bias',
            '_conv9.weight'} <= squeeze
    dense = set(models.DenseNet(layers=121, num_classes=5).state_dict())
    assert {'conv1_func._conv.weight', 'conv1_func._batch_norm._mean',
            'db_conv_2.conv2_1.bn_ac_func1._batch_norm.weight',
            'db_conv_5.conv5_16.bn_ac_func2._conv.weight',
            'tr_conv2_blk.conv_ac_func._conv.weight', 'batch_norm._variance',
            'out.weight'} <= dense
    v3 = set(models.mobilenet_v3_small().state_dict())
    assert {'conv.0.weight', 'conv.1._mean', 'blocks.0.mid_se.fc1.weight',
            'blocks.1.expand_conv.0.weight', 'blocks.10.linear_conv.1._variance',
            'lastconv.0.weight', 'classifier.0.weight', 'classifier.3.bias'} <= v3
    shuffle = set(models.shufflenet_v2_x0_25().state_dict())
    assert {'_conv1.0.weight', '2_1._conv_dw_1.0.weight', '2_2._conv_pw.1._mean',
            '4_4._conv_linear.0.weight', '_last_conv.1.bias', '_fc.weight'} <= shuffle
    google = set(models.googlenet().state_dict())
    assert {'_conv._conv.weight', '_ince3a._conv1._conv.weight', '_ince5b._convprj._conv.weight',
            '_fc_out.weight', '_fc_o1.weight', '_out2.bias'} <= google


@pytest.mark.slow
def test_alexnet_classifier_keys():
    alex = models.alexnet()
    assert alex.state_dict()['_fc6.weight'].shape == [9216, 4096]
    assert list(alex.state_dict())[-2:] == ['_fc8.weight', '_fc8.bias']


@pytest.mark.slow
def test_inception_v3_state_dict_keys():
    keys = list(models.inception_v3().state_dict())
    assert keys[0] == 'inception_stem.conv_1a_3x3.0.weight'
    assert 'inception_block_list.10.branch3x3dbl_3b.1._variance' in keys
    assert keys[-2:] == ['fc.weight', 'fc.bias']
    assert len(keys) == 472


# ---- outputs equal Paddle's for the same weights -------------------------------------

@pytest.mark.parametrize('spec', sorted(PADDLE_OUTPUTS))
def test_outputs_equal_paddles(spec):
    _check_outputs(spec, PADDLE_OUTPUTS[spec])


@pytest.mark.slow
@pytest.mark.parametrize('spec', sorted(PADDLE_OUTPUTS_SLOW))
def test_outputs_equal_paddles_big_models(spec):
    _check_outputs(spec, PADDLE_OUTPUTS_SLOW[spec])


def test_to_static_agrees_with_eager():
    model, x, eager = _check_outputs(*next(
        (s, e) for s, e in PADDLE_OUTPUTS.items() if s[0] == 'shufflenet_v2_x0_25'))
    static = paddle.jit.to_static(model)
    np.testing.assert_allclose(static(x).numpy(), eager.numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.slow
def test_to_static_agrees_with_eager_googlenet_three_heads():
    model = _fill(models.GoogLeNet(num_classes=4))
    model.eval()
    x = paddle.rand([1, 3, 224, 224])
    eager = model(x)
    static = paddle.jit.to_static(model)(x)
    for e, s in zip(eager, static):
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-5, atol=1e-5)


# ---- heads, pooling and options ----------------------------------------------------------

def _eval(model):
    model.eval()
    return model


def test_feature_extractors_without_classifier():
    assert models.AlexNet(num_classes=0)(paddle.rand([1, 3, 63, 63])).shape == [1, 256, 1, 1]
    squeeze = models.SqueezeNet('1.1', num_classes=0, with_pool=False)
    assert squeeze(paddle.rand([1, 3, 32, 32])).shape == [1, 512, 1, 1]
    assert not any(k.startswith('_conv9') for k in squeeze.state_dict())
    assert models.SqueezeNet('1.1', num_classes=0)(paddle.rand([1, 3, 32, 32])).shape == [1, 512]
    assert _eval(models.MobileNetV3Small(num_classes=0, with_pool=False))(
        paddle.rand([1, 3, 32, 32])).shape == [1, 576, 1, 1]
    assert _eval(models.ShuffleNetV2(scale=0.5, num_classes=0))(
        paddle.rand([1, 3, 32, 32])).shape == [1, 1024, 1, 1]
    out, aux1, aux2 = models.GoogLeNet(num_classes=0, with_pool=False)(
        paddle.rand([1, 3, 64, 64]))
    assert (out.shape, aux1.shape, aux2.shape) == ([1, 1024, 1, 1], [1, 512, 3, 3],
                                                   [1, 528, 3, 3])


def test_scaled_and_configured_variants():
    small = models.mobilenet_v3_small(scale=0.75, num_classes=3)
    assert small.last_channel == 768 and small.lastconv_out_channels == 432
    assert _eval(small)(paddle.rand([1, 3, 32, 32])).shape == [1, 3]
    large = models.MobileNetV3Large(scale=0.35, num_classes=2)
    assert large.blocks[0].linear_conv[0].weight.shape == [8, 8, 1, 1]
    swish = models.shufflenet_v2_swish(num_classes=2)
    assert type(swish._conv1[2]).__name__ == 'Swish'
    plain = models.ShuffleNetV2(scale=0.33, act=None, num_classes=2)
    assert len(plain._conv1) == 2
    dense = models.DenseNet(layers=121, bn_size=2, dropout=0.2, num_classes=2)
    assert dense.db_conv_2.conv2_1.bn_ac_func1._conv.weight.shape == [64, 64, 1, 1]
    assert hasattr(dense.db_conv_2.conv2_1, 'dropout_func')


def test_bad_configurations_name_the_argument():
    with pytest.raises(ValueError, match='supported versions'):
        models.SqueezeNet('2.0')
    with pytest.raises(ValueError, match='supported layers'):
        models.DenseNet(layers=100)
    with pytest.raises(ValueError, match='scale'):
        models.ShuffleNetV2(scale=0.7)
    with pytest.raises(ValueError, match='activation'):
        models.ShuffleNetV2(act='gelu')


def test_dropout_scales_at_inference_like_paddles_downscale_in_infer():
    model = _fill(models.SqueezeNet('1.1', num_classes=4))
    x = paddle.rand([1, 3, 32, 32])
    model.eval()
    a = model(x).numpy()
    paddle.seed(3)
    model.train()
    b = model(x)
    assert b.shape == [1, 4] and not np.allclose(a, b.numpy())


# ---- pretrained weights from the local weights folder ------------------------------------

def _use_weights_home(monkeypatch, path):
    import framework.utils.download as download
    monkeypatch.setattr(download, 'WEIGHTS_HOME', str(path))


def test_pretrained_without_the_file_names_url_and_destination(tmp_path, monkeypatch):
    _use_weights_home(monkeypatch, tmp_path)
    with pytest.raises(RuntimeError) as info:
        models.squeezenet1_1(pretrained=True)
    msg = str(info.value)
    assert 'SqueezeNet1_1_pretrained.pdparams' in msg and 'https://' in msg
    assert os.path.join(str(tmp_path), 'SqueezeNet1_1_pretrained.pdparams') in msg


def test_pretrained_variant_without_published_weights():
    with pytest.raises(ValueError, match='no pretrained weights'):
        models.mobilenet_v3_small(pretrained=True, scale=0.5)
    with pytest.raises(ValueError, match='no pretrained weights'):
        models.vgg11(pretrained=True)


def test_pretrained_loads_a_paddle_pdparams_file(tmp_path, monkeypatch):
    """A .pdparams file as paddle.save writes it: a pickled {key: ndarray} dict."""
    import hashlib
    from framework.vision.models import squeezenet
    _use_weights_home(monkeypatch, tmp_path)
    source = _fill(models.squeezenet1_1())
    state = {k: v.numpy() for k, v in source.state_dict().items()}
    state['StructuredToParameterName@@'] = {k: 'param_%d' % i for i, k in enumerate(state)}
    path = tmp_path / 'SqueezeNet1_1_pretrained.pdparams'
    path.write_bytes(pickle.dumps(state, protocol=4))
    url = squeezenet.model_urls['squeezenet1_1'][0]
    md5 = hashlib.md5(path.read_bytes()).hexdigest()
    monkeypatch.setitem(squeezenet.model_urls, 'squeezenet1_1', (url, md5))
    loaded = models.squeezenet1_1(pretrained=True)
    for k, v in loaded.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), source.state_dict()[k].numpy())
    monkeypatch.setitem(squeezenet.model_urls, 'squeezenet1_1', (url, '0' * 32))
    with pytest.raises(RuntimeError, match='md5'):
        models.squeezenet1_1(pretrained=True)


def test_pdparams_reader_refuses_code(tmp_path):
    from framework.utils.restricted_pickle import load_paddle_state_dict

    class Payload:
        def __reduce__(self):
            return (os.system, ('echo should-not-run',))
    path = tmp_path / 'evil.pdparams'
    path.write_bytes(pickle.dumps({'w': Payload()}))
    with pytest.raises(ValueError, match='refusing to load'):
        load_paddle_state_dict(str(path))
