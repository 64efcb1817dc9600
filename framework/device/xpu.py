"""``paddle.device.xpu`` as Paddle's CPU build answers it: no XPU, so the count
is 0 and everything that needs one raises a clear error."""


def _xpu_only(api):
    return ValueError("The API paddle.device.xpu.%s is only supported in XPU PaddlePaddle "
                      "(this framework is a CPU build). Please reinstall PaddlePaddle with "
                      "XPU support to call this API." % api)


class Stream:
    def __init__(self, device=None, priority=2):
        raise RuntimeError("paddle.device.xpu.Stream: an XPU stream can only be made on "
                           "the XPU platform; this framework is a CPU build")


class Event:
    def __init__(self, enable_timing=False, blocking=False, interprocess=False):
        raise RuntimeError("paddle.device.xpu.Event: an XPU event can only be made on "
                           "the XPU platform; this framework is a CPU build")


def create_stream(device=None, priority=2):
    return Stream(device, priority)


def create_event(enable_timing=False, blocking=False, interprocess=False):
    return Event(enable_timing, blocking, interprocess)


def current_stream(device=None):
    raise RuntimeError("paddle.device.xpu.current_stream: Paddle is not compiled with XPU "
                       "(this framework is a CPU build)")


def synchronize(device=None):
    raise RuntimeError("paddle.device.xpu.synchronize: Paddle is not compiled with XPU "
                       "(this framework is a CPU build)")


def device_count():
    """Number of XPUs: 0."""
    return 0


def _raiser(api):
    def fn(device=None):
        raise _xpu_only(api)
    fn.__name__ = api
    fn.__doc__ = "Needs an XPU: raises ValueError on this CPU build, as Paddle's does."
    return fn


empty_cache = _raiser('empty_cache')
max_memory_allocated = _raiser('max_memory_allocated')
max_memory_reserved = _raiser('max_memory_reserved')
memory_allocated = _raiser('memory_allocated')
memory_reserved = _raiser('memory_reserved')
memory_total = _raiser('memory_total')
memory_used = _raiser('memory_used')
reset_max_memory_allocated = _raiser('reset_max_memory_allocated')
reset_max_memory_reserved = _raiser('reset_max_memory_reserved')


def set_debug_level(level=1):
    raise _xpu_only('set_debug_level')


def extract_xpu_device_id(device, op_name):
    raise ValueError("%s: no XPU exists in this CPU build (got %r)" % (op_name, device))


def get_rng_state(device=None):
    from . import get_rng_state as _get
    return _get()


def set_rng_state(new_state, device=None):
    from . import set_rng_state as _set
    _set(new_state)


def manual_seed(seed):
    from . import manual_seed as _seed
    _seed(seed)
