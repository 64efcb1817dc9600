"""Image operations behind ``framework.vision.transforms`` (numpy only).

Images are numpy arrays in HWC or HW layout (what OpenCV and ``np.asarray`` of a
PIL image give), framework Tensors in CHW (or NCHW) layout, or PIL images when
Pillow is installed (converted to numpy and back). Geometric operations keep the
input's type and dtype.

Resize follows OpenCV's conventions (pixel centres at ``i + 0.5``, edge pixels
replicated, bicubic with a = -0.75); integer images are computed in float and
rounded, so they may differ from OpenCV's fixed-point results by 1.

>>> import numpy as np
>>> img = np.arange(16, dtype=np.uint8).reshape(4, 4)
>>> resize(img, (2, 2), 'nearest').tolist()
[[0, 2], [8, 10]]
"""
import numbers
from collections.abc import Sequence

import numpy as np

from ...dygraph import Tensor

__all__ = ['to_tensor', 'normalize', 'resize', 'pad', 'crop', 'center_crop', 'hflip', 'vflip']


def _pil_image_module():
    try:
        from PIL import Image
    except ImportError:
        return None
    return Image


def _is_pil_image(img):
    Image = _pil_image_module() if type(img).__module__.startswith('PIL') else None
    return Image is not None and isinstance(img, Image.Image)


def _is_numpy_image(img):
    return isinstance(img, np.ndarray) and img.ndim in (2, 3)


def _is_tensor_image(img):
    return isinstance(img, Tensor)


class _Spatial:
    """An image as an array plus where its height and width axes are, and how to
    turn a result back into the input's type."""

    def __init__(self, img, api):
        if _is_tensor_image(img):
            if img.ndim not in (3, 4):
                raise ValueError("%s: a Tensor image must be CHW or NCHW, got shape %s"
                                 % (api, img.shape))
            self.kind, self.array, self.h_axis = 'tensor', img.data, img.ndim - 2
        elif _is_pil_image(img):
            self.kind, self.array, self.h_axis = 'pil', np.asarray(img), 0
        elif _is_numpy_image(img):
            self.kind, self.array, self.h_axis = 'numpy', img, 0
        else:
            raise TypeError("%s: expected a numpy image (HW or HWC), a CHW Tensor or a PIL image, "
                            "got %s%s" % (api, type(img).__name__,
                                          ' of shape %s' % (img.shape,)
                                          if isinstance(img, np.ndarray) else ''))
        self.w_axis = self.h_axis + 1

    @property
    def size(self):
        return self.array.shape[self.h_axis], self.array.shape[self.w_axis]

    def wrap(self, arr):
        if self.kind == 'tensor':
            return Tensor(arr)
        if self.kind == 'pil':
            return _pil_image_module().fromarray(arr)
        return arr


# --------------------------------------------------------------------------- ToTensor
def to_tensor(pic, data_format='CHW'):
    """HWC (or HW) image -> float Tensor in ``data_format``; uint8 is scaled to [0, 1]."""
    if data_format not in ('CHW', 'HWC'):
        raise ValueError("to_tensor: data_format should be 'CHW' or 'HWC', got %r" % (data_format,))
    if _is_pil_image(pic):
        pic = np.asarray(pic)
    if not _is_numpy_image(pic):
        raise TypeError("to_tensor: pic should be a PIL image or a numpy array of 2 or 3 "
                        "dimensions (HW / HWC), got %s" % (
                            'shape %s' % (pic.shape,) if isinstance(pic, np.ndarray)
                            else type(pic).__name__))
    arr = pic[:, :, None] if pic.ndim == 2 else pic
    if data_format == 'CHW':
        arr = arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        arr = arr.astype(np.float32) / np.float32(255)
    return Tensor(np.ascontiguousarray(arr))


# --------------------------------------------------------------------------- Normalize
def normalize(img, mean, std, data_format='CHW', to_rgb=False):
    """``(img - mean) / std`` per channel; a Tensor stays a Tensor, PIL becomes numpy."""
    if data_format not in ('CHW', 'HWC'):
        raise ValueError("normalize: data_format should be 'CHW' or 'HWC', got %r"
                         % (data_format,))
    is_tensor = _is_tensor_image(img)
    arr = img.data if is_tensor else np.asarray(img, dtype=np.float32) \
        if _is_pil_image(img) else img
    if not isinstance(arr, np.ndarray):
        raise TypeError("normalize: expected a numpy array, Tensor or PIL image, got %s"
                        % type(img).__name__)
    mean, std = _channel_stats(mean, std, data_format)
    if to_rgb:   # BGR <-> RGB: reverse the channel axis
        arr = np.flip(arr, axis=-3 if data_format == 'CHW' else -1)
    out = (arr - mean) / std
    return Tensor(out) if is_tensor else out


