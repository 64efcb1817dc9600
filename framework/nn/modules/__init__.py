"""Paddle 3's PyTorch-style names (``paddle.nn.modules``): ``Module`` is
``Layer``, ``ModuleList`` / ``ModuleDict`` are ``LayerList`` / ``LayerDict``."""
from .container import ModuleDict, ModuleList  # noqa: F401
from .module import Module  # noqa: F401
