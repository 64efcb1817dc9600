"""batch_norm_grad, the op batch norm's grad rule emits with batch statistics
(``ops/nn.py``): its clear errors, its output dtypes under mixed precision,
and a double backward through nn.BatchNorm2D that agrees between eager mode
and a static Program (the generated op cases check values and derivatives)."""
import numpy as np
import pytest

import framework as paddle
from framework.ops import registry

_OP = registry.lookup('batch_norm_grad')


def test_one_value_per_channel_is_refused_with_the_op_named():
    x = np.ones((1, 3), np.float32)
    with pytest.raises(ValueError, match=r'batch_norm_grad: expected more than 1 value per '
                                         r'channel, got input shape \[1, 3\]'):
        _OP.kernel(x, x, None, 1e-5, 'NCHW')


def test_a_gradient_of_another_shape_is_refused_with_both_shapes():
    with pytest.raises(ValueError, match=r'batch_norm_grad: out_grad \[2, 3\] must have the '
                                         r'shape of x \[4, 3\]'):
        _OP.kernel(np.ones((2, 3)), np.ones((4, 3)), None, 1e-5, 'NCHW')


def test_the_weight_gradients_take_the_weights_dtype():
    # (auto_cast runs batch norm on float16 activations with float32 weights)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 3, 2, 2)).astype(np.float16)
    g = rng.standard_normal((4, 3, 2, 2)).astype(np.float16)
    w = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    dx, dw, db = _OP.kernel(g, x, w, 1e-5, 'NCHW')
    assert (dx.dtype, dw.dtype, db.dtype) == (np.float16, np.float32, np.float32)
    ref = _OP.kernel(g.astype(np.float64), x.astype(np.float64), w.astype(np.float64), 1e-5,
                     'NCHW')
    np.testing.assert_allclose(dw, ref[1], rtol=2e-3, atol=2e-3)
    _, dw_none, db_none = _OP.kernel(g, x, None, 1e-5, 'NCHW')
    assert dw_none.dtype == db_none.dtype == np.float16


def _gradient_penalty(x_np, w_np):
    """d/dw of sum((d loss / d x)^2) through a training-mode BatchNorm2D."""
    bn = paddle.nn.BatchNorm2D(3)
    bn.weight.set_value(w_np)
    x = paddle.to_tensor(x_np, stop_gradient=False)
    loss = (bn(x) ** 3).sum()
    (gx,) = paddle.grad(loss, x, create_graph=True)
    (gw,) = paddle.grad((gx * gx).sum(), bn.weight)
    return gw.numpy()


def test_double_backward_through_batch_norm_agrees_between_eager_and_static():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 2, 2)).astype(np.float32)
    w = rng.uniform(0.5, 1.5, 3).astype(np.float32)
    eager = _gradient_penalty(x, w)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            xv = paddle.static.data('x', [4, 3, 2, 2], 'float32')
            xv.stop_gradient = False
            bn = paddle.nn.BatchNorm2D(3)
            loss = (bn(xv) ** 3).sum()
            (gx,) = paddle.static.gradients([loss], [xv])
            (gw,) = paddle.static.gradients([(gx * gx).sum()], [bn.weight])
        assert 'batch_norm_grad' in [op.type for op in main.global_block().ops]
        exe = paddle.static.Executor()
        exe.run(startup)
        paddle.static.global_scope().var(bn.weight.name).get_tensor().set(w, None)
        (static,) = exe.run(main, feed={'x': x}, fetch_list=[gw])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(static, eager, rtol=1e-5)
    assert np.abs(eager).max() > 1e-3          # a real second derivative, not zeros
