"""Peak memory of a ResNet-18 training step: ours (eager and ``@to_static``,
per kernel backend) against PyTorch CPU.

    python benchmarks/bench_memory.py [--batch 16] [--size 64] [--steps 3]

Each contender runs in a fresh process: it builds the net, runs one warm-up
step, reads its peak resident set (``ru_maxrss``) as the baseline, runs
``--steps`` more steps and reports how far the peak rose above the resident
set before the first step, in MB: the memory the training step itself takes
(activations kept for the backward, gradients, workspaces, caches), not the
interpreter's or the libraries'. SGD for both (no optimizer state beyond
the parameters). 1 thread.
"""
import argparse
import json
import os
import resource
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _rss_mb():
    """The current resident set (Linux: /proc/self/statm), in MB."""
    with open('/proc/self/statm') as f:
        pages = int(f.read().split()[1])
    return pages * os.sysconf('SC_PAGE_SIZE') / 2 ** 20


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024     # kB on Linux


def _ours(backend, static, batch, size, steps):
    sys.path.insert(0, ROOT)
    import numpy as np

    import framework as paddle
    from framework.ops import backends
    paddle.set_num_threads(1)
    backends.set_backend(backend)
    paddle.seed(0)
    net = paddle.vision.models.resnet18(num_classes=10)
    if static:
        net = paddle.jit.to_static(net)
    opt = paddle.optimizer.SGD(1e-3, parameters=net.parameters())
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((batch, 3, size, size)).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 10, (batch, 1)).astype(np.int64))

    def step():
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step


def _torch(batch, size, steps):
    sys.path.insert(0, HERE)
    import numpy as np
    import torch

    from torch_resnet import ResNet18
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = ResNet18(num_classes=10)
    opt = torch.optim.SGD(net.parameters(), 1e-3)
    rng = np.random.default_rng(0)
    x = torch.from_numpy(rng.standard_normal((batch, 3, size, size)).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, 10, (batch,)).astype(np.int64))

    def step():
        loss = torch.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step


def child(which, batch, size, steps):
    """Run in the child process: prints one JSON line."""
    if which == 'torch':
        step = _torch(batch, size, steps)
    else:
        backend, mode = which.split('-')
        step = _ours(backend, mode == 'static', batch, size, steps)
    before = _rss_mb()
    step()                          # the first step builds plans and caches too
    first = _peak_mb() - before
    base = _rss_mb()
    for _ in range(steps):
        step()
    print(json.dumps({'which': which, 'first_step_mb': round(first, 1),
                      'step_mb': round(_peak_mb() - base, 1),
                      'peak_over_start_mb': round(_peak_mb() - before, 1)}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--batch', type=int, default=16)
    ap.add_argument('--size', type=int, default=64)
    ap.add_argument('--steps', type=int, default=3)
    ap.add_argument('--child', help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return child(args.child, args.batch, args.size, args.steps)
    try:
        import torch  # noqa: F401
        contenders = ['torch']
    except ImportError:
        contenders = []
    sys.path.insert(0, ROOT)
    from framework.backends import onednn
    kinds = ['numpy'] + (['onednn'] if onednn.available() else [])
    contenders += ['%s-%s' % (k, m) for k in kinds for m in ('eager', 'static')]
    env = dict(os.environ, OMP_NUM_THREADS='1', OPENBLAS_NUM_THREADS='1', MKL_NUM_THREADS='1')
    rows = {}
    for which in contenders:
        out = subprocess.run([sys.executable, __file__, '--child', which, '--batch',
                              str(args.batch), '--size', str(args.size), '--steps',
                              str(args.steps)], env=env, capture_output=True, text=True)
        if out.returncode:
            print('%s failed:\n%s' % (which, out.stderr[-2000:]))
            continue
        rows[which] = json.loads(out.stdout.strip().splitlines()[-1])
    print('ResNet-18 training step, batch %d, %dx%d, SGD: peak resident set above the '
          'resident set before the first step (MB)' % (args.batch, args.size, args.size))
    print('%-14s %12s %16s %10s' % ('contender', 'first step', 'all steps', 'vs torch'))
    ref = rows.get('torch', {}).get('peak_over_start_mb')
    for which, r in rows.items():
        ratio = '%.2fx' % (r['peak_over_start_mb'] / ref) if ref else 'n/a'
        print('%-14s %12.1f %16.1f %10s' % (which, r['first_step_mb'], r['peak_over_start_mb'],
                                            ratio))


if __name__ == '__main__':
    main()
