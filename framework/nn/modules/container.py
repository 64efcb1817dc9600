"""``ModuleList`` / ``ModuleDict``: Paddle 3's aliases of ``LayerList`` / ``LayerDict``."""
from ..layer.container import LayerDict, LayerList

ModuleList = LayerList
ModuleDict = LayerDict
