"""Paddle's static save/load API: ``save_inference_model`` /
``load_inference_model`` (the files and their checks are the static core's,
``graph/model_files.py``; other formats register a writer here,
``register_format``) and ``static.save`` / ``static.load`` of a program's
persistable variables (``.pdparams``, ``.pdopt`` and the program as JSON)."""
import json
import os

from .. import _files, serialization
from ..graph import serialize
from ..graph.executor import global_scope
from ..graph.model_files import (MODEL_SUFFIX, PARAMS_SUFFIX, ModelFormatError,  # noqa: F401
                                 check_computable, inference_model_parts, read_model,
                                 write_model)
from ..graph.program import Program
from ..graph.state import (program_state_dict, set_program_state,  # noqa: F401
                           set_var_value, state_var_names)

# format name -> fn(path_prefix, program, feed names, fetch names, values, api, **options)
# writing an inference model in it; framework.onnx adds 'onnx' when imported
_FORMATS = {}


def register_format(name, writer):
    """Let ``save_inference_model(format=name)`` write with ``writer``."""
    _FORMATS[name] = writer


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None, **kwargs):
    """Prune ``program`` to ``fetch_vars``, switch it to inference and write
    ``<path_prefix>.pdmodel`` (JSON) and ``<path_prefix>.pdiparams`` (npz).

    ``format='onnx'`` writes ``<path_prefix>.onnx`` instead (needs the ``onnx``
    extra; ``opset_version`` and ``paddle.onnx.export``'s configs such as
    ``fold_batch_norm`` may be given too)."""
    fmt = kwargs.pop('format', None) or 'paddle'
    if fmt != 'paddle' and fmt not in _FORMATS:
        raise ValueError("save_inference_model: format must be one of %s, got %r"
                         % (', '.join(repr(f) for f in ['paddle'] + sorted(_FORMATS)), fmt))
    p, feed_names, fetch_names, values = inference_model_parts(
        feed_vars, fetch_vars, program, kwargs.pop('scope', None))
    check_computable(p, feed_names, fetch_names, values, 'save_inference_model')
    if fmt == 'paddle':
        write_model(path_prefix, p, feed_names, fetch_names, values)
    else:
        _FORMATS[fmt](path_prefix, p, feed_names, fetch_names, values, 'save_inference_model',
                      **kwargs)
    return p


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
