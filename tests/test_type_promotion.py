"""Type promotion: PyTorch's rule (torch.result_type) in eager mode, static mode
and @to_static alike.

Categories bool < integer < floating < complex; the highest category wins.
Operands rank in three groups, tensors with dims > 0-d tensors > numbers
(Python or numpy scalars); a lower group only decides the dtype when it brings
a higher category, and numbers then give the default dtype of their category.
The expected dtypes below are written out by hand from that rule.
"""
import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.dtype import result_type

DIMS, ZERO = 'dims', 'zero'


def _tensor(dtype, kind=DIMS, value=1):
    shape = [2] if kind == DIMS else []
    return paddle.to_tensor(np.full(shape, value).astype(dtype))


@pytest.fixture
def float64_default():
    paddle.set_default_dtype('float64')
    yield
    paddle.set_default_dtype('float32')


# ---- the rule table (eager add) ------------------------------------------------------

# two tensors with dims: the higher category wins, the wider type within one;
# an integer meeting a float gives that float (int64 with float16 is float16)
DIMS_PAIRS = [
    ('bool', 'bool', 'bool'), ('bool', 'uint8', 'uint8'), ('bool', 'int32', 'int32'),
    ('bool', 'float16', 'float16'), ('bool', 'float32', 'float32'),
    ('bool', 'complex64', 'complex64'),
    ('uint8', 'int8', 'int16'), ('uint8', 'int16', 'int16'), ('int8', 'int32', 'int32'),
    ('int32', 'int64', 'int64'),
    ('int64', 'float16', 'float16'), ('int32', 'float32', 'float32'),
    ('int64', 'float32', 'float32'), ('int64', 'float64', 'float64'),
    ('int64', 'complex64', 'complex64'),
    ('float16', 'float32', 'float32'), ('float32', 'float64', 'float64'),
    ('float32', 'complex64', 'complex64'), ('float64', 'complex64', 'complex128'),
    ('float16', 'complex128', 'complex128'), ('complex64', 'complex128', 'complex128'),
]


@pytest.mark.parametrize('a,b,want', DIMS_PAIRS)
def test_tensors_with_dims_promote_by_category_then_width(a, b, want):
    for x, y in ((_tensor(a), _tensor(b)), (_tensor(b), _tensor(a))):
        assert (x + y).dtype.name == want
        assert str(result_type(x, y)) == want


# a 0-d tensor counts only when its category is higher than the dims tensors'
ZERO_PAIRS = [
    ('int32', 'int64', 'int32'), ('float32', 'float64', 'float32'),
    ('float16', 'float64', 'float16'), ('uint8', 'int64', 'uint8'),
    ('bool', 'int32', 'int32'), ('int32', 'float64', 'float64'),
    ('int64', 'float16', 'float16'), ('float32', 'complex128', 'complex128'),
    ('float64', 'complex64', 'complex128'), ('bool', 'bool', 'bool'),
]


@pytest.mark.parametrize('dims,zero,want', ZERO_PAIRS)
def test_zero_dim_tensor_matters_only_with_a_higher_category(dims, zero, want):
    x, z = _tensor(dims), _tensor(zero, ZERO)
    assert (x * z).dtype.name == want and (z * x).dtype.name == want
    assert (x * z).shape == [2]


def test_zero_dim_tensors_among_themselves_promote_normally():
    assert (_tensor('int32', ZERO) + _tensor('int64', ZERO)).dtype == paddle.int64
    assert (_tensor('float32', ZERO) + _tensor('float64', ZERO)).dtype == paddle.float64
    assert (_tensor('float16', ZERO) + 1.5).dtype == paddle.float16
    assert (_tensor('int32', ZERO) + 1.5).dtype == paddle.float32
    assert (_tensor('int32', ZERO) + 7).dtype == paddle.int32


