"""``framework.utils`` (Paddle's ``paddle.utils``): nested-structure helpers,
optional imports, deprecation, unique names, offline weight downloads and the
installation check.

``paddle.utils.gast`` is the ``gast`` package itself (Paddle vendors it there;
code that transforms ASTs imports it from this path).
"""
import gast  # noqa: F401  (re-exported: paddle.utils.gast)

from . import download, unique_name  # noqa: F401
from .deprecated import deprecated  # noqa: F401
from .install_check import run_check  # noqa: F401
from .lazy_import import try_import  # noqa: F401
from .layers_utils import (flatten, is_sequence, map_structure, pack_sequence_as,  # noqa: F401
                           to_sequence)
from .versions import require_version  # noqa: F401

__all__ = ['deprecated', 'require_version', 'run_check', 'try_import']
