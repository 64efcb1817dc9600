"""The chi-squared distribution, a gamma with shape df / 2 and rate 1 / 2."""
import numpy as np

from .. import dtype as _dt
from ..ops.creation import full_like
from .distribution import eager_all
from .gamma import Gamma


class Chi2(Gamma):
    r"""Chi-squared distribution with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2).

    >>> from framework.distribution import Chi2
    >>> Chi2(4.0).mean.item()
    4.0
    """

    def __init__(self, df):
        if self._validate_args(df):
            self.df = df
            self.dtype = np.dtype(df.dtype)
        else:
            [self.df] = self._to_tensor(df)
            self.dtype = _dt.get_default_dtype()
            from ._math import as_dtype
            self.df = as_dtype(self.df, self.dtype)
        self.rate = full_like(self.df, 0.5)
        if not eager_all(self.df > 0):
            raise ValueError("The arg of `df` must be positive.")
        super().__init__(self.df * 0.5, self.rate)


__all__ = ['Chi2']
