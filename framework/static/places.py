"""Device places and device annotations of static programs, as Paddle's CPU
build answers them: the CPU is the only place; IPU sharding needs an IPU build."""
import contextlib

from ..place import CPUPlace


def cpu_places(device_count=None):
    """``device_count`` CPU places (the CPU_NUM environment variable, else 1)."""
    import os
    n = device_count if device_count is not None else int(os.environ.get('CPU_NUM', 1))
    return [CPUPlace() for _ in range(n)]


def cuda_places(device_ids=None):
    raise AssertionError("cuda_places: Not compiled with CUDA (this framework runs on the "
                         "CPU; use static.cpu_places())")


def xpu_places(device_ids=None):
    raise AssertionError("xpu_places: Not compiled with XPU (this framework runs on the "
                         "CPU; use static.cpu_places())")


@contextlib.contextmanager
def device_guard(device=None):
    """Ops built inside run on ``device`` ('cpu', 'gpu', 'gpu:0', None): as in
    Paddle the choice is recorded on each op (attribute ``op_device``);
    everything runs on the CPU here, so the annotation has no further effect."""
    from ..graph.program import op_annotation
    if device is not None and not isinstance(device, str):
        raise TypeError("device_guard: device must be a string like 'cpu' or 'gpu:0', got %r"
                        % (device,))
    if device and device.split(':')[0] not in ('cpu', 'gpu', 'xpu', 'npu'):
        raise ValueError("device_guard: the device must be 'cpu', 'gpu', 'gpu:x', 'xpu', ... "
                         "got %r" % device)
    with op_annotation('op_device', device or None):
        yield


def _no_ipu():
    return ValueError("Can not use this function since PaddlePaddle is not compiled with IPU "
                      "(this framework runs on the CPU)")


class IpuStrategy:
    def __init__(self):
        raise RuntimeError("Can not use IpuStrategy in non IPU compiled environment (this "
                           "framework runs on the CPU)")


class IpuCompiledProgram:
    def __init__(self, program=None, scope=None, ipu_strategy=None):
        raise _no_ipu()


@contextlib.contextmanager
def ipu_shard_guard(index=-1, stage=-1):
    raise _no_ipu()
    yield  # pragma: no cover


def set_ipu_shard(call_func, index=-1, stage=-1):
    """Wrap ``call_func`` (a function or Layer) to run in IPU shard ``index``;
    calling the wrapper needs an IPU build, as in Paddle."""
    def wrapper(*args, **kwargs):
        with ipu_shard_guard(index, stage):
            return call_func(*args, **kwargs)
    return wrapper
