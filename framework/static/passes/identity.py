"""Removal of ops that return their input unchanged.

Recognised (shapes and dtypes from the Variables; -1 = unknown):

* ``assign(x)``                         a copy
* ``scale(x, 1, 0)``                    x * 1
* ``cast(x, dtype)`` to x's own dtype
* ``reshape``/``reshape_as``/``squeeze``/``unsqueeze``/``flatten`` to x's own
  fully known shape (``reshape`` also when the target repeats x's shape with
  one -1 where x's single unknown dim is)
* ``reduce_as(x, t)``/``expand_as(x, t)`` when x and t provably have the same
  shape, unknown dims included (``ShapeClasses``); grad rules emit these for
  every broadcasting op
* ``x * 1``, ``1 * x``, ``x / 1``, ``x + 0``, ``0 + x``, ``x - 0`` with a
  constant whose every element is 1 (0) when the result provably has x's shape
  and dtype (``x + 0`` turns -0.0 into +0.0; nothing else changes)

The op is dropped and every read of its output reads x instead. Both names
must be stable, and the output private (not fetched, persistable, captured or
named in attributes), so no observer can tell the difference.
"""
import numpy as np

from ...ops import registry
from .analysis import Constants, ShapeClasses, Usage, dominated, rename_uses, shape_known

_VIEW_OPS = ('reshape', 'reshape_as', 'squeeze', 'unsqueeze', 'flatten')
# binary op -> (index of the constant operand it may have, neutral value)
_NEUTRAL = {'multiply': ((0, 1), 1), 'add': ((0, 1), 0), 'divide': ((1,), 1),
            'subtract': ((1,), 0)}


def _same_meta(a, b, exact_shape=True):
    if a is None or b is None or a.dtype != b.dtype:
        return False
    if not exact_shape:
        return True
    return a._shape == b._shape and shape_known(a._shape)


def _first(op, slot):
    names = op.inputs.get(slot, [])
    return names[0] if len(names) == 1 else None


def _reshape_identity(op, x, out):
    if _same_meta(x, out):
        return True
    if x is None or out is None or x.dtype != out.dtype:
        return False
    target = op.attrs.get('shape')
    if not isinstance(target, list) or len(target) != len(x._shape):
        return False
    unknown = [i for i, d in enumerate(x._shape) if d < 0]
    if len(unknown) != 1:
        return False
    return all((t == -1) if i == unknown[0] else (t == d)
               for i, (t, d) in enumerate(zip(target, x._shape)))


def identity_source(op, usage, consts, shapes):
    """The input name ``op`` merely passes through, or None."""
    t = op.type
    outs = op.output_arg_names
    if len(outs) != 1:
        return None
    out = usage.var(outs[0])
    if t in ('assign', 'scale', 'cast') + _VIEW_OPS:
        src = _first(op, 'x')
        x = usage.var(src) if src else None
        if t == 'assign':
            ok = _same_meta(x, out, exact_shape=False)
        elif t == 'scale':
            ok = (_same_meta(x, out, exact_shape=False) and
                  float(op.attrs.get('scale', 1.0)) == 1.0 and
                  float(op.attrs.get('bias', 0.0)) == 0.0)
        elif t == 'cast':
            ok = x is not None and np.dtype(op.attrs.get('dtype', 'float32')) == x.dtype
        elif t == 'reshape':
            ok = _reshape_identity(op, x, out)
        else:
            ok = _same_meta(x, out)
        return src if ok else None
    if t in ('reduce_as', 'expand_as'):
        src, target = _first(op, 'x'), _first(op, 'target')
        x = usage.var(src) if src else None
        if x is not None and out is not None and x.dtype == out.dtype and \
                target is not None and shapes.same(src, target):
            return src
        return None
    if t in _NEUTRAL:
        return _neutral_source(op, usage, consts, out)
    return None


def _neutral_source(op, usage, consts, out):
    positions, neutral = _NEUTRAL[op.type]
    names = [_first(op, 'x'), _first(op, 'y')]
    if None in names:
        return None
    for k in positions:
        c = consts.get(names[k])
        src = names[1 - k]
        x = usage.var(src)
        if c is None or x is None or out is None:
            continue
        if not (x.dtype == out.dtype and c.size > 0 and np.all(c == neutral)
                and dominated(c.shape, x._shape)):
            continue
        return src
    return None


def _remove_block(program, block, usage, consts, shapes):
    kept = []
    for op in block.ops:
        if not registry.has_op(op.type) or op.type not in _CANDIDATES:
            kept.append(op)
            continue
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


_CANDIDATES = frozenset(('assign', 'scale', 'cast', 'reduce_as', 'expand_as')
                        + _VIEW_OPS + tuple(_NEUTRAL))


def remove_identity_ops(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    consts = Constants(usage)
    shapes = ShapeClasses(program, usage)
    changed = False
    for block in program.blocks:
        changed |= _remove_block(program, block, usage, consts, shapes)
    return changed
