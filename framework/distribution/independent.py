"""Reinterpreting batch dims of a distribution as event dims."""
from . import _math
from .distribution import Distribution


class Independent(Distribution):
    r"""``base`` with its rightmost ``reinterpreted_batch_rank`` batch dims made
    event dims: log_prob and entropy sum over them.

    >>> import framework as paddle
    >>> from framework.distribution import Independent, Normal
    >>> d = Independent(Normal(paddle.zeros([3]), paddle.ones([3])), 1)
    >>> d.batch_shape, d.event_shape
    ((), (3,))
    """

    def __init__(self, base, reinterpreted_batch_rank):
        if not isinstance(base, Distribution):
            raise TypeError("Expected type of 'base' is Distribution, but got %s" % type(base))
        n = len(base.batch_shape)
        if not (isinstance(reinterpreted_batch_rank, int) and 0 < reinterpreted_batch_rank <= n):
            raise ValueError("Expected 0 < reinterpreted_batch_rank <= %d, but got %s"
                             % (n, reinterpreted_batch_rank))
        self._base = base
        self._reinterpreted_batch_rank = reinterpreted_batch_rank
        shape = tuple(base.batch_shape) + tuple(base.event_shape)
        cut = n - reinterpreted_batch_rank
        super().__init__(batch_shape=shape[:cut], event_shape=shape[cut:])

    @property
    def mean(self):
        return self._base.mean

    @property
    def variance(self):
        return self._base.variance

    def sample(self, shape=()):
        return self._base.sample(shape)

    def rsample(self, shape=()):
        return self._base.rsample(shape)

    def log_prob(self, value):
        return self._sum_rightmost(self._base.log_prob(value), self._reinterpreted_batch_rank)

    def prob(self, value):
        from ..ops.math import exp
        return exp(self.log_prob(value))

    def entropy(self):
        return self._sum_rightmost(self._base.entropy(), self._reinterpreted_batch_rank)

    def _sum_rightmost(self, value, n):
        return _math.sum_rightmost(value, n)


__all__ = ['Independent']
