"""Reductions, order statistics, scans, histograms, products and distances as
a Paddle user calls them: values against numpy (and scipy when installed),
Paddle's NaN / tie / dtype rules, gradients against finite differences, and
static programs and ``@to_static`` against eager."""
import math

import numpy as np
import pytest

import framework as paddle
from framework import OpError

from test_math_more import assert_same, check_grad, eager_run, static_run, t

rng = np.random.default_rng(1)
NAN = float('nan')


# ---- median / nanmedian -------------------------------------------------------------------

X = np.array([[3.0, 1.0, 2.0, 2.0], [NAN, 5.0, 4.0, 1.0], [1.0, 1.0, 7.0, 7.0]])


def test_median_values_dtypes_and_nan():
    np.testing.assert_array_equal(paddle.median(t(X), axis=1).numpy(), np.median(X, axis=1))
    np.testing.assert_array_equal(paddle.median(t(X), axis=0).numpy(), np.median(X, axis=0))
    assert np.isnan(paddle.median(t(X)).item())
    x = rng.standard_normal((4, 5, 6))
    for axis in (None, 0, 1, -1):
        np.testing.assert_allclose(paddle.median(t(x), axis).numpy(), np.median(x, axis))
    ints = paddle.to_tensor([[3, 1, 2, 2], [0, 5, 4, 1]])
    m = paddle.median(ints, axis=1)
    assert m.dtype == paddle.float32 and m.tolist() == [2.0, 2.5]
    assert paddle.median(t(X, 'float32'), axis=1).dtype == paddle.float32
    assert paddle.median(ints, axis=1, keepdim=True).shape == [2, 1]
    assert paddle.median(ints, keepdim=True).shape == [1, 1]
    assert t(x).median(axis=2).shape == [4, 5]
    with pytest.raises(ValueError, match='axis'):
        paddle.median(t(X), axis=[0, 1])


def test_median_min_mode_returns_lower_value_and_its_index():
    v, i = paddle.median(t(X), axis=1, mode='min')
    np.testing.assert_array_equal(v.numpy(), [2.0, NAN, 1.0])
    assert i.dtype == paddle.int64
    assert i.numpy()[1] == 0                              # a NaN slice points at its NaN
    assert X[0, i.numpy()[0]] == 2.0 and X[2, i.numpy()[2]] == 1.0
    ints = paddle.to_tensor([[3, 1, 2, 2], [0, 5, 4, 1]])
    v, i = paddle.median(ints, axis=1, mode='min')
    assert v.dtype == paddle.int64 and v.tolist() == [2, 1]
    assert paddle.median(ints, mode='min').tolist() == 2   # no axis: only the value


def test_nanmedian():
    np.testing.assert_array_equal(paddle.nanmedian(t(X), axis=1).numpy(), np.nanmedian(X, axis=1))
    assert paddle.nanmedian(t(X)).item() == np.nanmedian(X)
    assert paddle.nanmedian(t(X), axis=[0, 1]).item() == np.nanmedian(X)
    kept = paddle.nanmedian(t(X), axis=[0, 1], keepdim=True)
    assert kept.shape == [1, 1]
    v, i = paddle.nanmedian(t([[NAN, NAN], [1.0, 2.0]]), axis=1, mode='min')
    assert np.isnan(v.numpy()[0]) and v.numpy()[1] == 1.0 and i.tolist() == [-1, 0]


def test_median_gradient_splits_between_middle_values_and_ties():
    x = t([1.0, 3.0, 2.0, 4.0], grad=True)
    g, = paddle.grad(paddle.median(x), x)
    assert g.tolist() == [0.0, 0.5, 0.5, 0.0]
    x = t([2.0, 2.0, 2.0, 2.0], grad=True)      # Paddle: every tied element gets a share
    g, = paddle.grad(paddle.median(x), x)
    assert g.tolist() == [0.25] * 4
    x = t([[1.0, 3.0, 2.0]], grad=True)
    v, _ = paddle.median(x, axis=1, mode='min')
    g, = paddle.grad(v.sum(), x)
    assert g.tolist() == [[0.0, 0.0, 1.0]]
    check_grad(lambda v: paddle.median(v, axis=0), rng.standard_normal((5, 3)))
    check_grad(lambda v: paddle.nanmedian(v, axis=1), np.array([[1.0, NAN, 3.0, 2.0, 4.0]]))


# ---- quantile -----------------------------------------------------------------------------------

