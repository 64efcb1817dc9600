"""Whole-sequence recurrent ops: an LSTM or a GRU over all time steps as one op.

``nn.LSTM`` / ``nn.GRU`` run one of these per layer and direction (as Paddle's
``rnn`` op and cuDNN do), so eager mode pays one dispatch and one tape node
for a sequence instead of a fused cell op per step (``rnn_cells.py``) plus the
slicing and stacking around it; a static Program holds one op instead of T.

* ``lstm_seq(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length?;
  reverse, time_major) -> (y, h_n, c_n, reserve)``
* ``gru_seq(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length?;
  reverse, time_major) -> (y, h_n, reserve)``

``x`` is ``[T, B, input]`` (``[B, T, input]`` unless ``time_major``); ``y``
has the same layout with ``hidden_size`` features. Each step is the cell of
``rnn_cells.py`` (Paddle's gate order and formulas: LSTM ``i, f, g, o``; GRU
``r, z, c`` with the reset gate applied to ``h @ W_hh^T + b_hh``). ``reverse``
runs the steps from the last to the first. With ``sequence_length`` (``[B]``
integers) a step ``t >= length`` leaves the state as it was and outputs
zeros (cuDNN's padded layout): the final states are the states at each
sequence's end, also when reversed (the backward pass then starts at step
``length - 1``).

The ``reserve`` output is what the backward needs, not differentiable (a
reserve output, ``registry.py``): the numpy kernel packs its time-major
arrays into it (``[T, B, ...]``: the kernels run on time-major buffers,
whose per-step slices are contiguous: the activated gates, the states each
step started from, ``tanh(c)`` (LSTM) and the hidden projection ``h @
W_hh^T + b_hh`` (GRU)), oneDNN's kernel (``backends/onednn/rnn.py``) its
workspace, and its last element says which, so the backward that reads it
is the one of the kernel that wrote it, whichever backend is active then.
The fused backward (``def_fast_grad``) walks the steps back with a few
in-place numpy calls per step, then forms the weight gradients with a few
GEMMs over blocks of steps (oneDNN's: its primitive). The composite rule
(``def_grad``) replays the forward once with registered ops (the cells'
formulas) and walks back through its activations, so grad-of-grad and
static backward work; when a static graph's number of steps is unknown it
emits ``lstm_seq_grad`` / ``gru_seq_grad`` instead (the fused backward as
an op), which has no gradient of its own: second derivatives need a known
time dimension.

Left to the per-step path: ``SimpleRNN``, an LSTM with ``proj_size`` (ONNX's
LSTM has no projection), and ``nn.RNN`` with ``sequence_length`` (it returns
the cell's outputs at padded steps, not zeros).
"""
import numpy as np

from ..backends import onednn
from ..backends.onednn import layout as dnnl_layout
from ..backends.onednn import rnn as dnnl_rnn
from . import lib, meta
from .grad_utils import wants
from .lowp import float32_compute
from .math import matmul_op, sigmoid_op, tanh_op
from .registry import Meta, OpError, add_test_case, def_op
from .rnn_cells import _gru_ref, _lstm_ref


# ---- shape checks ----------------------------------------------------------------------

def _dim_ok(got, want):
    return got == want or -1 in (got, want)


def _seq_meta(op, gates, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, lengths,
              time_major):
    """Checks shared by both ops; returns (steps, batch, hidden, dtype)."""
    xs, wi, wh = meta.shape_of(x), meta.shape_of(weight_ih), meta.shape_of(weight_hh)
    hs = meta.shape_of(h0)
    if len(xs) != 3:
        raise OpError("%s: x must be 3-D [time, batch, input] (or [batch, time, input]), "
                      "got shape %s" % (op, list(xs)))
    steps, batch = (xs[0], xs[1]) if time_major else (xs[1], xs[0])
    if len(hs) != 2 or not _dim_ok(hs[0], batch):
        raise OpError("%s: h0 must have shape [batch_size, hidden_size] with the batch size %d "
                      "of x (shape %s), got %s" % (op, batch, list(xs), list(hs)))
    hidden = hs[1]
    rows = gates * hidden if hidden >= 0 else -1
    if len(wi) != 2 or not _dim_ok(wi[0], rows) or not _dim_ok(wi[1], xs[2]):
        raise OpError("%s: weight_ih must have shape [%d * hidden_size, input_size] = [%d, %d], "
                      "got %s" % (op, gates, rows, xs[2], list(wi)))
    if len(wh) != 2 or not _dim_ok(wh[0], rows) or not _dim_ok(wh[1], hidden):
        raise OpError("%s: weight_hh must have shape [%d * hidden_size, hidden_size] = [%d, %d], "
                      "got %s" % (op, gates, rows, hidden, list(wh)))
    for name, b in (('bias_ih', bias_ih), ('bias_hh', bias_hh)):
        bs = meta.shape_of(b)
        if len(bs) != 1 or not _dim_ok(bs[0], rows):
            raise OpError("%s: %s must have shape [%d], got %s" % (op, name, rows, list(bs)))
    if c0 is not None and list(meta.shape_of(c0)) != list(hs) and not all(
            _dim_ok(a, b) for a, b in zip(meta.shape_of(c0), hs)):
        raise OpError("%s: c0 must have the shape of h0 %s, got %s"
                      % (op, list(hs), list(meta.shape_of(c0))))
    if lengths is not None:
        ls = meta.shape_of(lengths)
        if len(ls) != 1 or not _dim_ok(ls[0], batch) or \
                np.dtype(meta.dtype_of(lengths)).kind not in 'iu':
            raise OpError("%s: sequence_length must be integers of shape [batch_size] = [%d], "
                          "got %s %s" % (op, batch, meta.dtype_of(lengths), list(ls)))
    names = ('x', 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh', 'h0', 'c0')
    dt = meta.same_dtype(op, names, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0)
    return steps, batch, hidden, dt


def _layout(steps, batch, time_major):
    """Shape maker of per-step buffers in ``x``'s layout."""
    lead = (steps, batch) if time_major else (batch, steps)
    return lambda width: lead + (width,)


def _lstm_seq_meta(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length=None,
                   reverse=False, time_major=True):
    steps, batch, n, dt = _seq_meta('lstm_seq', 4, x, weight_ih, weight_hh, bias_ih, bias_hh,
                                    h0, c0, sequence_length, time_major)
    state = Meta((batch, n), dt)
    # the reserve's size is its kernel's own (numpy's: _numpy_reserve)
    return Meta(_layout(steps, batch, time_major)(n), dt), state, state, Meta((-1,), dt)


def _gru_seq_meta(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length=None,
                  reverse=False, time_major=True):
    steps, batch, n, dt = _seq_meta('gru_seq', 3, x, weight_ih, weight_hh, bias_ih, bias_hh,
                                    h0, None, sequence_length, time_major)
    # the reserve's size is its kernel's own (numpy's: _numpy_reserve)
    return Meta(_layout(steps, batch, time_major)(n), dt), Meta((batch, n), dt), Meta((-1,), dt)


# ---- numpy helpers ------------------------------------------------------------------------

def _time_major(a, time_major):
    """``a`` ([T, B, ...] if ``time_major`` else [B, T, ...]) as a contiguous
    [T, B, ...] array: the kernels work on time-major buffers, whose per-step
    slices are contiguous (ufuncs on strided row blocks cost several times more)."""
    return a if time_major else np.ascontiguousarray(a.swapaxes(0, 1))


def _in_layout(a, time_major):
    """The inverse of ``_time_major``."""
    return a if time_major else np.ascontiguousarray(a.swapaxes(0, 1))


def _project(x, weight, bias):
    """``x @ weight^T + bias`` for all steps: one GEMM, in ``x``'s layout."""
    out = np.matmul(x.reshape(-1, x.shape[-1]), weight.T)
    out += bias
    return out.reshape(x.shape[:2] + (weight.shape[0],))


def _keep_masks(lengths, steps, time_major, dtype):
    """(bool [T, B, 1] step-is-valid, float of it, per-step all-valid flags), or Nones."""
    if lengths is None:
        return None, None, None
    keep = (np.arange(steps)[:, None] < np.asarray(lengths).reshape(1, -1))[:, :, None]
    return keep, keep.astype(dtype), keep.all(axis=(1, 2))


def _bias_grad(dg):
    """The sum of the time-major ``dg`` over steps and batch: over the batch
    first, then over the steps (numpy adds the rows of an axis-0 sum one
    after the other; two short sums round less than one of T * B rows)."""
    return dg.sum(axis=1).sum(axis=0)


def _sigmoid_(a, one):
    """``1 / (1 + exp(-a))`` in place, as the sigmoid op computes it; the
    caller holds ``np.errstate(over='ignore')`` (exp overflows to inf: 0)."""
    np.negative(a, out=a)
    np.exp(a, out=a)
    a += one
    return np.divide(one, a, out=a)


def _order(steps, reverse):
    return range(steps - 1, -1, -1) if reverse else range(steps)


def _check_kernel(meta_fn, args, dtype_args, lengths):
    first = dtype_args[0].dtype
    if any(a.dtype != first for a in dtype_args[1:]) or (
            lengths is not None and lengths.dtype.kind not in 'iu'):
        meta_fn(*args)          # raises the clear error


def _weight_grads(need, dg, x, h_prev, weight_ih, time_major, dg_hh=None):
    """(dx, dW_ih, dW_hh) from the time-major pre-activation grads ``dg`` of
    all steps (``dg_hh``: those of the hidden side, when they differ), a
    GEMM or a few each (``need``: which of them are wanted); ``h_prev`` holds
    the states the steps started from."""
    rows = dg.reshape(-1, dg.shape[-1])
    dx = dw_ih = dw_hh = None
    if need[0]:
        dx = np.matmul(rows, weight_ih).reshape(dg.shape[:2] + (weight_ih.shape[1],))
        dx = _in_layout(dx, time_major)
    if need[1]:
        dw_ih = _sum_of_products(dg, _time_major(x, time_major))
    if need[2]:
        dw_hh = _sum_of_products(dg if dg_hh is None else dg_hh, h_prev)
    return dx, dw_ih, dw_hh


_STEPS_PER_GEMM = 8


def _sum_of_products(a, b):
    """``sum_t a[t]^T @ b[t]`` over the steps of time-major ``a``, ``b``: one
    GEMM per block of steps, the blocks' products added pairwise. A single
    GEMM over all T * B rows would accumulate them one after the other,
    rounding more than the per-step products of an unrolled loop do."""
    steps = a.shape[0]
    parts = [np.matmul(a[t:t + _STEPS_PER_GEMM].reshape(-1, a.shape[-1]).T,
                       b[t:t + _STEPS_PER_GEMM].reshape(-1, b.shape[-1]))
             for t in range(0, steps, _STEPS_PER_GEMM)] or \
        [np.zeros((a.shape[-1], b.shape[-1]), a.dtype)]
    while len(parts) > 1:
        parts = [parts[k] + parts[k + 1] if k + 1 < len(parts) else parts[k]
                 for k in range(0, len(parts), 2)]
    return parts[0]


# ---- the reserves ---------------------------------------------------------------------------

# its last element: which kernel wrote it (and so which backward reads it)
RESERVE_NUMPY, RESERVE_ONEDNN = 0, 1

# what a numpy kernel saves, each [T, B, width * hidden] (width: here):
# the LSTM's activated gates, the steps' h_prev, c_prev and tanh(c); the
# GRU's activated gates, hidden projections h @ W_hh^T + b_hh and h_prev
_SAVED_WIDTHS = {'lstm_seq': (4, 1, 1, 1), 'gru_seq': (3, 3, 1)}


def _numpy_reserve(op, steps, batch, n, dtype):
    """A numpy reserve of ``op`` and its views (``_SAVED_WIDTHS``)."""
    size = steps * batch * n
    reserve = np.empty(sum(_SAVED_WIDTHS[op]) * size + 1, dtype)
    reserve[-1] = RESERVE_NUMPY
    return (reserve,) + _reserve_views(op, reserve, steps, batch, n)


def _reserve_views(op, reserve, steps, batch, n):
    widths, size = _SAVED_WIDTHS[op], steps * batch * n
    if reserve.size != sum(widths) * size + 1 or reserve[-1] != RESERVE_NUMPY:
        raise OpError("%s: the reserve (%d values) was not made by the numpy kernel "
                      "for %d steps, batch %d, hidden %d" % (op, reserve.size, steps, batch, n))
    views, start = [], 0
    for w in widths:
        views.append(reserve[start:start + w * size].reshape(steps, batch, w * n))
        start += w * size
    return tuple(views)


def pack_reserve(op, *saved):
    """The numpy reserve of ``op`` holding these saved arrays (test cases
    build it from their reference's)."""
    steps, batch, n = saved[-1].shape
    reserve, *views = _numpy_reserve(op, steps, batch, n, np.result_type(*saved))
    for view, a in zip(views, saved):
        view[...] = a
    return reserve


def _made_by_onednn(reserve):
    return reserve.size > 0 and reserve[-1] == RESERVE_ONEDNN


# ---- lstm_seq ------------------------------------------------------------------------------

@def_op('lstm_seq', _lstm_seq_meta,
        inputs=('x', 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh', 'h0', 'c0',
                'sequence_length?'),
        outputs=('y', 'h_n', 'c_n', 'reserve'),
        attrs={'reverse': False, 'time_major': True},
        nondiff_outputs=('reserve',), reserve_outputs=('reserve',),
        no_grad_inputs=('sequence_length',), pattern='opaque')
@float32_compute
def lstm_seq_op(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length,
                reverse, time_major):
    """An LSTM over a whole sequence (see the module doc)."""
    args = (x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length, reverse,
            time_major)
    _check_kernel(_lstm_seq_meta, args, (x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0),
                  sequence_length)
    n = h0.shape[-1]
    if x.ndim != 3 or weight_ih.shape != (4 * n, x.shape[-1]) or c0.shape != h0.shape:
        _lstm_seq_meta(*args)
    steps, batch = x.shape[:2] if time_major else x.shape[1::-1]
    dt = x.dtype
    Y = np.empty((steps, batch, n), dt)
    reserve, A, HP, CP, TC = _numpy_reserve('lstm_seq', steps, batch, n, dt)
    gx = _project(_time_major(x, time_major), weight_ih, bias_ih + bias_hh)
    keep, keep_f, full = _keep_masks(sequence_length, steps, time_major, dt)
    w_t, one = weight_hh.T, np.ones((), dt)
    h, c = h0, c0
    with np.errstate(over='ignore'):
        for t in _order(steps, reverse):
            HP[t], CP[t] = h, c
            a = A[t]
            np.matmul(h, w_t, out=a)
            a += gx[t]
            cand = np.tanh(a[:, 2 * n:3 * n])
            _sigmoid_(a, one)
            a[:, 2 * n:3 * n] = cand
            c_new = a[:, n:2 * n] * c
            cand *= a[:, :n]
            c_new += cand
            np.tanh(c_new, out=TC[t])
            h_new = np.multiply(a[:, 3 * n:], TC[t], out=Y[t])
            if keep is None or full[t]:
                h, c = h_new, c_new
            else:                # padded rows keep their state and output zeros
                h = np.where(keep[t], h_new, h)
                c = np.where(keep[t], c_new, c)
                h_new *= keep_f[t]
    return _in_layout(Y, time_major), np.array(h), np.array(c), reserve


@lstm_seq_op.def_kernel('onednn')
def _lstm_seq_onednn(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length,
                     reverse, time_major):
    if not _onednn_takes(4, x, weight_ih, weight_hh, bias_ih, bias_hh, (h0, c0),
                         sequence_length, time_major):
        return NotImplemented
    n = h0.shape[1]
    y = np.empty(x.shape[:2] + (n,), np.float32)
    dense = np.ascontiguousarray
    out = dnnl_rnn.forward(onednn.runtime(), dnnl_rnn.LSTM, _time_major_view(x, time_major),
                           dense(weight_ih), dense(weight_hh), bias_ih + bias_hh,
                           (dense(h0), dense(c0)), reverse, _time_major_view(y, time_major))
    if out is None:
        return NotImplemented
    (h_n, c_n), reserve = out
    reserve[-1] = RESERVE_ONEDNN
    return y, h_n, c_n, reserve


def _onednn_takes(gates, x, weight_ih, weight_hh, bias_ih, bias_hh, states, sequence_length,
                  time_major):
    """Whether a sequence op's oneDNN kernel runs the call: no per-sequence
    lengths on oneDNN, and shapes the numpy kernel rejects stay there."""
    if sequence_length is not None or not dnnl_layout.takes(
            x, weight_ih, weight_hh, bias_ih, bias_hh, *states) or x.ndim != 3:
        return False
    h0 = states[0]
    if h0.ndim != 2 or any(s.shape != h0.shape for s in states):
        return False
    rows = gates * h0.shape[1]
    return weight_ih.shape == (rows, x.shape[2]) and weight_hh.shape == (rows, h0.shape[1]) \
        and bias_ih.shape == (rows,) and bias_hh.shape == (rows,) and \
        h0.shape[0] == x.shape[1 if time_major else 0]


def _time_major_view(a, time_major):
    """``a`` as [T, B, ...] without a copy (oneDNN reads any strides)."""
    return a if time_major else a.swapaxes(0, 1)


def _onednn_bptt(gy, ghn, gcn, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, y, h_n,
                 c_n, reserve, reverse, time_major):
    """The backward of a call the oneDNN kernel ran (its workspace in
    ``reserve``): (dx, dW_ih, dW_hh, dbias, dh0, dc0)."""
    dense = np.ascontiguousarray
    dx, dw_ih, dw_hh, db, (dh0, dc0) = _onednn_backward(
        'lstm_seq', dnnl_rnn.LSTM, x, dense(weight_ih), dense(weight_hh), bias_ih + bias_hh,
        (h0, c0), reverse, time_major, y, (h_n, c_n), reserve, gy, (ghn, gcn))
    return dx, dw_ih, dw_hh, db, dh0, dc0


def _given(g, like):
    """An output's gradient as oneDNN reads it: dense float32, zeros for None."""
    return np.zeros(like.shape, np.float32) if g is None else np.ascontiguousarray(g, np.float32)


def _onednn_backward(op, cell, x, w_ih, w_hh, bias, states, reverse, time_major, y, finals,
                     reserve, gy, g_finals):
    """oneDNN's backward of ``cell`` (weights and bias as its forward got
    them): (dx in ``x``'s layout, dW_ih, dW_hh, dbias, the states' grads)."""
    dense = np.ascontiguousarray
    grads = dnnl_rnn.backward(
        onednn.runtime(), cell, _time_major_view(x, time_major), w_ih, w_hh, bias,
        tuple(dense(s) for s in states), reverse, _time_major_view(y, time_major),
        tuple(dense(s) for s in finals), reserve,
        _time_major_view(_given(gy, y), time_major),
        tuple(_given(g, s) for g, s in zip(g_finals, finals)))
    if grads is None:
        raise OpError("%s: oneDNN ran the forward of this call but declines its backward "
                      "(x %s, hidden %d)" % (op, list(x.shape), states[0].shape[1]))
    dx, dw_ih, dw_hh, db, d_states = grads
    return _in_layout(dx, time_major), dw_ih, dw_hh, db, d_states


def _lstm_backward(need, gy, ghn, gcn, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0,
                   sequence_length, y, h_n, c_n, reserve, reverse, time_major):
    """(dx, dW_ih, dW_hh, dbias, dh0, dc0) by the backward of the kernel
    that wrote ``reserve``."""
    if _made_by_onednn(reserve):
        return _onednn_bptt(gy, ghn, gcn, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0,
                            y, h_n, c_n, reserve, reverse, time_major)
    steps, batch = x.shape[:2] if time_major else x.shape[1::-1]
    saved = _reserve_views('lstm_seq', reserve, steps, batch, h0.shape[-1])
    return _lstm_bptt(need, gy, ghn, gcn, x, weight_ih, weight_hh, h0, c0, sequence_length,
                      *saved, reverse, time_major)


@lstm_seq_op.def_fast_grad
def _lstm_seq_fast(gy, ghn, gcn, g_reserve, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0,
                   sequence_length, y, h_n, c_n, reserve, reverse, time_major):
    dx, dw_ih, dw_hh, db, dh0, dc0 = _lstm_backward(
        (wants(0), wants(1), wants(2)), gy, ghn, gcn, x, weight_ih, weight_hh, bias_ih,
        bias_hh, h0, c0, sequence_length, y, h_n, c_n, reserve, reverse, time_major)
    return dx, dw_ih, dw_hh, db, db.copy(), dh0, dc0, None


@float32_compute
def _lstm_bptt(need, gy, ghn, gcn, x, weight_ih, weight_hh, h0, c0, sequence_length, gates,
               h_prev, c_prev, tanh_c, reverse, time_major):
    """The fused LSTM backward: (dx, dW_ih, dW_hh, dbias, dh0, dc0), the first
    three None unless ``need`` says so; ``gy``, ``ghn``, ``gcn`` may be None."""
    n = h0.shape[-1]
    steps, batch = x.shape[:2] if time_major else x.shape[1::-1]
    lay = _layout(steps, batch, True)
    i, f, g, o = (gates[..., k * n:(k + 1) * n] for k in range(4))
    # factors of all steps at once (sigmoid' = s (1 - s), tanh' = 1 - t^2):
    # d_o = dh * k_o, dc_new = dh * k_c + dc, [d_i, d_f, d_g] = dc_new * k_ifg
    k_ifg = np.empty(lay(3 * n), x.dtype).reshape(lay(3) + (n,))
    np.subtract(1, i, out=k_ifg[..., 0, :])
    k_ifg[..., 0, :] *= i
    k_ifg[..., 0, :] *= g
    np.subtract(1, f, out=k_ifg[..., 1, :])
    k_ifg[..., 1, :] *= f
    k_ifg[..., 1, :] *= c_prev
    np.multiply(g, g, out=k_ifg[..., 2, :])
    np.subtract(1, k_ifg[..., 2, :], out=k_ifg[..., 2, :])
    k_ifg[..., 2, :] *= i
    k_o = 1 - o
    k_o *= o
    k_o *= tanh_c
    k_c = tanh_c * tanh_c
    np.subtract(1, k_c, out=k_c)
    k_c *= o
    dg = np.empty_like(gates)             # grads of the pre-activations [i, f, g, o]
    dg3 = dg.reshape(lay(4) + (n,))
    F, KIFG, KO, KC, D, D3 = f, k_ifg, k_o, k_c, dg, dg3
    GY = None if gy is None else _time_major(gy, time_major)
    keep, keep_f, full = _keep_masks(sequence_length, steps, time_major, x.dtype)
    dh = np.zeros_like(h0) if ghn is None else np.array(ghn)
    dc = np.zeros_like(c0) if gcn is None else np.array(gcn)
    for t in reversed(_order(steps, reverse)):
        masked = keep is not None and not full[t]
        if masked:               # a padded row passes its state grads through unchanged
            pass_h, pass_c = dh * (1 - keep_f[t]), dc * (1 - keep_f[t])
            dh = dh if GY is None else dh + GY[t]
            dh, dc = dh * keep_f[t], dc * keep_f[t]
        elif GY is not None:
            dh = dh + GY[t]
        d = D[t]
        np.multiply(dh, KO[t], out=d[:, 3 * n:])
        dcn = np.multiply(dh, KC[t])
        dcn += dc
        np.multiply(KIFG[t], dcn[:, None, :], out=D3[t][:, :3])
        dh = np.matmul(d, weight_hh)
        dc = np.multiply(dcn, F[t], out=dcn)
        if masked:
            dh += pass_h
            dc += pass_c
    dx, dw_ih, dw_hh = _weight_grads(need, dg, x, h_prev, weight_ih, time_major)
    return dx, dw_ih, dw_hh, _bias_grad(dg), dh, dc


def _step_masks(lengths, steps, dtype):
    """Per-step ``[B, 1]`` float masks (1 on valid rows) built with registered ops."""
    if lengths is None:
        return None
    lens = lib.unsqueeze(lib.cast(lengths, 'int64'), [0])
    valid = lib.less_than(lib.unsqueeze(lib.arange(0, steps, 1, 'int64'), [1]), lens)
    return lib.unstack(lib.unsqueeze(lib.cast(valid, dtype), [2]), 0)


def _replay(x, weight_ih, bias, lengths, time_major):
    """(per-step projected inputs, per-step masks or None, time axis, steps),
    built with registered ops (the grad rules replay a known number of steps)."""
    axis = 0 if time_major else 1
    steps = x.shape[axis]
    proj = lib.unstack(lib.matmul_op(x, weight_ih, False, True) + bias, axis)
    masks = _step_masks(lengths, steps, x.dtype)
    return proj, masks, axis, steps


def _seq_grad(x, weight_ih, bias_x, lengths, reverse, time_major, states0, gy, g_states,
              forward_step, backward_step):
    """The composite BPTT shared by both ops, with registered ops.
    ``forward_step(x_t, states)`` gives (new states, what the step's backward
    needs); ``backward_step(g_states, saved, h_prev)`` gives (d x_t, d states,
    dW_hh, dbias_hh). The forward is replayed once: the backward reuses its
    activations instead of recomputing them."""
    proj, masks, axis, steps = _replay(x, weight_ih, bias_x, lengths, time_major)
    starts, saved = [None] * steps, [None] * steps
    states = states0
    for t in _order(steps, reverse):
        starts[t] = states
        new, saved[t] = forward_step(proj[t], states)
        if masks is not None:
            m = masks[t]
            new = [s + m * (v - s) for s, v in zip(states, new)]
        states = new
    gys = None if gy is None else lib.unstack(gy, axis)
    grads = [g if g is not None else lib.zeros_like(s) for g, s in zip(g_states, states0)]
    dproj = [None] * steps
    dw_hh = db_hh = dw_ih = None
    for t in reversed(_order(steps, reverse)):
        if masks is not None:    # a padded row passes its state grads through
            m = masks[t]
            passed = [g * (1 - m) for g in grads]
        if gys is not None:
            grads = [grads[0] + gys[t]] + grads[1:]
        if masks is not None:
            grads = [g * m for g in grads]
        d, grads, dw, db = backward_step(grads, saved[t], starts[t][0])
        if masks is not None:
            grads = [g + p for g, p in zip(grads, passed)]
        dproj[t] = d
        dw_hh = dw if dw_hh is None else dw_hh + dw
        db_hh = db if db_hh is None or db is None else db_hh + db
    dg = lib.stack(dproj, axis)
    dx = lib.matmul_op(dg, weight_ih, False, False)
    xs = lib.unstack(x, axis)
    for t in range(steps):
        dw = lib.matmul_op(dproj[t], xs[t], True, False)
        dw_ih = dw if dw_ih is None else dw_ih + dw
    db_x = lib.sum_op(dg, (0, 1), False, None)
    return dx, dw_ih, dw_hh, db_x, db_hh, grads


@lstm_seq_op.def_grad
def _lstm_seq_grad(gy, ghn, gcn, g_reserve, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0,
                   sequence_length, y, h_n, c_n, reserve, reverse, time_major):
    def forward_step(x_t, states):          # the lstm_cell step (rnn_cells.py)
        h, c = states
        pre = x_t + matmul_op(h, weight_hh, False, True)
        pi, pf, pg, po = lib.split_op(pre, 4, (), 1)
        i, f, g, o = sigmoid_op(pi), sigmoid_op(pf), tanh_op(pg), sigmoid_op(po)
        c_new = f * c + i * g
        tc = tanh_op(c_new)
        return [o * tc, c_new], (i, f, g, o, tc, c)

    def backward_step(grads, saved, h):
        gh, gc = grads
        i, f, g, o, tc, c = saved
        dc = gh * o * (1 - tc * tc) + gc
        d = lib.concat_op([dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g),
                           gh * tc * o * (1 - o)], 1)
        return (d, [matmul_op(d, weight_hh, False, False), dc * f],
                matmul_op(d, h, True, False), None)

    if x.shape[0 if time_major else 1] < 0:      # no replay: the fused backward as an op
        gy, ghn, gcn = _filled([gy, ghn, gcn], [y, h_n, c_n])
        dx, dw_ih, dw_hh, db, dh0, dc0 = lstm_seq_grad_op(
            gy, ghn, gcn, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length,
            y, h_n, c_n, reserve, reverse, time_major)
        return dx, dw_ih, dw_hh, db, db, dh0, dc0, None
    dx, dw_ih, dw_hh, db, _, (dh0, dc0) = _seq_grad(
        x, weight_ih, bias_ih + bias_hh, sequence_length, reverse, time_major, [h0, c0], gy,
        [ghn, gcn], forward_step, backward_step)
    return dx, dw_ih, dw_hh, db, db, dh0, dc0, None


def _filled(grads, outs):
    return [lib.zeros_like(o) if g is None else g for g, o in zip(grads, outs)]


def _seq_grad_meta(x, weight_ih, weight_hh, h0, c0):
    dt = meta.dtype_of(x)
    metas = [Meta(meta.shape_of(v), dt) for v in (x, weight_ih, weight_hh)]
    metas.append(Meta((meta.shape_of(weight_ih)[0],), dt))
    return tuple(metas + [Meta(meta.shape_of(v), dt) for v in (h0, c0) if v is not None])


def _lstm_seq_grad_meta(gy, gh_n, gc_n, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0,
                        sequence_length, y, h_n, c_n, reserve, reverse=False, time_major=True):
    return _seq_grad_meta(x, weight_ih, weight_hh, h0, c0)


# The first-order backward as an op of its own, for static graphs whose number
# of time steps is unknown when they are built (lstm_seq's grad rule replays
# the steps otherwise). Its grad rule raises: second derivatives through it
# need the number of steps (a known time dimension).
@def_op('lstm_seq_grad', _lstm_seq_grad_meta,
        inputs=('gy', 'gh_n', 'gc_n', 'x', 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh',
                'h0', 'c0', 'sequence_length?', 'y', 'h_n', 'c_n', 'reserve'),
        outputs=('dx', 'dweight_ih', 'dweight_hh', 'dbias', 'dh0', 'dc0'),
        attrs={'reverse': False, 'time_major': True}, differentiable=False, pattern='opaque')
def lstm_seq_grad_op(gy, gh_n, gc_n, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0,
                     sequence_length, y, h_n, c_n, reserve, reverse, time_major):
    """The gradients of ``lstm_seq`` (one bias gradient: both biases get it),
    by the backward of the kernel that wrote ``reserve``."""
    return _lstm_backward((True, True, True), gy, gh_n, gc_n, x, weight_ih, weight_hh, bias_ih,
                          bias_hh, h0, c0, sequence_length, y, h_n, c_n, reserve, reverse,
                          time_major)


@lstm_seq_op.def_onnx
def _lstm_seq_onnx(g, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, c0, sequence_length,
                   reverse, time_major):
    # ONNX's gate order is i, o, f, c; ours i, f, g(c), o
    order = (0, 3, 1, 2)
    empty = _onnx_empty_batch(g, 3)
    if empty:
        return empty
    w, r, b = _onnx_weights(g, weight_ih, weight_hh, bias_ih, bias_hh, 4, order)
    y, h_n, c_n = g.op('LSTM', *_onnx_inputs(g, x, w, r, b, sequence_length, h0, time_major),
                       g.unsqueeze(c0, [0]), outputs=3,
                       hidden_size=g.meta(weight_hh).shape[1],
                       direction='reverse' if reverse else 'forward')
    return _onnx_output(g, y, time_major), g.squeeze(h_n, [0]), g.squeeze(c_n, [0])


