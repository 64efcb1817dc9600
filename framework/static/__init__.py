"""Static mode: Program IR, static backward, the optimizing executor, and
inference save/load (``framework.static``, Paddle's ``paddle.static``)."""
from . import program as _program
from .backward import append_backward, gradients
from .executor import (BuildStrategy, CompiledProgram, Executor, Scope, global_scope,
                       scope_guard)
from .input_spec import InputSpec
from .mode import disable_static, enable_static, in_dynamic_mode, static_mode_guard
from .program import (Operator, Parameter, Program, Variable, default_main_program,
                      default_startup_program, program_guard)
from . import passes  # noqa: F401
from . import control_flow, nn  # noqa: F401
from .nn import py_func  # noqa: F401  (paddle.static.py_func is static.nn's)
from .io import load, load_inference_model, save, save_inference_model
from ..ops.control import Print  # noqa: F401


def accuracy(input, label, k=1, correct=None, total=None):  # noqa: A002
    """Top-``k`` accuracy (Paddle's ``paddle.static.accuracy``; the same op as
    ``paddle.metric.accuracy``)."""
    from ..metric.metrics import accuracy as _accuracy
    return _accuracy(input, label, k, correct, total)


def data(name, shape, dtype=None, lod_level=0):
    """Declare a feed variable of the current main program (None/-1 = any size)."""
    from .. import dtype as _dt
    block = default_main_program().global_block()
    v = block.create_var(name, [-1 if s is None else s for s in shape],
                         _dt.convert_dtype(dtype) if dtype is not None else _dt.default_float(),
                         stop_gradient=True, is_data=True)
    return v


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A persistable parameter in the main program, initialised by the startup program."""
    from .params import create_static_parameter
    return create_static_parameter(shape, dtype, name, attr, is_bias, default_initializer)


def cpu_places(device_count=None):
    from ..place import CPUPlace
    return [CPUPlace()] * (device_count or 1)


def install_methods():
    """Attach the shared Tensor method/operator table to Variable."""
    from ..ops import tensor_methods
    tensor_methods.install(Variable, skip=('__hash__', '__setitem__'))
    tensor_methods.install_inplace(Variable, _variable_inplace)
    Variable.__setitem__ = _variable_setitem


def _variable_inplace(name, base):
    """``x.add_(y)``, ``x += y`` on a Variable: x stands for the result (see
    ``Variable._inplace_update``)."""
    from ..ops import tensor_methods

    def method(self, *args, **kwargs):
        fn = tensor_methods.inplace_base(type(self), base)
        return self._inplace_update(fn(self, *args, **kwargs))
    method.__name__ = name
    method.__doc__ = "In-place version of ``%s``." % getattr(base, '__name__', base)
    return method


def _variable_setitem(self, index, value):
    from ..ops.manipulation import setitem
    return setitem(self, index, value)


def setitem(x, index, value):
    """Paddle's ``static.setitem``: ``x`` with ``x[index] = value`` as a new
    tensor in static mode (x itself unchanged); eagerly, x is updated in
    place and returned."""
    from ..ops import manipulation
    if in_dynamic_mode():
        manipulation.setitem(x, index, value)
        return x
    return manipulation.set_items(x, index, value)
