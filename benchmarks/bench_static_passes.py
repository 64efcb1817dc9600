"""Static executor passes on an LSTM-style cell unrolled over 50 steps.

Batch 4, input 16, hidden 32. Each step is built from matmul/add/sigmoid/
tanh/multiply ops only (one weight pair per gate, no split):

    i = sigmoid(x @ Wxi + h @ Whi + bi)      (f, o alike)
    g = tanh(x @ Wxg + h @ Whg + bg)
    c = f * c + i * g
    h = o * tanh(c)

The program (feeds x_0..x_49, h0, c0 and the weights; fetch h) runs through
``Executor.run`` with every pass off, each pass alone, and all passes on, next
to a hand-written numpy version of the same computation in the same process.
Two numpy references are timed: ``numpy`` uses the same numerically stable
sigmoid as the framework's kernel (``exp(-|x|)`` based, no overflow) and is the
one the ratios use; ``numpy-naive`` uses ``1 / (1 + exp(-x))`` (fewer numpy
calls, overflows for large negative inputs) for reference.

    python benchmarks/bench_static_passes.py [--repeat 40] [--steps 50] [--batch 4] [--hidden 32]
"""
import argparse
import os
import re
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402
from framework import static  # noqa: E402

B, I, H = 4, 16, 32
GATES = ('i', 'f', 'g', 'o')
SWITCHES = ('constant_folding', 'remove_identity', 'enable_cse', 'loop_invariant_hoisting',
            'fuse_matmul_add_act', 'fuse_elewise_add_act_ops', 'enable_dce',
            'enable_inplace', 'memory_optimize')


def make_data(steps, seed=0):
    rng = np.random.default_rng(seed)
    f32 = np.float32
    feed = {'x_%d' % t: rng.standard_normal((B, I)).astype(f32) for t in range(steps)}
    for gname in GATES:
        feed['Wx' + gname] = (rng.standard_normal((I, H)) * 0.3).astype(f32)
        feed['Wh' + gname] = (rng.standard_normal((H, H)) * 0.3).astype(f32)
        feed['b' + gname] = (rng.standard_normal((H,)) * 0.1).astype(f32)
    feed['h0'] = np.zeros((B, H), f32)
    feed['c0'] = np.zeros((B, H), f32)
    return feed


def build_program(steps):
    sigmoid, tanh = paddle.nn.functional.sigmoid, paddle.tanh
    main = static.Program()
    with static.program_guard(main, static.Program()):
        xs = [static.data('x_%d' % t, [B, I], 'float32') for t in range(steps)]
        w = {}
        for gname in GATES:
            w['Wx' + gname] = static.data('Wx' + gname, [I, H], 'float32')
            w['Wh' + gname] = static.data('Wh' + gname, [H, H], 'float32')
            w['b' + gname] = static.data('b' + gname, [H], 'float32')
        h = static.data('h0', [B, H], 'float32')
        c = static.data('c0', [B, H], 'float32')

        def pre(gname, x, h):
            return paddle.matmul(x, w['Wx' + gname]) + paddle.matmul(h, w['Wh' + gname]) \
                + w['b' + gname]
        for x in xs:
            i = sigmoid(pre('i', x, h))
            f = sigmoid(pre('f', x, h))
            g = tanh(pre('g', x, h))
            o = sigmoid(pre('o', x, h))
            c = f * c + i * g
            h = o * tanh(c)
    return main, h


def stable_sigmoid(z):
    """The framework's sigmoid kernel formula, hand-written."""
    e = np.exp(-np.abs(z))
    r = 1 / (1 + e)
    return np.where(z >= 0, r, e * r)


def naive_sigmoid(z):
    return 1 / (1 + np.exp(-z))


def numpy_lstm(feed, steps, sig):
    h, c = feed['h0'], feed['c0']
    W = feed
    for t in range(steps):
        x = feed['x_%d' % t]
        i = sig(x @ W['Wxi'] + h @ W['Whi'] + W['bi'])
        f = sig(x @ W['Wxf'] + h @ W['Whf'] + W['bf'])
        g = np.tanh(x @ W['Wxg'] + h @ W['Whg'] + W['bg'])
        o = sig(x @ W['Wxo'] + h @ W['Who'] + W['bo'])
        c = f * c + i * g
        h = o * np.tanh(c)
    return h


def interleaved_best(fns, repeat, inner=5):
    """Best time (ms) of each function, measured in interleaved rounds so that
    load from other processes hits every candidate alike."""
    for fn in fns.values():
        fn()
    best = {k: float('inf') for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t = time.perf_counter()
            for _ in range(inner):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t) / inner)
    return {k: v * 1e3 for k, v in best.items()}


def n_kernel_calls(plan):
    """Kernel calls in the generated code (one per op after the passes)."""
    return sum(1 for line in plan.source.splitlines() if re.search(r'= K\d+\(', line))


def strategy(on):
    bs = static.BuildStrategy()
    for s in SWITCHES:
        setattr(bs, s, s in on)
    return bs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeat', type=int, default=40)
    ap.add_argument('--steps', type=int, default=50)
    ap.add_argument('--batch', type=int, default=4)
    ap.add_argument('--hidden', type=int, default=32)
    args = ap.parse_args()
    global B, H
    B, H = args.batch, args.hidden
    feed = make_data(args.steps)
    paddle.enable_static()
    try:
        prog, h = build_program(args.steps)
    finally:
        paddle.disable_static()
    exe = static.Executor()
    configs = [('all passes off', ())] + [(s, (s,)) for s in SWITCHES] + \
        [('all passes on', SWITCHES)]
    expect = numpy_lstm(feed, args.steps, stable_sigmoid)
    fns = {'numpy': lambda: numpy_lstm(feed, args.steps, stable_sigmoid),
           'numpy-naive': lambda: numpy_lstm(feed, args.steps, naive_sigmoid)}
    ops = {}
    for label, on in configs:
        cp = static.CompiledProgram(prog, build_strategy=strategy(on))
        out, = exe.run(cp, feed=feed, fetch_list=[h])
        np.testing.assert_allclose(out, expect, rtol=1e-5, atol=1e-6)
        plan = exe._plan(prog, tuple(sorted(feed)), (h.name,), cp._build_strategy)
        ops[label] = n_kernel_calls(plan)
        fns[label] = (lambda cp=cp: exe.run(cp, feed=feed, fetch_list=[h]))
    t = interleaved_best(fns, args.repeat)
    ref, base = t['numpy'], t['all passes off']
    print('LSTM cell, %d steps, batch %d, hidden %d: %d ops in the program'
          % (args.steps, B, H, len(prog.global_block().ops)))
    print('%-26s %8s %8s %8s %6s' % ('config', 'ms', 'x numpy', 'vs off', 'ops'))
    print('%-26s %8.3f %8.2f' % ('numpy (stable sigmoid)', ref, 1.0))
    print('%-26s %8.3f %8.2f' % ('numpy-naive sigmoid', t['numpy-naive'],
                                  t['numpy-naive'] / ref))
    for label, _ in configs:
        ms = t[label]
        print('%-26s %8.3f %8.2f %7.1f%% %6d' % (label, ms, ms / ref, 100 * (ms / base - 1),
                                                 ops[label]))


if __name__ == '__main__':
    main()
