"""``paddle.device.cuda`` as Paddle's CPU build answers it: no GPU, so the count
is 0, memory queries raise a clear ValueError, streams and events cannot be
made; the random-state functions act on the (CPU) default generator."""
from .streams import stream_guard  # noqa: F401
from . import streams as _streams


def _cpu_only(api):
    return ValueError("The API paddle.device.cuda.%s is not supported in CPU-only "
                      "PaddlePaddle (this framework is a CPU build). Please reinstall "
                      "PaddlePaddle with GPU support to call this API." % api)


class Stream:
    def __init__(self, device=None, priority=2):
        raise RuntimeError("paddle.device.cuda.Stream: a CUDA stream can only be made on "
                           "the GPU platform; this framework is a CPU build")


class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise RuntimeError("paddle.device.cuda.Event: a CUDA event can only be made on "
                           "the GPU platform; this framework is a CPU build")


def create_stream(device=None, priority=2):
    return Stream(device, priority)


def create_event(enable_timing=False, blocking=False, interprocess=False):
    return Event(enable_timing, blocking, interprocess)


def current_stream(device=None):
    raise RuntimeError("paddle.device.cuda.current_stream: Paddle is not compiled with "
                       "CUDA (this framework is a CPU build)")


def synchronize(device=None):
    raise RuntimeError("paddle.device.cuda.synchronize: Paddle is not compiled with CUDA "
                       "(this framework is a CPU build); cannot visit device synchronize")


def device_count():
    """Number of CUDA GPUs: 0."""
    return 0


def empty_cache():
    """Nothing to release without a GPU allocator."""
    return None


def extract_cuda_device_id(device, op_name):
    raise ValueError("%s: no CUDA device exists in this CPU build (got %r)" % (op_name, device))


def _raiser(api):
    def fn(device=None):
        raise _cpu_only(api)
    fn.__name__ = api
    fn.__doc__ = "Needs a GPU: raises ValueError on this CPU build, as Paddle's does."
    return fn


max_memory_allocated = _raiser('max_memory_allocated')
max_memory_reserved = _raiser('max_memory_reserved')
memory_allocated = _raiser('memory_allocated')
memory_reserved = _raiser('memory_reserved')
memory_summary = _raiser('memory_summary')
reset_max_memory_allocated = _raiser('reset_max_memory_allocated')
reset_max_memory_reserved = _raiser('reset_max_memory_reserved')
get_device_properties = _raiser('get_device_properties')
get_device_name = _raiser('get_device_name')
get_device_capability = _raiser('get_device_capability')


def vmm_compact(device=None):
    raise _cpu_only('vmm_compact')


def get_rng_state(device=None):
    from . import get_rng_state as _get
    return _get()


def set_rng_state(new_state, device=None):
    from . import set_rng_state as _set
    _set(new_state)


def manual_seed(seed):
    from . import manual_seed as _seed
    _seed(seed)


is_current_stream_capturing = _streams.is_current_stream_capturing
