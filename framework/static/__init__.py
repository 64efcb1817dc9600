"""Paddle's static-mode API (``framework.static``, Paddle's ``paddle.static``):
the names of the static core (``framework/graph/``: Program IR, backward, the
optimizing executor) and, above ``nn``, what Paddle builds on them:
``static.nn``, parameter creation, EMA, metrics, inference save/load."""
import contextvars

from ..graph import program as _program
from ..graph.backward import append_backward, gradients
from ..graph.executor import (BuildStrategy, CompiledProgram, Executor, Scope, global_scope,
                              scope_guard)
from ..graph.mode import disable_static, enable_static, in_dynamic_mode, static_mode_guard
from ..graph.program import (Operator, Parameter, Program, Variable, default_main_program,
                             default_startup_program, program_guard)
from ..ops.modes import in_static_mode
from . import nn  # noqa: F401
from .input_spec import InputSpec
from .nn import py_func  # noqa: F401  (paddle.static.py_func is static.nn's)
from .io import load, load_inference_model, save, save_inference_model, set_program_state
from ..ops.control import Print  # noqa: F401
from ..param_attr import WeightNormParamAttr  # noqa: F401
from .ema import ExponentialMovingAverage  # noqa: F401
from .metrics import auc, ctr_metric_bundle  # noqa: F401
from .places import (IpuCompiledProgram, IpuStrategy, cpu_places, cuda_places,  # noqa: F401
                     device_guard, ipu_shard_guard, set_ipu_shard, xpu_places)
from .program_bytes import (deserialize_persistables, deserialize_program,  # noqa: F401
                            load_from_file, load_program_state, normalize_program,
                            save_to_file, serialize_persistables, serialize_program)


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
    from ..nn.static_params import create_static_parameter
    return create_static_parameter(shape, dtype, name, attr, is_bias, default_initializer)


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block holding ``value``
    everywhere: set once by the startup program when ``persistable``, else by
    an op at the start of every run."""
    from .. import dtype as _dt
    from ..nn import initializer as I
    from ..nn.static_params import append_initializer
    shape = [int(s) for s in shape]
    if any(s < 0 for s in shape):
        raise ValueError("create_global_var: shape must be fully known, got %s" % shape)
    dtype = _dt.convert_dtype(dtype)
    main = default_main_program()
    gb = main.global_block()
    name = name or main._names('global_var')
    if persistable:
        var = gb.create_var(name, shape, dtype, persistable=True, stop_gradient=True)
        append_initializer(default_startup_program(), name, shape, dtype, False,
                           I.Constant(float(value)))
        return var
    from ..ops.creation import full
    with program_guard(main), static_mode_guard(True):
        value_var = full(shape, value, dtype)
    var = gb.create_var(name, shape, dtype, stop_gradient=True)
    gb._rename_output(value_var, var)
    return var


# the current name-scope path, per thread (as the program guards are)
_name_scope_path = contextvars.ContextVar('framework_name_scope', default='')


def name_scope(prefix=None):
    """Ops built inside get the scope path as attribute ``op_namescope``
    ('/outer/inner/'), as Paddle's, for reading the program."""
    import contextlib

    @contextlib.contextmanager
    def scope():
        path = _name_scope_path.get() + (prefix or '') + '/'
        token = _name_scope_path.set(path)
        try:
            with _program.op_annotation('op_namescope', '/' + path.lstrip('/')):
                yield
        finally:
            _name_scope_path.reset(token)
    return scope()


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
    from ..ops.subscript import setitem
    return setitem(self, index, value)


def setitem(x, index, value):
    """Paddle's ``static.setitem``: ``x`` with ``x[index] = value`` as a new
    tensor in static mode (x itself unchanged); eagerly, x is updated in
    place and returned."""
    from ..ops import subscript
    if not in_static_mode():
        subscript.setitem(x, index, value)
        return x
    return subscript.set_items(x, index, value)
