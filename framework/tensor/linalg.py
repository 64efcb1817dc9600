"""Linear algebra on tensors (``paddle.tensor.linalg``)."""
from ..ops.linalg_api import *  # noqa: F401,F403
from ..ops.linalg_api import __all__ as _linalg_all, inverse  # noqa: F401
from ..ops.manipulation import t, transpose  # noqa: F401
from ..ops.math import bmm, dot, matmul, mm, outer  # noqa: F401

__all__ = sorted(set(_linalg_all) | {'bmm', 'dot', 'inverse', 'matmul', 'mm', 'outer', 't',
                                     'transpose'})
