"""Convolution: every algorithm against loop references, Paddle's padding /
layout / transpose semantics, the exhaustive-search cache, and errors."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework.ops.conv import algorithms as A
from framework.ops.conv import reference as R
from framework.ops.conv import search
from framework.backends import onednn
from framework.ops import backends

rng = np.random.default_rng(5)


def t(a, grad=False):
    return paddle.to_tensor(a, stop_gradient=not grad)


# (n, c, h, w, oc, kh, kw, stride, padding(t, b, l, r), dilation, groups)
GEOMS = [
    (2, 3, 7, 6, 4, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 1),
    (2, 4, 8, 7, 6, 3, 2, (2, 1), (0, 1, 2, 0), (1, 2), 2),
    (1, 4, 9, 9, 4, 3, 3, (1, 1), (2, 0, 1, 1), (1, 1), 4),      # depthwise
    (2, 4, 9, 9, 8, 3, 3, (2, 2), (1, 1, 1, 1), (1, 1), 4),      # depthwise x2
    (2, 2, 5, 5, 4, 1, 1, (1, 1), (0, 0, 0, 0), (1, 1), 1),      # 1x1
    (2, 6, 8, 9, 6, 3, 3, (1, 1), (1, 2, 0, 1), (2, 1), 3),
    (1, 3, 1, 9, 5, 1, 3, (1, 2), (0, 0, 1, 1), (1, 2), 1),      # a 1-D conv
    (3, 8, 10, 10, 8, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 2),    # Winograd, groups
    (2, 3, 6, 6, 2, 3, 3, (3, 3), (2, 2, 2, 2), (1, 1), 1),
    (2, 5, 7, 8, 3, 3, 3, (1, 1), (0, 0, 0, 0), (1, 1), 1),      # Winograd, odd output
    (1, 4, 5, 6, 4, 3, 3, (1, 1), (2, 2, 2, 2), (1, 1), 1),      # Winograd, wide padding
    (2, 3, 9, 8, 4, 5, 4, (2, 3), (2, 1, 0, 3), (1, 1), 1),
]


def _case(geom):
    n, c, h, w, oc, kh, kw, s, p, d, g = geom
    x = rng.standard_normal((n, c, h, w))
    wt = rng.standard_normal((oc, c // g, kh, kw))
    return x, wt, A.geom_forward(x.shape, wt.shape, s, p, d, g)


def test_geometries_cover_every_algorithm():
    seen = set()
    for geom in GEOMS:
        g = _case(geom)[2]
        for direction in A.DIRECTIONS:
            seen.update((direction, n) for n in A.candidates(direction, g))
    expect = {(d, n) for d, algos in A.DIRECTIONS.items() for n in algos}
    assert seen == expect


@pytest.mark.parametrize('geom', GEOMS)
def test_every_algorithm_matches_the_loop_reference(geom):
    x, wt, g = _case(geom)
    s, p, d, grp = (g.sh, g.sw), (g.pt, g.pb, g.pl, g.pr), (g.dh, g.dw), g.groups
    y = R.conv2d(x, wt, s, p, d, grp)
    gy = rng.standard_normal(y.shape)
    expected = {
        'forward': ((x, wt), y),
        'backward_data': ((gy, wt), R.conv2d_transpose(gy, wt, s, p, d, grp, (g.h, g.w))),
        'backward_filter': ((x, gy), R.conv2d_filter_grad(x, gy, (g.kh, g.kw), s, p, d, grp)),
    }
    for direction, ((a, b), want) in expected.items():
        for name in A.candidates(direction, g):
            got = A.run(direction, name, a, b, g)
            assert got.shape == want.shape, (direction, name)
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9,
                                       err_msg='%s/%s' % (direction, name))


@pytest.mark.parametrize('name', ['im2col', 'shift', 'winograd', 'winograd4'])
def test_float32_algorithms_are_accurate_on_a_larger_conv(name):
    x = rng.standard_normal((4, 16, 12, 12)).astype(np.float32)
    wt = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    g = A.geom_forward(x.shape, wt.shape, (1, 1), (1, 1, 1, 1), (1, 1), 1)
    want = R.conv2d(x.astype(np.float64), wt.astype(np.float64), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    got = A.run('forward', name, x, wt, g)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# ---- padding modes and shapes -------------------------------------------------

@pytest.mark.parametrize('padding,explicit', [
    (1, (1, 1, 1, 1)),
    ([1, 2], (1, 1, 2, 2)),
    ([0, 1, 2, 1], (0, 1, 2, 1)),
    ([[0, 0], [0, 0], [1, 0], [2, 1]], (1, 0, 2, 1)),
    ('VALID', (0, 0, 0, 0)),
    ('valid', (0, 0, 0, 0)),
])
def test_padding_forms(padding, explicit):
    x = rng.standard_normal((2, 3, 7, 8))
    w = rng.standard_normal((4, 3, 3, 2))
    out = F.conv2d(t(x), t(w), padding=padding, stride=[2, 1])
    want = R.conv2d(x, w, (2, 1), explicit, (1, 1), 1)
    assert out.shape == list(want.shape)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)


@pytest.mark.parametrize('h,w,stride,k', [(7, 8, 2, 3), (8, 8, 2, 3), (5, 9, 3, 4), (6, 6, 1, 5)])
def test_same_padding_gives_ceil_output_and_pads_bottom_right(h, w, stride, k):
    x = rng.standard_normal((1, 2, h, w))
    wt = rng.standard_normal((3, 2, k, k))
    out = F.conv2d(t(x), t(wt), stride=stride, padding='SAME', dilation=2)
    assert out.shape == [1, 3, -(-h // stride), -(-w // stride)]
    pads = []
    for size in (h, w):
        total = max((-(-size // stride) - 1) * stride + k - size, 0)
        pads += [total // 2, total - total // 2]
    # Paddle's SAME ignores dilation
    want = R.conv2d(x, wt, (stride, stride), pads, (1, 1), 1)
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)


def test_nested_padding_rejects_batch_or_channel_padding():
    with pytest.raises(paddle.OpError, match='batch and channel'):
        F.conv2d(t(np.ones((1, 1, 4, 4))), t(np.ones((1, 1, 3, 3))),
                 padding=[[0, 0], [1, 1], [1, 1], [1, 1]])


def test_groups_and_dilation_through_the_api():
    x = rng.standard_normal((2, 6, 9, 9))
    w = rng.standard_normal((9, 2, 3, 3))
    b = rng.standard_normal(9)
    out = F.conv2d(t(x), t(w), t(b), stride=2, padding=2, dilation=2, groups=3)
    want = R.conv2d(x, w, (2, 2), (2, 2, 2, 2), (2, 2), 3) + b[None, :, None, None]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)


def test_depthwise_through_the_api():
    x = rng.standard_normal((2, 4, 6, 6))
    w = rng.standard_normal((8, 1, 3, 3))
    out = F.conv2d(t(x), t(w), padding=1, groups=4)
    np.testing.assert_allclose(out.numpy(), R.conv2d(x, w, (1, 1), (1,) * 4, (1, 1), 4),
                               rtol=1e-10)


def test_nhwc_matches_nchw():
    x = rng.standard_normal((2, 5, 6, 4))
    w = rng.standard_normal((6, 2, 3, 2))
    out = F.conv2d(t(x), t(w), stride=[1, 2], padding=[1, 0], groups=2, data_format='NHWC')
    want = R.conv2d(x.transpose(0, 3, 1, 2), w, (1, 2), (1, 1, 0, 0), (1, 1), 2)
    assert out.shape == [2, 5, 3, 6]
    np.testing.assert_allclose(out.numpy(), want.transpose(0, 2, 3, 1), rtol=1e-10)


def test_nhwc_gradients_match_nchw():
    x = rng.standard_normal((2, 5, 6, 4))
    w = rng.standard_normal((6, 4, 3, 3))
    xa, wa = t(x, True), t(w, True)
    F.conv2d(xa, wa, padding=1, data_format='NHWC').sum().backward()
    xb, wb = t(x.transpose(0, 3, 1, 2).copy(), True), t(w, True)
    F.conv2d(xb, wb, padding=1).sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), xb.grad.numpy().transpose(0, 2, 3, 1), rtol=1e-10)
    np.testing.assert_allclose(wa.grad.numpy(), wb.grad.numpy(), rtol=1e-10)


def test_conv1d_both_layouts():
    x = rng.standard_normal((2, 3, 9))
    w = rng.standard_normal((4, 3, 3))
    out = F.conv1d(t(x), t(w), stride=2, padding='SAME')
    assert out.shape == [2, 4, 5]
    want = R.conv2d(x[:, :, None], w[:, :, None], (1, 2), (0, 0, 1, 1), (1, 1), 1)[:, :, 0]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)
    out2 = F.conv1d(t(x.transpose(0, 2, 1).copy()), t(w), stride=2, padding=1,
                    data_format='NLC')
    np.testing.assert_allclose(out2.numpy(), want.transpose(0, 2, 1), rtol=1e-10)


def test_float32_stays_float32():
    out = F.conv2d(t(np.ones((1, 2, 5, 5), np.float32)), t(np.ones((3, 2, 3, 3), np.float32)))
    assert out.numpy().dtype == np.float32
    np.testing.assert_allclose(out.numpy(), 18.0)


# ---- transposed conv -------------------------------------------------------------

def test_conv2d_transpose_output_padding_and_output_size():
    x = rng.standard_normal((2, 4, 5, 5))
    w = rng.standard_normal((4, 3, 3, 3))
    base = F.conv2d_transpose(t(x), t(w), stride=2, padding=1)
    assert base.shape == [2, 3, 9, 9]
    padded = F.conv2d_transpose(t(x), t(w), stride=2, padding=1, output_padding=[1, 0])
    assert padded.shape == [2, 3, 10, 9]
    sized = F.conv2d_transpose(t(x), t(w), stride=2, padding=1, output_size=[10, 9])
    np.testing.assert_allclose(sized.numpy(), padded.numpy())
    want = R.conv2d_transpose(x, w, (2, 2), (1, 1, 1, 1), (1, 1), 1, (10, 9))
    np.testing.assert_allclose(padded.numpy(), want, rtol=1e-10)
    # the extra row only sees zero-padded taps beyond the input
    np.testing.assert_allclose(padded.numpy()[:, :, :9], base.numpy(), rtol=1e-10)


def test_conv2d_transpose_groups_dilation_nhwc_bias():
    x = rng.standard_normal((1, 4, 3, 6))
    w = rng.standard_normal((6, 2, 2, 3))
    b = rng.standard_normal(4)
    out = F.conv2d_transpose(t(x), t(w), t(b), stride=[2, 1], padding=[1, 0, 0, 1],
                             dilation=[1, 2], groups=2, data_format='NHWC')
    xs = x.transpose(0, 3, 1, 2)
    hw = ((4 - 1) * 2 - 1 + 2, (3 - 1) * 1 - 1 + 2 * 2 + 1)
    want = R.conv2d_transpose(xs, w, (2, 1), (1, 0, 0, 1), (1, 2), 2, hw) + b[None, :, None, None]
    np.testing.assert_allclose(out.numpy(), want.transpose(0, 2, 3, 1), rtol=1e-10)


def test_conv2d_transpose_is_the_adjoint_of_conv2d():
    x = rng.standard_normal((2, 3, 7, 7))
    w = rng.standard_normal((5, 3, 3, 3))
    y = rng.standard_normal((2, 5, 4, 4))
    cx = F.conv2d(t(x), t(w), stride=2, padding=1).numpy()
    ty = F.conv2d_transpose(t(y), t(w), stride=2, padding=1, output_size=[7, 7]).numpy()
    assert np.isclose(np.sum(cx * y), np.sum(x * ty))


def test_conv2d_transpose_errors():
    x, w = t(np.ones((1, 4, 5, 5))), t(np.ones((4, 3, 3, 3)))
    with pytest.raises(paddle.OpError, match=r'output_size .* must be in \[\[9, 9\], \[11, 11\]\)'):
        F.conv2d_transpose(x, w, stride=2, padding=1, output_size=[12, 9])
    with pytest.raises(paddle.OpError, match='cannot both'):
        F.conv2d_transpose(x, w, stride=2, output_padding=1, output_size=[11, 11])
    with pytest.raises(paddle.OpError, match='smaller than stride'):
        F.conv2d_transpose(x, w, stride=2, output_padding=2)
    with pytest.raises(paddle.OpError, match=r'conv2d_transpose: the input has 4 channels'):
        F.conv2d_transpose(x, t(np.ones((3, 3, 3, 3))))


def test_conv1d_transpose():
    x = rng.standard_normal((2, 4, 5))
    w = rng.standard_normal((4, 2, 3))
    out = F.conv1d_transpose(t(x), t(w), stride=2, output_size=12)
    want = R.conv2d_transpose(x[:, :, None], w[:, :, None], (1, 2), (0, 0, 0, 0), (1, 1), 1,
                              (1, 12))[:, :, 0]
    np.testing.assert_allclose(out.numpy(), want, rtol=1e-10)


# ---- gradients ----------------------------------------------------------------

def test_backward_matches_references_with_bias():
    x = rng.standard_normal((2, 4, 6, 5))
    w = rng.standard_normal((6, 2, 3, 3))
    b = rng.standard_normal(6)
    xt, wt, bt = t(x, True), t(w, True), t(b, True)
    out = F.conv2d(xt, wt, bt, stride=[1, 2], padding=[1, 0], groups=2)
    g = rng.standard_normal(out.shape)
    out.backward(t(g))
    s, p = (1, 2), (1, 1, 0, 0)
    np.testing.assert_allclose(xt.grad.numpy(), R.conv2d_transpose(g, w, s, p, (1, 1), 2, (6, 5)),
                               rtol=1e-10)
    np.testing.assert_allclose(wt.grad.numpy(), R.conv2d_filter_grad(x, g, (3, 3), s, p,
                                                                      (1, 1), 2), rtol=1e-10)
    np.testing.assert_allclose(bt.grad.numpy(), g.sum((0, 2, 3)), rtol=1e-10)


def test_double_grad_of_conv_wrt_weight_through_input_grad():
    # d/dw <v, d/dx <g, conv(x, w)>> = filter_grad(v, g)
    x = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((3, 2, 3, 3))
    g = rng.standard_normal((1, 3, 5, 5))
    v = rng.standard_normal(x.shape)
    xt, wt = t(x, True), t(w, True)
    out = F.conv2d(xt, wt, padding=1)
    (gx,) = paddle.grad(out, xt, t(g), create_graph=True)
    (gw,) = paddle.grad(gx, wt, t(v))
    want = R.conv2d_filter_grad(v, g, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1)
    np.testing.assert_allclose(gw.numpy(), want, rtol=1e-10)


def test_against_torch_forward_and_backward():
    torch = pytest.importorskip('torch')
    x = rng.standard_normal((2, 6, 9, 8)).astype(np.float32)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    xt, wt, bt = t(x, True), t(w, True), t(b, True)
    out = F.conv2d(xt, wt, bt, stride=2, padding=1, dilation=2, groups=2)
    (out * out).sum().backward()
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    tout = torch.nn.functional.conv2d(tx, tw, tb, stride=2, padding=1, dilation=2, groups=2)
    (tout * tout).sum().backward()
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-4)
    for ours, theirs in ((xt, tx), (wt, tw), (bt, tb)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-3, atol=1e-3)


# ---- algorithm search ------------------------------------------------------------

@pytest.fixture
def exhaustive(numpy_backend):
    """The numpy algorithms' exhaustive search (oneDNN picks its own)."""
    old = paddle.get_flags('FLAGS_cudnn_exhaustive_search')
    paddle.set_flags({'FLAGS_cudnn_exhaustive_search': True})
    search.clear_cache()
    yield
    paddle.set_flags(old)
    search.clear_cache()


