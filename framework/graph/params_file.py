"""The parameter file of an inference model (``.pdiparams``): an ``.npz`` archive.

Written here with stored (uncompressed) members, one ``.npy`` per parameter,
in a fixed order with fixed timestamps (equal parameters give equal bytes),
and a zip comment ``framework.params save=<id>`` naming the save it belongs
to (the model file records the same id).

Read here without ``numpy.load``: every member must be stored, not deflated
(a few KB of deflate can claim gigabytes), its ``.npy`` header must be the
plain kind numpy writes (supported little-endian dtype, int dims) and declare
exactly as many bytes as the member holds: all checked before anything is
allocated. Bool arrays must hold only bytes 0 and 1. Nothing is unpickled.
"""
import ast
import io
import re
import struct
import zipfile
import zlib

import numpy as np

from .verify import DTYPES

COMMENT_PREFIX = b'framework.params save='
MAX_HEADER = 4096
_MAGIC = b'\x93NUMPY'
_DATE = (1980, 1, 1, 0, 0, 0)
_SAVE_ID = re.compile(rb'^framework\.params save=([0-9a-f]{24})$')


class ParamsFormatError(ValueError):
    """What is wrong with a parameter file; the caller adds the file name."""


def _member_name(key):
    return key + '.npy'


def _npy_bytes(arr):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=(1, 0), allow_pickle=False)
    return buf.getvalue()


def params_bytes(arrays, save_id):
    """The archive of ``arrays`` ({member key: numpy array}) for save ``save_id``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_STORED) as z:
        for key, arr in arrays.items():
            arr = np.asarray(arr)
            if arr.dtype.name == 'bfloat16':      # stored as its bits (see model_files.as_declared)
                arr = arr.view(np.uint16)
            if arr.dtype.name not in DTYPES:
                raise TypeError("cannot save parameter '%s' of dtype %s; supported dtypes are "
                                "%s" % (key, arr.dtype, ', '.join(sorted(DTYPES))))
            arr = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder('<'))
            z.writestr(zipfile.ZipInfo(_member_name(key), _DATE), _npy_bytes(arr))
        z.comment = COMMENT_PREFIX + save_id.encode('ascii')
    return buf.getvalue()


def _fail(what):
    raise ParamsFormatError(what)


def _members(data):
    """{name: ZipInfo} of the archive, checked for stored, plain members."""
    try:
        z = zipfile.ZipFile(io.BytesIO(data))
        infos = z.infolist()
    except Exception as e:      # noqa: BLE001 - the stdlib parser on a damaged archive
        # raises BadZipFile, but also struct.error, ValueError, OverflowError, ...
        _fail('not a valid zip archive (%s: %s)' % (type(e).__name__, e))
    members = {}
    total = 0
    for info in infos:
        if info.filename in members:
            _fail("member '%s' appears twice" % info.filename)
        if info.compress_type != zipfile.ZIP_STORED:
            _fail("member '%s' is compressed (method %d); parameter files hold stored "
                  "members only" % (info.filename, info.compress_type))
        if info.flag_bits & 0x1:
            _fail("member '%s' is encrypted" % info.filename)
        if info.file_size != info.compress_size:
            _fail("member '%s' declares %d bytes but stores %d"
                  % (info.filename, info.file_size, info.compress_size))
        total += info.file_size
        members[info.filename] = info
    if total > len(data):
        _fail('its members declare %d bytes but the file has %d' % (total, len(data)))
    return z, members


def member_keys(data):
    """The member keys of a parameter archive, checked as ``read_params`` checks them."""
    _, members = _members(data)
    keys = []
    for name in members:
        if not name.endswith('.npy'):
            _fail("member '%s' is not a .npy array" % name)
        keys.append(name[:-len('.npy')])
    return keys


def save_id(data):
    """The save id in a parameter archive's comment, or None. It is read from
    the end-of-archive record, so ``data`` may be just the file's last KB."""
    i = data.rfind(b'PK\x05\x06')
    if i < 0 or len(data) < i + 22:
        return None
    n = int.from_bytes(data[i + 20:i + 22], 'little')
    if len(data) != i + 22 + n:         # the comment ends the file
        return None
    m = _SAVE_ID.match(data[i + 22:])
    return m.group(1).decode('ascii') if m else None


