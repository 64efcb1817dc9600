"""3-D pooling, LP pooling, max unpooling, fractional max pooling and
unfold/fold: values against loop references and closed forms, gradients by
finite differences, static / @to_static agreement, and the layers."""
import numpy as np
import pytest

import framework as paddle
import framework.nn as nn
import framework.nn.functional as F
from framework.ops.conv import reference as R
from framework.ops.conv.pool import fractional_bounds

from nn_check import check_grads, check_modes

rng = np.random.default_rng(11)


def distinct(*shape):
    return rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1


def t(a):
    return paddle.to_tensor(a)


@pytest.mark.parametrize('kw', [dict(kernel_size=2),
                                dict(kernel_size=[3, 2, 3], stride=[2, 1, 2], padding=1),
                                dict(kernel_size=3, stride=2, padding=[1, 0, 1], ceil_mode=True)])
def test_pool3d_matches_loop_references(kw):
    x = distinct(2, 3, 5, 6, 7)
    k = kw['kernel_size'] if isinstance(kw['kernel_size'], list) else [kw['kernel_size']] * 3
    s = kw.get('stride', k)
    s = s if isinstance(s, list) else [s] * 3
    p = kw.get('padding', 0)
    p = [v for v in (p if isinstance(p, list) else [p] * 3) for _ in (0, 1)]
    ceil = kw.get('ceil_mode', False)
    out, mask = F.max_pool3d(t(x), return_mask=True, **kw)
    want, want_idx = R.max_pool_nd(x, k, s, p, ceil)
    np.testing.assert_array_equal(out.numpy(), want)
    np.testing.assert_array_equal(mask.numpy(), want_idx)
    for excl in (True, False):
        np.testing.assert_allclose(F.avg_pool3d(t(x), exclusive=excl, **kw).numpy(),
                                   R.avg_pool_nd(x, k, s, p, ceil, excl), rtol=1e-12)


def test_avg_pool_inclusive_divisor_counts_only_the_padded_input():
    # Paddle 3.3.1: a ceil_mode window running past the padding divides by its
    # part inside the padded input (2 here), not by the kernel size (3)
    x = t(np.ones((1, 1, 6)))
    np.testing.assert_allclose(F.avg_pool1d(x, 3, 2, ceil_mode=True, exclusive=False).numpy(),
                               [[[1.0, 1.0, 1.0]]])
    y = F.avg_pool3d(t(np.ones((1, 1, 5, 6, 7))), 3, 2, [1, 0, 1], ceil_mode=True,
                     exclusive=False).numpy()
    assert y[0, 0, 0, 0, 0] == pytest.approx(4 / 9)        # 2 real planes, 2 real columns of 3


def test_pool3d_channels_last_divisor_and_adaptive():
    x = rng.standard_normal((2, 4, 6, 5, 3))               # NDHWC
    got = F.avg_pool3d(t(x), 2, divisor_override=3, data_format='NDHWC').numpy()
    want = R.avg_pool_nd(x.transpose(0, 4, 1, 2, 3), [2] * 3, [2] * 3, [0] * 6, False, True, 3)
    np.testing.assert_allclose(got, want.transpose(0, 2, 3, 4, 1), rtol=1e-12)
    xc = distinct(2, 3, 5, 6, 7)
    for size in (1, [2, 3, 4], [3, None, 5]):
        full = [s if o is None else o for o, s in
                zip(size if isinstance(size, list) else [size] * 3, xc.shape[2:])]
        np.testing.assert_allclose(F.adaptive_avg_pool3d(t(xc), size).numpy(),
                                   R.adaptive_pool_nd(xc, full, 'avg'), rtol=1e-12)
        out, idx = F.adaptive_max_pool3d(t(xc), size, return_mask=True)
        want, want_idx = R.adaptive_pool_nd(xc, full, 'max')
        np.testing.assert_array_equal(out.numpy(), want)
        np.testing.assert_array_equal(idx.numpy(), want_idx)


