"""Saving and loading inference models (the deployment format).

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
from ..ops import modes
from . import params_file as _params
from . import serialize, verify
from .codegen import prune_block
from .executor import global_scope
from .program import Program, Variable, default_main_program
from .sub_blocks import drop_blocks_not_run

MODEL_SUFFIX = '.pdmodel'
PARAMS_SUFFIX = '.pdiparams'
FORMAT = 'framework.inference_model'
VERSION = 1
ModelFormatError = serialize.ModelFormatError


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


def _key(name):
    return 'p%s' % name


def inference_model_parts(feed_vars, fetch_vars, program=None, scope=None):
    """(inference program, feed names, fetch names, {parameter: array}) of
    ``program`` pruned to ``fetch_vars``: what an inference model holds."""
    program = program if program is not None else default_main_program()
    if not isinstance(program, Program):
        program = getattr(program, '_program', program)
    feed_names = _names(feed_vars, 'feed_vars')
    fetch_names = _names(fetch_vars, 'fetch_vars')
    p = inference_program(program, feed_names, fetch_names)
    values = _param_values(program, persistable_inputs(p), scope or global_scope())
    return p, feed_names, fetch_names, values


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None, **kwargs):
    """Prune ``program`` to ``fetch_vars``, switch it to inference and write
    ``<path_prefix>.pdmodel`` (JSON) and ``<path_prefix>.pdiparams`` (npz).

    ``format='onnx'`` writes ``<path_prefix>.onnx`` instead (needs the ``onnx``
    extra; ``opset_version`` and ``paddle.onnx.export``'s configs such as
    ``fold_batch_norm`` may be given too)."""
    fmt = kwargs.pop('format', None)
    if fmt not in (None, 'paddle', 'onnx'):
        raise ValueError("save_inference_model: format must be 'paddle' (the default) or "
                         "'onnx', got %r" % (fmt,))
    p, feed_names, fetch_names, values = inference_model_parts(
        feed_vars, fetch_vars, program, kwargs.pop('scope', None))
    if fmt == 'onnx':
        # the optional extra: loaded on use
        from ..onnx.export import DEFAULT_OPSET, check_configs, write_model as write_onnx
        opset = kwargs.pop('opset_version', DEFAULT_OPSET)
        write_onnx(path_prefix, p, feed_names, fetch_names, values, opset,
                   check_configs('save_inference_model', kwargs), 'save_inference_model')
    else:
        write_model(path_prefix, p, feed_names, fetch_names, values)
    return p


def _new_save_id():
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
    save_id = _new_save_id()
    pbytes = _params.params_bytes({_key(n): a for n, a in values.items()}, save_id)
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
        arrays = _params.read_params(pbytes, [_key(n) for n in model['params']])
    except _params.ParamsFormatError as e:
        raise ModelFormatError("'%s' is not a valid parameter file: %s" % (params_file, e)) \
            from None
    values = {n: _as_declared(program, n, arrays[_key(n)]) for n in model['params']}
    _check_params_fit(program, values, params_file)
    return program, model['feed'], model['fetch'], values, model['structured_names']


def _as_declared(program, name, arr):
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


# ---- training state: parameters and optimizer variables ------------------------

def is_parameter_var(program, v):
    """A network parameter (trainable or not, like batch norm's statistics),
    declared in static mode or captured from eager mode (dy2static)."""
    from .program import Parameter
    if isinstance(v, Parameter) or v.is_parameter:
        return True
    t = program._captured.get(v.name)
    return t is not None and type(t).__name__ == 'Parameter'


def state_var_names(program, mode='all'):
    """Names of the persistable variables ``Program.state_dict(mode)`` holds:
    'param' the network's parameters, 'opt' the other persistable variables
    (optimizer accumulators, learning rate), 'all' both."""
    if not isinstance(mode, str) or mode not in ('all', 'param', 'opt'):
        raise ValueError("Program.state_dict: mode must be 'param', 'opt' or 'all', got %r"
                         % (mode,))
    names = []
    for v in program.list_vars():
        if not v.persistable or v.is_data or v.name in names:
            continue
        param = is_parameter_var(program, v)
        if mode == 'all' or (mode == 'param') == param:
            names.append(v.name)
    return names


def _scope_of(scope, api):
    if scope is None:
        return global_scope()
    from .executor import Scope
    if not isinstance(scope, Scope):
        raise TypeError("%s: scope must be None or a framework.static.Scope, got %s"
                        % (api, type(scope).__name__))
    return scope


def var_value(program, name, scope, api):
    """The current value of persistable variable ``name`` (numpy): a captured
    eager tensor's, else the scope's."""
    t = program._captured.get(name)
    if t is not None:
        return np.asarray(t.data)
    value = scope.vars.get(name)
    if value is None:
        raise ValueError("%s: variable '%s' has no value in the scope; run the startup "
                         "program first (exe.run(startup_program))" % (api, name))
    return np.asarray(value)


def set_var_value(program, var, value, scope, api):
    """Check ``value`` against ``var``'s shape and dtype, then store it where
    the executor reads it. Raises ValueError naming the variable on mismatch."""
    arr = _as_array(value, var.name, api)
    want = [int(d) for d in var.shape]
    if len(want) != arr.ndim or any(w not in (-1, d) for w, d in zip(want, arr.shape)):
        raise ValueError("%s: variable '%s' has shape %s in the program but the value has "
                         "shape %s" % (api, var.name, want, list(arr.shape)))
    if arr.dtype != var.dtype:
        raise ValueError("%s: variable '%s' is %s in the program but the value is %s"
                         % (api, var.name, var.dtype, arr.dtype))
    t = program._captured.get(var.name)
    if t is not None:
        t.set_value(arr)
    else:
        scope.vars[var.name] = np.array(arr)


def _as_array(value, name, api):
    if hasattr(value, 'data') and isinstance(getattr(value, 'data'), np.ndarray):
        return value.data
    if isinstance(value, np.ndarray) or hasattr(value, '__array__'):
        return np.asarray(value)
    raise TypeError("%s: the value of '%s' must be a Tensor or numpy array, got %s"
                    % (api, name, type(value).__name__))


def program_state_dict(program, mode='all', scope=None, api='Program.state_dict'):
    """``Program.state_dict``: {variable name: Tensor} of the persistable
    variables' current values."""
    scope = _scope_of(scope, api)
    state = {}
    for name in state_var_names(program, mode):
        t = modes.handlers.make_tensor(var_value(program, name, scope, api), None, True)
        t.name = name
        state[name] = t
    return state


def set_program_state(program, state_dict, scope=None):
    """``Program.set_state_dict``: load values by variable name. As Paddle,
    entries the program does not have, or whose shape or dtype does not fit,
    are skipped with a warning."""
    import warnings
    api = 'Program.set_state_dict'
    if not isinstance(state_dict, dict):
        raise TypeError("%s: state_dict must be a dict, got %s" % (api, type(state_dict).__name__))
    scope = _scope_of(scope, api)
    structured = state_dict.get('StructuredToParameterName@@') or {}
    variables = {}
    for v in program.list_vars():
        variables.setdefault(v.name, v)
    for name, value in state_dict.items():
        if name == 'StructuredToParameterName@@':
            continue
        name = structured.get(name, name)
        var = variables.get(name)
        if var is None:
            warnings.warn("Skip loading for '%s'. Because '%s' not in the program."
                          % (name, name), stacklevel=2)
            continue
        try:
            set_var_value(program, var, value, scope, api)
        except (ValueError, TypeError) as e:
            warnings.warn("Skip loading for '%s'. %s" % (name, e), stacklevel=2)


def _strip_suffix(prefix):
    for suffix in ('.pdparams', '.pdopt', '.pdmodel'):
        if prefix.endswith(suffix):
            return prefix[:-len(suffix)]
    return prefix


def save(program, model_path, protocol=4, **configs):
    """``static.save``: ``model_path.pdparams`` (parameters), ``.pdopt``
    (optimizer variables) and ``.pdmodel`` (the program), as Paddle writes
    them; the first two are ``framework.save`` checkpoints (``framework.load``
    reads them), the program is JSON. Each write is atomic."""
    from .. import serialization
    if not isinstance(program, Program):
        raise TypeError("static.save: program must be a Program, got %s"
                        % type(program).__name__)
    if not isinstance(model_path, str) or os.path.basename(model_path) == '':
        raise ValueError("static.save: model_path must be a path prefix like 'dir/model', "
                         "got %r" % (model_path,))
    model_path = _strip_suffix(model_path)
    scope = configs.get('scope')
    for mode, suffix in (('param', '.pdparams'), ('opt', '.pdopt')):
        serialization.save(program_state_dict(program, mode, scope, 'static.save'),
                           model_path + suffix, protocol)
    text = json.dumps(serialize.program_to_dict(program.clone()), indent=1)
    _files.atomic_write(model_path + MODEL_SUFFIX, [text.encode('utf-8')])


def load(program, model_path, executor=None, var_list=None):
    """``static.load``: the values ``static.save`` wrote back into the program's
    variables (all persistable ones, or those in ``var_list``). A variable
    missing from the files, or one whose shape or dtype differs, raises."""
    from .. import serialization
    if not isinstance(program, Program):
        raise TypeError("static.load: program must be a Program, got %s"
                        % type(program).__name__)
    model_path = _strip_suffix(os.fspath(model_path))
    wanted = None
    if var_list is not None:
        wanted = {v if isinstance(v, str) else v.name for v in var_list}
    scope = global_scope()
    for mode, suffix in (('param', '.pdparams'), ('opt', '.pdopt')):
        names = [n for n in state_var_names(program, mode) if wanted is None or n in wanted]
        if not names:
            continue
        path = model_path + suffix
        if not os.path.exists(path):
            raise FileNotFoundError("static.load: '%s' does not exist (the program has %s "
                                    "variables to load: %s)"
                                    % (path, 'parameter' if mode == 'param' else 'optimizer',
                                       ', '.join(names[:4])))
        values = serialization.load(path, return_numpy=True)
        if not isinstance(values, dict):
            raise ModelFormatError("static.load: '%s' does not hold a dict of variables"
                                   % path)
        for name in names:
            if name not in values:
                raise ValueError("static.load: variable '%s' is not in '%s'" % (name, path))
            var = next(v for v in program.list_vars() if v.name == name)
            set_var_value(program, var, values[name], scope, 'static.load')
