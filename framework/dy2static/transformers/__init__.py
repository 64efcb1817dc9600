"""The dy2static AST passes, applied in a fixed order to each function scope.

Order: unsupported-syntax check, early return -> single exit, break/continue
-> flags, logical operators -> lazy helpers, builtins and calls, loops and
if/else -> generated functions, then 'undefined' sentinels for the names the
generated functions carry. Nested user functions are converted as scopes of
their own, innermost first.
"""
import gast

from . import utils as U
from .calls import CallTransformer
from .control import ControlFlowTransformer
from .logical import LogicalTransformer
from .loop_flags import BreakContinueTransformer
from .returns import transform_returns
from .scope import DONE
from .unsupported import Dy2StaticSyntaxError, UnsupportedSyntaxChecker

PASS_NAMES = ['unsupported', 'return', 'break_continue', 'logical', 'calls', 'control_flow',
              'undefined_names']


def _param_names(fn):
    a = fn.args
    names = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg is not None:
        names.append(a.vararg.id)
    if a.kwarg is not None:
        names.append(a.kwarg.id)
    return names


def _scopes(root):
    """Function definitions under ``root`` (itself included), innermost first."""
    found = []

    def walk(n):
        for c in gast.iter_child_nodes(n):
            walk(c)
        if isinstance(n, gast.FunctionDef):
            found.append(n)
    walk(root)
    return found


def convert_scope(fn, filename, on_pass=None):
    """Run all passes on one function scope (nested scopes must be done)."""
    params = _param_names(fn)
    shadowed = set(U.assigned_names(fn.body)) | set(params)
    UnsupportedSyntaxChecker(filename).visit(fn)
    _report(on_pass, 'unsupported', fn)
    transform_returns(fn)
    _report(on_pass, 'return', fn)
    BreakContinueTransformer().visit(fn)
    _report(on_pass, 'break_continue', fn)
    LogicalTransformer().visit(fn)
    _report(on_pass, 'logical', fn)
    CallTransformer(shadowed, params[0] if params else None).visit(fn)
    _report(on_pass, 'calls', fn)
    cf = ControlFlowTransformer(shadowed)
    cf.visit(fn)
    _report(on_pass, 'control_flow', fn)
    init = [n for n in cf.carried if n not in params]
    if init:
        origin = fn.body[0]
        fn.body = [U.located(U.assign(n, U.call(U.jst('Undef'), [U.const(n)])), origin)
                   for n in init] + fn.body
    _report(on_pass, 'undefined_names', fn)
    setattr(fn, DONE, True)
    return fn


def _report(on_pass, name, fn):
    if on_pass is not None:
        on_pass(name, fn)


def convert_function_def(root, filename, on_pass=None):
    """Convert ``root`` (a gast FunctionDef) and every function nested in it."""
    for fn in _scopes(root):
        convert_scope(fn, filename, on_pass if fn is root else None)
    return root


__all__ = ['convert_function_def', 'Dy2StaticSyntaxError', 'PASS_NAMES']
