"""``framework.tensor`` (Paddle's ``paddle.tensor``): the tensor functions grouped
by submodule as Paddle groups them (``paddle.tensor.math.add``,
``paddle.tensor.creation.fill_constant``, ...). Every name is the same function
object as the top-level one; nothing here is a second implementation."""
from . import array, attribute, creation, linalg, logic, manipulation, math, random, search, stat
from .array import *  # noqa: F401,F403
from .attribute import *  # noqa: F401,F403
from .creation import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .logic import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .search import *  # noqa: F401,F403
from .stat import *  # noqa: F401,F403
