"""Fuzzing the loaders: damaged and hostile files give clean errors, never raw ones.

Three fuzzers, one per kind of file the framework reads:

* ``framework.save`` checkpoints (``framework.load``),
* inference models (``static.load_inference_model``, ``create_predictor``,
  ``framework.load(prefix)``), from ``save_inference_model`` of a program with a
  ``while`` loop and from ``jit.save`` of a Layer with a ``cond``,
* ``jit.save`` output loaded by ``jit.load``.

Each case mutates a good file: truncations, byte flips, overwritten and inserted
runs, edits of header/JSON fields (with the checksums recomputed, so the edit
reaches the parser behind them), size lies in array headers, deep nesting,
duplicate JSON keys, unknown ops, unknown and internal attributes, hostile
``fused_elementwise`` instructions, bool bytes other than 0/1 and compressed
parameter members. Then it loads the file and, when that succeeds, runs the
model once. A case passes when the load returns or raises the project's
``ModelFormatError`` / ``CheckpointError`` naming the file, within a time limit
and a memory bound (both the load and the first run).

CI runs a few hundred seeded, deterministic cases (a few seconds); the
``slow`` variants run many more. Each test prints its counts: cases tried,
clean errors, raw errors, hangs, other problems and the peak memory of a case
(``pytest -s``).
"""
import base64
import hashlib
import io
import json
import os
import signal
import struct
import tempfile
import traceback
import tracemalloc
import warnings
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import framework as paddle
import framework.nn.functional as F
from framework import nn, static
from framework.inference import Config, create_predictor
from framework.serialization import MAGIC, CheckpointError
from framework.graph.model_files import ModelFormatError
from framework.static.input_spec import InputSpec

CI_CASES = 100
SLOW_CASES = 2000
TIME_LIMIT = 20.0            # seconds per case (load + first run)
MEMORY_LIMIT = 64 << 20      # bytes traced per case (the files are a few KB)
# with FUZZ_COUNT_ONLY=1 raw errors are counted, not failed (to measure a baseline)
COUNT_ONLY = os.environ.get('FUZZ_COUNT_ONLY') == '1'


# ---- the models ------------------------------------------------------------------------

class FuzzNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 6)
        self.fc2 = nn.Linear(6, 3)
        self.register_buffer('mask', paddle.to_tensor([True, False, True, True, False, True]))

    @paddle.jit.to_static
    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.mean() > 0.5:
            h = h * 0.5
        else:
            h = paddle.tanh(h)
        h = paddle.where(self.mask, h, paddle.zeros_like(h))
        h = paddle.reshape(h, [-1, 2, 3]).transpose([0, 2, 1]).reshape([-1, 6])
        return F.softmax(self.fc2(h[:, :6]), axis=-1)


def _save_loop_model(prefix):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [None, 4], 'float32')
            i = paddle.zeros([1], 'int64')
            n = paddle.full([1], 3, 'int64')
            _, out = static.nn.while_loop(lambda i, v: i < n,
                                          lambda i, v: (i + 1, v * 2.0 + 1.0), [i, x])
            out = static.nn.fc(out, 3)
        exe = static.Executor()
        exe.run(startup)
        static.save_inference_model(prefix, [x], [out], exe, program=main)
    finally:
        paddle.disable_static()


@pytest.fixture(autouse=True)
def small_size_bound(monkeypatch):
    """Sizes a loaded program may fix stay far below the memory bound here
    (the default, 2**28 elements, is meant for real models)."""
    from framework.graph import verify
    monkeypatch.setattr(verify, 'MAX_NUMEL', 2 ** 20)


