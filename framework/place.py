"""Devices. Everything runs on the CPU; the names of other devices exist so code
written for Paddle runs unchanged and gets the answers Paddle's CPU build gives
(``CUDAPlace(0)`` raises, ``set_device('gpu')`` raises, ``is_compiled_with_cuda()``
is False)."""
import re


class CPUPlace:
    def __repr__(self):
        return 'Place(cpu)'

    def _equals(self, other):
        return self == other

    def is_cpu_place(self):
        return True

    def is_gpu_place(self):
        return False

    def is_xpu_place(self):
        return False

    def is_custom_place(self):
        return False

    def is_cuda_pinned_place(self):
        return False

    def get_device_id(self):
        return 0

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash('cpu')


def _no_device(what, build):
    return ValueError("%s: this framework is a CPU build (as Paddle's CPU package) and "
                      "has no %s; use framework.CPUPlace()" % (what, build))


class CUDAPlace:
    """A GPU; Paddle's CPU build refuses to make one, and so does this."""
    def __init__(self, device_id=0):
        raise _no_device("CUDAPlace(%r)" % (device_id,), "CUDA GPU")


class CUDAPinnedPlace:
    def __init__(self):
        raise RuntimeError("CUDAPinnedPlace: pinned memory needs a CUDA build; this "
                           "framework is a CPU build (as Paddle's CPU package)")


class XPUPinnedPlace:
    def __init__(self):
        raise RuntimeError("XPUPinnedPlace: pinned memory needs an XPU build; this "
                           "framework is a CPU build (as Paddle's CPU package)")


class XPUPlace:
    def __init__(self, device_id=0):
        raise _no_device("XPUPlace(%r)" % (device_id,), "XPU")


class XPUPinnedPlace:
    def __init__(self):
        raise RuntimeError("XPUPinnedPlace: pinned memory needs an XPU build; this "
                           "framework is a CPU build (as Paddle's CPU package)")


class IPUPlace:
    def __init__(self):
        raise _no_device("IPUPlace()", "IPU")


class CustomPlace:
    def __init__(self, device_type, device_id=0):
        raise _no_device("CustomPlace(%r, %r)" % (device_type, device_id),
                         "custom device plugin")


_CPU = CPUPlace()


def get_device(input=None):  # noqa: A002
    """The current device ('cpu'); of a tensor ``input``, its device id (-1:
    the CPU, as Paddle answers for CPU tensors)."""
    return -1 if input is not None and hasattr(input, 'place') else 'cpu'


def is_compiled_with_cuda():
    return False


def cpu_place():
    return _CPU


def _device_string(device):
    """'cpu' for every spelling of the CPU; a clear ValueError otherwise."""
    if isinstance(device, CPUPlace):
        return 'cpu'
    if isinstance(device, int) and not isinstance(device, bool):
        if device != 0:
            raise ValueError("CPU device only supports index 0, got %d" % device)
        return 'cpu'
    if not isinstance(device, str):
        raise ValueError("The device must be a string, an int or a Place, got %s"
                         % type(device).__name__)
    name = device.strip().lower()
    if name == 'cpu':
        return 'cpu'
    kind = re.match(r'(gpu|dcu|cuda|xpu|npu|ipu)(:\d+)?$', name)
    if kind:
        build = 'XPU' if kind.group(1) == 'xpu' else 'IPU' if kind.group(1) == 'ipu' else 'CUDA'
        raise ValueError("The device should not be %r, since PaddlePaddle is not compiled "
                         "with %s (this framework runs on the CPU only)" % (device, build))
    raise ValueError("The device must be a string which is like 'cpu', 'gpu', 'gpu:x', "
                     "'dcu', 'dcu:x', 'xpu', 'xpu:x', 'npu', 'npu:x'; got %r" % (device,))


def set_device(device):
    """Select the device ops run on (``paddle.set_device``, ``paddle.device.set_device``):
    only the CPU exists (``'cpu'``, index 0 or a CPUPlace); 'gpu', 'xpu', ... raise
    as in Paddle's CPU build. Returns its Place.

    >>> import framework as paddle
    >>> paddle.device.set_device('cpu')
    Place(cpu)
    """
    _device_string(device)
    return cpu_place()


_ACCELERATORS = ('gpu', 'cuda', 'xpu', 'npu', 'ipu', 'mlu', 'custom')


def check_device(device, api='device'):
    """Accept ``device=`` as Paddle's CPU build does: None, 'cpu' or a CPUPlace;
    an accelerator name raises the CPU build's error, anything else a clear one."""
    if device is None or isinstance(device, CPUPlace):
        return _CPU
    if isinstance(device, str):
        name = device.strip().lower()
        if name == 'cpu':
            return _CPU
        kind, _, index = name.partition(':')
        if kind in _ACCELERATORS:
            shown = 'gpu' if kind == 'cuda' else kind
            raise ValueError("%s: the device should not be '%s%s', since this framework runs on "
                             "the CPU only (as a CPU build of PaddlePaddle)"
                             % (api, shown, ':' + index if index else ''))
    raise ValueError("%s: device must be 'cpu', a CPUPlace or None, got %r" % (api, device))
