"""MNIST and FashionMNIST from local IDX files.

The framework never downloads: pass ``image_path`` / ``label_path`` (the standard
``*-idx3-ubyte`` / ``*-idx1-ubyte`` files, gzipped or not), or put the files in
``$FRAMEWORK_DATA_HOME/mnist`` (default ``~/.cache/framework/dataset/mnist``;
Paddle's cache ``~/.cache/paddle/dataset/mnist`` is also searched).

Samples are ``(image, label)``: the label is an int64 array of shape [1]. With the
default numpy backend ('cv2') and no transform the image is a float32 [28, 28]
array of raw pixel values in [0, 255], as in Paddle. A transform receives the
uint8 [28, 28] array (the pixels a PIL image would hold), so ``ToTensor`` scales
to [0, 1] as it does with Paddle's default PIL backend; numpy results of the
transform are cast to the default float dtype.
"""
import gzip
import os
import struct
import zlib

import numpy as np

from ... import dtype as _dtype
from ...io import Dataset
from .backend import resolve_backend

__all__ = ['MNIST', 'FashionMNIST', 'read_idx']


def _data_homes():
    env = os.environ.get('FRAMEWORK_DATA_HOME')
    homes = [env] if env else [os.path.join('~', '.cache', 'framework', 'dataset')]
    homes.append(os.path.join('~', '.cache', 'paddle', 'dataset'))
    return [os.path.expanduser(h) for h in homes]


def read_idx(path, ndim, what='IDX file'):
    """Read an IDX file of unsigned bytes with ``ndim`` dimensions (gzipped or not)."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:2] == b'\x1f\x8b':
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            reason = str(e)
        else:
            reason = None
        if reason is not None:
            raise ValueError("%s %r is a damaged gzip file (%s)" % (what, path, reason))
    if len(raw) < 4 + 4 * ndim or raw[:2] != b'\0\0' or raw[2] != 0x08 or raw[3] != ndim:
        raise ValueError("%s %r is not an IDX file of unsigned bytes with %d dimensions "
                         "(header %r)" % (what, path, ndim, raw[:4]))
    dims = struct.unpack('>%dI' % ndim, raw[4:4 + 4 * ndim])
    count = int(np.prod(dims, dtype=np.int64))
    body = len(raw) - 4 - 4 * ndim
    if body != count:
        raise ValueError("%s %r: its header promises %s = %d bytes of data but it holds %d "
                         "(truncated or damaged)" % (what, path, list(dims), count, body))
    return np.frombuffer(raw, np.uint8, count, 4 + 4 * ndim).reshape(dims)


class MNIST(Dataset):
    """The MNIST handwritten digits (60000 train / 10000 test, 28x28 grey).

    Args:
        image_path, label_path (str): the IDX files; when None they are looked up in
            the data folders (see the module doc) under their standard names.
        mode (str): 'train' or 'test'.
        transform (callable): applied to each image.
        download (bool): kept for Paddle compatibility; the framework never
            downloads, so missing files raise an error explaining how to get them.
        backend (str): 'cv2' (numpy arrays, the default) or 'pil' (needs Pillow).
    """
    NAME = 'mnist'
    URL = 'https://ossci-datasets.s3.amazonaws.com/mnist/ (or http://yann.lecun.com/exdb/mnist/)'
    FILES = {'train': ('train-images-idx3-ubyte', 'train-labels-idx1-ubyte'),
             'test': ('t10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte')}

    def __init__(self, image_path=None, label_path=None, mode='train', transform=None,
                 download=True, backend=None):
        name = type(self).__name__
        if not isinstance(mode, str) or mode.lower() not in ('train', 'test'):
            raise ValueError("%s: mode should be 'train' or 'test', got %r" % (name, mode))
        self.mode = mode.lower()
        self.backend = resolve_backend(backend, name)
        self.transform = transform
        self.dtype = _dtype.get_default_dtype()
        image_file, label_file = self.FILES[self.mode]
        self.image_path = self._locate(image_path, image_file, 'image_path', download)
        self.label_path = self._locate(label_path, label_file, 'label_path', download)
        self.images = read_idx(self.image_path, 3, '%s image file' % name)
        labels = read_idx(self.label_path, 1, '%s label file' % name)
        if len(labels) != len(self.images):
            raise ValueError("%s: %r holds %d images but %r holds %d labels"
                             % (name, self.image_path, len(self.images), self.label_path,
                                len(labels)))
        self.labels = labels.astype(np.int64)

    def _locate(self, given, standard_name, arg, download):
        name = type(self).__name__
        if given is not None:
            given = os.fspath(given)
            if not os.path.isfile(given):
                raise FileNotFoundError("%s: %s %r does not exist" % (name, arg, given))
            return given
        tried = []
        for home in _data_homes():
            for fname in (standard_name + '.gz', standard_name):
                candidate = os.path.join(home, self.NAME, fname)
                if os.path.isfile(candidate):
                    return candidate
                tried.append(candidate)
        why = ("download=True was given, but the framework never downloads data; "
               if download else "")
        raise FileNotFoundError(
            "%s: %sthe %s file %s.gz was not found (looked for %s). Download it from %s and "
            "pass %s=<path>, or place it in one of those folders."
            % (name, why, self.mode, standard_name, ', '.join(tried), self.URL, arg))

    def __getitem__(self, idx):
        image = self.images[idx]
        label = np.array([self.labels[idx]], dtype=np.int64)
        if self.backend == 'pil':
            from PIL import Image
            image = Image.fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        if isinstance(image, np.ndarray):
            image = image.astype(self.dtype)
        return image, label

    def __len__(self):
        return len(self.labels)


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST: 10 kinds of clothing in MNIST's file format."""
    NAME = 'fashion-mnist'
    URL = 'https://github.com/zalandoresearch/fashion-mnist (data/fashion/)'
