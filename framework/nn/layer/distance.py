"""Distances (Paddle's ``paddle.nn.layer.distance``)."""
from .. import functional as F
from .layers import Layer

__all__ = ['PairwiseDistance']


class PairwiseDistance(Layer):
    """The ``p``-norm of ``x - y + epsilon`` along the last axis.

    >>> import framework as paddle
    >>> d = paddle.nn.PairwiseDistance(epsilon=0.0)
    >>> d(paddle.to_tensor([[3.0, 4.0]]), paddle.zeros([1, 2])).numpy().tolist()
    [5.0]
    """

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None):
        super().__init__()
        self.p = p
        self.epsilon = epsilon
        self.keepdim = keepdim
        self.name = name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim)

    def extra_repr(self):
        return 'p=%s, epsilon=%s%s' % (self.p, self.epsilon,
                                        ', keepdim=True' if self.keepdim else '')
