"""nn.initializer: statistics, fan computations, gains, layer defaults and
determinism under framework.seed."""
import math
from statistics import NormalDist

import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.nn import initializer as I
from framework.nn.initializer import compute_fans

N = 200_000   # samples for the statistics tests: standard error of a mean ~ std / 450


def _param(shape, dtype='float32'):
    return paddle.create_parameter(shape, dtype, default_initializer=I.Constant(0.0))


def _draw(init, shape=(N,), dtype='float32', seed=11):
    paddle.seed(seed)
    p = _param(list(shape), dtype)
    assert init(p) is p
    return p.numpy().astype(np.float64)


def test_constant():
    v = _draw(I.Constant(2.5), (3, 4), 'float64')
    assert np.all(v == 2.5)
    assert _param([2], 'float64').dtype == paddle.float64
    with pytest.raises(TypeError):
        I.Constant('a')


def test_uniform_statistics():
    v = _draw(I.Uniform(-3.0, 5.0))
    assert v.min() >= -3.0 and v.max() < 5.0
    assert abs(v.mean() - 1.0) < 0.03
    assert abs(v.std() - 8 / math.sqrt(12)) < 0.02
    with pytest.raises(ValueError, match='must not be larger'):
        I.Uniform(1.0, 0.5)
    # low == high: every value low, as in Paddle
    w = paddle.create_parameter([3, 2], 'float32', default_initializer=I.Uniform(0.25, 0.25))
    assert np.all(w.numpy() == 0.25)


def test_normal_statistics_float64():
    v = _draw(I.Normal(1.5, 0.5), dtype='float64')
    assert abs(v.mean() - 1.5) < 0.005 and abs(v.std() - 0.5) < 0.005


def _truncated_moments(mean, std, a, b):
    nd = NormalDist()
    al, be = (a - mean) / std, (b - mean) / std
    z = nd.cdf(be) - nd.cdf(al)
    pa, pb = nd.pdf(al), nd.pdf(be)
    m = mean + std * (pa - pb) / z
    var = std ** 2 * (1 + (al * pa - be * pb) / z - ((pa - pb) / z) ** 2)
    return m, math.sqrt(var)


@pytest.mark.parametrize('mean,std,a,b', [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0),
                                          (0.0, 1.0, 2.0, 4.0), (0.0, 1.0, -6.0, -3.0)])
def test_truncated_normal_statistics(mean, std, a, b):
    v = _draw(I.TruncatedNormal(mean, std, a, b), dtype='float64')
    assert v.min() >= a and v.max() <= b
    m, s = _truncated_moments(mean, std, a, b)
    assert abs(v.mean() - m) < 4 * s / math.sqrt(N)
    assert abs(v.std() - s) < 0.01 * s


def test_truncated_normal_default_bounds_are_absolute():
    v = _draw(I.TruncatedNormal(mean=10.0, std=1.0))   # a=-2, b=2: far below the mean
    assert v.max() <= 2.0 and v.min() >= -2.0
    assert v.mean() > 1.8   # piled against the upper bound


def test_compute_fans():
    assert compute_fans([]) == (1, 1)
    assert compute_fans([7]) == (7, 7)
    assert compute_fans([3, 5]) == (3, 5)              # Linear weight [in, out]
    assert compute_fans([8, 4, 3, 3]) == (36, 72)      # conv weight [out, in/g, kh, kw]
    assert compute_fans([8, 2, 5]) == (10, 40)


def test_xavier_uniform_and_normal():
    shape = (400, 500)
    v = _draw(I.XavierUniform(), shape)
    limit = math.sqrt(6.0 / 900)
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.99 * limit
    assert abs(v.std() - limit / math.sqrt(3)) < 0.01 * limit
    v = _draw(I.XavierNormal(), shape)
    assert abs(v.std() - math.sqrt(2.0 / 900)) < 0.01 * math.sqrt(2.0 / 900)
    # explicit fans and gain
    v = _draw(I.XavierUniform(fan_in=10, fan_out=14, gain=2.0), shape)
    assert np.abs(v).max() <= 2.0 * math.sqrt(6.0 / 24)
    assert np.abs(v).max() > 0.99 * 2.0 * math.sqrt(6.0 / 24)
    # conv-shaped weight: fans include the receptive field
    v = _draw(I.XavierNormal(), (64, 32, 3, 3))
    std = math.sqrt(2.0 / (32 * 9 + 64 * 9))
    assert abs(v.std() - std) < 0.02 * std