def test_exhaustive_search_times_once_and_caches_the_winner(exhaustive):
    x = rng.standard_normal((2, 8, 10, 10))
    w = rng.standard_normal((8, 8, 3, 3))
    first = F.conv2d(t(x), t(w), padding=1).numpy()
    assert search.stats == {'hits': 0, 'searches': 1}
    (key, name), = search.cached_algorithms().items()
    direction, geom, dtype = key
    assert direction == 'forward' and dtype == np.dtype(np.float64).str
    assert name in A.candidates('forward', geom) and 'winograd' in A.candidates('forward', geom)
    second = F.conv2d(t(x), t(w), padding=1).numpy()
    assert search.stats == {'hits': 1, 'searches': 1}
    np.testing.assert_allclose(first, second, rtol=1e-10)
    # another shape is another key
    F.conv2d(t(x[:1]), t(w), padding=1)
    assert search.stats['searches'] == 2


def test_exhaustive_search_covers_the_backward_directions(exhaustive):
    xt = t(rng.standard_normal((2, 4, 6, 6)), True)
    wt = t(rng.standard_normal((4, 4, 3, 3)), True)
    F.conv2d(xt, wt, padding=1).sum().backward()
    directions = {k[0] for k in search.cached_algorithms()}
    assert directions == {'forward', 'backward_data', 'backward_filter'}


