"""``read_file`` and ``decode_jpeg`` (Paddle's ``paddle.vision.ops``): a file's
bytes as a uint8 tensor, and a JPEG's pixels from such bytes.

Both are registered ops, so they also run inside static programs and
``@to_static`` functions, reading the file when the program runs. Paddle
decodes JPEG only on GPU (nvJPEG); here the numpy baseline decoder
(``framework.vision.jpeg``) does it on CPU with nvJPEG's output layout:
[channels, H, W] uint8, ``'unchanged'`` keeping the file's 1 or 3 channels,
``'gray'`` its luma plane, ``'rgb'`` RGB (a grey file's plane repeated).
"""
import numpy as np

from ...ops import meta
from ...ops.registry import Meta, OpError, add_test_case, def_op
from .. import jpeg

__all__ = ['read_file', 'decode_jpeg']

_MODES = ('unchanged', 'gray', 'rgb')


def _read_meta(filename):
    if not isinstance(filename, str) or not filename:
        raise OpError("read_file: filename must be a non-empty str, got %r" % (filename,))
    return Meta([-1], np.uint8)


# effect 'io': the value is the file's content when the op runs, not a function
# of its (absent) inputs, so no pass may fold it into a constant or merge two reads
@def_op('read_file', _read_meta, inputs=(), attrs={'filename': ''}, differentiable=False,
        pattern='opaque', effects=('io',))
def read_file_op(filename):
    """The bytes of the file ``filename``: [size] uint8."""
    try:
        with open(filename, 'rb') as f:
            data = f.read()
    except OSError as e:
        raise OpError("read_file: cannot read %r: %s" % (filename, e.strerror or e)) from None
    return np.frombuffer(data, np.uint8).copy()


def _decode_meta(x, mode):
    if mode not in _MODES:
        raise OpError("decode_jpeg: mode must be one of %s, got %r" % (_MODES, mode))
    shape = list(meta.shape_of(x))
    if len(shape) != 1 or np.dtype(meta.dtype_of(x)) != np.uint8:
        raise OpError("decode_jpeg: x must be the file's bytes, a 1-D uint8 tensor, got %s "
                      "of shape %s" % (np.dtype(meta.dtype_of(x)), shape))
    return Meta([{'gray': 1, 'rgb': 3}.get(mode, -1), -1, -1], np.uint8)


@def_op('decode_jpeg', _decode_meta, inputs=('x',), attrs={'mode': 'unchanged'},
        differentiable=False, pattern='opaque')
def decode_jpeg_op(x, mode):
    """The pixels [channels, H, W] uint8 of the JPEG file whose bytes are ``x``."""
    _decode_meta(Meta(x.shape, x.dtype), mode)
    try:
        pixels = jpeg.decode_jpeg(x.tobytes(), 'decode_jpeg', luma_only=mode == 'gray')
    except ValueError as e:
        raise OpError(str(e)) from None
    if pixels.ndim == 2:
        pixels = pixels[None].repeat(3 if mode == 'rgb' else 1, axis=0)
    else:
        pixels = pixels.transpose(2, 0, 1)
    return np.ascontiguousarray(pixels)


def read_file(filename, name=None):
    """The bytes of the file ``filename`` as a 1-D uint8 tensor.

    >>> import os, tempfile
    >>> import framework as paddle
    >>> path = os.path.join(tempfile.mkdtemp(), 'data.bin')
    >>> with open(path, 'wb') as f:
    ...     _ = f.write(b'\\x01\\x02\\xff')
    >>> paddle.vision.ops.read_file(path).tolist()
    [1, 2, 255]
    """
    return read_file_op(str(filename))


def decode_jpeg(x, mode='unchanged', name=None):
    """Decode the JPEG file whose bytes are ``x`` (1-D uint8, as ``read_file``
    gives) into [channels, H, W] uint8 pixels: ``mode='unchanged'`` keeps the
    file's 1 (grey) or 3 (RGB) channels, ``'gray'`` gives 1, ``'rgb'`` 3.

    Baseline and extended-sequential JPEG (what cameras and data sets write)
    decode; progressive files raise a clear error.
    """
    return decode_jpeg_op(x, mode)


# ---- registry test cases ------------------------------------------------------------------
# read_file reads this module's own source (a file that is always there);
# decode_jpeg decodes 8x8 JPEG files made in memory.

def _read_ref(filename):
    with open(filename, 'rb') as f:
        return np.frombuffer(f.read(), np.uint8)


add_test_case(read_file_op, __file__, ref=_read_ref)


def _tiny_jpeg(planes):
    """A baseline JPEG of 8x8 pixels whose every block holds only a DC term: the
    components' (value - 128) * 8 as their DC coefficient, quantiser 1."""
    def segment(marker, payload):
        return bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, 'big') + payload
    n = len(planes)
    quant = segment(0xDB, bytes([0]) + bytes([1] * 64))
    frame = segment(0xC0, bytes([8, 0, 8, 0, 8, n]) + b''.join(
        bytes([k + 1, 0x11, 0]) for k in range(n)))
    # DC table: categories 0-11 as 4-bit codes; AC table: EOB only (a 1-bit code)
    dc = segment(0xC4, bytes([0x00, 0, 0, 0, 12] + [0] * 12) + bytes(range(12)))
    ac = segment(0xC4, bytes([0x10, 1] + [0] * 15) + bytes([0]))
    scan = segment(0xDA, bytes([n]) + b''.join(bytes([k + 1, 0x00]) for k in range(n))
                   + bytes([0, 63, 0]))
    bits = ''
    for value in planes:
        diff = (value - 128) * 8
        size = int(abs(diff)).bit_length()
        code = diff if diff >= 0 else diff + (1 << size) - 1
        bits += format(size, '04b') + (format(code, '0%db' % size) if size else '') + '0'
    bits += '1' * (-len(bits) % 8)
    data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    data = data.replace(b'\xff', b'\xff\x00')
    return np.frombuffer(b'\xff\xd8' + quant + frame + dc + ac + scan + data + b'\xff\xd9',
                         np.uint8)


def _decode_ref(x, mode):
    """Pixels of a ``_tiny_jpeg``: each plane one value (YCbCr -> RGB, JFIF)."""
    planes = _TINY_VALUES[x.tobytes()]
    if len(planes) == 1 or mode == 'gray':
        out = np.full((1, 8, 8), planes[0], np.uint8)
        return out.repeat(3, axis=0) if mode == 'rgb' else out
    y, cb, cr = planes[0], planes[1] - 128.0, planes[2] - 128.0
    rgb = np.clip(np.rint([y + 1.402 * cr, y - 0.344136 * cb - 0.714136 * cr, y + 1.772 * cb]),
                  0, 255)
    return np.broadcast_to(rgb.astype(np.uint8)[:, None, None], (3, 8, 8))


_TINY_VALUES = {}
for _planes in ((90,), (150, 100, 170)):
    _bytes = _tiny_jpeg(_planes)
    _TINY_VALUES[_bytes.tobytes()] = _planes
    for _mode in _MODES:
        add_test_case(decode_jpeg_op, _bytes, _mode, ref=_decode_ref)
