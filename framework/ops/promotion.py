"""Type promotion of an op's inputs, shared by both modes.

An op declared with ``promote=(input names)`` (add, multiply, where, concat,
comparisons, ...) computes in one dtype: ``framework.dtype.result_type`` of
those inputs, PyTorch's rule. Before the kernel runs, ``promote_inputs`` casts
every tensor of another dtype with the registered ``cast`` op: eagerly that
records a grad node, in a Program it appends a ``cast`` op, so either way the
gradient of an input comes back in the input's own dtype through cast's grad
rule, and the kernel, the grad rules and ``infer_meta`` all see one dtype.

Numbers stay numbers (grad rules treat them as constants); each mode hands the
kernel ``scalar_array(number, dtype)``, the number as a 0-d array of the
promoted dtype (integers wrap around as in PyTorch: a uint8 tensor + 300 adds 44).
"""
import numpy as np

from .. import dtype as _dt
from .grad_utils import scalar_array
from .registry import lookup

_NUMBERS = (bool, int, float, complex, np.generic)


def is_number(v):
    """Python and numpy scalars: the lowest priority group of promotion."""
    return isinstance(v, _NUMBERS)


def _operand(v):
    """A list or tuple given for a tensor input is a tensor, made as
    ``to_tensor`` makes it (Python floats in the default float dtype)."""
    if not isinstance(v, (list, tuple)):
        return v
    arr = np.asarray(v)
    if arr.dtype == np.float64:
        return arr.astype(_dt.default_float())
    if arr.dtype == np.complex128:
        return arr.astype(_dt.default_complex())
    return arr


def _cast_to(v, dtype, cast):
    if v is None or is_number(v):
        return v
    if isinstance(v, np.ndarray):
        return v if v.dtype == dtype else v.astype(dtype)
    if np.dtype(v.dtype) == dtype:
        return v
    return cast(v, _dt.dtype_name(dtype))


def promote_inputs(op, ins):
    """``(ins, dtype)``: ``ins`` with the inputs named in ``op.promote`` cast
    to their promoted ``dtype``. Tensors (eager Tensors or Variables) are cast
    with the ``cast`` op of the active mode, arrays with ``astype``; numbers
    are left alone, except inside a list input, where they become arrays."""
    ins = list(ins)
    operands = []
    for i in op.promote:
        if op.variadic[i]:
            ins[i] = [_operand(w) for w in ins[i]]
            operands.extend(ins[i])
        else:
            ins[i] = _operand(ins[i])
            operands.append(ins[i])
    try:
        dtype = _dt.result_type(*operands)
    except TypeError as e:
        raise TypeError("%s: %s" % (op.name, e)) from None
    cast = lookup('cast')
    for i in op.promote:
        if op.variadic[i]:
            ins[i] = [scalar_array(w, dtype) if is_number(w) else _cast_to(w, dtype, cast)
                      for w in ins[i]]
        else:
            ins[i] = _cast_to(ins[i], dtype, cast)
    return tuple(ins), dtype
