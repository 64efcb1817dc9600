"""Eager vs static Program vs @to_static, against hand-written numpy and PyTorch.

Models (as the static-mode and dy2static issues describe them):
* an LSTM-style cell unrolled 50 steps (batch 4, hidden 32): inference
  forward, and a training step (forward + backward + SGD update);
* the same cell as the body of one ``static.nn.while_loop`` over the 50
  steps, and a plain ``while`` loop (``s = tanh(s * w + x_t)``): static
  training / backward steps, whose backward is one ``while_grad`` looping
  over the saved iterations (with the number of ops it runs per iteration);
* an MLP 784-512-512-10 (batch 64) and LeNet ([64, 1, 28, 28]) training steps.

All timings are best-of-N milliseconds measured in this process.

    python benchmarks/bench_static.py [--repeat 20] [--quick | --while-only]
"""
import argparse
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402
import framework.nn.functional as F  # noqa: E402
from framework import nn, static  # noqa: E402

STEPS, BATCH, HIDDEN = 50, 4, 32


def best_ms(fn, repeat):
    fn()
    fn()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3


# ---- LSTM-style cell ------------------------------------------------------------

def lstm_weights(seed=0):
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((HIDDEN + HIDDEN, 4 * HIDDEN)) * 0.1).astype('float32')
    b = np.zeros(4 * HIDDEN, 'float32')
    xs = rng.standard_normal((STEPS, BATCH, HIDDEN)).astype('float32')
    return w, b, xs


def lstm_numpy(w, b, xs):
    h = np.zeros((BATCH, HIDDEN), 'float32')
    c = np.zeros((BATCH, HIDDEN), 'float32')
    for t in range(STEPS):
        z = np.concatenate([xs[t], h], 1) @ w + b
        i, f, g, o = np.split(z, 4, axis=1)
        i, f, o = 1 / (1 + np.exp(-i)), 1 / (1 + np.exp(-f)), 1 / (1 + np.exp(-o))
        c = f * c + i * np.tanh(g)
        h = o * np.tanh(c)
    return h


