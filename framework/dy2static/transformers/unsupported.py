"""Reject syntax the converter cannot express, with the user's line."""
from .scope import ScopeTransformer


class Dy2StaticSyntaxError(SyntaxError):
    pass


class UnsupportedSyntaxChecker(ScopeTransformer):
    def __init__(self, filename):
        self.filename = filename

    def _fail(self, node, what):
        raise Dy2StaticSyntaxError("%s, line %s: %s is not supported inside a @to_static "
                                   "function; move it into a function decorated with "
                                   "@jit.not_to_static" % (self.filename, getattr(node, 'lineno', '?'),
                                                          what))

    def visit_Yield(self, node):
        self._fail(node, 'yield (a generator)')

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node):
        self._fail(node, 'await')

    def visit_While(self, node):
        if node.orelse:
            self._fail(node, "a while loop's else clause")
        self.generic_visit(node)
        return node

    def visit_For(self, node):
        if node.orelse:
            self._fail(node, "a for loop's else clause")
        self.generic_visit(node)
        return node

    def visit_AsyncFor(self, node):
        self._fail(node, 'async for')

    visit_AsyncWith = visit_AsyncFor
