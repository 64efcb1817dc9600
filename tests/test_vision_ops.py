"""paddle.vision.ops as users call it: RoI pooling, deformable convolution, box
ops (nms, matrix_nms, box_coder, prior_box, proposals, FPN levels), the YOLOv3
heads and the file ops.

Values marked "Paddle's" were computed by Paddle 3.3.1 (CPU) on the same
inputs; the others are closed forms or numpy loops. Gradients are checked by
central finite differences in float64, and eager runs against ``@to_static``
and static programs.
"""
import base64
import zlib

import numpy as np
import pytest

import framework as paddle
from framework.ops.detection import reference as ref
from framework.ops.registry import OpError

V = paddle.vision.ops


def t(a, dtype=None, stop_gradient=True):
    return paddle.to_tensor(np.asarray(a, dtype), stop_gradient=stop_gradient)


def numeric_grad(f, a, eps=1e-6):
    """d sum(f(a) * w) / d a for a float64 numpy ``a`` (f returns a numpy array)."""
    g = np.zeros_like(a)
    for k in range(a.size):
        e = np.zeros_like(a)
        e.flat[k] = eps
        g.flat[k] = (f(a + e) - f(a - e)).sum() / (2 * eps)
    return g


def check_grad(fn, arrays, wrt, atol=1e-6):
    """Autograd of sum(fn(*tensors) * w) in the inputs ``wrt`` vs finite differences."""
    out0 = fn(*[t(a) for a in arrays]).numpy()
    w = np.random.default_rng(3).standard_normal(out0.shape)
    ts = [t(a, stop_gradient=i not in wrt) for i, a in enumerate(arrays)]
    grads = paddle.grad((fn(*ts) * t(w)).sum(), [ts[i] for i in wrt])
    for i, g in zip(wrt, grads):
        def f(v, i=i):
            args = list(arrays)
            args[i] = v
            return fn(*[t(a) for a in args]).numpy() * w
        np.testing.assert_allclose(g.numpy(), numeric_grad(f, arrays[i]), atol=atol,
                                   err_msg='input %d' % i)


# ---- RoI ops ------------------------------------------------------------------------------

X = np.arange(2 * 1 * 5 * 6, dtype='float32').reshape(2, 1, 5, 6) ** 1.5 / 10
BOXES = np.array([[0.5, 0.7, 4.1, 3.9], [1.2, 0.2, 5.5, 4.6], [-0.8, 1.0, 2.0, 6.0]], 'float32')
NUM = np.array([1, 2], 'int32')


def test_roi_align_equals_paddles_values():
    out = V.roi_align(t(X), t(BOXES), t(NUM), 2, spatial_scale=0.9)
    np.testing.assert_allclose(out.numpy().ravel(), [
        1.6281666, 2.2227874, 5.6229153, 6.567444, 21.300652, 23.052517, 32.757095, 34.77504,
        24.622082, 25.253841, 37.11119, 37.836304], rtol=1e-5)
    out = V.roi_align(t(X), t(BOXES), t(NUM), (1, 2), sampling_ratio=2, aligned=False)
    assert out.shape == [3, 1, 1, 2] and out.dtype == paddle.float32
    np.testing.assert_allclose(out.numpy().ravel(), [
        6.217746, 7.2848835, 32.175205, 34.396683, 34.336327, 35.574677], rtol=1e-5)


def test_roi_align_of_a_linear_image_is_its_value_at_each_bin_centre():
    # bilinear interpolation is exact on a plane, so a bin's average is the
    # plane at the bin's centre (boxes well inside the image, no clamping)
    rows, cols = np.mgrid[0:9, 0:10]
    x = (2.0 * rows - 0.5 * cols + 3)[None, None]
    boxes = np.array([[1.0, 2.0, 7.0, 6.0], [2.5, 1.5, 5.5, 7.5]])
    out = V.roi_align(t(x), t(boxes), t([2], 'int32'), (2, 3), sampling_ratio=2).numpy()
    for r, (x1, y1, x2, y2) in enumerate(boxes - 0.5):       # aligned: half a pixel back
        cy = y1 + (np.arange(2) + 0.5) * (y2 - y1) / 2
        cx = x1 + (np.arange(3) + 0.5) * (x2 - x1) / 3
        np.testing.assert_allclose(out[r, 0], 2 * cy[:, None] - 0.5 * cx[None, :] + 3,
                                   atol=1e-12)


def test_roi_pool_and_psroi_pool_equal_paddles_values():
    out = V.roi_pool(t(X), t(BOXES), t(NUM), 2, 0.8)
    np.testing.assert_allclose(out.numpy().ravel(), [
        4.6872168, 5.809475, 8.281908, 9.623409, 29.186298, 31.198719, 41.906563, 44.171486,
        33.255375, 35.35534, 39.681736, 41.906563], rtol=1e-6)
    x8 = np.arange(2 * 8 * 5 * 6, dtype='float32').reshape(2, 8, 5, 6) ** 1.5 / 10
    out = V.psroi_pool(t(x8), t(BOXES), t(NUM), 2, 0.9)
    assert out.shape == [3, 2, 2, 2]
    np.testing.assert_allclose(out.numpy().ravel(), [
        2.2277515, 24.503849, 70.32085, 117.03357, 143.20381, 200.56473, 280.78964, 351.15048,
        389.43045, 468.5849, 571.1453, 660.45984, 704.55756, 800.0463, 921.42426, 1025.489,
        393.02234, 468.63196, 575.13763, 660.4298, 708.9137, 800.08563, 926.1161, 1025.4631],
        rtol=1e-5)


def test_roi_pool_takes_each_bins_maximum():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    out = V.roi_pool(t(x), t([[0.0, 0.0, 3.0, 3.0]]), t([1], 'int32'), 2)
    np.testing.assert_array_equal(out.numpy(), [[[[5.0, 7.0], [13.0, 15.0]]]])