def lstm_framework(w, b, xs):
    """The same computation with framework ops (eager Tensors or Variables)."""
    h = paddle.zeros([BATCH, HIDDEN])
    c = paddle.zeros([BATCH, HIDDEN])
    for t in range(STEPS):
        z = paddle.matmul(paddle.concat([xs[t], h], 1), w) + b
        i, f, g, o = paddle.split(z, 4, axis=1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
        h = F.sigmoid(o) * paddle.tanh(c)
    return h


class LSTMNet(nn.Layer):
    def __init__(self, w, b):
        super().__init__()
        self.w = paddle.Parameter(w)
        self.b = paddle.Parameter(b)

    def forward(self, xs):
        return lstm_framework(self.w, self.b, xs)


def bench_lstm(repeat, rows):
    w, b, xs = lstm_weights()
    ref = lstm_numpy(w, b, xs)
    t_np = best_ms(lambda: lstm_numpy(w, b, xs), repeat)
    rows.append(('lstm fwd', 'numpy', t_np))

    net = LSTMNet(w, b)
    xs_t = paddle.to_tensor(xs)
    with paddle.no_grad():
        np.testing.assert_allclose(net(xs_t).numpy(), ref, rtol=1e-4, atol=1e-5)
        rows.append(('lstm fwd', 'eager', best_ms(lambda: net(xs_t), repeat)))

    # static Program through the executor
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data('xs', [STEPS, BATCH, HIDDEN], 'float32')
        wv = static.create_parameter([2 * HIDDEN, 4 * HIDDEN], 'float32', name='lstm_w')
        bv = static.create_parameter([4 * HIDDEN], 'float32', name='lstm_b', is_bias=True)
        hv = lstm_framework(wv, bv, [xv[t] for t in range(STEPS)])
        loss = hv.sum()
        train_prog = main.clone()
    paddle.disable_static()
    exe = static.Executor()
    scope = static.Scope()
    scope.vars.update({'lstm_w': w, 'lstm_b': b})
    out, = exe.run(main, feed={'xs': xs}, fetch_list=[hv], scope=scope)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    rows.append(('lstm fwd', 'static', best_ms(
        lambda: exe.run(main, feed={'xs': xs}, fetch_list=[hv], scope=scope), repeat)))

    snet = paddle.jit.to_static(LSTMNet(w, b))
    with paddle.no_grad():
        np.testing.assert_allclose(snet(xs_t).numpy(), ref, rtol=1e-4, atol=1e-5)
        rows.append(('lstm fwd', 'to_static', best_ms(lambda: snet(xs_t), repeat)))

    # training step: forward + backward + SGD
    opt = paddle.optimizer.SGD(0.01, parameters=net.parameters())

    def eager_step():
        loss = net(xs_t).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
    rows.append(('lstm train', 'eager', best_ms(eager_step, repeat)))

    sopt = paddle.optimizer.SGD(0.01, parameters=snet.parameters())

    def to_static_step():
        loss = snet(xs_t).sum()
        loss.backward()
        sopt.step()
        sopt.clear_grad()
    rows.append(('lstm train', 'to_static', best_ms(to_static_step, repeat)))

    paddle.enable_static()
    with static.program_guard(train_prog, startup):
        loss_v = train_prog.global_block().var(loss.name)
        paddle.optimizer.SGD(0.01).minimize(loss_v)
    paddle.disable_static()
    rows.append(('lstm train', 'static', best_ms(
        lambda: exe.run(train_prog, feed={'xs': xs}, fetch_list=[loss_v], scope=scope), repeat)))
    torch_lstm(w, b, xs, repeat, rows)


def torch_lstm(w, b, xs, repeat, rows):
    fns = torch_lstm_fns(w, b, xs)
    if fns is None:
        return
    fwd, step = fns
    import torch
    with torch.no_grad():
        rows.append(('lstm fwd', 'torch', best_ms(fwd, repeat)))
    rows.append(('lstm train', 'torch', best_ms(step, repeat)))


def torch_lstm_fns(w, b, xs):
    """(forward, SGD training step) of the cell in PyTorch; None without torch."""
    try:
        import torch
    except ImportError:
        return None
    tw = torch.tensor(w, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    txs = torch.tensor(xs)

    def fwd():
        h = torch.zeros(BATCH, HIDDEN)
        c = torch.zeros(BATCH, HIDDEN)
        for t in range(STEPS):
            z = torch.cat([txs[t], h], 1) @ tw + tb
            i, f, g, o = torch.split(z, HIDDEN, dim=1)
            c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            h = torch.sigmoid(o) * torch.tanh(c)
        return h
    opt = torch.optim.SGD([tw, tb], lr=0.01)

    def step():
        loss = fwd().sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
    return fwd, step


# ---- the cell in a while loop: backward is one while_grad --------------------------

def while_lstm_program():
    """The cell as a ``while_loop`` body over the steps of feed ``xs``, with
    SGD on the summed final h (parameters ``wl_w``, ``wl_b``); (program, loss)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xs = static.data('xs', [STEPS, BATCH, HIDDEN], 'float32')
        w = static.create_parameter([2 * HIDDEN, 4 * HIDDEN], 'float32', name='wl_w')
        b = static.create_parameter([4 * HIDDEN], 'float32', name='wl_b', is_bias=True)

        def body(t, h, c):
            x_t = paddle.reshape(paddle.gather(xs, t), [BATCH, HIDDEN])
            z = paddle.matmul(paddle.concat([x_t, h], 1), w) + b
            i, f, g, o = paddle.split(z, 4, axis=1)
            c = F.sigmoid(f) * c + F.sigmoid(i) * paddle.tanh(g)
            return t + 1, F.sigmoid(o) * paddle.tanh(c), c
        zeros = paddle.zeros([BATCH, HIDDEN])
        steps = paddle.full([1], STEPS, 'int64')
        _, h, _ = static.nn.while_loop(lambda t, h, c: t < steps, body,
                                       [paddle.zeros([1], 'int64'), zeros, zeros])
        loss = h.sum()
        paddle.optimizer.SGD(0.01).minimize(loss)
    return main, loss


def while_backward_program():
    """A plain loop ``s = tanh(s * w + x_t)`` over the steps of ``xs`` and
    the gradient of sum(s) for ``w`` (a feed); (program, fetches)."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        xs = static.data('xs', [STEPS, BATCH, HIDDEN], 'float32')
        w = static.data('w', [HIDDEN], 'float32')
        w.stop_gradient = False

        def body(t, s):
            x_t = paddle.reshape(paddle.gather(xs, t), [BATCH, HIDDEN])
            return t + 1, paddle.tanh(s * w + x_t)
        steps = paddle.full([1], STEPS, 'int64')
        _, s = static.nn.while_loop(lambda t, s: t < steps, body,
                                    [paddle.zeros([1], 'int64'), paddle.zeros([BATCH, HIDDEN])])
        loss = s.sum()
        gw, = static.gradients([loss], [w])
    return main, [loss, gw]


def grad_loop_ops(code):
    """Ops the generated code runs per iteration of its gradient loop (the
    ``for`` over a while's saved iterations): lines ending in an op comment."""
    lines = code.splitlines()
    start = next(i for i, l in enumerate(lines) if l.lstrip().startswith('for __snap in'))
    indent = len(lines[start]) - len(lines[start].lstrip())
    ops = 0
    for line in lines[start + 1:]:
        if len(line) - len(line.lstrip()) <= indent:
            break
        ops += bool(re.search(r'  # \w+ \[', line))
    return ops


def while_fns():
    """{name: (step fn, ops per gradient iteration)} of the two loops' steps,
    each checked against numpy first."""
    w, b, xs = lstm_weights()
    paddle.enable_static()
    try:
        lstm, loss = while_lstm_program()
        plain, fetches = while_backward_program()
    finally:
        paddle.disable_static()
    exe = static.Executor()
    scope = static.Scope()

    def lstm_step():
        # every step from the same weights: SGD would otherwise drift them into
        # saturating the gates, and the step's time with them
        scope.vars.update({'wl_w': w.copy(), 'wl_b': b.copy()})
        return exe.run(lstm, feed={'xs': xs}, fetch_list=[loss], scope=scope)
    out, = lstm_step()
    np.testing.assert_allclose(out, lstm_numpy(w, b, xs).sum(), rtol=1e-4)
    wv = np.linspace(-1, 1, HIDDEN).astype('float32')
    out, _ = exe.run(plain, feed={'xs': xs, 'w': wv}, fetch_list=fetches)
    s = np.zeros((BATCH, HIDDEN), 'float32')
    for t in range(STEPS):
        s = np.tanh(s * wv + xs[t])
    np.testing.assert_allclose(out, s.sum(), rtol=1e-4)
    return {
        'while lstm train': (lstm_step, grad_loop_ops(exe.generated_code(lstm, ['xs'], [loss]))),
        'while backward': (
            lambda: exe.run(plain, feed={'xs': xs, 'w': wv}, fetch_list=fetches),
            grad_loop_ops(exe.generated_code(plain, ['xs', 'w'], fetches)))}


def bench_while(repeat, rows):
    for name, (step, ops) in while_fns().items():
        rows.append((name, 'static', best_ms(step, repeat)))
        print('%s: %d ops per gradient-loop iteration' % (name, ops))


# ---- MLP and LeNet training steps -----------------------------------------------

def mlp():
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                         nn.Linear(512, 10))


def lenet():
    return nn.Sequential(nn.Conv2D(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                         nn.Conv2D(6, 16, 5), nn.ReLU(), nn.MaxPool2D(2, 2), nn.Flatten(),
                         nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))


def bench_model(name, make, x_shape, repeat, rows):
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal(x_shape).astype('float32'))
    y = paddle.to_tensor(rng.integers(0, 10, (x_shape[0],)).astype('int64'))
    for mode in ('eager', 'to_static'):
        paddle.seed(0)
        net = make()
        if mode == 'to_static':
            net = paddle.jit.to_static(net)
        opt = paddle.optimizer.Adam(1e-3, parameters=net.parameters())

        def step():
            loss = F.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
        rows.append(('%s train' % name, mode, best_ms(step, repeat)))
    # static program + executor
    paddle.enable_static()
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        xv = static.data('x', list(x_shape), 'float32')
        yv = static.data('y', [x_shape[0]], 'int64')
        paddle.seed(0)
        loss = F.cross_entropy(make()(xv), yv)
        paddle.optimizer.Adam(1e-3).minimize(loss)
    paddle.disable_static()
    exe = static.Executor()
    scope = static.Scope()
    exe.run(startup, scope=scope)
    feed = {'x': x.numpy(), 'y': y.numpy()}
    rows.append(('%s train' % name, 'static', best_ms(
        lambda: exe.run(main, feed=feed, fetch_list=[loss], scope=scope), repeat)))
    torch_model(name, x_shape, x.numpy(), y.numpy(), repeat, rows)