def test_without_the_flag_the_heuristic_runs_and_nothing_is_cached():
    search.clear_cache()
    F.conv2d(t(np.ones((1, 2, 5, 5))), t(np.ones((2, 2, 3, 3))))
    assert search.cached_algorithms() == {} and search.stats['searches'] == 0
    g = A.geom_forward((8, 64, 16, 16), (64, 64, 3, 3), (1, 1), (1,) * 4, (1, 1), 1)
    assert search.heuristic('forward', g) == 'im2col'
    assert search.heuristic('backward_data', g) == 'im2col_forward'
    g = A.geom_forward((8, 32, 16, 16), (32, 1, 3, 3), (1, 1), (1,) * 4, (1, 1), 32)
    assert search.heuristic('forward', g) == 'depthwise'
    g = A.geom_forward((8, 3, 40, 40), (8, 3, 5, 5), (2, 2), (0,) * 4, (1, 1), 1)
    assert search.heuristic('backward_filter', g) == 'im2col'
    # small output planes (here 6x6) fold the batch into the GEMMs
    g = A.geom_forward((8, 3, 16, 16), (8, 3, 5, 5), (2, 2), (0,) * 4, (1, 1), 1)
    assert search.heuristic('backward_filter', g) == 'batched'
    assert search.heuristic('backward_data', g) == 'batched'
    g = A.geom_forward((8, 64, 7, 7), (64, 64, 3, 3), (1, 1), (1,) * 4, (1, 1), 1)
    assert search.heuristic('forward', g) == 'batched'
    assert search.heuristic('backward_data', g) == 'batched_forward'
    g = A.geom_forward((8, 64, 7, 7), (64, 64, 1, 1), (1, 1), (0,) * 4, (1, 1), 1)
    assert search.heuristic('forward', g) == 'im2col'     # 1x1: no columns to build
    g = A.geom_forward((8, 1, 28, 28), (6, 1, 3, 3), (1, 1), (1,) * 4, (1, 1), 1)
    assert search.heuristic('backward_filter', g) == 'shift'
    assert search.heuristic('backward_data', g) == 'shift'


