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

# ops whose outputs are constants built from attributes alone
CONSTANT_OPS = ('assign_value', 'full')


def sub_block_ids(op):
    """Indices of the sub-blocks an op runs (attrs ending in ``_block`` or
    named ``sub_block``): the generic mark of a control-flow op."""
    return [v for k, v in op.attrs.items()
            if (k.endswith('_block') or k == 'sub_block') and isinstance(v, int)
            and not isinstance(v, bool)]


def is_structural(op):
    """Control flow and anything the kernel registry does not know."""
    return (bool(sub_block_ids(op)) or op.type in codegen.CONTROL_FLOW
            or not registry.has_op(op.type))


def nested_ops(program, op, seen=None):
    """Every op inside the sub-blocks of ``op`` (recursively)."""
    seen = set() if seen is None else seen
    for idx in sub_block_ids(op):
        if idx in seen or not 0 <= idx < len(program.blocks):
            continue
        seen.add(idx)
        for sub in program.block(idx).ops:
            yield sub
            yield from nested_ops(program, sub, seen)


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

    def n_readers(self, name):
        return len(self.readers.get(name, ()))


def rename_uses(program, old, new):
    """Make every op that reads ``old`` read ``new`` (all blocks)."""
    for b in program.blocks:
        for op in b.ops:
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


def block_positions(block):
    return {id(op): i for i, op in enumerate(block.ops)}
