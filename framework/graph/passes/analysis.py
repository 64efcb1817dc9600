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
import weakref

import numpy as np

from ...ops import registry
from ...ops.meta import Sym, same_dim
from ...ops.properties import numel
from ..operands import input_args, kernel_attrs, output_names
from ..sub_blocks import runs_sub_blocks, sub_block_ids


def is_structural(op):
    """Control flow (an op declaring sub-blocks) and anything the kernel
    registry does not know."""
    return runs_sub_blocks(op) or not registry.has_op(op.type)


def sub_blocks(program, op):
    """The blocks ``op`` runs (none for an op without sub-blocks)."""
    return [program.block(i) for i in sub_block_ids(op)]


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
    return not is_structural(op) and registry.lookup(op.type).pure


# ---- side effects --------------------------------------------------------------

def has_side_effects(program, block, op):
    """Ops that must run even when nothing reads their outputs (prints,
    asserts, collectives: ``OpDef.kept``) and writes of persistable
    variables, also inside the sub-blocks (branches, loop bodies) of a
    control-flow op."""
    if registry.has_op(op.type) and registry.lookup(op.type).kept:
        return True
    for n in op.output_arg_names:
        v = block._find_var(n)
        if v is not None and v.persistable:
            return True
    return any(has_side_effects(program, sub, o)
               for sub in sub_blocks(program, op) for o in sub.ops)


def persistable_writes(program, op):
    """Persistable variables written inside the sub-blocks of ``op``."""
    names = set()
    for sub in sub_blocks(program, op):
        for o in sub.ops:
            for n in o.output_arg_names:
                v = sub._find_var(n)
                if v is not None and v.persistable:
                    names.add(n)
            names |= persistable_writes(program, o)
    return names


def is_constant_op(op):
    """A pure op without inputs: its outputs are constants built from its
    attributes alone (``full``, ``assign_value``, ``arange``, ...)."""
    return is_pure(op) and registry.lookup(op.type).n_in == 0


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


def constant_value(op):
    """Evaluate a constant op (``is_constant_op``) at compile time."""
    opdef = registry.lookup(op.type)
    return np.asarray(opdef.kernel(*kernel_attrs(opdef, op)))


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
        if len(defs) != 1 or not is_constant_op(defs[0]) or len(defs[0].output_arg_names) != 1:
            return None
        op = defs[0]
        out = u.var(name)
        if out is None or not shape_known(out._shape) or numel(out._shape) > self.max_elements:
            return None
        try:
            value = constant_value(op)
        except Exception:    # a malformed constant fails at run time as before
            return None
        self.values[name] = value
        return value

    def set(self, name, value):
        self.values[name] = value


# program -> {feed names: {name: dims}}: ShapeClasses of one program and feeds
# share what they know (which names are stable depends on what is fed)
_known_dims = weakref.WeakKeyDictionary()


class ShapeClasses:
    """Symbolic run-time shapes: which stable names provably have equal shapes
    (or broadcast into each other) even where static dims are unknown (-1).

    Each dim is a known int or a named unknown (``ops/meta.py``: ``Sym``).
    An unknown dim of a feed, or one an op's ``infer_meta`` does not carry
    through, gets a fresh name; every op's own ``infer_meta``, run on its
    inputs' symbolic dims, carries names from inputs to outputs (elementwise
    and broadcasting ops, reductions, transposes, matmul, views,
    ``reduce_as``/``expand_as``...). Equal names mean equal sizes at run
    time (given the build-time checks held): the ops declare their shape rule
    once, for building programs and for the passes alike. Dims are worked out
    when asked for, from the definitions they depend on, and kept with the
    program: a pass keeps every value it does not remove (results stay
    identical), so what one pass learnt holds for the next, and a name a pass
    makes is worked out from its own definition when asked for.
    """

    def __init__(self, program, usage):
        self.usage = usage
        # name -> dims, or None (no stable value): shared by the passes of one compile
        self.table = _known_dims.setdefault(program, {}).setdefault(frozenset(usage.feeds), {})

    def dims(self, name):
        if name not in self.table:
            self._work_out(name)
        return self.table[name]

    def _work_out(self, name):
        """Fill ``table[name]``, its definition's inputs first (no recursion:
        chains of an unrolled loop run thousands of ops deep)."""
        stack, started = [name], set()
        while stack:
            n = stack[-1]
            if n in self.table:
                stack.pop()
                continue
            op = self._rule_op(n)
            pending = [] if op is None or n in started else \
                [i for i in dict.fromkeys(op.input_arg_names) if i not in self.table]
            if pending:
                started.add(n)
                stack.extend(pending)
                continue
            if op is not None:
                self._visit(op)
            if n not in self.table:
                self.table[n] = self._declared(n)
            stack.pop()

    def _rule_op(self, name):
        """The one registered kernel op defining stable ``name``, or None."""
        if not self.usage.stable(name):
            return None
        defs = self.usage.defs.get(name, ())
        if len(defs) != 1 or sub_block_ids(defs[0]) or not registry.has_op(defs[0].type):
            return None
        return defs[0]

    def _declared(self, name):
        """The Variable's own dims, unknown ones freshly named (None: no
        stable value)."""
        v = self.usage.var(name)
        if v is None or not self.usage.stable(name):
            return None
        return tuple(x if x >= 0 else Sym((name, i)) for i, x in enumerate(v._shape))

    def _meta(self, name):
        dims = self.table.get(name)
        if dims is None:
            raise KeyError(name)
        return registry.Meta(dims, self.usage.var(name).dtype)

    def _visit(self, op):
        opdef = registry.lookup(op.type)
        outs = output_names(opdef, op)
        try:
            metas = opdef.infer_meta(*input_args(opdef, op, self._meta),
                                     *kernel_attrs(opdef, op))
        except Exception:      # noqa: BLE001 - no rule for these inputs: fresh names
            return
        metas = list(metas) if isinstance(metas, (list, tuple)) else [metas]
        for n, m in zip(outs, metas):
            out = self.usage.var(n) if n is not None else None
            if out is None or not self.usage.stable(n) or n in self.table:
                continue
            d = tuple(getattr(m, 'shape', ()))
            if len(d) != len(out._shape):
                continue
            # static knowledge wins over symbols; an unknown the rule did not
            # name gets a fresh name
            self.table[n] = tuple(s if s >= 0 else t if isinstance(t, Sym) or t >= 0
                                  else Sym((n, i)) for i, (s, t) in enumerate(zip(out._shape, d)))

    def same(self, a, b):
        da, db = self.dims(a), self.dims(b)
        return da is not None and db is not None and len(da) == len(db) and all(
            same_dim(x, y) for x, y in zip(da, db))

    def covers(self, big, small):
        """Broadcasting ``small`` into ``big`` provably keeps ``big``'s shape."""
        db, ds = self.dims(big), self.dims(small)
        if db is None or ds is None or len(ds) > len(db):
            return False
        for s, b in zip(reversed(ds), reversed(db)):
            if not (s == 1 or same_dim(s, b) or (s < 0 and b > 1)):
                return False
        return True
