"""Eager overhead: a chain of small ops, forward+backward and no-grad forward.

The chain is ``x = tanh(x * 1.01 + 0.1)`` on a 16-element float32 tensor,
repeated until 2000 ops have run (3 ops per link). Times are microseconds per
op, printed beside a hand-written numpy equivalent (forward, and forward plus
a hand-written backward) and PyTorch CPU when it is installed, all measured in
this process.

    python benchmarks/bench_eager.py [--repeat 20]
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402

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


def ours(repeat):
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
    return best_of(train, repeat), best_of(infer, repeat)


def numpy_ref(repeat):
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
    return best_of(train, repeat), best_of(infer, repeat)


def torch_ref(repeat):
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
    return best_of(train, repeat), best_of(infer, repeat)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--repeat', type=int, default=20)
    args = ap.parse_args()
    rows = [('framework', ours(args.repeat)), ('numpy (hand-written)', numpy_ref(args.repeat))]
    t = torch_ref(args.repeat)
    if t is not None:
        rows.append(('pytorch cpu', t))
    print('eager overhead: tanh(x*1.01+0.1) chain, %d ops, 16 elements (us/op, best of %d)'
          % (OPS, args.repeat))
    print('%-22s %14s %14s' % ('', 'fwd+bwd', 'no_grad fwd'))
    for name, (tr, inf) in rows:
        print('%-22s %14.2f %14.2f' % (name, tr, inf))
    base = rows[0][1]
    for name, (tr, inf) in rows[1:]:
        print('ratio framework/%-12s fwd+bwd %.2fx   no_grad %.2fx' % (name.split()[0], base[0] / tr,
                                                                      base[1] / inf))


if __name__ == '__main__':
    main()
