"""``framework.save`` / ``framework.load``: a safe checkpoint format.

Checkpoints hold nested dicts, lists and tuples of Tensors, numpy arrays, numbers,
strings, bytes, bools and None (state dicts, optimizer states, training metadata).
Loading never unpickles and never executes anything from the file: the structure
is JSON, the arrays are raw little-endian bytes, and every byte is checksummed.

File layout (all integers little-endian)::

    offset  size  field
    0       8     magic  b'\\x89FWCKPT\\n'
    8       4     format version (uint32), currently 1
    12      4     flags (uint32), 0
    16      8     H = header length in bytes (uint64)
    24      8     D = data section length in bytes (uint64)
    32      32    SHA-256 of bytes 0..31 followed by the header
    64      H     header: UTF-8 JSON, padded with spaces so that 64 + H is a
                  multiple of 64
    64 + H  D     data section: the arrays' raw bytes, each starting at a multiple
                  of 64 from the section start, zero bytes in between

The file is exactly ``64 + H + D`` bytes long. The header is
``{"format": "framework.save", "data_sha256": <hex SHA-256 of the data section>,
"root": NODE}`` where NODE is one of::

    {"t": "none"} | {"t": "bool", "v": true} | {"t": "int", "v": 3}
    {"t": "float", "v": "0x1.8p+0"}  (float.hex, exact; inf/nan included)
    {"t": "complex", "re": HEX, "im": HEX}
    {"t": "str", "v": "..."} | {"t": "bytes", "v": BASE64}
    {"t": "list" | "tuple", "v": [NODE, ...]}
    {"t": "dict" | "odict", "k": [KEY NODE, ...], "v": [NODE, ...]}
         (keys are str/int/float/bool/None nodes; order is kept; odict = OrderedDict)
    {"t": "ndarray" | "npscalar" | "tensor", "dtype": "float32", "shape": [2, 3],
     "offset": 0, "nbytes": 24}
         (a tensor may add "name" and "param": true for Parameters)

Loading checks, in order: the magic (foreign files), the version (files from a
newer framework), the flags and the file length (truncation), the header checksum,
the header's structure, then the data checksum while the arrays are read. Every
failure raises ``CheckpointError`` (a ``ValueError``) naming the file. The header
is strict JSON (a repeated key is refused, nesting is bounded before it is
parsed); every array's size is checked against the data section, and that
against the file's real size, before anything is allocated; bool arrays must
hold only bytes 0 and 1. Writes go to a locked temporary file in the target
directory, are fsynced and then renamed over the target, so a crash never leaves
a half-written checkpoint; the next save of the same path removes temporaries
that an interrupted save left.

>>> import os, tempfile, numpy as np
>>> import framework as paddle
>>> path = os.path.join(tempfile.mkdtemp(), 'ckpt', 'model.pdparams')
>>> paddle.save({'w': paddle.to_tensor([1.0, 2.0]), 'step': 3}, path)
>>> state = paddle.load(path)
>>> state['w'].numpy().tolist(), state['step']
([1.0, 2.0], 3)
"""
import base64
import collections
import hashlib
import io as _io
import itertools
import json
import os
import struct
import sys

import numpy as np

from . import _files
from .dense_tensor import DenseTensor
from .dygraph import Parameter, Tensor
from .graph import serialize as _program_io, verify as _verify
from .graph.program import Program

__all__ = ['save', 'load', 'CheckpointError']

MAGIC = b'\x89FWCKPT\n'
FORMAT_VERSION = 1
_PREAMBLE = 64
_ALIGN = 64
_MAX_DEPTH = 256
_CHUNK = 1 << 20
_DTYPES = ('bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
           'float16', 'float32', 'float64', 'complex64', 'complex128')
_LE_DTYPES = {name: np.dtype(name).newbyteorder('<') for name in _DTYPES}
_SAVE_CONFIGS = ('use_binary_format', 'pickle_protocol')
_LOAD_CONFIGS = ('return_numpy',)


class CheckpointError(ValueError):
    """A file that ``framework.load`` cannot read: foreign, newer, truncated or corrupted."""


