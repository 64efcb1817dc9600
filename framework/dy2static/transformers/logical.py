"""``and`` / ``or`` / ``not`` / ``a if c else b`` -> lazy run-time helpers that
keep Python short-circuiting for Python values and build logical ops for
tensors."""
import gast

from . import utils as U
from .scope import ScopeTransformer


class LogicalTransformer(ScopeTransformer):
    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = 'And' if isinstance(node.op, gast.And) else 'Or'
        return gast.copy_location(U.call(U.jst(fn), [U.lambda_(v) for v in node.values]), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return gast.copy_location(U.call(U.jst('Not'), [node.operand]), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return gast.copy_location(U.call(U.jst('IfExp'), [node.test, U.lambda_(node.body),
                                                          U.lambda_(node.orelse)]), node)
