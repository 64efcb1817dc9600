"""Tensors made from static values inside @to_static (to_tensor / assign of
Variables and mixed lists, shapes and repeats holding tensors), and values of
Variables known while the program is built (int(), float(), .numpy(), .item())."""
import numpy as np
import pytest

import framework as paddle
from framework.jit import to_static
from framework.static import InputSpec


def op_types(program):
    return [op.type for b in program.blocks for op in b.ops]


def same(eager, static):
    eager = eager if isinstance(eager, (list, tuple)) else [eager]
    static = static if isinstance(static, (list, tuple)) else [static]
    assert len(eager) == len(static)
    for e, s in zip(eager, static):
        e = e.numpy() if isinstance(e, paddle.Tensor) else np.asarray(e)
        s = s.numpy() if isinstance(s, paddle.Tensor) else np.asarray(s)
        assert e.dtype == s.dtype and e.shape == s.shape, (e.dtype, s.dtype, e.shape, s.shape)
        np.testing.assert_allclose(s, e, rtol=1e-6)


# ---- to_tensor / assign of static values -----------------------------------------

def from_values(x):
    t = paddle.to_tensor(x)
    mixed = paddle.to_tensor([t.sum(), 2.0, 3])
    ints = paddle.to_tensor([t.shape[0], 7])
    typed = paddle.to_tensor([t.mean(), 1], dtype='float64')
    nested = paddle.to_tensor([[t[0, 0], 1.0], [2, t[1, 1]]])
    stacked = paddle.assign([t.sum().reshape([1]), 5])
    number = paddle.assign(2.5)
    return mixed, ints, typed, nested, stacked, number


@pytest.mark.parametrize('data', [np.arange(6, dtype='float32').reshape(2, 3),
                                  -np.ones((2, 2), 'float32')])
def test_to_tensor_and_assign_of_static_values(data):
    same(from_values(paddle.to_tensor(data)), to_static(from_values)(data))


def test_to_tensor_keeps_numpy_dtypes_and_defaults_python_floats():
    def f(x):
        return paddle.to_tensor(np.ones(2)), paddle.to_tensor([1.5, 2.0]), paddle.to_tensor(x) + 0

    x = np.ones(3, 'int32')
    eager, static = f(x), to_static(f)(x)
    same(eager, static)
    assert [v.dtype.name for v in static] == ['float64', 'float32', 'int32']


def test_to_tensor_of_a_variable_is_a_detached_copy():
    def f(x):
        y = paddle.to_tensor(x * 2)       # a new leaf: no gradient back to x
        return (y * x).sum()

    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    to_static(f)(x).backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 4.0])     # only the direct path
    x2 = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    f(x2).backward()
    np.testing.assert_allclose(x2.grad.numpy(), x.grad.numpy())


def test_to_tensor_of_a_variable_casts_to_the_requested_dtype():
    def f(x):
        return paddle.to_tensor(x, dtype='int64')

    out = to_static(f)(np.array([1.7, -2.2], 'float32'))
    assert out.dtype.name == 'int64'
    np.testing.assert_array_equal(out.numpy(), [1, -2])


# ---- shapes and repeats holding tensors ------------------------------------------

def shaped_by_data(x, h):
    n = paddle.shape(x)[0]
    z = paddle.full([n, 1], 0.5)
    o = paddle.ones([x.shape[0], 2], 'int64')
    r = paddle.reshape(x, [-1, n * 0 + 2])
    t = h.tile(repeat_times=(paddle.shape(x)[0], 1, 1))
    e = paddle.expand(paddle.ones([1, 3]), [n, 3])
    s = paddle.slice(x, [0], [n - 1], [n])
    return z, o, r, t, e, s


def test_shapes_holding_run_time_values_follow_the_data():
    sf = to_static(shaped_by_data, input_spec=[InputSpec([None, 4], 'float32'),
                                               InputSpec([1, 2, 3], 'float32')])
    h = np.arange(6, dtype='float32').reshape(1, 2, 3)
    for batch in (2, 3):
        x = np.random.rand(batch, 4).astype('float32')
        same(shaped_by_data(paddle.to_tensor(x), paddle.to_tensor(h)), sf(x, h))
    assert sf.get_traced_count() == 1
    types = op_types(sf.main_program)
    for t in ('dynamic_full', 'dynamic_reshape', 'dynamic_tile', 'dynamic_expand'):
        assert t in types


def test_x_shape_with_unknown_dims_reads_the_run_time_shape():
    def f(x):
        y = paddle.reshape(x, [-1, x.shape[1]])
        return paddle.zeros([y.shape[0], 1]), len(x.shape)

    sf = to_static(f, input_spec=[InputSpec([None, 3], 'float32')])
    for batch in (1, 5):
        x = np.ones((batch, 3), 'float32')
        out, rank = sf(x)
        assert out.shape == [batch, 1] and rank == 2


