"""Recompute blocks: a grad op's own copy of the forward ops its grad ops read.

The grad of a control-flow op runs in sub-blocks of its own (``while_grad``'s
loop, a grad ``cond``'s branches), and its grad ops read intermediate values
of the forward sub-block that the forward run did not keep. Backward copies
that forward block into a *recompute block* of the grad op and
differentiates the copy. The forward's blocks stay as they are and no block
runs under two ops, so the passes (prune, DCE, hoisting, folding, CSE) treat
a recompute block like any other sub-block.

``Recompute(program, srcs, parent_idx, fresh)`` makes the copy, one block
of the ops of the blocks ``srcs`` run one after the other (a forward
branch or loop body; a grad cond's branch is its recompute block, then its
grad ops):

* every non-persistable variable the copied blocks declare, and the names in
  ``fresh`` (a loop's placeholders), gets a fresh name declared in the copy
  (names are program-wide);
* control-flow ops are copied with their sub-blocks;
* an op writing a variable from outside (a parameter updated in a loop body)
  writes a fresh variable instead, so backward never writes it again; the
  ops after it in the same block read the fresh value, as they read the
  written one in the forward, and code after the block reads the variable
  from storage, as after any sub-block that writes it.

``finish(grad_block, exits)``, once the grad ops are built from the copy,
keeps only what they need: ``print`` ops go (their readers read the printed
value: the forward printed it already; a print's backward-phase grad print
is in the grad block), asserts and Python prints go unless their value is
read, the grad block's top-level ops that lead to no exit (nor print) go,
then the copy's that lead to no value the grad block reads, and so do the
copied sub-blocks no op runs any more.
"""
from ..ops import registry
from ..ops.properties import value
from .passes.prune import prune_block
from .sub_blocks import (blocks_outer_reads, declared_sub_blocks, drop_blocks_not_run,
                         nested_ops)


