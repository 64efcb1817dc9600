"""The op registry: every op is declared once here and used by both modes.

An ``OpDef`` carries everything either mode needs:

* ``inputs``   names of tensor inputs, in kernel order. ``'xs*'`` marks a
               variadic input (a list of tensors), ``'w?'`` an optional one (may
               be None).
* ``outputs``  names of outputs. A kernel returns one array, or a tuple when
               there are several outputs.
* ``attrs``    ordered ``{name: default}``; attributes follow the inputs in the
               kernel's positional arguments.
* ``infer_meta(*in_metas, *attrs)``  output ``Meta`` (shape with -1 for
               unknown dims, dtype) or a tuple of them.
* ``kernel(*arrays, *attrs)``        the numpy implementation.
* ``grad(*out_grads, *inputs, *outputs, *attrs)`` returns one gradient per
               input (a list for a variadic input, None where there is none).
               It is written with registered ops, so it runs on eager Tensors
               (and records a tape under ``create_graph``) and on static
               Variables (emitting grad ops) alike.
* ``fast_grad`` the same signature on numpy arrays; an optional fused
               first-order path used when no graph is being built.
* ``reserve_outputs``  outputs only the op's own backward reads, whose
               content is the kernel's own (cuDNN's reserve space, Paddle's
               ``rnn`` op's ``Reserve``): each backend lays them out its way
               and says so inside them, their ``infer_meta`` size may be
               unknown, and tests compare them with no reference or other
               backend. They are ``nondiff_outputs``.
* ``attr_types`` / ``attr_ranges``  each attribute's type and bounds
               (``ops/attr_types.py``): derived from the default where it is
               unambiguous, declared otherwise. Loaders check every attribute
               read from a file against them (``graph/verify.py``).
* ``promote``  names of the inputs an elementwise op computes in one dtype
               (``framework.dtype.result_type``); both modes cast them to it
               before the kernel runs (``ops/promotion.py``), so kernels,
               grad rules and ``infer_meta`` see a single dtype.
* ``onnx(g, *inputs, *attrs)``  the op's ONNX lowering (``@op.def_onnx``):
               inputs arrive as ONNX value names (a list for a variadic input,
               None for a missing optional one), ``g`` is the graph being built
               (``framework/onnx/graph.py``); returns the output value name(s)
               as the kernel returns arrays. Only ``framework.onnx`` calls it.
* ``sub_blocks`` the attributes holding the indices of the sub-blocks a
               control-flow op runs (``cond``'s branches, ``while``'s body);
               empty for every other op. Such an op has no numpy kernel: it
               is declared with ``def_block_op`` and brings the hooks the
               static side runs instead (``emit`` for the code generator,
               ``block_grad`` for static backward, ``block_rules`` for the
               verifier); see
               ``graph/control_flow.py``. Its sub-blocks are found from this
               declaration, never from attribute names (``graph/sub_blocks.py``).
* ``kernels``  ``{backend: kernel}``: ``'numpy'`` is the reference every
               other backend's kernel (``@op.def_kernel(name)``) is tested
               against on the op's test cases. A backend kernel has the numpy
               kernel's signature and returns ``NotImplemented`` for calls it
               does not cover (a dtype, a shape, an attribute), which then run
               on numpy. ``kernel`` is what runs: the numpy kernel, or, while
               a backend is active (``use_backend``, ``ops/backends.py``),
               the backend's kernel falling back to numpy.
* ``layout_kernels``  ``{backend: LayoutKernel}``
               (``@op.def_layout_kernel``): the kernel a static plan on that
               backend calls where the layout pass (``graph/passes/layout.py``)
               lets the op read inputs ``takes`` and leave outputs ``gives`` in
               the backend's own memory layout (``backends.Opaque`` values),
               and ``applies(op, block)`` says the op's attributes and shapes
               allow it. It has the kernel's signature plus ``keep`` (the
               outputs it may leave opaque) and may decline like a backend
               kernel: the op's kernel then runs on plain arrays.
* what the op *is* (``ops/properties.py``): ``pattern`` (elementwise /
               broadcast / reduce / view / opaque), ``effects`` (random,
               stateful, io, collective, callback), ``ufunc``/``ufunc_on``,
               ``identity``, ``passthrough``, ``kernel_into``, ``fresh``,
               ``inference`` (the op's inference form), the AMP class
               (``amp``, ``amp_inputs``, ``paddle_names``, ``amp_names``,
               ``amp_rule``), ``flops`` and the code generator's ``lean``
               specializer (``@op.def_lean``). Passes, the code generator,
               the verifier, auto_cast and ``paddle.flops`` read these; nothing
               outside the op keeps a table of op names.

Calling an OpDef (``op(*inputs, *attrs)``) dispatches to whichever mode is
active (``ops/modes.py``: the modes install their handlers there, so this
module depends on neither).
"""
import collections
import contextlib
import contextvars
import inspect
import threading

