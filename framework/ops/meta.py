"""Reusable ``infer_meta`` functions, and the symbolic dims they work on.

Each takes the input metas (anything with ``.shape`` and ``.dtype``: a
``Meta``, a static Variable, an eager Tensor; or a Python scalar, a list for
variadic inputs, None for a missing optional input) followed by the op's
attributes, and returns a ``Meta`` or a tuple of them. Unknown dims are -1.
Errors are ``OpError``s; the caller adds the op's name.

An unknown dim may also be a ``Sym``: -1 to every check (``d < 0``,
``d == -1``, arithmetic), but a named unknown, so an ``infer_meta`` that
passes a dim through (elementwise ops, reductions, transposes, matmul, views)
passes its name too, and two dims with one name have one size at run time.
The passes learn which values have equal run-time shapes by running the ops'
own ``infer_meta`` on such dims (``graph/passes/analysis.py``:
``ShapeClasses``), so there is one shape rule per op, not a second one
beside it. An ``infer_meta`` must return a plain -1, never an input's dim,
for an output dim whose size differs from it (the registry's tests check it:
``tests/test_symbolic_meta.py``).
"""
import numpy as np

from .. import dtype as _dt
from .registry import Meta, OpError

_SCALARS = (bool, int, float, complex)


def shape_of(m):
    if isinstance(m, _SCALARS) or m is None:
        return ()
    if isinstance(m, np.ndarray):
        return m.shape
    return tuple(m.shape)


def dtype_of(m):
    if isinstance(m, _SCALARS):
        return m  # a number: its dtype comes from promotion (result_dtype)
    return np.dtype(m.dtype)


def result_dtype(*ms):
    """The dtype elementwise ops compute ``ms`` in (``framework.dtype.result_type``,
    PyTorch's promotion rule); ops declared with ``promote=`` cast their inputs to it."""
    return _dt.result_type(*ms)


def same_dtype(api, names, *ms):
    """The common dtype of inputs that must agree (matmul, linear, conv: neither
    Paddle nor PyTorch promotes them); a clear error otherwise."""
    given = [(n, m) for n, m in zip(names, ms) if m is not None]
    first = np.dtype(dtype_of(given[0][1]))
    for n, m in given[1:]:
        d = np.dtype(dtype_of(m))
        if d != first:
            raise OpError("%s: input '%s' has dtype %s but '%s' has dtype %s; %s does not "
                          "promote dtypes, cast one of them first (paddle.cast or .astype)"
                          % (api, given[0][0], first, n, d, api))
    return first


def is_scalar(m):
    return isinstance(m, _SCALARS)


class Sym(int):
    """A named unknown dim (see the module doc): the int -1, plus a name."""

    def __new__(cls, name):
        self = int.__new__(cls, -1)
        self.name = name
        return self

    def __repr__(self):
        return '?%s' % (self.name,)

    def __reduce__(self):
        return (Sym, (self.name,))


def same_dim(a, b):
    """Provably equal sizes at run time: equal known sizes, or one symbol."""
    sa, sb = isinstance(a, Sym), isinstance(b, Sym)
    if sa or sb:
        return sa and sb and a.name == b.name
    return a == b and a >= 0


def may_equal(a, b):
    """Sizes that may be equal at run time (checks pass unless both are known
    and differ): equal known sizes, or either unknown (-1 or a symbol)."""
    if isinstance(a, Sym) or isinstance(b, Sym):
        return True
    return a == b or a < 0 or b < 0


def _broadcast_dim(da, db):
    """The broadcast of two dims that compare equal (two unknowns, or one size)."""
    if isinstance(da, Sym) and not same_dim(da, db):
        return -1          # different unknowns (either may be 1): not provably either
    return da


def broadcast_shapes(a, b, what='inputs'):
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for da, db in zip(a, b):
        if da == db:
            out.append(_broadcast_dim(da, db) if da < 0 else da)
        elif da == 1:
            out.append(db)
        elif db == 1:
            out.append(da)
        elif da == -1:
            out.append(db)
        elif db == -1:
            out.append(da)
        else:
            raise OpError("%s with shapes %s and %s cannot be broadcast together"
                          % (what, list(a), list(b)))
    return tuple(out)


def normalize_axis(axis, ndim, what='axis'):
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise OpError("%s %d is out of range for a tensor with %d dims" % (what, axis, ndim))
    return axis % ndim if ndim else 0


def normalize_axes(axis, ndim):
    """None -> all axes; int or list -> sorted tuple of non-negative axes."""
    if axis is None or (isinstance(axis, (list, tuple)) and len(axis) == 0):
        return tuple(range(ndim))
    if isinstance(axis, (list, tuple)):
        return tuple(sorted(normalize_axis(int(a), ndim) for a in axis))
    return (normalize_axis(int(axis), ndim),)


# ---- common infer_meta functions -------------------------------------------

def unchanged(x, *attrs):
    """Output has the input's shape and dtype."""
    return Meta(shape_of(x), dtype_of(x))


def unchanged_float(x, *attrs):
    """Same shape; integer inputs give the default float dtype (sqrt(int))."""
    d = np.dtype(dtype_of(x))
    return Meta(shape_of(x), d if _dt.is_inexact(d) else _dt.default_float())


def broadcast(x, y, *attrs):
    """Elementwise binary op with numpy broadcasting and type promotion."""
    return Meta(broadcast_shapes(shape_of(x), shape_of(y)), result_dtype(x, y))


def broadcast_float(x, y, *attrs):
    """Broadcasting binary op that always gives a float (true division)."""
    d = result_dtype(x, y)
    return Meta(broadcast_shapes(shape_of(x), shape_of(y)),
                d if _dt.is_inexact(d) else _dt.default_float())


def compare(x, y, *attrs):
    """Broadcasting comparison: bool output."""
    return Meta(broadcast_shapes(shape_of(x), shape_of(y)), np.bool_)


def logical_unary(x, *attrs):
    return Meta(shape_of(x), np.bool_)


def reduce(x, axis=None, keepdim=False, *rest):
    """Reduction over ``axis`` (None = all) with ``keepdim``."""
    shape = shape_of(x)
    axes = normalize_axes(axis, len(shape))
    if keepdim:
        out = tuple(1 if i in axes else d for i, d in enumerate(shape))
    else:
        out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return Meta(out, dtype_of(x))


def reduce_to_dtype(dtype):
    """A reduction whose output has a fixed dtype (argmax -> int64, all -> bool)."""
    def infer(x, axis=None, keepdim=False, *rest):
        m = reduce(x, axis, keepdim)
        return Meta(m.shape, dtype)
    return infer


def no_input(shape, dtype):
    """Creation op output from attributes."""
    return Meta([int(s) if s is not None else -1 for s in shape], dtype)


def check_rank(op, name, m, ranks):
    nd = len(shape_of(m))
    if nd not in ranks:
        raise OpError("%s: input '%s' must be %s-D, got shape %s"
                      % (op, name, ' or '.join(map(str, ranks)), list(shape_of(m))))
