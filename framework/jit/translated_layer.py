"""``paddle.jit.translated_layer``: the layer ``jit.load`` returns and the file
suffixes ``jit.save`` writes."""
from ..static.io import MODEL_SUFFIX as INFER_MODEL_SUFFIX  # noqa: F401
from ..static.io import PARAMS_SUFFIX as INFER_PARAMS_SUFFIX  # noqa: F401
from .api import TranslatedLayer  # noqa: F401

INFER_PARAMS_INFO_SUFFIX = '.pdiparams.info'
