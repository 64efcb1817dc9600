"""framework.save / framework.load: round trips, refusals, and damaged files."""
import collections
import hashlib
import io
import json
import math
import os
import pickle
import struct

import numpy as np
import pytest

import framework
from framework.serialization import MAGIC, CheckpointError

rng = np.random.default_rng(7)


def roundtrip(obj, tmp_path, **configs):
    path = str(tmp_path / 'x.pdparams')
    framework.save(obj, path)
    return framework.load(path, **configs)


# ----------------------------------------------------------------------------- round trips
def test_state_dict_of_tensors_and_parameters(tmp_path):
    w = framework.Parameter(rng.standard_normal((3, 4)).astype(np.float32), name='linear_0.w_0')
    b = framework.to_tensor(np.zeros(4, np.float32))
    state = collections.OrderedDict([('fc.weight', w), ('fc.bias', b)])
    out = roundtrip(state, tmp_path)
    assert isinstance(out, collections.OrderedDict) and list(out) == ['fc.weight', 'fc.bias']
    assert isinstance(out['fc.weight'], framework.Tensor)
    assert out['fc.weight'].name == 'linear_0.w_0'          # Parameter names survive
    assert out['fc.weight'].stop_gradient is True
    assert out['fc.weight'].dtype == np.float32
    np.testing.assert_array_equal(out['fc.weight'].numpy(), w.numpy())
    np.testing.assert_array_equal(out['fc.bias'].numpy(), b.numpy())


def test_return_numpy(tmp_path):
    out = roundtrip({'t': framework.to_tensor([1.0, 2.0]), 'a': np.arange(3)}, tmp_path,
                    return_numpy=True)
    assert isinstance(out['t'], np.ndarray) and out['t'].tolist() == [1.0, 2.0]
    assert isinstance(out['a'], np.ndarray)


DTYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64',
          'float16', 'float32', 'float64', 'complex64', 'complex128']


@pytest.mark.parametrize('dtype', DTYPES)
def test_every_dtype(tmp_path, dtype):
    a = (rng.standard_normal((2, 3)) * 50).astype(dtype)
    if np.dtype(dtype).kind == 'c':
        a = a + 1j * a[::-1]
    out = roundtrip([a, framework.to_tensor(a)], tmp_path)
    for got in (out[0], out[1].numpy()):
        assert got.dtype == np.dtype(dtype) and got.shape == a.shape
        np.testing.assert_array_equal(got, a)


def test_array_layouts(tmp_path):
    base = rng.standard_normal((4, 6))
    arrays = {'scalar0d': np.array(3.5), 'empty': np.zeros((0, 3), np.int32),
              'noncontig': base[:, ::2], 'fortran': np.asfortranarray(base),
              'bigendian': base.astype('>f8'), 'big': rng.standard_normal(100000)}
    out = roundtrip(arrays, tmp_path)
    for k, v in arrays.items():
        assert out[k].shape == v.shape, k
        np.testing.assert_array_equal(out[k], v)
        assert out[k].flags.writeable and out[k].dtype.isnative
    out['big'][0] = 1.0         # arrays are independent, writable copies


def test_python_values(tmp_path):
    obj = {'int': 3, 'big': 2 ** 80, 'neg': -7, 'float': 0.1, 'inf': math.inf, 'ninf': -math.inf,
           'negzero': -0.0, 'complex': 1.5 - 2j, 'str': 'héllo ✓ "quoted"\n', 'bytes': b'\x00\xff',
           'true': True, 'false': False, 'none': None, 'tuple': (1, (2, [3])), 'list': [1, [2]],
           'empty': [[], (), {}], 3: 'int key', 2.5: 'float key', None: 'none key',
           False: 'bool key'}
    out = roundtrip(obj, tmp_path)
    assert out == obj
    assert isinstance(out['tuple'], tuple) and isinstance(out['tuple'][1][1], list)
    assert type(out['true']) is bool and type(out['int']) is int
    assert math.copysign(1, out['negzero']) == -1
    assert math.isnan(roundtrip(float('nan'), tmp_path))
    assert list(out) == list(obj)


def test_numpy_scalars_keep_their_type(tmp_path):
    out = roundtrip([np.float32(1.5), np.int64(3), np.bool_(True)], tmp_path)
    assert type(out[0]) is np.float32 and out[0] == 1.5
    assert type(out[1]) is np.int64 and type(out[2]) is np.bool_