@pytest.mark.parametrize('name', ['roi_align', 'roi_pool', 'psroi_pool'])
def test_roi_gradients_match_finite_differences(name):
    rng = np.random.default_rng(1)
    channels = 4 if name == 'psroi_pool' else 2
    # distinct values keep roi_pool's maxima (and their finite differences) unique
    x = rng.permutation(2 * channels * 30).reshape(2, channels, 5, 6) / 17.0
    boxes = BOXES.astype('float64')
    fn = getattr(V, name)
    check_grad(lambda a: fn(a, t(boxes), t(NUM), 2, 0.9), [x], [0])


def test_roi_align_second_order_gradient():
    x = t(np.random.default_rng(2).standard_normal((2, 1, 5, 6)), stop_gradient=False)
    out = V.roi_align(x, t(BOXES.astype('float64')), t(NUM), 2)
    (gx,) = paddle.grad((out ** 2).sum(), [x], create_graph=True)
    (ggx,) = paddle.grad(gx.sum(), [x])
    # d/dx sum(2 * A^T A x) = 2 * A^T A 1: the adjoint applied to the op of ones
    ones = t(np.ones((2, 1, 5, 6)), stop_gradient=False)
    out1 = V.roi_align(ones, t(BOXES.astype('float64')), t(NUM), 2)
    (expect,) = paddle.grad((out1 * out1.detach()).sum() * 2, [ones])
    np.testing.assert_allclose(ggx.numpy(), expect.numpy(), atol=1e-12)


def _roi_model(x, boxes, num):
    return (V.roi_align(x, boxes, num, 2, 0.9).sum() + V.roi_pool(x, boxes, num, 3).sum()
            + V.psroi_pool(paddle.concat([x] * 4, axis=1), boxes, num, 2).sum())


def test_roi_ops_under_to_static_equal_eager_with_gradients():
    x64 = np.random.default_rng(4).standard_normal((2, 1, 5, 6))
    results = []
    for fn in (_roi_model, paddle.jit.to_static(_roi_model)):
        x = t(x64, stop_gradient=False)
        loss = fn(x, t(BOXES.astype('float64')), t(NUM))
        (g,) = paddle.grad(loss, [x])
        results.append((loss.numpy(), g.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_roi_align_in_a_static_program_with_unknown_box_count():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data('x', [2, 1, 5, 6], 'float32')
            boxes = paddle.static.data('boxes', [None, 4], 'float32')
            num = paddle.static.data('num', [2], 'int32')
            x.stop_gradient = False
            out = V.roi_align(x, boxes, num, 2, 0.9)
            assert list(out.shape) == [-1, 1, 2, 2]
            (gx,) = paddle.static.gradients([out.sum()], [x])
        res = paddle.static.Executor().run(main, feed={'x': X, 'boxes': BOXES, 'num': NUM},
                                           fetch_list=[out, gx])
    finally:
        paddle.disable_static()
    xe = t(X, stop_gradient=False)
    oe = V.roi_align(xe, t(BOXES), t(NUM), 2, 0.9)
    (ge,) = paddle.grad(oe.sum(), [xe])
    np.testing.assert_allclose(res[0], oe.numpy(), rtol=1e-6)
    np.testing.assert_allclose(res[1], ge.numpy(), rtol=1e-6)


def test_roi_layers_call_the_functions():
    x, boxes, num = t(X), t(BOXES), t(NUM)
    np.testing.assert_array_equal(V.RoIAlign((2, 3), 0.5)(x, boxes, num, aligned=False).numpy(),
                                  V.roi_align(x, boxes, num, (2, 3), 0.5, aligned=False).numpy())
    np.testing.assert_array_equal(V.RoIPool(2, 0.5)(x, boxes, num).numpy(),
                                  V.roi_pool(x, boxes, num, 2, 0.5).numpy())
    x4 = paddle.concat([x] * 4, axis=1)
    np.testing.assert_array_equal(V.PSRoIPool(2)(x4, boxes, num).numpy(),
                                  V.psroi_pool(x4, boxes, num, 2).numpy())
    assert V.RoIAlign(2).parameters() == []


def test_roi_errors_name_the_argument_and_shapes():
    with pytest.raises(OpError, match=r'roi_align: boxes must be 2-D with last dim 4.*\[3, 5\]'):
        V.roi_align(t(X), t(np.zeros((3, 5), 'float32')), t(NUM), 2)
    with pytest.raises(OpError, match=r'roi_pool: boxes_num .*batch size 2.*\[3\]'):
        V.roi_pool(t(X), t(BOXES), t([1, 1, 1], 'int32'), 2)
    with pytest.raises(OpError, match=r'boxes_num \[1, 1\] must count the 3 boxes'):
        V.roi_align(t(X), t(BOXES), t([1, 1], 'int32'), 2)
    with pytest.raises(OpError, match=r'psroi_pool: x has 1 channels'):
        V.psroi_pool(t(X), t(BOXES), t(NUM), 2)
    with pytest.raises(ValueError, match='boxes_num is required'):
        V.roi_align(t(X), t(BOXES), None, 2)


def test_roi_ops_with_no_boxes_give_empty_outputs():
    out = V.roi_align(t(X), t(np.zeros((0, 4), 'float32')), t([0, 0], 'int32'), 2)
    assert out.shape == [0, 1, 2, 2]


# ---- deform_conv2d ------------------------------------------------------------------------

def test_deform_conv2d_equals_paddles_values():
    xd = np.sin(np.arange(32)).reshape(1, 2, 4, 4).astype('float32')
    off = (np.cos(np.arange(72)) * 0.7).reshape(1, 8, 3, 3).astype('float32')
    w = (np.arange(24) / 10 - 1).reshape(3, 2, 2, 2).astype('float32')
    m = (np.arange(36) / 36).reshape(1, 4, 3, 3).astype('float32')
    out = V.deform_conv2d(t(xd), t(off), t(w), mask=t(m))
    np.testing.assert_allclose(out.numpy().ravel(), [
        0.0805134, 0.1184824, 0.0605981, -0.0601378, -0.0399464, 0.0903492, -0.1705505,
        -0.3403897, -0.2370304, 0.0348602, -0.0294331, 0.1032418, -0.1700618, 0.1617959,
        -0.0633033, -0.1105632, -0.3594934, -0.1112886, -0.010793, -0.1773486, 0.1458855,
        -0.2799858, 0.3635381, -0.2169559, -0.0505759, -0.3785972, 0.0144532], atol=1e-6)


def test_deform_conv2d_without_offsets_is_a_convolution():
    rng = np.random.default_rng(5)
    x = t(rng.standard_normal((2, 4, 6, 7)))
    w = t(rng.standard_normal((6, 2, 3, 3)))
    b = t(rng.standard_normal(6))
    offset = t(np.zeros((2, 2 * 9, 3, 3)))
    out = V.deform_conv2d(x, offset, w, b, stride=2, padding=1, dilation=(1, 2), groups=2)
    expect = paddle.nn.functional.conv2d(x, w, b, stride=2, padding=1, dilation=(1, 2),
                                         groups=2)
    np.testing.assert_allclose(out.numpy(), expect.numpy(), atol=1e-12)


def test_deform_conv2d_whole_pixel_offsets_shift_the_reads():
    # every tap moved by (+1, 0) reads the next row: the convolution of x shifted
    # up by one row, with zeros read beyond the bottom edge
    x = np.random.default_rng(6).standard_normal((1, 1, 5, 5))
    w = np.random.default_rng(7).standard_normal((1, 1, 3, 3))
    offset = np.zeros((1, 18, 3, 3))
    offset[:, 0::2] = 1.0
    shifted = np.concatenate([x[:, :, 1:], np.zeros((1, 1, 1, 5))], axis=2)
    out = V.deform_conv2d(t(x), t(offset), t(w))
    expect = paddle.nn.functional.conv2d(t(shifted), t(w))
    np.testing.assert_allclose(out.numpy(), expect.numpy(), atol=1e-12)


def test_deform_conv2d_matches_a_pixel_by_pixel_reference():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 4, 5, 6))
    w = rng.standard_normal((6, 2, 3, 2))
    offset = rng.standard_normal((2, 2 * 2 * 6, 5, 3)) * 1.5
    mask = rng.uniform(0, 1, (2, 2 * 6, 5, 3))
    out = V.deform_conv2d(t(x), t(offset), t(w), stride=(1, 2), padding=(1, 0),
                          deformable_groups=2, groups=2, mask=t(mask))
    expect = ref.deform_conv2d(x, offset, w, mask, (1, 2), (1, 0), (1, 1), 2, 2)
    np.testing.assert_allclose(out.numpy(), expect, atol=1e-12)


