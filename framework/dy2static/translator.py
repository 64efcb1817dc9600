"""StaticFunction, the program cache and ProgramTranslator.

Calling a ``StaticFunction`` looks up (or builds) a ``ConcreteProgram`` for the
call's cache key -- the InputSpecs (shape, dtype) of its tensor arguments, the
values of its Python arguments, the Layer and its train/eval mode -- and runs
it through a ``PartialProgram`` as one eager op. Building converts the Python
function (``convert.py``), declares a ``static.data`` for every tensor
argument and calls the converted function in static mode; parameters the
function touches are captured by name, so they stay the eager Parameters.
"""
import inspect
import types
import weakref

import numpy as np

from ..dygraph import Tensor
from ..static.input_spec import InputSpec
from ..static.mode import static_mode_guard
from ..static.program import Program, Variable, capture_tensor, program_guard
from ..ops.registry import mode as _mode
from . import convert
from .partial_program import PartialProgram

NOT_TO_STATIC = '__jst_not_to_static__'


# ---- which callables get converted ----------------------------------------------------

_SKIP_MODULE_PREFIXES = ('framework', 'numpy', 'builtins', 'functools', 'itertools', 'math',
                         'collections', 'typing', 'abc', 'copy', 'operator', 'inspect', 're',
                         'random', 'time', 'os', 'sys', 'json', 'warnings', 'logging')


def _skipped(fn):
    mod = getattr(fn, '__module__', None) or ''
    root = mod.split('.')[0]
    if mod.startswith('framework.') and not mod.startswith('framework.vision.models'):
        return True
    return root in _SKIP_MODULE_PREFIXES and not mod.startswith('framework.vision.models')


def convert_callable(fn):
    """What converted code calls in place of ``fn``."""
    if getattr(fn, NOT_TO_STATIC, False) or getattr(fn, '__jst_converted__', False):
        return fn
    if isinstance(fn, StaticFunction):
        return fn._converted_callable()
    from ..nn.layer import Layer
    if isinstance(fn, Layer):
        return _LayerCall(fn)
    if isinstance(fn, types.MethodType):
        func = fn.__func__
        if isinstance(func, StaticFunction):
            return func.__get__(fn.__self__)._converted_callable()
        if getattr(func, NOT_TO_STATIC, False) or _skipped(func) or _is_layer_call(fn):
            return fn
        return _try_convert(fn)
    if isinstance(fn, types.FunctionType):
        if _skipped(fn) or '_jst' in fn.__code__.co_freevars:
            return fn          # framework code, or defined inside converted code already
        if fn.__name__ == '<lambda>' and not _has_source(fn):
            return fn
        return _try_convert(fn)
    return fn          # classes, builtins, C functions, callable objects


def _is_layer_call(m):
    from ..nn.layer import Layer
    return isinstance(m.__self__, Layer) and m.__func__ is getattr(Layer, '__call__', None)


def _has_source(fn):
    try:
        inspect.getsourcelines(fn)
        return True
    except (OSError, TypeError):
        return False


def _try_convert(fn):
    """Convert a callee; a callee whose source is unavailable runs as it is."""
    try:
        return convert.convert_to_static(fn)
    except convert.ConversionError:
        return fn


class _LayerCall:
    """Call a sub-layer with its forward converted (hooks still run)."""

    def __init__(self, layer):
        self.layer = layer

    def __call__(self, *args, **kwargs):
        layer = self.layer
        fwd = type(layer).forward
        if isinstance(layer.__dict__.get('forward'), StaticFunction):
            conv = layer.__dict__['forward']._converted_callable()
        elif getattr(fwd, NOT_TO_STATIC, False) or _skipped(fwd):
            return layer(*args, **kwargs)
        else:
            conv = convert.convert_to_static(types.MethodType(fwd, layer))
        saved = layer.__dict__.get('forward', _MISSING)
        object.__setattr__(layer, 'forward', conv)
        try:
            return layer(*args, **kwargs)
        finally:
            if saved is _MISSING:
                object.__delattr__(layer, 'forward')
            else:
                object.__setattr__(layer, 'forward', saved)


