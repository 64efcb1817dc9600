"""Batching sibling elementwise ops over the parts of one split.

``batch_split_siblings``: when adjacent outputs of a ``split`` are each read
only by the same unary elementwise op (same type, same attributes), that op
runs once over their joint slice and a second split hands out the parts:

    i, f, g, o = split(z, 4, axis=1)          a, g, o = split(z, [64, 32, 32], axis=1)
    si = sigmoid(i)                    ->     s = sigmoid(a)
    sf = sigmoid(f)                           si, sf = split(s, [32, 32], axis=1)

(an LSTM's gates: one sigmoid call instead of two on the small per-step
arrays, where each numpy call costs more than its arithmetic). Elementwise
ops commute with slicing, so the values are the unbatched ones bit for bit;
the batched outputs keep their names (fetches and readers are unchanged) and
become views of the joint result, which the inplace pass never writes into
(split does not return fresh arrays).

Only parts whose size along a known axis is known, which are private (one
reader, not fetched or persistable) and whose reader's output is stable and
not persistable are batched. The batched op sits where the first of the ops
it replaces was, so every reader of their outputs still comes after it.
"""
from ...ops import registry
from ...ops.properties import unary_fusable
from ..operands import stored_attrs
from .analysis import Usage
from .fuse import _location, _sole_reader


def _unary_reader(usage, name, block_idx):
    """The unary elementwise op that alone reads ``name``, or None."""
    r = _sole_reader(usage, name, block_idx)
    if r is None or not registry.has_op(r.type) or not unary_fusable(registry.lookup(r.type)):
        return None
    outs = r.output_arg_names
    if r.input_arg_names != [name] or len(outs) != 1:
        return None
    if not usage.stable(outs[0]) or usage.persistable(outs[0]) or outs[0] in usage.captured:
        return None
    return r


def _runs(keys):
    """Maximal runs [start, stop) of at least two equal, non-None keys."""
    runs, start = [], 0
    for i in range(1, len(keys) + 1):
        if i == len(keys) or keys[i] != keys[start]:
            if keys[start] is not None and i - start >= 2:
                runs.append((start, i))
            start = i
    return runs


def _split_parts(op, usage):
    """(axis, part sizes) of a split of a known-size axis, else None."""
    from ...ops.manipulation import _split_sizes
    v = usage.var(op.input('x')[0]) if op.input('x') else None
    if v is None or not v._shape:
        return None
    ax = op.attrs.get('axis', 0) % len(v._shape)
    n = v._shape[ax]
    if n < 0:
        return None
    try:
        return ax, _split_sizes(n, op.attrs.get('num', 0), op.attrs.get('sections', ()), ax)
    except registry.OpError:
        return None           # the kernel raises its own error when the op runs


def _batch_split(block, op, usage, drop, at):
    """Rewrite the runs of one split; returns whether it changed anything."""
    found = _split_parts(op, usage)
    outs = list(op.outputs.get('outs', ()))
    if found is None or len(outs) < 2:
        return False
    ax, sizes = found
    readers = [_unary_reader(usage, n, block.idx) for n in outs]
    keys = [(r.type, repr(stored_attrs(registry.lookup(r.type), r)))
            if r is not None else None for r in readers]
    runs = _runs(keys)
    if not runs:
        return False
    x = usage.var(op.input('x')[0])
    pos = {id(o): i for i, o in enumerate(block.ops)}
    new_outs, new_sizes, k = [], [], 0
    for start, stop in runs:
        new_outs += outs[k:start]
        new_sizes += sizes[k:start]
        part = list(x._shape)
        part[ax] = sum(sizes[start:stop])
        joint = block.create_var(block.program._names('split_joint'), part, x.dtype)
        group = readers[start:stop]
        first = min(group, key=lambda r: pos[id(r)])
        result_var = usage.var(first.output_arg_names[0])
        result = block.create_var(block.program._names(first.type + '_batched'), part,
                                  result_var.dtype)
        role = {'op_role': first.attrs.get('op_role', 'forward'), **_location(first)}
        unary = type(first)(block, first.type, {registry.lookup(first.type).input_names[0]:
                                                [joint.name]},
                            {registry.lookup(first.type).output_names[0]: [result.name]},
                            dict(first.attrs))
        parts = type(op)(block, 'split', {'x': [result.name]},
                         {'outs': [r.output_arg_names[0] for r in group]},
                         {'num': 0, 'sections': list(sizes[start:stop]), 'axis': ax, **role})
        at[id(first)] = [unary, parts]
        drop.extend(r for r in group if r is not first)
        new_outs.append(joint.name)
        new_sizes.append(part[ax])
        k = stop
    new_outs += outs[k:]
    new_sizes += sizes[k:]
    op.outputs['outs'] = new_outs
    op.attrs.update(num=0, sections=new_sizes)
    return True


def batch_split_siblings(program, feed_names, fetch_names):
    changed = False
    for block in program.blocks:
        usage = Usage(program, feed_names, fetch_names)
        drop, at = [], {}
        for op in list(block.ops):
            if op.type == 'split':
                changed |= _batch_split(block, op, usage, drop, at)
        if at:
            _rebuild_many(block, drop, at)
    return changed


def _rebuild_many(block, drop, at):
    """``_rebuild`` where each replaced op becomes a list of ops."""
    gone = {id(o) for o in drop}
    out = []
    for op in block.ops:
        if id(op) in at:
            out.extend(at[id(op)])
        elif id(op) not in gone:
            out.append(op)
    block.ops = out
    block.program._bump()

