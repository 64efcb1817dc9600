"""Checks for public functions built by composing registered ops.

``check_api(fn, *arrays)`` runs ``fn`` on tensors made from ``arrays``
eagerly, inside ``@to_static`` and in a static Program run by an Executor,
and checks that the three agree on the outputs and on the gradients of
``sum(out_k * w_k)`` (random ``w_k``) with respect to the float inputs; the
eager gradients are also checked against central finite differences. It
returns the eager outputs as numpy arrays for the caller's value checks.
"""
import numpy as np

import framework as paddle
from framework import static

EPS = 1e-6


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _float(a):
    return isinstance(a, np.ndarray) and a.dtype.kind == 'f'


def _weights(outs, seed=5):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(o.shape) if np.dtype(o.dtype).kind == 'f' else None
            for o in outs]


def _loss(outs, ws):
    total = None
    for o, w in zip(outs, ws):
        if w is None:
            continue
        term = (o * paddle.to_tensor(w.astype(np.dtype(o.dtype)))).sum()
        total = term if total is None else total + term
    return total


def _eager(fn, arrays, grad_idx):
    ins = [paddle.to_tensor(a, stop_gradient=i not in grad_idx) if isinstance(a, np.ndarray)
           else a for i, a in enumerate(arrays)]
    outs = _outputs(fn(*ins))
    return ins, outs


def _eager_grads(fn, arrays, grad_idx, ws):
    ins, outs = _eager(fn, arrays, grad_idx)
    loss = _loss(outs, ws)
    if loss is None or not grad_idx:
        return [None] * len(grad_idx)
    gs = paddle.grad([loss], [ins[i] for i in grad_idx], allow_unused=True)
    return [None if g is None else g.numpy() for g in gs]


def _numeric(fn, arrays, i, ws):
    def value(arrs):
        with paddle.no_grad():
            outs = _outputs(fn(*[paddle.to_tensor(a) if isinstance(a, np.ndarray) else a
                                 for a in arrs]))
        return sum(float(np.sum(o.numpy().astype(np.float64) * w))
                   for o, w in zip(outs, ws) if w is not None)
    arr = arrays[i]
    g = np.zeros(arr.shape)
    for k in range(arr.size):
        plus, minus = arr.copy().reshape(-1), arr.copy().reshape(-1)
        plus[k] += EPS
        minus[k] -= EPS
        args_p, args_m = list(arrays), list(arrays)
        args_p[i], args_m[i] = plus.reshape(arr.shape), minus.reshape(arr.shape)
        g.reshape(-1)[k] = (value(args_p) - value(args_m)) / (2 * EPS)
    return g


def _to_static(fn, arrays, grad_idx, ws):
    converted = paddle.jit.to_static(lambda *a: fn(*a))
    ins, outs = _eager(converted, arrays, grad_idx)
    loss = _loss(outs, ws)
    grads = [None] * len(grad_idx)
    if loss is not None and grad_idx:
        loss.backward()
        grads = [None if ins[i].grad is None else ins[i].grad.numpy() for i in grad_idx]
    return [o.numpy() for o in outs], grads


def _static(fn, arrays, grad_idx, ws):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            ins, feed = [], {}
            for i, a in enumerate(arrays):
                if isinstance(a, np.ndarray):
                    v = static.data('in%d' % i, list(a.shape), str(a.dtype))
                    v.stop_gradient = i not in grad_idx
                    feed['in%d' % i] = a
                    ins.append(v)
                else:
                    ins.append(a)
            outs = _outputs(fn(*ins))
            fetch = list(outs)
            grad_vars = []
            loss = _loss(outs, ws)
            if loss is not None and grad_idx:
                grad_vars = static.gradients([loss], [ins[i] for i in grad_idx])
                fetch += [g for g in grad_vars if g is not None]
        got = static.Executor().run(main, feed=feed, fetch_list=fetch)
    finally:
        paddle.disable_static()
    values = got[:len(outs)]
    rest = iter(got[len(outs):])
    grads = [None if g is None else next(rest) for g in grad_vars] or [None] * len(grad_idx)
    return values, grads


def check_api(fn, *arrays, grad=True, modes=('to_static', 'static'), rtol=1e-6, atol=1e-8):
    """Run the checks described in the module docstring; returns the eager outputs."""
    grad_idx = [i for i, a in enumerate(arrays) if grad and _float(a)]
    _, outs = _eager(fn, arrays, ())
    values = [o.numpy() for o in outs]
    ws = _weights(outs)
    grads = _eager_grads(fn, arrays, grad_idx, ws) if grad_idx else []
    for i, g in zip(grad_idx, grads):
        num = _numeric(fn, arrays, i, ws)
        np.testing.assert_allclose(np.zeros_like(num) if g is None else g, num, rtol=1e-4,
                                   atol=1e-5, err_msg='eager grad of input %d' % i)
    runners = {'to_static': _to_static, 'static': _static}
    for mode in modes:
        got, got_grads = runners[mode](fn, arrays, grad_idx, ws)
        assert len(got) == len(values), "%s: %d outputs, eager %d" % (mode, len(got), len(values))
        for k, (a, b) in enumerate(zip(got, values)):
            assert a.dtype == b.dtype, "%s: output %d dtype %s, eager %s" % (mode, k, a.dtype,
                                                                            b.dtype)
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                       err_msg='%s: output %d' % (mode, k))
        for i, a, b in zip(grad_idx, got_grads, grads):
            if b is None:
                continue
            np.testing.assert_allclose(np.zeros_like(b) if a is None else a, b, rtol=rtol,
                                       atol=atol, err_msg='%s: grad of input %d' % (mode, i))
    return values
