"""``paddle.framework.LayerHelper``: what a function building ops of a static
program (or running them eagerly) needs: its parameters, its output
variables, its op, its activation, named after the layer type."""
from ..param_attr import ParamAttr


class LayerHelper:
    def __init__(self, layer_type, **kwargs):
        from ..utils.unique_name import generate
        self.kwargs = kwargs
        self.layer_type = layer_type
        self.name = kwargs.get('name') or generate(layer_type)
        self._shape_from_op = set()     # outputs whose shape the op they come from gives

    # ---- programs --------------------------------------------------------------------
    @property
    def main_program(self):
        from ..graph.program import default_main_program
        return default_main_program()

    @property
    def startup_program(self):
        from ..graph.program import default_startup_program
        return default_startup_program()

    # ---- inputs ----------------------------------------------------------------------
    def multiple_input(self, input_param_name='input'):
        inputs = self.kwargs.get(input_param_name, [])
        return list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]

    def input(self, input_param_name='input'):
        inputs = self.multiple_input(input_param_name)
        if len(inputs) != 1:
            raise ValueError("LayerHelper(%s).input: '%s' holds %d values, expected one"
                             % (self.layer_type, input_param_name, len(inputs)))
        return inputs[0]

    def input_dtype(self, input_param_name='input'):
        """The dtype all of ``kwargs[input_param_name]`` share."""
        dtypes = {str(v.dtype) for v in self.multiple_input(input_param_name)}
        if len(dtypes) > 1:
            raise ValueError("LayerHelper(%s): the inputs '%s' have different dtypes %s"
                             % (self.layer_type, input_param_name, sorted(dtypes)))
        return dtypes.pop() if dtypes else None

    @property
    def param_attr(self):
        return ParamAttr._to_attr(self.kwargs.get('param_attr'))

    @property
    def bias_attr(self):
        return ParamAttr._to_attr(self.kwargs.get('bias_attr'))

    # ---- values ----------------------------------------------------------------------
    def create_parameter(self, attr, shape, dtype=None, is_bias=False,
                         default_initializer=None, stop_gradient=False, type=None):  # noqa: A002
        """A parameter of the main program (eagerly: a Parameter) named after
        the layer unless ``attr`` names it; None when ``attr`` is False."""
        from ..nn.layer import create_parameter
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        if attr.name is None:
            suffix = 'b' if is_bias else 'w'
            attr.name = '%s.%s_%d' % (self.name, suffix, self._count(suffix))
        param = create_parameter(shape, dtype or 'float32', attr=attr, is_bias=is_bias,
                                 default_initializer=default_initializer)
        if stop_gradient:
            param.stop_gradient = True
        return param

    def _count(self, suffix):
        counts = self.__dict__.setdefault('_counts', {})
        counts[suffix] = counts.get(suffix, -1) + 1
        return counts[suffix]

    def create_variable_for_type_inference(self, dtype, stop_gradient=False, shape=None):
        """A fresh variable of the current block for an op's output; unless
        ``shape`` is given, the op ``append_op`` makes it an output of gives it
        the shape its ``infer_meta`` computes (Paddle's infer_shape)."""
        block = self.main_program.current_block()
        name = self.main_program._names('%s.tmp' % self.name)
        if shape is None:
            self._shape_from_op.add(name)
        return block.create_var(name, list(shape) if shape is not None else [-1], dtype,
                                stop_gradient=stop_gradient)

    def create_variable(self, name=None, shape=(), dtype='float32', persistable=False,
                        stop_gradient=False, **kwargs):
        block = self.main_program.current_block()
        name = name or self.main_program._names('%s.var' % self.name)
        return block.create_var(name, list(shape), dtype, persistable=persistable,
                                stop_gradient=stop_gradient)

    def create_global_variable(self, persistable=False, *args, **kwargs):
        kwargs['persistable'] = persistable
        name = kwargs.pop('name', None) or self.main_program._names('%s.global' % self.name)
        gb = self.main_program.global_block()
        return gb.create_var(name, list(kwargs.pop('shape', ())), kwargs.pop('dtype', 'float32'),
                             persistable=persistable,
                             stop_gradient=kwargs.pop('stop_gradient', False))

    def append_op(self, type=None, inputs=None, outputs=None, attrs=None):  # noqa: A002
        """Append op ``type`` (a registered op's name) to the current block;
        ``inputs``/``outputs`` map slot names to variables (or lists of them)."""
        from ..ops import registry
        opdef = registry.lookup(type)                   # a clear error for unknown types
        names = lambda slots: {k: [v.name if hasattr(v, 'name') else v  # noqa: E731
                                   for v in (vs if isinstance(vs, (list, tuple)) else [vs])]
                               for k, vs in (slots or {}).items()}
        block = self.main_program.current_block()
        op = block.append_op(type, names(inputs), names(outputs), attrs or {})
        self._infer_output_shapes(block, opdef, op)
        return op

    def _infer_output_shapes(self, block, opdef, op):
        from ..graph.operands import output_names
        from ..graph.verify import meta_args
        outs = [n for n in output_names(opdef, op) if n in self._shape_from_op]
        if not outs or opdef.sub_blocks:
            return
        metas = opdef.infer_meta(*meta_args(block.program, opdef, op))
        metas = metas if isinstance(metas, (list, tuple)) else [metas]
        for n, m in zip(output_names(opdef, op), metas):
            if n in outs:
                block._find_var(n)._shape = tuple(m.shape)
                self._shape_from_op.discard(n)

    def append_activation(self, input_var, act=None, use_cudnn=None):
        """``act`` (a name of ``paddle.nn.functional``, or kwargs['act']) of ``input_var``."""
        from ..nn import functional as F
        act = act or self.kwargs.get('act')
        if act is None:
            return input_var
        name = act if isinstance(act, str) else act.get('type')
        fn = getattr(F, name, None)
        if fn is None:
            raise ValueError("LayerHelper(%s): unknown activation %r" % (self.layer_type, act))
        return fn(input_var)

    def append_bias_op(self, input_var, dim_start=1, dim_end=None):
        """``input_var`` plus a bias parameter over dims [dim_start, dim_end)."""
        attr = self.bias_attr
        if attr is False:
            return input_var
        shape = list(input_var.shape[dim_start:dim_end])
        bias = self.create_parameter(attr, shape, str(input_var.dtype), is_bias=True)
        return input_var + bias
