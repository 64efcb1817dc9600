"""Paddle's ``paddle.linalg`` functions: argument handling with Paddle's rules and
errors, and the functions that are compositions of registered ops (norms,
condition numbers, pseudo-inverses, ranks, covariances, Householder products,
randomized low-rank SVD ...). The decompositions themselves are the ops of
``ops/linalg.py``. Everything here differentiates through those ops, in both
modes.
"""
import numpy as np

from . import lib
from . import linalg as L
from .complex import complex as make_complex
from .complex import imag, is_complex_dtype, real, real_dtype
from .grad_utils import is_value
from .math import matmul as _math_matmul

_INF = float('inf')


# ---- small helpers -------------------------------------------------------------------------

def _shape(x):
    return list(x.shape)


def _finish(ret, out):
    if out is None:
        return ret
    if isinstance(ret, (tuple, list)):
        for r, o in zip(ret, out):
            lib.assign(r, o)
        return out
    lib.assign(ret, out)
    return out


def _abs_if_complex(x):
    return lib.abs(x) if is_complex_dtype(x.dtype) else x


def _eps(x):
    return float(np.finfo(real_dtype(x.dtype)).eps)


def _need_matrix(api, x):
    if len(x.shape) < 2:
        raise ValueError("%s: x must be a matrix or a batch of matrices (at least 2-D), got "
                         "shape %s" % (api, _shape(x)))


def _need_square(api, x):
    _need_matrix(api, x)
    n1, n2 = x.shape[-2:]
    if n1 != n2 and n1 >= 0 and n2 >= 0:
        raise ValueError("%s: x must be square in its last two dims, got shape %s"
                         % (api, _shape(x)))


# ---- inverses and determinants --------------------------------------------------------------

