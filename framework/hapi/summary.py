"""``framework.summary``: a table of a network's layers, output shapes and
parameter counts (Paddle's ``paddle.summary``).

The network runs once on random inputs (in eval mode, without gradients);
forward post-hooks on the sublayers record what each layer produced.
Containers (Sequential, LayerList, LayerDict) get no row of their own: their
children do. A layer's row counts the parameters it owns directly (batch
norm's running statistics included, as non-trainable ones), so nested custom
layers are not counted twice; a layer called several times has one row, and
rows are named and laid out as Paddle prints them.
"""
import collections
import numbers

import numpy as np

from .. import dtype as _dt
from ..dygraph import Tensor, no_grad
from ..nn.layer import Layer
from ..ops.modes import in_static_mode
from ..static.input_spec import InputSpec
from ..graph.program import Program, program_guard

__all__ = ['summary']


def _container_types():
    from .. import nn
    return tuple(getattr(nn, n) for n in ('Sequential', 'LayerList', 'LayerDict',
                                          'ParameterList') if hasattr(nn, n))


def _check_shape(shape):
    """A concrete input shape: one None/-1 (the batch) becomes 1."""
    unknown = 0
    out = []
    for item in shape:
        if item is None or item == -1:
            unknown += 1
            if unknown > 1:
                raise ValueError("summary: only the batch dimension of input_size may be None "
                                 "or -1, got %s" % (list(shape),))
            item = 1
        elif isinstance(item, bool) or not isinstance(item, numbers.Integral) or item <= 0:
            raise ValueError("summary: input_size entries must be positive ints (or None for "
                             "the batch), got %s" % (list(shape),))
        out.append(int(item))
    return tuple(out)


def _is_shape(obj):
    return isinstance(obj, (tuple, list)) and all(
        x is None or (isinstance(x, numbers.Integral) and not isinstance(x, bool)) for x in obj)


def _normalise_sizes(input_size):
    """(list of shapes, single_input)."""
    if isinstance(input_size, InputSpec):
        return [_check_shape(input_size.shape)], True
    if isinstance(input_size, numbers.Integral) and not isinstance(input_size, bool):
        return [_check_shape((input_size,))], True
    if _is_shape(input_size):
        return [_check_shape(input_size)], True
    if isinstance(input_size, (list, tuple)):
        shapes = []
        for item in input_size:
            if isinstance(item, InputSpec):
                shapes.append(_check_shape(item.shape))
            elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
                shapes.append(_check_shape((item,)))
            elif _is_shape(item):
                shapes.append(_check_shape(item))
            else:
                raise TypeError("summary: each entry of input_size must be a shape tuple or an "
                                "InputSpec, got %r" % (item,))
        return shapes, False
    raise TypeError("summary: input_size must be a shape tuple, an InputSpec or a list of "
                    "them, got %r" % (input_size,))


def _spec_dtypes(input_size, n):
    specs = input_size if isinstance(input_size, (list, tuple)) else [input_size]
    if len(specs) == n and all(isinstance(s, InputSpec) for s in specs):
        return [s.dtype for s in specs]
    return None


def _make_inputs(input_size, dtypes, static):
    from ..ops.creation import to_tensor
    from ..random import generator
    from .. import static as _static
    shapes, single = _normalise_sizes(input_size)
    if dtypes is None:
        dtypes = _spec_dtypes(input_size, len(shapes)) or [_dt.get_default_dtype()] * len(shapes)
    elif isinstance(dtypes, (list, tuple)):
        if len(dtypes) != len(shapes):
            raise ValueError("summary: got %d dtypes for %d inputs" % (len(dtypes), len(shapes)))
    else:
        dtypes = [dtypes] * len(shapes)
    inputs = []
    for shape, dtype in zip(shapes, dtypes):
        dtype = np.dtype(_dt.convert_dtype(dtype))
        if static:      # shapes only: the program is built, never run
            inputs.append(_static.data('summary_input_%d' % len(inputs), list(shape), dtype))
            continue
        data = generator().random(shape)
        if dtype.kind in 'iub':
            data = np.zeros(shape)      # valid indices for embeddings
        inputs.append(to_tensor(data.astype(dtype)))
    return inputs, shapes, single


def _shapes_of(value):
    if isinstance(value, Tensor) or hasattr(value, 'shape') and not isinstance(value, (
            list, tuple, dict)):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        shapes = [_shapes_of(v) for v in value]
        return shapes[0] if len(shapes) == 1 else shapes
    if isinstance(value, dict):
        return {k: _shapes_of(v) for k, v in value.items()}
    return []


def _numel(shapes):
    """Elements of a (nested) shape list."""
    if isinstance(shapes, dict):
        return sum(_numel(v) for v in shapes.values())
    if shapes and all(isinstance(s, list) for s in shapes):
        return sum(_numel(s) for s in shapes)
    if shapes and all(isinstance(s, numbers.Integral) for s in shapes):
        return int(np.prod(shapes))
    return 0 if shapes else 1


class _Recorder:
    """One row per layer, as Paddle: a layer called several times keeps its
    first position and shows its last call's shapes; its parameters count once."""

    def __init__(self):
        self.rows = collections.OrderedDict()     # row key -> row

    @staticmethod
    def key(layer, n_rows):
        """'Conv2D-3': the class name and the layer's unique-name number + 1
        (Paddle's rule), so rows name the same layers as ``full_name()``."""
        try:
            number = int(layer.full_name().rsplit('_', 1)[-1])
        except ValueError:
            number = n_rows
        return '%s-%d' % (type(layer).__name__, number + 1)

    def hook(self, layer, inputs, outputs):
        total = trainable = 0
        for p in layer._parameters.values():
            if p is None:
                continue
            n = int(np.prod(p.shape))
            total += n
            if getattr(p, 'trainable', True) and not p.stop_gradient:
                trainable += n
        self.rows[self.key(layer, len(self.rows))] = {
            'input_shape': [_shapes_of(x) for x in inputs],
            'output_shape': _shapes_of(outputs), 'nb_params': total,
            'trainable_params': trainable}


