"""``framework.sparse`` (Paddle's ``paddle.sparse``): COO and CSR tensors, eager mode.

>>> import framework as paddle
>>> x = paddle.to_tensor([[0., 2.], [3., 0.]]).to_sparse_coo(2)
>>> x.indices().numpy().tolist(), x.values().numpy().tolist()
([[0, 1], [1, 0]], [2.0, 3.0])
>>> paddle.sparse.matmul(x, paddle.ones([2, 1])).numpy().tolist()
[[2.0], [3.0]]
"""
from . import nn  # noqa: F401
from .binary import add, addmm, divide, masked_matmul, matmul, multiply, mv, subtract  # noqa: F401
from .manipulation import (coalesce, is_same_shape, mask_as, reshape, slice, sum,  # noqa: F401,A004
                           transpose)
from .tensor import (SparseCooTensor, SparseCsrTensor, sparse_coo_tensor,  # noqa: F401
                     sparse_csr_tensor)
from .unary import *  # noqa: F401,F403
from .unary import __all__ as _unary_names

__all__ = ['sparse_coo_tensor', 'sparse_csr_tensor', 'add', 'subtract', 'multiply', 'divide',
           'matmul', 'masked_matmul', 'mv', 'addmm', 'coalesce', 'is_same_shape', 'mask_as',
           'reshape', 'slice', 'sum', 'transpose'] + _unary_names
