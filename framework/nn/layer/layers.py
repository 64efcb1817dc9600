"""``Layer``: the base class of every model and layer (Paddle's ``paddle.nn.Layer``).

A Layer owns parameters, sublayers and buffers, registered by plain attribute
assignment (``self.fc = Linear(2, 3)``, ``self.w = self.create_parameter(...)``,
``self.register_buffer('mean', t)``), and computes in ``forward`` with
``framework`` ops only, so the same class runs eagerly, under static
``program_guard`` and inside ``@to_static``.

>>> import framework as paddle
>>> class Net(paddle.nn.Layer):
...     def __init__(self):
...         super().__init__()
...         self.fc = paddle.nn.Linear(4, 2)
...     def forward(self, x):
...         return self.fc(x)
>>> net = Net()
>>> [name for name, _ in net.named_parameters()]
['fc.weight', 'fc.bias']
>>> net(paddle.ones([3, 4])).shape
paddle.Size([3, 2])
"""
import collections
import contextlib
import contextvars
import itertools
import re
import threading
import warnings

import numpy as np

from ... import dtype as _dt
from ...dygraph.state import no_grad
from ...dygraph.tensor import Parameter, Tensor
from ...ops.modes import in_static_mode, is_static_var
from ...param_attr import ParamAttr

__all__ = ['Layer']


# ---- unique names -----------------------------------------------------------
# Paddle gives every layer a unique full name ('linear_0') and every parameter a
# name derived from it ('linear_0.w_0'). Counters are per key.
_PROCESS_COUNTERS = collections.defaultdict(itertools.count)
# unique_name_guard gives the calling thread fresh counters; other threads
# keep counting in theirs (the process-wide ones unless they are guarded too)
_counters = contextvars.ContextVar('framework_name_counters', default=None)


def name_counters():
    """The calling thread's unique-name counters."""
    counters = _counters.get()
    return _PROCESS_COUNTERS if counters is None else counters


def set_name_counters(counters):
    """Use ``counters`` in the calling thread from now on; returns the previous ones."""
    prev = name_counters()
    _counters.set(counters)
    return prev


def unique_name(key):
    return '%s_%d' % (key, next(name_counters()[key]))


@contextlib.contextmanager
def unique_name_guard():
    """Fresh name counters inside the block (Paddle's ``unique_name.guard``), so a
    model built twice gets the same parameter names both times."""
    token = _counters.set(collections.defaultdict(itertools.count))
    try:
        yield
    finally:
        _counters.reset(token)


_first_cap = re.compile('(.)([A-Z][a-z]+)')
_all_cap = re.compile('([a-z])([A-Z])')


def _camel_to_snake(name):
    """'BatchNorm2D' -> 'batch_norm2d', 'Conv2D' -> 'conv2d' (Paddle's rule)."""
    return _all_cap.sub(r'\1_\2', _first_cap.sub(r'\1_\2', name)).lower()


# ---- parameter creation -----------------------------------------------------
_global_initializer = {'weight': None, 'bias': None}


def set_global_initializer(weight_init, bias_init=None):
    """Initializers used for every parameter whose ParamAttr sets none; they take
    precedence over a layer's own default (as in Paddle). ``None`` resets."""
    from ..initializer import Initializer
    for what, init in (('weight_init', weight_init), ('bias_init', bias_init)):
        if init is not None and not isinstance(init, Initializer):
            raise TypeError("set_global_initializer: %s must be an Initializer or None, "
                            "got %s" % (what, type(init).__name__))
    _global_initializer['weight'] = weight_init
    _global_initializer['bias'] = bias_init


def _check_shape(shape, what):
    try:
        shape = [int(s) for s in shape]
    except TypeError:
        raise TypeError("%s: shape must be a list of ints, got %r" % (what, shape)) from None
    if any(s <= 0 for s in shape):
        raise ValueError("%s: every dimension of a parameter's shape must be positive, "
                         "got %s" % (what, shape))
    return shape


