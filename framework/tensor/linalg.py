"""Linear algebra on tensors (``paddle.tensor.linalg``)."""
from ..linalg import norm  # noqa: F401
from ..ops.manipulation import t, transpose  # noqa: F401
from ..ops.math import bmm, dot, matmul, mm, outer  # noqa: F401

__all__ = ['bmm', 'dot', 'matmul', 'mm', 'norm', 'outer', 't', 'transpose']