def test_deform_conv2d_gradients_match_finite_differences():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((1, 2, 4, 4))
    pos = rng.uniform(-1.4, 1.4, (1, 8, 3, 3))
    offset = np.floor(pos) + np.clip(pos - np.floor(pos), 0.1, 0.9)  # clear of pixel kinks
    w = rng.standard_normal((2, 2, 2, 2))
    mask = rng.uniform(0, 1, (1, 4, 3, 3))
    bias = rng.standard_normal(2)
    check_grad(lambda a, o, k, m, b: V.deform_conv2d(a, o, k, b, mask=m),
               [x, offset, w, mask, bias], [0, 1, 2, 3, 4], atol=1e-6)


def test_deform_conv2d_under_to_static_equals_eager():
    rng = np.random.default_rng(10)
    arrays = [rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((1, 8, 3, 3)),
              rng.standard_normal((2, 2, 2, 2))]

    def f(x, offset, w):
        return (V.deform_conv2d(x, offset, w) ** 2).sum()
    results = []
    for fn in (f, paddle.jit.to_static(f)):
        ts = [t(a, stop_gradient=False) for a in arrays]
        loss = fn(*ts)
        results.append([loss.numpy()] + [g.numpy() for g in paddle.grad(loss, ts)])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_deform_conv2d_layer():
    paddle.seed(0)
    conv = V.DeformConv2D(4, 6, kernel_size=(3, 2), padding=1, deformable_groups=2, groups=2)
    assert conv.weight.shape == [6, 2, 3, 2] and conv.bias.shape == [6]
    assert sorted(conv.state_dict()) == ['bias', 'weight']
    # Paddle's initialisation: Normal(0, sqrt(2 / (in_channels * kh * kw)))
    big = V.DeformConv2D(50, 40, kernel_size=3)
    assert abs(big.weight.numpy().std() - np.sqrt(2 / 450)) < 0.005
    x = t(np.random.default_rng(11).standard_normal((1, 4, 5, 5)).astype('float32'))
    offset = t(np.zeros((1, 24, 5, 6), 'float32'))
    out = conv(x, offset)
    expect = V.deform_conv2d(x, offset, conv.weight, conv.bias, padding=1,
                             deformable_groups=2, groups=2)
    np.testing.assert_array_equal(out.numpy(), expect.numpy())
    assert V.DeformConv2D(2, 3, 3, bias_attr=False).bias is None


def test_deform_conv2d_errors_name_the_shapes():
    x, w = t(np.zeros((1, 2, 5, 5))), t(np.zeros((3, 2, 3, 3)))
    with pytest.raises(OpError, match=r'offset must be .*\[N, 18, 3, 3\].*\[1, 18, 4, 4\]'):
        V.deform_conv2d(x, t(np.zeros((1, 18, 4, 4))), w)
    with pytest.raises(OpError, match=r'mask must be .*\[N, 9, 3, 3\]'):
        V.deform_conv2d(x, t(np.zeros((1, 18, 3, 3))), w, mask=t(np.zeros((1, 3, 3, 3))))
    with pytest.raises(OpError, match=r'x has 2 channels .*groups=2 expects 4'):
        V.deform_conv2d(x, t(np.zeros((1, 18, 3, 3))), w, groups=2)


