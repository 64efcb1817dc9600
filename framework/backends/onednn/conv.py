"""Convolution on oneDNN: forward, backward-data (also the transposed conv)
and backward-weights, 2-D and 3-D, any groups (depthwise included).

Arrays arrive as logical ``[N, C, *spatial]`` views of the caller's buffers
(channel-last data is a transposed view: oneDNN reads it through its
strides, nothing is copied); weights are Paddle's ``[O, I/groups, *k]``,
which is oneDNN's ``goi..`` with the groups split out. Padding is Paddle's
``[before0, after0, before1, after1, ...]``; oneDNN counts dilation from 0.

Layouts per shape: a 1x1 convolution with stride 1 runs fastest on the
plain layout (oneDNN calls a GEMM); for every other shape oneDNN chooses a
blocked layout (``format_tag_any``) and the plan reorders into it and back.
"""
import numpy as np

from .. import Opaque
from . import constants as C
from .core import frozen, plain_strides, post_op_arg
from . import layout
from .layout import keep_output
from .library import DnnlError


def _geometry(ksize, stride, padding, dilation):
    nd = len(ksize)
    return ([int(s) for s in stride], [int(d) - 1 for d in dilation],
            [int(padding[2 * i]) for i in range(nd)],
            [int(padding[2 * i + 1]) for i in range(nd)])


def _chosen(rt, ksize, stride, *user_descs, blocked=False):
    """The descriptors the primitive is created with: plain ones for a 1x1
    stride-1 conv (the user's own; ``Blocked`` data is reordered to plain),
    else 'any' for oneDNN to choose; ``blocked``: 'any' for the 1x1 too."""
    if not blocked and all(k == 1 for k in ksize) and all(s == 1 for s in stride):
        return [d if _is_plain(rt, d) else _plain_like(rt, d) for d in user_descs]
    return [rt.any_like(d) for d in user_descs]


def _is_plain(rt, md):
    """Strided, without inner blocks (not 'any')."""
    facts = layout.describe(rt, md)
    return facts[2] != 'any' and not facts[4]


def _plain_like(rt, md):
    dims = layout.describe(rt, md)[0]
    return rt.desc(dims, strides=plain_strides(dims))


def _blocked_1x1(x, w, out_shape):
    """Whether a 1x1 convolution in a chain of oneDNN layouts (``Blocked``
    data in or out) runs blocked: where the activations outweigh the filter,
    or the filter is frozen (its reorder runs once). Otherwise the plain
    GEMM, whose filter needs no reorder per call, wins."""
    acts = x.size + int(np.prod(out_shape))
    return frozen(w) or acts >= w.size


def _hint(plan, rt, src, weights, dst, geometry):
    """The forward primitive descriptor a backward one is created against."""
    hint = plan.primitive_desc(
        rt.lib.dnnl_convolution_forward_primitive_desc_create, 'convolution forward (hint)',
        C.FORWARD_TRAINING, C.CONVOLUTION_DIRECT, src.handle, weights.handle, None, dst.handle,
        *map(rt.dims, geometry))
    plan.keep(hint)
    return hint


def _following(make, chosen, user_descs, values):
    """``make(*descs)``: a backward primitive descriptor, created with
    ``chosen``, or with the layouts its ``Blocked`` operands (``values``)
    arrive in where oneDNN runs the same kind of kernel on them (the same
    implementation, or a brgemm one). A training plan's activations come in
    the layout the forward convolution chose (say ``acdb``), which the
    backward's own choice (``nChw16c``) would reorder every step; but where
    only a generic kernel takes the arriving layout (a depthwise conv's
    backward off ``nChw16c``: 6x slower than ``jit_dw``), the reorder is
    the cheaper."""
    free = make(*chosen)
    follow = [u if isinstance(v, Opaque) else d for d, u, v in zip(chosen, user_descs, values)]
    if all(f is d for f, d in zip(follow, chosen)):
        return free
    try:
        pd = make(*follow)
    except DnnlError:
        return free
    impl = pd.impl()
    return pd if impl == free.impl() or 'brg' in impl.split(':')[0] else free