@pytest.mark.parametrize('mode', ['linear', 'lower', 'higher', 'midpoint'])
def test_quantile_matches_numpy(mode):
    x = rng.standard_normal((4, 7))
    qs = [0.0, 0.1, 0.5, 0.77, 1.0]
    for axis in (None, 0, 1, [0, 1]):
        got = paddle.quantile(t(x), qs, axis=axis, interpolation=mode).numpy()
        want = np.quantile(x, qs, axis=None if axis == [0, 1] else axis, method=mode)
        np.testing.assert_allclose(got, want, rtol=1e-12)


def test_quantile_nearest_rounds_halves_up_as_paddle():
    out = paddle.quantile(t([1.0, 2.0, 3.0, 4.0]), [0.125, 0.5, 0.625, 0.375],
                          interpolation='nearest')
    assert out.tolist() == [1.0, 3.0, 3.0, 2.0]


def test_quantile_shapes_nan_and_errors():
    x = t(X)
    np.testing.assert_array_equal(paddle.quantile(x, 0.3, axis=1).numpy()[[0, 2]],
                                  np.quantile(X[[0, 2]], 0.3, axis=1))
    assert np.isnan(paddle.quantile(x, 0.3, axis=1).numpy()[1])
    assert paddle.quantile(x, [0.1, 0.9], axis=1, keepdim=True).shape == [2, 3, 1]
    assert paddle.quantile(x, 0.5, keepdim=True).shape == [1, 1]
    assert paddle.quantile(x, paddle.to_tensor([0.1, 0.9]), axis=0).shape == [2, 4]
    assert paddle.quantile(paddle.to_tensor([1, 2, 3, 4]), 0.5).dtype == paddle.float32
    np.testing.assert_allclose(paddle.nanquantile(x, [0.25, 0.5], axis=1).numpy(),
                               np.nanquantile(X, [0.25, 0.5], axis=1))
    with pytest.raises(ValueError, match='range'):
        paddle.quantile(x, 1.5)
    with pytest.raises(ValueError, match='interpolation'):
        paddle.quantile(x, 0.5, interpolation='cubic')
    check_grad(lambda v: paddle.quantile(v, [0.3, 0.8], axis=1), rng.standard_normal((2, 5)))


# ---- kthvalue / mode -------------------------------------------------------------------------------

def test_kthvalue():
    x = rng.standard_normal((3, 5, 4))
    for axis in (0, 1, -1):
        v, i = paddle.kthvalue(t(x), 2, axis=axis)
        np.testing.assert_array_equal(v.numpy(), np.sort(x, axis)[(slice(None),) * (axis % 3) + (1,)])
        np.testing.assert_array_equal(np.take_along_axis(x, np.expand_dims(i.numpy(), axis), axis)
                                      .squeeze(axis), v.numpy())
    v, i = paddle.kthvalue(t([[3.0, 1.0], [1.0, 2.0]]), 2)      # default: the last axis
    assert v.tolist() == [3.0, 2.0] and i.tolist() == [0, 1]
    v, i = paddle.kthvalue(t([2.0, 1.0, 2.0, 2.0, 1.0]), 3)
    assert v.item() == 2.0 and i.item() == 0          # ties: the order of a stable sort
    assert paddle.kthvalue(t(x), 1, axis=0, keepdim=True)[0].shape == [1, 5, 4]
    assert paddle.kthvalue(t([NAN, 1.0, 0.5]), 3)[1].item() == 0   # NaN sorts last
    check_grad(lambda v: paddle.kthvalue(v, 2, axis=1)[0], rng.standard_normal((3, 4)))
    with pytest.raises(OpError, match='k'):
        paddle.kthvalue(t(x), 9, axis=1)


def test_mode():
    v, i = paddle.mode(paddle.to_tensor([[3, 1, 2, 2], [0, 5, 4, 1], [1, 1, 7, 7]]))
    assert v.tolist() == [2, 0, 1] and i.tolist() == [3, 0, 1]    # smallest, last position
    v, i = paddle.mode(t([[2.0, 1.0, 2.0, 1.0, 3.0], [5.0, 4.0, 4.0, 5.0, 1.0]]), keepdim=True)
    assert v.tolist() == [[1.0], [4.0]] and i.tolist() == [[3], [2]]
    v, i = paddle.mode(t(X), axis=0)
    assert v.shape == [4]
    x = t([1.0, 3.0, 3.0, 4.0], grad=True)
    g, = paddle.grad(paddle.mode(x)[0], x)
    assert g.tolist() == [0.0, 0.0, 1.0, 0.0]


