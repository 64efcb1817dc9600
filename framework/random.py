"""The global random generator behind every random op.

``framework.seed(n)`` makes runs repeatable: random kernels (rand, dropout,
initializers, shuffling) all draw from this one generator.
"""
import numpy as np

_state = {'seed': 0, 'gen': np.random.default_rng(0)}


def seed(n):
    """Seed the global generator; returns it, as ``paddle.seed`` does."""
    n = int(n)
    _state['seed'] = n
    _state['gen'] = np.random.default_rng(n)
    return _state['gen']


def generator():
    return _state['gen']


def get_rng_state():
    return [dict(_state['gen'].bit_generator.state)]


def set_rng_state(state):
    st = state[0] if isinstance(state, (list, tuple)) else state
    g = np.random.default_rng()
    g.bit_generator.state = st
    _state['gen'] = g


def initial_seed():
    return _state['seed']
