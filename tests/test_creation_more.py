"""Paddle 3's creation API: keyword-only out=/device=/requires_grad=/pin_memory=,
as_tensor/asarray/from_numpy, logspace, range, *_like draws, Tensor.new_*,
typed constructors, dtypes and finfo/iinfo, generators, in-place random fills."""
import inspect
import math

import numpy as np
import pytest

import framework as paddle
from api_check import check_api

T = paddle.to_tensor


# ---- keyword-only creation arguments -----------------------------------------------

@pytest.mark.parametrize('make', [
    lambda **k: paddle.zeros([2, 3], **k), lambda **k: paddle.ones([2, 3], **k),
    lambda **k: paddle.empty([2, 3], **k), lambda **k: paddle.full([2, 3], 1.5, **k),
    lambda **k: paddle.eye(2, 3, **k), lambda **k: paddle.rand([2, 3], **k),
    lambda **k: paddle.randn([2, 3], **k), lambda **k: paddle.arange(6, **k),
    lambda **k: paddle.randperm(6, **k),
])
def test_device_requires_grad_pin_memory_and_out(make):
    assert make(device='cpu').place == paddle.CPUPlace()
    assert make(device=paddle.CPUPlace()).stop_gradient
    assert make(requires_grad=True).stop_gradient is False
    with pytest.raises(ValueError, match="should not be 'gpu:0'"):
        make(device='gpu:0')
    with pytest.raises(ValueError, match="should not be 'gpu'"):
        make(device='cuda')
    with pytest.raises(RuntimeError, match='pinning memory is not supported'):
        make(pin_memory=True)
    out = paddle.zeros([1], 'int8')
    result = make(out=out)
    assert result is out
    ref = make()
    assert out.shape == ref.shape and out.dtype == ref.dtype


def test_like_functions_take_device_and_requires_grad():
    x = paddle.ones([2], 'int32')
    for f in (paddle.zeros_like, paddle.ones_like, paddle.empty_like):
        assert f(x, device='cpu').dtype == paddle.int32
        assert f(x, 'float64', requires_grad=True).stop_gradient is False
    assert paddle.full_like(x, 2.5).numpy().tolist() == [2, 2]
    with pytest.raises(RuntimeError, match='pinning'):
        paddle.zeros_like(x, pin_memory=True)


def test_out_takes_the_result_and_its_graph():
    a = T([1.0, 2.0], stop_gradient=False)
    out = paddle.zeros([1])
    r = paddle.concat([a, a], out=out)
    assert r is out and out.shape == [4] and out.stop_gradient is False
    (out * out).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [4.0, 8.0])
    out = paddle.zeros([1])
    y = paddle.tril(T([[1.0, 2.0], [3.0, 4.0]]), out=out)
    assert y is out and out.numpy().tolist() == [[1, 0], [3, 4]]
    o = paddle.zeros([1])
    paddle.linspace(0, 1, 3, out=o)
    assert o.numpy().tolist() == [0.0, 0.5, 1.0]


def test_full_dtype_defaults_follow_paddle_3():
    assert paddle.full([2], 7).dtype == paddle.float32
    assert paddle.full([2], True).dtype == paddle.bool
    assert paddle.full([2], 3, dtype='int32').dtype == paddle.int32
    assert paddle.full([2], 1 + 2j).dtype == paddle.complex128      # as Paddle 3.3.1


def test_python_complex_data_follows_the_default_float():
    assert paddle.to_tensor(1 + 2j).dtype == paddle.complex64
    assert paddle.to_tensor([1j, 2]).dtype == paddle.complex64
    assert paddle.to_tensor(np.array([1j])).dtype == paddle.complex128   # numpy keeps its dtype
    paddle.set_default_dtype('float64')
    try:
        assert paddle.to_tensor([1j]).dtype == paddle.complex128
    finally:
        paddle.set_default_dtype('float32')


def test_uniform_defaults_to_zero_one():
    paddle.seed(1)
    u = paddle.uniform([2000])
    assert u.numpy().min() >= 0 and u.numpy().max() < 1
    x = paddle.zeros([2000])
    x.uniform_()
    assert x.numpy().min() >= 0
    assert inspect.signature(paddle.uniform).parameters['min'].default == 0


def test_signatures_have_paddle_keyword_only_arguments():
    for f in (paddle.zeros, paddle.ones, paddle.full, paddle.empty, paddle.arange, paddle.eye,
              paddle.rand, paddle.randn, paddle.randperm):
        params = inspect.signature(f).parameters
        for name in ('out', 'device', 'requires_grad', 'pin_memory'):
            assert params[name].kind is inspect.Parameter.KEYWORD_ONLY, (f.__name__, name)
    assert list(inspect.signature(paddle.randint).parameters)[:3] == ['low', 'high', 'shape']