# ---- nms and matrix_nms ------------------------------------------------------------------

NMS_BOXES = np.array([[0, 0, 4, 4], [1, 1, 5, 5], [0.5, 0, 4, 4.5], [6, 6, 9, 9],
                      [6.5, 6, 9, 9.5], [0, 5, 3, 9]], 'float32')
NMS_SCORES = np.array([0.9, 0.8, 0.95, 0.3, 0.6, 0.7], 'float32')
NMS_CATS = np.array([0, 1, 0, 1, 1, 0], 'int64')


def test_nms_equals_paddles_indices():
    b, s, c = t(NMS_BOXES), t(NMS_SCORES), t(NMS_CATS)
    keep = V.nms(b, 0.5)
    assert keep.dtype == paddle.int64
    np.testing.assert_array_equal(keep.numpy(), [0, 1, 3, 5])
    np.testing.assert_array_equal(V.nms(b, 0.5, s).numpy(), [2, 1, 5, 4])
    np.testing.assert_array_equal(V.nms(b, 0.1, s, c, [0, 1], 3).numpy(), [2, 1, 5])
    np.testing.assert_array_equal(V.nms(b, 0.1, s, c, [1]).numpy(), [1, 4])


TIED = np.array([2, 1, 2, 0, 1, 2, 2, 1, 0, 2, 1, 1, 2, 0, 2, 1, 2, 1, 0, 2, 1, 2], 'float32') / 4
# Paddle's argsort(TIED, descending=True) and topk(TIED, k) indices on CPU (libstdc++'s
# unstable std::sort / partial_sort / nth_element)
TIED_ARGSORT = [21, 2, 19, 5, 6, 16, 9, 0, 12, 14, 11, 20, 17, 15, 10, 7, 4, 1, 13, 8, 18, 3]


def test_cxx_sorts_leave_ties_in_paddles_order():
    from framework.ops.detection import cxx_sort
    np.testing.assert_array_equal(cxx_sort.sort_descending(TIED), TIED_ARGSORT)
    np.testing.assert_array_equal(cxx_sort.top_k_descending(TIED, 5), [0, 16, 9, 21, 12])
    np.testing.assert_array_equal(cxx_sort.top_k_descending(TIED, 15), TIED_ARGSORT[:15])
    rng = np.random.default_rng(17)
    for n in (0, 1, 5, 16, 17, 40, 300):
        s = rng.integers(0, 4, n).astype(float)
        for order in (cxx_sort.sort_descending(s), cxx_sort.partial_sort_descending(s, n // 2),
                      cxx_sort.top_k_descending(s, n // 3)):
            assert len(set(order.tolist())) == len(order) and (np.diff(s[order]) <= 0).all()


def test_nms_orders_tied_scores_as_paddle():
    xy = np.stack([np.arange(22) * 3.0, np.zeros(22)], 1)
    boxes = t(np.concatenate([xy, xy + 2], 1), 'float32')          # disjoint: all kept
    np.testing.assert_array_equal(V.nms(boxes, 0.5, t(TIED)).numpy(), TIED_ARGSORT)
    cats = t(np.arange(22) % 2, 'int64')
    np.testing.assert_array_equal(V.nms(boxes, 0.5, t(TIED), cats, [0, 1], 6).numpy(),
                                  [0, 16, 9, 21, 12, 14])


def test_nms_matches_the_greedy_loop_on_random_boxes():
    rng = np.random.default_rng(12)
    xy = rng.uniform(0, 8, (40, 2))
    boxes = np.concatenate([xy, xy + rng.uniform(1, 4, (40, 2))], 1)
    scores = rng.permutation(40) / 40.0
    cats = rng.integers(0, 4, 40)
    for args in [(None, None, (), -1), (scores, None, (), -1), (scores, cats, (0, 1, 3), 7)]:
        expect = ref.nms(boxes, args[0], args[1], 0.4, args[2], args[3])
        got = V.nms(t(boxes), 0.4, None if args[0] is None else t(args[0]),
                    None if args[1] is None else t(args[1]), list(args[2]) or None,
                    None if args[3] < 0 else args[3])
        np.testing.assert_array_equal(got.numpy(), expect)


def test_nms_in_static_mode_and_to_static():
    def f(boxes, scores):
        return V.nms(boxes, 0.5, scores)
    eager = f(t(NMS_BOXES), t(NMS_SCORES)).numpy()
    np.testing.assert_array_equal(paddle.jit.to_static(f)(t(NMS_BOXES), t(NMS_SCORES)).numpy(),
                                  eager)
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            b = paddle.static.data('b', [None, 4], 'float32')
            s = paddle.static.data('s', [None], 'float32')
            keep = f(b, s)
        (res,) = paddle.static.Executor().run(main, feed={'b': NMS_BOXES, 's': NMS_SCORES},
                                              fetch_list=[keep])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(res, eager)


def test_nms_errors():
    with pytest.raises(ValueError, match='categories'):
        V.nms(t(NMS_BOXES), 0.5, t(NMS_SCORES), t(NMS_CATS))
    with pytest.raises(OpError, match=r'nms: boxes must be 2-D with last dim 4'):
        V.nms(t(np.zeros((3, 5), 'float32')))
    with pytest.raises(OpError, match=r'nms: scores must hold one entry per box'):
        V.nms(t(NMS_BOXES), 0.5, t(np.zeros(4, 'float32')))


MN_BOXES = np.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.8], [0.5, 0.5, 1.5, 1.5],
                      [2, 2, 3, 3]]], 'float32')