# ---- scans ---------------------------------------------------------------------------------------

def test_cummax_cummin_indices_ties_and_nan():
    v, i = paddle.cummax(t([1.0, 3.0, 3.0, 2.0, 3.0]), axis=0)
    assert v.tolist() == [1.0, 3.0, 3.0, 3.0, 3.0] and i.tolist() == [0, 1, 2, 2, 4]
    v, i = paddle.cummin(t([3.0, 1.0, 1.0, 2.0, 1.0]), axis=0)
    assert i.tolist() == [0, 1, 2, 2, 4]
    v, i = paddle.cummax(t([1.0, NAN, 3.0, NAN, 2.0]), axis=0)
    assert np.isnan(v.numpy()[1:]).all() and i.tolist() == [0, 1, 1, 3, 3]
    x = rng.standard_normal((3, 4, 5))
    for axis in (0, 1, 2):
        np.testing.assert_array_equal(paddle.cummax(t(x), axis)[0].numpy(),
                                      np.maximum.accumulate(x, axis))
        np.testing.assert_array_equal(paddle.cummin(t(x), axis)[0].numpy(),
                                      np.minimum.accumulate(x, axis))
    v, i = paddle.cummax(paddle.to_tensor([[3, 1], [0, 5]]))       # axis None: flattened
    assert v.tolist() == [3, 3, 3, 5] and i.tolist() == [0, 0, 0, 3]
    assert paddle.cummin(t(x), 1, dtype='int32')[1].dtype == paddle.int32
    x = t([1.0, 3.0, 3.0, 2.0], grad=True)
    g, = paddle.grad(paddle.cummax(x, axis=0)[0].sum(), x)
    assert g.tolist() == [1.0, 1.0, 2.0, 0.0]


def test_cumprod_values_and_exact_gradient_at_zeros():
    x = rng.uniform(0.5, 1.5, (3, 4))
    np.testing.assert_allclose(paddle.cumprod(t(x), 1).numpy(), np.cumprod(x, 1))
    np.testing.assert_array_equal(paddle.cumprod(paddle.to_tensor([[1, 2], [3, 4]])).numpy(),
                                  [1, 2, 6, 24])
    assert paddle.cumprod(paddle.to_tensor([1, 2]), 0, dtype='float64').dtype == paddle.float64
    v = t([1.0, 0.0, 3.0, 2.0], grad=True)
    g, = paddle.grad(paddle.cumprod(v, dim=0).sum(), v)
    assert g.tolist() == [1.0, 10.0, 0.0, 0.0]           # Paddle's value
    zeros = np.array([[1.5, 0.0, 3.0, 0.0, 2.0], [0.0, 2.0, -1.0, 0.5, 3.0]])
    check_grad(lambda v: paddle.cumprod(v, 1), zeros)
    zeros = np.array([[1.5, 0.7, 3.0, 0.0, 2.0], [0.0, 2.0, -1.0, 0.5, 3.0]])
    v = t(zeros, grad=True)
    g, = paddle.grad(paddle.cumprod(v, 1).sum(), v, create_graph=True)
    (gg,) = paddle.grad(g.sum(), v)
    h = 1e-6
    num = np.zeros_like(zeros)
    for i in np.ndindex(zeros.shape):
        p, m = zeros.copy(), zeros.copy()
        p[i] += h
        m[i] -= h
        gp = paddle.grad(paddle.cumprod(w := t(p, grad=True), 1).sum(), w)[0].numpy().sum()
        gm = paddle.grad(paddle.cumprod(w := t(m, grad=True), 1).sum(), w)[0].numpy().sum()
        num[i] = (gp - gm) / (2 * h)
    np.testing.assert_allclose(gg.numpy(), num, rtol=1e-5, atol=1e-6)


