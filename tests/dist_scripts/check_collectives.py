"""Run by tests/test_distributed.py under ``mpiexec -n 2``: every collective
against numpy, eagerly and in a static Program, plus the errors. Prints one
``rank<r> PASS <check>`` or ``rank<r> FAIL <check>: <error>`` line per check."""
import sys
import time
import traceback

import numpy as np

import framework as paddle
import framework.distributed as dist
from framework.distributed import ReduceOp

dist.init_parallel_env()
RANK, N = dist.get_rank(), dist.get_world_size()
CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def data(r, shape=(2, 3), dtype='float64', seed=0):
    """Rank r's input: every rank can compute every other rank's."""
    return np.random.default_rng(seed * 100 + r).standard_normal(shape).astype(dtype)


def all_data(shape=(2, 3), dtype='float64', seed=0):
    return [data(r, shape, dtype, seed) for r in range(N)]


def close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-12, atol=1e-12)


REFS = {ReduceOp.SUM: lambda a: np.sum(a, 0), ReduceOp.MAX: lambda a: np.max(a, 0),
        ReduceOp.MIN: lambda a: np.min(a, 0), ReduceOp.PROD: lambda a: np.prod(a, 0),
        ReduceOp.AVG: lambda a: np.mean(a, 0)}


# ---- eager ------------------------------------------------------------------------
@check
def env():
    assert N == 2 and dist.is_initialized()
    e = dist.ParallelEnv()
    assert (e.rank, e.world_size, e.nranks, e.local_rank, e.dev_id) == (RANK, 2, 2, RANK, 0)
    assert paddle.distributed.fleet.worker_index() == RANK


@check
def all_reduce_every_op():
    for op, ref in REFS.items():
        for dtype in ('float64', 'float32'):
            x = paddle.to_tensor(data(RANK, dtype=dtype, seed=op))
            task = dist.all_reduce(x, op)
            task.wait()
            assert x.dtype == paddle.to_tensor(np.zeros(1, dtype)).dtype
            np.testing.assert_allclose(x.numpy(), ref(np.stack(all_data(dtype=dtype, seed=op))),
                                       rtol=1e-6 if dtype == 'float32' else 1e-12)


@check
def all_reduce_ints_bools_async():
    x = paddle.to_tensor(np.array([RANK + 1, 5], 'int64'))
    task = dist.all_reduce(x, ReduceOp.PROD, sync_op=False)
    task.wait()
    assert x.numpy().tolist() == [2, 25]
    b = paddle.to_tensor(np.array([RANK == 0, False]))
    dist.all_reduce(b, ReduceOp.MAX)
    assert b.numpy().tolist() == [True, False]
    h = paddle.to_tensor(np.array([0.5 + RANK], 'float16'))
    dist.all_reduce(h)
    assert h.numpy().dtype == np.float16 and h.numpy().tolist() == [2.0]


@check
def broadcast_and_reduce():
    for src in range(N):
        x = paddle.to_tensor(data(RANK, seed=3))
        dist.broadcast(x, src)
        close(x.numpy(), data(src, seed=3))
    for dst in range(N):
        x = paddle.to_tensor(data(RANK, seed=4))
        dist.reduce(x, dst, ReduceOp.SUM)
        close(x.numpy(), np.sum(all_data(seed=4), 0) if RANK == dst else data(RANK, seed=4))
    x = paddle.to_tensor(data(RANK, seed=5))
    dist.reduce(x, 0, ReduceOp.MAX)
    if RANK == 0:
        close(x.numpy(), np.max(all_data(seed=5), 0))


@check
def all_gather_list_and_tensor():
    out = []
    dist.all_gather(out, paddle.to_tensor(data(RANK, seed=6)))
    for got, want in zip(out, all_data(seed=6)):
        close(got.numpy(), want)
    assert len(out) == N
    whole = paddle.zeros([2 * N, 3], 'float64')
    dist.all_gather(whole, paddle.to_tensor(data(RANK, seed=6)))
    close(whole.numpy(), np.concatenate(all_data(seed=6)))
    objs = []
    dist.all_gather_object(objs, {'rank': RANK, 'name': 'r%d' % RANK})
    assert objs == [{'rank': r, 'name': 'r%d' % r} for r in range(N)]


