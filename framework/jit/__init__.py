"""``framework.jit``: @to_static, jit.save / jit.load, TracedLayer."""
from ..dy2static.convert import set_code_level, set_verbosity
from ..dy2static.translator import (ProgramTranslator, StaticFunction, ignore_module,
                                    not_to_static)
from .api import TracedLayer, TranslatedLayer, declarative, load, save, to_static
from . import api, translated_layer  # noqa: F401  (paddle.jit.api.to_static, ...)


def enable_to_static(enable_to_static_bool):
    """False makes every @to_static function run eagerly (for debugging)."""
    ProgramTranslator().enable(enable_to_static_bool)


__all__ = ['to_static', 'declarative', 'not_to_static', 'save', 'load', 'TracedLayer',
           'TranslatedLayer', 'ProgramTranslator', 'StaticFunction', 'set_code_level',
           'set_verbosity', 'enable_to_static', 'ignore_module']
