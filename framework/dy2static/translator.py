"""StaticFunction, the program cache and ProgramTranslator.

Calling a ``StaticFunction`` looks up (or builds) a ``ConcreteProgram`` for the
call's cache key -- the InputSpecs (shape, dtype) of its tensor arguments, the
values of its Python arguments, the Layer and its train/eval mode -- and runs
it through a ``PartialProgram`` as one eager op. Building converts the Python
function (``convert.py``), declares a ``static.data`` for every tensor
argument and calls the converted function in static mode; parameters the
function touches are captured by name, so they stay the eager Parameters.
"""
import contextlib
import functools
import inspect
import types
import warnings
import weakref

import numpy as np

from .._nest import flatten_tree, unflatten_tree
from ..autograd import py_layer as _py_layer
from ..dygraph import Tensor
from ..ops.modes import in_static_mode
from ..static.input_spec import InputSpec
from ..graph import model_files as _model_files
from ..graph.mode import static_mode_guard
from ..graph.program import Program, Variable, capture_tensor, program_guard
from ..ops.registry import autocast_state as _autocast_state
from . import convert, log, report
from .carried import TensorArray, fixed_length_lists
from .partial_program import PartialProgram

NOT_TO_STATIC = '__jst_not_to_static__'


# ---- which callables get converted ----------------------------------------------------

_SKIP_MODULE_PREFIXES = ('framework', 'numpy', 'builtins', 'functools', 'itertools', 'math',
                         'collections', 'typing', 'abc', 'copy', 'operator', 'inspect', 're',
                         'random', 'time', 'os', 'sys', 'json', 'warnings', 'logging')
_ignored_modules = set()     # module names added by jit.ignore_module


def ignore_module(modules):
    """Never convert functions of these modules inside @to_static code (they run
    as they are, like numpy's)."""
    for m in modules if isinstance(modules, (list, tuple, set)) else [modules]:
        name = getattr(m, '__name__', m)
        if not isinstance(name, str):
            raise TypeError("ignore_module expects modules (or module names), got %r" % (m,))
        _ignored_modules.add(name)


def _skipped(fn):
    mod = getattr(fn, '__module__', None) or ''
    root = mod.split('.')[0]
    if any(mod == m or mod.startswith(m + '.') for m in _ignored_modules):
        return True
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
        return fn              # Layer.__call__ converts its forward while tracing
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
        if _makes_generator(fn):
            return fn          # generators (contextmanager bodies) run as they are
        if fn.__name__ == '<lambda>' and not _has_source(fn):
            return fn
        return _try_convert(fn)
    return fn          # classes, builtins, C functions, callable objects


def _makes_generator(fn):
    """A generator function, or a decorator's wrapper around one (as
    ``contextlib.contextmanager`` makes): it runs as it is, with Paddle's
    warning for a context manager."""
    target = inspect.unwrap(fn)
    if not (inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target)):
        return False
    if target is not fn:
        warnings.warn("Dy2Static : A context manager decorator is used, this may not work "
                      "correctly after transform.")
    else:
        stars = '*' * 30
        log.warn("\n\n%s\nYour function:`%s` doesn't support to transform to static function "
                 "because it is a generator function, it will be run as-is.\n%s\n\n"
                 % (stars, fn.__name__, stars))
    return True


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


def converted_forward(layer):
    """The forward a Layer runs while a program is traced: a user-defined
    forward is converted (so its Python control flow on tensors becomes
    cond/while ops) wherever the layer is called from, framework containers
    such as nn.Sequential included."""
    own = layer.__dict__.get('forward')
    if isinstance(own, StaticFunction):
        return own._converted_callable()
    if own is not None:
        return own
    fwd = type(layer).forward
    if isinstance(fwd, StaticFunction):
        return fwd.__get__(layer)._converted_callable()
    if getattr(fwd, NOT_TO_STATIC, False) or _skipped(fwd):
        return layer.forward
    try:
        return convert.convert_to_static(types.MethodType(fwd, layer))
    except convert.ConversionError:
        return layer.forward


# ---- cache keys and program building -----------------------------------------------------

def _flatten_args(args):
    """Leaves of nested lists/tuples/dicts, with a rebuild function."""
    leaves, tree = flatten_tree(list(args))
    return leaves, lambda new: unflatten_tree(tree, new)


