"""``framework.autograd.jacobian`` / ``hessian`` (Paddle 2.5+): Jacobian and
Hessian objects for outputs that are already computed.

Unlike ``incubate.autograd.Jacobian`` nothing is flattened or concatenated:
with ``batch_axis=None`` each ``ys``/``xs`` tensor is 0-D or 1-D and ``J`` is
``[M, N]`` (an axis disappears for a 0-D tensor); with ``batch_axis=0`` they
are 1-D or 2-D and ``J`` is ``[B, M, N]``. Tuples of ``ys``/``xs`` give
(nested) tuples of objects. Rows are evaluated lazily, one reverse pass per
row shared by all ``xs``, and cached.

Here too: the functional forms ``vjp`` / ``jvp``, and the machinery under
both these objects and ``incubate.autograd``'s ``Jacobian`` / ``Hessian``
(which flatten and concatenate). Everything is written with
``framework.grad``, which works on eager Tensors (with
``create_graph=True``, so results can be differentiated again) and on static
Variables (appending grad ops to the Program, under ``program_guard`` or
inside ``@to_static``). Because every op's grad rule is itself made of
registered ops, any order of derivative works in both modes.

Forward mode (``jvp``) uses the double-vjp construction: with a dummy
cotangent ``u``, ``g(u) = J^T u`` is linear in ``u``, so the vjp of ``g``
with cotangent ``v`` is ``J v``. It is exact for every op with a grad rule.
"""
import functools
import numbers

from ..dygraph import Tensor
from ..dygraph.state import enable_grad
from ..ops import creation as _creation, manipulation as _manip
from ..ops.modes import is_static_var

__all__ = ['jacobian', 'hessian', 'Jacobian', 'Hessian', 'vjp', 'jvp']


