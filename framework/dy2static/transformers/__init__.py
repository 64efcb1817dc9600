"""The dy2static AST passes, applied in a fixed order to each function scope.

``PASSES`` lists them, in order: unsupported-syntax check, early return ->
single exit, break/continue -> flags, logical operators -> lazy helpers,
builtins and calls, loops and if/else -> generated functions, then
'undefined' sentinels for the names the generated functions carry. Nested
user functions are converted as scopes of their own, innermost first.
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


class FunctionScope:
    """What the passes know about the function scope being converted."""

    def __init__(self, fn, filename):
        self.fn = fn                        # the gast FunctionDef, changed in place
        self.filename = filename
        self.params = _param_names(fn)
        # names the function binds: a call through one of them is the user's
        self.shadowed = set(U.assigned_names(fn.body)) | set(self.params)
        self.carried = []    # names the generated functions carry (set by control_flow)


def _param_names(fn):
    a = fn.args
    names = [p.id for p in a.posonlyargs + a.args + a.kwonlyargs]
    if a.vararg is not None:
        names.append(a.vararg.id)
    if a.kwarg is not None:
        names.append(a.kwarg.id)
    return names


# ---- the passes: each changes scope.fn in place ------------------------------------

def check_unsupported(scope):
    UnsupportedSyntaxChecker(scope.filename).visit(scope.fn)


def single_return(scope):
    transform_returns(scope.fn)


def break_continue_flags(scope):
    BreakContinueTransformer().visit(scope.fn)


def lazy_logical(scope):
    LogicalTransformer().visit(scope.fn)


def convert_calls(scope):
    CallTransformer(scope.shadowed, scope.params[0] if scope.params else None).visit(scope.fn)


def convert_control_flow(scope):
    cf = ControlFlowTransformer(scope.shadowed)
    cf.visit(scope.fn)
    scope.carried = cf.carried


def declare_undefined(scope):
    """Bind each carried name the function does not get as a parameter to an
    'undefined' sentinel first, so a branch or loop may carry a name that is
    not assigned yet."""
    init = [n for n in scope.carried if n not in scope.params]
    if init:
        origin = scope.fn.body[0]
        scope.fn.body = [U.located(U.assign(n, U.call(U.jst('Undef'), [U.const(n)])), origin)
                         for n in init] + scope.fn.body


# The pipeline, in order: the one list both convert_scope and the per-pass code
# printing (set_code_level) read.
PASSES = (
    ('unsupported', check_unsupported),
    ('return', single_return),
    ('break_continue', break_continue_flags),
    ('logical', lazy_logical),
    ('calls', convert_calls),
    ('control_flow', convert_control_flow),
    ('undefined_names', declare_undefined),
)
PASS_NAMES = tuple(name for name, _ in PASSES)


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
    """Run all passes on one function scope (nested scopes must be done);
    ``on_pass(name, fn)`` is called after each."""
    scope = FunctionScope(fn, filename)
    for name, run in PASSES:
        run(scope)
        if on_pass is not None:
            on_pass(name, fn)
    setattr(fn, DONE, True)
    return fn


def convert_function_def(root, filename, on_pass=None):
    """Convert ``root`` (a gast FunctionDef) and every function nested in it."""
    for fn in _scopes(root):
        convert_scope(fn, filename, on_pass if fn is root else None)
    return root


__all__ = ['convert_function_def', 'convert_scope', 'Dy2StaticSyntaxError', 'FunctionScope',
           'PASSES', 'PASS_NAMES']