def test_logcumsumexp_is_stable_and_its_gradient_too():
    x = np.array([[1.0, 2.0, 3.0], [0.0, -1.0, 1000.0]])
    np.testing.assert_allclose(paddle.logcumsumexp(t(x), axis=1).numpy(),
                               np.logaddexp.accumulate(x, 1))
    np.testing.assert_allclose(paddle.logcumsumexp(t(x)).numpy(),
                               np.logaddexp.accumulate(x.reshape(-1)))
    v = t([1.0, 0.0, 3.0, 2.0], grad=True)
    g, = paddle.grad(paddle.logcumsumexp(v, axis=0).sum(), v)
    np.testing.assert_allclose(g.numpy(), [1.9324, 0.3430, 1.4877, 0.2369], atol=1e-4)
    big = t([0.0, 1000.0, -1000.0, 999.0], grad=True)
    g, = paddle.grad((paddle.logcumsumexp(big, axis=0) * t([1.0, -2.0, 0.5, 3.0])).sum(), big)
    assert np.isfinite(g.numpy()).all()
    check_grad(lambda v: paddle.logcumsumexp(v, axis=1), rng.standard_normal((2, 4)) * 20)
    assert paddle.logcumsumexp(paddle.to_tensor([1, 2])).dtype == paddle.float32


def test_diff_and_trapezoid():
    x = rng.standard_normal((3, 5))
    np.testing.assert_allclose(paddle.diff(t(x)).numpy(), np.diff(x))
    np.testing.assert_allclose(paddle.diff(t(x), n=2, axis=0).numpy(), np.diff(x, 2, 0))
    pre, app = rng.standard_normal((3, 1)), rng.standard_normal((3, 2))
    np.testing.assert_allclose(paddle.diff(t(x), prepend=t(pre), append=t(app)).numpy(),
                               np.diff(x, prepend=pre, append=app))
    assert paddle.diff(paddle.to_tensor([True, False, False, True])).tolist() == [True, False, True]
    assert paddle.diff(t(x), n=9).shape == [3, 0]
    assert paddle.diff(paddle.to_tensor([1, 4, 9])).dtype == paddle.int64
    xs = np.array([0.0, 1.0, 3.0, 4.0, 6.0])
    np.testing.assert_allclose(paddle.trapezoid(t(x)).numpy(), np.trapezoid(x))
    np.testing.assert_allclose(paddle.trapezoid(t(x), dx=0.5, axis=0).numpy(),
                               np.trapezoid(x, dx=0.5, axis=0))
    np.testing.assert_allclose(paddle.trapezoid(t(x), x=t(xs)).numpy(), np.trapezoid(x, xs))
    np.testing.assert_allclose(paddle.trapezoid(t(x), x=t(np.tile(xs, (3, 1)))).numpy(),
                               np.trapezoid(x, np.tile(xs, (3, 1))))
    integrate = pytest.importorskip('scipy.integrate')
    np.testing.assert_allclose(paddle.cumulative_trapezoid(t(x), x=t(xs)).numpy(),
                               integrate.cumulative_trapezoid(x, xs))
    with pytest.raises(ValueError, match='both x and dx'):
        paddle.trapezoid(t(x), x=t(xs), dx=1.0)
    check_grad(lambda v: paddle.trapezoid(v, x=t(xs)), x)
    check_grad(lambda v: paddle.diff(v, n=2), x)


# ---- nan reductions, count, var, mean dtype, reduce_as ----------------------------------------

def test_nansum_nanmean_count_nonzero():
    np.testing.assert_array_equal(paddle.nansum(t(X), axis=1).numpy(), np.nansum(X, axis=1))
    np.testing.assert_allclose(paddle.nanmean(t(X)).numpy(), np.nanmean(X))
    np.testing.assert_allclose(paddle.nanmean(t(X), axis=0, keepdim=True).numpy(),
                               np.nanmean(X, axis=0, keepdims=True))
    assert paddle.nansum(paddle.to_tensor([1, 2], 'int32')).dtype == paddle.int64
    assert paddle.nansum(t(X), dtype='float32').dtype == paddle.float32
    v = t([1.0, NAN, 4.0], grad=True)
    assert paddle.grad(paddle.nansum(v), v)[0].tolist() == [1.0, 0.0, 1.0]
    assert paddle.grad(paddle.nanmean(v), v)[0].tolist() == [0.5, 0.0, 0.5]
    assert np.isnan(paddle.nanmean(t([NAN])).item())
    ints = paddle.to_tensor([[3, 0, 2], [0, 0, 1]])
    assert paddle.count_nonzero(ints, axis=1).tolist() == [2, 1]
    assert paddle.count_nonzero(ints).item() == 3 and ints.count_nonzero().dtype == paddle.int64
    assert paddle.count_nonzero(ints, axis=[0], keepdim=True).tolist() == [[1, 0, 2]]
    assert paddle.count_nonzero(paddle.to_tensor([True, False])).item() == 1