# ---- errors -------------------------------------------------------------------

def test_channel_mismatch_error_names_everything():
    with pytest.raises(paddle.OpError) as e:
        F.conv2d(t(np.ones((2, 3, 8, 8))), t(np.ones((4, 2, 3, 3))))
    msg = str(e.value)
    for part in ('conv2d', '3 channels', '[2, 3, 8, 8]', '[4, 2, 3, 3]', 'groups=1',
                 'expects 2 input channels'):
        assert part in msg, (part, msg)


def test_other_argument_errors():
    x, w = t(np.ones((1, 4, 5, 5))), t(np.ones((6, 2, 3, 3)))
    with pytest.raises(paddle.OpError, match='must be divisible by groups=4'):
        F.conv2d(x, t(np.ones((6, 1, 3, 3))), groups=4)
    with pytest.raises(paddle.OpError, match='data_format'):
        F.conv2d(x, w, groups=2, data_format='NCWH')
    with pytest.raises(paddle.OpError, match="input x must be 4-D"):
        F.conv2d(t(np.ones((4, 5, 5))), w, groups=2)
    with pytest.raises(paddle.OpError, match=r'bias must have shape \[6\]'):
        F.conv2d(x, w, t(np.ones(4)), groups=2)
    with pytest.raises(paddle.OpError, match='output would be empty'):
        F.conv2d(x, t(np.ones((6, 4, 7, 7))))
    with pytest.raises(paddle.OpError, match="padding string must be 'SAME' or 'VALID'"):
        F.conv2d(x, w, groups=2, padding='FULL')
    with pytest.raises(paddle.OpError, match='stride must be >= 1'):
        F.conv2d(x, w, groups=2, stride=0)