def torch_model(name, x_shape, xv, yv, repeat, rows):
    try:
        import torch
        import torch.nn as tnn
    except ImportError:
        return
    if name == 'mlp':
        net = tnn.Sequential(tnn.Linear(784, 512), tnn.ReLU(), tnn.Linear(512, 512), tnn.ReLU(),
                             tnn.Linear(512, 10))
    else:
        net = tnn.Sequential(tnn.Conv2d(1, 6, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2, 2),
                             tnn.Conv2d(6, 16, 5), tnn.ReLU(), tnn.MaxPool2d(2, 2), tnn.Flatten(),
                             tnn.Linear(400, 120), tnn.Linear(120, 84), tnn.Linear(84, 10))
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    x, y = torch.tensor(xv), torch.tensor(yv)

    def step():
        loss = tnn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    rows.append(('%s train' % name, 'torch', best_ms(step, repeat)))


def report(rows):
    by_model = {}
    for model, mode, ms in rows:
        by_model.setdefault(model, {})[mode] = ms
    for model, modes in by_model.items():
        print('\n%s' % model)
        for mode, ms in modes.items():
            print('  %-10s %9.3f ms' % (mode, ms))
        base = modes.get('numpy') or modes.get('torch')
        for mode in ('static', 'to_static'):
            if mode in modes:
                parts = []
                if 'eager' in modes:
                    parts.append('%.2fx our eager' % (modes[mode] / modes['eager']))
                if 'numpy' in modes:
                    parts.append('%.2fx numpy' % (modes[mode] / modes['numpy']))
                if 'torch' in modes:
                    parts.append('%.2fx torch' % (modes[mode] / modes['torch']))
                if parts:
                    print('  %-10s %s' % (mode, ', '.join(parts)))
        if base is None and 'eager' in modes:
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=20)
    ap.add_argument('--quick', action='store_true', help='LSTM only')
    ap.add_argument('--while-only', action='store_true', help='the while-loop steps only')
    args = ap.parse_args()
    rows = []
    bench_while(args.repeat, rows)
    if args.while_only:
        report(rows)
        return
    bench_lstm(args.repeat, rows)
    if not args.quick:
        bench_model('mlp', mlp, (64, 784), args.repeat, rows)
        bench_model('lenet', lenet, (64, 1, 28, 28), max(3, args.repeat // 4), rows)
    report(rows)


if __name__ == '__main__':
    main()
