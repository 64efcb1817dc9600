"""Fused recurrent cells: one time step of an LSTM or a GRU as one op.

A recurrent layer runs its cell once per time step, so the per-op cost of
eager mode (dispatch, a tape node, a backward call) is paid per step; written
with elementwise ops a step is a dozen ops forward and as many backward. These
ops compute a whole step in a few numpy calls (one GEMM for the hidden
projection, the gate nonlinearities in place) and keep the activated gates as
an extra, non-differentiable output, so the fused backward needs no
recomputation. The input projection ``x @ W_ih^T (+ b)`` is not part of the
op: the layers compute it for all time steps in one GEMM before the loop.

Gate layout and formulas are Paddle's (``paddle.nn.LSTMCell`` / ``GRUCell``,
the cuDNN forms):

* ``lstm_cell(x, h, c, weight_hh, bias=None) -> (h', c', gates)``::

      [i, f, g, o] = x + h @ weight_hh^T + bias      (four blocks of hidden_size)
      c' = sigmoid(f) * c + sigmoid(i) * tanh(g);    h' = sigmoid(o) * tanh(c')

  ``gates`` holds the activated ``[sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)]``.
  ``h`` may be narrower than ``c`` (an LSTM with ``proj_size``: ``weight_hh``
  is ``[4 * hidden, proj]``).
* ``gru_cell(x, h, weight_hh, bias=None) -> (h', gates, hidden_c)``::

      [x_r, x_z, x_c] = x;   [h_r, h_z, h_c] = h @ weight_hh^T + bias
      r = sigmoid(x_r + h_r);  z = sigmoid(x_z + h_z)
      c = tanh(x_c + r * h_c);  h' = (h - c) * z + c

  the reset gate applies to the hidden projection *with* its bias, so the
  hidden bias cannot be folded into ``x``. ``gates`` holds ``[r, z, c]`` and
  ``hidden_c`` is ``h_c`` (what ``r`` multiplies), both saved for backward.

The grad rules (``def_grad``) recompute the step with registered ops, so
double grad and static backward work; the fast grads reuse the saved gates.
Half-precision steps compute in float32 and round once (``lowp``), as the
GEMM at their core does.
"""
import numpy as np

from . import lib, meta
from .grad_utils import wants
from .lowp import float32_compute
from .math import matmul_op, sigmoid_op, tanh_op
from .registry import Meta, OpError, add_test_case, def_op


# ---- shape checks -------------------------------------------------------------

def _dim_ok(got, want):
    return got == want or -1 in (got, want)


def _check_2d(op, name, m):
    shape = meta.shape_of(m)
    if len(shape) != 2:
        raise OpError("%s: %s must be 2-D [batch_size, size], got shape %s"
                      % (op, name, list(shape)))
    return shape


def _check_cell(op, gates, x, h, weight_hh, bias, hidden):
    """Shared checks: x [B, gates*H], h [B, P], weight_hh [gates*H, P], bias [gates*H]."""
    xs, hs = _check_2d(op, 'x', x), _check_2d(op, 'h', h)
    ws = meta.shape_of(weight_hh)
    rows = gates * hidden if hidden >= 0 else -1
    if len(ws) != 2 or not _dim_ok(ws[0], rows) or not _dim_ok(ws[1], hs[1]):
        raise OpError("%s: weight_hh must have shape [%d * hidden_size, h.shape[1]] = [%d, %d] "
                      "(h has shape %s), got %s" % (op, gates, rows, hs[1], list(hs), list(ws)))
    if not _dim_ok(xs[1], rows):
        raise OpError("%s: x must have shape [batch_size, %d * hidden_size] = [%d, %d] (the "
                      "projected inputs of the %d gates), got %s"
                      % (op, gates, xs[0], rows, gates, list(xs)))
    if not _dim_ok(xs[0], hs[0]):
        raise OpError("%s: x and h must have the same batch size, got shapes %s and %s"
                      % (op, list(xs), list(hs)))
    if bias is not None and (len(meta.shape_of(bias)) != 1
                             or not _dim_ok(meta.shape_of(bias)[0], rows)):
        raise OpError("%s: bias must have shape [%d], got %s"
                      % (op, rows, list(meta.shape_of(bias))))
    return xs[0] if xs[0] >= 0 else hs[0]


