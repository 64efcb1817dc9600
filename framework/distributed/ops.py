"""The collective ops of the registry (Paddle's ``c_allreduce_sum``, ``c_broadcast``, ...).

They are what a static Program holds: ``paddle.distributed.all_reduce(x)``
while a program is built appends ``c_allreduce_sum``, and fleet's distributed
optimizer appends one per gradient. ``ring_id`` names the group
(``Group.id``; 0 is the world). The kernels run the collective over that
group when the op runs; in a one-process world each is what it is at world
size 1 (the identity, or the one block), so the registry-generated op tests
check them there.

The ops are functional (a new output; the Paddle API's in-place update of
its tensor is the static Variable's ``_inplace_assign`` of that output), so
static autodiff treats them as any op. They are marked as side-effect ops
(``distributed/__init__.py``): every rank must take part, whether or not its
own program reads the result, so no pass folds, merges or drops them.
"""
import numpy as np

from ..ops import meta
from ..ops.registry import Meta, OpError, add_test_case, def_op

REDUCE_NAMES = ('sum', 'max', 'min', 'prod', 'avg')   # ReduceOp 0..4


def _comm(ring_id):
    from .env import group_by_id
    group = group_by_id(ring_id)
    if group.comm is None:
        raise OpError("collective op on ring_id %d: this rank is not a member of that group"
                      % ring_id)
    return group.comm


def _check_nranks(op, nranks, comm):
    if nranks != comm.size:
        raise OpError("%s: attribute nranks=%d, but the group has %d ranks"
                      % (op, nranks, comm.size))


# ---- all-reduce: one op per ReduceOp, in place --------------------------------------
def _all_reduce_op(code, name):
    @def_op('c_allreduce_' + name, meta.unchanged, pattern='opaque', effects=('collective',))
    def op(x, ring_id=0, use_calc_stream=False, use_model_parallel=False):
        return _comm(ring_id).all_reduce(x, code, 'c_allreduce_' + name, sync=True).wait()
    op.doc = "The %s of x over the ranks of group ring_id." % name
    return op


ALL_REDUCE = {code: _all_reduce_op(code, name) for code, name in enumerate(REDUCE_NAMES)}
c_allreduce_sum = ALL_REDUCE[0]
c_allreduce_avg = ALL_REDUCE[4]


# every rank's output depends on every rank's input with weight 1 (1/n for
# avg), so the gradient is the same reduction of the output gradients
@c_allreduce_sum.def_grad
def _allreduce_sum_grad(g, x, out, ring_id, use_calc_stream, use_model_parallel):
    return c_allreduce_sum(g, ring_id)


@c_allreduce_avg.def_grad
def _allreduce_avg_grad(g, x, out, ring_id, use_calc_stream, use_model_parallel):
    return c_allreduce_avg(g, ring_id)


# ---- reduce to one rank, broadcast from one --------------------------------------------
def _reduce_op(code, name):
    @def_op('c_reduce_' + name, meta.unchanged, pattern='opaque', effects=('collective',))
    def op(x, root_id=0, ring_id=0, use_calc_stream=False):
        return _comm(ring_id).reduce(x, root_id, code, 'c_reduce_' + name, sync=True).wait()
    op.doc = "The %s of x over the ranks, on rank root_id (x elsewhere)." % name
    return op


REDUCE = {code: _reduce_op(code, name) for code, name in enumerate(REDUCE_NAMES)}


@def_op('c_broadcast', meta.unchanged, pattern='opaque', effects=('collective',))
def c_broadcast(x, root=0, ring_id=0, use_calc_stream=False):
    """Rank root's x on every rank of the group."""
    return _comm(ring_id).broadcast(x, root, 'c_broadcast', sync=True).wait()


# ---- gather and scatter blocks of rows ----------------------------------------------------
def _rows_meta(op, x, factor, divide=False):
    shape = list(x.shape)
    if not shape:
        raise OpError("%s: x should have at least one dimension, got a 0-d tensor" % op)
    if shape[0] >= 0:
        if divide and shape[0] % factor:
            raise OpError("%s: x's first dimension %d should divide by nranks=%d"
                          % (op, shape[0], factor))
        shape[0] = shape[0] // factor if divide else shape[0] * factor
    return Meta(shape, x.dtype)


@def_op('c_allgather', lambda x, nranks=1, *a: _rows_meta('c_allgather', x, nranks),
        pattern='opaque', effects=('collective',))
