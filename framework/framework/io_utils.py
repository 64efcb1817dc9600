"""``paddle.framework.io_utils``: what static save/load asks of a variable,
and its value in a scope."""
import numpy as np


def is_persistable(var):
    """True for variables that live across runs (parameters, optimizer state)."""
    return bool(getattr(var, 'persistable', False))


def is_parameter(var):
    return bool(getattr(var, 'is_parameter', False)) or type(var).__name__ == 'Parameter'


def is_belong_to_optimizer(var):
    """True for a persistable non-parameter variable: optimizer state
    (moments, learning rates, step counters)."""
    return is_persistable(var) and not is_parameter(var)


def get_value(var, scope=None):
    """The value of static variable ``var`` in ``scope`` (the global scope)."""
    from ..graph.executor import global_scope
    scope = scope or global_scope()
    found = scope.find_var(var.name)
    if found is None:
        raise ValueError("get_value: '%s' has no value in the scope (run the startup "
                         "program first)" % var.name)
    return np.array(found.get_tensor())


def set_value(var, value, scope=None):
    """Set static variable ``var`` in ``scope`` to ``value`` (its shape)."""
    from ..graph.executor import global_scope
    scope = scope or global_scope()
    value = np.asarray(getattr(value, 'data', value))
    if tuple(var.shape) and -1 not in tuple(var.shape) and tuple(value.shape) != tuple(var.shape):
        raise ValueError("set_value: '%s' has shape %s, the value %s"
                         % (var.name, list(var.shape), list(value.shape)))
    scope.var(var.name).get_tensor().set(value.astype(str(var.dtype)), None)
