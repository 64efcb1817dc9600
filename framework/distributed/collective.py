"""Collectives on Tensors (Paddle's ``paddle.distributed.all_reduce``, ...).

Eagerly each call starts the communication on the tensor's array and writes
the result into the given tensor(s); ``sync_op=False`` returns a ``Task`` to
``wait()`` on instead. In static mode (building a Program) the same calls
append the registered collective ops (``c_allreduce_sum``, ``c_broadcast``,
... in ``distributed/ops.py``), which run when the Executor runs the program.

Ranks named by ``src``/``dst`` are global ranks, as in Paddle; a process that
is not a member of ``group`` returns at once.

>>> import framework as paddle
>>> import framework.distributed as dist
>>> x = paddle.to_tensor([1.0, 2.0])
>>> _ = dist.all_reduce(x)         # one process: the sum over one rank
>>> x.numpy().tolist()
[1.0, 2.0]
"""
import pickle

import numpy as np

from ..ops.modes import in_static_mode as in_static
from ..dygraph import Tensor
from . import backend as be
from . import ops as collective_ops
from .env import default_group

__all__ = ['ReduceOp', 'Task', 'all_reduce', 'broadcast', 'reduce', 'all_gather',
           'all_gather_object', 'scatter', 'gather', 'alltoall', 'alltoall_single',
           'reduce_scatter', 'broadcast_object_list', 'scatter_object_list', 'send', 'recv',
           'isend', 'irecv', 'wait', 'send_object_list', 'recv_object_list']


class ReduceOp:
    """How ``all_reduce`` / ``reduce`` combine the ranks' values (Paddle's codes)."""
    SUM = 0
    MAX = 1
    MIN = 2
    PROD = 3
    AVG = 4


_OP_NAMES = {0: 'sum', 1: 'max', 2: 'min', 3: 'prod', 4: 'avg'}


class Task:
    """A started collective: ``wait()`` completes it and writes its results."""

    def __init__(self, pending=None, write=None):
        self._pending = pending or be.Done()
        self._write = write
        self._written = False

    def wait(self, timeout=None):
        result = self._pending.wait()
        if not self._written:
            self._written = True
            if self._write is not None:
                self._write(result)
        return True

    def is_completed(self):
        if self._pending.test():
            self.wait()
            return True
        return False

    def is_sync(self):
        return self._written


def _finish(pending, write, sync_op):
    task = Task(pending, write)
    if sync_op:
        task.wait()
    return task


def _group(group):
    return group if group is not None else default_group()


def _check_tensor(api, name, t):
    if not isinstance(t, Tensor):
        raise TypeError("paddle.distributed.%s: %s should be a Tensor, but got %s"
                        % (api, name, type(t).__name__))


def _check_op(api, op):
    if op not in _OP_NAMES:
        raise ValueError("paddle.distributed.%s: op should be a ReduceOp (SUM, MAX, MIN, PROD, "
                         "AVG), but got %r" % (api, op))


def _group_rank(api, group, rank, what):
    r = group.get_group_rank(rank)
    if r < 0:
        raise ValueError("paddle.distributed.%s: %s rank %r is not in the group (ranks %s)"
                         % (api, what, rank, group.ranks))
    return r


def _set(tensor, array):
    """Write a collective's result into ``tensor`` (an in-place update: the
    version bump makes a backward that saved the old value fail clearly)."""
    if array is not tensor.data:
        tensor.data = np.asarray(array, tensor.data.dtype)
    tensor._version += 1


def _fill_list(out, arrays):
    out.clear()
    out.extend(Tensor(a) for a in arrays)


