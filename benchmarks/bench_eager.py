"""Eager overhead: a chain of small ops, forward+backward and no-grad forward.

The chain is ``x = tanh(x * 1.01 + 0.1)`` on a 16-element float32 tensor,
repeated until 2000 ops have run (3 ops per link). Times are microseconds per
op, printed beside a hand-written numpy equivalent (forward, and forward plus
a hand-written backward) and PyTorch CPU when it is installed, all measured in
this process.

    python benchmarks/bench_eager.py [--repeat 20] [--conditions clean,live,busy]

Without ``--conditions`` a figure is the best single run of ``--repeat``. With
it, each condition of ``conditions.py`` (``live``: 200k extra live objects,
``busy``: a competing process on one core) is measured in interleaved rounds
of many runs whose mean includes the garbage collector's cost.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402
from conditions import Timing, condition, time_rounds  # noqa: E402

N_OPS = 2000
LINKS = N_OPS // 3
OPS = LINKS * 3


def best_of(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times) / OPS * 1e6


def ours_fns():
    """(fwd+bwd, no-grad fwd) functions of the chain in the framework."""
    x0 = paddle.to_tensor(np.random.rand(16).astype('float32'), stop_gradient=False)
    seed = paddle.ones([16])

    def train():
        x = x0
        for _ in range(LINKS):
            x = (x * 1.01 + 0.1).tanh()
        x.backward(seed)
        x0.grad = None

    def infer():
        with paddle.no_grad():
            x = x0
            for _ in range(LINKS):
                x = (x * 1.01 + 0.1).tanh()
    return train, infer


def numpy_fns():
    x0 = np.random.rand(16).astype('float32')

    def train():
        x = x0
        saved = []
        for _ in range(LINKS):
            x = np.tanh(x * np.float32(1.01) + np.float32(0.1))
            saved.append(x)
        g = np.ones_like(x)
        for y in reversed(saved):
            g = g * (1 - y * y) * np.float32(1.01)

    def infer():
        x = x0
        for _ in range(LINKS):
            x = np.tanh(x * np.float32(1.01) + np.float32(0.1))
    return train, infer


def torch_fns():
    """The same in PyTorch, or None when torch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    x0 = torch.rand(16, requires_grad=True)
    seed = torch.ones(16)

    def train():
        x = x0
        for _ in range(LINKS):
            x = torch.tanh(x * 1.01 + 0.1)
        x.backward(seed)
        x0.grad = None

    def infer():
        with torch.no_grad():
            x = x0
            for _ in range(LINKS):
                x = torch.tanh(x * 1.01 + 0.1)
    return train, infer


def contenders():
    rows = [('framework', ours_fns()), ('numpy (hand-written)', numpy_fns())]
    t = torch_fns()
    if t is not None:
        rows.append(('pytorch cpu', t))
    return rows


def measure_best(repeat):
    return [(name, (best_of(tr, repeat), best_of(inf, repeat))) for name, (tr, inf) in contenders()]


def measure_rounds(timing):
    rows = contenders()
    fns = {}
    for name, (tr, inf) in rows:
        fns[(name, 0)], fns[(name, 1)] = tr, inf
    t = time_rounds(fns, timing)
    return [(name, (t[(name, 0)] / OPS * 1e6, t[(name, 1)] / OPS * 1e6)) for name, _ in rows]


def report(title, rows):
    print(title)
    print('%-22s %14s %14s' % ('', 'fwd+bwd', 'no_grad fwd'))
    for name, (tr, inf) in rows:
        print('%-22s %14.2f %14.2f' % (name, tr, inf))
    base = rows[0][1]
    for name, (tr, inf) in rows[1:]:
        print('ratio framework/%-12s fwd+bwd %.2fx   no_grad %.2fx' % (name.split()[0], base[0] / tr,
                                                                      base[1] / inf))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=20)
    ap.add_argument('--conditions', help='comma-separated: clean,live,busy (rounds of ~0.3 s)')
    args = ap.parse_args()
    head = 'eager overhead: tanh(x*1.01+0.1) chain, %d ops, 16 elements (us/op, %s)'
    if not args.conditions:
        report(head % (OPS, 'best of %d' % args.repeat), measure_best(args.repeat))
        return
    for name in args.conditions.split(','):
        with condition(name) as desc:
            report(head % (OPS, 'median of rounds, %s' % desc), measure_rounds(Timing()))
        print()


if __name__ == '__main__':
    main()
