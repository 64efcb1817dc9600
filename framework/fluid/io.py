"""1.8 ``fluid.io`` save/load of inference models (dirname + file names)."""
import os

from ..io import DataLoader  # noqa: F401  (fluid.io.DataLoader)
from ..static import io as _io


def save_inference_model(dirname, feeded_var_names, target_vars, executor, main_program=None,
                         model_filename=None, params_filename=None, **kwargs):
    from ..graph.program import default_main_program
    program = main_program or default_main_program()
    gb = program.global_block()
    feeds = [gb.var(n) if isinstance(n, str) else n for n in feeded_var_names]
    prefix = os.path.join(dirname, model_filename or 'model')
    if prefix.endswith(_io.MODEL_SUFFIX):
        prefix = prefix[:-len(_io.MODEL_SUFFIX)]
    _io.save_inference_model(prefix, feeds, target_vars, executor, program=program)
    return [v.name for v in (target_vars if isinstance(target_vars, list) else [target_vars])]


def load_inference_model(dirname, executor, model_filename=None, params_filename=None,
                         **kwargs):
    prefix = os.path.join(dirname, model_filename or 'model')
    if prefix.endswith(_io.MODEL_SUFFIX):
        prefix = prefix[:-len(_io.MODEL_SUFFIX)]
    return _io.load_inference_model(prefix, executor)
