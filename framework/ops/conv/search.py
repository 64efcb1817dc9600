"""Choosing a conv algorithm: a heuristic, or an exhaustive timed search.

With ``framework.set_flags({'FLAGS_cudnn_exhaustive_search': True})`` the
first call for a key (direction, geometry, dtype) runs every applicable
algorithm once, returns the fastest accurate one's result and caches its
name; later calls with the same key run only the winner. With the flag off a
heuristic picks (measured on a 2-core OpenBLAS machine; see
benchmarks/bench_conv.py).

Speed is not the only criterion: in float32 the algorithms round
differently (Winograd F(4x4, 3x3) is ~10x less accurate than a direct GEMM).
For dtypes narrower than float64 the search also runs the heuristic's
algorithm in float64 on the same inputs, and a candidate whose norm-relative
error ``||y - y64|| / ||y64||`` exceeds ``error_bound(dtype, best)`` is never
chosen (benchmarks/conv_accuracy.py measures the errors against Paddle's).
"""
import time

import numpy as np

from ... import flags
from . import algorithms as algos

# Norm-relative error a float32 conv may have, in units of roundoff (2**-24):
# direct GEMMs land at 2-6 units, Winograd F(2x2) at 3-9, F(4x4) at 15-60.
ROUNDOFF_UNITS = 10
# Inputs with heavy cancellation make every algorithm err more; a candidate
# is then still accepted when within this factor of the most accurate one.
RELATIVE_SLACK = 2.0

# Output planes up to this many pixels run the batch-folded algorithms by
# default (bench_conv.py: 1.2-1.5x faster at 7x7 and 10x10, even at 14x14,
# slower from 16x16 on).
SMALL_PLANE = 200

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
    Output planes of at most ``SMALL_PLANE`` pixels (LeNet, a ResNet's last
    stages) run batched: per-image GEMMs would be skinny.
    """
    cg, ocg = g.c // g.groups, g.oc // g.groups
    if cg == 1 and g.groups > 1:
        return 'depthwise'
    stride1 = g.sh == 1 and g.sw == 1
    # (a 1x1 conv's input already is its column matrix: no copy to save)
    small = g.oh * g.ow <= SMALL_PLANE and g.kh * g.kw > 1
    if direction == 'backward_data' and stride1:
        if min(cg, ocg) >= 16 and algos.applicable('im2col_forward', direction, g):
            return 'batched_forward' if small else 'im2col_forward'
        if small:
            return 'batched'
        if _shift_waste(g) <= 2.0:
            return 'shift'
    if small and cg > 1:
        return 'batched'
    if direction == 'backward_filter' and stride1 and cg == 1 and _shift_waste(g) <= 2.0:
        # one input channel (a grayscale first layer): im2col's per-image GEMMs
        # have KH*KW rows; per-tap GEMMs over the whole flat grid are faster
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


def error_bound(dtype, best_error):
    """Largest norm-relative error accepted for ``dtype``, given the smallest
    error among the candidates."""
    unit = np.finfo(dtype).eps / 2
    return max(ROUNDOFF_UNITS * unit, RELATIVE_SLACK * best_error)


def relative_error(out, ref):
    diff = np.linalg.norm((out - ref).ravel())
    scale = np.linalg.norm(ref.ravel())
    return diff / scale if scale else diff


def _search(direction, a, b, g, dtype):
    stats['searches'] += 1
    timed = []
    for name in algos.candidates(direction, g):
        t0 = time.perf_counter()
        out = algos.run(direction, name, a, b, g)
        timed.append((time.perf_counter() - t0, name, out))
    accurate = _accurate(direction, a, b, g, timed)
    best = min(accurate, key=lambda t: t[0])
    _cache[(direction, g, dtype.str)] = best[1]
    return best[2]


def _accurate(direction, a, b, g, timed):
    """The candidates whose rounding error is within ``error_bound`` (all of
    them in float64, which has no wider type to check against)."""
    dtype = timed[0][2].dtype
    if dtype.itemsize >= 8 or len(timed) == 1:
        return timed
    ref = algos.run(direction, heuristic(direction, g), a.astype(np.float64),
                    b.astype(np.float64), g)
    errors = [relative_error(out.astype(np.float64), ref) for _, _, out in timed]
    limit = error_bound(dtype, min(errors))
    return [t for t, e in zip(timed, errors) if e <= limit]
