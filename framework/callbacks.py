"""``framework.callbacks``: callbacks for ``framework.Model`` (Paddle's
``paddle.callbacks``); they live in ``framework.hapi.callbacks``."""
from .hapi.callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint,  # noqa: F401
                             ProgBarLogger, ReduceLROnPlateau, VisualDL, WandbCallback)

__all__ = ['Callback', 'ProgBarLogger', 'ModelCheckpoint', 'EarlyStopping', 'LRScheduler',
           'ReduceLROnPlateau', 'VisualDL', 'WandbCallback']
