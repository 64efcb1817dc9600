"""An LSTM over a whole sequence on oneDNN (``vanilla_lstm``): the training
forward, which leaves the workspace its backward reads, and the backward.

oneDNN's LSTM is Paddle's: the same gate order (i, f, g, o) and formulas. It
takes one bias (the caller sums Paddle's two) and weights as ``[layers,
directions, input, gates, hidden]``; ours (``[4 * hidden, input]``, a block
of rows per gate) are that array with other strides, reordered into the
layout the primitive chooses (a frozen model's once). It has no per-sequence
lengths: the caller declines those. One layer, one direction per call
(``reverse``: right to left), as ``nn.LSTM`` runs its ``lstm_seq`` ops.

On [32 steps, batch 16, 128 -> 128], 1 thread: forward 1.7 ms against
numpy's 4.5, backward 3.7 ms against 5.2.
"""
import numpy as np

from . import constants as C
from .core import aligned_bytes
from .library import DnnlError

def _weights_desc(rt, w, hidden):
    """Our ``[4 * hidden, input]`` weights as oneDNN's ``ldigo`` dims."""
    rows, inputs = w.shape
    return rt.desc([1, 1, inputs, 4, hidden],
                   strides=[rows * inputs, rows * inputs, 1, hidden * inputs, inputs])


def _state_desc(rt, s):
    n, h = s.shape
    return rt.desc([1, 1, n, h], strides=[n * h, n * h, h, 1])


def _descs(rt, x, w_ih, w_hh, h0, y):
    """The user descriptors of one call: ``x`` and ``y`` are time-major views."""
    hidden = h0.shape[1]
    return {'src': rt.desc_of(x), 'dst': rt.desc_of(y), 'state': _state_desc(rt, h0),
            'w_ih': _weights_desc(rt, w_ih, hidden), 'w_hh': _weights_desc(rt, w_hh, hidden),
            'bias': rt.desc([1, 1, 4, hidden], strides=[4 * hidden, 4 * hidden, hidden, 1])}


def _forward_pd(plan, rt, d, reverse):
    """The training forward's primitive descriptor (weights' layout: 'any')."""
    w_ih, w_hh = rt.any_like(d['w_ih']), rt.any_like(d['w_hh'])
    plan.keep(w_ih)
    plan.keep(w_hh)
    st = d['state'].handle
    return plan.primitive_desc(
        rt.lib.dnnl_lstm_forward_primitive_desc_create, 'lstm forward', C.FORWARD_TRAINING,
        _direction(reverse), d['src'].handle, st, st, w_ih.handle, w_hh.handle, None, None,
        d['bias'].handle, d['dst'].handle, st, st, 0)


def _direction(reverse):
    return C.UNIDIRECTIONAL_RIGHT2LEFT if reverse else C.UNIDIRECTIONAL_LEFT2RIGHT


def _key(what, x, y, h0, reverse, rt):
    return (what, x.shape, x.strides, y.strides, h0.shape, bool(reverse), rt.threads())