class LazyGuard:
    """Parameters created inside (by layers or ``create_parameter``) are not
    initialised until ``param.initialize()`` runs their initializer: their
    values are untouched zero pages until then (Paddle's ``paddle.LazyGuard``,
    for building models too big to initialise twice). Per thread.

    >>> import framework as paddle
    >>> with paddle.LazyGuard():
    ...     net = paddle.nn.Linear(2, 2, bias_attr=paddle.ParamAttr(
    ...         initializer=paddle.nn.initializer.Constant(3.0)))
    >>> net.bias.numpy().tolist()
    [0.0, 0.0]
    >>> for p in net.parameters():
    ...     p.initialize()
    >>> net.bias.numpy().tolist()
    [3.0, 3.0]
    """

    def __enter__(self):
        _lazy.depth = getattr(_lazy, 'depth', 0) + 1
        return self

    def __exit__(self, *exc):
        _lazy.depth -= 1


_lazy = threading.local()


def make_parameter(shape, dtype, attr, initializer, name):
    """Create and initialise one eager Parameter from a normalised ``ParamAttr``
    (static mode goes to ``framework.static.create_parameter`` instead); under
    ``LazyGuard`` the initializer waits for ``initialize()``."""
    p = Parameter(np.zeros(shape, dtype=dtype), name=name, trainable=attr.trainable)
    p.optimize_attr = {'learning_rate': attr.learning_rate}
    p.regularizer = attr.regularizer
    p.need_clip = attr.need_clip
    p.do_model_average = attr.do_model_average
    p.initializer = initializer
    if getattr(_lazy, 'depth', 0):
        p._lazy_init = initializer
        return p
    with no_grad():
        initializer(p)
    return p


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """``framework.create_parameter``: a Parameter outside any layer.

    >>> import framework as paddle
    >>> w = paddle.create_parameter([2, 3], 'float32')
    >>> w.shape, w.stop_gradient
    (paddle.Size([2, 3]), False)
    """
    attr = ParamAttr._to_attr(attr)
    if attr is not False and name is not None and not isinstance(attr, list):
        attr.name = name
    return _create_parameter(shape, dtype, attr, is_bias, default_initializer, 'param')


# Paddle offers it as a Tensor method too (framework/__init__.py registers this table)
TENSOR_METHODS = {'create_parameter': create_parameter}


def _create_parameter(shape, dtype, attr, is_bias, default_initializer, name_prefix):
    """Initializer precedence: ``attr.initializer`` > the global initializer >
    ``default_initializer`` > Xavier-uniform (weights) / zeros (biases).
    Returns None when ``attr`` is False."""
    from .. import initializer as I
    attr = ParamAttr._to_attr(attr)
    if attr is False:
        return None
    if isinstance(attr, list):
        raise TypeError("create_parameter: attr must be a single ParamAttr, got a list")
    shape = _check_shape(shape, 'create_parameter')
    dtype = _dt.convert_dtype(dtype if dtype is not None else _dt.default_float())
    init = (attr.initializer
            or _global_initializer['bias' if is_bias else 'weight']
            or default_initializer
            or (I.Constant(0.0) if is_bias else I.XavierUniform()))
    name = attr.name or unique_name('%s.%s' % (name_prefix, 'b' if is_bias else 'w'))
    if in_static_mode():
        # a persistable Variable of the main program, initialised by the
        # startup program (nn/static_params.py)
        from ..static_params import create_static_parameter
        attr.name = name
        attr.initializer = init
        return create_static_parameter(shape, str(dtype), name=name, attr=attr, is_bias=is_bias,
                                       default_initializer=init)
    return make_parameter(shape, dtype, attr, init, name)


class _Tracing(threading.local):
    """Per thread: while @to_static traces a program, ``forward_of(layer)`` gives
    the (converted) forward a called layer runs, and ``assigned`` records the
    tensor attributes the trace assigned, (registry, name) -> (registry, name,
    eager tensor), to be put back when the trace ends; None otherwise."""
    forward_of = None
    assigned = None

    @contextlib.contextmanager
    def converting(self, forward_of):
        prev = self.forward_of, self.assigned
        self.forward_of, self.assigned = forward_of, {}
        try:
            yield
        finally:
            for registry, name, tensor in self.assigned.values():
                registry[name] = tensor
            self.forward_of, self.assigned = prev


