"""``paddle.sparse.nn``: layers on sparse tensors.

Activations and softmax work on the stored values; ``BatchNorm`` normalises
the values of a channels-last COO tensor (values ``[nnz, C]``) per channel,
as Paddle's sparse batch norm does. Sparse 3-D convolution and pooling
(``Conv3D``, ``SubmConv3D``, ``MaxPool3D``) are not provided.
"""
from ...nn.layer.layers import Layer
from ...nn.layer.norm import BatchNorm1D
from . import functional
from ..tensor import SparseTensor


class ReLU(Layer):
    def forward(self, x):
        return functional.relu(x)


class ReLU6(Layer):
    def forward(self, x):
        return functional.relu6(x)


class LeakyReLU(Layer):
    def __init__(self, negative_slope=0.01, name=None):
        super().__init__()
        self._negative_slope = negative_slope

    def forward(self, x):
        return functional.leaky_relu(x, self._negative_slope)


class Softmax(Layer):
    def __init__(self, axis=-1, name=None):
        super().__init__()
        self._axis = axis

    def forward(self, x):
        return functional.softmax(x, self._axis)


class BatchNorm(BatchNorm1D):
    """Batch norm of a sparse ``[N, ..., C]`` tensor's values over the channel
    (last) dim: the dense BatchNorm1D on values ``[nnz, C]``."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format='NDHWC', use_global_stats=None, name=None):
        if data_format not in ('NDHWC', 'NHWC', 'NLC'):
            raise ValueError("paddle.sparse.nn.BatchNorm: data_format must be channels-last "
                             "(NDHWC), got %r" % (data_format,))
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, 'NC',
                         use_global_stats, name)

    def forward(self, x):
        if not isinstance(x, SparseTensor) or x.format != 'coo' or x.dense_dim() != 1:
            raise TypeError("paddle.sparse.nn.BatchNorm: x must be a COO tensor whose values "
                            "are [nnz, C] (sparse_dim = ndim - 1), got %r"
                            % (getattr(x, 'shape', type(x).__name__),))
        return x._with_values(super().forward(x.values()))


__all__ = ['ReLU', 'ReLU6', 'LeakyReLU', 'Softmax', 'BatchNorm', 'functional']
