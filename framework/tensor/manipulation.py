"""Shape and layout functions (``paddle.tensor.manipulation``)."""
from ..ops.manipulation import (broadcast_tensors, broadcast_to, cast, chunk, concat,  # noqa: F401
                                expand, expand_as, flatten, flip, gather, gather_nd, index_add,
                                moveaxis, pad, reshape, roll, scatter_nd,
                                scatter_nd_add, split, squeeze, stack, tile, transpose, unbind,
                                unsqueeze, unstack)
from ..ops.subscript import slice, strided_slice  # noqa: F401
from ..ops.indexing import put_along_axis, scatter, take_along_axis  # noqa: F401

__all__ = ['broadcast_tensors', 'broadcast_to', 'cast', 'chunk', 'concat', 'expand', 'expand_as',
           'flatten', 'flip', 'gather', 'gather_nd', 'index_add', 'moveaxis', 'pad',
           'put_along_axis', 'reshape', 'roll', 'scatter', 'scatter_nd', 'scatter_nd_add',
           'slice', 'split', 'squeeze', 'stack', 'strided_slice', 'take_along_axis', 'tile',
           'transpose', 'unbind', 'unsqueeze', 'unstack']