# ---- numpy helpers ----------------------------------------------------------------

def _sigmoid_(a):
    """``1 / (1 + exp(-a))`` in place (as the sigmoid op computes it)."""
    np.negative(a, out=a)
    with np.errstate(over='ignore'):
        np.exp(a, out=a)
    a += 1
    return np.divide(1, a, out=a)


def _hidden(h, weight_hh, bias):
    """``h @ weight_hh^T (+ bias)`` as a new array."""
    out = np.matmul(h, weight_hh.T)
    if bias is not None:
        out += bias
    return out


def _same_dtype(op, names, *arrays):
    first = arrays[0].dtype
    if any(a is not None and a.dtype != first for a in arrays[1:]):
        meta.same_dtype(op, names, *arrays)


# ---- lstm_cell -----------------------------------------------------------------------

def _lstm_meta(x, h, c, weight_hh, bias=None):
    cs = _check_2d('lstm_cell', 'c', c)
    batch = _check_cell('lstm_cell', 4, x, h, weight_hh, bias, cs[1])
    if not _dim_ok(cs[0], batch):
        raise OpError("lstm_cell: c must have shape [batch_size, hidden_size] with the batch "
                      "size %d of x and h, got %s" % (batch, list(cs)))
    dt = meta.same_dtype('lstm_cell', ('x', 'h', 'c', 'weight_hh', 'bias'),
                         x, h, c, weight_hh, bias)
    hidden = cs[1]
    gates = -1 if hidden < 0 else 4 * hidden
    return Meta((batch, hidden), dt), Meta((batch, hidden), dt), Meta((batch, gates), dt)


@def_op('lstm_cell', _lstm_meta, inputs=('x', 'h', 'c', 'weight_hh', 'bias?'),
        outputs=('h_out', 'c_out', 'gates'), attrs={}, nondiff_outputs=('gates',), pattern='opaque')
@float32_compute
def lstm_cell_op(x, h, c, weight_hh, bias):
    """One LSTM step (see the module doc); returns (h', c', activated gates)."""
    if not (x.dtype == h.dtype == c.dtype == weight_hh.dtype) or (
            bias is not None and bias.dtype != x.dtype):
        _same_dtype('lstm_cell', ('x', 'h', 'c', 'weight_hh', 'bias'), x, h, c, weight_hh,
                    bias)
    n = c.shape[-1]
    if x.shape[-1] != 4 * n or weight_hh.shape[0] != 4 * n:
        _lstm_meta(x, h, c, weight_hh, bias)       # raises the clear error
    gates = _hidden(h, weight_hh, bias)
    gates += x
    cand = np.tanh(gates[:, 2 * n:3 * n])
    _sigmoid_(gates)
    gates[:, 2 * n:3 * n] = cand
    i, f, o = gates[:, :n], gates[:, n:2 * n], gates[:, 3 * n:]
    c_out = f * c
    c_out += i * cand
    h_out = np.tanh(c_out)
    h_out *= o
    return h_out, c_out, gates


@lstm_cell_op.def_onnx
def _lstm_onnx(g, x, h, c, weight_hh, bias):
    pre = _onnx_hidden(g, h, weight_hh, bias, x)
    pi, pf, pg, po = _onnx_split(g, pre, 4, weight_hh)
    i, f, cand, o = (g.op('Sigmoid', pi), g.op('Sigmoid', pf), g.op('Tanh', pg),
                     g.op('Sigmoid', po))
    c_out = g.op('Add', g.op('Mul', f, c), g.op('Mul', i, cand))
    h_out = g.op('Mul', o, g.op('Tanh', c_out))
    return h_out, c_out, g.op('Concat', i, f, cand, o, axis=1)