# ---- float32 accuracy ------------------------------------------------------------
#
# Errors are norm-relative, ||y32 - y64|| / ||y64||, against the same conv in
# float64 on the same (float32-representable) inputs; real Paddle 3.3.1 CPU
# lands at 1e-7 .. 3e-7 on these shapes (benchmarks/conv_accuracy.py).

F32_BOUND = search.error_bound(np.float32, 0.0)

# x shape, weight shape, stride, padding, groups
ACCURACY_SHAPES = [
    ((4, 32, 12, 12), (32, 32, 3, 3), 1, 1, 1),
    ((8, 4, 16, 16), (8, 4, 3, 3), 1, 1, 1),
    ((4, 32, 12, 12), (48, 32, 3, 3), 2, 1, 1),
    ((4, 64, 8, 8), (32, 64, 1, 1), 1, 0, 1),
    ((2, 3, 32, 32), (16, 3, 7, 7), 2, 3, 1),
    ((8, 1, 28, 28), (6, 1, 3, 3), 1, 1, 1),
    ((4, 32, 10, 10), (32, 4, 3, 3), 1, 1, 8),
    ((4, 32, 10, 10), (32, 1, 3, 3), 1, 1, 32),
]


def _f32_inputs(xs, ws, seed=7):
    r = np.random.default_rng(seed)
    x = r.standard_normal(xs).astype(np.float32)
    w = (r.standard_normal(ws) / np.sqrt(np.prod(ws[1:]))).astype(np.float32)
    return x, w


