"""Paddle 3's Tensor conversion and query methods, ``paddle.Size`` and
printing (``set_printoptions``), as users call them."""
import numpy as np
import pytest

import framework as paddle

T = paddle.to_tensor


@pytest.fixture
def restore_printoptions():
    yield
    paddle.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False,
                            linewidth=80)


# ---- dtype conversions ---------------------------------------------------------------

@pytest.mark.parametrize('method,dtype', [
    ('float', 'float32'), ('double', 'float64'), ('half', 'float16'), ('int', 'int32'),
    ('long', 'int64'), ('bool', 'bool'), ('byte', 'uint8'), ('char', 'int8'),
    ('short', 'int16'), ('cfloat', 'complex64'), ('cdouble', 'complex128'),
    ('float16', 'float16'), ('float32', 'float32'), ('float64', 'float64'), ('int8', 'int8'),
    ('int16', 'int16'), ('int32', 'int32'), ('int64', 'int64'), ('uint8', 'uint8'),
    ('complex64', 'complex64'), ('complex128', 'complex128')])
def test_conversion_methods(method, dtype):
    x = T([[1.5, -2.0], [0.0, 3.0]])
    y = getattr(x, method)()
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y.numpy(), x.numpy().astype(dtype))


def test_conversions_are_differentiable_and_work_in_to_static():
    x = T([1.0, 2.0], stop_gradient=False)
    (x.double() * 3).sum().backward()
    assert x.grad.dtype == paddle.float32 and x.grad.numpy().tolist() == [3.0, 3.0]

    @paddle.jit.to_static
    def f(t):
        return t.long() + t.int().astype('int64'), t.type_as(paddle.ones([1], 'float64'))
    a, b = f(T([1.7, -2.2]))
    assert a.dtype == paddle.int64 and a.numpy().tolist() == [2, -4]
    assert b.dtype == paddle.float64


def test_type_as_and_predicates():
    x = T([1.0])
    assert x.type_as(paddle.ones([1], 'int32')).dtype == paddle.int32
    assert paddle.is_tensor(x) and not paddle.is_tensor(np.ones(1)) and x.is_tensor()
    assert x.is_floating_point() and not x.is_complex() and not x.is_integer()
    assert paddle.is_integer(x.long()) and not paddle.is_integer(x.bool())
    assert paddle.is_complex(x.cfloat()) and paddle.is_floating_point(x)
    with pytest.raises(TypeError, match='must be a tensor'):
        paddle.is_floating_point(1.0)
    e = paddle.is_empty(paddle.zeros([0, 3]))
    assert e.dtype == paddle.bool and e.shape == [] and bool(e)
    assert not bool(paddle.is_empty(x))


def test_numel_is_a_tensor_and_size_an_int():
    x = paddle.zeros([2, 3])
    n = x.numel()
    assert isinstance(n, paddle.Tensor) and n.dtype == paddle.int64 and int(n) == 6
    assert x.size == 6 and isinstance(x.size, int)
    assert paddle.numel(x).numpy().tolist() == 6


# ---- storage facts -------------------------------------------------------------------

def test_strides_offset_contiguity_and_sizes():
    x = T(np.arange(6.0).reshape(2, 3))
    assert x.strides == [3, 1] and x.stride() == [3, 1] and x.stride(0) == 3
    assert x.get_strides() == [3, 1] and x.offset == 0 and x.is_contiguous()
    t = x.t()
    assert t.strides == [1, 3] and not t.is_contiguous()
    c = t.contiguous()
    assert c.is_contiguous() and c.strides == [2, 1]
    np.testing.assert_array_equal(c.numpy(), x.numpy().T)
    assert x.contiguous() is x
    assert x[:, 1:].offset == 8 and x[1:].offset == 24
    assert x.element_size() == 8 and x.itemsize == 8 and T([1], 'int8').element_size() == 1
    assert isinstance(x.data_ptr(), int) and x.data_ptr() != 0
    with pytest.raises(IndexError):
        x.stride(2)


def test_contiguous_is_differentiable():
    x = T(np.arange(6.0).reshape(2, 3), stop_gradient=False)
    (x.t().contiguous() * 2).sum().backward()
    assert x.grad.numpy().tolist() == [[2.0] * 3] * 2


# ---- devices: the CPU build's answers ---------------------------------------------------

