"""Grad mode: whether eager ops record the tape."""
import contextlib
import functools


class _GradMode:
    __slots__ = ('enabled',)

    def __init__(self):
        self.enabled = True


grad_mode = _GradMode()


def is_grad_enabled():
    return grad_mode.enabled


@contextlib.contextmanager
def _set(flag):
    prev = grad_mode.enabled
    grad_mode.enabled = flag
    try:
        yield
    finally:
        grad_mode.enabled = prev


def enable_grad():
    return _set(True)


def disable_grad():
    return _set(False)


class set_grad_enabled:
    """``with framework.set_grad_enabled(False): ...`` or a plain call."""

    def __init__(self, mode):
        self.prev = grad_mode.enabled
        grad_mode.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        grad_mode.enabled = self.prev
        return False


class no_grad:
    """Context manager and decorator that turns off gradient recording."""

    def __init__(self, func=None):
        self._func = func
        if func is not None:
            functools.update_wrapper(self, func)

    def __enter__(self):
        self.prev = grad_mode.enabled
        grad_mode.enabled = False
        return self

    def __exit__(self, *exc):
        grad_mode.enabled = self.prev
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