def _align(n):
    return -(-n // _ALIGN) * _ALIGN


# --------------------------------------------------------------------------- save
def _key_path(parent, key):
    return '%s[%r]' % (parent, key)


class _Encoder:
    def __init__(self):
        self.arrays = []          # (node, contiguous little-endian array)
        self._open = set()        # ids of containers on the current path (cycles)

    def array_node(self, tag, arr, where):
        name = arr.dtype.name
        if name not in _LE_DTYPES:
            raise TypeError("framework.save: cannot save %s of dtype %s at %s; supported "
                            "dtypes are %s" % ('a tensor' if tag == 'tensor' else 'an array',
                                               arr.dtype, where, ', '.join(_DTYPES)))
        arr = np.asarray(arr, dtype=_LE_DTYPES[name], order='C')   # keeps 0-d arrays 0-d
        node = {'t': tag, 'dtype': name, 'shape': [int(s) for s in arr.shape]}
        self.arrays.append((node, arr))
        return node

    def key(self, k, where):
        if k is None or isinstance(k, (bool, int, float, str)) and not isinstance(k, np.generic):
            return self.encode(k, where, 0)
        raise TypeError("framework.save: cannot save a dict key of type '%s' (%r) in %s; keys "
                        "must be str, int, float, bool or None" % (type(k).__name__, k, where))

    def encode(self, obj, where, depth):
        if depth > _MAX_DEPTH:
            raise ValueError("framework.save: %s is nested more than %d levels deep"
                             % (where, _MAX_DEPTH))
        if isinstance(obj, Tensor):
            node = self.array_node('tensor', obj.data, where)
            if isinstance(obj, Parameter):
                node['param'] = True
            if obj._name is not None:
                node['name'] = str(obj._name)
            return node
        if isinstance(obj, np.ndarray):
            return self.array_node('ndarray', obj, where)
        if isinstance(obj, DenseTensor):          # a scope variable's values (static mode)
            return self.array_node('densetensor', np.asarray(obj), where)
        if isinstance(obj, Program):
            # its JSON form as a string: loaded back through the program checks
            return {'t': 'program', 'v': json.dumps(_program_io.program_to_dict(obj),
                                                    separators=(',', ':'))}
        if isinstance(obj, np.generic):
            return self.array_node('npscalar', np.asarray(obj), where)
        if obj is None:
            return {'t': 'none'}
        if isinstance(obj, bool):
            return {'t': 'bool', 'v': obj}
        if isinstance(obj, int):
            return {'t': 'int', 'v': int(obj)}
        if isinstance(obj, float):
            return {'t': 'float', 'v': float(obj).hex()}
        if isinstance(obj, complex):
            return {'t': 'complex', 're': obj.real.hex(), 'im': obj.imag.hex()}
        if isinstance(obj, str):
            return {'t': 'str', 'v': str(obj)}
        if isinstance(obj, (bytes, bytearray)):
            return {'t': 'bytes', 'v': base64.b64encode(bytes(obj)).decode('ascii')}
        if isinstance(obj, (dict, list, tuple)):
            return self.container(obj, where, depth)
        raise TypeError(self._unsupported(obj, where))

    def container(self, obj, where, depth):
        if id(obj) in self._open:
            raise ValueError("framework.save: %s contains itself (circular reference)" % where)
        self._open.add(id(obj))
        try:
            if isinstance(obj, dict):
                keys = [self.key(k, where) for k in obj]
                values = [self.encode(v, _key_path(where, k), depth + 1) for k, v in obj.items()]
                tag = 'odict' if isinstance(obj, collections.OrderedDict) else 'dict'
                return {'t': tag, 'k': keys, 'v': values}
            items = [self.encode(v, '%s[%d]' % (where, i), depth + 1) for i, v in enumerate(obj)]
            return {'t': 'list' if isinstance(obj, list) else 'tuple', 'v': items}
        finally:
            self._open.discard(id(obj))

    @staticmethod
    def _unsupported(obj, where):
        hint = ''
        if hasattr(obj, 'state_dict'):
            hint = '; save its state_dict() instead'
        return ("framework.save: cannot save an object of type '%s' at %s: only Tensors, numpy "
                "arrays, numbers, strings, bytes, bools, None and dicts/lists/tuples of these "
                "can be saved%s" % (type(obj).__name__, where, hint))


def _layout(arrays):
    """Assign offsets; returns the data section length."""
    offset = 0
    for node, arr in arrays:
        offset = _align(offset)
        node['offset'] = offset
        node['nbytes'] = int(arr.nbytes)
        offset += arr.nbytes
    return offset


def _data_chunks(arrays):
    """The data section as a sequence of buffers (padding, array, padding, ...)."""
    pos = 0
    for node, arr in arrays:
        if node['offset'] > pos:
            yield b'\0' * (node['offset'] - pos)
        if arr.nbytes:
            yield arr.reshape(-1).view(np.uint8)
        pos = node['offset'] + arr.nbytes


def _serialize(obj):
    """(preamble + header bytes, list of data buffers)."""
    enc = _Encoder()
    root = enc.encode(obj, 'obj', 0)
    data_len = _layout(enc.arrays)
    digest = hashlib.sha256()
    for chunk in _data_chunks(enc.arrays):
        digest.update(chunk)
    header = json.dumps({'format': 'framework.save', 'data_sha256': digest.hexdigest(),
                         'root': root}, separators=(',', ':')).encode('ascii')
    header += b' ' * (_align(_PREAMBLE + len(header)) - _PREAMBLE - len(header))
    pre = MAGIC + struct.pack('<IIQQ', FORMAT_VERSION, 0, len(header), data_len)
    pre += hashlib.sha256(pre + header).digest()
    return pre + header, _data_chunks(enc.arrays)


def _check_configs(api, configs, allowed):
    unknown = sorted(set(configs) - set(allowed))
    if unknown:
        raise ValueError("%s: unsupported config(s) %s; supported: %s"
                         % (api, ', '.join(unknown), ', '.join(allowed)))


def save(obj, path, protocol=4, **configs):
    """Save ``obj`` (nested dicts/lists/tuples of Tensors, numpy arrays, numbers,
    strings, bools, None; a static ``Program``; a scope variable's ``DenseTensor``)
    to ``path`` or a writable binary file object (objects saved one after another
    into one stream load back in that order).

    Parent directories are created; the write is atomic. ``protocol`` is accepted
    for Paddle compatibility (2 to 4) and does not change the format, which never
    uses pickle. Objects it cannot represent (a Layer, an optimizer, arbitrary
    classes) raise ``TypeError`` naming the type and where in ``obj`` it is.
    """
    if isinstance(protocol, bool) or not isinstance(protocol, int) or not 1 < protocol < 5:
        raise ValueError("framework.save: expected 1 < protocol < 5, but got protocol=%r"
                         % (protocol,))
    _check_configs('framework.save', configs, _SAVE_CONFIGS)
    head, chunks = _serialize(obj)
    if hasattr(path, 'write'):
        path.write(head)
        for chunk in chunks:
            path.write(chunk)
        return
    path = os.fspath(path)
    if path == '' or os.path.basename(path) == '':
        raise ValueError("framework.save: path %r must name a file, e.g. 'dirname/filename'"
                         % path)
    if os.path.isdir(path):
        raise ValueError("framework.save: %r is a directory; give a file path" % path)
    _files.atomic_write(path, itertools.chain([head], chunks))


# --------------------------------------------------------------------------- load
def _foreign_hint(prefix):
    if prefix.startswith(b'\x80') or prefix.startswith(b'(') or prefix.startswith(b']'):
        return (" It looks like a pickle file (e.g. written by Paddle's or PyTorch's save); "
                "framework.load never unpickles.")
    if prefix.startswith(b'PK\x03\x04'):
        return " It is a zip archive (e.g. a numpy .npz file or a PyTorch checkpoint)."
    if prefix.startswith(b'\x93NUMPY'):
        return " It is a numpy .npy file; read it with numpy.load(path, allow_pickle=False)."
    return ''


class _Reader:
    def __init__(self, f, size, where):
        self.f = f
        self.size = size
        self.where = where

    def fail(self, what):
        raise CheckpointError("framework.load: %s %s" % (self.where, what))

    def read_exact(self, n):
        data = self.f.read(n)
        if len(data) != n:
            self.fail("is truncated: the file ended early")
        return data

    def preamble(self):
        pre = self.f.read(_PREAMBLE)
        if not pre:
            self.fail("is empty: it is not a framework checkpoint (or was truncated to 0 bytes)")
        if pre[:len(MAGIC)] != MAGIC[:len(pre)]:
            self.fail("is not a framework checkpoint (bad magic bytes %r)."
                      % pre[:len(MAGIC)] + _foreign_hint(pre))
        if len(pre) < _PREAMBLE:
            self.fail("is truncated: %d bytes, shorter than the %d-byte preamble"
                      % (len(pre), _PREAMBLE))
        version, flags, hlen, dlen = struct.unpack('<IIQQ', pre[8:32])
        if version > FORMAT_VERSION:
            self.fail("was written by a newer framework (checkpoint format version %d; this "
                      "version reads up to %d); upgrade framework to load it"
                      % (version, FORMAT_VERSION))
        if version < 1 or flags != 0:
            self.fail("is corrupted: invalid format version %d / flags %d in the preamble"
                      % (version, flags))
        expected = _PREAMBLE + hlen + dlen
        if self.size is not None and self.size < expected:
            self.fail("is truncated: it has %d bytes but its preamble promises %d"
                      % (self.size, expected))
        if self.size is not None and self.size > expected:
            self.fail("is corrupted: it has %d bytes but its preamble promises %d (trailing "
                      "data or damaged lengths)" % (self.size, expected))
        return pre, hlen, dlen

    def header(self, pre, hlen):
        header = self.read_exact(hlen)
        if hashlib.sha256(pre[:32] + header).digest() != pre[32:64]:
            self.fail("is corrupted: the header checksum does not match")
        try:
            # a node nests two JSON levels ({"t": "list", "v": [...]})
            meta = _files.parse_json(header, max_depth=2 * _MAX_DEPTH + 4)
        except _files.FileFormatError as e:
            self.fail("is corrupted: its header is not valid: %s" % e)
        if not isinstance(meta, dict) or meta.get('format') != 'framework.save' \
                or not isinstance(meta.get('data_sha256'), str) or 'root' not in meta:
            self.fail("is corrupted: its header lacks the format, data_sha256 or root fields")
        return meta

    def arrays(self, nodes, dlen, expected_sha):
        """Read the data section into one new array per node, checking the checksum."""
        digest = hashlib.sha256()
        pos = 0
        out = {}
        for node in sorted(nodes, key=lambda n: n['offset']):
            self._skip(node['offset'] - pos, digest)
            arr = np.empty(node['shape'], dtype=_LE_DTYPES[node['dtype']])
            buf = arr.reshape(-1).view(np.uint8)
            if buf.size and self.f.readinto(buf) != buf.size:
                self.fail("is truncated: the array data ended early")
            digest.update(buf)
            if arr.dtype == np.bool_ and buf.size and buf.max() > 1:
                self.fail("is corrupted: a bool array holds bytes other than 0 and 1")
            if arr.dtype.byteorder not in ('=', '|') and sys.byteorder != 'little':
                arr = arr.astype(arr.dtype.newbyteorder('='))
            out[id(node)] = arr
            pos = node['offset'] + node['nbytes']
        self._skip(dlen - pos, digest)
        if digest.hexdigest() != expected_sha:
            self.fail("is corrupted: the checksum of the array data does not match (the file "
                      "was damaged or modified after it was written)")
        return out

    def _skip(self, n, digest):
        while n > 0:
            chunk = self.read_exact(min(n, _CHUNK))
            digest.update(chunk)
            n -= len(chunk)


class _Decoder:
    """Validates the header tree (collecting array nodes) and rebuilds objects."""

    _SCALARS = {'none', 'bool', 'int', 'float', 'complex', 'str', 'bytes'}

    def __init__(self, reader, dlen):
        self.reader = reader
        self.dlen = dlen
        self.array_nodes = []

    def bad(self, what):
        self.reader.fail("is corrupted: %s in its header" % what)

    def check(self, node, depth=0):
        if depth > _MAX_DEPTH:
            self.bad("structure nested more than %d levels deep" % _MAX_DEPTH)
        if not isinstance(node, dict) or not isinstance(node.get('t'), str):
            self.bad("an invalid node")
        t = node['t']
        if t in ('list', 'tuple'):
            if not isinstance(node.get('v'), list):
                self.bad("a %s node without items" % t)
            for item in node['v']:
                self.check(item, depth + 1)
        elif t in ('dict', 'odict'):
            keys, values = node.get('k'), node.get('v')
            if not isinstance(keys, list) or not isinstance(values, list) \
                    or len(keys) != len(values):
                self.bad("a dict node with mismatched keys and values")
            for k in keys:
                self.check(k, depth + 1)
                if k['t'] not in self._SCALARS - {'complex', 'bytes'}:
                    self.bad("a dict key of kind %r" % k['t'])
            for v in values:
                self.check(v, depth + 1)
        elif t in ('ndarray', 'npscalar', 'tensor', 'densetensor'):
            self.check_array(node)
        elif t == 'program':
            if not isinstance(node.get('v'), str):
                self.bad("a program node without its text")
        elif t in self._SCALARS:
            self.check_scalar(node)
        else:
            self.bad("an unknown node kind %r" % t)

    def check_scalar(self, node):
        t, v = node['t'], node.get('v')
        ok = {'none': lambda: True,
              'bool': lambda: isinstance(v, bool),
              'int': lambda: isinstance(v, int) and not isinstance(v, bool),
              'float': lambda: isinstance(v, str),
              'complex': lambda: isinstance(node.get('re'), str) and isinstance(node.get('im'), str),
              'str': lambda: isinstance(v, str),
              'bytes': lambda: isinstance(v, str)}[t]()
        if not ok:
            self.bad("a malformed %s value" % t)

    def check_array(self, node):
        dtype, shape = node.get('dtype'), node.get('shape')
        offset, nbytes = node.get('offset'), node.get('nbytes')
        if not isinstance(dtype, str) or dtype not in _LE_DTYPES:
            self.bad("an unsupported dtype %r" % (dtype,))
        if not isinstance(shape, list) or len(shape) > 64 or not all(
                isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2 ** 62
                for s in shape):
            self.bad("an invalid shape %r" % (shape,))
        if node['t'] == 'npscalar' and shape:
            self.bad("a numpy scalar with shape %r" % (shape,))
        for v in (offset, nbytes):
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                self.bad("an invalid array offset/size")
        itemsize = _LE_DTYPES[dtype].itemsize
        if int(np.prod(shape, dtype=object)) * itemsize != nbytes or offset + nbytes > self.dlen:
            self.bad("an array whose size does not fit its shape or the data section")
        if int(np.prod([s for s in shape if s], dtype=object)) * itemsize >= 2 ** 62:
            self.bad("an array shape too large for numpy %r" % (shape,))  # even when empty
        if not isinstance(node.get('name', ''), str):
            self.bad("a tensor name that is not a string")
        self.array_nodes.append(node)

    def check_overlaps(self):
        end = 0
        for node in sorted(self.array_nodes, key=lambda n: n['offset']):
            if node['offset'] < end:
                self.bad("overlapping arrays")
            end = node['offset'] + node['nbytes']

    def build(self, node, arrays, return_numpy):
        t = node['t']
        if t == 'none':
            return None
        if t in ('bool', 'int', 'str'):
            return node['v']
        if t == 'float':
            return self._float(node['v'])
        if t == 'complex':
            return complex(self._float(node['re']), self._float(node['im']))
        if t == 'bytes':
            try:
                return base64.b64decode(node['v'].encode('ascii'), validate=True)
            except ValueError:
                pass
            self.bad("malformed base64 bytes")
        if t in ('list', 'tuple'):
            items = [self.build(v, arrays, return_numpy) for v in node['v']]
            return items if t == 'list' else tuple(items)
        if t in ('dict', 'odict'):
            out = collections.OrderedDict() if t == 'odict' else {}
            for k, v in zip(node['k'], node['v']):
                out[self.build(k, arrays, return_numpy)] = self.build(v, arrays, return_numpy)
            return out
        if t == 'program':
            return self._program(node['v'])
        arr = arrays[id(node)]
        if t == 'densetensor' and not return_numpy:
            held = DenseTensor()
            held.set(arr)
            return held
        if t == 'npscalar':
            return arr[()]
        if t == 'ndarray' or return_numpy:
            return arr
        tensor = Tensor.__new__(Tensor)
        tensor._init(arr, None, True)
        if 'name' in node:
            tensor._name = node['name']
        return tensor

    def _program(self, text):
        """A saved Program, checked as a model file's program is (structure,
        registered ops, plain attributes, then the IR verifier)."""
        try:
            d = _files.parse_json(text.encode('utf-8'))
            program = _program_io.program_from_dict(d)
            _verify.verify_program(program)
        except (_files.FileFormatError, _program_io.ProgramFormatError,
                _verify.VerifyError) as e:
            self.bad("a saved Program that does not load (%s)" % e)
        return program

    def _float(self, text):
        try:
            return float.fromhex(text)
        except (ValueError, OverflowError):
            pass
        self.bad("a malformed float %r" % (text,))


def _read(f, size, where, return_numpy):
    reader = _Reader(f, size, where)
    pre, hlen, dlen = reader.preamble()
    meta = reader.header(pre, hlen)
    decoder = _Decoder(reader, dlen)
    try:
        decoder.check(meta['root'])
        too_deep = False
    except RecursionError:
        too_deep = True
    if too_deep:
        decoder.bad("structure nested too deeply")
    decoder.check_overlaps()
    arrays = reader.arrays(decoder.array_nodes, dlen, meta['data_sha256'])
    return decoder.build(meta['root'], arrays, return_numpy)


def load(path, **configs):
    """Load an object saved by ``framework.save`` from ``path`` or a binary file object.

    Saved Tensors come back as Tensors (named as when saved, e.g. Parameters'
    names), or as numpy arrays with ``return_numpy=True``; numpy arrays, numbers,
    strings and containers come back as they were. A file that is not a
    checkpoint, was written by a newer version, is truncated or corrupted raises
    ``framework.serialization.CheckpointError`` naming the path.
    """
    _check_configs('framework.load', configs, _LOAD_CONFIGS)
    return_numpy = bool(configs.get('return_numpy', False))
    if hasattr(path, 'read'):
        where = repr(getattr(path, 'name', type(path).__name__))
        data = _one_object(path, where)
        return _read(_io.BytesIO(data), len(data), where, return_numpy)
    path = os.fspath(path)
    if not os.path.isfile(path):
        return _load_prefix(path, return_numpy)
    with open(path, 'rb') as f:
        return _read(f, os.fstat(f.fileno()).st_size, repr(path), return_numpy)


def _one_object(stream, where):
    """The bytes of the next saved object in ``stream``, which is left after
    it: several objects saved one after another into one stream load back one
    by one, as Paddle's do."""
    pre = stream.read(_PREAMBLE)
    if len(pre) == _PREAMBLE and pre[:len(MAGIC)] == MAGIC:
        hlen, dlen = struct.unpack('<QQ', pre[16:32])
        if hlen + dlen < 2 ** 62:
            return pre + stream.read(hlen + dlen)
    return pre + stream.read()      # not a checkpoint's preamble: _read says what is wrong


def _load_prefix(path, return_numpy):
    """``load('dir/model')`` where ``jit.save`` / ``save_inference_model`` wrote
    ``dir/model.pdmodel``: that model's parameters as {name: Tensor} (Paddle
    2.x), keyed by the saved layer's ``state_dict`` keys when they are known."""
    from .graph import model_files as _static_io
    if os.path.exists(path + _static_io.MODEL_SUFFIX):
        if os.path.isdir(path):
            raise ValueError("framework.load: both %s%s and the directory %s exist; rename one "
                             "so that the path is unambiguous"
                             % (path, _static_io.MODEL_SUFFIX, path))
        out = {}
        for key, name, arr in _static_io.model_state(path):
            if return_numpy:
                out[key] = arr
                continue
            t = Tensor.__new__(Tensor)
            t._init(arr, None, True)
            t._name = name
            out[key] = t
        return out
    if os.path.isdir(path):
        raise IsADirectoryError("framework.load: %r is a directory, not a checkpoint file or "
                                "a saved model prefix" % path)
    hint = ''
    if os.path.exists(path + '.pdparams') or os.path.exists(path + '.pdopt'):
        hint = (" Give the full file name, e.g. framework.load('%s.pdparams') instead of "
                "framework.load('%s')." % (path, path))
    raise FileNotFoundError("framework.load: %r does not exist (neither a file nor the prefix "
                            "of a saved model %r).%s" % (path, path + _static_io.MODEL_SUFFIX,
                                                         hint))
