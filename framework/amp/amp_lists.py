"""Which ops auto_cast runs in low precision: Paddle's op lists, made from
what each op declares (``OpDef.amp``, ``OpDef.paddle_names``;
``ops/properties.py``), under Paddle's op names (an op's own name counts too).

White-list ops are numerically safe and gain from float16/bfloat16 (matmul, conv,
linear); black-list ops are numerically dangerous in half precision (exp, log,
softmax, the losses, reductions, norms) and always compute in float32 under O1;
every other op ("gray") computes in float32 when any of its inputs is float32 and
in the low-precision dtype otherwise. At O2 the black list shrinks to the ops
whose low-precision gradients are slow or inexact (interpolation, embedding,
scatter: class ``'always_black'``). Ops of class ``'never'`` (casts, control
flow, prints, shape queries) are not cast at all.
"""
from ..ops import registry

LEVELS = ('OD', 'O1', 'O2')


_by_class = [-1, {}]     # (op count it was made at, {AMP class: op names})


def _names(*classes):
    """The op names (own and Paddle's) of the registered ops of ``classes``."""
    if _by_class[0] != registry.op_count():
        by_class = {}
        for op in registry.all_ops().values():
            by_class.setdefault(op.amp, set()).update((op.name,) + op.paddle_names)
        _by_class[:] = [registry.op_count(), by_class]
    return set().union(*(_by_class[1].get(c, ()) for c in classes))


def white_list():
    """``{dtype: {level: op names}}``: the ops run in low precision."""
    white = _names('white')
    return {dtype: {level: set(white) for level in LEVELS} for dtype in ('float16', 'bfloat16')}


def black_list():
    """``{dtype: {level: op names}}``: the ops kept in float32."""
    o1, always = _names('black', 'always_black'), _names('always_black')
    return {dtype: {'OD': set(), 'O1': set(o1), 'O2': set(always)}
            for dtype in ('float16', 'bfloat16')}
