"""Images in folders: ``DatasetFolder`` (one sub-folder per class) and
``ImageFolder`` (every image under a folder, no labels)."""
import os

from ... import dtype as _dtype
from ...io import Dataset
from ..image import load_image
from .backend import get_image_backend

__all__ = ['DatasetFolder', 'ImageFolder', 'IMG_EXTENSIONS', 'default_loader']

IMG_EXTENSIONS = ('.jpg', '.jpeg', '.png', '.ppm', '.bmp', '.pgm', '.tif', '.tiff', '.webp')


def has_valid_extension(filename, extensions):
    if not isinstance(extensions, (list, tuple)):
        raise TypeError("extensions should be a list or tuple of suffixes, got %r"
                        % (extensions,))
    return filename.lower().endswith(tuple(x.lower() for x in extensions))


def default_loader(path):
    """The image at ``path`` in RGB: a PIL image with the 'pil' backend, an HWC
    uint8 numpy array with 'cv2' (the default here)."""
    if get_image_backend() == 'pil':
        from PIL import Image
        with open(path, 'rb') as f:
            return Image.open(f).convert('RGB')
    return load_image(path, mode='RGB')


def _validity_check(extensions, is_valid_file):
    if extensions is not None:
        return lambda path: has_valid_extension(path, extensions)
    return is_valid_file


def _walk(folder, valid):
    for root, _, fnames in sorted(os.walk(folder, followlinks=True)):
        for fname in sorted(fnames):
            path = os.path.join(root, fname)
            if valid(path):
                yield path


def make_dataset(dir, class_to_idx, extensions, is_valid_file=None):
    """``[(path, class index)]`` of the valid files under each class folder."""
    valid = _validity_check(extensions, is_valid_file)
    dir = os.path.expanduser(dir)
    return [(path, class_to_idx[target]) for target in sorted(class_to_idx)
            if os.path.isdir(os.path.join(dir, target))
            for path in _walk(os.path.join(dir, target), valid)]


class DatasetFolder(Dataset):
    """Samples ``(loader(path), class index)`` from ``root/<class>/**/<file>``;
    classes are the sorted sub-folder names.

    Files are kept by suffix (``extensions``, default ``IMG_EXTENSIONS``) or,
    when only ``is_valid_file(path)`` is given, by that test; when both are
    given ``extensions`` decides, as in Paddle. ``loader`` defaults to
    ``default_loader`` (RGB images; PNG and baseline JPEG work without Pillow).
    """

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        self.transform = transform
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        self.classes, self.class_to_idx = self._find_classes(root)
        samples = make_dataset(root, self.class_to_idx, extensions, is_valid_file)
        if not samples:
            raise RuntimeError("DatasetFolder: found 0 files in the subfolders of %s\n"
                               "Supported extensions are: %s"
                               % (root, ','.join(extensions or ())))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.targets = [s[1] for s in samples]
        self.dtype = _dtype.get_default_dtype()

    @staticmethod
    def _find_classes(dir):
        if not os.path.isdir(dir):
            raise FileNotFoundError("DatasetFolder: root %r is not a folder" % (dir,))
        classes = sorted(d.name for d in os.scandir(dir) if d.is_dir())
        return classes, {c: i for i, c in enumerate(classes)}

    def __getitem__(self, index):
        path, target = self.samples[index]
        sample = self.loader(path)
        if self.transform is not None:
            sample = self.transform(sample)
        return sample, target

    def __len__(self):
        return len(self.samples)


class ImageFolder(Dataset):
    """Samples ``[loader(path)]`` (a one-element list, as Paddle) for every valid
    file under ``root``, in sorted order."""

    def __init__(self, root, loader=None, extensions=None, transform=None, is_valid_file=None):
        self.root = root
        if extensions is None and is_valid_file is None:
            extensions = IMG_EXTENSIONS
        folder = os.path.expanduser(root)
        if not os.path.isdir(folder):
            raise FileNotFoundError("ImageFolder: root %r is not a folder" % (root,))
        samples = list(_walk(folder, _validity_check(extensions, is_valid_file)))
        if not samples:
            raise RuntimeError("ImageFolder: found 0 files in subfolders of: %s\n"
                               "Supported extensions are: %s"
                               % (root, ','.join(extensions or ())))
        self.loader = default_loader if loader is None else loader
        self.extensions = extensions
        self.samples = samples
        self.transform = transform

    def __getitem__(self, index):
        sample = self.loader(self.samples[index])
        if self.transform is not None:
            sample = self.transform(sample)
        return [sample]

    def __len__(self):
        return len(self.samples)
