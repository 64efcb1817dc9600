"""Programs to ONNX models: ``paddle.onnx.export`` and ``program_to_model``.

A Layer or function is first traced to its static Program (as ``jit.save``
does, in eval mode), pruned to the outputs and switched to inference; each op
then lowers through the lowering its registry declaration carries. Feed
variables become the graph inputs (an unknown dimension, -1 or None in the
``InputSpec``, becomes a symbolic ONNX dimension, so one file serves every batch
size), parameters become initializers, fetches the outputs.
"""
import numpy as np

from .. import _files
from ..ops.registry import Meta
from .graph import Graph, OnnxExportError, check_exportable, lower_block

DEFAULT_OPSET = 17
MIN_OPSET = 13   # Split/Squeeze/Unsqueeze/ReduceSum take axes as inputs from 13 on


def _value_info(helper, name, shape, dtype, dim_prefix):
    dims = [d if d >= 0 else '%s_d%d' % (dim_prefix, i) for i, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)),
                                         dims)


def program_to_model(program, feed_names, fetch_names, values, opset_version=DEFAULT_OPSET,
                     graph_name='framework'):
    """An ``onnx.ModelProto`` of an inference ``program`` (see
    ``static.io.inference_program``) with parameter ``values`` ({name: array}),
    checked by ``onnx.checker.check_model(full_check=True)``."""
    import onnx
    from onnx import helper, numpy_helper
    if not MIN_OPSET <= opset_version <= onnx.defs.onnx_opset_version():
        raise OnnxExportError("paddle.onnx.export: opset_version=%r is outside the supported "
                              "range %d..%d" % (opset_version, MIN_OPSET,
                                                onnx.defs.onnx_opset_version()))
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


def export(layer, path, input_spec=None, opset_version=DEFAULT_OPSET, **configs):
    """Export ``layer`` (a Layer, a function or a ``@to_static`` one) to
    ``path + '.onnx'`` as Paddle's ``paddle.onnx.export`` does; returns the
    ``onnx.ModelProto``. ``configs`` takes ``output_spec`` as ``jit.save``."""
    from ..jit.api import traced_inference_program
    program, feed, fetch, values = traced_inference_program(layer, input_spec, configs)
    model = program_to_model(program, feed, fetch, values, opset_version)
    save_model(model, path if path.endswith('.onnx') else path + '.onnx')
    return model