def forward(rt, x, w_ih, w_hh, bias, h0, c0, reverse, y):
    """Run the LSTM over time-major ``x`` ([T, N, input], any strides) from
    states ``h0``, ``c0`` ([N, hidden]), writing ``y`` ([T, N, hidden]).
    Returns ``(h_n, c_n, workspace)`` (the workspace: an aligned float32
    array with one element to spare after oneDNN's bytes), or None when
    oneDNN declines. Weights, bias and states are contiguous float32."""
    def build(plan):
        d = _descs(rt, x, w_ih, w_hh, h0, y)
        pd = _forward_pd(plan, rt, d, reverse)
        ws = pd.md(C.QUERY_WORKSPACE_MD)
        plan.facts['workspace_bytes'] = rt.lib.dnnl_memory_desc_get_size(ws)
        args = {C.ARG_SRC: plan.user(0, d['src']), C.ARG_SRC_1: plan.user(1, d['state']),
                C.ARG_SRC_2: plan.user(2, d['state']),
                C.ARG_WEIGHTS: plan.input(3, d['w_ih'], pd, C.QUERY_EXEC_ARG_MD, C.ARG_WEIGHTS),
                C.ARG_WEIGHTS_1: plan.input(4, d['w_hh'], pd, C.QUERY_EXEC_ARG_MD,
                                            C.ARG_WEIGHTS_1),
                C.ARG_BIAS: plan.input(5, d['bias'], pd, C.QUERY_EXEC_ARG_MD, C.ARG_BIAS),
                C.ARG_DST: plan.user(6, d['dst']), C.ARG_DST_1: plan.user(7, d['state']),
                C.ARG_DST_2: plan.user(8, d['state']), C.ARG_WORKSPACE: plan.user(9, ws)}
        plan.add(pd, args, 'lstm forward')

    plan = rt.plan_for(_key('lstm', x, y, h0, reverse, rt), build)
    if plan is None:
        return None
    h_n, c_n = np.empty_like(h0), np.empty_like(c0)
    workspace = aligned(plan.facts['workspace_bytes'] // 4 + 1)
    plan.run(x, h0, c0, w_ih, w_hh, bias, y, h_n, c_n, workspace)
    return h_n, c_n, workspace


def backward(rt, x, w_ih, w_hh, bias, h0, c0, reverse, y, h_n, c_n, workspace, gy, gh_n,
             gc_n):
    """The gradients ``(dx, dw_ih, dw_hh, dbias, dh0, dc0)`` of ``forward``'s
    call that left ``workspace``, from the output grads ``gy`` (``y``'s
    shape, time-major), ``gh_n``, ``gc_n``; ``dx`` is time-major and dense.
    None when oneDNN declines."""
    dx = np.empty(x.shape, np.float32)
    dh0, dc0 = np.empty_like(h0), np.empty_like(c0)
    dw_ih, dw_hh, db = np.empty_like(w_ih), np.empty_like(w_hh), np.empty_like(bias)

    def build(plan):
        d = _descs(rt, x, w_ih, w_hh, h0, y)
        hint = _forward_pd(plan, rt, d, reverse)
        plan.keep(hint)
        w_any = [rt.any_like(d['w_ih']), rt.any_like(d['w_hh'])]
        for w in w_any:
            plan.keep(w)
        ux, ug, ugx = d['src'].handle, rt.desc_of(gy), rt.desc_of(dx)
        plan.keep(ug)
        plan.keep(ugx)
        st, bias_md = d['state'].handle, d['bias'].handle
        pd = plan.primitive_desc(
            rt.lib.dnnl_lstm_backward_primitive_desc_create, 'lstm backward', C.BACKWARD,
            _direction(reverse), ux, st, st, w_any[0].handle, w_any[1].handle, None, None,
            bias_md, d['dst'].handle, st, st,
            ugx.handle, st, st, w_any[0].handle, w_any[1].handle, None, None,
            bias_md, ug.handle, st, st, C.RNN_FLAGS_DIFF_WEIGHTS_OVERWRITE, hint.handle)
        if not plan.same(pd.md(C.QUERY_WORKSPACE_MD), hint.md(C.QUERY_WORKSPACE_MD)):
            raise DnnlError("lstm backward: its workspace is not the forward's")
        q = C.QUERY_EXEC_ARG_MD
        ins = {C.ARG_SRC: plan.user(0, d['src']), C.ARG_SRC_1: plan.user(1, d['state']),
               C.ARG_SRC_2: plan.user(2, d['state']),
               C.ARG_WEIGHTS: plan.input(3, d['w_ih'], pd, q, C.ARG_WEIGHTS),
               C.ARG_WEIGHTS_1: plan.input(4, d['w_hh'], pd, q, C.ARG_WEIGHTS_1),
               C.ARG_BIAS: plan.input(5, d['bias'], pd, q, C.ARG_BIAS),
               C.ARG_DST: plan.user(6, d['dst']), C.ARG_DST_1: plan.user(7, d['state']),
               C.ARG_DST_2: plan.user(8, d['state']),
               C.ARG_WORKSPACE: plan.user(9, pd.md(C.QUERY_WORKSPACE_MD)),
               C.ARG_DIFF_DST: plan.user(10, ug), C.ARG_DIFF_DST_1: plan.user(11, d['state']),
               C.ARG_DIFF_DST_2: plan.user(12, d['state'])}
        outs = [(C.ARG_DIFF_SRC, q, C.ARG_DIFF_SRC, 13, ugx),
                (C.ARG_DIFF_SRC_1, q, C.ARG_DIFF_SRC_1, 14, d['state']),
                (C.ARG_DIFF_SRC_2, q, C.ARG_DIFF_SRC_2, 15, d['state']),
                (C.ARG_DIFF_WEIGHTS, q, C.ARG_DIFF_WEIGHTS, 16, d['w_ih']),
                (C.ARG_DIFF_WEIGHTS_1, q, C.ARG_DIFF_WEIGHTS_1, 17, d['w_hh']),
                (C.ARG_DIFF_BIAS, q, C.ARG_DIFF_BIAS, 18, d['bias'])]
        plan.add_writing(pd, ins, outs, 'lstm backward')

    key = _key('lstm_bwd', x, y, h0, reverse, rt) + (gy.strides,)
    if not rt.run(key, build, x, h0, c0, w_ih, w_hh, bias, y, h_n, c_n, workspace, gy, gh_n,
                  gc_n, dx, dh0, dc0, dw_ih, dw_hh, db):
        return None
    return dx, dw_ih, dw_hh, db, dh0, dc0


def aligned(n):
    """An uninitialized float32 array of ``n`` elements starting on a cache line."""
    return aligned_bytes(4 * n).view(np.float32)
