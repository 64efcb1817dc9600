"""``framework.fluid``: the Paddle 1.8 names the seed examples use.

Thin adapters over the 2.x API: ``fluid.dygraph.Conv2D(num_channels,
num_filters, filter_size, act=...)`` builds an ``nn.Conv2D`` plus the
activation, ``fluid.layers.reshape`` is ``framework.reshape``, and so on.
"""
from ..place import CPUPlace  # noqa: F401
from ..param_attr import ParamAttr  # noqa: F401
from ..static import (Executor, Program, default_main_program,  # noqa: F401
                      default_startup_program, global_scope, program_guard, scope_guard)
from ..graph.mode import disable_static, enable_static, in_dynamic_mode
from . import dygraph, initializer, io, layers, optimizer  # noqa: F401
from . import param_attr  # noqa: F401


def enable_dygraph(place=None):
    disable_static()


def disable_dygraph():
    enable_static()


enable_imperative = enable_dygraph
disable_imperative = disable_dygraph


def in_dygraph_mode():
    return in_dynamic_mode()


def data(name, shape, dtype='float32', lod_level=0):
    from ..static import data as _data
    return _data(name, shape, dtype, lod_level)
