"""Which kernel backend the ops run on: ``'numpy'`` or ``'onednn'``.

oneDNN runs by default when the ``[onednn]`` extra loads (a user who
installed it wants the speed); ``FRAMEWORK_BACKEND=numpy`` in the
environment, ``paddle.set_flags({'FLAGS_use_mkldnn': False})`` or
``set_backend('numpy')`` turn it off. Where oneDNN cannot load, everything
runs on numpy; asking for it then warns once with the reason, never raises
an ImportError.

Switching is process-wide (Paddle's flag is), and static plans compiled
under one backend are not reused under the other: ``backend()`` is part of
every plan cache's key.
"""
import contextlib
import os
import sys
import warnings

from .. import flags, threads
from ..backends import onednn
from . import registry

NAMES = ('numpy', 'onednn')
_warned = []


def backend():
    """The backend ops run on now."""
    return registry.active_backend()


def available(name):
    """Whether backend ``name`` can run here."""
    return name == 'numpy' or (name == 'onednn' and onednn.available())


@contextlib.contextmanager
def using(name):
    """Run ops on backend ``name`` inside the block, the previous one after."""
    before = backend()
    set_backend(name)
    try:
        yield
    finally:
        set_backend(before)


def set_backend(name):
    """Run ops on ``name`` (``'numpy'`` or ``'onednn'``). Returns the backend
    now active: ``'numpy'`` when oneDNN was asked for and cannot load (with
    a warning, once, saying why)."""
    if name not in NAMES:
        raise ValueError("set_backend: backend must be one of %s, got %r" % (NAMES, name))
    if name == 'onednn' and not _start_onednn():
        name = 'numpy'
    registry.use_backend(name)
    flags.record('FLAGS_use_mkldnn', name == 'onednn')
    return name


def set_for_predictor(onednn_enabled):
    """The backend an inference predictor's plans use: oneDNN when its config
    enables it (``Config.enable_mkldnn``, the default) and it loads."""
    return 'onednn' if onednn_enabled and _start_onednn() else 'numpy'


def _start_onednn():
    reason = onednn.why_unavailable()
    if reason is None:
        rt = onednn.runtime()
        rt.set_threads(threads.get_num_threads())
        return True
    if not _warned:
        _warned.append(reason)
        warnings.warn("oneDNN kernels are off, ops run on numpy: %s" % reason, RuntimeWarning,
                      stacklevel=_callers_level())
    return False


def _callers_level():
    """The warnings stacklevel of the first frame outside the framework (the
    user's call, however many framework frames led here)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    level, frame = 1, sys._getframe(1)       # 1: the function that warns
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(root):
        frame, level = frame.f_back, level + 1
    return level


def apply_default():
    """oneDNN when it loads, unless the environment says numpy (quietly:
    not having the extra is not an error)."""
    wanted = os.environ.get('FRAMEWORK_BACKEND', '').strip().lower()
    use_flag = os.environ.get('FLAGS_use_mkldnn', '').strip().lower()
    if wanted == 'numpy' or use_flag in ('0', 'false', 'off'):
        return set_backend('numpy')
    if wanted == 'onednn' or use_flag in ('1', 'true', 'on') or onednn.available():
        return set_backend('onednn')
    return set_backend('numpy')


def _thread_count_changed(n):
    if onednn.loaded():
        onednn.runtime().set_threads(n)


threads.on_change(_thread_count_changed)
flags.on_change('FLAGS_use_mkldnn', lambda on: set_backend('onednn' if on else 'numpy'))
