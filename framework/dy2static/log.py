"""The translator's log, as Paddle keeps it: the ``Dynamic-to-Static`` logger.

Paddle reports facts about a conversion that need no action (a spec that does
not fit the call, several cached programs where one was asked for) on this
logger, not as Python warnings; ``jit.set_verbosity(-1)`` silences it.
``verbosity`` is also read by ``convert`` to print the transformed code.
"""
import logging

verbosity = {'level': 0, 'code_level': 0}

_logger = logging.getLogger('Dynamic-to-Static')
if not _logger.handlers:
    _handler = logging.StreamHandler()
    _handler.setFormatter(logging.Formatter('%(asctime)s %(name)s %(levelname)s: %(message)s',
                                            datefmt='%a %b %d %H:%M:%S'))
    _logger.addHandler(_handler)
    _logger.setLevel(logging.DEBUG)
    _logger.propagate = False      # printed once, by our handler


def warn(msg):
    if verbosity['level'] != -1:
        _logger.warning(msg)
