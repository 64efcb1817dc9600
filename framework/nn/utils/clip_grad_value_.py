"""In-place gradient-value clipping."""
import numpy as np

from ...dygraph.state import no_grad
from ._common import _param_list, _replace_grad

__all__ = ['clip_grad_value_']


def clip_grad_value_(parameters, clip_value):
    """Clip the gradients of ``parameters`` in place into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    if clip_value < 0:
        raise ValueError("clip_grad_value_: clip_value must be >= 0, got %s" % clip_value)
    with no_grad():
        for p in _param_list(parameters, 'clip_grad_value_'):
            if p.grad is not None:
                _replace_grad(p.grad, np.clip(p.grad.data, -clip_value, clip_value))