def test_device_methods():
    x = T([1.0, 2.0])
    assert x.cpu() is x and x.get_device() == -1 and x.device == 'cpu' and not x.is_cuda
    with pytest.raises(ValueError, match='no CUDA device'):
        x.cuda()
    with pytest.raises(RuntimeError, match='pinned'):
        x.pin_memory()
    assert x.is_dense() and not x.is_dist() and not x.is_sparse()
    assert not x.is_sparse_coo() and not x.is_sparse_csr()
    assert x.is_same_shape(paddle.ones([2])) and not x.is_same_shape(paddle.ones([1]))
    assert x.value() is x and x.type == 'DENSE_TENSOR' and x.layout == 'NCHW'


def test_to():
    x = T([1.5, 2.0])
    assert x.to('cpu') is x and x.to(paddle.CPUPlace()) is x
    assert x.to('float64').dtype == paddle.float64
    assert x.to(paddle.float16).dtype == paddle.float16
    assert x.to('cpu', 'int32').dtype == paddle.int32
    assert x.to(paddle.ones([1], 'int64')).dtype == paddle.int64
    assert x.to(dtype='float64', blocking=True).dtype == paddle.float64
    c = x.to('cpu', copy=True)
    assert c is not x and c.numpy().tolist() == [1.5, 2.0]
    with pytest.raises(ValueError, match="should not be 'gpu'"):
        x.to('gpu')


# ---- autograd flags, apply ------------------------------------------------------------

def test_requires_grad_property_and_method():
    x = T([1.0])
    assert x.requires_grad is False
    x.requires_grad = True
    assert x.stop_gradient is False and x.requires_grad
    assert x.requires_grad_(False) is x and x.stop_gradient
    x.requires_grad_()
    (x * 3).sum().backward()
    assert x.grad.numpy().tolist() == [3.0]
    y = x * 2
    assert y.retain_grads() is None
    (y * y).sum().backward()
    assert y.grad is not None


def test_apply_and_apply_():
    x = T([1.0, 2.0])
    assert x.apply(lambda t: t * 2).numpy().tolist() == [2.0, 4.0]
    assert x.apply_(lambda t: t + 1) is x and x.numpy().tolist() == [2.0, 3.0]
    assert x.inplace_version == 1
    with pytest.raises(RuntimeError, match='requires grad'):
        T([1.0], stop_gradient=False).apply(lambda t: t)


# ---- Size -----------------------------------------------------------------------------

def test_size_is_a_list_with_numel():
    x = paddle.zeros([2, 3, 4])
    s = x.shape
    assert isinstance(s, paddle.Size) and isinstance(s, list)
    assert s == [2, 3, 4] and s[0] == 2 and s.numel() == 24
    assert isinstance(s[1:], paddle.Size) and s[1:] == [3, 4]
    assert isinstance(s + [5], paddle.Size) and s + (5,) == [2, 3, 4, 5]
    assert repr(s) == 'paddle.Size([2, 3, 4])' and str(paddle.Size()) == 'paddle.Size([])'
    assert s == (2, 3, 4) and (2, 3, 4) == s and s != (2, 3) and not (s != [2, 3, 4])
    assert isinstance([1] + s, paddle.Size) and [1] + s == [1, 2, 3, 4]
    assert paddle.Size([2, 3]).numel() == 6 and paddle.Size((1, 2)) == [1, 2]
    assert paddle.zeros([]).shape.numel() == 1
    import json
    assert json.loads(json.dumps(s)) == [2, 3, 4]


def test_variable_shape_is_a_size():
    paddle.enable_static()
    try:
        x = paddle.static.data('x', [None, 3])
        assert isinstance(x.shape, paddle.Size) and x.shape == [-1, 3]
    finally:
        paddle.disable_static()


# ---- printing -------------------------------------------------------------------------
# the expected texts were produced by Paddle 3.3.1

_X = np.arange(12, dtype='float32').reshape(3, 4) / 7