_MISSING = object()


# ---- cache keys and program building -----------------------------------------------------

def _flatten_args(args):
    """Leaves of nested lists/tuples/dicts, with a rebuild function."""
    from ..static.control_flow import flatten, unflatten
    leaves, tree = flatten(list(args))
    return leaves, lambda new: unflatten(tree, new)


def _is_tensor_arg(v):
    return isinstance(v, (Tensor, np.ndarray))


def _spec_for(value, spec):
    if spec is not None:
        return spec
    return InputSpec(list(np.shape(_data(value))), _data(value).dtype)


def _data(v):
    return v.data if isinstance(v, Tensor) else np.asarray(v)


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        if isinstance(v, (list, tuple)):
            return tuple(_hashable(x) for x in v)
        if isinstance(v, dict):
            return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
        return ('id', id(v))


class ConcreteProgram:
    """A traced program: ``main_program``, ``startup_program``, ``inputs``, ``outputs``."""

    def __init__(self, main_program, startup_program, inputs, outputs, out_rebuild,
                 function, parameters):
        self.main_program = main_program
        self.startup_program = startup_program
        self.inputs = inputs
        self.outputs = outputs
        self._rebuild = out_rebuild
        self.function = function
        self.parameters = parameters


def build_concrete_program(fn, args, kwargs, specs, arg_names, build_strategy=None):
    main, startup = Program(), Program()
    leaves, rebuild = _flatten_args([args, kwargs])
    spec_iter = iter(specs)
    inputs = []
    new_leaves = []
    with program_guard(main, startup), static_mode_guard(True):
        for i, leaf in enumerate(leaves):
            spec = next(spec_iter, None) if _is_tensor_arg(leaf) or isinstance(leaf, InputSpec) \
                else None
            if _is_tensor_arg(leaf) or isinstance(leaf, InputSpec):
                spec = leaf if isinstance(leaf, InputSpec) else _spec_for(leaf, spec)
                name = spec.name or (arg_names[i] if i < len(arg_names) else 'input_%d' % i)
                name = _unique(main, name)
                v = main.global_block().create_var(name, spec.shape, spec.dtype,
                                                   stop_gradient=not (isinstance(leaf, Tensor)
                                                                      and not leaf.stop_gradient),
                                                   is_data=True)
                inputs.append(v)
                new_leaves.append(v)
            else:
                new_leaves.append(leaf)
        new_args, new_kwargs = rebuild(new_leaves)
        # containers without tensors are passed as they are, so the function can
        # mutate the caller's lists and dicts as it does eagerly
        new_args = [a if not _has_tensor(a) else n for a, n in zip(args, new_args)]
        new_kwargs = {k: (v if not _has_tensor(v) else new_kwargs[k]) for k, v in kwargs.items()}
        out = fn(*new_args, **new_kwargs)
        out_leaves, out_rebuild = _flatten_args([out])
        outputs = []
        for leaf in out_leaves:
            if isinstance(leaf, Tensor):
                leaf = capture_tensor(leaf)
            if isinstance(leaf, Variable):
                outputs.append(leaf)
    return ConcreteProgram(main, startup, inputs, outputs, (out_leaves, out_rebuild), fn,
                           list(main._captured.values()))


def _has_tensor(value):
    leaves, _ = _flatten_args([value])
    return any(_is_tensor_arg(leaf) or isinstance(leaf, InputSpec) for leaf in leaves)


def _unique(program, name):
    gb = program.global_block()
    base, k = name, 1
    while gb.has_var(name):
        name = '%s_%d' % (base, k)
        k += 1
    return name


