"""Pixel / channel shuffles, affine_grid and grid_sample: values against numpy
loop references, gradients (also w.r.t. the sampling grid) by finite
differences, static / @to_static agreement, and the layers."""
import itertools
import math

import numpy as np
import pytest

import framework as paddle
import framework.nn as nn
import framework.nn.functional as F

from nn_check import check_grads, check_modes

rng = np.random.default_rng(17)


def t(a):
    return paddle.to_tensor(a)


def test_pixel_shuffle_unshuffle_and_channel_shuffle():
    x = rng.standard_normal((2, 8, 3, 4))
    y = F.pixel_shuffle(t(x), 2).numpy()
    for c, i, j in itertools.product(range(2), range(6), range(8)):
        assert y[1, c, i, j] == x[1, c * 4 + (i % 2) * 2 + j % 2, i // 2, j // 2]
    np.testing.assert_array_equal(F.pixel_unshuffle(t(y), 2).numpy(), x)
    nhwc = F.pixel_shuffle(t(x.transpose(0, 2, 3, 1)), 2, 'NHWC').numpy()
    np.testing.assert_array_equal(nhwc, y.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(
        nn.PixelUnshuffle(2, 'NHWC')(t(nhwc)).numpy(), x.transpose(0, 2, 3, 1))
    cs = F.channel_shuffle(t(x), 4).numpy()          # 4 groups of 2 -> channel k*4 + g
    for g, k in itertools.product(range(4), range(2)):
        np.testing.assert_array_equal(cs[:, k * 4 + g], x[:, g * 2 + k])
    assert nn.ChannelShuffle(2)(t(x)).shape == [2, 8, 3, 4]
    assert nn.PixelShuffle(2)(t(x)).shape == [2, 2, 6, 8]
    with pytest.raises(ValueError, match='divisible'):
        F.pixel_unshuffle(t(x), 3)

    def f(x):
        return F.channel_shuffle(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2), 2)
    check_modes(f, [x])


def test_affine_grid_closed_form():
    theta = rng.standard_normal((2, 2, 3))
    for ac in (True, False):
        grid = F.affine_grid(t(theta), [2, 3, 4, 5], align_corners=ac).numpy()
        xs = np.linspace(-1, 1, 5) * (1 if ac else 4 / 5)
        ys = np.linspace(-1, 1, 4) * (1 if ac else 3 / 4)
        for n, i, j in itertools.product(range(2), range(4), range(5)):
            np.testing.assert_allclose(grid[n, i, j], theta[n] @ [xs[j], ys[i], 1.0])
    theta3 = rng.standard_normal((1, 3, 4))
    g3 = F.affine_grid(t(theta3), [1, 2, 2, 3, 4]).numpy()
    np.testing.assert_allclose(g3[0, 1, 2, 3], theta3[0] @ [1.0, 1.0, 1.0, 1.0])

    def f(theta):
        return F.affine_grid(theta, [2, 1, 3, 2], align_corners=False)
    check_grads(f, [theta])
    check_modes(f, [theta])


def _ref_grid_sample(x, grid, mode, padding_mode, align_corners):
    """Loop reference: one output point at a time, from the definitions."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + grid.shape[1:3])

    def source(g, size):
        v = (g + 1) / 2 * (size - 1) if align_corners else ((g + 1) * size - 1) / 2
        if padding_mode == 'border':
            v = min(max(v, 0), size - 1)
        elif padding_mode == 'reflection':
            lo, hi = (0, size - 1) if align_corners else (-0.5, size - 0.5)
            span = hi - lo
            while v < lo or v > hi:                  # mirror into [lo, hi]
                v = 2 * lo - v if v < lo else 2 * hi - v
            v = min(max(v, 0), size - 1)
        return v

    def pixel(b, ch, r, q):
        return x[b, ch, r, q] if 0 <= r < h and 0 <= q < w else 0.0

    for b, i, j in itertools.product(range(n), range(grid.shape[1]), range(grid.shape[2])):
        sx, sy = source(grid[b, i, j, 0], w), source(grid[b, i, j, 1], h)
        for ch in range(c):
            if mode == 'nearest':
                out[b, ch, i, j] = pixel(b, ch, int(np.rint(sy)), int(np.rint(sx)))
            else:
                x0, y0 = math.floor(sx), math.floor(sy)
                fx, fy = sx - x0, sy - y0
                out[b, ch, i, j] = ((1 - fx) * (1 - fy) * pixel(b, ch, y0, x0)
                                    + fx * (1 - fy) * pixel(b, ch, y0, x0 + 1)
                                    + (1 - fx) * fy * pixel(b, ch, y0 + 1, x0)
                                    + fx * fy * pixel(b, ch, y0 + 1, x0 + 1))
    return out


@pytest.mark.parametrize('mode,padding_mode,align_corners', list(itertools.product(
    ('bilinear', 'nearest'), ('zeros', 'border', 'reflection'), (True, False))))
def test_grid_sample_matches_the_loop_reference(mode, padding_mode, align_corners):
    x = rng.standard_normal((2, 2, 4, 5))
    grid = rng.uniform(-1.6, 1.6, (2, 3, 4, 2))
    got = F.grid_sample(t(x), t(grid), mode, padding_mode, align_corners).numpy()
    np.testing.assert_allclose(got, _ref_grid_sample(x, grid, mode, padding_mode,
                                                     align_corners), atol=1e-12)


def test_grid_sample_rounds_half_to_even_in_nearest_mode():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    gx = np.array([2 * v / 3 - 1 for v in (0.5, 1.5, 2.5)])     # pixel x = .5, 1.5, 2.5
    grid = np.stack([gx, -np.ones(3)], -1).reshape(1, 1, 3, 2)
    np.testing.assert_array_equal(F.grid_sample(t(x), t(grid), 'nearest').numpy().ravel(),
                                  [0, 2, 2])


def test_grid_sample_gradients_and_modes():
    x = rng.standard_normal((1, 2, 3, 4))
    grid = rng.uniform(-1.1, 1.1, (1, 2, 3, 2))

    def f(x, grid):
        return F.grid_sample(x, grid, padding_mode='reflection', align_corners=False)

    def g(x, grid):
        return F.grid_sample(x, grid, padding_mode='border')
    check_grads(f, [x, grid])
    check_grads(g, [x, grid])
    check_modes(f, [x, grid])
    x5 = rng.standard_normal((1, 2, 2, 3, 3))
    g5 = rng.uniform(-1, 1, (1, 2, 2, 2, 3))

    def h(x, grid):
        return F.grid_sample(x, grid, align_corners=False)
    check_grads(h, [x5, g5])
    # a grid on the voxel centres reproduces the input
    zs, ys, xs = np.meshgrid(*(np.linspace(-1, 1, n) for n in (2, 3, 3)), indexing='ij')
    ident = np.stack([xs, ys, zs], -1)[None]
    np.testing.assert_allclose(F.grid_sample(t(x5), t(ident)).numpy(), x5, atol=1e-12)
