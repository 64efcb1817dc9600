"""The ONNX graph one Program block lowers into.

An op's lowering (``@op.def_onnx`` next to its kernel and grad rule) receives a
``Graph`` and the ONNX value names of its inputs, and emits nodes with
``g.op``; it never imports ``onnx`` itself, so op modules stay free of the
optional dependency. A sub-block (``cond``'s branches, ``while``'s body) lowers
into a child ``Graph`` that shares its parent's name space, as ONNX requires:
a name is defined once in the whole model.
"""
import numpy as np

from ..ops.registry import Meta


class OnnxExportError(ValueError):
    """A Program cannot be exported (an op without a lowering, an unsupported
    attribute); the message names the op and where the user built it."""


class Graph:
    def __init__(self, opset, parent=None):
        import onnx.helper   # the optional extra: only export imports it
        self._helper = onnx.helper
        self.opset = opset
        self.parent = parent
        self.nodes = []
        self.initializers = []
        self._taken = parent._taken if parent is not None else set()
        self._metas = {}
        self.env = {}   # IR variable name -> ONNX value name
        self.program = parent.program if parent is not None else None
        self.current_op = None   # the IR op being lowered (its attrs, output metas)

    # ---- names and metas --------------------------------------------------------
    def fresh(self, hint):
        """A model-wide unique value name starting with ``hint``."""
        base = ''.join(c if c.isalnum() or c in '_.' else '_' for c in hint) or 'v'
        name, i = base, 0
        while name in self._taken:
            i += 1
            name = '%s_%d' % (base, i)
        self._taken.add(name)
        return name

    def meta(self, name):
        """Shape (-1 where unknown) and dtype of a value an IR variable is bound to."""
        g = self
        while g is not None:
            m = g._metas.get(name)
            if m is not None:
                return m
            g = g.parent
        raise OnnxExportError("no shape/dtype is known for ONNX value '%s'" % name)

    def set_meta(self, name, meta):
        self._metas[name] = meta if isinstance(meta, Meta) else Meta(*meta)

    def out_meta(self, i=0):
        """Shape and dtype of the current IR op's ``i``-th output."""
        op = self.current_op
        name = [n for slot in op.outputs.values() for n in slot][i]
        v = op.block._find_var(name)
        return Meta(v.shape, v.dtype)

    def lookup(self, var_name):
        """The ONNX value an IR variable is bound to here or in an enclosing graph."""
        g = self
        while g is not None:
            v = g.env.get(var_name)
            if v is not None:
                return v
            g = g.parent
        raise OnnxExportError("variable '%s' is read before any op or input defines it"
                              % var_name)

    # ---- emitting ----------------------------------------------------------------
    def op(self, op_type, *inputs, outputs=1, name=None, **attrs):
        """Append an ONNX node; returns its output name, or a list of ``outputs``
        names when ``outputs`` > 1 (or a list of name hints). Inputs given as
        None become ONNX's empty name (an omitted optional input); attributes
        given as None are left out."""
        hints = outputs if isinstance(outputs, (list, tuple)) else [op_type.lower()] * outputs
        outs = [self.fresh(h) for h in hints]
        ins = ['' if i is None else i for i in inputs]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(self._helper.make_node(op_type, ins, outs,
                                                 name=self.fresh(name or op_type), **attrs))
        return outs if isinstance(outputs, (list, tuple)) or outputs > 1 else outs[0]

    def const(self, value, dtype=None, hint='const'):
        """A constant value (an initializer): numpy array, scalar or list."""
        arr = np.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        import onnx.numpy_helper
        self.initializers.append(onnx.numpy_helper.from_array(arr, name))
        self.set_meta(name, Meta(arr.shape, arr.dtype))
        return name

    def ints(self, values, hint='ints'):
        """An int64 1-D constant (shapes, axes, starts/ends)."""
        return self.const(np.asarray(list(values), dtype=np.int64), hint=hint)

    def tensor_type(self, dtype):
        """ONNX's element type code for a numpy dtype."""
        return self._helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


# ---- lowering a block -----------------------------------------------------------------

# lowerings of IR ops that are not registry ops, by op type: fn(g, op) -> output names in
# the op's output-slot order (filled by framework.onnx's modules)
BLOCK_LOWERINGS = {}


def lowering_of(op_type):
    """The lowering for an IR op type, or None."""
    from ..ops import registry
    fn = BLOCK_LOWERINGS.get(op_type)
    if fn is not None:
        return fn
    if registry.has_op(op_type):
        return registry.lookup(op_type).onnx
    return None


def missing_lowerings(program):
    """{op type: [where the user built it, ...]} for ops that cannot be exported."""
    missing = {}
    for block in program.blocks:
        for op in block.ops:
            if lowering_of(op.type) is None:
                missing.setdefault(op.type, []).append(op.attrs.get('op_location'))
    return missing


def check_exportable(program):
    missing = missing_lowerings(program)
    if not missing:
        return
    lines = []
    for t, where in sorted(missing.items()):
        known = [w for w in where if w]
        lines.append("  %s (%d use%s%s)" % (t, len(where), '' if len(where) == 1 else 's',
                                           ', first built at %s' % known[0] if known else ''))
    raise OnnxExportError("paddle.onnx.export: %d op type%s in the program ha%s no ONNX "
                          "lowering:\n%s" % (len(missing), '' if len(missing) == 1 else 's',
                                             's' if len(missing) == 1 else 've',
                                             '\n'.join(lines)))


def lower_block(g, block):
    """Lower every op of ``block`` into ``g`` (its inputs already bound)."""
    for op in block.ops:
        try:
            lower_op(g, op)
        except OnnxExportError:
            raise
        except Exception as e:
            where = op.attrs.get('op_location')
            raise OnnxExportError("paddle.onnx.export: lowering op '%s'%s failed: %s: %s"
                                  % (op.type, ' (built at %s)' % where if where else '',
                                     type(e).__name__, e)) from e


def lower_op(g, op):
    fn = BLOCK_LOWERINGS.get(op.type)
    g.current_op = op
    if fn is not None:
        results = fn(g, op)
    else:
        from ..ops import registry
        opdef = registry.lookup(op.type)
        results = opdef.onnx(g, *_lowering_inputs(g, op, opdef), *_lowering_attrs(op, opdef))
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    outs = [n for slot in op.outputs.values() for n in slot]
    if len(results) < len(outs):     # unproduced trailing outputs (training-only statistics)
        results += [None] * (len(outs) - len(results))
    block = op.block
    for ir_name, value in zip(outs, results):
        if value is None:
            continue
        g.env[ir_name] = value
        var = block._find_var(ir_name)
        if var is not None:
            g.set_meta(value, Meta(var.shape, var.dtype))


def _lowering_inputs(g, op, opdef):
    ins = []
    for slot, variadic in zip(opdef.input_names, opdef.variadic):
        names = op.inputs.get(slot, [])
        if variadic:
            ins.append([g.lookup(n) for n in names])
        else:
            ins.append(g.lookup(names[0]) if names else None)
    return ins


def _lowering_attrs(op, opdef):
    return [op.attrs.get(a, d) for a, d in zip(opdef.attr_names, opdef.attr_defaults)]
