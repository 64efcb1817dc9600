"""Products and contractions: einsum, tensordot, inner, kron, mv,
addmm, baddbmm and trace (vecdot is linalg's).

``einsum`` is one registered op on an explicit equation (numpy's kernel).
The public function first rewrites the equation so that every operand has
distinct labels, its ellipsis first, and only labels that another operand
or the output shares (repeated labels become a diagonal, labels of one
operand only are summed away); broadcast dims the output drops are summed
after the op. Under that form the gradient of an operand is
again an einsum -- the output's labels and the other operands' contracted
into the operand's labels -- which keeps the form, so every order of
derivative is an einsum. ``trace`` and its adjoint (a tensor with values on
the diagonal) are each other's gradients. The rest are compositions of
matmul, reshape, transpose, multiply and sum.
"""
import itertools
import string

import numpy as np

from . import math as _m
from . import lib, meta
from . import reduce as _r
from .grad_utils import sum_like
from .lowp import float32_compute
from .out_param import write_out
from .registry import Meta, OpError, add_test_case, def_op



# ---- einsum --------------------------------------------------------------------------------

def _parse(equation):
    """(input subscripts, output subscript) of an explicit equation."""
    lhs, out = equation.split('->')
    return lhs.split(','), out


def _label_sizes(subs, shapes):
    """{label: size} and the broadcast shape of the ellipsis dims."""
    sizes, ell = {}, ()
    for sub, shape in zip(subs, shapes):
        head, _, tail = sub.partition('...')
        n_ell = len(shape) - len(head) - len(tail)
        if n_ell < 0 or (n_ell and '...' not in sub):
            raise OpError("einsum: operand subscript '%s' does not fit an operand of shape %s"
                          % (sub, list(shape)))
        dims = list(shape[:len(head)]) + list(shape[len(head) + n_ell:])
        for ch, d in zip(head + tail, dims):
            old = sizes.get(ch)
            if old is None or old in (1, -1):
                sizes[ch] = d
            elif d not in (1, -1, old):
                raise OpError("einsum: label '%s' has size %d in one operand and %d in another"
                              % (ch, old, d))
        if '...' in sub:
            ell = meta.broadcast_shapes(ell, shape[len(head):len(head) + n_ell],
                                        'einsum ellipsis dims')
    return sizes, ell


def _einsum_meta(operands, equation=''):
    subs, out = _parse(equation)
    if len(subs) != len(operands):
        raise OpError("einsum: the equation '%s' names %d operands, got %d"
                      % (equation, len(subs), len(operands)))
    sizes, ell = _label_sizes(subs, [meta.shape_of(m) for m in operands])
    head, dots, tail = out.partition('...')
    shape = [sizes[ch] for ch in head] + (list(ell) if dots else []) + [sizes[ch] for ch in tail]
    return Meta(shape, meta.same_dtype('einsum', ['operand %d' % i for i in range(len(operands))],
                                       *operands))


@def_op('einsum', _einsum_meta, inputs=('operands*',), attrs={'equation': ''}, pattern='opaque',
        amp='white')
@float32_compute
def einsum_op(operands, equation=''):
    """The contraction an explicit einsum equation describes (numpy's einsum;
    half precision accumulates in float32, as matmul does)."""
    return np.asarray(np.einsum(equation, *operands, optimize=len(operands) > 2))


einsum_op.def_onnx(lambda g, operands, equation: g.op('Einsum', *operands, equation=equation))


@einsum_op.def_grad
def _einsum_grad(g, operands, out, equation):
    subs, out_sub = _parse(equation)
    grads = []
    for k, x in enumerate(operands):
        if not hasattr(x, 'stop_gradient'):
            grads.append(None)
            continue
        others = [s for j, s in enumerate(subs) if j != k]
        target = subs[k]
        if '...' not in target and any('...' in s for s in [out_sub] + others):
            target = '...' + target     # numpy cannot sum ellipsis dims away; sum_like does
        eq = ','.join([out_sub] + others) + '->' + target
        gk = einsum_op([g] + [v for j, v in enumerate(operands) if j != k], eq)
        grads.append(sum_like(gk, x))
    return grads


