"""Unique names (``paddle.utils.unique_name``): the same counters layers use for
their full names and parameter names."""
from ..nn.layer import unique_name as generate, unique_name_guard as _guard  # noqa: F401


def guard(new_generator=None):
    """Fresh name counters inside the block (a model built twice gets the same names)."""
    return _guard()


def switch(new_generator=None, new_para_name_checker=None):
    """Use ``new_generator`` (counters returned by an earlier ``switch``) or fresh
    counters in the calling thread; returns the previous counters."""
    import collections
    import itertools
    from ..nn.layer import set_name_counters
    if new_generator is None:
        new_generator = collections.defaultdict(itertools.count)
    return set_name_counters(new_generator)


__all__ = ['generate', 'guard', 'switch']
