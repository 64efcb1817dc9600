"""Executor, Scope and the compiled-plan cache.

``Executor.run`` compiles (program, version, feed names, fetch names, build
strategy) once into a plan and caches it (bounded LRU): prune to what the
fetches and side effects need -> optimisation passes -> a generated Python
function with kernels and attributes pre-bound (``Executor.generated_code``
prints it). With ``FLAGS_check_nan_inf`` the plan (compiled without passes,
so every op is there) checks each op's outputs and names the first op
producing NaN or Inf, the output and the user's line that built the op.
"""
import collections
import contextlib
import contextvars
import enum

import numpy as np

from .. import flags
from ..ops import backends, modes
from ..dense_tensor import DenseTensor
from . import codegen
from .passes import run_pipeline
from .program import Program, Variable, default_main_program


# ---- compiling a program --------------------------------------------------------

def compile_program(program, feed_names, fetch_names, strategy=None, side_effects=True,
                    check_nan_inf=False, backend=None, crossing=()):
    """A ``codegen.Plan`` computing ``fetch_names`` from ``feed_names`` (and
    the scope): a copy of ``program`` through the pass pipeline (``passes``;
    only prune without a ``strategy``), then generated code.
    ``side_effects``: which side effects prune keeps (``passes.prune``);
    ``check_nan_inf``: every op's outputs are checked for NaN/Inf as it runs;
    ``backend``: whose kernels the plan calls (None: the active backend's);
    ``crossing``: feeds and fetches that may pass in the backend's own
    layouts (``passes/layout.py``; a training step's saved values)."""
    work = program.clone()
    work._captured = program._captured
    for n in fetch_names:
        if not any(b._find_var(n) is not None for b in work.blocks):
            raise ValueError("fetch target '%s' is not a variable of the program" % n)
    run_pipeline(work, feed_names, fetch_names, strategy, side_effects,
                 backend=backend or backends.backend(), crossing=crossing)
    plan = codegen.generate(
        work, feed_names, fetch_names, program._captured, check_nan_inf,
        lean=strategy is not None and getattr(strategy, 'specialize_kernels', True),
        backend=backend)
    plan.program = program           # the plan cache checks which program it is for
    return plan


# ---- scope --------------------------------------------------------------------

class _ScopeVar:
    def __init__(self, scope, name):
        self._scope = scope
        self._name = name

    def get_tensor(self):
        """A handle on the variable's value (Paddle's LoDTensor API)."""
        values, name = self._scope.vars, self._name
        return DenseTensor(lambda: values[name], lambda a: values.__setitem__(name, a))


class Scope:
    """Values of persistable variables (parameters, optimizer state) by name."""

    def __init__(self):
        self.vars = {}

    def find_var(self, name):
        return _ScopeVar(self, name) if name in self.vars else None

    def var(self, name):
        self.vars.setdefault(name, None)
        return _ScopeVar(self, name)

    def local_var_names(self):
        return list(self.vars)

    def drop_kids(self):
        pass


_PROCESS_SCOPE = Scope()
# scope_guard switches the calling thread's scope only
_scope = contextvars.ContextVar('framework_global_scope', default=None)


def global_scope():
    scope = _scope.get()
    return _PROCESS_SCOPE if scope is None else scope


@contextlib.contextmanager
def scope_guard(scope):
    token = _scope.set(scope)
    try:
        yield
    finally:
        _scope.reset(token)


# ---- build strategy -------------------------------------------------------------

class _ReduceStrategy(enum.IntEnum):
    """How gradients meet across devices (Paddle's BuildStrategy.ReduceStrategy);
    one device here, so either is accepted and changes nothing."""
    AllReduce = 0
    Reduce = 1
    _NoReduce = 2


