"""Generate a plain Python function from a Program.

``generate`` turns the executor's copy of a program, after its passes
(``executor.compile_program``), into one Python function in which every
kernel and attribute is a pre-bound global, every variable a local, and each
value is dropped after its last use.
Control-flow ops (``cond``, ``while``) emit their own code, their sub-blocks
inline (``if``, ``while`` statements), through their OpDef's ``emit`` hook.

The code is meant to be read (``Executor.generated_code`` returns it): each
variable's local is named after it (``fc_0.w_0`` -> ``fc_0_w_0``), each
kernel after its op type (``k_matmul``), and each op's line ends with a
comment naming the op, its place in the compiled program and the user's
line that built it. With ``check_nan_inf`` (``FLAGS_check_nan_inf``) the
same code checks each op's outputs right after the op, so the first op
producing NaN or Inf raises, naming the op and the output variable.
"""
import builtins
import keyword
import linecache
import os
import re
import sys

import numpy as np

from ..backends import plain
from ..ops import registry
from ..ops.registry import OpError, active_backend
from . import lean
from .operands import input_args, kernel_attr, output_names
from .passes.analysis import ShapeClasses, Usage, persistable_writes

# helpers the generated code may call, by global name
RUNTIME = {}
# Where the inplace pass set attr ``op_inplace`` (the index of the input whose
# buffer dies at this op), the op's ``kernel_into`` computes into that buffer.
# Attr ``op_free`` lists names whose last use is this op. Where the layout
# pass set ``op_layout``, the op's layout kernel runs (``k_conv2d_layout_out``:
# leaving output ``out`` in the backend's layout).


# ---- code generation ------------------------------------------------------------

# identifiers the generated code uses itself: no variable's local may take them
# (a control-flow emitter writing a fixed local name, like ``__snap``, adds it here)
_RESERVED = (set(keyword.kwlist) | set(dir(builtins))
             | {'S', 'F', '_', '__snap', 'run', 'np'})


def _identifier(name):
    """``name`` (a variable, op type or hint) as a Python identifier:
    ``fc_0.w_0@GRAD`` -> ``fc_0_w_0_GRAD``."""
    ident = re.sub(r'\W', '_', name, flags=re.ASCII) or '_v'
    return '_' + ident if ident[0].isdigit() else ident


def _check_finite(op, name, value, ins):
    """After ``op`` ran (plans compiled with ``check_nan_inf``): raise if its
    output ``name`` holds NaN or Inf, naming the op, the output, its input
    shapes and the user's line that built it."""
    if _finite(value):
        return
    where = op.attrs.get('op_location')
    raise FloatingPointError(
        "op '%s' produced NaN or Inf in output '%s' (FLAGS_check_nan_inf is on)%s\n"
        "  input shapes: [%s]\n  op: %r"
        % (op.type, name, (' at %s' % where) if where else '',
           ', '.join(str(list(np.shape(a))) for a in ins), op))


def _finite(value):
    """Whether a kernel result holds no NaN/Inf (lists: tensor arrays, each
    element checked; non-numeric values pass)."""
    if isinstance(value, (list, tuple)):
        return all(_finite(v) for v in value)
    if not isinstance(value, (np.ndarray, np.generic, float, complex)):
        return True
    a = np.asarray(value)
    return a.dtype.kind not in 'fc' or bool(np.isfinite(a).all())