@pytest.fixture(scope='module')
def originals(tmp_path_factory):
    """{kind: {suffix: bytes}} of the good files."""
    d = str(tmp_path_factory.mktemp('fuzz_originals'))
    paddle.seed(1)
    net = FuzzNet()
    net.eval()
    paddle.jit.save(net, d + '/jit', input_spec=[InputSpec([None, 4], 'float32', 'x')])
    _save_loop_model(d + '/loop')
    paddle.save({'w': net.fc1.weight, 'mask': net.mask, 'step': 3, 'lr': [0.1, (1, 'a')],
                 'blob': b'\x00\x01', 'np': np.arange(6, dtype='int64').reshape(2, 3)},
                d + '/ckpt.pdparams')

    def read(p):
        with open(p, 'rb') as f:
            return f.read()
    return {'jit': {'.pdmodel': read(d + '/jit.pdmodel'),
                    '.pdiparams': read(d + '/jit.pdiparams')},
            'loop': {'.pdmodel': read(d + '/loop.pdmodel'),
                     '.pdiparams': read(d + '/loop.pdiparams')},
            'ckpt': read(d + '/ckpt.pdparams')}


FEED = np.random.default_rng(0).standard_normal((2, 4)).astype('float32')


# ---- running a case --------------------------------------------------------------------

class CaseTimeout(BaseException):
    """Raised by the alarm: a BaseException so that no loader code swallows it."""


def _alarm(signum, frame):
    raise CaseTimeout()


class Counts:
    def __init__(self, name):
        self.name = name
        self.cases = self.ok = self.refused = self.clean = self.raw = self.hangs = 0
        self.other = 0            # over the memory bound, or a clean error not naming the file
        self.peak = 0             # the largest memory traced in one case, bytes
        self.examples = []

    def line(self):
        return ('fuzz %s: %d cases tried, %d clean errors, %d raw errors, %d hangs, %d other '
                'problems (%d loaded, of which %d ran and %d refused the input on their first '
                'run); peak memory of a case %d KB (bound %d MB)'
                % (self.name, self.cases, self.clean, self.raw, self.hangs, self.other,
                   self.ok + self.refused, self.ok, self.refused, self.peak >> 10,
                   MEMORY_LIMIT >> 20))


def run_case(counts, what, load, names):
    """Run ``load()`` under the time and memory limits and classify the
    outcome; ``load`` returns the model's first run (a callable) or None.
    ``names``: file names a clean error must mention. A first run may refuse
    the input with the framework's ValueError (OpError, a feed that does not
    fit the loaded shapes), never with another error."""
    counts.cases += 1
    old = signal.signal(signal.SIGALRM, _alarm)
    tracemalloc.start()
    problem = None
    try:
        signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
        try:
            first_run = load()
        except (ModelFormatError, CheckpointError) as e:
            first_run = None
            if not any(n in str(e) for n in names):
                problem = 'a clean error that does not name the file: %s' % e
            else:
                counts.clean += 1
        else:
            try:
                if first_run is not None:
                    first_run()
                counts.ok += 1
            except ValueError:
                counts.refused += 1
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        peak = tracemalloc.get_traced_memory()[1]
        counts.peak = max(counts.peak, peak)
        if problem is None and peak > MEMORY_LIMIT:
            problem = 'used %d MB' % (peak >> 20)
    except CaseTimeout:
        counts.hangs += 1
        problem = 'did not finish in %.0f s' % TIME_LIMIT
    except Exception as e:        # noqa: BLE001 - a raw error is what we are counting
        problem = 'raw %s: %s\n%s' % (type(e).__name__, e, traceback.format_exc(limit=-4))
    finally:
        tracemalloc.stop()
        signal.signal(signal.SIGALRM, old)
    if problem is not None:
        if problem.startswith('raw '):
            counts.raw += 1
        elif not problem.startswith('did not finish'):
            counts.other += 1
        if len(counts.examples) < 20:
            counts.examples.append('%s: %s' % (what, problem))
        if not COUNT_ONLY:
            raise AssertionError('%s (%s)' % (problem, what))


# ---- generic byte mutations -------------------------------------------------------------

