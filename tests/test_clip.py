"""Gradient clipping classes and ``nn.utils`` helpers against hand computations."""
import numpy as np
import pytest

import framework as paddle
from framework.nn import utils
from framework.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue

G0 = np.array([[3.0, -4.0], [0.5, 1.0]])
G1 = np.array([12.0, -0.2])


def pairs(need_clip=(True, True), dtypes=('float64', 'float64')):
    out = []
    for i, (g, nc, dt) in enumerate(zip((G0, G1), need_clip, dtypes)):
        p = paddle.Parameter(np.zeros(g.shape, dtype=dt), name='c%d' % i)
        p.need_clip = nc
        out.append((p, paddle.to_tensor(g.astype(dt))))
    return out


def test_clip_by_value_default_min_and_explicit_min():
    got = ClipGradByValue(1.0)(pairs())
    np.testing.assert_array_equal(got[0][1].numpy(), np.clip(G0, -1.0, 1.0))
    np.testing.assert_array_equal(got[1][1].numpy(), [1.0, -0.2])
    got = ClipGradByValue(max=2.0, min=0.0)(pairs())
    np.testing.assert_array_equal(got[0][1].numpy(), [[2.0, 0.0], [0.5, 1.0]])


def test_clip_by_norm_per_tensor():
    got = ClipGradByNorm(5.0)(pairs())
    n0, n1 = np.sqrt(9 + 16 + 0.25 + 1), np.sqrt(144 + 0.04)
    np.testing.assert_allclose(got[0][1].numpy(), G0 * 5.0 / n0, rtol=1e-14)
    np.testing.assert_allclose(got[1][1].numpy(), G1 * 5.0 / n1, rtol=1e-14)
    small = ClipGradByNorm(100.0)(pairs())
    np.testing.assert_array_equal(small[0][1].numpy(), G0)


def test_clip_by_global_norm():
    total = np.sqrt(np.sum(G0 ** 2) + np.sum(G1 ** 2))
    got = ClipGradByGlobalNorm(2.0)(pairs())
    np.testing.assert_allclose(got[0][1].numpy(), G0 * 2.0 / total, rtol=1e-14)
    np.testing.assert_allclose(got[1][1].numpy(), G1 * 2.0 / total, rtol=1e-14)
    loose = ClipGradByGlobalNorm(100.0)(pairs())
    np.testing.assert_allclose(loose[1][1].numpy(), G1, rtol=1e-15)


def test_global_norm_mixed_dtypes_and_auto_skip():
    total = np.sqrt(np.sum(G0 ** 2) + np.sum(G1 ** 2))
    got = ClipGradByGlobalNorm(2.0)(pairs(dtypes=('float32', 'float64')))
    assert got[0][1].dtype == np.float32 and got[1][1].dtype == np.float64
    np.testing.assert_allclose(got[0][1].numpy(), G0 * 2.0 / total, rtol=1e-6)
    skipped = ClipGradByGlobalNorm(100.0, auto_skip_clip=True)(pairs())
    np.testing.assert_array_equal(skipped[0][1].numpy(), G0)
    clipped = ClipGradByGlobalNorm(2.0, auto_skip_clip=True)(pairs())
    np.testing.assert_allclose(clipped[0][1].numpy(), G0 * 2.0 / total, rtol=1e-14)


def test_global_norm_of_half_precision_gradients_does_not_overflow():
    p = paddle.Parameter(np.zeros(4, dtype='float16'), name='h')
    g = paddle.to_tensor(np.full(4, 200.0, dtype='float16'))   # sum of squares > 65504
    [(_, out)] = ClipGradByGlobalNorm(1.0)([(p, g)])
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.numpy().astype('float64'), [0.5] * 4, rtol=1e-3)


@pytest.mark.parametrize('clip', [ClipGradByValue(0.1), ClipGradByNorm(0.1),
                                  ClipGradByGlobalNorm(0.1)])
def test_need_clip_false_passes_through_and_none_grads_are_dropped(clip):
    ps = pairs(need_clip=(True, False))
    got = clip(ps + [(paddle.Parameter(np.zeros(2), name='nograd'), None)])
    assert len(got) == 2
    assert got[1][1] is ps[1][1]
    assert not np.array_equal(got[0][1].numpy(), G0)


def test_global_norm_ignores_need_clip_false_in_the_norm():
    got = ClipGradByGlobalNorm(1.0)(pairs(need_clip=(True, False)))
    np.testing.assert_allclose(got[0][1].numpy(), G0 / np.linalg.norm(G0), rtol=1e-14)


def test_clip_does_not_touch_the_input_gradients():
    ps = pairs()
    ClipGradByGlobalNorm(0.1)(ps)
    np.testing.assert_array_equal(ps[0][1].numpy(), G0)