def test_optimizer_like_state(tmp_path):
    state = {'global_step': 10,
             'LR_Scheduler': {'last_epoch': 3, 'last_lr': 0.01},
             'fc.w_0_moment1_0': framework.to_tensor(np.ones((2, 2), np.float32)),
             'master_weights': {}, 'betas': [0.9, 0.999]}
    out = roundtrip(state, tmp_path)
    assert out['LR_Scheduler'] == {'last_epoch': 3, 'last_lr': 0.01}
    assert out['fc.w_0_moment1_0'].numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_top_level_tensor_and_file_objects(tmp_path):
    t = framework.to_tensor([[1, 2], [3, 4]])
    assert roundtrip(t, tmp_path).numpy().tolist() == [[1, 2], [3, 4]]
    buf = io.BytesIO()
    framework.save({'a': t}, buf)
    buf.seek(0)
    assert framework.load(buf)['a'].numpy().tolist() == [[1, 2], [3, 4]]


def test_creates_directories_atomically_with_normal_mode(tmp_path):
    path = tmp_path / 'deep' / 'er' / 'model.pdparams'
    framework.save({'a': 1}, str(path))
    assert framework.load(str(path)) == {'a': 1}
    framework.save({'a': 2}, path)                           # PathLike, overwrite
    assert framework.load(path) == {'a': 2}
    assert os.listdir(path.parent) == ['model.pdparams']     # no temp files left
    umask = os.umask(0)
    os.umask(umask)
    assert (path.stat().st_mode & 0o777) == (0o666 & ~umask)


def test_failed_save_keeps_the_old_file(tmp_path):
    path = tmp_path / 'm.pdparams'
    framework.save({'ok': 1}, str(path))
    with pytest.raises(TypeError):
        framework.save({'bad': object()}, str(path))
    assert framework.load(str(path)) == {'ok': 1}
    assert os.listdir(tmp_path) == ['m.pdparams']


def test_format_is_documented_layout(tmp_path):
    """The bytes follow the module docstring: magic, version, lengths, header hash,
    a JSON header, then 64-byte-aligned little-endian arrays."""
    path = str(tmp_path / 'f')
    framework.save({'w': np.arange(3, dtype=np.int16)}, path)
    raw = open(path, 'rb').read()
    assert raw[:8] == MAGIC
    version, flags, hlen, dlen = struct.unpack('<IIQQ', raw[8:32])
    assert (version, flags) == (1, 0) and len(raw) == 64 + hlen + dlen and (64 + hlen) % 64 == 0
    assert hashlib.sha256(raw[:32] + raw[64:64 + hlen]).digest() == raw[32:64]
    header = json.loads(raw[64:64 + hlen])
    assert header['data_sha256'] == hashlib.sha256(raw[64 + hlen:]).hexdigest()
    node = header['root']['v'][0]
    assert node == {'t': 'ndarray', 'dtype': 'int16', 'shape': [3], 'offset': 0, 'nbytes': 6}
    assert raw[64 + hlen:64 + hlen + 6] == b'\x00\x00\x01\x00\x02\x00'


# ----------------------------------------------------------------------------- refusals
class FakeLayer:
    def state_dict(self):
        return {}


def test_refuses_unrepresentable_objects_naming_type_and_path(tmp_path):
    path = str(tmp_path / 'x')
    with pytest.raises(TypeError, match=r"'FakeLayer' at obj\['model'\]\['layers'\]\[1\].*"
                                        r"state_dict\(\)"):
        framework.save({'model': {'layers': [1, FakeLayer()]}}, path)
    with pytest.raises(TypeError, match=r"type 'set' at obj"):
        framework.save({1, 2}, path)
    with pytest.raises(TypeError, match=r"dtype object at obj\['a'\]"):
        framework.save({'a': np.array([object()])}, path)
    with pytest.raises(TypeError, match=r'dtype <U1'):
        framework.save(np.array(['x']), path)
    with pytest.raises(TypeError, match=r"dict key of type 'tuple'"):
        framework.save({(1, 2): 3}, path)
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match='circular'):
        framework.save({'l': loop}, path)
    assert not os.path.exists(path)


