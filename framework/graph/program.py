"""The static IR: Program -> Block -> Operator / Variable.

Plain Python objects and the only source of truth for static mode. Ops refer
to variables by name; control-flow ops hold sub-block indices in their
attributes. Every mutation bumps ``Program._version`` so the executor can cache
compiled plans per version.

Building an op goes through the op registry (``static_append``): the op's
``infer_meta`` computes the output Variables at build time, so shape and dtype
errors are reported then, naming the op and the shapes.
"""
import collections
import contextlib
import contextvars
import itertools

import numpy as np

from .. import dtype as _dt
from .. import random as _random
from .._location import user_location
from ..dense_tensor import LOD_TENSOR_KIND
from ..ops import modes, registry
from ..ops.grad_utils import scalar_array
from ..size import Size
from ..ops.promotion import is_number, promote_inputs
from ..ops.registry import OpError

_SCALARS = (bool, int, float)


class _NameGen:
    """Unique names per program: ``<prefix>_<n>``, skipping names the program
    already has (a loaded or cloned program starts its counters at 0)."""

    def __init__(self, program=None):
        self.counters = collections.defaultdict(itertools.count)
        self.program = program

    def __call__(self, prefix):
        while True:
            name = '%s_%d' % (prefix, next(self.counters[prefix]))
            if self.program is None or not any(name in b.vars for b in self.program.blocks):
                return name


