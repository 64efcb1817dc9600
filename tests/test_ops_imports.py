"""How the ops modules reach each other: imports at the top, ``ops/lib.py`` for the rest.

An import inside a function hides a dependency and runs on every call; a grad rule or
API function that needs an op of a module above its own reaches it as ``lib.NAME``
(see ``framework/ops/lib.py``). These tests keep it that way: no function-level imports
in ``framework/ops`` but of optional dependencies, no import cycles between the ops
modules, and every ``lib.NAME`` the sources use exists.
"""
import ast
import pathlib
import re

import pytest

import framework  # noqa: F401  (fills framework.ops.lib)
from framework.ops import lib

OPS = pathlib.Path(framework.__file__).parent / 'ops'

# Modules a function may import where it needs them: optional dependencies that are not
# installed everywhere, so importing them at the top would make `import framework` fail.
OPTIONAL = {
    'scipy': 'not a dependency of the framework; only a faster path may use it',
    'ml_dtypes': 'bfloat16/float8 dtypes exist only where the package is installed',
    'onnx': "the 'onnx' extra (setup.py): only exporting needs it",
    'onnxruntime': "the 'onnx' extra (setup.py): only checking an export needs it",
}


def _sources():
    return sorted(OPS.rglob('*.py'))


def _module_name(path):
    parts = path.relative_to(OPS.parent.parent).with_suffix('').parts
    return '.'.join(parts[:-1] if parts[-1] == '__init__' else parts)


def _function_imports(tree):
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    yield fn.name, node


def _top_module(node):
    if isinstance(node, ast.ImportFrom):
        return None if node.level else node.module.split('.')[0]
    return node.names[0].name.split('.')[0]


def test_ops_modules_import_at_the_top():
    found = []
    for path in _sources():
        for fn, node in _function_imports(ast.parse(path.read_text())):
            if _top_module(node) not in OPTIONAL:
                found.append('%s:%d in %s(): %s' % (path.relative_to(OPS), node.lineno, fn,
                                                     ast.unparse(node)))
    assert not found, ("imports inside functions (import at the top, or reach an op of a "
                       "module above through ops.lib):\n" + '\n'.join(found))


def _import_graph():
    """{module: modules it imports at module level}, among framework.ops's modules."""
    paths = {_module_name(p): p for p in _sources()}
    graph = {}
    for name, path in paths.items():
        package = name if path.name == '__init__.py' else name.rsplit('.', 1)[0]
        targets = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = package.rsplit('.', node.level - 1)[0] if node.level > 1 else package
                if node.level == 0:
                    base = node.module
                elif node.module:
                    base = base + '.' + node.module
                for a in node.names:
                    sub = base + '.' + a.name
                    targets.add(sub if sub in paths else base)
        # a package's own __init__ importing its submodules is not a cycle
        graph[name] = {t for t in targets if t in paths and t != name
                       and not (path.name == '__init__.py' and t.startswith(name + '.'))
                       and not name.startswith(t + '.')}
    return graph


def _cycles(graph):
    state, cycles = {}, []

    def visit(m, stack):
        state[m] = 'open'
        for t in sorted(graph[m]):
            if state.get(t) == 'open':
                cycles.append(' -> '.join(stack[stack.index(t):] + [t]))
            elif t not in state:
                visit(t, stack + [t])
        state[m] = 'done'
    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    return cycles


def test_ops_modules_have_no_import_cycles():
    graph = _import_graph()
    assert graph['framework.ops.math'] >= {'framework.ops.lib', 'framework.ops.registry'}
    cycles = _cycles(graph)
    assert not cycles, "module-level import cycles:\n" + '\n'.join(cycles)


def test_the_import_checks_can_fail():
    tree = ast.parse("def rule(g):\n    from .manipulation import cast\n    return cast(g)\n")
    assert [fn for fn, _ in _function_imports(tree)] == ['rule']
    assert _cycles({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) == ['a -> b -> c -> a']
    assert _cycles({'a': {'b'}, 'b': set()}) == []


def test_every_lib_name_the_ops_use_exists():
    used = set()
    for path in _sources():
        if path.name != 'lib.py':
            used.update(re.findall(r'(?<![\w.])lib\.([A-Za-z_]\w*)', path.read_text()))
    assert len(used) > 40
    missing = sorted(n for n in used if n in lib._ambiguous or n not in vars(lib))
    assert not missing, "lib.%s: not a function or op of one ops module" % ', lib.'.join(missing)


def test_lib_names_the_one_function_or_op():
    from framework.ops import creation, manipulation, subscript
    assert lib.cast is manipulation.cast and lib.where_op is manipulation.where_op
    assert lib.getitem is subscript.getitem and lib.zeros_like is creation.zeros_like
    # two modules' different softmax functions: left out, and the error names both
    with pytest.raises(AttributeError, match=r'ambiguous.*ops\.nn.*ops\.reduce'):
        lib.softmax
    with pytest.raises(AttributeError, match='no function or op'):
        lib.no_such_op
