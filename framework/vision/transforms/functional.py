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
import math
import numbers
from collections.abc import Sequence

import numpy as np

from ...dygraph import Tensor

__all__ = ['to_tensor', 'normalize', 'resize', 'pad', 'crop', 'center_crop', 'hflip', 'vflip',
           'adjust_brightness', 'adjust_contrast', 'adjust_saturation', 'adjust_hue',
           'to_grayscale', 'erase', 'affine', 'rotate', 'perspective']


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


# --------------------------------------------------------------------------- colour
# numpy images follow Paddle's OpenCV backend (look-up tables on uint8, BT.601 grey);
# Tensors (CHW, float in [0, 1] or integer in [0, 255]) go through the same math
def _hwc(img, api):
    """(HWC or HW numpy array, function turning a result back into img's type)."""
    if _is_tensor_image(img):
        if img.ndim != 3:
            raise ValueError("%s: a Tensor image must be CHW, got shape %s" % (api, img.shape))
        return img.data.transpose(1, 2, 0), lambda a: Tensor(np.ascontiguousarray(
            a.transpose(2, 0, 1) if a.ndim == 3 else a[None]))
    if _is_pil_image(img):
        Image = _pil_image_module()
        return np.asarray(img), lambda a: Image.fromarray(a[..., 0] if a.ndim == 3 and
                                                           a.shape[2] == 1 else a)
    if _is_numpy_image(img):
        return img, lambda a: a
    raise TypeError("%s: expected a numpy image (HW or HWC), a CHW Tensor or a PIL image, "
                    "got %s" % (api, type(img).__name__))


def _max_value(arr):
    return 255.0 if arr.dtype.kind in 'iub' else 1.0


def _lookup(arr, fn):
    """Apply ``fn`` to pixel values: a 256-entry table truncated to uint8 (what
    ``cv2.LUT`` does in Paddle) for uint8 images, else clipped float math."""
    if arr.dtype == np.uint8:
        table = np.clip(fn(np.arange(256, dtype=np.float64)), 0, 255).astype(np.uint8)
        return table[arr]
    return np.clip(fn(arr.astype(np.float64)), 0, _max_value(arr)).astype(arr.dtype)


def adjust_brightness(img, brightness_factor):
    """Scale pixel values by ``brightness_factor`` (0 gives black, 1 the image)."""
    arr, wrap = _hwc(img, 'adjust_brightness')
    if brightness_factor < 0:
        raise ValueError("adjust_brightness: brightness_factor should be non-negative, got %r"
                         % (brightness_factor,))
    return wrap(_lookup(arr, lambda v: v * brightness_factor))


def adjust_contrast(img, contrast_factor):
    """Stretch values away from (``contrast_factor`` > 1) or towards (< 1) a grey
    level: 74 for uint8 images, as Paddle's OpenCV backend uses, else the mean
    grey of the image."""
    arr, wrap = _hwc(img, 'adjust_contrast')
    if contrast_factor < 0:
        raise ValueError("adjust_contrast: contrast_factor should be non-negative, got %r"
                         % (contrast_factor,))
    centre = 74.0 if arr.dtype == np.uint8 else float(_grey(arr.astype(np.float64)).mean())
    return wrap(_lookup(arr, lambda v: (v - centre) * contrast_factor + centre))


def _grey(arr, weights=(0.299, 0.587, 0.114)):
    """BT.601 luma of an RGB(A) HWC array (grey images are returned as they are)."""
    if arr.ndim == 2 or arr.shape[2] == 1:
        return arr.reshape(arr.shape[:2])
    w = np.asarray(weights)
    return arr[..., 0] * w[0] + arr[..., 1] * w[1] + arr[..., 2] * w[2]


