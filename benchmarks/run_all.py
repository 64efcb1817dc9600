"""All speed, memory and accuracy figures of the speed issue in ONE table.

    python benchmarks/run_all.py [--quick] [--only PATTERN] [--conditions clean,live,busy]
                                 [--rounds N] [--round-s S]

Columns: figure, condition, backend (the kernel backend ours ran on; each
figure runs once per backend of ``--backends``), ours, reference (PyTorch CPU, hand-written numpy,
or what the row names), ratio = ours / reference, the issue's target, met?.
Everything runs in this process: ours and the reference are timed in
interleaved rounds (``conditions.time_rounds``: the median over rounds of the
mean iteration time of a round of >= ``--round-s`` seconds, so garbage
collections are paid for) under each condition of ``conditions.py``: ``clean``,
``live`` (200k extra live Python objects), ``busy`` (a process spinning on
one core). The memory and accuracy figures do not depend on the condition
(condition ``-``). Without torch installed the torch references print
``n/a``. The torch references run on 1 thread (``--torch-threads``), as our
BLAS does by default: on a shared, oversubscribed machine torch's default 2
OpenMP threads spin against each other and ran 10-20x slower, which would
flatter every ratio; the cnn figure compares with torch's default threads, as
the issue asks. The accuracy figure's Paddle reference is read from
``paddle_fp32_error.json``, written by ``paddle_fp32_error.py`` under real
Paddle; without it the row is ``n/a``.
"""
import argparse
import contextlib
import fnmatch
import json
import os
import sys
import time
import tracemalloc

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]
import framework as paddle  # noqa: E402
import framework.nn.functional as F  # noqa: E402
from framework import nn, static  # noqa: E402
from framework.backends import onednn  # noqa: E402
from framework.ops import backends  # noqa: E402

import bench_distributed  # noqa: E402
import bench_eager  # noqa: E402
import bench_onnx  # noqa: E402
import bench_static  # noqa: E402
import bench_static_passes  # noqa: E402
import bench_train  # noqa: E402
import paddle_fp32_error  # noqa: E402
from conditions import (CONDITIONS, Timing, condition, load_average, time_difference,  # noqa: E402
                        time_rounds)

torch = bench_train.torch            # None when torch is not installed
if torch is not None:
    import torch_resnet
    TORCH_DEFAULT_THREADS = torch.get_num_threads()


# ---- rows --------------------------------------------------------------------------

class Row:
    """One line of the table. ``ours``/``ref`` are numbers in ``unit`` (ref None:
    not available); ``target`` bounds ours/ref (or ``diff_target`` bounds
    ours - ref)."""

    def __init__(self, figure, cond, ours, ref, unit, ref_name, target=None, diff_target=None,
                 note=''):
        self.figure, self.cond, self.ours, self.ref = figure, cond, ours, ref
        self.unit, self.ref_name = unit, ref_name
        self.target, self.diff_target = target, diff_target
        self.note = note
        self.backend = '-'           # the kernel backend ours ran on (set by run_figure)

    def cells(self):
        if self.diff_target is not None:
            target = '<= %g %s' % (self.diff_target, self.unit)
        else:
            target = '-' if self.target is None else '<= %gx' % self.target
        if self.ref is None:
            ref = ratio = met = 'n/a'
        else:
            ref = '%s %s' % (self.ref_name, _num(self.ref, self.unit))
            if self.diff_target is not None:
                d = self.ours - self.ref
                ratio, met = '%+.3f %s' % (d, self.unit), _yes(d <= self.diff_target)
            else:
                r = self.ours / self.ref
                ratio = '%.2fx' % r
                met = '-' if self.target is None else _yes(r <= self.target)
        return [self.figure, self.cond, self.backend, _num(self.ours, self.unit), ref, ratio,
                target,
                ' '.join(filter(None, [met, self.note]))]


def _yes(ok):
    return 'yes' if ok else 'NO'


