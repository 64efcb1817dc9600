"""Builtins and calls.

* every call ``f(...)`` becomes ``_jst.Call(f)(...)``: at run time ``Call``
  looks ``f`` itself up (``convert_ops.Call``), so ``print``/``len``/``int``/
  ``float``/``bool`` become helpers that build print/shape/cast ops for
  tensors, user functions, methods and sub-layers are converted recursively,
  and builtins, classes and framework functions run as they are -- whatever
  name they are called by;
* ``assert`` becomes ``_jst.Assert``, which builds an assert op for a tensor;
* ``x.shape`` becomes ``_jst.Shape(x)``: dims of a Variable known only at run
  time are read from ``paddle.shape(x)``, so shapes built from them follow the
  data;
* ``super()`` gets its explicit form (the converted function lives outside
  the class body).
"""
import gast

from . import utils as U
from .scope import ScopeTransformer


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
        if isinstance(f, gast.Name) and f.id == 'super' and f.id not in self.shadowed:
            # zero-argument super() needs the class cell of a method body
            if not node.args and self.first_arg:
                node.args = [U.load('__class__'), U.load(self.first_arg)]
            return node
        node.func = gast.copy_location(U.call(U.jst('Call'), [f]), f)
        return node