def _explicit(equation, n):
    eq = equation.replace(' ', '')
    if '->' in eq:
        subs, out = eq.split('->')
        subs = subs.split(',')
    else:
        subs = eq.split(',')
        letters = [ch for s in subs for ch in s.replace('...', '')]
        once = sorted(ch for ch in set(letters) if letters.count(ch) == 1)
        out = ('...' if any('...' in s for s in subs) else '') + ''.join(once)
    if len(subs) != n:
        raise OpError("einsum: the equation '%s' names %d operands, got %d"
                      % (equation, len(subs), n))
    for s in subs + [out]:
        bad = [ch for ch in s.replace('...', '') if ch not in string.ascii_letters]
        if bad or s.count('...') > 1 or s.replace('...', '').count('.'):
            raise OpError("einsum: invalid subscript '%s' in '%s'" % (s, equation))
    letters = set(ch for s in subs for ch in s)
    for ch in out.replace('...', ''):
        if ch not in letters:
            raise OpError("einsum: output label '%s' appears in no operand ('%s')" % (ch, equation))
        if out.count(ch) > 1:
            raise OpError("einsum: output label '%s' is repeated ('%s')" % (ch, equation))
    return subs, out


def _ellipsis_first(x, sub):
    """x transposed so its ellipsis dims come first, and its new subscript."""
    if '...' not in sub or sub.startswith('...'):
        return x, sub
    head, tail = sub.split('...')
    nd = len(x.shape)
    n_ell = nd - len(head) - len(tail)
    perm = list(range(len(head), len(head) + n_ell)) + list(range(len(head))) + \
        list(range(len(head) + n_ell, nd))
    return lib.transpose_op(x, tuple(perm)), '...' + head + tail


def _take_diagonal(x, sub):
    """Repeated labels of one operand become one axis (its diagonal)."""
    while True:
        letters = sub.replace('...', '')
        repeated = [ch for ch in letters if letters.count(ch) > 1]
        if not repeated:
            return x, sub
        ch = repeated[0]
        off = len(x.shape) - len(letters)            # ellipsis dims come first
        a = off + letters.index(ch)
        b = off + letters.index(ch, letters.index(ch) + 1)
        n = x.shape[a]
        mask = lib.reshape(lib.eye(n, n, str(np.dtype(x.dtype))),
                           [n if d in (a, b) else 1 for d in range(len(x.shape))])
        x = _r.sum_op(x * mask, (b,), False)
        pos = letters.index(ch, letters.index(ch) + 1)
        letters = letters[:pos] + letters[pos + 1:]
        sub = ('...' if sub.startswith('...') else '') + letters


def _normalize(operands, subs, out):
    """Operands and subscripts in the form the einsum op's gradient needs."""
    xs, ss = [], []
    for x, s in zip(operands, subs):
        x, s = _ellipsis_first(x, s)
        x, s = _take_diagonal(x, s)
        xs.append(x)
        ss.append(s)
    for k in range(len(xs)):
        letters = ss[k].replace('...', '')
        others = set(out) | set(''.join(s for j, s in enumerate(ss) if j != k))
        alone = [i for i, ch in enumerate(letters) if ch not in others]
        off = len(xs[k].shape) - len(letters)
        axes = [off + i for i in alone]
        if axes:
            xs[k] = _r.sum_op(xs[k], tuple(axes), False)
            ss[k] = ('...' if ss[k].startswith('...') else '') + ''.join(
                ch for i, ch in enumerate(letters) if i not in alone)
    return xs, ss


