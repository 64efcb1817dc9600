"""oneDNN objects the kernels use: engine, streams, memory descriptors, and
``Plan``, a cached sequence of primitives over numpy buffers.

A kernel call builds (once per key) a ``Plan``: the primitives it runs in
order (reorders into oneDNN's preferred layout, the computation, reorders
back), the memory objects they read and write, and the buffers between
them. Running a plan points the memory objects at the caller's numpy arrays
(no copies) and executes each primitive. Plans live in a per-thread cache:
their buffers and user scratchpads are written by every run, so two threads
running the same op at once (a served model) must not share them.

A plan's buffers hold nothing between runs (a reorder's result, a blocked
output before its reorder back, a scratchpad), so they all live in one
per-thread ``Arena``, each plan's at its own offsets: the thread's plans
share memory the size of the largest plan's need instead of keeping the sum
(on a ResNet-18 training step, 9 MB instead of 91). The one exception is the
reorder of a frozen input (a loaded model's weights), which later runs skip:
it moves to a buffer of its own the first time the plan sees it frozen.

oneDNN reads the OpenMP thread count when a primitive is created, so the
count is part of every plan's key.
"""
import collections
import contextlib
import ctypes
import threading

import numpy as np

from .. import Opaque
from . import constants as C
from .library import DnnlError, ExecArg

_ALIGN = 64                           # bytes: oneDNN's blocked layouts want cache lines
DTYPES = {np.dtype(np.float32): C.F32}
_MISSING = object()