def inv(x, name=None):
    """The inverse of a square matrix (or of each matrix in a batch).

    >>> import framework as paddle
    >>> paddle.linalg.inv(paddle.to_tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return L.inverse_op(x)


inverse = inv


def det(x, name=None):
    """The determinant of each square matrix."""
    return L.determinant_op(x)


def slogdet(x, name=None):
    """[sign, log|det|] stacked along a new first dim (Paddle's layout)."""
    sign, logabs = L.slogdet_op(x)
    logabs = L._like(logabs, x)
    return lib.stack([sign, logabs], axis=0)


def matrix_power(x, n, name=None):
    """x @ x @ ... (n factors); n = 0 gives the identity, n < 0 powers of inv(x)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError("matrix_power: n must be an int, got %r" % (n,))
    _need_square('matrix_power', x)
    n = int(n)
    if n == 0:
        k = x.shape[-1]
        return x * 0 + L._eye(k, x.dtype)
    if n < 0:
        x, n = L.inverse_op(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else L._mm(result, base)
        n >>= 1
        if n:
            base = L._mm(base, base)
    return result


# ---- solvers --------------------------------------------------------------------------------

def solve(x, y, left=True, name=None, *, out=None):
    """X with x @ X = y (``left``) or X @ x = y. y may be a vector (or a batch of
    vectors matching x's batch dims)."""
    if not left:
        xs, ys = _shape(x), _shape(y)
        if len(ys) < 2 or ys[-1] != xs[-1]:
            raise ValueError("Incompatible shapes of X and Y for the equation Out * X = Y, "
                             "where input X's matrix shape is %s and input Y's matrix shape "
                             "is %s" % (xs[-2:], ys[-2:]))
        return _finish(L._mT(L.solve_op(L._mT(x), L._mT(y))), out)
    xs, ys = _shape(x), _shape(y)
    vector = len(ys) == 1 or (len(ys) == len(xs) - 1 and ys == xs[:-1])
    if vector:
        ret = lib.squeeze(L.solve_op(x, lib.unsqueeze(y, -1)), -1)
    else:
        ret = L.solve_op(x, y)
    return _finish(ret, out)


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """X with op(A) X = y, A the upper (lower) triangle of x, op(A) = A or A^T."""
    return L.triangular_solve_op(x, y, bool(upper), bool(transpose), bool(unitriangular))


def cholesky(x, upper=False, name=None):
    """The Cholesky factor L (A = L L^H) of a Hermitian positive-definite matrix,
    or U (A = U^H U) when ``upper``."""
    return L.cholesky_op(x, bool(upper))


def cholesky_solve(x, y, upper=False, name=None):
    """X with A X = x, where A = y y^H (y lower Cholesky factor) or y^H y (upper)."""
    if upper:
        z = L._lsolve_h(y, x, True)
        return L.triangular_solve_op(y, z, True, False, False)
    z = L.triangular_solve_op(y, x, False, False, False)
    return L._lsolve_h(y, z, False)


def cholesky_inverse(x, upper=False, name=None):
    """The inverse of A from its Cholesky factor: A = x x^H (or x^H x when upper)."""
    if len(x.shape) != 2:
        raise ValueError('The input tensor must be 2-dimensional')
    if x.shape[0] != x.shape[1]:
        raise ValueError('The input tensor must be square matrix')
    a = L._mm(L._mH(x), x) if upper else L._mm(x, L._mH(x))
    return L.inverse_op(a)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """The least-squares solution of x @ X = y: (solution, residuals, rank,
    singular_values) as Paddle's CPU build returns them (driver 'gelsy' by default)."""
    if driver not in (None, 'gels', 'gelss', 'gelsd', 'gelsy'):
        raise ValueError("Only support valid driver is 'gels', 'gelss', 'gelsd', 'gelsy' or "
                         "None for CPU inputs. But got %s" % (driver,))
    driver = 'gelsy' if driver is None else driver
    dx, dy = np.dtype(x.dtype), np.dtype(y.dtype)
    if dx != dy or dx not in (np.float32, np.float64):
        raise ValueError("Only support x and y have the same dtype such as 'float32' and "
                         "'float64'.")
    if len(x.shape) < 2:
        raise ValueError("The shape of x should be (*, M, N), but received ndim is [%d < 2]"
                         % len(x.shape))
    if len(y.shape) < 2:
        raise ValueError("The shape of y should be (*, M, K), but received ndim is [%d < 2]"
                         % len(y.shape))
    if x.shape[-2] != y.shape[-2]:
        raise ValueError("x with shape (*, M = %d, N) and y with shape (*, M = %d, K) should "
                         "have same M." % (x.shape[-2], y.shape[-2]))
    if rcond is None:
        rcond = (1e-7 if dx == np.float32 else 1e-15) * max(x.shape[-2], x.shape[-1])
    return L.lstsq_op(x, y, float(rcond), driver)


# ---- decompositions -------------------------------------------------------------------------

def qr(x, mode='reduced', name=None):
    """(Q, R) with x = Q R; mode 'reduced', 'complete', or 'r' (R only)."""
    if mode not in ('reduced', 'complete', 'r'):
        raise ValueError("qr: mode must be 'reduced', 'complete' or 'r', got %r" % (mode,))
    q, r = L.qr_op(x, 'reduced' if mode == 'r' else mode)
    return r if mode == 'r' else (q, r)


def svd(x, full_matrices=False, name=None, *, out=None):
    """(U, S, VH) with x = U diag(S) VH, singular values descending."""
    return _finish(L.svd_op(x, bool(full_matrices)), out)


def svdvals(x, name=None):
    """The singular values, descending."""
    return L.svd_op(x, False)[1]


def eig(x, name=None):
    """Eigenvalues and eigenvectors of general square matrices (complex)."""
    return L.eig_op(x)


def eigvals(x, name=None):
    """Eigenvalues of general square matrices (complex)."""
    return L.eig_op(x)[0]


def eigh(x, UPLO='L', name=None):
    """Ascending eigenvalues and eigenvectors of Hermitian matrices given by
    their lower ('L') or upper ('U') triangle."""
    if UPLO not in ('L', 'U'):
        raise ValueError("UPLO must be L or U. But received UPLO is: %s" % (UPLO,))
    return L.eigh_op(x, UPLO)


def eigvalsh(x, UPLO='L', name=None):
    """Ascending eigenvalues of Hermitian matrices."""
    return eigh(x, UPLO)[0]


def lu(x, pivot=True, get_infos=False, name=None):
    """(LU, pivots[, infos]): packed factors of x = P L U with 1-based pivots."""
    packed, pivots, infos = L.lu_op(x, bool(pivot))
    return (packed, pivots, infos) if get_infos else (packed, pivots)


def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from ``lu``'s packed factors x and pivots y."""
    if len(x.shape) < 2:
        raise ValueError("The shape of x should be (*, M, N), but received ndim is [%d < 2]"
                         % len(x.shape))
    if len(y.shape) < 1:
        raise ValueError("The shape of Pivots should be (*, K), but received ndim is [%d < 1]"
                         % len(y.shape))
    return L.lu_unpack_op(x, y, bool(unpack_ludata), bool(unpack_pivots))


def lu_solve(b, lu, pivots, trans='N', name=None):
    """X with A X = b ('N'), A^T X = b ('T') or A^H X = b ('C') from A's LU factors."""
    if len(b.shape) < 2:
        raise ValueError('`b` dimension must be gather than 2, but got %d' % len(b.shape))
    if len(lu.shape) < 2:
        raise ValueError('`lu` dimension must be gather than 2, but got %d' % len(lu.shape))
    if b.shape[-2] != lu.shape[-2]:
        raise ValueError('the rows of `b` must be equal to the rows of `lu`, but got %d and %d'
                         % (b.shape[-2], lu.shape[-2]))
    if lu.shape[-1] != lu.shape[-2]:
        raise ValueError('`lu` shape[-1] must be equal to `lu` shape[-2], but got %d and %d'
                         % (lu.shape[-1], lu.shape[-2]))
    if trans not in ('N', 'T', 'C'):
        raise ValueError("lu_solve: trans must be 'N', 'T' or 'C', got %r" % (trans,))
    p, l, u = L.lu_unpack_op(lu, pivots, True, True)
    if trans == 'N':   # U^-1 L^-1 P^T b
        z = L.triangular_solve_op(l, L._mm(L._mT(p), b), False, False, True)
        return L.triangular_solve_op(u, z, True, False, False)
    if trans == 'T':   # P L^-T U^-T b
        z = L.triangular_solve_op(u, b, True, True, False)
        return L._mm(p, L.triangular_solve_op(l, z, False, True, True))
    z = L._lsolve_h(u, b, True)
    return L._mm(p, L._lsolve_h(l, z, False, True))


def matrix_exp(x, name=None):
    """The matrix exponential of each square matrix (a 0-D x gives exp(x))."""
    if len(x.shape) == 0:
        return lib.exp(x)
    if len(x.shape) < 2:
        raise ValueError('The input tensor must be at least two-dimensional')
    if x.shape[-1] != x.shape[-2]:
        raise ValueError('Last 2 dimensions of the tensor must be square')
    return L.matrix_exp_op(x)


# ---- products ------------------------------------------------------------------------------

def matrix_transpose(x, name=None):
    """x with its last two dims swapped."""
    if len(x.shape) < 2:
        raise ValueError("matrix_transpose: x must have at least 2 dims, got shape %s"
                         % _shape(x))
    return L._mT(x)


def _chain_order(dims):
    """numpy's dynamic programme for the cheapest parenthesisation of a chain of
    matrices with shapes dims[i] x dims[i+1]: split[i][j] is where (i..j) splits."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = _INF
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def multi_dot(x, name=None):
    """The product of a chain of matrices in the cheapest order; the first may be
    a row vector and the last a column vector (1-D)."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError("multi_dot: the number of input tensors should be > 1, got %d"
                         % (len(x) if isinstance(x, (list, tuple)) else 1))
    mats = list(x)
    d0 = np.dtype(mats[0].dtype)
    for i, t in enumerate(mats):
        if np.dtype(t.dtype) != d0:
            raise TypeError("All the Tensors in the input must have the same data type.")
        nd = len(t.shape)
        if nd not in (1, 2) or (nd == 1 and 0 < i < len(mats) - 1):
            raise ValueError("multi_dot: input %d must be 2-D (the first and last may be "
                             "1-D), got shape %s" % (i, _shape(t)))
    row, col = len(mats[0].shape) == 1, len(mats[-1].shape) == 1
    if row:
        mats[0] = lib.unsqueeze(mats[0], 0)
    if col:
        mats[-1] = lib.unsqueeze(mats[-1], -1)
    for i in range(len(mats) - 1):
        a, b = mats[i].shape[-1], mats[i + 1].shape[-2]
        if a != b and a >= 0 and b >= 0:
            raise ValueError("multi_dot: input %d (shape %s) and input %d (shape %s) cannot be "
                             "multiplied" % (i, _shape(x[i]), i + 1, _shape(x[i + 1])))
    dims = [mats[0].shape[0]] + [t.shape[1] for t in mats]
    if len(mats) > 2 and all(d >= 0 for d in dims):
        split = _chain_order(dims)

        def product(i, j):
            if i == j:
                return mats[i]
            k = split[i][j]
            return L._mm(product(i, k), product(k + 1, j))
        out = product(0, len(mats) - 1)
    else:
        out = mats[0]
        for t in mats[1:]:
            out = L._mm(out, t)
    if row and col:
        return lib.reshape(out, [])
    if row:
        return lib.squeeze(out, 0)
    if col:
        return lib.squeeze(out, -1)
    return out


def vecdot(x, y, axis=-1, name=None):
    """sum(conj(x) * y) along ``axis``."""
    return lib.sum(L._conj(x) * y, axis=axis)


def cross(x, y, axis=9, name=None):
    """The cross product of 3-vectors along ``axis``; the default (9) takes the
    first dim of size 3."""
    shape = _shape(x)
    if _shape(y) != shape:
        raise ValueError("cross: the shape of x %s should be equal to the shape of y %s"
                         % (shape, _shape(y)))
    if axis == 9 and len(shape) <= 9:
        sizes = [i for i, d in enumerate(shape) if d == 3]
        if not sizes:
            raise ValueError("cross: no dim of x (shape %s) has size 3" % shape)
        axis = sizes[0]
    nd = len(shape)
    if not -nd <= axis < nd:
        raise ValueError("cross: axis %d is out of range for shape %s" % (axis, shape))
    if shape[axis] != 3:
        raise ValueError("cross: the size of axis %d of x (shape %s) must be 3"
                         % (axis, shape))
    return L.cross_op(x, y, int(axis) % nd)


def diagonal(x, offset=0, axis1=0, axis2=1, name=None):
    """The diagonal of the (axis1, axis2) planes, as the last dim."""
    return L.diagonal_op(x, int(offset), int(axis1), int(axis2))


# ---- norms -------------------------------------------------------------------------------------

def _axes_list(axis):
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    return axis


def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None, *, dtype=None, out=None):
    """The vector p-norm over ``axis`` (None: all elements): p = inf/-inf the
    largest/smallest |x|, 0 the number of non-zeros, else (sum |x|^p)^(1/p)."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise ValueError("only valid p type is int and float, found %s" % type(p))
    if dtype is not None:
        x = lib.cast(x, dtype)
    axis = _axes_list(axis)
    nd = len(x.shape)
    if axis is None:
        axes = None
    elif isinstance(axis, list):
        axes = tuple(sorted(int(a) % max(nd, 1) for a in axis))
    else:
        if not -max(nd, 1) <= axis < max(nd, 1):
            raise ValueError("vector_norm: axis %d is out of range for a %d-D tensor"
                             % (axis, nd))
        axes = (int(axis) % max(nd, 1),)
    return _finish(L.p_norm_op(_abs_if_complex(x), float(p), axes, bool(keepdim)), out)


def _backshift(axis, nd):
    a0, a1 = axis[0] % nd, axis[1] % nd
    perm = [i for i in range(nd) if i not in (a0, a1)] + [a0, a1]
    inverse = [perm.index(i) for i in range(nd)]
    return perm, inverse


def _svd_values_norm(x, axis, keepdim, reduce):
    """reduce(singular values of the (axis[0], axis[1]) planes), keepdim putting
    size-1 dims back where the two axes were."""
    nd = len(x.shape)
    perm, inverse = _backshift(axis, nd)
    s = svdvals(lib.transpose(x, perm))
    res = reduce(s, axis=-1, keepdim=keepdim)
    if keepdim:
        res = lib.transpose(lib.unsqueeze(res, -1), inverse)
    return res


def matrix_norm(x, p='fro', axis=[-2, -1], keepdim=False, name=None):  # noqa: B006 (Paddle's)
    """Matrix norms over the two dims in ``axis``: 'fro', 'nuc' (sum of singular
    values), 1/-1 (max/min column sum), inf/-inf (max/min row sum), 2/-2
    (largest/smallest singular value)."""
    if isinstance(axis, tuple):
        axis = list(axis)
    if not isinstance(axis, list) or len(axis) != 2:
        raise ValueError("except axis type int or list (length of list == 2), found %s"
                         % (len(axis) if isinstance(axis, list) else type(axis).__name__))
    nd = len(x.shape)
    axis = [int(a) for a in axis]
    if p == 'fro':
        return L.p_norm_op(_abs_if_complex(x), 2.0, tuple(sorted(a % nd for a in axis)),
                           bool(keepdim))
    if p == 'nuc':
        return _svd_values_norm(x, axis, keepdim, lib.sum)
    if p in (2, -2):
        return _svd_values_norm(x, axis, keepdim, lib.max if p > 0 else lib.min)
    if p in (1, -1, _INF, -_INF):
        dim0, dim1 = (a % nd for a in axis)
        if abs(p) == _INF:
            dim0, dim1 = dim1, dim0
        if not keepdim and dim0 < dim1:
            dim1 -= 1
        sums = vector_norm(x, 1.0, axis=dim0, keepdim=keepdim)
        return (lib.max if p > 0 else lib.min)(sums, axis=dim1, keepdim=keepdim)
    raise ValueError("just support p value 'fro','nuc',1,-1,inf,-inf,2,-2 if axis is 2D, "
                     "found %s" % (p,))


def norm(x, p=None, axis=None, keepdim=False, out=None, dtype=None, name=None):
    """Vector or matrix norms, chosen as Paddle chooses: an int axis (or None with
    a number p) gives a vector norm, a pair of axes a matrix norm.

    >>> import framework as paddle
    >>> float(paddle.linalg.norm(paddle.to_tensor([3.0, 4.0])))
    5.0
    """
    axis = _axes_list(axis)
    if dtype is not None:
        x = lib.cast(x, dtype)
    if isinstance(p, str):
        if p == 'fro' and (axis is None or isinstance(axis, int)):
            ret = vector_norm(x, 2.0, axis, keepdim)
        else:
            if axis is None:
                axis = list(range(len(x.shape)))
            ret = matrix_norm(x, p, axis, keepdim)
    else:
        p = 2.0 if p is None else p
        if isinstance(axis, list) and len(axis) == 2:
            ret = matrix_norm(x, p, axis, keepdim)
        else:
            ret = vector_norm(x, p, axis, keepdim)
    return _finish(ret, out)


def cond(x, p=None, name=None):
    """The condition number ||x|| ||x^-1|| in norm p (None: 2, the ratio of the
    extreme singular values)."""
    shape = _shape(x)
    if len(shape) < 2:
        raise ValueError("input should be a matrix or batches of matrices, but the dimension "
                         "of received input is %d" % len(shape))
    p = 2 if p is None else p
    empty = 0 in shape
    if p in ('fro', 'nuc', 1, -1, _INF, -_INF):
        if shape[-1] != shape[-2]:
            raise ValueError("only support p is %s when input is a square matrix or batches "
                             "of square matrices" % (p,))
        if empty:
            return _empty_norm(x)
        x_inv = L.inverse_op(x)
        if p == 'fro':
            return (matrix_norm(x, 'fro', [-2, -1]) * matrix_norm(x_inv, 'fro', [-2, -1]))
        if p == 'nuc':
            return matrix_norm(x, 'nuc', [-2, -1]) * matrix_norm(x_inv, 'nuc', [-2, -1])
        return matrix_norm(x, p, [-2, -1]) * matrix_norm(x_inv, p, [-2, -1])
    if p in (2, -2):
        if empty:
            return _empty_norm(x)
        s = svdvals(x)
        big, small = lib.max(s, axis=-1), lib.min(s, axis=-1)
        return big / small if p == 2 else small / big
    raise ValueError("unsupported %s for p, only supporting ('fro', 'nuc', 1, -1, 2, -2, inf, "
                     "-inf) or none" % (p,))


def _empty_norm(x):
    return lib.zeros(_shape(x)[:-2], real_dtype(x.dtype))


# ---- rank and pseudo-inverse ----------------------------------------------------------------------

def _as_tensor(v, like):
    if is_value(v):
        return lib.cast(v, real_dtype(like.dtype))
    return lib.full([], float(v), real_dtype(like.dtype))


def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The number of singular values (|eigenvalues| when hermitian) above the
    tolerance: ``tol``; or max(atol, rtol * largest); by default largest *
    max(m, n) * eps (int64, one per matrix)."""
    shape = _shape(x)
    if len(shape) < 2:
        raise ValueError("matrix_rank: the dims of x must be at least 2, got shape %s" % shape)
    m, n = shape[-2:]
    if hermitian and m != n:
        raise ValueError("matrix_rank: if hermitian == true, x must be square, got shape %s"
                         % shape)
    if (atol is not None or rtol is not None) and tol is not None:
        raise ValueError("Only support to use tol alone or use atol and rtol without tol.")
    s = lib.abs(eigvalsh(x)) if hermitian else svdvals(x)
    k = s.shape[-1]
    if k == 0:
        return lib.zeros(shape[:-2], 'int64')
    big = lib.max(s, axis=-1)
    scale = float(max(m, n)) * _eps(x)
    if atol is not None or rtol is not None:
        a = _as_tensor(0.0 if atol is None else atol, x)
        if rtol is None:
            r = lib.where(a > 0, a * 0.0, a * 0.0 + scale)
        else:
            r = _as_tensor(rtol, x)
        limit = lib.maximum(a, r * big)
    elif tol is None:
        limit = big * scale
    else:
        limit = _as_tensor(tol, x)
    above = lib.greater_than(s, lib.unsqueeze(limit, -1))
    return lib.sum(above, axis=-1)