def _recording(fn):
    """Run ``fn`` with grad mode on: derivatives need the tape even when the
    caller is under ``no_grad`` (as torch.autograd.functional does)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with enable_grad():
            return fn(*args, **kwargs)
    return wrapper


# ---- small helpers over "a Tensor or a sequence of Tensors" -----------------------

def _is_value(v):
    return isinstance(v, Tensor) or is_static_var(v)


def _as_list(xs):
    return list(xs) if isinstance(xs, (list, tuple)) else [xs]


def _check_values(api, name, xs, allow_none=False):
    if xs is None and allow_none:
        return
    items = xs if isinstance(xs, (list, tuple)) else [xs]
    if isinstance(xs, (list, tuple)) and not xs:
        raise TypeError("%s: '%s' is an empty sequence" % (api, name))
    for i, x in enumerate(items):
        if not _is_value(x):
            raise TypeError("%s: '%s' must be a Tensor or a sequence of Tensors, got %s%s"
                            % (api, name, type(x).__name__,
                               '' if items is not xs else ' at position %d' % i))


def _check_same_shapes(api, v, ref, what):
    """``v`` must match ``ref`` (func's outputs or xs) in structure and shapes."""
    if v is None:
        return
    vs, rs = _as_list(v), _as_list(ref)
    if len(vs) != len(rs):
        raise ValueError("%s: v has %d tensor(s) but %s has %d" % (api, len(vs), what, len(rs)))
    for i, (a, b) in enumerate(zip(vs, rs)):
        if not _shapes_match(a.shape, b.shape):
            raise ValueError("%s: v[%d] has shape %s but %s[%d] has shape %s"
                             % (api, i, list(a.shape), what, i, list(b.shape)))


def _shapes_match(a, b):
    a, b = list(a), list(b)
    return len(a) == len(b) and all(p == q or p == -1 or q == -1 for p, q in zip(a, b))


def _separate(xs):
    """Fresh inputs for the function, so derivatives are taken with respect to
    them alone (``func(x, x)`` gets two separate partials): a tensor that needs
    gradients is cloned (the clone stays connected, so derivatives of the
    results still reach the caller's graph -- that is what lets Hessian nest a
    Jacobian); any other tensor is detached and made differentiable. A static
    Variable is copied with an ``assign`` op, which static backward
    differentiates through."""
    def one(x):
        if x is None:
            return x
        if is_static_var(x):
            return _manip.assign(x)
        if not x.stop_gradient:
            return x.clone()
        d = x.detach()
        d.stop_gradient = False
        return d
    if isinstance(xs, (list, tuple)):
        return tuple(one(x) for x in xs)
    return one(xs)


def _call(func, xs):
    return func(*xs) if isinstance(xs, (list, tuple)) else func(xs)


def _grad(ys, xs, v=None):
    """``sum_i v_i^T d ys_i / d xs`` as a list (one per x; zeros for an x the
    outputs do not depend on). Eagerly it builds a graph, so the results can
    be differentiated again; statically grad ops are ordinary ops anyway."""
    from . import grad    # the package's paddle.grad (it imports this module)
    ys, xs = _as_list(ys), _as_list(xs)
    vs = _as_list(v) if v is not None else [None] * len(ys)
    pairs = [(y, g) for y, g in zip(ys, vs) if is_static_var(y) or not y.stop_gradient]
    grads = [None] * len(xs)
    if pairs:
        static = is_static_var(pairs[0][0])
        grads = grad([y for y, _ in pairs], xs, [g for _, g in pairs],
                     create_graph=not static, allow_unused=True)
    return [_creation.zeros_like(x) if g is None else g for g, x in zip(grads, xs)]


def _structured(values, like):
    return tuple(values) if isinstance(like, (list, tuple)) else values[0]


# ---- vjp / jvp --------------------------------------------------------------------

@_recording
def vjp(func, xs, v=None):
    """Vector-Jacobian product (reverse mode): ``(func(xs), v^T J)``.

    ``xs`` is a Tensor or a sequence of Tensors (passed to ``func`` as
    positional arguments); ``v`` matches ``func``'s output(s) in structure and
    shape (default: ones). The result has the structure of ``xs``.

    >>> import framework as paddle
    >>> from framework.incubate.autograd import vjp
    >>> x = paddle.ones([2, 2])
    >>> _, g = vjp(lambda x: paddle.matmul(x, x), x)
    >>> g.numpy().tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    _check_func(func, 'vjp')
    _check_values('vjp', 'xs', xs)
    _check_values('vjp', 'v', v, allow_none=True)
    xs = _separate(xs)
    ys = _call(func, xs)
    _check_values('vjp', 'the output of func', ys)
    _check_same_shapes('vjp', v, ys, "func's output")
    return ys, _structured(_grad(ys, xs, v), xs)


@_recording
def jvp(func, xs, v=None):
    """Jacobian-vector product (forward mode): ``(func(xs), J v)``.

    ``v`` matches ``xs`` in structure and shape (default: ones); the result
    has the structure of ``func``'s output. Computed by the double-vjp
    construction, so it is exact for every differentiable op.

    >>> import framework as paddle
    >>> from framework.incubate.autograd import jvp
    >>> x = paddle.ones([2, 2])
    >>> _, t = jvp(lambda x: paddle.matmul(x, x), x)
    >>> t.numpy().tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    _check_func(func, 'jvp')
    _check_values('jvp', 'xs', xs)
    _check_values('jvp', 'v', v, allow_none=True)
    xs = _separate(xs)
    ys = _call(func, xs)
    _check_values('jvp', 'the output of func', ys)
    _check_same_shapes('jvp', v, xs, 'xs')
    return ys, _structured(_double_vjp(_as_list(ys), _as_list(xs), v), ys)


def _double_vjp(ys, xs, v):
    us = []
    for y in ys:
        u = _creation.zeros_like(y)   # any value works: J^T u is linear in u
        u.stop_gradient = False
        us.append(u)
    xs_grad = _grad(ys, xs, us)
    return _grad(xs_grad, us, v)


def _check_func(func, api):
    if not callable(func):
        raise TypeError("%s: 'func' must be callable, got %s" % (api, type(func).__name__))


# ---- lazy matrices ------------------------------------------------------------------

def _flat(x, batched):
    """[N] (or [B, N]) view of one tensor."""
    if not batched:
        return _manip.reshape(x, [-1])
    if len(x.shape) == 1:
        return _manip.unsqueeze(x, -1)
    return _manip.flatten(x, start_axis=1)


def _flat_size(x, batched):
    dims = list(x.shape)[1:] if batched else list(x.shape)
    n = 1
    for d in dims:
        if d < 0:
            raise ValueError("Jacobian: the size of every non-batch dimension must be known; "
                             "got a tensor of shape %s" % list(x.shape))
        n *= d
    return n


class _RowSource:
    """Rows of d(ys_flat)/d(xs): row i is one reverse pass (the gradient of
    output element i, summed over the batch when batched), cached.
    ``row(i)`` is a list with one flattened block per x."""

    def __init__(self, ys_flat, xs, batched):
        self.ys_flat = ys_flat
        self.xs = xs
        self.batched = batched
        self.cache = {}

    @_recording
    def row(self, i):
        r = self.cache.get(i)
        if r is None:
            y = self.ys_flat[:, i] if self.batched else self.ys_flat[i]
            r = [_flat(g, self.batched) for g in _grad([y], self.xs)]
            self.cache[i] = r
        return r


def _expand_index(index, ndim, api):
    """``index`` as a tuple of ``ndim`` ints/slices (Ellipsis expanded)."""
    idx = index if isinstance(index, tuple) else (index,)
    n_ell = sum(1 for i in idx if i is Ellipsis)
    if n_ell > 1:
        raise IndexError("%s: an index can only have a single ellipsis" % api)
    if n_ell:
        k = idx.index(Ellipsis)
        idx = idx[:k] + (slice(None),) * (ndim - len(idx) + 1) + idx[k + 1:]
    if len(idx) > ndim:
        raise IndexError("%s: too many indices (%d) for a matrix of %d dimension(s)"
                         % (api, len(idx), ndim))
    for i in idx:
        if not isinstance(i, (slice, numbers.Integral)) or isinstance(i, bool):
            raise TypeError("%s: only integers, slices and ... can index a Jacobian/"
                            "Hessian, got %r" % (api, i))
    return tuple(int(i) if isinstance(i, numbers.Integral) else i for i in idx) + \
        (slice(None),) * (ndim - len(idx))


class _LazyMatrix:
    """Indexing, laziness and caching shared by Jacobian and Hessian.

    ``inner_shape`` is [M, N] or [B, M, N] (M rows, evaluated lazily along
    axis 0 or 1); ``present`` says which inner axes the user-visible
    ``shape`` keeps (a 0-D output or input drops its axis, as Paddle does).
    ``row_fn(i)`` returns row i with the lazy axis removed.
    """

    _api = 'Jacobian'

    def _setup(self, row_fn, inner_shape, present, batched):
        self._row_fn = row_fn
        self._inner_shape = list(inner_shape)
        self._present = list(present)
        self._lazy_axis = 1 if batched else 0
        self._rows = {}

    @property
    def shape(self):
        """The shape of the (flattened) matrix."""
        return [d for d, p in zip(self._inner_shape, self._present) if p]

    def _row(self, i):
        r = self._rows.get(i)
        if r is None:
            r = self._rows[i] = self._row_fn(i)
        return r

    def __getitem__(self, index):
        shape = self.shape
        idx = iter(_expand_index(index, len(shape), self._api))
        full = [next(idx) if p else 0 for p in self._present]
        ax = self._lazy_axis
        m = self._inner_shape[ax]
        lazy = full[ax]
        others = full[:ax] + full[ax + 1:]
        if isinstance(lazy, int):
            if not -m <= lazy < m:
                raise IndexError("%s: row index %d is out of range for %d rows"
                                 % (self._api, lazy, m))
            return _index(self._row(lazy % m), others)
        rows = range(*lazy.indices(m))
        if len(rows) == 0:
            raise IndexError("%s: the slice %r selects no rows" % (self._api, lazy))
        part = _manip.stack([self._row(i) for i in rows], axis=ax)
        return _index(part, full[:ax] + [slice(None)] + full[ax + 1:])

    def _evaluate_all(self):
        return self[...]

    def numpy(self):
        return self._evaluate_all().numpy()

    def __getattr__(self, name):
        # anything else (dtype, sum, ...) is the evaluated matrix's
        if name.startswith('_'):
            raise AttributeError(name)
        return getattr(self._evaluate_all(), name)

    def __repr__(self):
        return '<%s shape=%s, %d of %d rows evaluated>' % (
            type(self).__name__, self.shape, len(self._rows), self._inner_shape[self._lazy_axis])


def _index(t, idx):
    if all(isinstance(i, slice) and i == slice(None) for i in idx):
        return t
    return t[tuple(idx)]


def _binary(name):
    def op(self, other):
        other = other._evaluate_all() if isinstance(other, _LazyMatrix) else other
        return getattr(self._evaluate_all(), name)(other)
    op.__name__ = name
    return op


for _name in ('__add__', '__radd__', '__sub__', '__rsub__', '__mul__', '__rmul__',
              '__truediv__', '__rtruediv__', '__pow__', '__matmul__', '__rmatmul__',
              '__neg__', '__eq__', '__ne__', '__lt__', '__le__', '__gt__', '__ge__'):
    if _name == '__neg__':
        setattr(_LazyMatrix, _name, lambda self: -self._evaluate_all())
    else:
        setattr(_LazyMatrix, _name, _binary(_name))
_LazyMatrix.__hash__ = object.__hash__


# ---- paddle.autograd.jacobian / hessian -------------------------------------------


class Jacobian(_LazyMatrix):
    """One block d ys / d xs of ``jacobian(ys, xs, batch_axis)``."""

    def __init__(self, source, j, ys, xs, batched):
        self._setup(lambda i: source.row(i)[j], *_inner(ys, xs, batched), batched)


class Hessian(Jacobian):
    """One block d^2 ys / (d xs_j d xs_k) of ``hessian(ys, xs, batch_axis)``."""
    _api = 'Hessian'


def _inner(ys, xs, batched):
    """(inner shape, which inner axes the visible shape keeps)."""
    ys_shape, xs_shape = list(ys.shape), list(xs.shape)
    if not batched:
        return ([ys_shape[0] if ys_shape else 1, xs_shape[0] if xs_shape else 1],
                [bool(ys_shape), bool(xs_shape)])
    return ([ys_shape[0], ys_shape[1] if len(ys_shape) > 1 else 1,
             xs_shape[1] if len(xs_shape) > 1 else 1],
            [True, len(ys_shape) > 1, len(xs_shape) > 1])


def _check_dims(api, name, ts, batched):
    lo, hi = (1, 2) if batched else (0, 1)
    for t in ts:
        if not lo <= len(t.shape) <= hi:
            raise ValueError("%s: with batch_axis=%s every tensor in '%s' must be %d-D or "
                             "%d-D, got shape %s" % (api, 0 if batched else None, name, lo, hi,
                                                     list(t.shape)))
        if any(d < 0 for d in t.shape[1 if batched else 0:]):
            raise ValueError("%s: '%s' has an unknown non-batch dimension, shape %s"
                             % (api, name, list(t.shape)))


def _check_recorded(api, xs_l):
    """Eagerly, derivatives exist only for inputs the tape recorded."""
    for x in xs_l:
        if not is_static_var(x) and x.stop_gradient:
            raise ValueError("%s: an input in 'xs' (shape %s) has stop_gradient=True, so no "
                             "derivative with respect to it was recorded; set "
                             "x.stop_gradient = False before computing ys" % (api, x.shape))


def _batched(api, batch_axis):
    if batch_axis is None:
        return False
    if batch_axis == 0 and not isinstance(batch_axis, bool):
        return True
    raise ValueError("%s: batch_axis must be None or 0, got %r" % (api, batch_axis))


def _values(v):
    """Jacobian/Hessian objects given as ``ys`` are evaluated (Paddle allows this)."""
    return v._evaluate_all() if isinstance(v, _LazyMatrix) else v


def _blocks(cls, ys_l, xs_l, batched):
    """[[cls block for (y, x)] for y] with one shared row source per y."""
    out = []
    for y in ys_l:
        source = _RowSource(_flat(y, batched), xs_l, batched)
        out.append([cls(source, j, y, x, batched) for j, x in enumerate(xs_l)])
    return out


@_recording
def jacobian(ys, xs, batch_axis=None):
    """Jacobian of already computed ``ys`` with respect to ``xs``.

    >>> import framework as paddle
    >>> x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    >>> J = paddle.autograd.jacobian(x * x, x)
    >>> J.shape
    [3, 3]
    >>> J[1].numpy().tolist()
    [0.0, 4.0, 0.0]
    """
    batched = _batched('jacobian', batch_axis)
    ys = tuple(_values(y) for y in ys) if isinstance(ys, (list, tuple)) else _values(ys)
    _check_values('jacobian', 'ys', ys)
    _check_values('jacobian', 'xs', xs)
    ys_l, xs_l = _as_list(ys), _as_list(xs)
    _check_dims('jacobian', 'ys', ys_l, batched)
    _check_dims('jacobian', 'xs', xs_l, batched)
    _check_recorded('jacobian', xs_l)
    blocks = _blocks(Jacobian, ys_l, xs_l, batched)
    ys_seq, xs_seq = isinstance(ys, (list, tuple)), isinstance(xs, (list, tuple))
    if ys_seq and xs_seq:
        return tuple(tuple(r) for r in blocks)
    if ys_seq:
        return tuple(r[0] for r in blocks)
    if xs_seq:
        return tuple(blocks[0])
    return blocks[0][0]


@_recording
def hessian(ys, xs, batch_axis=None):
    """Hessian of an already computed scalar ``ys`` (shape [] or [1]; [B] or
    [B, 1] with ``batch_axis=0``) with respect to ``xs``. For a tuple of
    ``xs`` the result is a tuple of tuples: block (j, k) is d2 ys/dxs_j dxs_k.
    The gradient is taken once; each Hessian row is one more reverse pass.

    >>> import framework as paddle
    >>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    >>> H = paddle.autograd.hessian((x ** 3).sum(), x)
    >>> H[:].numpy().tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    batched = _batched('hessian', batch_axis)
    ys = _values(ys)
    _check_values('hessian', 'ys', ys)
    if isinstance(ys, (list, tuple)):
        raise TypeError("hessian: 'ys' must be a single Tensor")
    _check_values('hessian', 'xs', xs)
    xs_l = _as_list(xs)
    _check_dims('hessian', 'xs', xs_l, batched)
    _check_recorded('hessian', xs_l)
    shape = list(ys.shape)
    scalar = (len(shape) == 0 or shape == [1]) if not batched else \
        (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1))
    if not scalar:
        raise ValueError("hessian: ys must hold one element%s, got shape %s"
                         % (' per sample ([B] or [B, 1])' if batched else ' ([] or [1])', shape))
    target = ys.sum() if batched else ys
    grads = _grad([target], xs_l)     # one reverse pass for the whole gradient
    blocks = _blocks(Hessian, grads, xs_l, batched)
    if isinstance(xs, (list, tuple)):
        return tuple(tuple(r) for r in blocks)
    return blocks[0][0]
