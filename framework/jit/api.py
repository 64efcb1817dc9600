"""``framework.jit``: to_static / declarative, save / load, TracedLayer.

``jit.save`` writes the same two files as ``static.save_inference_model``
(``<path>.pdmodel`` JSON program + ``<path>.pdiparams`` parameters), so they
load with ``jit.load`` (a trainable ``TranslatedLayer``),
``static.load_inference_model`` and the predictor API, in a process that has
none of the model's Python code.
"""
import collections
import functools


from ..dy2static.partial_program import PartialProgram
from ..dy2static.translator import (ProgramTranslator, StaticFunction, build_concrete_program,
                                    not_to_static, save_concrete)
from ..dygraph import Parameter, Tensor
from ..nn.layer import Layer
from ..ops.modes import in_static_mode, is_static_var
from ..graph import model_files as _io
from ..graph.inline import inline_program
from ..static.input_spec import InputSpec
from ..graph.mode import static_mode_guard
from ..graph.program import Program, program_guard


def to_static(function=None, input_spec=None, build_strategy=None, backend='CINN', **kwargs):
    """Convert a function, a method or a Layer's ``forward`` into a static
    Program (data-dependent Python control flow included).

    >>> import framework as paddle
    >>> @paddle.jit.to_static
    ... def f(x):
    ...     if x.sum() > 0:
    ...         return x * 2
    ...     return -x
    >>> f(paddle.to_tensor([1.0, 2.0])).tolist()
    [2.0, 4.0]
    """
    from ..graph.executor import BuildStrategy
    # backend: Paddle's compiler choice ('CINN' or None); programs here run on
    # the numpy executor either way. full_graph=False (Paddle's SOT mode) is a
    # keyword, as in Paddle.
    full_graph = kwargs.pop('full_graph', True)
    if backend is not None and (not isinstance(backend, str) or
                                backend.upper() not in ('CINN', 'PCC')):
        raise ValueError("Unknown backend %r. Only support 'CINN' or None for PHI." % (backend,))
    if build_strategy is not None and not isinstance(build_strategy, BuildStrategy):
        raise TypeError("to_static: build_strategy must be a static.BuildStrategy, got %s"
                        % type(build_strategy).__name__)

    def decorate(fn):
        if isinstance(fn, Layer):
            fwd = fn.__dict__.get('forward')
            if isinstance(fwd, StaticFunction):
                return fn
            sf = StaticFunction(type(fn).forward, input_spec, build_strategy, full_graph,
                                instance=fn)
            object.__setattr__(fn, 'forward', sf)
            return fn
        if isinstance(fn, StaticFunction):
            return fn
        sf = StaticFunction(fn, input_spec, build_strategy, full_graph, **kwargs)
        try:
            functools.update_wrapper(sf, fn, updated=())
        except AttributeError:
            pass
        return sf
    if function is not None:
        return decorate(function)
    return decorate


declarative = to_static


def set_dynamic_shape(variable, shape_list):
    """Inside @to_static: treat the dims of ``variable`` given as -1 in
    ``shape_list`` as known only at run time (e.g. a tensor that grows in a
    loop). Eagerly it does nothing."""
    from ..graph.program import Variable
    if not isinstance(variable, Variable):
        return
    shape_list = list(shape_list)
    if len(shape_list) != len(variable.shape):
        raise ValueError("set_dynamic_shape: %s has %d dims but shape_list %s has %d"
                         % (variable.name, len(variable.shape), shape_list, len(shape_list)))
    for i, (d, new) in enumerate(zip(variable.shape, shape_list)):
        if new != -1 and d != -1 and new != d:
            raise ValueError("set_dynamic_shape: dim %d of %s is %d, shape_list gives %d"
                             % (i, variable.name, d, new))
    variable._shape = tuple(-1 if d is None else int(d) for d in shape_list)
    variable._value = None


def _static_function_of(obj, input_spec):
    if isinstance(obj, Layer):
        fwd = obj.__dict__.get('forward')
        cls_fwd = getattr(type(obj), 'forward', None)
        if fwd is None and isinstance(cls_fwd, StaticFunction):
            fwd = cls_fwd.__get__(obj, type(obj))   # @to_static on the class: this
        if isinstance(fwd, StaticFunction):        # instance's bound function and cache
            if input_spec is not None:
                return StaticFunction(fwd._dygraph_function, input_spec, instance=obj)
            return fwd
        return StaticFunction(type(obj).forward, input_spec, instance=obj)
    if isinstance(obj, StaticFunction):
        if input_spec is not None:
            return StaticFunction(obj._dygraph_function, input_spec, instance=obj._instance)
        return obj
    return StaticFunction(obj, input_spec)


def save(layer, path, input_spec=None, **configs):
    """Save ``layer`` (or a @to_static function) for deployment.

    ``input_spec`` (a list of ``InputSpec``) fixes the input shapes/dtypes;
    without it the last program the layer ran is saved.
    """
    concrete, out_vars = _concrete_for_export(layer, input_spec, configs)
    save_concrete(concrete, path, concrete.inputs, out_vars, layer)


def traced_inference_program(layer, input_spec=None, configs=None):
    """(inference program, feed names, fetch names, {parameter: array}) of
    ``layer`` as ``save`` would write it (used by ``paddle.onnx.export``)."""
    concrete, out_vars = _concrete_for_export(layer, input_spec, configs or {})
    return _io.inference_model_parts(concrete.inputs, out_vars, concrete.main_program)


