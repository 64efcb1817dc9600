"""``if`` / ``while`` / ``for`` -> generated functions plus one run-time call.

    if test:               def __jst_fn_true_1(y):  body; return (y,)
        body          ->   def __jst_fn_false_1(y): orelse; return (y,)
    else:                  (y,) = _jst.IfElse(test, __jst_fn_true_1, __jst_fn_false_1,
        orelse                                 (y,), ('y',))

The values passed in and out are the names the statement assigns or whose
list/dict or tensor it changes in place (``a.append(x)``, ``t.add_(y)``,
``paddle.sin_(t)``), and the attributes of local objects it assigns
(``foo.c = ...``); everything else is read through the closure. ``_jst`` decides at run time whether this
becomes a static ``cond``/``while`` op or plain Python control flow.
"""
import gast

from . import utils as U
from .loop_flags import BREAK_ATTR
from .scope import ScopeTransformer

GENERATED_PREFIX = '__jst_fn_'
# builtins a ``for`` may iterate over whose bounds or items may be tensors
_ITER_BUILTINS = ('range', 'enumerate', 'zip')


def _carried(names):
    """Names that flow in and out (generated helper functions are not values)."""
    return [n for n in names if not n.startswith(GENERATED_PREFIX)]


_MUTATORS = ('append', 'pop', 'extend', 'insert', 'remove', 'clear', 'update', 'setdefault',
             'popitem')


def _root_name(node):
    """``a`` for ``a``, ``a[i]``, ``a[i][j]``... (None for anything else)."""
    while isinstance(node, gast.Subscript):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def _inplace_methods():
    """Names of the in-place tensor methods (``add_``, ``sin_``, ...)."""
    from ...ops import tensor_methods
    return {n for n in tensor_methods.inplace_table() if n.endswith('_')}


def _callee(node):
    """The ``f`` that ``f(...)`` or ``_jst.Call(f)(...)`` calls (None if not a call)."""
    if not isinstance(node, gast.Call):
        return None
    f = node.func
    if isinstance(f, gast.Call) and isinstance(f.func, gast.Attribute) \
            and f.func.attr == 'Call' and isinstance(f.func.value, gast.Name) \
            and f.func.value.id == U.JST and len(f.args) == 1:
        return f.args[0]
    return f


def _called_attribute(call):
    """The ``a.f`` that ``a.f(...)`` or ``_jst.Call(a.f)(...)`` calls, or None."""
    f = call.func
    if isinstance(f, gast.Call) and f.args and isinstance(f.args[0], gast.Attribute):
        f = f.args[0]
    return f if isinstance(f, gast.Attribute) else None


def _mutated_containers(stmts):
    """Names whose list/dict or tensor the statements change in place
    (``a.append(x)``, ``d[k] = v``, ``d[k].append(x)``, ``del a[i]``,
    ``t.add_(y)``, ``paddle.sin_(t)``): a tensor-dependent if or loop must
    carry them like assigned names (only local names are kept, so a module
    named by ``paddle.sin_`` is not)."""
    inplace = _inplace_methods()
    found = []

    def note(root):
        if root is not None and root not in found:
            found.append(root)
    for s in stmts:
        for n in gast.walk(s):       # x.append(...), also as _jst.Call(x.append)(...)
            if isinstance(n, gast.Attribute) and (n.attr in _MUTATORS or n.attr in inplace):
                note(_root_name(n.value))
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)):
                note(_root_name(n.value))
            elif isinstance(n, gast.Call) and n.args:
                f = _called_attribute(n)
                if f is not None and f.attr in inplace:     # paddle.sin_(t): t changes
                    note(_root_name(n.args[0]))
    return found


def _strings(names):
    return U.tuple_of([U.const(n) for n in names])


def _attribute_path(node):
    """['foo', 'a', 'c'] for ``foo.a.c`` (None unless a chain of names)."""
    path = []
    while isinstance(node, gast.Attribute):
        path.append(node.attr)
        node = node.value
    if not isinstance(node, gast.Name):
        return None
    return [node.id] + path[::-1]


def _object_of(path):
    """The expression ``foo.a`` of the attribute path ['foo', 'a', 'c']."""
    node = U.load(path[0])
    for attr in path[1:-1]:
        node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
    return node


