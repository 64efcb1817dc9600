"""Parameters in static mode: a persistable Variable in the main program whose
initializer op goes into the startup program (``Layer.create_parameter``
under static mode, Paddle's ``static.create_parameter``)."""
import copy

import numpy as np

from .. import dtype as _dt
from ..graph.mode import static_mode_guard
from ..graph.program import default_main_program, default_startup_program, program_guard
from ..ops import math as X
from ..ops import reduce as R
from ..param_attr import ParamAttr, WeightNormParamAttr
from . import initializer as I


def create_static_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                            default_initializer=None):
    """A parameter of the main program (see the module doc); None for ``attr=False``."""
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if isinstance(attr, WeightNormParamAttr):
        return _weight_normalized(shape, dtype, name, attr, is_bias, default_initializer)
    main, startup = default_main_program(), default_startup_program()
    shape = [int(s) for s in shape]
    if any(s < 0 for s in shape):
        raise ValueError("create_parameter: shape must be fully known, got %s" % shape)
    dtype = _dt.convert_dtype(dtype if dtype is not None else _dt.default_float())
    name = name or attr.name or main._names('create_parameter.w' if not is_bias else
                                            'create_parameter.b')
    init = attr.initializer or default_initializer or (
        I.Constant(0.0) if is_bias else I.XavierUniform())
    gb = main.global_block()
    if gb.has_var(name):
        # Paddle's static idiom: a ParamAttr name used again shares that parameter
        old = gb.var(name)
        if old.is_parameter and list(old.shape) == shape and np.dtype(old.dtype) == dtype:
            return old
        raise ValueError("create_parameter: the program already has a variable named '%s' "
                         "(shape %s, %s); a parameter of shape %s, %s cannot share it"
                         % (name, list(old.shape), old.dtype, shape, dtype))
    p = gb.create_parameter(name, shape, dtype, trainable=attr.trainable, initializer=init)
    p.optimize_attr = {'learning_rate': attr.learning_rate}
    p.regularizer = attr.regularizer
    p.need_clip = attr.need_clip
    append_initializer(startup, name, shape, dtype, attr.trainable, init)
    return p


def append_initializer(startup, name, shape, dtype, trainable, init):
    """The op initialising variable ``name`` with ``init``, in ``startup``."""
    sb = startup.global_block()
    target = sb.vars.get(name) or sb.create_parameter(name, shape, dtype, trainable)
    with program_guard(startup, startup), static_mode_guard(True):
        value = init.init_value(list(shape), dtype)
    if value.name == name:
        return
    sb._rename_output(value, target)


def _weight_normalized(shape, dtype, name, attr, is_bias, default_initializer):
    """``g * v / ||v||`` with parameters ``<name>_v`` and ``<name>_g`` (see
    WeightNormParamAttr); the norm runs over every axis but ``attr.dim``."""
    main, startup = default_main_program(), default_startup_program()
    name = name or attr.name or main._names('weight_norm.w')
    shape = [int(s) for s in shape]
    dim = attr.dim
    if dim is not None and dim < 0:
        dim += len(shape)
    axes = [a for a in range(len(shape)) if a != dim]
    g_shape = [1] * len(shape) if dim is None else [shape[dim] if a == dim else 1
                                                    for a in range(len(shape))]
    plain = ParamAttr(None, attr.initializer, attr.learning_rate, attr.regularizer,
                      attr.trainable, attr.do_model_average, attr.need_clip)
    v = create_static_parameter(shape, dtype, name + '_v', copy.copy(plain), is_bias,
                                default_initializer)
    g_attr = copy.copy(plain)
    g_attr.initializer = I.Constant(1.0)      # replaced below by ||v0||
    g = create_static_parameter(g_shape, dtype, name + '_g', g_attr, is_bias)
    # g starts at ||v0||: computed in the startup program from v's initial value
    sb = startup.global_block()
    with program_guard(startup, startup), static_mode_guard(True):
        v0 = sb.var(v.name)
        norm0 = X.sqrt(R.sum(v0 * v0, axis=axes, keepdim=True))
    sb.ops = [op for op in sb.ops if g.name not in op.output_arg_names]
    sb._rename_output(norm0, sb.var(g.name))
    with static_mode_guard(True):
        norm = X.sqrt(R.sum(v * v, axis=axes, keepdim=True))
        return g * (v / norm)
