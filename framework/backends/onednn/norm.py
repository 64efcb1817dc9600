"""Layer normalization on oneDNN, training forward: the output and each
row's mean and (biased) variance, over the last axis of a 2-D array (the
caller flattens the normalized axes into it). 4x numpy's on transformer rows
([8192, 768]: 2.6 ms against 11 ms)."""
from . import constants as C
from .core import plain_strides


def layer_norm(rt, x, scale, shift, epsilon, y, mean, var):
    """``y[:] = (x - mean) / sqrt(var + epsilon) * scale + shift`` row by row,
    writing ``mean`` and ``var`` ([rows]); ``scale`` and ``shift``
    ([columns]) may each be None."""
    key = ('layer_norm', x.shape, x.strides, scale is not None, shift is not None,
           float(epsilon), rt.threads())

    def build(plan):
        ux, uy = rt.desc_of(x), rt.desc_of(y)
        stats = rt.desc([x.shape[0]], strides=plain_strides([x.shape[0]]))
        flags = C.NORMALIZATION_FLAGS_NONE | (C.USE_SCALE if scale is not None else 0) | \
            (C.USE_SHIFT if shift is not None else 0)
        pd = plan.primitive_desc(rt.lib.dnnl_layer_normalization_forward_primitive_desc_create,
                                 'layer normalization forward', C.FORWARD_TRAINING, ux.handle,
                                 uy.handle, stats.handle, float(epsilon), flags)
        args = {C.ARG_SRC: plan.user(0, ux), C.ARG_DST: plan.user(1, uy),
                C.ARG_MEAN: plan.user(2, stats), C.ARG_VARIANCE: plan.user(3, stats)}
        cols = rt.desc([x.shape[1]], strides=[1])
        slot = 4
        for arg, v in ((C.ARG_SCALE, scale), (C.ARG_SHIFT, shift)):
            if v is not None:
                args[arg], slot = plan.user(slot, cols), slot + 1
        plan.add(pd, args, 'layer normalization forward')

    arrays = (x, y, mean, var) + tuple(v for v in (scale, shift) if v is not None)
    return y if rt.run(key, build, *arrays) else None


# ---- batch normalization -------------------------------------------------------------
# Per channel (axis 1) of a tensor in any layout: ``Blocked`` values are read
# and written in theirs, which is where oneDNN's kernel pays (on plain NCHW it
# is slower than the numpy kernels, which therefore run there). The batch
# variance is the biased one, as Paddle's (and numpy's) kernels compute it.

_FLAGS = C.USE_SCALE | C.USE_SHIFT      # batch statistics, a scale and a shift


def _bn_forward_pd(plan, rt, prop, ux, epsilon, flags):
    return plan.primitive_desc(
        rt.lib.dnnl_batch_normalization_forward_primitive_desc_create,
        'batch normalization forward', prop, ux.handle, ux.handle, float(epsilon), flags)


def _channels(rt, c):
    return rt.desc([c], strides=[1])


def batch_norm(rt, x, scale, shift, epsilon, y, mean, var):
    """Training forward: ``y = (x - mean) / sqrt(var + epsilon) * scale +
    shift`` with the batch statistics, which it writes into ``mean`` and
    ``var`` ([C]); ``y`` laid out as ``x``. None where oneDNN has no fast
    implementation."""
    key = ('batch_norm', x.shape, x.strides, y.strides, float(epsilon), rt.threads())

    def build(plan):
        ux, uy, uc = rt.desc_of(x), rt.desc_of(y), _channels(rt, x.shape[1])
        pd = _bn_forward_pd(plan, rt, C.FORWARD_TRAINING, ux, epsilon, _FLAGS)
        plan.add(pd, {C.ARG_SRC: plan.user(0, ux), C.ARG_DST: plan.user(1, uy),
                      C.ARG_SCALE: plan.user(2, uc), C.ARG_SHIFT: plan.user(3, uc),
                      C.ARG_MEAN: plan.user(4, uc), C.ARG_VARIANCE: plan.user(5, uc)},
                 'batch normalization forward')

    return y if rt.run(key, build, x, y, scale, shift, mean, var) else None


def batch_norm_backward(rt, gy, x, scale, epsilon, gx, gscale, gshift):
    """The gradients of training batch normalization at ``x`` (its batch
    statistics recomputed: a forward pass into a scratch buffer of the plan
    gives them): ``gx`` (laid out as ``x``), ``gscale`` and ``gshift`` ([C]).
    ``gy`` may be in another layout (reordered into ``x``'s)."""
    key = ('batch_norm_bwd', x.shape, x.strides, gy.strides, gx.strides, float(epsilon),
           rt.threads())

    def build(plan):
        ux, ugy, ugx, uc = rt.desc_of(x), rt.desc_of(gy), rt.desc_of(gx), \
            _channels(rt, x.shape[1])
        fwd = _bn_forward_pd(plan, rt, C.FORWARD_TRAINING, ux, epsilon, _FLAGS)
        src, sc = plan.user(1, ux), plan.user(2, uc)
        mean, var = plan.buffer(uc), plan.buffer(uc)
        # (its output and shift only fill the scratch: the statistics are wanted)
        plan.add(fwd, {C.ARG_SRC: src, C.ARG_DST: plan.buffer(ux), C.ARG_SCALE: sc,
                       C.ARG_SHIFT: plan.buffer(uc), C.ARG_MEAN: mean,
                       C.ARG_VARIANCE: var}, 'batch normalization forward')
        pd = plan.primitive_desc(
            rt.lib.dnnl_batch_normalization_backward_primitive_desc_create,
            'batch normalization backward', C.BACKWARD, ux.handle, ux.handle, ux.handle,
            float(epsilon), _FLAGS, fwd.handle)
        args = {C.ARG_DIFF_DST: plan.input(0, ugy, pd, C.QUERY_DIFF_DST_MD), C.ARG_SRC: src,
                C.ARG_MEAN: mean, C.ARG_VARIANCE: var, C.ARG_SCALE: sc,
                C.ARG_DIFF_SCALE: plan.user(4, uc), C.ARG_DIFF_SHIFT: plan.user(5, uc)}
        plan.add_into(pd, args, C.ARG_DIFF_SRC, C.QUERY_DIFF_SRC_MD, 3, ugx,
                      'batch normalization backward')

    return gx if rt.run(key, build, gy, x, scale, gx, gscale, gshift) else None
