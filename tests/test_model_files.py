"""Inference model files (``.pdmodel`` + ``.pdiparams``) that are damaged or
hostile: every loader (``load_inference_model``, ``jit.load``,
``create_predictor``, ``framework.load(prefix)``) raises ``ModelFormatError``
naming the file and what is wrong, before anything big is allocated or
compiled; interrupted saves are cleaned up and never pair the files of two
saves.
"""
import hashlib
import io
import json
import os
import pickle
import re
import signal
import struct
import zipfile

import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.inference import Config, create_predictor
from framework.ops import fused
from framework.ops.registry import OpError
from framework.graph.model_files import ModelFormatError, read_model

X = np.linspace(-1, 1, 8, dtype='float32').reshape(2, 4)


@pytest.fixture
def model(tmp_path):
    """prefix of a saved model: fc -> relu -> cond(sum > 0, h * 2, tanh h) -> reshape."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [None, 4], 'float32')
            h = paddle.nn.functional.relu(static.nn.fc(x, 3))
            h = static.nn.cond(paddle.sum(h) > 0, lambda: h * 2.0, lambda: paddle.tanh(h))
            out = paddle.reshape(h, [-1, 3])
        exe = static.Executor()
        exe.run(startup)
        prefix = str(tmp_path / 'net')
        static.save_inference_model(prefix, [x], [out], exe, program=main)
    finally:
        paddle.disable_static()
    return prefix


def read_json(prefix):
    with open(prefix + '.pdmodel') as f:
        return json.load(f)


def write_json(prefix, model, text=None):
    with open(prefix + '.pdmodel', 'w') as f:
        f.write(text if text is not None else json.dumps(model))


def ops(model, block=0):
    return model['program']['blocks'][block]['ops']


def op_of(model, type_, block=0):
    return next(o for o in ops(model, block) if o['type'] == type_)


def var_of(model, name):
    return next(v for b in model['program']['blocks'] for v in b['vars'] if v['name'] == name)


def load_error(prefix):
    with pytest.raises(ModelFormatError) as info:
        read_model(prefix)
    assert os.path.basename(prefix) in str(info.value)     # names the file
    return str(info.value)


# ---- fused_elementwise: references bounded by the inputs, before compiling ----------------

class _Timeout(BaseException):
    pass


def _within(seconds, fn):
    def alarm(*_):
        raise _Timeout()
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_fused_elementwise_refs_are_checked_before_compiling():
    """Before: ``_compile`` built a function with max(ref) + 1 parameters first
    (a ref of 10**7 took gigabytes and minutes)."""
    x = np.ones(3)
    with pytest.raises(OpError, match=r'refs \[10000000\].*0 <= k < 1'):
        _within(5, lambda: fused.fused_elementwise_op([x], [['relu', [10 ** 7], []]]))
    with pytest.raises(OpError, match='scale.*attribute bias_after_scale: expected bool'):
        fused.fused_elementwise_op([x], [['scale', [0], [2.0, 0.5, 'yes']]])
    np.testing.assert_array_equal(
        fused.fused_elementwise_op([x, x], [['add', [0, 1], []], ['relu', [-1], []]]), 2 * x)


def test_a_loaded_fused_op_with_unbounded_refs_is_refused(model):
    m = read_json(model)
    relu = op_of(m, 'relu')
    relu.update({'type': 'fused_elementwise', 'inputs': {'xs': relu['inputs']['x']},
                 'attrs': {'expr': [['relu', [10 ** 9], []]]}})
    write_json(model, m)
    assert 'refs [1000000000]' in _within(5, lambda: load_error(model))


# ---- every op against its declaration ---------------------------------------------------------

def _set_attr(type_, name, value):
    def edit(m):
        op_of(m, type_)['attrs'][name] = value
    return edit


def _swap_first_ops(m):
    o = ops(m)
    o[0], o[1] = o[1], o[0]


def _set_var(name, field, value):
    def edit(m):
        var_of(m, name)[field] = value
    return edit


def _slots(type_, slot, kind, names):
    def edit(m):
        op_of(m, type_)[kind][slot] = names
    return edit


def _drop_slot(type_, slot):
    def edit(m):
        del op_of(m, type_)['inputs'][slot]
    return edit


def _cond_into_itself(m):
    """Block 1 runs a cond whose true branch is block 1."""
    cond = dict(op_of(m, 'cond'), attrs=dict(op_of(m, 'cond')['attrs'], true_block=1))
    ops(m, 1).insert(0, cond)


def _full(shape):
    def edit(m):
        ops(m).insert(0, {'type': 'full', 'inputs': {}, 'outputs': {'out': ['big']},
                          'attrs': {'shape': shape, 'value': 0.0, 'dtype': 'float32'}})
        m['program']['blocks'][0]['vars'].append({'name': 'big', 'shape': [-1] * len(shape),
                                                  'dtype': 'float32'})
    return edit


EDITS = [
    ('unknown attribute', _set_attr('matmul', 'bogus', 1), "unknown attribute 'bogus'"),
    ('wrong attribute type', _set_attr('reshape', 'shape', 'abc'),
     'attribute shape: expected ints'),
    ('attribute out of int64', _set_attr('reshape', 'shape', [2 ** 70]), 'int64'),
    ('executor attribute', _set_attr('relu', 'op_inplace', 0), "'op_inplace' is the executor's"),
    ('executor attribute op_free', _set_attr('relu', 'op_free', ['x']), "'op_free'"),
    ('bad op_role', _set_attr('relu', 'op_role', [1]), 'attribute op_role'),
    ('unknown input slot', _slots('relu', 'bogus', 'inputs', ['x']), "unknown input slot 'bogus'"),
    ('two names for one input', _slots('matmul', 'x', 'inputs', ['x', 'x']), 'takes one name'),
    ('missing input', _drop_slot('matmul', 'y'), "input 'y' is missing"),
    ('unknown output slot', _slots('relu', 'outs', 'outputs', ['relu.tmp_0']),
     "unknown output slot 'outs'"),
    ('use before definition', _swap_first_ops, "reads variable 'matmul.tmp_0' before"),
    ('sub-block out of range', _set_attr('cond', 'true_block', 9), 'out of range'),
    ('sub-block cycle', _cond_into_itself, 'cycle'),
    ('control-flow attribute type', _set_attr('cond', 'true_outs', 3),
     'attribute true_outs: expected strs'),
    ('control-flow lengths', _set_attr('cond', 'false_outs', ['tanh.tmp_0', 'tanh.tmp_0']),
     'equally many'),
    ('branch output not defined', _set_attr('cond', 'true_outs', ['tanh.tmp_0']),
     "block 1 does not define 'tanh.tmp_0'"),
    ('unknown control-flow attribute', _set_attr('cond', 'sub_block', 1),
     "unknown attribute 'sub_block'"),
    ('shape against infer_meta', _set_var('matmul.tmp_0', 'shape', [-1, 7]),
     'declared with shape \\[-1, 7\\] but the op computes shape \\[-1, 3\\]'),
    ('dtype against infer_meta', _set_var('relu.tmp_0', 'dtype', 'float64'),
     'declared float64 but the op computes float32'),
    ('inputs that do not fit', _set_attr('matmul', 'transpose_y', True), 'do not fit'),
    ('size fixed by the file', _full([2 ** 20, 2 ** 20]), 'more than the'),
    ('shape attribute out of range', _full([3, -2]), r'-2 is out of the allowed range \[0, inf\]'),
    ('branch output dtype', _set_var('cond.out_0', 'dtype', 'float64'),
     "'cond.out_0' \\(float64 \\[-1, 3\\]\\) and 'multiply.tmp_0' \\(float32"),
    ('matmul of int64 and float32', _set_var('x', 'dtype', 'int64'),
     "input 'x' has dtype int64 but 'y' has dtype float32; matmul does not promote"),
    ('op_location type', _set_attr('relu', 'op_location', 7),
     'attribute op_location: expected str'),
    ('op_location length', _set_attr('relu', 'op_location', 'x' * 5000),
     'attribute op_location: 5000 characters, more than 4096'),
    ('negative dim', _set_var('x', 'shape', [-3, 4]), 'invalid shape'),
    ('unsupported dtype', _set_var('x', 'dtype', 'object'), 'unsupported dtype object'),
    ('feed/fetch op', lambda m: op_of(m, 'relu').update(type='fetch'),
     "'fetch'.*unknown op type"),
    ('unknown op', lambda m: op_of(m, 'relu').update(type='os_system'),
     "unknown op type 'os_system'"),
]


@pytest.mark.parametrize('edit,why', [e[1:] for e in EDITS], ids=[e[0] for e in EDITS])
def test_every_op_is_checked_against_its_declaration(model, edit, why):
    m = read_json(model)
    edit(m)
    write_json(model, m)
    assert re.search(why, load_error(model)), load_error(model)


def test_all_loaders_raise_the_clean_error(model):
    m = read_json(model)
    op_of(m, 'relu')['attrs']['op_inplace'] = 0
    write_json(model, m)
    checks = [lambda: read_model(model),
              lambda: paddle.jit.load(model),
              lambda: create_predictor(Config(model + '.pdmodel', model + '.pdiparams')),
              lambda: paddle.load(model)]
    for load in checks:
        with pytest.raises(ModelFormatError, match="net.pdmodel.*op_inplace"):
            load()
    paddle.enable_static()
    try:
        with pytest.raises(ModelFormatError, match='op_inplace'):
            static.load_inference_model(model, static.Executor())
    finally:
        paddle.disable_static()


# ---- op_location (the user's line that built an op) survives save and load ---------------------

def _locations(program):
    """{op type: op_location} of the ops that record one."""
    return {op.type: op.attrs['op_location'] for b in program.blocks for op in b.ops
            if op.attrs.get('op_location')}


def test_op_locations_survive_save_and_load(model):
    """Before: every loader refused the ops static mode records ("unknown
    attribute 'op_location'"). The locations name this file, after loading too."""
    program, _, _, _ = read_model(model)
    locations = _locations(program)
    assert {'matmul', 'relu', 'multiply', 'tanh', 'reshape'} <= set(locations)
    assert all(loc.startswith(__file__ + ':') for loc in locations.values())


def test_jit_save_keeps_op_locations(tmp_path):
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 3)

        def forward(self, x):
            return paddle.exp(self.fc(x))

    prefix = str(tmp_path / 'jit')
    paddle.jit.save(Net(), prefix,
                    input_spec=[static.InputSpec([None, 4], 'float32')])
    program, _, _, _ = read_model(prefix)
    assert _locations(program)['exp'].startswith(__file__ + ':')
    layer = paddle.jit.load(prefix)
    assert layer(paddle.to_tensor(X)).shape == [2, 3]


