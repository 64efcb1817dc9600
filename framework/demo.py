"""``python -m framework.demo``: the framework end to end, in about a minute.

1. Train LeNet on the 8x8 handwritten digits shipped with scikit-learn
   (upsampled to 28x28) eagerly, then the same model with ``@to_static``,
   with a progress bar; print test accuracy and time per epoch side by side.
2. Save the ``@to_static`` model for deployment (``jit.save``).
3. Reload it through the predictor API in a fresh Python process that has
   none of the model's code, and check its predictions match.

Options: ``--epochs N`` (default 3), ``--batch-size N`` (default 64),
``--out DIR`` (where the inference model goes; default a temporary folder).
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import framework as paddle
from framework import nn
from framework.static import InputSpec

PREDICT_IN_FRESH_PROCESS = r"""
import sys
import numpy as np
from framework.inference import Config, create_predictor

prefix, images_file, out_file = sys.argv[1:4]
predictor = create_predictor(Config(prefix + '.pdmodel', prefix + '.pdiparams'))
images = np.load(images_file)
handle = predictor.get_input_handle(predictor.get_input_names()[0])
handle.copy_from_cpu(images)
predictor.run()
logits = predictor.get_output_handle(predictor.get_output_names()[0]).copy_to_cpu()
np.save(out_file, logits)
print('  predictor in a fresh process: %d images, output %s' % (len(images), list(logits.shape)))
"""


def load_data():
    from framework.vision.datasets import Digits
    from framework.vision import transforms as T
    transform = T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])])
    train = Digits(mode='train', image_size=28, transform=transform)
    test = Digits(mode='test', image_size=28, transform=transform)
    return train, test


class EpochTimer(paddle.callbacks.Callback):
    def on_epoch_begin(self, epoch, logs=None):
        self._start = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        self.times.append(time.perf_counter() - self._start)

    def on_train_begin(self, logs=None):
        self.times = []


def train(mode, train_set, test_set, epochs, batch_size):
    """Train a fresh LeNet (same seed for both modes); returns (network, stats)."""
    paddle.seed(2024)
    net = paddle.vision.models.LeNet(num_classes=10)
    if mode == 'to_static':
        net = paddle.jit.to_static(net, input_spec=[InputSpec([None, 1, 28, 28], 'float32',
                                                              'image')])
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters()),
                  nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    timer = EpochTimer()
    print('\n== %s ==' % mode)
    model.fit(train_set, epochs=epochs, batch_size=batch_size, verbose=1, callbacks=[timer],
              shuffle=True)
    result = model.evaluate(test_set, batch_size=256, verbose=0)
    return net, {'acc': float(np.ravel(result['acc'])[0]), 'epoch_s': timer.times}


def predictions(net, images):
    net.eval()
    with paddle.no_grad():
        return net(paddle.to_tensor(images)).numpy()


def check_deployment(net, test_set, out_dir):
    prefix = os.path.join(out_dir, 'lenet_digits')
    paddle.jit.save(net, prefix, input_spec=[InputSpec([None, 1, 28, 28], 'float32', 'image')])
    print('\nsaved the inference model: %s.pdmodel + %s.pdiparams' % (prefix, prefix))
    images = np.stack([test_set[i][0] for i in range(len(test_set))]).astype('float32')
    expected = predictions(net, images)
    images_file = os.path.join(out_dir, 'test_images.npy')
    out_file = os.path.join(out_dir, 'predictor_logits.npy')
    np.save(images_file, images)
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env['PYTHONPATH'] = root + os.pathsep + env.get('PYTHONPATH', '')
    subprocess.run([sys.executable, '-c', PREDICT_IN_FRESH_PROCESS, prefix, images_file,
                    out_file], check=True, env=env)
    got = np.load(out_file)
    same_class = np.array_equal(got.argmax(1), expected.argmax(1))
    max_diff = float(np.abs(got - expected).max())
    print('  predictions match the in-process model: %s (max |difference| %.2e)'
          % ('yes' if same_class and max_diff < 1e-4 else 'NO', max_diff))
    return same_class and max_diff < 1e-4


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--epochs', type=int, default=3)
    ap.add_argument('--batch-size', type=int, default=64)
    ap.add_argument('--out', default=None)
    args = ap.parse_args(argv)
    train_set, test_set = load_data()
    print('digits: %d training and %d test images, upsampled to 28x28'
          % (len(train_set), len(test_set)))
    stats = {}
    static_net = None
    for mode in ('eager', 'to_static'):
        net, stats[mode] = train(mode, train_set, test_set, args.epochs, args.batch_size)
        if mode == 'to_static':
            static_net = net
    print('\n%-10s %14s %18s %18s' % ('mode', 'test accuracy', 'first epoch (s)',
                                     'later epochs (s)'))
    for mode, s in stats.items():
        later = np.mean(s['epoch_s'][1:]) if len(s['epoch_s']) > 1 else float('nan')
        print('%-10s %13.2f%% %18.2f %18.2f' % (mode, 100 * s['acc'], s['epoch_s'][0], later))
    out_dir = args.out or tempfile.mkdtemp(prefix='framework-demo-')
    ok = check_deployment(static_net, test_set, out_dir)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
