"""Saving and loading inference models (the deployment format).

``<prefix>.pdmodel`` is readable JSON: the pruned inference program (see
``serialize``), the feed and fetch names, the parameter names and a SHA-256
of the parameter file. ``<prefix>.pdiparams`` is a ``.npz`` archive of the
parameters, read with ``allow_pickle=False``. Nothing in either file is ever
executed or unpickled; writes go to a temporary file that is then renamed, so
an interrupted save never leaves a half-written model behind.
"""
import hashlib
import io as _io
import json
import os
import tempfile
import zipfile

import numpy as np

from . import serialize
from .codegen import prune_block
from .executor import global_scope
from .program import Program, Variable, default_main_program

MODEL_SUFFIX = '.pdmodel'
PARAMS_SUFFIX = '.pdiparams'
FORMAT = 'framework.inference_model'
VERSION = 1


class ModelFormatError(ValueError):
    pass


def atomic_write(path, data):
    """Write ``data`` (bytes) to ``path`` via a temporary file and a rename."""
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix='.tmp-', dir=d)
    try:
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def _names(vs, what):
    out = []
    for v in (vs if isinstance(vs, (list, tuple)) else [vs]):
        if isinstance(v, Variable):
            out.append(v.name)
        elif isinstance(v, str):
            out.append(v)
        else:
            raise TypeError("save_inference_model: %s must be Variables or names, got %s"
                            % (what, type(v).__name__))
    return out


def inference_program(program, feed_names, fetch_names):
    """A copy of ``program`` pruned to the fetches, switched to inference."""
    from .program import _make_inference
    p = program.clone()
    gb = p.global_block()
    for n in feed_names:
        if gb._find_var(n) is None:
            raise ValueError("feed variable '%s' is not in the program" % n)
        gb.var(n).is_data = True
    for n in fetch_names:
        if gb._find_var(n) is None:
            raise ValueError("fetch variable '%s' is not in the program" % n)
    gb.ops = prune_block(p, gb, fetch_names)
    # ops that only fed removed ops are gone; what the feeds replace is not needed
    gb.ops = [op for op in gb.ops if not set(op.output_arg_names) & set(feed_names)]
    _make_inference(p, drop_training_ops=False)
    used = set(feed_names) | set(fetch_names)
    for b in p.blocks:
        for op in b.ops:
            used.update(op.input_arg_names)
            used.update(op.output_arg_names)
            used.update(_names_in_attrs(op))
    for b in p.blocks:
        for n in list(b.vars):
            if n not in used:
                del b.vars[n]
    p._bump()
    return p


def _names_in_attrs(op):
    """Variable names held in attributes (control-flow ops: branch outputs, loop vars)."""
    for v in op.attrs.values():
        if isinstance(v, str):
            yield v
        elif isinstance(v, list):
            yield from (x for x in v if isinstance(x, str))


def persistable_inputs(program):
    """Names of persistable variables the program reads but does not compute first."""
    produced, needed = set(), []
    for b in program.blocks:
        for op in b.ops:
            for n in op.input_arg_names:
                v = b._find_var(n)
                if v is not None and v.persistable and n not in produced and n not in needed:
                    needed.append(n)
            produced.update(op.output_arg_names)
    return needed


def _param_values(program, names, scope):
    values = {}
    for n in names:
        t = program._captured.get(n)
        if t is not None:
            values[n] = np.asarray(t.data)
            continue
        v = scope.vars.get(n)
        if v is None:
            raise RuntimeError("save_inference_model: parameter '%s' has no value in the "
                               "scope; run the startup program (and train) first" % n)
        values[n] = np.asarray(v)
    return values


def _params_bytes(values):
    buf = _io.BytesIO()
    # keys are variable names; npz member names are stored as given
    np.savez(buf, **{_key(n): a for n, a in values.items()})
    return buf.getvalue()


def _key(name):
    return 'p%s' % name


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None, **kwargs):
    """Prune ``program`` to ``fetch_vars``, switch it to inference and write
    ``<path_prefix>.pdmodel`` (JSON) and ``<path_prefix>.pdiparams`` (npz)."""
    program = program if program is not None else default_main_program()
    if not isinstance(program, Program):
        program = getattr(program, '_program', program)
    feed_names = _names(feed_vars, 'feed_vars')
    fetch_names = _names(fetch_vars, 'fetch_vars')
    p = inference_program(program, feed_names, fetch_names)
    params = persistable_inputs(p)
    scope = kwargs.get('scope') or global_scope()
    values = _param_values(program, params, scope)
    write_model(path_prefix, p, feed_names, fetch_names, values)
    return p


