"""``if`` / ``while`` / ``for`` -> generated functions plus one run-time call.

    if test:               def __jst_fn_true_1(y):  body; return (y,)
        body          ->   def __jst_fn_false_1(y): orelse; return (y,)
    else:                  (y,) = _jst.IfElse(test, __jst_fn_true_1, __jst_fn_false_1,
        orelse                                 (y,), ('y',))

The names passed in and out are the names the statement assigns; everything
else is read through the closure. ``_jst`` decides at run time whether this
becomes a static ``cond``/``while`` op or plain Python control flow.
"""
import gast

from . import utils as U
from .loop_flags import BREAK_ATTR
from .scope import ScopeTransformer

GENERATED_PREFIX = '__jst_fn_'
_ITER_BUILTINS = {'range': 'Range', 'enumerate': 'Enumerate', 'zip': 'Zip'}


def _carried(names):
    """Names that flow in and out (generated helper functions are not values)."""
    return [n for n in names if not n.startswith(GENERATED_PREFIX)]


_LIST_MUTATORS = ('append', 'pop', 'extend', 'insert')


def _mutated_lists(stmts):
    """Names whose ``.append``/``.pop``/... is called in ``stmts``: a list
    changed in a tensor-dependent loop must be carried (as a tensor array)."""
    found = []
    for s in stmts:
        for n in gast.walk(s):       # x.append(...), also as _jst.Call(x.append)(...)
            if isinstance(n, gast.Attribute) and n.attr in _LIST_MUTATORS \
                    and isinstance(n.value, gast.Name) and n.value.id not in found:
                found.append(n.value.id)
    return found


def _strings(names):
    return U.tuple_of([U.const(n) for n in names])


class ControlFlowTransformer(ScopeTransformer):
    """Rewrites loops and ifs of one scope; records the names it carries so
    the caller can give them an 'undefined' value at the top of the function."""

    def __init__(self, shadowed=()):
        self.carried = []
        self.shadowed = set(shadowed)   # builtins the function rebinds (range = ...)

    def _note(self, names):
        for n in names:
            if n not in self.carried:
                self.carried.append(n)

    def _assigned(self, stmts):
        """Names ``stmts`` bind, then the function's locals whose items they
        assign: ``x[i] = v`` changes ``x``, so a tensor updated in a branch or
        loop body is carried out of it (a global or closure name is not)."""
        names = U.assigned_names(stmts)
        return names + [n for n in U.subscript_stored_names(stmts)
                        if n in self.shadowed and n not in names]

    def _result(self, names, value, origin):
        if names:
            return U.located(U.assign(names, value), origin)
        return U.located(gast.Expr(value=value), origin)

    def visit_If(self, node):
        self.generic_visit(node)
        body = self._assigned(node.body)
        names = _carried(body + [n for n in self._assigned(node.orelse) if n not in body])
        self._note(names)
        t = U.function(U.fresh('fn_true'), names, node.body + [U.ret(names)], node)
        f = U.function(U.fresh('fn_false'), names, (node.orelse or [gast.Pass()]) + [U.ret(names)],
                       node)
        call = U.call(U.jst('IfElse'), [node.test, U.load(t.name), U.load(f.name),
                                        U.names_tuple(names), _strings(names)])
        return [U.located(t, node), U.located(f, node), self._result(names, call, node)]

    def visit_While(self, node):
        self.generic_visit(node)
        assigned = self._assigned(node.body)
        names = _carried(assigned + [n for n in _mutated_lists(node.body) if n not in assigned])
        self._note(names)
        c = U.function(U.fresh('fn_cond'), names,
                       [gast.Return(value=node.test)], node)
        b = U.function(U.fresh('fn_body'), names,
                       node.body + [U.ret(names)], node)
        call = U.call(U.jst('While'), [U.load(c.name), U.load(b.name), U.names_tuple(names),
                                       _strings(names)])
        return [U.located(c, node), U.located(b, node), self._result(names, call, node)]

    def visit_For(self, node):
        self.generic_visit(node)
        target_names = [n.id for n in gast.walk(node.target) if isinstance(n, gast.Name)]
        body_names = self._assigned(node.body)
        body_names += [n for n in _mutated_lists(node.body) if n not in body_names]
        names = _carried(target_names + [n for n in body_names if n not in target_names])
        self._note(names)
        item = U.fresh('item')
        first = gast.Assign(targets=[node.target], value=U.load(item), type_comment=None)
        b = U.function(U.fresh('fn_for'), [item] + names,
                       [U.located(first, node)] + node.body + [U.ret(names)], node)
        flag = getattr(node, BREAK_ATTR, None)
        index = names.index(flag) if flag in names else -1
        call = U.call(U.jst('For'), [self._iterable(node.iter), U.load(b.name),
                                     U.names_tuple(names), _strings(names), U.const(index)])
        return [U.located(b, node), self._result(names, call, node)]

    def _iterable(self, it):
        """range/enumerate/zip become run-time helpers that accept tensors."""
        if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) \
                and it.func.id in _ITER_BUILTINS and it.func.id not in self.shadowed:
            helper = _ITER_BUILTINS[it.func.id]
            it.func = gast.copy_location(U.jst(helper), it.func)
            if helper != 'Range':      # enumerate(range(n)), zip(x, range(n))
                it.args = [self._iterable(a) for a in it.args]
        return it
