"""Small helpers for building and inspecting gast trees."""
import itertools

import gast

JST = '_jst'
_counter = itertools.count()


def fresh(prefix):
    """A unique generated name (never clashes with user names: starts with __jst)."""
    return '__jst_%s_%d' % (prefix, next(_counter))


def load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def param(name):
    return gast.Name(id=name, ctx=gast.Param(), annotation=None, type_comment=None)


def const(value):
    return gast.Constant(value=value, kind=None)


def jst(attr):
    """``_jst.<attr>``"""
    return gast.Attribute(value=load(JST), attr=attr, ctx=gast.Load())


def call(func, args=(), keywords=()):
    return gast.Call(func=func, args=list(args), keywords=list(keywords))


def tuple_of(nodes, ctx=None):
    return gast.Tuple(elts=list(nodes), ctx=ctx or gast.Load())


def names_tuple(names, ctx='load'):
    make = {'load': load, 'store': store}[ctx]
    return tuple_of([make(n) for n in names], gast.Load() if ctx == 'load' else gast.Store())


def assign(targets_names, value):
    if isinstance(targets_names, str):
        target = store(targets_names)
    else:
        target = names_tuple(targets_names, 'store')
    return gast.Assign(targets=[target], value=value, type_comment=None)


def function(name, arg_names, body, lineno_from=None):
    args = gast.arguments(args=[param(n) for n in arg_names], posonlyargs=[], vararg=None,
                          kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    fn = gast.FunctionDef(name=name, args=args, body=body or [gast.Pass()],
                          decorator_list=[], returns=None, type_comment=None, type_params=[])
    if lineno_from is not None:
        gast.copy_location(fn, lineno_from)
    return fn


def lambda_(body):
    args = gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                          kw_defaults=[], kwarg=None, defaults=[])
    return gast.Lambda(args=args, body=body)


def ret(names):
    return gast.Return(value=names_tuple(names))


def located(node, origin):
    """Give ``node`` and its children without a location ``origin``'s line."""
    for n in gast.walk(node):
        if 'lineno' in n._attributes and getattr(n, 'lineno', None) is None:
            gast.copy_location(n, origin)
    return node


class _Assigned(gast.NodeVisitor):
    """Names bound by a list of statements, not looking inside nested scopes."""

    def __init__(self):
        self.names = []

    def _add(self, name):
        if name not in self.names:
            self.names.append(name)

    def visit_Name(self, node):
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            self._add(node.id)

    def visit_FunctionDef(self, node):
        self._add(node.name)      # the def binds its name; its body is another scope

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._add(node.name)

    def visit_Lambda(self, node):
        pass

    def visit_ListComp(self, node):
        pass

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Import(self, node):
        for a in node.names:
            self._add((a.asname or a.name).split('.')[0])

    visit_ImportFrom = visit_Import

    def visit_alias(self, node):
        pass


def assigned_names(stmts):
    v = _Assigned()
    for s in stmts if isinstance(stmts, list) else [stmts]:
        v.visit(s)
    return v.names


class _SubscriptStores(_Assigned):
    """Names whose items are assigned (``x[i] = v``, ``x[i] += v``,
    ``del x[i]``, ``x[i][j] = v``), not looking inside nested scopes."""

    def visit_Name(self, node):
        pass

    def visit_FunctionDef(self, node):
        pass

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Import(self, node):
        pass

    visit_ImportFrom = visit_Import

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.ctx, (gast.Store, gast.Del)):
            base = node.value
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name):
                self._add(base.id)


def subscript_stored_names(stmts):
    v = _SubscriptStores()
    for s in stmts if isinstance(stmts, list) else [stmts]:
        v.visit(s)
    return v.names


def read_names(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def contains(stmts, types, stop_at=(gast.FunctionDef, gast.Lambda, gast.ClassDef)):
    """True if any node of ``types`` appears in ``stmts`` (not inside nested scopes
    or the types in ``stop_at``)."""
    stack = list(stmts) if isinstance(stmts, list) else [stmts]
    while stack:
        n = stack.pop()
        if isinstance(n, types):
            return True
        if isinstance(n, stop_at):
            continue
        stack.extend(gast.iter_child_nodes(n))
    return False
