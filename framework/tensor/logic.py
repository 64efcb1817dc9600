"""Comparisons and logical functions (``paddle.tensor.logic``)."""
from ..ops.compare import allclose, equal_all, is_tensor, isclose  # noqa: F401
from ..ops.math import (bitwise_and, bitwise_not, bitwise_or, bitwise_xor, equal,  # noqa: F401
                        greater_equal, greater_than, less_equal, less_than, logical_and,
                        logical_not, logical_or, logical_xor, not_equal)

__all__ = ['allclose', 'equal_all', 'is_tensor', 'isclose', 'bitwise_and', 'bitwise_not',
           'bitwise_or', 'bitwise_xor', 'equal', 'greater_equal', 'greater_than', 'less_equal',
           'less_than', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'not_equal']
