"""Compile a Program into a plain Python function, or interpret it op by op.

``compile_program`` works on a copy of the program: prune to what the fetches
and side effects need, run the optimisation passes, then generate one Python
function per block in which every kernel and attribute is a pre-bound global,
every variable a local, and each value is dropped after its last use.
Control-flow ops (``cond``, ``while``) emit their own code, their sub-blocks
inline, through their OpDef's ``emit`` hook (``interpret`` in the interpreter).
"""
import linecache
import sys

import numpy as np

from ..ops import registry
from ..ops.registry import OpError
from .sub_blocks import outer_reads, sub_block_ids

# helpers the generated code may call, by global name
RUNTIME = {}
# op type -> fn(*inputs, *attrs, out) computing the op into ``out``; used where
# the inplace pass set attr ``op_inplace`` (the index of the input whose buffer
# dies at this op). Attr ``op_free`` lists names whose last use is this op.
INPLACE_KERNELS = {}
# op types that must run even when nothing fetched depends on them
SIDE_EFFECT_OPS = {'print', 'python_print', 'assert'}   # ops/control.py


def kernel_attr(v):
    """Attributes are stored as JSON lists; kernels get tuples (hashable, and
    what numpy expects for axes)."""
    if isinstance(v, list):
        return tuple(kernel_attr(x) for x in v)
    return v


def op_args(opdef, op, value_of):
    """Positional kernel arguments for ``op``: inputs in declaration order,
    then attributes (defaults where the op desc has none)."""
    args = []
    for name, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(name, [])
        if variadic:
            args.append([value_of(n) for n in names])
        elif not names:
            args.append(None)
        else:
            args.append(value_of(names[0]))
    for name, default in zip(opdef.attr_names, opdef.attr_defaults):
        args.append(kernel_attr(op.attrs[name]) if name in op.attrs else default)
    return args


def output_names(opdef, op):
    if opdef.variadic_out:
        return list(op.outputs.get(opdef.output_names[0], []))
    return [op.outputs.get(n, [None])[0] if op.outputs.get(n) else None
            for n in opdef.output_names]


# ---- pruning ------------------------------------------------------------------

def has_side_effects(program, block, op):
    """Prints, asserts and writes of persistable variables, also inside the
    sub-blocks (branches, loop bodies) of a control-flow op."""
    if op.type in SIDE_EFFECT_OPS:
        return True
    for n in op.output_arg_names:
        v = block._find_var(n)
        if v is not None and v.persistable:
            return True
    return any(has_side_effects(program, sub, o)
               for sub in _sub_blocks(program, op) for o in sub.ops)


def _sub_blocks(program, op):
    return [program.block(i) for i in sub_block_ids(op)]


def persistable_writes(program, op):
    """Persistable variables written inside the sub-blocks of ``op``."""
    names = set()
    for sub in _sub_blocks(program, op):
        for o in sub.ops:
            for n in o.output_arg_names:
                v = sub._find_var(n)
                if v is not None and v.persistable:
                    names.add(n)
            names |= persistable_writes(program, o)
    return names


def _keeps_side_effects(side_effects, op):
    """``side_effects``: True/False for all ops or none, or an op role:
    'forward' (all but backward ops) or 'backward' (only backward ops)."""
    if side_effects in (True, False):
        return side_effects
    backward = op.attrs.get('op_role') == 'backward'
    return backward if side_effects == 'backward' else not backward


def prune_block(program, block, needed, available=(), side_effects=True):
    """Keep the ops that produce ``needed`` names, write persistable variables
    or have side effects (of the kinds ``side_effects`` names, see
    ``_keeps_side_effects``); returns the kept ops (in order). Names in
    ``available`` are fed, so their producers are not needed for them."""
    available = set(available)
    needed = set(needed) - available
    kept = []
    for op in reversed(block.ops):
        outs = op.output_arg_names
        side = _keeps_side_effects(side_effects, op) and has_side_effects(program, block, op)
        if available and not side and set(outs) <= available:
            continue
        if side or needed.intersection(outs):
            kept.append(op)
            needed.update(n for n in outer_reads(program, op) if n not in available)
    kept.reverse()
    return kept


# ---- code generation ------------------------------------------------------------