def einsum(equation, *operands):
    """Sum of products over the labels an Einstein-summation ``equation``
    contracts (``'ij,jk->ik'``, implicit output, ``...`` for broadcast dims,
    repeated labels for diagonals).

    >>> import framework as paddle
    >>> a, b = paddle.ones([2, 3]), paddle.ones([3, 4])
    >>> paddle.einsum('ij,jk->ik', a, b).shape
    paddle.Size([2, 4])
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise OpError("einsum: give at least one operand")
    subs, out = _explicit(equation, len(operands))
    xs, ss = _normalize(list(operands), subs, out)
    if '...' in out or not any('...' in s for s in ss):
        return einsum_op(xs, ','.join(ss) + '->' + out)
    # the broadcast dims are summed away: keep them first, then sum them
    full = einsum_op(xs, ','.join(ss) + '->...' + out)
    n_ell = len(full.shape) - len(out)
    return _r.sum_op(full, tuple(range(n_ell)), False) if n_ell else full


# ---- trace -----------------------------------------------------------------------------------

def _diag_positions(n1, n2, offset):
    """Row and column indices of the ``offset`` diagonal of an n1 x n2 plane."""
    r0, c0 = max(-offset, 0), max(offset, 0)
    length = max(0, min(n1 - r0, n2 - c0))
    return np.arange(length) + r0, np.arange(length) + c0


def _trace_axes(ndim, axis1, axis2):
    a1, a2 = meta.normalize_axis(axis1, ndim, 'axis1'), meta.normalize_axis(axis2, ndim, 'axis2')
    if a1 == a2:
        raise OpError("trace: axis1 and axis2 must differ, got %d and %d" % (axis1, axis2))
    return a1, a2


def _trace_meta(x, offset=0, axis1=0, axis2=1):
    shape = meta.shape_of(x)
    if len(shape) < 2:
        raise OpError("trace: x must be at least 2-D, got shape %s" % list(shape))
    a1, a2 = _trace_axes(len(shape), axis1, axis2)
    return Meta([d for i, d in enumerate(shape) if i not in (a1, a2)], meta.dtype_of(x))


@def_op('trace', _trace_meta, save_inputs=False, pattern='opaque')
def trace_op(x, offset=0, axis1=0, axis2=1):
    """Sum of the ``offset`` diagonal of the (axis1, axis2) planes (0 when
    the diagonal is empty)."""
    a1, a2 = _trace_axes(x.ndim, axis1, axis2)
    moved = np.moveaxis(x, (a1, a2), (-2, -1))
    rows, cols = _diag_positions(moved.shape[-2], moved.shape[-1], offset)
    return np.add.reduce(moved[..., rows, cols], -1, dtype=x.dtype)


@trace_op.def_onnx
def _trace_onnx(g, x, offset, axis1, axis2):
    shape = g.meta(x).shape
    a1, a2 = _trace_axes(len(shape), axis1, axis2)
    if shape[a1] < 0 or shape[a2] < 0:
        raise OpError("trace: the sizes of axes %d and %d (x shape %s) must be known to export "
                      "to ONNX" % (a1, a2, list(shape)))
    mask = np.zeros([shape[a] if a in (a1, a2) else 1 for a in range(len(shape))], g.meta(x).dtype)
    rows, cols = _diag_positions(shape[a1], shape[a2], offset)
    plane = np.zeros((shape[a1], shape[a2]), mask.dtype)
    plane[rows, cols] = 1
    mask[...] = plane.reshape(mask.shape) if a1 < a2 else plane.T.reshape(mask.shape)
    return g.reduce('ReduceSum', g.op('Mul', x, g.const(mask)), [a1, a2], False)


def _trace_adjoint_meta(g, x, offset=0, axis1=0, axis2=1):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('trace_adjoint', _trace_adjoint_meta, no_grad_inputs=('x',), save_inputs=False,
        pattern='opaque')
def trace_adjoint_op(g, x, offset=0, axis1=0, axis2=1):
    """A zero tensor of x's shape with ``g`` on the ``offset`` diagonal of
    each (axis1, axis2) plane (the gradient of trace)."""
    shape = np.shape(x)
    out = np.zeros(shape, g.dtype)
    a1, a2 = _trace_axes(len(shape), axis1, axis2)
    view = np.moveaxis(out, (a1, a2), (-2, -1))
    rows, cols = _diag_positions(view.shape[-2], view.shape[-1], offset)
    view[..., rows, cols] = np.asarray(g)[..., None]
    return out


@trace_op.def_grad
def _trace_grad(g, x, out, offset, axis1, axis2):
    return trace_adjoint_op(g, x, offset, axis1, axis2)


@trace_op.def_fast_grad
def _trace_fast(g, x, out, offset, axis1, axis2):
    return trace_adjoint_op.kernel(g, x, offset, axis1, axis2)


@trace_adjoint_op.def_grad
def _trace_adjoint_grad(gg, g, x, out, offset, axis1, axis2):
    return trace_op(gg, offset, axis1, axis2), None


@trace_adjoint_op.def_fast_grad
def _trace_adjoint_fast(gg, g, x, out, offset, axis1, axis2):
    return trace_op.kernel(gg, offset, axis1, axis2), None


# ---- test cases -----------------------------------------------------------------------------------

_rng = np.random.default_rng(61)
_randn = _rng.standard_normal


def _einsum_ref(operands, equation):
    """Explicit loops over every label assignment (ellipsis-free equations)."""
    subs, out = _parse(equation)
    sizes = {}
    for s, x in zip(subs, operands):
        for ch, d in zip(s, x.shape):
            sizes[ch] = d
    labels = sorted(sizes)
    res = np.zeros([sizes[ch] for ch in out], np.result_type(*operands))
    for vals in itertools.product(*[range(sizes[ch]) for ch in labels]):
        env = dict(zip(labels, vals))
        term = 1
        for s, x in zip(subs, operands):
            term = term * x[tuple(env[ch] for ch in s)]
        res[tuple(env[ch] for ch in out)] += term
    return res


add_test_case(einsum_op, [_randn((2, 3)), _randn((3, 4))], 'ij,jk->ik', ref=_einsum_ref)
add_test_case(einsum_op, [_randn((2, 3)), _randn((2, 3)), _randn(3)], 'ij,ij,j->i', ref=_einsum_ref)
add_test_case(einsum_op, [_randn((3, 2)), _randn(4)], 'ij,k->kji', ref=_einsum_ref)
add_test_case(einsum_op, [_randn(3), _randn(3)], 'i,i->', ref=_einsum_ref)
add_test_case(einsum_op, [_randn((0, 3)), _randn((3, 2))], 'ij,jk->ik', ref=lambda xs, e: np.zeros((0, 2)))
add_test_case(einsum_op, [_randn((2, 1, 3)), _randn((4, 3))], '...j,kj->...k',
              ref=lambda xs, e: np.einsum('...j,kj->...k', *xs))
add_test_case(einsum_op, [_randn((2, 3, 4)).astype(np.float32), _randn((2, 4, 5)).astype(np.float32)],
              'bij,bjk->bik', ref=lambda xs, e: np.matmul(*xs), grad=False, rtol=1e-5)
add_test_case(einsum_op, [_rng.integers(-3, 4, (2, 3)), _rng.integers(-3, 4, (3,))],
              'ij,j->i', ref=_einsum_ref)
add_test_case(trace_op, _randn((3, 4)), 0, 0, 1, ref=lambda x, o, a, b: np.asarray(np.trace(x)))
add_test_case(trace_op, _randn((3, 4)), 1, 0, 1, ref=lambda x, o, a, b: np.asarray(np.trace(x, 1)))
add_test_case(trace_op, _randn((3, 4)), -2, 0, 1, ref=lambda x, o, a, b: np.asarray(np.trace(x, -2)))
add_test_case(trace_op, _randn((3, 4)), 5, 0, 1, ref=lambda x, o, a, b: np.asarray(0.0))
add_test_case(trace_op, _randn((2, 3, 4)), 0, -1, 0,
              ref=lambda x, o, a, b: np.trace(x, 0, 2, 0))
add_test_case(trace_op, np.array([[1, 2], [3, 4]], np.int32), 0, 0, 1,
              ref=lambda x, o, a, b: np.asarray(5, np.int32))
add_test_case(trace_op, np.zeros((0, 3)), 0, 0, 1, ref=lambda x, o, a, b: np.asarray(0.0))
add_test_case(trace_adjoint_op, _randn(2), np.zeros((2, 3, 3)), 1, 1, 2,
              ref=lambda g, x, o, a, b: np.stack([np.diag([v, v], 1) for v in g]))


# ---- public API -----------------------------------------------------------------------------------

def trace(x, offset=0, axis1=0, axis2=1, name=None):
    """Sum of the ``offset`` diagonal (0: main, > 0 above, < 0 below) of the
    planes spanned by ``axis1`` and ``axis2``.

    >>> import framework as paddle
    >>> paddle.trace(paddle.to_tensor([[1, 2], [3, 4]])).item()
    5
    """
    return trace_op(x, int(offset), int(axis1), int(axis2))


def _tensordot_axes(x, y, axes):
    """(axes of x, axes of y) from Paddle's forms of ``axes``."""
    if hasattr(axes, 'tolist') and not isinstance(axes, (list, tuple)):
        axes = axes.tolist()
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        if axes < 0:
            raise OpError("tensordot: axes should not be negative, got %d" % axes)
        nx = len(x.shape)
        return list(range(nx - axes, nx)), list(range(axes))
    axes = list(axes)
    if not axes or isinstance(axes[0], (int, np.integer)):
        ax, ay = axes, []
    else:
        ax = axes[0]
        ay = axes[1] if len(axes) > 1 else []
    ax = ax.tolist() if hasattr(ax, 'tolist') else list(ax)
    ay = ay.tolist() if hasattr(ay, 'tolist') else list(ay)
    if len(ax) < len(ay):
        ax = ax + ay[len(ax):]
    elif len(ay) < len(ax):
        ay = ay + ax[len(ay):]
    return ([meta.normalize_axis(int(a), len(x.shape)) for a in ax],
            [meta.normalize_axis(int(a), len(y.shape)) for a in ay])