def _num(v, unit):
    return ('%.3g %s' % (v, unit)) if unit in ('', 'err') else ('%.3f %s' % (v, unit))


def print_table(rows):
    head = ['figure', 'condition', 'backend', 'ours', 'reference', 'ratio', 'target', 'met?']
    cells = [r.cells() if isinstance(r, Row) else r for r in rows]
    width = [max(len(c[i]) for c in cells + [head]) for i in range(len(head))]
    line = lambda c: '  '.join(s.ljust(w) for s, w in zip(c, width)).rstrip()  # noqa: E731
    print(line(head))
    print(line(['-' * w for w in width]))
    for c in cells:
        print(line(c))


def timed_pair(figure, cond, ours, ref, timing, ref_name, target, scale=1e3, unit='ms'):
    """A row from timing ``ours`` against ``ref`` (None: no reference)."""
    fns = {'ours': ours} if ref is None else {'ours': ours, 'ref': ref}
    t = time_rounds(fns, timing)
    ref_value = t['ref'] * scale if 'ref' in t else None
    return Row(figure, cond, t['ours'] * scale, ref_value, unit, ref_name, target)


# ---- shared model helpers ------------------------------------------------------------

def copy_to_torch(ours, theirs):
    """Copy the Conv2D/Linear/BatchNorm weights of our Layer into a torch Module
    with the same layers in the same order."""
    kinds = (nn.Conv2D, nn.Linear, nn.BatchNorm2D)
    mine = [l for l in ours.sublayers() if isinstance(l, kinds)]
    tkinds = (torch.nn.Conv2d, torch.nn.Linear, torch.nn.BatchNorm2d)
    their = [m for m in theirs.modules() if isinstance(m, tkinds)]
    assert len(mine) == len(their), (len(mine), len(their))
    with torch.no_grad():
        for a, b in zip(mine, their):
            w = a.weight.numpy()
            b.weight.copy_(torch.from_numpy(w.T.copy() if isinstance(a, nn.Linear) else w))
            if a.bias is not None:
                b.bias.copy_(torch.from_numpy(a.bias.numpy()))


def train_fns(make_ours, make_torch, x, y, name):
    """(ours, torch or None) training steps of the same net (losses checked equal)."""
    paddle.seed(0)
    net = make_ours()
    ours = bench_train.ours_step(net, x, y)
    if torch is None:
        return ours, None
    tnet = make_torch(net)
    bench_train.check_same_loss(net, tnet, x, y, name)
    return ours, bench_train.torch_step(tnet, x, y)


def data(shape, batch, classes=10, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((batch,) + shape).astype(np.float32),
            rng.integers(0, classes, (batch, 1)))


# ---- 1. eager overhead -------------------------------------------------------------

def fig_eager(cond, timing):
    train, infer = bench_eager.ours_fns()
    ref = bench_eager.torch_fns() or (None, None)
    target = (lambda t: t) if cond in ('clean', 'live') else (lambda t: None)
    us = 1e6 / bench_eager.OPS
    return [timed_pair('eager fwd+bwd per op', cond, train, ref[0], timing, 'torch',
                       target(0.7), us, 'us'),
            timed_pair('eager no-grad fwd per op', cond, infer, ref[1], timing, 'torch',
                       target(0.5), us, 'us')]


# ---- 2. CNN step and BLAS threads (busy) -------------------------------------------------