def _check_finite(op, outs, ins):
    """After ``op`` ran (plans compiled with ``check_nan_inf``): raise if an
    output holds NaN or Inf, naming the op, its input shapes and the user's
    line that built it."""
    for v in outs:
        v = np.asarray(v) if not isinstance(v, np.ndarray) else v
        if v.dtype.kind in 'fc' and not np.isfinite(v).all():
            where = op.attrs.get('op_location')
            raise FloatingPointError(
                "op '%s' produced NaN or Inf (FLAGS_check_nan_inf is on)%s\n  input shapes: "
                "[%s]\n  op: %r" % (op.type, (' at %s' % where) if where else '',
                                    ', '.join(str(list(np.shape(a))) for a in ins), op))


class _Emitter:
    def __init__(self, program, captured, check_nan_inf=False):
        self.program = program
        self.check_nan_inf = check_nan_inf
        self.glb = {'np': np, '_load': _load, '_asarray': np.asarray,
                    '_check_finite': _check_finite}
        self.glb.update(RUNTIME)
        self.lines = []
        self.line_ops = {}        # generated line number -> op
        self.counter = 0
        self.captured = captured

    def const(self, value, prefix='A'):
        name = '%s%d' % (prefix, self.counter)
        self.counter += 1
        self.glb[name] = value
        return name

    def literal(self, value):
        """Source text for an attribute: inline simple literals, else a global."""
        if _is_literal(value):
            return repr(value)
        return self.const(value)

    def emit(self, line, indent, op=None):
        self.lines.append('    ' * indent + line)
        if op is not None:
            self.line_ops[len(self.lines)] = op


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

    def __init__(self, em, block, indent, feeds=(), local=None, replay=False):
        self.em = em
        self.block = block
        self.indent = indent
        # variable names are unique program-wide, so nested blocks share one map
        self.local = {} if local is None else local
        self.feeds = set(feeds)
        # a forward block run again by backward: its prints and asserts are skipped
        self.replay = replay

    def sub(self, block, extra_indent=1, replay=None):
        """Code for a sub-block, emitted inline (same function, same locals);
        ``replay``: backward recomputing a forward block (default: as this one)."""
        return _BlockCode(self.em, block, self.indent + extra_indent, self.feeds, self.local,
                          self.replay if replay is None else replay)

    def emit(self, line, op=None):
        self.em.emit(line, self.indent, op)

    def emit_ops(self, ops):
        for op in ops:
            self.emit_op(op)

    def ref(self, name):
        """The local holding variable ``name``, loading it on first use."""
        loc = self.local.get(name)
        if loc is not None:
            return loc
        loc = self.local[name] = 'v%d' % self.em.counter
        self.em.counter += 1
        if name in self.feeds:
            self.em.emit('%s = F[%r]' % (loc, name), self.indent)
        elif name in self.em.captured:
            t = self.em.const(self.em.captured[name], 'C')
            self.em.emit('%s = %s.data' % (loc, t), self.indent)
        else:
            self.em.emit('%s = _load(S, %r)' % (loc, name), self.indent)
        return loc

    def new(self, name):
        loc = self.local[name] = 'v%d' % self.em.counter
        self.em.counter += 1
        return loc

    def emit_op(self, op):
        if self.replay and op.type in SIDE_EFFECT_OPS:
            return
        opdef = registry.lookup(op.type)
        if opdef.emit is not None:
            # a parameter written in a branch or loop body is read again from its
            # storage afterwards (the local may hold a value of a path not taken)
            written = persistable_writes(self.block.program, op)
            self.forget(written)
            opdef.emit(self, op)
            self.forget(written)
            return
        parts = []
        for name, variadic in zip(opdef.input_names, opdef.variadic):
            names = op.inputs.get(name, [])
            if variadic:
                parts.append('[%s]' % ', '.join(self.ref(n) for n in names))
            elif not names:
                parts.append('None')
            else:
                parts.append(self.ref(names[0]))
        for name, default in zip(opdef.attr_names, opdef.attr_defaults):
            value = kernel_attr(op.attrs[name]) if name in op.attrs else default
            parts.append(self.em.literal(value))
        kernel = opdef.kernel
        reuse = op.attrs.get('op_inplace')
        if reuse is not None:
            kernel = INPLACE_KERNELS[op.type]
            parts.append(parts[reuse])
        k = self.em.const(kernel, 'K')
        outs = output_names(opdef, op)
        call = '%s(%s)' % (k, ', '.join(parts))
        if opdef.variadic_out:
            tmp = self.new('__tmp%d' % self.em.counter)
            self.em.emit('%s = %s' % (tmp, call), self.indent, op)
            for i, n in enumerate(outs):
                self.em.emit('%s = %s[%d]' % (self.new(n), tmp, i), self.indent)
        elif len(outs) == 1:
            self.em.emit('%s = %s' % (self.new(outs[0]), call), self.indent, op)
        else:
            targets = [self.new(n) if n is not None else '_' for n in outs]
            self.em.emit('%s = %s' % (', '.join(targets), call), self.indent, op)
        if self.em.check_nan_inf:
            self.em.emit('_check_finite(%s, [%s], [%s])' % (
                self.em.const(op, 'O'), ', '.join(self.local[n] for n in outs if n is not None),
                ', '.join(p for p in parts[:len(opdef.input_names)] if p != 'None')),
                self.indent, op)
        self.store_persistable(outs)
        dead = [self.local.pop(n) for n in op.attrs.get('op_free', ()) if n in self.local]
        if dead:
            self.em.emit('del %s' % ', '.join(dead), self.indent)

    def forget(self, names):
        """Drop the locals of ``names``: the next use loads them from storage."""
        for n in names:
            self.local.pop(n, None)

    def store_persistable(self, outs):
        if self.replay:
            return          # backward recomputing a block must not write parameters again
        for n in outs:
            if n is None:
                continue
            v = self.block._find_var(n)
            if v is not None and v.persistable:
                if n in self.em.captured:
                    t = self.em.const(self.em.captured[n], 'C')
                    self.em.emit('%s.data = _asarray(%s)' % (t, self.local[n]), self.indent)
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
            raise OpError("op '%s' failed while running the program: %s: %s\n  op: %r"
                          % (op.type, type(e).__name__, e, op)) from e

    def _failing_op(self, tb):
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                return self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


