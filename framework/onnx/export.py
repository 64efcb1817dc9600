"""Programs to ONNX models: ``paddle.onnx.export`` and ``program_to_model``.

A Layer or function is first traced to its static Program (as ``jit.save``
does, in eval mode), pruned to the outputs and switched to inference; each op
then lowers through the lowering its registry declaration carries. Feed
variables become the graph inputs (an unknown dimension, -1 or None in the
``InputSpec``, becomes a symbolic ONNX dimension, so one file serves every batch
size), parameters become initializers, fetches the outputs.
"""
import os
import warnings

import numpy as np

from .. import _files
from ..ops.registry import Meta
from ..static.io import register_format
from .fold import fold_batch_norms
from .graph import Graph, OnnxExportError, check_exportable, lower_block

DEFAULT_OPSET = 17
MIN_OPSET = 13   # Split/Squeeze/Unsqueeze/ReduceSum take axes as inputs from 13 on

# ``**configs`` of ``export``: jit.save's output_spec, our fold_batch_norm, and
# paddle2onnx's switches, accepted as Paddle passes them on to it
CONFIGS = {
    'output_spec': None,
    'fold_batch_norm': False,       # batch norm folded into the conv before it
    'enable_onnx_checker': True,    # the full checker always runs; False is accepted
    'auto_update_opset': True,      # an opset below MIN_OPSET is raised to it (a warning)
    'verbose': False,
    'with_hook': False,
}


def check_configs(api, configs):
    unknown = sorted(set(configs) - set(CONFIGS))
    if unknown:
        raise ValueError("%s: unsupported config%s %s; supported: %s"
                         % (api, 's' if len(unknown) > 1 else '', ', '.join(map(repr, unknown)),
                            ', '.join(sorted(CONFIGS))))
    return dict(CONFIGS, **configs)


def resolve_opset(api, opset_version, auto_update=True):
    """The opset to build: ``opset_version`` checked against the range the
    lowerings and the installed onnx support."""
    import onnx
    newest = onnx.defs.onnx_opset_version()
    if isinstance(opset_version, bool) or not isinstance(opset_version, (int, np.integer)):
        raise TypeError("%s: opset_version must be an int, got %r" % (api, opset_version))
    opset_version = int(opset_version)
    if opset_version > newest:
        raise OnnxExportError("%s: opset_version=%d is newer than the installed onnx supports "
                              "(up to %d)" % (api, opset_version, newest))
    if opset_version < MIN_OPSET:
        if not auto_update:
            raise OnnxExportError("%s: opset_version=%d is older than the oldest opset the "
                                  "exporter writes (%d); pass opset_version >= %d"
                                  % (api, opset_version, MIN_OPSET, MIN_OPSET))
        warnings.warn("%s: opset_version=%d raised to %d, the oldest the exporter writes "
                      "(auto_update_opset=True, as paddle2onnx)" % (api, opset_version,
                                                                     MIN_OPSET))
        opset_version = MIN_OPSET
    return opset_version


def _value_info(helper, name, shape, dtype, dim_prefix):
    dims = [d if d >= 0 else '%s_d%d' % (dim_prefix, i) for i, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)),
                                         dims)


def program_to_model(program, feed_names, fetch_names, values, opset_version=DEFAULT_OPSET,
                     graph_name='framework', fold_batch_norm=False):
    """An ``onnx.ModelProto`` of an inference ``program`` (see
    ``graph.model_files.inference_program``) with parameter ``values`` ({name: array}),
    checked by ``onnx.checker.check_model(full_check=True)``. ``fold_batch_norm``
    folds each batch norm that follows a conv into the conv's weight and bias."""
    import onnx
    from onnx import helper, numpy_helper
    opset_version = resolve_opset('paddle.onnx.export', opset_version)
    if fold_batch_norm:
        program, values = fold_batch_norms(program, values, fetch_names)
    check_exportable(program)
    g = Graph(opset_version)
    g.program = program
    block = program.global_block()
    # graph inputs, initializers and outputs keep their IR names
    out_names = {n: n for n in fetch_names if n not in feed_names and n not in values}
    g._taken.update(feed_names, values, out_names)
    inputs = []
    for n in feed_names:
        v = block.var(n)
        inputs.append(_value_info(helper, n, v.shape, v.dtype, n))
        g.env[n] = n
        g.set_meta(n, Meta(v.shape, v.dtype))
    for n, arr in values.items():
        arr = np.asarray(arr)
        g.initializers.append(numpy_helper.from_array(arr, n))
        g.env[n] = n
        g.set_meta(n, Meta(arr.shape, arr.dtype))
    lower_block(g, block)
    outputs = []
    for n in fetch_names:
        v = block.var(n)
        if n not in g.env:
            producer = next((op.type for op in block.ops if n in op.output_arg_names), None)
            raise OnnxExportError("paddle.onnx.export: fetch '%s' is an output the lowering of "
                                  "op '%s' does not produce (a training-time output)"
                                  % (n, producer))
        out = out_names.get(n) or g.fresh(n)   # a fetch that is also an input: a new name
        g.nodes.append(helper.make_node('Identity', [g.lookup(n)], [out],
                                        name=g.fresh('output')))
        outputs.append(_value_info(helper, out, v.shape, v.dtype, out))
    graph = helper.make_graph(g.nodes, graph_name, inputs, outputs, g.initializers)
    model = helper.make_model(graph, producer_name='framework',
                              opset_imports=[helper.make_opsetid('', opset_version)])
    onnx.checker.check_model(model, full_check=True)
    return model


