"""break / continue -> flags: ``break`` sets a flag that the loop condition
checks, ``continue`` sets a flag reset at the start of each iteration; the
statements after either are guarded by the flag."""
import gast

from . import utils as U
from .scope import ScopeTransformer

BREAK_ATTR = 'jst_break_flag'


def _loop_level_nodes(stmts, kind):
    """True if a ``kind`` (Break/Continue) node belongs to this loop level."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, (gast.While, gast.For, gast.FunctionDef, gast.Lambda, gast.ClassDef)):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False


class _Replace(gast.NodeTransformer):
    def __init__(self, kind, flag):
        self.kind, self.flag = kind, flag

    def visit_While(self, node):
        return node          # inner loops own their break/continue

    visit_For = visit_FunctionDef = visit_Lambda = visit_ClassDef = visit_While

    def generic_visit(self, node):
        return super().generic_visit(node)

    def visit_Break(self, node):
        if self.kind is gast.Break:
            return U.located(U.assign(self.flag, U.const(True)), node)
        return node

    def visit_Continue(self, node):
        if self.kind is gast.Continue:
            return U.located(U.assign(self.flag, U.const(True)), node)
        return node


def _sets_flag(stmt, flag):
    return any(isinstance(n, gast.Name) and n.id == flag and isinstance(n.ctx, gast.Store)
               for n in gast.walk(stmt))


def _guard(stmts, flag):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, gast.If):
            s.body = _guard(s.body, flag)
            s.orelse = _guard(s.orelse, flag)
        elif isinstance(s, (gast.With, gast.Try)):
            s.body = _guard(s.body, flag)
        out.append(s)
        if _sets_flag(s, flag) and i + 1 < len(stmts):
            rest = stmts[i + 1:]
            test = gast.UnaryOp(op=gast.Not(), operand=U.load(flag))
            out.append(U.located(gast.If(test=test, body=_guard(rest, flag), orelse=[]), rest[0]))
            break
    return out


class BreakContinueTransformer(ScopeTransformer):
    def _loop(self, node):
        self.generic_visit(node)        # inner loops first
        before = []
        if _loop_level_nodes(node.body, gast.Continue):
            flag = U.fresh('cont')
            node.body = _guard([_Replace(gast.Continue, flag).visit(s) for s in node.body], flag)
            node.body.insert(0, U.located(U.assign(flag, U.const(False)), node))
        if _loop_level_nodes(node.body, gast.Break):
            flag = U.fresh('brk')
            node.body = _guard([_Replace(gast.Break, flag).visit(s) for s in node.body], flag)
            before.append(U.located(U.assign(flag, U.const(False)), node))
            if isinstance(node, gast.While):
                not_flag = gast.UnaryOp(op=gast.Not(), operand=U.load(flag))
                node.test = gast.BoolOp(op=gast.And(), values=[not_flag, node.test])
            else:
                setattr(node, BREAK_ATTR, flag)
        return before + [node] if before else node

    visit_While = visit_For = _loop
