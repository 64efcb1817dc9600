"""``framework.static.nn``, laid out as Paddle's ``paddle.static.nn`` package:
control flow as single ops with sub-blocks (``control_flow``), the layer
builders of the static API and ``py_func`` (``common``), ``nce`` (``loss``),
``static_pylayer`` and the LoD sequence layers as Paddle 3 answers them
(``sequence_lod``)."""
from . import common, control_flow, loss, sequence_lod  # noqa: F401
from . import static_pylayer as _static_pylayer_module
from .common import *  # noqa: F401,F403
from .control_flow import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .sequence_lod import *  # noqa: F401,F403
from .static_pylayer import *  # noqa: F401,F403

__all__ = (common.__all__ + control_flow.__all__ + loss.__all__ + sequence_lod.__all__
           + _static_pylayer_module.__all__)