def forward(rt, x, w, b, stride, padding, dilation, groups, y, affine=None, residual=None,
            act=None, as_plain=False, out_shape=None):
    """``y[:] = act((conv(x, w) + b) * scale + shift + residual)``; ``b``,
    ``affine`` (``(scale, shift)``, per output channel: an inference batch
    norm), ``residual`` and ``act`` (``(eltwise algorithm, alpha, beta)``) may
    be None; the arrays are logical views. The convolution applies them as
    post-ops on its result, in that order; ``as_plain``: only if oneDNN runs
    the same implementation as for the convolution alone (so the post-ops
    change no rounding of the convolution itself). ``x`` and ``residual`` may
    be ``Blocked`` (``layout.py``); ``y`` None: the result stays in the layout
    the convolution writes (a ``Blocked`` of logical ``out_shape``, or a numpy
    array when that layout is plain). Returns ``y``, or None where oneDNN has
    no fast implementation for the call (so the caller runs its numpy
    kernel); so do the other two."""
    ksize = w.shape[2:]
    # a frozen filter (a loaded model's) gets a plan of its own, whose reorder
    # of it runs once (Plan.reorders_of)
    keep = y is None
    key = ('conv', x.shape, x.strides, w.shape, w.strides, id(w) if frozen(w) else None,
           b is not None, keep, tuple(out_shape) if keep else y.strides,
           affine is not None, None if residual is None else residual.strides, act,
           tuple(stride), tuple(padding), tuple(dilation), groups, rt.threads())
    channel = (1, w.shape[0]) + (1,) * (w.ndim - 2)
    post = []
    if affine is not None:
        post += [('binary', C.BINARY_MUL, channel), ('binary', C.BINARY_ADD, channel)]
    if residual is not None:
        post.append(('sum',))
    if act is not None:
        post.append(('eltwise',) + tuple(act))
    extra = ([b] if b is not None else []) + (list(affine) if affine is not None else []) + \
        ([residual] if residual is not None else [])

    def build(plan):
        geometry = _geometry(ksize, stride, padding, dilation)
        ux, uw = rt.desc_of(x), rt.desc_of(w, groups)
        uy = rt.desc(out_shape, tag=C.FORMAT_TAG_ANY) if keep else rt.desc_of(y)
        chain = (keep or not isinstance(x, np.ndarray)) and _blocked_1x1(
            x, w, out_shape if keep else y.shape)
        sx, sw, sy = _chosen(rt, ksize, stride, ux, uw, uy, blocked=chain)
        slot = 3
        ub = None
        if b is not None:
            ub, slot = rt.desc_of(b), slot + 1
        pd = plan.primitive_desc(
            rt.lib.dnnl_convolution_forward_primitive_desc_create, 'convolution forward',
            C.FORWARD_INFERENCE, C.CONVOLUTION_DIRECT, sx.handle, sw.handle,
            ub.handle if ub is not None else None, sy.handle, *map(rt.dims, geometry),
            post_ops=post)
        if post and 'gemm' in pd.impl():
            # the GEMM-based convolution (plain layouts, 1x1) applies post-ops
            # in a separate slow loop: 10-50x the separate numpy ops here
            raise DnnlError('convolution forward: post-ops on a GEMM convolution (%s)'
                            % pd.impl())
        if as_plain and post:
            alone = plan.primitive_desc(
                rt.lib.dnnl_convolution_forward_primitive_desc_create, 'convolution forward',
                C.FORWARD_INFERENCE, C.CONVOLUTION_DIRECT, sx.handle, sw.handle,
                ub.handle if ub is not None else None, sy.handle, *map(rt.dims, geometry))
            if alone.impl() != pd.impl():
                raise DnnlError('convolution forward: post-ops change the implementation '
                                '(%s, alone %s)' % (pd.impl(), alone.impl()))
        args = {C.ARG_SRC: plan.input(0, ux, pd, C.QUERY_SRC_MD),
                C.ARG_WEIGHTS: plan.input(1, uw, pd, C.QUERY_WEIGHTS_MD)}
        if ub is not None:
            args[C.ARG_BIAS] = plan.user(3, ub)
        if affine is not None:
            uc = rt.desc(channel, strides=plain_strides(channel))
            for k in range(2):
                args[post_op_arg(k)] = plan.user(slot + k, uc)
            slot += 2
        if keep:
            uy = keep_output(plan, pd, C.QUERY_DST_MD, out_shape)
        if residual is None:
            plan.add_into(pd, args, C.ARG_DST, C.QUERY_DST_MD, 2, uy, 'convolution forward')
            return
        # the sum post-op adds what the destination holds: the residual, put
        # there first in the layout the convolution writes
        dst_md, ur = pd.md(C.QUERY_DST_MD), rt.desc_of(residual)
        out = plan.user(2, uy)
        dst = out if plan.same(dst_md, uy) else plan.buffer(dst_md)
        plan.reorder_into(plan.user(slot, ur), ur, dst, dst_md)
        plan.add(pd, {**args, C.ARG_DST: dst}, 'convolution forward')
        if dst is not out:
            plan.reorder_into(dst, dst_md, out, uy)

    return layout.run(rt, key, build, x, w, y, *extra, out=2)