@st.composite
def byte_mutation(draw, data):
    """(description, mutated bytes): truncation, flips, an overwritten or inserted run."""
    n = len(data)
    kind = draw(st.sampled_from(['truncate', 'flip', 'overwrite', 'insert']))
    out = bytearray(data)
    if kind == 'truncate':
        cut = draw(st.integers(0, n - 1))
        return 'truncate at %d' % cut, bytes(out[:cut])
    pos = draw(st.integers(0, n - 1))
    if kind == 'flip':
        k = draw(st.integers(1, 4))
        for j in range(k):
            p = (pos + j * 7919) % n
            out[p] ^= draw(st.integers(1, 255))
        return 'flip %d bytes at %d' % (k, pos), bytes(out)
    run = draw(st.binary(min_size=1, max_size=16))
    if kind == 'overwrite':
        out[pos:pos + len(run)] = run
        return 'overwrite %r at %d' % (run, pos), bytes(out)
    out[pos:pos] = run
    return 'insert %r at %d' % (run, pos), bytes(out)


# ---- JSON mutations ---------------------------------------------------------------------

HOSTILE_SCALARS = [None, True, False, 0, -1, 1, 3, 2 ** 31, 2 ** 40, -2 ** 63, 2 ** 64, 1e308,
                   -0.5, '', 'x', 'float32', 'bool', 'object', '<f8', 'op_inplace', 'cond']
JSON_VALUE = st.recursive(
    st.one_of(st.sampled_from(HOSTILE_SCALARS), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=6)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=4), children, max_size=3)),
    max_leaves=8)


def _nodes(tree, path=()):
    """All (path, value) below ``tree`` (dict keys and list indices)."""
    out = [(path, tree)]
    if isinstance(tree, dict):
        for k, v in tree.items():
            out.extend(_nodes(v, path + (k,)))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            out.extend(_nodes(v, path + (i,)))
    return out


def _set(tree, path, value):
    for k in path[:-1]:
        tree = tree[k]
    tree[path[-1]] = value


def _nested(depth, inner='0'):
    return '[' * depth + inner + ']' * depth


@st.composite
def json_edit(draw, tree):
    """(description, new tree or raw text) for a JSON document ``tree`` (a copy is edited)."""
    tree = json.loads(json.dumps(tree))
    kind = draw(st.sampled_from(['replace', 'replace', 'drop', 'add_key', 'nest', 'dup_key']))
    nodes = [(p, v) for p, v in _nodes(tree) if p]
    path, _ = nodes[draw(st.integers(0, len(nodes) - 1))]
    if kind == 'replace':
        value = draw(JSON_VALUE)
        _set(tree, path, value)
        return 'set %s to %r' % (list(path), value), tree
    if kind == 'drop':
        parent = tree
        for k in path[:-1]:
            parent = parent[k]
        del parent[path[-1]]
        return 'drop %s' % list(path), tree
    if kind == 'add_key':
        dicts = [(p, v) for p, v in _nodes(tree) if isinstance(v, dict)]
        p, d = dicts[draw(st.integers(0, len(dicts) - 1))]
        key = draw(st.sampled_from(['op_inplace', 'op_free', 'bogus', 'sub_block', 'axis', 'v',
                                    'shape', 'k', 't']))
        d[key] = draw(JSON_VALUE)
        return 'add %r to %s' % (key, list(p)), tree
    if kind == 'nest':
        depth = draw(st.sampled_from([40, 200, 1000, 100000]))
        marker = '"@@NEST@@"'
        _set(tree, path, '@@NEST@@')
        return ('nest %d deep at %s' % (depth, list(path)),
                json.dumps(tree).replace(marker, _nested(depth)))
    # a duplicate key in some object: the same key with another value, earlier in the text
    dicts = [(p, v) for p, v in _nodes(tree) if isinstance(v, dict) and v]
    p, d = dicts[draw(st.integers(0, len(dicts) - 1))]
    key = sorted(d)[draw(st.integers(0, len(d) - 1))]
    marker = '@@DUP@@'
    d[marker] = 0
    text = json.dumps(tree).replace('"%s": 0' % marker, '%s: %s' % (
        json.dumps(key), json.dumps(draw(JSON_VALUE))))
    return 'duplicate key %r in %s' % (key, list(p)), text


