"""A distribution pushed through a chain of transforms."""
import typing

from . import _math, independent, transform
from .distribution import Distribution


class TransformedDistribution(Distribution):
    r"""The distribution of y = t_n(...t_1(x)) for x ~ ``base``:
    log p(y) = log p_base(x) - sum_i log|det J_{t_i}|.

    >>> import framework as paddle
    >>> from framework.distribution import ExpTransform, Normal, TransformedDistribution
    >>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])
    >>> round(float(d.log_prob(paddle.to_tensor(1.0))), 4)   # log-normal density at 1
    -0.9189
    """

    def __init__(self, base, transforms):
        if not isinstance(base, Distribution):
            raise TypeError("Expected type of 'base' is Distribution, but got %s." % type(base))
        if not isinstance(transforms, typing.Sequence):
            raise TypeError("Expected type of 'transforms' is Sequence[Transform] or Chain, but "
                            "got %s." % type(transforms))
        if not all(isinstance(t, transform.Transform) for t in transforms):
            raise TypeError("All element of transforms must be Transform type.")
        self._base = base
        self._transforms = transforms
        if not transforms:
            super().__init__(base.batch_shape, base.event_shape)
            return
        chain = transform.ChainTransform(transforms)
        base_shape = tuple(base.batch_shape) + tuple(base.event_shape)
        in_rank = chain._domain.event_rank
        if len(base_shape) < in_rank:
            raise ValueError("'base' needs to have shape with size at least %d, bug got %d."
                             % (in_rank, len(base_shape)))
        if in_rank > len(base.event_shape):
            base = independent.Independent(base, in_rank - len(base.event_shape))
        shape = tuple(chain.forward_shape(tuple(base.batch_shape) + tuple(base.event_shape)))
        event_rank = chain._codomain.event_rank + max(len(base.event_shape) - in_rank, 0)
        cut = len(shape) - event_rank
        super().__init__(shape[:cut], shape[cut:])

    def sample(self, shape=()):
        x = self._base.sample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def rsample(self, shape=()):
        x = self._base.rsample(shape)
        for t in self._transforms:
            x = t.forward(x)
        return x

    def log_prob(self, value):
        log_prob = 0.0
        y = value
        event_rank = len(self.event_shape)
        for t in reversed(self._transforms):
            x = t.inverse(y)
            event_rank += t._domain.event_rank - t._codomain.event_rank
            log_prob = log_prob - _math.sum_rightmost(t.forward_log_det_jacobian(x),
                                                      event_rank - t._domain.event_rank)
            y = x
        return log_prob + _math.sum_rightmost(self._base.log_prob(y),
                                              event_rank - len(self._base.event_shape))


__all__ = ['TransformedDistribution']
