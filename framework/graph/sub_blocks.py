"""Which sub-blocks an op runs, what they read from outside, and dropping
the blocks no op runs.

A control-flow op declares the attributes that hold its sub-block indices
(``OpDef.sub_blocks``, see ``ops/registry.py``'s ``def_block_op``), as JAX's
``cond_p`` holds its branches as typed parameters: nothing here guesses from
attribute names. Codegen, backward, serialization, inlining, the verifier and
the passes all ask these two functions (this module imports only the
registry, so each of them can).
"""
from ..ops import registry


def declared_sub_blocks(op_type):
    """The attrs holding sub-block indices for ops of ``op_type`` (``()`` for
    kernel ops and unknown types)."""
    return registry.lookup(op_type).sub_blocks if registry.has_op(op_type) else ()


def sub_block_ids(op):
    """Indices of the sub-blocks ``op`` runs, in declaration order; an unset
    (None) optional sub-block, such as a forward cond's ``true_fwd_block``, is
    left out."""
    return [v for v in (op.attrs.get(a) for a in declared_sub_blocks(op.type))
            if isinstance(v, int) and not isinstance(v, bool)]


def runs_sub_blocks(op):
    """Whether ``op`` is a control-flow op (its type declares sub-blocks)."""
    return bool(declared_sub_blocks(op.type))


def nested_ops(program, block_ids, seen=None):
    """Every op of the blocks ``block_ids`` in run order, each op followed by
    the ops of its own sub-blocks (recursively); each block once."""
    seen = set() if seen is None else seen
    for idx in block_ids:
        if idx in seen or not 0 <= idx < len(program.blocks):
            continue
        seen.add(idx)
        for op in program.block(idx).ops:
            yield op
            yield from nested_ops(program, sub_block_ids(op), seen)


def blocks_outer_reads(program, block_ids, extra=()):
    """Names the ops of ``block_ids`` (and of the blocks nested in them) read
    that none of these blocks declares, in the order they are first read;
    ``extra`` counts as read first (the names a control-flow op takes from
    its blocks, such as branch outputs)."""
    seen = set()
    reads = dict.fromkeys(extra)
    for op in nested_ops(program, block_ids, seen):
        reads.update(dict.fromkeys(op.input_arg_names))
    declared = set()
    for idx in seen:
        declared.update(program.block(idx).vars)
    return [n for n in reads if n and n not in declared]


def outer_reads(program, op):
    """Every name ``op`` reads from the block it is in: its inputs, then what
    its sub-blocks read from outside them."""
    reads = dict.fromkeys(n for n in op.input_arg_names if n)
    reads.update(dict.fromkeys(blocks_outer_reads(program, sub_block_ids(op))))
    return list(reads)


def drop_blocks_not_run(program, roots, first=0):
    """Remove the blocks from index ``first`` on that neither ``roots`` nor
    a block they run (recursively) is, renumbering the rest (sub-block
    attributes, parents, the current block) in place."""
    live = set(range(first))
    stack = list(roots)
    while stack:
        idx = stack.pop()
        if idx not in live:
            live.add(idx)
            stack.extend(i for op in program.block(idx).ops for i in sub_block_ids(op))
    if len(live) == len(program.blocks):
        return
    kept = [b for b in program.blocks if b.idx in live]
    new = {b.idx: i for i, b in enumerate(kept)}
    for b in kept:
        b.idx = new[b.idx]
        b.parent_idx = new[b.parent_idx] if b.parent_idx >= 0 else -1
        for op in b.ops:
            for a in declared_sub_blocks(op.type):
                v = op.attrs.get(a)
                if isinstance(v, int) and not isinstance(v, bool):
                    op.attrs[a] = new[v]
    program.current_block_idx = new.get(program.current_block_idx, 0)
    program.blocks = kept
    program._bump()
