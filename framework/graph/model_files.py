"""The inference-model files (the deployment format): a program pruned to
inference, written as and read from ``<prefix>.pdmodel`` / ``<prefix>.pdiparams``.

``<prefix>.pdmodel`` is readable JSON: the pruned inference program (see
``serialize``), the feed and fetch names, the parameter names, a SHA-256 of
the parameter file and the id of the save. ``<prefix>.pdiparams`` is an
``.npz`` archive of stored members (``params_file``) whose comment carries the
same save id. Nothing in either file is ever executed or unpickled.

Loading checks everything before it is used: strict JSON (no duplicate keys,
bounded nesting), the program's structure (``serialize``) and well-formedness
(``verify``: every op against its registry declaration), the parameter file's
checksum, its members' headers against their real sizes, and each parameter
against its variable's shape and dtype. Any failure raises
``ModelFormatError`` naming the file and what is wrong.

Saving writes both files to locked temporaries first, then renames them one
after the other while the previous parameter file stays reachable as a
backup; a save killed between the two renames leaves the previous model
loadable (the loader finds the backup by the checksum the old model file
expects) and never pairs a new parameter file with the old program. The next
save of the same prefix removes what an interrupted save left behind.
"""
import hashlib
import json
import os
import secrets
import time
import warnings

import numpy as np

from .. import _files
from . import params_file as _params
from . import serialize, verify
from .executor import global_scope
from .passes.prune import prune_block
from .program import Program, Variable, _make_inference, default_main_program
from .sub_blocks import drop_blocks_not_run

MODEL_SUFFIX = '.pdmodel'
PARAMS_SUFFIX = '.pdiparams'
FORMAT = 'framework.inference_model'
VERSION = 1
ModelFormatError = serialize.ModelFormatError


def var_names(vs, what):
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
    p = program.clone()
    gb = p.global_block()
    for n in feed_names:
        if gb._find_var(n) is None:
            raise ValueError("feed variable '%s' is not in the program" % n)
        gb.var(n).is_data = True
    for n in fetch_names:
        if gb._find_var(n) is None:
            raise ValueError("fetch variable '%s' is not in the program" % n)
    # only what the fetches need from the feeds: a training program's loss,
    # backward and optimizer ops (parameter writes) are not part of the model
    gb.ops = prune_block(p, gb, fetch_names, feed_names, side_effects=False)
    # ops that only fed removed ops are gone; what the feeds replace is not needed
    gb.ops = [op for op in gb.ops if not set(op.output_arg_names) & set(feed_names)]
    # and so are the blocks only pruned ops ran (a gradient's recompute and grad blocks)
    drop_blocks_not_run(p, [0])
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


def check_computable(program, feed_names, fetch_names, values, api):
    """An inference program computes its fetches from the feeds and the
    stored ``values`` alone: a variable it reads that nothing gives (a label
    the loss needed, when a fetch depends on the loss) fails the save with
    ``api``'s name and the variable's, before anything is written."""
    block = program.global_block()
    given = set(feed_names) | set(values)
    for op in block.ops:
        own = set(op.output_arg_names) | set(_names_in_attrs(op))   # a loop's own placeholders
        for n in op.input_arg_names:
            v = block._find_var(n)
            if n not in given and n not in own and not (v is not None and v.persistable):
                raise ValueError(
                    "%s: fetch targets %s need variable '%s' (read by op '%s'), which is "
                    "neither a feed nor computed from the feeds; add it to feed_vars"
                    % (api, list(fetch_names), n, op.type))
        given |= own


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


def param_values(program, names, scope):
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


def param_key(name):
    return 'p%s' % name


def inference_model_parts(feed_vars, fetch_vars, program=None, scope=None):
    """(inference program, feed names, fetch names, {parameter: array}) of
    ``program`` pruned to ``fetch_vars``: what an inference model holds."""
    program = program if program is not None else default_main_program()
    if not isinstance(program, Program):
        program = getattr(program, '_program', program)
    feed_names = var_names(feed_vars, 'feed_vars')
    fetch_names = var_names(fetch_vars, 'fetch_vars')
    p = inference_program(program, feed_names, fetch_names)
    values = param_values(program, persistable_inputs(p), scope or global_scope())
    return p, feed_names, fetch_names, values


def new_save_id():
    """Hex: the time (so ids order saves) and random digits."""
    return '%016x%s' % (time.time_ns(), secrets.token_hex(4))


def write_model(path_prefix, program, feed_names, fetch_names, values, structured_names=None):
    """``structured_names`` ({variable name: the layer's state_dict key}) lets
    ``framework.load(path_prefix)`` return the parameters under those keys."""
    write_model_files(path_prefix + MODEL_SUFFIX, path_prefix + PARAMS_SUFFIX, program,
                      feed_names, fetch_names, values, structured_names)


