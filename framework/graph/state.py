"""The values of a program's persistable variables: which ones are parameters,
reading and writing them in a scope (``Program.state_dict`` /
``set_state_dict``, ``static.save`` / ``load``)."""
import warnings

import numpy as np

from ..ops import modes
from .executor import Scope, global_scope
from .program import Parameter


def is_parameter_var(program, v):
    """A network parameter (trainable or not, like batch norm's statistics),
    declared in static mode or captured from eager mode (dy2static)."""
    if isinstance(v, Parameter) or v.is_parameter:
        return True
    t = program._captured.get(v.name)
    return t is not None and type(t).__name__ == 'Parameter'


def state_var_names(program, mode='all'):
    """Names of the persistable variables ``Program.state_dict(mode)`` holds:
    'param' the network's parameters, 'opt' the other persistable variables
    (optimizer accumulators, learning rate), 'all' both."""
    if not isinstance(mode, str) or mode not in ('all', 'param', 'opt'):
        raise ValueError("Program.state_dict: mode must be 'param', 'opt' or 'all', got %r"
                         % (mode,))
    names = []
    for v in program.list_vars():
        if not v.persistable or v.is_data or v.name in names:
            continue
        param = is_parameter_var(program, v)
        if mode == 'all' or (mode == 'param') == param:
            names.append(v.name)
    return names


def scope_of(scope, api):
    """``scope`` checked (``api`` names the caller), or the global scope for None."""
    if scope is None:
        return global_scope()
    if not isinstance(scope, Scope):
        raise TypeError("%s: scope must be None or a framework.static.Scope, got %s"
                        % (api, type(scope).__name__))
    return scope


def var_value(program, name, scope, api):
    """The current value of persistable variable ``name`` (numpy): a captured
    eager tensor's, else the scope's."""
    t = program._captured.get(name)
    if t is not None:
        return np.asarray(t.data)
    value = scope.vars.get(name)
    if value is None:
        raise ValueError("%s: variable '%s' has no value in the scope; run the startup "
                         "program first (exe.run(startup_program))" % (api, name))
    return np.asarray(value)


def set_var_value(program, var, value, scope, api):
    """Check ``value`` against ``var``'s shape and dtype, then store it where
    the executor reads it. Raises ValueError naming the variable on mismatch."""
    arr = _as_array(value, var.name, api)
    want = [int(d) for d in var.shape]
    if len(want) != arr.ndim or any(w not in (-1, d) for w, d in zip(want, arr.shape)):
        raise ValueError("%s: variable '%s' has shape %s in the program but the value has "
                         "shape %s" % (api, var.name, want, list(arr.shape)))
    if arr.dtype != var.dtype:
        raise ValueError("%s: variable '%s' is %s in the program but the value is %s"
                         % (api, var.name, var.dtype, arr.dtype))
    t = program._captured.get(var.name)
    if t is not None:
        t.set_value(arr)
    else:
        scope.vars[var.name] = np.array(arr)


def _as_array(value, name, api):
    if hasattr(value, 'data') and isinstance(getattr(value, 'data'), np.ndarray):
        return value.data
    if isinstance(value, np.ndarray) or hasattr(value, '__array__'):
        return np.asarray(value)
    raise TypeError("%s: the value of '%s' must be a Tensor or numpy array, got %s"
                    % (api, name, type(value).__name__))


def program_state_dict(program, mode='all', scope=None, api='Program.state_dict'):
    """``Program.state_dict``: {variable name: Tensor} of the persistable
    variables' current values."""
    scope = scope_of(scope, api)
    state = {}
    for name in state_var_names(program, mode):
        t = modes.handlers.make_tensor(var_value(program, name, scope, api), None, True)
        t.name = name
        state[name] = t
    return state


def set_program_state(program, state_dict, scope=None):
    """``Program.set_state_dict``: load values by variable name. As Paddle,
    entries the program does not have, or whose shape or dtype does not fit,
    are skipped with a warning."""
    api = 'Program.set_state_dict'
    if not isinstance(state_dict, dict):
        raise TypeError("%s: state_dict must be a dict, got %s" % (api, type(state_dict).__name__))
    scope = scope_of(scope, api)
    structured = state_dict.get('StructuredToParameterName@@') or {}
    variables = {}
    for v in program.list_vars():
        variables.setdefault(v.name, v)
    for name, value in state_dict.items():
        if name == 'StructuredToParameterName@@':
            continue
        name = structured.get(name, name)
        var = variables.get(name)
        if var is None:
            warnings.warn("Skip loading for '%s'. Because '%s' not in the program."
                          % (name, name), stacklevel=2)
            continue
        try:
            set_var_value(program, var, value, scope, api)
        except (ValueError, TypeError) as e:
            warnings.warn("Skip loading for '%s'. %s" % (name, e), stacklevel=2)