def _concrete_for_export(layer, input_spec, configs):
    """The concrete program of ``layer`` traced in eval mode (forward hooks
    included) and the outputs ``configs['output_spec']`` selects."""
    sf = _static_function_of(layer, input_spec)
    was_training = getattr(layer, 'training', None)
    if isinstance(layer, Layer):
        layer.eval()
    try:
        hooks = isinstance(layer, Layer)
        if input_spec is not None:
            specs = [s if isinstance(s, InputSpec) else InputSpec.from_tensor(s)
                     for s in input_spec]
            concrete, _ = sf.get_concrete_program(*specs, with_hook=hooks)
        else:
            concrete = sf.concrete_program_specify_input_spec(None, with_hook=hooks)
    finally:
        if was_training:
            layer.train()
    out_vars = concrete.outputs
    output_spec = configs.get('output_spec')
    if output_spec is not None:
        out_vars = [concrete.outputs[i] if isinstance(i, int) else i for i in output_spec]
    return concrete, out_vars


class LoadedProgram(collections.namedtuple('LoadedProgram', 'program feed fetch')):
    """One method of a loaded model: its inference program and the names it
    is fed and fetches."""


class TranslatedLayer(Layer):
    """A Layer running a loaded program; its parameters are trainable.

    As Paddle's: ``programs`` maps a method name (``'forward'``) to the loaded
    program of that method (a ``LoadedProgram``), ``persistable_vars`` each
    saved variable's name to its value. ``jit.load`` builds it."""

    def __init__(self, programs, persistable_vars):
        super().__init__()
        if 'forward' not in programs:
            raise ValueError("TranslatedLayer: programs must hold a 'forward' program, got %s"
                             % sorted(programs))
        self._programs = dict(programs)
        program, feed, fetch = self._programs['forward']
        self._program = program
        self._feed = list(feed)
        self._fetch = list(fetch)
        captured = {}
        for i, (name, value) in enumerate(persistable_vars.items()):
            v = program.global_block()._find_var(name)
            trainable = bool(v is not None and getattr(v, 'is_parameter', False))
            p = Parameter(value, name=name, trainable=trainable)
            if not trainable:
                p.stop_gradient = True
            self.add_parameter('param_%d' % i, p)
            captured[name] = p
        program._captured = captured
        gb = program.global_block()
        self._partial = PartialProgram(program, [gb.var(n) for n in self._feed],
                                       [gb.var(n) for n in self._fetch])

    # Paddle's TranslatedLayer.train/eval switch the mode and return None (a
    # Layer's return the layer)
    def train(self):
        Layer.train(self)

    def eval(self):
        Layer.eval(self)

    def forward(self, *inputs):
        if len(inputs) != len(self._feed):
            raise TypeError("TranslatedLayer expects %d inputs (%s), got %d"
                            % (len(self._feed), ', '.join(self._feed), len(inputs)))
        if in_static_mode():
            # building another program (@to_static, jit.save of this layer):
            # the loaded ops become part of it
            outs = inline_program(self._program, self._feed, self._fetch,
                                  [_as_variable(x, n) for x, n in zip(inputs, self._feed)],
                                  self._program._captured)
        else:
            outs = self._partial(list(inputs))
        return outs[0] if len(outs) == 1 else outs

    def program(self, method_name='forward'):
        """The loaded inference Program of ``method_name``."""
        try:
            return self._programs[method_name].program
        except KeyError:
            raise ValueError("TranslatedLayer.program: no method %r; the loaded model has %s"
                             % (method_name, sorted(self._programs))) from None

    def input_names(self):
        return list(self._feed)

    def output_names(self):
        return list(self._fetch)


def _as_variable(x, feed_name):
    if is_static_var(x):
        return x
    if isinstance(x, Tensor):
        from ..graph.program import capture_tensor
        return capture_tensor(x)
    raise TypeError("TranslatedLayer: input '%s' must be a Tensor, got %s"
                    % (feed_name, type(x).__name__))


def load(path, **configs):
    """Load what ``jit.save`` wrote as a callable, trainable ``TranslatedLayer``."""
    program, feed, fetch, values = _io.read_model(path)
    return TranslatedLayer({'forward': LoadedProgram(program, feed, fetch)}, values)


class TracedLayer:
    """A Layer traced once (no control-flow conversion) into a static program."""

    def __init__(self, concrete, layer):
        self._concrete = concrete
        self._layer = layer
        self._partial = PartialProgram(concrete.main_program, concrete.inputs, concrete.outputs)

    @staticmethod
    def trace(layer, inputs):
        """Run ``layer(*inputs)`` eagerly and trace it: ``(outputs, traced_layer)``."""
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        outs = layer(*inputs)

        def fn(*args):
            return layer.forward(*args)
        concrete = build_concrete_program(fn, tuple(inputs), {}, [],
                                          ['input_%d' % i for i in range(len(inputs))])
        return outs, TracedLayer(concrete, layer)

    def __call__(self, inputs):
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        outs = self._partial(inputs)
        return outs[0] if len(outs) == 1 else outs

    @property
    def program(self):
        return self._concrete.main_program

    def save_inference_model(self, path, feed=None, fetch=None, **kwargs):
        c = self._concrete
        inputs = [c.inputs[i] for i in feed] if feed is not None else c.inputs
        outputs = [c.outputs[i] for i in fetch] if fetch is not None else c.outputs
        save_concrete(c, path, inputs, outputs)

    def set_strategy(self, build_strategy=None, exec_strategy=None):
        pass


__all__ = ['to_static', 'declarative', 'set_dynamic_shape', 'not_to_static', 'save', 'load', 'TracedLayer',
           'TranslatedLayer', 'ProgramTranslator', 'InputSpec', 'Program', 'program_guard',
           'static_mode_guard', 'Tensor']
