"""State shared by auto_cast, decorate and GradScaler across regions."""
import numpy as np


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
