"""Switching between dynamic (eager) and static mode, per thread."""
from ..ops import registry


def enable_static():
    """Build static Programs from now on (ops return Variables)."""
    registry.mode.static = True


def disable_static(place=None):
    """Back to eager (dynamic) mode."""
    registry.mode.static = False


def in_dynamic_mode():
    return not registry.mode.static


in_dygraph_mode = in_dynamic_mode


class static_mode_guard:
    """Temporarily build in static mode (used by dy2static and tests); the
    calling thread only."""

    def __init__(self, on=True):
        self.on = on

    def __enter__(self):
        self.prev = registry.mode.static
        registry.mode.static = self.on
        return self

    def __exit__(self, *exc):
        registry.mode.static = self.prev
        return False