def test_pool3d_gradients_and_modes():
    x = distinct(1, 2, 4, 5, 3)

    def fmax(x):
        return F.max_pool3d(x, 2, stride=[2, 1, 1], padding=[1, 0, 1])

    def favg(x):
        return F.avg_pool3d(x, [2, 3, 2], stride=2, ceil_mode=True, exclusive=False)

    def fada(x):
        return F.adaptive_avg_pool3d(x, [3, 2, 2]) + F.adaptive_max_pool3d(x, [2, 2, 1]).sum()
    for f in (fmax, favg, fada):
        check_grads(f, [x])
        check_modes(f, [x])


def test_lp_pool_is_the_power_mean_of_windows():
    x = rng.uniform(0.5, 2.0, (2, 3, 9))
    got = F.lp_pool1d(t(x), 3.0, 3, stride=2, padding=1).numpy()
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1)))
    want = np.stack([(xp[..., i:i + 3] ** 3).sum(-1) ** (1 / 3) for i in range(0, 9, 2)], -1)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(F.lp_pool1d(t(x), float('inf'), 3).numpy(),
                               x.reshape(2, 3, 3, 3).max(-1))
    x2 = rng.uniform(0.5, 2.0, (1, 2, 4, 6))
    got = nn.LPPool2D(2, [2, 3])(t(x2)).numpy()
    want = np.sqrt((x2.reshape(1, 2, 2, 2, 2, 3) ** 2).sum((3, 5)))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # Paddle takes no absolute value: an odd power of a negative window sum is nan
    assert np.isnan(F.lp_pool1d(t(np.array([[[1.0, -2.0]]])), 3, 2).numpy()).all()

    def f(x):
        return F.lp_pool2d(x, 2.5, 2, stride=1)
    check_grads(f, [x2])
    check_modes(f, [x2])