def write_model_files(model_file, params_file, program, feed_names, fetch_names, values,
                      structured_names=None):
    """``write_model`` to a model file and a params file named freely."""
    save_id = new_save_id()
    pbytes = _params.params_bytes({param_key(n): a for n, a in values.items()}, save_id)
    model = {'format': FORMAT, 'version': VERSION,
             'program': serialize.program_to_dict(program),
             'feed': list(feed_names), 'fetch': list(fetch_names),
             'params': list(values), 'params_sha256': hashlib.sha256(pbytes).hexdigest(),
             'save_id': save_id}
    if structured_names:
        # in the layer's state_dict order
        model['structured_names'] = {n: key for n, key in structured_names.items()
                                     if n in values}
    _commit_pair(params_file, model_file, pbytes, json.dumps(model, indent=1).encode('utf-8'))


def _commit_pair(params_path, model_path, pbytes, mbytes):
    _files.remove_stale_temporaries(model_path)
    _files.remove_stale_temporaries(params_path, keep_backups=True)
    pfd, ptmp = _files.write_temporary(params_path, [pbytes])
    try:
        mfd, mtmp = _files.write_temporary(model_path, [mbytes])
    except BaseException:
        _files.discard(pfd, ptmp)
        raise
    backup = _backup_previous(params_path, model_path)
    committed = False
    try:
        _files.commit(pfd, ptmp, params_path)
        committed = True
        # killed here: the old model file and the backup of its parameters still load
        _files.commit(mfd, mtmp, model_path)
    except BaseException:
        if not committed:
            _files.discard(mfd, mtmp)
        elif backup is not None:     # the model file could not be replaced: put the old
            os.replace(backup[1], params_path)          # parameters back beside it
        raise
    finally:
        if backup is not None:
            _files.discard(*backup)
    _files.sync_directory(model_path)
    _files.remove_stale_temporaries(params_path)


def _previous_model(model_path):
    """(params_sha256, save_id) the current model file records, or None."""
    try:
        with open(model_path, 'rb') as f:
            model = _files.parse_json(f.read())
        sha, save_id = model['params_sha256'], model.get('save_id')
        return (sha, save_id) if isinstance(sha, str) and len(sha) == 64 else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _backup_tag(sha):
    return sha[:16]


def _backup_previous(params_path, model_path):
    """Keep the parameters the current model file expects reachable while the
    new pair is committed: (fd, name) of the locked backup, or None."""
    previous = _previous_model(model_path)
    if previous is None or not os.path.exists(params_path):
        return None
    sha, save_id = previous
    name = _files.backup_name(params_path, _backup_tag(sha))
    if _params_match(params_path, sha, save_id):
        fd = _files.locked_backup(params_path, _backup_tag(sha))
    else:       # an earlier interrupted save: its backup still holds the old parameters
        fd = _files.lock_existing(name)
    return None if fd is None else (fd, name)


def _params_match(params_path, sha, save_id):
    """Whether ``params_path`` is the parameter file of the model recording
    (``sha``, ``save_id``); by the save id when both have one (cheap)."""
    try:
        if save_id is not None:
            with open(params_path, 'rb') as f:
                f.seek(max(0, os.fstat(f.fileno()).st_size - 1024))
                tail = f.read()
            found = _params.save_id(tail)
            if found is not None:
                return found == save_id
        with open(params_path, 'rb') as f:
            return hashlib.sha256(f.read()).hexdigest() == sha
    except OSError:
        return False


def read_model(path_prefix=None, model_file=None, params_file=None):
    """(program, feed names, fetch names, {param: array}) from the two files."""
    program, feed, fetch, values, _ = _read_model(path_prefix, model_file, params_file)
    return program, feed, fetch, values


def model_state(path_prefix):
    """The parameters of a saved inference model (``jit.save``,
    ``save_inference_model``) as [(key, variable name, array)]: the key is the
    saved layer's ``state_dict`` key when the model records it (``jit.save``
    of a Layer), else the variable name, as Paddle's ``paddle.load(prefix)``."""
    _, _, _, values, structured = _read_model(path_prefix)
    names = [n for n in structured if n in values] + [n for n in values if n not in structured]
    return [(structured.get(n, n), n, values[n]) for n in names]


def _read_bytes(path):
    try:
        with open(path, 'rb') as f:
            return f.read()
    except IsADirectoryError:
        raise ModelFormatError("'%s' is a directory, not an inference model file" % path) \
            from None


def _read_model(path_prefix=None, model_file=None, params_file=None):
    model_file = model_file or path_prefix + MODEL_SUFFIX
    params_file = params_file or path_prefix + PARAMS_SUFFIX
    for f in (model_file, params_file):
        if not os.path.exists(f):
            raise FileNotFoundError("inference model file '%s' does not exist" % f)
    model, program = _checked_model(model_file, _read_bytes(model_file))
    pbytes = _matching_params(model_file, params_file, model)
    return _with_params(program, model, pbytes, params_file)


def read_model_bytes(model_bytes, params_bytes):
    """``read_model`` on the two files' contents (a model held in memory)."""
    model, program = _checked_model('<model buffer>', bytes(model_bytes))
    params_bytes = bytes(params_bytes)
    if hashlib.sha256(params_bytes).hexdigest() != model['params_sha256']:
        raise ModelFormatError(_mismatch('<model buffer>', '<params buffer>', model,
                                         params_bytes))
    return _with_params(program, model, params_bytes, '<params buffer>')[:4]