def _dumps(doc):
    return (doc if isinstance(doc, str) else json.dumps(doc)).encode('utf-8')


# ---- program-level mutations (inference models) --------------------------------------------

def _registered_ops():
    from framework.ops import registry
    return sorted(registry.all_ops())


@st.composite
def program_edit(draw, model):
    """Edits that keep the JSON valid and aim at the program: op types, attributes,
    hostile fused instructions, sub-block indices, variable shapes and dtypes."""
    model = json.loads(json.dumps(model))
    blocks = model['program']['blocks']
    ops = [op for b in blocks for op in b['ops']]
    op = ops[draw(st.integers(0, len(ops) - 1))]
    kind = draw(st.sampled_from(['op_type', 'attr', 'attr_value', 'fused', 'fused', 'slots',
                                 'var', 'block_index']))
    if kind == 'op_type':
        op['type'] = draw(st.one_of(st.sampled_from(_registered_ops()),
                                    st.sampled_from(['os_system', 'feed', 'fetch', 'cond', 'while',
                                                     'while_grad', 'fused_elementwise', ''])))
        return 'op type -> %r' % op['type'], model
    if kind == 'attr':
        name = draw(st.sampled_from(['op_inplace', 'op_free', 'op_stop_gradient', 'op_location',
                                     'bogus', 'axis', 'shape', 'expr', 'true_block', 'sub_block',
                                     'items']))
        op['attrs'][name] = draw(st.one_of(JSON_VALUE, st.just('x' * 5000)))
        return 'attr %s of %s = %r' % (name, op['type'], op['attrs'][name]), model
    if kind == 'attr_value':
        if not op['attrs']:
            return 'no attrs', model
        name = sorted(op['attrs'])[draw(st.integers(0, len(op['attrs']) - 1))]
        op['attrs'][name] = draw(st.one_of(JSON_VALUE, st.lists(st.integers(-3, 2 ** 33),
                                                                 max_size=5)))
        return 'attr %s of %s -> %r' % (name, op['type'], op['attrs'][name]), model
    if kind == 'fused':
        names = [n for ns in op['inputs'].values() for n in ns] or ['x']
        expr = draw(st.lists(st.tuples(
            st.sampled_from(['add', 'relu', 'tanh', 'scale', 'multiply', 'os_system', 'matmul']),
            st.lists(st.one_of(st.integers(-3, 3), st.sampled_from([10 ** 9, 2 ** 62, -10 ** 9])),
                     max_size=3),
            st.lists(st.sampled_from([1.0, True, 'x', None, [1]]), max_size=3)),
            min_size=1, max_size=4))
        op.clear()
        op.update({'type': 'fused_elementwise', 'inputs': {'xs': names},
                   'outputs': {'out': [n for ns in op.get('outputs', {}).values() for n in ns]
                               or ['y']},
                   'attrs': {'expr': [list(e) for e in expr]}})
        return 'fused_elementwise expr %r' % (expr,), model
    if kind == 'slots':
        slot = draw(st.sampled_from(['inputs', 'outputs']))
        names = [n for b in blocks for v in b['vars'] for n in [v['name']]]
        op[slot][draw(st.sampled_from(['x', 'bogus', 'xs', 'Input', 'out']))] = draw(
            st.lists(st.sampled_from(names + ['undeclared', '']), max_size=3))
        return 'op %s %s -> %r' % (op['type'], slot, op[slot]), model
    if kind == 'var':
        b = blocks[draw(st.integers(0, len(blocks) - 1))]
        v = b['vars'][draw(st.integers(0, len(b['vars']) - 1))]
        field = draw(st.sampled_from(['shape', 'dtype', 'persistable', 'is_data', 'parameter']))
        v[field] = draw(st.one_of(JSON_VALUE, st.lists(st.integers(-2, 2 ** 40), max_size=3),
                                  st.sampled_from(['bool', 'int8', 'float16', 'complex64', 'V8',
                                                   'object', 'U3'])))
        return 'var %s.%s -> %r' % (v['name'], field, v[field]), model
    attrs = [(o, k) for o in ops for k in o['attrs'] if k.endswith('_block')]
    if not attrs:
        return 'no block attrs', model
    o, k = attrs[draw(st.integers(0, len(attrs) - 1))]
    o['attrs'][k] = draw(st.sampled_from([0, -1, len(blocks), 10 ** 6, 1, 2, True, None]))
    return 'op %s %s -> %r' % (o['type'], k, o['attrs'][k]), model


