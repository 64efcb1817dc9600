"""Helpers for writing grad rules: undoing broadcasting, in numpy and as ops."""
import numpy as np

from .. import dtype as _dt
from . import meta
from .registry import Meta, add_test_case, def_op

_ndarray = np.ndarray


class _FastGradContext:
    """Which inputs of the node whose fast grad is running need a gradient.

    The eager engine sets ``edges`` (one entry per input, None = not needed)
    right before it calls an op's ``fast_grad``; expensive fast grads (a
    convolution's input gradient, a first layer's input gradient) ask
    ``wants(i)`` and skip work nobody will use."""
    __slots__ = ('edges',)

    def __init__(self):
        self.edges = None


fast_grad_context = _FastGradContext()


def wants(i):
    """True unless the running fast grad's input ``i`` is known not to need a gradient."""
    edges = fast_grad_context.edges
    return edges is None or edges[i] is not None


_scalar_arrays = {}
# ``scalar_array``'s cache by (value, type(value), dtype); hot paths look here first
scalar_arrays = _scalar_arrays


def scalar_array(value, dtype):
    """A number as a 0-d array of the dtype type promotion gives it next to a
    tensor of ``dtype`` (``framework.dtype.result_type``; cached). Integers
    wrap around in a narrower integer dtype, as in PyTorch. numpy's ufuncs take
    a slow path for Python floats; a 0-d array is faster and computes the same."""
    key = (value, type(value), dtype)
    arr = _scalar_arrays.get(key)
    if arr is None:
        if len(_scalar_arrays) > 4096:
            _scalar_arrays.clear()
        with np.errstate(over='ignore'):
            arr = np.asarray(value).astype(_dt.result_type(dtype, value))
        arr.flags.writeable = False
        _scalar_arrays[key] = arr
    return arr


def unbroadcast(g, shape):
    """Sum a numpy gradient ``g`` down to ``shape`` (the inverse of broadcasting)."""
    shape = tuple(shape)
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead > 0:
        g = g.sum(axis=tuple(range(lead)))
    axes = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    if g.shape != shape:
        g = np.broadcast_to(g, shape).copy() if g.size == 1 else g.reshape(shape)
    return g


def ub(g, x):
    """Fast-path gradient for input ``x``: None for scalars/constants."""
    if type(x) is _ndarray:
        return g if g.shape == x.shape else unbroadcast(g, x.shape)
    return None


def is_value(x):
    """True for graph values (eager Tensors, static Variables); False for
    Python scalars, numpy constants and None, which get no gradient."""
    return x is not None and hasattr(x, 'stop_gradient')


def _known(shape):
    return all(d >= 0 for d in shape)


def sum_like(g, x):
    """Composite-rule gradient for input ``x``: reduce ``g`` to x's shape."""
    if not is_value(x):
        return None
    gs, xs = tuple(g.shape), tuple(x.shape)
    if gs == xs and _known(xs):
        return g
    return reduce_as(g, x)


def sum_to_shape(g, shape):
    """Reduce a graph gradient to a fixed, known shape."""
    if tuple(g.shape) == tuple(shape):
        return g
    # a zero-stride array carries the shape without allocating it
    return reduce_as(g, np.broadcast_to(np.zeros((), np.bool_), tuple(shape)))


def _reduce_as_meta(x, target):
    return Meta(meta.shape_of(target), meta.dtype_of(x))


@def_op('reduce_as', _reduce_as_meta, no_grad_inputs=('target',), save_inputs=False,
        pattern='opaque', passthrough='x')
def reduce_as(x, target):
    """Sum ``x`` over its broadcast dimensions down to ``target``'s shape."""
    return unbroadcast(x, np.shape(target))


@reduce_as.def_grad
def _reduce_as_grad(g, x, target, out):
    return expand_as(g, x), None


_SUM = np.add.reduce     # one object: each attribute access makes a new bound method


@reduce_as.def_lean
def _reduce_as_lean(call):
    """A sum over leading axes to a known target shape (a bias gradient)."""
    x, _ = call.ins
    vx, vt = call.vars
    if vx is None or vt is None:
        return None
    xs, ts = call.dims(vx), call.dims(vt)
    lead = len(xs) - len(ts)
    # the trailing dims must be the target's (nothing to sum with keepdims):
    # one named size, or a known target size > 1 that an unknown x dim must be
    if lead <= 0 or not all(meta.same_dim(d, t) or (t > 1 and d in (t, -1))
                            for d, t in zip(xs[lead:], ts)):
        return None
    # unbroadcast: the leading axes summed away (x.sum is np.add.reduce); the
    # rest equal the target's
    return call.Lean('%s(%s, %r)' % (call.kernel(_SUM), x, tuple(range(lead))))


def _expand_as_meta(x, target):
    return Meta(meta.shape_of(target), meta.dtype_of(x))


@def_op('expand_as', _expand_as_meta, no_grad_inputs=('target',), save_inputs=False,
        pattern='view', passthrough='x')
def expand_as(x, target):
    """Broadcast ``x`` to ``target``'s shape."""
    shape = np.shape(target)
    return x if x.shape == shape else np.broadcast_to(x, shape).copy()


@expand_as.def_grad
def _expand_as_grad(g, x, target, out):
    return reduce_as(g, x), None


_rng = np.random.default_rng(3)
add_test_case(reduce_as, _rng.standard_normal((2, 3, 4)), np.zeros((3, 1)),
              ref=lambda x, t: x.sum(axis=0).sum(axis=1, keepdims=True))
add_test_case(reduce_as, _rng.standard_normal((3, 4)), np.zeros((3, 4)), ref=lambda x, t: x)
add_test_case(expand_as, _rng.standard_normal((3, 1)), np.zeros((2, 3, 4)),
              ref=lambda x, t: np.broadcast_to(x, t.shape))
add_test_case(expand_as, _rng.standard_normal((3, 1)), np.zeros((3, 1)), ref=lambda x, t: x)