# ---- reductions --------------------------------------------------------------
def all_reduce(tensor, op=ReduceOp.SUM, group=None, sync_op=True):
    """Combine ``tensor`` over the ranks of ``group``; every rank gets the result."""
    _check_op('all_reduce', op)
    if in_static():
        tensor._inplace_assign(collective_ops.ALL_REDUCE[op](tensor, _group(group).id))
        return None
    _check_tensor('all_reduce', 'tensor', tensor)
    group = _group(group)
    if not group.is_member():
        return Task()
    pending = group.comm.all_reduce(tensor.data, op, 'all_reduce', in_place=True, sync=sync_op)
    return _finish(pending, lambda r: _set(tensor, r), sync_op)


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, sync_op=True):
    """Combine ``tensor`` over the ranks; the result lands on global rank ``dst``."""
    _check_op('reduce', op)
    group = _group(group)
    root = _group_rank('reduce', group, dst, 'dst') if group.is_member() else -1
    if in_static():
        tensor._inplace_assign(collective_ops.REDUCE[op](tensor, root, group.id))
        return None
    _check_tensor('reduce', 'tensor', tensor)
    if not group.is_member():
        return Task()
    pending = group.comm.reduce(tensor.data, root, op, 'reduce', sync=sync_op)
    return _finish(pending, lambda r: _set(tensor, r), sync_op)


def reduce_scatter(tensor, tensor_list, op=ReduceOp.SUM, group=None, sync_op=True):
    """Rank i gets the combination over the ranks of their ``tensor_list[i]``."""
    _check_op('reduce_scatter', op)
    _check_tensor('reduce_scatter', 'tensor', tensor)
    group = _group(group)
    if not group.is_member():
        return Task()
    if len(tensor_list) != group.nranks:
        raise ValueError("paddle.distributed.reduce_scatter: tensor_list needs %d tensors (one "
                         "per rank), got %d" % (group.nranks, len(tensor_list)))
    stacked = np.stack([t.data for t in tensor_list])
    pending = group.comm.all_reduce(stacked, op, 'reduce_scatter', sync=sync_op)
    return _finish(pending, lambda r: _set(tensor, r[group.rank]), sync_op)


# ---- one to all, all to one, all to all -----------------------------------------
def broadcast(tensor, src, group=None, sync_op=True):
    """Every rank gets global rank ``src``'s ``tensor``."""
    group = _group(group)
    root = _group_rank('broadcast', group, src, 'src') if group.is_member() else -1
    if in_static():
        tensor._inplace_assign(collective_ops.c_broadcast(tensor, root, group.id))
        return None
    _check_tensor('broadcast', 'tensor', tensor)
    if not group.is_member():
        return Task()
    pending = group.comm.broadcast(tensor.data, root, 'broadcast', in_place=True, sync=sync_op)
    return _finish(pending, lambda r: _set(tensor, r), sync_op)


def all_gather(tensor_list, tensor, group=None, sync_op=True):
    """Every rank's ``tensor``, in rank order: into the list ``tensor_list``
    (cleared first), or, when ``tensor_list`` is a Tensor, concatenated on axis 0 into it."""
    group = _group(group)
    if in_static():
        out = collective_ops.c_allgather(tensor, group.nranks, group.id)
        if isinstance(tensor_list, list):
            from ..ops.manipulation import split
            tensor_list.clear()
            tensor_list.extend(split(out, group.nranks, 0))
        return out
    _check_tensor('all_gather', 'tensor', tensor)
    if not group.is_member():
        return Task()
    pending = group.comm.all_gather(tensor.data, 'all_gather', sync=sync_op)

    def write(arrays):
        if isinstance(tensor_list, Tensor):
            _set(tensor_list, np.concatenate([np.reshape(a, (-1,) + a.shape[1:]) if a.ndim
                                              else a[None] for a in arrays]))
        else:
            _fill_list(tensor_list, arrays)
    return _finish(pending, write, sync_op)


def gather(tensor, gather_list=None, dst=0, group=None, sync_op=True):
    """Every rank's ``tensor`` into ``gather_list`` on global rank ``dst``."""
    _check_tensor('gather', 'tensor', tensor)
    group = _group(group)
    if not group.is_member():
        return Task()
    root = _group_rank('gather', group, dst, 'dst')
    if group.rank == root and gather_list is None:
        raise ValueError("paddle.distributed.gather: the dst rank needs a gather_list")
    pending = group.comm.gather(tensor.data, root, 'gather', sync=sync_op)
    return _finish(pending, lambda r: r is not None and _fill_list(gather_list, r), sync_op)


