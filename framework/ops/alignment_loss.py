"""Losses that sum over all alignments of a label sequence to the inputs:
CTC (Graves et al. 2006) and the RNN transducer (Graves 2012), each a
forward-backward pass in log space over the alignment lattice.

Like Paddle's warpctc kernel, ``ctc_loss`` takes unnormalised scores (a
log-softmax over the classes is applied inside); like the CPU warprnnt
kernel, ``rnnt_loss`` takes log-probabilities as they are. Each op returns
the per-sample loss and, as a second non-differentiable output, the gradient
of that loss with respect to its input, computed by the same pass. The grad rule scales
that saved gradient by the output gradient, so first-order gradients work in
both modes; they are not differentiable again (as with Paddle's kernels).

A sample whose labels cannot be aligned to its inputs (too few time steps)
gets loss 0 and gradient 0, as warpctc gives it.
"""
import itertools

import numpy as np

from . import lib, meta
from .registry import Meta, OpError, add_test_case, def_op


def _log_softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _lse(*terms):
    """Elementwise log(sum(exp)) of arrays holding -inf."""
    stack = np.stack(terms)
    m = stack.max(axis=0)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide='ignore'):
        return np.where(np.isfinite(m), safe + np.log(np.exp(stack - safe).sum(axis=0)), -np.inf)


def _check_lengths(api, lengths, limit, what, limit_what):
    if lengths.size and (lengths.min() < 0 or lengths.max() > limit):
        raise OpError("%s: %s must be in [0, %d] (%s), got values in [%d, %d]"
                      % (api, what, limit, limit_what, lengths.min(), lengths.max()))


# ---- CTC -------------------------------------------------------------------------------

def _ctc_one(lp, labels, blank):
    """(loss, grad w.r.t. the log-probabilities ``lp`` [T, C]) of one sample."""
    t_len = lp.shape[0]
    ext = np.full(2 * len(labels) + 1, blank, np.int64)      # blanks between the labels
    ext[1::2] = labels
    s_len = ext.size
    # a transition may skip a blank between two different labels
    skip = np.zeros(s_len, bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    emit = lp[:, ext]                                       # [T, S]
    alpha = np.full((t_len, s_len), -np.inf)
    alpha[0, :2] = emit[0, :2]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        stay = prev
        step = np.concatenate([[-np.inf], prev[:-1]])
        jump = np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), -np.inf)
        alpha[t] = _lse(stay, step, jump) + emit[t]
    beta = np.full((t_len, s_len), -np.inf)
    beta[-1, -2:] = emit[-1, -2:]
    skip_next = np.concatenate([skip[2:], [False, False]])   # s -> s + 2 allowed
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        stay = nxt
        step = np.concatenate([nxt[1:], [-np.inf]])
        jump = np.where(skip_next, np.concatenate([nxt[2:], [-np.inf, -np.inf]]), -np.inf)
        beta[t] = _lse(stay, step, jump) + emit[t]
    log_p = _lse(alpha[-1, -1], alpha[-1, -2]) if s_len > 1 else alpha[-1, -1]
    if not np.isfinite(log_p):
        return 0.0, np.zeros_like(lp)
    # occupation of every lattice node, summed per class: d(-log p) / d lp[t, k]
    occ = np.exp(alpha + beta - emit - log_p)
    grad = np.zeros_like(lp)
    for s in range(s_len):
        grad[:, ext[s]] -= occ[:, s]
    return -log_p, grad


def _ctc_meta(logits, labels, input_lengths, label_lengths, blank=0, norm_by_times=False):
    xs = meta.shape_of(logits)
    if len(xs) != 3 or len(meta.shape_of(labels)) != 2:
        raise OpError("ctc_loss: log_probs must be [max_time, batch, classes] and labels "
                      "[batch, max_label_length], got %s and %s"
                      % (list(xs), list(meta.shape_of(labels))))
    dt = meta.dtype_of(logits)
    return Meta((xs[1],), dt), Meta(xs, dt)


@def_op('ctc_loss', _ctc_meta, outputs=('loss', 'grad'), nondiff_outputs=('grad',),
        no_grad_inputs=('labels', 'input_lengths', 'label_lengths'), pattern='opaque')