def cnn_ours():
    return nn.Sequential(nn.Conv2D(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                         nn.Conv2D(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                         nn.Flatten(), nn.Linear(32 * 8 * 8, 10))


def cnn_torch(ours):
    t = torch.nn
    net = t.Sequential(t.Conv2d(3, 16, 3, padding=1), t.ReLU(), t.MaxPool2d(2, 2),
                       t.Conv2d(16, 32, 3, padding=1), t.ReLU(), t.MaxPool2d(2, 2),
                       t.Flatten(), t.Linear(32 * 8 * 8, 10))
    copy_to_torch(ours, net)
    return net


@contextlib.contextmanager
def torch_threads(n):
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@contextlib.contextmanager
def blas_threads(n):
    before = paddle.get_num_threads()
    paddle.set_num_threads(n)
    try:
        yield
    finally:
        paddle.set_num_threads(before)


def fig_cnn_threads(cond, timing):
    x, y = data((3, 32, 32), 32)
    ours, ref = train_fns(cnn_ours, cnn_torch, x, y, 'cnn')
    paddle.seed(0)
    pinned = bench_train.ours_step(cnn_ours(), x, y)
    fns = {'ours': ours, 'pinned': pinned}
    if ref is not None:
        fns['torch'] = ref
    setup = {'pinned': lambda: blas_threads(1)}
    if torch is not None:
        setup['torch'] = lambda: torch_threads(TORCH_DEFAULT_THREADS)
    t = time_rounds(fns, timing, setup)
    default = 'default=%d BLAS thr' % paddle.get_num_threads()
    torch_thr = 'torch %d thr' % TORCH_DEFAULT_THREADS if torch is not None else 'torch'
    torch_ms = t['torch'] * 1e3 if 'torch' in t else None
    return [Row('cnn step: default vs 1 BLAS thread', cond, t['ours'] * 1e3,
                t['pinned'] * 1e3, 'ms', 'ours 1 thr', 1.1, note='(%s)' % default),
            Row('cnn step vs torch default threads', cond, t['ours'] * 1e3, torch_ms, 'ms',
                torch_thr, 1.2)]


# ---- 3. LeNet, ResNet block, MLP -------------------------------------------------------

def lenet_torch(ours):
    return bench_train.lenet_torch(ours)


class ResBlock(nn.Layer):
    """conv-bn-relu-conv-bn + identity, relu."""

    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2D(c, c, 3, padding=1, bias_attr=False)
        self.bn1 = nn.BatchNorm2D(c)
        self.conv2 = nn.Conv2D(c, c, 3, padding=1, bias_attr=False)
        self.bn2 = nn.BatchNorm2D(c)

    def forward(self, x):
        return F.relu(self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x))))) + x)


def resblock_torch(ours, c):
    t = torch.nn

    class Block(t.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = t.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = t.BatchNorm2d(c)
            self.conv2 = t.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = t.BatchNorm2d(c)

        def forward(self, x):
            return torch.relu(self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x))))) + x)
    net = Block()
    copy_to_torch(ours, net)
    return net


