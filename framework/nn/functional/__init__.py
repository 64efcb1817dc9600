"""``framework.nn.functional``: the nn ops as functions (Paddle's ``paddle.nn.functional``)."""
from ...ops.nn import *  # noqa: F401,F403
from ...ops.loss import *  # noqa: F401,F403
from ...ops.conv import *  # noqa: F401,F403