def scatter(tensor, tensor_list=None, src=0, group=None, sync_op=True):
    """Rank i gets ``tensor_list[i]`` of global rank ``src`` into ``tensor``."""
    group = _group(group)
    root = _group_rank('scatter', group, src, 'src') if group.is_member() else -1
    if in_static():
        source = tensor
        if tensor_list is not None:
            from ..ops.manipulation import concat
            source = concat(list(tensor_list), 0)
        tensor._inplace_assign(collective_ops.c_scatter(source, tensor, root, group.nranks,
                                                        group.id))
        return None
    _check_tensor('scatter', 'tensor', tensor)
    if not group.is_member():
        return Task()
    arrays = None
    if group.rank == root:
        if tensor_list is None:
            raise ValueError("paddle.distributed.scatter: the src rank needs a tensor_list")
        arrays = [t.data for t in tensor_list]
    pending = group.comm.scatter(arrays, tensor.data, root, 'scatter', sync=sync_op)
    return _finish(pending, lambda r: _set(tensor, r), sync_op)


def _split_rows(api, t, n):
    if t.data.ndim == 0 or t.data.shape[0] % n:
        raise ValueError("paddle.distributed.%s: the tensor's first dimension (shape %s) should "
                         "divide by the group size %d" % (api, list(t.data.shape), n))
    return list(np.split(t.data, n))


def alltoall(out_tensor_list, in_tensor_list, group=None, sync_op=True):
    """Rank i sends its ``in_tensor_list[j]`` to rank j, which puts it at
    ``out_tensor_list[i]``. Either may also be one Tensor split / concatenated on axis 0."""
    group = _group(group)
    if in_static():
        source = in_tensor_list
        if isinstance(source, (list, tuple)):
            from ..ops.manipulation import concat
            source = concat(list(source), 0)
        out = collective_ops.alltoall(source, group.id)
        if isinstance(out_tensor_list, list):
            from ..ops.manipulation import split
            out_tensor_list.clear()
            out_tensor_list.extend(split(out, group.nranks, 0))
        return out
    if not group.is_member():
        return Task()
    arrays = (_split_rows('alltoall', in_tensor_list, group.nranks)
              if isinstance(in_tensor_list, Tensor) else [t.data for t in in_tensor_list])
    pending = group.comm.alltoall(arrays, 'alltoall', sync=sync_op)

    def write(result):
        if isinstance(out_tensor_list, Tensor):
            _set(out_tensor_list, np.concatenate(result))
        else:
            _fill_list(out_tensor_list, result)
    return _finish(pending, write, sync_op)


def alltoall_single(out_tensor, in_tensor, in_split_sizes=None, out_split_sizes=None,
                    group=None, sync_op=True):
    """``alltoall`` of one tensor split into equal row blocks (sizes must be equal)."""
    group = _group(group)
    for name, sizes in (('in_split_sizes', in_split_sizes), ('out_split_sizes', out_split_sizes)):
        if sizes is not None and len(set(sizes)) > 1:
            raise ValueError("paddle.distributed.alltoall_single: %s %s: this build exchanges "
                             "equal blocks only" % (name, list(sizes)))
    return alltoall(out_tensor, in_tensor, group, sync_op)


# ---- Python objects (pickled: in memory between the ranks of one job) -------------
def _gather_objects(api, obj, group):
    group = _group(group)
    if not group.is_member():
        return None
    blobs = group.comm.all_gather_bytes(pickle.dumps(obj), api)
    return [pickle.loads(b) for b in blobs]


def all_gather_object(object_list, obj, group=None):
    """Every rank's picklable ``obj`` into ``object_list`` (cleared first), in rank order."""
    objs = _gather_objects('all_gather_object', obj, group)
    if objs is not None:
        object_list.clear()
        object_list.extend(objs)