def test_max_unpool_inverts_max_pool():
    x = distinct(2, 3, 6, 8)
    y, idx = F.max_pool2d(t(x), 2, return_mask=True)
    u = F.max_unpool2d(y, idx, 2).numpy()
    keep = np.zeros_like(x, bool)
    xb = x.reshape(2, 3, 3, 2, 4, 2).transpose(0, 1, 2, 4, 3, 5).reshape(2, 3, 3, 4, 4)
    best = xb.argmax(-1)
    for pos in np.ndindex(*best.shape):
        n, c, i, j = pos
        keep[n, c, 2 * i + best[pos] // 2, 2 * j + best[pos] % 2] = True
    np.testing.assert_array_equal(u, np.where(keep, x, 0))
    assert nn.MaxUnPool2D(2)(y, idx).shape == [2, 3, 6, 8]
    y1, i1 = F.max_pool1d(t(distinct(1, 2, 7)), 2, return_mask=True)
    assert F.max_unpool1d(y1, i1, 2, output_size=[7]).shape == [1, 2, 7]
    y3, i3 = F.max_pool3d(t(distinct(1, 2, 4, 4, 6)), 2, return_mask=True)
    u3 = nn.MaxUnPool3D(2)(y3, i3)
    assert u3.shape == [1, 2, 4, 4, 6] and np.isclose(u3.numpy().sum(), y3.numpy().sum())
    with pytest.raises(ValueError, match='output_size'):
        F.max_unpool2d(y, idx, 2, output_size=[9, 8])

    def f(x, idx):
        return F.max_unpool2d(x, idx, 2, output_size=[6, 8])
    check_grads(f, [y.numpy(), idx.numpy()], wrt=[0])
    check_modes(f, [y.numpy(), idx.numpy()])


# (size, out, kernel, u) -> (starts, ends) as Paddle 3.3.1 computes them
PADDLE_SEQUENCES = [
    ((11, 5, 0, 0.6), ([0, 2, 5, 7, 9], [2, 5, 7, 9, 11])),
    ((11, 5, 3, 0.6), ([0, 2, 4, 6, 8], [3, 5, 7, 9, 11])),
    ((9, 4, 0, 0.6), ([0, 3, 5, 7], [3, 5, 7, 9])),
    ((9, 4, 2, 0.6), ([0, 2, 5, 7], [2, 4, 7, 9])),
    ((9, 4, 2, 0.9), ([0, 2, 4, 7], [2, 4, 6, 9])),
    ((8, 3, 2, 0.8), ([0, 3, 6], [2, 5, 8])),
    ((8, 3, 0, 0.95), ([0, 2, 5], [2, 5, 8])),
    ((10, 4, 0, 0.99), ([0, 2, 5, 7], [2, 5, 7, 10])),
]


@pytest.mark.parametrize('args,expected', PADDLE_SEQUENCES)
def test_fractional_windows_are_paddles(args, expected):
    starts, ends = fractional_bounds(*args)
    assert (starts.tolist(), ends.tolist()) == expected


def test_fractional_max_pool_values_mask_and_randomness():
    x = distinct(1, 2, 9, 11)
    out, mask = F.fractional_max_pool2d(t(x), [4, 5], random_u=0.6, return_mask=True)
    rows, cols = fractional_bounds(9, 4, 0, 0.6), fractional_bounds(11, 5, 0, 0.6)
    for i in range(4):
        for j in range(5):
            win = x[0, 1, rows[0][i]:rows[1][i], cols[0][j]:cols[1][j]]
            assert out.numpy()[0, 1, i, j] == win.max()
            r, c = np.unravel_index(win.argmax(), win.shape)
            assert mask.numpy()[0, 1, i, j] == (rows[0][i] + r) * 11 + cols[0][j] + c
    assert nn.FractionalMaxPool2D([4, 5], random_u=0.6)(t(x)).shape == [1, 2, 4, 5]
    paddle.seed(3)
    a = F.fractional_max_pool3d(t(distinct(1, 1, 7, 8, 9)), [3, 4, 5]).numpy()
    paddle.seed(3)
    b = nn.FractionalMaxPool3D([3, 4, 5])(t(distinct(1, 1, 7, 8, 9))).shape
    assert a.shape == (1, 1, 3, 4, 5) and b == [1, 1, 3, 4, 5]

    def f(x):
        return F.fractional_max_pool2d(x, [3, 4], kernel_size=[2, 2], random_u=0.3)
    check_grads(f, [x])
    check_modes(f, [x])


def test_unfold_fold_against_loops_and_as_adjoints():
    x = rng.standard_normal((2, 3, 6, 7))
    cols = F.unfold(t(x), [2, 3], strides=[2, 1], paddings=[1, 0, 0, 2], dilations=[1, 2])
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (0, 2)))            # top, left, bottom, right
    blocks = [xp[:, :, i:i + 2, j:j + 5:2].reshape(2, -1)
              for i in range(0, xp.shape[2] - 1, 2) for j in range(xp.shape[3] - 4)]
    np.testing.assert_allclose(cols.numpy(), np.stack(blocks, -1))
    y = rng.standard_normal(cols.shape)
    back = F.fold(t(y), [6, 7], [2, 3], strides=[2, 1], paddings=[1, 0, 0, 2],
                  dilations=[1, 2]).numpy()
    assert np.isclose((cols.numpy() * y).sum(), (x * back).sum())     # <Ux, y> = <x, U^T y>
    ones = nn.Fold([4, 4], 2)(t(np.ones((1, 4, 9)))).numpy()[0, 0]
    np.testing.assert_allclose(ones, [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2], [1, 2, 2, 1]])
    assert nn.Unfold(2, strides=2)(t(x)).shape == [2, 12, 9]

    def fu(x):
        return F.unfold(x, 2, paddings=1)

    def ff(y):
        return F.fold(y, [3, 4], 2, paddings=[1, 1])
    check_grads(fu, [rng.standard_normal((1, 2, 3, 3))])
    check_grads(ff, [rng.standard_normal((1, 8, 20))])
    check_modes(fu, [x])
    with pytest.raises(ValueError, match='fold.*blocks'):
        F.fold(t(np.ones((1, 4, 5))), [4, 4], 2)
