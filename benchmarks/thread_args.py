"""``--threads N`` for the benchmarks: it must take effect before numpy and
torch load their BLAS, so it is read from ``sys.argv`` at import time and put
into the thread-count environment variables. Import this module first."""
import os
import sys

_ENV_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')


def threads_from_argv(default=None):
    """The ``--threads`` value of the command line (a string), else ``default``;
    a value found is exported to the BLAS thread-count variables."""
    value = default
    for i, a in enumerate(sys.argv):
        if a == '--threads' and i + 1 < len(sys.argv):
            value = sys.argv[i + 1]
        elif a.startswith('--threads='):
            value = a.split('=', 1)[1]
    if value:
        for var in _ENV_VARS:
            os.environ[var] = value
    return value
