"""Softmax on oneDNN, forward, over one axis of an array of any rank and
strides (the result is written into the caller's array)."""
from . import constants as C


def forward(rt, x, axis, y):
    """``y[:] = softmax(x)`` along ``axis``."""
    key = ('softmax', x.shape, x.strides, y.strides, axis, rt.threads())

    def build(plan):
        ux, uy = rt.desc_of(x), rt.desc_of(y)
        pd = plan.primitive_desc(rt.lib.dnnl_softmax_forward_primitive_desc_create,
                                 'softmax forward', C.FORWARD_INFERENCE, C.SOFTMAX_ACCURATE,
                                 ux.handle, uy.handle, axis)
        plan.add(pd, {C.ARG_SRC: plan.user(0, ux), C.ARG_DST: plan.user(1, uy)},
                 'softmax forward')

    return y if rt.run(key, build, x, y) else None