def _call_leaves(args, kwargs):
    """The leaves of a call's arguments, in ``_flatten_args([args, kwargs])``
    order; a flat positional call (the usual one) needs no tree."""
    if not kwargs:
        for a in args:
            if isinstance(a, (list, tuple, dict)):
                break
        else:
            return list(args)
    return _flatten_args([args, kwargs])[0]


def _leaf_names(name, value, out):
    """Paddle's default feed names, one per leaf of ``value`` in flattening
    order: a list or tuple names its items ``name_0``, ``name_1`` ..., a dict
    its items by their keys, recursively."""
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _leaf_names('%s_%d' % (name, i), item, out)
    elif isinstance(value, dict):
        for key in sorted(value):
            _leaf_names(str(key), value[key], out)
    else:
        out.append(name)


def _is_tensor_arg(v):
    return isinstance(v, (Tensor, np.ndarray))


def _spec_for(value, spec, quiet=False):
    """The InputSpec a tensor argument is traced as. With a decorator spec,
    Paddle's rule: the dtype is always the tensor's; the spec's shape is kept
    when it covers the tensor's (same rank, each dim equal or -1), otherwise
    the tensor's own shape is traced, with a warning."""
    data = _data(value)
    if spec is None:
        return InputSpec(list(data.shape), data.dtype)
    stop = spec.stop_gradient if not isinstance(value, Tensor) else value.stop_gradient
    shape = _covering_shape(spec, data.shape)
    if shape is None:
        if not quiet:
            log.warn("input spec is not compatible with real inputs. input_spec: %r , "
                     "real_spec: %r " % (spec, InputSpec(list(data.shape), data.dtype,
                                                          spec.name)))
        shape = data.shape
    return InputSpec(list(shape), data.dtype, spec.name, stop_gradient=stop)


def _covering_shape(spec, shape):
    """``spec.shape`` if it covers ``shape`` (same rank, every dim -1 or equal), else None."""
    if len(spec.shape) != len(shape):
        return None
    if all(s == -1 or s == d for s, d in zip(spec.shape, shape)):
        return spec.shape
    return None


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


class _ListOut:
    """A returned list whose length is decided by the run (a TensorArray in
    the program): its items stacked in one output, given back as a list."""

    def __init__(self, var):
        self.var = var

    def items(self, outs):
        if self.var is None:
            return []
        stacked = next(outs)
        return [stacked[i] for i in range(stacked.shape[0])]


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
        # ``return y`` of one tensor: outputs need no rebuilding
        leaves = out_rebuild[0]
        self.returns_one_tensor = (len(leaves) == 1 and len(outputs) == 1
                                   and not isinstance(leaves[0], _ListOut)
                                   and out_rebuild[1](leaves)[0] is leaves[0])


def build_concrete_program(fn, args, kwargs, specs, arg_names, build_strategy=None):
    main, startup = Program(), Program()
    leaves, rebuild = _flatten_args([args, kwargs])
    spec_iter = iter(specs)
    input_names = []
    new_leaves = []
    with program_guard(main, startup), static_mode_guard(True), _layer_tracing():
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
                input_names.append(v.name)
                new_leaves.append(v)
            else:
                new_leaves.append(leaf)
        new_args, new_kwargs = rebuild(new_leaves)
        # containers without tensors are passed as they are, so the function can
        # mutate the caller's lists and dicts as it does eagerly
        new_args = [a if not _has_tensor(a) else n for a, n in zip(args, new_args)]
        new_kwargs = {k: (v if not _has_tensor(v) else new_kwargs[k]) for k, v in kwargs.items()}
        out = fn(*new_args, **new_kwargs)
        _check_no_new_parameters(main)
        # the feed variables by name: an input updated in place (x[i] = v) is a
        # Python object that now stands for the updated value
        gb = main.global_block()
        inputs = [gb.var(name) for name in input_names]
        out_leaves, out_rebuild = _flatten_args([fixed_length_lists(out)])
        outputs = []
        for i, leaf in enumerate(out_leaves):
            if isinstance(leaf, TensorArray):   # a list whose length the run decides
                leaf = out_leaves[i] = _ListOut(leaf.var)
                if leaf.var is None:
                    continue
                leaf = leaf.var
            if isinstance(leaf, Tensor):
                leaf = capture_tensor(leaf)
            if isinstance(leaf, Variable):
                outputs.append(leaf)
    return ConcreteProgram(main, startup, inputs, outputs, (out_leaves, out_rebuild), fn,
                           list(main.captured_tensors.values()))


