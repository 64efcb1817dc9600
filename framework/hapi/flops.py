"""``paddle.flops``: the floating-point operations of one forward pass.

For a Layer, every leaf layer is run once on ``randn(input_size)`` and counted
by its type with Paddle's rules (multiply-adds count once): convolutions
``out_numel * (in_channels / groups * kernel_numel + bias)``, Linear
``in_features * out_numel``, batch norm ``2 * numel``, LeakyReLU ``numel``,
average pooling ``out_numel`` (adaptive: ``(kernel_numel + 1) * out_numel``),
ReLU/ReLU6/Dropout 0, other layers 0 unless ``custom_ops`` maps their class to
a counting function ``fn(layer, inputs, output)`` that adds to
``layer.total_ops``. For a static Program each op is counted by its own FLOP
formula (``OpDef.flops``, ``ops/properties.py``) from its variables' shapes
(per sample: the batch dimension is left out), as Paddle's static counter
counts conv2d, pool2d, matmul/linear, batch_norm and the elementwise ops.
"""
import warnings

import numpy as np

from .. import nn
from ..ops import properties, registry
from ..ops.properties import numel
from ..graph.operands import kernel_attrs


def _conv(m, x, y):
    kernel = numel(m.weight.shape[2:])
    bias = 1 if m.bias is not None else 0
    m.total_ops += abs(int(numel(y.shape) * (x[0].shape[1] / m._groups * kernel + bias)))


def _per_element(m, x, y):
    m.total_ops += numel(x[0].shape)


def _batch_norm(m, x, y):
    m.total_ops += 2 * numel(x[0].shape)


def _linear(m, x, y):
    m.total_ops += abs(int(m.weight.shape[0] * numel(y.shape)))


def _avg_pool(m, x, y):
    m.total_ops += numel(y.shape)


def _adaptive_avg_pool(m, x, y):
    kernel = np.array(x[0].shape[2:]) // np.array(y.shape[2:])
    m.total_ops += abs(int((np.prod(kernel) + 1) * numel(y.shape)))


def _zero(m, x, y):
    pass


_RULES = {
    'Conv1D': _conv, 'Conv2D': _conv, 'Conv3D': _conv,
    'Conv1DTranspose': _conv, 'Conv2DTranspose': _conv, 'Conv3DTranspose': _conv,
    'BatchNorm2D': _batch_norm, 'BatchNorm': _batch_norm,
    'ReLU': _zero, 'ReLU6': _zero, 'Dropout': _zero, 'LeakyReLU': _per_element,
    'Linear': _linear,
    'AvgPool1D': _avg_pool, 'AvgPool2D': _avg_pool, 'AvgPool3D': _avg_pool,
    'AdaptiveAvgPool1D': _adaptive_avg_pool, 'AdaptiveAvgPool2D': _adaptive_avg_pool,
    'AdaptiveAvgPool3D': _adaptive_avg_pool,
}
# the layer classes (of those this framework has) Paddle counts, exactly by type
COUNTERS = {getattr(nn, name): rule for name, rule in _RULES.items() if hasattr(nn, name)}


def flops(net, input_size, custom_ops=None, print_detail=False):
    """The FLOPs of ``net`` (a Layer, or a static Program) on one input of
    ``input_size``; prints the total (and a table per layer/op with
    ``print_detail``)."""
    from ..static import Program
    if isinstance(net, nn.Layer):
        from ..ops.creation import randn
        return _layer_flops(net, randn(list(input_size)), custom_ops or {}, print_detail)
    if isinstance(net, Program):
        return _program_flops(net, print_detail)
    warnings.warn("Your model must be an instance of paddle.nn.Layer or paddle.static.Program.")
    return -1


def _layer_flops(model, inputs, custom_ops, print_detail):
    from ..dygraph import no_grad
    leaves = [m for m in model.sublayers(include_self=True) if not list(m.children())]
    rows, handles, seen = {}, [], set()

    def recorder(fn):
        def hook(m, x, y):
            out = y[0] if isinstance(y, (list, tuple)) else y
            m.total_ops = 0
            if fn is not None:
                fn(m, x, out)
            params = sum(numel(p.shape) for p in m.parameters())
            rows[id(m)] = (list(x[0].shape), list(out.shape), params, int(m.total_ops))
            del m.total_ops
        return hook

    for m in leaves:
        kind = type(m)
        fn = custom_ops.get(kind, COUNTERS.get(kind))
        if kind not in seen:
            seen.add(kind)
            print("Customize Function has been applied to %s" % kind if kind in custom_ops
                  else "%s's flops has been counted" % kind if fn is not None
                  else "Cannot find suitable count function for %s. Treat it as zero FLOPs."
                  % kind)
        handles.append(m.register_forward_post_hook(recorder(fn)))
    training = model.training
    model.eval()
    try:
        with no_grad():
            model(inputs)
    finally:
        for h in handles:
            h.remove()
        if training:
            model.train()
    table = [[m.full_name()] + list(rows[id(m)]) for m in leaves if id(m) in rows]
    total_ops = sum(r[4] for r in table)
    total_params = sum(r[3] for r in table)
    if print_detail:
        _print_table(["Layer Name", "Input Shape", "Output Shape", "Params", "Flops"], table)
    print('Total Flops: %d     Total Params: %d' % (total_ops, total_params))
    return int(total_ops)


def _program_flops(program, print_detail):
    block = program.global_block()
    rows = []
    for op in block.ops:
        count = _op_flops(block, op)
        if count:
            rows.append([op.type, _weight(op), count])
    if print_detail:
        _print_table(["OP Type", 'Param name', "Flops"], rows)
    return sum(r[2] for r in rows)


def _op_flops(block, op):
    """The op's own formula on its variables' shapes; 0 without one."""
    if not registry.has_op(op.type):
        return 0
    opdef = registry.lookup(op.type)
    formula = properties.value(opdef.flops)
    if formula is None:
        return 0

    def shape(names):
        return list(block.var(names[0]).shape) if names else None
    ins = {n: ([list(block.var(v).shape) for v in op.inputs.get(n, [])] if variadic
               else shape(op.inputs.get(n)))
           for n, variadic in zip(opdef.input_names, opdef.variadic)}
    outs = {n: shape(op.outputs.get(n)) for n in opdef.output_names}
    return abs(int(formula(ins, outs, dict(zip(opdef.attr_names, kernel_attrs(opdef, op))))))


def _weight(op):
    """The weight an opaque op (conv, matmul, linear, batch norm) multiplies
    by, for the table; '' for elementwise ops."""
    if registry.lookup(op.type).pattern != 'opaque':
        return ''
    return next((op.inputs[s][0] for s in ('weight', 'y') if op.inputs.get(s)), '')


def _print_table(heads, rows):
    widths = [max([len(str(h))] + [len(str(r[i])) for r in rows]) for i, h in enumerate(heads)]
    shelf = ''.join('+' + '-' * (w + 2) for w in widths) + '+'
    line = lambda row: ''.join('|' + str(v).center(w + 2)  # noqa: E731
                               for v, w in zip(row, widths)) + '|'
    print(shelf)
    print(line(heads))
    print(shelf)
    for r in rows:
        print(line(r))
    print(shelf)
