"""Exported-model speed: onnxruntime (CPU) on ``paddle.onnx.export``'s file vs
our own Executor running the same inference Program.

    python3 benchmarks/bench_onnx.py [--repeat N] [--only NAME] [--threads T]

Each model is traced once (eval mode, a symbolic batch dim), exported, and both
contenders run the same batch in interleaved rounds; the table gives the
median ms per forward of each and the ratio ours / onnxruntime (how much
slower our Executor is than a deployment runtime on the same graph). Outputs
are checked to agree before timing. onnxruntime runs on ``--threads`` intra-op
threads (1 by default, as our BLAS).

Models: ``lenet`` -- the MNIST demo's LeNet, batch 64 of 1x28x28;
``resnet18`` -- vision.models.resnet18 (10 classes), batch 8 of 3x32x32;
``lstm`` -- a text classifier, embedding + 2-layer bidirectional
nn.LSTM (hidden 64) + linear, batch 16, 32 tokens.
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import framework as paddle  # noqa: E402
from framework.static import InputSpec  # noqa: E402


# ---- models: name -> () -> (layer, input specs, inputs) ------------------------------

class _LSTMClassifier(paddle.nn.Layer):
    def __init__(self, vocab=1000, emb=64, hidden=64, classes=4):
        super().__init__()
        self.emb = paddle.nn.Embedding(vocab, emb)
        self.rnn = paddle.nn.LSTM(emb, hidden, num_layers=2, direction='bidirect')
        self.fc = paddle.nn.Linear(2 * hidden, classes)

    def forward(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return self.fc(paddle.mean(out, axis=1))


def lstm_model(batch=16, seq=32):
    paddle.seed(0)
    ids = np.random.RandomState(0).randint(0, 1000, (batch, seq)).astype('int64')
    return _LSTMClassifier(), [InputSpec([None, seq], 'int64', 'ids')], [ids]


def _vision_model(make, batch, channels, size):
    def build():
        paddle.seed(0)
        x = np.random.RandomState(0).randn(batch, channels, size, size).astype('float32')
        return make(), [InputSpec([None, channels, size, size], 'float32', 'image')], [x]
    return build


MODELS = {'lenet': _vision_model(lambda: paddle.vision.models.LeNet(num_classes=10), 64, 1, 28),
          'resnet18': _vision_model(lambda: paddle.vision.models.resnet18(num_classes=10),
                                    8, 3, 32),
          'lstm': lstm_model}


# ---- timing ------------------------------------------------------------------------------

def contenders(layer, specs, inputs, threads=1):
    """{'ours': fn, 'onnxruntime': fn} running ``layer``'s inference program on ``inputs``."""
    import onnxruntime as ort
    from framework.jit.api import traced_inference_program
    layer.eval()
    program, feed, fetch, _ = traced_inference_program(layer, specs)
    exe = paddle.static.Executor()
    feeds = dict(zip(feed, inputs))
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'model')
        paddle.onnx.export(layer, path, input_spec=specs)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        sess = ort.InferenceSession(path + '.onnx', opts, providers=['CPUExecutionProvider'])
    ort_feeds = {i.name: x for i, x in zip(sess.get_inputs(), inputs)}
    ours = lambda: exe.run(program, feed=feeds, fetch_list=fetch)  # noqa: E731
    theirs = lambda: sess.run(None, ort_feeds)  # noqa: E731
    np.testing.assert_allclose(theirs()[0], ours()[0], rtol=1e-4, atol=1e-5)
    return {'ours': ours, 'onnxruntime': theirs}


def time_interleaved(fns, repeat, min_s=0.2):
    """{name: median ms per call}: rounds of >= ``min_s`` seconds, interleaved."""
    for fn in fns.values():
        fn()
    times = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            n, t0 = 0, time.perf_counter()
            while True:
                fn()
                n += 1
                elapsed = time.perf_counter() - t0
                if elapsed >= min_s:
                    break
            times[name].append(1e3 * elapsed / n)
    return {name: statistics.median(ts) for name, ts in times.items()}


def rows(names=None, repeat=5, threads=1):
    """[(model, ours ms, onnxruntime ms)] for the models ``names`` (all by default)."""
    out = []
    for name in names or MODELS:
        ms = time_interleaved(contenders(*MODELS[name](), threads=threads), repeat)
        out.append((name, ms['ours'], ms['onnxruntime']))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--repeat', type=int, default=5)
    ap.add_argument('--only', default=None, help='one model: ' + ', '.join(MODELS))
    ap.add_argument('--threads', type=int, default=1)
    args = ap.parse_args()
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        print("bench_onnx: skipped, onnxruntime is not installed (pip install -e '.[onnx]')")
        return
    print('%-10s %14s %18s %8s' % ('model', 'ours ms', 'onnxruntime ms', 'ratio'))
    for name, ours, theirs in rows([args.only] if args.only else None, args.repeat,
                                   args.threads):
        print('%-10s %14.3f %18.3f %7.1fx' % (name, ours, theirs, ours / theirs))


if __name__ == '__main__':
    main()
