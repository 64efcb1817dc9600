"""The layers, laid out as Paddle's ``paddle.nn.layer`` package: ``layers``
holds ``Layer`` itself, each other module one family (``activation``,
``common``, ``conv``, ``loss``, ``norm``, ``pooling``, ``rnn``,
``transformer``, ``container``, ...) and lists its classes in ``__all__``.
Code that imports by path (``from paddle.nn.layer.activation import ReLU``)
finds the same names here.
"""
# layers first: every other module subclasses Layer
from .layers import Layer  # noqa: F401
from .layers import (create_parameter, name_counters, set_global_initializer,  # noqa: F401
                     set_name_counters, tracing, unique_name, unique_name_guard)
from . import container, rnn, transformer  # noqa: F401
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