def save_model(model, path):
    """Write ``model`` to ``path`` atomically (a temporary file, then a rename)."""
    _files.atomic_write(path, [model.SerializeToString()])


def write_model(path_prefix, program, feed_names, fetch_names, values, opset_version,
                configs, api='paddle.onnx.export'):
    """Export an inference ``program`` to ``path_prefix + '.onnx'``; returns the model."""
    if not os.path.basename(path_prefix):
        raise ValueError("%s: path must be 'dirname/file_prefix' or 'file_prefix', got %r "
                         "(its file prefix is empty)" % (api, path_prefix))
    opset_version = resolve_opset(api, opset_version, configs['auto_update_opset'])
    model = program_to_model(program, feed_names, fetch_names, values, opset_version,
                             fold_batch_norm=configs['fold_batch_norm'])
    directory = os.path.dirname(path_prefix)
    if directory:
        os.makedirs(directory, exist_ok=True)
    save_model(model, path_prefix + '.onnx')
    return model


def export(layer, path, input_spec=None, opset_version=DEFAULT_OPSET, **configs):
    """Export ``layer`` to ONNX as Paddle's ``paddle.onnx.export`` does, to
    ``path + '.onnx'`` (``path`` is a prefix).

    ``layer`` is a Layer, a function, or either decorated with ``@to_static``;
    it is traced to its static Program in eval mode with ``input_spec`` (a
    list of ``InputSpec`` or example Tensors; None: the ``@to_static``
    function's own spec). Dims given as None become symbolic ONNX dims, so one
    file serves every batch size. ``configs``: ``output_spec`` (the outputs to
    keep, as ``jit.save``), ``fold_batch_norm=True`` (fold batch norms into the
    convs before them), and paddle2onnx's ``enable_onnx_checker``,
    ``auto_update_opset`` (an opset below 13 is raised to 13 unless False) and
    ``verbose``. Returns the ``onnx.ModelProto`` (Paddle returns None).
    """
    from ..jit.api import traced_inference_program
    configs = check_configs('paddle.onnx.export', configs)
    # checked (and raised, warning once) before the possibly slow tracing
    opset_version = resolve_opset('paddle.onnx.export', opset_version,
                                  configs['auto_update_opset'])
    program, feed, fetch, values = traced_inference_program(layer, input_spec, configs)
    return write_model(path, program, feed, fetch, values, opset_version, configs)


def export_program(path_prefix, feed_vars, fetch_vars, program=None, scope=None,
                   opset_version=DEFAULT_OPSET, **configs):
    """Export a static ``program`` (default: the default main program), pruned
    to ``fetch_vars`` and switched to inference, to ``path_prefix + '.onnx'``:
    what ``static.save_inference_model(..., format='onnx')`` writes.
    ``feed_vars``/``fetch_vars`` are Variables or names; parameter values come
    from ``scope`` (default: the global scope). ``configs`` as ``export``."""
    from ..graph import model_files as io
    configs = check_configs('paddle.onnx.export_program', configs)
    if configs['output_spec'] is not None:
        raise ValueError("paddle.onnx.export_program: the outputs are fetch_vars; "
                         "output_spec is for Layers")
    program, feed, fetch, values = io.inference_model_parts(feed_vars, fetch_vars, program,
                                                            scope)
    return write_model(path_prefix, program, feed, fetch, values, opset_version, configs,
                       'paddle.onnx.export_program')


def _write_for_save_inference_model(path_prefix, program, feed_names, fetch_names, values, api,
                                    opset_version=DEFAULT_OPSET, **configs):
    """``static.save_inference_model(format='onnx')``: ``opset_version`` and
    ``export``'s configs may be given."""
    write_model(path_prefix, program, feed_names, fetch_names, values, opset_version,
                check_configs(api, configs), api)


register_format('onnx', _write_for_save_inference_model)
