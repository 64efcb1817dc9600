"""Copy a loaded program's computation into the program being built.

A ``TranslatedLayer`` (what ``jit.load`` returns) runs its own program when
called eagerly. Called while another program is being built (inside
``@to_static``, under ``program_guard``, or when ``jit.save`` re-traces it),
its ops are copied into the current block instead: the feed variables become
the call's inputs, the persistable variables become the layer's (captured)
parameters, every other variable gets a fresh name, and control-flow ops get
their sub-blocks copied along, so the copy is one more piece of the new
program that backward, passes and saving treat like any other.
"""
from .program import capture_tensor, default_main_program
from .sub_blocks import declared_sub_blocks


def inline_program(source, feed_names, fetch_names, inputs, params):
    """Append ``source``'s ops to the current block; returns the Variables
    standing for ``fetch_names``.

    Args:
        source (Program): the program to copy (not modified).
        feed_names (list[str]): its feed variables, bound to ``inputs``.
        fetch_names (list[str]): its outputs.
        inputs (list[Variable]): the call's inputs in the current program.
        params (dict): name -> eager tensor for its persistable variables.
    """
    target = default_main_program()
    block = target.current_block()
    names = {feed: v.name for feed, v in zip(feed_names, inputs)}
    for name, t in params.items():
        names[name] = capture_tensor(t).name
    blocks = {0: block}
    for b in source.blocks[1:]:
        blocks[b.idx] = _new_block(target, blocks[b.parent_idx].idx)
    for b in source.blocks:
        for v in b.vars.values():
            if v.name not in names:
                names[v.name] = _copy_var(v, blocks[b.idx], target).name
    for b in source.blocks:
        for op in b.ops:
            if op.type in ('feed', 'fetch'):
                continue
            blocks[b.idx].append_op(op.type, _renamed_slots(op.inputs, names),
                                    _renamed_slots(op.outputs, names),
                                    _renamed_attrs(op, names, blocks))
    return [block._find_var(names[n]) for n in fetch_names]


def _new_block(program, parent_idx):
    """A sub-block of ``parent_idx`` that does not become the current block."""
    current = program.current_block_idx
    b = program._create_block(parent_idx)
    program.current_block_idx = current
    return b


def _copy_var(v, block, program):
    out = block.create_var(program._names(v.name), v.shape, v.dtype, False, v.stop_gradient)
    out.blocks_grad = v.blocks_grad
    return out


def _renamed_slots(slots, names):
    return {slot: [names.get(n, n) for n in args] for slot, args in slots.items()}


def _renamed_attrs(op, names, blocks):
    """Sub-block indices point at the copies; control-flow ops name variables
    in their attributes (branch outputs, loop variables), which are renamed."""
    attrs = {}
    block_attrs = declared_sub_blocks(op.type)
    names_in_attrs = bool(block_attrs)
    for k, v in op.attrs.items():
        if k in block_attrs and isinstance(v, int):
            v = blocks[v].idx
        elif names_in_attrs and isinstance(v, str):
            v = names.get(v, v)
        elif names_in_attrs and isinstance(v, list):
            v = [names.get(x, x) if isinstance(x, str) else x for x in v]
        attrs[k] = v
    return attrs