# ---- parameter file (.pdiparams, an npz archive) mutations ---------------------------------

def _npy_member(arr, header_edit=None):
    """.npy bytes of ``arr``; ``header_edit(dict)`` may change the header's fields."""
    header = {'descr': np.lib.format.dtype_to_descr(arr.dtype), 'fortran_order': False,
              'shape': arr.shape}
    if header_edit is not None:
        header = header_edit(header)
    text = repr(header) if isinstance(header, dict) else header
    text += ' ' * ((-(10 + len(text) + 1)) % 64) + '\n'
    return (b'\x93NUMPY\x01\x00' + struct.pack('<H', len(text)) + text.encode('latin1')
            + arr.tobytes())


def _npz(members, compress=False, comment=b''):
    buf = io.BytesIO()
    with warnings.catch_warnings(), \
            zipfile.ZipFile(buf, 'w', zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED) as z:
        warnings.simplefilter('ignore')     # duplicate member names, on purpose
        for name, data in members:
            z.writestr(name, data)
        z.comment = comment
    return buf.getvalue()


def _members(params):
    with zipfile.ZipFile(io.BytesIO(params)) as z:
        return [(i.filename, z.read(i)) for i in z.infolist()], z.comment


def _array_of(member):
    return np.load(io.BytesIO(member), allow_pickle=False)


@st.composite
def params_edit(draw, params):
    """A crafted parameter archive: size lies and hostile fields in a member's
    .npy header, a bool member with bytes other than 0/1, deflated members that
    expand far beyond the file, duplicate, missing or extra members, bytes
    flipped inside the archive."""
    members, comment = _members(params)
    i = draw(st.integers(0, len(members) - 1))
    name, data = members[i]
    arr = _array_of(data)
    kind = draw(st.sampled_from(['shape', 'descr', 'fortran', 'header_text', 'bool', 'bomb',
                                 'duplicate', 'missing', 'extra', 'bytes', 'comment']))
    if kind == 'shape':
        shape = draw(st.sampled_from([(2 ** 40,), (2 ** 20, 2 ** 20), (-1,), (0,),
                                      arr.shape + (2,), (arr.size + 1,), (3, 'a'), 7]))
        members[i] = (name, _npy_member(arr, lambda h: dict(h, shape=shape)))
        desc = 'member %s claims shape %r' % (name, shape)
    elif kind == 'descr':
        descr = draw(st.sampled_from(['|O', '<U4', '|V8', '>f4', '<f2', 'float32', '<c16',
                                      [('a', '<f4')], '|b1', 3]))
        members[i] = (name, _npy_member(arr, lambda h: dict(h, descr=descr)))
        desc = 'member %s dtype %r' % (name, descr)
    elif kind == 'fortran':
        members[i] = (name, _npy_member(arr, lambda h: dict(h, fortran_order=draw(
            st.sampled_from([True, 1, 'yes', None])))))
        desc = 'member %s fortran_order edited' % name
    elif kind == 'header_text':
        text = draw(st.sampled_from(["{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                                     "'extra': __import__('os')}",
                                     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]"
                                     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
                                     "{'descr': '<f4'}", "not python", "{" * 5000 + "}" * 5000]))
        members[i] = (name, _npy_member(arr, lambda h: text))
        desc = 'member %s header %r' % (name, text[:40])
    elif kind == 'bool':
        b = np.zeros(6, np.uint8) + draw(st.integers(2, 255))
        members[i] = (name, _npy_member(np.zeros(6, np.bool_))[:-6] + b.tobytes())
        desc = 'member %s bool bytes %d' % (name, b[0])
    elif kind == 'bomb':
        big = np.zeros(draw(st.sampled_from([2 ** 22, 2 ** 25])), np.float32)
        members[i] = (name, _npy_member(big))
        return 'member %s deflated to a bomb' % name, _npz(members, compress=True, comment=comment)
    elif kind == 'duplicate':
        members.append((name, data))
        desc = 'member %s twice' % name
    elif kind == 'missing':
        del members[i]
        desc = 'member %s missing' % name
    elif kind == 'extra':
        members.append((draw(st.sampled_from(['pextra.npy', '../../evil.npy', 'x', '/abs.npy'])), data))
        desc = 'extra member %s' % members[-1][0]
    elif kind == 'comment':
        comment = draw(st.binary(max_size=40))
        desc = 'zip comment %r' % comment
    else:
        raw = _npz(members, comment=comment)
        label, raw = draw(byte_mutation(raw))
        return 'archive bytes: %s' % label, raw
    return desc, _npz(members, comment=comment)