class Recompute:
    """A copy of the blocks ``srcs`` (see the module doc) as a new block
    under ``parent_idx``; ``block`` is the copy, ``var(name)`` the copy's
    Variable standing for the forward's ``name``."""

    def __init__(self, program, srcs, parent_idx, fresh=()):
        self.program = program
        # everything from here on (the copies, the grad block built next and
        # what runs in it) is this grad op's own: ``finish`` may drop parts of it
        self.first = len(program.blocks)
        self.copies = {}          # source block index -> its copy
        self.names = _fresh_names(program, srcs, fresh)
        current = program.current_block_idx
        try:
            self.block, self.scope = self._copy(srcs, parent_idx, {})
            for n in fresh:
                self._copy_var(program.var(n), self.block)
        finally:
            program.current_block_idx = current

    def var(self, name):
        name = self.scope.get(name, self.names.get(name, name))
        return self.program.var(name)

    # -- copying --------------------------------------------------------------------

    def _copy(self, srcs, parent_idx, scope):
        """(one copy of the blocks ``srcs`` under ``parent_idx``, the outer
        writes it made); ``scope``: fresh names of the outer variables
        written before it."""
        block = self.program._create_block(parent_idx)
        scope = dict(scope)         # its own outer writes stay inside it
        for src in srcs:
            self.copies[src.idx] = block
            for v in src.vars.values():
                if v.name in self.names:
                    self._copy_var(v, block)
            for op in src.ops:
                self._copy_op(op, block, scope)
        return block, scope

    def _copy_var(self, v, block):
        new = block.create_var(self.names[v.name], v._shape, v.dtype,
                               stop_gradient=v.stop_gradient)
        new.blocks_grad, new._value = v.blocks_grad, v._value

    def _copy_op(self, op, block, scope):
        def read(n):
            return scope.get(n, self.names.get(n, n))
        inputs = {slot: [read(n) for n in names] for slot, names in op.inputs.items()}
        block_attrs = declared_sub_blocks(op.type)
        attrs = {}
        for k, v in op.attrs.items():
            if k in block_attrs and _is_index(v):
                done = self.copies.get(v)       # a block two ops run is copied once
                attrs[k] = (done or self._copy([self.program.block(v)], block.idx, scope)[0]).idx
            elif block_attrs:                   # control flow names variables in attributes
                attrs[k] = _renamed(v, read)
            else:
                attrs[k] = v
        attrs['op_role'] = 'backward'
        outputs = {slot: [self._write(n, block, scope) for n in names]
                   for slot, names in op.outputs.items()}
        block.append_op(op.type, inputs, outputs, attrs)

    def _write(self, name, block, scope):
        """The name the copy writes for ``name``: its fresh name, or for a
        variable from outside a new variable of ``block`` (see the module doc)."""
        if not name or name in self.names:
            return self.names.get(name, name)
        v = self.program.var(name)
        new = block.create_var(self.program._names(name + '@R'), v._shape, v.dtype,
                               stop_gradient=v.stop_gradient)
        scope[name] = new.name
        return new.name

    # -- keeping what the grad ops need ----------------------------------------------

    def finish(self, grad_block, exits=()):
        """Keep what ``grad_block`` (built from the copy) reads and ``exits``
        (names the grad op takes from it) need; see the module doc."""
        program = self.program
        ours = program.blocks[self.first:]
        _rename_reads(ours, self._drop_side_effects(ours))
        # grad rules also build grads nobody asked for (of a constant operand)
        grad_block.ops = prune_block(program, grad_block, exits)
        needed = blocks_outer_reads(program, [grad_block.idx], exits)
        self.block.ops = prune_block(program, self.block, needed, side_effects=False)
        drop_blocks_not_run(program, [self.block.idx, grad_block.idx], self.first)

    def _drop_side_effects(self, ours):
        """Take the side-effect ops out of the copies; returns {print output:
        the value it prints} for their readers."""
        read = set()
        for b in ours:
            for op in b.ops:
                read.update(op.input_arg_names)
                if declared_sub_blocks(op.type):
                    read.update(_attr_strings(op.attrs.values()))
        alias = {}
        for b in {id(b): b for b in self.copies.values()}.values():
            kept = []
            for op in b.ops:
                through = _io(op) and value(registry.lookup(op.type).passthrough)
                if through:          # (print) its readers read what it prints
                    alias[op.output_arg_names[0]] = op.inputs[through][0]
                elif not _io(op) or read & set(op.output_arg_names):
                    kept.append(op)
            b.ops = kept
        for n in alias:                      # a print of a print prints the first's input
            while alias[n] in alias:
                alias[n] = alias[alias[n]]
        return alias


def _io(op):
    """A print or an assert (effect 'io'): the forward's, not to be run again."""
    return registry.has_op(op.type) and 'io' in registry.lookup(op.type).effects


def _fresh_names(program, srcs, fresh):
    """{name: fresh name} for ``fresh`` and the non-persistable variables
    the blocks ``srcs`` and those under them declare (persistable ones are
    storage: the copy reads the same)."""
    blocks = set()
    for _ in nested_ops(program, [b.idx for b in srcs], blocks):
        pass
    names = list(fresh)
    for idx in sorted(blocks):
        names.extend(n for n, v in program.block(idx).vars.items()
                     if not (v.persistable or v.is_data or n in program._captured))
    return {n: program._names(n + '@R') for n in names}


def _rename_reads(blocks, alias):
    """Make the ops of ``blocks`` read ``alias[n]`` where they read ``n``."""
    if not alias:
        return
    for b in blocks:
        for op in b.ops:
            for slot, names in op.inputs.items():
                op.inputs[slot] = [alias.get(n, n) for n in names]
            block_attrs = declared_sub_blocks(op.type)
            for k, v in op.attrs.items():
                if block_attrs and k not in block_attrs:
                    op.attrs[k] = _renamed(v, lambda n: alias.get(n, n))


def _renamed(v, rename):
    if isinstance(v, str):
        return rename(v)
    if isinstance(v, list):
        return [_renamed(x, rename) for x in v]
    return v


def _attr_strings(values):
    for v in values:
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            yield from _attr_strings(v)


def _is_index(v):
    return isinstance(v, int) and not isinstance(v, bool)