@check
def scatter_gather():
    parts = [data(r, seed=7) for r in range(N)]
    x = paddle.zeros([2, 3], 'float64')
    dist.scatter(x, [paddle.to_tensor(p) for p in parts] if RANK == 1 else None, src=1)
    close(x.numpy(), parts[RANK])
    got = []
    dist.gather(paddle.to_tensor(data(RANK, seed=8)), got if RANK == 0 else None, dst=0)
    if RANK == 0:
        assert len(got) == N
        for g, w in zip(got, all_data(seed=8)):
            close(g.numpy(), w)


@check
def alltoall_lists_and_tensors():
    ins = [paddle.to_tensor(data(10 * RANK + j, seed=9)) for j in range(N)]
    out = []
    dist.alltoall(out, ins)
    for i, got in enumerate(out):
        close(got.numpy(), data(10 * i + RANK, seed=9))
    whole_in = paddle.to_tensor(np.concatenate([t.numpy() for t in ins]))
    whole_out = paddle.zeros([2 * N, 3], 'float64')
    dist.alltoall(whole_out, whole_in)
    close(whole_out.numpy(), np.concatenate([o.numpy() for o in out]))


@check
def reduce_scatter_and_objects():
    lst = [paddle.to_tensor(data(10 * RANK + j, seed=10)) for j in range(N)]
    x = paddle.zeros([2, 3], 'float64')
    dist.reduce_scatter(x, lst)
    close(x.numpy(), sum(data(10 * r + RANK, seed=10) for r in range(N)))
    objs = ['a%d' % RANK, RANK]
    dist.broadcast_object_list(objs, src=1)
    assert objs == ['a1', 1]


@check
def send_recv_and_tasks():
    peer = 1 - RANK
    if RANK == 0:
        dist.send(paddle.to_tensor(data(0, seed=11)), dst=1)
        y = paddle.zeros([2, 3], 'float64')
        dist.recv(y, src=1)
        close(y.numpy(), data(1, seed=11))
    else:
        y = paddle.zeros([2, 3], 'float64')
        dist.recv(y, src=0)
        close(y.numpy(), data(0, seed=11))
        dist.send(paddle.to_tensor(data(1, seed=11)), dst=0)
    out = paddle.zeros([4], 'float32')
    tasks = [dist.isend(paddle.to_tensor(np.arange(4, dtype='float32') + RANK), peer),
             dist.irecv(out, peer)]
    for t in tasks:
        t.wait()
    assert all(t.is_completed() for t in tasks)
    close(out.numpy(), np.arange(4) + peer)


@check
def object_lists_point_to_point():
    if RANK == 0:
        dist.send_object_list([{'k': 1}, 'two', 3.0], dst=1)
    else:
        got = [None, None, None]
        dist.recv_object_list(got, src=0)
        assert got == [{'k': 1}, 'two', 3.0], got
    objs = [RANK] * 2
    dist.scatter_object_list(objs, ['a', 'b'] if RANK == 0 else None, src=0)
    assert objs == [['a', 'b'][RANK]], objs


@check
def groups():
    g = dist.new_group([0, 1])
    assert (g.nranks, g.rank, g.id) == (2, RANK, g.id) and g.id > 0
    x = paddle.to_tensor(np.array([1.0 + RANK]))
    dist.all_reduce(x, group=g)
    assert x.numpy().tolist() == [3.0]
    solo = dist.new_group([1])
    y = paddle.to_tensor(np.array([5.0]))
    dist.all_reduce(y, group=solo)          # rank 0 is not a member: returns at once
    assert y.numpy().tolist() == [5.0]
    assert solo.rank == (0 if RANK == 1 else -1)
    dist.barrier(g)
    dist.destroy_process_group(solo)


@check
def mismatched_shapes_name_the_op_and_shapes():
    x = paddle.zeros([2, 2 + RANK], 'float32')
    try:
        dist.all_reduce(x)
    except dist.CommunicationError as e:
        msg = str(e)
        assert 'all_reduce' in msg and '[2, 2]' in msg and '[2, 3]' in msg, msg
    else:
        raise AssertionError('no error')
    try:
        if RANK == 0:
            dist.all_reduce(paddle.zeros([2]))
        else:
            dist.broadcast(paddle.zeros([2]), 0)
    except dist.CommunicationError as e:
        assert 'all_reduce' in str(e) and 'broadcast' in str(e), str(e)
    else:
        raise AssertionError('no error')