def tensordot(x, y, axes=2, name=None):
    """Contract ``x`` and ``y`` over the given axes: an int n (the last n of
    x with the first n of y), one list (the same axes of both), or two lists;
    a contracted dim of size 1 broadcasts (it is summed out of the other).

    >>> import framework as paddle
    >>> paddle.tensordot(paddle.ones([2, 3]), paddle.ones([3, 4]), axes=1).shape
    paddle.Size([2, 4])
    """
    ax, ay = _tensordot_axes(x, y, axes)
    sx, sy = list(x.shape), list(y.shape)
    for a, b in zip(ax, ay):
        if sx[a] == 1 and sy[b] != 1:
            y = _r.sum_op(y, (b,), True)
            sy[b] = 1
        elif sy[b] == 1 and sx[a] != 1:
            x = _r.sum_op(x, (a,), True)
            sx[a] = 1
        elif sx[a] != sy[b]:
            raise OpError("tensordot: x has size %d in dim %d but y has size %d in dim %d"
                          % (sx[a], a, sy[b], b))
    free_x = [d for d in range(len(sx)) if d not in ax]
    free_y = [d for d in range(len(sy)) if d not in ay]
    k = int(np.prod([sx[a] for a in ax])) if ax else 1
    xm = lib.reshape(lib.transpose_op(x, tuple(free_x + ax)), [-1, k])
    ym = lib.reshape(lib.transpose_op(y, tuple(ay + free_y)), [k, -1])
    return lib.reshape(_m.matmul_op(xm, ym, False, False),
                       [sx[d] for d in free_x] + [sy[d] for d in free_y])