class Variable:
    """A named value in a Block: shape (-1 = unknown), dtype and flags."""
    __array_priority__ = 1000
    __array_ufunc__ = None
    # the value when it is known while the program is built (computed from
    # constants only, see _fold_constants); None otherwise
    _value = None
    # a cond output whose rank depends on the branch taken: where it comes from
    # (control_flow.make_cond_op); None for a value of one rank
    _mixed_rank = None

    def __init__(self, block, name, shape=(), dtype='float32', persistable=False,
                 stop_gradient=False, is_parameter=False, is_data=False):
        self.block = block
        self.name = name
        self._shape = tuple(int(s) if s is not None else -1 for s in shape)
        self.dtype = _dt.convert_dtype(dtype)
        self.persistable = persistable
        self._stop_gradient = bool(stop_gradient)
        # True when the user set stop_gradient=True on this variable: static
        # backward then treats it as a constant (data variables start with
        # stop_gradient=True, so the flag alone cannot say that)
        self.blocks_grad = False
        self.is_parameter = is_parameter
        self.is_data = is_data
        # parameter attributes (optimizers read them as they do on eager Parameters)
        self.trainable = not stop_gradient
        self.optimize_attr = {'learning_rate': 1.0}
        self.regularizer = None
        self.need_clip = True

    @property
    def shape(self):
        return Size(self._shape)

    @property
    def known_value(self):
        """The value when it is known while the program is built (computed
        from constants and known shapes only), else None. Read-only."""
        return self._value

    def relax_shape(self, shape):
        """Give this Variable ``shape``, whose -1 dims stand for dims known
        only at run time; its build-time value (of fixed dims) is dropped."""
        self._shape = tuple(int(d) for d in shape)
        self._value = None

    def get_value(self, scope=None):
        """The value of this persistable variable in ``scope`` (a Tensor)."""
        from .state import scope_of, var_value
        program = self.block.program
        t = modes.handlers.make_tensor(
            var_value(program, self.name, scope_of(scope, 'Variable.get_value'),
                      'Variable.get_value'), None, True)
        t.name = self.name
        return t

    def set_value(self, value, scope=None):
        """Set this persistable variable's value in ``scope`` (shape and dtype
        must match)."""
        from .state import scope_of, set_var_value
        set_var_value(self.block.program, self, value, scope_of(scope, 'Variable.set_value'),
                      'Variable.set_value')

    @property
    def stop_gradient(self):
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value):
        self._stop_gradient = bool(value)
        self.blocks_grad = bool(value)

    @property
    def ndim(self):
        return len(self._shape)

    def dim(self):
        return len(self._shape)

    ndimension = dim

    @property
    def size(self):
        n = 1
        for d in self._shape:
            if d < 0:
                return -1
            n *= d
        return n

    def numel(self):
        return self.size

    @property
    def type(self):
        return LOD_TENSOR_KIND

    def _inplace_update(self, result):
        """An in-place op in static mode (``x[i] = v``, ``x.add_(y)``): this
        Python object stands for ``result`` from now on, as an eager tensor
        would. Names stay single-assignment: ``result`` is a new variable and
        the ops built before keep reading the old one. A persistable variable
        (a parameter, a buffer) is written instead, so the write lasts."""
        if self.persistable:
            return self._write_persistable(result)
        program = self.block.program
        program._note_rebind(self)
        old = type(self).__new__(type(self))
        old.__dict__.update(self.__dict__)
        old.block.vars[old.name] = old
        self.__dict__.clear()
        self.__dict__.update(result.__dict__)
        self.block.vars[self.name] = self
        return self

    # Paddle's ``x._inplace_assign(y)`` (x takes over y, whatever its shape)
    _inplace_assign = _inplace_update

    def _write_captured(self, tensor):
        """``t[i] = v`` on an eager tensor used while a program is built (a
        parameter or buffer written inside ``@to_static``): this result is
        written into the tensor's variable, so running the program updates
        the tensor, as the eager write would."""
        return capture_tensor(tensor)._write_persistable(self)

    def _write_persistable(self, result):
        """Make the op computing ``result`` write this persistable variable:
        the executor stores it back (into the parameter), later ops read the
        new value, and backward treats the write as a plain assignment of a
        new value to the parameter (Paddle's rule: no gradient through it)."""
        op = result.block._rename_output(result, self)
        op.attrs['op_stop_gradient'] = True
        self._value = None
        return self

    def __repr__(self):
        return 'var %s : %s%s%s' % (self.name, self.dtype, list(self._shape),
                                    ' (persistable)' if self.persistable else '')

    __str__ = __repr__
    __hash__ = object.__hash__

    def __bool__(self):
        if self._value is not None and self._value.size == 1:
            return bool(self._value)
        raise TypeError(
            "the truth value of static Variable '%s' is unknown until the program "
            "runs; use static.nn.cond / while_loop (or @to_static, which converts "
            "Python if/while on tensors)" % self.name)

    def __len__(self):
        if not self._shape or self._shape[0] < 0:
            raise TypeError("len() of Variable '%s' with unknown first dim %s"
                            % (self.name, list(self._shape)))
        return self._shape[0]

    def __iter__(self):
        """Unpacking (``a, b = paddle.shape(x)``) works when the first dim is known."""
        if not self._shape or self._shape[0] < 0:
            raise TypeError("cannot iterate over static Variable '%s' of shape %s in Python: "
                            "its first dim is not known; use static.nn.while_loop or a loop "
                            "in a @to_static function" % (self.name, list(self._shape)))
        return (self[i] for i in range(self._shape[0]))

    def numpy(self):
        return np.array(build_time_value(self, 'numpy()', 'the tensor'))

    def item(self, *args):
        value = build_time_value(self, 'item()', 'the tensor')
        return value.item(*args)

    def tolist(self):
        return build_time_value(self, 'tolist()', 'the tensor').tolist()

    def __int__(self):
        return int(self._scalar_value('int()'))

    def __float__(self):
        return float(self._scalar_value('float()'))

    def __index__(self):
        value = self._scalar_value('an index')
        if value.dtype.kind not in 'iub':
            raise TypeError("Variable '%s' of dtype %s cannot be used as an index"
                            % (self.name, value.dtype))
        return int(value)

    def _scalar_value(self, api):
        value = build_time_value(self, api, 'the tensor')
        if value.size != 1:
            raise TypeError("%s of Variable '%s': only a one-element tensor converts to a "
                            "Python number, its shape is %s" % (api, self.name, list(value.shape)))
        return value.reshape(())

    def astype(self, dtype):
        from ..ops.manipulation import cast
        return cast(self, dtype)

    def detach(self):
        from ..ops.manipulation import assign
        out = assign(self)
        out.stop_gradient = True
        # static backward must not differentiate through this copy (the flag
        # is an op attribute so it survives clone() and serialization)
        producer = default_main_program().current_block().ops[-1]
        if out.name in producer.output_arg_names:
            producer.attrs['op_stop_gradient'] = True
        return out

    def to_meta(self):
        return registry.Meta(self._shape, self.dtype)


