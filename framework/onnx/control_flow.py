"""ONNX lowerings of the control-flow ops: ``cond`` -> ``If``, ``while`` -> ``Loop``.

Both IR ops already have ONNX's shape (see ``graph/control_flow.py``): a
``cond`` yields the values its branch blocks name, a ``while`` carries its
loop values through a body block and recomputes its condition with a cond
block. A branch or a body lowers into a child ``Graph`` (``g.subgraph``-style:
it shares the parent's name space and reads the enclosing graph's values
directly, as ONNX's outer-scope references allow), so nesting -- an if in a
loop, a loop in a loop -- is plain recursion through ``lower_block``.

The Loop is built without a trip-count input: its condition is the IR's cond
block, run once on the initial values before the loop and again at the end of
each iteration on the new values, so the number of iterations follows the
data. Constants made inside a subgraph become initializers of the main graph.

``lower_cond`` and ``lower_while`` are the ops' registry lowerings, which
this module declares on the ``cond`` and ``while`` ops when ``framework.onnx``
is imported (the static core, below it, does not know the exporter);
``cond_to_onnx`` and ``while_to_onnx`` do the work on the blocks themselves.
"""
import numpy as np

from ..ops import registry
from ..ops.registry import Meta
from .graph import Graph, OnnxExportError, lower_block


def cond_to_onnx(g, pred, true_block, false_block, true_outs, false_outs, out_metas):
    """An ``If`` node choosing between the values ``true_outs``/``false_outs``
    the branch blocks compute; returns its output names. A value named ''
    in one branch (defined on the other path only, read only there) is a
    zero-filled stand-in of the output's dtype."""
    if not out_metas:
        return []       # a cond that yields nothing has no effect on the outputs
    branches = {}
    for key, block, names in (('then_branch', true_block, true_outs),
                              ('else_branch', false_block, false_outs)):
        child = Graph(g.opset, parent=g)
        lower_block(child, block)
        values = [child.lookup(n) if n else _stand_in(child, m)
                  for n, m in zip(names, out_metas)]
        branches[key] = finish_subgraph(child, key, [], values, out_metas)
    return g.op('If', bool_scalar(g, pred), outputs=['cond_out'] * len(out_metas), **branches)


def while_to_onnx(g, inits, cond_block, body_block, loop_vars, cond_out, body_outs,
                  var_metas):
    """A ``Loop`` node carrying ``inits`` (bound to the ``loop_vars``
    placeholders the blocks read) while the cond block's ``cond_out`` holds;
    returns the final loop values.

    A tensor array the body only appends to (``array_append`` of its
    placeholder, read by nothing else) is not carried: each iteration's item
    becomes a scan output, which the Loop stacks, and the array after the loop
    is its initial items followed by those."""
    scans = appended_arrays(cond_block, body_block, loop_vars, body_outs)
    carried = [j for j in range(len(inits)) if j not in scans]
    first = inline_block(g, cond_block, dict(zip(loop_vars, inits)))
    keep_going = bool_scalar(g, first.lookup(cond_out))
    body = Graph(g.opset, parent=g)
    iteration = body.fresh('iteration')
    cond_in = body.fresh('cond_in')
    inputs = [body.fresh(loop_vars[j]) for j in carried]
    for j, name in zip(carried, inputs):
        body.env[loop_vars[j]] = name
        body.set_meta(name, var_metas[j])
    for j in scans:     # appending to an empty array makes the iteration's one-item array
        body.env[loop_vars[j]] = _stand_in(body, var_metas[j])
    lower_block(body, body_block)
    new_values = [body.lookup(n) for n in body_outs]
    again = inline_block(body, cond_block, dict(zip(loop_vars, new_values)))
    body_cond = bool_scalar(body, again.lookup(cond_out))
    scalar = lambda dtype: Meta((), dtype)   # noqa: E731
    one_item = [Meta((1,) + tuple(var_metas[j].shape[1:]), var_metas[j].dtype) for j in scans]
    graph = finish_subgraph(
        body, 'loop_body',
        [(iteration, scalar(np.int64)), (cond_in, scalar(np.bool_))]
        + [(n, var_metas[j]) for j, n in zip(carried, inputs)],
        [body_cond] + [new_values[j] for j in carried] + [new_values[j] for j in scans],
        [scalar(np.bool_)] + [var_metas[j] for j in carried] + one_item)
    outs = g.op('Loop', None, keep_going, *[inits[j] for j in carried],
                outputs=['loop_out'] * (len(carried) + len(scans)), body=graph)
    finals = dict(zip(carried, outs))
    for j, stacked in zip(scans, outs[len(carried):]):
        items = g.op('Squeeze', stacked, g.ints([1]))     # [iterations, 1, ...] -> [iterations, ...]
        finals[j] = _append_items(g, inits[j], items)
    return [finals[j] for j in range(len(inits))]


