"""Source -> gast -> passes -> compiled function with the original globals and closure.

The transformed tree keeps the user's line numbers and is compiled with the
user's file name, so a traceback from converted code points at the user's
own file and line. ``astunparse`` gives the readable source (``.code``).
"""
import ast
import copy
import inspect
import textwrap
import types
import weakref

import astunparse
import gast

from . import convert_ops, log
from .log import verbosity as _verbosity
from .transformers import PASS_NAMES, convert_function_def

_cache = weakref.WeakKeyDictionary()   # code object -> ConvertedFunction (via holder)
_code_cache = {}

_DECORATORS_TO_DROP = {'to_static', 'declarative', 'jit.to_static', 'paddle.jit.to_static',
                       'jit.declarative', 'dygraph.declarative', 'fluid.dygraph.declarative'}


class ConversionError(RuntimeError):
    pass


def set_verbosity(level=0, also_to_stdout=False):
    """Print the transformed code after each pass when ``level`` > 0."""
    _verbosity['level'] = int(level)


def set_code_level(level=100, also_to_stdout=False):
    """Print the transformed code (after passes up to ``level``) when converting."""
    _verbosity['code_level'] = int(level)


def _decorator_name(d):
    try:
        return astunparse.unparse(gast.gast_to_ast(d)).strip().split('(')[0]
    except Exception:
        return ''


def _source_of(fn):
    try:
        lines, first = inspect.getsourcelines(fn)
        filename = inspect.getsourcefile(fn) or inspect.getfile(fn)
    except (OSError, TypeError) as e:
        raise ConversionError(
            "@to_static cannot convert %s: its source code is not available (%s). Functions "
            "defined in an interactive session, exec() or a C extension cannot be converted; "
            "define it in a .py file, or mark it with @jit.not_to_static"
            % (getattr(fn, '__qualname__', fn), e)) from None
    return textwrap.dedent(''.join(lines)), first, filename


def _to_source(node):
    return astunparse.unparse(gast.gast_to_ast(node))


class ConvertedFunction:
    """The converted code object of one Python function."""

    def __init__(self, fn):
        fn = inspect.unwrap(fn)
        source, first, filename = _source_of(fn)
        try:
            tree = gast.parse(source)
        except SyntaxError as e:     # e.g. a lambda whose line is part of a statement
            raise ConversionError("@to_static cannot convert %s: its source does not parse "
                                  "on its own (%s)" % (fn.__qualname__, e.msg)) from None
        root = tree.body[0]
        if isinstance(root, (gast.ClassDef,)) or not isinstance(root, gast.FunctionDef):
            raise ConversionError("@to_static expects a function, got source starting with %s"
                                  % type(root).__name__)
        root.decorator_list = [d for d in root.decorator_list
                               if _decorator_name(d) not in _DECORATORS_TO_DROP]
        gast.increment_lineno(tree, first - 1)

        def on_pass(name, node):
            if _verbosity['level'] > 0 or _verbosity['code_level'] >= PASS_NAMES.index(name) + 1 \
                    and _verbosity['code_level'] < 100:
                print('--- %s after pass %s ---\n%s' % (fn.__qualname__, name, _to_source(node)))
        convert_function_def(root, filename, on_pass)
        self.source = _to_source(root)
        if _verbosity['code_level'] >= 100:
            print(self.source)
        self.name = root.name
        self.filename = filename
        self.original = fn
        self.code = self._compile(root, fn, filename)

    def _compile(self, root, fn, filename):
        freevars = list(fn.__code__.co_freevars)
        factory_args = ['_jst'] + [v for v in freevars if v != '_jst']
        factory = gast.FunctionDef(
            name='__jst_factory', args=gast.arguments(
                args=[gast.Name(id=a, ctx=gast.Param(), annotation=None, type_comment=None)
                      for a in factory_args], posonlyargs=[], vararg=None, kwonlyargs=[],
                kw_defaults=[], kwarg=None, defaults=[]),
            body=[root, gast.Return(value=gast.Name(id=root.name, ctx=gast.Load(),
                                                    annotation=None, type_comment=None))],
            decorator_list=[], returns=None, type_comment=None, type_params=[])
        module = gast.Module(body=[factory], type_ignores=[])
        pymod = gast.gast_to_ast(module)
        ast.fix_missing_locations(pymod)
        code = compile(pymod, filename, 'exec')
        factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
        return next(c for c in factory_code.co_consts
                    if isinstance(c, types.CodeType) and c.co_name == root.name)

    def make_function(self, fn):
        """``fn`` with its converted code: the innermost function of its
        ``__wrapped__`` chain runs the converted code, and each decorator's
        wrapper around it is rebuilt to call the converted function instead,
        so decorators keep their effect (as eagerly)."""
        return _rewrapped(fn, self._make_plain(inspect.unwrap(fn)))

    def _make_plain(self, fn):
        """A function object running the converted code with ``fn``'s globals,
        defaults and (live) closure cells."""
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        closure = []
        for name in self.code.co_freevars:
            if name == '_jst':
                closure.append(types.CellType(convert_ops))
            elif name in cells:
                closure.append(cells[name])
            else:
                raise ConversionError("converted %s needs the free variable '%s', which the "
                                      "original function does not have" % (fn.__qualname__, name))
        new = types.FunctionType(self.code, fn.__globals__, fn.__name__, fn.__defaults__,
                                 tuple(closure))
        new.__kwdefaults__ = fn.__kwdefaults__
        new.__dict__.update(getattr(fn, '__dict__', {}))
        new.__qualname__ = fn.__qualname__
        new.__doc__ = fn.__doc__
        new.__jst_converted__ = True
        return new