def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The Moore-Penrose pseudo-inverse, dropping singular values at most rcond
    times the largest (|eigenvalues| with ``hermitian``)."""
    rc = float(rcond.item()) if hasattr(rcond, 'item') else float(rcond)
    if hermitian:
        if 0 in _shape(x):
            return L._mT(x)
        s, u = L.eigh_op(x, 'L')
        mag = lib.abs(s)
    else:
        u, s, vh = L.svd_op(x, False)
        mag = s
    if s.shape[-1] == 0:
        return L._mT(x) if not hermitian else x
    cutoff = lib.max(mag, axis=-1, keepdim=True) * rc
    keep = mag > cutoff
    # 1/s only where it is kept, so no inf (or NaN gradient) comes from dropped values
    safe = lib.where(keep, s, s * 0.0 + 1.0)
    inv_s = lib.where(keep, 1.0 / safe, s * 0.0)
    inv_s = L._like(inv_s, x)
    if hermitian:
        return L._mm(u * lib.unsqueeze(inv_s, -2), L._mH(u))
    return L._mm(L._mH(vh) * lib.unsqueeze(inv_s, -2), L._mH(u))


# ---- statistics --------------------------------------------------------------------------

def _values(t):
    """The numpy value of an eager tensor, None for a static variable."""
    data = getattr(t, 'data', None)
    return data if isinstance(data, np.ndarray) else None


def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance matrix of the variables in x's rows (columns when not rowvar),
    with optional integer frequency and real observation weights."""
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in cov, but received "
                         "length of Input(input) is %d." % len(x.shape))
    nx = lib.reshape(x, [1, -1]) if len(x.shape) == 1 else x
    if not rowvar and nx.shape[0] != 1:
        nx = L._mT(nx)
    n_obs = nx.shape[1]
    w = None
    if fweights is not None:
        w = lib.cast(fweights, nx.dtype)
        _check_weights('fweights', fweights, n_obs, integer=True)
    if aweights is not None:
        aw = lib.cast(aweights, nx.dtype)
        _check_weights('aweights', aweights, n_obs, integer=False)
        w = aw if w is None else w * aw
    if w is not None:
        w_sum = lib.sum(w)
        v = _values(w_sum)
        if v is not None and float(v) == 0:
            raise ValueError("The sum of weights is zero, can't be normalized.")
        nx_w = nx * w
        avg = lib.sum(nx_w, axis=1) / w_sum
    else:
        w_sum = float(n_obs)
        avg = lib.sum(nx, axis=1) / w_sum
        nx_w = nx
    if w is not None and aweights is not None and ddof:
        factor = w_sum - lib.sum(w * lib.cast(aweights, w.dtype)) / w_sum
    else:
        factor = w_sum - float(bool(ddof))
    if isinstance(factor, float):
        factor = max(factor, 0.0)
    else:
        factor = lib.clip(factor, min=0)
    centred = nx - lib.unsqueeze(avg, 1)
    xxt = L._mm(centred, L._mH(nx_w))
    return lib.squeeze(xxt / factor)