def ctc_loss_op(logits, labels, input_lengths, label_lengths, blank=0, norm_by_times=False):
    """Per-sample CTC loss ``-log p(labels | softmax(logits))`` of time-major
    ``logits`` [T, B, C] with padded ``labels`` [B, L]; ``grad`` is its
    gradient w.r.t. ``logits`` (divided by the sample's length with
    ``norm_by_times``, as warpctc does)."""
    t_max, batch, classes = logits.shape
    if not 0 <= blank < classes:
        raise OpError("ctc_loss: blank %d must be in [0, %d)" % (blank, classes))
    input_lengths = np.asarray(input_lengths).reshape(-1)
    label_lengths = np.asarray(label_lengths).reshape(-1)
    if input_lengths.size != batch or label_lengths.size != batch:
        raise OpError("ctc_loss: input_lengths and label_lengths need %d entries (the batch), "
                      "got %d and %d" % (batch, input_lengths.size, label_lengths.size))
    _check_lengths('ctc_loss', input_lengths, t_max, 'input_lengths', 'the max time')
    _check_lengths('ctc_loss', label_lengths, labels.shape[1], 'label_lengths',
                   'the padded label length')
    lp = _log_softmax(logits.astype(np.float64), axis=-1)
    loss = np.zeros(batch)
    grad = np.zeros(logits.shape)
    for b in range(batch):
        t_len, l_len = int(input_lengths[b]), int(label_lengths[b])
        if t_len == 0:
            continue
        lab = np.asarray(labels[b, :l_len], np.int64)
        if lab.size and (lab.min() < 0 or lab.max() >= classes or (lab == blank).any()):
            raise OpError("ctc_loss: labels of sample %d must be in [0, %d) and not the blank "
                          "%d, got %s" % (b, classes, blank, lab.tolist()))
        loss[b], g_lp = _ctc_one(lp[:t_len, b], lab, blank)
        # through the log-softmax: d/dx = d/dlp - softmax * sum_k d/dlp_k
        g = g_lp - np.exp(lp[:t_len, b]) * g_lp.sum(axis=-1, keepdims=True)
        grad[:t_len, b] = g / t_len if norm_by_times else g
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


@ctc_loss_op.def_grad
def _ctc_grad(g, gg, logits, labels, input_lengths, label_lengths, loss, grad, blank,
              norm_by_times):
    return lib.reshape(g, [1, -1, 1]) * grad, None, None, None


@ctc_loss_op.def_fast_grad
def _ctc_fast(g, gg, logits, labels, input_lengths, label_lengths, loss, grad, blank,
              norm_by_times):
    return g.reshape(1, -1, 1) * grad, None, None, None


# ---- RNN transducer ---------------------------------------------------------------------

def _rnnt_one(lp, labels, blank, fastemit_lambda):
    """(loss, grad w.r.t. the log-probabilities ``lp`` [T, U+1, C]) of one sample;
    FastEmit (Yu et al. 2021) scales the label-emission gradients by
    ``1 + fastemit_lambda``, leaving the loss unchanged."""
    t_len, u1 = lp.shape[:2]
    blank_lp = lp[:, :, blank]                                  # [T, U+1]
    label_lp = lp[:, np.arange(u1 - 1), labels] if u1 > 1 else np.zeros((t_len, 0))
    alpha = np.full((t_len, u1), -np.inf)
    alpha[0, 0] = 0.0
    for t in range(t_len):
        for u in range(u1):
            if t == 0 and u == 0:
                continue
            a = alpha[t - 1, u] + blank_lp[t - 1, u] if t else -np.inf
            b = alpha[t, u - 1] + label_lp[t, u - 1] if u else -np.inf
            alpha[t, u] = np.logaddexp(a, b)
    beta = np.full((t_len, u1), -np.inf)
    beta[-1, -1] = blank_lp[-1, -1]
    for t in range(t_len - 1, -1, -1):
        for u in range(u1 - 1, -1, -1):
            if t == t_len - 1 and u == u1 - 1:
                continue
            a = beta[t + 1, u] + blank_lp[t, u] if t < t_len - 1 else -np.inf
            b = beta[t, u + 1] + label_lp[t, u] if u < u1 - 1 else -np.inf
            beta[t, u] = np.logaddexp(a, b)
    log_p = beta[0, 0]
    if not np.isfinite(log_p):
        return 0.0, np.zeros_like(lp)
    grad = np.zeros_like(lp)
    nxt = np.concatenate([beta[1:], np.full((1, u1), -np.inf)])
    nxt[-1, -1] = 0.0                                          # the final blank ends the path
    grad[:, :, blank] = -np.exp(alpha + blank_lp + nxt - log_p)
    if u1 > 1:
        emit = -np.exp(alpha[:, :-1] + label_lp + beta[:, 1:] - log_p) * (1 + fastemit_lambda)
        for u in range(u1 - 1):
            grad[:, u, labels[u]] += emit[:, u]
    return -log_p, grad