def _tracing_program():
    """Whether the calling thread is inside a @to_static trace."""
    from ..nn import layer as layer_module
    return layer_module.tracing.forward_of is not None


@contextlib.contextmanager
def _layer_tracing():
    """Layers called while the program is built run converted forwards."""
    from ..nn import layer as layer_module
    with layer_module.tracing.converting(converted_forward):
        yield


def _check_no_new_parameters(program):
    """A layer created inside the converted function would get fresh parameters
    on every trace and none of them would be trained: refuse it, as Paddle does."""
    from ..graph.program import Parameter as StaticParameter
    for block in program.blocks:
        for name, var in block.vars.items():
            if isinstance(var, StaticParameter):
                raise ValueError(
                    "@to_static: parameter '%s' was created inside the converted function "
                    "(a layer built in forward). Create layers in __init__ (use "
                    "nn.LayerList / nn.ParameterList instead of Python lists) so their "
                    "parameters exist before the function runs" % name)


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
    """The traced programs of one StaticFunction: cache key -> (ConcreteProgram,
    PartialProgram), in the order they were traced, with the arguments each was
    traced for (tensors as InputSpecs)."""

    def __init__(self, build_strategy=None):
        self._entries = {}
        self._arguments = {}
        self._recent_key = None
        self.build_strategy = build_strategy

    def get(self, key, build, arguments=lambda: None):
        """The entry of ``key``, built on a miss (``arguments()`` is recorded with it)."""
        entry = self.lookup(key)
        if entry is None:
            concrete = build()
            entry = self._entries[key] = (concrete, PartialProgram(
                concrete.main_program, concrete.inputs, concrete.outputs, self.build_strategy))
            self._arguments[key] = arguments()
            self._recent_key = key
        return entry

    def lookup(self, key):
        """The entry of ``key`` (now the most recent one), or None."""
        entry = self._entries.get(key)
        if entry is not None:
            self._recent_key = key
        return entry

    def arguments(self, key):
        """``(args, kwargs)`` the program of ``key`` was traced for."""
        return self._arguments[key]

    def last(self):
        """``(key, (concrete_program, partial_program))`` of the most recent call."""
        if self._recent_key is None:
            raise ValueError("program_cache.last(): no program has been traced yet")
        return self._recent_key, self._entries[self._recent_key]

    def concrete_programs(self):
        return [concrete for concrete, _ in self._entries.values()]

    def __getitem__(self, key):
        return self._entries[key]

    def __contains__(self, key):
        return key in self._entries

    def __len__(self):
        return len(self._entries)

    def clear(self):
        self._entries.clear()
        self._arguments.clear()
        self._recent_key = None


def _as_specs(args, kwargs, specs):
    """The call's arguments with tensors replaced by their InputSpecs."""
    leaves, rebuild = _flatten_args([args, kwargs])
    spec_iter = iter(specs)
    out = []
    for leaf in leaves:
        if _is_tensor_arg(leaf):
            out.append(_spec_for(leaf, next(spec_iter, None), quiet=True))
        else:
            out.append(leaf)
    new_args, new_kwargs = rebuild(out)
    return tuple(new_args), dict(new_kwargs)


def _specs_compatible(a, b):
    """Two specs agree: tensors of the same rank and dtype whose known dims
    match (-1 matches anything); other values equal."""
    if isinstance(a, InputSpec) != isinstance(b, InputSpec):
        return False
    if not isinstance(a, InputSpec):
        return _hashable(a) == _hashable(b)
    if len(a.shape) != len(b.shape) or np.dtype(a.dtype) != np.dtype(b.dtype):
        return False
    return all(x < 0 or y < 0 or x == y for x, y in zip(a.shape, b.shape))


def _call_with_layer_hooks(layer, forward, *args, **kwargs):
    return layer._call_with_hooks(args, kwargs, forward=forward)


# ---- StaticFunction ------------------------------------------------------------------------