MN_SCORES = np.array([[[0.1, 0.1, 0.1, 0.1], [0.9, 0.8, 0.7, 0.6], [0.2, 0.85, 0.3, 0.5]]],
                     'float32')


def test_matrix_nms_equals_paddles_detections():
    out, num, index = V.matrix_nms(t(MN_BOXES), t(MN_SCORES), 0.15, 0.1, -1, -1,
                                   return_index=True)
    np.testing.assert_allclose(out.numpy(), [
        [1, 0.9, 0, 0, 1, 1], [2, 0.85, 0, 0, 1, 0.8], [1, 0.6, 2, 2, 3, 3],
        [1, 0.6, 0.5, 0.5, 1.5, 1.5], [2, 0.5, 2, 2, 3, 3], [2, 0.2727273, 0.5, 0.5, 1.5, 1.5],
        [1, 0.16, 0, 0, 1, 0.8]], rtol=1e-6)
    np.testing.assert_array_equal(num.numpy(), [7])
    np.testing.assert_array_equal(index.numpy().ravel(), [0, 1, 3, 2, 3, 2, 1])
    out, num, index = V.matrix_nms(t(MN_BOXES), t(MN_SCORES), 0.15, 0.1, -1, 3,
                                   use_gaussian=True, gaussian_sigma=3.0, normalized=False)
    assert index is None and num.numpy().tolist() == [3]
    np.testing.assert_allclose(out.numpy()[:, :2], [[1, 0.9], [2, 0.85], [1, 0.6]], rtol=1e-6)


def test_matrix_nms_linear_decay_closed_form():
    # box 1 overlaps box 0 with IoU 0.8: its score decays by (1 - 0.8) / (1 - 0)
    boxes = np.array([[[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 1.0, 0.8]]])
    scores = np.array([[[0.0, 0.0], [0.9, 0.5]]])
    out, num, _ = V.matrix_nms(t(boxes), t(scores), 0.0, 0.0, -1, -1)
    np.testing.assert_allclose(out.numpy()[:, 1], [0.9, 0.5 * 0.2], rtol=1e-12)
    np.testing.assert_allclose(out.numpy()[:, 0], [1, 1])


# ---- box_coder, prior_box ----------------------------------------------------------------

def test_box_coder_decode_inverts_encode():
    rng = np.random.default_rng(13)
    xy = rng.uniform(0, 10, (5, 2))
    priors = np.concatenate([xy, xy + rng.uniform(1, 5, (5, 2))], 1)
    xy = rng.uniform(0, 10, (3, 2))
    targets = np.concatenate([xy, xy + rng.uniform(1, 5, (3, 2))], 1)
    var = rng.uniform(0.1, 0.3, (5, 4))
    for normalized in (True, False):
        for variance in (t(var), [0.1, 0.1, 0.2, 0.2]):
            code = V.box_coder(t(priors), variance, t(targets), box_normalized=normalized)
            assert code.shape == [3, 5, 4]
            boxes = V.box_coder(t(priors), variance, code, 'decode_center_size',
                                box_normalized=normalized)
            # Paddle's convention for pixel boxes: encoding takes the centre as
            # (x1 + x2) / 2 but decoding as x1 + w / 2 with w = x2 - x1 + 1, so the
            # round trip moves them by half a pixel
            shift = 0.0 if normalized else -0.5
            np.testing.assert_allclose(boxes.numpy(),
                                       np.broadcast_to(targets[:, None] + shift, (3, 5, 4)),
                                       atol=1e-12)
    code = V.box_coder(t(priors[:1]), [1.0, 1.0, 1.0, 1.0], t([[1.0, 2.0, 5.0, 4.0]])).numpy()
    pw, ph = priors[0, 2] - priors[0, 0], priors[0, 3] - priors[0, 1]
    pcx, pcy = priors[0, 0] + pw / 2, priors[0, 1] + ph / 2
    np.testing.assert_allclose(code[0, 0], [(3 - pcx) / pw, (3 - pcy) / ph, np.log(4 / pw),
                                            np.log(2 / ph)], rtol=1e-12)


def test_box_coder_decode_axis_1_and_paddles_input_rules():
    rng = np.random.default_rng(14)
    priors = np.array([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 4.0, 3.0]])
    deltas = rng.standard_normal((2, 3, 4))
    out = V.box_coder(t(priors), [0.1, 0.1, 0.2, 0.2], t(deltas), 'decode_center_size',
                      axis=1).numpy()
    for i in range(2):
        for j in range(3):
            expect = V.box_coder(t(priors[i:i + 1]), [0.1, 0.1, 0.2, 0.2],
                                 t(deltas[i:i + 1, j:j + 1]), 'decode_center_size').numpy()
            np.testing.assert_allclose(out[i, j], expect[0, 0], rtol=1e-12)
    with pytest.raises(TypeError, match='prior_box_var'):
        V.box_coder(t(priors), None, t(deltas), 'decode_center_size', axis=1)
    with pytest.raises(OpError, match='code_type'):
        V.box_coder(t(priors), [1.0] * 4, t(deltas), 'decode')
    # not differentiable, as in Paddle
    p = t(priors, stop_gradient=False)
    assert V.box_coder(p, [1.0] * 4, t(priors)).stop_gradient


