"""Elementwise activations on oneDNN (``eltwise``), forward and backward,
over arrays of any rank and strides. oneDNN's vectorized formulas pay where
numpy's are slow: GELU's erf (40x numpy's on [2048, 1024])."""
from . import constants as C


def _pd(plan, rt, prop, alg, ux, alpha, beta):
    return plan.primitive_desc(rt.lib.dnnl_eltwise_forward_primitive_desc_create,
                               'eltwise forward', prop, alg, ux.handle, ux.handle,
                               float(alpha), float(beta))


def forward(rt, x, alg, alpha, beta, y):
    """``y[:] = f(x)`` for eltwise algorithm ``alg`` with ``alpha``/``beta``."""
    key = ('eltwise', x.shape, x.strides, y.strides, alg, alpha, beta, rt.threads())

    def build(plan):
        ux, uy = rt.desc_of(x), rt.desc_of(y)
        pd = _pd(plan, rt, C.FORWARD_INFERENCE, alg, ux, alpha, beta)
        plan.add(pd, {C.ARG_SRC: plan.user(0, ux), C.ARG_DST: plan.user(1, uy)},
                 'eltwise forward')

    return y if rt.run(key, build, x, y) else None


def backward(rt, g, x, alg, alpha, beta, gx):
    """``gx[:] = g * f'(x)``."""
    key = ('eltwise_bwd', x.shape, x.strides, g.strides, gx.strides, alg, alpha, beta,
           rt.threads())

    def build(plan):
        ux, ug, ugx = rt.desc_of(x), rt.desc_of(g), rt.desc_of(gx)
        hint = _pd(plan, rt, C.FORWARD_TRAINING, alg, ux, alpha, beta)
        plan.keep(hint)
        pd = plan.primitive_desc(rt.lib.dnnl_eltwise_backward_primitive_desc_create,
                                 'eltwise backward', alg, ugx.handle, ug.handle, ux.handle,
                                 float(alpha), float(beta), hint.handle)
        plan.add(pd, {C.ARG_DIFF_DST: plan.user(0, ug), C.ARG_SRC: plan.user(1, ux),
                      C.ARG_DIFF_SRC: plan.user(2, ugx)}, 'eltwise backward')

    return gx if rt.run(key, build, g, x, gx) else None
