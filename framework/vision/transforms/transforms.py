"""Transform classes (Paddle's ``paddle.vision.transforms``), numpy based.

Random transforms draw from ``framework.random.generator()``; inside a DataLoader
that is a per-batch stream, so augmentation is repeatable under ``framework.seed``.

>>> import numpy as np
>>> from framework.vision import transforms as T
>>> img = np.zeros((32, 40, 3), dtype=np.uint8)
>>> t = T.Compose([T.RandomCrop(28, padding=2), T.RandomHorizontalFlip(),
...                T.ToTensor(), T.Normalize(mean=[0.5] * 3, std=[0.5] * 3)])
>>> out = t(img)
>>> out.shape, out.dtype
(paddle.Size([3, 28, 28]), paddle.float32)
"""
import math
import numbers
from collections.abc import Sequence

import numpy as np

from ... import random as _random
from . import functional as F

__all__ = ['BaseTransform', 'Compose', 'ToTensor', 'Normalize', 'Resize', 'RandomCrop',
           'CenterCrop', 'RandomHorizontalFlip', 'RandomVerticalFlip', 'Transpose', 'Pad',
           'RandomResizedCrop', 'BrightnessTransform', 'ContrastTransform', 'SaturationTransform',
           'HueTransform', 'ColorJitter', 'Grayscale', 'RandomRotation', 'RandomAffine',
           'RandomPerspective', 'RandomErasing']


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


def _uniform(low, high):
    return float(_random.generator().uniform(low, high))


def _factor_range(value, name, api, center=1.0, bound=None):
    """[max(0, center - value), center + value] for a non-negative ``value``."""
    if not isinstance(value, numbers.Number) or value < 0:
        raise ValueError("%s: %s should be a non-negative number, got %r" % (api, name, value))
    if bound is not None and value > bound:
        raise ValueError("%s: %s should be in [0, %s], got %r" % (api, name, bound, value))
    return max(0.0, center - value), center + value


class _ColorTransform(BaseTransform):
    """Apply ``_adjust(img, factor)`` with a factor drawn uniformly from the range
    ``value`` spans around 1 (0 for hue); value 0 leaves images unchanged."""
    _center = 1.0
    _bound = None

    def __init__(self, value, keys=None):
        super().__init__(keys)
        self.value = value
        self._range = _factor_range(value, 'value', type(self).__name__, self._center,
                                    self._bound)
        if self._center == 0.0:
            self._range = (-value, value)

    def _get_params(self, inputs):
        return {'factor': _uniform(*self._range)}

    def _apply_image(self, img):
        if self.value == 0:
            return img
        factor = self.params['factor'] if self.params else _uniform(*self._range)
        return type(self)._adjust(img, factor)


class BrightnessTransform(_ColorTransform):
    """Random brightness: factor in [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(F.adjust_brightness)


class ContrastTransform(_ColorTransform):
    """Random contrast: factor in [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(F.adjust_contrast)


class SaturationTransform(_ColorTransform):
    """Random saturation: factor in [max(0, 1 - value), 1 + value]."""
    _adjust = staticmethod(F.adjust_saturation)


class HueTransform(_ColorTransform):
    """Random hue rotation: factor in [-value, value], value in [0, 0.5]."""
    _adjust = staticmethod(F.adjust_hue)
    _center = 0.0
    _bound = 0.5


class ColorJitter(BaseTransform):
    """Random brightness, contrast, saturation and hue changes, applied in a
    random order (each skipped when its value is 0)."""

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0, keys=None):
        super().__init__(keys)
        self.brightness, self.contrast = brightness, contrast
        self.saturation, self.hue = saturation, hue
        self._parts = [BrightnessTransform(brightness, keys), ContrastTransform(contrast, keys),
                       SaturationTransform(saturation, keys), HueTransform(hue, keys)]

    def _apply_image(self, img):
        order = _random.generator().permutation(len(self._parts))
        for k in order:
            img = self._parts[k](img)
        return img


class Grayscale(BaseTransform):
    """Convert to grey with ``num_output_channels`` (1 or 3) channels."""

    def __init__(self, num_output_channels=1, keys=None):
        super().__init__(keys)
        if num_output_channels not in (1, 3):
            raise ValueError("Grayscale: num_output_channels should be 1 or 3, got %r"
                             % (num_output_channels,))
        self.num_output_channels = num_output_channels

    def _apply_image(self, img):
        return F.to_grayscale(img, self.num_output_channels)


