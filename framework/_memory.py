"""Keep large numpy buffers on the heap.

glibc serves allocations above its mmap threshold (128 KiB at first) with
fresh ``mmap`` pages and unmaps them on free, so every large temporary a
kernel creates (an im2col buffer, a matmul output, an optimizer moment) pays
for page faults again on every step — measured here as 2-3x the cost of the
arithmetic itself for an Adam update of a 784x512 weight. Raising the mmap and
trim thresholds lets freed buffers be reused, as PyTorch's caching allocator
does. Set ``FRAMEWORK_KEEP_MALLOC=1`` to leave the C allocator alone.
"""
import ctypes
import ctypes.util
import os
import sys

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


def tune_allocator(mmap_threshold=256 << 20, trim_threshold=512 << 20):
    """Raise glibc's thresholds (Linux only; a no-op elsewhere). Returns True if applied."""
    if os.environ.get('FRAMEWORK_KEEP_MALLOC') or not sys.platform.startswith('linux'):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False       # not glibc (e.g. musl): leave it alone
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = mallopt(_M_MMAP_THRESHOLD, mmap_threshold) == 1
    return mallopt(_M_TRIM_THRESHOLD, trim_threshold) == 1 and ok