def _check_weights(which, wt, n_obs, integer):
    if len(wt.shape) > 1:
        raise ValueError("Input(%s) only support N-D (N<=1) tensor in cov, but received shape "
                         "of Input(input) is %d." % (which, len(wt.shape)))
    if wt.shape[0] != n_obs:
        raise ValueError("The number of Input(%s) should equal to x's dim[1]: %d, but received "
                         "size of Input(%s) is %d." % (which, n_obs, which, wt.shape[0]))
    v = _values(wt)
    if v is None:
        return
    if v.size and v.min() < 0:
        raise ValueError("The value of Input(%s) cannot be negative, but received min of "
                         "Input(%s) is %s." % (which, which, v.min()))
    if integer and not np.all(v == np.round(v.astype(np.float64))):
        raise ValueError("Input(fweights) must be integer ")


def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of the variables (rows, or columns when
    not rowvar), clipped to [-1, 1]."""
    if len(x.shape) > 2 or len(x.shape) < 1:
        raise ValueError("Input(x) only support N-D (1<=N<=2) tensor in corrcoef, but received "
                         "length of Input(input) is %d." % len(x.shape))
    c = cov(x, rowvar)
    if len(c.shape) == 0:
        return c / c
    d = L.diagonal_op(c, 0, 0, 1)
    if is_complex_dtype(d.dtype):
        d = real(d)
    std = lib.sqrt(d)
    c = c / lib.unsqueeze(std, 1)
    c = c / lib.unsqueeze(std, 0)
    if is_complex_dtype(c.dtype):
        return make_complex(lib.clip(real(c), -1, 1), lib.clip(imag(c), -1, 1))
    return lib.clip(c, -1, 1)


# ---- Householder reflectors --------------------------------------------------------------------

def householder_product(x, tau, name=None):
    """The first n columns of Q = H_1 H_2 ... H_k, H_i = I - tau_i v_i v_i^H with
    v_i the i-th column of x below the diagonal and 1 on it (LAPACK's orgqr)."""
    xs, ts = _shape(x), _shape(tau)
    if np.dtype(x.dtype) != np.dtype(tau.dtype):
        raise ValueError("The input x must have the same dtype with input tau.")
    if len(xs) < 2 or len(ts) < 1 or len(xs) != len(ts) + 1:
        raise ValueError("The input x must have more than 2 dimensions, and input tau must have "
                         "more than 1 dimension, and the dimension of x is 1 larger than the "
                         "dimension of tau (got shapes %s and %s)" % (xs, ts))
    m, n = xs[-2:]
    if m < n:
        raise ValueError("The rows of input x must be greater than or equal to the columns of "
                         "input x (got shape %s)" % xs)
    if n < ts[-1]:
        raise ValueError("The last dim of x must be greater than tau (got shapes %s and %s)"
                         % (xs, ts))
    if xs[:-2] != ts[:-1]:
        raise ValueError("The input x must have the same batch dimensions with input tau (got "
                         "shapes %s and %s)" % (xs, ts))
    q = lib.expand(L._eye(m, x.dtype), xs[:-2] + [m, m]) if xs[:-2] else L._eye(m, x.dtype)
    for i in range(min(ts[-1], n)):
        col = x[..., :, i]
        head = col[..., :i] * 0
        one = col[..., i:i + 1] * 0 + 1
        v = lib.concat([head, one, col[..., i + 1:]], axis=-1)
        outer = lib.unsqueeze(v, -1) * lib.unsqueeze(L._conj(v), -2)
        t = lib.unsqueeze(lib.unsqueeze(tau[..., i], -1), -1)
        q = q - L._mm(q, outer) * t
    return q[..., :, :n]


def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """Q @ y (or y @ Q; Q^T with ``transpose``) for the Q of ``householder_product``."""
    if not (np.dtype(x.dtype) == np.dtype(tau.dtype) == np.dtype(y.dtype)):
        raise ValueError("The input tau and y must have the same dtype with the x.")
    xs, ys, ts = _shape(x), _shape(y), _shape(tau)
    if len(xs) < 2 or len(ys) < 2 or len(ts) < 1 or len(xs) != len(ts) + 1 or \
            len(xs) != len(ys):
        raise ValueError("ormqr: x and y must have at least 2 dims, tau one less than x, and x "
                         "and y the same number of dims (got shapes %s, %s, %s)"
                         % (xs, ts, ys))
    if xs[-1] != ts[-1]:
        raise ValueError("The innermost dimension of x and tau should be the same")
    # Q is m x n (m >= n): Q^T y needs m rows, Q y n rows, y Q m columns, y Q^T n
    need = {(True, True): (xs[-2], ys[-2]), (True, False): (xs[-1], ys[-2]),
            (False, True): (xs[-1], ys[-1]), (False, False): (xs[-2], ys[-1])}
    a, b = need[(bool(left), bool(transpose))]
    if a != b:
        raise ValueError("ormqr: x (shape %s) and y (shape %s) do not fit for left=%s, "
                         "transpose=%s" % (xs, ys, left, transpose))
    q = householder_product(x, tau)
    if transpose:
        q = L._mT(q)
    return L._mm(q, y) if left else L._mm(y, q)


# ---- randomized low-rank SVD ----------------------------------------------------------------

def _approximate_basis(x, q, niter, m_mat):
    """An orthonormal basis of x's range from a random projection refined by
    ``niter`` power iterations (Halko et al.), as Paddle computes it."""
    n = x.shape[-1]
    rand = lib.randn([n, q], dtype=str(np.dtype(x.dtype)))
    xh = L._mH(x)
    if m_mat is None:
        basis = qr(L._mm(x, rand))[0]
        for _ in range(niter):
            basis = qr(L._mm(xh, basis))[0]
            basis = qr(L._mm(x, basis))[0]
        return basis
    mh = L._mH(m_mat)
    basis = qr(L._mm(x, rand) - L._mm(m_mat, rand))[0]
    for _ in range(niter):
        basis = qr(L._mm(xh, basis) - L._mm(mh, basis))[0]
        basis = qr(L._mm(x, basis) - L._mm(m_mat, basis))[0]
    return basis


def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """An approximate rank-q SVD (U, S, V) of x (or of x - M) by randomized
    subspace iteration. Note V, not V^H, as in Paddle."""
    if not is_value(x):
        raise ValueError('Input must be tensor, but got %s' % type(x))
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif min(m, n) != 0 and not 0 <= q <= min(m, n):
        raise ValueError('q(=%s) must be non-negative integer and not greater than min(m, n)=%d'
                         % (q, min(m, n)))
    if not niter >= 0:
        raise ValueError('niter(=%s) must be non-negative integer' % niter)
    m_t = None
    if M is not None:
        M = lib.broadcast_to(M, _shape(x))
        m_t = L._mT(M)
    x_t = L._mT(x)
    if m < n or n > q:
        basis = _approximate_basis(x_t, q, niter, m_t)
        bc = L._conj(basis)
        b_t = L._mm(x, bc) if M is None else L._mm(x, bc) - L._mm(M, bc)
        u, s, vh = L.svd_op(b_t, False)
        v = L._mm(basis, L._mH(vh))
    else:
        basis = _approximate_basis(x, q, niter, M)
        bc = L._conj(basis)
        b = L._mm(x_t, bc) if M is None else L._mm(x_t, bc) - L._mm(m_t, bc)
        u, s, vh = L.svd_op(L._mT(b), False)
        v = L._mH(vh)
        u = L._mm(basis, u)
    return u, s, v


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """(U, S, V) of the randomized low-rank SVD of x, centred over its rows first."""
    if not is_value(x):
        raise ValueError('Input must be tensor, but got %s' % type(x))
    m, n = x.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError('q(=%s) must be non-negative integer and not greater than min(m, n)=%d'
                         % (q, min(m, n)))
    if not niter >= 0:
        raise ValueError('niter(=%s) must be non-negative integer' % niter)
    if not center:
        return svd_lowrank(x, q, niter=niter, M=None)
    c = lib.mean(x, axis=-2, keepdim=True)
    return svd_lowrank(x - c, q, niter=niter, M=None)


# ---- GPU-only ---------------------------------------------------------------------------------

def fp8_fp8_half_gemm_fused(x, y, transpose_x=False, transpose_y=False, bias=None, scale=1.0,
                            output_dtype='float16', act='identity', name=None):
    """An FP8 GEMM kernel that exists only in Paddle's CUDA builds; on the CPU, as
    in Paddle's CPU build, the kernel is not registered."""
    raise RuntimeError("(NotFound) The kernel `fp8_fp8_half_gemm_fused` is not registered: "
                       "it needs a CUDA device with FP8 support, and this is a CPU build")


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """``paddle.matmul`` (the same function)."""
    return _math_matmul(x, y, transpose_x, transpose_y)


__all__ = ['cholesky', 'cholesky_inverse', 'cholesky_solve', 'cond', 'corrcoef', 'cov', 'cross',
           'det', 'diagonal', 'eig', 'eigh', 'eigvals', 'eigvalsh', 'fp8_fp8_half_gemm_fused',
           'householder_product', 'inv', 'lstsq', 'lu', 'lu_solve', 'lu_unpack', 'matmul',
           'matrix_exp', 'matrix_norm', 'matrix_power', 'matrix_rank', 'matrix_transpose',
           'multi_dot', 'norm', 'ormqr', 'pca_lowrank', 'pinv', 'qr', 'slogdet', 'solve',
           'svd', 'svd_lowrank', 'svdvals', 'triangular_solve', 'vecdot', 'vector_norm']

# Paddle's Tensor methods among them (Tensor.inverse is linalg.inv)
TENSOR_METHODS = {n: globals()[n] for n in (
    'cholesky', 'cholesky_inverse', 'cholesky_solve', 'cond', 'corrcoef', 'cov', 'cross',
    'diagonal', 'eig', 'eigvals', 'eigvalsh', 'householder_product', 'inverse', 'lstsq', 'lu',
    'lu_unpack', 'matrix_power', 'matrix_transpose', 'multi_dot', 'norm', 'ormqr',
    'pca_lowrank', 'pinv', 'qr', 'slogdet', 'solve', 'svd_lowrank')}