# ---- as_tensor / asarray / from_numpy ------------------------------------------------

def test_as_tensor_asarray_from_numpy_copy():
    a = np.array([1.0, 2.0])
    for t in (paddle.from_numpy(a), paddle.as_tensor(a), paddle.asarray(a),
              paddle.asarray(a, copy=False)):
        assert t.dtype == paddle.float64
        a[0] = 9.0
        assert t.numpy()[0] == 1.0          # copies: later writes to the array do not show
        a[0] = 1.0
    assert paddle.as_tensor([1.0, 2.0]).dtype == paddle.float32
    assert paddle.asarray([1, 2]).dtype == paddle.int64
    assert paddle.as_tensor([1, 2], 'float64').dtype == paddle.float64
    assert paddle.asarray([1.0], requires_grad=True).stop_gradient is False
    t = T([1.0, 2.0], stop_gradient=False)
    c = paddle.asarray(t)
    assert c is not t and c.stop_gradient and paddle.asarray(t, dtype='int32').dtype == paddle.int32
    with pytest.raises(TypeError, match='numpy.ndarray'):
        paddle.from_numpy([1, 2])


# ---- logspace / range / rand_like / randn_like ------------------------------------------

def test_logspace():
    np.testing.assert_allclose(paddle.logspace(0, 2, 3).numpy(), [1, 10, 100])
    np.testing.assert_allclose(paddle.logspace(1, 0, 3).numpy(), np.logspace(1, 0, 3), rtol=1e-6)
    np.testing.assert_allclose(paddle.logspace(0, 3, 4, base=2).numpy(), [1, 2, 4, 8])
    assert paddle.logspace(0, 2, 3, dtype='int64').numpy().tolist() == [1, 10, 100]
    assert paddle.logspace(0.5, 2.5, 3, base=3.0, dtype='int64').numpy().tolist() == [1, 3, 9]
    assert paddle.logspace(0, 1, 4, dtype='float64').dtype == paddle.float64


def test_range_includes_the_end():
    assert paddle.range(3).numpy().tolist() == [0, 1, 2, 3]
    assert paddle.range(3, 0, -1).numpy().tolist() == [3, 2, 1, 0]
    assert paddle.range(0, 10, 3, dtype='int64').numpy().tolist() == [0, 3, 6, 9]
    np.testing.assert_allclose(paddle.range(0, 1, 0.3).numpy(), [0, 0.3, 0.6, 0.9], rtol=1e-6)
    assert paddle.range(0, 1, 0.5).numpy().tolist() == [0, 0.5, 1.0]
    assert paddle.range(1, 0).shape == [0]
    assert paddle.range(2).dtype == paddle.float32


def test_rand_like_and_randn_like():
    x = paddle.ones([3, 4], 'float64')
    paddle.seed(3)
    u = paddle.rand_like(x)
    assert u.shape == [3, 4] and u.dtype == paddle.float64
    assert 0 <= u.numpy().min() and u.numpy().max() < 1
    assert paddle.randn_like(paddle.ones([2], 'int64'), dtype='float32').dtype == paddle.float32
    assert paddle.rand_like(x, requires_grad=True).stop_gradient is False
    with pytest.raises(ValueError, match='float dtype'):
        paddle.rand_like(paddle.ones([2], 'int64'))


# ---- Tensor.new_* / typed constructors --------------------------------------------------

def test_new_tensor_methods():
    x = T([[1.0, 2.0]])
    assert x.new_zeros([2, 3]).dtype == paddle.float32 and x.new_zeros(2, 3).shape == [2, 3]
    assert x.new_ones((1,)).numpy().tolist() == [1.0]
    assert x.new_full([2], 3).numpy().tolist() == [3.0, 3.0]
    assert x.new_empty([4]).shape == [4]
    assert paddle.ones([1], 'int32').new_ones([2], dtype='float64').dtype == paddle.float64
    assert x.new_full([2], 3, requires_grad=True).stop_gradient is False
    with pytest.raises(ValueError):
        x.new_zeros([2], device='gpu')


@pytest.mark.parametrize('name,dtype', [
    ('FloatTensor', 'float32'), ('DoubleTensor', 'float64'), ('HalfTensor', 'float16'),
    ('ByteTensor', 'uint8'), ('CharTensor', 'int8'), ('ShortTensor', 'int16'),
    ('IntTensor', 'int32'), ('LongTensor', 'int64'), ('BoolTensor', 'bool')])
