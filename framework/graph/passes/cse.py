"""Common-subexpression elimination.

Two pure ops (not random, no side effects, no in-place outputs, not control
flow) with the same type, the same input names and the same attributes compute
the same values when their inputs are stable (one value per run). The second
is removed and every read of its outputs reads the first's instead. The first
must come earlier in the same block, or in an enclosing block before the
control-flow op that runs the second's block; the second's outputs must be
private (not fetched, persistable or named in attributes).
"""
import json

from ...ops import registry
from ..operands import stored_attrs
from ..sub_blocks import sub_block_ids
from .analysis import Usage, is_pure, rename_uses


def _key(op):
    opdef = registry.lookup(op.type)
    ins = tuple((slot, tuple(op.inputs.get(slot, ()))) for slot in opdef.input_names)
    attrs = json.dumps(stored_attrs(opdef, op), sort_keys=True, default=repr)
    return (op.type, ins, attrs)


def _candidate(op, usage):
    if not is_pure(op):
        return False
    return all(usage.stable(n) for n in op.input_arg_names) and \
        all(usage.stable(n) for n in op.output_arg_names) and op.output_arg_names


def _cse_block(program, block, table, usage, seen):
    """Walk ``block`` with ``table`` (key -> first op) of values already computed."""
    changed = False
    kept = []
    for op in block.ops:
        for idx in sub_block_ids(op):
            if idx not in seen:
                seen.add(idx)
                changed |= _cse_block(program, program.block(idx), dict(table), usage, seen)
        if not _candidate(op, usage):
            kept.append(op)
            continue
        key = _key(op)
        first = table.get(key)
        if first is None or not all(usage.private(n) for n in op.output_arg_names):
            table.setdefault(key, op)
            kept.append(op)
            continue
        for old, new in zip(op.output_arg_names, first.output_arg_names):
            rename_uses(program, old, new, usage.readers.get(old, []))
            usage.readers[new] = usage.readers.get(new, []) + usage.readers.pop(old, [])
        changed = True
    if changed:
        block.ops = kept
        program._bump()
    return changed


def common_subexpression_elimination(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    return _cse_block(program, program.global_block(), {}, usage, {0})
