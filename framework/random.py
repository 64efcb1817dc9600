"""The global random generator behind every random op.

``framework.seed(n)`` makes runs repeatable: random kernels (rand, dropout,
initializers, shuffling) all draw from this one generator.
"""
import contextlib
import threading

import numpy as np

_state = {'seed': 0, 'gen': np.random.default_rng(0)}
# Per-thread override (DataLoader workers): lets a worker thread draw from its own
# seeded stream so results do not depend on how threads are scheduled.
_local = threading.local()


def seed(seed):
    """Seed the global generator; returns it, as ``paddle.seed`` does."""
    n = int(seed)
    _state['seed'] = n
    _state['gen'] = np.random.default_rng(n)
    return _state['gen']


def _manual_program_seed(n):
    """Seed the random ops of the default static programs (Paddle's
    ``paddle.framework.random._manual_program_seed``; eager draws are seeded
    by ``seed``)."""
    from .static.program import default_main_program, default_startup_program
    default_main_program().random_seed = int(n)
    default_startup_program().random_seed = int(n)


def generator():
    gen = getattr(_local, 'gen', None)
    return _state['gen'] if gen is None else gen


@contextlib.contextmanager
def thread_generator(gen):
    """Make ``generator()`` return ``gen`` in the calling thread only, for the
    duration of the ``with`` block (used by ``framework.io.DataLoader``)."""
    prev = getattr(_local, 'gen', None)
    _local.gen = gen
    try:
        yield gen
    finally:
        _local.gen = prev


def get_rng_state():
    return [dict(_state['gen'].bit_generator.state)]


def set_rng_state(state):
    st = state[0] if isinstance(state, (list, tuple)) else state
    g = np.random.default_rng()
    g.bit_generator.state = st
    _state['gen'] = g


def initial_seed():
    return _state['seed']
