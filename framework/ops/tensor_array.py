"""Tensor arrays: a Python list appended to inside a tensor-dependent loop.

dy2static turns such a list into one stacked tensor (first axis = items), so
the loop carries a single tensor and gradients flow through the ordinary
ops. ``array_append`` adds an item; an array with no items yet is ``None``
at run time (its element shape may be unknown before the loop runs).
"""
import numpy as np

from . import lib, meta
from .registry import Meta, OpError, add_test_case, def_op


def _append_meta(arr, x):
    xs = meta.shape_of(x)
    if arr is not None and hasattr(arr, 'shape'):
        a = meta.shape_of(arr)
        if len(a) != len(xs) + 1:
            raise OpError("array_append: an item of shape %s does not fit an array of shape %s"
                          % (list(xs), list(a)))
    return Meta((-1,) + tuple(xs), meta.dtype_of(x))


@def_op('array_append', _append_meta, inputs=('arr?', 'x'), attrs={})
def array_append_op(arr, x):
    """``arr`` with ``x`` added as its last item (``arr`` None = empty)."""
    item = np.asarray(x)[None]
    if arr is None:
        return item.copy()
    if arr.shape[1:] != item.shape[1:]:
        raise OpError("array_append: item shape %s differs from the array's items %s"
                      % (list(item.shape[1:]), list(arr.shape[1:])))
    return np.concatenate([arr, item])


@array_append_op.def_grad
def _array_append_grad(g, arr, x, out):
    ga = None if arr is None else lib.getitem(g, slice(None, -1))
    return ga, lib.getitem(g, -1)


@array_append_op.def_fast_grad
def _array_append_fast(g, arr, x, out):
    return (None if arr is None else g[:-1]), g[-1]


__all__ = []

_rng = np.random.default_rng(5)
add_test_case(array_append_op, _rng.standard_normal((2, 3)), _rng.standard_normal(3),
              ref=lambda a, x: np.concatenate([a, x[None]]))
