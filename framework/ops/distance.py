"""Distances and norm clipping: dist, cdist, pdist and renorm.

All rest on one registered op, ``dist_norm``: the vector p-norm over some
axes whose gradient is 0 where the norm is 0 (two equal points are at a
distance whose slope is undefined; Paddle, like PyTorch, gives 0 there rather
than NaN). ``p`` is any number >= 0 or +-inf (0 counts the non-zeros).
"""
import math

import numpy as np

from .. import dtype as _dt
from . import math as _m
from . import lib, meta
from . import reduce as _r
from .registry import Meta, OpError, add_test_case, def_op



def _norm_meta(x, p=2.0, axis=None, keepdim=False):
    m = meta.reduce(x, axis, keepdim)
    return Meta(m.shape, m.dtype if m.dtype.kind in 'fc' else _dt.default_float())


@def_op('dist_norm', _norm_meta, attr_types={'axis': 'int|ints|None'}, pattern='opaque')
def dist_norm_op(x, p=2.0, axis=None, keepdim=False):
    """``(sum |x|^p)^(1/p)`` over ``axis`` (None: all); inf/-inf give the
    largest/smallest |x|, 0 the number of non-zeros."""
    if x.dtype.kind not in 'fc':
        x = x.astype(_dt.default_float())
    axis = tuple(axis) if isinstance(axis, list) else axis
    a = np.abs(x)
    if p == math.inf:
        out = np.max(a, axis=axis, keepdims=keepdim, initial=0)
    elif p == -math.inf:
        out = np.min(a, axis=axis, keepdims=keepdim, initial=math.inf)
    elif p == 0:
        out = np.count_nonzero(a, axis=axis, keepdims=keepdim)
    elif p == 1:
        out = np.sum(a, axis=axis, keepdims=keepdim)
    elif p == 2:
        out = np.sqrt(np.sum(a * a, axis=axis, keepdims=keepdim))
    else:
        out = np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(out, a.real.dtype if a.dtype.kind == 'c' else x.dtype)


@dist_norm_op.def_grad
def _dist_norm_grad(g, x, out, p, axis, keepdim):
    ge = _r.expand_reduced(g, x, axis, keepdim)
    oe = _r.expand_reduced(out, x, axis, keepdim)
    sign = _m.sign_op(x)
    if p == 0:
        return ge * 0.0 * sign
    if p in (math.inf, -math.inf):
        # the extreme elements share the gradient
        hit = _m.cast_like(_m.equal_op(_m.abs_op(x), oe), g)
        count = _r.expand_reduced(_r.sum_op(hit, axis, keepdim), x, axis, keepdim)
        return ge * sign * hit / lib.where_op(_m.equal_op(count, 0.0), 1.0, count)
    if p == 1:
        return ge * sign
    zero = _m.equal_op(oe, 0.0)
    safe = lib.where_op(zero, 1.0, oe)
    if p == 2:
        return lib.where_op(zero, 0.0, ge * x / safe)
    grow = sign * _m.pow_op(_m.abs_op(x), p - 1.0)
    return lib.where_op(zero, 0.0, ge * grow * _m.pow_op(safe, 1.0 - p))


# ---- test cases ------------------------------------------------------------------------------

_rng = np.random.default_rng(71)
_x = _rng.uniform(0.3, 2.0, (3, 4)) * np.where(_rng.random((3, 4)) > 0.5, 1, -1)


