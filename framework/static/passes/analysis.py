"""Program-wide facts the passes share: who defines and reads each name,
which ops are pure, which values are compile-time constants.

Names are unique program-wide, but a name may still be written by several ops
(``x[i] = v`` renames an op's output onto ``x``; ops with an ``inplace_map``
write their input; control-flow ops assign the placeholders named in their
attributes). Passes only rewrite values that are *stable*: one value for the
whole run, so reading the name anywhere after its definition gives the same
array.
"""
import collections

import numpy as np

from ...ops import registry
from .. import codegen
from ..sub_blocks import runs_sub_blocks, sub_block_ids

# ops whose outputs are constants built from attributes alone
CONSTANT_OPS = ('assign_value', 'full')


def is_structural(op):
    """Control flow (an op declaring sub-blocks) and anything the kernel
    registry does not know."""
    return runs_sub_blocks(op) or not registry.has_op(op.type)


def attr_strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from attr_strings(x)


def all_vars(program):
    out = {}
    for b in program.blocks:
        out.update(b.vars)
    return out


def is_pure(op):
    """A registered, deterministic op without side effects: running it twice,
    earlier, or not at all (when nothing reads it) changes nothing else."""
    if is_structural(op) or op.type in codegen.SIDE_EFFECT_OPS:
        return False
    opdef = registry.lookup(op.type)
    return not opdef.random and not opdef.inplace_map


class Usage:
    """Definitions, readers and pins of every name in a program.

    ``defs[name]``     ops writing it (op outputs, any block)
    ``readers[name]``  ops reading it (op inputs, any block; a control-flow op
                       also reads every name in its attributes)
    ``pinned``         names that appear in some op's attributes (loop
                       placeholders, branch outputs...): never renamed or removed
    """

    def __init__(self, program, feed_names=(), fetch_names=()):
        self.program = program
        self.vars = all_vars(program)
        self.feeds = set(feed_names)
        self.fetches = set(fetch_names)
        self.captured = set(program._captured)
        self.defs = collections.defaultdict(list)
        self.readers = collections.defaultdict(list)
        self.pinned = set()
        self.block_of = {}          # op id -> block index
        for b in program.blocks:
            for op in b.ops:
                self.block_of[id(op)] = b.idx
                for n in op.input_arg_names:
                    self.readers[n].append(op)
                for n in op.output_arg_names:
                    self.defs[n].append(op)
                for s in attr_strings(list(op.attrs.values())):
                    if s in self.vars:
                        self.pinned.add(s)
                        self.readers[s].append(op)
                        if is_structural(op):
                            self.defs[s].append(op)

    def var(self, name):
        return self.vars.get(name)

    def persistable(self, name):
        v = self.vars.get(name)
        return v is not None and v.persistable

    def external(self, name):
        """Fed, fetched, persistable or captured: visible outside the run."""
        return (name in self.feeds or name in self.fetches or name in self.captured
                or self.persistable(name))

    def stable(self, name):
        """One value for the whole run (see the module doc)."""
        if name in self.pinned:
            return False
        d = len(self.defs.get(name, ()))
        if d == 0:
            return True
        return d == 1 and name not in self.feeds and name not in self.captured \
            and not self.persistable(name)

    def private(self, name):
        """A stable intermediate no one outside the program sees: passes may
        rename it away or remove its definition."""
        return self.stable(name) and not self.external(name) and \
            len(self.defs.get(name, ())) == 1


def rename_uses(program, old, new, readers=None):
    """Make every op that reads ``old`` read ``new``: the given ``readers``
    (``Usage.readers[old]``), else every op of every block."""
    ops = readers if readers is not None else [op for b in program.blocks for op in b.ops]
    for op in ops:
        for slot, names in op.inputs.items():
            if old in names:
                op.inputs[slot] = [new if n == old else n for n in names]
    program._bump()


def shape_known(shape):
    return all(d >= 0 for d in shape)


def dominated(small, big):
    """True when broadcasting ``small`` against ``big`` provably gives ``big``'s
    shape (-1 = unknown dim)."""
    small, big = tuple(small), tuple(big)
    if len(small) > len(big):
        return False
    for s, b in zip(reversed(small), reversed(big)):
        if s == 1:
            continue
        if s == b and s >= 0:
            continue
        if s == -1 and b > 1:
            continue        # s must be 1 or b for the build-time broadcast to succeed
        return False
    return True


def op_attr_values(opdef, op):
    """The op's attributes in kernel order (defaults filled), as stored (lists)."""
    return [op.attrs[n] if n in op.attrs else d
            for n, d in zip(opdef.attr_names, opdef.attr_defaults)]


def constant_value(op):
    """Evaluate a constant op (``assign_value``/``full``) at compile time."""
    opdef = registry.lookup(op.type)
    args = [codegen.kernel_attr(a) for a in op_attr_values(opdef, op)]
    return np.asarray(opdef.kernel(*args))


class Constants:
    """Compile-time values of stable names defined by constant ops."""

    def __init__(self, usage, max_elements=1_000_000):
        self.usage = usage
        self.max_elements = max_elements
        self.values = {}

    def get(self, name):
        """The value of ``name`` if it is a known constant, else None."""
        if name in self.values:
            return self.values[name]
        u = self.usage
        if not u.stable(name) or name in u.feeds or u.persistable(name) \
                or name in u.captured:
            return None
        defs = u.defs.get(name, ())
        if len(defs) != 1 or defs[0].type not in CONSTANT_OPS:
            return None
        op = defs[0]
        if op.type == 'full' and _numel(op.attrs.get('shape', ())) > self.max_elements:
            return None
        try:
            value = constant_value(op)
        except Exception:    # a malformed constant fails at run time as before
            return None
        self.values[name] = value
        return value

    def set(self, name, value):
        self.values[name] = value