def test_a_loaded_program_names_the_users_line_in_nan_errors(model):
    paddle.enable_static()
    paddle.set_flags({'FLAGS_check_nan_inf': True})
    try:
        exe = static.Executor()
        program, feeds, fetches = static.load_inference_model(model, exe)
        bad = X.copy()
        bad[0, 0] = np.nan
        with pytest.raises(FloatingPointError, match=re.escape(__file__) + ':[0-9]+'):
            exe.run(program, feed={feeds[0]: bad}, fetch_list=fetches)
    finally:
        paddle.set_flags({'FLAGS_check_nan_inf': False})
        paddle.disable_static()


# ---- what used to escape as raw exceptions ------------------------------------------------------

def test_deep_nesting_is_refused_before_parsing(model):
    """Before: RecursionError."""
    m = read_json(model)
    deep = '[' * 100000 + ']' * 100000
    text = json.dumps(m).replace('"op_role": "forward"', '"op_role": %s' % deep, 1)
    write_json(model, None, text)
    assert 'nested 100' in load_error(model)


def test_duplicate_json_keys_are_refused(model):
    """Before: the last value won silently."""
    text = open(model + '.pdmodel').read().replace('"version": 1,', '"version": 1, "version": 1,',
                                                   1)
    write_json(model, None, text)
    assert "duplicate key 'version'" in load_error(model)