def inner(x, y, name=None):
    """Sum of products over the last dims of ``x`` and ``y`` (a 0-D operand
    scales the other); the result has shape ``x.shape[:-1] + y.shape[:-1]``."""
    if not x.shape or not y.shape:
        return _m.multiply_op(x, y)
    if x.shape[-1] != y.shape[-1]:
        raise OpError("inner: the last dims of x (shape %s) and y (shape %s) must match"
                      % (list(x.shape), list(y.shape)))
    return tensordot(x, y, [[len(x.shape) - 1], [len(y.shape) - 1]])


def kron(x, y, name=None):
    """Kronecker product: the blocks ``x[i, j] * y`` laid out in a grid
    (operands of fewer dims get leading 1s)."""
    nd = max(len(x.shape), len(y.shape))
    sx = [1] * (nd - len(x.shape)) + list(x.shape)
    sy = [1] * (nd - len(y.shape)) + list(y.shape)
    xs = lib.reshape(x, [v for d in sx for v in (d, 1)])
    ys = lib.reshape(y, [v for d in sy for v in (1, d)])
    return lib.reshape(_m.multiply_op(xs, ys), [a * b for a, b in zip(sx, sy)])


def mv(x, vec, name=None):
    """Matrix-vector product of a 2-D ``x`` and a 1-D ``vec``."""
    if len(x.shape) != 2 or len(vec.shape) != 1:
        raise OpError("mv: x must be 2-D and vec 1-D, got shapes %s and %s"
                      % (list(x.shape), list(vec.shape)))
    return _m.matmul(x, vec)


def addmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """``beta * input + alpha * (x @ y)`` for 2-D ``x`` and ``y`` (``input``
    broadcasts to the product's shape)."""
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise OpError("addmm: x and y must be 2-D, got shapes %s and %s"
                      % (list(x.shape), list(y.shape)))
    return _scaled_sum(input, _m.matmul(x, y), beta, alpha, 'addmm')


def baddbmm(input, x, y, beta=1.0, alpha=1.0, name=None):  # noqa: A002
    """``beta * input + alpha * bmm(x, y)`` for 3-D ``x`` and ``y``
    (``input`` is 2-D or 3-D and broadcasts to the product's shape)."""
    if len(input.shape) not in (2, 3):
        raise OpError("baddbmm: input must be 2-D or 3-D, got shape %s" % list(input.shape))
    return _scaled_sum(input, _m.bmm(x, y), beta, alpha, 'baddbmm')


def _scaled_sum(input, product, beta, alpha, api):  # noqa: A002
    try:
        meta.broadcast_shapes(input.shape, product.shape)
    except OpError:
        raise OpError("%s: input of shape %s does not broadcast to the product's shape %s"
                      % (api, list(input.shape), list(product.shape))) from None
    if alpha != 1:
        product = product * alpha
    return product + (input if beta == 1 else input * beta)


__all__ = ['einsum', 'trace', 'tensordot', 'inner', 'kron', 'mv', 'addmm', 'baddbmm']
TENSOR_METHODS = {n: globals()[n] for n in __all__ if n != 'einsum'}
INPLACE_METHODS = {'addmm_': 'addmm', 'baddbmm_': 'baddbmm'}