def test_gradients_through_dynamic_reshape_expand_and_tile():
    def f(x, w):
        n = paddle.shape(x)[0]
        a = paddle.reshape(x * w, [n, -1]).sum()
        b = paddle.expand(w.reshape([1, 2]), [n, 2]).sum()
        c = w.reshape([1, 2]).tile([n, 2]).sum()
        return a + b + c

    sf = to_static(f, input_spec=[InputSpec([None, 2], 'float32'),
                                  InputSpec([2], 'float32')])
    x = np.arange(6, dtype='float32').reshape(3, 2)
    grads = []
    for fn in (f, sf):
        w = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
        fn(paddle.to_tensor(x), w).backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)
    np.testing.assert_allclose(grads[0], x.sum(0) + 3 + 6)


def test_bad_shape_entries_name_the_api():
    with pytest.raises(TypeError, match=r'full: shape\[1\]'):
        paddle.full([2, 1.5], 0.0)
    with pytest.raises(TypeError, match='reshape: shape'):
        paddle.reshape(paddle.ones([2]), 'ab')


# ---- values known while the program is built -------------------------------------

def python_values(x):
    n = paddle.zeros([1], 'int64') + 3
    k = int(n)
    scale = float(paddle.full([1], 0.5))
    arr = paddle.to_tensor([1, 2, 3]).numpy()
    first = paddle.to_tensor([4.0]).item()
    total = x
    for i in range(k):                  # a Python loop: k is a Python int
        total = total + i * scale
    return total, arr.sum() + first


def test_known_values_are_python_values_in_converted_code():
    x = np.ones(2, 'float32')
    eager = python_values(paddle.to_tensor(x))
    sf = to_static(python_values)
    static = sf(x)
    same(eager[0], static[0])
    assert static[1] == eager[1] == 10.0
    assert 'while' not in op_types(sf.main_program)


def test_unknown_values_stay_tensors_in_converted_code():
    def f(x):
        n = x.numpy()                   # Paddle's rule: numpy() of a run-time value is itself
        k = int(x.sum())                # a cast, done when the program runs
        return n * 2, k, x.max().item()

    x = np.array([1.5, 2.5], 'float32')
    out, k, m = to_static(f)(x)
    np.testing.assert_allclose(out.numpy(), x * 2)
    assert k.dtype.name == 'int32' and int(k.numpy()) == 4
    np.testing.assert_allclose(m.numpy(), 2.5)


def test_unknown_values_outside_converted_code_raise_a_clear_error():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data('x', [2], 'float32')
            known = paddle.full([2], 3, 'int64')
            assert known.numpy().tolist() == [3, 3] and int(known[0]) == 3
            a, b = paddle.shape(paddle.zeros([4, 5]))
            assert (int(a), int(b)) == (4, 5)
            with pytest.raises(TypeError, match=r"test_static_values.py:\d+.*Variable 'x'"):
                x.numpy()
            with pytest.raises(TypeError, match=r"float\(\).*Variable 'sum"):
                float(x.sum())
    finally:
        paddle.disable_static()


def test_tensor_arrays():
    arr = paddle.tensor.create_array('float32')
    paddle.tensor.array_write(paddle.ones([2]), paddle.zeros([1], 'int64'), arr)
    paddle.tensor.array_write(paddle.zeros([2]), 1, arr)
    assert int(paddle.tensor.array_length(arr)) == 2
    np.testing.assert_allclose(paddle.tensor.array_read(arr, 1).numpy(), [0.0, 0.0])
    with pytest.raises(IndexError, match='array_write: index 5'):
        paddle.tensor.array_write(paddle.ones([2]), 5, arr)

    def f(x):
        a = paddle.tensor.create_array('float32')
        zero = paddle.zeros([1], 'int64')
        for i in range(3):
            a = paddle.tensor.array_write(x * i, zero + i, array=a)
        return paddle.tensor.array_read(a, zero + 2)

    x = np.array([1.0, 2.0], 'float32')
    same(f(paddle.to_tensor(x)), to_static(f)(x))


def test_random_draws_of_a_run_time_shape():
    def f(x):
        n = paddle.shape(x)[0]
        return paddle.rand([n, 2]), paddle.randn([n]), paddle.uniform([2, n], min=2.0, max=3.0)

    sf = to_static(f, input_spec=[InputSpec([None], 'float32')])
    for batch in (3, 500):
        r, g, u = sf(np.zeros(batch, 'float32'))
        assert r.shape == [batch, 2] and g.shape == [batch] and u.shape == [2, batch]
        assert r.dtype.name == 'float32'
        assert ((u.numpy() >= 2) & (u.numpy() < 3)).all() and (r.numpy() < 1).all()
    assert abs(float(g.numpy().mean())) < 0.2 and 0.8 < float(g.numpy().std()) < 1.2
