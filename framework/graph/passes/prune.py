"""Pruning: keep the ops that the fetches and the side effects need.

The executor's first pass (``prune``), and what ``save_inference_model`` and
``jit.save`` cut a program down to before writing it.
"""
from ..sub_blocks import outer_reads
from .analysis import has_side_effects


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
    ``available`` are fed, so their producers are not needed for them; an op
    updating a fed variable in place (reading and writing it: an optimizer
    step on a fed parameter) is, when that variable is."""
    available = set(available)
    needed = set(needed)
    kept = []
    for op in reversed(block.ops):
        outs = set(op.output_arg_names)
        updated = outs & set(op.input_arg_names)
        side = _keeps_side_effects(side_effects, op) and has_side_effects(program, block, op)
        if available and not side and outs <= available and not updated:
            continue
        if side or needed & ((outs - available) | updated):
            kept.append(op)
            needed.update(outer_reads(program, op))
    kept.reverse()
    return kept


def prune(program, feed_names, fetch_names, side_effects=True):
    """Keep the global block's ops the fetches and side effects need
    (``prune_block``); ops producing only fed names go."""
    gb = program.global_block()
    kept = prune_block(program, gb, fetch_names, feed_names, side_effects)
    changed = len(kept) != len(gb.ops)
    gb.ops = kept
    return changed