def test_kaiming_normal_and_uniform():
    v = _draw(I.KaimingNormal(), (300, 700))
    assert abs(v.std() - math.sqrt(2.0 / 300)) < 0.01 * math.sqrt(2.0 / 300)
    v = _draw(I.KaimingUniform(), (16, 8, 5, 5))
    limit = math.sqrt(2.0) * math.sqrt(3.0 / 200)
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.99 * limit
    v = _draw(I.KaimingNormal(fan_in=50, negative_slope=0.2, nonlinearity='leaky_relu'),
              (300, 700))
    std = math.sqrt(2.0 / 1.04) / math.sqrt(50)
    assert abs(v.std() - std) < 0.01 * std
    with pytest.raises(ValueError, match='nonlinearity'):
        I.KaimingNormal(nonlinearity='swishy')


def test_calculate_gain():
    assert I.calculate_gain('linear') == 1.0 and I.calculate_gain('conv2d') == 1.0
    assert I.calculate_gain('sigmoid') == 1.0
    assert I.calculate_gain('tanh') == pytest.approx(5.0 / 3)
    assert I.calculate_gain('relu') == pytest.approx(math.sqrt(2))
    assert I.calculate_gain('leaky_relu') == pytest.approx(math.sqrt(2 / (1 + 0.01 ** 2)))
    assert I.calculate_gain('leaky_relu', 0.5) == pytest.approx(math.sqrt(2 / 1.25))
    assert I.calculate_gain('selu') == pytest.approx(0.75)
    with pytest.raises(ValueError):
        I.calculate_gain('nope')


def test_assign():
    value = np.arange(6, dtype=np.float64).reshape(2, 3)
    np.testing.assert_array_equal(_draw(I.Assign(value), (2, 3)), value)
    np.testing.assert_array_equal(_draw(I.Assign(value.tolist()), (2, 3), 'float64'), value)
    np.testing.assert_array_equal(_draw(I.Assign(paddle.to_tensor(value)), (2, 3)), value)
    with pytest.raises(ValueError, match=r'\[2, 3\].*\[3, 2\]'):
        I.Assign(value)(_param([3, 2]))


@pytest.mark.parametrize('shape', [(4, 6), (6, 4), (3, 2, 2, 2)])
def test_orthogonal(shape):
    w = _draw(I.Orthogonal(gain=1.5), shape, 'float64').reshape(shape[0], -1)
    small = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(small, 2.25 * np.eye(small.shape[0]), atol=1e-10)


def test_dirac():
    w = _draw(I.Dirac(), (4, 3, 3, 3))
    expect = np.zeros((4, 3, 3, 3))
    for i in range(3):
        expect[i, i, 1, 1] = 1
    np.testing.assert_array_equal(w, expect)
    w = _draw(I.Dirac(groups=2), (4, 2, 3))
    assert w[0, 0, 1] == w[1, 1, 1] == w[2, 0, 1] == w[3, 1, 1] == 1 and w.sum() == 4


def test_bilinear():
    w = _draw(I.Bilinear(), (2, 1, 4, 4))
    ramp = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_allclose(w[1, 0], np.outer(ramp, ramp))


def test_initializer_rejects_non_tensors():
    with pytest.raises(TypeError, match='Parameter'):
        I.Constant(1.0)(np.zeros(3))


# ---- layer defaults -------------------------------------------------------------------

def test_linear_default_is_xavier_uniform_with_in_out_fans():
    paddle.seed(0)
    fc = nn.Linear(300, 500)
    w = fc.weight.numpy()
    limit = math.sqrt(6.0 / 800)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.99 * limit
    assert np.all(fc.bias.numpy() == 0)