import numpy as np

from .. import backends as _backends
from . import attr_types as _attr_types
from . import properties as _props
from .modes import handlers as _handlers
from .modes import in_static_mode

_OPS = {}

# the calling thread's auto_cast region (framework.amp), or None: called as
# amp(op, args) instead of the op, it casts the inputs and runs the op. Per
# thread, so DataLoader workers keep their dtypes while training auto-casts.
_autocast = contextvars.ContextVar('framework_autocast', default=None)
autocast_state = _autocast.get
# auto_cast regions open in any thread: while there are none, OpDef.__call__
# does not look at _autocast at all (eager dispatch is the hot path)
_autocast_regions = 0
_autocast_lock = threading.Lock()
# True while any region is open: shortcuts around OpDef.__call__ (the Tensor
# operators of ops/tensor_methods.py) must then go through it
autocast_open = False


@contextlib.contextmanager
def autocasting(state):
    """Run ops inside under ``state`` (an amp AutocastState), or with auto_cast
    suspended for None, in this thread."""
    token = _autocast.set(state)
    if state is not None:
        _count_region(1)
    try:
        yield
    finally:
        _autocast.reset(token)
        if state is not None:
            _count_region(-1)


def _count_region(delta):
    """Swap the autocasting __call__ in while a region is open anywhere."""
    global _autocast_regions, autocast_open
    with _autocast_lock:
        _autocast_regions += delta
        autocast_open = bool(_autocast_regions)
        OpDef.__call__ = _call_autocasting if autocast_open else _call


def autocast_suspended():
    """Run ops in the dtypes they are given, even inside an auto_cast region
    (backward and optimizer updates: they follow the forward values' dtypes)."""
    return autocasting(None)


# the kernel backend ops run on (ops/backends.py switches it): one per process,
# like Paddle's FLAGS_use_mkldnn
_active_backend = ['numpy']


class LayoutKernel(collections.namedtuple('LayoutKernel', 'fn takes gives drops applies')):
    """An op's layout kernel on one backend (``OpDef.def_layout_kernel``)."""
    __slots__ = ()


def use_backend(name):
    """Run every op on backend ``name`` where it has a kernel there (numpy
    elsewhere); ``'numpy'`` runs the reference kernels only."""
    _active_backend[0] = name
    for op in _OPS.values():
        op._select_kernel()


def active_backend():
    return _active_backend[0]


def _falling_back(fast, reference):
    """The kernel that runs ``fast`` and, where it declines (returns
    ``NotImplemented``), ``reference``."""
    def kernel(*args):
        out = fast(*args)
        return reference(*args) if out is NotImplemented else out
    # what the numpy kernel carries (float_kernel, __wrapped__) stays reachable
    kernel.__dict__.update(getattr(reference, '__dict__', {}))
    kernel.__name__ = getattr(reference, '__name__', 'kernel')
    kernel.backend = fast
    return kernel


class OpError(ValueError):
    """A clear, user-facing error about an op's arguments."""


