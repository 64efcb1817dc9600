"""3-D convolutions (F.conv3d / conv3d_transpose, nn.Conv3D / Conv3DTranspose
and the PyTorch-style aliases) against loop references, with gradients and
static / @to_static agreement."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework.ops.conv import reference as R

from nn_check import check_grads, check_modes

rng = np.random.default_rng(3)


@pytest.mark.parametrize('stride,padding,dilation,groups', [
    ([1, 1, 1], [0, 0, 0, 0, 0, 0], [1, 1, 1], 1),
    ([2, 1, 2], [1, 1, 0, 0, 1, 1], [1, 2, 1], 2),
    ([1, 2, 1], [0, 1, 1, 0, 2, 1], [2, 1, 1], 1),
])
def test_conv3d_matches_the_loop_reference(stride, padding, dilation, groups):
    x = rng.standard_normal((2, 4, 5, 6, 5))
    w = rng.standard_normal((6, 4 // groups, 2, 3, 2))
    b = rng.standard_normal(6)
    pad = [padding[2 * i:2 * i + 2] for i in range(3)]
    got = F.conv3d(paddle.to_tensor(x), paddle.to_tensor(w), paddle.to_tensor(b), stride=stride,
                   padding=[[0, 0], [0, 0]] + pad, dilation=dilation, groups=groups).numpy()
    want = R.conv_nd(x, w, stride, padding, dilation, groups) + b.reshape(1, -1, 1, 1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_conv3d_channels_last_and_same_padding():
    x = rng.standard_normal((1, 5, 4, 6, 3))                    # NDHWC
    w = rng.standard_normal((2, 3, 3, 3, 3))
    got = F.conv3d(paddle.to_tensor(x), paddle.to_tensor(w), padding='SAME', stride=2,
                   data_format='NDHWC')
    assert got.shape == [1, 3, 2, 3, 2]
    # SAME: output ceil(size / 2), the odd padding pixel at the end
    want = R.conv_nd(x.transpose(0, 4, 1, 2, 3), w, [2, 2, 2], [1, 1, 0, 1, 0, 1], [1, 1, 1], 1)
    np.testing.assert_allclose(got.numpy(), want.transpose(0, 2, 3, 4, 1), rtol=1e-10)


def test_conv3d_transpose_is_the_adjoint_and_takes_output_size():
    x = rng.standard_normal((2, 3, 3, 4, 2))
    w = rng.standard_normal((3, 2, 3, 2, 2))
    y = F.conv3d_transpose(paddle.to_tensor(x), paddle.to_tensor(w), stride=[2, 1, 2],
                           padding=[1, 0, 0], output_padding=[1, 0, 1])
    size = [(3 - 1) * 2 - 2 + 3 + 1, 4 - 1 + 2, (2 - 1) * 2 + 2 + 1]
    want = R.conv_nd_transpose(x, w, [2, 1, 2], [1, 1, 0, 0, 0, 0], [1, 1, 1], 1, size)
    np.testing.assert_allclose(y.numpy(), want, rtol=1e-10, atol=1e-12)
    z = F.conv3d_transpose(paddle.to_tensor(x), paddle.to_tensor(w), stride=2,
                           output_size=[8, 9, 5])
    assert z.shape == [2, 2, 8, 9, 5]
    # <conv(u), v> == <u, conv_transpose(v)>
    u = rng.standard_normal((2, 2, 8, 9, 5))
    cu = F.conv3d(paddle.to_tensor(u), paddle.to_tensor(w), stride=2).numpy()
    assert np.isclose((cu * x).sum(), (u * z.numpy()).sum())


def test_conv3d_gradients_by_finite_differences():
    x = rng.standard_normal((1, 2, 3, 4, 3))
    w = rng.standard_normal((2, 1, 2, 2, 2))
    b = rng.standard_normal(2)

    def f(x, w, b):
        return F.conv3d(x, w, b, stride=[1, 2, 1], padding=1, groups=2)
    check_grads(f, [x, w, b])

    def g(x, w):
        return F.conv3d_transpose(x, w, stride=2, padding=[0, 1, 0])
    check_grads(g, [rng.standard_normal((1, 2, 2, 2, 3)), rng.standard_normal((2, 3, 2, 3, 2))])


def test_conv3d_double_grad():
    x = paddle.to_tensor(rng.standard_normal((1, 2, 3, 3, 3)), stop_gradient=False)
    w = paddle.to_tensor(rng.standard_normal((2, 2, 2, 2, 2)), stop_gradient=False)
    y = F.conv3d(x, w, padding=1)
    gx, = paddle.grad((y * y).sum(), [x], create_graph=True)
    gw, = paddle.grad(gx.sum(), [w])
    # d/dw sum_x d/dx sum(y^2) = d/dw sum(2 y * conv^T(1)) -> finite differences
    eps, base = 1e-6, w.numpy()

    def first(wv):
        xt = paddle.to_tensor(x.numpy(), stop_gradient=False)
        yy = F.conv3d(xt, paddle.to_tensor(wv), padding=1)
        return float(paddle.grad((yy * yy).sum(), [xt])[0].sum())
    k = (1, 0, 1, 0, 1)
    plus, minus = base.copy(), base.copy()
    plus[k] += eps
    minus[k] -= eps
    assert np.isclose(gw.numpy()[k], (first(plus) - first(minus)) / (2 * eps), rtol=1e-5)


def test_conv3d_static_and_to_static_agree():
    def f(x, w):
        return F.conv3d(x, w, stride=2, padding=[1, 0, 1])

    def g(x, w):
        return F.conv3d_transpose(x, w, stride=[1, 2, 2], output_padding=[0, 1, 0])
    check_modes(f, [rng.standard_normal((2, 3, 5, 4, 5)), rng.standard_normal((4, 3, 3, 2, 3))])
    check_modes(g, [rng.standard_normal((1, 3, 2, 3, 2)), rng.standard_normal((3, 2, 2, 2, 2))])


def test_conv3d_layers_and_aliases():
    paddle.seed(1)
    conv = paddle.nn.Conv3D(2, 4, (3, 2, 2), stride=1, padding=1, bias=False)
    assert conv.bias is None and conv.weight.shape == [4, 2, 3, 2, 2]
    x = paddle.to_tensor(rng.standard_normal((1, 2, 3, 4, 4)).astype('float32'))
    y = conv(x)
    np.testing.assert_allclose(y.numpy(), R.conv_nd(x.numpy(), conv.weight.numpy(), [1] * 3,
                                                    [1] * 6, [1] * 3, 1), rtol=1e-5, atol=1e-5)
    reflect = paddle.nn.Conv3D(2, 1, 3, padding=1, padding_mode='reflect')
    assert reflect(x).shape == [1, 1, 3, 4, 4]
    up = paddle.nn.Conv3DTranspose(2, 3, 2, stride=2)
    assert up(x).shape == [1, 3, 6, 8, 8] and up.weight.shape == [2, 3, 2, 2, 2]
    assert paddle.nn.Conv1d is paddle.nn.Conv1D and paddle.nn.Conv2d is paddle.nn.Conv2D
    assert paddle.nn.Conv3d is paddle.nn.Conv3D


def test_conv3d_errors_name_the_api():
    x = paddle.ones([1, 2, 3, 3, 3])
    with pytest.raises(ValueError, match='conv3d.*channels'):
        F.conv3d(x, paddle.ones([1, 3, 2, 2, 2]))
    with pytest.raises(ValueError, match='conv3d.*data_format'):
        F.conv3d(x, paddle.ones([1, 2, 2, 2, 2]), data_format='NCHW')
    with pytest.raises(ValueError, match='empty'):
        F.conv3d(x, paddle.ones([1, 2, 4, 2, 2]))