class RandomResizedCrop(BaseTransform):
    """Crop a random region (area fraction in ``scale``, aspect ratio in ``ratio``,
    log-uniform) and resize it to ``size``; after 10 failed draws, a central crop
    clamped to the ratio range (Paddle's and torchvision's rule)."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4, 4. / 3), interpolation='bilinear',
                 keys=None):
        super().__init__(keys)
        self.size = F._pair(size, 'RandomResizedCrop')
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            raise ValueError("RandomResizedCrop: scale and ratio should be (min, max), got %r "
                             "and %r" % (scale, ratio))
        self.scale, self.ratio, self.interpolation = scale, ratio, interpolation

    def _crop_box(self, height, width, attempts=10):
        gen = _random.generator()
        area = height * width
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(attempts):
            target = gen.uniform(*self.scale) * area
            aspect = math.exp(gen.uniform(*log_ratio))
            w = int(round(math.sqrt(target * aspect)))
            h = int(round(math.sqrt(target / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return int(gen.integers(0, height - h + 1)), int(gen.integers(0, width - w + 1)), h, w
        in_ratio = width / height
        if in_ratio < min(self.ratio):
            w, h = width, int(round(width / min(self.ratio)))
        elif in_ratio > max(self.ratio):
            w, h = int(round(height * max(self.ratio))), height
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _get_params(self, inputs):
        height, width = F._Spatial(inputs[0], 'RandomResizedCrop').size
        return {'box': self._crop_box(height, width)}

    def _apply_image(self, img):
        box = self.params['box'] if self.params else self._crop_box(
            *F._Spatial(img, 'RandomResizedCrop').size)
        return F.resize(F.crop(img, *box), self.size, self.interpolation)


def _degree_range(degrees, api):
    if isinstance(degrees, numbers.Number):
        if degrees < 0:
            raise ValueError("%s: degrees should be non-negative when a single number, got %r"
                             % (api, degrees))
        return (-float(degrees), float(degrees))
    if len(degrees) != 2:
        raise ValueError("%s: degrees should be a number or a (min, max) pair, got %r"
                         % (api, degrees))
    return (float(degrees[0]), float(degrees[1]))


class RandomRotation(BaseTransform):
    """Rotate by an angle drawn uniformly from ``degrees`` ((-d, d) for a number)."""

    def __init__(self, degrees, interpolation='nearest', expand=False, center=None, fill=0,
                 keys=None):
        super().__init__(keys)
        self.degrees = _degree_range(degrees, 'RandomRotation')
        self.interpolation, self.expand, self.center, self.fill = interpolation, expand, center, fill

    def _get_params(self, inputs):
        return {'angle': _uniform(*self.degrees)}

    def _apply_image(self, img):
        angle = self.params['angle'] if self.params else _uniform(*self.degrees)
        return F.rotate(img, angle, self.interpolation, self.expand, self.center, self.fill)


class RandomAffine(BaseTransform):
    """Random rotation (``degrees``), translation (fractions of the size),
    scale and shear, composed as ``functional.affine`` does."""

    def __init__(self, degrees, translate=None, scale=None, shear=None, interpolation='nearest',
                 fill=0, center=None, keys=None):
        super().__init__(keys)
        self.degrees = _degree_range(degrees, 'RandomAffine')
        if translate is not None and not all(0 <= t <= 1 for t in translate):
            raise ValueError("RandomAffine: translate values should be in [0, 1], got %r"
                             % (translate,))
        if scale is not None and (len(scale) != 2 or min(scale) <= 0):
            raise ValueError("RandomAffine: scale should be a positive (min, max), got %r"
                             % (scale,))
        if shear is not None:
            shear = ([-shear, shear] if isinstance(shear, numbers.Number) else list(shear))
            if len(shear) not in (2, 4):
                raise ValueError("RandomAffine: shear should be a number or 2 or 4 numbers, "
                                 "got %r" % (shear,))
        self.translate, self.scale, self.shear = translate, scale, shear
        self.interpolation, self.fill, self.center = interpolation, fill, center

    def _draw(self, height, width):
        angle = _uniform(*self.degrees)
        tx = ty = 0
        if self.translate is not None:
            tx = int(round(_uniform(-self.translate[0] * width, self.translate[0] * width)))
            ty = int(round(_uniform(-self.translate[1] * height, self.translate[1] * height)))
        scale = _uniform(*self.scale) if self.scale is not None else 1.0
        shear = [0.0, 0.0]
        if self.shear is not None:
            shear[0] = _uniform(self.shear[0], self.shear[1])
            if len(self.shear) == 4:
                shear[1] = _uniform(self.shear[2], self.shear[3])
        return angle, (tx, ty), scale, shear

    def _get_params(self, inputs):
        return {'affine': self._draw(*F._Spatial(inputs[0], 'RandomAffine').size)}

    def _apply_image(self, img):
        params = self.params['affine'] if self.params else self._draw(
            *F._Spatial(img, 'RandomAffine').size)
        return F.affine(img, *params, interpolation=self.interpolation, fill=self.fill,
                        center=self.center)


class RandomPerspective(BaseTransform):
    """With probability ``prob``, move each corner inwards by up to
    ``distortion_scale`` of half the size and warp accordingly."""

    def __init__(self, prob=0.5, distortion_scale=0.5, interpolation='nearest', fill=0,
                 keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1 or not 0 <= distortion_scale <= 1:
            raise ValueError("RandomPerspective: prob and distortion_scale should be in [0, 1], "
                             "got %r and %r" % (prob, distortion_scale))
        self.prob, self.distortion_scale = prob, distortion_scale
        self.interpolation, self.fill = interpolation, fill

    def _points(self, height, width):
        gen = _random.generator()
        dw, dh = int(self.distortion_scale * width / 2), int(self.distortion_scale * height / 2)

        def r(n):
            return int(gen.integers(0, n + 1))
        start = [[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]]
        end = [[r(dw), r(dh)], [width - 1 - r(dw), r(dh)],
               [width - 1 - r(dw), height - 1 - r(dh)], [r(dw), height - 1 - r(dh)]]
        return start, end

    def _get_params(self, inputs):
        if _random.generator().random() >= self.prob:
            return {'points': None}
        return {'points': self._points(*F._Spatial(inputs[0], 'RandomPerspective').size)}

    def _apply_image(self, img):
        points = self.params['points'] if self.params else None
        if points is None:
            return img
        return F.perspective(img, *points, interpolation=self.interpolation, fill=self.fill)


class RandomErasing(BaseTransform):
    """With probability ``prob``, erase a random rectangle (area fraction in
    ``scale``, aspect ratio in ``ratio``) with ``value``: a number, per-channel
    values, or 'random' (standard normal noise). Works on CHW Tensors and HWC
    numpy images."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 keys=None):
        super().__init__(keys)
        if not 0 <= prob <= 1:
            raise ValueError("RandomErasing: prob should be in [0, 1], got %r" % (prob,))
        if scale[0] > scale[1] or ratio[0] > ratio[1] or scale[0] < 0 or scale[1] > 1:
            raise ValueError("RandomErasing: scale should be a (min, max) in [0, 1] and ratio a "
                             "(min, max), got %r and %r" % (scale, ratio))
        if isinstance(value, str) and value != 'random':
            raise ValueError("RandomErasing: value should be a number, a sequence or 'random', "
                             "got %r" % (value,))
        self.prob, self.scale, self.ratio, self.value, self.inplace = (prob, scale, ratio, value,
                                                                       inplace)

    def _box(self, img):
        gen = _random.generator()
        tensor = F._is_tensor_image(img)
        arr = img.data if tensor else np.asarray(img)
        h, w = (arr.shape[-2:] if tensor else arr.shape[:2])
        channels = (arr.shape[-3] if tensor else (arr.shape[2] if arr.ndim == 3 else 1))
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(10):
            area = gen.uniform(*self.scale) * h * w
            aspect = math.exp(gen.uniform(*log_ratio))
            eh, ew = int(round(math.sqrt(area * aspect))), int(round(math.sqrt(area / aspect)))
            if eh < h and ew < w:
                top, left = int(gen.integers(0, h - eh + 1)), int(gen.integers(0, w - ew + 1))
                if self.value == 'random':
                    shape = (channels, eh, ew) if tensor else (eh, ew, channels)
                    v = gen.standard_normal(shape).astype(arr.dtype)
                else:
                    v = np.asarray(self.value, arr.dtype)
                    if v.ndim:
                        v = v.reshape((-1, 1, 1) if tensor else (1, 1, -1))
                return top, left, eh, ew, v
        return None

    def _apply_image(self, img):
        if _random.generator().random() >= self.prob:
            return img
        box = self._box(img)
        return img if box is None else F.erase(img, *box, inplace=self.inplace)
