"""PASCAL VOC 2012 semantic segmentation from ``VOCtrainval_11-May-2012.tar``.

Members are read from the (uncompressed) tar archive on demand. As in Paddle,
'train' reads the 'trainval' list, 'test' the 'train' list and 'valid' the
'val' list of ``ImageSets/Segmentation``. Samples are ``(image, label)``: the
JPEG image (HWC RGB) and the PNG class map (HW palette indices), both float32
numpy arrays with the 'cv2' backend, PIL images with 'pil'.
"""
import io
import tarfile
import threading

import numpy as np

from ... import dtype as _dtype
from ...io import Dataset
from ...utils.dataset_files import locate
from ..image import decode_image
from .backend import resolve_backend

__all__ = ['VOC2012']

VOC_URL = 'https://dataset.bj.bcebos.com/voc/VOCtrainval_11-May-2012.tar'
SET_FILE = 'VOCdevkit/VOC2012/ImageSets/Segmentation/{}.txt'
DATA_FILE = 'VOCdevkit/VOC2012/JPEGImages/{}.jpg'
LABEL_FILE = 'VOCdevkit/VOC2012/SegmentationClass/{}.png'
MODE_FLAG_MAP = {'train': 'trainval', 'test': 'train', 'valid': 'val'}


class VOC2012(Dataset):
    """Args: ``data_file`` (the tar archive; None looks it up in the data
    folders), ``mode`` ('train', 'valid' or 'test'), ``transform`` (applied to
    the image), ``download`` (kept for Paddle compatibility; nothing is
    downloaded), ``backend`` ('cv2' or 'pil')."""

    def __init__(self, data_file=None, mode='train', transform=None, download=True,
                 backend=None):
        if not isinstance(mode, str) or mode.lower() not in MODE_FLAG_MAP:
            raise ValueError("VOC2012: mode should be 'train', 'valid' or 'test', got %r"
                             % (mode,))
        self.backend = resolve_backend(backend, 'VOC2012')
        self.flag = MODE_FLAG_MAP[mode.lower()]
        self.data_file = locate(data_file, VOC_URL, 'voc2012', 'VOC2012', download=download)
        self.transform = transform
        self.dtype = _dtype.get_default_dtype()
        self._lock = threading.Lock()     # one tar handle, read by DataLoader threads
        self._load_anno()

    def _load_anno(self):
        try:
            self.data_tar = tarfile.open(self.data_file)
        except (tarfile.TarError, OSError) as e:
            raise ValueError("VOC2012: %r is not a tar archive (%s)" % (self.data_file, e)) \
                from None
        self.name2mem = {m.name: m for m in self.data_tar.getmembers()}
        set_file = SET_FILE.format(self.flag)
        if set_file not in self.name2mem:
            raise ValueError("VOC2012: %r has no %s" % (self.data_file, set_file))
        names = self.data_tar.extractfile(self.name2mem[set_file]).read().decode('utf-8').split()
        self.data = [DATA_FILE.format(n) for n in names]
        self.labels = [LABEL_FILE.format(n) for n in names]

    def _read(self, member):
        if member not in self.name2mem:
            raise ValueError("VOC2012: %r has no member %s" % (self.data_file, member))
        with self._lock:
            return self.data_tar.extractfile(self.name2mem[member]).read()

    def __getitem__(self, idx):
        data, label = self._read(self.data[idx]), self._read(self.labels[idx])
        if self.backend == 'pil':
            from PIL import Image
            data, label = Image.open(io.BytesIO(data)), Image.open(io.BytesIO(label))
        else:
            data = decode_image(data, what=self.data[idx])
            label = decode_image(label, what=self.labels[idx])
        if self.transform is not None:
            data = self.transform(data)
        if self.backend == 'cv2':
            return np.asarray(data).astype(self.dtype), label.astype(self.dtype)
        return data, label

    def __len__(self):
        return len(self.data)

    def __del__(self):
        tar = getattr(self, 'data_tar', None)
        if tar is not None:
            tar.close()
