"""``framework.nn``: layers, containers, initializers and functional ops."""
from . import functional  # noqa: F401
from . import layer  # noqa: F401  (before initializer: the layers import it)
from . import initializer  # noqa: F401
from .layer import *  # noqa: F401,F403
from .layer import Layer  # noqa: F401
from .layer.container import (LayerDict, LayerList, ParameterDict, ParameterList,  # noqa: F401
                              Sequential)
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from . import utils  # noqa: F401
from .layer.rnn import *  # noqa: F401,F403,E402  (recurrent layers)
from .layer.transformer import *  # noqa: F401,F403,E402  (attention / Transformer)

# Paddle 3's PyTorch-style names: the same classes as Paddle's own
Conv1d, Conv2d, Conv3d = Conv1D, Conv2D, Conv3D  # noqa: F405
AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = (  # noqa: F405
    AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D)
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (  # noqa: F405
    AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D)
MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = MaxUnPool1D, MaxUnPool2D, MaxUnPool3D  # noqa: F405
LPPool1d, LPPool2d = LPPool1D, LPPool2D  # noqa: F405
UpsamplingBilinear2d, UpsamplingNearest2d = UpsamplingBilinear2D, UpsamplingNearest2D  # noqa
HuberLoss = SmoothL1Loss  # noqa: F405
from . import modules  # noqa: F401,E402
from .modules import Module, ModuleDict, ModuleList  # noqa: F401,E402
from .parameter import Parameter  # noqa: F401,E402
from . import decode  # noqa: F401,E402
from .decode import BeamSearchDecoder, dynamic_decode  # noqa: F401,E402
ZeroPad1d, ZeroPad2d, ZeroPad3d = ZeroPad1D, ZeroPad2D, ZeroPad3D  # noqa: F405,E402
ConstantPad1d, ConstantPad2d, ConstantPad3d = ConstantPad1D, ConstantPad2D, ConstantPad3D  # noqa
ReflectionPad1d, ReflectionPad2d, ReflectionPad3d = (  # noqa: F405,E402
    ReflectionPad1D, ReflectionPad2D, ReflectionPad3D)
ReplicationPad1d, ReplicationPad2d, ReplicationPad3d = (  # noqa: F405,E402
    ReplicationPad1D, ReplicationPad2D, ReplicationPad3D)
CircularPad1d, CircularPad2d, CircularPad3d = CircularPad1D, CircularPad2D, CircularPad3D  # noqa