class Parameter(Variable):
    """A persistable, trainable Variable whose initializer lives in the startup program."""

    def __init__(self, block, name, shape, dtype='float32', trainable=True, **kw):
        super().__init__(block, name, shape, dtype, persistable=True,
                         stop_gradient=not trainable, is_parameter=True)
        self.trainable = trainable
        self.initializer = kw.get('initializer')

    def __repr__(self):
        return 'param %s : %s%s' % (self.name, self.dtype, list(self._shape))

    __str__ = __repr__


class Operator:
    """One op: its type, named input/output slots of variable names, attributes."""

    def __init__(self, block, type, inputs, outputs, attrs):
        self.block = block
        self.type = type
        self.inputs = collections.OrderedDict((k, list(v)) for k, v in inputs.items())
        self.outputs = collections.OrderedDict((k, list(v)) for k, v in outputs.items())
        self.attrs = dict(attrs)

    def input(self, slot):
        return list(self.inputs.get(slot, []))

    def output(self, slot):
        return list(self.outputs.get(slot, []))

    def attr(self, name):
        return self.attrs.get(name)

    def has_attr(self, name):
        return name in self.attrs

    def _set_attr(self, name, value):
        self.attrs[name] = value
        self.block.program._bump()

    def all_attrs(self):
        return dict(self.attrs)

    @property
    def desc(self):
        """Paddle's OpDesc view (``op.desc.attr(name)``): the operator itself."""
        return self

    @property
    def input_names(self):
        return list(self.inputs)

    @property
    def output_names(self):
        return list(self.outputs)

    @property
    def input_arg_names(self):
        return [n for names in self.inputs.values() for n in names]

    @property
    def output_arg_names(self):
        return [n for names in self.outputs.values() for n in names]

    @property
    def idx(self):
        return self.block.ops.index(self)

    def __repr__(self):
        outs = ', '.join('%s=%s' % (k, v) for k, v in self.outputs.items())
        ins = ', '.join('%s=%s' % (k, v) for k, v in self.inputs.items())
        shown = {k: v for k, v in self.attrs.items() if not k.startswith('op_')}
        attrs = ', '.join('%s=%r' % (k, _short(v)) for k, v in sorted(shown.items()))
        return '{%s} = %s(%s)%s' % (outs, self.type, ins, (' {%s}' % attrs) if attrs else '')

    __str__ = __repr__


def _short(v):
    if isinstance(v, (list, tuple)) and len(v) > 8:
        return '[%d items]' % len(v)
    return v


class Block:
    def __init__(self, program, idx, parent_idx=-1):
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        self.vars = collections.OrderedDict()
        self.ops = []

    @property
    def parent_block(self):
        return self.program.block(self.parent_idx) if self.parent_idx >= 0 else None

    def var(self, name):
        v = self._find_var(name)
        if v is None:
            raise ValueError("variable '%s' is not in block %d or its parents"
                             % (name, self.idx))
        return v

    def has_var(self, name):
        return name in self.vars

    def _find_var(self, name):
        b = self
        while b is not None:
            v = b.vars.get(name)
            if v is not None:
                return v
            b = b.parent_block
        return None

    _var_recursive = var

    def create_var(self, name=None, shape=(), dtype='float32', persistable=False,
                   stop_gradient=False, **kw):
        name = name or self.program._names('tmp')
        v = Variable(self, name, shape, dtype, persistable, stop_gradient,
                     kw.get('is_parameter', False), kw.get('is_data', False))
        self.vars[name] = v
        self.program._bump()
        return v

    def create_parameter(self, name, shape, dtype='float32', trainable=True, **kw):
        p = Parameter(self, name, shape, dtype, trainable, **kw)
        self.vars[name] = p
        self.program._bump()
        return p

    def all_parameters(self):
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def append_op(self, type, inputs=None, outputs=None, attrs=None):
        annotations = _op_annotations.get()
        if annotations:                 # static.name_scope / static.device_guard
            attrs = dict(annotations, **(attrs or {}))
        op = Operator(self, type, inputs or {}, outputs or {}, attrs or {})
        self.ops.append(op)
        self.program._bump()
        return op

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None):
        op = Operator(self, type, inputs or {}, outputs or {}, attrs or {})
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _remove_op(self, index):
        del self.ops[index]
        self.program._bump()

    def _rename_output(self, result, target):
        """Make the op producing ``result`` write ``target`` instead (in place)."""
        for op in reversed(self.ops):
            for slot, names in op.outputs.items():
                if result.name in names:
                    op.outputs[slot] = [target.name if n == result.name else n for n in names]
                    self.vars.pop(result.name, None)
                    self.program._bump()
                    return op
        raise ValueError("no op in block %d produces %s" % (self.idx, result.name))

    def __repr__(self):
        lines = ['block %d (parent %d) {' % (self.idx, self.parent_idx)]
        for v in self.vars.values():
            if v.persistable or v.is_data:
                lines.append('    %r' % v)
        for op in self.ops:
            lines.append('    %r' % op)
        lines.append('}')
        return '\n'.join(lines)