class ProgramCache:
    def __init__(self, build_strategy=None):
        self._entries = {}
        self.last = None
        self.build_strategy = build_strategy

    def get(self, key, build):
        entry = self._entries.get(key)
        if entry is None:
            concrete = build()
            entry = self._entries[key] = (concrete, PartialProgram(
                concrete.main_program, concrete.inputs, concrete.outputs, self.build_strategy))
        self.last = entry
        return entry

    def __len__(self):
        return len(self._entries)


# ---- StaticFunction ------------------------------------------------------------------------

class StaticFunction:
    """What ``@to_static`` returns: call it like the original function."""

    def __init__(self, function, input_spec=None, build_strategy=None, full_graph=True,
                 instance=None, **kwargs):
        if isinstance(function, types.MethodType) and instance is None:
            instance, function = function.__self__, function.__func__
        self._dygraph_function = function
        self._instance = instance
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._build_strategy = build_strategy
        self._full_graph = full_graph
        self._cache = ProgramCache(build_strategy)
        self._bound = weakref.WeakKeyDictionary()
        self._converted = None
        self.__name__ = getattr(function, '__name__', 'static_function')
        self.__doc__ = getattr(function, '__doc__', None)
        self.__wrapped__ = function

    # methods: bind per instance, each instance with its own cache
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            return self._bound[instance]
        except KeyError:
            bound = StaticFunction(self._dygraph_function, self._input_spec, self._build_strategy,
                                   self._full_graph, instance=instance)
            self._bound[instance] = bound
            return bound

    @property
    def dygraph_function(self):
        if self._instance is not None:
            return types.MethodType(self._dygraph_function, self._instance)
        return self._dygraph_function

    def _converted_callable(self):
        if self._converted is None:
            self._converted = convert.converted(self._dygraph_function)
        fn = self._converted.make_function(self._dygraph_function)
        return types.MethodType(fn, self._instance) if self._instance is not None else fn

    @property
    def code(self):
        """The transformed source code."""
        if self._converted is None:
            self._converted = convert.converted(self._dygraph_function)
        return self._converted.source

    def __call__(self, *args, **kwargs):
        if not ProgramTranslator.get_instance().enable_to_static:
            return self.dygraph_function(*args, **kwargs)
        if _mode.static:                 # inside another program: inline
            return self._converted_callable()(*args, **kwargs)
        concrete, partial = self.get_concrete_program(*args, **kwargs)
        leaves, _ = _flatten_args([args, kwargs])
        tensors = [leaf for leaf in leaves if _is_tensor_arg(leaf)]
        outs = partial(tensors)
        return self._rebuild_outputs(concrete, outs)

    @staticmethod
    def _rebuild_outputs(concrete, outs):
        out_leaves, rebuild = concrete._rebuild
        it = iter(outs)
        values = []
        for leaf in out_leaves:
            if isinstance(leaf, (Variable, Tensor)):
                values.append(next(it))
            else:
                values.append(leaf)
        return rebuild(values)[0]

    def _key(self, args, kwargs):
        leaves, _ = _flatten_args([args, kwargs])
        specs = iter(self._input_spec or [])
        key = []
        for leaf in leaves:
            if _is_tensor_arg(leaf):
                spec = next(specs, None)
                s = _spec_for(leaf, spec if isinstance(spec, InputSpec) else None)
                # the program marks inputs that need no gradient (as Paddle does),
                # so a tensor that needs one gets a program of its own
                key.append(('T', s.shape, str(s.dtype),
                            isinstance(leaf, Tensor) and not leaf.stop_gradient))
            elif isinstance(leaf, InputSpec):
                key.append(('T', leaf.shape, str(leaf.dtype)))
            else:
                key.append(('P', _hashable(leaf)))
        layer = self._instance
        training = getattr(layer, 'training', None)
        return (tuple(key), id(layer), training)

    def _arg_names(self, args, kwargs):
        try:
            params = list(inspect.signature(self._dygraph_function).parameters)
        except (TypeError, ValueError):
            params = []
        if self._instance is not None and params:
            params = params[1:]
        names = []
        leaves, _ = _flatten_args([args, kwargs])
        for i, _leaf in enumerate(leaves):
            names.append(params[i] if i < len(params) and len(leaves) == len(args) else
                         'input_%d' % i)
        return names

    def get_concrete_program(self, *args, **kwargs):
        """(ConcreteProgram, PartialProgram) for these arguments, built once."""
        if not args and not kwargs and self._input_spec is not None:
            args = tuple(self._input_spec)
        key = self._key(args, kwargs)
        specs = [s for s in (self._input_spec or []) if isinstance(s, InputSpec)]

        def build():
            fn = self._converted_callable()
            return build_concrete_program(fn, args, kwargs, specs, self._arg_names(args, kwargs),
                                          self._build_strategy)
        return self._cache.get(key, build)

    @property
    def concrete_program(self):
        if self._cache.last is None:
            if self._input_spec is None:
                raise RuntimeError("concrete_program: call the function once (or give "
                                   "input_spec) before asking for its program")
            self.get_concrete_program(*self._input_spec)
        return self._cache.last[0]

    @property
    def program_cache(self):
        return self._cache

    def rollback(self):
        """Back to the eager function (for a Layer: restores ``forward``)."""
        if self._instance is not None and self._instance.__dict__.get('forward') is self:
            object.__delattr__(self._instance, 'forward')
            return types.MethodType(self._dygraph_function, self._instance)
        return self._dygraph_function

    def __repr__(self):
        return '<StaticFunction %s>' % self.__name__


