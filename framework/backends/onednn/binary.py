"""Elementwise binary ops on oneDNN (``binary``): two tensors of one shape,
either in any layout (``Blocked`` values included), into a third."""
from . import constants as C


def forward(rt, alg, a, b, y):
    """``y[:] = a (op) b`` for binary algorithm ``alg`` (``BINARY_ADD``...);
    ``y`` is laid out as ``a`` is. None where oneDNN has no fast
    implementation."""
    key = ('binary', alg, a.shape, a.strides, b.strides, y.strides, rt.threads())

    def build(plan):
        ua, ub, uy = rt.desc_of(a), rt.desc_of(b), rt.desc_of(y)
        pd = plan.primitive_desc(rt.lib.dnnl_binary_primitive_desc_create, 'binary', alg,
                                 ua.handle, ub.handle, uy.handle)
        plan.add(pd, {C.ARG_SRC: plan.user(0, ua), C.ARG_SRC_1: plan.user(1, ub),
                      C.ARG_DST: plan.user(2, uy)}, 'binary')

    return y if rt.run(key, build, a, b, y) else None