def test_var_correction_and_mean_dtype():
    x = t([1.0, 2.0, 4.0])
    assert paddle.var(x).item() == pytest.approx(np.var([1, 2, 4], ddof=1))
    assert paddle.var(x, correction=0).item() == pytest.approx(np.var([1, 2, 4]))
    assert paddle.var(x, correction=0.5).item() == pytest.approx(14 / 3 / 2.5)
    assert paddle.var(x, unbiased=False).item() == pytest.approx(np.var([1, 2, 4]))
    assert paddle.var(t([1.0, 2.0]), correction=3).item() == math.inf     # Paddle: n-c <= 0
    with pytest.raises(ValueError, match='only one'):
        paddle.var(x, unbiased=True, correction=0)
    check_grad(lambda v: paddle.var(v, axis=1, correction=2), rng.standard_normal((2, 5)))
    assert paddle.mean(paddle.to_tensor([1, 2]), dtype='float64').dtype == paddle.float64


def test_reduce_as():
    out = paddle.reduce_as(t(np.ones((2, 3, 4))), t(np.ones((3, 1))))
    assert out.shape == [3, 1] and out.numpy().ravel().tolist() == [8.0] * 3
    assert paddle.reduce_as(paddle.ones([2, 3], 'int32'), paddle.ones([3])).dtype == paddle.int64
    with pytest.raises(OpError, match='reduce_as'):
        paddle.reduce_as(t(np.ones((2, 3))), t(np.ones((4,))))
    check_grad(lambda v: paddle.reduce_as(v, t(np.ones((1, 3)))), rng.standard_normal((2, 3)))


# ---- histograms and bincount -------------------------------------------------------------------

def test_histogram_matches_numpy_binning():
    x = rng.standard_normal(200)
    counts = paddle.histogram(t(x), bins=7)
    assert counts.dtype == paddle.int64
    np.testing.assert_array_equal(counts.numpy(), np.histogram(x, 7)[0])
    np.testing.assert_array_equal(paddle.histogram(t(x), 5, -1.0, 1.0).numpy(),
                                  np.histogram(x, 5, (-1, 1))[0])
    w = rng.uniform(0, 1, 200)
    np.testing.assert_allclose(paddle.histogram(t(x), 4, weight=t(w)).numpy(),
                               np.histogram(x, 4, weights=w)[0])
    dens = paddle.histogram(t(x, 'float32'), 6, density=True)
    assert dens.dtype == paddle.float32
    np.testing.assert_allclose(dens.numpy(), np.histogram(x, 6, density=True)[0], rtol=1e-5)
    assert paddle.histogram(t([2.0, 2.0]), 4).tolist() == [0, 0, 2, 0]
    assert paddle.histogram(paddle.to_tensor([1, 2, 1, 4, 3, 0]), 4).tolist() == [1, 2, 1, 2]
    with pytest.raises(OpError, match='max'):
        paddle.histogram(t(x), 3, 5, 1)


def test_histogram_bin_edges_and_histogramdd():
    x = t([1.0, 2.0, 1.0, 4.0, 2.5, -1.0])
    np.testing.assert_allclose(paddle.histogram_bin_edges(x, 4).numpy(), np.linspace(-1, 4, 5))
    np.testing.assert_allclose(paddle.histogram_bin_edges(t([2.0, 2.0]), 4).numpy(),
                               np.linspace(1.5, 2.5, 5))
    assert paddle.histogram_bin_edges(x, 3, -2, 5).dtype == paddle.float32
    pts = rng.uniform(0, 1, (50, 2))
    hist, edges = paddle.histogramdd(t(pts), bins=[3, 4])
    want, wedges = np.histogramdd(pts, bins=[3, 4])
    np.testing.assert_array_equal(hist.numpy(), want)
    for e, we in zip(edges, wedges):
        np.testing.assert_allclose(e.numpy(), we)
    w = rng.uniform(0, 2, 50)
    hist, _ = paddle.histogramdd(t(pts), 2, ranges=[0.0, 1.0, 0.0, 0.5], weights=t(w), density=True)
    np.testing.assert_allclose(hist.numpy(), np.histogramdd(pts, 2, [(0, 1), (0, 0.5)], weights=w,
                                                            density=True)[0])
    custom = (t([0.0, 0.2, 1.0]), t([0.0, 0.5, 0.9, 1.0]))
    hist, _ = paddle.histogramdd(t(pts), bins=custom)
    np.testing.assert_array_equal(hist.numpy(), np.histogramdd(pts, [c.numpy() for c in custom])[0])