def _norm_ref(x, p, axis, keepdim):
    a = np.abs(x)
    if p == math.inf:
        r = a.max(axis=axis, keepdims=keepdim)
    elif p == -math.inf:
        r = a.min(axis=axis, keepdims=keepdim)
    elif p == 0:
        r = (a != 0).sum(axis=axis, keepdims=keepdim).astype(float)
    else:
        r = (a ** p).sum(axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(r)


for _p in (2.0, 1.0, 3.0, 0.5, math.inf, -math.inf, 0.0):
    add_test_case(dist_norm_op, _x, _p, None, False, ref=_norm_ref)
    add_test_case(dist_norm_op, _x, _p, (1,), True, ref=_norm_ref)
add_test_case(dist_norm_op, np.zeros((2, 3)), 2.0, (1,), False, ref=_norm_ref, grad=False)
add_test_case(dist_norm_op, np.asarray(-1.5), 2.0, None, False, ref=_norm_ref)
add_test_case(dist_norm_op, np.zeros((0, 3)), 2.0, (1,), False, ref=lambda *a: np.zeros(0))
add_test_case(dist_norm_op, _x.astype(np.float32), 2.0, (0,), False, ref=_norm_ref, grad=False)


# ---- public API --------------------------------------------------------------------------------

def _p_value(p, api):
    try:
        p = float(p)
    except (TypeError, ValueError):
        raise OpError("%s: p must be a number, got %r" % (api, p)) from None
    if p < 0 and p != -math.inf:
        raise OpError("%s: p must be >= 0 (or inf / -inf), got %r" % (api, p))
    return p


def dist(x, y, p=2, name=None):
    """The p-norm of ``x - y`` (they broadcast) as a 0-D tensor.

    >>> import framework as paddle
    >>> paddle.dist(paddle.to_tensor([3.0, 0.0]), paddle.to_tensor([0.0, 4.0])).item()
    5.0
    """
    return dist_norm_op(_m.subtract_op(x, y), _p_value(p, 'dist'), None, False)


def cdist(x, y, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary', name=None):
    """Pairwise p-norm distances between the rows of ``x`` [..., P, M] and
    ``y`` [..., R, M] (batch dims broadcast): [..., P, R]. The distances are
    computed from the differences (``compute_mode`` is accepted; it only
    picks a faster, less accurate formula on Paddle's side)."""
    if compute_mode not in ('use_mm_for_euclid_dist_if_necessary', 'use_mm_for_euclid_dist',
                            'donot_use_mm_for_euclid_dist'):
        raise OpError("cdist: unknown compute_mode %r" % (compute_mode,))
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1]:
        raise OpError("cdist: x and y must be at least 2-D with the same last dim, got shapes "
                      "%s and %s" % (list(x.shape), list(y.shape)))
    diff = _m.subtract_op(lib.unsqueeze_op(x, (len(x.shape) - 1,)),
                          lib.unsqueeze_op(y, (len(y.shape) - 2,)))
    return dist_norm_op(diff, _p_value(p, 'cdist'), (len(diff.shape) - 1,), False)


def pdist(x, p=2.0, name=None):
    """The p-norm distances between every pair of rows i < j of the 2-D ``x``
    (N rows: N * (N - 1) / 2 values, row-major over the pairs)."""
    if len(x.shape) != 2:
        raise OpError("pdist: x must be 2-D, got shape %s" % list(x.shape))
    n = x.shape[0]
    first, second = np.triu_indices(n, 1)
    a = lib.gather_op(x, lib.to_tensor(first.astype(np.int64)), 0)
    b = lib.gather_op(x, lib.to_tensor(second.astype(np.int64)), 0)
    return dist_norm_op(_m.subtract_op(a, b), _p_value(p, 'pdist'), (1,), False)


def renorm(x, p, axis, max_norm):
    """Each slice along ``axis`` whose p-norm (over the other dims) exceeds
    ``max_norm`` scaled down to norm ``max_norm`` (by max_norm / (norm + 1e-7))."""
    nd = len(x.shape)
    axis = meta.normalize_axis(int(axis), nd)
    others = tuple(d for d in range(nd) if d != axis) or None
    norm = dist_norm_op(x, _p_value(p, 'renorm'), others, True)
    over = _m.greater_than_op(norm, float(max_norm))
    scale = lib.where_op(over, float(max_norm) / (norm + 1e-7), 1.0)
    return x * _m.cast_like(scale, x)


__all__ = ['dist', 'cdist', 'pdist', 'renorm']
TENSOR_METHODS = {n: globals()[n] for n in __all__}
INPLACE_METHODS = {'renorm_': 'renorm'}