# numbers: the tensor's dtype unless the number's category is higher; then the
# default dtype of that category (float32 / complex64), except that a floating
# tensor meeting a complex number keeps its precision
NUMBER_CASES = [
    ('int64', 1.5, 'float32'), ('int32', 1.5, 'float32'), ('uint8', 0.5, 'float32'),
    ('float16', 1.5, 'float16'), ('float32', 1.5, 'float32'), ('float64', 1.5, 'float64'),
    ('bool', 1, 'int64'), ('bool', True, 'bool'), ('bool', 1.5, 'float32'),
    ('int32', 2, 'int32'), ('int8', 2, 'int8'), ('uint8', 300, 'uint8'),
    ('float32', 1j, 'complex64'), ('float64', 1j, 'complex128'),
    ('int64', 1j, 'complex64'), ('complex64', 2.0, 'complex64'),
    ('int64', np.float64(2.5), 'float32'), ('int64', np.float32(2.5), 'float32'),
    ('float32', np.float64(2.5), 'float32'), ('int32', np.int64(3), 'int32'),
    ('float16', np.float64(2.5), 'float16'),
]


@pytest.mark.parametrize('dtype,number,want', NUMBER_CASES)
def test_numbers_take_the_tensor_dtype_unless_their_category_is_higher(dtype, number, want):
    x = _tensor(dtype)
    assert (x + number).dtype.name == want
    assert (number + x).dtype.name == want
    assert (x * number).dtype.name == want


def test_float32_never_silently_becomes_float64():
    x = _tensor('float32')
    others = [_tensor('int64'), _tensor('int32'), _tensor('float64', ZERO), _tensor('int64', ZERO),
              1.5, np.float64(1.5), 2, _tensor('bool'), _tensor('float16')]
    for o in others:
        for out in (x + o, x * o, x - o, x / o, paddle.maximum(x, o) if hasattr(o, 'shape') else x,
                    paddle.where(x > 0, x, o)):
            assert out.dtype == paddle.float32, (o, out.dtype)
    assert paddle.concat([x, _tensor('int64')]).dtype == paddle.float32
    assert paddle.stack([x, _tensor('int64')]).dtype == paddle.float32
    assert paddle.add_n([x, _tensor('float16')]).dtype == paddle.float32
    assert paddle.lerp(x, x, _tensor('float64', ZERO)).dtype == paddle.float32


def test_numbers_alone_take_their_default_dtypes():
    c = paddle.to_tensor([True, False])
    assert paddle.where(c, 1, 2.5).dtype == paddle.float32
    assert paddle.where(c, 1, 2).dtype == paddle.int64
    assert result_type(True, False) == paddle.bool
    assert result_type(1, 2) == paddle.int64
    assert result_type(1, 2.0) == paddle.float32
    assert result_type(1.0, 1j) == paddle.complex64


def test_default_float_dtype_decides_for_numbers_and_true_division(float64_default):
    i = _tensor('int64')
    assert (i + 1.5).dtype == paddle.float64
    assert (i / i).dtype == paddle.float64
    assert (i * 1j).dtype == paddle.complex128
    assert (_tensor('float32') + 1.5).dtype == paddle.float32


def test_integer_values_wrap_in_a_narrow_tensor_dtype():
    u = paddle.to_tensor(np.array([1, 250], np.uint8))
    np.testing.assert_array_equal((u + 300).numpy(), [45, 38])        # 300 wraps to 44
    np.testing.assert_array_equal((u - 1).numpy(), [0, 249])
    i = paddle.to_tensor(np.array([1], np.int32))
    assert (i + 2 ** 33).numpy().tolist() == [1]                       # 2**33 wraps to 0


