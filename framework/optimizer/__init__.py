"""``framework.optimizer``: optimizers and learning-rate schedulers (Paddle's
``paddle.optimizer``). Update rules are registered ops in
``framework.ops.optim``."""
from . import lr  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .lamb import Lamb
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ['Optimizer', 'SGD', 'Momentum', 'Adam', 'AdamW', 'Adamax', 'RMSProp', 'Adagrad',
           'Adadelta', 'Lamb', 'lr']