def test_typed_constructors(name, dtype):
    C = getattr(paddle, name)
    a = C([1, 2])
    assert isinstance(a, paddle.Tensor) and a.dtype == np.dtype(dtype) and a.shape == [2]
    assert C(2, 3).shape == [2, 3] and C(2, 3).dtype == np.dtype(dtype)
    assert C().shape == [0]
    assert C(np.array([[1, 0]])).dtype == np.dtype(dtype)
    assert not isinstance(paddle.ones([1]), C)
    assert paddle.LongTensor([1.7, 2.2]).numpy().tolist() == [1, 2]
    assert paddle.FloatTensor((2, 3)).numpy().tolist() == [2.0, 3.0]   # a tuple is data


# ---- dtypes, finfo / iinfo, constants ------------------------------------------------------

def test_dtype_names_and_constants():
    assert paddle.float == paddle.float32 and paddle.double == paddle.float64
    assert paddle.half == paddle.float16 and paddle.cfloat == paddle.complex64
    assert paddle.cdouble == paddle.complex128
    assert (paddle.ones([2], paddle.uint32) + 1).dtype == paddle.uint32
    assert paddle.zeros([1], 'uint64').dtype == paddle.uint64
    assert paddle.pi == math.pi and paddle.e == math.e
    assert paddle.inf == math.inf and math.isnan(paddle.nan)
    try:                # bfloat16 comes from the optional ml_dtypes package (dtype.py)
        import ml_dtypes
    except ImportError:
        with pytest.raises(ImportError, match='ml_dtypes'):
            paddle.bfloat16
    else:
        assert paddle.bfloat16 == np.dtype(ml_dtypes.bfloat16)


def test_finfo_of_bfloat16_matches_paddle():
    pytest.importorskip('ml_dtypes', reason='bfloat16 needs ml_dtypes')
    assert repr(paddle.finfo(paddle.bfloat16)) == (
        'paddle.finfo(min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, resolution=0.01, '
        'smallest_normal=1.17549e-38, tiny=1.17549e-38, bits=16, dtype=bfloat16)')


def test_finfo_iinfo_match_paddle():
    f = paddle.finfo(paddle.float32)
    assert (f.bits, f.eps, f.resolution, f.dtype) == (32, np.finfo(np.float32).eps, 1e-06,
                                                      'float32')
    assert f.max == float(np.finfo(np.float32).max) and f.min == -f.max
    assert f.tiny == f.smallest_normal == float(np.finfo(np.float32).tiny)
    assert paddle.finfo(paddle.float16).resolution == 0.001
    assert paddle.finfo(paddle.complex128).dtype == 'float64'
    assert repr(f) == ('paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, '
                       'resolution=1e-06, smallest_normal=1.17549e-38, tiny=1.17549e-38, '
                       'bits=32, dtype=float32)')
    i = paddle.iinfo('int64')
    assert (i.bits, i.max, i.min, i.dtype) == (64, 2 ** 63 - 1, -2 ** 63, 'int64')
    assert repr(paddle.iinfo(paddle.uint8)) == 'paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)'
    with pytest.raises(ValueError, match='integer dtype'):
        paddle.iinfo(paddle.float32)
    with pytest.raises(ValueError):
        paddle.iinfo(paddle.bool)
    with pytest.raises(ValueError, match='floating point'):
        paddle.finfo('int32')


# ---- generators and RNG state --------------------------------------------------------------

def test_seed_returns_the_default_generator_and_state_round_trips():
    g = paddle.seed(11)
    assert isinstance(g, paddle.Generator) and g.initial_seed() == 11
    assert paddle.manual_seed(12).initial_seed() == 12
    state = paddle.get_rng_state()
    a = paddle.rand([3]).numpy()
    paddle.set_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), a)
    paddle.set_rng_state(paddle.get_rng_state('cpu'), device='cpu')
    with pytest.raises(ValueError, match='CPU'):
        paddle.get_rng_state('gpu')
    assert paddle.get_cuda_rng_state() == []
    paddle.set_cuda_rng_state([])
    with pytest.raises(ValueError):
        paddle.set_cuda_rng_state(state)


def test_generator_object():
    g = paddle.Generator()
    assert g.manual_seed(5) is g and g.initial_seed() == 5
    s = g.get_state()
    assert s.current_seed() == 5
    r = g.random()
    g.set_state(s)
    assert g.random() == r and 0 <= r < 2 ** 64
    new = g.seed()
    assert g.initial_seed() == new
    h = paddle.Generator().manual_seed(5)
    assert h.random() == r
    ds = list(range(10))
    parts = paddle.io.random_split(ds, [5, 5], generator=paddle.Generator().manual_seed(1))
    again = paddle.io.random_split(ds, [5, 5], generator=paddle.Generator().manual_seed(1))
    assert list(parts[0].indices) == list(again[0].indices)


