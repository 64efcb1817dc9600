"""``Module``: Paddle 3's alias of ``Layer``."""
from ..layer.layers import Layer

Module = Layer
