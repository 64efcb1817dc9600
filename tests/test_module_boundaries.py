"""The package's layering rules, read from the source (so they cannot regress):

* the layer table of ``docs/architecture.md``: a module imports only modules of
  its own unit and of lower rows, lazily or not, counting the package
  ``__init__`` an import of a submodule runs (the root package aside); every
  module belongs to a unit of the table;
* ``dygraph/`` and ``graph/`` (the static core) never import each other (they
  meet in ``ops/modes.py``);
* ``dy2static/`` uses ``graph/`` and ``static/`` only through public names: no
  underscore name imported from their modules, no underscore attribute that they
  define and ``dy2static/`` does not;
* nothing asks "is this a Variable / a Tensor" by duck typing: the predicates of
  ``ops/modes.py`` answer it.
"""
import ast
import functools
import os
import re

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


def _import_statements(relpath, tree):
    """(line, module, name) per name a statement imports, lazily or not:
    ``import a.b`` gives (line, 'a.b', None), ``from ..x import y`` (line,
    'framework.x', 'y'), relative to the module at ``relpath``."""
    package = _module_of(relpath)
    if not relpath.endswith('__init__.py'):
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, None
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            mod = '.'.join(base + ([node.module] if node.module else []))
            for a in node.names:
                yield node.lineno, mod, a.name


def _imported_modules(relpath, tree):
    """(line, absolute dotted name) of every module ``tree`` imports, lazily
    or not (``from .. import static`` names framework and framework.static)."""
    for line, mod, name in _import_statements(relpath, tree):
        yield line, mod
        if name is not None:
            yield line, mod + '.' + name


def _imports_of(sub, forbidden):
    return ['%s:%d imports %s' % (path, line, mod)
            for path, tree in _sources(sub)
            for line, mod in _imported_modules(path, tree)
            if mod == forbidden or mod.startswith(forbidden + '.')]


@pytest.mark.parametrize('sub, other', [('dygraph', 'graph'), ('graph', 'dygraph')])
def test_eager_and_static_mode_do_not_import_each_other(sub, other):
    assert _imports_of(sub, 'framework.' + other) == []


def test_the_import_check_sees_lazy_and_relative_imports():
    tree = ast.parse("def f():\n    from ..static import gradients\n")
    assert (2, 'framework.static') in list(_imported_modules('dygraph/autograd.py', tree))
    tree = ast.parse("from .. import dygraph\n")
    assert (1, 'framework.dygraph') in list(_imported_modules('graph/executor.py', tree))


# ---- the layer table -----------------------------------------------------------------------

DOC = os.path.join(os.path.dirname(PACKAGE), 'docs', 'architecture.md')


@functools.lru_cache(maxsize=None)
def layer_table():
    """[(row, [unit, ...])] from docs/architecture.md, a unit a tuple of paths
    relative to the package (``ops/``, ``dtype.py``)."""
    with open(DOC, encoding='utf-8') as f:
        text = f.read()
    body = text.split('<!-- layers:', 1)[1].split('<!-- end of layers -->', 1)[0]
    rows = []
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if len(cells) != 3 or not cells[0].isdigit():
            continue
        units = [tuple(re.findall(r'`([^`]+)`', u)) for u in cells[2].split(';')]
        rows.append((int(cells[0]), units))
    return rows


def _unit_index():
    """path -> (row, unit number): exact files, and directories by prefix."""
    index = {}
    for row, units in layer_table():
        for k, unit in enumerate(units):
            for path in unit:
                index[path] = (row, (row, k))
    return index


def unit_of(relpath, index=None):
    """(row, unit) of a module path relative to the package, or None."""
    index = index or _unit_index()
    if relpath in index:
        return index[relpath]
    parts = relpath.split(os.sep)
    for n in range(len(parts) - 1, 0, -1):
        hit = index.get('/'.join(parts[:n]) + '/')
        if hit is not None:
            return hit
    return None


@functools.lru_cache(maxsize=None)
def _module_files():
    """dotted module name -> path relative to the package."""
    out = {}
    for path, _ in _parsed():
        out['.'.join(_module_of(path))] = path
    return out


def _resolve(name, files):
    """The longest prefix of dotted ``name`` that is a module of the package."""
    parts = name.split('.')
    while parts and '.'.join(parts) not in files:
        parts.pop()
    return '.'.join(parts) if parts else None


