"""``framework.hapi``: the high-level API -- ``Model``, callbacks, the progress
bar and ``summary`` (Paddle's ``paddle.hapi``)."""
from . import callbacks  # noqa: F401
from .model import Model
from .progressbar import ProgressBar
from .summary import summary
from .flops import flops

__all__ = ['Model', 'summary', 'flops', 'ProgressBar', 'callbacks']
