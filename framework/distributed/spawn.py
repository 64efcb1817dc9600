"""``paddle.distributed.spawn(func, args, nprocs)``: run ``func(*args)`` in ``nprocs`` ranks.

The ranks are started by ``mpiexec`` (as ``launch`` does), each running
``framework.distributed._spawn_worker``, which loads ``func`` and ``args``
from a pickle file: ``func`` must be importable by its module and name, as
with multiprocessing's spawn. A function of the main script is found by
running that script as ``__mp_main__`` (so keep its top level under ``if
__name__ == '__main__':``). Without MPI one process runs ``func``.
"""
import os
import pickle
import subprocess
import sys
import tempfile

from .backend import INSTALL_HINT, mpi_available

__all__ = ['spawn', 'MultiprocessContext']


class MultiprocessContext:
    """The started job: ``join()`` waits for it and raises if a rank failed."""

    def __init__(self, process, payload):
        self.processes = [process]
        self._payload = payload

    def join(self, timeout=None):
        p = self.processes[0]
        try:
            code = p.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        if os.path.exists(self._payload):
            os.unlink(self._payload)
        if code != 0:
            raise RuntimeError("paddle.distributed.spawn: the job failed (exit code %d); the "
                               "failing rank's error is printed above" % code)
        return True


def _main_path():
    main = sys.modules.get('__main__')
    path = getattr(main, '__file__', None)
    return os.path.abspath(path) if path else None


def spawn(func, args=(), nprocs=-1, join=True, daemon=False, **options):
    """Run ``func(*args)`` in ``nprocs`` processes that form one MPI world."""
    from .launch import find_mpiexec, mpiexec_command
    if nprocs == -1:
        nprocs = int(os.environ.get('CPU_NUM', 0)) or os.cpu_count() or 1
    if not isinstance(nprocs, int) or nprocs < 1:
        raise ValueError("paddle.distributed.spawn: nprocs should be a positive int or -1, "
                         "got %r" % (nprocs,))
    module = getattr(func, '__module__', None)
    name = getattr(func, '__qualname__', None)
    if module is None or name is None or '<' in name:
        raise ValueError("paddle.distributed.spawn: func must be a module-level function "
                         "(importable by name), got %r" % (func,))
    fd, payload = tempfile.mkstemp(suffix='.spawn.pkl')
    with os.fdopen(fd, 'wb') as f:
        pickle.dump({'module': module, 'name': name, 'args': tuple(args),
                     'main_path': _main_path()}, f)
    worker = ['-m', 'framework.distributed._spawn_worker', payload]
    mpiexec = find_mpiexec(options.get('mpiexec'))
    env = dict(os.environ)
    # the ranks import func's module as this process does
    env['PYTHONPATH'] = os.pathsep.join([p for p in sys.path if p] +
                                        ([env['PYTHONPATH']] if env.get('PYTHONPATH') else []))
    if mpiexec is None or not mpi_available():
        if nprocs > 1:
            os.unlink(payload)
            raise RuntimeError("paddle.distributed.spawn: %d processes need MPI; %s"
                               % (nprocs, INSTALL_HINT))
        cmd = [sys.executable] + worker
    else:
        cmd = mpiexec_command(worker, nprocs, (), mpiexec, env=env)
    context = MultiprocessContext(subprocess.Popen(cmd, env=env), payload)
    if join:
        context.join()
    return context
