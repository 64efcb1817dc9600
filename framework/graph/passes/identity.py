"""Removal of ops that return their input unchanged.

What an op passes through it declares (``ops/properties.py``):

* ``passthrough``: the input it returns whenever its output has that input's
  shape and dtype (``assign``; ``cast`` to x's own dtype; ``reshape``,
  ``squeeze``, ``flatten``... to x's own shape; ``reduce_as``/``expand_as``
  to a target of x's shape), with a condition on the attributes where it
  needs one (``scale`` by 1 plus 0). Shapes are compared symbolically
  (``ShapeClasses``: unknown dims included), so the ``reduce_as`` a grad rule
  emits for every broadcasting op goes when nothing was broadcast;
* ``identity``: for a binary op, the value ``e`` an input may hold for the
  result to be the other input (``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``,
  ``x - 0``): a constant whose every element is ``e``, when the result
  provably has x's shape and dtype (``x + 0`` turns -0.0 into +0.0; nothing
  else changes).

The op is dropped and every read of its output reads x instead. Both names
must be stable, and the output private (not fetched, persistable, captured or
named in attributes), so no observer can tell the difference.
"""
import numpy as np

from ...ops import registry
from ...ops.properties import value
from ..operands import kernel_attrs
from .analysis import Constants, ShapeClasses, Usage, dominated, rename_uses


def _first(op, slot):
    names = op.inputs.get(slot, [])
    return names[0] if len(names) == 1 else None


def _passthrough_source(op, opdef, usage, shapes, out_name):
    """The input ``op`` declares it passes through, when its output has that
    input's shape and dtype (and the attributes agree), else None."""
    declared = value(opdef.passthrough)
    if declared is None:
        return None
    slot, condition = declared if isinstance(declared, tuple) else (declared, None)
    src = _first(op, slot)
    x, out = usage.var(src) if src else None, usage.var(out_name)
    if x is None or out is None or x.dtype != out.dtype or not shapes.same(src, out_name):
        return None
    if condition is not None and not condition(
            dict(zip(opdef.attr_names, kernel_attrs(opdef, op)))):
        return None
    return src


def _neutral_source(op, opdef, usage, consts, out):
    """x, for ``op(x, e)`` or ``op(e, x)`` with a constant ``e`` that is the
    op's identity on that side."""
    names = [_first(op, slot) for slot in opdef.input_names]
    if len(names) != 2 or None in names:
        return None
    for k, slot in enumerate(opdef.input_names):
        if slot not in opdef.identity:
            continue
        c = consts.get(names[k])
        src = names[1 - k]
        x = usage.var(src)
        if c is None or x is None or out is None:
            continue
        if not (x.dtype == out.dtype and c.size > 0 and np.all(c == opdef.identity[slot])
                and dominated(c.shape, x._shape)):
            continue
        return src
    return None


def identity_source(op, usage, consts, shapes):
    """The input name ``op`` merely passes through, or None."""
    outs = op.output_arg_names
    if len(outs) != 1 or not registry.has_op(op.type):
        return None
    opdef = registry.lookup(op.type)
    if not opdef.pure:
        return None
    src = _passthrough_source(op, opdef, usage, shapes, outs[0])
    if src is None and isinstance(value(opdef.identity), dict):
        src = _neutral_source(op, opdef, usage, consts, usage.var(outs[0]))
    return src


def _remove_block(program, block, usage, consts, shapes):
    kept = []
    for op in block.ops:
        src = identity_source(op, usage, consts, shapes)
        out = op.output_arg_names[0] if op.output_arg_names else None
        if src is None or not usage.private(out) or not usage.stable(src) or src == out:
            kept.append(op)
            continue
        rename_uses(program, out, src, usage.readers.get(out, []))
        usage.readers[src] = usage.readers.get(src, []) + usage.readers.pop(out, [])
    if len(kept) == len(block.ops):
        return False
    block.ops = kept
    program._bump()
    return True


def remove_identity_ops(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    consts = Constants(usage)
    shapes = ShapeClasses(program, usage)
    changed = False
    for block in program.blocks:
        changed |= _remove_block(program, block, usage, consts, shapes)
    return changed
