"""paddle.device answers as Paddle's CPU build: the CPU is the only device."""
import numpy as np
import pytest

import framework as paddle


def test_current_device_is_cpu():
    assert paddle.device.get_device() == 'cpu'
    assert paddle.get_device() == 'cpu'
    assert paddle.device.get_device(paddle.ones([2])) == -1
    assert paddle.device.current_device() == 0


@pytest.mark.parametrize('spelling', ['cpu', 'CPU', 0, paddle.CPUPlace()])
def test_set_device_accepts_the_cpu(spelling):
    place = paddle.device.set_device(spelling)
    assert isinstance(place, paddle.CPUPlace)
    assert paddle.device.get_device() == 'cpu'


@pytest.mark.parametrize('spelling, word', [('gpu', 'CUDA'), ('gpu:0', 'CUDA'),
                                            ('cuda:1', 'CUDA'), ('xpu', 'XPU'),
                                            ('xpu:0', 'XPU')])
def test_set_device_refuses_accelerators(spelling, word):
    with pytest.raises(ValueError, match=word):
        paddle.device.set_device(spelling)
    with pytest.raises(ValueError, match=word):
        paddle.set_device(spelling)


@pytest.mark.parametrize('spelling', ['cpu:0', 'foo', 3])
def test_set_device_refuses_unknown_spellings(spelling):
    with pytest.raises(ValueError):
        paddle.device.set_device(spelling)


def test_build_queries():
    d = paddle.device
    assert d.is_compiled_with_cuda() is False and d.is_compiled_with_xpu() is False
    assert d.is_compiled_with_rocm() is False and d.is_compiled_with_ipu() is False
    assert d.is_compiled_with_cinn() is False
    assert d.is_compiled_with_custom_device('npu') is False
    assert d.is_compiled_with_distribute() is True
    assert d.is_available() is False and d.is_bf16_supported() is True   # (Paddle 3.3.1 CPU)
    assert d.get_cudnn_version() is None
    assert d.get_all_device_type() == [] and d.get_available_device() == []
    assert d.get_all_custom_device_type() == [] and d.get_available_custom_device() == []
    assert d.device_count() == 0
    assert d.cuda.device_count() == 0 and d.xpu.device_count() == 0
    assert d.is_current_stream_capturing() is False


@pytest.mark.parametrize('fn', ['max_memory_allocated', 'max_memory_reserved',
                                'reset_max_memory_allocated', 'reset_max_memory_reserved',
                                'reset_peak_memory_stats', 'get_device_name',
                                'get_device_properties', 'get_device_capability'])
def test_memory_and_properties_need_an_accelerator(fn):
    with pytest.raises(ValueError, match='CPU'):
        getattr(paddle.device, fn)()


@pytest.mark.parametrize('fn', ['max_memory_allocated', 'memory_allocated', 'memory_reserved',
                                'get_device_properties', 'get_device_name'])
def test_cuda_module_memory_queries_raise(fn):
    with pytest.raises(ValueError, match='GPU'):
        getattr(paddle.device.cuda, fn)()
    assert paddle.device.cuda.empty_cache() is None


def test_xpu_module_raises():
    with pytest.raises(ValueError, match='XPU'):
        paddle.device.xpu.memory_allocated()
    with pytest.raises(RuntimeError, match='XPU'):
        paddle.device.xpu.synchronize()


def test_streams_and_events_cannot_be_made():
    for make in (paddle.device.Stream, paddle.device.Event, paddle.device.cuda.Stream,
                 paddle.device.cuda.Event, paddle.device.cuda.create_stream):
        with pytest.raises(RuntimeError):
            make()
    with pytest.raises(TypeError):
        paddle.device.current_stream()
    with pytest.raises(TypeError):
        paddle.device.synchronize()
    with pytest.raises(RuntimeError):
        paddle.device.cuda.synchronize()
    with pytest.raises(TypeError):
        paddle.device.set_stream(None)


def test_default_stream_guard_runs_the_block():
    with paddle.device.stream_guard():
        y = paddle.ones([2]) * 3
    with paddle.device.StreamContext(None):
        y = y + 1
    with paddle.device.cuda.stream_guard(None):
        y = y + 1
    np.testing.assert_array_equal(y.numpy(), [5, 5])
    with pytest.raises(TypeError):
        paddle.device.stream_guard('s')


def test_device_guards():
    with paddle.device.device_guard('cpu'):
        x = paddle.ones([1])
    with paddle.device.device(paddle.CPUPlace()):
        x = x + 1
    assert float(x) == 2.0
    with pytest.raises(ValueError, match='CUDA'):
        paddle.device.device_guard('gpu')
    with pytest.raises(ValueError, match='CUDA'):
        paddle.device.device('gpu')


def test_the_package_is_callable():
    d = paddle.device('cpu')
    assert d == 'cpu' and d.type == 'cpu' and d.index is None
    g = paddle.device('cuda:1')
    assert g == 'cuda:1' and g.type == 'cuda' and g.index == 1
    assert paddle.device(0) == 'cuda:0'
    assert paddle.device('xpu', 2) == 'xpu:2'
    with pytest.raises(ValueError):
        paddle.device('tpu')
    with d:
        assert paddle.device.get_device() == 'cpu'


def test_places_of_other_devices_raise():
    with pytest.raises(ValueError):
        paddle.CUDAPlace(0)
    with pytest.raises(ValueError):
        paddle.device.XPUPlace(0)
    with pytest.raises(ValueError):
        paddle.device.IPUPlace()
    with pytest.raises(RuntimeError):
        paddle.CUDAPinnedPlace()


def test_rng_state_round_trip():
    paddle.device.manual_seed(7)
    state = paddle.device.get_rng_state()
    a = paddle.rand([4]).numpy()
    paddle.device.set_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([4]).numpy(), a)
    paddle.device.cuda.set_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([4]).numpy(), a)
    paddle.device.manual_seed(7)
    np.testing.assert_array_equal(paddle.rand([4]).numpy(), a)


@pytest.mark.parametrize('cls, dtype', [('FloatTensor', 'float32'), ('DoubleTensor', 'float64'),
                                        ('HalfTensor', 'float16'), ('ByteTensor', 'uint8'),
                                        ('CharTensor', 'int8'), ('ShortTensor', 'int16'),
                                        ('IntTensor', 'int32'), ('LongTensor', 'int64'),
                                        ('BoolTensor', 'bool')])
def test_typed_tensor_constructors(cls, dtype):
    make = getattr(paddle.device, cls)
    t = make([1, 0, 1])
    assert t.dtype == dtype
    np.testing.assert_array_equal(t.numpy(), np.array([1, 0, 1]).astype(dtype))
    assert make(2, 3).shape == [2, 3] and make(2, 3).dtype == dtype
    assert make().shape == [0]


def test_bfloat16_tensor_constructor():
    pytest.importorskip('ml_dtypes')
    t = paddle.device.BFloat16Tensor([1.5, -2.0])
    assert t.dtype.name == 'bfloat16'
    np.testing.assert_array_equal(t.numpy().astype('float32'), [1.5, -2.0])
