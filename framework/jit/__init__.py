"""``framework.jit``: @to_static, jit.save / jit.load, TracedLayer."""
from ..dy2static.convert import set_code_level, set_verbosity
from ..dy2static.translator import ProgramTranslator, StaticFunction, not_to_static
from .api import TracedLayer, TranslatedLayer, declarative, load, save, to_static

__all__ = ['to_static', 'declarative', 'not_to_static', 'save', 'load', 'TracedLayer',
           'TranslatedLayer', 'ProgramTranslator', 'StaticFunction', 'set_code_level',
           'set_verbosity']
