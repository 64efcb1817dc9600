"""The two matrix ops ``MultivariateNormal`` needs: a batched Cholesky factor
and a batched triangular solve, registered so that they differentiate (to any
order) and run in static mode.

They are private to ``framework.distribution`` (op types
``distribution_cholesky`` / ``distribution_triangular_solve``) until
``framework.linalg`` has its own ``cholesky`` and ``triangular_solve``; then
these should become those.

The Cholesky kernel factors the symmetric part (A + A^T) / 2, so its gradient
is the symmetric matrix Murray's rule gives, and finite differences on single
entries of A agree with it.
"""
import numpy as np

from ..ops import meta
from ..ops.creation import tril_op, triu_op
from ..ops.grad_utils import sum_like
from ..ops.manipulation import transpose_op
from ..ops.math import matmul_op
from ..ops.registry import Meta, OpError, add_test_case, def_op


def _check_square(name, m, api):
    shape = meta.shape_of(m)
    if len(shape) < 2 or (shape[-1] != shape[-2] and -1 not in shape[-2:]):
        raise OpError("%s: %s must be a (batch of) square matrices, got shape %s"
                      % (api, name, list(shape)))
    return shape


_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _check_float(api, name, m):
    d = np.dtype(meta.dtype_of(m))
    if d not in _FLOATS:
        raise OpError("%s: %s must be float32 or float64, got %s" % (api, name, d))
    return d


def _cholesky_meta(x):
    _check_square('x', x, 'cholesky')
    _check_float('cholesky', 'x', x)
    return meta.unchanged(x)


def _first_failure(sym):
    for i, m in enumerate(sym.reshape((-1,) + sym.shape[-2:])):
        try:
            np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            return i
    return 0


@def_op('distribution_cholesky', _cholesky_meta, inputs=('x',), attrs={}, pattern='opaque')
def cholesky_op(x):
    """The lower Cholesky factor L (L L^T = x) of each matrix in the last two dims."""
    if x.dtype not in _FLOATS:
        _cholesky_meta(x)       # raises the clear error (numpy's linalg has no half precision)
    sym = 0.5 * (x + np.swapaxes(x, -1, -2))
    try:
        return np.linalg.cholesky(sym)
    except np.linalg.LinAlgError:
        raise OpError("cholesky: Cholesky decomposition was not successful: matrix %d of "
                      "the input (shape %s) is not positive definite"
                      % (_first_failure(sym), list(x.shape))) from None


def swap_last(x):
    """x with its last two dims exchanged, as an op."""
    nd = len(x.shape)
    return transpose_op(x, tuple(range(nd - 2)) + (nd - 1, nd - 2))


@cholesky_op.def_grad
def _cholesky_grad(g, x, out):
    # A = L L^T: dL = L Phi(L^-1 dA L^-T) with Phi = lower triangle, halved
    # diagonal; the adjoint is A_bar = L^-T Phi(L^T L_bar) L^-1 (Murray 2016),
    # symmetrised because A is.
    m = matmul_op(out, g, True, False)
    phi = 0.5 * (tril_op(m, 0) + tril_op(m, -1))
    left = triangular_solve_op(out, phi, False, True, False)            # L^-T Phi
    a_bar = swap_last(triangular_solve_op(out, swap_last(left), False, True, False))
    return 0.5 * (a_bar + swap_last(a_bar))


def _solve_meta(x, y, upper, transpose, unitriangular):
    xs = _check_square('x', x, 'triangular_solve')
    ys = meta.shape_of(y)
    if len(ys) < 2:
        raise OpError("triangular_solve: y must have at least 2 dims, got shape %s" % list(ys))
    if xs[-1] != ys[-2] and xs[-1] != -1 and ys[-2] != -1:
        raise OpError("triangular_solve: x of shape %s cannot solve y of shape %s (x's "
                      "last dim must equal y's second-to-last)" % (list(xs), list(ys)))
    _check_float('triangular_solve', 'x', x)
    _check_float('triangular_solve', 'y', y)
    batch = meta.broadcast_shapes(xs[:-2], ys[:-2], 'triangular_solve: batch dims of x and y')
    return Meta(tuple(batch) + tuple(ys[-2:]), meta.result_dtype(x, y))


def _triangle(x, upper, unitriangular):
    a = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        a = a.copy()
        idx = np.arange(a.shape[-1])
        a[..., idx, idx] = 1.0
    return a


@def_op('distribution_triangular_solve', _solve_meta, inputs=('x', 'y'),
        attrs={'upper': True, 'transpose': False, 'unitriangular': False}, pattern='opaque')
