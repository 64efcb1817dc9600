"""1.8 optimizer names: ``parameter_list=`` instead of ``parameters=``."""
from .. import optimizer as _opt


def _adapt(cls):
    class Adapted(cls):
        def __init__(self, learning_rate=0.001, parameter_list=None, regularization=None,
                     grad_clip=None, **kwargs):
            kwargs.setdefault('parameters', parameter_list)
            if regularization is not None:
                kwargs.setdefault('weight_decay', regularization)
            super().__init__(learning_rate=learning_rate, grad_clip=grad_clip, **kwargs)
    Adapted.__name__ = cls.__name__
    Adapted.__qualname__ = cls.__name__
    return Adapted


SGD = SGDOptimizer = _adapt(_opt.SGD)
Momentum = MomentumOptimizer = _adapt(_opt.Momentum)
Adam = AdamOptimizer = _adapt(_opt.Adam)
Adamax = AdamaxOptimizer = _adapt(_opt.Adamax)
Adagrad = AdagradOptimizer = _adapt(_opt.Adagrad)
RMSProp = RMSPropOptimizer = _adapt(_opt.RMSProp)
Adadelta = AdadeltaOptimizer = _adapt(_opt.Adadelta)
Lamb = LambOptimizer = _adapt(_opt.Lamb)