class OpDef:
    __slots__ = ('name', 'input_names', 'variadic', 'optional', 'output_names',
                 'attr_names', 'attr_defaults', 'n_in', 'n_out', 'n_attrs',
                 'kernel', 'infer_meta', 'grad', '_fast_grad', 'differentiable',
                 'no_grad_inputs', 'nondiff_outputs', 'reserve_outputs', 'random', 'inplace_map',
                 'save_inputs', 'doc', 'test_cases', 'eager_fn', 'variadic_out',
                 'value_from_meta', 'promote', 'attr_types', 'attr_ranges',
                 'undeclared_attrs', 'onnx', 'output_variadic', 'sub_blocks', 'emit',
                 'block_grad', 'block_rules', 'plain_fast_grad', 'kernels', '_composed',
                 'layout_kernels', 'keeps_missing_grads',
                 # what the op is (ops/properties.py)
                 'pattern', 'effects', 'ufunc', 'ufunc_on', 'identity', 'passthrough',
                 'kernel_into', 'fresh', 'inference', 'amp', 'amp_inputs', 'paddle_names',
                 'amp_names', 'amp_rule', 'flops', 'lean')

    def __init__(self, name, kernel, infer_meta, inputs, outputs, attrs,
                 grad=None, fast_grad=None, differentiable=True,
                 no_grad_inputs=(), nondiff_outputs=(), reserve_outputs=(),
                 inplace_map=None, save_inputs=True, value_from_meta=None, promote=(),
                 attr_types=None, attr_ranges=None, sub_blocks=(), emit=None,
                 block_grad=None, block_rules=None, pattern=_props.UNDECLARED, effects=(),
                 ufunc=_props.UNDECLARED, ufunc_on='any', identity=_props.UNDECLARED,
                 passthrough=_props.UNDECLARED, kernel_into=None, fresh=None, inference=None,
                 amp='gray', amp_inputs=None, paddle_names=(), amp_names=None, amp_rule=None,
                 flops=_props.UNDECLARED):
        self.name = name
        self.input_names = tuple(n.rstrip('*?') for n in inputs)
        self.variadic = tuple(n.endswith('*') for n in inputs)
        self.optional = tuple(n.endswith('?') for n in inputs)
        # A single output named 'outs*' is variadic: the kernel returns a list
        # whose length the attrs/inputs decide (split, unbind). Then n_out is 0
        # and grad rules get the output grads and the outputs as two lists.
        self.variadic_out = len(outputs) == 1 and outputs[0].endswith('*')
        self.output_names = tuple(n.rstrip('*') for n in outputs)
        self.attr_names = tuple(attrs)
        self.attr_defaults = tuple(attrs.values())
        self.n_in = len(inputs)
        self.n_out = 0 if self.variadic_out else len(outputs)
        self.n_attrs = len(attrs)
        try:
            self.attr_types, self.undeclared_attrs = _attr_types.resolve(
                self.attr_names, self.attr_defaults, dict(attr_types or {}))
        except ValueError as e:
            raise ValueError("op '%s': %s" % (name, e)) from None
        self.attr_ranges = dict(attr_ranges or {})
        unknown = set(self.attr_ranges) - set(self.attr_names)
        if unknown:
            raise ValueError("op '%s': attr_ranges names attributes it does not have: %s"
                             % (name, ', '.join(sorted(unknown))))
        self.kernel = kernel
        self.kernels = {'numpy': kernel}
        # backend -> its kernel with the numpy fallback; (backend, keep) -> the
        # layout kernel with the plain fallback
        self._composed = {}
        self.layout_kernels = {}  # backend -> LayoutKernel (def_layout_kernel)
        self.infer_meta = infer_meta
        self.no_grad_inputs = frozenset(no_grad_inputs)
        self.grad = self._adapt(grad)
        self.fast_grad = self._adapt(fast_grad)
        self.differentiable = differentiable and grad is not None
        self.nondiff_outputs = frozenset(nondiff_outputs)
        self.reserve_outputs = frozenset(reserve_outputs)
        if not self.reserve_outputs <= self.nondiff_outputs:
            raise ValueError("op '%s': reserve_outputs must be nondiff_outputs: %s"
                             % (name, ', '.join(sorted(self.reserve_outputs -
                                                       self.nondiff_outputs))))
        # {output_name: input_name} for ops whose output overwrites an input
        # (batch_norm's running statistics); static mode reuses the variable.
        self.inplace_map = dict(inplace_map or {})
        self.save_inputs = save_inputs
        # for ops whose value depends only on input shapes (shape, numel):
        # value_from_meta(*in_metas, *attrs) -> the output array, so the value
        # is known while a program is built even when the inputs' values are not
        self.value_from_meta = value_from_meta
        # indices of the inputs cast to their promoted dtype, or None
        self.promote = tuple(self.input_names.index(n) for n in promote) or None
        self.doc = kernel.__doc__
        self.test_cases = []
        self.eager_fn = None
        self.onnx = None
        # which outputs are lists (control-flow ops have several list outputs)
        self.output_variadic = tuple(n.endswith('*') for n in outputs)
        # ops running sub-blocks (def_block_op): the attrs holding the block
        # indices, and the static hooks that take the place of the kernel
        unknown = set(sub_blocks) - set(self.attr_names)
        if unknown:
            raise ValueError("op '%s': sub_blocks names attributes it does not have: %s"
                             % (name, ', '.join(sorted(unknown))))
        self.sub_blocks = tuple(sub_blocks)
        self.emit = emit
        self.block_grad, self.block_rules = block_grad, block_rules
        self.lean = None
        self._declare(pattern, effects, ufunc, ufunc_on, identity, passthrough, kernel_into,
                      fresh, inference, amp, amp_inputs, paddle_names, amp_names, amp_rule,
                      flops)

    def _declare(self, pattern, effects, ufunc, ufunc_on, identity, passthrough, kernel_into,
                 fresh, inference, amp, amp_inputs, paddle_names, amp_names, amp_rule, flops):
        """Check and set what the op is (``ops/properties.py``)."""
        try:
            _props.check(self, pattern, effects, ufunc_on, amp, amp_inputs, identity,
                         passthrough)
        except ValueError as e:
            raise ValueError("op '%s': %s" % (self.name, e)) from None
        self.pattern = pattern
        self.effects = frozenset(effects)
        self.random = 'random' in self.effects
        self.ufunc, self.ufunc_on, self.identity = ufunc, ufunc_on, identity
        self.passthrough = passthrough
        u = _props.value(ufunc)
        if kernel_into is None and u is not None and not self.n_attrs:
            kernel_into = _props.ufunc_kernel_into(u, self.n_in, ufunc_on)
        self.kernel_into = kernel_into
        self.fresh = pattern in _props.FRESH_PATTERNS if fresh is None else bool(fresh)
        self.inference = inference
        self.amp = amp
        self.amp_inputs = (tuple(self.input_names.index(n) for n in amp_inputs)
                           if amp_inputs else None)
        self.paddle_names = tuple(paddle_names)
        self.amp_names, self.amp_rule = amp_names, amp_rule
        self.flops = flops
        # backward of a multi-output op gets zeros for outputs nothing
        # differentiated, unless keeps_missing_grads(*attrs) says to pass None
        # (a PyLayer after ctx.set_materialize_grads(False))
        self.keeps_missing_grads = None

    @property
    def pure(self):
        """No effects: running it twice, earlier, or not at all (when nothing
        reads it) changes nothing but its outputs."""
        return not self.effects

    @property
    def kept(self):
        """Has effects that make it run even when nothing reads its outputs."""
        return not self.effects.isdisjoint(_props.KEPT_EFFECTS)

    def __call__(self, *args):
        """Run (eager) or append (static) the op: ``op(*inputs, *attrs)``."""
        if in_static_mode():
            return _handlers.static_append(self, args)
        fn = self.eager_fn
        if fn is None:   # specialised once, on first eager use
            fn = self.eager_fn = _handlers.make_eager(self)
        return fn(*args)

    def split_args(self, args):
        """(inputs, attrs) from positional args, filling attr defaults."""
        n = self.n_in
        ins = args[:n]
        attrs = args[n:]
        if len(attrs) < self.n_attrs:
            attrs = attrs + self.attr_defaults[len(attrs):]
        elif len(attrs) > self.n_attrs:
            raise OpError("op '%s' takes %d inputs and %d attributes, got %d arguments"
                          % (self.name, n, self.n_attrs, len(args)))
        return ins, attrs

    def check_attr(self, name, value, inputs):
        """Raise ``attr_types.AttrTypeError`` (a ValueError) unless ``value``
        fits attribute ``name``'s type and range; ``inputs`` maps each input
        name to the number of tensors given (for references into them)."""
        _attr_types.check(self.attr_types[name], value, inputs, self.attr_ranges.get(name))

    def def_grad(self, fn):
        """Decorator: set the grad rule (written with registered ops)."""
        self.grad = self._adapt(fn)
        self.differentiable = True
        return fn

    def def_fast_grad(self, fn):
        """Decorator: set the fused numpy first-order grad."""
        self.fast_grad = self._adapt(fn)
        return fn

    @property
    def fast_grad(self):
        """The fused numpy first-order grad, or None."""
        return self._fast_grad

    @fast_grad.setter
    def fast_grad(self, fn):
        self._fast_grad = fn
        # what the eager engine may call on its inlined path: one output and
        # no list inputs (so each input has one edge), except lists that get
        # no gradient (getitem's index tensors)
        plain = self.n_out == 1 and all(not v or name in self.no_grad_inputs
                                        for name, v in zip(self.input_names, self.variadic))
        self.plain_fast_grad = fn if plain else None

    def def_onnx(self, fn):
        """Decorator: set the ONNX lowering (see the module docstring)."""
        self.onnx = fn
        return fn

    def def_kernel(self, backend):
        """Decorator: the op's kernel for ``backend`` (``'numpy'`` is the
        reference, set by ``def_op``); same signature as the numpy kernel,
        returning ``NotImplemented`` where it does not apply."""
        if backend == 'numpy':
            raise ValueError("op '%s': the numpy kernel is the one def_op declares" % self.name)

        def register(fn):
            self.kernels[backend] = fn
            self._select_kernel()
            return fn
        return register

    def def_layout_kernel(self, backend, takes, gives=(), drops=(), applies=None):
        """Decorator: the op's layout kernel on ``backend`` (see the module
        doc): ``fn(*args, keep)``; ``takes``/``gives`` name inputs/outputs,
        ``drops`` the outputs it does not compute (None: the pass uses it only
        where nothing reads them), ``applies(op, block)`` (default: always) is
        asked by the layout pass."""
        unknown = (set(takes) - set(self.input_names)) | (
            set(gives) - set(self.output_names)) | (set(drops) - set(self.output_names))
        if unknown:
            raise ValueError("op '%s': a layout kernel names no such input or output: %s"
                             % (self.name, ', '.join(sorted(unknown))))

        def register(fn):
            self.layout_kernels[backend] = LayoutKernel(fn, tuple(takes), tuple(gives),
                                                        tuple(drops),
                                                        applies or (lambda op, block: True))
            return fn
        return register

    def layout_kernel_for(self, backend, keep):
        """What a static plan calls for this op on ``backend`` where the
        layout pass marked it: the layout kernel leaving outputs ``keep``
        opaque, or where it declines, the op's kernel on plain arrays."""
        fast = self.layout_kernels[backend].fn
        fallback = self.kernel_for(backend)
        keep = frozenset(keep)
        key = (backend, keep)
        kernel = self._composed.get(key)
        if kernel is not None and kernel.backend is fast and kernel.fallback is fallback:
            return kernel

        def kernel(*args):
            out = fast(*args, keep=keep)
            if out is NotImplemented:
                out = fallback(*[_backends.plain(a) for a in args])
            return out
        kernel.__name__ = '%s_layout' % self.name
        kernel.backend, kernel.fallback = fast, fallback
        self._composed[key] = kernel
        return kernel

    def kernel_for(self, backend):
        """What runs on ``backend``: its kernel, falling back to numpy where it
        declines; the numpy kernel where the op has none there."""
        fast = self.kernels.get(backend)
        if fast is None or backend == 'numpy':
            return self.kernels['numpy']
        composed = self._composed.get(backend)
        if composed is None or composed.backend is not fast:
            composed = self._composed[backend] = _falling_back(fast, self.kernels['numpy'])
        return composed

    def _select_kernel(self):
        """Point ``kernel`` at the active backend's; eager functions made
        from the old one are dropped."""
        self.kernel = self.kernel_for(_active_backend[0])
        self.eager_fn = None

    def def_lean(self, fn):
        """Decorator: the code generator's specializer ``fn(call) -> Lean or
        None`` (``graph/lean.py``: the numpy call a plan makes instead of the
        kernel call when the Program's dtypes and shapes allow)."""
        self.lean = fn
        return fn

    def _adapt(self, fn):
        """For a variadic output, callers pass ``*grads, *inputs, *outputs,
        *attrs`` flat; the rule receives ``grads`` and ``outputs`` as lists."""
        if fn is None or not self.variadic_out:
            return fn
        n_in, n_attrs = self.n_in, self.n_attrs

        def rule(*args):
            k = (len(args) - n_in - n_attrs) // 2
            return fn(list(args[:k]), *args[k:k + n_in],
                      list(args[k + n_in:2 * k + n_in]), *args[2 * k + n_in:])
        rule.__wrapped__ = fn
        return rule


    def __repr__(self):
        return "<op %s(%s; %s) -> %s>" % (self.name, ', '.join(self.input_names),
                                          ', '.join(self.attr_names),
                                          ', '.join(self.output_names))


