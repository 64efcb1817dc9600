"""How an Operator's slots and attributes map onto its OpDef's kernel call.

An Operator stores inputs and outputs by slot name and attributes as JSON
values (lists); a kernel, ``infer_meta`` and a grad rule take them
positionally, attributes in declaration order with defaults filled in and
lists as tuples. Backward, the verifier, the passes and the code generator
all make that translation; this module is the one place it is written.
"""


def kernel_attr(v):
    """Attributes are stored as JSON lists; kernels get tuples (hashable, and
    what numpy expects for axes)."""
    if isinstance(v, list):
        return tuple(kernel_attr(x) for x in v)
    return v


def stored_attrs(opdef, op):
    """The op's attributes in kernel order (defaults filled), as stored (lists)."""
    return [op.attrs[n] if n in op.attrs else d
            for n, d in zip(opdef.attr_names, opdef.attr_defaults)]


def kernel_attrs(opdef, op):
    """The op's attributes as its kernel takes them (defaults filled, tuples)."""
    return [kernel_attr(op.attrs[n]) if n in op.attrs else d
            for n, d in zip(opdef.attr_names, opdef.attr_defaults)]


def input_args(opdef, op, lookup):
    """``lookup(name)`` for each input slot in kernel order: a list for a
    variadic slot, None for a missing optional one."""
    args = []
    for name, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(name, [])
        if variadic:
            args.append([lookup(n) for n in names])
        else:
            args.append(lookup(names[0]) if names else None)
    return args


def output_names(opdef, op):
    """The variable names of the op's outputs in kernel order (a variadic
    output's names; None where a declared output has none)."""
    if opdef.variadic_out:
        return list(op.outputs.get(opdef.output_names[0], []))
    return [op.outputs.get(n, [None])[0] if op.outputs.get(n) else None
            for n in opdef.output_names]