def _channel_stats(mean, std, data_format):
    """mean and std as float32 arrays shaped to broadcast over the channel axis."""
    channel_shape = (-1, 1, 1) if data_format == 'CHW' else (1, 1, -1)
    mean = np.asarray(mean, dtype=np.float64).reshape(channel_shape).astype(np.float32)
    std = np.asarray(std, dtype=np.float64).reshape(channel_shape).astype(np.float32)
    if np.any(std == 0):
        raise ValueError("normalize: std contains 0, got %s" % std.reshape(-1).tolist())
    return mean, std


# --------------------------------------------------------------------------- Resize
def _cubic_weights(t, a=-0.75):
    """Keys' cubic convolution weights for taps at offsets -1, 0, 1, 2 from floor(x)."""
    def near(x):   # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):    # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.stack([far(1 + t), near(t), near(1 - t), far(2 - t)], axis=1)


def _taps(n_in, n_out, interpolation):
    """(indices [n_out, k], weights [n_out, k]) sampling an axis of n_in at n_out points."""
    scale = n_in / n_out
    dst = np.arange(n_out, dtype=np.float64)
    if interpolation == 'nearest':
        idx = np.minimum(np.floor(dst * scale).astype(np.int64), n_in - 1)
        return idx[:, None], np.ones((n_out, 1))
    src = (dst + 0.5) * scale - 0.5
    if interpolation == 'bilinear':
        src = np.clip(src, 0, n_in - 1)
        i0 = np.floor(src).astype(np.int64)
        frac = src - i0
        idx = np.stack([i0, np.minimum(i0 + 1, n_in - 1)], axis=1)
        return idx, np.stack([1 - frac, frac], axis=1)
    i0 = np.floor(src).astype(np.int64)
    idx = np.clip(i0[:, None] + np.arange(-1, 3), 0, n_in - 1)
    return idx, _cubic_weights(src - i0)


def _resample_axis(arr, axis, n_out, interpolation):
    n_in = arr.shape[axis]
    if n_in == n_out:
        return arr
    idx, w = _taps(n_in, n_out, interpolation)
    shape = [1] * arr.ndim
    shape[axis] = n_out
    out = None
    for k in range(idx.shape[1]):
        term = np.take(arr, idx[:, k], axis=axis)
        if interpolation != 'nearest':
            term = term * w[:, k].astype(arr.dtype).reshape(shape)
        out = term if out is None else out + term
    return out


_INTERPOLATIONS = ('nearest', 'bilinear', 'bicubic')


def _output_size(h, w, size, api):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = int(size)
        if size <= 0:
            raise ValueError("%s: size should be positive, got %d" % (api, size))
        if (w <= h and w == size) or (h <= w and h == size):
            return h, w
        if w < h:
            return int(size * h / w), size
        return size, int(size * w / h)
    if isinstance(size, Sequence) and len(size) == 2 and all(
            isinstance(s, numbers.Integral) and s > 0 for s in size):
        return int(size[0]), int(size[1])
    raise TypeError("%s: size should be a positive int or a (height, width) pair, got %r"
                    % (api, size))


def resize(img, size, interpolation='bilinear'):
    """Resize to ``size``: (height, width), or an int for the shorter side (the
    longer side keeps the aspect ratio). ``interpolation``: 'nearest', 'bilinear'
    or 'bicubic'."""
    if interpolation not in _INTERPOLATIONS:
        raise ValueError("resize: interpolation should be one of %s, got %r"
                         % (', '.join(_INTERPOLATIONS), interpolation))
    sp = _Spatial(img, 'resize')
    h, w = sp.size
    oh, ow = _output_size(h, w, size, 'resize')
    if (oh, ow) == (h, w):
        return img
    arr = sp.array
    integer = arr.dtype.kind in 'iub'
    work = arr.astype(np.float32) if integer or arr.dtype == np.float16 else arr
    if interpolation == 'nearest':
        work = arr
    out = _resample_axis(work, sp.h_axis, oh, interpolation)
    out = _resample_axis(out, sp.w_axis, ow, interpolation)
    if out.dtype != arr.dtype:
        if integer:
            info = np.iinfo(arr.dtype) if arr.dtype.kind != 'b' else None
            out = np.rint(out)
            if info is not None:
                out = np.clip(out, info.min, info.max)
        out = out.astype(arr.dtype)
    return sp.wrap(np.ascontiguousarray(out))


