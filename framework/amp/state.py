"""State shared by auto_cast, decorate and GradScaler across regions."""
import numpy as np

from ..flags import flag

# Paddle 3.3.1's words on a CPU, where its float16 AMP does nothing
CPU_AUTOCAST_WARNING = ("amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, "
                        "current place is Place(cpu), so it makes no effect.")
CPU_SCALER_WARNING = ("AmpScaler can only be enabled on CUDAPlace, XPUPlace and CustomPlace, "
                      "current place is Place(cpu), so it makes no effect.")


def cpu_float16_amp():
    """Whether float16 AMP computes in float16 here (``FLAGS_cpu_float16_amp``);
    otherwise it is a no-op on our only device, the CPU, as Paddle's is there."""
    return bool(flag('FLAGS_cpu_float16_amp'))


class AmpGlobalState:
    """``amp_dtype``: the dtype of the last auto_cast region (GradScaler turns
    itself off for bfloat16, whose range needs no loss scaling);
    ``use_master_grad``/``model_parameters``: decorate(master_grad=True) asks
    for float32 gradients of these parameters after every backward."""

    def __init__(self):
        self.amp_dtype = 'float32'
        self.use_master_grad = False
        self.model_parameters = []

    def cast_grads_to_float32(self):
        for p in self.model_parameters:
            g = p.grad
            if g is not None and g.data.dtype != np.float32 and g.data.dtype.itemsize == 2:
                g.data = g.data.astype(np.float32)


_state = AmpGlobalState()


def amp_global_state():
    return _state
