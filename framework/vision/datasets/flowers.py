"""Oxford 102 Flowers from its three files: ``102flowers.tgz`` (the JPEG
images), ``imagelabels.mat`` (one label per image) and ``setid.mat`` (the
train/valid/test image ids). As in Paddle, the image archive is extracted
next to itself (``102flowers/jpg/``) the first time; Paddle's split names are
kept ('train' reads the larger 'tstid' list, 'test' the 'trnid' one).
"""
import os
import tarfile
import threading

import numpy as np

from ... import dtype as _dtype
from ...io import Dataset
from ...utils.dataset_files import locate
from ..image import load_image
from ._matlab import load_mat
from .backend import resolve_backend

__all__ = ['Flowers']

DATA_URL = 'http://paddlemodels.bj.bcebos.com/flowers/102flowers.tgz'
LABEL_URL = 'http://paddlemodels.bj.bcebos.com/flowers/imagelabels.mat'
SETID_URL = 'http://paddlemodels.bj.bcebos.com/flowers/setid.mat'
MODE_FLAG_MAP = {'train': 'tstid', 'test': 'trnid', 'valid': 'valid'}
_EXTRACT_LOCK = threading.Lock()


class Flowers(Dataset):
    """Samples are ``(image, label)``: an HWC RGB image (float32 numpy with the
    'cv2' backend, a PIL image with 'pil') and an int64 label of shape [1].

    Args:
        data_file, label_file, setid_file (str): the three files; each that is
            None is looked up in the data folders (``framework.utils.dataset_files``).
        mode (str): 'train', 'valid' or 'test'.
        transform (callable): applied to each image.
        download (bool): kept for Paddle compatibility; nothing is downloaded.
        backend (str): 'cv2' (numpy images) or 'pil'.
    """

    def __init__(self, data_file=None, label_file=None, setid_file=None, mode='train',
                 transform=None, download=True, backend=None):
        if not isinstance(mode, str) or mode.lower() not in MODE_FLAG_MAP:
            raise ValueError("Flowers: mode should be 'train', 'valid' or 'test', got %r"
                             % (mode,))
        self.mode = mode.lower()
        self.backend = resolve_backend(backend, 'Flowers')
        self.transform = transform
        data_file = locate(data_file, DATA_URL, 'flowers', 'Flowers', 'data_file', download)
        label_file = locate(label_file, LABEL_URL, 'flowers', 'Flowers', 'label_file', download)
        setid_file = locate(setid_file, SETID_URL, 'flowers', 'Flowers', 'setid_file', download)
        self.data_file, self.label_file, self.setid_file = data_file, label_file, setid_file
        self.data_path = self._extract(data_file)
        self.labels = self._field(label_file, 'labels')
        self.indexes = self._field(setid_file, MODE_FLAG_MAP[self.mode])

    @staticmethod
    def _extract(data_file):
        root, ext = os.path.splitext(data_file)
        data_path = (root if ext in ('.tgz', '.gz', '.tar') else data_file + '_extracted') + os.sep
        with _EXTRACT_LOCK:
            if not os.path.isdir(os.path.join(data_path, 'jpg')):
                try:
                    with tarfile.open(data_file) as archive:
                        archive.extractall(data_path, filter='data')
                except (tarfile.TarError, OSError) as e:
                    raise ValueError("Flowers: cannot extract the image archive %r (%s)"
                                     % (data_file, e)) from None
        return data_path

    @staticmethod
    def _field(path, key):
        mat = load_mat(path)
        if key not in mat:
            raise ValueError("Flowers: %r has no %r array (it has %s)"
                             % (path, key, ', '.join(sorted(mat)) or 'none'))
        return np.asarray(mat[key]).reshape(-1)

    def __getitem__(self, idx):
        index = int(self.indexes[idx])
        label = np.array([self.labels[index - 1]]).astype(np.int64)
        path = os.path.join(self.data_path, 'jpg', 'image_%05d.jpg' % index)
        if self.backend == 'pil':
            from PIL import Image
            image = Image.open(path)
        else:
            image = load_image(path)
        if self.transform is not None:
            image = self.transform(image)
        if self.backend == 'pil':
            return image, label
        if isinstance(image, np.ndarray):
            image = image.astype(_dtype.get_default_dtype())
        return image, label

    def __len__(self):
        return len(self.indexes)
