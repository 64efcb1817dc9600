"""Data parallel on MPI: all-reduce bandwidth against raw mpi4py, and step time.

    python3 benchmarks/bench_distributed.py [--quick]

1. ``paddle.distributed.all_reduce`` on a Tensor against mpi4py's
   ``Comm.Allreduce(IN_PLACE, buf)`` on the same numpy buffer, 2 ranks, sizes
   from 4 KB to 16 MB: ratio = our time / mpi4py's (1.0 = no overhead; ours
   adds the shape-check header exchange and the polling wait, which is what
   small messages show).
2. One training step (forward, backward with the bucketed all-reduce,
   SGD) of an MLP 784-1024-1024-10 at a global batch of 256: 2 ranks with
   128 each against 1 process with 256. ratio = 2-rank / 1-rank step time
   (below 1: data parallel pays off; on a 2-core machine at most 2x faster).

Measured on the 2-core dev machine while other jobs kept its load average
near 11 (so every figure is noisy, the step times most): all_reduce 4 KB
66 us vs 4.5 us (14.8x: the header exchange is a second collective, plus
Python), 256 KB 1.09x, 4 MB 1.10x, 16 MB 0.68x (large messages: the same
MPI call, within the noise); MLP step 487 ms on 2 ranks vs 358 ms on 1
(1.36x: with the cores oversubscribed the two ranks do not get a core each).

The 2-rank part runs this file under ``mpiexec -n 2`` (``--worker``), the
1-rank step in this process; BLAS uses one thread per process in both, so
the two ranks use the two cores the single process's BLAS would use.
``run_all.py`` prints the same rows (``fig_distributed``).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
import framework as paddle  # noqa: E402

SIZES = [4 << 10, 256 << 10, 4 << 20, 16 << 20]      # bytes (float32 buffers)
GLOBAL_BATCH = 256


def mlp():
    paddle.seed(0)
    return paddle.nn.Sequential(paddle.nn.Linear(784, 1024), paddle.nn.ReLU(),
                                paddle.nn.Linear(1024, 1024), paddle.nn.ReLU(),
                                paddle.nn.Linear(1024, 10))


def step_fn(model, batch):
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((batch, 784)).astype('float32'))
    y = paddle.to_tensor(rng.integers(0, 10, (batch, 1)))
    opt = paddle.optimizer.SGD(0.01, parameters=model.parameters())

    def step():
        loss = paddle.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step


def median_time(fn, reps, sync=None):
    """Median seconds of ``fn`` over ``reps`` calls (``sync`` first, so the
    ranks start each call together)."""
    times = []
    for _ in range(reps):
        if sync:
            sync()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


# ---- the 2-rank worker -------------------------------------------------------------------
def worker(quick):
    import framework.distributed as dist
    from mpi4py import MPI
    dist.init_parallel_env()
    comm = MPI.COMM_WORLD
    reps = 5 if quick else 30
    result = {'allreduce': []}
    for nbytes in SIZES:
        arr = np.ones(nbytes // 4, np.float32)
        tensor = paddle.to_tensor(arr)
        raw = arr.copy()
        ours = lambda: dist.all_reduce(tensor)                       # noqa: E731
        theirs = lambda: comm.Allreduce(MPI.IN_PLACE, raw, op=MPI.SUM)  # noqa: E731
        ours(), theirs()
        t_ours, t_raw = [], []
        for _ in range(3):                   # interleaved: the machine's load hits both
            t_ours.append(median_time(ours, reps, comm.Barrier))
            t_raw.append(median_time(theirs, reps, comm.Barrier))
        result['allreduce'].append({'bytes': nbytes, 'ours_s': min(t_ours), 'mpi4py_s': min(t_raw)})
    model = paddle.DataParallel(mlp())
    step = step_fn(model, GLOBAL_BATCH // dist.get_world_size())
    step()
    result['dp_step_s'] = median_time(step, 3 if quick else 10, comm.Barrier)
    if dist.get_rank() == 0:
        print('RESULT ' + json.dumps(result), flush=True)


# ---- the driver ------------------------------------------------------------------------------
def run_two_ranks(quick):
    """The worker's results (a dict), or None with the reason when MPI is missing."""
    from framework.distributed import backend
    from framework.distributed.launch import find_mpiexec, mpiexec_command
    if not backend.mpi_available() or find_mpiexec() is None:
        return None, 'MPI not installed: ' + backend.INSTALL_HINT
    env = dict(os.environ)
    env['PYTHONPATH'] = ROOT + os.pathsep + env.get('PYTHONPATH', '')
    for var in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'):
        env[var] = '1'
    argv = [os.path.abspath(__file__), '--worker'] + (['--quick'] if quick else [])
    out = subprocess.run(mpiexec_command(argv, 2, (), find_mpiexec(), env={}), env=env,
                         capture_output=True, text=True, timeout=1800)
    for line in out.stdout.splitlines():
        if line.startswith('RESULT '):
            return json.loads(line[len('RESULT '):]), ''
    return None, 'the 2-rank run failed: %s' % out.stderr[-1000:]


def one_rank_step(quick):
    threads = paddle.get_num_threads()
    paddle.set_num_threads(1)           # as each rank of the 2-rank run
    try:
        step = step_fn(mlp(), GLOBAL_BATCH)
        step()
        return median_time(step, 3 if quick else 10)
    finally:
        paddle.set_num_threads(threads)


def measure(quick=False):
    """[(figure, ours, reference, unit, reference name)] (reference None: n/a, with a note)."""
    two, why = run_two_ranks(quick)
    single = one_rank_step(quick)
    if two is None:
        return [('mlp step, 2 ranks vs 1 (global batch %d)' % GLOBAL_BATCH, None, single * 1e3,
                 'ms', '1 rank', why)]
    rows = []
    for r in two['allreduce']:
        label = 'all_reduce %s f32, 2 ranks' % _size(r['bytes'])
        rows.append((label, r['ours_s'] * 1e6, r['mpi4py_s'] * 1e6, 'us', 'mpi4py', ''))
    rows.append(('mlp step, 2 ranks vs 1 (global batch %d)' % GLOBAL_BATCH,
                 two['dp_step_s'] * 1e3, single * 1e3, 'ms', '1 rank', ''))
    return rows


def _size(nbytes):
    return '%d MB' % (nbytes >> 20) if nbytes >= 1 << 20 else '%d KB' % (nbytes >> 10)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='fewer repetitions (smoke run)')
    ap.add_argument('--worker', action='store_true', help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args.quick)
    print('%-44s %12s %12s %8s' % ('figure', 'ours', 'reference', 'ratio'))
    for label, ours, ref, unit, ref_name, note in measure(args.quick):
        if ours is None:
            print('%-44s %12s %12s %8s  %s' % (label, 'n/a', '%.3g %s' % (ref, unit), 'n/a', note))
        else:
            print('%-44s %9.3g %s %9.3g %s %7.2fx  (%s)' % (label, ours, unit, ref, unit,
                                                          ours / ref, ref_name))


if __name__ == '__main__':
    main()