tracing = _Tracing()


# ---- hooks ------------------------------------------------------------------
class HookRemoveHelper:
    """Handle returned by ``register_forward_*_hook``; ``remove()`` detaches it."""
    _ids = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self._id = next(HookRemoveHelper._ids)

    def remove(self):
        self._hooks.pop(self._id, None)


class _OpAttrRecorder:
    """Forward hooks of ``Layer._set_op_attrs``: remember where the layer's ops
    start in the block being built, stamp the attributes on them afterwards,
    then remove themselves."""

    def __init__(self, layer):
        self.attrs = {}
        self.start = None
        self.pre = layer.register_forward_pre_hook(self._before)
        self.post = layer.register_forward_post_hook(self._after)

    def _before(self, layer, inputs):
        if in_static_mode():
            from ...graph.program import default_main_program
            block = default_main_program().current_block()
            self.start = (block, len(block.ops))

    def _after(self, layer, inputs, outputs):
        if self.start is None:
            return
        from ...graph.sub_blocks import sub_block_ids
        block, first = self.start
        ops = list(block.ops[first:])
        while ops:                     # ops of branch/loop bodies included
            op = ops.pop()
            op.attrs.update(self.attrs)
            ops.extend(o for b in sub_block_ids(op) for o in block.program.block(b).ops)
        self.pre.remove()
        self.post.remove()
        object.__delattr__(layer, '_op_attr_recorder')


def _is_parameter(v):
    """An eager Parameter, or a static-mode parameter Variable."""
    return isinstance(v, Parameter) or (is_static_var(v) and v.is_parameter)


def _is_tensor(v):
    return isinstance(v, Tensor) or is_static_var(v)


class _Registry(collections.OrderedDict):
    """A layer's ordered name -> parameter/sublayer/buffer table.

    Entries are mirrored into the owning layer's instance ``__dict__``, so
    ``self.weight`` inside ``forward`` is a plain dict hit instead of a
    ``__getattr__`` fallback (several times slower, on every training step).
    Writes made directly to the table (``layer._parameters[name] = p``, as
    weight-norm style utilities do) stay in sync as well.
    """
    __slots__ = ('_mirror',)

    def __init__(self, mirror=None):
        super().__init__()
        self._mirror = {} if mirror is None else mirror

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self._mirror[key] = value

    def __delitem__(self, key):
        super().__delitem__(key)
        self._mirror.pop(key, None)

    def pop(self, key, *default):
        if key in self:
            self._mirror.pop(key, None)
        return super().pop(key, *default)

    def popitem(self, last=True):
        key, value = super().popitem(last)
        self._mirror.pop(key, None)
        return key, value

    def clear(self):
        for key in self:
            self._mirror.pop(key, None)
        super().clear()

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs):
        for key, value in collections.OrderedDict(*args, **kwargs).items():
            self[key] = value


_REGISTRIES = ('_parameters', '_sub_layers', '_buffers')


def _addindent(text, n):
    lines = text.split('\n')
    return lines[0] if len(lines) == 1 else lines[0] + '\n' + '\n'.join(
        ' ' * n + line for line in lines[1:])


# ---- the Layer ----------------------------------------------------------------
def _new_attribute_while_tracing(registry, name, value):
    """A tensor attribute first created inside @to_static (``self.state = x
    * 0``): the layer gets an eager tensor for the run to write into, as the
    eager call would leave one (empty along dims known only at run time; the
    run's value replaces it whatever its shape)."""
    if tracing.assigned is None or not is_static_var(value):
        return
    shape = tuple(max(s, 0) for s in value.shape)
    registry[name] = Tensor(np.zeros(shape, np.dtype(value.dtype)))