def c_allgather(x, nranks=1, ring_id=0, use_calc_stream=False):
    """Every rank's x, concatenated on axis 0 in rank order."""
    comm = _comm(ring_id)
    _check_nranks('c_allgather', nranks, comm)
    if np.ndim(x) == 0:
        raise OpError("c_allgather: x should have at least one dimension, got a 0-d tensor")
    return np.concatenate(comm.all_gather(x, 'c_allgather', sync=True).wait())


@def_op('c_reducescatter', lambda x, nranks=1, *a: _rows_meta('c_reducescatter', x, nranks, True),
        pattern='opaque', effects=('collective',))
def c_reducescatter(x, nranks=1, ring_id=0, use_calc_stream=False):
    """The sum over the ranks of x, split on axis 0: rank i keeps block i."""
    comm = _comm(ring_id)
    _check_nranks('c_reducescatter', nranks, comm)
    if np.ndim(x) == 0 or x.shape[0] % nranks:
        raise OpError("c_reducescatter: x's first dimension (shape %s) should divide by "
                      "nranks=%d" % (list(np.shape(x)), nranks))
    total = comm.all_reduce(x, 0, 'c_reducescatter', sync=True).wait()
    return np.split(total, nranks)[comm.rank].copy()


@c_allgather.def_grad
def _allgather_grad(g, x, out, nranks, ring_id, use_calc_stream):
    return c_reducescatter(g, nranks, ring_id)


@c_reducescatter.def_grad
def _reducescatter_grad(g, x, out, nranks, ring_id, use_calc_stream):
    return c_allgather(g, nranks, ring_id)


@def_op('c_scatter', lambda x, out_like, root=0, nranks=1, *a:
        _rows_meta('c_scatter', x, nranks, True),
        no_grad_inputs=('out_like',), pattern='opaque', effects=('collective',))
def c_scatter(x, out_like, root=0, nranks=1, ring_id=0, use_calc_stream=False):
    """Block i (axis 0) of rank root's x to rank i; out_like is the block
    each rank receives into (its shape and dtype)."""
    comm = _comm(ring_id)
    _check_nranks('c_scatter', nranks, comm)
    blocks = np.split(x, nranks) if comm.rank == root else None
    return comm.scatter(blocks, out_like, root, 'c_scatter', sync=True).wait()


@def_op('alltoall', meta.unchanged, pattern='opaque', effects=('collective',))
def alltoall(x, ring_id=0, use_calc_stream=False):
    """Split x on axis 0 into one block per rank; block j goes to rank j, and
    the blocks received are concatenated in rank order."""
    comm = _comm(ring_id)
    if np.ndim(x) == 0 or x.shape[0] % comm.size:
        raise OpError("alltoall: x's first dimension (shape %s) should divide by the group "
                      "size %d" % (list(np.shape(x)), comm.size))
    return np.concatenate(comm.alltoall(np.split(x, comm.size), 'alltoall', sync=True).wait())


# the gradient of a permutation of blocks is the inverse permutation: alltoall again
alltoall.def_grad(lambda g, x, out, ring_id, use_calc_stream: alltoall(g, ring_id))


@def_op('barrier', meta.unchanged, pattern='opaque', effects=('collective',))
def barrier_op(x, ring_id=0):
    """Wait for every rank of the group; x passes through (orders the program)."""
    _comm(ring_id).barrier('barrier')
    return np.array(x)


# ---- test cases: a one-process world --------------------------------------------------------
_rng = np.random.default_rng(15)


def _cases(op, ref, extra=(), zero_d=True):
    add_test_case(op, _rng.standard_normal((3, 4)), *extra, ref=ref)
    add_test_case(op, _rng.standard_normal((2, 3, 2)), *extra, ref=ref)
    add_test_case(op, _rng.standard_normal((2, 3)).astype(np.float32), *extra, ref=ref,
                  grad=False)     # float32: too coarse for finite differences
    add_test_case(op, np.zeros((0, 3)), *extra, ref=ref)
    if zero_d:
        add_test_case(op, np.array(-1.5), *extra, ref=ref)


def _same(x, *attrs):
    return x


for _op in list(ALL_REDUCE.values()) + list(REDUCE.values()) + [c_broadcast, alltoall, barrier_op]:
    _cases(_op, _same, zero_d=_op is not alltoall)
for _op in (c_allgather, c_reducescatter):
    _cases(_op, _same, zero_d=False)
add_test_case(c_scatter, _rng.standard_normal((3, 4)), np.zeros((3, 4)),
              ref=lambda x, like, *a: x)
add_test_case(c_scatter, _rng.standard_normal((2, 3)).astype(np.float32),
              np.zeros((2, 3), np.float32), ref=lambda x, like, *a: x, grad=False)
add_test_case(c_scatter, np.zeros((0, 2)), np.zeros((0, 2)), ref=lambda x, like, *a: x)
