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


def write_model(path_prefix, program, feed_names, fetch_names, values, structured_names=None):
    """``structured_names`` ({variable name: the layer's state_dict key}) lets
    ``framework.load(path_prefix)`` return the parameters under those keys."""
    write_model_files(path_prefix + MODEL_SUFFIX, path_prefix + PARAMS_SUFFIX, program,
                      feed_names, fetch_names, values, structured_names)


def write_model_files(model_file, params_file, program, feed_names, fetch_names, values,
                      structured_names=None):
    """``write_model`` to a model file and a params file named freely."""
    pbytes = _params_bytes(values)
    model = {'format': FORMAT, 'version': VERSION,
             'program': serialize.program_to_dict(program),
             'feed': list(feed_names), 'fetch': list(fetch_names),
             'params': list(values), 'params_sha256': hashlib.sha256(pbytes).hexdigest()}
    if structured_names:
        # in the layer's state_dict order
        model['structured_names'] = {n: key for n, key in structured_names.items()
                                     if n in values}
    atomic_write(params_file, pbytes)
    atomic_write(model_file, json.dumps(model, indent=1).encode('utf-8'))


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


def _read_model(path_prefix=None, model_file=None, params_file=None):
    model_file = model_file or path_prefix + MODEL_SUFFIX
    params_file = params_file or path_prefix + PARAMS_SUFFIX
    for f in (model_file, params_file):
        if not os.path.exists(f):
            raise FileNotFoundError("inference model file '%s' does not exist" % f)
    with open(model_file, 'rb') as f:
        model_bytes = f.read()
    with open(params_file, 'rb') as f:
        pbytes = f.read()
    return _parse_model(model_bytes, pbytes, model_file, params_file)


def read_model_bytes(model_bytes, params_bytes):
    """``read_model`` on the two files' contents (a model held in memory)."""
    return _parse_model(model_bytes, params_bytes, '<model buffer>', '<params buffer>')[:4]


def _parse_model(model_bytes, pbytes, model_file, params_file):
    try:
        model = json.loads(model_bytes.decode('utf-8'))
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
    for n, v in values.items():
        # npz keeps bfloat16 (an ml_dtypes type) as raw 2-byte records
        if v.dtype.kind == 'V' and gb._find_var(n) is not None \
                and str(gb._find_var(n).dtype) == 'bfloat16':
            values[n] = v.view(gb._find_var(n).dtype)
    for n in list(feed) + list(fetch):
        if not isinstance(n, str) or gb._find_var(n) is None:
            raise ModelFormatError("'%s': feed/fetch name %r is not in the program"
                                   % (model_file, n))
    structured = model.get('structured_names', {})
    if not isinstance(structured, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in structured.items()):
        raise ModelFormatError("'%s': malformed structured_names" % model_file)
    return program, feed, fetch, values, structured


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
    from ..dygraph import Tensor
    scope = _scope_of(scope, api)
    state = {}
    for name in state_var_names(program, mode):
        t = Tensor(var_value(program, name, scope, api))
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
    atomic_write(model_path + MODEL_SUFFIX, text.encode('utf-8'))


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