def test_refuses_nesting_it_could_not_load(tmp_path):
    deep = None
    for _ in range(300):
        deep = [deep]
    with pytest.raises(ValueError, match='nested more than 256 levels'):
        framework.save(deep, str(tmp_path / 'x'))


def test_shared_objects_are_not_cycles(tmp_path):
    shared = [1, 2]
    assert roundtrip({'a': shared, 'b': shared}, tmp_path) == {'a': [1, 2], 'b': [1, 2]}


def test_argument_errors(tmp_path):
    with pytest.raises(ValueError, match='protocol'):
        framework.save({}, str(tmp_path / 'x'), protocol=5)
    with pytest.raises(ValueError, match='unsupported config.*colour'):
        framework.save({}, str(tmp_path / 'x'), colour=1)
    framework.save({}, str(tmp_path / 'x'), use_binary_format=True)
    with pytest.raises(ValueError, match='unsupported config.*model_filename'):
        framework.load(str(tmp_path / 'x'), model_filename='m')
    with pytest.raises(ValueError, match='directory'):
        framework.save({}, str(tmp_path))
    with pytest.raises(ValueError, match='must name a file'):
        framework.save({}, str(tmp_path) + os.sep)
    with pytest.raises(IsADirectoryError):
        framework.load(str(tmp_path))
    with pytest.raises(FileNotFoundError):
        framework.load(str(tmp_path / 'missing'))


# ----------------------------------------------------------------------------- damaged files
@pytest.fixture
def saved(tmp_path):
    path = str(tmp_path / 'ckpt.pdparams')
    obj = {'w': framework.Parameter(rng.standard_normal((5, 7)).astype(np.float32), name='w0'),
           'step': 12, 'hist': [np.arange(10), 'text', None, (1.5, True)],
           'empty': np.zeros((0,))}
    framework.save(obj, path)
    return path, open(path, 'rb').read()


def load_bytes(tmp_path, data, name='bad.pdparams'):
    path = str(tmp_path / name)
    with open(path, 'wb') as f:
        f.write(data)
    return framework.load(path)


def test_foreign_files(tmp_path):
    with pytest.raises(CheckpointError, match=r"bad\.pdparams.*not a framework checkpoint"):
        load_bytes(tmp_path, b'hello world, definitely not a checkpoint' * 3)
    with pytest.raises(CheckpointError, match='pickle'):
        load_bytes(tmp_path, pickle.dumps({'a': 1}, protocol=4))
    buf = io.BytesIO()
    np.savez(buf, a=np.zeros(2))
    with pytest.raises(CheckpointError, match='zip archive'):
        load_bytes(tmp_path, buf.getvalue())
    with pytest.raises(CheckpointError, match='empty'):
        load_bytes(tmp_path, b'')


def test_newer_version(tmp_path, saved):
    _, raw = saved
    newer = raw[:8] + struct.pack('<I', 2) + raw[12:]
    with pytest.raises(CheckpointError, match=r'newer framework.*version 2.*upgrade'):
        load_bytes(tmp_path, newer)


def test_truncated_and_trailing(tmp_path, saved):
    path, raw = saved
    for n in (4, 40, 64, 100, len(raw) - 1):
        with pytest.raises(CheckpointError, match=r"bad\.pdparams.*truncated"):
            load_bytes(tmp_path, raw[:n])
    with pytest.raises(CheckpointError, match='trailing'):
        load_bytes(tmp_path, raw + b'\0')


def test_corrupted_header_and_data(tmp_path, saved):
    _, raw = saved
    hlen = struct.unpack('<Q', raw[16:24])[0]
    in_header = bytearray(raw)
    in_header[64 + 5] ^= 0x01
    with pytest.raises(CheckpointError, match='header checksum'):
        load_bytes(tmp_path, bytes(in_header))
    in_data = bytearray(raw)
    in_data[64 + hlen + 3] ^= 0x80
    with pytest.raises(CheckpointError, match='checksum of the array data'):
        load_bytes(tmp_path, bytes(in_data))


