"""``framework.nn.initializer``: how parameters get their first values (one
module per family, as Paddle's package: ``constant``, ``normal``, ``xavier``, ...).

An initializer is called on a parameter (``init(param)``). It builds the
value with registered ops only (``full``, ``uniform``, ``gaussian``,
``truncated_gaussian_random``, ``to_tensor``), in ``init_value(shape, dtype)``,
and then assigns it. Random draws therefore come from
``framework.random.generator()`` (``framework.seed(n)`` makes model
initialisation repeatable), and static mode can put the very same ops into a
startup program by calling ``init_value`` under that program.

>>> import framework as paddle
>>> init = paddle.nn.initializer.Constant(0.5)
>>> fc = paddle.nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=init))
>>> fc.weight.numpy().tolist()
[[0.5, 0.5], [0.5, 0.5]]
"""
from ..layer.layers import set_global_initializer  # noqa: F401
from .assign import Assign  # noqa: F401
from .bilinear import Bilinear  # noqa: F401
from .constant import Constant  # noqa: F401
from .dirac import Dirac  # noqa: F401
from .initializer import Initializer, calculate_gain, compute_fans  # noqa: F401
from .kaiming import KaimingNormal, KaimingUniform  # noqa: F401
from .normal import Normal, TruncatedNormal  # noqa: F401
from .orthogonal import Orthogonal  # noqa: F401
from .uniform import Uniform  # noqa: F401
from .xavier import XavierNormal, XavierUniform  # noqa: F401

__all__ = ['Initializer', 'Constant', 'Normal', 'TruncatedNormal', 'Uniform', 'XavierNormal',
           'XavierUniform', 'KaimingNormal', 'KaimingUniform', 'Assign', 'Orthogonal', 'Dirac',
           'Bilinear', 'calculate_gain', 'set_global_initializer']
