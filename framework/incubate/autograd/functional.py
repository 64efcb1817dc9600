"""Functional higher-order differentiation: vjp, jvp, Jacobian, Hessian.

Everything here is written with ``framework.grad``, which works on eager
Tensors (with ``create_graph=True``, so results can be differentiated again)
and on static Variables (appending grad ops to the Program, under
``program_guard`` or inside ``@to_static``). Because every op's grad rule is
itself made of registered ops, any order of derivative works in both modes.

Forward mode (``jvp``) uses the double-vjp construction: with a dummy
cotangent ``u``, ``g(u) = J^T u`` is linear in ``u``, so the vjp of ``g``
with cotangent ``v`` is ``J v``. It is exact for every op with a grad rule.

Jacobian and Hessian matrices are evaluated lazily, one reverse pass per row
(the only cheap direction in reverse mode), and computed rows are cached.
"""
import functools
import numbers

from ...dygraph import Tensor
from ...dygraph.state import enable_grad
from ...ops.modes import is_static_var

__all__ = ['vjp', 'jvp', 'Jacobian', 'Hessian', 'grad', 'forward_grad']


def _fw():
    import framework
    return framework


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
            return _fw().assign(x)
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
    fw = _fw()
    ys, xs = _as_list(ys), _as_list(xs)
    vs = _as_list(v) if v is not None else [None] * len(ys)
    pairs = [(y, g) for y, g in zip(ys, vs) if is_static_var(y) or not y.stop_gradient]
    grads = [None] * len(xs)
    if pairs:
        static = is_static_var(pairs[0][0])
        grads = fw.grad([y for y, _ in pairs], xs, [g for _, g in pairs],
                        create_graph=not static, allow_unused=True)
    return [fw.zeros_like(x) if g is None else g for g, x in zip(grads, xs)]


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
    fw = _fw()
    us = []
    for y in ys:
        u = fw.zeros_like(y)   # any value works: J^T u is linear in u
        u.stop_gradient = False
        us.append(u)
    xs_grad = _grad(ys, xs, us)
    return _grad(xs_grad, us, v)


@_recording
def grad(outputs, inputs, grad_outputs=None):
    """``paddle.incubate.autograd.grad``: gradients of ``outputs`` with respect
    to ``inputs`` (reverse mode), in eager or static mode; zeros for inputs
    the outputs do not depend on. Returns a Tensor or a tuple like ``inputs``."""
    _check_values('grad', 'outputs', outputs)
    _check_values('grad', 'inputs', inputs)
    _check_values('grad', 'grad_outputs', grad_outputs, allow_none=True)
    _check_same_shapes('grad', grad_outputs, outputs, 'outputs')
    return _structured(_grad(outputs, inputs, grad_outputs), inputs)


@_recording
def forward_grad(outputs, inputs, grad_inputs=None):
    """Forward-mode derivative of already computed ``outputs`` along
    ``grad_inputs`` (default: ones), i.e. ``J v``; returns a Tensor or a tuple
    like ``outputs``. The outputs must have been computed from ``inputs``
    with gradients recorded (eager) or in the same Program (static)."""
    _check_values('forward_grad', 'outputs', outputs)
    _check_values('forward_grad', 'inputs', inputs)
    _check_values('forward_grad', 'grad_inputs', grad_inputs, allow_none=True)
    _check_same_shapes('forward_grad', grad_inputs, inputs, 'inputs')
    return _structured(_double_vjp(_as_list(outputs), _as_list(inputs), grad_inputs), outputs)


def _check_func(func, api):
    if not callable(func):
        raise TypeError("%s: 'func' must be callable, got %s" % (api, type(func).__name__))


# ---- lazy matrices ------------------------------------------------------------------

def _flat(x, batched):
    """[N] (or [B, N]) view of one tensor."""
    fw = _fw()
    if not batched:
        return fw.reshape(x, [-1])
    if len(x.shape) == 1:
        return fw.unsqueeze(x, -1)
    return fw.flatten(x, start_axis=1)


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
        fw = _fw()
        if len(rows) == 0:
            raise IndexError("%s: the slice %r selects no rows" % (self._api, lazy))
        part = fw.stack([self._row(i) for i in rows], axis=ax)
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


