"""``framework.base`` (Paddle 2.6+'s ``paddle.base``, the renamed ``fluid``).

The same objects as ``framework.fluid`` plus the names 2.6+ code reaches for
here. Its submodules (``base.dygraph``, ``base.layers``, ``base.param_attr``,
``base.io``, ...) are ``fluid``'s own module objects, registered under both
paths so ``import framework.base.dygraph`` and ``from framework.base.param_attr
import ParamAttr`` work.
"""
import sys as _sys

from .. import fluid as _fluid
from ..fluid import *  # noqa: F401,F403
from ..fluid import (CPUPlace, Executor, ParamAttr, Program, data,  # noqa: F401
                     default_main_program, default_startup_program, disable_dygraph,
                     disable_imperative, enable_dygraph, enable_imperative, global_scope,
                     in_dygraph_mode, program_guard, scope_guard)
from ..dygraph import Tensor as LoDTensor  # noqa: F401
from ..dygraph import Tensor, no_grad  # noqa: F401
from ..flags import get_flags, set_flags  # noqa: F401
from ..place import CUDAPinnedPlace, CUDAPlace, is_compiled_with_cuda  # noqa: F401
from ..graph.mode import in_dynamic_mode  # noqa: F401
from ..utils import unique_name  # noqa: F401
from . import core, framework  # noqa: F401

for _name in ('dygraph', 'layers', 'param_attr', 'io', 'initializer', 'optimizer'):
    _module = getattr(_fluid, _name)
    globals()[_name] = _module
    _sys.modules.setdefault(__name__ + '.' + _name, _module)
_sys.modules.setdefault(__name__ + '.unique_name', unique_name)


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False
