"""The ops modules' functions and ops by name, for code inside ``ops/``.

A grad rule or an API function often needs an op of another ops module:
``math``'s rules cast, ``creation`` reshapes and stacks, ``manipulation``'s
``concat`` grad slices with ``getitem``. Importing that module at the top is
often a cycle (``creation`` and ``manipulation`` each use the other), and
importing it inside the function hides the dependency and pays an import
lookup on every call. Such code reaches the op here instead::

    from . import lib          # at the top: this module imports only the registry

    def _mean_grad(g, x, out, ...):
        return lib.cast(g, x.dtype) ...

``ops/__init__.py`` fills this namespace (``fill``) once it has imported every
ops module, so each name is here whenever a grad rule or an API function runs,
but not while the ops modules are being imported: module-level code imports
what it needs from the modules below it, as usual.

``lib.NAME`` is the public function or op the filled modules bind to ``NAME``
(``lib.cast`` is ``manipulation.cast``, ``lib.where_op`` is
``manipulation.where_op``). A name two modules bind to different objects
(``tanh`` in ``math`` and ``nn``) is left out rather than guessed: ``lib.tanh``
raises an AttributeError naming both modules.
"""
import types

from .registry import OpDef

_OWN = frozenset(globals()) | {'fill'}   # this module's own names are never replaced
_ambiguous = {}                          # name -> the modules binding it differently
_filled = []                             # the modules filled in, in order


def _exported(value):
    if isinstance(value, OpDef):
        return True
    return (isinstance(value, types.FunctionType)
            and getattr(value, '__module__', '').startswith('framework.'))


def fill(modules):
    """Bind each public function and op of ``modules`` here (see the module doc)."""
    found = {}
    for module in modules:
        for name, value in vars(module).items():
            if not name.startswith('_') and name not in _OWN and _exported(value):
                found.setdefault(name, {}).setdefault(id(value), (value, module.__name__))
    space = globals()
    for name, owners in found.items():
        if len(owners) == 1:
            space[name] = next(iter(owners.values()))[0]
        else:
            _ambiguous[name] = sorted(m for _, m in owners.values())
    _filled.extend(modules)


def __getattr__(name):
    if name in _ambiguous:
        raise AttributeError("framework.ops.lib.%s is ambiguous (%s each define one): import "
                             "it from its module" % (name, ', '.join(_ambiguous[name])))
    if not _filled:
        raise AttributeError("framework.ops.lib.%s: the namespace is filled once every ops "
                             "module is imported; module-level code imports from the modules "
                             "below it instead" % name)
    raise AttributeError("framework.ops.lib has no function or op %r" % name)