def test_bincount():
    x = paddle.to_tensor([1, 2, 1, 4, 3, 0])
    assert paddle.bincount(x).tolist() == [1, 2, 1, 1, 1]
    assert paddle.bincount(x, minlength=8).tolist() == [1, 2, 1, 1, 1, 0, 0, 0]
    w = paddle.to_tensor([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    out = paddle.bincount(x, weights=w)
    assert out.dtype == paddle.float32 and out.tolist() == [6.0, 4.0, 2.0, 5.0, 4.0]
    assert paddle.bincount(x, weights=x).dtype == paddle.float64     # Paddle: int weights
    assert paddle.bincount(paddle.to_tensor([], 'int64')).shape == [0]
    with pytest.raises(OpError, match='non-negative'):
        paddle.bincount(paddle.to_tensor([1, -1]))
    with pytest.raises(OpError, match='integer'):
        paddle.bincount(t([1.0]))


# ---- cov / corrcoef ----------------------------------------------------------------------------

def test_cov_and_corrcoef_match_numpy():
    x = rng.standard_normal((3, 6))
    np.testing.assert_allclose(t(x).cov().numpy(), np.cov(x))
    np.testing.assert_allclose(t(x).cov(rowvar=False).numpy(), np.cov(x, rowvar=False))
    np.testing.assert_allclose(t(x).cov(ddof=False).numpy(), np.cov(x, ddof=0))
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), rng.uniform(0.5, 2, 6)
    np.testing.assert_allclose(t(x).cov(fweights=paddle.to_tensor(fw)).numpy(),
                               np.cov(x, fweights=fw))
    np.testing.assert_allclose(t(x).cov(fweights=paddle.to_tensor(fw), aweights=t(aw)).numpy(),
                               np.cov(x, fweights=fw, aweights=aw))
    assert t(x[0]).cov().shape == []
    np.testing.assert_allclose(t(x).corrcoef().numpy(), np.corrcoef(x))
    np.testing.assert_allclose(t(x).corrcoef(rowvar=False).numpy(), np.corrcoef(x, rowvar=False))
    check_grad(lambda v: v.cov(), x)


# ---- products -----------------------------------------------------------------------------------

@pytest.mark.parametrize('eq,shapes', [
    ('ij,jk->ik', [(2, 3), (3, 4)]), ('ij,jk', [(2, 3), (3, 4)]), ('ii', [(3, 3)]),
    ('ii->i', [(3, 3)]), ('ij->', [(2, 3)]), ('ij->ji', [(2, 3)]), ('i,j->ij', [(2,), (3,)]),
    ('bij,bjk->bik', [(2, 3, 4), (2, 4, 5)]), ('...j,jk', [(2, 2, 3), (3, 4)]),
    ('...ij,...jk->...ik', [(2, 1, 2, 3), (4, 3, 2)]), ('i...j,j->...i', [(2, 3, 4), (4,)]),
    ('iij,jk->ik', [(2, 2, 3), (3, 4)]), ('ijk,k->', [(2, 3, 4), (4,)]),
    ('a,ab,bc->ac', [(2,), (2, 3), (3, 4)]), ('...i,...i->i', [(2, 3), (2, 3)]),
    ('...i->', [(2, 3)]), ('i...,i->i', [(3, 2, 2), (3,)]),
])
def test_einsum_matches_numpy_and_differentiates(eq, shapes):
    xs = [rng.standard_normal(s) for s in shapes]
    got = paddle.einsum(eq, *[t(x) for x in xs])
    lhs, _, out = eq.partition('->')
    if _ and '...' in lhs and '...' not in out:      # numpy cannot drop broadcast dims itself
        full = np.einsum(lhs + '->...' + out, *xs)
        want = full.sum(axis=tuple(range(full.ndim - len(out))))
    else:
        want = np.einsum(eq, *xs)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12, atol=1e-12)
    for k in range(len(xs)):
        check_grad(lambda *vs: paddle.einsum(eq, *vs), *xs, wrt=k)