def test_random_corruption_always_gives_a_clear_error(tmp_path, saved):
    """Fuzz: flipped bytes, overwritten runs, truncation and insertion anywhere in the
    file must raise CheckpointError (never a numpy/json/struct error, never a crash)."""
    _, raw = saved
    fuzz = np.random.default_rng(2024)
    for trial in range(300):
        data = bytearray(raw)
        kind = trial % 4
        if kind == 0:
            for _ in range(int(fuzz.integers(1, 4))):
                pos = int(fuzz.integers(0, len(data)))
                data[pos] ^= int(fuzz.integers(1, 256))
        elif kind == 1:
            pos = int(fuzz.integers(0, len(data)))
            run = fuzz.integers(0, 256, size=int(fuzz.integers(1, 16)), dtype=np.uint8)
            new = bytes(run)
            if data[pos:pos + len(new)] == new:
                continue
            data[pos:pos + len(new)] = new
        elif kind == 2:
            data = data[:int(fuzz.integers(0, len(data)))]
        else:
            pos = int(fuzz.integers(0, len(data)))
            data[pos:pos] = bytes(fuzz.integers(0, 256, size=3, dtype=np.uint8))
        try:
            load_bytes(tmp_path, bytes(data))
        except CheckpointError as e:
            assert 'bad.pdparams' in str(e)
        else:
            raise AssertionError('trial %d (kind %d) loaded a damaged file' % (trial, kind))


def _forge(header_obj, data=b''):
    """A file with valid checksums around an arbitrary (hostile) header."""
    header = header_obj if isinstance(header_obj, bytes) else json.dumps(header_obj).encode()
    header += b' ' * ((-(64 + len(header))) % 64)
    pre = MAGIC + struct.pack('<IIQQ', 1, 0, len(header), len(data))
    pre += hashlib.sha256(pre + header).digest()
    return pre + header + data


@pytest.mark.parametrize('root,data,why', [
    ({'t': 'pickle', 'v': 'cos\nsystem\n'}, b'', 'unknown node kind'),
    ({'t': 'ndarray', 'dtype': 'object', 'shape': [1], 'offset': 0, 'nbytes': 8}, b'\0' * 8,
     'unsupported dtype'),
    ({'t': 'ndarray', 'dtype': 'float32', 'shape': [4], 'offset': 0, 'nbytes': 8}, b'\0' * 8,
     'does not fit'),
    ({'t': 'ndarray', 'dtype': 'float32', 'shape': [2], 'offset': 8, 'nbytes': 8}, b'\0' * 8,
     'does not fit'),
    ({'t': 'ndarray', 'dtype': 'float64', 'shape': [0, 2 ** 61], 'offset': 0, 'nbytes': 0}, b'',
     'too large'),
    ({'t': 'list', 'v': [{'t': 'ndarray', 'dtype': 'uint8', 'shape': [4], 'offset': 0,
                          'nbytes': 4},
                         {'t': 'ndarray', 'dtype': 'uint8', 'shape': [4], 'offset': 2,
                          'nbytes': 4}]}, b'\0' * 8, 'overlapping'),
    ({'t': 'dict', 'k': [{'t': 'list', 'v': []}], 'v': [{'t': 'none'}]}, b'', 'dict key'),
    ({'t': 'dict', 'k': [], 'v': [{'t': 'none'}]}, b'', 'mismatched'),
    ({'t': 'float', 'v': 'not-a-float'}, b'', 'malformed float'),
    ({'t': 'int', 'v': 'seven'}, b'', 'malformed int'),
    ({'t': 'bytes', 'v': '!!!'}, b'', 'base64'),
    ({'t': 'ndarray', 'dtype': 'uint8', 'shape': [-1], 'offset': 0, 'nbytes': 0}, b'',
     'invalid shape'),
    ([1, 2], b'', 'invalid node'),
])
def test_hostile_headers_are_rejected(tmp_path, root, data, why):
    digest = hashlib.sha256(data).hexdigest()
    raw = _forge({'format': 'framework.save', 'data_sha256': digest, 'root': root}, data)
    with pytest.raises(CheckpointError, match=why):
        load_bytes(tmp_path, raw)


@pytest.mark.parametrize('depth', [300, 100000])
def test_deeply_nested_hostile_header(tmp_path, depth):
    digest = hashlib.sha256(b'').hexdigest()
    root = '{"t":"list","v":[' * depth + '{"t":"none"}' + ']}' * depth
    header = ('{"format":"framework.save","data_sha256":"%s","root":%s}' % (digest, root))
    with pytest.raises(CheckpointError, match='corrupted.*(nested|JSON)'):
        load_bytes(tmp_path, _forge(header.encode()))
    with pytest.raises(CheckpointError, match='lacks'):
        load_bytes(tmp_path, _forge({'root': {'t': 'none'}}))