def test_default_printing_matches_paddle():
    assert str(T(_X)) == (
        'Tensor(shape=[3, 4], dtype=float32, place=Place(cpu), stop_gradient=True,\n'
        '       [[0.        , 0.14285715, 0.28571430, 0.42857143],\n'
        '        [0.57142860, 0.71428573, 0.85714287, 1.        ],\n'
        '        [1.14285719, 1.28571427, 1.42857146, 1.57142854]])')
    assert repr(T([1, -2])) == ('Tensor(shape=[2], dtype=int64, place=Place(cpu), '
                                'stop_gradient=True,\n       [ 1, -2])')
    assert repr(T(3.0)).endswith('\n       3.)')
    assert repr(T([[np.nan, np.inf], [-np.inf, -1.5]])).endswith(
        '[[ nan       ,  inf.      ],\n        [-inf.      , -1.50000000]])')
    z = T(np.array([1 + 3j, -2 - 4j], np.complex64))
    assert repr(z).endswith('[ (1.00000000+3.00000000j), (-2.00000000-4.00000000j)])')
    assert repr(T(np.zeros((0, 2)))).endswith('\n       [])')


def test_set_printoptions_precision_threshold_sci_linewidth(restore_printoptions):
    paddle.set_printoptions(precision=2)
    assert str(T(_X)).split('\n', 1)[1] == ('       [[0.  , 0.14, 0.29, 0.43],\n'
                                            '        [0.57, 0.71, 0.86, 1.  ],\n'
                                            '        [1.14, 1.29, 1.43, 1.57]])')
    paddle.set_printoptions(threshold=5, edgeitems=1)
    assert str(T(_X)).split('\n', 1)[1] == ('       [[0.  , ..., 0.43],\n'
                                            '        ...,\n'
                                            '        [1.14, ..., 1.57]])')
    paddle.set_printoptions(sci_mode=True)
    assert '[[0.00e+00, ..., 4.29e-01],' in str(T(_X))
    paddle.set_printoptions(linewidth=20, sci_mode=False, threshold=1000)
    assert str(T(_X)).split('\n', 1)[1].startswith('       [[0.  , 0.14,\n         0.29, 0.43],')
    with pytest.raises(TypeError, match='precision must be an int'):
        paddle.set_printoptions(precision=2.5)
    with pytest.raises(TypeError, match='sci_mode must be a bool'):
        paddle.set_printoptions(sci_mode=1)


def test_large_tensor_is_summarised():
    text = str(T(np.arange(3000.0).reshape(10, 300) - 5))
    assert text.split('\n')[1] == '       [[-5.  , -4.  , -3.  , ...,  292.,  293.,  294.],'
    assert '        ...,' in text


def test_printing_inside_to_static_uses_the_options(capsys, restore_printoptions):
    paddle.set_printoptions(precision=3)

    @paddle.jit.to_static
    def f(x):
        print(x)
        return x

    f(T([1.0 / 3]))
    assert '[0.333]' in capsys.readouterr().out


# ---- storage-like in-place methods, attached functions ---------------------------------

def test_resize_keeps_leading_elements():
    x = T(np.arange(6.0).reshape(2, 3))
    assert x.resize_([2, 2]) is x and x.numpy().tolist() == [[0, 1], [2, 3]]
    y = paddle.ones([2])
    assert y.resize_([3], fill_zero=True).numpy().tolist() == [1, 1, 0]
    w = paddle.ones([2])
    w.stop_gradient = False
    with pytest.raises(RuntimeError, match='resize_'):
        w.resize_([3])


def test_set_takes_values_of_a_strided_view_without_sharing():
    s = paddle.arange(6.0)
    y = paddle.zeros([2])
    assert y.set_(s, [2, 2], [1, 2], 8) is y
    assert y.numpy().tolist() == [[2.0, 4.0], [3.0, 5.0]] and y.shape == [2, 2]
    assert paddle.zeros([2]).set_().shape == [0]
    z = paddle.zeros([1]).set_(s)
    assert z.numpy().tolist() == s.numpy().tolist()
    s[0] = 100.0
    assert z.numpy()[0] == 0.0            # a copy, not shared storage


def test_functions_attached_as_methods():
    x = paddle.ones([2, 3])
    assert x.slice([1], [1], [3]).shape == [2, 2]
    assert x.strided_slice([1], [0], [3], [2]).shape == [2, 2]
    assert paddle.ones([2]).multinomial(1).shape == [1]
    assert hasattr(x, 'broadcast_tensors') and hasattr(x, 'stack')   # Paddle attaches them too
    assert T([[0], [1]]).scatter_nd(T([1.0, 2.0]), [2]).numpy().tolist() == [1.0, 2.0]
    g = T([1.0], stop_gradient=False)
    (g * 2).sum().backward()
    g.clear_gradient()
    assert g.grad.numpy().tolist() == [0.0]