def triangular_solve_op(x, y, upper=True, transpose=False, unitriangular=False):
    """Solves op(A) out = y, A the upper (or lower) triangle of x (unit diagonal
    when ``unitriangular``), op(A) = A^T when ``transpose``."""
    if x.dtype not in _FLOATS or y.dtype not in _FLOATS:
        _solve_meta(x, y, upper, transpose, unitriangular)     # raises the clear error
    a = _triangle(x, upper, unitriangular)
    if transpose:
        a = np.swapaxes(a, -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], y.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(y, batch + y.shape[-2:])
    with np.errstate(all='ignore'):   # a zero on the diagonal gives inf/nan, as LAPACK's trtrs
        try:
            return np.linalg.solve(a, b).astype(np.result_type(x, y), copy=False)
        except np.linalg.LinAlgError:
            return _substitute(a, b, lower=upper == transpose)


def _substitute(a, b, lower):
    """Forward (or back) substitution, for triangles with a zero on the diagonal
    (np.linalg.solve refuses them; the result holds inf/nan as LAPACK's trtrs)."""
    out = np.zeros(b.shape, np.result_type(a, b))
    n = a.shape[-1]
    for i in (range(n) if lower else range(n - 1, -1, -1)):
        known = slice(0, i) if lower else slice(i + 1, n)
        rest = (a[..., i, known, None] * out[..., known, :]).sum(-2)
        out[..., i, :] = (b[..., i, :] - rest) / a[..., i, i, None]
    return out


@triangular_solve_op.def_grad
def _triangular_solve_grad(g, x, y, out, upper, transpose, unitriangular):
    gy = triangular_solve_op(x, g, upper, not transpose, unitriangular)
    # op(A) out = y: d op(A) = -gy out^T
    ga = -matmul_op(out, gy, False, True) if transpose else -matmul_op(gy, out, False, True)
    k = 1 if unitriangular else 0
    ga = triu_op(ga, k) if upper else tril_op(ga, -k)
    return sum_like(ga, x), sum_like(gy, y)


# ---- test cases ---------------------------------------------------------------

_rng = np.random.default_rng(41)


def _spd(*batch, n=3):
    m = _rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def _chol_ref(a):
    """Cholesky-Banachiewicz, one matrix at a time."""
    a = np.asarray(a, np.float64)
    out = np.zeros_like(a)
    for idx in np.ndindex(a.shape[:-2]):
        m, L = a[idx], out[idx]
        for i in range(m.shape[0]):
            for j in range(i + 1):
                s = m[i, j] - sum(L[i, k] * L[j, k] for k in range(j))
                L[i, j] = np.sqrt(s) if i == j else s / L[j, j]
    return out


def _solve_ref(x, y, upper=True, transpose=False, unitriangular=False):
    a = _triangle(x, upper, unitriangular)
    if transpose:
        a = np.swapaxes(a, -1, -2)
    batch = np.broadcast_shapes(a.shape[:-2], y.shape[:-2])
    a = np.broadcast_to(a, batch + a.shape[-2:])
    b = np.broadcast_to(y, batch + y.shape[-2:])
    out = np.empty(b.shape)
    for idx in np.ndindex(batch):
        out[idx] = np.linalg.inv(a[idx]) @ b[idx]
    return out


add_test_case(cholesky_op, _spd(), ref=_chol_ref)
add_test_case(cholesky_op, _spd(2, n=4), ref=_chol_ref)
add_test_case(cholesky_op, np.array([[4.0, -2.0], [-2.0, 5.0]]), ref=_chol_ref)
add_test_case(cholesky_op, np.zeros((0, 2, 2)), ref=lambda a: a.copy())
add_test_case(cholesky_op, _spd(n=2).astype(np.float32),
              ref=lambda a: _chol_ref(a).astype(np.float32), grad=False)
_low = np.tril(_rng.uniform(0.5, 1.5, (3, 3)) * np.sign(_rng.standard_normal((3, 3))))
_low[np.diag_indices(3)] = np.abs(_low[np.diag_indices(3)]) + 1
add_test_case(triangular_solve_op, _low, _rng.standard_normal((3, 2)), False, False, False,
              ref=_solve_ref)
add_test_case(triangular_solve_op, _low.T.copy(), _rng.standard_normal((2, 3, 4)), True, True,
              False, ref=_solve_ref)
add_test_case(triangular_solve_op, np.stack([_low, _low * 0.5 + np.eye(3)]),
              _rng.standard_normal((3, 1)), False, True, True, ref=_solve_ref)
add_test_case(triangular_solve_op, _low + np.triu(_rng.standard_normal((3, 3)), 1),
              _rng.standard_normal((3, 3)), False, False, False, ref=_solve_ref)
add_test_case(triangular_solve_op, _low, np.zeros((3, 0)), False, False, False, ref=_solve_ref)
add_test_case(triangular_solve_op, _low.astype(np.float32),
              _rng.standard_normal((3, 2)).astype(np.float32), False, False, False,
              ref=lambda *a: _solve_ref(*a).astype(np.float32), grad=False)
