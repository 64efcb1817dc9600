"""``framework.device`` (Paddle's ``paddle.device``), answering as Paddle's CPU build.

The CPU is the only device: ``get_device()`` is ``'cpu'``, ``set_device`` takes
``'cpu'``, ``0`` or a ``CPUPlace`` and raises a clear ``ValueError`` for ``'gpu'``,
``'xpu'``, ...; the ``is_compiled_with_*`` queries are False (distribute aside,
which Paddle's CPU wheel includes); device counts are 0; memory statistics,
streams and events need an accelerator and raise saying so, as in Paddle.
``paddle.device.cuda`` and ``paddle.device.xpu`` answer the same way.

>>> import framework as paddle
>>> paddle.device.get_device(), paddle.device.cuda.device_count()
('cpu', 0)
"""
import sys
import types

from .. import random as _random
from .. import place as _place
from ..place import CPUPlace, cpu_place, get_device, set_device  # noqa: F401  (paddle.device's)
from .tensor_types import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor,  # noqa: F401
                           DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
                           ShortTensor)
from .streams import (Event, Stream, StreamContext, current_stream, get_stream_from_external,  # noqa: F401
                      is_current_stream_capturing, set_stream, stream, stream_guard,
                      synchronize)
from . import cpu, cuda, xpu  # noqa: F401,E402

_ACCELERATORS = ('gpu', 'dcu', 'cuda', 'xpu', 'npu', 'ipu')


def _cpu_only(api):
    return ValueError("The API paddle.device.%s is not supported in CPU PaddlePaddle (this "
                      "framework is a CPU build). Please reinstall PaddlePaddle with GPU or "
                      "XPU support to call this API." % api)


def XPUPlace(dev_id):
    """An XPU place; the CPU build has none and raises, as Paddle's does."""
    return _place.XPUPlace(dev_id)


def IPUPlace():
    """An IPU place; the CPU build has none and raises, as Paddle's does."""
    return _place.IPUPlace()


# ---- build queries -----------------------------------------------------------

def is_compiled_with_cuda():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False


def is_compiled_with_ipu():
    return False


def is_compiled_with_cinn():
    return False


def is_compiled_with_distribute():
    """True, as for Paddle's CPU wheel (the distributed API exists; it runs on
    one CPU process here)."""
    return True


def is_compiled_with_custom_device(device_type):
    return False


def is_available():
    """Whether an accelerator (GPU, XPU, custom device) can be used: never."""
    return False


def is_bf16_supported(including_emulation=True):
    """Whether bfloat16 computation is available: True, as Paddle 3.3.1's CPU
    build answers (``paddle.amp`` runs bfloat16 on the CPU)."""
    return True


def get_cudnn_version():
    return None


def get_all_device_type():
    """Accelerator types present; Paddle's CPU build lists none."""
    return []


def get_all_custom_device_type():
    return []


def get_available_device():
    return []


def get_available_custom_device():
    return []


def device_count():
    """Number of accelerators: 0."""
    return 0


# ---- the current device ------------------------------------------------------

def current_device():
    """Index of the selected device (0)."""
    return 0


def device_to_place(device=None):
    """The Place for a device spelling (None: the current device)."""
    return cpu_place() if device is None else set_device(device)


def _convert_to_place(device):
    """The Place a device spelling names (Paddle's helper; user code calls it)."""
    return device_to_place(device)


# Paddle's module facts for its CPU build: the expected place is the CPU, and
# no custom device types are registered
current_device_is_cpu = 1
dev_types = []


def get_device_module(device=None):
    """The module of a device: ``paddle.device.cpu`` for the CPU (and None),
    ``paddle.cuda`` for 'gpu'/'cuda', ``paddle.device.xpu`` for 'xpu'."""
    name = 'cpu' if device is None else device
    if isinstance(name, CPUPlace):
        name = 'cpu'
    if isinstance(name, int):
        name = 'gpu'
    kind = str(name).lower().split(':')[0]
    if kind == 'cpu':
        return cpu
    if kind in ('gpu', 'cuda'):
        from .. import cuda as paddle_cuda
        return paddle_cuda
    if kind == 'xpu':
        return xpu
    raise RuntimeError("get_device_module: no device module for %r (this framework runs on "
                       "the CPU)" % (device,))


def get_default_device():
    return Device('cpu')


def set_default_device(device):
    set_device(device)


class device_guard:
    """``with device_guard('cpu'):`` runs the block on that device (eager mode)."""

    def __init__(self, device):
        if not isinstance(device, (str, CPUPlace)):
            raise ValueError("'device' must be a string or a Place, but got %s" % type(device))
        set_device(device)

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, tb):
        return False


