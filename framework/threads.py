"""How many threads the numerical libraries under the kernels may use.

numpy's BLAS (OpenBLAS or MKL) starts one thread per core and uses all of
them on every matrix product, tiny or not. When the cores are shared (a
DataLoader, another job, a test runner) those threads spin against each
other: a CNN training step measured 4-6x slower with 2 BLAS threads than with
1 on a busy 2-core machine. So the framework runs BLAS on one thread unless
told otherwise:

* ``OMP_NUM_THREADS`` (or ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``) set
  in the environment: that count is kept, as the libraries read it;
* ``set_num_threads(n)``: ``n`` threads from then on (as ``torch.set_num_threads``),
  for BLAS and for the OpenMP threads of the oneDNN kernels alike: the two
  alternate within a step, and two pools with different counts fight.

The limits go through threadpoolctl, which finds the BLAS libraries numpy
loaded and calls their own thread-count functions.
"""
import os

import numpy  # noqa: F401  (loads the BLAS that threadpoolctl looks for)
from threadpoolctl import ThreadpoolController

_ENV_VARS = ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS')
_controller = None
_listeners = []      # fn(n): other thread pools under the kernels (oneDNN's OpenMP)


def on_change(fn):
    """Call ``fn(n)`` whenever the thread count is set (one policy governs
    BLAS and every kernel backend's threads)."""
    _listeners.append(fn)


def _blas():
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    return _controller.select(user_api='blas')


def set_num_threads(n):
    """Use ``n`` threads (a positive int) in the BLAS under matmul, conv and
    the other kernels."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError("set_num_threads: num_threads must be a positive int, got %r" % (n,))
    _blas().limit(limits=n)
    for fn in _listeners:
        fn(n)


def get_num_threads():
    """The thread count the BLAS under the kernels uses now (1 without BLAS)."""
    counts = [lib.num_threads for lib in _blas().lib_controllers]
    return max(counts) if counts else 1


def apply_default():
    """One BLAS thread unless the environment asks for a count (see above)."""
    if not any(os.environ.get(v) for v in _ENV_VARS):
        _blas().limit(limits=1)