class _Carried:
    """What the functions generated for one statement take and give back: the
    local names it changes, and the attributes of local objects it assigns,
    which travel as extra values read with ``_jst.GetAttr`` and written back
    with ``_jst.SetAttr``."""

    def __init__(self, names, attributes):
        self.names = names
        self.attributes = [(U.fresh('attr'), path) for path in attributes]

    def params(self):
        return self.names + [p for p, _ in self.attributes]

    def labels(self):
        return _strings(self.names + ['.'.join(path) for _, path in self.attributes])

    def _set(self, origin):
        return [U.located(gast.Expr(value=U.call(U.jst('SetAttr'), [
            _object_of(path), U.const(path[-1]), U.load(p)])), origin)
            for p, path in self.attributes]

    def values(self):
        return U.tuple_of([U.load(n) for n in self.names] + [
            U.call(U.jst('GetAttr'), [_object_of(path), U.const(path[-1])])
            for _, path in self.attributes])

    def function(self, name, body, origin, first=()):
        """``def name(*first, *params): <set attributes>; body; return values``."""
        stmts = self._set(origin) + body + [gast.Return(value=self.values())]
        return U.located(U.function(name, list(first) + self.params(), stmts, origin), origin)

    def call(self, value, origin):
        """``params = value``, then the attributes written back."""
        targets = self.params()
        if not targets:
            return [U.located(gast.Expr(value=value), origin)]
        return [U.located(U.assign(targets, value), origin)] + self._set(origin)


class ControlFlowTransformer(ScopeTransformer):
    """Rewrites loops and ifs of one scope; records the names it carries so
    the caller can give them an 'undefined' value at the top of the function."""

    def __init__(self, shadowed=()):
        self.carried = []
        self.shadowed = set(shadowed)   # the local names (a local `range` is not the builtin)

    def _note(self, names):
        for n in names:
            if n not in self.carried:
                self.carried.append(n)

    def _changed(self, stmts, first=()):
        """What ``stmts`` change: the names they assign or whose containers
        they change in place, and the attributes they assign, of local
        objects only (carrying a global would make it local)."""
        names = list(first)
        for n in U.assigned_names(stmts) + [m for m in _mutated_containers(stmts)
                                            if m in self.shadowed]:
            if n not in names:
                names.append(n)
        names = _carried(names)
        self._note(names)
        attributes = []
        for s in stmts:
            for n in gast.walk(s):
                if isinstance(n, gast.Attribute) and isinstance(n.ctx, gast.Store):
                    path = _attribute_path(n)
                    if path and path[0] in self.shadowed and path[0] not in names \
                            and path not in attributes:
                        attributes.append(path)
        return _Carried(names, attributes)

    def visit_If(self, node):
        self.generic_visit(node)
        c = self._changed(node.body + node.orelse)
        t = c.function(U.fresh('fn_true'), node.body, node)
        f = c.function(U.fresh('fn_false'), node.orelse or [gast.Pass()], node)
        call = U.call(U.jst('IfElse'), [node.test, U.load(t.name), U.load(f.name), c.values(),
                                        c.labels()])
        return [t, f] + c.call(call, node)

    def visit_While(self, node):
        self.generic_visit(node)
        c = self._changed(node.body)
        cond = c.function(U.fresh('fn_cond'), [], node)
        cond.body[-1] = U.located(gast.Return(value=node.test), node)
        body = c.function(U.fresh('fn_body'), node.body, node)
        call = U.call(U.jst('While'), [U.load(cond.name), U.load(body.name), c.values(),
                                       c.labels()])
        return [cond, body] + c.call(call, node)

    def visit_For(self, node):
        self.generic_visit(node)
        target_names = [n.id for n in gast.walk(node.target) if isinstance(n, gast.Name)]
        c = self._changed(node.body, target_names)
        item = U.fresh('item')
        first = U.located(gast.Assign(targets=[node.target], value=U.load(item),
                                      type_comment=None), node)
        body = c.function(U.fresh('fn_for'), [first] + node.body, node, first=[item])
        flag = getattr(node, BREAK_ATTR, None)
        index = c.names.index(flag) if flag in c.names else -1
        call = U.call(U.jst('For'), [self._iterable(node.iter), U.load(body.name), c.values(),
                                     c.labels(), U.const(index)])
        return [body] + c.call(call, node)

    def _iterable(self, it):
        """``range(...)``/``enumerate(...)``/``zip(...)`` (``_jst.Call(range)(...)``
        after the calls pass) -> ``_jst.Iter(range)(...)``: when the callee is
        that builtin, a run-time helper that accepts tensors."""
        callee = _callee(it)
        if isinstance(callee, gast.Name) and callee.id in _ITER_BUILTINS \
                and callee.id not in self.shadowed:
            it.func = gast.copy_location(U.call(U.jst('Iter'), [callee]), it.func)
            if callee.id != 'range':      # enumerate(range(n)), zip(x, range(n))
                it.args = [self._iterable(a) for a in it.args]
        return it
