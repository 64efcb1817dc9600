"""Student's t distribution."""
import math
from collections.abc import Sequence

import numpy as np

from ..ops import math as _m
from ..ops.creation import full_like, normal_like_op
from ..ops.manipulation import expand, where
from ..ops.special import digamma, lgamma
from .distribution import Distribution, eager_all, without_grad
from .gamma import Gamma

_HALF_LOG_PI = 0.5 * math.log(math.pi)


class StudentT(Distribution):
    r"""Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``:
    X = loc + scale Z / sqrt(V / df), Z ~ N(0, 1), V ~ Chi2(df).

    >>> from framework.distribution import StudentT
    >>> StudentT(3.0, 1.0, 2.0).variance.item()
    12.0
    """

    def __init__(self, df, loc, scale, name=None):
        self.name = name if name is not None else 'StudentT'
        self.df, self.loc, self.scale = self._broadcast_all(df, loc, scale)
        if not eager_all(self.df >= 0.0):
            raise ValueError('Every element of input parameter `df` should be nonnegative.')
        if not eager_all(self.scale >= 0.0):
            raise ValueError('Every element of input parameter `scale` should be nonnegative.')
        self.dtype = np.dtype(self.df.dtype)
        super().__init__(tuple(self.df.shape))
        self._chi2 = Gamma(0.5 * self.df, full_like(self.df, 0.5))

    def _check_nonnegative(self, value):
        return value >= 0.0

    @property
    def mean(self):
        return where(self.df > 1.0, self.loc, full_like(self.loc, float('nan')))

    @property
    def variance(self):
        df = self.df
        var = where(df > 2.0, self.scale * self.scale * df / (df - 2.0),
                    full_like(df, float('nan')))
        return where((df <= 2.0) & (df > 1.0), full_like(var, float('inf')), var)

    def sample(self, shape=()):
        return without_grad(self.rsample, shape)

    def rsample(self, shape=()):
        """Reparameterized draws (Paddle 3.3 has only sample): differentiable in
        loc and scale, and in df through the chi-squared draw."""
        if not isinstance(shape, Sequence):
            raise TypeError('sample shape must be Sequence object.')
        out = list(self._extend_shape(shape))
        z = normal_like_op(expand(self.loc, out), 0.0, 1.0, 0)
        chi2 = self._chi2.rsample(shape)
        return self.loc + self.scale * z * _m.rsqrt(chi2 / self.df)

    def entropy(self):
        df = self.df
        lbeta = lgamma(0.5 * df) + math.lgamma(0.5) - lgamma(0.5 * (df + 1.0))
        return (_m.log(self.scale) + 0.5 * (df + 1.0) * (digamma(0.5 * (df + 1.0))
                                                       - digamma(0.5 * df))
                + 0.5 * _m.log(df) + lbeta)

    def log_prob(self, value):
        value = self._check_values_dtype_in_probs(self.df, value)
        y = (value - self.loc) / self.scale
        z = (_m.log(self.scale) + 0.5 * _m.log(self.df) + _HALF_LOG_PI
             + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * _m.log1p(y * y / self.df) - z

    def prob(self, value):
        return _m.exp(self.log_prob(value))


__all__ = ['StudentT']