def not_to_static(func=None):
    """Leave ``func`` unconverted inside @to_static code."""
    if func is None:
        return not_to_static
    setattr(func, NOT_TO_STATIC, True)
    return func


# ---- ProgramTranslator ---------------------------------------------------------------------

class ProgramTranslator:
    """Singleton switch and helpers for dy2static (Paddle's ProgramTranslator)."""
    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
            cls._instance.enable_to_static = True
            cls._instance._last = None
        return cls._instance

    @classmethod
    def get_instance(cls):
        return cls()

    def enable(self, enable_to_static):
        """False runs decorated code eagerly (for debugging)."""
        if not isinstance(enable_to_static, bool):
            raise TypeError("ProgramTranslator.enable expects a bool")
        self.enable_to_static = enable_to_static

    def _static(self, fn):
        if isinstance(fn, StaticFunction):
            return fn
        return StaticFunction(fn)

    def get_output(self, dygraph_func, *args, **kwargs):
        if not self.enable_to_static:
            return dygraph_func(*args, **kwargs)
        sf = self._static(dygraph_func)
        self._last = sf
        return sf(*args, **kwargs)

    def get_func(self, dygraph_func):
        sf = self._static(dygraph_func)
        return sf._converted_callable()

    def get_program(self, dygraph_func, *args, **kwargs):
        sf = self._static(dygraph_func)
        self._last = sf
        concrete, _ = sf.get_concrete_program(*args, **kwargs)
        return (concrete.main_program, concrete.startup_program, concrete.inputs,
                concrete.outputs)

    def get_code(self, dygraph_func):
        return self._static(dygraph_func).code

    def save_inference_model(self, dirname, feed=None, fetch=None):
        """Save the program of the last function run through ``get_output``."""
        if self._last is None or self._last._cache.last is None:
            raise RuntimeError("ProgramTranslator.save_inference_model: run a function with "
                               "get_output() first")
        concrete = self._last._cache.last[0]
        inputs = [concrete.inputs[i] for i in feed] if feed is not None else concrete.inputs
        outputs = [concrete.outputs[i] for i in fetch] if fetch is not None else concrete.outputs
        import os
        from ..jit.api import save_concrete
        save_concrete(concrete, os.path.join(dirname, 'model'), inputs, outputs)