def test_conv_default_is_normal_with_paddle_fan():
    # Paddle: std = sqrt(2 / (in_channels * prod(kernel))), in_channels NOT divided
    # by groups
    paddle.seed(0)
    conv = nn.Conv2D(64, 128, 5, groups=4)
    assert conv.weight.shape == [128, 16, 5, 5]
    std = math.sqrt(2.0 / (64 * 25))
    w = conv.weight.numpy()
    assert abs(w.std() - std) < 0.02 * std and abs(w.mean()) < 0.02 * std
    assert np.all(conv.bias.numpy() == 0)
    conv1 = nn.Conv1D(32, 64, 7)
    std1 = math.sqrt(2.0 / (32 * 7))
    assert abs(conv1.weight.numpy().std() - std1) < 0.03 * std1


def test_conv_transpose_default_is_xavier_uniform():
    paddle.seed(0)
    conv = nn.Conv2DTranspose(64, 32, 3, groups=2)
    assert conv.weight.shape == [64, 16, 3, 3]
    limit = math.sqrt(6.0 / (16 * 9 + 64 * 9))
    w = conv.weight.numpy()
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.98 * limit


def test_norm_and_prelu_defaults():
    bn = nn.BatchNorm2D(3)
    assert bn.weight.numpy().tolist() == [1.0] * 3 and bn.bias.numpy().tolist() == [0.0] * 3
    assert bn._mean.numpy().tolist() == [0.0] * 3 and bn._variance.numpy().tolist() == [1.0] * 3
    ln = nn.LayerNorm([2, 3])
    assert ln.weight.shape == [6] and np.all(ln.weight.numpy() == 1)
    gn = nn.GroupNorm(2, 4)
    assert np.all(gn.weight.numpy() == 1) and np.all(gn.bias.numpy() == 0)
    assert nn.PReLU(3, 0.1).weight.numpy().tolist() == pytest.approx([0.1] * 3)


def test_embedding_default_xavier_and_padding_row_zero():
    paddle.seed(0)
    emb = nn.Embedding(1000, 64, padding_idx=3)
    w = emb.weight.numpy()
    assert np.all(w[3] == 0)
    limit = math.sqrt(6.0 / 1064)
    assert np.abs(w).max() <= limit and np.abs(w).max() > 0.98 * limit
    assert np.all(nn.Embedding(10, 4, padding_idx=-1).weight.numpy()[9] == 0)


# ---- determinism ------------------------------------------------------------------------

def _model():
    return nn.Sequential(nn.Conv2D(3, 4, 3), nn.BatchNorm2D(4), nn.Flatten(),
                         nn.Linear(16, 5), nn.Embedding(7, 3),
                         nn.Linear(3, 2, weight_attr=paddle.ParamAttr(
                             initializer=I.TruncatedNormal(std=0.02))))


def test_seed_makes_model_init_repeatable():
    paddle.seed(123)
    a = [p.numpy() for p in _model().parameters()]
    paddle.seed(123)
    b = [p.numpy() for p in _model().parameters()]
    paddle.seed(124)
    c = [p.numpy() for p in _model().parameters()]
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)
    assert any(not np.array_equal(x, z) for x, z in zip(a, c))


def test_initializers_draw_through_the_registered_random_ops():
    # the same draw as framework.uniform / gaussian_random after the same seed:
    # initialisation goes through the op registry (so static mode can replay it)
    shape = [30, 20]
    paddle.seed(9)
    w = _param(shape)
    I.XavierUniform()(w)
    limit = math.sqrt(6.0 / 50)
    paddle.seed(9)
    u = paddle.uniform(shape, min=-limit, max=limit)
    np.testing.assert_array_equal(w.numpy(), u.numpy())
    paddle.seed(9)
    I.Normal(0.0, 2.0)(w)
    paddle.seed(9)
    np.testing.assert_array_equal(w.numpy(), (paddle.randn(shape) * 2.0).numpy())


def test_set_global_initializer_type_check():
    with pytest.raises(TypeError):
        I.set_global_initializer('xavier')
