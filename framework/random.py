"""The global random generator behind every random op.

``framework.seed(n)`` makes runs repeatable: random kernels (rand, dropout,
initializers, shuffling) all draw from this one generator.
"""
import contextlib
import threading

import numpy as np


class GeneratorState:
    """A saved state of a Generator (``Generator.get_state()``)."""
    __slots__ = ('_seed', '_bits')

    def __init__(self, seed, bits):
        self._seed = seed
        self._bits = bits

    def current_seed(self):
        return self._seed


class Generator:
    """A stream of random numbers (Paddle's ``paddle.Generator``), numpy's
    PCG64 behind it. The default generator (``framework.seed(n)`` seeds it
    and returns it) feeds every random op; other generators draw only through
    their own ``random()``."""

    def __init__(self, seed=None):
        self.manual_seed(_fresh_seed() if seed is None else seed)

    def manual_seed(self, seed):
        """Restart the stream from ``seed``; returns this generator."""
        self._seed = int(seed)
        self._gen = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        """The seed the stream last started from."""
        return self._seed

    def seed(self):
        """Restart from a fresh non-deterministic seed and return it."""
        self.manual_seed(_fresh_seed())
        return self._seed

    def get_state(self):
        return GeneratorState(self._seed, dict(self._gen.bit_generator.state))

    def set_state(self, state):
        """Continue from a state of ``get_state()`` (or a numpy bit-generator
        state dict)."""
        if isinstance(state, GeneratorState):
            self._seed, bits = state._seed, state._bits
        elif isinstance(state, dict):
            bits = state
        else:
            raise TypeError("set_state: expected a GeneratorState, got %s" % type(state).__name__)
        gen = np.random.default_rng()
        gen.bit_generator.state = bits
        self._gen = gen
        return self

    def random(self):
        """The next random 64-bit unsigned integer of the stream."""
        return int(self._gen.integers(0, 2 ** 64, dtype=np.uint64))

    def __repr__(self):
        return '<framework.Generator initial_seed=%d>' % self._seed


def _fresh_seed():
    return int(np.random.SeedSequence().entropy % (2 ** 53))


_default = Generator(0)
# Per-thread override (DataLoader workers): lets a worker thread draw from its own
# seeded stream so results do not depend on how threads are scheduled.
_local = threading.local()


def seed(seed):
    """Seed the default generator (every random op draws from it); returns it,
    as ``paddle.seed`` does."""
    return _default.manual_seed(seed)


manual_seed = seed


def default_generator():
    return _default


def numpy_generator(gen):
    """The numpy Generator behind ``gen`` (a framework Generator or a numpy one)."""
    return gen._gen if isinstance(gen, Generator) else gen


# who else takes a program seed: the static core installs the seeding of its
# default programs at import (a layer below may not import it)
_program_seeders = []


def install_program_seeder(fn):
    """``fn(n)`` runs on every ``_manual_program_seed(n)``."""
    _program_seeders.append(fn)


def _manual_program_seed(n):
    """Seed the random ops of the default static programs (Paddle's
    ``paddle.framework.random._manual_program_seed``; eager draws are seeded
    by ``seed``)."""
    for seed_programs in _program_seeders:
        seed_programs(int(n))


def generator():
    """The numpy Generator random kernels draw from (the default generator's,
    or the calling thread's override)."""
    gen = getattr(_local, 'gen', None)
    return _default._gen if gen is None else gen


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


def _check_device(device, api):
    if device is not None and str(device).split(':')[0].lower() != 'cpu':
        raise ValueError("%s: only the CPU generator exists (device %r); this framework runs on "
                         "the CPU only" % (api, device))


def get_rng_state(device=None):
    """The state of the default (CPU) generator, as a one-element list."""
    _check_device(device, 'get_rng_state')
    return [_default.get_state()]


def set_rng_state(state_list, device=None):
    """Restore a state from ``get_rng_state()``."""
    _check_device(device, 'set_rng_state')
    state = state_list[0] if isinstance(state_list, (list, tuple)) else state_list
    _default.set_state(state)


def get_cuda_rng_state():
    """The CUDA generators' states: none exist on a CPU-only build."""
    return []


def set_cuda_rng_state(state_list):
    """Restore CUDA generator states: only the empty list (a CPU-only build has none)."""
    if len(state_list):
        raise ValueError("set_cuda_rng_state: there are no CUDA generators to restore (CPU only)")


def initial_seed():
    return _default.initial_seed()
