"""Batch norm folded into the convolution before it (``fold_batch_norm=True``).

At inference a batch norm is an affine map per channel, ``y = x * s + t`` with
``s = weight / sqrt(running_var + epsilon)`` and ``t = bias - running_mean * s``;
after a conv it folds into the conv's filter (each output channel's filter
scaled by ``s``) and bias (``b * s + t``), so the exported graph has one node
where it had two. A batch norm folds when its input comes from a conv in the
same block that nothing else reads, in the same channel layout, and every
parameter involved is a constant of the export.
"""
import numpy as np

_CHANNEL_LAST = ('NLC', 'NHWC', 'NDHWC')


def fold_batch_norms(program, values, fetch_names=()):
    """(program, values) with every foldable conv + batch_norm pair folded;
    ``program`` and ``values`` are left as they are (a copy is changed)."""
    program = program.clone()
    values = dict(values)
    keep = set(fetch_names)
    for block in program.blocks:
        readers = {}
        for op in block.ops:
            for n in op.input_arg_names:
                readers[n] = readers.get(n, 0) + 1
        producers = {n: op for op in block.ops for n in op.output_arg_names}
        folded = []
        for bn in block.ops:
            if bn.type != 'batch_norm':
                continue
            conv = producers.get(bn.inputs['x'][0])
            if _foldable(conv, bn, values, readers, keep):
                _fold(conv, bn, values)
                folded.append(bn)
        block.ops = [op for op in block.ops if all(op is not f for f in folded)]
    used = {n for b in program.blocks for op in b.ops for n in op.input_arg_names}
    values = {n: v for n, v in values.items() if n in used}
    program._bump()
    return program, values


def _slot(op, name):
    names = op.inputs.get(name) or []
    return names[0] if names else None


def _foldable(conv, bn, values, readers, keep):
    if conv is None or conv.type != 'conv':
        return False
    x = bn.inputs['x'][0]
    if readers.get(x, 0) != 1 or x in keep:
        return False
    conv_last = conv.attrs.get('data_format', 'NCHW') in _CHANNEL_LAST
    bn_last = bn.attrs.get('data_format', 'NCHW') in _CHANNEL_LAST
    if conv_last != bn_last:
        return False
    params = [_slot(conv, 'weight'), _slot(conv, 'bias'), _slot(bn, 'running_mean'),
              _slot(bn, 'running_var'), _slot(bn, 'weight'), _slot(bn, 'bias')]
    return all(p is None or p in values for p in params) and params[0] is not None


def _fresh(values, base):
    name, i = base, 0
    while name in values:
        i += 1
        name = '%s_%d' % (base, i)
    return name


def _fold(conv, bn, values):
    w = np.asarray(values[_slot(conv, 'weight')])
    dtype = w.dtype
    c = w.shape[0]

    def param(op, slot, default):
        n = _slot(op, slot)
        return np.full(c, default, np.float64) if n is None else \
            np.asarray(values[n], np.float64).reshape(c)

    scale = param(bn, 'weight', 1.0) / np.sqrt(param(bn, 'running_var', 1.0)
                                               + float(bn.attrs.get('epsilon', 1e-5)))
    bias = (param(conv, 'bias', 0.0) - param(bn, 'running_mean', 0.0)) * scale \
        + param(bn, 'bias', 0.0)
    new_w = _fresh(values, _slot(conv, 'weight') + '.bn_folded')
    new_b = _fresh(values, new_w + '.bias')
    values[new_w] = (w * scale.reshape((c,) + (1,) * (w.ndim - 1))).astype(dtype)
    values[new_b] = bias.astype(dtype)
    conv.inputs['weight'] = [new_w]
    conv.inputs['bias'] = [new_b]
    conv.outputs['out'] = list(bn.outputs['out'])
