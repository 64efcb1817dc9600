"""``framework.nn``: layers, containers, initializers and functional ops."""
from . import functional  # noqa: F401
from . import initializer  # noqa: F401
from .layer import Layer  # noqa: F401
from .container import (LayerDict, LayerList, ParameterDict, ParameterList,  # noqa: F401
                        Sequential)
from .layers import *  # noqa: F401,F403
from . import layers  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from . import utils  # noqa: F401
from .layers.rnn import *  # noqa: F401,F403,E402  (recurrent layers)
from .layers.transformer import *  # noqa: F401,F403,E402  (attention / Transformer)