def test_bool_arrays_must_hold_0_or_1(tmp_path):
    """Before: a bool array whose bytes were 2 and 255 loaded without complaint."""
    data = bytes([1, 0, 2, 255])
    root = {'t': 'ndarray', 'dtype': 'bool', 'shape': [4], 'offset': 0, 'nbytes': 4}
    raw = _forge({'format': 'framework.save', 'data_sha256': hashlib.sha256(data).hexdigest(),
                  'root': root}, data)
    with pytest.raises(CheckpointError, match=r'bad\.pdparams.*bool array holds bytes other'):
        load_bytes(tmp_path, raw)
    good = bytes([1, 0, 0, 1])
    raw = _forge({'format': 'framework.save', 'data_sha256': hashlib.sha256(good).hexdigest(),
                  'root': root}, good)
    assert load_bytes(tmp_path, raw).tolist() == [True, False, False, True]


def test_duplicate_keys_in_the_header_are_refused(tmp_path):
    """Before: the last of two equal keys silently won."""
    digest = hashlib.sha256(b'').hexdigest()
    header = ('{"format": "framework.save", "data_sha256": "%s", "root": {"t": "int", "v": 1, '
              '"v": 2}}' % digest)
    with pytest.raises(CheckpointError, match="duplicate key 'v'"):
        load_bytes(tmp_path, _forge(header.encode()))


def test_a_dtype_of_the_wrong_kind_is_a_clean_error(tmp_path):
    """Before: TypeError (unhashable list)."""
    root = {'t': 'ndarray', 'dtype': ['float32'], 'shape': [1], 'offset': 0, 'nbytes': 4}
    raw = _forge({'format': 'framework.save', 'data_sha256': hashlib.sha256(b'').hexdigest(),
                  'root': root})
    with pytest.raises(CheckpointError, match='unsupported dtype'):
        load_bytes(tmp_path, raw)


def test_stale_temporaries_are_removed_by_the_next_save(tmp_path):
    """Temporaries a killed save left (no live writer holds their lock) go; a
    live writer's and other files' temporaries stay."""
    import fcntl
    path = str(tmp_path / 'model.pdparams')
    stale = tmp_path / '.model.pdparams.x8k2m1qz.tmp'
    stale.write_bytes(b'\0' * 4096)
    busy = tmp_path / '.model.pdparams.busy1234.tmp'
    other = tmp_path / '.model.pdparams.bak.y7.tmp'
    busy.write_bytes(b'')
    other.write_bytes(b'')
    fd = os.open(str(busy), os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        framework.save({'a': 1}, path)
    finally:
        os.close(fd)
    assert not stale.exists() and busy.exists() and other.exists()
    assert framework.load(path) == {'a': 1}


def test_loading_never_unpickles(tmp_path):
    marker = tmp_path / 'pwned'

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), 'w'))
    with pytest.raises(CheckpointError):
        load_bytes(tmp_path, pickle.dumps({'x': Evil()}))
    assert not marker.exists()


def test_layer_and_optimizer_checkpoint(tmp_path):
    """The usual Paddle checkpoint: layer and optimizer state dicts, restored into new
    objects that then compute the same thing."""
    def linear():       # fixed parameter names, as a fresh process would produce
        return framework.nn.Linear(3, 2, weight_attr=framework.ParamAttr(name='fc.w_0'),
                                   bias_attr=framework.ParamAttr(name='fc.b_0'))
    framework.seed(0)
    model = linear()
    opt = framework.optimizer.Adam(parameters=model.parameters(), learning_rate=0.1)
    x = framework.to_tensor(rng.standard_normal((4, 3)).astype(np.float32))
    model(x).sum().backward()
    opt.step()
    framework.save(model.state_dict(), str(tmp_path / 'm.pdparams'))
    framework.save(opt.state_dict(), str(tmp_path / 'm.pdopt'))
    with pytest.raises(TypeError, match="'Linear'.*state_dict"):
        framework.save(model, str(tmp_path / 'bad'))

    model2 = linear()
    opt2 = framework.optimizer.Adam(parameters=model2.parameters(), learning_rate=0.1)
    state = framework.load(str(tmp_path / 'm.pdparams'))
    assert state['weight'].name == model.weight.name
    model2.set_state_dict(state)
    opt2.set_state_dict(framework.load(str(tmp_path / 'm.pdopt')))
    np.testing.assert_array_equal(model2(x).numpy(), model(x).numpy())
    for m, o in ((model, opt), (model2, opt2)):     # one more identical step each
        o.clear_grad()
        m(x).sum().backward()
        o.step()
    np.testing.assert_allclose(model2.weight.numpy(), model.weight.numpy(), rtol=1e-6)