class _Emitter:
    """The generated module: its lines, its globals (kernels as ``k_<op type>``,
    attributes, captured tensors) and the locals, each named after its variable."""

    def __init__(self, program, captured, check_nan_inf=False, lean_shapes=None,
                 backend='numpy'):
        self.program = program
        self.check_nan_inf = check_nan_inf
        self.backend = backend    # whose kernels the plan calls (ops/backends.py)
        # numpy called directly where the Program's dtypes and shapes allow
        # (lean.py), proved with the program's symbolic shapes; None: kernel calls only
        self.lean_shapes = lean_shapes
        self.glb = {'np': np, '_load': _load, '_asarray': np.asarray,
                    '_check_finite': _check_finite, '_plain': plain}
        # feeds that may arrive opaque and are made plain first (passes/layout.py)
        self.plain_on_entry = getattr(program, '_plain_on_entry', frozenset())
        self.glb.update(RUNTIME)
        self.taken = _RESERVED | set(self.glb)
        self.suffixes = {}        # identifier base -> the last suffix given to it
        self.kernels = {}         # (op type, id(kernel)) -> global name
        self.tensors = {}         # captured variable name -> global name
        self.op_index = {}        # id(block) -> {id(op): its index in the block}
        self.lines = []
        self.line_ops = {}        # generated line number -> op
        # counts identifiers made; control-flow emitters number their own names with it
        self.counter = 0
        self.captured = captured

    def unique(self, base):
        """A fresh identifier made from ``base`` (``base``, ``base_1``, ...)."""
        ident = _identifier(base)
        name, i = ident, self.suffixes.get(ident, 0)
        while name in self.taken:
            i += 1
            name = '%s_%d' % (ident, i)
        self.suffixes[ident] = i          # the next one with this base starts here
        self.taken.add(name)
        self.counter += 1
        return name

    def const(self, value, base):
        """Bind ``value`` as a global named after ``base``; returns its name."""
        name = self.unique(base)
        self.glb[name] = value
        return name

    def kernel(self, op_type, fn, suffix=''):
        """The global holding kernel ``fn`` of ``op_type`` (one per kernel)."""
        key = (op_type, id(fn))
        name = self.kernels.get(key)
        if name is None:
            name = self.kernels[key] = self.const(fn, 'k_' + op_type + suffix)
        return name

    def tensor(self, var_name):
        """The global holding the captured tensor of variable ``var_name``."""
        name = self.tensors.get(var_name)
        if name is None:
            name = self.tensors[var_name] = self.const(self.captured[var_name],
                                                       'tensor_' + var_name)
        return name

    def literal(self, value, base='attr'):
        """Source text for an attribute: inline simple literals, else a global."""
        if _is_literal(value):
            return repr(value)
        return self.const(value, base)

    def describe(self, op):
        """The comment on an op's line: its type, its place in the compiled
        program and the user's line that built it."""
        block = op.block
        index = self.op_index.get(id(block))
        if index is None:
            index = self.op_index[id(block)] = {id(o): i for i, o in enumerate(block.ops)}
        i = index.get(id(op))
        where = 'block %d' % block.idx if block.idx else ''
        if i is not None:
            where = '%s op %d' % (where, i) if where else 'op %d' % i
        loc = op.attrs.get('op_location')
        # the file's name is enough next to the code; the error messages give the path
        return '%s [%s]%s' % (op.type, where, ' %s' % os.path.basename(loc) if loc else '')

    def emit(self, line, indent, op=None, note=None):
        """Append a line; lines of an op remember it (errors name the op) and
        end with ``note`` as a comment."""
        line = '    ' * indent + line
        if note:
            line = '%s  # %s' % (line.ljust(_COMMENT_COLUMN - 2), note)
        self.lines.append(line)
        if op is not None:
            self.line_ops[len(self.lines)] = op


_COMMENT_COLUMN = 64


def _is_literal(v):
    if v is None or isinstance(v, (bool, int, str)):
        return True
    if isinstance(v, float):
        return np.isfinite(v)
    if isinstance(v, tuple):
        return all(_is_literal(x) for x in v)
    return False