def backward_data(rt, gy, w, stride, padding, dilation, groups, gx, out_shape=None):
    """``gx[:] = conv_x^T(gy, w)``: the gradient in the conv's input, which
    is also the transposed convolution of ``gy``. ``gy`` may be ``Blocked``;
    ``gx`` None: the result stays in the layout the primitive writes (of
    logical ``out_shape``), as ``forward``'s ``y``."""
    ksize = w.shape[2:]
    keep = gx is None
    key = ('conv_bwd_data', gy.shape, gy.strides, w.shape, w.strides,
           keep, tuple(out_shape) if keep else (gx.shape, gx.strides),
           tuple(stride), tuple(padding), tuple(dilation), groups, rt.threads())

    def build(plan):
        geometry = _geometry(ksize, stride, padding, dilation)
        ugy, uw = rt.desc_of(gy), rt.desc_of(w, groups)
        ugx = rt.desc(out_shape, tag=C.FORMAT_TAG_ANY) if keep else rt.desc_of(gx)
        chain = (keep or not isinstance(gy, np.ndarray)) and _blocked_1x1(
            gy, w, out_shape if keep else gx.shape)
        chosen = _chosen(rt, ksize, stride, ugx, uw, ugy, blocked=chain)

        def make(sgx, sw, sgy):
            return plan.primitive_desc(
                rt.lib.dnnl_convolution_backward_data_primitive_desc_create,
                'convolution backward data', C.CONVOLUTION_DIRECT, sgx.handle, sw.handle,
                sgy.handle, *map(rt.dims, geometry),
                _hint(plan, rt, sgx, sw, sgy, geometry).handle)
        pd = _following(make, chosen, (None, None, ugy), (None, None, gy))
        args = {C.ARG_DIFF_DST: plan.input(0, ugy, pd, C.QUERY_DIFF_DST_MD),
                C.ARG_WEIGHTS: plan.input(1, uw, pd, C.QUERY_WEIGHTS_MD)}
        if keep:
            ugx = keep_output(plan, pd, C.QUERY_DIFF_SRC_MD, out_shape)
        plan.add_into(pd, args, C.ARG_DIFF_SRC, C.QUERY_DIFF_SRC_MD, 2, ugx,
                      'convolution backward data')

    return layout.run(rt, key, build, gy, w, gx, out=2)


def backward_weights(rt, x, gy, stride, padding, dilation, groups, gw):
    """``gw[:] = conv_w^T(x, gy)``: the filter gradient (``gw`` gives the
    kernel size); ``x`` and ``gy`` may be ``Blocked``."""
    ksize = gw.shape[2:]
    key = ('conv_bwd_weights', x.shape, x.strides, gy.shape, gy.strides, gw.shape,
           tuple(stride), tuple(padding), tuple(dilation), groups, rt.threads())

    def build(plan):
        geometry = _geometry(ksize, stride, padding, dilation)
        ux, ugy = rt.desc_of(x), rt.desc_of(gy)
        ugw = rt.desc_of(gw, groups)
        chosen = _chosen(rt, ksize, stride, ux, ugw, ugy)

        def make(sx, sgw, sgy):
            return plan.primitive_desc(
                rt.lib.dnnl_convolution_backward_weights_primitive_desc_create,
                'convolution backward weights', C.CONVOLUTION_DIRECT, sx.handle, sgw.handle,
                None, sgy.handle, *map(rt.dims, geometry),
                _hint(plan, rt, sx, sgw, sgy, geometry).handle)
        pd = _following(make, chosen, (ux, None, ugy), (x, None, gy))
        args = {C.ARG_SRC: plan.input(0, ux, pd, C.QUERY_SRC_MD),
                C.ARG_DIFF_DST: plan.input(1, ugy, pd, C.QUERY_DIFF_DST_MD)}
        plan.add_into(pd, args, C.ARG_DIFF_WEIGHTS, C.QUERY_DIFF_WEIGHTS_MD, 2, ugw,
                      'convolution backward weights')

    return gw if rt.run(key, build, x, gy, gw) else None
