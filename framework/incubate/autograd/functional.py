"""Functional higher-order differentiation (``paddle.incubate.autograd``):
``Jacobian`` and ``Hessian`` of a function (inputs and outputs flattened and
concatenated), ``grad`` and ``forward_grad``; ``vjp`` / ``jvp`` are
``framework.autograd``'s.

Built on ``framework.autograd.functional``, which holds the machinery shared
with ``paddle.autograd.jacobian`` / ``hessian``: derivatives written with
``framework.grad`` (eager and static mode, any order), and matrices evaluated
lazily, one reverse pass per row (the only cheap direction in reverse mode),
computed rows cached.
"""
from ...autograd.functional import (_LazyMatrix, _RowSource, _as_list, _call, _check_func,
                                    _check_same_shapes, _check_values, _double_vjp, _flat,
                                    _flat_size, _grad, _recording, _separate, _structured,
                                    jvp, vjp)
from ...ops import manipulation as _manip

__all__ = ['vjp', 'jvp', 'Jacobian', 'Hessian', 'grad', 'forward_grad']


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
        ys_flat = _manip.concat([_flat(y, is_batched) for y in ys_l], axis=-1) \
            if len(ys_l) > 1 else _flat(ys_l[0], is_batched)
        source = _RowSource(ys_flat, xs_l, is_batched)
        m = sum(_flat_size(y, is_batched) for y in ys_l)
        n = sum(_flat_size(x, is_batched) for x in xs_l)

        def row(i):
            blocks = source.row(i)
            return _manip.concat(blocks, axis=-1) if len(blocks) > 1 else blocks[0]
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
