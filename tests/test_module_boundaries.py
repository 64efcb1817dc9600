"""The package's layering rules, read from the source (so they cannot regress):

* ``dygraph/`` and ``static/`` never import each other (they meet in
  ``ops/modes.py``);
* ``dy2static/`` uses ``static/`` only through public names: no underscore name
  imported from a ``static`` module, no underscore attribute that ``static/``
  defines and ``dy2static/`` does not;
* nothing asks "is this a Variable / a Tensor" by duck typing: the predicates of
  ``ops/modes.py`` answer it.
"""
import ast
import functools
import os

import pytest

import framework
from framework.ops import modes

PACKAGE = os.path.dirname(framework.__file__)


@functools.lru_cache(maxsize=None)
def _parsed():
    """(path relative to the package, syntax tree) of every module, parsed once."""
    trees = []
    for d, _, files in sorted(os.walk(PACKAGE)):
        for f in sorted(files):
            if f.endswith('.py'):
                path = os.path.join(d, f)
                with open(path) as fh:
                    trees.append((os.path.relpath(path, PACKAGE), ast.parse(fh.read(), path)))
    return trees


def _sources(sub=''):
    prefix = sub + os.sep if sub else ''
    return [(path, tree) for path, tree in _parsed() if path.startswith(prefix)]


def _module_of(relpath):
    parts = relpath[:-3].split(os.sep)
    return ['framework'] + (parts[:-1] if parts[-1] == '__init__' else parts)


def _imported_modules(relpath, tree):
    """(line, absolute dotted name) of every module ``tree`` imports, lazily or not."""
    package = _module_of(relpath)
    if not relpath.endswith('__init__.py'):
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = '.'.join(base + ([node.module] if node.module else []))
            yield node.lineno, mod
            for a in node.names:          # ``from .. import static``
                yield node.lineno, mod + '.' + a.name


def _imports_of(sub, forbidden):
    return ['%s:%d imports %s' % (path, line, mod)
            for path, tree in _sources(sub)
            for line, mod in _imported_modules(path, tree)
            if mod == forbidden or mod.startswith(forbidden + '.')]


@pytest.mark.parametrize('sub, other', [('dygraph', 'static'), ('static', 'dygraph')])
def test_eager_and_static_mode_do_not_import_each_other(sub, other):
    assert _imports_of(sub, 'framework.' + other) == []


def test_the_import_check_sees_lazy_and_relative_imports():
    tree = ast.parse("def f():\n    from ..static import gradients\n")
    assert (2, 'framework.static') in list(_imported_modules('dygraph/autograd.py', tree))
    tree = ast.parse("from .. import dygraph\n")
    assert (1, 'framework.dygraph') in list(_imported_modules('static/io.py', tree))


def _private(name):
    return name.startswith('_') and not (name.startswith('__') and name.endswith('__'))


def _defined_private_names(sub):
    """Underscore names ``sub`` defines: functions, classes, module names,
    attributes set on self/cls, and __slots__ entries."""
    names = set()
    for _, tree in _sources(sub):
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) \
                    and isinstance(node.value, ast.Name) and node.value.id in ('self', 'cls'):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
    return {n for n in names if _private(n)}


def _static_private_uses(sources):
    """Where ``sources`` (path, tree) import an underscore name from a static
    module or use an underscore attribute that only static/ defines."""
    static_private = _defined_private_names('static') - _defined_private_names('dy2static')
    found = []
    for path, tree in sources:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mods = [m for _, m in _imported_modules(path, ast.Module([node], []))]
                if any(m.startswith('framework.static') for m in mods):
                    found += ['%s:%d imports %s' % (path, node.lineno, a.name)
                              for a in node.names if _private(a.name)]
            elif isinstance(node, ast.Attribute) and node.attr in static_private:
                found.append('%s:%d uses .%s' % (path, node.lineno, node.attr))
    return found


def test_dy2static_uses_static_only_through_public_names():
    assert _static_private_uses(_sources('dy2static')) == []


def test_the_private_name_check_finds_uses():
    # static/ defines _NameGen, Program._create_block and Variable._value
    example = ast.parse("from ..static.program import _NameGen\n"
                        "def f(program, x):\n"
                        "    program._create_block()\n"
                        "    return x._value\n")
    assert sorted(_static_private_uses([(os.path.join('dy2static', 'example.py'), example)])) == [
        'dy2static/example.py:1 imports _NameGen', 'dy2static/example.py:3 uses ._create_block',
        'dy2static/example.py:4 uses ._value']


_DUCK_TYPING = ('_is_static_var', '_grad_node')


def test_no_duck_typed_mode_checks():
    """``hasattr(v, '_grad_node')`` / ``getattr(v, '_is_static_var', ...)``
    stand for is_eager_tensor / is_static_var."""
    found = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ('hasattr', 'getattr') and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value in _DUCK_TYPING:
                found.append('%s:%d' % (path, node.lineno))
    assert found == []


def test_value_predicates():
    import numpy as np
    t = framework.to_tensor([1.0])
    assert modes.is_eager_tensor(t) and not modes.is_static_var(t)
    assert modes.is_eager_tensor(framework.create_parameter([2], 'float32'))
    for other in (None, 1.0, np.ones(2), [t]):
        assert not modes.is_eager_tensor(other) and not modes.is_static_var(other)
    main = framework.static.Program()
    with framework.static.program_guard(main):
        x = framework.static.data('x', [2], 'float32')
    assert modes.is_static_var(x) and not modes.is_eager_tensor(x)


def test_static_mode_predicate_is_per_thread():
    import threading
    seen = []
    with framework.static.static_mode_guard(True):
        assert modes.in_static_mode() and not framework.in_dynamic_mode()
        worker = threading.Thread(target=lambda: seen.append(modes.in_static_mode()))
        worker.start()
        worker.join()
    assert seen == [False]
    assert not modes.in_static_mode() and framework.in_dynamic_mode()


def test_install_rejects_unknown_handlers():
    with pytest.raises(TypeError, match="unknown handler 'make_tensr'"):
        modes.install(make_tensr=lambda *a: None)
