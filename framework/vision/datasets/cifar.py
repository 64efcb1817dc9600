"""CIFAR-10 and CIFAR-100 from their "python version" archives.

The archive (``cifar-10-python.tar.gz`` / ``cifar-100-python.tar.gz``) holds
pickled batches; they are read with ``framework.utils.restricted_pickle``,
which rebuilds only plain values and numeric arrays, so an archive from
elsewhere cannot run code. Samples are ``(image, label)``: an HWC uint8 image
(float32 with the numpy backend, PIL with 'pil') and an int64 label array.
"""
import tarfile

import numpy as np

from ... import dtype as _dtype
from ...io import Dataset
from ...utils.dataset_files import locate
from ...utils.restricted_pickle import restricted_load
from .backend import resolve_backend

__all__ = ['Cifar10', 'Cifar100']

URL_PREFIX = 'https://dataset.bj.bcebos.com/cifar/'
CIFAR10_URL = URL_PREFIX + 'cifar-10-python.tar.gz'
CIFAR100_URL = URL_PREFIX + 'cifar-100-python.tar.gz'
# archive members holding each split: a substring of their names
MODE_FLAG_MAP = {'train10': 'data_batch', 'test10': 'test_batch', 'train100': 'train',
                 'test100': 'test'}


class Cifar10(Dataset):
    """CIFAR-10: 50000 train / 10000 test 32x32 colour images of 10 classes.

    Args:
        data_file (str): the ``cifar-10-python.tar.gz`` archive; when None it is
            looked up in the data folders (``framework.utils.dataset_files``).
        mode (str): 'train' or 'test'.
        transform (callable): applied to each image.
        download (bool): kept for Paddle compatibility; nothing is downloaded.
        backend (str): 'cv2' (numpy images) or 'pil'.
    """
    URL = CIFAR10_URL
    CLASSES = 10

    def __init__(self, data_file=None, mode='train', transform=None, download=True,
                 backend=None):
        name = type(self).__name__
        if not isinstance(mode, str) or mode.lower() not in ('train', 'test'):
            raise ValueError("%s: mode should be 'train' or 'test', got %r" % (name, mode))
        self.mode = mode.lower()
        self.backend = resolve_backend(backend, name)
        self.flag = MODE_FLAG_MAP[self.mode + str(self.CLASSES)]
        self.data_file = locate(data_file, self.URL, 'cifar', name, download=download)
        self.transform = transform
        self.dtype = _dtype.get_default_dtype()
        self._load_data()

    def _load_data(self):
        name = type(self).__name__
        images, labels = [], []
        try:
            archive = tarfile.open(self.data_file, mode='r')
        except (tarfile.TarError, OSError) as e:
            raise ValueError("%s: %r is not a tar archive (%s)" % (name, self.data_file, e)) \
                from None
        with archive:
            members = sorted(m.name for m in archive if m.isfile() and self.flag in m.name)
            for member in members:
                batch = restricted_load(archive.extractfile(member), encoding='bytes')
                labels_of = batch.get(b'labels', batch.get(b'fine_labels'))
                if b'data' not in batch or labels_of is None:
                    raise ValueError("%s: %s in %r is not a CIFAR batch (no data/labels)"
                                     % (name, member, self.data_file))
                images.append(np.asarray(batch[b'data'], np.uint8).reshape(-1, 3, 32, 32))
                labels.extend(int(v) for v in labels_of)
        if not members:
            raise ValueError("%s: %r holds no %r batches for mode %r"
                             % (name, self.data_file, self.flag, self.mode))
        # HWC, the layout Paddle hands to transforms
        self.images = np.concatenate(images).transpose(0, 2, 3, 1)
        self.labels = np.asarray(labels, np.int64)
        self.data = list(zip(self.images, self.labels))

    def __getitem__(self, idx):
        image, label = self.images[idx], np.array(self.labels[idx], np.int64)
        if self.backend == 'pil':
            from PIL import Image
            image = Image.fromarray(image)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        return (image.astype(self.dtype) if isinstance(image, np.ndarray) else image), label

    def __len__(self):
        return len(self.labels)


class Cifar100(Cifar10):
    """CIFAR-100: the same images with 100 fine labels (``fine_labels``)."""
    URL = CIFAR100_URL
    CLASSES = 100
