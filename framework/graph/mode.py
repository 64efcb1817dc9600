"""Switching between dynamic (eager) and static mode, per thread (the
predicate itself is ``ops.modes.in_static_mode``)."""
from ..ops.modes import in_static_mode, set_static_mode


def enable_static():
    """Build static Programs from now on (ops return Variables)."""
    set_static_mode(True)


def disable_static(place=None):
    """Back to eager (dynamic) mode."""
    set_static_mode(False)


def in_dynamic_mode():
    return not in_static_mode()


in_dygraph_mode = in_dynamic_mode


class static_mode_guard:
    """Temporarily build in static mode (used by dy2static and tests); the
    calling thread only."""

    def __init__(self, on=True):
        self.on = on

    def __enter__(self):
        self.prev = in_static_mode()
        set_static_mode(self.on)
        return self

    def __exit__(self, *exc):
        set_static_mode(self.prev)
        return False
