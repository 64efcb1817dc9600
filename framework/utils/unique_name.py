"""Unique names (``paddle.utils.unique_name``): the same counters layers use for
their full names and parameter names."""
from ..nn.layer import unique_name as generate, unique_name_guard as _guard  # noqa: F401


def guard(new_generator=None):
    """Fresh name counters inside the block (a model built twice gets the same names)."""
    return _guard()


def switch(new_generator=None, new_para_name_checker=None):
    """Start fresh name counters (Paddle returns the old generator; here the counters
    themselves are module state, so this resets them)."""
    from ..nn.layer import layers as layer
    import collections
    import itertools
    old = layer._name_counters
    layer._name_counters = collections.defaultdict(itertools.count)
    return old


__all__ = ['generate', 'guard', 'switch']