def resblock_fns(batch=32, c=16, size=32, static=False):
    """fwd+bwd (parameter and input gradients) of the block, ours (eager, or
    ``@to_static`` with ``static``) and torch."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, c, size, size)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    paddle.seed(0)
    block = ResBlock(c)
    run = paddle.jit.to_static(block) if static else block
    xt, gt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(g)

    def ours():
        run(xt).backward(gt)
        block.clear_gradients()
        xt.clear_grad()
    if torch is None:
        return ours, None
    tblock = resblock_torch(block, c)
    tx, tg = torch.from_numpy(x).requires_grad_(), torch.from_numpy(g)
    with torch.no_grad():
        np.testing.assert_allclose(block(paddle.to_tensor(x)).numpy(), tblock(tx).numpy(),
                                   rtol=1e-4, atol=1e-4)

    def theirs():
        tblock(tx).backward(tg)
        tblock.zero_grad(set_to_none=True)
        tx.grad = None
    return ours, theirs


def fig_models(cond, timing):
    rows = []
    for batch in (64, 256):
        x, y = data((1, 28, 28), batch)
        ours, ref = train_fns(paddle.vision.models.LeNet, lenet_torch, x, y, 'lenet')
        rows.append(timed_pair('lenet train step B%d' % batch, cond, ours, ref, timing,
                               'torch', 1.0))
    ours, ref = resblock_fns()
    rows.append(timed_pair('resnet block fwd+bwd B32 C16 32x32', cond, ours, ref, timing,
                           'torch', 1.2))
    ours, ref = resblock_fns(static=True)
    rows.append(timed_pair('resnet block fwd+bwd @to_static', cond, ours, ref, timing,
                           'torch', 0.6))
    for batch in (64, 256):
        x, y = data((784,), batch)
        ours, ref = train_fns(bench_train.mlp_ours, bench_train.mlp_torch, x, y, 'mlp')
        rows.append(timed_pair('mlp 784-512-512-10 train step B%d' % batch, cond, ours, ref,
                               timing, 'torch', 1.0))
    for static in (False, True):
        ours, ref = mobilenet_fns(static=static)
        rows.append(timed_pair('mobilenet_v2 train step B8 64x64' +
                               (' @to_static' if static else ''), cond, ours, ref, timing,
                               'torch', 0.9))
    return rows


def mobilenet_fns(batch=8, size=64, static=False):
    """Training steps of Paddle's MobileNet-v2 (depthwise convolutions),
    eager or ``@to_static``, and the same net in torch (``torch_mobilenet.py``)
    with our weights; the losses are checked equal in eval mode (dropout
    off), then both train."""
    x, y = data((3, size, size), batch)
    paddle.seed(0)
    net = paddle.vision.models.mobilenet_v2(num_classes=10)
    if torch is None:
        return bench_train.ours_step(paddle.jit.to_static(net) if static else net, x, y), None
    import torch_mobilenet
    tnet = torch_mobilenet.MobileNetV2(10)
    copy_to_torch(net, tnet)
    net.eval()
    tnet.eval()
    bench_train.check_same_loss(net, tnet, x, y, 'mobilenet_v2')
    net.train()
    tnet.train()
    ours = paddle.jit.to_static(net) if static else net
    return bench_train.ours_step(ours, x, y), bench_train.torch_step(tnet, x, y)


# ---- 4. LSTM cell, static Program and @to_static -------------------------------------------

def static_lstm_fns(steps=50):
    """Executor.run of the unrolled cell's Program, and the numpy cell."""
    feed = bench_static_passes.make_data(steps)
    paddle.enable_static()
    try:
        prog, fetch = bench_static_passes.build_program(steps)
    finally:
        paddle.disable_static()
    exe = static.Executor()
    ref = lambda: bench_static_passes.numpy_lstm(feed, steps,  # noqa: E731
                                                 bench_static_passes.naive_sigmoid)
    ours = lambda: exe.run(prog, feed=feed, fetch_list=fetch)  # noqa: E731
    np.testing.assert_allclose(ours()[0], ref(), rtol=1e-4, atol=1e-5)
    return ours, ref


class OneOp(nn.Layer):
    def forward(self, x):
        return x * 2.0


def to_static_fns(tiny=False):
    """@to_static forward (no grad) and Executor.run of its own Program, for
    the LSTM cell or (``tiny``) a one-op function, where the overhead shows."""
    w, b, xs = bench_static.lstm_weights()
    snet = paddle.jit.to_static(OneOp() if tiny else bench_static.LSTMNet(w, b))
    xt = paddle.to_tensor(xs)

    def call():
        with paddle.no_grad():
            return snet(xt)
    out = call()
    prog = snet.forward.concrete_program
    exe = static.Executor()
    feed = {prog.inputs[0].name: xs}
    run = lambda: exe.run(prog.main_program, feed=feed, fetch_list=prog.outputs)  # noqa: E731
    np.testing.assert_array_equal(run()[0], out.numpy())
    return call, run


def to_static_train_fns():
    w, b, xs = bench_static.lstm_weights()
    snet = paddle.jit.to_static(bench_static.LSTMNet(w, b))
    opt = paddle.optimizer.SGD(0.01, parameters=snet.parameters())
    xt = paddle.to_tensor(xs)

    def ours():
        loss = snet(xt).sum()
        loss.backward()
        opt.step()
        opt.clear_grad()
    theirs = bench_static.torch_lstm_fns(w, b, xs)
    return ours, theirs and theirs[1]