def test_prior_box_closed_form_and_static():
    feat, img = t(np.zeros((1, 2, 2, 3), 'float32')), t(np.zeros((1, 3, 8, 12), 'float32'))
    boxes, var = V.prior_box(feat, img, [4.0], [9.0], [2.0], flip=True)
    assert boxes.shape == [2, 3, 4, 4] and var.shape == [2, 3, 4, 4]
    np.testing.assert_allclose(var.numpy(), np.broadcast_to([0.1, 0.1, 0.2, 0.2], (2, 3, 4, 4)),
                               rtol=1e-7)
    # the prior at row 1, column 2: centre ((2 + 0.5) * 4, (1 + 0.5) * 4) = (10, 6)
    sizes = [(4, 4), (4 * np.sqrt(2), 4 / np.sqrt(2)), (4 / np.sqrt(2), 4 * np.sqrt(2)), (6, 6)]
    expect = [[(10 - w / 2) / 12, (6 - h / 2) / 8, (10 + w / 2) / 12, (6 + h / 2) / 8]
              for w, h in sizes]
    np.testing.assert_allclose(boxes.numpy()[1, 2], expect, rtol=1e-6)
    clipped, _ = V.prior_box(feat, img, [4.0], [9.0], [2.0], flip=True, clip=True)
    assert clipped.numpy().min() >= 0 and clipped.numpy().max() <= 1
    static = paddle.jit.to_static(lambda a, b: V.prior_box(a, b, [4.0], [9.0], [2.0], flip=True))
    np.testing.assert_array_equal(static(feat, img)[0].numpy(), boxes.numpy())


# ---- generate_proposals, distribute_fpn_proposals ----------------------------------------

def test_generate_proposals_with_zero_deltas_keeps_the_anchors():
    anchors = np.array([[[[1.0, 1.0, 6.0, 5.0], [2.0, 0.0, 9.0, 9.0]]]])     # [1, 1, 2, 4]
    var = np.ones((1, 1, 2, 4))
    scores = np.array([[[[0.3]], [[0.8]]]])                                   # [1, 2, 1, 1]
    deltas = np.zeros((1, 8, 1, 1))
    rois, probs, num = V.generate_proposals(t(scores), t(deltas), t([[20.0, 20.0]]), t(anchors),
                                            t(var), nms_thresh=0.9, return_rois_num=True)
    np.testing.assert_allclose(rois.numpy(), anchors[0, 0, ::-1], rtol=1e-12)   # by score
    np.testing.assert_allclose(probs.numpy(), [[0.8], [0.3]])
    np.testing.assert_array_equal(num.numpy(), [2])
    # a small image clips the boxes to it
    rois, _, num = V.generate_proposals(t(scores), t(deltas), t([[4.0, 7.0]]), t(anchors),
                                        t(var), nms_thresh=0.0)
    assert num is None
    np.testing.assert_allclose(rois.numpy(), [[2, 0, 7, 4], [1, 1, 6, 4]], rtol=1e-12)


def test_generate_proposals_match_the_loop_reference():
    rng = np.random.default_rng(15)
    xy = rng.uniform(0, 20, (3, 4, 2, 2))
    anchors = np.concatenate([xy, xy + rng.uniform(4, 12, (3, 4, 2, 2))], -1)
    var = np.broadcast_to([0.1, 0.1, 0.2, 0.2], (3, 4, 2, 4)).copy()
    scores = rng.uniform(0, 1, (2, 2, 3, 4))
    deltas = rng.standard_normal((2, 8, 3, 4))
    im = np.array([[24.0, 30.0], [18.0, 16.0]])
    for kw in [dict(pre_nms_top_n=10, post_nms_top_n=5),
               dict(pre_nms_top_n=-1, post_nms_top_n=0, nms_thresh=0.7, min_size=2.0, eta=0.9,
                    pixel_offset=True)]:
        got = V.generate_proposals(t(scores), t(deltas), t(im), t(anchors), t(var),
                                   return_rois_num=True, **kw)
        full = dict(dict(pre_nms_top_n=6000, post_nms_top_n=1000, nms_thresh=0.5,
                         min_size=0.1, eta=1.0, pixel_offset=False), **kw)
        expect = ref.generate_proposals(scores, deltas, im, anchors, var, *full.values())
        for g, e in zip(got, expect):
            np.testing.assert_allclose(g.numpy(), e, rtol=1e-12, atol=1e-12)


def test_distribute_fpn_proposals_levels_and_restore_index():
    rois = np.array([[0, 0, 10, 10], [0, 0, 300, 300], [0, 0, 100, 120], [5, 5, 60, 40],
                     [0, 0, 500, 700]], 'float32')
    multi, restore, per_level = V.distribute_fpn_proposals(
        t(rois), 2, 5, 4, 224, rois_num=t([2, 3], 'int32'))
    # level = floor(log2(sqrt(area) / 224) + 4), clipped to [2, 5]
    levels = np.clip(np.floor(np.log2(np.sqrt((rois[:, 2] - rois[:, 0]) * (rois[:, 3] - rois[:, 1]))
                                      / 224 + 1e-6) + 4), 2, 5)
    for k, lv in enumerate(range(2, 6)):
        np.testing.assert_array_equal(multi[k].numpy(), rois[levels == lv])
        np.testing.assert_array_equal(per_level[k].numpy(),
                                      [np.sum(levels[:2] == lv), np.sum(levels[2:] == lv)])
    assert restore.dtype == paddle.int32 and restore.shape == [5, 1]
    np.testing.assert_array_equal(paddle.concat(multi).numpy()[restore.numpy().ravel()], rois)
    with pytest.raises(ValueError, match='greater than 0'):
        V.distribute_fpn_proposals(t(rois), 0, 3, 2, 56)


# ---- YOLOv3 ---------------------------------------------------------------------------------

YX = np.sin(np.arange(126) * 0.37).reshape(1, 14, 3, 3).astype('float32')
GT_BOX = np.array([[[0.3, 0.4, 0.2, 0.3], [0.7, 0.6, 0.5, 0.4], [0, 0, 0, 0]]], 'float32')
GT_LABEL = np.array([[1, 0, 0]], 'int32')
ANCHORS = [10, 13, 16, 30, 33, 23, 30, 61]


