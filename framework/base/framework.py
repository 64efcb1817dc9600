"""``framework.base.framework``: mode queries and program objects under the
names Paddle 2.6+ code imports from ``paddle.base.framework``."""
import contextvars

from ..static import Program, Variable, default_main_program, default_startup_program  # noqa: F401
from ..graph.mode import in_dynamic_mode  # noqa: F401
from ..graph.program import Parameter, program_guard  # noqa: F401
from ..utils import unique_name  # noqa: F401


def in_dygraph_mode():
    return in_dynamic_mode()


# Programs here are ProgramDesc-style (blocks of ops), not Paddle's PIR, so
# Paddle's PIR queries answer False, except inside ``pir_utils.IrGuard``, where
# the user asked for PIR's answers (the programs are the same either way).
_pir_guarded = contextvars.ContextVar('pir_guarded', default=False)


def use_pir_api():
    return _pir_guarded.get()


def in_pir_mode():
    return _pir_guarded.get() and not in_dynamic_mode()


def in_dynamic_or_pir_mode():
    return in_dynamic_mode() or in_pir_mode()
