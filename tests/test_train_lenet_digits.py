"""End to end: Paddle's LeNet trained with framework.Model + Adam on the
scikit-learn 8x8 digits, upsampled to LeNet's 28x28 input (the full run to
97 % test accuracy, and a one-epoch run on a subset that checks learning)."""
import numpy as np
import pytest

import framework as paddle
from framework.callbacks import Callback
from framework.vision import transforms as T

pytest.importorskip('sklearn')

from framework.vision.datasets import Digits  # noqa: E402


def _transforms(augment):
    steps = [T.RandomCrop(28, padding=2)] if augment else []
    return T.Compose(steps + [T.ToTensor(), T.Normalize([0.5], [0.5])])


class _BatchLosses(Callback):
    def __init__(self):
        super().__init__()
        self.losses = []

    def on_train_batch_end(self, step, logs=None):
        self.losses.append(logs['loss'][0])


def test_lenet_reaches_97_percent_on_digits():
    # about 4 s on an idle 2-core machine (8 epochs of 45 batches): not marked slow
    paddle.seed(2)
    train = Digits(mode='train', image_size=28, transform=_transforms(augment=True))
    test = Digits(mode='test', image_size=28, transform=_transforms(augment=False))
    epochs, batch_size = 8, 32
    steps = -(-len(train) // batch_size)
    model = paddle.Model(paddle.vision.models.LeNet())
    sched = paddle.optimizer.lr.CosineAnnealingDecay(3e-3, T_max=epochs * steps)
    model.prepare(paddle.optimizer.Adam(sched, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(train, batch_size=batch_size, epochs=epochs, verbose=0)
    result = model.evaluate(test, batch_size=128, verbose=0)
    assert result['acc'] >= 0.97, result


def test_lenet_one_epoch_on_a_subset_learns():
    paddle.seed(0)
    full = Digits(mode='train', image_size=28, transform=_transforms(augment=False))
    train = paddle.io.Subset(full, list(range(640)))
    test = paddle.io.Subset(Digits(mode='test', image_size=28,
                                   transform=_transforms(augment=False)), list(range(200)))
    model = paddle.Model(paddle.vision.models.LeNet())
    model.prepare(paddle.optimizer.Adam(3e-3, parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    before = model.evaluate(test, batch_size=100, verbose=0)
    record = _BatchLosses()
    model.fit(train, batch_size=32, epochs=1, verbose=0, callbacks=[record])
    after = model.evaluate(test, batch_size=100, verbose=0)
    assert len(record.losses) == 20
    assert np.mean(record.losses[-5:]) < 0.6 * np.mean(record.losses[:5])
    assert after['loss'][0] < 0.6 * before['loss'][0]
    assert after['acc'] > 0.6          # chance is 0.1