def test_yolo_box_equals_paddles_values():
    boxes, scores = V.yolo_box(t(YX), t([[96, 64]], 'int32'), [10, 13, 16, 30], 2, 0.4, 32)
    assert boxes.shape == [1, 18, 4] and scores.shape == [1, 18, 2]
    np.testing.assert_allclose(boxes.numpy()[0, :3], [
        [5.850717, 10.701452, 15.482616, 18.310562], [27.332851, 8.950909, 40.48289, 14.764616],
        [48.611115, 7.4397173, 63.0, 12.392787]], rtol=1e-6)
    np.testing.assert_array_equal(boxes.numpy()[0, 8:11], np.zeros((3, 4)))   # under conf
    np.testing.assert_allclose(scores.numpy()[0, :3], [[0.2048294, 0.4731928],
                                                       [0.1959878, 0.5196512],
                                                       [0.1973434, 0.5275536]], rtol=1e-6)


def test_yolo_box_of_zero_logits_closed_form():
    # sigmoid(0) = 1/2: centres at cell + 1/2, sizes = the anchors, scores 1/4
    x = np.zeros((1, 2 * 6, 2, 2))
    boxes, scores = V.yolo_box(t(x), t([[64, 64]], 'int32'), [8, 16, 20, 10], 1, 0.1, 32,
                               clip_bbox=False)
    b = boxes.numpy().reshape(2, 2, 2, 4)
    cx, cy = 16 + 32 * np.arange(2)[None, :], 16 + 32 * np.arange(2)[:, None]
    np.testing.assert_allclose(b[0, ..., 0], cx - 4 + 0 * cy)
    np.testing.assert_allclose(b[1, ..., 3], cy + 5 + 0 * cx)
    np.testing.assert_allclose(scores.numpy(), 0.25)


def test_yolo_loss_equals_paddles_values():
    loss = V.yolo_loss(t(YX), t(GT_BOX), t(GT_LABEL), ANCHORS, [2, 3], 2, 0.5, 32)
    assert loss.shape == [1]
    np.testing.assert_allclose(loss.numpy(), [21.440737], rtol=1e-5)
    loss = V.yolo_loss(t(YX), t(GT_BOX), t(GT_LABEL), ANCHORS, [0, 1], 2, 0.3, 32,
                       gt_score=t([[0.8, 0.6, 1.0]]), use_label_smooth=False)
    np.testing.assert_allclose(loss.numpy(), [21.50442], rtol=1e-5)


def test_yolo_loss_matches_the_loop_reference_and_finite_differences():
    rng = np.random.default_rng(16)
    x = rng.standard_normal((2, 3 * 8, 4, 4))
    gt = np.concatenate([rng.uniform(0.05, 0.95, (2, 4, 2)), rng.uniform(0.05, 0.6, (2, 4, 2))],
                        -1)
    gt[1, 3] = 0
    label = rng.integers(0, 3, (2, 4)).astype('int32')
    score = rng.uniform(0.5, 1, (2, 4))
    anchors = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326]
    args = (anchors, [3, 4, 5], 3, 0.4, 32)
    loss = V.yolo_loss(t(x), t(gt), t(label), *args, gt_score=t(score), scale_x_y=1.05)
    np.testing.assert_allclose(
        loss.numpy(), ref.yolo_loss(x, gt, label, *args, gt_score=score, scale_x_y=1.05),
        rtol=1e-12)
    # the gradient on a smaller head (finite differences evaluate the loss twice per entry)
    check_grad(lambda a: V.yolo_loss(a, t(gt[:1]), t(label[:1]), *args, gt_score=t(score[:1])),
               [x[:1, :, :3, :3]], [0], atol=1e-5)