def _assigned_while_tracing(registry, name, value):
    """``self.name = value`` inside @to_static, where ``name`` holds an eager
    tensor (a buffer or tensor attribute) and ``value`` is a program value:
    the program writes the value into that tensor when it runs, as the
    assignment does eagerly; until the trace ends the layer holds ``value``
    (later reads see it, gradients flow through it), then its tensor again.
    True when handled so."""
    assigned = tracing.assigned
    if assigned is None or not is_static_var(value):
        return False
    key = (id(registry), name)
    if key not in assigned:
        tensor = registry.get(name)
        if tensor is None or is_static_var(tensor):
            return False
        assigned[key] = (registry, name, tensor)
    from ...ops.manipulation import assign
    assign(value)._write_captured(assigned[key][2])
    registry[name] = value
    return True


class Layer:
    """Base class for layers and models; subclasses define ``forward``.

    Args:
        name_scope (str, optional): prefix of the layer's unique ``full_name()``
            and of its parameter names; defaults to the snake-cased class name.
        dtype (str, optional): default dtype of parameters it creates.
    """

    def __init__(self, name_scope=None, dtype='float32'):
        d = self.__dict__
        d['training'] = True
        if name_scope is None:
            name_scope = _camel_to_snake(type(self).__name__)
        d['_name_scope'] = name_scope
        d['_full_name'] = unique_name(name_scope)
        d['_dtype'] = dtype
        # @to_static refuses a layer built while a Program was being built: its
        # parameters were never created eagerly (Paddle's rule)
        d['_init_in_dynamic_mode'] = not in_static_mode()
        for registry in _REGISTRIES:
            d[registry] = _Registry(d)
        d['_non_persistable_buffer_names_set'] = set()
        d['_forward_pre_hooks'] = collections.OrderedDict()
        d['_forward_post_hooks'] = collections.OrderedDict()
        d['_state_dict_hooks'] = collections.OrderedDict()

    # ---- calling --------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        raise NotImplementedError("%s must implement forward()" % type(self).__name__)

    def __call__(self, *inputs, **kwargs):
        # The common case (no hooks, not tracing) costs three truth tests.
        if self._forward_pre_hooks or self._forward_post_hooks:
            return self._call_with_hooks(inputs, kwargs)
        if tracing.forward_of is not None:
            return tracing.forward_of(self)(*inputs, **kwargs)
        return self.forward(*inputs, **kwargs)

    def _call_with_hooks(self, inputs, kwargs, forward=None):
        """Pre-hooks, ``forward`` (default: the layer's), post-hooks."""
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, inputs)
            if result is not None:
                inputs = result if isinstance(result, tuple) else (result,)
        if forward is None:
            forward = self.forward if tracing.forward_of is None else tracing.forward_of(self)
        outputs = forward(*inputs, **kwargs)
        for hook in list(self._forward_post_hooks.values()):
            result = hook(self, inputs, outputs)
            if result is not None:
                outputs = result
        return outputs

    def register_forward_pre_hook(self, hook):
        """``hook(layer, inputs)`` runs before ``forward``; a non-None return
        replaces the inputs (a non-tuple is wrapped into a 1-tuple)."""
        handle = HookRemoveHelper(self._forward_pre_hooks)
        self._forward_pre_hooks[handle._id] = hook
        return handle

    def register_forward_post_hook(self, hook):
        """``hook(layer, inputs, outputs)`` runs after ``forward``; a non-None
        return replaces the outputs."""
        handle = HookRemoveHelper(self._forward_post_hooks)
        self._forward_post_hooks[handle._id] = hook
        return handle

    def _set_op_attrs(self, attrs):
        """Extra attributes for the ops this layer's forward appends the next time
        a static program is built (e.g. quantization marks kept in the saved
        inference program). Eager calls are not affected."""
        if not isinstance(attrs, dict):
            raise TypeError("_set_op_attrs: attrs should be a dict, but received %s"
                            % type(attrs).__name__)
        recorder = self.__dict__.get('_op_attr_recorder')
        if recorder is None:
            recorder = _OpAttrRecorder(self)
            object.__setattr__(self, '_op_attr_recorder', recorder)
        recorder.attrs.update(attrs)

    def _register_state_dict_hook(self, hook):
        """``hook(state_dict)`` post-processes ``state_dict()``'s result."""
        handle = HookRemoveHelper(self._state_dict_hooks)
        self._state_dict_hooks[handle._id] = hook
        return handle

    # ---- attribute registration ----------------------------------------
    def __setattr__(self, name, value):
        # Same precedence as Paddle: a registered name only accepts its own kind
        # (or None); a new Tensor attribute becomes a non-persistable buffer.
        d = self.__dict__
        params = d.get('_parameters')
        if _is_parameter(value):
            self._require_init(params, name)
            self._forget(name)
            params[name] = value
        elif params is not None and name in params:
            self._only_none(value, name, 'parameter', 'Parameter')
            params[name] = None
        elif isinstance(value, Layer):
            self._require_init(params, name)
            self._forget(name)
            d['_sub_layers'][name] = value
        elif params is not None and name in d['_sub_layers']:
            self._only_none(value, name, 'sublayer', 'Layer')
            d['_sub_layers'][name] = None
        elif _is_tensor(value):
            self._require_init(params, name)
            buffers = d['_buffers']
            if name not in buffers:
                self._forget(name)
                d['_non_persistable_buffer_names_set'].add(name)
                _new_attribute_while_tracing(buffers, name, value)
            if _assigned_while_tracing(buffers, name, value):
                return
            buffers[name] = value
        elif params is not None and name in d['_buffers']:
            self._only_none(value, name, 'buffer', 'Tensor')
            d['_buffers'][name] = None
        else:
            object.__setattr__(self, name, value)

    def _require_init(self, params, name):
        if params is None:
            raise AttributeError("cannot assign %r before %s.__init__() calls "
                                 "super().__init__()" % (name, type(self).__name__))

    @staticmethod
    def _only_none(value, name, kind, expected):
        if value is not None:
            raise TypeError("assignment to %s %r should be of type %s or None, but got %r"
                            % (kind, name, expected, type(value).__name__))

    def _forget(self, name):
        """Drop ``name`` from every registry and the instance dict."""
        d = self.__dict__
        d.pop(name, None)
        d['_parameters'].pop(name, None)
        d['_sub_layers'].pop(name, None)
        d['_buffers'].pop(name, None)
        d['_non_persistable_buffer_names_set'].discard(name)

    def __setstate__(self, state):
        # copy.copy / copy.deepcopy: give the copy its own tables mirroring into
        # its own __dict__ (the copied tables still point at another dict)
        d = self.__dict__
        d.update(state)
        for registry in _REGISTRIES:
            old = state.get(registry)
            if old is not None:
                table = d[registry] = _Registry(d)
                for key, value in old.items():
                    table[key] = value

    def __getattr__(self, name):
        # Reached only when an entry is missing from __dict__ (tables mirror
        # into it): look in the tables themselves before giving up.
        d = self.__dict__
        for registry in _REGISTRIES:
            table = d.get(registry)
            if table is not None and name in table:
                return table[name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __delattr__(self, name):
        d = self.__dict__
        for registry in _REGISTRIES:
            table = d.get(registry)
            if table is not None and name in table:
                del table[name]
                d['_non_persistable_buffer_names_set'].discard(name)
                return
        object.__delattr__(self, name)

    def _check_new_name(self, name, what):
        if not isinstance(name, str):
            raise TypeError("%s: the name must be a str, got %s" % (what, type(name).__name__))
        if not name or '.' in name:
            raise KeyError("%s: the name must be non-empty and contain no '.', got %r"
                           % (what, name))

    def add_sublayer(self, name, sublayer):
        """Register ``sublayer`` under ``name`` (``self.<name>``); returns it."""
        self._check_new_name(name, 'add_sublayer')
        if sublayer is not None and not isinstance(sublayer, Layer):
            raise TypeError("add_sublayer(%r): expected a Layer or None, got %s"
                            % (name, type(sublayer).__name__))
        self._require_init(self.__dict__.get('_parameters'), name)
        if name not in self._sub_layers:
            self._forget(name)
        self._sub_layers[name] = sublayer
        return sublayer

    def add_parameter(self, name, parameter):
        """Register ``parameter`` under ``name``; returns it."""
        self._check_new_name(name, 'add_parameter')
        self._require_init(self.__dict__.get('_parameters'), name)
        if parameter is not None and not _is_parameter(parameter):
            raise TypeError("add_parameter(%r): expected a Parameter or None, got %s "
                            "(create one with create_parameter)" % (name, type(parameter).__name__))
        if name not in self._parameters and hasattr(self, name):
            raise KeyError("add_parameter: the layer already has an attribute %r" % name)
        self._parameters[name] = parameter
        return parameter

    def register_buffer(self, name, tensor, persistable=True):
        """Register a non-parameter tensor (running statistics, masks...).

        Persistable buffers are saved in ``state_dict``; all buffers follow
        ``to(dtype)``.
        """
        self._check_new_name(name, 'register_buffer')
        self._require_init(self.__dict__.get('_parameters'), name)
        if tensor is not None and not _is_tensor(tensor):
            raise TypeError("register_buffer(%r): expected a Tensor or None, got %s"
                            % (name, type(tensor).__name__))
        if isinstance(tensor, Parameter):
            raise TypeError("register_buffer(%r): got a Parameter; use add_parameter" % name)
        if name not in self._buffers and hasattr(self, name):
            raise KeyError("register_buffer: the layer already has an attribute %r" % name)
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable_buffer_names_set.discard(name)
            if tensor is not None:
                tensor.persistable = True
        else:
            self._non_persistable_buffer_names_set.add(name)

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A new Parameter named after this layer ('linear_0.w_0').

        ``attr`` is a ParamAttr (or name / initializer / False); False means
        "no parameter" and returns None.
        """
        return _create_parameter(shape, dtype if dtype is not None else self._dtype, attr,
                                 is_bias, default_initializer, self._full_name)

    def create_variable(self, name=None, persistable=None, dtype=None):
        """An empty tensor to be filled later (e.g. by ``framework.assign``)."""
        t = Tensor(np.zeros([0], dtype=_dt.convert_dtype(dtype or self._dtype)))
        t.name = name or unique_name(self._full_name + '.var')
        t.persistable = bool(persistable)
        return t

    create_tensor = create_variable

    # ---- traversal ------------------------------------------------------
    def named_sublayers(self, prefix='', include_self=False, layers_set=None,
                        remove_duplicate=True):
        """(name, layer) for every sublayer, depth first: each layer once, or
        under each of its names with ``remove_duplicate=False``."""
        if layers_set is None:
            layers_set = set()
        if include_self and (not remove_duplicate or id(self) not in layers_set):
            layers_set.add(id(self))
            yield prefix, self
        for key, layer in self._sub_layers.items():
            if layer is None:
                continue
            sub_prefix = prefix + '.' + key if prefix else key
            yield from layer.named_sublayers(sub_prefix, True, layers_set, remove_duplicate)

    def sublayers(self, include_self=False):
        return [layer for _, layer in self.named_sublayers(include_self=include_self)]

    def named_children(self):
        seen = set()
        for name, layer in self._sub_layers.items():
            if layer is not None and id(layer) not in seen:
                seen.add(id(layer))
                yield name, layer

    def children(self):
        for _, layer in self.named_children():
            yield layer

    def _named_members(self, registry, prefix, include_sublayers):
        seen = set()
        layers = (self.named_sublayers(prefix=prefix, include_self=True)
                  if include_sublayers else [(prefix, self)])
        for layer_prefix, layer in layers:
            for key, value in getattr(layer, registry).items():
                if value is None or id(value) in seen:
                    continue
                seen.add(id(value))
                yield (layer_prefix + '.' + key if layer_prefix else key), value

    def named_parameters(self, prefix='', include_sublayers=True):
        """(structured name, Parameter) pairs, each parameter once."""
        return self._named_members('_parameters', prefix, include_sublayers)

    def parameters(self, include_sublayers=True):
        return [p for _, p in self.named_parameters(include_sublayers=include_sublayers)]

    def named_buffers(self, prefix='', include_sublayers=True):
        return self._named_members('_buffers', prefix, include_sublayers)

    def buffers(self, include_sublayers=True):
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    # ---- modes ----------------------------------------------------------
    def train(self):
        """Training mode for this layer and all sublayers (dropout active,
        batch norm uses batch statistics)."""
        for layer in self.sublayers(include_self=True):
            layer.training = True
        return self

    def eval(self):
        for layer in self.sublayers(include_self=True):
            layer.training = False
        return self

    def apply(self, fn):
        """Call ``fn(layer)`` on every sublayer (children first) and self."""
        for layer in self.children():
            layer.apply(fn)
        fn(self)
        return self

    def full_name(self):
        return self._full_name

    def clear_gradients(self, set_to_zero=True):
        for p in self.parameters():
            if p.trainable:
                p.clear_grad(set_to_zero)

    # ---- state ----------------------------------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix='',
                   use_hook=True):
        """Ordered {structured name: Tensor} of parameters and persistable
        buffers (the tensors themselves, not copies)."""
        dest = collections.OrderedDict() if destination is None else destination
        self._collect_state(dest, include_sublayers, structured_name_prefix)
        if use_hook:
            for hook in self._state_dict_hooks.values():
                result = hook(dest)
                if result is not None:
                    dest = result
        return dest

    def to_static_state_dict(self, destination=None, include_sublayers=True,
                             structured_name_prefix='', use_hook=True, keep_vars=True):
        """``state_dict`` (Paddle's name for the one a static save takes;
        ``keep_vars``: the tensors themselves, which state_dict gives anyway)."""
        return self.state_dict(destination, include_sublayers, structured_name_prefix,
                               use_hook)

    def _collect_state(self, dest, include_sublayers, prefix):
        for name, p in self._parameters.items():
            if p is not None:
                dest[prefix + name] = p
        skip = self._non_persistable_buffer_names_set
        for name, b in self._buffers.items():
            if b is not None and name not in skip:
                dest[prefix + name] = b
        if include_sublayers:
            for name, layer in self._sub_layers.items():
                if layer is not None:
                    layer._collect_state(dest, True, prefix + name + '.')

    def set_state_dict(self, state_dict, use_structured_name=True):
        """Load values (Tensors or numpy arrays) into the parameters and buffers.

        Returns ``(missing_keys, unexpected_keys)``. As in Paddle, an entry
        whose shape does not fit is skipped with a warning naming the key and
        both shapes (so pretrained weights load into a model with another
        head), and is reported as missing, like keys the dict lacks. Values
        are cast to each target's dtype. Calling it while a ``@to_static``
        function is being converted raises ``ValueError`` (load in
        ``__init__`` instead).
        """
        if not hasattr(state_dict, 'items'):
            raise TypeError("set_state_dict expects a dict of name -> Tensor/ndarray, got %s"
                            % type(state_dict).__name__)
        missing, matched, used = [], [], set()
        for key, target in self.state_dict(use_hook=False).items():
            key = key if use_structured_name else target.name
            if key not in state_dict:
                missing.append(key)
                warnings.warn("Skip loading for %s. %s is not found in the provided dict."
                              % (key, key), stacklevel=2)
                continue
            value = state_dict[key]
            if is_static_var(value) or (in_static_mode() and not is_static_var(target)):
                raise ValueError(_SET_STATE_IN_TO_STATIC)
            value = _as_array(value, key)
            if tuple(value.shape) != tuple(target.shape):
                missing.append(key)
                warnings.warn("Skip loading for %s. %s receives a shape %s, but the expected "
                              "shape is %s." % (key, key, list(value.shape), list(target.shape)),
                              stacklevel=2)
                continue
            matched.append((target, value))
            used.add(key)
        unexpected = [k for k in state_dict if k not in used and not _is_meta_key(k)]
        for target, value in matched:
            if is_static_var(target):
                # a layer built in static mode: its values live in the global scope
                target.set_value(value.astype(target.dtype, copy=False))
            else:
                target.set_value(value)
        return missing, unexpected

    set_dict = set_state_dict
    load_dict = set_state_dict

    # ---- dtype / device --------------------------------------------------
    def to(self, device=None, dtype=None, blocking=None):
        """Move to ``device`` (only the CPU exists) and/or cast floating
        parameters and buffers to ``dtype``, in place (the Parameter objects
        an optimizer holds stay valid)."""
        if device is not None:
            from ...place import CPUPlace
            if not (isinstance(device, CPUPlace) or str(device).startswith('cpu')):
                raise ValueError("Layer.to: device %r is not available; this framework "
                                 "runs on the CPU only" % (device,))
        if dtype is not None:
            d = _dt.convert_dtype(dtype)
            if not _dt.is_floating(d):
                raise ValueError("Layer.to: dtype must be a floating dtype, got %s" % d)
            self._cast_floats(d)
        return self

    def astype(self, dtype=None):
        """Cast floating parameters and buffers to ``dtype`` in place: a
        floating or complex dtype, or an integer one as Paddle allows (values
        truncate)."""
        d = _dt.convert_dtype(dtype)
        if d is None or not (_dt.is_inexact(d) or d.kind in 'iu'):
            raise ValueError("Layer.astype: dtype must be a floating, complex or integer dtype, "
                             "got %r" % (dtype,))
        return self._cast_floats(d, shown=_dt.public(d))

    def float(self, excluded_layers=None):
        return self._cast_floats(_dt.float32, excluded_layers, _dt.public('float32'))

    def double(self, excluded_layers=None):
        return self._cast_floats(_dt.float64, excluded_layers, _dt.public('float64'))

    def float16(self, excluded_layers=None):
        return self._cast_floats(_dt.float16, excluded_layers, _dt.public('float16'))

    def _cast_floats(self, dtype, excluded_layers=None, shown=None):
        """Floating parameters and buffers to ``dtype``; each layer's ``_dtype``
        (what its repr shows) becomes ``shown``: Paddle shows ``dtype=paddle.float32``
        after ``float()`` / ``astype``, ``dtype=float32`` after ``to(dtype=...)``."""
        excluded = tuple(_as_types(excluded_layers))
        for layer in self.sublayers(include_self=True):
            if excluded and isinstance(layer, excluded):
                continue
            for t in list(layer._parameters.values()) + list(layer._buffers.values()):
                if t is not None and _dt.is_floating(t.data.dtype) and t.data.dtype != dtype:
                    t.data = t.data.astype(dtype)
                    t._version += 1
                    if t.grad is not None:
                        t.grad.data = t.grad.data.astype(dtype)
            layer._dtype = str(dtype) if shown is None else shown
        return self

    # ---- printing -------------------------------------------------------
    def extra_repr(self):
        """Override to describe the layer's configuration in ``repr``."""
        return ''

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split('\n') if extra else []
        children = ['(%s): %s' % (name, _addindent(repr(layer), 2))
                    for name, layer in self._sub_layers.items()]
        body = ''
        if len(lines) == 1:
            body = lines[0]
        elif lines:
            body = '\n  ' + '\n  '.join(lines) + '\n'
        if children:
            body += '\n  ' + '\n  '.join(children) + '\n'
        return '%s(%s)' % (type(self).__name__, body)


def _as_array(value, key):
    if isinstance(value, Tensor):
        return value.data
    if isinstance(value, np.ndarray):
        return value
    try:
        arr = np.asarray(value)
    except Exception:
        arr = None
    if arr is None or arr.dtype == object:
        raise TypeError("set_state_dict: the value of %r must be a Tensor or numpy array, "
                        "got %s" % (key, type(value).__name__))
    return arr


_SET_STATE_IN_TO_STATIC = (
    "This error might happens in dy2static, while calling 'set_state_dict' dynamically in "
    "'forward', which is not supported. If you only need call 'set_state_dict' once, move it "
    "to '__init__'.")


def _is_meta_key(key):
    # Paddle's save format may carry this bookkeeping entry next to the weights.
    return key == 'StructuredToParameterName@@'


def _as_types(excluded):
    if not excluded:
        return []
    items = excluded if isinstance(excluded, (list, tuple)) else [excluded]
    return [t if isinstance(t, type) else type(t) for t in items]