def fig_lstm_static(cond, timing):
    ours, ref = static_lstm_fns()
    rows = [timed_pair('lstm cell x50 fwd: static Executor.run', cond, ours, ref, timing,
                       'numpy', 1.15)]
    for label, fns in (('lstm', to_static_fns()), ('1-op fn', to_static_fns(tiny=True))):
        call, run, diff = time_difference(*fns, timing)
        rows.append(Row('%s @to_static call overhead' % label, cond, call * 1e3,
                        (call - diff) * 1e3, 'ms', 'Executor.run', diff_target=0.05))
    ours, ref = to_static_train_fns()
    rows.append(timed_pair('lstm @to_static train step (SGD)', cond, ours, ref, timing,
                           'torch eager', 0.4))
    return rows


# ---- 5. nn.LSTM / nn.GRU ----------------------------------------------------------------

def rnn_fns(kind, batch=16, seq=32, size=128):
    """Eager training steps (MSE to a fixed target, Adam) of nn.LSTM / nn.GRU."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, seq, size)).astype(np.float32)
    target = rng.standard_normal((batch, seq, size)).astype(np.float32)
    paddle.seed(0)
    net = getattr(paddle.nn, kind)(size, size)
    opt = paddle.optimizer.Adam(1e-3, parameters=net.parameters())
    xt, yt = paddle.to_tensor(x), paddle.to_tensor(target)

    def ours():
        loss = F.mse_loss(net(xt)[0], yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    if torch is None:
        return ours, None
    tnet = getattr(torch.nn, kind)(size, size, batch_first=True)
    with torch.no_grad():
        for name, p in tnet.named_parameters():     # the same names and layouts as Paddle's
            p.copy_(torch.from_numpy(getattr(net, name).numpy()))
    topt = torch.optim.Adam(tnet.parameters(), 1e-3)
    tx, ty = torch.from_numpy(x), torch.from_numpy(target)

    def theirs():
        loss = torch.nn.functional.mse_loss(tnet(tx)[0], ty)
        loss.backward()
        topt.step()
        topt.zero_grad()
        return loss
    with paddle.no_grad(), torch.no_grad():
        a = float(F.mse_loss(net(xt)[0], yt))
        b = float(torch.nn.functional.mse_loss(tnet(tx)[0], ty))
    assert abs(a - b) <= 1e-5 * max(1, abs(b)), '%s: the nets differ: loss ours %g, torch %g' % (
        kind, a, b)
    return ours, theirs


def fig_rnn(cond, timing):
    rows = []
    for kind in ('LSTM', 'GRU'):
        ours, ref = rnn_fns(kind)
        rows.append(timed_pair('nn.%s train step B16 T32 128' % kind, cond, ours, ref, timing,
                               'torch', 1.0))
    return rows


def fig_onnx(cond, timing):
    """onnxruntime (CPU, 1 thread) on the exported file vs our Executor on the
    same inference Program (``bench_onnx.py``); ratio = ours / onnxruntime."""
    try:
        import onnxruntime  # noqa: F401
        import onnx  # noqa: F401
    except ImportError:
        return [['onnx export', cond, 'skipped', "onnxruntime not installed (pip install "
                 "-e '.[onnx]')", '', '', '']]
    rows = []
    for name, (label, make) in (('lenet', ('LeNet B64 28x28', bench_onnx.MODELS['lenet'])),
                                ('resnet18', ('ResNet-18 B8 32x32',
                                              bench_onnx.MODELS['resnet18'])),
                                ('lstm', ('LSTM classifier B16 T32', bench_onnx.MODELS['lstm']))):
        fns = bench_onnx.contenders(*make())
        rows.append(timed_pair('onnx %s forward' % label, cond, fns['ours'],
                               fns['onnxruntime'], timing, 'onnxruntime', None))
    return rows


# ---- 6. memory ----------------------------------------------------------------------------

def fig_memory(cond, timing):
    """Peak bytes a training step allocates (tracemalloc sees numpy's buffers)
    over the bytes of the parameters plus the forward's layer outputs."""
    x, y = data((784,), 256)
    paddle.seed(0)
    net = bench_train.mlp_ours()
    step = bench_train.ours_step(net, x, y)
    step()
    step()                                  # optimizer state exists before we measure
    with paddle.no_grad():
        h, act_bytes = paddle.to_tensor(x), 0
        for layer in net:
            h = layer(h)
            act_bytes += int(np.prod(h.shape)) * 4
    del h
    param_bytes = sum(int(np.prod(p.shape)) * 4 for p in net.parameters())
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        step()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return [Row('mlp B256 train step peak memory', cond, peak / 2 ** 20,
                (param_bytes + act_bytes) / 2 ** 20, 'MB', 'params+acts', 1.5)]


# ---- 7. float32 gradient accuracy -----------------------------------------------------------

def torch_resnet_grads(dtype, shapes):
    net = torch_resnet.ResNet18(paddle_fp32_error.CLASSES).to(dtype)
    torch_resnet.load_paddle_state(net, paddle_fp32_error.make_weights(shapes))
    net.eval()
    x, y = paddle_fp32_error.make_data()
    torch.nn.functional.cross_entropy(net(torch.from_numpy(x).to(dtype)),
                                      torch.from_numpy(y)).backward()
    return {torch_resnet.paddle_name(n): (p.grad.numpy().T if n == 'fc.weight' else p.grad.numpy())
            for n, p in net.named_parameters()}


def fig_accuracy(cond, timing):
    pe = paddle_fp32_error
    ours = pe.relative_error(pe.paddle_grads(paddle, 'float32'), pe.paddle_grads(paddle, 'float64'))
    label = 'resnet18 fp32 grad rel. error'
    rows = []
    paddle_ref = None
    if os.path.exists(pe.JSON_PATH):
        with open(pe.JSON_PATH) as f:
            paddle_ref = json.load(f)
    rows.append(Row(label, cond, ours, paddle_ref and paddle_ref['max_relative_error'], 'err',
                    'paddle %s' % (paddle_ref or {}).get('version', ''), 1.5,
                    note='' if paddle_ref else '(run paddle_fp32_error.py)'))
    ref = None
    if torch is not None:
        shapes = {k: v.shape for k, v in paddle.vision.models.resnet18(
            num_classes=pe.CLASSES).state_dict().items()}
        ref = pe.relative_error(torch_resnet_grads(torch.float32, shapes),
                                torch_resnet_grads(torch.float64, shapes))
    rows.append(Row(label, cond, ours, ref, 'err', 'torch', None))
    return rows


# ---- 8. data parallel on MPI ----------------------------------------------------------------

def fig_distributed(cond, timing):
    """All-reduce time against raw mpi4py on the same buffers, and the MLP step
    on 2 ranks against 1 at the same global batch (bench_distributed.py; its
    2 ranks run under mpiexec, so the process conditions do not apply)."""
    rows = []
    for label, ours, ref, unit, ref_name, note in bench_distributed.measure(timing.rounds <= 2):
        if ours is None:
            rows.append([label, cond, 'n/a', note, '', '', ''])
        else:
            rows.append(Row(label, cond, ours, ref, unit, ref_name))
    return rows


# ---- driver -----------------------------------------------------------------------------------

# name, function, conditions it is measured in (None: once, condition-independent)
FIGURES = [
    ('eager', fig_eager, CONDITIONS),
    ('cnn_threads', fig_cnn_threads, ('busy',)),
    ('models', fig_models, CONDITIONS),
    ('lstm_static', fig_lstm_static, CONDITIONS),
    ('rnn', fig_rnn, CONDITIONS),
    ('onnx', fig_onnx, ('clean',)),
    ('memory', fig_memory, None),
    ('accuracy', fig_accuracy, None),
    ('distributed', fig_distributed, None),
]


def run_figure(name, fn, cond, timing, rows, backend):
    """The figure's rows with ours on kernel backend ``backend``."""
    t = time.perf_counter()
    backends.set_backend(backend)
    try:
        new = fn(cond, timing)
    except (Exception, SystemExit) as e:        # one broken figure must not hide the others
        new = [[name, cond, backend, 'ERROR', '%s: %s' % (type(e).__name__, e), '', '', '']]
    for row in new:
        if isinstance(row, Row):
            row.backend = backend
    rows.extend(new)
    print('  %-12s %-6s %-7s %5.1f s' % (name, cond, backend, time.perf_counter() - t),
          file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--quick', action='store_true', help='fewer, shorter rounds (smoke run)')
    ap.add_argument('--only', help='figures whose name matches this glob or substring: %s'
                    % ', '.join(f[0] for f in FIGURES))
    ap.add_argument('--conditions', default=','.join(CONDITIONS))
    ap.add_argument('--backends', default=','.join(
        ['numpy'] + (['onednn'] if onednn.available() else [])),
        help='kernel backends ours runs on, each figure once per backend '
        '(default: numpy, and onednn where it loads)')
    ap.add_argument('--rounds', type=int, help='timed rounds per contender (default 5, quick 2)')
    ap.add_argument('--round-s', type=float, help='seconds per round (default 0.3, quick 0.1)')
    ap.add_argument('--torch-threads', type=int, default=1,
                    help='torch threads for the torch references (default 1, as our BLAS; '
                    '0: torch\'s default). The cnn figure always uses torch\'s default.')
    args = ap.parse_args()
    timing = Timing(rounds=2, round_s=0.1, warmup=1) if args.quick else Timing()
    if args.rounds:
        timing.rounds = args.rounds
    if args.round_s:
        timing.round_s = args.round_s
    conds = [c for c in args.conditions.split(',') if c]
    for c in conds:
        if c not in CONDITIONS:
            ap.error('unknown condition %r (choose from %s)' % (c, ', '.join(CONDITIONS)))
    kinds = [b for b in args.backends.split(',') if b]
    for b in kinds:
        if b not in backends.NAMES or (b == 'onednn' and not onednn.available()):
            ap.error('backend %r is not available here (%s)'
                     % (b, onednn.why_unavailable() if b == 'onednn' else backends.NAMES))
    figures = [f for f in FIGURES if not args.only or args.only in f[0]
               or fnmatch.fnmatch(f[0], args.only)]
    if torch is not None:
        torch.set_num_threads(args.torch_threads or TORCH_DEFAULT_THREADS)
    print('load average at start: %s (%d cores)' % (load_average(), os.cpu_count()))
    print('numpy %s, torch %s, framework BLAS threads %d; rounds %d x >= %.2f s (median)'
          % (np.__version__, torch.__version__ + ' (%d threads, default %d)' % (
              torch.get_num_threads(), TORCH_DEFAULT_THREADS) if torch else 'not installed',
             paddle.get_num_threads(), timing.rounds, timing.round_s))
    rows = []
    for cond in conds:
        timed = [f for f in figures if f[2] is not None and cond in f[2]]
        if not timed:
            continue
        with condition(cond) as desc:
            print('condition %s' % desc, file=sys.stderr)
            for name, fn, _ in timed:
                for backend in kinds:
                    run_figure(name, fn, cond, timing, rows, backend)
    for name, fn, where in figures:
        if where is None:
            for backend in kinds:
                run_figure(name, fn, '-', timing, rows, backend)
        elif not set(where) & set(conds):
            rows.append([name, ','.join(where), '-', 'skipped',
                         'measured only in: ' + ','.join(where), '', '', ''])
    print()
    print_table(rows)
    print()
    print('load average at end: %s' % load_average())


if __name__ == '__main__':
    main()