def _check_built_eagerly(instance):
    if not instance.__dict__.get('_init_in_dynamic_mode', True):
        raise RuntimeError(
            " `paddle.jit.to_static` is only available in dynamic mode. Please call "
            "`paddle.disable_static()` before initializing your Layer class `%s` . Because "
            "parameters of Layer class should be initialized firstly in dynamic mode while "
            "applying transformation." % type(instance).__name__)


def _check_layer_method(function, instance):
    """Methods convert only on Layers: their parameters, sub-layers and train/eval
    mode are what a traced program captures (Paddle refuses other classes too)."""
    from ..nn.layer import Layer
    if not isinstance(instance, Layer):
        raise TypeError("to_static converts methods of nn.Layer subclasses only; %s is "
                        "bound to %r. Make the class inherit from nn.Layer, or decorate a "
                        "plain function" % (getattr(function, '__qualname__', function),
                                            instance))


class StaticFunction:
    """What ``@to_static`` returns: call it like the original function.

    Besides calling, it exposes the traced programs as Paddle's does:
    ``concrete_program`` / ``main_program`` / ``startup_program`` / ``inputs`` /
    ``outputs`` of the latest call, ``program_cache``, ``get_traced_count()``,
    ``code``, ``dygraph_function``, ``rollback()`` and ``train()`` / ``eval()``
    (for a plain function; a Layer's method follows ``layer.train()/eval()``).
    """

    def __init__(self, function, input_spec=None, build_strategy=None, full_graph=True,
                 instance=None, **kwargs):
        if isinstance(function, types.MethodType) and instance is None:
            instance, function = function.__self__, function.__func__
        if instance is not None:
            _check_layer_method(function, instance)
        self._dygraph_function = function
        self._instance = instance
        if input_spec is not None and not isinstance(input_spec, (list, tuple)):
            raise TypeError("The type(input_spec) should be one of (tuple, list), but received %s."
                            % type(input_spec).__name__)
        self._input_spec = list(input_spec) if input_spec is not None else None
        self._build_strategy = build_strategy
        self._full_graph = full_graph
        self._kwargs = kwargs
        self._property = bool(kwargs.get('property', False))
        self._training = True
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
        _check_built_eagerly(instance)
        try:
            return self._bound[instance]
        except KeyError:
            bound = StaticFunction(self._dygraph_function, self._input_spec, self._build_strategy,
                                   self._full_graph, instance=instance, **self._kwargs)
            self._bound[instance] = bound
            return bound

    @property
    def dygraph_function(self):
        if self._instance is not None:
            return types.MethodType(self._dygraph_function, self._instance)
        return self._dygraph_function

    @property
    def class_instance(self):
        return self._instance

    @property
    def is_property(self):
        return self._property

    # -- train / eval ---------------------------------------------------------------
    def _layer(self):
        from ..nn.layer import Layer
        return self._instance if isinstance(self._instance, Layer) else None

    def train(self):
        """Trace and run for training (a plain function; Layers use ``layer.train()``)."""
        layer = self._layer()
        if layer is not None and not layer.training:
            raise RuntimeError("Failed to switch train mode. %s is a Layer's method, please use "
                               "Layer.train() to switch train mode." % self.dygraph_function)
        self._training = True

    def eval(self):
        """Trace and run for inference (a plain function; Layers use ``layer.eval()``)."""
        layer = self._layer()
        if layer is not None and layer.training:
            raise RuntimeError("Failed to switch eval mode. %s is a Layer's method, please use "
                               "Layer.eval() to switch eval mode." % self.dygraph_function)
        self._training = False

    def _is_train_mode(self):
        if self._instance is not None and hasattr(self._instance, 'training'):
            return bool(self._instance.training)
        return self._training

    # -- conversion -----------------------------------------------------------------
    def _converted_callable(self):
        if self._converted is None:
            try:
                self._converted = convert.converted(self._dygraph_function)
            except convert.ConversionError:
                if self._dygraph_function.__name__ != '<lambda>':
                    raise
                # a lambda's source is part of a larger line: it holds one
                # expression and no statements, so tracing it as it is suffices
                return self.dygraph_function
        fn = self._converted.make_function(self._dygraph_function)
        return types.MethodType(fn, self._instance) if self._instance is not None else fn

    @property
    def code(self):
        """The transformed source code."""
        if self._converted is None:
            self._converted = convert.converted(self._dygraph_function)
        return self._converted.source

    def __call__(self, *args, **kwargs):
        if self._property or not ProgramTranslator.get_instance().enable_to_static:
            return self.dygraph_function(*args, **kwargs)
        if in_static_mode():
            if not _tracing_program():
                raise RuntimeError(
                    "Failed to run the callable object %s decorated by '@paddle.jit.to_static', "
                    "because it is NOT in dynamic mode. Please disable the static graph mode to "
                    "enter dynamic mode with the following API: paddle.disable_static()."
                    % self.dygraph_function)
            return self._converted_callable()(*args, **kwargs)    # inside another trace: inline
        args, kwargs = self._unified_args(args, kwargs)
        leaves = _call_leaves(args, kwargs)
        # the per-call work is kept to one pass over the arguments: the key,
        # then (on a hit) straight to the cached program
        entry = self._cache.lookup(self._key(leaves) + (False,))
        concrete, partial = entry if entry is not None else \
            self.get_concrete_program(*args, **kwargs)
        ProgramTranslator.get_instance()._last = self
        partial.training = self._is_train_mode()
        try:
            outs = partial([leaf for leaf in leaves if _is_tensor_arg(leaf)])
        except Exception as e:
            # an op failed while the program ran: Paddle's report at the user's line
            frame = report.frame_of_location(getattr(e, 'op_location', None))
            report.attach(e, [frame] if frame else [])
            raise
        return self._rebuild_outputs(concrete, outs)

    @staticmethod
    def _rebuild_outputs(concrete, outs):
        out_leaves, rebuild = concrete._rebuild
        if concrete.returns_one_tensor:
            return outs[0]
        it = iter(outs)
        values = []
        for leaf in out_leaves:
            if isinstance(leaf, (Variable, Tensor)):
                values.append(next(it))
            elif isinstance(leaf, _ListOut):
                values.append(leaf.items(it))
            else:
                values.append(leaf)
        return rebuild(values)[0]

    def _key(self, leaves):
        """The program cache key of a call with these argument leaves: each
        tensor's shape, dtype and whether it needs a gradient (the program marks
        inputs that need none, as Paddle does), each other value itself, the
        instance and the train/eval mode."""
        specs = iter(self._input_spec or ())
        key = []
        for leaf in leaves:
            if isinstance(leaf, (Tensor, np.ndarray)):
                spec = next(specs, None)
                grad = isinstance(leaf, Tensor) and not leaf.stop_gradient
                d = leaf.data if isinstance(leaf, Tensor) else leaf
                shape = _covering_shape(spec, d.shape) if isinstance(spec, InputSpec) else None
                key.append(('T', d.shape if shape is None else shape, d.dtype, grad))
            elif isinstance(leaf, InputSpec):
                key.append(('T', leaf.shape, str(leaf.dtype)))
            else:
                key.append(('P', _hashable(leaf)))
        # an auto_cast region changes the ops' dtypes: a program of its own
        amp = _autocast_state()
        return (tuple(key), id(self._instance), self._is_train_mode(),
                None if amp is None else amp.key)

    def _parameters(self):
        """The function's parameters (without ``self`` of a bound method)."""
        try:
            params = list(inspect.signature(self._dygraph_function).parameters.values())
        except (TypeError, ValueError):
            return []
        return params[1:] if self._instance is not None and params else params

    def _positional_parameters(self):
        """The parameters a positional argument can fill, in order."""
        return [p for p in self._parameters()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]

    def _unified_args(self, args, kwargs):
        """Keyword arguments that name positional parameters become positional,
        in signature order (defaults filled in between), so a program's inputs
        follow the function's parameters however a call spells them."""
        if not kwargs:
            return args, kwargs
        positional = self._positional_parameters()
        named = [i for i, p in enumerate(positional) if p.name in kwargs and i >= len(args)]
        if not named:
            return args, kwargs
        args, kwargs = list(args), dict(kwargs)
        for p in positional[len(args):max(named) + 1]:
            if p.name in kwargs:
                args.append(kwargs.pop(p.name))
            elif p.default is not p.empty:
                args.append(p.default)
            else:
                self._missing_argument(p.name, args, kwargs)
        return tuple(args), kwargs

    def _missing_argument(self, name, args, kwargs):
        raise ValueError("`%s()` requires `%s` arguments, but not found in input `args`: %s "
                         "and `kwargs`: %s." % (self.__name__, name, list(args), kwargs))

    def _check_required(self, args, kwargs):
        """Every parameter without a default is given (Paddle's check when a
        program is traced for specs, before the function runs)."""
        positional = self._positional_parameters()
        for p in positional[len(args):]:
            if p.default is p.empty and p.name not in kwargs:
                self._missing_argument(p.name, args, kwargs)

    def _arg_names(self, args, kwargs):
        """A feed name per argument leaf: the parameter's name, or the keyword for
        keyword arguments, with Paddle's names inside nested ones (``_leaf_names``)."""
        params = [p.name for p in self._positional_parameters()]
        names = []
        tops = [(params[i] if i < len(params) else 'input_%d' % i, a) for i, a in enumerate(args)]
        tops += sorted(kwargs.items())        # the order _flatten_args walks a dict
        for name, value in tops:
            _leaf_names(name, value, names)
        return names

    def get_concrete_program(self, *args, **kwargs):
        """(ConcreteProgram, PartialProgram) for these arguments, built once.
        ``with_hook=True`` traces the Layer's forward pre/post hooks into the
        program too (what ``jit.save`` exports)."""
        with_hook = bool(kwargs.pop('with_hook', False))
        for internal in ('is_train', 'is_prim_infer'):
            kwargs.pop(internal, None)   # Paddle's internal flags; the mode is ours to know
        if not args and not kwargs and self._input_spec is not None:
            args = tuple(self._input_spec)
        args, kwargs = self._unified_args(args, kwargs)
        self._check_spec_count(args)
        self._check_required(args, kwargs)
        key = self._key(_call_leaves(args, kwargs)) + (with_hook,)
        specs = [s for s in (self._input_spec or []) if isinstance(s, InputSpec)]

        def build():
            fn = self._converted_callable()
            layer = self._layer()
            if with_hook and layer is not None:
                fn = functools.partial(_call_with_layer_hooks, layer, fn)
            try:
                return build_concrete_program(fn, args, kwargs, specs,
                                              self._arg_names(args, kwargs), self._build_strategy)
            except Exception as e:
                # Paddle's report: the user's frames, the failing line marked
                report.attach(e, report.user_frames(e.__traceback__))
                raise
        return self._cache.get(key, build, lambda: _as_specs(args, kwargs, specs))

    def _check_spec_count(self, args):
        """The decorator's input_spec describes the leading arguments: it cannot
        be longer than the arguments the function takes (Paddle's check, which
        counts the parameters with defaults as given)."""
        if self._input_spec is None:
            return
        params = self._parameters()
        if any(p.kind == p.VAR_POSITIONAL for p in params):
            return
        n = max(len(args), len(self._positional_parameters()))
        if n < len(self._input_spec):
            raise ValueError("Requires len(arguments) >= len(input_spec), but received "
                             "len(args):%d < len(InputSpec): %d" % (n, len(self._input_spec)))

    def get_traced_count(self):
        """How many programs have been traced (one per distinct input signature)."""
        return len(self._cache)

    # -- the latest traced program --------------------------------------------------
    def concrete_program_specify_input_spec(self, input_spec=None, with_hook=False,
                                            is_prim_infer=False):
        """The ConcreteProgram for ``input_spec`` (or the decorator's input_spec),
        else the program of the latest call."""
        if self._property:
            raise RuntimeError("%s is a property (to_static(property=True)): it has no program"
                               % self.__name__)
        spec = input_spec
        if self._input_spec is not None:
            if input_spec is not None:
                self._check_specs_agree(input_spec)
                log.warn("\n\nYou have specified `input_spec` both in function definition "
                         "(higher priority) and `paddle.jit.save` (will be ignored.)\n\n\t "
                         "Using: %s\n\n\t Ignore: %s\n" % (self._input_spec, input_spec))
            spec = self._input_spec
        if spec is not None:
            return self.get_concrete_program(*spec, with_hook=with_hook)[0]
        if self._cache._recent_key is None:
            raise ValueError("No valid transformed program for %s.\n\t    Please specific "
                             "`input_spec` in `@paddle.jit.to_static` or feed input tensor to "
                             "call the decorated function at once.\n" % self._describe())
        log.warn("No input_spec is found, save cached program instead")
        if len(self._cache) > 1:
            log.warn("Current %s has more than one cached programs: %d, the last traced "
                     "program will be return by default." % (self._describe(), len(self._cache)))
        if with_hook:          # the latest call's arguments, traced with the hooks
            args, kwargs = self._cache.arguments(self._cache._recent_key)
            return self.get_concrete_program(*args, with_hook=True, **kwargs)[0]
        return self._cache.last()[1][0]

    def _describe(self):
        """Paddle's FunctionSpec text: ``function: f(x,y), input_spec: ...``."""
        names = [p.name for p in self._positional_parameters()]
        return "function: %s(%s), input_spec: %s" % (self.__name__, ','.join(names),
                                                     self._input_spec)

    def _check_specs_agree(self, input_spec):
        """``input_spec`` given at save time must agree with the decorator's:
        the same specs, or a subset of them (Paddle's compatibility rule)."""
        given, own = _flatten_args(list(input_spec))[0], _flatten_args(self._input_spec)[0]
        if len(given) != len(own):
            agree = all(s in own for s in given)
        else:
            agree = all(_specs_compatible(a, b) for a, b in zip(given, own))
        if not agree:
            raise ValueError("The `input_spec`: %s used to construct concrete_program is "
                             "conflict with the `input_spec`: %s in `@paddle.jit.to_static`"
                             % (list(input_spec), self._input_spec))

    @property
    def concrete_program(self):
        return self.concrete_program_specify_input_spec(None)

    @property
    def main_program(self):
        return self.concrete_program.main_program

    @property
    def startup_program(self):
        return self.concrete_program.startup_program

    @property
    def inputs(self):
        return list(self.concrete_program.inputs)

    @property
    def outputs(self):
        return list(self.concrete_program.outputs)

    @property
    def program_cache(self):
        return self._cache

    def rollback(self):
        """Back to the eager function (for a Layer: restores ``forward``)."""
        if self._instance is None:
            return self._dygraph_function
        eager = types.MethodType(self._dygraph_function, self._instance)
        name = self._dygraph_function.__name__
        if self._instance.__dict__.get(name) is self:      # to_static(layer)
            object.__delattr__(self._instance, name)
        if isinstance(getattr(type(self._instance), name, None), StaticFunction):
            object.__setattr__(self._instance, name, eager)  # @to_static on the class
        return eager

    def __repr__(self):
        return '<StaticFunction %s>' % self.__name__