def test_a_model_with_float_arange_and_diag_padding_loads(tmp_path):
    # attribute types derived from int defaults once refused these floats on load
    import framework as paddle
    from framework.static import InputSpec

    def f(x):
        return x * paddle.arange(0.0, 1.0, 0.25) + paddle.diag(x[0], padding_value=0.5).sum()

    path = str(tmp_path / 'm')
    paddle.jit.save(paddle.jit.to_static(f, input_spec=[InputSpec([2, 4], 'float32')]), path)
    loaded = paddle.jit.load(path)
    x = paddle.to_tensor(np.arange(8, dtype='float32').reshape(2, 4))
    np.testing.assert_allclose(loaded(x).numpy(), f(x).numpy(), rtol=1e-6)


# ---------------------------------------------------------- streams, Programs, DenseTensors
def test_objects_saved_one_after_another_into_a_stream_load_in_order():
    buf = io.BytesIO()
    framework.save({'a': framework.to_tensor([1.0])}, buf)
    framework.save(framework.to_tensor([[2, 3]]), buf)
    framework.save('third', buf)
    buf.seek(0)
    assert framework.load(buf)['a'].numpy().tolist() == [1.0]
    assert framework.load(buf).numpy().tolist() == [[2, 3]]
    assert framework.load(buf) == 'third'
    with pytest.raises(CheckpointError, match='is empty'):
        framework.load(buf)
    cut = io.BytesIO(buf.getvalue()[:100])
    with pytest.raises(CheckpointError, match='truncated'):
        framework.load(cut)


def test_a_static_program_and_a_scope_tensor_round_trip(tmp_path):
    framework.enable_static()
    try:
        main, start = framework.static.Program(), framework.static.Program()
        with framework.static.program_guard(main, start):
            x = framework.static.data('x', [None, 4], 'float32')
            y = framework.static.nn.fc(x, 3)
        exe = framework.static.Executor()
        exe.run(start)
        framework.save(main, str(tmp_path / 'main.pdmodel'))
        loaded = framework.load(str(tmp_path / 'main.pdmodel'))
        assert isinstance(loaded, framework.static.Program)
        assert [op.type for op in loaded.global_block().ops] == \
            [op.type for op in main.global_block().ops]
        feed = {'x': np.ones((2, 4), np.float32)}
        want, = exe.run(main, feed=feed, fetch_list=[y.name])
        got, = exe.run(loaded, feed=feed, fetch_list=[y.name])
        np.testing.assert_array_equal(got, want)
        w = [v for v in main.list_vars() if v.persistable][0]
        held = framework.static.global_scope().find_var(w.name).get_tensor()
        framework.save(held, str(tmp_path / 'w.pdtensor'))
        back = framework.load(str(tmp_path / 'w.pdtensor'))
        assert isinstance(back, framework.base.core.DenseTensor)
        np.testing.assert_array_equal(np.array(back), np.array(held))
        assert isinstance(framework.load(str(tmp_path / 'w.pdtensor'), return_numpy=True),
                          np.ndarray)
    finally:
        framework.disable_static()


def test_a_saved_program_is_checked_when_loaded(tmp_path):
    framework.enable_static()
    try:
        main = framework.static.Program()
        with framework.static.program_guard(main, framework.static.Program()):
            x = framework.static.data('x', [2], 'float32')
            framework.exp(x)
        path = str(tmp_path / 'p.pdmodel')
        framework.save(main, path)
    finally:
        framework.disable_static()
    raw = open(path, 'rb').read()
    hlen = struct.unpack('<Q', raw[16:24])[0]
    header = raw[64:64 + hlen].replace(b'\\"exp\\"', b'\\"xyz\\"')
    pre = raw[:32] + hashlib.sha256(raw[:32] + header).digest()
    open(path, 'wb').write(pre + header + raw[64 + hlen:])
    with pytest.raises(CheckpointError, match='saved Program that does not load'):
        framework.load(path)