def _onnx_hidden(g, h, weight_hh, bias, x=None):
    """``h @ weight_hh^T (+ bias) (+ x)`` in ONNX: one Gemm (plus an Add)."""
    out = g.op('Gemm', h, weight_hh, x if x is not None else bias, transB=1)
    return g.op('Add', out, bias) if x is not None and bias is not None else out


def _onnx_split(g, v, parts, weight_hh):
    """``v`` split into ``parts`` equal gate blocks along axis 1."""
    rows = g.meta(weight_hh).shape[0]
    if rows < 0:
        raise OpError("rnn cell export: the weight_hh shape must be known, got %s"
                      % list(g.meta(weight_hh).shape))
    return g.op('Split', v, g.ints([rows // parts] * parts), axis=1, outputs=parts)


@lstm_cell_op.def_fast_grad
@float32_compute
def _lstm_fast(gh, gc, ggates, x, h, c, weight_hh, bias, h_out, c_out, gates):
    n = c.shape[-1]
    i, f, g, o = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:3 * n], gates[:, 3 * n:]
    tc = np.tanh(c_out)
    d = np.empty_like(gates)                 # grads of the pre-activations [i, f, g, o]
    np.multiply(gh, tc, out=d[:, 3 * n:])
    np.multiply(tc, tc, out=tc)
    np.subtract(1, tc, out=tc)
    dc = gh * o                              # the cell-state grad, through h' and from c'
    dc *= tc
    dc += gc
    np.multiply(dc, g, out=d[:, :n])
    np.multiply(dc, c, out=d[:, n:2 * n])
    np.multiply(dc, i, out=d[:, 2 * n:3 * n])
    slope = 1 - gates                        # sigmoid' = s (1 - s); tanh' = 1 - t^2
    slope *= gates
    np.multiply(g, g, out=slope[:, 2 * n:3 * n])
    np.subtract(1, slope[:, 2 * n:3 * n], out=slope[:, 2 * n:3 * n])
    d *= slope
    dh = np.matmul(d, weight_hh) if wants(1) else None
    dc_prev = dc * f if wants(2) else None
    dw = np.matmul(d.T, h) if wants(3) else None
    db = d.sum(axis=0) if bias is not None and wants(4) else None
    return d, dh, dc_prev, dw, db


@lstm_cell_op.def_grad
def _lstm_grad(gh, gc, ggates, x, h, c, weight_hh, bias, h_out, c_out, gates):
    # recomputed from the inputs: the saved gates are not differentiable, and
    # a second derivative needs the gates as functions of x, h and weight_hh
    pre = x + matmul_op(h, weight_hh, False, True)
    if bias is not None:
        pre = pre + bias
    pi, pf, pg, po = lib.split_op(pre, 4, (), 1)
    i, f, g, o = sigmoid_op(pi), sigmoid_op(pf), tanh_op(pg), sigmoid_op(po)
    tc = tanh_op(f * c + i * g)
    dc = gh * o * (1 - tc * tc)
    if gc is not None:
        dc = dc + gc
    d = lib.concat_op([dc * g * i * (1 - i), dc * c * f * (1 - f), dc * i * (1 - g * g),
                       gh * tc * o * (1 - o)], 1)
    dh = matmul_op(d, weight_hh, False, False)
    dw = matmul_op(d, h, True, False)
    db = None if bias is None else lib.sum_op(d, (0,), False, None)
    return d, dh, dc * f, dw, db


# ---- gru_cell ---------------------------------------------------------------------

def _gru_meta(x, h, weight_hh, bias=None):
    hidden = _check_2d('gru_cell', 'h', h)[1]
    batch = _check_cell('gru_cell', 3, x, h, weight_hh, bias, hidden)
    dt = meta.same_dtype('gru_cell', ('x', 'h', 'weight_hh', 'bias'), x, h, weight_hh, bias)
    gates = -1 if hidden < 0 else 3 * hidden
    return Meta((batch, hidden), dt), Meta((batch, gates), dt), Meta((batch, hidden), dt)


@def_op('gru_cell', _gru_meta, inputs=('x', 'h', 'weight_hh', 'bias?'),
        outputs=('h_out', 'gates', 'hidden_c'), attrs={},
        nondiff_outputs=('gates', 'hidden_c'), pattern='opaque')
@float32_compute
def gru_cell_op(x, h, weight_hh, bias):
    """One GRU step (see the module doc); returns (h', gates [r, z, c], h_c)."""
    if not (x.dtype == h.dtype == weight_hh.dtype) or (
            bias is not None and bias.dtype != x.dtype):
        _same_dtype('gru_cell', ('x', 'h', 'weight_hh', 'bias'), x, h, weight_hh, bias)
    n = h.shape[-1]
    if x.shape[-1] != 3 * n or weight_hh.shape[0] != 3 * n:
        _gru_meta(x, h, weight_hh, bias)           # raises the clear error
    hw = _hidden(h, weight_hh, bias)
    gates = np.empty_like(hw)
    rz = np.add(x[:, :2 * n], hw[:, :2 * n], out=gates[:, :2 * n])
    _sigmoid_(rz)
    cand = np.multiply(gates[:, :n], hw[:, 2 * n:], out=gates[:, 2 * n:])
    cand += x[:, 2 * n:]
    np.tanh(cand, out=cand)
    h_out = h - cand
    h_out *= gates[:, n:2 * n]
    h_out += cand
    return h_out, gates, hw[:, 2 * n:]


@gru_cell_op.def_onnx
def _gru_onnx(g, x, h, weight_hh, bias):
    x_r, x_z, x_c = _onnx_split(g, x, 3, weight_hh)
    h_r, h_z, h_c = _onnx_split(g, _onnx_hidden(g, h, weight_hh, bias), 3, weight_hh)
    r = g.op('Sigmoid', g.op('Add', x_r, h_r))
    z = g.op('Sigmoid', g.op('Add', x_z, h_z))
    cand = g.op('Tanh', g.op('Add', x_c, g.op('Mul', r, h_c)))
    h_out = g.op('Add', g.op('Mul', g.op('Sub', h, cand), z), cand)
    return h_out, g.op('Concat', r, z, cand, axis=1), h_c


@gru_cell_op.def_fast_grad
@float32_compute
def _gru_fast(gh, ggates, ghc, x, h, weight_hh, bias, h_out, gates, hidden_c):
    n = h.shape[-1]
    r, z, cand = gates[:, :n], gates[:, n:2 * n], gates[:, 2 * n:]
    d = np.empty_like(gates)                 # grads of the input-side pre-activations
    dz, dc = d[:, n:2 * n], d[:, 2 * n:]
    np.subtract(h, cand, out=dz)
    dz *= gh
    np.subtract(1, z, out=dc)
    dc *= gh
    dc *= 1 - cand * cand
    np.multiply(dc, hidden_c, out=d[:, :n])
    d[:, :2 * n] *= gates[:, :2 * n] * (1 - gates[:, :2 * n])
    dhw = d.copy()                           # ... and of the hidden side: r scales h_c
    dhw[:, 2 * n:] *= r
    dh = None
    if wants(1):
        dh = np.matmul(dhw, weight_hh)
        dh += gh * z
    dw = np.matmul(dhw.T, h) if wants(2) else None
    db = dhw.sum(axis=0) if bias is not None and wants(3) else None
    return d, dh, dw, db


@gru_cell_op.def_grad
def _gru_grad(gh, ggates, ghc, x, h, weight_hh, bias, h_out, gates, hidden_c):
    hw = matmul_op(h, weight_hh, False, True)
    if bias is not None:
        hw = hw + bias
    x_r, x_z, x_c = lib.split_op(x, 3, (), 1)
    h_r, h_z, h_c = lib.split_op(hw, 3, (), 1)
    r, z = sigmoid_op(x_r + h_r), sigmoid_op(x_z + h_z)
    cand = tanh_op(x_c + r * h_c)
    dc = gh * (1 - z) * (1 - cand * cand)
    dr = dc * h_c * r * (1 - r)
    dz = gh * (h - cand) * z * (1 - z)
    dx = lib.concat_op([dr, dz, dc], 1)
    dhw = lib.concat_op([dr, dz, dc * r], 1)
    dh = gh * z + matmul_op(dhw, weight_hh, False, False)
    dw = matmul_op(dhw, h, True, False)
    db = None if bias is None else lib.sum_op(dhw, (0,), False, None)
    return dx, dh, dw, db


__all__ = []
TENSOR_METHODS = {}


# ---- test cases (textbook numpy references) ----------------------------------------

def _sig(v):
    return 1.0 / (1.0 + np.exp(-v))


def _lstm_ref(x, h, c, w, b):
    n = c.shape[-1]
    pre = x + np.einsum('bp,gp->bg', h, w) + (0 if b is None else b)
    i, f, o = _sig(pre[:, :n]), _sig(pre[:, n:2 * n]), _sig(pre[:, 3 * n:])
    g = np.tanh(pre[:, 2 * n:3 * n])
    c_out = f * c + i * g
    return o * np.tanh(c_out), c_out, np.concatenate([i, f, g, o], axis=1)


def _gru_ref(x, h, w, b):
    n = h.shape[-1]
    hw = np.einsum('bp,gp->bg', h, w) + (0 if b is None else b)
    r = _sig(x[:, :n] + hw[:, :n])
    z = _sig(x[:, n:2 * n] + hw[:, n:2 * n])
    cand = np.tanh(x[:, 2 * n:] + r * hw[:, 2 * n:])
    return z * h + (1 - z) * cand, np.concatenate([r, z, cand], axis=1), hw[:, 2 * n:]


def _cases():
    rng = np.random.default_rng(31)

    def u(*shape):                           # both signs
        return rng.uniform(-1.5, 1.5, shape)

    # lstm: batch 3 with a bias; batch 1 without; a projected h (P=2 < H=3);
    # float32; an empty batch
    add_test_case(lstm_cell_op, u(3, 8), u(3, 2), u(3, 2), u(8, 2), u(8), ref=_lstm_ref)
    add_test_case(lstm_cell_op, u(1, 12), u(1, 3), u(1, 3), u(12, 3), None, ref=_lstm_ref)
    add_test_case(lstm_cell_op, u(2, 12), u(2, 2), u(2, 3), u(12, 2), u(12), ref=_lstm_ref)
    f32 = [a.astype(np.float32) for a in (u(2, 8), u(2, 2), u(2, 2), u(8, 2), u(8))]
    add_test_case(lstm_cell_op, *f32, ref=_lstm_ref, grad=False)
    add_test_case(lstm_cell_op, u(0, 8), u(0, 2), u(0, 2), u(8, 2), u(8), ref=_lstm_ref)
    # gru: the same spread of batches, bias or not, dtypes
    add_test_case(gru_cell_op, u(3, 6), u(3, 2), u(6, 2), u(6), ref=_gru_ref)
    add_test_case(gru_cell_op, u(1, 9), u(1, 3), u(9, 3), None, ref=_gru_ref)
    f32 = [a.astype(np.float32) for a in (u(2, 6), u(2, 2), u(6, 2), u(6))]
    add_test_case(gru_cell_op, *f32, ref=_gru_ref, grad=False)
    add_test_case(gru_cell_op, u(0, 6), u(0, 2), u(6, 2), u(6), ref=_gru_ref)


_cases()