def _header(member, name):
    """(dtype, shape, fortran_order, data offset) of a .npy member."""
    head = bytes(member[:12 + MAX_HEADER])
    if head[:6] != _MAGIC or len(head) < 10:
        _fail("member '%s' is not a .npy array" % name)
    major = head[6]
    if major == 1:
        hlen, start = int.from_bytes(head[8:10], 'little'), 10
    elif major in (2, 3):
        hlen, start = int.from_bytes(head[8:12], 'little'), 12
    else:
        _fail("member '%s' has .npy format version %d.%d" % (name, major, head[7]))
    if hlen > MAX_HEADER or start + hlen > len(member):
        _fail("member '%s' has a header of %d bytes (the member has %d)"
              % (name, hlen, len(member)))
    text = head[start:start + hlen].decode('latin1' if major < 3 else 'utf8', 'replace')
    try:
        header = ast.literal_eval(text)     # literals only: nothing is evaluated
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        header = None
    if not isinstance(header, dict) or set(header) != {'descr', 'fortran_order', 'shape'}:
        _fail("member '%s' has a malformed .npy header %r" % (name, text[:80]))
    return header, start + hlen


def _dtype(descr, name):
    try:
        dtype = np.dtype(descr) if isinstance(descr, str) else None
    except (TypeError, ValueError):
        dtype = None
    if dtype is None or dtype.name not in DTYPES or dtype.byteorder == '>' or (
            dtype.byteorder == '=' and not np.little_endian):
        _fail("member '%s' has an unsupported dtype %r (parameters are little-endian %s)"
              % (name, descr, ', '.join(sorted(DTYPES))))
    return dtype


def _array(member, name):
    header, offset = _header(member, name)
    dtype = _dtype(header['descr'], name)
    shape, fortran = header['shape'], header['fortran_order']
    if not isinstance(shape, tuple) or len(shape) > 64 or not all(
            type(d) is int and d >= 0 for d in shape):
        _fail("member '%s' has an invalid shape %r" % (name, shape))
    if type(fortran) is not bool:
        _fail("member '%s' has an invalid fortran_order %r" % (name, fortran))
    numel = 1
    for d in shape:
        numel *= d
    if numel * dtype.itemsize != len(member) - offset:
        _fail("member '%s' declares shape %s of %s (%d bytes) but holds %d bytes"
              % (name, list(shape), dtype, numel * dtype.itemsize, len(member) - offset))
    flat = np.frombuffer(member, dtype=dtype, count=numel, offset=offset)
    if dtype == np.bool_ and numel and flat.view(np.uint8).max() > 1:
        _fail("member '%s' is a bool array holding bytes other than 0 and 1" % name)
    return flat.reshape(shape, order='F' if fortran else 'C').astype(dtype.newbyteorder('='))


def read_params(data, keys):
    """{key: array} for the member keys ``keys``; ``ParamsFormatError``
    (without the file name) when the archive is malformed or its members are
    not exactly ``keys``."""
    z, members = _members(data)
    wanted = {_member_name(k): k for k in keys}
    missing = sorted(set(wanted) - set(members))
    extra = sorted(set(members) - set(wanted))
    if missing:
        _fail('member(s) %s are missing' % ', '.join("'%s'" % n for n in missing[:5]))
    if extra:
        _fail('it has unexpected member(s) %s' % ', '.join("'%s'" % n for n in extra[:5]))
    view = memoryview(data)
    return {key: _array(_member_bytes(view, members[name]), name) for name, key in wanted.items()}


def _member_bytes(view, info):
    """A stored member's bytes, a view into the archive (``zipfile.read``
    would copy them once more), after its local header and CRC are checked."""
    start = info.header_offset
    local = bytes(view[start:start + 30])
    if len(local) < 30 or local[:4] != b'PK\x03\x04':
        _fail("member '%s' has no local header at offset %d" % (info.filename, start))
    name_len, extra_len = struct.unpack('<HH', local[26:30])
    name = bytes(view[start + 30:start + 30 + name_len])
    if name.decode('utf-8' if info.flag_bits & 0x800 else 'cp437', 'replace') != info.filename:
        _fail("member '%s' has another name in its local header" % info.filename)
    begin = start + 30 + name_len + extra_len
    member = view[begin:begin + info.file_size]
    if len(member) != info.file_size:
        _fail("member '%s' is truncated" % info.filename)
    if zlib.crc32(member) != info.CRC:
        _fail("member '%s' is corrupted (CRC mismatch)" % info.filename)
    return member