def _rewrapped(fn, inner):
    """``fn``'s chain of decorator wrappers (``functools.wraps`` sets
    ``__wrapped__``) rebuilt around ``inner`` in place of the innermost
    function. A wrapper that cannot be rebuilt leaves ``fn`` running
    unconverted, as the log says."""
    if not hasattr(fn, '__wrapped__'):
        return inner
    rebuilt = _with_wrapped(fn, _rewrapped(fn.__wrapped__, inner))
    if rebuilt is None:
        log.warn("@to_static cannot re-apply the decorator wrapper %s to the converted "
                 "function: it does not hold the function it wraps in a closure variable or "
                 "an attribute; %s runs unconverted"
                 % (getattr(fn, '__qualname__', type(fn).__name__),
                    getattr(inspect.unwrap(fn), '__qualname__', fn)))
        return fn
    return rebuilt


def _with_wrapped(wrapper, new_target):
    """A copy of ``wrapper`` that wraps ``new_target`` instead of its
    ``__wrapped__``: a function with the closure cell holding the old target
    replaced, or a decorator object (``no_grad(fn)``) with the attribute
    holding it replaced; None for a wrapper that is neither."""
    target = wrapper.__wrapped__
    if isinstance(wrapper, types.FunctionType):
        cells, found = [], False
        for cell in wrapper.__closure__ or ():
            try:
                held = cell.cell_contents
            except ValueError:                # an empty cell
                held = None
            if held is target:
                cell, found = types.CellType(new_target), True
            cells.append(cell)
        if not found:
            return None
        new = types.FunctionType(wrapper.__code__, wrapper.__globals__, wrapper.__name__,
                                 wrapper.__defaults__, tuple(cells))
        new.__kwdefaults__ = wrapper.__kwdefaults__
        new.__dict__.update(wrapper.__dict__)
        new.__qualname__ = wrapper.__qualname__
        new.__doc__ = wrapper.__doc__
    else:
        attrs = [k for k, v in getattr(wrapper, '__dict__', {}).items()
                 if v is target and k != '__wrapped__']
        if not attrs:
            return None
        new = copy.copy(wrapper)
        for k in attrs:
            setattr(new, k, new_target)
    new.__wrapped__ = new_target
    return new


def converted(fn):
    """The ``ConvertedFunction`` for ``fn`` (cached by code object)."""
    code = inspect.unwrap(fn).__code__
    c = _code_cache.get(code)
    if c is None:
        c = _code_cache[code] = ConvertedFunction(fn)
    return c


def convert_to_static(fn):
    """A plain function with ``fn``'s behaviour whose control flow is converted."""
    if isinstance(fn, types.MethodType):
        return types.MethodType(convert_to_static(fn.__func__), fn.__self__)
    return converted(fn).make_function(fn)