def test_bernoulli_with_p():
    paddle.seed(2)
    x = paddle.zeros([1000])
    ones = paddle.bernoulli(x, p=1.0)
    assert ones.numpy().tolist() == [1.0] * 1000
    half = paddle.bernoulli(x, p=0.5).numpy().mean()
    assert 0.4 < half < 0.6


# ---- in-place random fills and log_normal -------------------------------------------------

def test_in_place_random_fills_have_the_right_distributions():
    paddle.seed(5)
    n = 20000
    x = paddle.zeros([n])
    assert x.exponential_(2.0) is x and x.inplace_version == 1
    assert abs(x.numpy().mean() - 0.5) < 0.02 and x.numpy().min() >= 0
    b = paddle.zeros([n]).bernoulli_(0.2).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.2) < 0.02
    probs = paddle.to_tensor(np.where(np.arange(n) % 2 == 0, 1.0, 0.0).astype('float32'))
    assert (paddle.zeros([n]).bernoulli_(probs).numpy() == probs.numpy()).all()
    c = paddle.zeros([n]).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.1 and abs(np.median(np.abs(c - 1.0)) - 2.0) < 0.15
    g = paddle.zeros([n]).geometric_(0.25).numpy()          # Paddle's continuous form
    assert g.min() >= 0 and abs(g.mean() - 1 / -np.log(0.75)) < 0.1
    ln = paddle.zeros([n], 'float64').log_normal_(0.0, 0.5).numpy()
    assert abs(np.log(ln).mean()) < 0.02 and abs(np.log(ln).std() - 0.5) < 0.02
    r = paddle.zeros([n], 'int64').random_(0, 5).numpy()
    assert r.dtype == np.int64 and set(np.unique(r)) == {0, 1, 2, 3, 4}
    assert paddle.zeros([n], 'int32').random_(3).numpy().max() == 2
    f = paddle.zeros([n]).random_().numpy()
    assert f.min() >= 0 and f.max() < 2 ** 24 and (f == np.round(f)).all()
    with pytest.raises(ValueError, match="'from' must be less than 'to'"):
        paddle.zeros([2]).random_(3, 1)
    with pytest.raises(ValueError, match='float dtype'):
        paddle.zeros([2], 'int64').exponential_()


def test_random_fills_repeat_with_the_seed_and_refuse_leaves_requiring_grad():
    paddle.seed(9)
    a = paddle.zeros([4]).exponential_().numpy()
    paddle.seed(9)
    np.testing.assert_array_equal(paddle.zeros([4]).exponential_().numpy(), a)
    w = paddle.zeros([3])
    w.stop_gradient = False
    with pytest.raises(RuntimeError, match='leaf tensor'):
        w.exponential_()
    with paddle.no_grad():
        w.exponential_()


def test_log_normal():
    paddle.seed(4)
    x = paddle.log_normal(1.0, 0.5, [20000])
    assert x.dtype == paddle.float32
    assert abs(np.log(x.numpy()).mean() - 1.0) < 0.02
    assert paddle.log_normal(shape=[3]).shape == [3]


def test_mmap_storage_reads_slices_of_a_file(tmp_path):
    a = np.arange(20, dtype=np.float32)
    path = str(tmp_path / 'w.pp')
    a.tofile(path)
    store = paddle.MmapStorage(path, a.nbytes)
    whole = store.get_slice(dtype=paddle.float32, start=0, stop=a.size).reshape([4, 5])
    np.testing.assert_array_equal(whole.numpy(), a.reshape(4, 5))
    np.testing.assert_array_equal(store.get_slice('float32', 2, 8, 2).numpy(), a[2:8:2])
    np.testing.assert_array_equal(store.get_slice('float32', 15).numpy(), a[15:])
    assert store.get_slice().dtype == paddle.uint8 and store.get_slice().shape == [80]
    whole[0, 0] = 100.0                       # the values are copied out of the file
    assert np.fromfile(path, np.float32)[0] == 0.0
    with pytest.raises(ValueError, match='nbytes'):
        paddle.MmapStorage(path, 81)
    with pytest.raises(FileNotFoundError):
        paddle.MmapStorage(str(tmp_path / 'none'), 4)
    with pytest.raises(ValueError, match='whole number'):
        paddle.MmapStorage(path, 6).get_slice('float32')


def test_batch_reader():
    def reader():
        yield from range(5)
    assert list(paddle.batch(reader, 2)()) == [[0, 1], [2, 3], [4]]
    assert list(paddle.batch(reader, 2, drop_last=True)()) == [[0, 1], [2, 3]]
    assert list(paddle.batch(reader, 5)()) == [[0, 1, 2, 3, 4]]
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match='batch_size'):
            paddle.batch(reader, bad)
    paddle.disable_signal_handler()           # nothing to reset: no handlers installed
    paddle.framework.disable_signal_handler()