def _numel(shape):
    n = 1
    for d in (shape if isinstance(shape, (list, tuple)) else [shape]):
        n *= int(d)
    return n


# ops computing elementwise with broadcasting (besides the fusable ones)
_BROADCASTING = ('assign', 'cast', 'full_like', 'print', 'equal', 'not_equal', 'less_than',
                 'less_equal', 'greater_than', 'greater_equal', 'logical_and', 'logical_or',
                 'logical_xor', 'logical_not', 'isnan', 'isinf', 'isfinite', 'where',
                 'floor_divide', 'remainder', 'lerp', 'clip', 'sign', 'floor', 'ceil', 'round',
                 'trunc')
# ops whose output has the run-time shape of their ``target`` input
_SHAPE_OF_TARGET = ('reduce_as', 'expand_as', 'reshape_as', 'expand_reduced')
_REDUCTIONS = ('sum', 'mean', 'max', 'min', 'prod', 'amax', 'amin', 'logsumexp', 'all', 'any')


class ShapeClasses:
    """Symbolic run-time shapes: which stable names provably have equal shapes
    (or broadcast into each other) even where static dims are unknown (-1).

    Each dim is a known int or a symbol; an unknown dim of a feed or of an op
    without a rule gets a fresh symbol, and rules for broadcasting elementwise
    ops, ``reduce_as``/``expand_as`` (the target's dims), ``matmul``,
    reductions and ``transpose`` carry symbols from inputs to outputs. Equal
    symbols mean equal sizes at run time (given the build-time checks held).
    """

    def __init__(self, program, usage):
        from ...ops import fused
        self.usage = usage
        self.broadcasting = set(_BROADCASTING) | fused.elementwise_ops()
        self.table = {}
        for op in _program_order(program, program.global_block(), set()):
            self._visit(op)

    def dims(self, name):
        if name in self.table:
            return self.table[name]
        v = self.usage.var(name)
        if v is None or not self.usage.stable(name):
            return None
        d = tuple(x if x >= 0 else ('sym', name, i) for i, x in enumerate(v._shape))
        self.table[name] = d
        return d

    def _visit(self, op):
        outs = op.output_arg_names
        if len(outs) != 1 or not self.usage.stable(outs[0]) or sub_block_ids(op):
            return
        out = self.usage.var(outs[0])
        if out is None:
            return
        try:
            d = self._rule(op)
        except (KeyError, IndexError, TypeError, ValueError):
            d = None
        if d is None or len(d) != len(out._shape):
            return
        # static knowledge wins over symbols
        self.table[outs[0]] = tuple(s if s >= 0 else t for s, t in zip(out._shape, d))

    def _rule(self, op):
        t = op.type
        if t in _SHAPE_OF_TARGET:
            return self.dims(op.input('target')[0])
        if t in self.broadcasting:
            ds = [self.dims(n) for n in op.input_arg_names]
            return None if None in ds else _broadcast_dims(ds)
        if t == 'matmul':
            return self._matmul(op)
        if t in _REDUCTIONS:
            x = self.dims(op.input('x')[0])
            if x is None:
                return None
            axis = op.attrs.get('axis')
            axes = set(range(len(x))) if axis is None or axis == [] else {
                a % len(x) for a in (axis if isinstance(axis, list) else [axis])}
            if op.attrs.get('keepdim'):
                return tuple(1 if i in axes else d for i, d in enumerate(x))
            return tuple(d for i, d in enumerate(x) if i not in axes)
        if t == 'transpose':
            x = self.dims(op.input('x')[0])
            return None if x is None else tuple(x[p] for p in op.attrs['perm'])
        return None

    def _matmul(self, op):
        x, y = self.dims(op.input('x')[0]), self.dims(op.input('y')[0])
        if x is None or y is None or len(x) < 2 or len(y) < 2:
            return None
        if op.attrs.get('transpose_x'):
            x = x[:-2] + (x[-1], x[-2])
        if op.attrs.get('transpose_y'):
            y = y[:-2] + (y[-1], y[-2])
        return _broadcast_dims([x[:-2], y[:-2]]) + (x[-2], y[-1])

    def same(self, a, b):
        da = self.dims(a)
        return da is not None and da == self.dims(b)

    def covers(self, big, small):
        """Broadcasting ``small`` into ``big`` provably keeps ``big``'s shape."""
        db, ds = self.dims(big), self.dims(small)
        if db is None or ds is None or len(ds) > len(db):
            return False
        for s, b in zip(reversed(ds), reversed(db)):
            if not (s == 1 or s == b or (not isinstance(s, int) and isinstance(b, int) and b > 1)):
                return False
        return True


_fresh = [0]


def _broadcast_dims(ds):
    n = max((len(d) for d in ds), default=0)
    out = []
    for i in range(n):
        toks = [d[len(d) - n + i] for d in ds if len(d) - n + i >= 0]
        toks = [t for t in toks if t != 1]
        known = {t for t in toks if isinstance(t, int)}
        syms = {t for t in toks if not isinstance(t, int)}
        if len(known) > 1:
            raise ValueError('incompatible dims')
        if known:
            out.append(known.pop())
        elif len(syms) == 1:
            out.append(syms.pop())
        elif not syms:
            out.append(1)
        else:
            _fresh[0] += 1
            out.append(('sym', '#broadcast', _fresh[0]))
    return tuple(out)


def _program_order(program, block, seen):
    """Ops of ``block`` in run order, sub-blocks at their control-flow op."""
    seen.add(block.idx)
    for op in block.ops:
        for idx in sub_block_ids(op):
            if idx not in seen and 0 <= idx < len(program.blocks):
                yield from _program_order(program, program.block(idx), seen)
        yield op
