"""Constant folding: evaluate ops whose inputs are all constants at compile time.

An op is folded when it is pure (not random, no side effects, no in-place
outputs, not control flow), every input is a constant (the output of a pure op
without inputs: ``full``, ``assign_value``, ``arange``...; or an earlier folded
result) and its outputs are stable, non-persistable names. The op's own kernel
computes the value, so results are bit-identical; the op is replaced by a
``full`` (when every element is the same) or an ``assign_value`` holding the
result with its exact dtype and shape.
Sub-blocks of control-flow ops are folded too; the control-flow op never is.

Not folded: results over ``MAX_ELEMENTS`` elements, or results much larger than
the constants they came from (an outer product of two vectors would turn a
cheap op into a huge attribute list parsed on every run); kernels that raise or
hit a floating-point error (the run keeps reporting it where it happens).
"""
import numpy as np

from ...ops import registry
from ..operands import kernel_attrs, output_names
from ..sub_blocks import sub_block_ids
from .analysis import Constants, Usage, is_constant_op, is_pure

MAX_ELEMENTS = 1_000_000
# a non-uniform result may be this many times larger than its constant inputs
GROWTH = 4
SMALL = 4096


def _uniform(a):
    """Every element equal, bit for bit as far as sign goes (so ``full``
    rebuilds it); empty arrays too (a nested empty list would lose the shape)."""
    if a.size == 0:
        return True
    first = a.reshape(-1)[0]
    if not np.all(a == first):
        return False
    if a.dtype.kind in 'fc':
        return bool(np.all(np.signbit(a.real) == np.signbit(first.real)))
    return True


def _replacement(value):
    """(type, attrs) of the constant op that rebuilds ``value``."""
    from ...ops.creation import assign_value_attr
    dtype = str(value.dtype)
    if _uniform(value) and value.dtype.kind != 'c':   # attributes hold real numbers only
        fill = value.reshape(-1)[0].item() if value.size else 0
        return 'full', {'shape': list(value.shape), 'value': fill, 'dtype': dtype}
    return 'assign_value', {'value': assign_value_attr(value), 'dtype': dtype}


def _input_values(opdef, op, consts):
    """Kernel input arguments if every input is a constant, else None."""
    args = []
    for name, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(name, [])
        if variadic:
            vals = [consts.get(n) for n in names]
            if any(v is None for v in vals):
                return None
            args.append(vals)
        elif not names:
            args.append(None)
        else:
            v = consts.get(names[0])
            if v is None:
                return None
            args.append(v)
    return args


def _size(args):
    n = 0
    for a in args:
        if isinstance(a, list):
            n += sum(v.size for v in a)
        elif a is not None:
            n += a.size
    return n


def _evaluate(opdef, op, args):
    """The op's outputs as arrays, or None when folding is not allowed."""
    attrs = kernel_attrs(opdef, op)
    try:
        with np.errstate(all='raise'):
            out = opdef.kernel(*args, *attrs)
    except Exception:
        return None
    names = output_names(opdef, op)
    values = list(out) if (opdef.variadic_out or len(names) > 1) else [out]
    values = [np.asarray(v) for v in values]
    if len(values) != len(names) or any(v.dtype.kind not in 'biuf' for v in values):
        return None
    limit = max(GROWTH * _size(args), SMALL)
    for v in values:
        if v.size > MAX_ELEMENTS or (v.size > limit and not _uniform(v)):
            return None
    return list(zip(names, values))


def fold_block(program, block, usage, consts):
    changed = False
    new_ops = []
    for op in block.ops:
        for idx in sub_block_ids(op):
            changed |= fold_block(program, program.block(idx), usage, consts)
        folded = _try_fold(op, usage, consts)
        if folded is None:
            new_ops.append(op)
            continue
        changed = True
        for name, value in folded:
            if name is None:
                continue
            t, attrs = _replacement(value)
            attrs['op_role'] = op.attrs.get('op_role', 'forward')
            new = type(op)(block, t, {}, {'out': [name]}, attrs)
            new_ops.append(new)
            consts.set(name, value)
            usage.defs[name] = [new]
            var = usage.var(name)
            if var is not None and len(var._shape) == value.ndim:
                var._shape = tuple(value.shape)   # the run-time shape, now known
    if changed:
        block.ops = new_ops
        program._bump()
    return changed


def _try_fold(op, usage, consts):
    if is_constant_op(op) or not is_pure(op):
        return None
    opdef = registry.lookup(op.type)
    if opdef.n_in == 0:
        return None          # creation ops (arange, eye...) are constants already
    outs = [n for n in op.output_arg_names]
    if not outs or any(not usage.stable(n) or usage.persistable(n) or n in usage.feeds
                       for n in outs):
        return None
    args = _input_values(opdef, op, consts)
    if args is None:
        return None
    return _evaluate(opdef, op, args)


def constant_folding(program, feed_names, fetch_names):
    usage = Usage(program, feed_names, fetch_names)
    consts = Constants(usage, MAX_ELEMENTS)
    return fold_block(program, program.global_block(), usage, consts)
