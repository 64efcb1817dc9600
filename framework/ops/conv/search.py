"""Choosing a conv algorithm: a heuristic, or an exhaustive timed search.

With ``framework.set_flags({'FLAGS_cudnn_exhaustive_search': True})`` the
first call for a key (direction, geometry, dtype) runs every applicable
algorithm once, returns the fastest one's result and caches its name; later
calls with the same key run only the winner. With the flag off a heuristic
picks (measured on a 2-core OpenBLAS machine; see benchmarks/bench_conv.py).
"""
import time

from ... import flags
from . import algorithms as algos

_cache = {}
stats = {'hits': 0, 'searches': 0}


def clear_cache():
    _cache.clear()
    stats['hits'] = stats['searches'] = 0


def cached_algorithms():
    """``{(direction, geom, dtype): algorithm name}`` chosen by the search so far."""
    return dict(_cache)


def heuristic(direction, g):
    """The default algorithm when exhaustive search is off.

    From timings on 2 cores with OpenBLAS (benchmarks/bench_conv.py): the
    single-GEMM im2col is the best forward in most shapes (Winograd's
    transforms cost about what its smaller GEMMs save in numpy); a stride-1
    input gradient is fastest as a forward im2col conv of the flipped kernel
    when channels are many, and as per-tap GEMMs on the flat padded grid when
    they are few; depthwise convs use the elementwise multiply-accumulate.
    """
    cg, ocg = g.c // g.groups, g.oc // g.groups
    if cg == 1 and g.groups > 1:
        return 'depthwise'
    if direction == 'backward_data' and g.sh == 1 and g.sw == 1:
        if min(cg, ocg) >= 16 and algos.applicable('im2col_forward', direction, g):
            return 'im2col_forward'
        if _shift_waste(g) <= 2.0:
            return 'shift'
    return 'im2col'


def _shift_waste(g):
    """How many times more positions the per-tap GEMMs of ``shift`` compute than
    the output has: they run over the whole padded grid, so a kernel nearly as
    big as the input (a text CNN's [3, embedding] filter) wastes most of them."""
    hp, wp = algos.padded_grid(g)
    return (hp * wp) / max(g.oh * g.ow, 1)


def select(direction, g, dtype):
    """Name of the algorithm to use, or None when a search must run."""
    if not flags.flag('FLAGS_cudnn_exhaustive_search'):
        return heuristic(direction, g)
    name = _cache.get((direction, g, dtype.str))
    if name is not None:
        stats['hits'] += 1
    return name


def convolve(direction, a, b, g):
    """Run the chosen algorithm for ``direction`` on ``(a, b)``."""
    dtype = a.dtype
    name = select(direction, g, dtype)
    if name is not None:
        return algos.run(direction, name, a, b, g)
    return _search(direction, a, b, g, dtype)


def _search(direction, a, b, g, dtype):
    stats['searches'] += 1
    best = None
    for name in algos.candidates(direction, g):
        t0 = time.perf_counter()
        out = algos.run(direction, name, a, b, g)
        dt = time.perf_counter() - t0
        if best is None or dt < best[0]:
            best = (dt, name, out)
    _cache[(direction, g, dtype.str)] = best[1]
    return best[2]
