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


@def_op('array_append', _append_meta, inputs=('arr?', 'x'), attrs={}, pattern='opaque', amp='never')
def array_append_op(arr, x):
    """``arr`` with ``x`` added as its last item (``arr`` None = empty)."""
    item = np.asarray(x)[None]
    if arr is None or len(arr) == 0:
        # no items yet: the loop's stand-in for an empty array may have been
        # built before the items' shape was known (0 in the unknown dims)
        return item.copy()
    if arr.shape[1:] != item.shape[1:]:
        raise OpError("array_append: item shape %s differs from the array's items %s"
                      % (list(item.shape[1:]), list(arr.shape[1:])))
    return np.concatenate([arr, item])


@array_append_op.def_grad
def _array_append_grad(g, arr, x, out):
    # reshaped: a stand-in of no items may have another item shape
    ga = None if arr is None else lib.reshape_as_op(lib.getitem(g, slice(None, -1)), arr)
    return ga, lib.getitem(g, -1)


@array_append_op.def_onnx
def _array_append_onnx(g, arr, x):
    item = g.op('Unsqueeze', x, g.ints([0]))
    if arr is None:
        return item
    # an array of no items may stand in with another item shape (see the kernel):
    # view its rows as rows of x's shape, which changes nothing when it has items
    rows = g.op('Slice', g.op('Shape', arr), g.ints([0]), g.ints([1]))
    as_items = g.op('Reshape', arr, g.op('Concat', rows, g.op('Shape', x), axis=0),
                    allowzero=1 if g.opset >= 14 else None)
    return g.op('Concat', as_items, item, axis=0)


@array_append_op.def_fast_grad
def _array_append_fast(g, arr, x, out):
    return (None if arr is None else g[:-1].reshape(np.shape(arr))), g[-1]


__all__ = []

_rng = np.random.default_rng(5)
add_test_case(array_append_op, _rng.standard_normal((2, 3)), _rng.standard_normal(3),
              ref=lambda a, x: np.concatenate([a, x[None]]))
# the stand-in for an empty array built before the items' shape was known
add_test_case(array_append_op, np.zeros((0, 0, 3)), _rng.standard_normal((2, 3)),
              ref=lambda a, x: x[None])
