"""A reader for the numeric arrays of MATLAB level-5 ``.mat`` files (what
``scipy.io.savemat`` and MATLAB's ``save -v7`` write), enough for the Flowers
data set's ``imagelabels.mat`` / ``setid.mat`` without scipy."""
import struct
import zlib

import numpy as np

__all__ = ['load_mat']

_MI_COMPRESSED, _MI_MATRIX = 15, 14
# data element type -> numpy dtype (little-endian; swapped for big-endian files)
_MI_TYPES = {1: 'i1', 2: 'u1', 3: 'i2', 4: 'u2', 5: 'i4', 6: 'u4', 7: 'f4', 9: 'f8',
             12: 'i8', 13: 'u8', 16: 'u1', 17: 'u2', 18: 'u4'}
# array class -> numpy dtype of the result
_MX_CLASSES = {6: 'f8', 7: 'f4', 8: 'i1', 9: 'u1', 10: 'i2', 11: 'u2', 12: 'i4', 13: 'u4',
               14: 'i8', 15: 'u8'}


def load_mat(path):
    """``{name: numpy array}`` of the numeric matrices in a level-5 .mat file."""
    with open(path, 'rb') as f:
        data = f.read()
    if len(data) < 128 or data[126:128] not in (b'IM', b'MI'):
        raise ValueError("%s is not a MATLAB level-5 .mat file" % path)
    order = '<' if data[126:128] == b'IM' else '>'
    out = {}
    pos = 128
    while pos + 8 <= len(data):
        kind, body, pos = _element(data, pos, order)
        if kind == _MI_COMPRESSED:
            kind, body, _ = _element(zlib.decompress(body), 0, order)
        if kind == _MI_MATRIX:
            name, arr = _matrix(body, order, path)
            if arr is not None:
                out[name] = arr
    return out


def _element(buf, pos, order):
    """(type, payload, next position) of the data element at ``pos``."""
    kind, nbytes = struct.unpack(order + 'II', buf[pos:pos + 8])
    if kind >> 16:      # small element: type and size share the first word
        nbytes, kind = kind >> 16, kind & 0xFFFF
        return kind, buf[pos + 4:pos + 4 + nbytes], pos + 8
    body = buf[pos + 8:pos + 8 + nbytes]
    pad = 0 if kind == _MI_COMPRESSED else -nbytes % 8
    return kind, body, pos + 8 + nbytes + pad


def _matrix(body, order, path):
    parts, pos = [], 0
    while pos + 8 <= len(body):
        kind, payload, pos = _element(body, pos, order)
        parts.append((kind, payload))
    if len(parts) < 4:
        raise ValueError("%s: damaged matrix element" % path)
    flags = np.frombuffer(parts[0][1], order + 'u4')
    mx_class = int(flags[0]) & 0xFF
    dims = [int(d) for d in np.frombuffer(parts[1][1], order + 'i4')]
    name = parts[2][1].decode('latin1')
    if mx_class not in _MX_CLASSES:      # cells, structs, chars, sparse: not needed here
        return name, None
    kind, payload = parts[3]
    values = np.frombuffer(payload, order + _MI_TYPES[kind]).astype(_MX_CLASSES[mx_class])
    return name, values.reshape(dims, order='F')
