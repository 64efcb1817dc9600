"""Walking one function scope: transformers see the statements of the function
being converted (and the helper functions they generate inside it), but not
user-defined nested functions, which are converted as scopes of their own."""
import gast

DONE = '_jst_converted'


def is_user_scope_done(node):
    return isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and getattr(node, DONE, False)


class ScopeTransformer(gast.NodeTransformer):
    """A NodeTransformer that does not enter functions already converted."""

    def visit_FunctionDef(self, node):
        if is_user_scope_done(node):
            return node
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef
