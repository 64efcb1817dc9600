"""``fluid.dygraph``: 1.8 eager-mode names."""
import contextlib

from ... import nn as _nn
from ...autograd import grad  # noqa: F401
from ...dygraph import Tensor, no_grad  # noqa: F401
from ...dygraph.tensor import Parameter  # noqa: F401
from ...jit import ProgramTranslator, TracedLayer, declarative, to_static  # noqa: F401
from ...nn.layer import Layer  # noqa: F401
from ...ops.modes import in_static_mode
from ...graph.mode import disable_static, enable_static, in_dynamic_mode
from . import jit  # noqa: F401
from .nn import BatchNorm, Conv2D, Dropout, Embedding, Linear, Pool2D  # noqa: F401
from . import nn  # noqa: F401

LayerList = _nn.LayerList
Sequential = _nn.Sequential
ParameterList = _nn.ParameterList


def to_variable(value, name=None, zero_copy=None, dtype=None):
    """A Tensor from a numpy array (1.8's ``to_variable``)."""
    from ...ops.creation import to_tensor
    t = to_tensor(value, dtype=dtype)
    if name:
        t.name = name
    return t


@contextlib.contextmanager
def guard(place=None):
    """Run the block in dygraph (eager) mode."""
    was_static = in_static_mode()
    disable_static()
    try:
        yield
    finally:
        if was_static:
            enable_static()


def enabled():
    return not in_static_mode()


def save_dygraph(state_dict, model_path):
    from ...serialization import save
    suffix = '.pdopt' if any('moment' in k or k == 'LR_Scheduler' for k in state_dict) \
        else '.pdparams'
    save(state_dict, model_path + suffix)


def load_dygraph(model_path, **configs):
    import os
    from ...serialization import load
    params = load(model_path + '.pdparams') if os.path.exists(model_path + '.pdparams') else None
    opt = load(model_path + '.pdopt') if os.path.exists(model_path + '.pdopt') else None
    return params, opt