@check
def recv_shape_mismatch():
    try:
        if RANK == 0:
            dist.send(paddle.zeros([3], 'float64'), dst=1)
        else:
            dist.recv(paddle.zeros([3], 'float32'), src=0)
    except dist.CommunicationError as e:
        assert RANK == 1 and 'float64' in str(e) and 'float32' in str(e), str(e)
    else:
        assert RANK == 0, 'no error on the receiving rank'


# ---- static ----------------------------------------------------------------------------
def run_static(build, feeds):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            fetches = build()
        exe = paddle.static.Executor()
        exe.run(startup)
        return exe.run(main, feed=feeds, fetch_list=fetches)
    finally:
        paddle.disable_static()


@check
def static_all_reduce_every_op():
    for op, ref in REFS.items():
        def build():
            x = paddle.static.data('x', [2, 3], 'float64')
            y = x * 1.0
            dist.all_reduce(y, op)
            return [y]
        out, = run_static(build, {'x': data(RANK, seed=20 + op)})
        close(out, ref(np.stack(all_data(seed=20 + op))))


@check
def static_program_holds_collective_ops():
    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', [2, 3], 'float64')
            dist.all_reduce(x)
            dist.broadcast(x, 1)
        types = [op.type for op in main.global_block().ops]
        assert 'c_allreduce_sum' in types and 'c_broadcast' in types, types
    finally:
        paddle.disable_static()


@check
def static_broadcast_reduce_gather_scatter_alltoall():
    def build():
        x = paddle.static.data('x', [2, 3], 'float64')
        b = x * 1.0
        dist.broadcast(b, 1)
        r = x * 1.0
        dist.reduce(r, 0)
        parts = []
        g = dist.all_gather(parts, x)
        s = paddle.static.data('s', [2 * N, 3], 'float64')
        sc = x * 0.0
        dist.scatter(sc, [s[:2], s[2:]], src=0)
        a = dist.alltoall(None, s)
        return [b, r, g, parts[1], sc, a]
    s_all = [np.concatenate([data(10 * r + j, seed=22) for j in range(N)]) for r in range(N)]
    b, r, g, p1, sc, a = run_static(build, {'x': data(RANK, seed=21), 's': s_all[RANK]})
    close(b, data(1, seed=21))
    if RANK == 0:
        close(r, np.sum(all_data(seed=21), 0))
    close(g, np.concatenate(all_data(seed=21)))
    close(p1, data(1, seed=21))
    close(sc, s_all[0][2 * RANK:2 * RANK + 2])
    close(a, np.concatenate([s_all[i][2 * RANK:2 * RANK + 2] for i in range(N)]))


@check
def static_allreduce_gradient():
    # d/dx sum(w * allreduce_sum(x)) on rank r is the sum over ranks of w
    def build():
        x = paddle.static.data('x', [3], 'float64')
        x.stop_gradient = False
        w = paddle.static.data('w', [3], 'float64')
        y = dist.ops.c_allreduce_sum(x * 1.0)
        loss = (y * w).sum()
        gx, = paddle.static.gradients([loss], [x])
        return [gx]
    ws = [data(r, (3,), seed=23) for r in range(N)]
    gx, = run_static(build, {'x': data(RANK, (3,), seed=24), 'w': ws[RANK]})
    close(gx, np.sum(ws, 0))


@check
def collective_timeout():
    # last: the group's communicator keeps rank 0's unmatched request
    group = dist.new_group([0, 1], timeout=1)
    if RANK == 0:
        start = time.monotonic()
        try:
            dist.all_reduce(paddle.ones([4]), group=group)
        except dist.CommunicationTimeout as e:
            assert 'all_reduce on rank 0 did not complete within 1 s' in str(e), str(e)
        else:
            raise AssertionError('no timeout')
        assert 0.9 < time.monotonic() - start < 60
    dist.barrier()


def main():
    failed = 0
    for fn in CHECKS:
        try:
            fn()
            print('rank%d PASS %s' % (RANK, fn.__name__), flush=True)
        except Exception:
            failed += 1
            print('rank%d FAIL %s: %s' % (RANK, fn.__name__,
                                          traceback.format_exc().replace('\n', ' | ')), flush=True)
    dist.barrier()
    sys.exit(0)


if __name__ == '__main__':
    main()