class _SubBlock:
    """What ``Program.sub_block`` built: the block and the values it returns."""
    __slots__ = ('block', 'outputs')

    def __init__(self, block):
        self.block = block
        self.outputs = []


# Program.global_seed's seed: the random_seed of programs made after it
_GLOBAL_SEED = [0]


class Program:
    """A list of Blocks; block 0 is the global block."""

    def __init__(self):
        self.blocks = [Block(self, 0)]
        self.current_block_idx = 0
        self.random_seed = _GLOBAL_SEED[0]
        self._version = 0
        self._names = _NameGen(self)
        self._is_test = False
        # eager tensors captured while building (dy2static parameters): name -> Tensor
        self._captured = collections.OrderedDict()
        # one frame per sub-block being built: [(Variable, its state before)]
        # for the Variables rebound there (see _note_rebind)
        self._rebinds = []

    def global_seed(self, seed=0):
        """Set this program's ``random_seed`` and that of every program made
        after it (Paddle's ``Program.global_seed``)."""
        _GLOBAL_SEED[0] = self.random_seed = int(seed)

    def _bump(self):
        self._version += 1

    def global_block(self):
        return self.blocks[0]

    def block(self, idx):
        return self.blocks[idx]

    def current_block(self):
        return self.blocks[self.current_block_idx]

    @property
    def num_blocks(self):
        return len(self.blocks)

    def _create_block(self, parent_idx=None):
        parent = self.current_block_idx if parent_idx is None else parent_idx
        b = Block(self, len(self.blocks), parent)
        self.blocks.append(b)
        self.current_block_idx = b.idx
        self._bump()
        return b

    def _rollback(self):
        self.current_block_idx = self.current_block().parent_idx

    @property
    def captured_tensors(self):
        """The eager tensors this program reads (dy2static parameters and
        buffers): {variable name: Tensor}, in capture order. The executor reads
        their values when the program runs."""
        return self._captured

    # -- building sub-blocks from outside static/ (dy2static) ------------------------

    @contextlib.contextmanager
    def sub_block(self):
        """Build ops into a new sub-block of the current block (a branch or a
        loop body), then go back to the current block. Variables updated in
        place inside (``x[i] = v``) get their old values back at the end; set
        ``built.outputs`` to what the sub-block returns and read it after the
        ``with``: those values, mapped to objects holding the new ones."""
        built = _SubBlock(self._create_block())
        self._begin_rebinds()
        try:
            yield built
        finally:
            built.outputs = self._end_rebinds(built.outputs)
            self._rollback()

    @contextlib.contextmanager
    def scratch_block(self):
        """Build ops into a throwaway sub-block (to trace what a loop body
        makes of its inputs): the blocks built inside and the in-place updates
        made there are undone at the end."""
        first, prev = len(self.blocks), self.current_block_idx
        self._create_block()
        self._begin_rebinds()
        try:
            yield self.current_block()
        finally:
            self._end_rebinds([])
            del self.blocks[first:]
            self.current_block_idx = prev
            self._bump()

    def build_mark(self):
        """Where building is now (for ``discard_since``)."""
        return len(self.blocks), self.current_block_idx, len(self.current_block().ops)

    def discard_since(self, mark):
        """Forget the blocks and the current block's ops built since ``mark``
        (``build_mark()``) and go back to the block current then."""
        blocks, current, ops = mark
        del self.blocks[blocks:]
        self.current_block_idx = current
        del self.current_block().ops[ops:]
        self._bump()

    # -- in-place updates while a sub-block is built ---------------------------------
    # ``x[i] = v`` inside a branch or loop body rebinds the Python object ``x``
    # to a variable of that sub-block. Other code (the other branch, the code
    # after the if) must still see the value from before; the new value leaves
    # the sub-block only as one of its outputs (dy2static carries ``x``).

    def _begin_rebinds(self):
        self._rebinds.append([])

    def _note_rebind(self, var):
        if self._rebinds and all(v is not var for v, _ in self._rebinds[-1]):
            self._rebinds[-1].append((var, dict(var.__dict__)))

    def _end_rebinds(self, values):
        """Undo the rebinds of the sub-block being finished; ``values`` (what
        it returns) are mapped to objects holding the new values."""
        final = {}
        for var, state in reversed(self._rebinds.pop()):
            now = type(var).__new__(type(var))
            now.__dict__.update(var.__dict__)
            now.block.vars[now.name] = now
            var.__dict__.clear()
            var.__dict__.update(state)
            var.block.vars[var.name] = var
            final[id(var)] = now
        return [final.get(id(v), v) for v in values]

    def list_vars(self):
        for b in self.blocks:
            yield from b.vars.values()

    def var(self, name):
        """The Variable named ``name`` in any block (names are unique
        program-wide); ValueError if there is none."""
        for b in self.blocks:
            v = b.vars.get(name)
            if v is not None:
                return v
        raise ValueError("variable '%s' is not in the program" % name)

    def all_parameters(self):
        return [v for b in self.blocks for v in b.vars.values() if isinstance(v, Parameter)]

    def state_dict(self, mode='all', scope=None):
        """{name: Tensor} of the persistable variables' values in ``scope`` (the
        global scope by default): ``mode`` 'param' the parameters, 'opt' the
        optimizer's variables, 'all' both. Run the startup program first.

        >>> import framework as paddle
        >>> paddle.enable_static()
        >>> main, startup = paddle.static.Program(), paddle.static.Program()
        >>> with paddle.static.program_guard(main, startup):
        ...     x = paddle.static.data('x', [None, 2])
        ...     y = paddle.static.nn.fc(x, 3)
        >>> exe = paddle.static.Executor()
        >>> _ = exe.run(startup)
        >>> sorted(t.shape for t in main.state_dict('param').values())
        [paddle.Size([2, 3]), paddle.Size([3])]
        >>> paddle.disable_static()
        """
        from .state import program_state_dict
        return program_state_dict(self, mode, scope)

    def set_state_dict(self, state_dict, scope=None):
        """Load ``state_dict`` (name -> Tensor/ndarray) into the variables of
        this program in ``scope``; entries it cannot use are skipped with a
        warning, as in Paddle."""
        from .state import set_program_state
        set_program_state(self, state_dict, scope)

    def clone(self, for_test=False):
        """A deep copy; ``for_test`` drops backward/optimizer ops and switches
        dropout and batch_norm to inference."""
        from . import serialize
        p = serialize.program_from_dict(serialize.program_to_dict(self))
        p.random_seed = self.random_seed
        p._captured = collections.OrderedDict(self._captured)
        p._names.counters = self._names.counters.copy()
        if for_test:
            _make_inference(p)
        return p

    def __repr__(self):
        return '\n'.join(repr(b) for b in self.blocks)

    __str__ = __repr__

    def to_string(self, throw_on_error=False, with_details=False):
        return repr(self)