class Runtime:
    """The loaded library, its CPU engine, and each thread's stream and plans."""

    def __init__(self, lib, check, capacity=1024):
        self.lib, self.check = lib, check
        self.engine = ctypes.c_void_p()
        check(lib.dnnl_engine_create(ctypes.byref(self.engine), C.CPU, 0), 'dnnl_engine_create')
        self.capacity = capacity
        self._local = threading.local()
        self.attr = self._user_scratchpad_attr()
        self._attrs = {(): self.attr}
        self.layouts = {}         # what oneDNN reports of a layout -> its Layout (layout.py)
        # libgomp is loaded with oneDNN (it is linked against it)
        gomp = ctypes.CDLL('libgomp.so.1')
        self._omp_set = gomp.omp_set_num_threads
        self._omp_set.argtypes = [ctypes.c_int]
        gomp.omp_get_max_threads.restype = ctypes.c_int
        self.policy = gomp.omp_get_max_threads()

    def _user_scratchpad_attr(self, post_ops=()):
        """Primitive attributes: the plan owns each primitive's scratchpad
        (no allocation per call); ``post_ops`` are ``('sum',)`` (add what the
        destination holds), ``('binary', algorithm, dims)`` (combine with a
        plain float32 tensor of ``dims``, broadcast; its memory is the
        execution argument ``post_op_arg(index)``) and ``('eltwise',
        algorithm, alpha, beta)``, in the order they apply."""
        lib, check = self.lib, self.check
        attr = ctypes.c_void_p()
        check(lib.dnnl_primitive_attr_create(ctypes.byref(attr)), 'dnnl_primitive_attr_create')
        check(lib.dnnl_primitive_attr_set_scratchpad_mode(attr, C.SCRATCHPAD_MODE_USER),
              'dnnl_primitive_attr_set_scratchpad_mode')
        if post_ops:
            ops = ctypes.c_void_p()
            check(lib.dnnl_post_ops_create(ctypes.byref(ops)), 'dnnl_post_ops_create')
            for post in post_ops:
                if post[0] == 'sum':
                    check(lib.dnnl_post_ops_append_sum(ops, 1.0, 0, C.DATA_TYPE_UNDEF),
                          'dnnl_post_ops_append_sum')
                elif post[0] == 'binary':
                    _, alg, dims = post
                    md = self.desc(dims, strides=plain_strides(dims))
                    check(lib.dnnl_post_ops_append_binary(ops, alg, md.handle),
                          'dnnl_post_ops_append_binary')
                else:
                    _, alg, alpha, beta = post
                    check(lib.dnnl_post_ops_append_eltwise(ops, alg, alpha, beta),
                          'dnnl_post_ops_append_eltwise')
            check(lib.dnnl_primitive_attr_set_post_ops(attr, ops),
                  'dnnl_primitive_attr_set_post_ops')
            lib.dnnl_post_ops_destroy(ops)      # the attribute keeps its own copy
        return attr

    def attr_with(self, post_ops):
        """The (cached) attributes with ``post_ops`` (see above)."""
        attrs = self._attrs
        post_ops = tuple(post_ops)
        if post_ops not in attrs:
            attrs[post_ops] = self._user_scratchpad_attr(post_ops)
        return attrs[post_ops]

    def _thread(self):
        local = self._local
        if not hasattr(local, 'plans'):
            local.stream = ctypes.c_void_p()
            self.check(self.lib.dnnl_stream_create(ctypes.byref(local.stream), self.engine,
                                                   C.STREAM_DEFAULT_FLAGS), 'dnnl_stream_create')
            local.plans = collections.OrderedDict()
            local.omp = None
            local.arena = Arena()
            local.tag = None          # plans made now are recorded under it (tagging)
            local.tagged = {}         # tag -> keys of the plans used under it
        return local

    @contextlib.contextmanager
    def tagging(self, tag):
        """Record the plans the calling thread uses inside under ``tag``,
        for ``forget`` (a predictor's plans per input shape)."""
        local = self._thread()
        before, local.tag = local.tag, tag
        try:
            yield
        finally:
            local.tag = before

    def forget(self, tag):
        """Drop the calling thread's plans used under ``tag`` (also where
        another tag used them: they are made again when next needed)."""
        local = self._thread()
        for key in local.tagged.pop(tag, ()):
            local.plans.pop(key, None)

    def plan_for(self, key, build):
        """The calling thread's plan for ``key`` (made by ``build(plan)`` the
        first time), or None when oneDNN has no implementation for it
        (remembered: it is not asked again)."""
        local = self._thread()
        plans = local.plans
        plan = plans.get(key, _MISSING)
        if local.tag is not None:
            local.tagged.setdefault(local.tag, set()).add(key)
        if plan is not _MISSING:
            plans.move_to_end(key)             # recently used: evicted last
        else:
            plan = Plan(self, local.stream, local.arena)
            try:
                build(plan)
            except DnnlError:
                plan = None       # unimplemented here: the numpy kernel runs
            plans[key] = plan
            while len(plans) > self.capacity:     # the least recently used first
                plans.popitem(last=False)
        return plan

    def decline(self, key):
        """Stop using the plan for ``key`` (a caller's check found it wrong)."""
        self._thread().plans[key] = None

    def run(self, key, build, *arrays):
        """Run the calling thread's plan for ``key`` (made by ``build(plan)``
        the first time) on ``arrays``; False when oneDNN has no
        implementation for the call (remembered: it is not asked again)."""
        plan = self.plan_for(key, build)
        if plan is None:
            return False
        plan.run(*arrays)
        return True

    def cached_plans(self):
        """How many plans the calling thread holds."""
        return len(self._thread().plans)

    def clear(self):
        self._thread().plans.clear()

    # -- memory descriptors ---------------------------------------------------------
    def desc(self, dims, dtype=C.F32, strides=None, tag=None):
        """An owned memory descriptor: plain with ``strides`` (elements), or
        by format ``tag`` (``FORMAT_TAG_ANY``: the primitive chooses)."""
        md = ctypes.c_void_p()
        n = len(dims)
        d = dims_array(dims)
        if strides is not None:
            status = self.lib.dnnl_memory_desc_create_with_strides(
                ctypes.byref(md), n, d, dtype, dims_array(strides))
        else:
            status = self.lib.dnnl_memory_desc_create_with_tag(ctypes.byref(md), n, d, dtype, tag)
        self.check(status, 'dnnl_memory_desc_create (dims %s)' % (list(dims),))
        return Owned(md, self.lib.dnnl_memory_desc_destroy)

    def any_like(self, md):
        """A descriptor with ``md``'s dims and dtype whose layout the
        primitive created with it chooses."""
        handle = getattr(md, 'handle', md)
        # scalars come back by value, dims as a pointer to the descriptor's own array
        ndims, dtype, dims = ctypes.c_int(), ctypes.c_int(), ctypes.c_void_p()
        for query, out in ((C.QUERY_NDIMS_S32, ndims), (C.QUERY_DATA_TYPE, dtype),
                           (C.QUERY_DIMS, dims)):
            self.check(self.lib.dnnl_memory_desc_query(handle, query, ctypes.byref(out)),
                       'dnnl_memory_desc_query')
        values = ctypes.cast(dims, ctypes.POINTER(ctypes.c_int64 * C.MAX_NDIMS)).contents
        return self.desc(values[:ndims.value], dtype.value, tag=C.FORMAT_TAG_ANY)

    dims = staticmethod(lambda values: dims_array(values))

    def threads(self):
        """The OpenMP thread count this thread's primitives use (oneDNN
        reads it when it creates one, so it is part of every plan's key).
        OpenMP keeps the count per thread: a thread that runs kernels gets
        the process's policy (``set_threads``) on its first call."""
        local = self._thread()
        if local.omp != self.policy:
            self._omp_set(self.policy)
            local.omp = self.policy
        return local.omp

    def set_threads(self, n):
        """Run oneDNN on ``n`` OpenMP threads from now on, in every thread."""
        self.policy = int(n)
        self.threads()

    def desc_of(self, arr, groups=1):
        """The descriptor of numpy array ``arr`` as it lies in memory (any
        strides); ``groups`` > 1 splits its first axis into
        ``[groups, shape[0] // groups]`` (a grouped conv's weights). A
        ``Blocked`` value (``layout.py``) has its layout's descriptor."""
        if isinstance(arr, Opaque):
            return arr.layout.md
        item = arr.itemsize
        dims, strides = list(arr.shape), [s // item for s in arr.strides]
        if groups > 1:
            dims[:1] = [groups, dims[0] // groups]
            strides[:1] = [strides[0] * dims[1], strides[0]]
        # a size-1 axis (a 1-D conv's H, from a None index) may have any stride,
        # numpy gives 0; oneDNN recognizes a layout only from consistent ones
        for i in range(len(dims) - 1, -1, -1):
            if dims[i] == 1:
                inner = [strides[j] * dims[j] for j in range(i + 1, len(dims))]
                strides[i] = max(inner, default=1)
        return self.desc(dims, DTYPES[arr.dtype], strides=strides)


def _handle(md):
    """The C handle of a descriptor (an ``Owned`` one or a bare handle)."""
    return getattr(md, 'handle', md)


def plain_strides(dims):
    """Row-major strides (in elements) of ``dims``."""
    strides, step = [], 1
    for d in reversed(list(dims)):
        strides.append(step)
        step *= max(int(d), 1)
    return strides[::-1]


def post_op_arg(index):
    """The execution argument of post-op ``index``'s second tensor
    (``DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1``)."""
    return C.ARG_ATTR_MULTIPLE_POST_OP_BASE * (index + 1) | C.ARG_SRC_1


def dims_array(values):
    arr = (ctypes.c_int64 * C.MAX_NDIMS)()
    for i, v in enumerate(values):
        arr[i] = int(v)
    return arr


class Owned:
    """A oneDNN handle destroyed with its Python owner."""
    __slots__ = ('handle', '_destroy')

    def __init__(self, handle, destroy):
        self.handle, self._destroy = handle, destroy

    def __del__(self):
        if self.handle:
            self._destroy(self.handle)
            self.handle = None


class PrimitiveDesc(Owned):
    """A primitive descriptor: what oneDNN chose (layouts, scratchpad)."""
    __slots__ = ('lib',)

    def __init__(self, lib, handle):
        super().__init__(handle, lib.dnnl_primitive_desc_destroy)
        self.lib = lib

    def md(self, query, index=0):
        """A memory descriptor the primitive uses (owned by the descriptor)."""
        return self.lib.dnnl_primitive_desc_query_md(self.handle, query, index)

    def impl(self):
        s = ctypes.c_char_p()
        self.lib.dnnl_primitive_desc_query(self.handle, C.QUERY_IMPL_INFO_STR, 0, ctypes.byref(s))
        return s.value.decode()


class Arena:
    """One thread's memory for its plans' buffers (see the module doc):
    grown to the largest plan's need, never shrunk."""

    def __init__(self):
        self._buf = None
        self.address = 0

    def at_least(self, nbytes):
        """The arena's address, ``nbytes`` or more of it (plans bound to a
        smaller one rebind: ``Plan.run``)."""
        if self._buf is None or self._buf.nbytes < nbytes:
            self._buf = aligned_bytes(nbytes)
            self.address = self._buf.ctypes.data
        return self.address


class Plan:
    """Primitives run in order over user arrays (by position) and buffers."""

    def __init__(self, runtime, stream, arena):
        self.rt, self.lib, self.stream = runtime, runtime.lib, stream
        self.arena = arena
        self.arena_bytes = 0      # this plan's part of the arena
        self.in_arena = []        # [memory handle, offset, bytes]: offset None once it has its own
        self._bound_to = None     # the arena address the handles point into
        self._reorder_dst = {}    # user slot -> index in in_arena of its reorder's result
        self.steps = []           # (primitive, ExecArg array, count)
        self.bindings = []        # (memory handle, user slot)
        self._keep = []           # everything the steps point at
        self.note = []            # what the plan does, for errors and tests
        # {user slot: index of the step reordering it}: skipped while the slot
        # holds the same frozen array as last run (a loaded model's weights)
        self.reorders_of = {}
        self._frozen = {}         # slot -> the frozen array its reorder last read
        self.facts = {}           # what the builder learned (a workspace's dtype, ...)

    def primitive_desc(self, create, call, *args, post_ops=()):
        """``create(&pd, engine, *args, attr)``, with the user scratchpad attr
        (and ``post_ops``, ``Runtime.attr_with``)."""
        pd = ctypes.c_void_p()
        attr = self.rt.attr_with(post_ops) if post_ops else self.rt.attr
        self.rt.check(create(ctypes.byref(pd), self.rt.engine, *args, attr), call)
        return PrimitiveDesc(self.lib, pd)

    def input(self, slot, user_md, pd, query, index=0):
        """Memory holding user array ``slot`` in the layout ``pd`` reads
        (``query``, its ``index``-th): the array itself, or a buffer a
        reorder fills."""
        src, want = self.user(slot, user_md), pd.md(query, index)
        if self.same(user_md, want):
            return src
        dst = self.buffer(want)
        self._reorder_dst[slot] = len(self.in_arena) - 1
        self.reorders_of[slot] = len(self.steps)
        self.reorder_into(src, user_md, dst, want)
        return dst

    def _memory(self, md, handle=None):
        mem = ctypes.c_void_p()
        self.rt.check(self.lib.dnnl_memory_create(ctypes.byref(mem), md, self.rt.engine, handle),
                      'dnnl_memory_create')
        self._keep.append(Owned(mem, self.lib.dnnl_memory_destroy))
        return mem

    # (``md`` arguments may be ``Owned`` temporaries: their handle is read
    # without rebinding ``md``, which would free the descriptor mid-call)
    def user(self, slot, md):
        """Memory over the ``slot``-th array of each run."""
        mem = self._memory(_handle(md))
        self.bindings.append((mem, slot))
        return mem

    def buffer(self, md):
        """Memory over ``md``'s size of the arena (aligned), for this plan's runs."""
        size = self.lib.dnnl_memory_desc_get_size(_handle(md))
        mem = self._memory(_handle(md))
        self.in_arena.append([mem, self.arena_bytes, size])
        self.arena_bytes += -(-size // _ALIGN) * _ALIGN
        return mem

    def _own_buffer(self, entry):
        """Give arena entry ``entry`` a buffer of its own (kept across runs)."""
        mem, _, size = entry
        buf = aligned_bytes(size)
        self._keep.append(buf)
        self.rt.check(self.lib.dnnl_memory_set_data_handle(mem, buf.ctypes.data),
                      'dnnl_memory_set_data_handle')
        entry[1] = None

    def add(self, pd, args, what):
        """Run primitive ``pd`` with ``args`` ({DNNL_ARG: memory}); its
        scratchpad is a buffer of the plan."""
        pad = pd.md(C.QUERY_SCRATCHPAD_MD)
        if pad and self.lib.dnnl_memory_desc_get_size(pad):
            args = dict(args)
            args[C.ARG_SCRATCHPAD] = self.buffer(pad)
        impl = pd.impl()
        if impl.startswith('ref:') and what != 'reorder':
            # oneDNN's reference loops (its answer to odd strides or shapes)
            # run many times slower than the numpy kernels: decline the call
            raise DnnlError('%s: only the reference implementation (%s)' % (what, impl))
        prim = ctypes.c_void_p()
        self.rt.check(self.lib.dnnl_primitive_create(ctypes.byref(prim), pd.handle),
                      'dnnl_primitive_create (%s)' % what)
        self._keep += [pd, Owned(prim, self.lib.dnnl_primitive_destroy)]
        arr = (ExecArg * len(args))(*[ExecArg(int(k), m) for k, m in args.items()])
        self._keep.append(arr)
        self.steps.append((prim, arr, len(args), what))
        self.note.append('%s [%s]' % (what, impl))

    def reorder_into(self, src, src_md, dst, dst_md):
        pd = ctypes.c_void_p()
        eng = self.rt.engine
        self.rt.check(self.lib.dnnl_reorder_primitive_desc_create(
            ctypes.byref(pd), _handle(src_md), eng, _handle(dst_md), eng, self.rt.attr),
            'dnnl_reorder_primitive_desc_create')
        self.add(PrimitiveDesc(self.lib, pd), {C.ARG_FROM: src, C.ARG_TO: dst}, 'reorder')

    def add_into(self, pd, args, arg, query, slot, user_md, what, index=0):
        """Add ``pd`` writing its output ``arg`` straight into user array
        ``slot`` when the layouts agree (``query``'s ``index``-th), else into
        a buffer reordered into it."""
        self.add_writing(pd, args, [(arg, query, index, slot, user_md)], what)

    def add_writing(self, pd, args, outputs, what):
        """Add ``pd`` with inputs ``args`` and ``outputs``, each ``(arg,
        query, index, slot, user_md)``: written into user array ``slot``
        directly when the layouts agree, else through a buffer reordered
        into it after the primitive ran."""
        args, after = dict(args), []
        for arg, query, index, slot, user_md in outputs:
            out_md, mine = pd.md(query, index), self.user(slot, user_md)
            if self.same(out_md, user_md):
                args[arg] = mine
            else:
                args[arg] = self.buffer(out_md)
                after.append((args[arg], out_md, mine, user_md))
        self.add(pd, args, what)
        for reordered in after:
            self.reorder_into(*reordered)

    def keep(self, obj):
        """Hold ``obj`` (a hint descriptor...) as long as the plan."""
        self._keep.append(obj)

    def same(self, a, b):
        return bool(self.lib.dnnl_memory_desc_equal(_handle(a), _handle(b)))

    def run(self, *arrays):
        lib, check = self.lib, self.rt.check
        ptrs = [a.ptr if isinstance(a, Opaque) else a.ctypes.data for a in arrays]
        for mem, slot in self.bindings:
            lib.dnnl_memory_set_data_handle(mem, ptrs[slot])
        if self.arena_bytes:
            self._bind_arena()
        skip = self._unchanged(arrays) if self.reorders_of else ()
        stream = self.stream
        for k, (prim, args, n, what) in enumerate(self.steps):
            if k in skip:
                continue
            status = lib.dnnl_primitive_execute(prim, stream, n, args)
            if status:
                check(status, 'dnnl_primitive_execute (%s)' % what)

    def _bind_arena(self):
        address = self.arena.at_least(self.arena_bytes)
        if address != self._bound_to:
            for mem, offset, _ in self.in_arena:
                if offset is not None:
                    self.lib.dnnl_memory_set_data_handle(mem, address + offset)
            self._bound_to = address

    def _unchanged(self, arrays):
        """The reorder steps whose result the plan's buffer still holds: the
        same frozen array as the last run (whose reorder got a buffer of its
        own, out of the arena, the first time it was seen)."""
        skip = set()
        for slot, step in self.reorders_of.items():
            a = arrays[slot]
            if self._frozen.get(slot) is a:
                skip.add(step)
            elif frozen(a):
                entry = self.in_arena[self._reorder_dst[slot]]
                if entry[1] is not None:
                    self._own_buffer(entry)
                self._frozen[slot] = a
            else:
                self._frozen[slot] = None
        return skip


def aligned_bytes(n):
    """An uninitialized buffer of ``n`` bytes starting on a cache line."""
    raw = np.empty(n + _ALIGN, np.uint8)
    start = -raw.ctypes.data % _ALIGN
    return raw[start:start + n]


def frozen(a):
    """Whether nothing can write ``a``'s values: read-only, and so is every
    array it is a view of (a loaded model's weights: ``freeze``)."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        a = a.base
    return a is None or isinstance(a, bytes)


def freeze(a):
    """Make array ``a`` read-only (its oneDNN reorders are then reused
    across runs); returns it."""
    if isinstance(a, np.ndarray) and a.flags.owndata:
        a.setflags(write=False)
    return a