def adjust_saturation(img, saturation_factor):
    """Blend with the grey image: 0 gives grey, 1 the image, 2 doubles saturation."""
    arr, wrap = _hwc(img, 'adjust_saturation')
    if saturation_factor < 0:
        raise ValueError("adjust_saturation: saturation_factor should be non-negative, got %r"
                         % (saturation_factor,))
    if arr.ndim == 2 or arr.shape[2] == 1:
        return wrap(arr)
    f = arr.astype(np.float64)
    grey = _grey(f)[..., None]
    out = f * saturation_factor + grey * (1 - saturation_factor)
    if arr.dtype.kind in 'iub':
        out = np.rint(out)
    return wrap(np.clip(out, 0, _max_value(arr)).astype(arr.dtype))


def adjust_hue(img, hue_factor):
    """Rotate hues by ``hue_factor`` of a turn (in [-0.5, 0.5]) in HSV space."""
    if not -0.5 <= hue_factor <= 0.5:
        raise ValueError("adjust_hue: hue_factor:%r is not in [-0.5, 0.5]" % (hue_factor,))
    arr, wrap = _hwc(img, 'adjust_hue')
    if arr.ndim == 2 or arr.shape[2] == 1:
        return wrap(arr)
    scale = _max_value(arr)
    # Paddle's OpenCV backend reads the RGB image as BGR and turns hue in 1/256 steps
    bgr = arr[..., 2::-1].astype(np.float64) / scale
    h, s, v = _rgb_to_hsv(bgr)
    if arr.dtype == np.uint8:      # HSV_FULL quantises hue to 256 and saturation to 255 steps
        h = (np.floor(h * 256 + 0.5) % 256 + int(hue_factor * 255)) % 256 / 256
        s = np.floor(s * 255 + 0.5) / 255
    else:
        h = (h + hue_factor) % 1.0
    out = _hsv_to_rgb(h, s, v)[..., ::-1] * scale
    if arr.dtype.kind in 'iub':
        out = np.rint(out)
    out = np.clip(out, 0, scale).astype(arr.dtype)
    if arr.shape[2] > 3:
        out = np.concatenate([out, arr[..., 3:]], axis=2)
    return wrap(out)


def _rgb_to_hsv(rgb):
    maxc, minc = rgb.max(axis=2), rgb.min(axis=2)
    v, delta = maxc, maxc - minc
    s = np.where(maxc > 0, delta / np.where(maxc > 0, maxc, 1), 0)
    d = np.where(delta > 0, delta, 1)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    h = np.where(maxc == r, (g - b) / d, np.where(maxc == g, 2 + (b - r) / d, 4 + (r - g) / d))
    h = np.where(delta > 0, (h / 6.0) % 1.0, 0)
    return h, s, v


def _hsv_to_rgb(h, s, v):
    i = np.floor(h * 6).astype(np.int64) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = np.zeros(h.shape + (3,))
    for k, channels in enumerate(choices):
        mask = i == k
        for c in range(3):
            out[..., c] = np.where(mask, channels[c], out[..., c])
    return out


def to_grayscale(img, num_output_channels=1):
    """BT.601 grey (0.299 R + 0.587 G + 0.114 B, rounded for integer images) with
    1 or 3 identical channels."""
    if num_output_channels not in (1, 3):
        raise ValueError("to_grayscale: num_output_channels should be 1 or 3, got %r"
                         % (num_output_channels,))
    arr, wrap = _hwc(img, 'to_grayscale')
    grey = _grey(arr.astype(np.float64))
    if arr.dtype.kind in 'iub':
        grey = np.rint(grey)
    grey = grey.astype(arr.dtype)[..., None]
    return wrap(np.ascontiguousarray(np.repeat(grey, num_output_channels, axis=2)))


def erase(img, i, j, h, w, v, inplace=False):
    """Set the ``h`` x ``w`` region at row ``i``, column ``j`` to ``v`` (a value,
    or an array broadcasting to the region: HWC for numpy, CHW for Tensors)."""
    if _is_tensor_image(img):
        out = img if inplace else img.clone()
        value = v.data if isinstance(v, Tensor) else np.asarray(v)
        data = out.data if inplace else out.data.copy()
        data[..., i:i + h, j:j + w] = value
        if inplace:
            img.set_value(data)
            return img
        return Tensor(data)
    arr, wrap = _hwc(img, 'erase')
    out = arr if inplace and isinstance(img, np.ndarray) else arr.copy()
    out[i:i + h, j:j + w, ...] = v.data if isinstance(v, Tensor) else v
    return wrap(out)


