"""Parameters in static mode: a persistable Variable in the main program whose
initializer op goes into the startup program."""
from .. import dtype as _dt
from .mode import static_mode_guard
from .program import default_main_program, default_startup_program, program_guard


def create_static_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                            default_initializer=None):
    from ..param_attr import ParamAttr
    from ..nn import initializer as I
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
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
        raise ValueError("create_parameter: the program already has a variable named '%s'"
                         % name)
    p = gb.create_parameter(name, shape, dtype, trainable=attr.trainable, initializer=init)
    p.optimize_attr = {'learning_rate': attr.learning_rate}
    p.regularizer = attr.regularizer
    p.need_clip = attr.need_clip
    _append_initializer(startup, name, shape, dtype, attr.trainable, init)
    return p


def _append_initializer(startup, name, shape, dtype, trainable, init):
    sb = startup.global_block()
    target = sb.vars.get(name) or sb.create_parameter(name, shape, dtype, trainable)
    with program_guard(startup, startup), static_mode_guard(True):
        value = init.init_value(list(shape), dtype)
    if value.name == name:
        return
    sb._rename_output(value, target)
