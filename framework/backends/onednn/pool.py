"""Pooling on oneDNN: max and average pooling forward (inference), average
pooling backward; max pooling's training forward: the output and, per
output element, which tap of its window won (the primitive's workspace).

oneDNN calls the workspace opaque. For a plain (NCHW) destination and a
window of fewer than 256 taps, oneDNN 3.2 writes one byte per output
element: the winning tap's index ``kh * KW + kw``, the first on ties. The
caller checks that reading against its own kernel on the first call of every
shape (``ops/conv/pool.py``) and stops using oneDNN for a shape where it does
not hold.
"""
import ctypes

import numpy as np

from . import constants as C
from . import layout
from .layout import keep_output
from .library import DnnlError

_TAP_DTYPES = {C.U8: np.uint8, C.S32: np.int32}


def max_forward(rt, x, kernel, stride, pad_l, pad_r, y):
    """``y[:]`` = the max over each window of ``x`` (``[N, C, H, W]``, plain);
    returns the winning taps (``y``-shaped), or None where oneDNN has no fast
    implementation or its workspace is not one tap index per output."""
    key = plan_key(x, y, kernel, stride, pad_l, pad_r, rt)

    def build(plan):
        ux, uy = rt.desc_of(x), rt.desc_of(y)
        pd = plan.primitive_desc(
            rt.lib.dnnl_pooling_forward_primitive_desc_create, 'max pooling forward',
            C.FORWARD_TRAINING, C.POOLING_MAX, ux.handle, uy.handle, rt.dims(stride),
            rt.dims(kernel), rt.dims([0] * len(kernel)), rt.dims(pad_l), rt.dims(pad_r))
        ws = pd.md(C.QUERY_WORKSPACE_MD)
        dtype = ctypes.c_int()
        rt.check(rt.lib.dnnl_memory_desc_query(ws, C.QUERY_DATA_TYPE, ctypes.byref(dtype)),
                 'dnnl_memory_desc_query')
        taps = _TAP_DTYPES.get(dtype.value)
        if taps is None or \
                rt.lib.dnnl_memory_desc_get_size(ws) != y.size * np.dtype(taps).itemsize:
            raise DnnlError('max pooling: a workspace that is not one tap per output')
        plan.facts['taps'] = taps
        plan.add(pd, {C.ARG_SRC: plan.user(0, ux), C.ARG_DST: plan.user(1, uy),
                      C.ARG_WORKSPACE: plan.user(2, ws)}, 'max pooling forward')

    plan = rt.plan_for(key, build)
    if plan is None:
        return None
    taps = np.empty(y.shape, plan.facts['taps'])
    plan.run(x, y, taps)
    return taps


def plan_key(x, y, kernel, stride, pad_l, pad_r, rt):
    """The key of ``max_forward``'s plan (``Runtime.decline`` takes it)."""
    return ('max_pool', x.shape, x.strides, y.shape, tuple(kernel), tuple(stride),
            tuple(pad_l), tuple(pad_r), rt.threads())


AVERAGES = {True: C.POOLING_AVG_EXCLUDE_PADDING, False: C.POOLING_AVG_INCLUDE_PADDING}


def _avg_pd(plan, rt, prop, ux, uy, kernel, stride, pad_l, pad_r, exclude):
    return plan.primitive_desc(
        rt.lib.dnnl_pooling_forward_primitive_desc_create, 'average pooling forward', prop,
        AVERAGES[exclude], ux.handle, uy.handle, rt.dims(stride), rt.dims(kernel),
        rt.dims([0] * len(kernel)), rt.dims(pad_l), rt.dims(pad_r))


def forward(rt, algorithm, x, kernel, stride, pad_l, pad_r, y, out_shape=None):
    """``y[:]`` = the max or mean (pooling ``algorithm``) over each window of
    ``x`` (a logical ``[N, C, H, W]`` view, or ``Blocked``), inference form
    (no workspace); ``y`` None: the result stays in the layout the pooling
    writes (of logical ``out_shape``). Returns ``y``, or None where oneDNN has
    no fast implementation."""
    keep = y is None
    key = ('pool', algorithm, x.shape, x.strides, tuple(out_shape) if keep else y.strides,
           tuple(kernel), tuple(stride), tuple(pad_l), tuple(pad_r), rt.threads())

    def build(plan):
        ux = rt.desc_of(x)
        uy = rt.desc(out_shape, tag=C.FORMAT_TAG_ANY) if keep else rt.desc_of(y)
        pd = plan.primitive_desc(
            rt.lib.dnnl_pooling_forward_primitive_desc_create, 'pooling forward',
            C.FORWARD_INFERENCE, algorithm, ux.handle, uy.handle, rt.dims(stride),
            rt.dims(kernel), rt.dims([0] * len(kernel)), rt.dims(pad_l), rt.dims(pad_r))
        if keep:
            uy = keep_output(plan, pd, C.QUERY_DST_MD, out_shape)
        plan.add(pd, {C.ARG_SRC: plan.input(0, ux, pd, C.QUERY_SRC_MD),
                      C.ARG_DST: plan.user(1, uy)}, 'pooling forward')

    return layout.run(rt, key, build, x, y, out=1)


def avg_backward(rt, gy, kernel, stride, pad_l, pad_r, exclude, gx):
    """``gx[:]`` = each output gradient spread evenly over its window."""
    key = ('avg_pool_bwd', gy.shape, gy.strides, gx.shape, gx.strides, tuple(kernel),
           tuple(stride), tuple(pad_l), tuple(pad_r), exclude, rt.threads())

    def build(plan):
        ugy, ugx = rt.desc_of(gy), rt.desc_of(gx)
        hint = _avg_pd(plan, rt, C.FORWARD_TRAINING, ugx, ugy, kernel, stride, pad_l, pad_r,
                       exclude)
        plan.keep(hint)
        pd = plan.primitive_desc(
            rt.lib.dnnl_pooling_backward_primitive_desc_create, 'average pooling backward',
            AVERAGES[exclude], ugx.handle, ugy.handle, rt.dims(stride), rt.dims(kernel),
            rt.dims([0] * len(kernel)), rt.dims(pad_l), rt.dims(pad_r), hint.handle)
        plan.add(pd, {C.ARG_DIFF_DST: plan.user(0, ugy), C.ARG_DIFF_SRC: plan.user(1, ugx)},
                 'average pooling backward')

    return gx if rt.run(key, build, gy, gx) else None