class _BlockCode:
    """Code for one block: variable name -> Python local name."""

    def __init__(self, em, block, indent, feeds=(), local=None):
        self.em = em
        self.block = block
        self.indent = indent
        # variable names are unique program-wide, so nested blocks share one map
        # of the variables that hold a value at this point of the code
        self.local = {} if local is None else local
        self.feeds = set(feeds)

    def sub(self, block, extra_indent=1):
        """Code for a sub-block, emitted inline (same function, same locals)."""
        return _BlockCode(self.em, block, self.indent + extra_indent, self.feeds, self.local)

    def emit(self, line, op=None):
        self.em.emit(line, self.indent, op, self.em.describe(op) if op is not None else None)

    def emit_ops(self, ops):
        for op in ops:
            self.emit_op(op)

    def ref(self, name):
        """The local holding variable ``name``, loading it on first use."""
        loc = self.local.get(name)
        if loc is not None:
            return loc
        loc = self.local[name] = self.em.unique(name)
        if name in self.em.plain_on_entry:
            # it may arrive in the backend's layout (passes/layout.py)
            self.em.emit('%s = _plain(F[%r])' % (loc, name), self.indent)
        elif name in self.feeds:
            self.em.emit('%s = F[%r]' % (loc, name), self.indent)
        elif name in self.em.captured:
            self.em.emit('%s = %s.data' % (loc, self.em.tensor(name)), self.indent)
        else:
            self.em.emit('%s = _load(S, %r)' % (loc, name), self.indent)
        return loc

    def new(self, name):
        """A fresh local for a value of variable ``name`` (``name``, then
        ``name_1``, ... when the variable is assigned again, or when a
        control-flow emitter reuses a temporary's name)."""
        loc = self.local[name] = self.em.unique(name)
        return loc

    def emit_op(self, op):
        opdef = registry.lookup(op.type)
        if opdef.emit is not None:
            # a parameter written in a branch or loop body is read again from its
            # storage afterwards (the local may hold a value of a path not taken)
            written = persistable_writes(self.block.program, op)
            self.forget(written)
            opdef.emit(self, op)
            self.forget(written)
            return
        parts, ins = [], []
        for name, variadic in zip(opdef.input_names, opdef.variadic):
            names = op.inputs.get(name, [])
            if variadic:
                locs = [self.ref(n) for n in names]
                parts.append('[%s]' % ', '.join(locs))
                ins.extend(locs)
            elif not names:
                parts.append('None')
            else:
                parts.append(self.ref(names[0]))
                ins.append(parts[-1])
        attrs = {}
        for name, default in zip(opdef.attr_names, opdef.attr_defaults):
            value = attrs[name] = kernel_attr(op.attrs[name]) if name in op.attrs else default
            parts.append(self.em.literal(value, '%s_%s' % (op.type, name)))
        outs = output_names(opdef, op)
        reuse = op.attrs.get('op_inplace')
        layout = op.attrs.get('op_layout')
        code = self.lean_code(op, opdef, attrs, parts, outs, reuse) \
            if self.em.lean_shapes is not None and layout is None else None
        if layout is not None:
            # values pass in the backend's own layout (passes/layout.py): the
            # kernel's name says which outputs it leaves so
            kernel = self.em.kernel(op.type, opdef.layout_kernel_for(self.em.backend, layout),
                                    '_layout' + ''.join('_' + n for n in layout))
            self.emit_call(op, opdef, '%s(%s)' % (kernel, ', '.join(parts)), outs)
        elif code is not None:
            self.emit_lean(op, code, outs)
        else:
            kernel = self.em.kernel(op.type, opdef.kernel_for(self.em.backend))
            if reuse is not None:
                kernel = self.em.kernel(op.type, opdef.kernel_into, '_inplace')
                parts.append(parts[reuse])
            self.emit_call(op, opdef, '%s(%s)' % (kernel, ', '.join(parts)), outs)
        if self.em.check_nan_inf:
            self.emit_nan_inf_checks(op, outs, ins)
        self.store_persistable(outs)
        dead = [self.local.pop(n) for n in op.attrs.get('op_free', ()) if n in self.local]
        if dead:
            self.em.emit('del %s' % ', '.join(dead), self.indent)

    def emit_call(self, op, opdef, call, outs):
        """``outs`` (variable names, None for unused) = the value of ``call``."""
        if opdef.variadic_out:
            tmp = self.em.unique(op.type + '_outs')
            self.emit('%s = %s' % (tmp, call), op)
            for i, n in enumerate(outs):
                self.em.emit('%s = %s[%d]' % (self.new(n), tmp, i), self.indent)
        elif len(outs) == 1:
            self.emit('%s = %s' % (self.new(outs[0]), call), op)
        else:
            targets = [self.new(n) if n is not None else '_' for n in outs]
            self.emit('%s = %s' % (', '.join(targets), call), op)

    def lean_code(self, op, opdef, attrs, parts, outs, reuse):
        """``lean.specialize``'s code for this op, or None (the kernel call)."""
        if self.em.backend in opdef.kernels and self.em.backend != 'numpy':
            return None       # the backend's kernel, not numpy code in its place
        ins = input_args(opdef, op, self.local.__getitem__)
        in_vars = input_args(opdef, op, self.block._find_var)
        out_vars = [self.block._find_var(n) if n is not None else None for n in outs]
        return lean.specialize(lean.Call(op, opdef, ins, in_vars, out_vars, attrs, parts,
                                         self.em.lean_shapes, self.em.const, self.em.kernel,
                                         reuse))

    def emit_lean(self, op, code, outs):
        if code.exprs is not None:
            targets = [self.new(n) if n is not None else '_' for n in outs]
            self.emit('%s = %s' % (', '.join(targets), ', '.join(code.exprs)), op)
            return
        if len(outs) != 1 or outs[0] is None:
            self.emit_call(op, registry.lookup(op.type), code.expr, outs)
            return
        out = self.new(outs[0])
        # one line per op: errors and line_ops name the op by its line
        self.emit('; '.join(['%s = %s' % (out, code.expr)] +
                            [line.format(out=out) for line in code.after]), op)

    def emit_nan_inf_checks(self, op, outs, ins):
        """One check per output of ``op``, right after it ran (so the first op
        producing NaN/Inf raises, inside branches and loop bodies as well)."""
        op_global = self.em.const(op, 'op_' + op.type)
        inputs = '(%s,)' % ins[0] if len(ins) == 1 else '(%s)' % ', '.join(ins)
        for n in outs:
            if n is not None:
                self.em.emit('_check_finite(%s, %r, %s, %s)' % (
                    op_global, n, self.local[n], inputs), self.indent)

    def forget(self, names):
        """Drop the locals of ``names``: the next use loads them from storage."""
        for n in names:
            self.local.pop(n, None)

    def store_persistable(self, outs):
        for n in outs:
            if n is None:
                continue
            v = self.block._find_var(n)
            if v is not None and v.persistable:
                if n in self.em.captured:
                    self.em.emit('%s.data = _asarray(%s)' % (self.em.tensor(n), self.local[n]),
                                 self.indent)
                else:
                    self.em.emit('S[%r] = _asarray(%s)' % (n, self.local[n]), self.indent)