def test_yolo_ops_under_to_static_equal_eager():
    def f(x, gt, label):
        loss = V.yolo_loss(x, gt, label, ANCHORS, [2, 3], 2, 0.5, 32).sum()
        boxes, scores = V.yolo_box(x, paddle.to_tensor([[96, 64]], 'int32'), [10, 13, 16, 30],
                                   2, 0.4, 32)
        return loss + boxes.sum() + scores.sum()
    results = []
    for fn in (f, paddle.jit.to_static(f)):
        x = t(YX.astype('float64'), stop_gradient=False)
        out = fn(x, t(GT_BOX.astype('float64')), t(GT_LABEL))
        results.append((out.numpy(), paddle.grad(out, [x])[0].numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_yolo_errors_name_the_channels():
    with pytest.raises(OpError, match=r'yolo_box: x must have 2 anchors \* \(5 \+ class_num=3\)'):
        V.yolo_box(t(YX), t([[96, 64]], 'int32'), [10, 13, 16, 30], 3, 0.4, 32)
    with pytest.raises(OpError, match=r'yolo_loss: anchor_mask \[4\] indexes 4 anchors'):
        V.yolo_loss(t(YX[:, :7]), t(GT_BOX), t(GT_LABEL), ANCHORS, [4], 2, 0.5, 32)


# ---- read_file, decode_jpeg -------------------------------------------------------------------

# a 24x16 RGB JPEG (quality 90, 4:2:0) of the gradient SOURCE below, written by Pillow
JPEG = zlib.decompress(base64.b64decode(
    'eNr7f+P/AwYBLzdPNwZGRgYGRiBk+H+bwZmBmYkJhICABYhYOVhZWVhYudjZ2Th4uHh4uLm4uXn5hAR4+QT5uLkF'
    'xAQEhUVERUV5+MUlxEQkhERERUCGMDID9bCwcrKycorwcvOKkAz+H2AQ5GAQYJBgZlRiYBJkZBZk/H+EQR7oTlZG'
    'MGCAAkYmoBvZ2Dk4ubiBCrYKMDAxMjMzsTCDXA2UrQXKM7AIsgopGjqyCQcmsisVihg1TlzIoey08aBo0MUPKsZJ'
    'RU2cXGLiEpJSqmrqGppaJqZm5haWVs4urm7uHp5ewSGhYeERkVHJKalp6RmZWcUlpWXlFZVVzS2tbe0dnV2TJk+Z'
    'Om36jJmzFi1esnTZ8hUrV23avGXrtu07du46dPjI0WPHT5w8denylavXrt+4eevho8dPnj57/uLlq4+fPn/5+u37'
    'j5+/QP5iZGBmhAGs/hIE+ouJhYWZhR3kL0amcpACQRZWRUM2IcdA9sRCYSWjRg4Rp4kLNx7kVDYO+iCaVHSRS0zF'
    '5KHqR5DXwD4jzmNNZPkM7jGEv24x8DAzAiOPWZDBnuHH4UNV8pqfrm+u8Hd+aBf1rEZ94d/z0/bOP1Slfvdn9pd7'
    'uo/md9+z5fnP0Fj+nQ8k+mv/tK4v/Jwv5qifdq1XSZsT/O/S38cfZMqZ/v383f7/JgCLQO2H'))
ROWS, COLS = np.mgrid[0:16, 0:24]
SOURCE = np.stack([ROWS * 12, COLS * 9, 200 - ROWS * 5 - COLS * 4]).astype('uint8')
# a 24x16 grey JPEG (quality 90) of GREY_SOURCE, written by Pillow
GREY_JPEG = zlib.decompress(base64.b64decode(
    'eNr7f+P/AwYBLzdPNwZGRgYGRiBk+H+bwZmBmYkJhICABYhYOVhZWVhYudjZ2Th4uHh4uLm4uXn5hAR4+QT5uLkF'
    'xAQEhUVERUV5+MUlxEQkhERERf4fYODmYBBgkGBkFGT4f4RBHmg4KyMYMEABIxPQYDZ2Dk4ubqCCrQIMTIzMzEws'
    'zCCrgLK1QHkGFkFWIUVDRzbhwER2pUIRo8aJCzmUnTYeFA26+EHFOKmoiZNLTFxCUkpVTV1DU8vE1MzcwtLK2cXV'
    'zd3D0ys4JDQsPCIyKjklNS09IzOruKS0rLyisqq5pbWtvaOza9LkKVOnTZ8xc9aixUuWLlu+YuWqTZu3bN22fcfO'
    'XYcOHzl67PiJk6cuXb5y9dr1GzdvPXz0+MnTZ89fvHz18dPnL1+/ff/x89f/WwwcIP/YM/y0P2TP/+/5u/8MXt/2'
    'c/yx/z1/91/tW3uUP/xneFf3/st6+w/9h/8z7Py9/9Le9VhU/r8JACl0jPk='))
GREY_SOURCE = ROWS * 7 + COLS * 5 + 20


def test_read_file_gives_the_bytes(tmp_path):
    path = tmp_path / 'data.bin'
    path.write_bytes(bytes(range(256)) * 3)
    data = V.read_file(str(path))
    assert data.dtype == paddle.uint8 and data.shape == [768]
    np.testing.assert_array_equal(data.numpy(), np.tile(np.arange(256), 3))
    with pytest.raises(OpError, match=r"read_file: cannot read '.*missing.bin'"):
        V.read_file(str(tmp_path / 'missing.bin'))


def test_decode_jpeg_modes(tmp_path):
    path = tmp_path / 'image.jpg'
    path.write_bytes(JPEG)
    data = V.read_file(str(path))
    rgb = V.decode_jpeg(data)
    assert rgb.dtype == paddle.uint8 and rgb.shape == [3, 16, 24]
    diff = np.abs(rgb.numpy().astype(int) - SOURCE)
    assert diff.max() <= 12 and diff.mean() < 2        # JPEG's loss at quality 90
    np.testing.assert_array_equal(V.decode_jpeg(data, mode='rgb').numpy(), rgb.numpy())
    gray = V.decode_jpeg(data, mode='gray')
    assert gray.shape == [1, 16, 24]
    luma = SOURCE.astype(float).T @ [0.299, 0.587, 0.114]
    assert np.abs(gray.numpy()[0] - luma.T).max() <= 12
    # a grey file: its one channel unchanged, repeated for rgb
    grey = V.decode_jpeg(t(np.frombuffer(GREY_JPEG, np.uint8)))
    assert grey.shape == [1, 16, 24]
    assert np.abs(grey.numpy()[0].astype(int) - GREY_SOURCE).max() <= 2
    np.testing.assert_array_equal(V.decode_jpeg(t(np.frombuffer(GREY_JPEG, np.uint8)),
                                                'rgb').numpy(), np.repeat(grey.numpy(), 3, 0))
    with pytest.raises(OpError, match='decode_jpeg: mode must be one of'):
        V.decode_jpeg(data, mode='bgr')
    with pytest.raises(OpError, match='decode_jpeg: not a JPEG file'):
        V.decode_jpeg(t(np.arange(10), 'uint8'))
    with pytest.raises(OpError, match=r'decode_jpeg: x must be .* 1-D uint8 tensor'):
        V.decode_jpeg(t(np.zeros((2, 3)), 'float32'))


def test_file_ops_in_a_static_program_read_when_the_program_runs(tmp_path):
    path = tmp_path / 'later.jpg'
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            data = V.read_file(str(path))
            pixels = V.decode_jpeg(data, mode='gray')
            assert list(pixels.shape) == [1, -1, -1]
        path.write_bytes(JPEG)           # written after the program was built
        exe = paddle.static.Executor()
        res = exe.run(main, fetch_list=[data, pixels])
    finally:
        paddle.disable_static()
    np.testing.assert_array_equal(res[0], np.frombuffer(JPEG, np.uint8))
    np.testing.assert_array_equal(res[1], V.decode_jpeg(t(res[0]), 'gray').numpy())

    @paddle.jit.to_static
    def load():
        return V.decode_jpeg(V.read_file(str(path)))
    np.testing.assert_array_equal(load().numpy(), V.decode_jpeg(V.read_file(str(path))).numpy())
