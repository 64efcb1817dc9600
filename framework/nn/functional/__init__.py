"""``framework.nn.functional``: the nn ops as functions (Paddle's ``paddle.nn.functional``)."""
from ...ops.nn import *  # noqa: F401,F403
from ...ops.loss import *  # noqa: F401,F403
from ...ops.conv import *  # noqa: F401,F403
from ...ops.manipulation import one_hot, pad  # noqa: F401,E402  (Paddle has both in F)
from ...ops.manipulation import one_hot, pad  # noqa: F401  (Paddle lists them in F too)
