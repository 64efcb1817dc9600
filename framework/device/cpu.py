"""``paddle.device.cpu``: the CPU as a device module (what
``paddle.device.get_device_module('cpu')`` gives): no accelerators to count,
the default generator's random state, and no allocator statistics to keep."""
from .. import random as _random


def device_count():
    """The number of GPUs: 0, as Paddle's CPU module answers."""
    return 0


def get_rng_state(device=None):
    """The state of the default generator (give it back to ``set_rng_state``)."""
    return _random.get_rng_state()[0]


def set_rng_state(new_state, device=None):
    _random.set_rng_state(new_state)


def manual_seed(seed):
    """Seed the default generator."""
    _random.seed(seed)


def max_memory_allocated(device=None):
    """CPU memory is not tracked per device: 0, as Paddle's CPU module."""
    return 0


def max_memory_reserved(device=None):
    return 0


def reset_max_memory_allocated(device=None):
    return None


def reset_max_memory_reserved(device=None):
    return None