def broadcast_object_list(object_list, src, group=None):
    """Replace ``object_list``'s items with global rank ``src``'s."""
    g = _group(group)
    root = _group_rank('broadcast_object_list', g, src, 'src') if g.is_member() else -1
    objs = _gather_objects('broadcast_object_list', list(object_list), g)
    if objs is not None:
        object_list[:] = objs[root]


def scatter_object_list(out_object_list, in_object_list=None, src=0, group=None):
    g = _group(group)
    root = _group_rank('scatter_object_list', g, src, 'src') if g.is_member() else -1
    mine = list(in_object_list) if g.rank == root else None
    objs = _gather_objects('scatter_object_list', mine, g)
    if objs is not None:
        out_object_list.clear()
        out_object_list.append(objs[root][g.rank])


# ---- point to point --------------------------------------------------------------
def send(tensor, dst=0, group=None, sync_op=True):
    """Send ``tensor`` to global rank ``dst`` (which calls ``recv``)."""
    _check_tensor('send', 'tensor', tensor)
    group = _group(group)
    if not group.is_member():
        return Task()
    pending = group.comm.send(tensor.data, _group_rank('send', group, dst, 'dst'), 'send')
    return _finish(pending, None, sync_op)


def recv(tensor, src=0, group=None, sync_op=True):
    """Receive into ``tensor`` what global rank ``src`` sends (same shape and dtype)."""
    _check_tensor('recv', 'tensor', tensor)
    group = _group(group)
    if not group.is_member():
        return Task()
    pending = group.comm.recv(tensor.data, _group_rank('recv', group, src, 'src'), 'recv')
    return _finish(pending, lambda r: _set(tensor, r), sync_op)


def isend(tensor, dst, group=None):
    """``send`` without waiting: returns a Task."""
    return send(tensor, dst, group, sync_op=False)


def irecv(tensor, src=None, group=None):
    """``recv`` without waiting: returns a Task; ``wait()`` fills ``tensor``."""
    return recv(tensor, 0 if src is None else src, group, sync_op=False)


def _peer(api, group, rank, rank_in_group, what):
    if rank_in_group is not None:
        return rank_in_group
    if rank is None:
        raise ValueError("paddle.distributed.%s: give %s or %s_in_group" % (api, what, what))
    return _group_rank(api, group, rank, what)


def send_object_list(object_list, dst=None, group=None, dst_in_group=None):
    """Send the picklable objects of ``object_list`` to global rank ``dst``
    (``recv_object_list`` there, with a list of the same length)."""
    group = _group(group)
    if not group.is_member():
        return
    peer = _peer('send_object_list', group, dst, dst_in_group, 'dst')
    data = np.frombuffer(pickle.dumps(list(object_list)), np.uint8)
    group.comm.send(np.array([data.size], np.int64), peer, 'send_object_list').wait()
    group.comm.send(data, peer, 'send_object_list').wait()


def recv_object_list(object_list, src=None, group=None, src_in_group=None):
    """Fill ``object_list`` in place with the objects global rank ``src`` sends."""
    group = _group(group)
    if not group.is_member():
        return
    peer = _peer('recv_object_list', group, src, src_in_group, 'src')
    size = group.comm.recv(np.zeros(1, np.int64), peer, 'recv_object_list').wait()
    data = group.comm.recv(np.zeros(int(size[0]), np.uint8), peer, 'recv_object_list').wait()
    objs = pickle.loads(data.tobytes())
    if len(objs) != len(object_list):
        raise ValueError("paddle.distributed.recv_object_list: rank %d sent %d objects, the "
                         "list to fill has %d" % (group.ranks[peer], len(objs), len(object_list)))
    object_list[:] = objs


def wait(tensor, group=None, use_calc_stream=True):
    """Nothing to wait for: on the CPU a synchronous collective has completed."""
