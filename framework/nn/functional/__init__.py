"""``framework.nn.functional``: the nn ops as functions, laid out as Paddle's
``paddle.nn.functional`` package (``activation``, ``common``, ``conv``,
``loss``, ``norm``, ``pooling``, ``vision``, ... each importable by path).
The registered ops live in ``framework.ops``; these modules hold the public
functions and the compositions of ops."""
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .flash_attention import *  # noqa: F401,F403
from .input import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .sdpa import *  # noqa: F401,F403
from .sparse_attention import *  # noqa: F401,F403
from .vision import *  # noqa: F401,F403
from .moe_permute import moe_permute  # noqa: F401
from .moe_unpermute import moe_unpermute  # noqa: F401

logsigmoid = log_sigmoid  # noqa: F405  (Paddle's alias)