def _conv_and_grads(x, w, gy, s, p, grp):
    xt, wt = t(x, True), t(w, True)
    y = F.conv2d(xt, wt, stride=s, padding=p, groups=grp)
    (y * t(gy)).sum().backward()
    return y.numpy(), xt.grad.numpy(), wt.grad.numpy()


# oneDNN sums a filter gradient's N*H*W terms in float32 blocks: up to 2x the
# numpy algorithms' bound on these shapes, exactly what PyTorch's CPU conv gives
_BACKEND_BOUNDS = {'numpy': F32_BOUND, 'onednn': 4 * F32_BOUND}


@pytest.mark.parametrize('backend', sorted(_BACKEND_BOUNDS))
@pytest.mark.parametrize('xs,ws,s,p,grp', ACCURACY_SHAPES)
def test_default_algorithms_float32_error_is_bounded(xs, ws, s, p, grp, backend):
    if backend == 'onednn' and not onednn.available():
        pytest.skip(onednn.why_unavailable())
    x, w = _f32_inputs(xs, ws)
    g = A.geom_forward(xs, ws, (s, s), (p,) * 4, (1, 1), grp)
    gy = np.random.default_rng(8).standard_normal((g.n, g.oc, g.oh, g.ow)).astype(np.float32)
    with backends.using(backend):
        got = _conv_and_grads(x, w, gy, s, p, grp)
    want = _conv_and_grads(x.astype(np.float64), w.astype(np.float64),
                           gy.astype(np.float64), s, p, grp)
    for what, a, b in zip(('out', 'x_grad', 'w_grad'), got, want):
        assert a.dtype == np.float32
        err = search.relative_error(a.astype(np.float64), b)
        assert err <= _BACKEND_BOUNDS[backend], (what, err, backend)


def test_winograd4_float32_error_exceeds_the_bound_and_im2col_does_not():
    x, w = _f32_inputs((4, 32, 12, 12), (32, 32, 3, 3))
    g = A.geom_forward(x.shape, w.shape, (1, 1), (1,) * 4, (1, 1), 1)
    ref = A.run('forward', 'im2col', x.astype(np.float64), w.astype(np.float64), g)
    err = {n: search.relative_error(A.run('forward', n, x, w, g).astype(np.float64), ref)
           for n in ('im2col', 'winograd4')}
    assert err['im2col'] <= F32_BOUND < err['winograd4']


def _timed_alike(monkeypatch, direction, fast_name, fast_fn):
    """Register ``fast_fn`` as the fastest algorithm of ``direction``: every
    other candidate is slowed down by a sleep."""
    import time as _time
    table = A.DIRECTIONS[direction]
    for name, fn in list(table.items()):
        def slow(a, b, g, fn=fn):
            _time.sleep(0.02)
            return fn(a, b, g)
        monkeypatch.setitem(table, name, slow)
    monkeypatch.setitem(table, fast_name, fast_fn)


@pytest.mark.parametrize('noise,chosen', [(1e-5, False), (1e-9, True)])
def test_exhaustive_search_rejects_a_fast_inaccurate_algorithm(exhaustive, monkeypatch,
                                                               noise, chosen):
    exact = A.FORWARD['im2col']

    def fast(x, w, g):
        y = exact(x, w, g)
        # relative noise of the given size, as a sloppy algorithm would have
        r = np.random.default_rng(0).standard_normal(y.shape).astype(y.dtype)
        return y + (noise * np.linalg.norm(y) / np.linalg.norm(r)) * r

    _timed_alike(monkeypatch, 'forward', 'fast', fast)
    x, w = _f32_inputs((2, 8, 10, 10), (8, 8, 3, 3))
    out = F.conv2d(t(x), t(w), padding=1).numpy()
    (name,) = search.cached_algorithms().values()
    assert (name == 'fast') == chosen
    want = R.conv2d(x.astype(np.float64), w.astype(np.float64), (1, 1), (1,) * 4, (1, 1), 1)
    assert search.relative_error(out.astype(np.float64), want) <= max(F32_BOUND, 2 * noise)