def not_to_static(func=None):
    """Leave ``func`` unconverted inside @to_static code."""
    if func is None:
        return not_to_static
    setattr(func, NOT_TO_STATIC, True)
    return func


# ---- ProgramTranslator ---------------------------------------------------------------------

def save_concrete(concrete, path, inputs=None, outputs=None, layer=None):
    """Write a traced program's inference form to ``path.pdmodel``/``.pdiparams``
    (with ``layer``'s state_dict keys for its parameters, which
    ``framework.load(path)`` returns them under)."""
    inputs = concrete.inputs if inputs is None else inputs
    outputs = concrete.outputs if outputs is None else outputs
    p, feed, fetch, values = _model_files.inference_model_parts(inputs, outputs,
                                                                concrete.main_program)
    structured = None
    from ..nn.layer import Layer
    if isinstance(layer, Layer):
        structured = {t.name: key for key, t in layer.state_dict().items()}
    _model_files.write_model(path, p, feed, fetch, values, structured)
    return p


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
        if self._last is None or self._last._cache._recent_key is None:
            raise RuntimeError("ProgramTranslator.save_inference_model: run a @to_static "
                               "function (or get_output()) first")
        concrete = self._last.concrete_program
        inputs = [concrete.inputs[i] for i in feed] if feed is not None else concrete.inputs
        outputs = [concrete.outputs[i] for i in fetch] if fetch is not None else concrete.outputs
        import os
        save_concrete(concrete, os.path.join(dirname, 'model'), inputs, outputs)


def _convert_py_layer_function(fn):
    """A PyLayer's forward/backward inside @to_static, converted like any
    user function unless to_static is off."""
    return convert_callable(fn) if ProgramTranslator.get_instance().enable_to_static else fn


_py_layer.install_converter(_convert_py_layer_function)