TRAINING_ROLES = ('backward', 'optimize', 'lr_sched')


def _inference_op(block, op):
    """The inference form of ``op``: what its OpDef's ``inference`` rule makes
    of it (dropout becomes scale, batch norm reads its running statistics),
    with any ``is_test`` attribute set."""
    opdef = registry.lookup(op.type) if registry.has_op(op.type) else None
    if opdef is not None and opdef.inference is not None:
        form = opdef.inference(dict(op.inputs), dict(op.outputs), dict(op.attrs))
        if form is not None:
            op = Operator(block, *form)
    if 'is_test' in op.attrs:
        op.attrs['is_test'] = True
    return op


def _make_inference(program, drop_training_ops=True):
    """Switch ``program`` to inference; ``drop_training_ops`` also removes the
    backward/optimizer ops (an exported program was pruned to its fetches
    instead, which keeps grads the forward itself computes with paddle.grad)."""
    for b in program.blocks:
        ops = []
        for op in b.ops:
            if drop_training_ops and op.attrs.get('op_role', 'forward') in TRAINING_ROLES:
                continue
            ops.append(_inference_op(b, op))
        b.ops = ops
    program._is_test = True
    program._bump()


# ---- default programs and guards ---------------------------------------------

_main = contextvars.ContextVar('framework_main_program', default=None)
_startup = contextvars.ContextVar('framework_startup_program', default=None)
_op_role = contextvars.ContextVar('framework_op_role', default='forward')
_PROCESS_PROGRAMS = (Program(), Program())    # what unguarded threads build into