class device:  # noqa: N801  (Paddle's name)
    """Context manager selecting a device (a Place, an index or a string)."""

    def __init__(self, device=None):
        self.place = device_to_place(device)

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, tb):
        return False


class Device(str):
    """A device name that is also a ``str`` (``paddle.device('cpu')``): ``type``
    and ``index``; usable as a context manager selecting it."""

    def __new__(cls, type=None, index=None):
        if isinstance(type, CPUPlace):
            kind, idx = 'cpu', None
        elif isinstance(type, bool) or not isinstance(type, (str, int)):
            if type is None and index is not None:
                raise ValueError("Device type must be specified if index is given")
            raise TypeError("Unsupported type for Device: %r" % (type,))
        elif isinstance(type, int):
            kind, idx = 'cuda', type
        else:
            t = type.lower()
            kind, _, num = t.partition(':')
            if kind not in ('cpu', 'gpu', 'cuda', 'xpu'):
                raise ValueError("Unsupported device type: %s" % t)
            if kind == 'cpu':
                idx = None
            elif index is not None:
                idx = index
            else:
                idx = int(num) if num else 0
        obj = str.__new__(cls, 'cpu' if kind == 'cpu' else '%s:%d' % (kind, idx))
        obj._type, obj._index = kind, idx
        return obj

    @property
    def type(self):
        return self._type

    @property
    def index(self):
        return self._index

    def __enter__(self):
        set_device(str(self))
        return self

    def __exit__(self, exc_type, exc_value, tb):
        return False


# ---- random state --------------------------------------------------------------

from .cpu import get_rng_state, manual_seed, set_rng_state  # noqa: E402,F401  (the CPU's)


def manual_seed_all(seed):
    _random.seed(seed)


# ---- memory ------------------------------------------------------------------

def max_memory_allocated(device=None):
    raise _cpu_only('max_memory_allocated')


def max_memory_reserved(device=None):
    raise _cpu_only('max_memory_reserved')


def reset_max_memory_allocated(device=None):
    raise _cpu_only('reset_max_memory_allocated')


def reset_max_memory_reserved(device=None):
    raise _cpu_only('reset_max_memory_reserved')


def reset_peak_memory_stats(device=None):
    raise _cpu_only('reset_peak_memory_stats')


def memory_allocated(device=None):
    raise _cpu_only('memory_allocated')


def memory_reserved(device=None):
    raise _cpu_only('memory_reserved')


def empty_cache():
    """Nothing to release: the CPU allocator has no device cache."""
    return None


def ipc_collect():
    raise RuntimeError("ipc_collect: Paddle is not compiled with CUDA/XPU (this framework "
                       "is a CPU build), so `ipc_collect` cannot be used")


def get_device_properties(device=None):
    raise _cpu_only('get_device_properties')


def get_device_name(device=None):
    raise _cpu_only('get_device_name')


def get_device_capability(device=None):
    raise _cpu_only('get_device_capability')


class _DeviceModule(types.ModuleType):
    """The package is callable, as Paddle's: ``paddle.device('cpu')`` is a Device."""

    def __call__(self, *args, **kwargs):
        return Device(*args, **kwargs)


sys.modules[__name__].__class__ = _DeviceModule

__all__ = ['get_cudnn_version', 'set_device', 'get_device', 'XPUPlace', 'IPUPlace',
           'is_compiled_with_xpu', 'is_compiled_with_ipu', 'is_compiled_with_cinn',
           'is_compiled_with_cuda', 'is_compiled_with_rocm', 'is_compiled_with_distribute',
           'is_compiled_with_custom_device', 'get_all_device_type',
           'get_all_custom_device_type', 'get_available_device', 'get_available_custom_device',
           'get_device_properties', 'Stream', 'Event', 'current_stream', 'set_stream',
           'stream_guard', 'device_guard', 'synchronize', 'device_count', 'empty_cache',
           'max_memory_allocated', 'max_memory_reserved', 'reset_max_memory_allocated',
           'reset_max_memory_reserved', 'memory_allocated', 'memory_reserved',
           'is_available', 'is_current_stream_capturing', 'get_device_name',
           'get_device_capability', 'get_rng_state', 'set_rng_state', 'manual_seed',
           'manual_seed_all', 'reset_peak_memory_stats', 'ipc_collect',
           'get_stream_from_external', 'is_bf16_supported', 'device', 'StreamContext',
           'FloatTensor', 'DoubleTensor', 'HalfTensor', 'BFloat16Tensor', 'ByteTensor',
           'CharTensor', 'ShortTensor', 'IntTensor', 'LongTensor', 'BoolTensor']
