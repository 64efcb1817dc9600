"""Searching and sorting (``paddle.tensor.search``)."""
from ..ops.manipulation import (argsort, index_select, masked_select, nonzero, sort,  # noqa: F401
                                topk, where)
from ..ops.nucleus import top_p_sampling  # noqa: F401
from ..ops.reduce import argmax, argmin  # noqa: F401
from ..ops.sets import argwhere  # noqa: F401

__all__ = ['argmax', 'argmin', 'argsort', 'argwhere', 'index_select', 'masked_select', 'nonzero', 'sort',
           'topk', 'top_p_sampling', 'where']
