"""The ONNX graph one Program block lowers into.

An op's lowering (``@op.def_onnx`` next to its kernel and grad rule) receives a
``Graph`` and the ONNX value names of its inputs, and emits nodes with
``g.op``; it never imports ``onnx`` itself, so op modules stay free of the
optional dependency. A sub-block (``cond``'s branches, ``while``'s body) lowers
into a child ``Graph`` that shares its parent's name space, as ONNX requires:
a name is defined once in the whole model.
"""
import numpy as np

from ..ops import registry
from ..ops.registry import Meta


class OnnxExportError(ValueError):
    """A Program cannot be exported (an op without a lowering, an unsupported
    attribute); the message names the op and where the user built it."""


class Graph:
    def __init__(self, opset, parent=None):
        import onnx.helper   # the optional extra: only export imports it
        import onnx.numpy_helper
        self._helper = onnx.helper
        self._numpy_helper = onnx.numpy_helper
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

    def _innermost(self, table, key):
        """``key``'s entry in ``table`` (``'_metas'`` or ``'env'``) of this graph
        or the nearest enclosing one that has it, or None."""
        g = self
        while g is not None:
            v = getattr(g, table).get(key)
            if v is not None:
                return v
            g = g.parent
        return None

    def meta(self, name):
        """Shape (-1 where unknown) and dtype of a value an IR variable is bound to."""
        m = self._innermost('_metas', name)
        if m is None:
            raise OnnxExportError("no shape/dtype is known for ONNX value '%s'" % name)
        return m

    def set_meta(self, name, meta):
        self._metas[name] = meta if isinstance(meta, Meta) else Meta(*meta)

    def out_meta(self, i=0):
        """Shape and dtype of the current IR op's ``i``-th output."""
        op = self.current_op
        v = op.block._find_var(op.output_arg_names[i])
        return Meta(v.shape, v.dtype)

    def lookup(self, var_name):
        """The ONNX value an IR variable is bound to here or in an enclosing graph."""
        v = self._innermost('env', var_name)
        if v is None:
            raise OnnxExportError("variable '%s' is read before any op or input defines it"
                                  % var_name)
        return v

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
        self.initializers.append(self._numpy_helper.from_array(arr, name))
        self.set_meta(name, Meta(arr.shape, arr.dtype))
        return name

    def tensor_proto(self, value):
        """An ONNX TensorProto (for attributes such as ConstantOfShape's value)."""
        return self._numpy_helper.from_array(np.asarray(value))

    def ints(self, values, hint='ints'):
        """An int64 1-D constant (shapes, axes, starts/ends)."""
        return self.const(np.asarray(list(values), dtype=np.int64), hint=hint)

    def tensor_type(self, dtype):
        """ONNX's element type code for a numpy dtype."""
        return self._helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    # ---- small building blocks lowerings share ----------------------------------------
    def scalar(self, value, like):
        """A 0-d constant of the dtype of ``like`` (a value name or a dtype)."""
        dtype = self.meta(like).dtype if isinstance(like, str) else np.dtype(like)
        return self.const(np.asarray(value, dtype=dtype), hint='c')

    def rank(self, name):
        return len(self.meta(name).shape)

    def cast(self, name, dtype):
        """``name`` cast to ``dtype`` (itself when it has that dtype already)."""
        dtype = np.dtype(dtype)
        if self.meta(name).dtype == dtype:
            return name
        out = self.op('Cast', name, to=self.tensor_type(dtype))
        self.set_meta(out, Meta(self.meta(name).shape, dtype))
        return out

    def cast_to_output(self, *names, i=0):
        """``names`` cast to the dtype of the current op's ``i``-th output
        (the registry promotes mixed inputs before the kernel runs)."""
        dtype = self.out_meta(i).dtype
        return [self.cast(n, dtype) for n in names]

    def reduce(self, op_type, x, axes, keepdims):
        """``op_type`` (ReduceSum, ReduceMean, ...) over ``axes`` (None: all);
        axes are an input from opset 18 on (ReduceSum: 13), an attribute before."""
        keep = int(bool(keepdims))
        if axes is None or (isinstance(axes, (list, tuple)) and not axes
                            and self.rank(x) == 0):
            return self.op(op_type, x, keepdims=keep)
        axes = [int(a) for a in (axes if isinstance(axes, (list, tuple)) else [axes])]
        if not axes:
            return self.op('Identity', x)
        if op_type == 'ReduceSum' or self.opset >= 18:
            return self.op(op_type, x, self.ints(axes), keepdims=keep)
        return self.op(op_type, x, axes=axes, keepdims=keep)

    def unsqueeze(self, x, axes):
        return self.op('Unsqueeze', x, self.ints(axes))

    def squeeze(self, x, axes=None):
        return self.op('Squeeze', x, None if axes is None else self.ints(axes))

    def shape_of(self, x, start=0, end=None):
        """The int64 shape of ``x``, dims ``start:end``."""
        shape = self.op('Shape', x)
        if start == 0 and end is None:
            return shape
        ends = [end if end is not None else np.iinfo(np.int64).max]
        return self.op('Slice', shape, self.ints([start]), self.ints(ends))

    def transpose(self, x, perm):
        perm = [int(p) for p in perm]
        return x if perm == sorted(perm) else self.op('Transpose', x, perm=perm)

    def channel_first(self, x, data_format, ndim):
        """An N,C,... view of a channel-last (NLC, NHWC, NDHWC) ``ndim``-D value."""
        if data_format not in ('NLC', 'NHWC', 'NDHWC'):
            return x
        n = ndim
        return self.transpose(x, [0, n - 1] + list(range(1, n - 1)))

    def channel_last(self, x, data_format, ndim):
        """The inverse of ``channel_first``."""
        if data_format not in ('NLC', 'NHWC', 'NDHWC'):
            return x
        n = ndim
        return self.transpose(x, [0] + list(range(2, n)) + [1])


# ---- lowering a block -----------------------------------------------------------------

def lowering_of(op_type):
    """The lowering an IR op type's registry declaration carries (control-flow
    ops included), or None."""
    return registry.lookup(op_type).onnx if registry.has_op(op_type) else None


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
    g.current_op = op
    opdef = registry.lookup(op.type)
    results = opdef.onnx(g, *_lowering_inputs(g, op, opdef), *_lowering_attrs(op, opdef))
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    outs = op.output_arg_names
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
