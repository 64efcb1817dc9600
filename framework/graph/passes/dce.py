"""Dead-code elimination after the other passes (the executor's initial prune
only keeps what the fetches need; folding, CSE, identity removal and fusion
leave more ops behind whose outputs nobody reads).

An op is removed, in every block, when none of its outputs is read by any op
(sub-blocks included), fetched, persistable, captured, or named in some op's
attributes (loop placeholders, branch outputs), and it has no side effects:
``print``/``assert``, ops that write an input in place, and control-flow ops
stay (every effect but ``'random'``: ``OpDef.kept``, ``ops/properties.py``).
Random ops whose outputs are unused go, as the initial prune does.
A control-flow op's captured outer reads (its ``Input`` slot) lose the names
no op of its blocks reads any more, so what computed them outside (an op
hoisted out of a loop for a reader now removed) can go too.
Removal repeats until nothing changes, so whole dead chains disappear.
"""
from ...ops import registry
from ..sub_blocks import blocks_outer_reads, sub_block_ids
from .analysis import Usage, attr_strings, is_structural


def _removable(op, usage):
    if is_structural(op) or registry.lookup(op.type).kept:
        return False
    for n in op.output_arg_names:
        if usage.readers.get(n) or usage.external(n) or n in usage.pinned:
            return False
    return True


def _forget(op, usage):
    """Update reader lists after removing ``op``."""
    for n in op.input_arg_names:
        rs = usage.readers.get(n)
        if rs:
            for i, r in enumerate(rs):
                if r is op:
                    del rs[i]
                    break


def _drop_stale_captures(program, usage):
    """Take the names nothing in its blocks reads (nor its attributes name)
    out of each control-flow op's ``Input``; returns whether any went."""
    changed = False
    for block in program.blocks:
        for op in block.ops:
            captured = op.inputs.get('Input')
            if not captured or not sub_block_ids(op):
                continue
            read = set(blocks_outer_reads(program, sub_block_ids(op)))
            read.update(attr_strings(list(op.attrs.values())))
            stale = [n for n in captured if n not in read]
            if not stale:
                continue
            op.inputs['Input'] = [n for n in captured if n in read]
            for n in stale:
                rs = usage.readers.get(n, [])
                del rs[next(i for i, r in enumerate(rs) if r is op)]
            changed = True
    return changed


def dead_code_elimination(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    removed = False
    changed = True
    while changed:
        changed = False
        for block in reversed(program.blocks):
            kept = []
            for op in reversed(block.ops):
                if _removable(op, usage):
                    _forget(op, usage)
                    changed = True
                else:
                    kept.append(op)
            if len(kept) != len(block.ops):
                kept.reverse()
                block.ops = kept
                program._bump()
                removed = True
        if _drop_stale_captures(program, usage):
            program._bump()
            removed = changed = True
    return removed
