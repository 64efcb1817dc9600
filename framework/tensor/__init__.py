"""``framework.tensor`` (Paddle's ``paddle.tensor``): the tensor functions grouped
by submodule as Paddle groups them (``paddle.tensor.math.add``,
``paddle.tensor.creation.fill_constant``, ...). Every name is the same function
object as the top-level one; nothing here is a second implementation."""
import sys
import types

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
from ..ops.creation import to_tensor as _to_tensor


# ``paddle.tensor(data, ...)`` (Paddle 3's torch-style constructor) is this
# module called: Paddle's ``paddle.tensor`` is both, and so is ours
class _CallableModule(types.ModuleType):
    def __call__(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
        """A new tensor of ``data`` (a copy, also of a Tensor), with
        ``stop_gradient = not requires_grad``."""
        if pin_memory:
            raise RuntimeError("paddle.tensor(pin_memory=True): pinned (CUDA host) memory "
                               "is not available on a CPU-only build")
        return _to_tensor(data, dtype=dtype, place=device, stop_gradient=not requires_grad)


sys.modules[__name__].__class__ = _CallableModule