def def_block_op(name, inputs, outputs, attrs, sub_blocks, emit, doc,
                 block_grad=None, block_rules=None, attr_types=None, inference=None):
    """Declare an op that runs sub-blocks of a Program (``cond``, ``while``).

    It has no numpy kernel: the code generator calls ``emit(code, op)``,
    static backward ``block_grad(block, op, grads, reach)`` (None: no
    gradient); ``block_rules`` tells the verifier how the sub-blocks run
    (``graph/verify.py``). ``sub_blocks`` lists the attrs holding block
    indices. Called like a kernel op, it raises an ``OpError`` naming the
    API that builds it (``doc``'s first line).
    """
    def outside_a_program(*args):
        raise OpError("op '%s' runs sub-blocks of a static Program and cannot be called "
                      "directly: %s" % (name, doc.strip().splitlines()[0]))
    op = OpDef(name, outside_a_program, outside_a_program, inputs, outputs, attrs,
               differentiable=False, attr_types=attr_types, sub_blocks=sub_blocks, emit=emit,
               block_grad=block_grad, block_rules=block_rules, pattern='opaque',
               amp='never', inference=inference)
    op.doc = doc
    return _register(op)


def _register(op):
    if op.name in _OPS:
        raise RuntimeError("op '%s' registered twice" % op.name)
    _OPS[op.name] = op
    return op