# ---- the inference-model fuzzers -------------------------------------------------------------

def _write(d, stem, files):
    for suffix, data in files.items():
        with open(os.path.join(d, stem + suffix), 'wb') as f:
            f.write(data)
    return os.path.join(d, stem)


def _with_sha(model_bytes, params):
    """The model file re-pointed at ``params`` (as a crafted pair would be)."""
    try:
        model = json.loads(model_bytes)
        model['params_sha256'] = hashlib.sha256(params).hexdigest()
        return json.dumps(model).encode('utf-8')
    except (ValueError, TypeError, KeyError):
        return model_bytes


@st.composite
def model_case(draw, files):
    """(description, {suffix: bytes}) of a damaged inference model."""
    model, params = files['.pdmodel'], files['.pdiparams']
    target = draw(st.sampled_from(['model_bytes', 'model_json', 'program', 'program',
                                   'params_bytes', 'params_crafted', 'params_crafted']))
    if target == 'model_bytes':
        desc, model = draw(byte_mutation(model))
    elif target == 'model_json':
        desc, doc = draw(json_edit(json.loads(model)))
        model = _dumps(doc)
    elif target == 'program':
        desc, doc = draw(program_edit(json.loads(model)))
        model = _dumps(doc)
    elif target == 'params_bytes':
        desc, params = draw(byte_mutation(params))
    else:
        desc, params = draw(params_edit(params))
        model = _with_sha(model, params)
    return '%s: %s' % (target, desc), {'.pdmodel': model, '.pdiparams': params}


def _load_inference(prefix, how):
    """Load with loader ``how``; returns the model's first run."""
    if how == 'predictor':
        p = create_predictor(Config(prefix + '.pdmodel', prefix + '.pdiparams'))
        return lambda: p.run([FEED])
    if how == 'load_inference_model':
        paddle.enable_static()
        try:
            exe = static.Executor()
            scope = static.Scope()
            prog, feeds, fetches = static.load_inference_model(prefix, exe, scope=scope)
        finally:
            paddle.disable_static()

        def run():
            paddle.enable_static()
            try:
                exe.run(prog, feed={feeds[0]: FEED}, fetch_list=fetches, scope=scope)
            finally:
                paddle.disable_static()
        return run
    if how == 'jit':
        layer = paddle.jit.load(prefix)
        return lambda: layer(paddle.to_tensor(FEED))
    paddle.load(prefix)
    return None