def _rnnt_meta(logits, labels, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001):
    xs = meta.shape_of(logits)
    if len(xs) != 4 or len(meta.shape_of(labels)) != 2:
        raise OpError("rnnt_loss: input must be [batch, max_time, max_label + 1, classes] and "
                      "label [batch, max_label], got %s and %s"
                      % (list(xs), list(meta.shape_of(labels))))
    dt = meta.dtype_of(logits)
    return Meta((xs[0],), dt), Meta(xs, dt)


@def_op('rnnt_loss', _rnnt_meta, outputs=('loss', 'grad'), nondiff_outputs=('grad',),
        no_grad_inputs=('labels', 'input_lengths', 'label_lengths'), pattern='opaque')
def rnnt_loss_op(logits, labels, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001):
    """Per-sample RNN-transducer loss of the joint-network log-probabilities
    ``logits`` [B, T, U+1, C] (used as given, as Paddle's CPU kernel does) and
    padded ``labels`` [B, U]; ``grad`` is its gradient w.r.t. ``logits`` (with
    FastEmit's label-gradient scaling)."""
    batch, t_max, u_max1, classes = logits.shape
    if not 0 <= blank < classes:
        raise OpError("rnnt_loss: blank %d must be in [0, %d)" % (blank, classes))
    input_lengths = np.asarray(input_lengths).reshape(-1)
    label_lengths = np.asarray(label_lengths).reshape(-1)
    if input_lengths.size != batch or label_lengths.size != batch:
        raise OpError("rnnt_loss: input_lengths and label_lengths need %d entries (the batch), "
                      "got %d and %d" % (batch, input_lengths.size, label_lengths.size))
    _check_lengths('rnnt_loss', input_lengths, t_max, 'input_lengths', 'the max time')
    _check_lengths('rnnt_loss', label_lengths, u_max1 - 1, 'label_lengths',
                   'the max label length')
    lp = logits.astype(np.float64)
    loss = np.zeros(batch)
    grad = np.zeros(logits.shape)
    for b in range(batch):
        t_len, u_len = int(input_lengths[b]), int(label_lengths[b])
        if t_len == 0:
            continue
        lab = np.asarray(labels[b, :u_len], np.int64)
        if lab.size and (lab.min() < 0 or lab.max() >= classes or (lab == blank).any()):
            raise OpError("rnnt_loss: labels of sample %d must be in [0, %d) and not the blank "
                          "%d, got %s" % (b, classes, blank, lab.tolist()))
        loss[b], grad[b, :t_len, :u_len + 1] = _rnnt_one(lp[b, :t_len, :u_len + 1], lab, blank,
                                                         fastemit_lambda)
    return loss.astype(logits.dtype), grad.astype(logits.dtype)


@rnnt_loss_op.def_grad
def _rnnt_grad(g, gg, logits, labels, input_lengths, label_lengths, loss, grad, blank,
               fastemit_lambda):
    return lib.reshape(g, [-1, 1, 1, 1]) * grad, None, None, None


@rnnt_loss_op.def_fast_grad
def _rnnt_fast(g, gg, logits, labels, input_lengths, label_lengths, loss, grad, blank,
               fastemit_lambda):
    return g.reshape(-1, 1, 1, 1) * grad, None, None, None


# ---- test cases: brute force over every alignment ------------------------------------------

def _collapse(path, blank):
    out, prev = [], None
    for k in path:
        if k != prev and k != blank:
            out.append(k)
        prev = k
    return out


