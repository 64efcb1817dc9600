"""``framework.framework`` (Paddle's ``paddle.framework``): mode switches and
queries, dtypes, flags, seeding, save/load and the program classes under the
names Paddle code imports from this path."""
import functools

import numpy as np

from .. import dtype  # noqa: F401
from .. import random  # noqa: F401
from .. import serialization as io  # noqa: F401
from ..base import core  # noqa: F401
from ..base.core import disable_signal_handler  # noqa: F401
from .. import base  # noqa: F401
from ..dtype import convert_dtype, get_default_dtype, public, set_default_dtype  # noqa: F401
from ..autograd import grad  # noqa: F401
from ..dygraph import no_grad  # noqa: F401
from ..flags import get_flags, set_flags  # noqa: F401
from ..ops.modes import in_static_mode
from ..param_attr import ParamAttr  # noqa: F401
from ..place import (CPUPlace, CUDAPinnedPlace, CUDAPlace, CustomPlace, IPUPlace,  # noqa: F401
                     XPUPinnedPlace, XPUPlace)
from ..random import seed  # noqa: F401
from ..serialization import load, save  # noqa: F401
from ..graph.mode import disable_static, enable_static, in_dynamic_mode  # noqa: F401
from ..graph.program import Block, Parameter, Program, Variable  # noqa: F401
from ..base.framework import in_dynamic_or_pir_mode, in_pir_mode, use_pir_api  # noqa: F401
from . import framework, io_utils, ir, recall_error  # noqa: F401
from .async_save import async_save, clear_async_save_task_queue  # noqa: F401
from .io_utils import is_belong_to_optimizer  # noqa: F401
from .layer_helper import LayerHelper  # noqa: F401
from .op_proto import OpProtoHolder  # noqa: F401


def in_pir_executor_mode():
    return False


def convert_np_dtype_to_dtype_(np_dtype):
    """A numpy dtype (or its name) as this framework's dtype."""
    return public(np.dtype(np_dtype) if not isinstance(np_dtype, str) else np_dtype)


def is_parameter(var):
    return bool(getattr(var, 'is_parameter', False)) or type(var).__name__ == 'Parameter'


def is_persistable(var):
    return bool(getattr(var, 'persistable', False))


def switch_main_program(program):
    """Make ``program`` the default main program; returns the previous one."""
    from ..graph.program import _Defaults
    prev, _Defaults.main = _Defaults.main, program
    return prev


def switch_startup_program(program):
    """Make ``program`` the default startup program; returns the previous one."""
    from ..graph.program import _Defaults
    prev, _Defaults.startup = _Defaults.startup, program
    return prev


def dygraph_only(func):
    """Decorator: ``func`` may only run in dynamic (eager) mode."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if in_static_mode():
            raise RuntimeError("%s only runs in dynamic mode; call paddle.disable_static() "
                               "first" % func.__name__)
        return func(*args, **kwargs)
    return wrapper


def dygraph_not_support(func):
    """Decorator: ``func`` may not run in dynamic (eager) mode."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if not in_static_mode():
            raise RuntimeError("%s does not run in dynamic mode; call paddle.enable_static() "
                               "first" % func.__name__)
        return func(*args, **kwargs)
    return wrapper


def deprecate_stat_dict(func):
    """Decorator: accept the old keyword ``stat_dict`` for ``state_dict`` (warning)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if 'stat_dict' in kwargs:
            import warnings
            warnings.warn("The argument `stat_dict` has deprecated, please change it to "
                          "`state_dict`.", DeprecationWarning)
            kwargs['state_dict'] = kwargs.pop('stat_dict')
        return func(*args, **kwargs)
    return wrapper


def disable_signal_handler():
    """Paddle uninstalls its C++ crash signal handlers here (for code that
    installs its own); this framework installs none, so Python's stay as they are."""


CONTROL_DEP_VAR_PREFIX = 'control_dep'


def generate_control_dev_var_name():
    """A fresh name for a control-dependency variable ('control_dep@<random>')."""
    import random as _random
    return CONTROL_DEP_VAR_PREFIX + '@' + str(_random.random())


def monkey_patch_variable():
    """(Re)attach the Tensor method and operator table to static Variables."""
    from ..static import install_methods
    install_methods()


def monkey_patch_math_tensor():
    """(Re)attach the method and operator table to eager Tensors."""
    from ..dygraph import install_methods
    install_methods()