def test_exhaustive_search_keeps_float32_results_accurate_for_every_direction(exhaustive):
    x, w = _f32_inputs((4, 32, 12, 12), (32, 32, 3, 3))
    gy = np.random.default_rng(3).standard_normal((4, 32, 12, 12)).astype(np.float32)
    got = _conv_and_grads(x, w, gy, 1, 1, 1)
    want = _conv_and_grads(x.astype(np.float64), w.astype(np.float64),
                           gy.astype(np.float64), 1, 1, 1)
    for a, b in zip(got, want):
        assert search.relative_error(a.astype(np.float64), b) <= F32_BOUND
    assert 'winograd4' not in search.cached_algorithms().values()


# ---- batch-folded algorithms: chunks, workspace reuse, layouts ------------------

BATCHED = [('forward', 'batched'), ('backward_data', 'batched'),
           ('backward_data', 'batched_forward'), ('backward_filter', 'batched')]


def _direction_case(direction, x, wt, g):
    s, p, d, grp = (g.sh, g.sw), (g.pt, g.pb, g.pl, g.pr), (g.dh, g.dw), g.groups
    y = R.conv2d(x, wt, s, p, d, grp)
    gy = rng.standard_normal(y.shape)
    if direction == 'forward':
        return (x, wt), y
    if direction == 'backward_data':
        return (gy, wt), R.conv2d_transpose(gy, wt, s, p, d, grp, (g.h, g.w))
    return (x, gy), R.conv2d_filter_grad(x, gy, (g.kh, g.kw), s, p, d, grp)


@pytest.mark.parametrize('direction,name', BATCHED)
@pytest.mark.parametrize('chunk_bytes', [1, 3000, 4 << 20])
def test_batched_algorithms_over_chunks_and_dtypes(direction, name, chunk_bytes, monkeypatch):
    # 5 images: one image per chunk, chunks of 2 with a shorter last one, one chunk
    monkeypatch.setattr(A, '_CHUNK_BYTES', chunk_bytes)
    x, wt, g = _case((5, 4, 7, 6, 6, 3, 3, (1, 1), (1, 2, 0, 1), (1, 1), 2))
    (a, b), want = _direction_case(direction, x, wt, g)
    if not A.applicable(name, direction, g):
        pytest.skip('not applicable')
    for dtype, tol in ((np.float64, 1e-9), (np.float32, 2e-5)):
        got = A.run(direction, name, a.astype(dtype), b.astype(dtype), g)
        assert got.dtype == dtype
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
        # the second call reuses the cached buffers: no stale pixels
        a2 = -2 * a
        got2 = A.run(direction, name, a2.astype(dtype), b.astype(dtype), g)
        np.testing.assert_allclose(got2, -2 * want, rtol=tol, atol=tol * 2)


