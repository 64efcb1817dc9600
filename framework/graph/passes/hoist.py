"""Loop-invariant code motion for loop ops (``while``, ``while_grad``).

A loop op is a control-flow op whose ``block_rules`` say it runs its
sub-blocks in a loop (the verifier counts loops by the same declaration):
every one of its declared ``sub_blocks`` (``graph/sub_blocks.py``) runs
once per iteration. A pure op in one
of them whose inputs are all defined outside the loop and never written inside
it (not by an op of the loop's blocks, not the placeholders named in the
loop op's attributes, not the loop op's outputs) computes the same value
every iteration, so it moves in front of the loop op, in the parent block,
with its output variables; ops that depend only on hoisted values follow.
Inner loops are processed first so invariants can bubble out of nested loops.

The loop op's explicit list of captured outer reads (its ``Input`` slot)
is recomputed: hoisted values join it, names no longer read leave it.

A body may run zero times; a hoisted op then runs once anyway. Pure ops have
no effect besides their result, but an op that can fail on its input values
(index ops: anything with ``no_grad_inputs``) is left in the body, where it
would fail only if the loop ran.
"""
from ...ops import registry
from ..sub_blocks import blocks_outer_reads, nested_ops, sub_block_ids
from .analysis import Usage, attr_strings, is_pure


def is_loop(op):
    """Whether ``op`` runs its sub-blocks once per iteration of a loop."""
    rules = registry.lookup(op.type).block_rules if registry.has_op(op.type) else None
    return rules is not None and rules.loop


def _depth(program, idx):
    d = 0
    while idx > 0:
        idx = program.block(idx).parent_idx
        d += 1
    return d


def _attr_var_names(op, usage):
    return {s for s in attr_strings(list(op.attrs.values())) if s in usage.vars}


def _written_in_loop(program, loop_op, usage):
    """Names that may change from one iteration to the next."""
    written = set(loop_op.output_arg_names) | _attr_var_names(loop_op, usage)
    for op in nested_ops(program, sub_block_ids(loop_op)):
        written.update(op.output_arg_names)
        if sub_block_ids(op):
            written |= _attr_var_names(op, usage)
    return written


def _hoistable(op, written, usage, loop_blocks, block_idx, cond_block):
    if not is_pure(op):
        return False
    opdef = registry.lookup(op.type)
    if opdef.no_grad_inputs and block_idx != cond_block:
        return False
    outs = op.output_arg_names
    if not outs or any(not usage.stable(n) or usage.external(n) or n in usage.pinned
                       for n in outs):
        return False
    for n in op.input_arg_names:
        if n in written:
            return False
        v_block = _defining_block(usage, n)
        if v_block in loop_blocks:
            return False
    return True


def _defining_block(usage, name):
    defs = usage.defs.get(name)
    return usage.block_of.get(id(defs[0])) if defs else None


def _hoist_loop(program, parent, loop_op, usage):
    blocks = sub_block_ids(loop_op)
    loop_blocks = set(blocks)
    for op in nested_ops(program, blocks):
        loop_blocks.update(sub_block_ids(op))
    written = _written_in_loop(program, loop_op, usage)
    cond_block = loop_op.attrs.get('cond_block')
    hoisted = []
    for idx in blocks:
        block = program.block(idx)
        kept = []
        for op in block.ops:
            if _hoistable(op, written, usage, loop_blocks, idx, cond_block):
                hoisted.append(op)
                written.difference_update(op.output_arg_names)
                for n in op.output_arg_names:
                    v = block.vars.pop(n, None)
                    if v is not None:
                        v.block = parent
                        parent.vars[n] = v
                    usage.block_of[id(op)] = parent.idx
            else:
                kept.append(op)
        block.ops = kept
    if not hoisted:
        return False
    pos = parent.ops.index(loop_op)
    for op in hoisted:
        op.block = parent
        usage.block_of[id(op)] = parent.idx
    parent.ops[pos:pos] = hoisted
    _update_captured(program, blocks, loop_op)
    program._bump()
    return True


def _update_captured(program, blocks, loop_op):
    """Refresh the explicit captured-reads slot of every op running these blocks."""
    reads = blocks_outer_reads(program, blocks)
    pinned = set()
    for v in loop_op.attrs.values():
        if isinstance(v, str):
            pinned.add(v)
        elif isinstance(v, list):
            pinned.update(x for x in v if isinstance(x, str))
    if 'Input' in loop_op.inputs:
        loop_op.inputs['Input'] = [n for n in reads if n not in pinned]


def loop_invariant_hoisting(program, feed_names, fetch_names):
    loops = []
    for b in program.blocks:
        for op in b.ops:
            if is_loop(op) and sub_block_ids(op):
                loops.append((_depth(program, b.idx), b.idx, op))
    if not loops:
        return False
    loops.sort(key=lambda t: -t[0])
    usage = Usage(program, feed_names, fetch_names)
    changed = False
    for _, bidx, op in loops:
        if _hoist_loop(program, program.block(bidx), op, usage):
            usage = Usage(program, feed_names, fetch_names)
            changed = True
    return changed
