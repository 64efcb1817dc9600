"""Transform classes (Paddle's ``paddle.vision.transforms``), numpy based.

Random transforms draw from ``framework.random.generator()``; inside a DataLoader
that is a per-batch stream, so augmentation is repeatable under ``framework.seed``.

>>> import numpy as np
>>> from framework.vision import transforms as T
>>> img = np.zeros((32, 40, 3), dtype=np.uint8)
>>> t = T.Compose([T.RandomCrop(28, padding=2), T.RandomHorizontalFlip(),
...                T.ToTensor(), T.Normalize(mean=[0.5] * 3, std=[0.5] * 3)])
>>> out = t(img)
>>> out.shape, str(out.dtype)
([3, 28, 28], 'float32')
"""
import numbers
from collections.abc import Sequence

import numpy as np

from ... import random as _random
from . import functional as F

__all__ = ['BaseTransform', 'Compose', 'ToTensor', 'Normalize', 'Resize', 'RandomCrop',
           'CenterCrop', 'RandomHorizontalFlip', 'RandomVerticalFlip', 'Transpose', 'Pad']


class Compose:
    """Apply ``transforms`` one after another."""

    def __init__(self, transforms):
        self.transforms = list(transforms)
        for i, t in enumerate(self.transforms):
            if not callable(t):
                raise TypeError("Compose: transforms[%d] (%r) is not callable" % (i, t))

    def __call__(self, data):
        for t in self.transforms:
            data = t(data)
        return data

    def __repr__(self):
        return 'Compose(\n%s\n)' % '\n'.join('    %r' % (t,) for t in self.transforms)


class BaseTransform:
    """Base class: subclasses implement ``_apply_image`` (and ``_get_params`` for
    random choices shared by all inputs).

    ``keys`` names the fields of a tuple input, e.g. ``('image', 'mask')``: field
    ``i`` goes through ``_apply_<keys[i]>``, with the same random parameters;
    fields beyond ``keys`` pass through unchanged.
    """

    def __init__(self, keys=None):
        if keys is None:
            keys = ('image',)
        elif isinstance(keys, str) or not isinstance(keys, Sequence):
            raise ValueError("%s: keys should be a sequence of strings, got %r"
                             % (type(self).__name__, keys))
        for k in keys:
            if getattr(self, '_apply_%s' % k, None) is None:
                raise NotImplementedError("%s does not support inputs of kind %r (no _apply_%s)"
                                          % (type(self).__name__, k, k))
        self.keys = tuple(keys)
        self.params = None

    def _get_params(self, inputs):
        return None

    def __call__(self, inputs):
        if not isinstance(inputs, tuple):
            self.params = self._get_params((inputs,))
            return getattr(self, '_apply_%s' % self.keys[0])(inputs)
        self.params = self._get_params(inputs)
        outputs = [getattr(self, '_apply_%s' % k)(x) for k, x in zip(self.keys, inputs)]
        outputs.extend(inputs[len(self.keys):])
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    def _apply_image(self, image):
        raise NotImplementedError("%s must implement _apply_image" % type(self).__name__)

    def _apply_mask(self, mask):
        return self._apply_image(mask)

    def __repr__(self):
        fields = ', '.join('%s=%r' % (k, v) for k, v in vars(self).items()
                           if k not in ('keys', 'params'))
        return '%s(%s)' % (type(self).__name__, fields)


class ToTensor(BaseTransform):
    """HWC (or HW) image -> Tensor in ``data_format`` ('CHW' by default); uint8
    values in [0, 255] become float32 in [0, 1], other dtypes are kept."""

    def __init__(self, data_format='CHW', keys=None):
        super().__init__(keys)
        if data_format not in ('CHW', 'HWC'):
            raise ValueError("ToTensor: data_format should be 'CHW' or 'HWC', got %r"
                             % (data_format,))
        self.data_format = data_format

    def _apply_image(self, img):
        return F.to_tensor(img, self.data_format)


def _per_channel(value, what):
    if isinstance(value, numbers.Number):
        return [float(value)]
    try:
        return [float(v) for v in value]
    except TypeError:
        raise TypeError("Normalize: %s should be a number or a sequence of numbers, got %r"
                        % (what, value)) from None


class Normalize(BaseTransform):
    """``(img - mean) / std`` per channel. ``data_format`` says where the channel
    axis is ('CHW' or 'HWC'); ``to_rgb`` reverses the channel order first."""

    def __init__(self, mean=0.0, std=1.0, data_format='CHW', to_rgb=False, keys=None):
        super().__init__(keys)
        if data_format not in ('CHW', 'HWC'):
            raise ValueError("Normalize: data_format should be 'CHW' or 'HWC', got %r"
                             % (data_format,))
        self.mean = _per_channel(mean, 'mean')
        self.std = _per_channel(std, 'std')
        self.data_format = data_format
        self.to_rgb = to_rgb
        self._stats = F._channel_stats(self.mean, self.std, data_format)   # checks std too

    def _apply_image(self, img):
        mean, std = self._stats
        if type(img) is np.ndarray and not self.to_rgb:     # the common case, made cheap
            return (img - mean) / std
        return F.normalize(img, self.mean, self.std, self.data_format, self.to_rgb)


