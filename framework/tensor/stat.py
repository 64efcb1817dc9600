"""Statistics (``paddle.tensor.stat``)."""
from ..ops.manipulation import numel  # noqa: F401
from ..ops.reduce import mean, std, var  # noqa: F401

__all__ = ['mean', 'numel', 'std', 'var']
