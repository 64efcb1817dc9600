"""Builtins and calls.

* ``print``/``len``/``int``/``float``/``bool`` and ``assert`` become run-time
  helpers that build print/assert/shape/cast ops for tensors;
* ``x.shape`` becomes ``_jst.Shape(x)``: dims of a Variable known only at run
  time are read from ``paddle.shape(x)``, so shapes built from them follow the
  data;
* ``super()`` gets its explicit form (the converted function lives outside
  the class body);
* every other call ``f(...)`` becomes ``_jst.Call(f)(...)`` so user functions,
  methods and sub-layers are converted recursively.
"""
import gast

from . import utils as U
from .scope import ScopeTransformer

_BUILTINS = {'print': 'Print', 'len': 'Len', 'int': 'Int', 'float': 'Float', 'bool': 'Bool'}
_NEVER_WRAP = {'isinstance', 'issubclass', 'type', 'super', 'locals', 'globals', 'vars',
               'getattr', 'setattr', 'hasattr', 'id', 'iter', 'next', 'callable', 'dir',
               'list', 'tuple', 'dict', 'set', 'str', 'repr', 'min', 'max', 'abs', 'sum',
               'sorted', 'reversed', 'map', 'filter', 'any', 'all', 'range', 'enumerate',
               'zip', 'round', 'divmod', 'hash', 'object', 'slice', 'format', 'open',
               'NotImplementedError', 'ValueError', 'TypeError', 'RuntimeError',
               'Exception', 'AssertionError', 'KeyError', 'IndexError', 'StopIteration'}


def _is_jst(func):
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
        and func.value.id == U.JST


class CallTransformer(ScopeTransformer):
    def __init__(self, shadowed, first_arg):
        self.shadowed = set(shadowed)
        self.first_arg = first_arg

    def visit_Assert(self, node):
        self.generic_visit(node)
        args = [node.test] + ([node.msg] if node.msg is not None else [])
        return gast.copy_location(gast.Expr(value=U.call(U.jst('Assert'), args)), node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == 'shape' and isinstance(node.ctx, gast.Load):
            return gast.copy_location(U.call(U.jst('Shape'), [node.value]), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if _is_jst(f):
            return node
        if isinstance(f, gast.Name) and f.id not in self.shadowed:
            if f.id in _BUILTINS:
                node.func = gast.copy_location(U.jst(_BUILTINS[f.id]), f)
                return node
            if f.id == 'super' and not node.args and self.first_arg:
                node.args = [U.load('__class__'), U.load(self.first_arg)]
                return node
            if f.id in _NEVER_WRAP:
                return node
        node.func = gast.copy_location(U.call(U.jst('Call'), [f]), f)
        return node
