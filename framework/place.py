"""Devices. Everything runs on the CPU; the GPU names exist so code written
for Paddle constructs without change and gets a clear error only if it really
needs a GPU."""


class CPUPlace:
    def __repr__(self):
        return 'Place(cpu)'

    def _equals(self, other):
        return self == other

    def is_cpu_place(self):
        return True

    def is_gpu_place(self):
        return False

    def is_cuda_pinned_place(self):
        return False

    def __eq__(self, other):
        return isinstance(other, CPUPlace)

    def __hash__(self):
        return hash('cpu')


class CUDAPlace:
    def __init__(self, device_id=0):
        raise RuntimeError("CUDAPlace(%d): this framework runs on the CPU only; "
                           "use framework.CPUPlace()" % device_id)


class CUDAPinnedPlace(CUDAPlace):
    def __init__(self):
        super().__init__(0)


_CPU = CPUPlace()


def set_device(device):
    if not str(device).startswith('cpu'):
        raise RuntimeError("set_device(%r): only 'cpu' is available" % (device,))
    return _CPU


def get_device():
    return 'cpu'


def is_compiled_with_cuda():
    return False


def cpu_place():
    return _CPU


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
