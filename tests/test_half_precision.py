"""float16 and bfloat16 through the public API, eagerly and under @to_static:
each result keeps the input's half dtype and matches the float64 computation
on the same (rounded) values, and ops without half-precision kernels say so.
(The registry-generated dtype sweep checks every op case; these are the user
calls behind the bugs it found.)"""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F

pytest.importorskip('ml_dtypes', reason='bfloat16 needs ml_dtypes')

HALF = ['float16', 'bfloat16']
TOL = {'float16': 1e-2, 'bfloat16': 4e-2}
_rng = np.random.default_rng(3)
X = _rng.standard_normal((3, 4))
Y = _rng.standard_normal((3, 4))
SPECIAL = np.array([1.5, -0.0, np.nan, np.inf, -np.inf, -2.0])

CALLS = {
    'copysign': (lambda x, y: paddle.copysign(x, y), [np.array([1.5, -2.0, 3.0]),
                                                      np.array([-0.0, 0.0, -1.0])]),
    'isposinf': (paddle.isposinf, [SPECIAL]),
    'isneginf': (paddle.isneginf, [SPECIAL]),
    'nan_to_num': (lambda x: paddle.nan_to_num(x, nan=0.5, posinf=9.0, neginf=-9.0), [SPECIAL]),
    'hypot': (paddle.hypot, [X, Y]),
    'logaddexp': (paddle.logaddexp, [X, Y]),
    'ldexp': (lambda x, y: paddle.ldexp(x, paddle.round(y * 2)), [X, Y]),
    'frexp': (lambda x: paddle.frexp(x)[0], [X]),
    'i0': (paddle.i0, [X]),
    'i1e': (paddle.i1e, [X]),
    'erf': (paddle.erf, [np.array([-2.99, -1.54, 0.3, 1.92, 2.62])]),
    'einsum': (lambda x, y: paddle.einsum('ij,kj->ik', x, y), [X, Y]),
    'median': (lambda x: paddle.median(x, axis=1, mode='min')[1], [np.array([[3.0, np.nan, 1.0],
                                                                             [2.0, 1.0, 3.0]])]),
    'cummax': (lambda x: paddle.cummax(x)[1], [np.array([1.0, np.nan, 3.0, 2.0])]),
    'put_along_axis': (lambda x, y: paddle.put_along_axis(
        x, paddle.to_tensor([[0], [2], [1]]), y[:, :1], 1, reduce='mul'), [X, Y]),
}


def _run(fn, arrays, dtype, static):
    ins = [paddle.to_tensor(a).astype(dtype) for a in arrays]
    f = paddle.jit.to_static(fn) if static else fn
    return f(*ins)


def _expected(fn, arrays, dtype):
    """fn on the inputs rounded to ``dtype``, computed in float64."""
    rounded = [paddle.to_tensor(a).astype(dtype).astype('float64') for a in arrays]
    return fn(*rounded).numpy()


@pytest.mark.parametrize('static', [False, True], ids=['eager', 'to_static'])
@pytest.mark.parametrize('dtype', HALF)
@pytest.mark.parametrize('name', sorted(CALLS))
def test_half_precision_results(name, dtype, static):
    fn, arrays = CALLS[name]
    out = _run(fn, arrays, dtype, static)
    want = _expected(fn, arrays, dtype)
    if want.dtype == np.float64:
        assert str(out.dtype).endswith(dtype), (name, out.dtype)
        np.testing.assert_allclose(out.astype('float64').numpy(), want, rtol=TOL[dtype],
                                   atol=TOL[dtype], err_msg=name)
    else:
        np.testing.assert_array_equal(out.numpy(), want, err_msg=name)


@pytest.mark.parametrize('dtype', HALF)
def test_nan_to_num_defaults_to_the_half_dtypes_limits(dtype):
    out = paddle.nan_to_num(paddle.to_tensor(SPECIAL).astype(dtype)).astype('float64').numpy()
    big = paddle.finfo(dtype).max
    np.testing.assert_array_equal(out, [1.5, 0.0, 0.0, big, -big, -2.0])


@pytest.mark.parametrize('dtype', HALF)
def test_rnn_cells_keep_half_precision_with_their_gradients(dtype):
    paddle.seed(1)
    for cell in (paddle.nn.GRUCell(4, 3), paddle.nn.LSTMCell(4, 3)):
        x = paddle.to_tensor(X[:, :4].astype(np.float32))
        ref, _ = cell(x)
        cell.to(dtype=dtype)
        h, _ = cell(x.astype(dtype))
        assert str(h.dtype).endswith(dtype)
        np.testing.assert_allclose(h.astype('float32').numpy(), ref.numpy(), atol=5e-2)
        h.sum().backward()
        assert str(cell.weight_hh.grad.dtype).endswith(dtype)


@pytest.mark.parametrize('dtype', HALF)
def test_optimizers_update_half_precision_states_in_float32(dtype):
    """With the states in half precision too, bias corrections such as
    1 - 0.999 ** t (0 in bfloat16) are computed in float32: no NaN."""
    from framework.ops.optim import nadam_op, radam_op
    for op in (nadam_op, radam_op):
        args, _ = op.test_cases[0]
        ins = [paddle.to_tensor(a).astype(dtype) for a in args[:op.n_in]]
        outs = op(*ins, *args[op.n_in:])
        want = op(*[paddle.to_tensor(a).astype(dtype).astype('float64') for a in args[:op.n_in]],
                  *args[op.n_in:])
        for o, w, a in zip(outs, want, ins):
            assert o.dtype == a.dtype, op.name
            np.testing.assert_allclose(o.astype('float64').numpy(), w.numpy(),
                                       rtol=TOL[dtype], atol=TOL[dtype], err_msg=op.name)


def test_erfinv_is_accurate_in_float32_near_one():
    y = np.array([-0.999999, 0.99999, 0.5], np.float32)
    got = paddle.erfinv(paddle.to_tensor(y)).numpy()
    want = paddle.erfinv(paddle.to_tensor(y.astype(np.float64))).numpy()
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize('call,match', [
    (lambda t: paddle.complex(t, t), 'complex: real and imag must both be float32'),
    (lambda t: paddle.vision.ops.roi_align(t.reshape([1, 1, 2, 3]), paddle.to_tensor(
        [[0.0, 0.0, 1.0, 1.0]]).astype(t.dtype), paddle.to_tensor([1], 'int32'), 1),
     'roi_align: x must be float32 or float64'),
])
def test_ops_without_half_kernels_say_so_in_both_modes(call, match):
    t = paddle.to_tensor(X[0, :3].repeat(2)).astype('float16')
    with pytest.raises(ValueError, match=match):
        call(t)
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            v = paddle.static.data('t', [6], 'float16')
            with pytest.raises(ValueError, match=match):
                call(v)
    finally:
        paddle.disable_static()
