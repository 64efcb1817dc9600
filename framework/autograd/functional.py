"""``framework.autograd.jacobian`` / ``hessian`` (Paddle 2.5+): Jacobian and
Hessian objects for outputs that are already computed.

Unlike ``incubate.autograd.Jacobian`` nothing is flattened or concatenated:
with ``batch_axis=None`` each ``ys``/``xs`` tensor is 0-D or 1-D and ``J`` is
``[M, N]`` (an axis disappears for a 0-D tensor); with ``batch_axis=0`` they
are 1-D or 2-D and ``J`` is ``[B, M, N]``. Tuples of ``ys``/``xs`` give
(nested) tuples of objects. Rows are evaluated lazily, one reverse pass per
row shared by all ``xs``, and cached.
"""
from ..incubate.autograd.functional import (_LazyMatrix, _RowSource, _as_list, _check_values,
                                            _flat, _grad, _recording)
from ..ops.modes import is_static_var

__all__ = ['jacobian', 'hessian', 'Jacobian', 'Hessian']


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
