"""Grad mode: whether eager ops record the tape.

Per thread (a ``contextvars.ContextVar``, so asyncio tasks get their own too), as
in PyTorch: a ``no_grad`` block in one thread leaves every other thread's
recording alone, and a new thread starts with recording on.
"""
import contextlib
import contextvars
import functools
import threading

_enabled = contextvars.ContextVar('framework_grad_enabled', default=True)
grad_enabled = _enabled.get        # the hot paths call this (one C call)


class _GradMode:
    """``grad_mode.enabled``: the calling thread's flag (read and write)."""
    __slots__ = ()

    @property
    def enabled(self):
        return _enabled.get()

    @enabled.setter
    def enabled(self, flag):
        _enabled.set(bool(flag))


grad_mode = _GradMode()


def is_grad_enabled():
    return _enabled.get()


@contextlib.contextmanager
def _set(flag):
    token = _enabled.set(flag)
    try:
        yield
    finally:
        _enabled.reset(token)


def enable_grad():
    return _set(True)


def disable_grad():
    return _set(False)


class set_grad_enabled:
    """``with framework.set_grad_enabled(False): ...`` or a plain call."""

    def __init__(self, mode):
        self.prev = _enabled.get()
        _enabled.set(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _enabled.set(self.prev)
        return False


class no_grad:
    """Context manager and decorator that turns off gradient recording."""

    def __init__(self, func=None):
        self._func = func
        if func is not None:
            functools.update_wrapper(self, func)

    def __enter__(self):
        # tokens per thread: one no_grad object may be entered by several
        # threads at once (a shared instance used as a context manager)
        tokens = self.__dict__.setdefault('_tokens', {})
        tokens.setdefault(threading.get_ident(), []).append(_enabled.set(False))
        return self

    def __exit__(self, *exc):
        _enabled.reset(self._tokens[threading.get_ident()].pop())
        return False

    def __call__(self, *args, **kwargs):
        if self._func is None and len(args) == 1 and callable(args[0]) and not kwargs:
            return no_grad(args[0])   # used as @no_grad()
        with no_grad():
            return self._func(*args, **kwargs)

    def __get__(self, obj, objtype=None):
        if obj is None or self._func is None:
            return self
        return functools.partial(self.__call__, obj)
