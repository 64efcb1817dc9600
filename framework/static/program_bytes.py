"""Programs and parameters as bytes (Paddle's ``static.serialize_program`` family).

``serialize_program`` gives the inference program pruned to the fetches (the
same JSON a ``.pdmodel`` file holds), ``serialize_persistables`` the values of
the parameters it reads (the ``.pdiparams`` npz); ``deserialize_*`` read them
back, ``save_to_file``/``load_from_file`` write and read the bytes.
"""
import json
import os

import numpy as np

from .. import _files
from . import io as _io
from ..graph import model_files as _model
from ..graph.state import set_var_value
from ..graph import params_file as _params
from ..graph import serialize, verify
from ..graph.executor import global_scope
from ..graph.program import Program, default_main_program


def normalize_program(program, feed_vars, fetch_vars, **kwargs):
    """``program`` pruned to what ``fetch_vars`` need from ``feed_vars``,
    switched to inference (dropout off, batch norm on running statistics)."""
    if not isinstance(program, Program):
        raise TypeError("normalize_program: program must be a Program, got %s"
                        % type(program).__name__)
    return _model.inference_program(program, _model.var_names(feed_vars, 'feed_vars'),
                                    _model.var_names(fetch_vars, 'fetch_vars'))


def _program_of(kwargs):
    program = kwargs.get('program') or default_main_program()
    return getattr(program, '_program', program)


def serialize_program(feed_vars, fetch_vars, **kwargs):
    """The inference program for ``fetch_vars`` as bytes."""
    feed = _model.var_names(feed_vars, 'feed_vars')
    fetch = _model.var_names(fetch_vars, 'fetch_vars')
    p = _model.inference_program(_program_of(kwargs), feed, fetch)
    model = {'format': _model.FORMAT, 'version': _model.VERSION,
             'program': serialize.program_to_dict(p), 'feed': feed, 'fetch': fetch,
             'params': _model.persistable_inputs(p)}
    return json.dumps(model, indent=1).encode('utf-8')


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The values of the parameters the inference program reads, as bytes."""
    program = _program_of(kwargs)
    p = _model.inference_program(program, _model.var_names(feed_vars, 'feed_vars'),
                                 _model.var_names(fetch_vars, 'fetch_vars'))
    scope = kwargs.get('scope') or global_scope()
    values = _model.param_values(program, _model.persistable_inputs(p), scope)
    return _params.params_bytes({_model.param_key(n): a for n, a in values.items()},
                                _model.new_save_id())


def deserialize_program(data):
    """The Program ``serialize_program`` wrote (its feed and fetch names in
    ``program._feed_names`` / ``program._fetch_names``), checked as a model
    file is: strict JSON, then the IR verifier."""
    def bad(what):
        raise _model.ModelFormatError("deserialize_program: not a serialized program (%s)" % what)
    try:
        model = _files.parse_json(bytes(data))
    except (_files.FileFormatError, TypeError) as e:
        bad(e)
    if not isinstance(model, dict) or model.get('format') != _model.FORMAT:
        bad('no framework program header')
    names = {k: model.get(k, []) for k in ('feed', 'fetch', 'params')}
    if not all(isinstance(v, list) and all(isinstance(n, str) for n in v)
               for v in names.values()):
        bad('malformed feed/fetch/params lists')
    try:
        program = serialize.program_from_dict(model.get('program'))
        verify.verify_program(program, set(names['feed']) | set(names['params']))
        verify.refuse_process_local_ops(program)
    except (serialize.ProgramFormatError, verify.VerifyError) as e:
        bad(e)
    program._feed_names = list(names['feed'])
    program._fetch_names = list(names['fetch'])
    return program


def deserialize_persistables(program, data, executor):
    """Load ``serialize_persistables`` bytes into the scope for ``program``."""
    scope = global_scope()
    gb = program.global_block()
    data = bytes(data)
    try:
        arrays = _params.read_params(data, _params.member_keys(data))
    except _params.ParamsFormatError as e:
        raise _model.ModelFormatError("deserialize_persistables: not serialized parameters "
                                      "(%s)" % e) from None
    for key, value in arrays.items():
        name = key[1:]                  # the 'p' prefix model_files.param_key adds
        var = gb._find_var(name)
        if var is None or not var.persistable:
            raise ValueError("deserialize_persistables: '%s' is not a persistable variable of "
                             "the program" % name)
        value = _model.as_declared(program, name, value)
        set_var_value(program, var, value, scope, 'deserialize_persistables')
    return program


def save_to_file(path, content):
    """Write ``content`` (bytes) to ``path`` atomically."""
    if not isinstance(content, (bytes, bytearray)):
        raise TypeError("save_to_file: content must be bytes, got %s" % type(content).__name__)
    _files.atomic_write(os.fspath(path), [bytes(content)])


def load_from_file(path):
    """The bytes in ``path``."""
    with open(os.fspath(path), 'rb') as f:
        return f.read()


def load_program_state(model_path, var_list=None):
    """``{name: ndarray}`` from the files ``static.save`` wrote at
    ``model_path`` (all variables, or those in ``var_list``)."""
    from .. import serialization
    prefix = _io._strip_suffix(os.fspath(model_path))
    state = {}
    found = False
    for suffix in ('.pdparams', '.pdopt'):
        path = prefix + suffix
        if os.path.exists(path):
            found = True
            for k, v in serialization.load(path).items():
                state[k] = np.asarray(v.data if hasattr(v, 'data') and
                                      not isinstance(v, np.ndarray) else v)
    if not found:
        raise FileNotFoundError("load_program_state: no '%s.pdparams' (written by "
                                "static.save)" % prefix)
    if var_list is not None:
        wanted = {v if isinstance(v, str) else v.name for v in var_list}
        state = {k: v for k, v in state.items() if k in wanted}
    return state
