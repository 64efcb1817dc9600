"""Shared timing and process conditions for the benchmarks.

Conditions (context managers, ``condition(name)`` picks one):

* ``clean``  the process as it is;
* ``live``   ~200k extra live, garbage-collector-tracked Python objects (small
             dicts, lists, tuples, functions), as in a user's process after
             ``import torch``, a big model and a data set in memory: every full
             collection traverses them, so code that allocates many container
             objects pays for them;
* ``busy``   a competing subprocess spinning on one core for the whole
             measurement (killed afterwards, also on Ctrl-C or an exception).

Timing (``time_rounds``): the contenders run interleaved, one round each in
turn, so load from other processes hits them alike. A round is many iterations
(at least ``round_s`` seconds) and its figure is the mean per iteration, so the
garbage collections that the iterations trigger are paid inside the round; the
reported figure is the median over rounds. (The minimum of single iterations
would hide the collections.) ``time_difference`` measures a small difference
between two calls (an overhead) from back-to-back pairs.
"""
import contextlib
import gc
import math
import os
import signal
import statistics
import subprocess
import sys
import time

CONDITIONS = ('clean', 'live', 'busy')
LIVE_OBJECTS = 200_000
PAUSE_S = 0.02                # before each timed round


# ---- conditions ------------------------------------------------------------------

def make_live_objects(n=LIVE_OBJECTS):
    """About ``n`` GC-tracked objects: records of a dict, a list, a tuple and a
    function (with its closure tuple and cell) each. Every container holds
    another container (a dict or tuple of atomic values only is untracked by
    CPython's GC and would cost nothing)."""
    records = []
    for i in range(n // 7):      # 7 tracked objects per record (the record too)
        tags = [i, 'x']
        records.append(({'id': i, 'tags': tags}, tags, (i, tags), _closure(i)))
    return records


def _closure(i):
    return lambda: i


@contextlib.contextmanager
def live_objects(n=LIVE_OBJECTS):
    gc.collect()                 # count only what we add, not garbage collected below
    before = len(gc.get_objects())
    data = make_live_objects(n)
    gc.collect()                 # they are old objects, as in a long-running process
    extra = len(gc.get_objects()) - before
    try:
        yield extra
    finally:
        del data
        gc.collect()


# A spinner that also stops by itself when its parent dies (even by SIGKILL).
_SPIN = '''
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(200000):
        pass
'''


@contextlib.contextmanager
def busy_core():
    """A subprocess spinning on one core, started before and killed after."""
    proc = subprocess.Popen([sys.executable, '-c', _SPIN], stdin=subprocess.DEVNULL)
    try:
        time.sleep(0.2)          # let it start spinning
        yield proc.pid
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()


@contextlib.contextmanager
def condition(name):
    """Enter condition ``name``; yields a short description of it."""
    if name == 'clean':
        yield 'clean'
    elif name == 'live':
        with live_objects() as extra:
            yield 'live (+%dk gc objects)' % round(extra / 1000)
    elif name == 'busy':
        with busy_core() as pid:
            yield 'busy (spinner pid %d)' % pid
    else:
        raise ValueError('unknown condition %r (choose from %s)' % (name, ', '.join(CONDITIONS)))


# ---- timing ------------------------------------------------------------------------

class Timing:
    """How long and how many rounds; ``quick`` for a smoke run."""

    def __init__(self, rounds=5, round_s=0.3, warmup=2):
        self.rounds, self.round_s, self.warmup = rounds, round_s, warmup


def _iterations(fn, round_s):
    """Iterations that make a round of at least ``round_s`` seconds."""
    t = time.perf_counter()
    fn()
    dt = time.perf_counter() - t
    return max(1, math.ceil(round_s / max(dt, 1e-7)))


def time_rounds(fns, timing, setup=None):
    """Seconds per iteration of each of ``fns`` ({name: fn}): the median over
    interleaved rounds of the mean iteration time in a round. The order of the
    contenders rotates from round to round, and a short pause before each round
    lets the previous contender's idle worker threads (OpenMP, BLAS) stop
    spinning. ``setup`` maps a name to a context-manager factory entered around
    each of its rounds (e.g. a thread count); it is not timed."""
    setup = setup or {}
    ctx = {k: setup.get(k, contextlib.nullcontext) for k in fns}
    iters = {}
    for name, fn in fns.items():
        with ctx[name]():
            for _ in range(timing.warmup):
                fn()
            iters[name] = _iterations(fn, timing.round_s)
    per_round = {k: [] for k in fns}
    order = list(fns)
    for r in range(timing.rounds):
        for name in order[r % len(order):] + order[:r % len(order)]:
            fn, n = fns[name], iters[name]
            with ctx[name]():
                time.sleep(PAUSE_S)
                t = time.perf_counter()
                for _ in range(n):
                    fn()
                per_round[name].append((time.perf_counter() - t) / n)
    return {k: statistics.median(v) for k, v in per_round.items()}


def time_difference(a, b, timing):
    """(median seconds of ``a``, of ``b``, median of the per-pair differences
    a - b), from calls of ``a`` and ``b`` alternating back to back for
    ``timing.rounds`` rounds of ``timing.round_s`` seconds each way. Pairing
    cancels most of the load that hits both: for a difference much smaller than
    either time (a call overhead), far steadier than subtracting two medians."""
    for _ in range(timing.warmup):
        a()
        b()
    n = _iterations(lambda: (a(), b()), 2 * timing.round_s * timing.rounds)
    ta, tb = [], []
    for i in range(n):
        first, second, into = (a, b, (ta, tb)) if i % 2 else (b, a, (tb, ta))
        t0 = time.perf_counter()
        first()
        t1 = time.perf_counter()
        second()
        t2 = time.perf_counter()
        into[0].append(t1 - t0)
        into[1].append(t2 - t1)
    diffs = [x - y for x, y in zip(ta, tb)]
    return statistics.median(ta), statistics.median(tb), statistics.median(diffs)


def load_average():
    return '%.2f %.2f %.2f' % os.getloadavg()
