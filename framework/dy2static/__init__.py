"""dy2static: convert eager Python functions (control flow included) into static
Programs. ``framework.jit`` is the public API."""
from .convert import convert_to_static, set_code_level, set_verbosity  # noqa: F401
from .translator import (ConcreteProgram, ProgramTranslator, StaticFunction,  # noqa: F401
                         not_to_static)
