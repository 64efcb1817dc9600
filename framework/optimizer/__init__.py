"""``framework.optimizer``: optimizers and learning-rate schedulers (Paddle's
``paddle.optimizer``). Update rules are registered ops in
``framework.ops.optim``."""
from . import lr  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lamb import Lamb
from .lbfgs import LBFGS
from .momentum import Momentum
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSProp
from .rprop import Rprop
from .sgd import SGD

__all__ = ['Optimizer', 'SGD', 'Momentum', 'Adam', 'AdamW', 'Adamax', 'RMSProp', 'Adagrad',
           'Adadelta', 'Lamb', 'NAdam', 'RAdam', 'ASGD', 'Rprop', 'LBFGS', 'lr']