def _fuzz_models(originals, kinds, loaders, counts, cases):
    d = tempfile.mkdtemp(prefix='fuzz_')

    @settings(max_examples=cases, derandomize=True, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def fuzz(data):
        kind = data.draw(st.sampled_from(kinds))
        desc, files = data.draw(model_case(originals[kind]))
        how = data.draw(st.sampled_from(loaders))
        prefix = _write(d, 'm', files)
        run_case(counts, '%s via %s, %s' % (kind, how, desc), lambda: _load_inference(prefix, how),
                 ['m.pdmodel', 'm.pdiparams'])
    fuzz()
    print('\n' + counts.line())
    for e in counts.examples:
        print('  ' + e.splitlines()[0])


def _inference_fuzz(originals, cases):
    _fuzz_models(originals, ['loop', 'jit'], ['predictor', 'load_inference_model', 'state'],
                 Counts('inference models'), cases)


def _jit_fuzz(originals, cases):
    _fuzz_models(originals, ['jit'], ['jit'], Counts('jit.load'), cases)


def test_fuzz_inference_model_loaders(originals):
    _inference_fuzz(originals, CI_CASES)


def test_fuzz_jit_load(originals):
    _jit_fuzz(originals, CI_CASES)


@pytest.mark.slow
def test_fuzz_inference_model_loaders_long(originals):
    _inference_fuzz(originals, SLOW_CASES)


@pytest.mark.slow
def test_fuzz_jit_load_long(originals):
    _jit_fuzz(originals, SLOW_CASES)


# ---- the checkpoint fuzzer -------------------------------------------------------------------

def _split_checkpoint(raw):
    hlen, dlen = struct.unpack('<QQ', raw[16:32])
    return json.loads(raw[64:64 + hlen]), raw[64 + hlen:]


def forge_checkpoint(header, data):
    """A checkpoint with valid checksums around ``header`` (a dict or raw text)."""
    text = _dumps(header)
    text += b' ' * ((-(64 + len(text))) % 64)
    pre = MAGIC + struct.pack('<IIQQ', 1, 0, len(text), len(data))
    return pre + hashlib.sha256(pre + text).digest() + text + data


@st.composite
def checkpoint_case(draw, raw):
    kind = draw(st.sampled_from(['bytes', 'bytes', 'header', 'header', 'array', 'bool']))
    if kind == 'bytes':
        return draw(byte_mutation(raw))
    header, data = _split_checkpoint(raw)
    arrays = [n for _, n in _nodes(header) if isinstance(n, dict) and 'nbytes' in n]
    if kind == 'header':
        desc, header = draw(json_edit(header))
    elif kind == 'array':
        node = arrays[draw(st.integers(0, len(arrays) - 1))]
        field = draw(st.sampled_from(['shape', 'nbytes', 'offset', 'dtype']))
        node[field] = draw(st.one_of(
            st.sampled_from([[2 ** 40], [2 ** 31, 2 ** 31], [-1], 2 ** 40, -8, 10 ** 30, 'bool',
                             'object', 'float16', '<f4', [0, 2 ** 62], None]),
            st.integers(-2, 2 ** 20)))
        desc = 'array %s -> %r' % (field, node[field])
    else:
        node = next(n for n in arrays if n['dtype'] == 'bool')
        data = bytearray(data)
        pos = node['offset'] + draw(st.integers(0, node['nbytes'] - 1))
        data[pos] = draw(st.integers(2, 255))
        data = bytes(data)
        header['data_sha256'] = hashlib.sha256(data).hexdigest()
        desc = 'bool byte at %d = %d' % (pos, data[pos])
    return desc, forge_checkpoint(header, data)


def _checkpoint_fuzz(originals, cases):
    counts = Counts('framework.load')
    d = tempfile.mkdtemp(prefix='fuzz_')
    path = os.path.join(d, 'c.pdparams')

    @settings(max_examples=cases, derandomize=True, deadline=None, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def fuzz(data):
        desc, raw = data.draw(checkpoint_case(originals['ckpt']))
        with open(path, 'wb') as f:
            f.write(raw)
        numpy = data.draw(st.booleans())

        def load():
            paddle.load(path, return_numpy=numpy)
        run_case(counts, desc, load, ['c.pdparams'])
    fuzz()
    print('\n' + counts.line())
    for e in counts.examples:
        print('  ' + e.splitlines()[0])


def test_fuzz_checkpoint_loader(originals):
    _checkpoint_fuzz(originals, CI_CASES)


@pytest.mark.slow
def test_fuzz_checkpoint_loader_long(originals):
    _checkpoint_fuzz(originals, SLOW_CASES)
