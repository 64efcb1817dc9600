"""Random tensors (``paddle.tensor.random``)."""
from ..ops.creation import (bernoulli, multinomial, normal, rand, randint, randint_like,  # noqa: F401
                            randn, randperm, standard_normal, uniform)

__all__ = ['bernoulli', 'multinomial', 'normal', 'rand', 'randint', 'randint_like', 'randn',
           'randperm', 'standard_normal', 'uniform']
