"""``framework.base.framework``: mode queries and program objects under the
names Paddle 2.6+ code imports from ``paddle.base.framework``."""
from ..static import Program, Variable, default_main_program, default_startup_program  # noqa: F401
from ..graph.mode import in_dynamic_mode  # noqa: F401
from ..graph.program import Parameter, program_guard  # noqa: F401
from ..utils import unique_name  # noqa: F401


def in_dygraph_mode():
    return in_dynamic_mode()


def use_pir_api():
    """False: programs here are ProgramDesc-style (blocks of ops), not Paddle's PIR."""
    return False


def in_pir_mode():
    return False


def in_dynamic_or_pir_mode():
    return in_dynamic_mode()