class BuildStrategy:
    """Switches for the executor's passes (all on by default)."""

    ReduceStrategy = _ReduceStrategy

    def __init__(self):
        self.enable_dce = True
        self.constant_folding = True
        self.enable_cse = True
        self.remove_identity = True
        self.loop_invariant_hoisting = True
        self.batch_split_siblings = True
        self.fuse_elewise_add_act_ops = True
        self.fuse_matmul_add_act = True
        # conv + batch norm (inference) + residual add + activation: Paddle's name
        self.fuse_bn_add_act_ops = True
        # activations stay in the kernel backend's own layout between its ops
        # (passes/layout.py; oneDNN's blocked layouts)
        self.plan_layouts = True
        self.enable_inplace = True
        self.memory_optimize = True
        # the generated code calls numpy itself where the Program's dtypes and
        # shapes prove what the kernel would check (graph/lean.py)
        self.specialize_kernels = True
        self.debug_graphviz_path = ''
        self.reduce_strategy = _ReduceStrategy.AllReduce

    def key(self):
        return tuple(sorted((k, v) for k, v in vars(self).items() if isinstance(v, bool)))


class CompiledProgram:
    """Accepted for compatibility: a program plus a build strategy."""

    def __init__(self, program_or_graph, build_strategy=None):
        self._program = program_or_graph
        self._build_strategy = build_strategy or BuildStrategy()

    def with_data_parallel(self, loss_name=None, build_strategy=None, **kw):
        if build_strategy is not None:
            self._build_strategy = build_strategy
        return self


# ---- executor -----------------------------------------------------------------

