"""Paddle's vision models, one training step (forward + backward), 1 thread:
ours on each kernel backend, eager and ``@to_static``, against real Paddle.

    python benchmarks/bench_vision.py [--models resnet18,mobilenet_v2] [--batch 4]
    /path/to/paddle-venv/bin/python benchmarks/bench_vision.py --paddle
    (either with --predictor: inference through paddle.inference, oneDNN on)

The same code runs on both: with ``--paddle`` it imports the real Paddle
(installed in a separate virtual environment, never a dependency) and writes
its times to ``paddle_vision_times.json``; without, it imports the framework
as ``paddle``, times it per backend and mode, and prints ratios against that
file (``n/a`` where it is missing). Each time is the median of ``--rounds``
rounds of ``--steps`` steps after a warm-up step.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TIMES = os.path.join(HERE, 'paddle_vision_times.json')
MODELS = ['lenet', 'resnet18', 'resnet50', 'mobilenet_v1', 'mobilenet_v2', 'vgg11',
          'squeezenet1_0', 'shufflenet_v2_x1_0']


def build(paddle, name):
    models = paddle.vision.models
    if name == 'lenet':
        return models.LeNet(), (1, 28, 28)
    return getattr(models, name)(num_classes=10), (3, 64, 64)


def step_fn(paddle, net, shape, batch, static):
    rng = np.random.default_rng(0)
    x = paddle.to_tensor(rng.standard_normal((batch,) + shape).astype(np.float32))
    y = paddle.to_tensor(rng.integers(0, 10, (batch, 1)).astype(np.int64))
    if static:
        net = paddle.jit.to_static(net)
    opt = paddle.optimizer.SGD(1e-3, parameters=net.parameters())

    def step():
        loss = paddle.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)
    return step


def predictor_fn(paddle, net, shape, batch, folder, onednn=True):
    """One inference through ``paddle.inference``'s predictor of ``net``
    saved with ``jit.save`` (Paddle's own files on Paddle, ours here)."""
    inference = paddle.inference
    net.eval()
    prefix = os.path.join(folder, 'model')
    spec = [paddle.static.InputSpec([batch] + list(shape), 'float32', 'x')]
    paddle.jit.save(paddle.jit.to_static(net, input_spec=spec), prefix, input_spec=spec)
    model = next(prefix + ext for ext in ('.json', '.pdmodel') if os.path.exists(prefix + ext))
    config = inference.Config(model, prefix + '.pdiparams')
    config.set_cpu_math_library_num_threads(1)
    if onednn:
        config.enable_mkldnn()
    else:
        config.disable_mkldnn()
    predictor = inference.create_predictor(config)
    handle = predictor.get_input_handle(predictor.get_input_names()[0])
    x = np.random.default_rng(0).standard_normal((batch,) + shape).astype(np.float32)

    def run():
        handle.copy_from_cpu(x)
        predictor.run()
        return predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
    return run


def timed(step, steps, rounds):
    step()
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(steps):
            step()
        times.append((time.perf_counter() - t) / steps)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--paddle', action='store_true', help='time real Paddle, write the json')
    ap.add_argument('--models', default=','.join(MODELS))
    ap.add_argument('--batch', type=int, default=4)
    ap.add_argument('--steps', type=int, default=3)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--predictor', action='store_true',
                    help="time inference through the predictor (oneDNN on) instead of training")
    args = ap.parse_args()
    if args.predictor:
        return predict(args)
    names = [m for m in args.models.split(',') if m]
    if args.paddle:
        # one thread for Paddle's OpenMP, MKL and oneDNN: set before it loads them
        for var in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS'):
            os.environ.setdefault(var, '1')
        import paddle
        paddle.set_device('cpu')
        out = {}
        for name in names:
            paddle.seed(0)
            net, shape = build(paddle, name)
            out[name] = {mode: timed(step_fn(paddle, net, shape, args.batch, mode == 'static'),
                                     args.steps, args.rounds) for mode in ('eager', 'static')}
            print(name, out[name], flush=True)
        with open(TIMES, 'w') as f:
            json.dump({'paddle': paddle.__version__, 'batch': args.batch, 'ms': out}, f,
                      indent=1)
        return
    sys.path.insert(0, os.path.dirname(HERE))
    import framework as paddle
    from framework.backends import onednn
    from framework.ops import backends
    ref = json.load(open(TIMES)) if os.path.exists(TIMES) else {'ms': {}}
    kinds = ['numpy'] + (['onednn'] if onednn.available() else [])
    print('%-20s %-7s %-7s %10s %12s %7s' % ('model', 'backend', 'mode', 'ours ms',
                                            'paddle ms', 'ratio'))
    for name in names:
        for kind in kinds:
            backends.set_backend(kind)
            for mode in ('eager', 'static'):
                paddle.seed(0)
                net, shape = build(paddle, name)
                ms = timed(step_fn(paddle, net, shape, args.batch, mode == 'static'),
                           args.steps, args.rounds)
                theirs = ref['ms'].get(name, {}).get(mode)
                print('%-20s %-7s %-7s %10.1f %12s %7s' % (
                    name, kind, mode, ms, '%.1f' % theirs if theirs else 'n/a',
                    '%.2fx' % (ms / theirs) if theirs else 'n/a'), flush=True)


def predict(args):
    """Predictor inference times: real Paddle's (``--paddle``: written to
    ``paddle_predictor_times.json``) or ours against them."""
    import tempfile
    path = os.path.join(HERE, 'paddle_predictor_times.json')
    if args.paddle:
        for var in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS'):
            os.environ.setdefault(var, '1')
        import paddle
    else:
        sys.path.insert(0, os.path.dirname(HERE))
        import framework as paddle
    ref = json.load(open(path)) if os.path.exists(path) and not args.paddle else {'ms': {}}
    out = {}
    for name in [m for m in args.models.split(',') if m]:
        paddle.seed(0)
        net, shape = build(paddle, name)
        with tempfile.TemporaryDirectory() as folder:
            ms = timed(predictor_fn(paddle, net, shape, args.batch, folder), args.steps,
                       args.rounds)
        out[name] = ms
        theirs = ref['ms'].get(name)
        print('%-20s predictor %8.1f ms   paddle %s   ratio %s' % (
            name, ms, '%.1f ms' % theirs if theirs else 'n/a',
            '%.2fx' % (ms / theirs) if theirs else 'n/a'), flush=True)
    if args.paddle:
        with open(path, 'w') as f:
            json.dump({'paddle': paddle.__version__, 'batch': args.batch, 'ms': out}, f,
                      indent=1)


if __name__ == '__main__':
    main()