_plan_counter = [0]


def compile_program(program, feed_names, fetch_names, strategy=None, side_effects=True,
                    check_nan_inf=False):
    """A ``Plan`` computing ``fetch_names`` from ``feed_names`` (and the scope);
    ``check_nan_inf``: every op's outputs are checked for NaN/Inf as it runs."""
    from .passes import run_passes
    work = program.clone()
    work._captured = program._captured
    gb = work.global_block()
    for n in fetch_names:
        if gb._find_var(n) is None and not any(b._find_var(n) is not None for b in work.blocks):
            raise ValueError("fetch target '%s' is not a variable of the program" % n)
    gb.ops = prune_block(work, gb, fetch_names, feed_names, side_effects)
    if strategy is not None:
        run_passes(work, feed_names, fetch_names, strategy)
    em = _Emitter(work, program._captured, check_nan_inf)
    em.emit('def run(S, F):', 0)
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


# ---- interpreter (debugging, NaN/Inf checks) ------------------------------------

def interpret(program, feeds, fetch_names, scope_vars, check_nan_inf=True):
    """Run op by op; with ``check_nan_inf`` name the first op producing NaN/Inf."""
    gb = program.global_block()
    env = dict(feeds)

    def value_of(n):
        if n in env:
            return env[n]
        if n in program._captured:
            return program._captured[n].data
        return _load(scope_vars, n)

    run_ops(program, gb, prune_block(program, gb, fetch_names), env, value_of,
            scope_vars, check_nan_inf)
    return [value_of(n) for n in fetch_names]


def run_ops(program, block, ops, env, value_of, scope_vars, check_nan_inf):
    for op in ops:
        opdef = registry.lookup(op.type)
        if opdef.interpret is not None:
            opdef.interpret(program, op, env, value_of, scope_vars, check_nan_inf)
            continue
        out = opdef.kernel(*op_args(opdef, op, value_of))
        names = output_names(opdef, op)
        values = list(out) if (opdef.variadic_out or len(names) > 1) else [out]
        for n, v in zip(names, values):
            if n is None:
                continue
            v = np.asarray(v)
            if check_nan_inf and v.dtype.kind == 'f' and not np.all(np.isfinite(v)):
                raise FloatingPointError(
                    "op '%s' produced NaN or Inf in output '%s' (first such op in the "
                    "program)\n  op: %r" % (op.type, n, op))
            env[n] = v
            var = block._find_var(n)
            if var is not None and var.persistable:
                if n in program._captured:
                    program._captured[n].data = v
                else:
                    scope_vars[n] = v
