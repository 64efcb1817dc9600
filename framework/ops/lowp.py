"""Half-precision kernels: compute in float32, round the result once.

GPU kernels for float16/bfloat16 accumulate matrix products and convolutions in
float32 and round the output to the input dtype; numpy has no BLAS for float16
and gives float32 results for bfloat16 matrix products (``ml_dtypes``). A kernel
wrapped with ``float32_compute`` sees float32 arrays when its inputs are half
precision and hands back floating outputs in that half dtype, so its output
dtype is its input dtype (what ``infer_meta`` says) and the numbers are the
GPU's: one rounding at the end.
"""
import functools

import numpy as np

from .. import dtype as _dt

_F32 = np.dtype(np.float32)
_ndarray = np.ndarray


def _half_of(arrays):
    for a in arrays:
        if isinstance(a, np.ndarray) and a.dtype.itemsize == 2 and _dt.is_half(a.dtype):
            return a.dtype
        if isinstance(a, list):
            d = _half_of(a)
            if d is not None:
                return d
    return None


def _up(a):
    if isinstance(a, np.ndarray) and a.dtype.itemsize == 2 and _dt.is_half(a.dtype):
        return a.astype(_F32)
    if isinstance(a, list):
        return [_up(v) for v in a]
    return a


def _down(out, half):
    if isinstance(out, (np.ndarray, np.generic)):
        return np.asarray(out).astype(half) if out.dtype == _F32 else out
    if isinstance(out, tuple):
        return tuple(_down(o, half) for o in out)
    if isinstance(out, list):
        return [_down(o, half) for o in out]
    return out


def float32_compute(kernel):
    """Decorator for a kernel (see the module docstring)."""
    @functools.wraps(kernel)
    def wrapped(*args):
        # the common case (no 2-byte array, no list of arrays) costs one look
        # at each argument: these kernels are matmul, conv and friends
        for a in args:
            t = type(a)
            if t is _ndarray and a.dtype.itemsize == 2 or t is list:
                half = _half_of(args)
                if half is not None:
                    return _down(kernel(*[_up(a) for a in args]), half)
                break
        return kernel(*args)
    # the static code generator calls this directly where the Program's dtypes
    # prove that no input is half precision (graph/lean.py)
    wrapped.full_precision_kernel = kernel
    return wrapped