def test_einsum_second_derivative_and_errors():
    a, b = t(rng.standard_normal((2, 3)), grad=True), t(rng.standard_normal((3, 2)), grad=True)
    out = paddle.einsum('ij,jk->ik', a, b)
    ga, = paddle.grad((out * out).sum(), a, create_graph=True)
    gab, = paddle.grad(ga.sum(), b)
    h = 1e-6
    bn = b.numpy()
    num = np.zeros_like(bn)
    for i in np.ndindex(bn.shape):
        vals = []
        for s in (h, -h):
            bb = bn.copy()
            bb[i] += s
            av = t(a.numpy(), grad=True)
            o = paddle.einsum('ij,jk->ik', av, t(bb))
            vals.append(paddle.grad((o * o).sum(), av)[0].numpy().sum())
        num[i] = (vals[0] - vals[1]) / (2 * h)
    np.testing.assert_allclose(gab.numpy(), num, rtol=1e-5)
    with pytest.raises(OpError, match='operands'):
        paddle.einsum('ij,jk->ik', a)
    with pytest.raises(OpError, match='size'):
        paddle.einsum('ij,jk->ik', a, a)
    with pytest.raises(OpError, match='repeated'):
        paddle.einsum('ij->ii', a)


def test_tensordot_inner_kron_mv():
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4, 5))
    np.testing.assert_allclose(paddle.tensordot(t(a), t(b)).numpy(), np.tensordot(a, b))
    np.testing.assert_allclose(paddle.tensordot(t(a), t(b), axes=[[1], [0]]).numpy(),
                               np.tensordot(a, b, axes=[[1], [0]]))
    np.testing.assert_allclose(paddle.tensordot(t(a), t(a), axes=[0, 1, 2]).numpy(),
                               np.tensordot(a, a, 3))
    np.testing.assert_allclose(paddle.tensordot(t(a[0]), t(b[0, 0]), axes=0).numpy(),
                               np.tensordot(a[0], b[0, 0], 0))
    np.testing.assert_allclose(paddle.tensordot(t(a[:1]), t(b), axes=[[0], [0]]).numpy(),
                               np.tensordot(a[:1].sum(0, keepdims=True), b.sum(0, keepdims=True),
                                            [[0], [0]]))
    x, y = rng.standard_normal((2, 4)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(paddle.inner(t(x), t(y)).numpy(), np.inner(x, y))
    assert paddle.inner(t(2.0), t([1.0, 3.0])).tolist() == [2.0, 6.0]
    k1, k2 = rng.standard_normal((2, 3)), rng.standard_normal((3, 2, 2))
    np.testing.assert_allclose(paddle.kron(t(k1), t(k2)).numpy(), np.kron(k1, k2))
    assert paddle.kron(paddle.to_tensor([[1, 2]]), paddle.to_tensor([[0, 1]])).dtype == paddle.int64
    np.testing.assert_allclose(paddle.mv(t(x), t(y[0])).numpy(), x @ y[0])
    check_grad(lambda u, v: paddle.kron(u, v), k1, k2, wrt=1)
    check_grad(lambda u, v: paddle.tensordot(u, v, axes=[[1, 2], [0, 1]]), a, b, wrt=0)
    check_grad(lambda u, v: paddle.inner(u, v), x, y, wrt=1)
    with pytest.raises(OpError, match='mv'):
        paddle.mv(t(x), t(x))


def test_addmm_baddbmm_and_trace():
    inp, a, b = rng.standard_normal((2, 4)), rng.standard_normal((2, 3)), rng.standard_normal((3, 4))
    np.testing.assert_allclose(paddle.addmm(t(inp), t(a), t(b), beta=0.5, alpha=2.0).numpy(),
                               0.5 * inp + 2 * a @ b)
    np.testing.assert_allclose(paddle.addmm(t(inp[0]), t(a), t(b)).numpy(), inp[0] + a @ b)
    bi, ba, bb = (rng.standard_normal((2, 2, 4)), rng.standard_normal((2, 2, 3)),
                  rng.standard_normal((2, 3, 4)))
    np.testing.assert_allclose(paddle.baddbmm(t(bi), t(ba), t(bb), 0.5, -1.0).numpy(),
                               0.5 * bi - ba @ bb)
    with pytest.raises(OpError, match='baddbmm'):
        paddle.baddbmm(t(np.ones(4)), t(ba), t(bb))
    check_grad(lambda i, u, v: paddle.addmm(i, u, v, 0.5, 2.0), inp, a, b, wrt=0)
    m = rng.standard_normal((3, 4, 5))
    for args in [(0, 0, 1), (1, 1, 2), (-2, -1, 0), (7, 0, 1)]:
        np.testing.assert_allclose(paddle.trace(t(m), *args).numpy(), np.trace(m, *args))
    assert paddle.trace(paddle.to_tensor([[1, 2], [3, 4]], 'int32')).dtype == paddle.int32
    check_grad(lambda v: paddle.trace(v, 1, 0, 2), m)


# ---- distances ----------------------------------------------------------------------------------

def test_dist_cdist_pdist_renorm():
    spatial = pytest.importorskip('scipy.spatial.distance')
    x, y = rng.standard_normal((4, 3)), rng.standard_normal((5, 3))
    for p in (1.0, 2.0, 3.0, math.inf):
        metric = 'chebyshev' if p == math.inf else 'minkowski'
        kw = {} if p == math.inf else {'p': p}
        np.testing.assert_allclose(paddle.cdist(t(x), t(y), p).numpy(),
                                   spatial.cdist(x, y, metric, **kw), rtol=1e-12)
        np.testing.assert_allclose(paddle.pdist(t(x), p).numpy(), spatial.pdist(x, metric, **kw),
                                   rtol=1e-12)
    assert paddle.cdist(t(x), t(y), 0.0).numpy().max() == 3.0
    d = paddle.dist(t(x), t(y[:4]), 3)
    assert d.shape == [] and d.item() == pytest.approx(np.sum(np.abs(x - y[:4]) ** 3) ** (1 / 3))
    assert paddle.dist(t(x), t(y[0]), float('-inf')).item() == pytest.approx(np.abs(x - y[0]).min())
    batch = paddle.cdist(t(np.stack([x, 2 * x])), t(y))
    assert batch.shape == [2, 4, 5]
    m = rng.standard_normal((3, 4)) * 3
    out = paddle.renorm(t(m), 2, 0, 2.0).numpy()
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    np.testing.assert_allclose(out, np.where(norms > 2, m * 2 / (norms + 1e-7), m))
    same = t([[1.0, 2.0], [1.0, 2.0]], grad=True)        # zero distance: gradient 0, not NaN
    g, = paddle.grad(paddle.pdist(same).sum(), same)
    assert g.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    check_grad(lambda u, v: paddle.cdist(u, v, 1.5), x, y, wrt=0)
    check_grad(lambda u: paddle.renorm(u, 1, 1, 1.0), m)


# ---- static programs and @to_static ---------------------------------------------------------------

def _stats(x):
    a = paddle.median(x, axis=1) + paddle.quantile(x, 0.3, axis=1) + paddle.nanmedian(x, axis=1)
    b = paddle.kthvalue(x, 2, axis=1)[0] + paddle.mode(x, axis=1)[0] + paddle.cummax(x, 1)[0].sum(1)
    c = paddle.cumprod(x, 1).sum(1) + paddle.logcumsumexp(x, 1)[:, -1] + paddle.nansum(x, 1)
    d = paddle.trapezoid(x) + paddle.diff(x).sum(1) + paddle.einsum('ij,ij->i', x, x)
    e = paddle.cdist(x, x).sum(1) + paddle.trace(paddle.matmul(x, x, transpose_y=True))
    f = paddle.renorm(x, 2, 0, 1.0).sum(1) + paddle.var(x, 1, correction=0)
    return a + b + c + d + e + f + paddle.inner(x, x).sum(1) + paddle.tensordot(x, x, [[1], [1]])[0]


def test_statistics_in_static_programs_match_eager():
    x = rng.standard_normal((3, 5))
    assert_same(static_run(_stats, x), eager_run(_stats, x), rtol=1e-10, atol=1e-12)


def test_statistics_under_to_static_match_eager():
    def f(x):
        out = _stats(x)
        for _ in range(2):
            out = out + paddle.cummin(x, axis=0)[0].sum()
        if x.mean() > 0:
            out = out * 2
        return out
    conv = paddle.jit.to_static(f)
    for x in (rng.standard_normal((3, 5)), rng.standard_normal((3, 5)) + 3):
        xe, xs = t(x, grad=True), t(x, grad=True)
        e, s = f(xe), conv(xs)
        np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-10)
        np.testing.assert_allclose(paddle.grad(s.sum(), xs)[0].numpy(),
                                   paddle.grad(e.sum(), xe)[0].numpy(), rtol=1e-10)