def test_grad_accepts_dump_backward_graph_path():
    x = T([2.0], stop_gradient=False)
    (g,) = paddle.grad([x * x], [x], dump_backward_graph_path=None)
    assert g.numpy().tolist() == [4.0]


def test_dlpack_round_trip_shares_memory():
    x = T([[1.0, 2.0], [3.0, 4.0]])
    capsule = paddle.to_dlpack(x)
    assert type(capsule).__name__ == 'PyCapsule' and 'dltensor' in repr(capsule)
    y = paddle.from_dlpack(capsule)
    assert 'used_dltensor' in repr(capsule)            # read once, as DLPack says
    assert y.dtype == paddle.float32 and np.shares_memory(y.data, x.data)
    src = np.arange(3.0)
    z = paddle.from_dlpack(src)
    src[0] = 7.0
    assert z.dtype == paddle.float64 and z.numpy()[0] == 7.0
    assert not np.shares_memory(paddle.from_dlpack(src, copy=True).data, src)
    np.testing.assert_array_equal(np.from_dlpack(x), x.numpy())
    with pytest.raises(TypeError, match='DLPack capsule or an object with __dlpack__'):
        paddle.from_dlpack([1, 2])


def test_check_shape_checks_only_while_a_program_is_built():
    assert paddle.check_shape([2, 'a'], 'op') is None           # eager: no check (as Paddle)
    paddle.enable_static()
    try:
        paddle.check_shape([2, 3], 'op')
        paddle.check_shape(paddle.static.data('s', [2], 'int64'), 'op')
        with pytest.raises(TypeError, match='elements of shape'):
            paddle.check_shape([2, 'a'], 'op')
        with pytest.raises(TypeError, match='must be one of'):
            paddle.check_shape(3, 'op')
        with pytest.raises(TypeError, match='dtype int32 or int64'):
            paddle.check_shape(paddle.static.data('f', [2], 'float32'), 'op')
    finally:
        paddle.disable_static()


def test_get_tensor_is_a_handle_on_the_values():
    t = paddle.to_tensor([1.0, 2.0])
    h = t.get_tensor()
    assert h.shape() == [2] and h._dtype() == np.float32 and h._is_initialized()
    np.testing.assert_array_equal(np.array(h), [1.0, 2.0])
    h.set(np.array([[5, 6, 7]], np.float32), paddle.CPUPlace())   # writes through
    assert t.shape == [1, 3] and t.numpy().tolist() == [[5, 6, 7]]
    alone = paddle.base.core.DenseTensor()
    assert not alone._is_initialized()
    alone.set(np.arange(3))
    assert alone.shape() == [3] and alone.lod() == []
    with pytest.raises(RuntimeError, match='no values'):
        paddle.base.core.DenseTensor().shape()


def test_scope_variables_give_the_same_handle():
    scope = paddle.static.Scope()
    scope.var('w')
    scope.find_var('w').get_tensor().set(np.ones((2, 2), np.float32), paddle.CPUPlace())
    np.testing.assert_array_equal(np.array(scope.find_var('w').get_tensor()), np.ones((2, 2)))


def test_reconstruct_from_and_grad_alias():
    a, b = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([[3, 4, 5]])
    assert a.reconstruct_from_(b) is None
    assert a.dtype == paddle.int64 and a.numpy().tolist() == [[3, 4, 5]]
    b[0, 0] = 9                                   # a deep copy: b's later writes stay in b
    assert int(a[0, 0]) == 3
    with pytest.raises(TypeError, match='reconstruct_from_'):
        a.reconstruct_from_([1])
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * x).sum().backward()
    assert x.grad_ is x.grad
    np.testing.assert_array_equal(x.grad_.numpy(), [2.0, 4.0])
    x.grad_ = paddle.to_tensor([9.0, 9.0])
    assert x.grad.numpy().tolist() == [9.0, 9.0]


def test_local_tensors_have_no_shard_facts():
    t = paddle.ones([2])
    assert t.num_shard is None and t.placements is None and t.process_mesh is None
    assert paddle.ones([2, 3, 4]).dense_dim() == 3 and t.sparse_dim() == 0
    assert paddle.to_tensor(1.0).dense_dim() == 0
    p = paddle.Tensor.create_parameter([2, 3], "float32")
    assert isinstance(p, paddle.Tensor) and p.shape == [2, 3] and not p.stop_gradient