def _append_items(g, arr, items):
    """``arr``'s items followed by ``items`` (an empty ``arr`` may stand in with
    another item shape, as ``array_append`` allows)."""
    rows = g.op('Slice', g.op('Shape', arr), g.ints([0]), g.ints([1]))
    item_shape = g.op('Slice', g.op('Shape', items), g.ints([1]), g.ints([np.iinfo(np.int64).max]))
    as_items = g.op('Reshape', arr, g.op('Concat', rows, item_shape, axis=0),
                    allowzero=1 if g.opset >= 14 else None)
    return g.op('Concat', as_items, items, axis=0)


def appended_arrays(cond_block, body_block, loop_vars, body_outs):
    """Indices of the loop values whose new value is ``array_append`` of their
    placeholder, when nothing else reads the placeholder or the new value."""
    reads = {}
    for block in (cond_block, body_block):
        _count_reads(block, reads)
    found = []
    for op in body_block.ops:
        if op.type != 'array_append' or len(op.input('arr')) != 1:
            continue
        arr, out = op.input('arr')[0], op.output('out')[0]
        if arr in loop_vars and body_outs.count(out) == 1 and \
                loop_vars.index(arr) == body_outs.index(out) and \
                reads.get(arr) == 1 and not reads.get(out) and op.input('x') != [arr]:
            found.append(loop_vars.index(arr))
    return sorted(found)


def _count_reads(block, reads):
    """Add to ``reads`` {name: times read} by ``block``'s ops, their sub-blocks
    included, and by the names control-flow ops take from their sub-blocks
    (a branch's outputs, a body's new loop values: their declared paths)."""
    from ..ops import registry
    from ..graph.sub_blocks import sub_block_ids
    program = block.program
    for op in block.ops:
        for n in op.input_arg_names:
            reads[n] = reads.get(n, 0) + 1
        for idx in sub_block_ids(op):
            _count_reads(program.block(idx), reads)
        rules = registry.lookup(op.type).block_rules if registry.has_op(op.type) else None
        if rules is not None:
            for path in rules.paths(op):
                for _, _, yielded in path:
                    for n in yielded or ():
                        if n:
                            reads[n] = reads.get(n, 0) + 1


# ---- subgraphs ------------------------------------------------------------------------

def inline_block(g, block, bindings):
    """Lower ``block`` into ``g``'s node list with IR names rebound by
    ``bindings``, in a scope of its own (so the rebinding does not outlive it);
    returns the scope, whose ``lookup`` finds the block's values."""
    scope = Graph(g.opset, parent=g)
    scope.env.update(bindings)
    lower_block(scope, block)
    g.nodes.extend(scope.nodes)
    g.initializers.extend(scope.initializers)
    g._metas.update(scope._metas)
    return scope


def finish_subgraph(child, name, inputs, values, metas):
    """The ``GraphProto`` of ``child`` with graph ``inputs`` [(name, Meta)] and
    outputs ``values`` (each through its own Identity: a subgraph output must
    be a value the subgraph itself produces). Its constants move to the main
    graph, which every subgraph can read."""
    helper = child._helper
    outs = []
    for v, m in zip(values, metas):
        out = child.fresh(name + '_out')
        child.nodes.append(helper.make_node('Identity', [v], [out], name=child.fresh('Identity')))
        outs.append(_value_info(child, out, m))
    root = child
    while root.parent is not None:
        root = root.parent
    root.initializers.extend(child.initializers)
    return helper.make_graph(child.nodes, child.fresh(name),
                             [_value_info(child, n, m) for n, m in inputs], outs)


def _value_info(g, name, m):
    """A value's type: its dtype and rank, its dims where the IR knows them."""
    return g._helper.make_tensor_value_info(name, g.tensor_type(m.dtype),
                                            [d if d >= 0 else None for d in m.shape])


def _stand_in(g, m):
    return g.const(np.zeros([max(d, 0) for d in m.shape], m.dtype), hint='undefined')


def bool_scalar(g, value):
    """``value`` (a one-element predicate) as the 0-d bool If and Loop take."""
    m = g.meta(value)
    if m.dtype != np.bool_:
        value = g.op('Cast', value, to=g.tensor_type(np.bool_))
    if m.shape != ():
        value = g.op('Reshape', value, g.ints([]))
    return value


# ---- the registry lowerings of the ops (declared with them in graph/control_flow.py) ----

def lower_cond(g, pred, captured, true_block, false_block, true_fwd_block, false_fwd_block,
               true_outs, false_outs):
    if true_fwd_block is not None or false_fwd_block is not None:
        raise OnnxExportError("a gradient cond cannot be exported (export inference programs)")
    program = g.current_op.block.program
    n_out = len(g.current_op.output('Out'))
    return cond_to_onnx(g, pred, program.block(true_block), program.block(false_block),
                        true_outs, false_outs, [g.out_meta(i) for i in range(n_out)])


def lower_while(g, inits, captured, cond_block, body_block, loop_vars, cond_out, body_outs,
                save_history, is_test):
    program = g.current_op.block.program
    return while_to_onnx(g, inits, program.block(cond_block), program.block(body_block),
                         loop_vars, cond_out, body_outs,
                         [_var_meta(program, n) for n in loop_vars])


def _var_meta(program, name):
    v = program.var(name)
    return Meta(v.shape, v.dtype)


registry.lookup('cond').def_onnx(lower_cond)
registry.lookup('while').def_onnx(lower_while)