def _hooked_layers(net):
    containers = _container_types()
    subs = net.sublayers()
    layers = [l for l in subs if not isinstance(l, containers)]
    # the network itself: only when it is a single layer or owns parameters directly
    if not subs or any(p is not None for p in net._parameters.values()):
        layers.append(net)
    return layers


def _run(net, inputs, single):
    was_training = net.training
    net.eval()
    try:
        with no_grad():
            if isinstance(inputs, dict):
                net(**inputs)
            elif isinstance(inputs, (list, tuple)) and not single:
                net(*inputs)
            else:
                net(inputs[0] if isinstance(inputs, (list, tuple)) else inputs)
    finally:
        if was_training:
            net.train()


def _forward_once(net, input_size, dtypes, given):
    """Run ``net`` on ``given`` inputs or on random ones of ``input_size``;
    returns the number of input elements."""
    if given is not None:
        single = isinstance(given, Tensor)
        flat = list(given.values()) if isinstance(given, dict) else (
            [given] if single else list(given))
        _run(net, [given], True)     # Paddle passes ``input`` as it is: one argument
        return sum(int(np.prod(t.shape)) for t in flat if hasattr(t, 'shape'))
    if not in_static_mode():
        inputs, shapes, single = _make_inputs(input_size, dtypes, False)
        _run(net, inputs, single)
    else:
        # static graph mode: build the forward into a scratch program, for the shapes only
        with program_guard(Program(), Program()):
            inputs, shapes, single = _make_inputs(input_size, dtypes, True)
            _run(net, inputs, single)
    return sum(int(np.prod(s)) for s in shapes)


def _widths(rows):
    """Column widths as Paddle computes them (at least 15/20/20/15; the
    parameter column is sized by the count without thousands separators)."""
    widths = [15, 20, 20, 15]
    for key, r in rows.items():
        for i, text in enumerate((key, str(r['input_shape']), str(r['output_shape']),
                                  str(r['nb_params']))):
            widths[i] = max(widths[i], len(text))
    return widths, max(75, sum(widths) + 5)


def _table(rows, input_numel, itemsize):
    widths, line_len = _widths(rows)
    def fmt(cells):
        return ' '.join('{:^{}}'.format(str(c), w) for c, w in zip(cells, widths))
    # numpy ints, as Paddle returns them
    total = np.int64(sum(r['nb_params'] for r in rows.values()))
    trainable = np.int64(sum(r['trainable_params'] for r in rows.values()))
    output_numel = sum(_numel(r['output_shape']) for r in rows.values())
    mb = 1024.0 ** 2
    input_mb = input_numel * itemsize / mb
    act_mb = 2.0 * output_numel * itemsize / mb      # forward values and their gradients
    params_mb = total * itemsize / mb
    lines = ['-' * line_len, fmt(('Layer (type)', 'Input Shape', 'Output Shape', 'Param #')),
             '=' * line_len]
    lines += [fmt((key, r['input_shape'], r['output_shape'], '{0:,}'.format(r['nb_params'])))
              for key, r in rows.items()]
    lines += ['=' * line_len,
              'Total params: {0:,}'.format(total),
              'Trainable params: {0:,}'.format(trainable),
              'Non-trainable params: {0:,}'.format(total - trainable),
              '-' * line_len,
              'Input size (MB): %0.2f' % input_mb,
              'Forward/backward pass size (MB): %0.2f' % act_mb,
              'Params size (MB): %0.2f' % params_mb,
              'Estimated Total Size (MB): %0.2f' % (input_mb + act_mb + params_mb),
              '-' * line_len]
    return '\n'.join(lines) + '\n', {'total_params': total, 'trainable_params': trainable}


def summary(net, input_size=None, dtypes=None, input=None):  # noqa: A002
    """Print a table of ``net``'s layers with their input/output shapes and
    parameter counts; return ``{'total_params': N, 'trainable_params': M}``.

    Args:
        net (Layer): the network.
        input_size (tuple|InputSpec|list): the input shape including the batch
            dimension (None/-1 there means 1), or a list of them for several
            inputs.
        dtypes (str|list): input dtype(s); default float32 (or the InputSpecs').
        input (Tensor|list|dict): real inputs to run instead of random ones.

    >>> import framework as paddle
    >>> net = paddle.nn.Sequential(paddle.nn.Linear(4, 3), paddle.nn.ReLU(), paddle.nn.Linear(3, 2))
    >>> info = paddle.summary(net, (1, 4))  # doctest: +ELLIPSIS
    ---...
    >>> info
    {'total_params': np.int64(23), 'trainable_params': np.int64(23)}
    """
    if not isinstance(net, Layer):
        raise TypeError("summary: net must be a framework.nn.Layer, got %s" % type(net).__name__)
    if input is None and input_size is None:
        raise ValueError("summary: give input_size or input")
    rec = _Recorder()
    handles = [layer.register_forward_post_hook(rec.hook) for layer in _hooked_layers(net)]
    try:
        input_numel = _forward_once(net, input_size, dtypes, input)
    finally:
        for h in handles:
            h.remove()
    # sizes in the default float dtype (what parameters and activations use)
    itemsize = np.dtype(_dt.get_default_dtype()).itemsize
    text, result = _table(rec.rows, input_numel, itemsize)
    print(text)
    return result