def _load(scope, name):
    try:
        v = scope[name]
    except KeyError:
        v = None
    if v is None:
        raise RuntimeError(
            "variable '%s' has no value: feed it, or run the startup program first "
            "(exe.run(static.default_startup_program())) to initialise parameters" % name)
    return v


class Plan:
    """A compiled program: ``plan(scope_vars, feeds) -> [fetched values]``."""

    def __init__(self, program, fn, source, line_ops, filename):
        self.program = program
        self.fn = fn
        self.source = source
        self.line_ops = line_ops
        self.filename = filename

    def __call__(self, scope_vars, feeds):
        try:
            return self.fn(scope_vars, feeds)
        except (OpError, RuntimeError, AssertionError, FloatingPointError):
            raise
        except Exception as e:
            op = self._failing_op(sys.exc_info()[2])
            if op is None:
                raise
            error = OpError("op '%s' failed while running the program: %s: %s\n  op: %r"
                            % (op.type, type(e).__name__, e, op))
            error.op_location = op.attrs.get('op_location')   # the user's line that built it
            raise error from e

    def _failing_op(self, tb):
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                return self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


_plan_counter = [0]


def generate(program, feed_names, fetch_names, captured, check_nan_inf=False, lean=True,
             backend=None):
    """A ``Plan`` running ``program`` (the executor's copy, after its passes):
    one generated Python function computing ``fetch_names`` from
    ``feed_names`` (and the scope); ``check_nan_inf``: every op's outputs are
    checked for NaN/Inf as it runs; ``lean``: numpy called directly where the
    Program's dtypes and shapes allow (``lean.py``); ``backend``: whose
    kernels it calls (None: the active backend's)."""
    shapes = ShapeClasses(program, Usage(program, feed_names, fetch_names)) if lean else None
    em = _Emitter(program, captured, check_nan_inf, lean_shapes=shapes,
                  backend=backend or active_backend())
    em.emit('# S: the scope values by name, F: the feeds by name; returns the fetches', 0)
    em.emit('def run(S, F):', 0)
    gb = program.global_block()
    code = _BlockCode(em, gb, 1, feed_names)
    for op in gb.ops:
        code.emit_op(op)
    em.emit('return [%s]' % ', '.join(code.ref(n) for n in fetch_names), 1)
    source = '\n'.join(em.lines) + '\n'
    _plan_counter[0] += 1
    filename = '<static-plan-%d>' % _plan_counter[0]
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, 'exec'), em.glb)   # our own generated code only
    return Plan(program, em.glb['run'], source, em.line_ops, filename)