@pytest.mark.parametrize('direction,name', BATCHED)
def test_batched_algorithms_batch_one_zero_and_strided_views(direction, name):
    for n in (1, 0):
        x, wt, g = _case((n, 3, 6, 5, 4, 2, 3, (2, 1), (1, 0, 1, 1), (1, 1), 1))
        if not A.applicable(name, direction, g):
            continue
        (a, b), want = _direction_case(direction, x, wt, g)
        got = A.run(direction, name, a, b, g)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-9)
    # a channels-last array viewed as NCHW (what NHWC convs hand the algorithms)
    x, wt, g = _case((3, 4, 6, 6, 4, 3, 3, (1, 1), (1, 1, 1, 1), (1, 1), 1))
    (a, b), want = _direction_case(direction, x, wt, g)
    a_view = np.ascontiguousarray(a.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    assert not a_view.flags.c_contiguous
    np.testing.assert_allclose(A.run(direction, name, a_view, b, g), want, rtol=1e-9, atol=1e-9)


def test_small_planes_default_to_batched_and_match_through_the_api():
    # LeNet's second conv: 10x10 outputs; the default (batched) path against
    # the per-image im2col path, values and gradients, float32
    x = rng.standard_normal((3, 6, 14, 14)).astype(np.float32)
    w = rng.standard_normal((16, 6, 5, 5)).astype(np.float32)
    g = A.geom_forward(x.shape, w.shape, (1, 1), (0,) * 4, (1, 1), 1)
    assert {search.heuristic(d, g) for d in A.DIRECTIONS} == {'batched'}
    gy = rng.standard_normal((3, 16, 10, 10)).astype(np.float32)
    got = _conv_and_grads(x, w, gy, 1, 0, 1)
    want = [A.run('forward', 'im2col', x, w, g), A.run('backward_data', 'im2col', gy, w, g),
            A.run('backward_filter', 'im2col', x, gy, g)]
    for a, b in zip(got, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)


def test_workspace_keeps_buffers_up_to_its_byte_budget(monkeypatch):
    ws = A._Workspace()
    monkeypatch.setattr(ws, 'total_bytes', 300)
    a = ws.get('a', lambda: np.zeros(25), 200)
    assert ws.get('a', lambda: np.ones(25), 200) is a          # a hit: the same buffer
    b = ws.get('b', lambda: np.zeros(10), 80)
    assert ws.used == 280 and list(ws.entries) == ['a', 'b']
    ws.get('c', lambda: np.zeros(10), 80)                      # over budget: 'a' goes
    assert list(ws.entries) == ['b', 'c'] and ws.used == 160
    assert ws.get('b', lambda: np.ones(10), 80) is b
    big = ws.get('big', lambda: np.zeros(1), ws.max_bytes + 1)  # never kept
    assert 'big' not in ws.entries and big.shape == (1,)


@pytest.mark.parametrize('n,per,want', [(256, 60000, 64), (32, 590000, 7), (5, 1, 5),
                                        (7, 4 << 20, 1), (0, 100, 1)])
def test_chunks_are_balanced(n, per, want):
    nb = A._chunk(n, per)
    assert nb == want
    sizes = [min(nb, n - s) for s in range(0, n, nb)]
    assert max(sizes, default=0) * per <= max(A._CHUNK_BYTES, per)
    assert max(sizes, default=0) - min(sizes, default=0) < len(sizes) or not sizes


@pytest.mark.parametrize('shape,fmt', [((3, 4, 5, 6), 'NCHW'), ((3, 5, 6, 4), 'NHWC'),
                                       ((2, 4, 7), 'NCL'), ((0, 4, 3, 3), 'NCHW'),
                                       ((2, 4, 2, 3, 3), 'NCDHW')])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_bias_grad_matches_the_axis_sum(shape, fmt, dtype):
    from framework.ops.conv import conv as C
    g = rng.standard_normal(shape).astype(dtype)
    ch = g.ndim - 1 if fmt in ('NHWC', 'NLC') else 1
    axes = tuple(i for i in range(g.ndim) if i != ch)
    for gin in (g, np.flip(g, axis=-1)):           # a contiguous array and a strided view
        got = C.conv_bias_grad_op(t(gin), fmt).numpy()
        assert got.dtype == dtype
        want = gin.astype(np.float64).sum(axis=axes)
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-5 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize('xs,ws,s,p', [((8, 32, 16, 16), (64, 32, 3, 3), 2, 1),
                                       ((16, 6, 14, 14), (16, 6, 5, 5), 1, 0)])
def test_batched_float32_rounding_is_im2col_like(xs, ws, s, p):
    # folding the batch into the GEMMs must not lengthen the float32
    # reductions: each direction's error stays within 1.25x per-image im2col's
    x, w = _f32_inputs(xs, ws)
    g = A.geom_forward(xs, ws, (s, s), (p,) * 4, (1, 1), 1)
    gy = np.random.default_rng(4).standard_normal((g.n, g.oc, g.oh, g.ow)).astype(np.float32)
    for direction, args in (('forward', (x, w)), ('backward_data', (gy, w)),
                            ('backward_filter', (x, gy))):
        ref = A.run(direction, 'im2col', *(a.astype(np.float64) for a in args), g)
        err = {name: search.relative_error(A.run(direction, name, *args, g).astype(np.float64),
                                           ref) for name in ('im2col', 'batched')}
        assert err['batched'] <= 1.25 * err['im2col'], (direction, err)