def _ref_ctc(logits, labels, input_lengths, label_lengths, blank, norm_by_times):
    """Sum of the probabilities of every path that collapses to the labels,
    and its gradient by central differences (the op's second output)."""
    logits = np.asarray(logits, np.float64)

    def nll(x):
        out = np.zeros(x.shape[1])
        for b in range(x.shape[1]):
            t_len, lab = int(input_lengths[b]), list(labels[b, :label_lengths[b]])
            lp = _log_softmax(x[:t_len, b])
            total = sum(np.exp(sum(lp[t, k] for t, k in enumerate(path)))
                        for path in itertools.product(range(x.shape[2]), repeat=t_len)
                        if _collapse(path, blank) == lab)
            out[b] = -np.log(total) if total > 0 else 0.0
        return out
    loss = nll(logits)
    grad = np.zeros(logits.shape)
    eps = 1e-6
    for idx in np.ndindex(*logits.shape):
        p, m = logits.copy(), logits.copy()
        p[idx] += eps
        m[idx] -= eps
        b = idx[1]
        g = (nll(p)[b] - nll(m)[b]) / (2 * eps)
        grad[idx] = g / max(int(input_lengths[b]), 1) if norm_by_times else g
    return loss, grad


def _ref_rnnt(logits, labels, input_lengths, label_lengths, blank, fastemit_lambda):
    """Every monotone lattice path (T blanks, U labels in order), summed; the
    gradient by central differences (FastEmit off in these cases)."""
    logits = np.asarray(logits, np.float64)

    def nll(x):
        out = np.zeros(x.shape[0])
        for b in range(x.shape[0]):
            t_len, u_len = int(input_lengths[b]), int(label_lengths[b])
            lab = labels[b, :u_len]
            lp = x[b]
            total = 0.0
            for label_steps in itertools.combinations(range(t_len + u_len - 1), u_len):
                t = u = 0
                logp = 0.0
                for step in range(t_len + u_len - 1):
                    if step in label_steps:
                        logp += lp[t, u, lab[u]]
                        u += 1
                    else:
                        logp += lp[t, u, blank]
                        t += 1
                total += np.exp(logp + lp[t_len - 1, u_len, blank])
            out[b] = -np.log(total)
        return out
    loss = nll(logits)
    grad = np.zeros(logits.shape)
    eps = 1e-6
    for idx in np.ndindex(*logits.shape):
        p, m = logits.copy(), logits.copy()
        p[idx] += eps
        m[idx] -= eps
        grad[idx] = (nll(p)[idx[0]] - nll(m)[idx[0]]) / (2 * eps)
    return loss, grad


_rng = np.random.default_rng(41)
_i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
add_test_case(ctc_loss_op, _rng.standard_normal((4, 2, 3)), np.array([[1, 2], [2, 2]], np.int32),
              _i64(4, 4), _i64(2, 1), 0, False, ref=_ref_ctc, atol=1e-6, double_grad=False)
add_test_case(ctc_loss_op, _rng.standard_normal((4, 3, 3)).astype(np.float32),
              np.array([[1, 1], [0, 1], [1, 0]], np.int32), _i64(4, 3, 2), _i64(2, 2, 1), 2,
              True, ref=_ref_ctc, rtol=1e-4, atol=1e-4, grad=False)
add_test_case(ctc_loss_op, _rng.standard_normal((3, 2, 3)), np.array([[1, 1], [1, 0]], np.int32),
              _i64(2, 0), _i64(2, 1), 0, False, ref=_ref_ctc, atol=1e-6, double_grad=False)
add_test_case(ctc_loss_op, np.zeros((3, 0, 4)), np.zeros((0, 2), np.int32), _i64(), _i64(), 0,
              False, ref=lambda *a: (np.zeros(0), np.zeros((3, 0, 4))), double_grad=False)
add_test_case(rnnt_loss_op, _rng.standard_normal((2, 3, 3, 3)),
              np.array([[1, 2], [2, 0]], np.int32), _i64(3, 2), _i64(2, 1), 0, 0.0,
              ref=_ref_rnnt, atol=1e-6, double_grad=False)
add_test_case(rnnt_loss_op, _rng.standard_normal((1, 2, 2, 4)).astype(np.float32),
              np.array([[3]], np.int32), _i64(2), _i64(1), 1, 0.0, ref=_ref_rnnt, rtol=1e-4,
              atol=1e-4, grad=False)