# --------------------------------------------------------------------------- geometry
def _padding_amounts(padding):
    """(left, top, right, bottom) from an int, a (lr, tb) pair or a 4-tuple."""
    if isinstance(padding, numbers.Integral):
        return (int(padding),) * 4
    if isinstance(padding, Sequence) and len(padding) == 2:
        return int(padding[0]), int(padding[1]), int(padding[0]), int(padding[1])
    if isinstance(padding, Sequence) and len(padding) == 4:
        return tuple(int(p) for p in padding)
    raise ValueError("pad: padding must be an int or a sequence of 2 or 4 ints, got %r"
                     % (padding,))


_PAD_MODES = {'constant': 'constant', 'edge': 'edge', 'reflect': 'reflect',
              'symmetric': 'symmetric'}


def pad(img, padding, fill=0, padding_mode='constant'):
    """Pad the borders: ``padding`` is an int (all sides), (left/right, top/bottom) or
    (left, top, right, bottom); ``padding_mode`` is constant (with ``fill``), edge,
    reflect or symmetric."""
    if padding_mode not in _PAD_MODES:
        raise ValueError("pad: padding_mode should be one of %s, got %r"
                         % (', '.join(_PAD_MODES), padding_mode))
    left, top, right, bottom = _padding_amounts(padding)
    if min(left, top, right, bottom) < 0:
        raise ValueError("pad: padding must be non-negative, got %r" % (padding,))
    sp = _Spatial(img, 'pad')
    arr = sp.array
    widths = [(0, 0)] * arr.ndim
    widths[sp.h_axis] = (top, bottom)
    widths[sp.w_axis] = (left, right)
    if padding_mode != 'constant':
        return sp.wrap(np.pad(arr, widths, mode=_PAD_MODES[padding_mode]))
    # constant mode by hand: np.pad's generality costs more than the copy itself
    fill_arr = np.asarray(fill, dtype=arr.dtype)
    if fill_arr.ndim and arr.ndim != 2:
        shape = [1] * arr.ndim
        shape[2 if sp.kind != 'tensor' else sp.h_axis - 1] = -1     # the channel axis
        fill_arr = fill_arr.reshape(shape)
    else:
        fill_arr = fill_arr.reshape(-1)[0]
    out = np.empty([s + a + b for s, (a, b) in zip(arr.shape, widths)], dtype=arr.dtype)
    out[...] = fill_arr
    out[tuple(slice(a, a + s) for s, (a, _) in zip(arr.shape, widths))] = arr
    return sp.wrap(out)


def crop(img, top, left, height, width):
    """The ``height`` x ``width`` region whose top-left corner is (top, left)."""
    sp = _Spatial(img, 'crop')
    h, w = sp.size
    if top < 0 or left < 0 or top + height > h or left + width > w or height <= 0 or width <= 0:
        raise ValueError("crop: box (top=%d, left=%d, height=%d, width=%d) is not inside the "
                         "%dx%d image" % (top, left, height, width, h, w))
    index = [slice(None)] * sp.array.ndim
    index[sp.h_axis] = slice(top, top + height)
    index[sp.w_axis] = slice(left, left + width)
    return sp.wrap(np.ascontiguousarray(sp.array[tuple(index)]))


def _pair(size, api):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    if isinstance(size, Sequence) and len(size) == 2:
        return int(size[0]), int(size[1])
    raise TypeError("%s: size should be an int or a (height, width) pair, got %r" % (api, size))


def center_crop(img, output_size):
    """The central ``output_size`` (int or (height, width)) region."""
    th, tw = _pair(output_size, 'center_crop')
    h, w = _Spatial(img, 'center_crop').size
    if th > h or tw > w:
        raise ValueError("center_crop: crop size (%d, %d) is larger than the image (%d, %d)"
                         % (th, tw, h, w))
    return crop(img, int(round((h - th) / 2.0)), int(round((w - tw) / 2.0)), th, tw)


def hflip(img):
    """Mirror left-right."""
    sp = _Spatial(img, 'hflip')
    return sp.wrap(np.ascontiguousarray(np.flip(sp.array, axis=sp.w_axis)))


def vflip(img):
    """Mirror top-bottom."""
    sp = _Spatial(img, 'vflip')
    return sp.wrap(np.ascontiguousarray(np.flip(sp.array, axis=sp.h_axis)))