class _ThreadDefaults:
    """The calling thread's default programs and op role. Guards change them
    for that thread only (two threads can build two programs at once); a
    thread that never set one shares the process-wide default programs."""
    __slots__ = ()

    @property
    def main(self):
        program = _main.get()
        return _PROCESS_PROGRAMS[0] if program is None else program

    @main.setter
    def main(self, program):
        _main.set(program)

    @property
    def startup(self):
        program = _startup.get()
        return _PROCESS_PROGRAMS[1] if program is None else program

    @startup.setter
    def startup(self, program):
        _startup.set(program)

    @property
    def op_role(self):
        return _op_role.get()

    @op_role.setter
    def op_role(self, role):
        _op_role.set(role)


_Defaults = _ThreadDefaults()


def default_main_program():
    return _Defaults.main


def default_startup_program():
    return _Defaults.startup


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Build ops into ``main_program`` (and initializers into ``startup_program``)."""
    if not isinstance(main_program, Program):
        raise TypeError("program_guard: main_program must be a static.Program, got %s"
                        % type(main_program).__name__)
    main_token = _main.set(main_program)
    startup_token = _startup.set(startup_program) if startup_program is not None else None
    try:
        yield
    finally:
        if startup_token is not None:
            _startup.reset(startup_token)
        _main.reset(main_token)


# attributes every appended op gets: {'op_namescope': '/a/b/', 'op_device': 'gpu:0'}
_op_annotations = contextvars.ContextVar('framework_op_annotations', default={})


@contextlib.contextmanager
def op_annotation(key, value):
    """Ops appended inside get attribute ``key`` = ``value`` (None: removed)."""
    current = dict(_op_annotations.get())
    if value is None:
        current.pop(key, None)
    else:
        current[key] = value
    token = _op_annotations.set(current)
    try:
        yield
    finally:
        _op_annotations.reset(token)


def op_annotations():
    return dict(_op_annotations.get())


@contextlib.contextmanager
def op_role_guard(role):
    """Tag appended ops (``backward``, ``optimize``) so clone(for_test) can drop them."""
    token = _op_role.set(role)
    try:
        yield
    finally:
        _op_role.reset(token)


# ---- building ops through the registry --------------------------------------

def _as_input_var(block, value, like_dtype):
    """A Variable for an op input: Variables pass through, eager tensors are
    captured, Python scalars and arrays become constants."""
    if isinstance(value, Variable):
        return value
    if modes.is_eager_tensor(value):
        return capture_tensor(value)
    arr = np.asarray(value)
    if isinstance(value, _SCALARS):
        dtype = np.result_type(like_dtype, value) if like_dtype is not None else (
            _dt.default_float() if isinstance(value, float) else arr.dtype)
        arr = np.asarray(value, dtype=dtype)
    elif arr.dtype == np.float64 and not isinstance(value, np.ndarray):
        arr = arr.astype(_dt.default_float())
    return constant(arr, block)


def constant(arr, block=None):
    """A constant Variable holding ``arr`` (an ``assign_value`` op)."""
    block = block or default_main_program().current_block()
    out = block.create_var(block.program._names('constant'), arr.shape, arr.dtype,
                           stop_gradient=True)
    from ..ops.creation import assign_value_attr
    block.append_op('assign_value', {}, {'out': [out.name]},
                    {'value': assign_value_attr(arr), 'dtype': str(arr.dtype),
                     'op_role': _Defaults.op_role})
    if arr.size <= _FOLD_LIMIT:
        out._value = np.array(arr)
        out._value.flags.writeable = False
    return out


def _captured_name(program, t):
    """The variable name of eager tensor ``t`` in ``program``: its own name,
    unless another tensor of that name is captured already (two layers given
    one ``ParamAttr(name=...)``, which Paddle refuses): then a unique one, the
    same for every later capture of ``t``."""
    name = t.name
    taken = program._captured.get(name)
    if taken is None or taken is t:
        return name
    aliases = program.__dict__.setdefault('_capture_aliases', {})
    alias = aliases.get(id(t))
    if alias is None:
        alias = aliases[id(t)] = program._names(name)
    return alias


def capture_tensor(t):
    """Use an eager tensor inside a Program: a persistable variable of the same
    name whose value the executor reads from the tensor (dy2static parameters)."""
    program = default_main_program()
    gb = program.global_block()
    name = _captured_name(program, t)
    v = gb.vars.get(name)
    if v is None:
        v = gb.create_var(name, t.shape, t.dtype, persistable=True,
                          stop_gradient=t.stop_gradient)
        v.is_parameter = not t.stop_gradient
        v.trainable = not t.stop_gradient
        for attr in ('optimize_attr', 'regularizer', 'need_clip'):
            if hasattr(t, attr):
                setattr(v, attr, getattr(t, attr))
    program._captured[name] = t
    return v


# ---- values known while the program is built ------------------------------------

_FOLD_LIMIT = 4096     # elements: build-time values are shapes, indices and flags


class DygraphOnlyError(TypeError, AssertionError):
    """A value only a run can give, asked for while a program is built.
    Paddle raises AssertionError for its dygraph-only methods (``tolist``,
    ``numpy``) on static values and TypeError elsewhere; this is both."""


_DYGRAPH_ONLY = ('numpy()', 'tolist()')


def build_time_value(x, api, what='the value'):
    """The value of ``x`` while a program is being built, as a numpy array.

    Python numbers, arrays and eager tensors have theirs; a Variable has one
    when every op behind it had known inputs (constants, shapes with known
    dims, ...). Otherwise its value only exists when the program runs, and
    the error says where the user asked for it and what to write instead."""
    if isinstance(x, Variable):
        if x._value is None:
            lead = ''
            if api in _DYGRAPH_ONLY:
                lead = ("'%s' only can be called by `paddle.Tensor` in dynamic graph mode. "
                        % api.rstrip('()'))
            raise DygraphOnlyError(
                lead +
                "%s at %s: %s is static Variable '%s' (shape %s, %s), whose value is only "
                "known when the program runs. Keep it a tensor (use tensor ops such as "
                "paddle.cast, paddle.shape, paddle.where, or tensor-dependent if/while, which "
                "@to_static converts), or give the value as a Python number"
                % (api, user_location() or "<unknown>", what, x.name, list(x._shape), x.dtype))
        return x._value
    if modes.is_eager_tensor(x):
        return x.data
    return np.asarray(x)


def _known_input(v):
    if v is None:
        return True
    if isinstance(v, list):
        return all(_known_input(w) for w in v)
    return v._value is not None


def _input_value(v):
    if isinstance(v, list):
        return [w._value for w in v]
    return None if v is None else v._value


def _small(metas):
    return all(all(d >= 0 for d in m.shape) and int(np.prod(m.shape)) <= _FOLD_LIMIT
               for m in metas)


def _fold_constants(op, in_vars, attrs, metas, out_vars):
    """Give the outputs of ``op`` their build-time values when all its inputs
    have one (or, for ops that read only shapes, when the shapes are known)."""
    if not op.pure or not _small(metas):
        return      # (a random draw, a print or an assert happens when the program runs)
    if op.value_from_meta is not None:
        if not all(isinstance(v, Variable) and all(d >= 0 for d in v._shape) for v in in_vars):
            return
        values = op.value_from_meta(*[v.to_meta() for v in in_vars], *attrs)
    elif _known_input(in_vars):
        try:
            values = op.kernel(*[_input_value(v) for v in in_vars], *attrs)
        except Exception:      # the program reports it when it runs
            return
    else:
        return
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    for v, value, m in zip(out_vars, values, metas):
        value = np.asarray(value)
        if value.shape == tuple(m.shape) and value.dtype == np.dtype(m.dtype):
            v._value = value
            v._value.flags.writeable = False


def _first_dtype(ins):
    """The dtype a Python scalar input takes: that of the first floating
    Variable input (so ``where(cond, x, 0.0)`` follows x, not the bool cond),
    else of the first Variable."""
    found = []
    for v in ins:
        for w in (v if isinstance(v, (list, tuple)) else [v]):
            if isinstance(w, Variable):
                found.append(w.dtype)
    for d in found:
        if _dt.is_inexact(d):
            return d
    return found[0] if found else None


def _promote(op, ins):
    """Cast the promoted inputs of ``op`` to their common dtype (``cast`` ops);
    numbers become constants of that dtype, as the eager kernel gets them."""
    ins, dtype = promote_inputs(op, ins)
    return tuple([scalar_array(v, dtype) if i in op.promote and is_number(v) else v
                  for i, v in enumerate(ins)])


def _refuse_mixed_rank(op, in_vars):
    """An op cannot be built on a value whose rank depends on a tensor
    condition (see control_flow.make_cond_op): say which value and why."""
    for v in in_vars:
        for w in (v if isinstance(v, list) else [v]):
            if isinstance(w, Variable) and w._mixed_rank:
                raise OpError(
                    "%s: input '%s' has a rank that depends on a tensor condition (%s); an "
                    "op needs one rank. Give both branches values of one rank, or only return "
                    "the value" % (op.name, w.name, w._mixed_rank))


def static_append(op, args):
    """Append ``op`` to the current block; returns its output Variable(s)."""
    program = default_main_program()
    block = program.current_block()
    ins, attrs = op.split_args(args)
    if op.promote is not None:
        ins = _promote(op, ins)
    like = _first_dtype(ins)
    in_vars = []
    for i, v in enumerate(ins):
        if op.variadic[i]:
            in_vars.append([_as_input_var(block, w, like) for w in v])
        elif v is None:
            in_vars.append(None)
        else:
            in_vars.append(_as_input_var(block, v, like))
    _refuse_mixed_rank(op, in_vars)
    try:
        metas = op.infer_meta(*in_vars, *attrs)
    except OpError as e:
        raise OpError("%s: %s" % (op.name, e)) from None
    metas = list(metas) if isinstance(metas, (tuple, list)) else [metas]
    stop = not op.differentiable or all(
        w.stop_gradient for v in in_vars if v is not None
        for w in (v if isinstance(v, list) else [v]))
    out_vars = []
    names = (op.output_names * len(metas)) if op.variadic_out else op.output_names
    for i, (oname, m) in enumerate(zip(names, metas)):
        target = op.inplace_map.get(oname)
        if target is not None:
            src = in_vars[op.input_names.index(target)]
            if isinstance(src, Variable):
                out_vars.append(src)
                continue
        v = block.create_var(program._names('%s.tmp' % op.name), m.shape, m.dtype,
                             stop_gradient=stop or oname in op.nondiff_outputs)
        out_vars.append(v)
    inputs = collections.OrderedDict()
    for name, v in zip(op.input_names, in_vars):
        inputs[name] = [] if v is None else [w.name for w in (v if isinstance(v, list) else [v])]
    if op.variadic_out:
        outputs = {op.output_names[0]: [v.name for v in out_vars]}
    else:
        outputs = collections.OrderedDict((n, [v.name]) for n, v in zip(op.output_names, out_vars))
    attr_dict = dict(zip(op.attr_names, (_plain(a) for a in attrs)))
    attr_dict['op_role'] = _Defaults.op_role
    # the user's line that built the op: errors at run time (NaN/Inf checks) name it
    attr_dict['op_location'] = user_location()
    block.append_op(op.name, inputs, outputs, attr_dict)
    _fold_constants(op, in_vars, attrs, metas, out_vars)
    if op.variadic_out:
        return out_vars
    return out_vars[0] if len(out_vars) == 1 else tuple(out_vars)


def _plain(a):
    """Attributes as stored in the IR: tuples become lists, numpy scalars Python."""
    if isinstance(a, tuple):
        return [_plain(v) for v in a]
    if isinstance(a, list):
        return [_plain(v) for v in a]
    if isinstance(a, np.generic):
        return a.item()
    if isinstance(a, (np.dtype, _dt.DataType)):
        return _dt.dtype_name(a)
    return a


modes.install(variable_type=Variable, static_append=static_append)


def _seed_default_programs(n):
    default_main_program().random_seed = n
    default_startup_program().random_seed = n


_random.install_program_seeder(_seed_default_programs)