@pytest.mark.parametrize('field,value,why', [
    ('random_seed', {'a': 1}, 'random_seed'),          # before: TypeError
    ('version', 'x', 'version'),
    ('blocks', 7, 'no blocks'),
])
def test_malformed_program_fields(model, field, value, why):
    m = read_json(model)
    m['program'][field] = value
    write_json(model, m)
    assert why in load_error(model)


@pytest.mark.parametrize('field,value', [
    ('feed', 'x'), ('params', ['a', 'a']), ('params_sha256', 3), ('structured_names', [1]),
    ('save_id', 5)])
def test_malformed_model_fields(model, field, value):
    m = read_json(model)
    m[field] = value
    write_json(model, m)
    assert field in load_error(model)


# ---- the parameter file ------------------------------------------------------------------------

def _npy(arr, **header_edits):
    header = {'descr': np.lib.format.dtype_to_descr(arr.dtype), 'fortran_order': False,
              'shape': arr.shape}
    header.update(header_edits)
    text = repr(header)
    text += ' ' * ((-(10 + len(text) + 1)) % 64) + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(text)) + text.encode() + arr.tobytes()


def write_params(prefix, members, compression=zipfile.ZIP_STORED):
    """Replace the parameter file (and the checksum the model file records, as
    a crafted pair would)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    data = buf.getvalue()
    with open(prefix + '.pdiparams', 'wb') as f:
        f.write(data)
    m = read_json(prefix)
    m['params_sha256'] = hashlib.sha256(data).hexdigest()
    m.pop('save_id', None)
    write_json(prefix, m)


def good_members(prefix):
    with zipfile.ZipFile(prefix + '.pdiparams') as z:
        return {i.filename: z.read(i) for i in z.infolist()}


W = 'pcreate_parameter.w_0.npy'


def test_declared_sizes_are_checked_against_the_real_size(model):
    """Before: MemoryError (an .npy header claiming 2**40 elements)."""
    members = good_members(model)
    members[W] = _npy(np.zeros((4, 3), np.float32), shape=(2 ** 40,))
    write_params(model, members)
    assert 'declares shape [1099511627776]' in load_error(model)


def test_compressed_members_are_refused(model):
    """Before: a 265 KB deflated member loaded as 256 MB."""
    members = good_members(model)
    members[W] = _npy(np.zeros(2 ** 20, np.float32))
    write_params(model, members, zipfile.ZIP_DEFLATED)
    assert 'compressed' in load_error(model)


def _damage_member(prefix, name, edit):
    """Edit the stored bytes of member ``name`` in place (the zip records stay
    as they are) and re-point the model file's checksum at the result."""
    with open(prefix + '.pdiparams', 'rb') as f:
        data = bytearray(f.read())
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as z:
        info = z.getinfo(name)
    edit(data, info)
    with open(prefix + '.pdiparams', 'wb') as f:
        f.write(data)
    m = read_json(prefix)
    m['params_sha256'] = hashlib.sha256(data).hexdigest()
    write_json(prefix, m)