class Jacobian(_LazyMatrix):
    """The Jacobian of ``func`` at ``xs``, evaluated lazily by rows.

    Inputs (and outputs) are flattened and concatenated, so ``J`` is
    ``[M, N]`` (M output elements, N input elements) or, with
    ``is_batched=True`` (axis 0 of every input and output is a batch of
    independent samples), ``[B, M, N]``. Index it like a tensor: ``J[:]``,
    ``J[i]`` / ``J[:, i]`` (one row costs one reverse pass), ``J[:, j]``;
    evaluated rows are cached.

    >>> import framework as paddle
    >>> from framework.incubate.autograd import Jacobian
    >>> x = paddle.to_tensor([[1., 2.], [3., 4.]])
    >>> J = Jacobian(lambda x, y: paddle.matmul(x, y), [x, x])
    >>> J.shape
    [4, 8]
    >>> J[0].numpy().tolist()
    [1.0, 3.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0]
    """

    @_recording
    def __init__(self, func, xs, is_batched=False):
        _check_func(func, 'Jacobian')
        _check_values('Jacobian', 'xs', xs)
        self._xs = _separate(xs)
        self._ys = _call(func, self._xs)
        _check_values('Jacobian', 'the output of func', self._ys)
        xs_l, ys_l = _as_list(self._xs), _as_list(self._ys)
        if is_batched:
            for t in xs_l + ys_l:
                if len(t.shape) == 0:
                    raise ValueError("Jacobian(is_batched=True): inputs and outputs need a "
                                     "batch axis, got a 0-D tensor")
        fw = _fw()
        ys_flat = fw.concat([_flat(y, is_batched) for y in ys_l], axis=-1) \
            if len(ys_l) > 1 else _flat(ys_l[0], is_batched)
        source = _RowSource(ys_flat, xs_l, is_batched)
        m = sum(_flat_size(y, is_batched) for y in ys_l)
        n = sum(_flat_size(x, is_batched) for x in xs_l)

        def row(i):
            blocks = source.row(i)
            return fw.concat(blocks, axis=-1) if len(blocks) > 1 else blocks[0]
        inner = [xs_l[0].shape[0], m, n] if is_batched else [m, n]
        self._setup(row, inner, [True] * len(inner), is_batched)
        self._source = source


class Hessian(_LazyMatrix):
    """The Hessian of a scalar-valued ``func`` at ``xs`` (inputs flattened and
    concatenated): ``[N, N]``, or ``[B, N, N]`` with ``is_batched=True``.
    ``func`` returns one element (shape [] or [1]; [B] or [B, 1] batched).
    Evaluated lazily by rows like ``Jacobian``: the gradient is computed once,
    then each row is one more reverse pass.

    >>> import framework as paddle
    >>> from framework.incubate.autograd import Hessian
    >>> H = Hessian(lambda x: paddle.sum(x * x), paddle.ones([2, 2]))
    >>> H[:].numpy().tolist()[0]
    [2.0, 0.0, 0.0, 0.0]
    """

    _api = 'Hessian'

    @_recording
    def __init__(self, func, xs, is_batched=False):
        _check_func(func, 'Hessian')

        def gradient(*xs_):
            jac = Jacobian(func, xs_ if isinstance(xs, (list, tuple)) else xs_[0], is_batched)
            rows = jac.shape[1] if is_batched else jac.shape[0]
            if rows != 1:
                raise ValueError("Hessian: func must return a single element (shape [] or [1]; "
                                 "[B] or [B, 1] with is_batched=True), got %d elements"
                                 % rows)
            return jac[:, 0, :] if is_batched else jac[0, :]
        self.symbolic = Jacobian(gradient, xs, is_batched)
        self._setup(self.symbolic._row, self.symbolic._inner_shape,
                    self.symbolic._present, is_batched)
