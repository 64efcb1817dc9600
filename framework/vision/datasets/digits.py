"""The 8x8 handwritten digits shipped with scikit-learn: a small real data set that
works offline (1797 images of the digits 0-9, from the UCI optdigits collection).

scikit-learn is an optional dependency, needed only here.
"""
import numpy as np

from ... import dtype as _dtype
from ...io import Dataset
from ..transforms import functional as F
from .backend import resolve_backend

__all__ = ['Digits']


def _load_sklearn_digits():
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        raise ImportError("framework.vision.datasets.Digits needs scikit-learn, which ships "
                          "the digits data: pip install scikit-learn") from None
    data = load_digits()
    return np.asarray(data.images, dtype=np.float64), np.asarray(data.target, dtype=np.int64)


def _split(labels, test_split):
    """Deterministic stratified split: per class, a fixed-seed shuffle sends
    round(test_split * count) samples to the test set."""
    rng = np.random.default_rng(2024)     # fixed: the split must not depend on framework.seed
    test = []
    for c in np.unique(labels):
        members = np.flatnonzero(labels == c)
        test.extend(rng.permutation(members)[:int(round(test_split * len(members)))].tolist())
    is_test = np.zeros(len(labels), dtype=bool)
    is_test[test] = True
    return np.flatnonzero(~is_test), np.flatnonzero(is_test)


class Digits(Dataset):
    """Handwritten digits 0-9 from ``sklearn.datasets.load_digits``.

    Pixels (0-16 in the source) are scaled to [0, 255] like MNIST's and stored as
    uint8; ``image_size`` > 8 upsamples them (bilinear), e.g. 28 to feed MNIST
    models. ``mode`` picks the train or test part of a fixed, stratified split
    that puts ``test_split`` of each class in the test part.

    A sample is ``(image, label)``: without a transform the image is float32
    [1, H, W] in [0, 255]; a transform receives the uint8 [H, W] array (or a PIL
    image with ``backend='pil'``). The label is an int64 array of shape [1].

    >>> from framework.vision.datasets import Digits
    >>> train = Digits(mode='train')
    >>> image, label = train[0]
    >>> image.shape, image.dtype.name, label.dtype.name, len(train) + len(Digits(mode='test'))
    ((1, 8, 8), 'float32', 'int64', 1797)
    """

    def __init__(self, mode='train', transform=None, image_size=8, test_split=0.2,
                 backend=None):
        if not isinstance(mode, str) or mode.lower() not in ('train', 'test'):
            raise ValueError("Digits: mode should be 'train' or 'test', got %r" % (mode,))
        if isinstance(image_size, bool) or not isinstance(image_size, int) or image_size < 1:
            raise ValueError("Digits: image_size should be a positive int, got %r" % (image_size,))
        if not 0 < test_split < 1:
            raise ValueError("Digits: test_split should be a fraction in (0, 1), got %r"
                             % (test_split,))
        self.mode = mode.lower()
        self.transform = transform
        self.backend = resolve_backend(backend, 'Digits')
        self.dtype = _dtype.get_default_dtype()
        images, labels = _load_sklearn_digits()
        train_idx, test_idx = _split(labels, test_split)
        keep = train_idx if self.mode == 'train' else test_idx
        images = images[keep] * (255.0 / 16.0)
        if image_size != 8:
            # all images at once: the sample axis plays the channel axis of an HWC image
            images = F.resize(images.transpose(1, 2, 0), (image_size, image_size),
                              'bilinear').transpose(2, 0, 1)
        self.images = np.ascontiguousarray(np.clip(np.rint(images), 0, 255).astype(np.uint8))
        self.labels = labels[keep]

    def __getitem__(self, idx):
        image = self.images[idx]
        label = np.array([self.labels[idx]], dtype=np.int64)
        if self.backend == 'pil':
            from PIL import Image
            image = Image.fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
            if isinstance(image, np.ndarray):
                image = image.astype(self.dtype)
            return image, label
        if self.backend == 'pil':
            return image, label
        return image[None].astype(self.dtype), label

    def __len__(self):
        return len(self.labels)