def _onnx_gates(g, v, parts, order, weight_hh):
    """``v``'s gate blocks (rows) in ONNX's ``order``."""
    rows = g.meta(weight_hh).shape[0]
    if rows < 0:
        raise OpError("rnn export: the weight_hh shape must be known, got %s"
                      % list(g.meta(weight_hh).shape))
    blocks = g.op('Split', v, g.ints([rows // parts] * parts), axis=0, outputs=parts)
    return g.op('Concat', *[blocks[k] for k in order], axis=0)


def _onnx_weights(g, weight_ih, weight_hh, bias_ih, bias_hh, parts, order):
    """ONNX's W, R and B (the input and hidden biases concatenated), their
    gate blocks in ONNX's ``order``."""
    w, r, b_ih, b_hh = (_onnx_gates(g, v, parts, order, weight_hh)
                        for v in (weight_ih, weight_hh, bias_ih, bias_hh))
    return w, r, g.op('Concat', b_ih, b_hh, axis=0)


def _onnx_empty_batch(g, n_out):
    """The first ``n_out`` outputs as constants when the batch is known to be
    empty (onnxruntime's LSTM / GRU abort the process on an empty batch), else None."""
    metas = [g.out_meta(k) for k in range(n_out)]
    if any(0 not in m.shape or -1 in m.shape for m in metas):
        return None
    return [g.const(np.zeros(m.shape, m.dtype), hint='empty') for m in metas]


def _onnx_inputs(g, x, w, r, b, sequence_length, h0, time_major):
    """ONNX RNN-op inputs: time-major X, W/R/B with a direction axis, the
    int32 lengths, initial_h."""
    xt = x if time_major else g.transpose(x, [1, 0, 2])
    lens = None if sequence_length is None else g.cast(sequence_length, np.int32)
    return (xt, g.unsqueeze(w, [0]), g.unsqueeze(r, [0]), g.unsqueeze(b, [0]), lens,
            g.unsqueeze(h0, [0]))


def _onnx_output(g, y, time_major):
    """ONNX's Y ``[T, 1, B, H]`` in our layout."""
    y = g.squeeze(y, [1])
    return y if time_major else g.transpose(y, [1, 0, 2])


# ---- gru_seq ----------------------------------------------------------------------------------

@def_op('gru_seq', _gru_seq_meta,
        inputs=('x', 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh', 'h0', 'sequence_length?'),
        outputs=('y', 'h_n', 'reserve'),
        attrs={'reverse': False, 'time_major': True},
        nondiff_outputs=('reserve',), reserve_outputs=('reserve',),
        no_grad_inputs=('sequence_length',), pattern='opaque')
@float32_compute
def gru_seq_op(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length, reverse,
               time_major):
    """A GRU over a whole sequence (see the module doc)."""
    args = (x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length, reverse,
            time_major)
    _check_kernel(_gru_seq_meta, args, (x, weight_ih, weight_hh, bias_ih, bias_hh, h0),
                  sequence_length)
    n = h0.shape[-1]
    if x.ndim != 3 or weight_ih.shape != (3 * n, x.shape[-1]):
        _gru_seq_meta(*args)
    steps, batch = x.shape[:2] if time_major else x.shape[1::-1]
    dt = x.dtype
    Y = np.empty((steps, batch, n), dt)
    reserve, A, HW, HP = _numpy_reserve('gru_seq', steps, batch, n, dt)
    gx = _project(_time_major(x, time_major), weight_ih, bias_ih)
    keep, keep_f, full = _keep_masks(sequence_length, steps, time_major, dt)
    w_t, one = weight_hh.T, np.ones((), dt)
    h = h0
    with np.errstate(over='ignore'):
        for t in _order(steps, reverse):
            HP[t] = h
            hw, a, xw = HW[t], A[t], gx[t]
            np.matmul(h, w_t, out=hw)
            hw += bias_hh
            rz = np.add(xw[:, :2 * n], hw[:, :2 * n], out=a[:, :2 * n])
            _sigmoid_(rz, one)
            cand = np.multiply(a[:, :n], hw[:, 2 * n:], out=a[:, 2 * n:])
            cand += xw[:, 2 * n:]
            np.tanh(cand, out=cand)
            h_new = np.subtract(h, cand, out=Y[t])
            h_new *= a[:, n:2 * n]
            h_new += cand
            if keep is None or full[t]:
                h = h_new
            else:
                h = np.where(keep[t], h_new, h)
                h_new *= keep_f[t]
    return _in_layout(Y, time_major), np.array(h), reserve


def _gru_onednn_order(w, n):
    """Rows of gate blocks (r, z, c) in oneDNN's order (u = z, r, o = c),
    and back: the permutation is its own inverse."""
    return np.concatenate([w[n:2 * n], w[:n], w[2 * n:]])


def _gru_onednn_bias(bias_ih, bias_hh, n):
    """oneDNN's four bias rows (u, r, o, u'): the candidate's hidden bias
    stays apart, inside r * (...)."""
    both = bias_ih + bias_hh
    return np.concatenate([both[n:2 * n], both[:n], bias_ih[2 * n:], bias_hh[2 * n:]])


@gru_seq_op.def_kernel('onednn')
def _gru_seq_onednn(x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length, reverse,
                    time_major):
    if not _onednn_takes(3, x, weight_ih, weight_hh, bias_ih, bias_hh, (h0,), sequence_length,
                         time_major):
        return NotImplemented
    n = h0.shape[1]
    y = np.empty(x.shape[:2] + (n,), np.float32)
    out = dnnl_rnn.forward(onednn.runtime(), dnnl_rnn.GRU, _time_major_view(x, time_major),
                           _gru_onednn_order(weight_ih, n), _gru_onednn_order(weight_hh, n),
                           _gru_onednn_bias(bias_ih, bias_hh, n), (np.ascontiguousarray(h0),),
                           reverse, _time_major_view(y, time_major))
    if out is None:
        return NotImplemented
    (h_n,), reserve = out
    reserve[-1] = RESERVE_ONEDNN
    return y, h_n, reserve


def _gru_backward(need, gy, ghn, x, weight_ih, weight_hh, bias_ih, bias_hh, h0,
                  sequence_length, y, h_n, reserve, reverse, time_major):
    """(dx, dW_ih, dW_hh, db_ih, db_hh, dh0) by the backward of the kernel
    that wrote ``reserve``."""
    n = h0.shape[-1]
    if _made_by_onednn(reserve):
        dx, dw_ih, dw_hh, db, (dh0,) = _onednn_backward(
            'gru_seq', dnnl_rnn.GRU, x, _gru_onednn_order(weight_ih, n),
            _gru_onednn_order(weight_hh, n), _gru_onednn_bias(bias_ih, bias_hh, n), (h0,),
            reverse, time_major, y, (h_n,), reserve, gy, (ghn,))
        ours = _gru_onednn_order(db, n)        # (r, z, o, u') rows
        return (dx, _gru_onednn_order(dw_ih, n), _gru_onednn_order(dw_hh, n), ours[:3 * n],
                np.concatenate([ours[:2 * n], ours[3 * n:]]), dh0)
    steps, batch = x.shape[:2] if time_major else x.shape[1::-1]
    saved = _reserve_views('gru_seq', reserve, steps, batch, n)
    return _gru_bptt(need, gy, ghn, x, weight_ih, weight_hh, h0, sequence_length, *saved,
                     reverse, time_major)


@gru_seq_op.def_fast_grad
def _gru_seq_fast(gy, ghn, g_reserve, x, weight_ih, weight_hh, bias_ih, bias_hh, h0,
                  sequence_length, y, h_n, reserve, reverse, time_major):
    return _gru_backward((wants(0), wants(1), wants(2)), gy, ghn, x, weight_ih, weight_hh,
                         bias_ih, bias_hh, h0, sequence_length, y, h_n, reserve, reverse,
                         time_major) + (None,)


@float32_compute
def _gru_bptt(need, gy, ghn, x, weight_ih, weight_hh, h0, sequence_length, gates, hidden,
              h_prev, reverse, time_major):
    """The fused GRU backward: (dx, dW_ih, dW_hh, db_ih, db_hh, dh0), the
    first three None unless ``need`` says so; ``gy``, ``ghn`` may be None."""
    n = h0.shape[-1]
    steps, batch = x.shape[:2] if time_major else x.shape[1::-1]
    r, z, cand = gates[..., :n], gates[..., n:2 * n], gates[..., 2 * n:]
    # per-step factors for all steps at once: dz_pre = dh * kz, dc_pre = dh * kc,
    # dr_pre = dc_pre * kr
    kz = h_prev - cand
    kz *= z
    kz *= 1 - z
    kc = cand * cand
    np.subtract(1, kc, out=kc)
    kc *= 1 - z
    kr = r * (1 - r)
    kr *= hidden[..., 2 * n:]
    dgx, dgh = np.empty_like(gates), np.empty_like(gates)
    R, Z, KZ, KC, KR, DX, DH = r, z, kz, kc, kr, dgx, dgh
    GY = None if gy is None else _time_major(gy, time_major)
    keep, keep_f, full = _keep_masks(sequence_length, steps, time_major, x.dtype)
    dh = np.zeros_like(h0) if ghn is None else np.array(ghn)
    for t in reversed(_order(steps, reverse)):
        masked = keep is not None and not full[t]
        if masked:
            pass_h = dh * (1 - keep_f[t])
            dh = dh if GY is None else dh + GY[t]
            dh = dh * keep_f[t]
        elif GY is not None:
            dh = dh + GY[t]
        d, e = DX[t], DH[t]
        dc = np.multiply(dh, KC[t], out=d[:, 2 * n:])
        np.multiply(dc, KR[t], out=d[:, :n])
        np.multiply(dh, KZ[t], out=d[:, n:2 * n])
        e[:, :2 * n] = d[:, :2 * n]
        np.multiply(dc, R[t], out=e[:, 2 * n:])
        dh_prev = np.matmul(e, weight_hh)
        dh *= Z[t]
        dh_prev += dh
        dh = dh_prev
        if masked:
            dh += pass_h
    dx, dw_ih, dw_hh = _weight_grads(need, dgx, x, h_prev, weight_ih, time_major, dgh)
    return dx, dw_ih, dw_hh, _bias_grad(dgx), _bias_grad(dgh), dh


@gru_seq_op.def_grad
def _gru_seq_grad(gy, ghn, g_reserve, x, weight_ih, weight_hh, bias_ih, bias_hh, h0,
                  sequence_length, y, h_n, reserve, reverse, time_major):
    def forward_step(x_t, states):          # the gru_cell step (rnn_cells.py)
        h = states[0]
        hw = matmul_op(h, weight_hh, False, True) + bias_hh
        x_r, x_z, x_c = lib.split_op(x_t, 3, (), 1)
        h_r, h_z, h_c = lib.split_op(hw, 3, (), 1)
        r, z = sigmoid_op(x_r + h_r), sigmoid_op(x_z + h_z)
        cand = tanh_op(x_c + r * h_c)
        return [(h - cand) * z + cand], (r, z, cand, h_c)

    def backward_step(grads, saved, h):
        gh = grads[0]
        r, z, cand, h_c = saved
        dc = gh * (1 - z) * (1 - cand * cand)
        dr = dc * h_c * r * (1 - r)
        dz = gh * (h - cand) * z * (1 - z)
        dhw = lib.concat_op([dr, dz, dc * r], 1)
        dh = gh * z + matmul_op(dhw, weight_hh, False, False)
        return (lib.concat_op([dr, dz, dc], 1), [dh], matmul_op(dhw, h, True, False),
                lib.sum_op(dhw, (0,), False, None))

    if x.shape[0 if time_major else 1] < 0:      # no replay: the fused backward as an op
        gy, ghn = _filled([gy, ghn], [y, h_n])
        return tuple(gru_seq_grad_op(gy, ghn, x, weight_ih, weight_hh, bias_ih, bias_hh, h0,
                                     sequence_length, y, h_n, reserve, reverse,
                                     time_major)) + (None,)
    dx, dw_ih, dw_hh, db_ih, db_hh, (dh0,) = _seq_grad(
        x, weight_ih, bias_ih, sequence_length, reverse, time_major, [h0], gy, [ghn],
        forward_step, backward_step)
    return dx, dw_ih, dw_hh, db_ih, db_hh, dh0, None


def _gru_seq_grad_meta(gy, gh_n, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length,
                       y, h_n, reserve, reverse=False, time_major=True):
    metas = _seq_grad_meta(x, weight_ih, weight_hh, h0, None)
    return metas[:4] + (metas[3],) + metas[4:]


def _needs_known_steps(name):
    """The grad rule of a *_seq_grad op: a clear error, not a silently missing
    second derivative."""
    def rule(*args):
        raise OpError("%s: second derivatives of nn.LSTM / nn.GRU in a static program need "
                      "a known number of time steps, but the sequence axis of the input has "
                      "unknown size (-1); give the input a fixed sequence length (e.g. "
                      "InputSpec([batch, steps, features])) or take them eagerly" % name)
    return rule


lstm_seq_grad_op.def_grad(_needs_known_steps('lstm_seq_grad'))


# gru_seq's first-order backward as an op (see lstm_seq_grad)
@def_op('gru_seq_grad', _gru_seq_grad_meta,
        inputs=('gy', 'gh_n', 'x', 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh', 'h0',
                'sequence_length?', 'y', 'h_n', 'reserve'),
        outputs=('dx', 'dweight_ih', 'dweight_hh', 'dbias_ih', 'dbias_hh', 'dh0'),
        attrs={'reverse': False, 'time_major': True}, differentiable=False, pattern='opaque')
def gru_seq_grad_op(gy, gh_n, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length,
                    y, h_n, reserve, reverse, time_major):
    """The gradients of ``gru_seq``, by the backward of the kernel that
    wrote ``reserve``."""
    return _gru_backward((True, True, True), gy, gh_n, x, weight_ih, weight_hh, bias_ih,
                         bias_hh, h0, sequence_length, y, h_n, reserve, reverse, time_major)


gru_seq_grad_op.def_grad(_needs_known_steps('gru_seq_grad'))


@gru_seq_op.def_onnx
def _gru_seq_onnx(g, x, weight_ih, weight_hh, bias_ih, bias_hh, h0, sequence_length, reverse,
                  time_major):
    # ONNX's gate order is z, r, h; ours r, z, c. linear_before_reset=1 is our
    # (cuDNN's) candidate: tanh(W_c x + b_ic + r * (R_c h + b_hc))
    order = (1, 0, 2)
    empty = _onnx_empty_batch(g, 2)
    if empty:
        return empty
    w, r, b = _onnx_weights(g, weight_ih, weight_hh, bias_ih, bias_hh, 3, order)
    y, h_n = g.op('GRU', *_onnx_inputs(g, x, w, r, b, sequence_length, h0, time_major),
                  outputs=2, hidden_size=g.meta(weight_hh).shape[1], linear_before_reset=1,
                  direction='reverse' if reverse else 'forward')
    return _onnx_output(g, y, time_major), g.squeeze(h_n, [0])


__all__ = []
TENSOR_METHODS = {}


# ---- test cases (numpy references: the cells' references in a loop) ------------------------

def _seq_ref(step, x, lengths, reverse, time_major, states, widths):
    """Run ``step(x_t, states) -> (new states, saved arrays)`` over the steps
    with padded rows frozen; returns (y in ``x``'s layout, final states...,
    the time-major saved arrays of all steps; ``widths``: theirs)."""
    xt = x if time_major else x.swapaxes(0, 1)
    steps, batch = xt.shape[:2]
    ys, saved = np.zeros((steps, batch, states[0].shape[1])), \
        [np.zeros((steps, batch, w)) for w in widths]
    for t in _order(steps, reverse):
        new, extras = step(xt[t], states)
        m = np.ones((batch, 1), bool) if lengths is None else (t < np.asarray(lengths))[:, None]
        for buf, v in zip(saved, extras):
            buf[t] = v
        ys[t] = np.where(m, new[0], 0)
        states = [np.where(m, v, s) for v, s in zip(new, states)]
    return [ys if time_major else ys.swapaxes(0, 1)] + states + saved


def _lstm_seq_ref(x, w_ih, w_hh, b_ih, b_hh, h0, c0, lengths, reverse, time_major):
    """y, h_n, c_n (the reserve is the kernel's own: no reference)."""
    return _lstm_seq_ref_saved(x, w_ih, w_hh, b_ih, b_hh, h0, c0, lengths, reverse,
                               time_major)[:3]


def _lstm_seq_ref_saved(x, w_ih, w_hh, b_ih, b_hh, h0, c0, lengths, reverse, time_major):
    """y, h_n, c_n, then the saved arrays a numpy reserve packs."""
    def step(x_t, s):
        h, c, gates = _lstm_ref(x_t @ w_ih.T + b_ih + b_hh, s[0], s[1], w_hh, None)
        return [h, c], [gates, s[0], s[1], np.tanh(c)]
    n = h0.shape[1]
    return _seq_ref(step, x, lengths, reverse, time_major, [h0, c0], (4 * n, n, n, n))


def _gru_seq_ref(x, w_ih, w_hh, b_ih, b_hh, h0, lengths, reverse, time_major):
    """y, h_n (the reserve is the kernel's own: no reference)."""
    return _gru_seq_ref_saved(x, w_ih, w_hh, b_ih, b_hh, h0, lengths, reverse, time_major)[:2]


def _gru_seq_ref_saved(x, w_ih, w_hh, b_ih, b_hh, h0, lengths, reverse, time_major):
    """y, h_n, then the saved arrays a numpy reserve packs."""
    def step(x_t, s):
        h, gates, _ = _gru_ref(x_t @ w_ih.T + b_ih, s[0], w_hh, b_hh)
        return [h], [gates, s[0] @ w_hh.T + b_hh, s[0]]
    n = h0.shape[1]
    return _seq_ref(step, x, lengths, reverse, time_major, [h0], (3 * n, 3 * n, n))


def _cases():
    rng = np.random.default_rng(37)

    def u(*shape):                           # both signs
        return rng.uniform(-1.2, 1.2, shape)

    def lstm(t, b, i, n, lengths=None, reverse=False, time_major=True, **opts):
        x = u(t, b, i) if time_major else u(b, t, i)
        add_test_case(lstm_seq_op, x, u(4 * n, i), u(4 * n, n), u(4 * n), u(4 * n), u(b, n),
                      u(b, n), lengths, reverse, time_major, ref=_lstm_seq_ref,
                      grad_outputs=(0, 1, 2), **opts)

    def gru(t, b, i, n, lengths=None, reverse=False, time_major=True, **opts):
        x = u(t, b, i) if time_major else u(b, t, i)
        add_test_case(gru_seq_op, x, u(3 * n, i), u(3 * n, n), u(3 * n), u(3 * n), u(b, n),
                      lengths, reverse, time_major, ref=_gru_seq_ref, grad_outputs=(0, 1),
                      **opts)

    # time-major; batch-major reversed with lengths (one ending early, one
    # full); batch 1 with a single step; an empty batch
    for case in (gru, lstm):
        case(3, 2, 3, 2)
        case(3, 3, 2, 2, np.array([3, 1, 2]), True, False)
        case(2, 2, 2, 2, np.array([1, 2]), False, True)
        case(1, 1, 2, 3)
        case(2, 0, 2, 2)
    f32 = dict(grad=False)
    x32 = rng.uniform(-1, 1, (2, 3, 2)).astype(np.float32)
    add_test_case(lstm_seq_op, x32, *[rng.uniform(-1, 1, s).astype(np.float32) for s in
                                     ((8, 2), (8, 2), (8,), (8,), (2, 2), (2, 2))],
                  np.array([3, 2]), True, False, ref=_lstm_seq_ref, **f32)
    add_test_case(gru_seq_op, x32, *[rng.uniform(-1, 1, s).astype(np.float32) for s in
                                    ((6, 2), (6, 2), (6,), (6,), (2, 2))],
                  np.array([3, 2]), False, False, ref=_gru_seq_ref, **f32)


def _fd_vjp(ref, args, diff, cots):
    """Central-difference VJP of ``ref``'s first outputs (``cots``) with
    respect to the inputs ``diff`` (float64)."""
    def objective(a):
        return sum(float(np.sum(c * o)) for c, o in zip(cots, ref(*a)))
    grads = []
    for i in diff:
        arr = np.array(args[i], dtype=np.float64)
        g = np.zeros_like(arr)
        for k in np.ndindex(arr.shape):
            for sign in (1, -1):
                moved = arr.copy()
                moved[k] += sign * 1e-6
                g[k] += sign * objective(args[:i] + (moved,) + args[i + 1:]) / 2e-6
        grads.append(g)
    return grads


def _grad_op_case(op, fwd_ref, saved_ref, args, n_states):
    """A case of ``op`` (a *_seq_grad op) at the forward case ``args``: the
    outputs and a numpy reserve from the reference (``saved_ref``), random
    cotangents, a finite-difference reference."""
    rng = np.random.default_rng(len(args[0].shape) + args[0].size)
    outs = saved_ref(*args)
    n_out = 1 + n_states
    cots = tuple(rng.uniform(-1, 1, np.shape(o)) for o in outs[:n_out])
    lengths, attrs = args[5 + n_states], args[6 + n_states:]
    ins = args[:5 + n_states]               # x, the weights, the biases, the states
    saved = tuple(outs[:n_out]) + (pack_reserve(op.name[:-len('_grad')], *outs[n_out:]),)

    def ref(*a):
        fwd = a[len(cots):len(cots) + 5 + n_states] + (lengths,) + tuple(attrs)
        diff = (0, 1, 2) + tuple(5 + k for k in range(n_states))
        g = _fd_vjp(fwd_ref, fwd, diff, cots)
        bias = _fd_vjp(fwd_ref, fwd, (3, 4), cots)
        return g[:3] + (bias[:1] if n_states == 2 else bias) + g[3:]
    add_test_case(op, *(cots + ins + (lengths,) + saved + tuple(attrs)), ref=ref,
                  grad_error='known number of time steps', rtol=1e-5, atol=1e-6)


def _grad_op_cases():
    rng = np.random.default_rng(41)

    def u(*shape):
        return rng.uniform(-1.2, 1.2, shape)
    lstm_args = (u(2, 3, 2), u(8, 2), u(8, 2), u(8), u(8), u(2, 2), u(2, 2))
    gru_args = (u(3, 2, 2), u(6, 2), u(6, 2), u(6), u(6), u(2, 2))
    for lengths, reverse, time_major in ((np.array([3, 1]), True, False),
                                         (None, False, False)):
        _grad_op_case(lstm_seq_grad_op, _lstm_seq_ref, _lstm_seq_ref_saved,
                      lstm_args + (lengths, reverse, time_major), 2)
    for lengths, reverse, time_major in ((np.array([2, 3]), False, True), (None, True, True)):
        _grad_op_case(gru_seq_grad_op, _gru_seq_ref, _gru_seq_ref_saved,
                      gru_args + (lengths, reverse, time_major), 1)


_cases()
_grad_op_cases()