# --------------------------------------------------------------------------- warps
def _rotation_matrix(center, angle, scale):
    """OpenCV's getRotationMatrix2D: counter-clockwise ``angle`` degrees about
    ``center`` with isotropic ``scale``, as a 2x3 matrix mapping input to output."""
    a = math.radians(angle)
    alpha, beta = scale * math.cos(a), scale * math.sin(a)
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]])


def _warp(img, matrix, size, interpolation, fill, api):
    """Resample ``img`` so that output pixel p shows input point ``inverse(M) p``
    (``matrix`` 2x3 affine or 3x3 projective, mapping input to output, as
    OpenCV's warpAffine / warpPerspective); outside points get ``fill``."""
    if interpolation not in ('nearest', 'bilinear'):
        raise ValueError("%s: interpolation should be 'nearest' or 'bilinear', got %r"
                         % (api, interpolation))
    arr, wrap = _hwc(img, api)
    m = np.eye(3)
    m[:matrix.shape[0]] = matrix
    inv = np.linalg.inv(m)
    w, h = size
    grey = arr.ndim == 2
    src = arr[..., None] if grey else arr
    fill_px = np.broadcast_to(np.asarray(fill, np.float64).reshape(-1)[:src.shape[2]]
                              if np.ndim(fill) else np.float64(fill), (src.shape[2],))
    sub = 1 if interpolation == 'nearest' else 32
    if matrix.shape[0] == 2:
        sx, sy = _affine_source(inv, w, h, sub)
    else:
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float64)
        pts = inv @ np.stack([xs.ravel(), ys.ravel(), np.ones(xs.size)])
        sx = np.floor(pts[0] / pts[2] * sub + 0.5) / sub
        sy = np.floor(pts[1] / pts[2] * sub + 0.5) / sub
    if interpolation == 'nearest':
        out = _pixels_at(src, sx, sy, fill_px)
    else:
        x0, y0 = np.floor(sx), np.floor(sy)
        fx, fy = (sx - x0)[:, None], (sy - y0)[:, None]
        out = (_pixels_at(src, x0, y0, fill_px) * (1 - fx) * (1 - fy)
               + _pixels_at(src, x0 + 1, y0, fill_px) * fx * (1 - fy)
               + _pixels_at(src, x0, y0 + 1, fill_px) * (1 - fx) * fy
               + _pixels_at(src, x0 + 1, y0 + 1, fill_px) * fx * fy)
    if arr.dtype.kind in 'iub':
        out = np.clip(np.rint(out), 0, _max_value(arr) if arr.dtype == np.uint8
                      else np.iinfo(arr.dtype).max)
    out = out.astype(arr.dtype).reshape(h, w, src.shape[2])
    return wrap(out[..., 0] if grey else out)


def _affine_source(inv, w, h, sub):
    """Source positions of every output pixel for an affine map, in OpenCV's
    fixed point (10 fractional bits, rounded to 1/``sub`` of a pixel), so
    nearest-neighbour picks the pixels warpAffine picks."""
    scale = 1 << 10
    xs, ys = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)
    delta = scale // sub // 2      # round to the nearest 1/sub
    ax = np.rint(inv[0, 0] * xs * scale).astype(np.int64)
    ay = np.rint(inv[1, 0] * xs * scale).astype(np.int64)
    bx = np.rint((inv[0, 1] * ys + inv[0, 2]) * scale).astype(np.int64) + delta
    by = np.rint((inv[1, 1] * ys + inv[1, 2]) * scale).astype(np.int64) + delta
    shift = 10 - int(math.log2(sub))
    sx = (bx[:, None] + ax[None, :]) >> shift
    sy = (by[:, None] + ay[None, :]) >> shift
    return sx.ravel() / sub, sy.ravel() / sub


def _pixels_at(src, x, y, fill_px):
    """Pixels at integer positions (x, y) (flattened), ``fill_px`` outside."""
    h, w = src.shape[:2]
    inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
    xi = np.clip(x, 0, w - 1).astype(np.int64)
    yi = np.clip(y, 0, h - 1).astype(np.int64)
    vals = src[yi, xi].astype(np.float64)
    return np.where(inside[:, None], vals, fill_px[None, :])


def _size_of(img, api):
    arr, _ = _hwc(img, api)
    return arr.shape[0], arr.shape[1]


def affine(img, angle, translate, scale, shear, interpolation='nearest', fill=0, center=None):
    """Rotate by ``angle`` degrees and scale about ``center`` (default the image
    centre), shear by ``shear`` = (x, y) degrees, and place the result's origin at
    ``translate`` = (tx, ty) pixels, as Paddle's OpenCV backend composes them."""
    if isinstance(shear, numbers.Number):
        shear = (shear, 0.0)
    if len(translate) != 2 or len(shear) != 2:
        raise ValueError("affine: translate and shear should be pairs, got %r and %r"
                         % (translate, shear))
    h, w = _size_of(img, 'affine')
    center = (w / 2.0, h / 2.0) if center is None else center
    rot = _rotation_matrix(center, angle, scale)
    sx, sy = math.tan(math.radians(shear[0])), math.tan(math.radians(shear[1]))
    m = np.stack([rot[0] + sy * rot[1], rot[1] + sx * rot[0]])
    m[0, 2], m[1, 2] = translate
    return _warp(img, m, (w, h), interpolation, fill, 'affine')


def rotate(img, angle, interpolation='nearest', expand=False, center=None, fill=0):
    """Rotate counter-clockwise by ``angle`` degrees about ``center`` (default the
    image centre); ``expand`` enlarges the output to hold the whole rotated image."""
    h, w = _size_of(img, 'rotate')
    center = (w / 2.0, h / 2.0) if center is None else center
    m = _rotation_matrix(center, angle, 1.0)
    if expand:
        corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64)
        a = -math.radians(angle)
        cos, sin = round(math.cos(a), 15), round(math.sin(a), 15)
        rot = np.array([[cos, sin], [-sin, cos]])
        pts = (corners[:, :2] - center) @ rot.T + center
        nw = math.ceil(pts[:, 0].max()) - math.floor(pts[:, 0].min())
        nh = math.ceil(pts[:, 1].max()) - math.floor(pts[:, 1].min())
        m[0, 2] += (nw - w) * 0.5
        m[1, 2] += (nh - h) * 0.5
        w, h = int(nw), int(nh)
    return _warp(img, m, (w, h), interpolation, fill, 'rotate')


def _perspective_matrix(startpoints, endpoints):
    """The 3x3 projective map taking the four ``startpoints`` to ``endpoints``."""
    a, b = [], []
    for (x, y), (u, v) in zip(startpoints, endpoints):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.extend([u, v])
    coeffs = np.linalg.solve(np.asarray(a, np.float64), np.asarray(b, np.float64))
    return np.append(coeffs, 1.0).reshape(3, 3)


def perspective(img, startpoints, endpoints, interpolation='nearest', fill=0):
    """Warp so that the four ``startpoints`` ([x, y], clockwise from top-left)
    move to ``endpoints``."""
    if np.shape(startpoints) != (4, 2) or np.shape(endpoints) != (4, 2):
        raise ValueError("perspective: startpoints and endpoints should be 4 [x, y] points, "
                         "got shapes %s and %s" % (np.shape(startpoints), np.shape(endpoints)))
    h, w = _size_of(img, 'perspective')
    m = _perspective_matrix(np.asarray(startpoints, np.float64), np.asarray(endpoints, np.float64))
    return _warp(img, m, (w, h), interpolation, fill, 'perspective')