def write_model(path_prefix, program, feed_names, fetch_names, values):
    pbytes = _params_bytes(values)
    model = {'format': FORMAT, 'version': VERSION,
             'program': serialize.program_to_dict(program),
             'feed': list(feed_names), 'fetch': list(fetch_names),
             'params': list(values), 'params_sha256': hashlib.sha256(pbytes).hexdigest()}
    atomic_write(path_prefix + PARAMS_SUFFIX, pbytes)
    atomic_write(path_prefix + MODEL_SUFFIX, json.dumps(model, indent=1).encode('utf-8'))


def read_model(path_prefix=None, model_file=None, params_file=None):
    """(program, feed names, fetch names, {param: array}) from the two files."""
    model_file = model_file or path_prefix + MODEL_SUFFIX
    params_file = params_file or path_prefix + PARAMS_SUFFIX
    for f in (model_file, params_file):
        if not os.path.exists(f):
            raise FileNotFoundError("inference model file '%s' does not exist" % f)
    try:
        with open(model_file, 'rb') as f:
            model = json.loads(f.read().decode('utf-8'))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelFormatError("'%s' is not a valid model file (truncated or corrupted "
                               "JSON: %s)" % (model_file, e)) from None
    if not isinstance(model, dict) or model.get('format') != FORMAT:
        raise ModelFormatError("'%s' is not a framework inference model" % model_file)
    if not isinstance(model.get('version'), int) or model['version'] > VERSION:
        raise ModelFormatError("'%s' has format version %r; this framework reads up to %d"
                               % (model_file, model.get('version'), VERSION))
    try:
        program = serialize.program_from_dict(model.get('program'))
    except serialize.ProgramFormatError as e:
        raise ModelFormatError("'%s': %s" % (model_file, e)) from None
    with open(params_file, 'rb') as f:
        pbytes = f.read()
    if hashlib.sha256(pbytes).hexdigest() != model.get('params_sha256'):
        raise ModelFormatError("'%s' does not match its model file (checksum mismatch: "
                               "truncated, corrupted or from another save)" % params_file)
    values = {}
    try:
        with np.load(_io.BytesIO(pbytes), allow_pickle=False) as z:
            for n in model.get('params', []):
                values[n] = z[_key(n)]
    except (zipfile.BadZipFile, KeyError, ValueError, OSError) as e:
        raise ModelFormatError("'%s' is not a valid parameter file: %s" % (params_file, e)) from None
    feed, fetch = model.get('feed', []), model.get('fetch', [])
    gb = program.global_block()
    for n in list(feed) + list(fetch):
        if not isinstance(n, str) or gb._find_var(n) is None:
            raise ModelFormatError("'%s': feed/fetch name %r is not in the program"
                                   % (model_file, n))
    return program, feed, fetch, values


def load_inference_model(path_prefix, executor, **kwargs):
    """Load a saved inference model: returns ``[program, feed_target_names,
    fetch_targets]`` and puts the parameters into the executor's scope."""
    model_file, params_file = kwargs.get('model_filename'), kwargs.get('params_filename')
    if model_file is not None or params_file is not None:
        # Paddle 1.x/2.0 style: path_prefix is the directory holding the two files
        model_file = os.path.join(path_prefix, model_file or '__model__')
        params_file = os.path.join(path_prefix, params_file) if params_file else \
            model_file[:-len(MODEL_SUFFIX)] + PARAMS_SUFFIX
    program, feed, fetch, values = read_model(path_prefix, model_file, params_file)
    scope = kwargs.get('scope') or global_scope()
    scope.vars.update(values)
    gb = program.global_block()
    return [program, list(feed), [gb.var(n) for n in fetch]]


def save(program, model_path, protocol=4, **configs):
    """``static.save``: all persistable variables of ``program`` to ``model_path.pdparams``."""
    scope = configs.get('scope') or global_scope()
    names = [v.name for v in program.list_vars() if v.persistable and
             (v.name in scope.vars or v.name in program._captured)]
    values = _param_values(program, names, scope)
    atomic_write(model_path + '.pdparams', _params_bytes(values))


def load(program, model_path, executor=None, var_list=None):
    """``static.load``: values saved by ``static.save`` back into the scope."""
    path = model_path if model_path.endswith('.pdparams') else model_path + '.pdparams'
    if not os.path.exists(path):
        raise FileNotFoundError("static.load: '%s' does not exist" % path)
    scope = global_scope()
    try:
        with np.load(path, allow_pickle=False) as z:
            for k in z.files:
                scope.vars[k[1:]] = z[k]
    except (zipfile.BadZipFile, ValueError, OSError) as e:
        raise ModelFormatError("'%s' is not a valid parameter file: %s" % (path, e)) from None