def test_true_division_of_integers_gives_the_default_float():
    a = paddle.to_tensor(np.array([7, -7], np.int64))
    b = paddle.to_tensor(np.array([2, 2], np.int32))
    for out, want in ((a / b, [3.5, -3.5]), (a / 2, [3.5, -3.5]), (7 / b, [3.5, 3.5]),
                      (paddle.divide(a, b), [3.5, -3.5])):
        assert out.dtype == paddle.float32
        np.testing.assert_allclose(out.numpy(), want)
    assert (a // b).dtype == paddle.int64 and (a // b).numpy().tolist() == [3, -4]


def test_comparisons_compute_in_the_promoted_dtype():
    i = paddle.to_tensor([1, 2])
    assert (i < 1.5).numpy().tolist() == [True, False]       # 1.5 is not truncated to 1
    assert (i == 1.5).numpy().tolist() == [False, False]
    assert (i >= paddle.to_tensor([1.5, 1.5])).numpy().tolist() == [False, True]
    assert (i < 1.5).dtype == paddle.bool
    b = paddle.to_tensor(np.array([-1, 3], np.int8))
    assert (b < paddle.to_tensor(np.array([200, 2], np.uint8))).numpy().tolist() == [True, False]


def test_values_are_computed_in_the_promoted_dtype():
    x = paddle.to_tensor(np.array([0.1, 0.2], np.float32))
    i = paddle.to_tensor(np.array([3, 4], np.int64))
    out = x * i
    np.testing.assert_array_equal(out.numpy(), np.array([0.1, 0.2], np.float32) * np.float32([3, 4]))
    h = paddle.to_tensor(np.array([1000.0], np.float16))
    with np.errstate(over='ignore'):
        assert (h * 100.0).numpy().tolist() == [np.inf]        # computed in float16


def test_list_operands_are_tensors_made_like_to_tensor():
    x = _tensor('float32')
    assert (x + [1.5, 2.5]).dtype == paddle.float32
    assert (_tensor('int32') + [1, 2]).dtype == paddle.int64


# ---- the same dtypes and values in eager, static and @to_static ------------------------

def _mixed_ops(a, b):
    return [a + b, a * b, a / b, a - 2.5, b * 3, a < b, paddle.maximum(a, b),
            paddle.where(a > b, a, b), paddle.where(a > 0, b, 0.5), a ** 2, b ** 0.5,
            paddle.concat([a, b]), paddle.stack([b, a]), b // 2, 2 - b]


INPUT_DTYPES = [('float32', 'int64'), ('int32', 'int64'), ('float32', 'float64'),
                ('float16', 'float32'), ('bool', 'int32'), ('int64', 'float16')]


def _inputs(da, db):
    rng = np.random.default_rng(0)
    a = (rng.uniform(0.5, 3, 3) * 4).astype(da)
    b = (rng.uniform(0.5, 3, 3) * 4).astype(db)
    return a, b


@pytest.mark.parametrize('da,db', INPUT_DTYPES)
def test_eager_static_and_to_static_agree(da, db):
    a, b = _inputs(da, db)
    eager = _mixed_ops(paddle.to_tensor(a), paddle.to_tensor(b))
    converted = paddle.jit.to_static(_mixed_ops)(paddle.to_tensor(a), paddle.to_tensor(b))
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            outs = _mixed_ops(static.data('a', [3], da), static.data('b', [3], db))
            built = [o.dtype.name for o in outs]
        ran = static.Executor().run(main, feed={'a': a, 'b': b}, fetch_list=outs)
    finally:
        paddle.disable_static()
    for k, (e, c, bd, r) in enumerate(zip(eager, converted, built, ran)):
        assert e.dtype.name == c.dtype.name == bd == r.dtype.name, (k, e.dtype, c.dtype, bd, r.dtype)
        np.testing.assert_allclose(c.numpy(), e.numpy(), rtol=1e-3, err_msg=str(k))
        np.testing.assert_allclose(r, e.numpy(), rtol=1e-3, err_msg=str(k))


def test_static_numbers_follow_the_same_rule(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        i = static.data('i', [2], 'int64')
        h = static.data('h', [2], 'float16')
        b = static.data('b', [2], 'bool')
        u = static.data('u', [2], 'uint8')
        outs = [i + 1.5, h * 2.5, b + 1, u + 300, i / i, i < 1.5]
    assert [o.dtype.name for o in outs] == ['float32', 'float16', 'int64', 'uint8', 'float32',
                                            'bool']
    r = static.Executor().run(main, feed={'i': np.array([1, 2]), 'h': np.ones(2, np.float16),
                                          'b': np.array([True, False]),
                                          'u': np.array([1, 2], np.uint8)}, fetch_list=outs)
    assert r[3].tolist() == [45, 46] and r[5].tolist() == [True, False]
    assert [v.dtype.name for v in r] == [o.dtype.name for o in outs]


def test_infer_meta_agrees_with_the_kernel_for_mixed_inputs():
    from framework.ops import registry
    cases = [('add', (np.ones(3, np.float32), np.ones(3, np.int64))),
             ('divide', (np.ones(3, np.int32), np.ones((), np.int64))),
             ('where', (np.ones(3, bool), np.ones(3, np.int32), 1.5)),
             ('less_than', (np.ones(3, np.int64), 0.5)),
             ('multiply', (np.ones(3, np.float16), np.ones((), np.float64)))]
    for name, args in cases:
        op = registry.lookup(name)
        out = op(*[paddle.to_tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        meta = op.infer_meta(*[registry.Meta(a.shape, a.dtype) if isinstance(a, np.ndarray)
                               else a for a in args])
        assert meta.dtype == out.dtype and list(meta.shape) == out.shape, name


# ---- gradients come back in each input's dtype ------------------------------------------

def _grad_fn(x, y):
    return (x * y + paddle.where(x > 0, x, y) - y / x).sum()


@pytest.mark.parametrize('dx,dy', [('float32', 'float64'), ('float32', 'int64'),
                                   ('float16', 'float32'), ('float64', 'float32')])
def test_gradients_keep_each_inputs_dtype(dx, dy):
    rng = np.random.default_rng(1)
    xa, ya = rng.uniform(1, 2, 3).astype(dx), (rng.uniform(1, 2, 3) * 3).astype(dy)
    grads = {}
    for mode in ('eager', 'to_static'):
        x = paddle.to_tensor(xa, stop_gradient=False)
        y = paddle.to_tensor(ya, stop_gradient=dy.startswith('int'))
        fn = paddle.jit.to_static(_grad_fn) if mode == 'to_static' else _grad_fn
        fn(x, y).backward()
        assert x.grad.dtype == x.dtype, (mode, x.grad.dtype)
        if not y.stop_gradient:
            assert y.grad.dtype == y.dtype, (mode, y.grad.dtype)
        grads[mode] = x.grad.numpy().astype(np.float64)
    xs, ys = xa.astype(np.float64), ya.astype(np.float64)
    want = ys + (xs > 0) + ys / xs ** 2
    np.testing.assert_allclose(grads['eager'], want, rtol=2e-3)
    np.testing.assert_allclose(grads['to_static'], grads['eager'], rtol=1e-6)


def test_static_gradient_of_a_float32_input_is_float32(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [3], 'float32')
        x.stop_gradient = False
        y = static.data('y', [3], 'float64')
        i = static.data('i', [3], 'int64')
        loss = (x * y + x * i).sum()
        gx, = static.gradients([loss], [x])
    assert loss.dtype == paddle.float64 and gx.dtype == paddle.float32
    r = static.Executor().run(main, feed={'x': np.ones(3, np.float32), 'y': np.full(3, 2.0),
                                          'i': np.array([1, 2, 3])}, fetch_list=[gx])
    assert r[0].dtype == np.float32 and r[0].tolist() == [3.0, 4.0, 5.0]


# ---- control flow with mixed dtypes under @to_static -------------------------------------

def _scaled_loop(x, n):
    i = paddle.to_tensor(1)            # int64 loop counter
    while i < n:
        x = x * i + 0.5                # float32 * int64 stays float32
        i += 1
    return x, i


def _branch(x, k):
    if x.mean() > 0:
        y = x * k                      # float32 * int64 tensor
    else:
        y = x - 1
    return y


def _for_range(x):
    for i in range(3):
        x = x * i + paddle.to_tensor(1)
    return x


@pytest.mark.parametrize('sign', [1.0, -1.0])
def test_cond_and_while_with_mixed_dtype_bodies(sign):
    x0 = np.array([1.0, 2.0], np.float32) * sign
    for fn, extra in [(_scaled_loop, (paddle.to_tensor(4),)), (_branch, (paddle.to_tensor(3),)),
                      (_for_range, ())]:
        results = []
        for f in (fn, paddle.jit.to_static(fn)):
            x = paddle.to_tensor(x0, stop_gradient=False)
            out = f(x, *extra)
            out = out if isinstance(out, tuple) else (out,)
            out[0].sum().backward()
            results.append((out, x.grad))
        (eo, eg), (so, sg) = results
        for e, s in zip(eo, so):
            assert e.dtype == s.dtype and e.dtype in (paddle.float32, paddle.int64), fn.__name__
            np.testing.assert_allclose(s.numpy(), e.numpy(), rtol=1e-6)
        assert eo[0].dtype == paddle.float32 and sg.dtype == paddle.float32
        np.testing.assert_allclose(sg.numpy(), eg.numpy(), rtol=1e-6)


def test_static_while_loop_with_an_int_counter(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [2], 'float32')
        i = paddle.full([], 1, 'int64')
        _, out = static.nn.while_loop(lambda i, x: i < 4, lambda i, x: (i + 1, x * i),
                                      [i, x])
    assert out.dtype == paddle.float32
    r = static.Executor().run(main, feed={'x': np.ones(2, np.float32)}, fetch_list=[out])
    assert r[0].tolist() == [6.0, 6.0]


# ---- matrix products and convolutions refuse mixed dtypes --------------------------------

def _refusals():
    f32 = paddle.ones([2, 2], 'float32')
    return [
        ('matmul', lambda: paddle.matmul(f32, paddle.ones([2, 2], 'float64')), 'float64'),
        ('matmul', lambda: paddle.matmul(f32, paddle.ones([2, 2], 'int64')), 'int64'),
        ('mm', lambda: paddle.mm(f32, paddle.ones([2, 2], 'float64')), 'float64'),
        ('bmm', lambda: paddle.bmm(paddle.ones([1, 2, 2]), paddle.ones([1, 2, 2], 'float64')),
         'float64'),
        ('dot', lambda: paddle.dot(paddle.ones([2]), paddle.ones([2], 'int32')), 'int32'),
        ('linear', lambda: paddle.nn.functional.linear(f32, paddle.ones([2, 3], 'float64')),
         'float64'),
        ('linear', lambda: paddle.nn.functional.linear(f32, paddle.ones([2, 3]),
                                                       paddle.ones([3], 'float64')), 'float64'),
        ('conv', lambda: paddle.nn.functional.conv2d(paddle.ones([1, 1, 3, 3]),
                                                     paddle.ones([1, 1, 2, 2], 'float64')),
         'float64'),
        ('conv', lambda: paddle.nn.functional.conv1d(paddle.ones([1, 1, 3], 'float64'),
                                                     paddle.ones([1, 1, 2])), 'float64'),
        ('conv_transpose', lambda: paddle.nn.functional.conv2d_transpose(
            paddle.ones([1, 1, 3, 3]), paddle.ones([1, 1, 2, 2], 'float64')), 'float64'),
    ]


def test_matrix_products_and_convs_refuse_mixed_dtypes_eagerly():
    for name, fn, other in _refusals():
        with pytest.raises(ValueError) as info:
            fn()
        msg = str(info.value)
        assert msg.startswith(name) and 'float32' in msg and other in msg, msg


def test_matrix_products_and_convs_refuse_mixed_dtypes_in_static_mode(static_mode):
    for name, fn, other in _refusals():
        with static.program_guard(static.Program(), static.Program()):
            with pytest.raises(ValueError) as info:
                fn()
        msg = str(info.value)
        assert msg.startswith(name) and 'float32' in msg and other in msg, msg


def test_matrix_products_refuse_mixed_dtypes_under_to_static():
    @paddle.jit.to_static
    def f(x, y):
        return paddle.matmul(x, y)
    with pytest.raises(ValueError, match='matmul.*float32.*float64'):
        f(paddle.ones([2, 2]), paddle.ones([2, 2], 'float64'))


def test_matching_dtypes_still_multiply():
    for d in ('float32', 'float64', 'int64'):
        out = paddle.matmul(paddle.ones([2, 3], d), paddle.ones([3, 2], d))
        assert out.dtype.name == d and out.numpy().tolist() == [[3, 3], [3, 3]]


# ---- paddle.shape is int64 (as in Paddle 3) ----------------------------------------------

def test_shape_is_int64_in_every_mode():
    x = paddle.ones([2, 5])
    assert paddle.shape(x).dtype == paddle.int64 and paddle.shape(x).numpy().tolist() == [2, 5]

    @paddle.jit.to_static
    def f(x):
        s = paddle.shape(x)
        return s, paddle.ones([3]) * s[1], paddle.reshape(x, [s[0] * s[1]])
    s, scaled, flat = f(x)
    assert s.dtype == paddle.int64 and scaled.dtype == paddle.float32
    assert scaled.numpy().tolist() == [5, 5, 5] and flat.shape == [10]
    paddle.enable_static()
    try:
        with static.program_guard(static.Program(), static.Program()):
            v = paddle.shape(static.data('x', [None, 5], 'float32'))
            assert v.dtype == paddle.int64
    finally:
        paddle.disable_static()