def _checked_model(model_file, data):
    """(model fields, verified program) of a model file's bytes."""
    model = _model_fields(model_file, data)
    try:
        program = serialize.program_from_dict(model['program'])
        verify.verify_program(program, set(model['feed']) | set(model['params']))
        verify.refuse_process_local_ops(program)
    except (serialize.ProgramFormatError, verify.VerifyError) as e:
        raise ModelFormatError("'%s': %s" % (model_file, e)) from None
    return model, program


def _with_params(program, model, pbytes, params_file):
    try:
        arrays = _params.read_params(pbytes, [param_key(n) for n in model['params']])
    except _params.ParamsFormatError as e:
        raise ModelFormatError("'%s' is not a valid parameter file: %s" % (params_file, e)) \
            from None
    values = {n: as_declared(program, n, arrays[param_key(n)]) for n in model['params']}
    _check_params_fit(program, values, params_file)
    return program, model['feed'], model['fetch'], values, model['structured_names']


def as_declared(program, name, arr):
    """bfloat16 parameters are stored as their uint16 bits (numpy has no
    bfloat16 of its own): viewed back when the program declares bfloat16."""
    v = next((b.vars[name] for b in program.blocks if name in b.vars), None)
    if v is not None and arr.dtype == np.uint16 and str(v.dtype) == 'bfloat16':
        return arr.view(v.dtype)
    return arr


def _model_fields(model_file, data):
    """The model file's top-level fields, checked; ModelFormatError otherwise."""
    def bad(what):
        raise ModelFormatError("'%s' %s" % (model_file, what))
    try:
        model = _files.parse_json(data)
    except _files.FileFormatError as e:
        bad("is not a valid model file (truncated or corrupted JSON: %s)" % e)
    if not isinstance(model, dict) or model.get('format') != FORMAT:
        bad("is not a framework inference model")
    version = model.get('version')
    if type(version) is not int or not 1 <= version <= VERSION:
        bad("has format version %r; this framework reads up to %d" % (version, VERSION))
    for key in ('feed', 'fetch', 'params'):
        names = model.get(key)
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names) \
                or len(set(names)) != len(names):
            bad("has a malformed '%s' list (unique variable names expected)" % key)
    sha = model.get('params_sha256')
    if not isinstance(sha, str) or len(sha) != 64:
        bad("has no valid params_sha256")
    if not isinstance(model.get('save_id', ''), str):
        bad("has a malformed save_id")
    structured = model.setdefault('structured_names', {})
    if not isinstance(structured, dict) or not all(
            isinstance(v, str) for v in structured.values()):
        bad("has malformed structured_names")
    if not isinstance(model.get('program'), dict):
        bad("has no program")
    return model


def _matching_params(model_file, params_file, model):
    """The bytes of the parameter file the model file records (by checksum):
    ``params_file``, or the backup an interrupted save left of it."""
    pbytes = _read_bytes(params_file)
    sha = model['params_sha256']
    if hashlib.sha256(pbytes).hexdigest() == sha:
        return pbytes
    backup = _files.backup_name(params_file, _backup_tag(sha))
    if os.path.exists(backup):
        data = _read_bytes(backup)
        if hashlib.sha256(data).hexdigest() == sha:
            warnings.warn("'%s' is from an interrupted save (the save stopped between its two "
                          "files); loaded the previous model, whose parameters the save kept in "
                          "'%s'" % (params_file, backup), stacklevel=4)
            return data
    raise ModelFormatError(_mismatch(model_file, params_file, model, pbytes))


def _mismatch(model_file, params_file, model, pbytes):
    """Which of the two files is stale, as far as their save ids tell."""
    mid, pid = model.get('save_id'), _params.save_id(pbytes)
    if mid and pid and mid != pid:
        newer, stale = (params_file, model_file) if pid > mid else (model_file, params_file)
        return ("'%s' and '%s' are from different saves: '%s' is the newer one, '%s' is stale "
                "(a save of this model was interrupted between its two files, or one file was "
                "replaced); save the model again" % (model_file, params_file, newer, stale))
    return ("'%s' does not match its model file '%s' (checksum mismatch: truncated, corrupted "
            "or from another save)" % (params_file, model_file))


def _check_params_fit(program, values, params_file):
    """Each parameter's array fits its variable (shape and dtype)."""
    for name, arr in values.items():
        v = next((b.vars[name] for b in program.blocks if name in b.vars), None)
        if v is None or not v.persistable:
            raise ModelFormatError("'%s': parameter '%s' is not a persistable variable of the "
                                   "program" % (params_file, name))
        want = tuple(v._shape)
        if len(want) != arr.ndim or any(w not in (-1, d) for w, d in zip(want, arr.shape)) \
                or arr.dtype != v.dtype:
            raise ModelFormatError("'%s': parameter '%s' is %s %s but the program declares %s %s"
                                   % (params_file, name, arr.dtype, list(arr.shape), v.dtype,
                                      list(want)))