@pytest.mark.parametrize('make,exc,match', [
    (lambda: ClipGradByValue(-1.0), ValueError, 'max'),
    (lambda: ClipGradByValue(1.0, min=2.0), ValueError, 'min'),
    (lambda: ClipGradByValue('a'), TypeError, 'max'),
    (lambda: ClipGradByNorm(0.0), ValueError, 'clip_norm'),
    (lambda: ClipGradByGlobalNorm(-1.0), ValueError, 'clip_norm'),
    (lambda: ClipGradByGlobalNorm(1.0, group_name=3), TypeError, 'group_name'),
])
def test_clip_argument_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


# ---- nn.utils -----------------------------------------------------------------------

def params_with_grads(dtype='float64'):
    ps = []
    for i, g in enumerate((G0, G1)):
        p = paddle.Parameter(np.ones(g.shape, dtype=dtype), name='u%d' % i)
        p.grad = paddle.to_tensor(g.astype(dtype))
        ps.append(p)
    return ps


@pytest.mark.parametrize('norm_type', [2.0, 1.0, float('inf'), 3.0])
def test_clip_grad_norm_in_place(norm_type):
    ps = params_with_grads()
    grad_objs = [p.grad for p in ps]
    flat = np.concatenate([G0.ravel(), G1])
    if norm_type == float('inf'):
        total = np.max(np.abs(flat))
    else:
        total = np.sum(np.abs(flat) ** norm_type) ** (1 / norm_type)
    got = utils.clip_grad_norm_(ps, max_norm=2.0, norm_type=norm_type)
    assert float(got) == pytest.approx(total, rel=1e-12)
    coef = 2.0 / (total + 1e-6)
    for p, g, obj in zip(ps, (G0, G1), grad_objs):
        assert p.grad is obj                   # the same gradient tensor, modified
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-12)


def test_clip_grad_norm_below_max_and_edge_cases():
    ps = params_with_grads()
    utils.clip_grad_norm_(ps, max_norm=1e3)
    np.testing.assert_array_equal(ps[0].grad.numpy(), G0)
    assert float(utils.clip_grad_norm_([paddle.Parameter(np.ones(2))], 1.0)) == 0.0
    bad = params_with_grads()
    bad[0].grad = paddle.to_tensor(np.array([[np.inf, 0.0], [0.0, 0.0]]))
    with pytest.raises(RuntimeError, match='non-finite'):
        utils.clip_grad_norm_(bad, 1.0, error_if_nonfinite=True)
    one = params_with_grads()[0]
    np.testing.assert_allclose(float(utils.clip_grad_norm_(one, 1.0)), np.linalg.norm(G0))


def test_clip_grad_norm_matches_pytorch():
    torch = pytest.importorskip('torch')
    ps = params_with_grads()
    tps = [torch.ones(g.shape, dtype=torch.float64, requires_grad=True) for g in (G0, G1)]
    for t, g in zip(tps, (G0, G1)):
        t.grad = torch.tensor(g)
    want = torch.nn.utils.clip_grad_norm_(tps, 2.0)
    got = utils.clip_grad_norm_(ps, 2.0)
    assert float(got) == pytest.approx(float(want), rel=1e-12)
    for p, t in zip(ps, tps):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-12)


def test_clip_grad_value_in_place():
    ps = params_with_grads()
    utils.clip_grad_value_(ps, 1.0)
    np.testing.assert_array_equal(ps[0].grad.numpy(), np.clip(G0, -1, 1))
    np.testing.assert_array_equal(ps[1].grad.numpy(), [1.0, -0.2])
    with pytest.raises(ValueError, match='clip_value'):
        utils.clip_grad_value_(ps, -1.0)


def test_parameters_to_vector_and_back():
    ps = params_with_grads()
    ps[0].set_value(G0)
    ps[1].set_value(G1)
    vec = utils.parameters_to_vector(ps)
    np.testing.assert_array_equal(vec.numpy(), np.concatenate([G0.ravel(), G1]))
    # differentiable: d/dp sum(vec^2) = 2p
    for p in ps:
        p.clear_gradient(set_to_zero=False)
    (vec * vec).sum().backward()
    np.testing.assert_allclose(ps[0].grad.numpy(), 2 * G0)
    utils.vector_to_parameters(paddle.to_tensor(np.arange(6.0)), ps)
    np.testing.assert_array_equal(ps[0].numpy(), [[0.0, 1.0], [2.0, 3.0]])
    np.testing.assert_array_equal(ps[1].numpy(), [4.0, 5.0])
    with pytest.raises(ValueError, match='6'):
        utils.vector_to_parameters(paddle.to_tensor(np.arange(5.0)), ps)
    with pytest.raises(ValueError, match='1-D'):
        utils.vector_to_parameters(paddle.to_tensor(np.ones((2, 3))), ps)