class Resize(BaseTransform):
    """Resize to ``size`` ((height, width), or an int for the shorter side)."""

    def __init__(self, size, interpolation='bilinear', keys=None):
        super().__init__(keys)
        F._output_size(1, 1, size, 'Resize')     # validate now, not per image
        if interpolation not in F._INTERPOLATIONS:
            raise ValueError("Resize: interpolation should be one of %s, got %r"
                             % (', '.join(F._INTERPOLATIONS), interpolation))
        self.size = size
        self.interpolation = interpolation

    def _apply_image(self, img):
        return F.resize(img, self.size, self.interpolation)


class Pad(BaseTransform):
    """Pad the borders (see ``functional.pad``)."""

    def __init__(self, padding, fill=0, padding_mode='constant', keys=None):
        super().__init__(keys)
        F._padding_amounts(padding)
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def _apply_image(self, img):
        return F.pad(img, self.padding, self.fill, self.padding_mode)


class RandomCrop(BaseTransform):
    """Crop a random ``size`` region, after optional ``padding``; with
    ``pad_if_needed`` images smaller than ``size`` are padded to fit."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0,
                 padding_mode='constant', keys=None):
        super().__init__(keys)
        self.size = F._pair(size, 'RandomCrop')
        self.padding = padding
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _get_params(self, inputs):
        # the crop corner is drawn per image in _apply_image (sizes may differ after
        # padding); keep the draws for every key of one call the same
        return {'u': _random.generator().random(2)}

    def _apply_image(self, img):
        if self.padding is not None:
            img = F.pad(img, self.padding, self.fill, self.padding_mode)
        th, tw = self.size
        h, w = F._Spatial(img, 'RandomCrop').size
        if self.pad_if_needed and w < tw:
            img = F.pad(img, (tw - w, 0), self.fill, self.padding_mode)
        if self.pad_if_needed and h < th:
            img = F.pad(img, (0, th - h), self.fill, self.padding_mode)
        h, w = F._Spatial(img, 'RandomCrop').size
        if h < th or w < tw:
            raise ValueError("RandomCrop: crop size (%d, %d) is larger than the image (%d, %d);"
                             " use padding or pad_if_needed=True" % (th, tw, h, w))
        u = self.params['u'] if self.params is not None else _random.generator().random(2)
        top = min(int(u[0] * (h - th + 1)), h - th)
        left = min(int(u[1] * (w - tw + 1)), w - tw)
        return F.crop(img, top, left, th, tw)


class CenterCrop(BaseTransform):
    """Crop the central ``size`` region."""

    def __init__(self, size, keys=None):
        super().__init__(keys)
        self.size = F._pair(size, 'CenterCrop')

    def _apply_image(self, img):
        return F.center_crop(img, self.size)


class _RandomFlip(BaseTransform):
    def __init__(self, prob=0.5, keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError("%s: prob should be in [0, 1], got %r" % (type(self).__name__, prob))
        self.prob = prob

    def _get_params(self, inputs):
        return {'flip': bool(_random.generator().random() < self.prob)}

    def _apply_image(self, img):
        return self._flip(img) if self.params['flip'] else img


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability ``prob``."""
    _flip = staticmethod(F.hflip)


class RandomVerticalFlip(_RandomFlip):
    """Mirror top-bottom with probability ``prob``."""
    _flip = staticmethod(F.vflip)


class Transpose(BaseTransform):
    """Permute the axes of an image (HWC -> CHW by default); an HW image first gets a
    channel axis. Tensors are transposed as they are."""

    def __init__(self, order=(2, 0, 1), keys=None):
        super().__init__(keys)
        self.order = tuple(order)

    def _apply_image(self, img):
        if F._is_tensor_image(img):
            return img.transpose(list(self.order))
        if F._is_pil_image(img):
            img = np.asarray(img)
        if not isinstance(img, np.ndarray):
            raise TypeError("Transpose: expected a numpy image, Tensor or PIL image, got %s"
                            % type(img).__name__)
        if img.ndim == 2:
            img = img[..., None]
        if sorted(self.order) != list(range(img.ndim)):
            raise ValueError("Transpose: order %s is not a permutation of the %d axes of an "
                             "image of shape %s" % (self.order, img.ndim, img.shape))
        return np.ascontiguousarray(img.transpose(self.order))