def test_member_bytes_are_checked_against_their_crc(model):
    def flip_last_byte(data, info):
        name_len, extra_len = struct.unpack('<HH', data[info.header_offset + 26:
                                                       info.header_offset + 30])
        data[info.header_offset + 30 + name_len + extra_len + info.file_size - 1] ^= 0xFF
    _damage_member(model, W, flip_last_byte)
    assert "member '%s' is corrupted (CRC mismatch)" % W in load_error(model)


def test_member_local_headers_are_checked(model):
    def rename(data, info):
        data[info.header_offset + 30] ^= 0x01
    _damage_member(model, W, rename)
    assert "member '%s' has another name in its local header" % W in load_error(model)
    _damage_member(model, W, lambda data, info: data.__setitem__(info.header_offset, 0))
    assert "member '%s' has no local header" % W in load_error(model)


def test_saved_parameter_files_hold_stored_members(model):
    with zipfile.ZipFile(model + '.pdiparams') as z:
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}


def test_bool_parameters_must_hold_0_or_1(tmp_path):
    """Before: a bool array with byte 7 loaded without complaint."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [None, 3], 'float32')
            mask = static.create_parameter([3], 'bool', name='mask')
            out = paddle.where(mask, x, paddle.zeros_like(x))
        scope = static.Scope()
        scope.vars['mask'] = np.array([True, False, True])
        prefix = str(tmp_path / 'masked')
        static.save_inference_model(prefix, [x], [out], static.Executor(), program=main,
                                    scope=scope)
    finally:
        paddle.disable_static()
    read_model(prefix)
    members = good_members(prefix)
    members['pmask.npy'] = members['pmask.npy'][:-3] + bytes([1, 7, 0])
    write_params(prefix, members)
    assert 'bytes other than 0 and 1' in load_error(prefix)


@pytest.mark.parametrize('edit,why', [
    (lambda ms: ms.pop(W), 'missing'),
    (lambda ms: ms.update({'pextra.npy': ms[W]}), 'unexpected member'),
    (lambda ms: ms.update({W: _npy(np.zeros((4, 3), np.float32), descr='>f4')}),
     'unsupported dtype'),
    (lambda ms: ms.update({W: _npy(np.zeros((4, 3), np.float32), shape=(3, 'a'))}),
     'invalid shape'),
    (lambda ms: ms.update({W: _npy(np.zeros((4, 3), np.float32), fortran_order=1)}),
     'fortran_order'),
    (lambda ms: ms.update({W: _npy(np.zeros((3, 4), np.float32))}),
     r"'create_parameter.w_0' is float32 \[3, 4\] but the program declares float32 \[4, 3\]"),
    (lambda ms: ms.update({W: _npy(np.zeros((4, 3), np.float64))}), 'is float64'),
    (lambda ms: ms.update({W: b'\x93NUMPY\x01\x00\x10\x00' + b"__import__('os')"}),
     'malformed .npy header'),
])
def test_malformed_parameter_members(model, edit, why):
    members = good_members(model)
    edit(members)
    write_params(model, members)
    assert re.search(why, load_error(model))


def test_loading_never_unpickles_parameters(model, tmp_path):
    marker = tmp_path / 'pwned'

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), 'w'))
    payload = pickle.dumps(Evil())
    members = good_members(model)
    members[W] = _npy(np.zeros(0, np.uint8), descr='|O', shape=(1,)) + payload
    write_params(model, members)
    assert 'unsupported dtype' in load_error(model)
    assert not marker.exists()


# ---- the two files of one save ---------------------------------------------------------------

def test_the_loader_says_which_file_is_stale(model, tmp_path):
    """A parameter file of a later save next to an older model file."""
    old_model = open(model + '.pdmodel').read()
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [None, 4], 'float32')
            out = paddle.nn.functional.relu(static.nn.fc(x, 3))
        exe = static.Executor()
        exe.run(startup)
        static.save_inference_model(model, [x], [out], exe, program=main)
    finally:
        paddle.disable_static()
    write_json(model, None, old_model)
    msg = load_error(model)
    assert 'from different saves' in msg and "net.pdiparams' is the newer one" in msg
    assert "net.pdmodel' is stale" in msg


def test_stale_temporaries_are_removed_by_the_next_save(model, tmp_path):
    import fcntl
    d = str(tmp_path)
    stale = [os.path.join(d, n) for n in ('.net.pdiparams.k3j2h1g0.tmp', '.net.pdmodel.a1b2c3.tmp',
                                          '.net.pdiparams.prev-0123456789abcdef.tmp')]
    for name in stale:
        with open(name, 'wb') as f:
            f.write(b'\0' * 1000)
    # a temporary some live writer holds (locked) and another file's are kept
    busy = os.path.join(d, '.net.pdiparams.busy0000.tmp')
    other = os.path.join(d, '.net.pdiparams.old.x1.tmp')
    for name in (busy, other):
        open(name, 'wb').close()
    fd = os.open(busy, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        m = read_json(model)
        paddle.enable_static()
        try:
            prog, feeds, fetches = static.load_inference_model(model, static.Executor())
            static.save_inference_model(model, feeds, fetches, static.Executor(), program=prog)
        finally:
            paddle.disable_static()
        assert not any(os.path.exists(n) for n in stale)
        assert os.path.exists(busy) and os.path.exists(other)
    finally:
        os.close(fd)
    assert read_json(model)['feed'] == m['feed']
    assert oct(os.stat(model + '.pdmodel').st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask
