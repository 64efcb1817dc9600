"""Reading image files into numpy arrays for the vision data sets.

Pillow is used when it is installed. Without it, PNG files (every colour type,
8 or 16 bits, not interlaced) are decoded here with zlib, and baseline JPEG
files by ``jpeg.decode_jpeg``; other formats need Pillow and say so.
Arrays are HW (grey, palette indices for palette PNGs, as PIL's 'P' mode
gives) or HWC (RGB / RGBA) uint8 (uint16 for 16-bit PNGs).

>>> import zlib, struct
>>> def chunk(kind, body):
...     return (struct.pack('>I', len(body)) + kind + body
...             + struct.pack('>I', zlib.crc32(kind + body)))
>>> png = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 1, 8, 0, 0, 0, 0))
...        + chunk(b'IDAT', zlib.compress(b'\\x00\\x07\\x09')) + chunk(b'IEND', b''))
>>> decode_image(png, pil=False).tolist()
[[7, 9]]
"""
import io
import struct
import zlib

import numpy as np

__all__ = ['decode_image', 'load_image', 'pil_available']

_PNG_SIGNATURE = b'\x89PNG\r\n\x1a\n'
# PNG colour type -> samples per pixel
_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def pil_available():
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


def decode_image(data, pil=None, what='image'):
    """The pixels of an encoded image (``bytes``) as a numpy array. ``pil``:
    use Pillow (default: when it is installed)."""
    if pil is None:
        pil = pil_available()
    if pil:
        from PIL import Image
        with Image.open(io.BytesIO(data)) as img:
            return np.array(img)
    if data[:8] == _PNG_SIGNATURE:
        return _decode_png(data, what)
    if data[:2] == b'\xff\xd8':
        from .jpeg import decode_jpeg
        return decode_jpeg(data, what)
    raise ValueError("%s: only PNG and JPEG files can be read without Pillow (the file starts "
                     "with %r); install Pillow (pip install pillow) for other formats"
                     % (what, bytes(data[:8])))


def load_image(path, mode=None):
    """Read the image file at ``path``; ``mode='RGB'`` converts grey, palette and
    RGBA images to 3-channel RGB (as ``PIL.Image.convert('RGB')``)."""
    with open(path, 'rb') as f:
        data = f.read()
    if pil_available():
        from PIL import Image
        with Image.open(io.BytesIO(data)) as img:
            return np.array(img.convert(mode) if mode else img)
    arr, palette = _decode_png(data, path, keep_palette=True) if data[:8] == _PNG_SIGNATURE \
        else (decode_image(data, pil=False, what=path), None)
    if mode == 'RGB':
        arr = _to_rgb(arr, palette)
    elif mode is not None:
        raise ValueError("load_image: mode should be None or 'RGB' without Pillow, got %r"
                         % (mode,))
    return arr


def _to_rgb(arr, palette):
    if palette is not None:
        return palette[arr][..., :3]
    if arr.ndim == 2:
        return np.repeat(arr[..., None], 3, axis=2)
    if arr.shape[2] == 2:      # grey + alpha
        return np.repeat(arr[..., :1], 3, axis=2)
    return arr[..., :3]


def _png_chunks(data, what):
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise ValueError("%s: truncated PNG chunk %r" % (what, kind))
        yield kind, body
        pos += 12 + length


def _decode_png(data, what, keep_palette=False):
    header, idat, palette, alpha = None, [], None, None
    for kind, body in _png_chunks(data, what):
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'PLTE':
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b'tRNS':
            alpha = np.frombuffer(body, np.uint8)
        elif kind == b'IEND':
            break
    if header is None or not idat:
        raise ValueError("%s: not a complete PNG file (no IHDR or IDAT chunk)" % what)
    width, height, depth, color, _, _, interlace = header
    if color not in _PNG_CHANNELS or depth not in (1, 2, 4, 8, 16) or interlace:
        raise ValueError("%s: PNG with bit depth %d, colour type %d%s is not supported without "
                         "Pillow" % (what, depth, color, ', interlaced' if interlace else ''))
    channels = _PNG_CHANNELS[color]
    bits_per_pixel = depth * channels
    stride = (width * bits_per_pixel + 7) // 8
    raw = np.frombuffer(zlib.decompress(b''.join(idat)), np.uint8)
    if raw.size != height * (stride + 1):
        raise ValueError("%s: PNG data holds %d bytes, %dx%d pixels need %d"
                         % (what, raw.size, width, height, height * (stride + 1)))
    rows = _unfilter(raw.reshape(height, stride + 1), max(1, bits_per_pixel // 8))
    if depth == 16:
        pixels = rows.reshape(height, -1).view('>u2').astype(np.uint16)
    elif depth == 8:
        pixels = rows
    else:   # packed 1/2/4-bit samples: unpack to one byte each
        bits = np.unpackbits(rows, axis=1).reshape(height, -1, depth)
        weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.uint8)
        pixels = (bits * weights).sum(axis=2).astype(np.uint8)[:, :width * channels]
    img = pixels.reshape(height, width, channels)
    img = img[..., 0] if channels == 1 else img
    if keep_palette:
        full = None
        if color == 3 and palette is not None:
            full = np.concatenate([palette, np.full((len(palette), 1), 255, np.uint8)], axis=1)
            if alpha is not None:
                full[:len(alpha), 3] = alpha
        return img, full
    return img


def _unfilter(rows, bpp):
    """Undo PNG's per-row filters (none, sub, up, average, Paeth)."""
    height, stride = rows.shape[0], rows.shape[1] - 1
    out = np.zeros((height, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        kind, line = rows[y, 0], rows[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind in (1, 3, 4):
            cur = _unfilter_left(kind, line, prev, bpp)
        else:
            raise ValueError("PNG: unknown row filter %d" % kind)
        out[y] = cur
        prev = cur.astype(np.int32)
    return out


def _unfilter_left(kind, line, prev, bpp):
    """The filters that depend on the already decoded pixel to the left
    (sequential along the row, done per byte position modulo ``bpp``)."""
    cur = np.zeros_like(line)
    for i in range(len(line)):
        left = cur[i - bpp] if i >= bpp else 0
        up = prev[i]
        if kind == 1:
            pred = left
        elif kind == 3:
            pred = (left + up) >> 1
        else:
            up_left = prev[i - bpp] if i >= bpp else 0
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            pred = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
        cur[i] = (line[i] + pred) & 0xFF
    return cur
