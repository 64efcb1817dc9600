"""Softmax and log-softmax on oneDNN, forward, over one axis of an array of
any rank and strides (the result is written into the caller's array)."""
from . import constants as C

_ALGORITHMS = {False: C.SOFTMAX_ACCURATE, True: C.SOFTMAX_LOG}


def forward(rt, x, axis, log, y):
    """``y[:] = softmax(x)`` along ``axis`` (``log``: log-softmax)."""
    key = ('softmax', x.shape, x.strides, y.strides, axis, log, rt.threads())

    def build(plan):
        ux, uy = rt.desc_of(x), rt.desc_of(y)
        pd = plan.primitive_desc(rt.lib.dnnl_softmax_forward_primitive_desc_create,
                                 'softmax forward', C.FORWARD_INFERENCE, _ALGORITHMS[log],
                                 ux.handle, uy.handle, axis)
        plan.add(pd, {C.ARG_SRC: plan.user(0, ux), C.ARG_DST: plan.user(1, uy)},
                 'softmax forward')

    return y if rt.run(key, build, x, y) else None
