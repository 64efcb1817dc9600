"""Pooling: Paddle's ceil_mode / exclusive / padding semantics against hand
references, masks, adaptive windows, and gradients (incl. double grad)."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework.ops.conv import reference as R

rng = np.random.default_rng(8)


def t(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


def distinct(shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64)


def test_ceil_mode_output_sizes():
    x = t(np.zeros((1, 1, 5, 5)))
    assert F.max_pool2d(x, 2).shape == [1, 1, 2, 2]
    assert F.max_pool2d(x, 2, ceil_mode=True).shape == [1, 1, 3, 3]
    assert F.avg_pool2d(x, 3, stride=2, padding=1).shape == [1, 1, 3, 3]
    assert F.avg_pool2d(x, 2, stride=2, padding=1, ceil_mode=True).shape == [1, 1, 4, 4]
    assert F.max_pool2d(x, 3, stride=2, padding='SAME').shape == [1, 1, 3, 3]
    assert F.max_pool2d(x, 3, stride=1, padding='VALID').shape == [1, 1, 3, 3]


def test_avg_pool_exclusive_vs_inclusive_by_hand():
    x = t(np.ones((1, 1, 4, 4)))
    excl = F.avg_pool2d(x, 2, stride=2, padding=1).numpy()[0, 0]
    np.testing.assert_allclose(excl, np.ones((3, 3)))
    incl = F.avg_pool2d(x, 2, stride=2, padding=1, exclusive=False).numpy()[0, 0]
    np.testing.assert_allclose(incl, [[.25, .5, .25], [.5, 1, .5], [.25, .5, .25]])
    # a ceil_mode window past the padding counts only its part inside the padded
    # input, padding included (Paddle 3.3.1: out[0, 2] = 6.5, out[2, 2] = 24)
    x = t(np.arange(25.0).reshape(1, 1, 5, 5))
    out = F.avg_pool2d(x, 2, stride=2, ceil_mode=True, exclusive=False).numpy()[0, 0]
    assert out[2, 2] == 24 and out[0, 2] == (4 + 9) / 2
    out = F.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, exclusive=False).numpy()[0, 0]
    assert out[0, 0] == (0 + 1 + 5 + 6) / 9 and out[2, 2] == (18 + 19 + 23 + 24) / 9
    out = F.avg_pool2d(x, 2, stride=2, ceil_mode=True).numpy()[0, 0]
    assert out[2, 2] == 24 and out[0, 2] == (4 + 9) / 2


def test_windows_entirely_in_padding_are_harmless():
    # Paddle's ceil_mode size formula can create a last window that covers only
    # padding: max gives -inf with mask -1, average gives 0, gradients ignore it
    xt = t(np.ones((1, 1, 6, 6)), True)
    out, mask = F.max_pool2d(xt, 2, stride=2, padding=[0, 1, 0, 1], ceil_mode=True,
                             return_mask=True)
    assert out.shape == [1, 1, 4, 4]
    assert np.isneginf(out.numpy()[0, 0, 3]).all() and (mask.numpy()[0, 0, 3] == -1).all()
    paddle.grad(out, xt, t(np.ones(out.shape)))
    avg = F.avg_pool2d(t(np.ones((1, 1, 6, 6))), 2, 2, [0, 1, 0, 1], ceil_mode=True)
    assert (avg.numpy()[0, 0, 3] == 0).all()


def test_divisor_override():
    x = t(np.ones((1, 1, 4, 4)))
    out = F.avg_pool2d(x, 2, stride=2, padding=1, divisor_override=2).numpy()[0, 0]
    np.testing.assert_allclose(out, [[.5, 1, .5], [1, 2, 1], [.5, 1, .5]])


@pytest.mark.parametrize('k,s,p,ceil', [(2, 2, 0, False), (3, 2, 1, True),
                                        ([3, 2], [1, 2], [1, 0], False),
                                        (2, 2, [1, 0, 0, 1], True), (3, 1, 1, False)])
def test_max_pool_and_mask_match_reference(k, s, p, ceil):
    x = rng.standard_normal((2, 3, 6, 7))
    out, mask = F.max_pool2d(t(x), k, stride=s, padding=p, ceil_mode=ceil, return_mask=True)
    kk = k if isinstance(k, list) else [k, k]
    ss = s if isinstance(s, list) else [s, s]
    pp = [p] * 4 if isinstance(p, int) else ([p[0], p[0], p[1], p[1]] if len(p) == 2 else p)
    want, wmask = R.max_pool2d(x, kk, ss, pp, ceil)
    np.testing.assert_allclose(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), wmask)
    assert mask.numpy().dtype == np.int32


@pytest.mark.parametrize('k,s,p,ceil,excl', [(3, 2, 1, True, True), (3, 2, 1, False, False),
                                             ([2, 3], [2, 1], [1, 0, 0, 1], True, True)])
def test_avg_pool_matches_reference(k, s, p, ceil, excl):
    x = rng.standard_normal((2, 3, 7, 6))
    out = F.avg_pool2d(t(x), k, stride=s, padding=p, ceil_mode=ceil, exclusive=excl)
    kk = k if isinstance(k, list) else [k, k]
    ss = s if isinstance(s, list) else [s, s]
    pp = [p] * 4 if isinstance(p, int) else p
    np.testing.assert_allclose(out.numpy(), R.avg_pool2d(x, kk, ss, pp, ceil, excl))


def test_nhwc_pooling_matches_nchw():
    x = rng.standard_normal((2, 6, 5, 3))
    xc = x.transpose(0, 3, 1, 2)
    out = F.max_pool2d(t(x), 3, stride=2, padding=1, data_format='NHWC').numpy()
    np.testing.assert_allclose(out, F.max_pool2d(t(xc), 3, 2, 1).numpy().transpose(0, 2, 3, 1))
    out = F.avg_pool2d(t(x), 2, padding=1, ceil_mode=True, data_format='NHWC').numpy()
    want = F.avg_pool2d(t(xc), 2, padding=1, ceil_mode=True).numpy().transpose(0, 2, 3, 1)
    np.testing.assert_allclose(out, want)
    with pytest.raises(paddle.OpError, match='return_mask=True requires data_format'):
        F.max_pool2d(t(x), 2, return_mask=True, data_format='NHWC')


def test_pool1d():
    x = rng.standard_normal((2, 3, 9))
    out, mask = F.max_pool1d(t(x), 3, stride=2, padding=1, return_mask=True)
    want, wmask = R.max_pool2d(x[:, :, None], [1, 3], [1, 2], [0, 0, 1, 1], False)
    np.testing.assert_allclose(out.numpy(), want[:, :, 0])
    np.testing.assert_array_equal(mask.numpy(), wmask[:, :, 0])
    out = F.avg_pool1d(t(x), 4, stride=3, padding=2, exclusive=False, ceil_mode=True)
    np.testing.assert_allclose(out.numpy(), R.avg_pool2d(x[:, :, None], [1, 4], [1, 3],
                                                         [0, 0, 2, 2], True, False)[:, :, 0])


def test_adaptive_pools():
    x = rng.standard_normal((2, 3, 7, 10))
    out = F.adaptive_avg_pool2d(t(x), [3, 4])
    np.testing.assert_allclose(out.numpy(), R.adaptive_avg_pool2d(x, (3, 4)))
    out = F.adaptive_avg_pool2d(t(x), [None, 4])
    assert out.shape == [2, 3, 7, 4]
    out, mask = F.adaptive_max_pool2d(t(x), 3, return_mask=True)
    want, wmask = R.adaptive_max_pool2d(x, (3, 3))
    np.testing.assert_allclose(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), wmask)
    out = F.adaptive_avg_pool1d(t(x[:, :, 0]), 3)
    np.testing.assert_allclose(out.numpy(), R.adaptive_avg_pool2d(x[:, :, :1], (1, 3))[:, :, 0])
    out = F.adaptive_max_pool1d(t(x[:, :, 0]), 4)
    np.testing.assert_allclose(out.numpy(), R.adaptive_max_pool2d(x[:, :, :1], (1, 4))[0][:, :, 0])
    # global pooling, channel-last
    out = F.adaptive_avg_pool2d(t(x.transpose(0, 2, 3, 1)), 1, data_format='NHWC')
    np.testing.assert_allclose(out.numpy()[:, 0, 0], x.mean((2, 3)))


def test_max_pool_grad_routes_to_the_argmax_and_accumulates_overlaps():
    x = distinct((1, 1, 4, 4))
    xt = t(x, True)
    out = F.max_pool2d(xt, 3, stride=1)               # overlapping windows
    out.sum().backward()
    want = np.zeros(16)
    np.add.at(want, R.max_pool2d(x, [3, 3], [1, 1], [0] * 4, False)[1].ravel(), 1)
    np.testing.assert_allclose(xt.grad.numpy().ravel(), want)


def test_max_pool_double_grad_is_a_gather():
    x = distinct((2, 2, 5, 5))
    xt = t(x, True)
    out = F.max_pool2d(xt, 2, stride=2, ceil_mode=True)
    g = t(rng.standard_normal(out.shape), True)
    (gx,) = paddle.grad(out, xt, g, create_graph=True)
    v = rng.standard_normal(x.shape)
    (gg,) = paddle.grad(gx, g, t(v))                   # d<v, gx>/dg = v at the argmax
    mask = R.max_pool2d(x, [2, 2], [2, 2], [0] * 4, True)[1]
    want = np.take_along_axis(v.reshape(2, 2, -1), mask.reshape(2, 2, -1), 2).reshape(mask.shape)
    np.testing.assert_allclose(gg.numpy(), want)


def test_avg_pool_grad_is_the_adjoint_and_its_grad_is_avg_pool():
    x = rng.standard_normal((1, 2, 5, 6))
    xt = t(x, True)
    out = F.avg_pool2d(xt, 3, stride=2, padding=1, ceil_mode=True, exclusive=True)
    g = rng.standard_normal(out.shape)
    gt = t(g, True)
    (gx,) = paddle.grad(out, xt, gt, create_graph=True)
    assert np.isclose(np.sum(out.numpy() * g), np.sum(x * gx.numpy()))
    v = rng.standard_normal(x.shape)
    (gg,) = paddle.grad(gx, gt, t(v))
    np.testing.assert_allclose(gg.numpy(), F.avg_pool2d(t(v), 3, 2, 1, ceil_mode=True).numpy())


def test_pool_grads_against_torch():
    torch = pytest.importorskip('torch')
    x = rng.standard_normal((2, 3, 9, 8)).astype(np.float32)
    tf = torch.nn.functional
    for fn, tfn in [(lambda a: F.max_pool2d(a, 3, 2, 1), lambda a: tf.max_pool2d(a, 3, 2, 1)),
                    (lambda a: F.avg_pool2d(a, 3, 2, 1, exclusive=False),
                     lambda a: torch.nn.functional.avg_pool2d(a, 3, 2, 1)),
                    (lambda a: F.adaptive_avg_pool2d(a, [4, 3]),
                     lambda a: torch.nn.functional.adaptive_avg_pool2d(a, [4, 3])),
                    (lambda a: F.adaptive_max_pool2d(a, [4, 3]),
                     lambda a: torch.nn.functional.adaptive_max_pool2d(a, [4, 3]))]:
        xt = t(x, True)
        out = fn(xt)
        (out * out).sum().backward()
        tx = torch.tensor(x, requires_grad=True)
        tout = tfn(tx)
        (tout * tout).sum().backward()
        np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(xt.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_pool_errors():
    x = t(np.ones((1, 1, 4, 4)))
    with pytest.raises(paddle.OpError, match='max_pool2d: input x must be 4-D'):
        F.max_pool2d(t(np.ones((4, 4))), 2)
    with pytest.raises(paddle.OpError, match="padding='VALID' requires ceil_mode=False"):
        F.avg_pool2d(x, 2, padding='VALID', ceil_mode=True)
    with pytest.raises(paddle.OpError, match='kernel_size'):
        F.max_pool2d(x, 5)
    with pytest.raises(paddle.OpError, match='divisor_override'):
        F.avg_pool2d(x, 2, divisor_override=0)
    with pytest.raises(paddle.OpError, match='output_size'):
        F.adaptive_avg_pool2d(x, [1, 2, 3])


def test_avg_pool_grad_when_windows_tile_the_input():
    x = t(rng.standard_normal((2, 3, 4, 6)), True)
    out = F.avg_pool2d(x, [2, 3])
    g = rng.standard_normal(out.shape)
    out.backward(t(g))
    want = np.repeat(np.repeat(g / 6, 2, axis=2), 3, axis=3)
    np.testing.assert_allclose(x.grad.numpy(), want)


@pytest.mark.parametrize('kernel,stride,padding,ceil_mode,fmt', [
    (2, 2, 0, False, 'NCHW'), (3, 2, 0, False, 'NHWC'), (2, 2, 1, False, 'NCHW'),
    (2, 2, 0, True, 'NCHW'), (3, 1, 0, False, 'NCHW')])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_max_pool_grad_fast_path_matches_the_scatter_op(kernel, stride, padding, ceil_mode,
                                                         fmt, dtype):
    # the fused grad (which skips the padding check when no window can leave the
    # input) against the composite grad built from pool_scatter, batch 1 and 3
    for n in (1, 3):
        shape = (n, 2, 5, 7) if fmt == 'NCHW' else (n, 5, 7, 2)
        x = distinct(shape).astype(dtype)
        g = rng.standard_normal(F.max_pool2d(t(x), kernel, stride, padding, ceil_mode=ceil_mode,
                                             data_format=fmt).shape).astype(dtype)
        grads = []
        for create_graph in (False, True):      # True: the composite (registered ops) rule
            xt = t(x, True)
            out = F.max_pool2d(xt, kernel, stride, padding, ceil_mode=ceil_mode,
                               data_format=fmt)
            (gx,) = paddle.grad([out], [xt], [t(g)], create_graph=create_graph)
            grads.append(gx.numpy())
        assert grads[0].dtype == dtype
        np.testing.assert_array_equal(grads[0], grads[1])