def _import_targets(relpath, tree, files):
    """(line, dotted module) of every package module a statement of the
    module imports: ``from .. import static`` is framework.static, ``from
    ..ops.math import add`` framework.ops.math, ``import framework`` the root."""
    for line, mod, name in _import_statements(relpath, tree):
        full = mod + '.' + name if name is not None else mod
        yield line, full if full in files else _resolve(mod, files)


def _imported_files(relpath, tree, files):
    """(line, path) of every package module the module imports, with the
    package ``__init__``s an import of a submodule runs (the root package's
    only when the root itself is imported)."""
    for line, mod in _import_targets(relpath, tree, files):
        if mod is None:
            continue
        parts = mod.split('.')
        if len(parts) == 1:
            yield line, files[mod]
        for n in range(2, len(parts) + 1):
            yield line, files['.'.join(parts[:n])]


def layer_violations(sources=None):
    index, files = _unit_index(), _module_files()
    found = []
    for path, tree in (sources if sources is not None else _parsed()):
        here = unit_of(path, index)
        for line, target in _imported_files(path, tree, files):
            there = unit_of(target, index)
            if here is None or there is None or there[1] == here[1]:
                continue
            if there[0] >= here[0]:
                found.append('%s:%d imports %s (row %d imports row %d)'
                             % (path, line, target, here[0], there[0]))
    return sorted(set(found))


def test_every_module_is_in_a_unit_of_the_table():
    assert [p for p, _ in _parsed() if unit_of(p) is None] == []


def test_the_table_has_the_issue_layers_in_order():
    rows = {path: row for row, units in layer_table() for unit in units for path in unit}
    order = ['dtype.py', 'ops/', 'dygraph/', 'autograd/', 'nn/', 'optimizer/', 'static/',
             'dy2static/', 'jit/', 'vision/', 'hapi/', '__init__.py']
    assert [rows[p] for p in order] == sorted(rows[p] for p in order)
    assert rows['dygraph/'] == rows['graph/'] and rows['io/'] == rows['optimizer/']


def test_imports_go_strictly_down_the_layers():
    assert layer_violations() == []


def test_the_layer_check_sees_upward_lazy_and_implied_imports():
    def module(path, code):
        return [(path, ast.parse(code))]
    # a lazy import of a higher row
    assert layer_violations(module(os.path.join('ops', 'math.py'),
                                   "def f():\n    from ..nn import functional\n"))
    # the root package, from below, and a higher package
    assert layer_violations(module(os.path.join('nn', 'clip.py'), "import framework as ops\n"))
    assert layer_violations(module(os.path.join('nn', 'clip.py'), "from .. import add\n"))
    assert layer_violations(module(os.path.join('nn', 'clip.py'), "from .. import static\n"))
    # a submodule of a higher package runs that package's __init__
    found = layer_violations(module('random.py', "from .graph import program\n"))
    assert any('graph/__init__.py' in f for f in found)
    # units of one row do not import each other
    assert layer_violations(module(os.path.join('optimizer', 'sgd.py'), "from ..io import x\n"))
    # importing down is fine
    assert layer_violations(module(os.path.join('nn', 'clip.py'),
                                   "from ..ops import math\nfrom ..graph import program\n")) == []


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
    """Where ``sources`` (path, tree) import an underscore name from a module of
    the static core or API or use an underscore attribute only they define."""
    static_private = ((_defined_private_names('graph') | _defined_private_names('static'))
                      - _defined_private_names('dy2static'))
    found = []
    for path, tree in sources:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                mods = [m for _, m in _imported_modules(path, ast.Module([node], []))]
                if any(m.startswith(('framework.static', 'framework.graph')) for m in mods):
                    found += ['%s:%d imports %s' % (path, node.lineno, a.name)
                              for a in node.names if _private(a.name)]
            elif isinstance(node, ast.Attribute) and node.attr in static_private:
                found.append('%s:%d uses .%s' % (path, node.lineno, node.attr))
    return found


def test_dy2static_uses_static_only_through_public_names():
    assert _static_private_uses(_sources('dy2static')) == []


def test_the_private_name_check_finds_uses():
    # graph/ defines _NameGen, Program._create_block and Variable._value
    example = ast.parse("from ..graph.program import _NameGen\n"
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
