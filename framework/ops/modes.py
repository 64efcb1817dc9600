"""The one place that says which mode is active and what kind of value a value is.

Eager mode (``framework/dygraph``) and static mode (``framework/static``) do not
import each other and ``ops/`` imports neither: they meet here. Every module
asks these predicates, never ``hasattr``/``getattr`` duck typing:

* ``in_static_mode()``   the calling thread builds a Program (``enable_static``,
                         ``program_guard`` inside ``@to_static``); per thread,
                         as Paddle's tracer is. ``set_static_mode`` switches it.
* ``is_static_var(v)``   ``v`` is a static ``Variable`` (of a Program).
* ``is_eager_tensor(v)`` ``v`` is an eager ``Tensor`` (Parameters included).

Each mode installs what it provides here, once, at import (``install``):

* ``framework/dygraph/__init__.py``: ``tensor_type`` (Tensor), ``make_tensor``
  (data, dtype, stop_gradient) -> Tensor, used by ``to_tensor`` and by static
  code that hands values back to eager code (``Executor.run``, ``get_value``),
  and ``make_eager(op)`` -> the op's specialised eager function (the tracer's
  hot path, built on the op's first eager call).
* ``framework/graph/program.py``: ``variable_type`` (Variable) and
  ``static_append(op, args)`` -> the op's output Variables, appended to the
  current block.

``OpDef.__call__`` reads ``handlers.static_append`` / ``handlers.make_eager``.
"""
import contextvars

_static_mode = contextvars.ContextVar('framework_static_mode', default=False)
# a bound C method: OpDef.__call__ (the hot path) calls it on every op
in_static_mode = _static_mode.get


def set_static_mode(on):
    """Build static Programs (True) or run eagerly (False) in this thread."""
    _static_mode.set(bool(on))


class _NoValue:
    """Stands for a value type not installed yet: no value is an instance."""


_variable_type = _NoValue
_tensor_type = _NoValue


def is_static_var(v):
    """True for a static Variable (of a Program), False for anything else."""
    return isinstance(v, _variable_type)


def is_eager_tensor(v):
    """True for an eager Tensor (or Parameter), False for anything else."""
    return isinstance(v, _tensor_type)


class _Handlers:
    """The functions a mode provides (see the module docstring)."""
    __slots__ = ('static_append', 'make_tensor', 'make_eager')

    def __init__(self):
        self.static_append = None
        self.make_tensor = None
        self.make_eager = None


handlers = _Handlers()


def install(tensor_type=None, variable_type=None, **mode_handlers):
    """Install a mode's value type and handlers (called by dygraph and static
    at import; see the module docstring for who installs what)."""
    global _tensor_type, _variable_type
    if tensor_type is not None:
        _tensor_type = tensor_type
    if variable_type is not None:
        _variable_type = variable_type
    for name, fn in mode_handlers.items():
        if name not in _Handlers.__slots__:
            raise TypeError("modes.install: unknown handler '%s' (known: %s)"
                            % (name, ', '.join(_Handlers.__slots__)))
        setattr(handlers, name, fn)
