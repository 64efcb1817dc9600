"""Convolution and pooling ops (``framework.nn.functional`` names).

``algorithms`` holds the numpy conv algorithms, ``search`` the algorithm choice
(heuristic or exhaustive timed search with a cache), ``conv`` and ``pool`` the
registered ops and the Paddle 2.x wrappers (``depth`` runs 3-D convs as 2-D
ones over depth taps, ``unfold`` holds im2col/col2im), ``reference`` naive loop versions
used as independent test references.
"""
from . import algorithms, search  # noqa: F401
from .conv import *  # noqa: F401,F403
from .conv import __all__ as _conv_all
from .pool import *  # noqa: F401,F403
from .pool import __all__ as _pool_all
from .unfold import *  # noqa: F401,F403
from .unfold import __all__ as _unfold_all

__all__ = list(_conv_all) + list(_pool_all) + list(_unfold_all)