def _signature(kernel):
    """Inputs are parameters without defaults, attrs the ones with defaults."""
    ins, attrs = [], {}
    for p in inspect.signature(kernel).parameters.values():
        if p.default is inspect.Parameter.empty:
            ins.append(p.name)
        else:
            attrs[p.name] = p.default
    return ins, attrs


def def_op(name, infer_meta, inputs=None, outputs=('out',), attrs=None, grad=None,
           fast_grad=None, **options):
    """Decorator declaring an op from its numpy kernel.

    Without ``inputs``/``attrs`` the kernel's signature decides: parameters
    without a default are inputs, the rest attributes (their defaults too).
    Returns the ``OpDef``; use ``@op.def_grad`` to attach the grad rule.
    """
    def wrap(kernel):
        sig_ins, sig_attrs = _signature(kernel)
        op = OpDef(name, kernel, infer_meta,
                   inputs if inputs is not None else sig_ins,
                   outputs,
                   attrs if attrs is not None else sig_attrs,
                   grad=grad, fast_grad=fast_grad, **options)
        return _register(op)
    return wrap


_call = OpDef.__call__


def _call_autocasting(self, *args):
    """OpDef.__call__ while an auto_cast region is open in some thread (see
    autocasting): ops of a thread inside one go to its state, which casts the
    inputs and runs the op with the region suspended."""
    amp = autocast_state()
    if amp is not None:
        return amp(self, args)
    return _call(self, *args)


