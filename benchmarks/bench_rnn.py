"""Recurrent training-step speed: framework eager vs PyTorch CPU.

    python3 benchmarks/bench_rnn.py [--repeat N] [--steps K] [--threads T] [--profile]
                                    [--mode LSTM|GRU]

One step = forward of a one-layer ``nn.LSTM`` / ``nn.GRU`` (batch 16, 32 time
steps, input 128, hidden 128), a loss on the outputs (``mean(y * y) +
mean(h)``), backward, clear grads. The issue's target is ours/torch <= 1.0.

Both contenders run in this process with the same weights and data; rounds
interleave them so that load from other processes hits both alike, and the
report gives the best and the median ms per step of each. Without torch the
torch column says n/a. ``--profile`` prints a cProfile of our steps.

BLAS runs on one thread for both unless ``--threads`` says otherwise: the
framework's default is one thread, and torch's default OpenMP pool spins on a
machine shared with other processes, which makes its times meaningless there.
Note that torch's CPU LSTM runs a fused oneDNN kernel over the whole
sequence, its GRU a composition of per-step ops.
"""
import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from thread_args import threads_from_argv  # noqa: E402

_THREADS = threads_from_argv('1')

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402

try:
    import torch
    if _THREADS:
        torch.set_num_threads(int(_THREADS))
except ImportError:      # torch is optional
    torch = None

BATCH, STEPS, INPUT, HIDDEN = 16, 32, 128, 128
TARGET = 1.0


def time_interleaved(fns, repeat, steps):
    """{name: [ms per step of each round]}, rounds interleaving ``fns``."""
    times = {name: [] for name in fns}
    for fn in fns.values():               # warm-up: caches, allocator
        for _ in range(2):
            fn()
    for _ in range(repeat):
        for name, fn in fns.items():
            time.sleep(0.02)              # let the other library's spinning threads idle
            t0 = time.perf_counter()
            for _ in range(steps):
                fn()
            times[name].append((time.perf_counter() - t0) / steps * 1e3)
    return times


def ours_step(net, x):
    xt = paddle.to_tensor(x)

    def step():
        y, states = net(xt)
        h = states[0] if isinstance(states, tuple) else states
        loss = (y * y).mean() + h.mean()
        loss.backward()
        net.clear_gradients()
        return loss
    return step


def torch_net(mode, ours):
    cls = torch.nn.LSTM if mode == 'LSTM' else torch.nn.GRU
    net = cls(INPUT, HIDDEN, batch_first=True)
    with torch.no_grad():   # Paddle's flat parameter names are torch's
        for name, p in net.named_parameters():
            p.copy_(torch.from_numpy(getattr(ours, name).numpy()))
    return net


def torch_step(net, x):
    xt = torch.from_numpy(x)

    def step():
        y, states = net(xt)
        h = states[0] if isinstance(states, tuple) else states
        loss = (y * y).mean() + h.mean()
        loss.backward()
        net.zero_grad()
        return loss
    return step


def profile(fn, steps, top=25):
    prof = cProfile.Profile(time.process_time)   # CPU time: steadier on a loaded machine
    prof.enable()
    for _ in range(steps):
        fn()
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats('tottime').print_stats(top)
    print(out.getvalue())


def case(mode, args):
    paddle.seed(0)
    net = getattr(paddle.nn, mode)(INPUT, HIDDEN)
    x = np.random.default_rng(0).standard_normal((BATCH, STEPS, INPUT)).astype('float32')
    fns = {'ours': ours_step(net, x)}
    if torch is not None:
        fns['torch'] = torch_step(torch_net(mode, net), x)
        a, b = float(fns['ours']()), float(fns['torch']())
        if abs(a - b) > 1e-4 * max(1.0, abs(b)):
            raise SystemExit("%s: the models differ (loss ours %.6f, torch %.6f)"
                             % (mode, a, b))
    times = time_interleaved(fns, args.repeat, args.steps)
    print('\n%s (batch %d, %d steps, input %d, hidden %d): ms per training step'
          % (mode, BATCH, STEPS, INPUT, HIDDEN))
    print('%8s %10s %10s' % ('', 'best', 'median'))
    for name in ('ours', 'torch'):
        if name in times:
            print('%8s %10.2f %10.2f' % (name, min(times[name]),
                                         statistics.median(times[name])))
        else:
            print('%8s %10s %10s' % (name, 'n/a', 'n/a'))
    if 'torch' in times:
        best = min(times['ours']) / min(times['torch'])
        med = statistics.median(times['ours']) / statistics.median(times['torch'])
        print('ours/torch = %.2fx best, %.2fx median (target <= %.1fx: %s)'
              % (best, med, TARGET, 'met' if best <= TARGET else 'NOT met'))
    else:
        print('ours/torch = n/a (torch is not installed)')
    if args.profile:
        profile(fns['ours'], args.steps * args.repeat)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--repeat', type=int, default=9, help='rounds per contender')
    parser.add_argument('--steps', type=int, default=5, help='steps per round')
    parser.add_argument('--threads', type=int, default=1,
                        help='BLAS threads for numpy and torch (default 1)')
    parser.add_argument('--profile', action='store_true', help='cProfile our steps')
    parser.add_argument('--mode', choices=['LSTM', 'GRU'], action='append',
                        help='which network (default: both)')
    args = parser.parse_args()
    for mode in args.mode or ['LSTM', 'GRU']:
        case(mode, args)


if __name__ == '__main__':
    main()
