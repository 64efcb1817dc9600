"""Static executor passes on an LSTM-style cell unrolled over 50 steps.

Batch 4, input 16, hidden 32. Each step is built from matmul/add/sigmoid/
tanh/multiply ops only (one weight pair per gate, no split):

    i = sigmoid(x @ Wxi + h @ Whi + bi)      (f, o alike)
    g = tanh(x @ Wxg + h @ Whg + bg)
    c = f * c + i * g
    h = o * tanh(c)

The program (feeds x_0..x_49, h0, c0 and the weights; fetch h) runs through
``Executor.run`` with every pass off, each pass alone, and all passes on (the
code generator's lean numpy calls, ``specialize_kernels``, count as one), next
to a hand-written numpy version of the same computation in the same process.
Two numpy references are timed: one with ``1 / (1 + exp(-x))``, as the
framework's sigmoid kernel computes it (in place, overflow to inf ignored),
which the ratios use; one with ``exp(-logaddexp(0, -x))`` (the slower
stable form the kernel used before), for reference. Every configuration's
fetched values must equal those with all passes off exactly.

    python benchmarks/bench_static_passes.py [--repeat 30] [--steps 50] [--batch 4] [--hidden 32] [--backward]
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
            'batch_split_siblings', 'fuse_matmul_add_act', 'fuse_elewise_add_act_ops',
            'enable_dce', 'enable_inplace', 'memory_optimize', 'specialize_kernels')


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


def build_program(steps, backward=False):
    """The unrolled cell; with ``backward`` also the gradients of mean(h * h)
    with respect to every weight and h0 (fetched after h)."""
    sigmoid, tanh = paddle.nn.functional.sigmoid, paddle.tanh
    main = static.Program()
    with static.program_guard(main, static.Program()):
        def data(name, shape):
            v = static.data(name, shape, 'float32')
            v.stop_gradient = not backward
            return v
        xs = [data('x_%d' % t, [B, I]) for t in range(steps)]
        w = {}
        for gname in GATES:
            w['Wx' + gname] = data('Wx' + gname, [I, H])
            w['Wh' + gname] = data('Wh' + gname, [H, H])
            w['b' + gname] = data('b' + gname, [H])
        h = h0 = data('h0', [B, H])
        c = data('c0', [B, H])

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
        fetch = [h]
        if backward:
            fetch += static.gradients([paddle.mean(h * h)], list(w.values()) + [h0])
    return main, fetch


def stable_sigmoid(z):
    """A sigmoid that keeps the precision of subnormal results (slower)."""
    return np.exp(-np.logaddexp(0, -z))


def naive_sigmoid(z):
    """The framework's kernel: 1 / (1 + e^-z), e^-z overflowing to inf gives 0."""
    with np.errstate(over='ignore'):
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
    """Best time (ms) of each function, measured in rounds that run every
    candidate in a shuffled order, so that load from other processes and the
    state one run leaves behind (heap, caches) hit every candidate alike."""
    for fn in fns.values():
        fn()
    best = {k: float('inf') for k in fns}
    order = list(fns)
    rng = np.random.default_rng(0)
    for _ in range(repeat):
        rng.shuffle(order)
        for k in order:
            fn = fns[k]
            t = time.perf_counter()
            for _ in range(inner):
                fn()
            best[k] = min(best[k], (time.perf_counter() - t) / inner)
    return {k: best[k] * 1e3 for k in fns}


def n_kernel_calls(plan):
    """Kernel calls in the generated code (one per op after the passes)."""
    return sum(1 for line in plan.source.splitlines() if re.search(r'= k_\w+\(', line))


def strategy(on):
    bs = static.BuildStrategy()
    for s in SWITCHES:
        setattr(bs, s, s in on)
    return bs


def configs(all_but=True):
    yield 'all passes off', ()
    for s in SWITCHES:
        yield s, (s,)
    yield 'all passes on', SWITCHES
    if all_but:
        for s in SWITCHES:
            yield 'all but ' + s, tuple(x for x in SWITCHES if x != s)


def measure(prog, fetch, feed, repeat, extra, all_but=True, inner=5):
    """{label: (ms, kernel calls)} for every config, plus the ``extra`` functions."""
    exe = static.Executor()
    fns, ops = dict(extra), {}
    expect = exe.run(prog, feed=feed, fetch_list=fetch)
    for label, on in configs(all_but):
        cp = static.CompiledProgram(prog, build_strategy=strategy(on))
        for a, b in zip(exe.run(cp, feed=feed, fetch_list=fetch), expect):
            np.testing.assert_array_equal(a, b)      # every pass keeps results identical
        plan = exe._plan(prog, tuple(sorted(feed)), tuple(v.name for v in fetch),
                         cp._build_strategy)
        ops[label] = n_kernel_calls(plan)
        fns[label] = (lambda cp=cp: exe.run(cp, feed=feed, fetch_list=fetch))
    t = interleaved_best(fns, repeat, inner)
    return t, ops


def report(title, t, ops, ref_label):
    ref, base = t[ref_label], t['all passes off']
    print(title)
    print('%-36s %8s %8s %8s %6s' % ('config', 'ms', 'x ref', 'vs off', 'ops'))
    for label, ms in t.items():
        extra = ('%7.1f%% %6d' % (100 * (ms / base - 1), ops[label])) if label in ops else ''
        print('%-36s %8.3f %8.2f %s' % (label, ms, ms / ref, extra))
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeat', type=int, default=30)
    ap.add_argument('--steps', type=int, default=50)
    ap.add_argument('--batch', type=int, default=4)
    ap.add_argument('--hidden', type=int, default=32)
    ap.add_argument('--backward', action='store_true',
                    help='also time the forward+backward program (no numpy reference)')
    args = ap.parse_args()
    global B, H
    B, H = args.batch, args.hidden
    feed = make_data(args.steps)
    paddle.enable_static()
    try:
        prog, fetch = build_program(args.steps)
        prog_b, fetch_b = build_program(args.steps, True) if args.backward else (None, None)
    finally:
        paddle.disable_static()
    got = static.Executor().run(prog, feed=feed, fetch_list=fetch)[0]
    np.testing.assert_allclose(got, numpy_lstm(feed, args.steps, stable_sigmoid),
                               rtol=1e-4, atol=1e-5)
    extra = {'numpy (stable sigmoid)': lambda: numpy_lstm(feed, args.steps, stable_sigmoid),
             'numpy (naive sigmoid)': lambda: numpy_lstm(feed, args.steps, naive_sigmoid)}
    t, ops = measure(prog, fetch, feed, args.repeat, extra)
    report('LSTM cell forward, %d steps, batch %d, hidden %d: %d ops; ratios vs numpy '
           '(naive sigmoid)' % (args.steps, B, H, len(prog.global_block().ops)),
           t, ops, 'numpy (naive sigmoid)')
    if args.backward:
        t, ops = measure(prog_b, fetch_b, feed, 2 * args.repeat, {}, all_but=False, inner=1)
        report('forward + backward: %d ops; ratios vs all passes off'
               % len(prog_b.global_block().ops), t, ops, 'all passes off')


if __name__ == '__main__':
    main()