def lookup(name):
    try:
        return _OPS[name]
    except KeyError:
        raise OpError("unknown op type '%s'" % name) from None


def has_op(name):
    return name in _OPS


def op_count():
    """How many ops are registered (ops are never removed: a cache of a scan
    over the registry is valid while this is unchanged)."""
    return len(_OPS)


def all_ops():
    return dict(_OPS)


def add_test_case(op, *args, **options):
    """Attach a test case for the registry-generated op tests
    (``tests/test_ops_generated.py``, checks in ``tests/op_check.py``).

    ``args`` are numpy inputs then attrs, as the kernel takes them. Options:
    ``ref=fn`` (required) the numpy reference the eager forward is compared
    with, called with ``args``; ``rtol``/``atol`` its tolerances;
    ``grad=False`` to skip the gradient checks, ``double_grad=False`` only the
    grad-of-grad one; ``grad_inputs=(i, ...)`` which inputs to check
    gradients for (default: the float inputs not in ``no_grad_inputs``),
    ``grad_outputs=(k, ...)`` which outputs get cotangents,
    ``grad_rtol``/``grad_atol`` the finite-difference tolerances;
    ``grad_error=regex`` for an op whose gradient is a clear error (the
    gradient checks then expect an ``OpError`` matching it, in both modes);
    ``symmetric=(i, ...)`` inputs that are symmetric (Hermitian) matrices;
    ``dtype_invariant=False`` when the values depend on the inputs' bit layout
    (dtype views, logical shifts), so the dtype sweep compares only dtypes and
    shapes.
    Ops that run sub-blocks (``def_block_op``) have no kernel to check here;
    the control-flow tests cover them.
    """
    op.test_cases.append((args, options))


class Meta:
    """Static shape/dtype of a value: shape is a tuple with -1 for unknown."""
    __slots__ = ('shape', 'dtype')

    def __init__(self, shape, dtype):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    def __repr__(self):
        return "Meta(%s, %s)" % (list(self.shape), self.dtype)

    def __eq__(self, other):
        return (isinstance(other, Meta) and self.shape == other.shape
                and self.dtype == other.dtype)

    __hash__ = None
