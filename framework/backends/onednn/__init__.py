"""The oneDNN kernel backend: Intel's oneDNN 3.2 through ctypes.

``runtime()`` loads the library on first use (``library.py``) and returns
the ``Runtime`` (``core.py``) the kernels run on, or raises
``Unavailable`` with the reason (no ``[onednn]`` extra, no libgomp, an old
version). The op families' primitives are ``conv.py``, ``eltwise.py``,
``norm.py``, ``pool.py``, ``rnn.py`` and ``softmax.py``; the ops declare their ``onednn``
kernels beside their numpy ones and call these.
"""
import threading

from .library import DnnlError, Unavailable, checker, load

__all__ = ['runtime', 'available', 'loaded', 'why_unavailable', 'DnnlError', 'Unavailable']

_lock = threading.Lock()
_state = []          # [Runtime] or [Unavailable] once tried


def runtime():
    """The loaded runtime; raises ``Unavailable`` (the same one each time)."""
    if not _state:
        with _lock:
            if not _state:
                _state.append(_start())
    state = _state[0]
    if isinstance(state, Unavailable):
        raise state
    return state


def _start():
    from .core import Runtime
    try:
        lib = load()
    except Unavailable as e:
        return e
    return Runtime(lib, checker(lib))


def loaded():
    """Whether the library was loaded (without trying to load it)."""
    return bool(_state) and not isinstance(_state[0], Unavailable)


def available():
    try:
        runtime()
    except Unavailable:
        return False
    return True


def why_unavailable():
    """The reason oneDNN cannot be used, or None when it can."""
    try:
        runtime()
    except Unavailable as e:
        return str(e)
    return None