class Executor:
    """Runs Programs. ``Executor(place).run(program, feed, fetch_list)``."""

    def __init__(self, place=None, cache_size=64):
        self.place = place
        self._cache = collections.OrderedDict()
        self._cache_size = cache_size
        self._seeded = set()
        # the kernel backend this executor's plans use (None: the active one;
        # an inference predictor fixes its own)
        self._backend = None

    def close(self):
        self._cache.clear()

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name='feed',
            fetch_var_name='fetch', scope=None, return_numpy=True, use_program_cache=True,
            use_prune=False):
        program, strategy = self._program_and_strategy(program, 'run')
        scope = scope if scope is not None else global_scope()
        fetch_names = self._fetch_names(fetch_list)
        if program.random_seed and id(program) not in self._seeded:
            from .. import random
            random.seed(program.random_seed)
            self._seeded.add(id(program))
        feed_arrays = self._check_feed(program, dict(feed or {}))
        plan = self._plan(program, tuple(sorted(feed_arrays)), fetch_names, strategy,
                          flags.flag('FLAGS_check_nan_inf'))
        outs = plan(scope.vars, feed_arrays)
        if return_numpy:
            return [np.asarray(o) for o in outs]
        return [modes.handlers.make_tensor(np.asarray(o), None, True) for o in outs]

    def train_from_dataset(self, program=None, dataset=None, scope=None, thread=0, debug=False,
                           fetch_list=None, fetch_info=None, print_period=100,
                           fetch_handler=None):
        """Run ``program`` once per batch of ``dataset`` (an InMemoryDataset or
        QueueDataset of ``paddle.distributed``), printing ``fetch_list`` (named
        by ``fetch_info``) every ``print_period`` batches, as Paddle does."""
        if dataset is None:
            raise RuntimeError("dataset is need and should be initialized")
        fetch_list = list(fetch_list or [])
        names = list(fetch_info or self._fetch_names(fetch_list))
        if len(names) != len(fetch_list):
            raise ValueError("train_from_dataset: fetch_info names %d values, fetch_list has %d"
                             % (len(names), len(fetch_list)))
        for step, feed in enumerate(dataset._batches()):
            values = self.run(program, feed=feed, fetch_list=fetch_list, scope=scope)
            if fetch_list and (debug or (step + 1) % max(int(print_period), 1) == 0):
                print(', '.join('%s: %s' % (n, np.asarray(v).tolist())
                                for n, v in zip(names, values)))
        return None

    def infer_from_dataset(self, program=None, dataset=None, scope=None, thread=0, debug=False,
                           fetch_list=None, fetch_info=None, print_period=100,
                           fetch_handler=None):
        """``train_from_dataset`` on a program without its backward and optimizer
        (its ``clone(for_test=True)``)."""
        if program is None:
            from .program import default_main_program
            program = default_main_program()
        return self.train_from_dataset(program.clone(for_test=True), dataset, scope, thread,
                                       debug, fetch_list, fetch_info, print_period,
                                       fetch_handler)

    def generated_code(self, program=None, feed=None, fetch_list=None):
        """The Python source of the function ``run(program, feed, fetch_list)``
        executes, for debugging: ``print(exe.generated_code(main, feed, [loss]))``.

        ``feed`` is ``run``'s feed dict, or just the fed names (Variables or
        strings); the code is the one ``run`` compiles and caches for these
        arguments (after pruning and the build strategy's passes; with
        ``FLAGS_check_nan_inf`` on, with a check after each op). Each variable
        is a local named after it (``fc_0.w_0`` -> ``fc_0_w_0``), each kernel a
        global named after its op type (``k_matmul``), ``S`` holds the scope's
        values and ``F`` the feeds, and each op's line ends with a comment:
        ``# matmul [op 3] model.py:12`` (op type, its index in the compiled
        block, the line that built it)."""
        program, strategy = self._program_and_strategy(program, 'generated_code')
        feed_names = sorted(self._fetch_name(n) for n in (feed or ()))
        plan = self._plan(program, tuple(feed_names), self._fetch_names(fetch_list), strategy,
                          flags.flag('FLAGS_check_nan_inf'))
        return plan.source

    @staticmethod
    def _program_and_strategy(program, api):
        strategy = BuildStrategy()
        if isinstance(program, CompiledProgram):
            strategy = program._build_strategy
            program = program._program
        if program is None:
            program = default_main_program()
        if not isinstance(program, Program):
            raise TypeError("Executor.%s: program must be a static.Program or "
                            "CompiledProgram, got %s" % (api, type(program).__name__))
        return program, strategy

    def _fetch_names(self, fetch_list):
        fetch_list = list(fetch_list) if isinstance(fetch_list, (list, tuple)) else \
            ([] if fetch_list is None else [fetch_list])
        return tuple(self._fetch_name(f) for f in fetch_list)

    def _plan(self, program, feed_names, fetch_names, strategy, check_nan_inf=False):
        # a plan binds the kernels of the backend active when it was compiled
        backend = self._backend or backends.backend()
        key = (id(program), program._version, feed_names, fetch_names, strategy.key(),
               check_nan_inf, backend)
        plan = self._cache.get(key)
        if plan is not None and plan.program is program:
            self._cache.move_to_end(key)
            return plan
        # NaN/Inf checks name the first bad op, so no pass may fuse ops away
        plan = compile_program(program, feed_names, fetch_names,
                               None if check_nan_inf else strategy, check_nan_inf=check_nan_inf,
                               backend=backend)
        self._cache[key] = plan
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return plan

    @staticmethod
    def _fetch_name(f):
        if isinstance(f, Variable):
            return f.name
        if isinstance(f, str):
            return f
        raise TypeError("fetch_list items must be Variables or names, got %s"
                        % type(f).__name__)

    @staticmethod
    def _check_feed(program, feed):
        gb = program.global_block()
        out = {}
        for name, value in feed.items():
            if isinstance(name, Variable):
                name = name.name
            v = gb.vars.get(name)
            arr = value if type(value) is np.ndarray else np.asarray(
                value if isinstance(value, np.ndarray) else getattr(value, 'data', value))
            if v is None:
                raise ValueError("Executor.run: feed '%s' is not a variable of the program "
                                 "(declared data: %s)" % (name, ', '.join(
                                     n for n, x in gb.vars.items() if x.is_data) or 'none'))
            if arr.dtype != v.dtype:
                if arr.dtype.kind == v.dtype.kind or (arr.dtype.kind in 'iu' and v.dtype.kind in 'iu'):
                    arr = arr.astype(v.dtype)
                else:
                    raise TypeError("Executor.run: feed '%s' has dtype %s but the variable "
                                    "is declared %s" % (name, arr.dtype, v.dtype))
            shape = v._shape
            # (the tuple comparison first: it settles the common case, fully known shapes)
            if arr.shape != shape and (len(shape) != arr.ndim or any(
                    d >= 0 and d != s for d, s in zip(shape, arr.shape))):
                raise ValueError("Executor.run: feed '%s' has shape %s but the variable is "
                                 "declared with shape %s (-1 = any)"
                                 % (name, list(arr.shape), list(shape)))
            out[name] = arr
        return out
