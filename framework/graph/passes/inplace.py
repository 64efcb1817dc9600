"""Buffer reuse in the global block: in-place elementwise kernels and
dropping values after their last use.

``enable_inplace``: an elementwise op whose input dies at this op (this is its
last reader) and has the output's shape and dtype writes its result into that
input's array (numpy ``out=``) instead of allocating. Conservative by design:

* the input was produced by an op whose kernel always returns a new array
  (elementwise ops, matmul, the fused ops), never a view or an input passed
  through, and every op reading it is of that kind too, so no other value can
  share the buffer;
* it is not fed, fetched, persistable, captured or named in attributes, is
  written once, and every read of it is in the global block at or before this
  op (no sub-block reads it);
* shapes prove the result has the input's shape (the other operand broadcasts
  into it) and the dtypes are equal (float for unary ops), with ndim >= 1
  (numpy returns scalars, not arrays, for 0-d results).

``memory_optimize``: after each op of the global block, the generated code
deletes the locals whose last use that op was, so large intermediates are
freed as soon as possible instead of when the run returns.

Both mark ops with attributes the code generator reads (``op_inplace``,
``op_free``). Which kernels return new arrays (``fresh``) and which ops can
compute into a buffer (``kernel_into``) the ops declare (``ops/properties.py``).
"""
from ...ops import registry
from .analysis import ShapeClasses, Usage, is_structural


def _fresh(op):
    """The op's kernel always returns a new array (never an input or a view)."""
    return registry.has_op(op.type) and registry.lookup(op.type).fresh


def _last_reads(block, usage):
    """{name: position of its last reader in ``block``} for names read only by
    top-level ops of this block (None for names read elsewhere)."""
    pos = {id(op): i for i, op in enumerate(block.ops)}
    last = {}
    for op in block.ops:
        for n in op.input_arg_names:
            if n in last:
                continue
            rs = usage.readers.get(n, ())
            if all(id(r) in pos for r in rs):
                last[n] = max(pos[id(r)] for r in rs)
            else:
                last[n] = None
    return last, pos


def _owned(name, usage, pos):
    """The value is an array only this program holds, in no other variable."""
    if usage.external(name) or name in usage.pinned or not usage.private(name):
        return False
    p = usage.defs[name][0]
    if not _fresh(p) or id(p) not in pos:
        return False
    return all(_fresh(r) for r in usage.readers.get(name, ()))


def _fits(op, slot, usage, shapes):
    opdef = registry.lookup(op.type)
    name = op.inputs[opdef.input_names[slot]][0]
    x, out = usage.var(name), usage.var(op.output_arg_names[0])
    if x is None or out is None or x.dtype != out.dtype or not x._shape:
        return False
    if opdef.ufunc_on == 'float' and (x.dtype.kind not in 'fc' or x.dtype.itemsize < 4):
        return False      # the kernel computes other dtypes (ints, half) its own way
    if opdef.n_in == 1:
        return True
    return shapes.covers(name, op.inputs[opdef.input_names[1 - slot]][0])


def mark_inplace(program, block, usage):
    last, pos = _last_reads(block, usage)
    shapes = ShapeClasses(program, usage)
    marked = 0
    for i, op in enumerate(block.ops):
        if is_structural(op) or 'op_inplace' in op.attrs or 'op_layout' in op.attrs:
            continue          # (a layout kernel writes no numpy buffer in place)
        opdef = registry.lookup(op.type)
        if opdef.kernel_into is None or any(opdef.variadic) or len(op.output_arg_names) != 1:
            continue
        for slot, iname in enumerate(opdef.input_names):
            names = op.inputs.get(iname, [])
            if len(names) != 1:
                break
            n = names[0]
            if last.get(n) == i and _owned(n, usage, pos) and _fits(op, slot, usage, shapes):
                op.attrs['op_inplace'] = slot
                marked += 1
                break
    return marked


def inplace_buffer_reuse(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    if not mark_inplace(program, program.global_block(), usage):
        return False
    program._bump()
    return True


def free_after_last_use(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    block = program.global_block()
    last, pos = _last_reads(block, usage)
    frees = {}
    for i, op in enumerate(block.ops):
        if is_structural(op):
            continue
        for n in op.output_arg_names:     # outputs nobody reads
            if not usage.readers.get(n) and _droppable(n, usage, pos):
                frees.setdefault(i, []).append(n)
    for n, i in last.items():
        if i is not None and _droppable(n, usage, pos) and not is_structural(block.ops[i]):
            frees.setdefault(i, []).append(n)
    for i, names in frees.items():
        block.ops[i].attrs['op_free'] = sorted(set(names))
    if frees:
        program._bump()
    return bool(frees)


def _droppable(name, usage, pos):
    if name in usage.fetches or name in usage.pinned:
        return False
    defs = usage.defs.get(name, ())
    return len(defs) == 1 and id(defs[0]) in pos and not is_structural(defs[0])
