"""Linear-algebra ops: inverses, determinants, solvers and decompositions.

Every op works on the last two dims of its inputs and batches over the leading
ones. The kernels are numpy's (LAPACK) where numpy has the routine; the LU
factorisation with partial pivoting and the matrix exponential are written
here. Each grad rule is the textbook adjoint, written with registered ops
(matmul, triangular_solve, inverse ...), so grad-of-grad works in both modes:

* inverse   dA = -A^-H g A^-H
* det       dA = g conj(det) A^-H;  slogdet: g_logabsdet A^-H
* solve     dB = A^-H g,  dA = -dB X^H
* cholesky  A^-H-sandwich of the lower part of L^H gL (symmetrised, as Paddle)
* qr        (gQ + Q copyltu(M)) R^-H, M = gR R^H - Q^H gQ (wide inputs split)
* svd/eigh  the usual F-matrix formulas, F_ij = 1/(s_j^2 - s_i^2) (1/(w_j - w_i));
            they are undefined for repeated singular values / eigenvalues
* eig       V^-H (diag(gw) + (V^H gV - V^H V re(diag(V^H gV))) / conj(E)) V^H
* lu        P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H, with the extra terms
            of rectangular inputs
* matrix_exp  the upper-right block of exp([[A^H, g], [0, A^H]])

For complex inputs the conventions of ``ops/complex.py`` apply (the gradient
of a complex-linear map is its adjoint). Paddle's cholesky and eigh read one
triangle but return the symmetric gradient; their test cases say so with
``symmetric=(0,)``.
"""
import numpy as np

from . import lib, meta
from .complex import complex_op, conj_op, imag_op, is_complex_dtype, real_dtype, real_op
from .grad_utils import sum_like
from .registry import Meta, OpError, add_test_case, def_op

_DTYPES = (np.dtype('float32'), np.dtype('float64'), np.dtype('complex64'),
           np.dtype('complex128'))


# ---- meta helpers ------------------------------------------------------------------

def _dtype(op, name, x, allowed=_DTYPES):
    d = np.dtype(meta.dtype_of(x))
    if d not in allowed:
        raise OpError("%s: %s must be %s, got %s" % (
            op, name, ', '.join(str(a) for a in allowed), d))
    return d


def _matrix_shape(op, name, x, square=False):
    """The shape of a (batch of) matrices, checked: at least 2-D, square if asked."""
    shape = list(meta.shape_of(x))
    if len(shape) < 2:
        raise OpError("%s: %s must be a matrix or a batch of matrices (at least 2-D), got "
                      "shape %s" % (op, name, shape))
    if square and shape[-1] != shape[-2] and -1 not in shape[-2:]:
        raise OpError("%s: %s must be square in its last two dims, got shape %s"
                      % (op, name, shape))
    return shape


def _same_dtype(op, x, y):
    dx, dy = np.dtype(meta.dtype_of(x)), np.dtype(meta.dtype_of(y))
    if dx != dy:
        raise OpError("%s: x and y must have the same dtype, got %s and %s" % (op, dx, dy))
    return dx


def _known(*dims):
    return all(d >= 0 for d in dims)


# ---- grad helpers (registered ops only) ----------------------------------------------

def _mT(x):
    """Swap the last two dims."""
    nd = len(x.shape)
    perm = tuple(range(nd - 2)) + (nd - 1, nd - 2)
    return lib.transpose_op(x, perm)


def _conj(x):
    return conj_op(x) if is_complex_dtype(x.dtype) else x


def _mH(x):
    return _mT(_conj(x))


def _mm(a, b):
    return lib.matmul_op(a, b, False, False)


def _unsq(x, axis):
    return lib.unsqueeze_op(x, (axis,))


def _eye(n, dtype):
    if n < 0:
        raise OpError("this gradient needs the matrix size, which is unknown here")
    return lib.eye_op(n, n, str(np.dtype(dtype)))


def _tril(x, k=0):
    return lib.tril_op(x, k)


def _triu(x, k=0):
    return lib.triu_op(x, k)


def _real_if(g, x):
    """The gradient of a real input is the real part of a complex-valued one."""
    if is_complex_dtype(g.dtype) and not is_complex_dtype(x.dtype):
        return real_op(g)
    return g


def _like(v, x):
    """A real v in the (complex) dtype of x; unchanged when x is real."""
    if is_complex_dtype(x.dtype) and not is_complex_dtype(v.dtype):
        return complex_op(v, v * 0.0)
    return v


def _lsolve_h(L, B, upper, unit=False):
    """L^-H B for a triangular L: conj(L^-T conj(B))."""
    return _conj(triangular_solve_op(L, _conj(B), upper, True, unit))


def _rsolve_h(B, R, upper, unit=False):
    """B R^-H for a triangular R: (R^-1 B^H)^H."""
    return _mH(triangular_solve_op(R, _mH(B), upper, False, unit))


def _rsolve(B, L, upper, unit=False):
    """B L^-1 for a triangular L: (L^-T B^T)^T."""
    return _mT(triangular_solve_op(L, _mT(B), upper, True, unit))


def _off_diagonal_inverse(E):
    """1 / E off the diagonal and 0 on it (E has a zero diagonal)."""
    n = E.shape[-1]
    eye = _eye(n, E.dtype)
    return 1.0 / (E + eye) - eye


def _real_diagonal(m):
    """The matrix holding the real parts of m's diagonal (0 elsewhere)."""
    d = real_op(diagonal_op(m, 0, -2, -1))
    return _eye(m.shape[-1], m.dtype) * _unsq(_like(d, m), -2)


def _pairwise_gaps(v):
    """E_ij = v_j - v_i."""
    return _unsq(v, -2) - _unsq(v, -1)


def _lapack_error(op, exc, what):
    return OpError("%s: %s (%s)" % (op, what, exc))


# ---- inverse ------------------------------------------------------------------------

def _inverse_meta(x):
    d = _dtype('inverse', 'x', x)
    return Meta(_matrix_shape('inverse', 'x', x, square=True), d)


@def_op('inverse', _inverse_meta, pattern='opaque')
def inverse_op(x):
    """The inverse of each square matrix; a singular one raises."""
    _inverse_meta(x)
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError as e:
        raise _lapack_error('inverse', e, 'the input is not invertible (a matrix is '
                            'singular)') from None


@inverse_op.def_grad
def _inverse_grad(g, x, out):
    h = _mH(out)
    return -_mm(_mm(h, g), h)


@inverse_op.def_fast_grad
def _inverse_fast(g, x, out):
    h = np.conj(np.swapaxes(out, -1, -2))
    return -(h @ g @ h)


# ---- determinants --------------------------------------------------------------------

def _det_meta(x):
    d = _dtype('det', 'x', x)
    return Meta(_matrix_shape('det', 'x', x, square=True)[:-2], d)


@def_op('determinant', _det_meta, pattern='opaque')
def determinant_op(x):
    _det_meta(x)
    return np.asarray(np.linalg.det(x), x.dtype)


@determinant_op.def_grad
def _det_grad(g, x, out):
    # d det = det tr(A^-1 dA): the gradient is g conj(det) A^-H
    c = _unsq(_unsq(g * _conj(out), -1), -1)
    return c * _mH(inverse_op(x))


def _slogdet_meta(x):
    d = _dtype('slogdet', 'x', x)
    batch = _matrix_shape('slogdet', 'x', x, square=True)[:-2]
    return Meta(batch, d), Meta(batch, real_dtype(d))


@def_op('slogdet', _slogdet_meta, outputs=('sign', 'logabsdet'), nondiff_outputs=('sign',),
        pattern='opaque')
def slogdet_op(x):
    """sign (a unit complex number for complex x) and log|det| of each matrix."""
    _slogdet_meta(x)
    sign, logabs = np.linalg.slogdet(x)
    return np.asarray(sign, x.dtype), np.asarray(logabs, real_dtype(x.dtype))


@slogdet_op.def_grad
def _slogdet_grad(g_sign, g_logabs, x, sign, logabs):
    c = _unsq(_unsq(g_logabs, -1), -1)
    return c * _mH(inverse_op(x))


# ---- solvers ----------------------------------------------------------------------------

def _solve_meta(x, y):
    d = _same_dtype('solve', x, y)
    _dtype('solve', 'x', x)
    xs = _matrix_shape('solve', 'x', x, square=True)
    ys = _matrix_shape('solve', 'y', y)
    if _known(xs[-1], ys[-2]) and xs[-1] != ys[-2]:
        raise OpError("solve: x (shape %s) and y (shape %s) do not fit: x has %d columns, y "
                      "%d rows" % (xs, ys, xs[-1], ys[-2]))
    batch = meta.broadcast_shapes(xs[:-2], ys[:-2], 'solve: the batch dims of x and y')
    return Meta(list(batch) + [xs[-2], ys[-1]], d)


@def_op('solve', _solve_meta, pattern='opaque')
def solve_op(x, y):
    """X with A X = B for each (broadcast) pair of matrices A = x, B = y."""
    _solve_meta(x, y)
    try:
        return np.linalg.solve(x, y)
    except np.linalg.LinAlgError as e:
        raise _lapack_error('solve', e, 'the input is not invertible (a matrix is '
                            'singular)') from None


@solve_op.def_grad
def _solve_grad(g, x, y, out):
    gy = solve_op(_mH(x), g)
    gx = -_mm(gy, _mH(out))
    return sum_like(gx, x), sum_like(gy, y)


def _tri_meta(x, y, upper, transpose, unitriangular):
    d = _same_dtype('triangular_solve', x, y)
    _dtype('triangular_solve', 'x', x)
    xs = _matrix_shape('triangular_solve', 'x', x, square=True)
    ys = _matrix_shape('triangular_solve', 'y', y)
    if _known(xs[-1], ys[-2]) and xs[-1] != ys[-2]:
        raise OpError("triangular_solve: x (shape %s) and y (shape %s) do not fit" % (xs, ys))
    batch = meta.broadcast_shapes(xs[:-2], ys[:-2], 'triangular_solve: the batch dims')
    return Meta(list(batch) + [xs[-2], ys[-1]], d)


def _triangle(x, upper, unitriangular):
    a = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        n = x.shape[-1]
        a = a.copy()
        a[..., np.arange(n), np.arange(n)] = 1
    return a


@def_op('triangular_solve', _tri_meta, pattern='opaque')
def triangular_solve_op(x, y, upper=True, transpose=False, unitriangular=False):
    """X with op(A) X = B, A the upper (or lower) triangle of x, op(A) = A or A^T;
    a unit triangle takes its diagonal to be 1."""
    _tri_meta(x, y, upper, transpose, unitriangular)
    a = _triangle(x, upper, unitriangular)
    if transpose:
        a = np.swapaxes(a, -1, -2)
    try:
        return np.linalg.solve(a, y)
    except np.linalg.LinAlgError as e:
        raise _lapack_error('triangular_solve', e, 'the triangle of x has a zero on its '
                            'diagonal') from None


@triangular_solve_op.def_grad
def _tri_grad(g, x, y, out, upper, transpose, unitriangular):
    gy = _conj(triangular_solve_op(x, _conj(g), upper, not transpose, unitriangular))
    gx = -_mm(gy, _mH(out))
    if transpose:
        gx = _mT(gx)
    k = 1 if unitriangular else 0
    gx = _triu(gx, k) if upper else _tril(gx, -k)
    return sum_like(gx, x), sum_like(gy, y)


# ---- cholesky -------------------------------------------------------------------------------

def _cholesky_meta(x, upper):
    d = _dtype('cholesky', 'x', x)
    return Meta(_matrix_shape('cholesky', 'x', x, square=True), d)


@def_op('cholesky', _cholesky_meta, pattern='opaque')
def cholesky_op(x, upper=False):
    """L with A = L L^H from the lower triangle of A (upper: U with A = U^H U from
    the upper triangle)."""
    _cholesky_meta(x, upper)
    try:
        return np.linalg.cholesky(x, upper=upper)
    except np.linalg.LinAlgError:
        flat = x.reshape((-1,) + x.shape[-2:])
        bad = 0
        for bad, a in enumerate(flat):
            try:
                np.linalg.cholesky(a, upper=upper)
            except np.linalg.LinAlgError:
                break
        raise OpError("cholesky: the decomposition failed: matrix %d of the input (shape %s) "
                      "is not positive definite" % (bad, list(x.shape))) from None


@cholesky_op.def_grad
def _cholesky_grad(g, x, out, upper):
    L = _mH(out) if upper else out
    gL = _mH(g) if upper else g
    # gA = L^-H sym(tril(L^H gL)) L^-1 with the diagonal counted once
    phi = _tril(_mm(_mH(L), gL))
    if is_complex_dtype(x.dtype):   # L's diagonal is real: only its real part moves
        low = _tril(phi, -1)
        mid = 0.5 * (low + _mH(low) + _real_diagonal(phi))
    else:
        mid = 0.5 * (phi + _mT(_tril(phi, -1)))
    return _rsolve(_lsolve_h(L, mid, False), L, False)


# ---- symmetric / general eigenproblems ------------------------------------------------------

def _eigh_meta(x, UPLO):
    d = _dtype('eigh', 'x', x)
    if UPLO not in ('L', 'U'):
        raise OpError("eigh: UPLO must be 'L' or 'U', got %r" % (UPLO,))
    shape = _matrix_shape('eigh', 'x', x, square=True)
    return Meta(shape[:-1], real_dtype(d)), Meta(shape, d)


@def_op('eigh', _eigh_meta, outputs=('eigenvalues', 'eigenvectors'), pattern='opaque')
def eigh_op(x, UPLO='L'):
    """Ascending eigenvalues and orthonormal eigenvectors of the Hermitian
    matrices given by one triangle of x ('L' lower, 'U' upper)."""
    _eigh_meta(x, UPLO)
    w, v = np.linalg.eigh(x, UPLO=UPLO)
    return w.astype(real_dtype(x.dtype), copy=False), v


@eigh_op.def_grad
def _eigh_grad(gw, gv, x, w, v, UPLO):
    vh_gv = _mm(_mH(v), gv)
    skew = (vh_gv - _mH(vh_gv)) * 0.5
    inner = _off_diagonal_inverse(_pairwise_gaps(w)) * skew
    ga = _mm(_mm(v, inner), _mH(v)) + _mm(v * _unsq(gw, -2), _mH(v))
    return ga


def _eig_meta(x):
    d = _dtype('eig', 'x', x)
    shape = _matrix_shape('eig', 'x', x, square=True)
    c = np.dtype(np.result_type(d, np.complex64))
    return Meta(shape[:-1], c), Meta(shape, c)


@def_op('eig', _eig_meta, outputs=('eigenvalues', 'eigenvectors'), pattern='opaque')
def eig_op(x):
    """Eigenvalues and unit-norm eigenvectors (complex) of general square matrices."""
    m = _eig_meta(x)[0]
    try:
        w, v = np.linalg.eig(x)
    except np.linalg.LinAlgError as e:
        raise _lapack_error('eig', e, 'the eigenvalue iteration did not converge') from None
    return w.astype(m.dtype, copy=False), v.astype(m.dtype, copy=False)


@eig_op.def_grad
def _eig_grad(gw, gv, x, w, v):
    n = w.shape[-1]
    vh = _mH(v)
    vh_gv = _mm(vh, gv)
    # eigenvectors have unit norm: remove the part of gv that would change it
    re_diag = _like(real_op(diagonal_op(vh_gv, 0, -2, -1)), v)
    vh_gv = vh_gv - _mm(vh, v) * _unsq(re_diag, -2)
    inner = vh_gv * _conj(_off_diagonal_inverse(_pairwise_gaps(w)))
    inner = inner + _eye(n, v.dtype) * _unsq(gw, -2)
    return _real_if(solve_op(vh, _mm(inner, vh)), x)


# ---- singular value decomposition ------------------------------------------------------------

def _svd_meta(x, full_matrices):
    d = _dtype('svd', 'x', x)
    shape = _matrix_shape('svd', 'x', x)
    m, n = shape[-2:]
    k = min(m, n) if _known(m, n) else -1
    batch = shape[:-2]
    u_cols, v_rows = (m, n) if full_matrices else (k, k)
    return (Meta(batch + [m, u_cols], d), Meta(batch + [k], real_dtype(d)),
            Meta(batch + [v_rows, n], d))


@def_op('svd', _svd_meta, outputs=('u', 's', 'vh'), pattern='opaque')
def svd_op(x, full_matrices=False):
    """U, S (descending) and V^H with A = U diag(S) V^H."""
    _svd_meta(x, full_matrices)
    try:
        u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    except np.linalg.LinAlgError as e:
        raise _lapack_error('svd', e, 'the decomposition did not converge') from None
    return u, s.astype(real_dtype(x.dtype), copy=False), vh


@svd_op.def_grad
def _svd_grad(gu, gs, gvh, x, u, s, vh, full_matrices):
    m, n = x.shape[-2:]
    k = min(m, n)
    if full_matrices and m != n:   # only the first k singular vectors are determined
        u, gu = u[..., :k], gu[..., :k]
        vh, gvh = vh[..., :k, :], gvh[..., :k, :]
    v, gv = _mH(vh), _mH(gvh)
    uh_gu, vh_gv = _mm(_mH(u), gu), _mm(vh, gv)
    f = _off_diagonal_inverse(_pairwise_gaps(s * s))
    j = f * (uh_gu - _mH(uh_gu))
    kk = f * (vh_gv - _mH(vh_gv))
    sc = _like(s, x)
    inner = j * _unsq(sc, -2) + _unsq(sc, -1) * kk + _eye(k, x.dtype) * _unsq(_like(gs, x), -2)
    ga = _mm(_mm(u, inner), vh)
    if is_complex_dtype(x.dtype):
        # the phases of the singular vectors: with V's fixed, U's diagonal rotation
        # is i Im(diag(U^H dA V)) / s
        im = imag_op(diagonal_op(uh_gu, 0, -2, -1)) / s
        ga = ga + _mm(u * _unsq(complex_op(im * 0.0, im), -2), vh)
    if m > k:   # the part of gu outside the column space of U
        ga = ga + _mm((gu - _mm(u, uh_gu)) * _unsq(1.0 / sc, -2), vh)
    if n > k:
        ga = ga + _mm(u, _unsq(1.0 / sc, -1) * _mH(gv - _mm(v, vh_gv)))
    return ga


# ---- QR -----------------------------------------------------------------------------------------

def _qr_meta(x, mode):
    d = _dtype('qr', 'x', x)
    if mode not in ('reduced', 'complete'):
        raise OpError("qr: mode must be 'reduced', 'complete' or 'r', got %r" % (mode,))
    shape = _matrix_shape('qr', 'x', x)
    m, n = shape[-2:]
    k = min(m, n) if _known(m, n) else -1
    batch = shape[:-2]
    if mode == 'complete':
        return Meta(batch + [m, m], d), Meta(batch + [m, n], d)
    return Meta(batch + [m, k], d), Meta(batch + [k, n], d)


@def_op('qr', _qr_meta, outputs=('q', 'r'), pattern='opaque')
def qr_op(x, mode='reduced'):
    """Q with orthonormal columns and upper-triangular R, A = Q R."""
    _qr_meta(x, mode)
    q, r = np.linalg.qr(x, mode=mode)
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _qr_tall_grad(gq, gr, q, r):
    """m >= n with R square: (gQ + Q copyltu(M)) R^-H, M = gR R^H - Q^H gQ."""
    mm = _mm(gr, _mH(r)) - _mm(_mH(q), gq)
    if is_complex_dtype(q.dtype):   # R's diagonal is real (Householder QR)
        n_mat = _triu(mm, 1) + _mH(_triu(mm, 1)) + _real_diagonal(mm)
    else:
        n_mat = _triu(mm) + _mT(_triu(mm, 1))
    return _rsolve_h(gq + _mm(q, n_mat), r, True)


@qr_op.def_grad
def _qr_grad(gq, gr, x, q, r, mode):
    m, n = x.shape[-2:]
    if mode == 'complete' and m > n:
        raise OpError("qr: the gradient is not defined for mode='complete' when x has more "
                      "rows than columns (%d > %d): the extra columns of Q are arbitrary"
                      % (m, n))
    if m >= n:
        return _qr_tall_grad(gq, gr, q, r)
    # A = [X | Y] with X = Q U square: Y = Q V adds to gQ and gives gY = Q gV
    y = x[..., m:]
    gu, gv = gr[..., :m], gr[..., m:]
    gx = _qr_tall_grad(gq + _mm(y, _mH(gv)), gu, q, r[..., :m])
    return lib.concat([gx, _mm(q, gv)], axis=-1)


# ---- LU ------------------------------------------------------------------------------------------

def _lu_meta(x, pivot):
    d = _dtype('lu', 'x', x)
    shape = _matrix_shape('lu', 'x', x)
    m, n = shape[-2:]
    k = min(m, n) if _known(m, n) else -1
    return Meta(shape, d), Meta(shape[:-2] + [k], np.int32), Meta(shape[:-2], np.int32)


def lu_factor(a, pivot=True):
    """Doolittle LU with partial pivoting (LAPACK's getrf result): the packed
    factors, 1-based row interchanges and the 1-based index of the first zero
    pivot (0 when there is none), batched over the leading dims."""
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    lu = a.reshape((-1, m, n)).copy()
    b = lu.shape[0]
    rows = np.arange(b)
    piv = np.tile(np.arange(1, k + 1, dtype=np.int32), (b, 1))
    info = np.zeros(b, np.int32)
    for j in range(k):
        if pivot and m > j:
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
            piv[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
        d = lu[:, j, j]
        zero = d == 0
        info[(info == 0) & zero] = j + 1
        safe = np.where(zero, 1, d)
        lu[:, j + 1:, j] /= safe[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(a.shape), piv.reshape(batch + (k,)), info.reshape(batch)


@def_op('lu', _lu_meta, outputs=('lu', 'pivots', 'infos'), nondiff_outputs=('pivots', 'infos'),
        pattern='opaque')
def lu_op(x, pivot=True):
    """Packed LU factors (unit-lower L below the diagonal, U on and above it),
    LAPACK-style 1-based pivots and per-matrix info."""
    _lu_meta(x, pivot)
    return lu_factor(x, pivot)


@lu_op.def_grad
def _lu_grad(g, g_piv, g_info, x, lu, pivots, infos, pivot):
    m, n = x.shape[-2:]
    k = min(m, n)
    p, l, u = lu_unpack_op(lu, pivots, True, True)
    gl = _tril(g, -1)[..., :, :k]
    gu = _triu(g)[..., :k, :]
    if m == n:
        phi = _tril(_mm(_mH(l), gl), -1) + _triu(_mm(gu, _mH(u)))
        return _mm(p, _rsolve_h(_lsolve_h(l, phi, False, True), u, True))
    if m < n:   # U = [U1 | U2]: U2 = L^-1 P^T A2
        u1, u2, gu1, gu2 = u[..., :k], u[..., k:], gu[..., :k], gu[..., k:]
        phi = _tril(_mm(_mH(l), gl) - _mm(gu2, _mH(u2)), -1) + _triu(_mm(gu1, _mH(u1)))
        left = _rsolve_h(phi, u1, True)
        return _mm(p, _lsolve_h(l, lib.concat([left, gu2], axis=-1), False, True))
    # m > n: L = [L1; L2]: L2 = P2^T A U^-1
    l1, l2, gl1, gl2 = l[..., :k, :], l[..., k:, :], gl[..., :k, :], gl[..., k:, :]
    phi = _tril(_mm(_mH(l1), gl1), -1) + _triu(_mm(gu, _mH(u)) - _mm(_mH(l2), gl2))
    top = _lsolve_h(l1, phi, False, True)
    return _mm(p, _rsolve_h(lib.concat([top, gl2], axis=-2), u, True))


def _lu_unpack_meta(x, y, unpack_ludata, unpack_pivots):
    d = _dtype('lu_unpack', 'x', x)
    shape = _matrix_shape('lu_unpack', 'x', x)
    m, n = shape[-2:]
    k = min(m, n) if _known(m, n) else -1
    ys = list(meta.shape_of(y))
    if not ys or (_known(k, ys[-1]) and ys[-1] != k):
        raise OpError("lu_unpack: the pivots y (shape %s) must have min(m, n) = %d entries "
                      "per matrix of x (shape %s)" % (ys, k, shape))
    batch = shape[:-2]
    empty = Meta([0], d)
    p = Meta(batch + [m, m], d) if unpack_pivots else empty
    if not unpack_ludata:
        return p, empty, empty
    return p, Meta(batch + [m, k], d), Meta(batch + [k, n], d)


def permutation_matrix(pivots, m, dtype):
    """P with A = P L U from LAPACK's 1-based row interchanges."""
    batch = pivots.shape[:-1]
    piv = pivots.reshape(-1, pivots.shape[-1]) - 1
    perm = np.tile(np.arange(m), (piv.shape[0], 1))
    rows = np.arange(piv.shape[0])
    for j in range(piv.shape[1]):
        t = perm[rows, j].copy()
        perm[rows, j] = perm[rows, piv[:, j]]
        perm[rows, piv[:, j]] = t
    # row i of P^T A is row perm[i] of A
    p = np.zeros((piv.shape[0], m, m), dtype)
    p[rows[:, None], perm, np.arange(m)[None, :]] = 1
    return p.reshape(batch + (m, m))


@def_op('lu_unpack', _lu_unpack_meta, outputs=('pmat', 'l', 'u'), nondiff_outputs=('pmat',),
        no_grad_inputs=('y',), pattern='opaque')
def lu_unpack_op(x, y, unpack_ludata=True, unpack_pivots=True):
    """P, L, U from ``lu``'s packed factors x and pivots y (A = P L U)."""
    _lu_unpack_meta(x, y, unpack_ludata, unpack_pivots)
    m, n = x.shape[-2:]
    k = min(m, n)
    empty = np.zeros((0,), x.dtype)
    p = permutation_matrix(np.asarray(y), m, x.dtype) if unpack_pivots else empty
    if not unpack_ludata:
        return p, empty, empty.copy()
    l = np.tril(x, -1)[..., :, :k] + np.eye(m, k, dtype=x.dtype)
    u = np.triu(x)[..., :k, :]
    return p, l, u


@lu_unpack_op.def_grad
def _lu_unpack_grad(gp, gl, gu, x, y, p, l, u, unpack_ludata, unpack_pivots):
    if not unpack_ludata:
        return lib.full_like_op(x, 0, None), None
    m, n = x.shape[-2:]
    k = min(m, n)
    nd = len(x.shape)
    lower, upper = _tril(gl, -1), _triu(gu)
    if m > k:
        upper = lib.pad_op(upper, ((0, 0),) * (nd - 2) + ((0, m - k), (0, 0)), 'constant', 0.0)
    if n > k:
        lower = lib.pad_op(lower, ((0, 0),) * (nd - 1) + ((0, n - k),), 'constant', 0.0)
    return lower + upper, None


# ---- least squares ----------------------------------------------------------------------------

_DRIVERS = ('gels', 'gelsy', 'gelsd', 'gelss')


def _lstsq_meta(x, y, rcond, driver):
    d = _same_dtype('lstsq', x, y)
    _dtype('lstsq', 'x', x, _DTYPES[:2])
    if driver not in _DRIVERS:
        raise OpError("lstsq: driver must be one of %s, got %r" % (', '.join(_DRIVERS), driver))
    xs, ys = _matrix_shape('lstsq', 'x', x), _matrix_shape('lstsq', 'y', y)
    if _known(xs[-2], ys[-2]) and xs[-2] != ys[-2]:
        raise OpError("lstsq: x (shape %s) and y (shape %s) must have the same number of rows"
                      % (xs, ys))
    batch = list(meta.broadcast_shapes(xs[:-2], ys[:-2], 'lstsq: the batch dims'))
    m, n, kk = xs[-2], xs[-1], ys[-1]
    k = min(m, n) if _known(m, n) else -1
    res = batch + [kk] if driver != 'gelsy' and m > n else [0]
    if driver != 'gelsy' and -1 in (m, n):
        res = batch + [-1]
    rank = Meta(batch, np.int32) if driver != 'gels' else Meta([0], np.int64)
    sv = batch + [k] if driver in ('gelsd', 'gelss') else [0]
    return Meta(batch + [n, kk], d), Meta(res, d), rank, Meta(sv, d)


@def_op('lstsq', _lstsq_meta, outputs=('solution', 'residuals', 'rank', 'singular_values'),
        nondiff_outputs=('residuals', 'rank', 'singular_values'),
        attr_types={'rcond': 'float|None'}, pattern='opaque')
def lstsq_op(x, y, rcond=None, driver='gelsy'):
    """The least-squares (minimum-norm) solution of A X = B, with Paddle's extra
    outputs: squared residuals (gelsd/gelss, tall full-rank inputs), the
    effective rank (not for gels) and singular values (gelsd/gelss)."""
    m_out = _lstsq_meta(x, y, rcond, driver)
    batch = tuple(m_out[0].shape[:-2])
    m, n = x.shape[-2:]
    xb = np.broadcast_to(x, batch + x.shape[-2:]).reshape((-1, m, n))
    yb = np.broadcast_to(y, batch + y.shape[-2:]).reshape((-1,) + y.shape[-2:])
    sols, resids, ranks, svs = [], [], [], []
    for a, b in zip(xb, yb):
        sol, res, rank, sv = np.linalg.lstsq(a, b, rcond=rcond)
        sols.append(sol)
        resids.append(res if res.size else np.zeros(0, x.dtype))
        ranks.append(rank)
        svs.append(sv)
    kk = y.shape[-1]
    sol = np.stack(sols).reshape(batch + (n, kk)) if sols else np.zeros(batch + (n, kk), x.dtype)
    full = bool(ranks) and all(r == n for r in ranks)
    # gels assumes full rank and always reports residuals of tall systems
    if m > n and (driver == 'gels' or (driver in ('gelsd', 'gelss') and full)):
        res = np.stack(resids).reshape(batch + (kk,))
    else:
        res = np.zeros((0,), x.dtype)
    if driver == 'gels':
        rank = np.zeros((0,), np.int64)
    else:
        rank = np.asarray(ranks, np.int32).reshape(batch)
    if driver in ('gelsd', 'gelss'):
        sv = np.stack(svs).reshape(batch + (min(m, n),)) if svs else \
            np.zeros(batch + (min(m, n),), x.dtype)
    else:
        sv = np.zeros((0,), x.dtype)
    return (sol.astype(x.dtype, copy=False), res.astype(x.dtype, copy=False), rank,
            sv.astype(x.dtype, copy=False))


@lstsq_op.def_grad
def _lstsq_grad(g, g_res, g_rank, g_sv, x, y, sol, res, rank, sv, rcond, driver):
    """The gradient of the full-rank solution: (A^H A)^-1 A^H B for tall x,
    A^H (A A^H)^-1 B for wide x (rank-deficient inputs have none)."""
    m, n = x.shape[-2:]
    xh = _mH(x)
    if m >= n:
        z = solve_op(_mm(xh, x), g)
        gx = _mm(y - _mm(x, sol), _mH(z)) - _mm(_mm(x, z), _mH(sol))
        gy = _mm(x, z)
    else:
        gram = _mm(x, xh)
        yy = solve_op(gram, y)
        w = solve_op(gram, _mm(x, g))
        gx = _mm(yy, _mH(g)) - _mm(_mm(w, _mH(yy)) + _mm(yy, _mH(w)), x)
        gy = w
    return sum_like(gx, x), sum_like(gy, y)


# ---- matrix exponential --------------------------------------------------------------------

_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0,
           1187353796428800.0, 129060195264000.0, 10559470521600.0, 670442572800.0,
           33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm(a):
    """Scaling and squaring with the degree-13 Pade approximant (Higham 2005),
    each matrix of the batch scaled by its own power of two."""
    n = a.shape[-1]
    flat = a.reshape((-1, n, n))
    norm1 = np.abs(flat).sum(axis=-2).max(axis=-1) if n else np.zeros(len(flat))
    with np.errstate(divide='ignore'):
        s = np.maximum(0, np.ceil(np.log2(np.maximum(norm1, 1e-300) / _THETA13))).astype(int)
    scaled = flat / (2.0 ** s)[:, None, None]
    b = _PADE13
    ident = np.broadcast_to(np.eye(n, dtype=a.dtype), scaled.shape)
    a2 = scaled @ scaled
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = scaled @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
                  + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for i in range(int(s.max()) if s.size else 0):
        sq = r @ r
        r = np.where((s > i)[:, None, None], sq, r)
    return r.reshape(a.shape).astype(a.dtype, copy=False)


def _expm_meta(x):
    d = _dtype('matrix_exp', 'x', x)
    return Meta(_matrix_shape('matrix_exp', 'x', x, square=True), d)


@def_op('matrix_exp', _expm_meta, pattern='opaque')
def matrix_exp_op(x):
    """exp(A) = sum A^k / k! for each square matrix."""
    _expm_meta(x)
    return _expm(x)


@matrix_exp_op.def_grad
def _expm_grad(g, x, out):
    # the Frechet derivative: d exp(A)[E] is the upper-right block of
    # exp([[A, E], [0, A]]); the adjoint swaps A for A^H
    n = x.shape[-1]
    xh = _mH(x)
    top = lib.concat([xh, g], axis=-1)
    bottom = lib.concat([lib.full_like_op(xh, 0, None), xh], axis=-1)
    big = matrix_exp_op(lib.concat([top, bottom], axis=-2))
    return big[..., :n, n:]


# ---- cross product and diagonals ------------------------------------------------------------

def _cross_meta(x, y, axis):
    xs, ys = list(meta.shape_of(x)), list(meta.shape_of(y))
    if xs != ys:
        raise OpError("cross: x and y must have the same shape, got %s and %s" % (xs, ys))
    ax = meta.normalize_axis(axis, len(xs))
    if xs[ax] not in (3, -1):
        raise OpError("cross: axis %d of x (shape %s) must have size 3" % (axis, xs))
    return Meta(xs, meta.result_dtype(x, y))


@def_op('cross', _cross_meta, pattern='opaque')
def cross_op(x, y, axis=-1):
    """The 3-vector cross product along ``axis``."""
    _cross_meta(x, y, axis)
    return np.cross(x, y, axis=axis)


@cross_op.def_grad
def _cross_grad(g, x, y, out, axis):
    # <g, x × y> = <conj(y) × g, x> = <g × conj(x), y>
    return cross_op(_conj(y), g, axis), cross_op(g, _conj(x), axis)


def _diagonal_meta(x, offset, axis1, axis2):
    shape = list(meta.shape_of(x))
    nd = len(shape)
    if nd < 2:
        raise OpError("diagonal: x must have at least 2 dims, got shape %s" % shape)
    a1, a2 = meta.normalize_axis(axis1, nd, 'axis1'), meta.normalize_axis(axis2, nd, 'axis2')
    if a1 == a2:
        raise OpError("diagonal: axis1 and axis2 must differ, got %d and %d" % (axis1, axis2))
    n1, n2 = shape[a1], shape[a2]
    if _known(n1, n2):
        size = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    else:
        size = -1
    out = [d for i, d in enumerate(shape) if i not in (a1, a2)] + [size]
    return Meta(out, meta.dtype_of(x))


@def_op('diagonal', _diagonal_meta, save_inputs=False, pattern='view', passthrough=None)
def diagonal_op(x, offset=0, axis1=0, axis2=1):
    """The diagonal (``offset`` above it when positive) of the planes given by
    axis1 and axis2, as the last dim."""
    _diagonal_meta(x, offset, axis1, axis2)
    return np.diagonal(x, offset, axis1, axis2).copy()


@diagonal_op.def_grad
def _diagonal_grad(g, x, out, offset, axis1, axis2):
    return diagonal_grad_op(g, x, offset, axis1, axis2)


def _diagonal_grad_meta(g, x, offset, axis1, axis2):
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('diagonal_grad', _diagonal_grad_meta, no_grad_inputs=('x',), save_inputs=False,
        pattern='opaque')
def diagonal_grad_op(g, x, offset=0, axis1=0, axis2=1):
    """Zeros of x's shape with g on the diagonal (the adjoint of ``diagonal``)."""
    out = np.zeros(np.shape(x), g.dtype)
    plane = np.moveaxis(out, (axis1, axis2), (-2, -1))   # a writable view of out
    n = g.shape[-1]
    rows = np.arange(n) + max(0, -offset)
    plane[..., rows, rows + offset] = g
    return out


@diagonal_grad_op.def_grad
def _diagonal_grad_grad(gg, g, x, out, offset, axis1, axis2):
    return diagonal_op(gg, offset, axis1, axis2), None


# ---- vector p-norms ---------------------------------------------------------------------------

def _p_norm_meta(x, porder, axis, keepdim):
    d = np.dtype(meta.dtype_of(x))
    if d.kind != 'f':
        raise OpError("p_norm: x must be a float tensor (take abs() of a complex one), got %s"
                      % d)
    return meta.reduce(x, None if axis is None else list(axis), keepdim)


@def_op('p_norm', _p_norm_meta, attr_types={'axis': 'ints|None'}, pattern='opaque')
def p_norm_op(x, porder=2.0, axis=None, keepdim=False):
    """The vector p-norm over ``axis`` (a tuple; None = all elements): inf/-inf
    the largest/smallest |x|, 0 the count of non-zeros, else sum(|x|^p)^(1/p)."""
    m = _p_norm_meta(x, porder, axis, keepdim)
    a = np.abs(x)
    ax = None if axis is None else tuple(axis)
    if porder == np.inf:
        out = a.max(axis=ax, keepdims=keepdim)
    elif porder == -np.inf:
        out = a.min(axis=ax, keepdims=keepdim)
    elif porder == 0:
        out = np.count_nonzero(a, axis=ax, keepdims=keepdim)
    elif porder == 1:
        out = a.sum(axis=ax, keepdims=keepdim)
    elif porder == 2:
        out = np.sqrt(np.sum(a * a, axis=ax, keepdims=keepdim))
    else:
        out = np.sum(a ** porder, axis=ax, keepdims=keepdim) ** (1.0 / porder)
    return np.asarray(out, m.dtype)


@p_norm_op.def_grad
def _p_norm_grad(g, x, out, porder, axis, keepdim):
    nd = len(x.shape)
    axes = tuple(range(nd)) if axis is None else tuple(a % max(nd, 1) for a in axis)
    ge = lib.expand_reduced(g, x, axes, keepdim)
    oe = lib.expand_reduced(out, x, axes, keepdim)
    zero = x * 0.0
    if porder == 0:
        return zero
    if porder in (np.inf, -np.inf):
        # the gradient goes to the extreme elements, shared between ties
        hit = lib.where(lib.abs(x) == oe, zero + 1.0, zero)
        count = lib.expand_reduced(lib.sum_op(hit, axes, keepdim), x, axes, keepdim)
        return ge * lib.sign(x) * hit / count
    # d ||x||_p / dx = sign(x) |x|^(p-1) / ||x||^(p-1); 0 where the norm (or x) is 0
    ax = lib.abs(x)
    sign = lib.sign(x)
    grow = lib.where(ax > 0, sign * ax ** (porder - 1.0), zero) if porder != 1 else sign
    if porder == 1:
        return ge * grow
    safe = lib.where(oe > 0, oe, zero + 1.0)
    return ge * grow * lib.where(oe > 0, safe ** (1.0 - porder), zero)


# ---- test cases ---------------------------------------------------------------------------------
# Matrices are well conditioned (random + n I, or B B^T + n I for the positive-definite
# ones) and have distinct eigen/singular values, so the gradients are defined.

_rng = np.random.default_rng(23)


def _r(*shape):
    return _rng.standard_normal(shape)


def _well(*shape):
    n = shape[-1]
    return _r(*shape) + n * np.eye(n)


def _spd(*shape):
    b = _r(*shape)
    return b @ np.swapaxes(b, -1, -2) + shape[-1] * np.eye(shape[-1])


def _cx(*shape):
    return _r(*shape) + 1j * _r(*shape)


def _mh(a):
    return np.conj(np.swapaxes(a, -1, -2))


def _ref_inv(a):
    """Gauss-Jordan elimination, one matrix at a time."""
    out = np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        m = a[idx].astype(np.result_type(a, np.float64))
        n = m.shape[0]
        aug = np.concatenate([m, np.eye(n)], axis=1)
        for j in range(n):
            p = j + np.argmax(np.abs(aug[j:, j]))
            aug[[j, p]] = aug[[p, j]]
            aug[j] /= aug[j, j]
            for i in range(n):
                if i != j:
                    aug[i] -= aug[i, j] * aug[j]
        out[idx] = aug[:, n:]
    return out


add_test_case(inverse_op, _well(3, 3), ref=_ref_inv)
add_test_case(inverse_op, _well(2, 3, 3) * np.array([[[1.0]], [[-1.0]]]), ref=_ref_inv)
add_test_case(inverse_op, _r(0, 2, 2), ref=lambda a: np.zeros((0, 2, 2)))
add_test_case(inverse_op, _well(3, 3).astype(np.float32), ref=lambda a: _ref_inv(a),
              rtol=1e-4, atol=1e-5, grad=False)
add_test_case(inverse_op, _cx(2, 2) + 2 * np.eye(2), ref=_ref_inv)


def _ref_det(a):
    """The product of the pivots of an LU factorisation."""
    lu, piv, _ = _ref_lu(a)
    diag = np.diagonal(lu, 0, -2, -1).prod(-1)
    swaps = (piv != np.arange(1, piv.shape[-1] + 1)).sum(-1)
    return diag * (-1.0) ** swaps


def _ref_lu(a):
    """Doolittle with partial pivoting, element by element (independent of lu_factor)."""
    m, n = a.shape[-2:]
    k = min(m, n)
    lu = np.array(a, dtype=np.result_type(a, np.float64))
    piv = np.zeros(a.shape[:-2] + (k,), np.int32)
    info = np.zeros(a.shape[:-2], np.int32)
    for idx in np.ndindex(*a.shape[:-2]):
        w = lu[idx]
        for j in range(k):
            p = max(range(j, m), key=lambda i: abs(w[i, j]))
            piv[idx + (j,)] = p + 1
            w[[j, p]] = w[[p, j]]
            if w[j, j] == 0:
                if info[idx] == 0:
                    info[idx] = j + 1
                continue
            for i in range(j + 1, m):
                w[i, j] /= w[j, j]
                for c in range(j + 1, n):
                    w[i, c] -= w[i, j] * w[j, c]
    return lu.astype(a.dtype), piv, info


add_test_case(determinant_op, _well(3, 3) - 5 * np.eye(3), ref=_ref_det)
add_test_case(determinant_op, _well(2, 3, 3), ref=_ref_det)
add_test_case(determinant_op, _r(0, 3, 3), ref=lambda a: np.zeros(0))
add_test_case(determinant_op, np.zeros((0, 0)), ref=lambda a: np.array(1.0), grad=False)
add_test_case(determinant_op, _well(2, 2).astype(np.float32),
              ref=lambda a: _ref_det(a).astype(np.float32), rtol=1e-4, grad=False)
add_test_case(determinant_op, _cx(2, 2) + 2 * np.eye(2), ref=_ref_det)

add_test_case(slogdet_op, _well(3, 3) - 5 * np.eye(3),
              ref=lambda a: (np.sign(_ref_det(a)), np.log(np.abs(_ref_det(a)))))
add_test_case(slogdet_op, _well(2, 4, 4),
              ref=lambda a: (np.sign(_ref_det(a)), np.log(np.abs(_ref_det(a)))))
add_test_case(slogdet_op, _r(0, 2, 2), ref=lambda a: (np.zeros(0), np.zeros(0)))
add_test_case(slogdet_op, _well(2, 2).astype(np.float32),
              ref=lambda a: (np.sign(_ref_det(a)).astype(np.float32),
                             np.log(np.abs(_ref_det(a))).astype(np.float32)),
              rtol=1e-4, grad=False)


def _ref_solve(a, b):
    return _ref_inv(np.broadcast_to(a, np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
                                    + a.shape[-2:]).copy()) @ b


add_test_case(solve_op, _well(3, 3), _r(3, 2), ref=_ref_solve)
add_test_case(solve_op, _well(2, 3, 3), _r(3, 1), ref=_ref_solve)
add_test_case(solve_op, _well(1, 3, 3), -_r(2, 3, 2), ref=_ref_solve)
add_test_case(solve_op, _r(0, 2, 2), _r(0, 2, 1), ref=lambda a, b: np.zeros((0, 2, 1)))
add_test_case(solve_op, _well(2, 2).astype(np.float32), _r(2, 1).astype(np.float32),
              ref=lambda a, b: _ref_solve(a, b).astype(np.float32), rtol=1e-4, grad=False)


def _ref_tri(a, b, upper, transpose, unitriangular):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t - np.diagonal(t, 0, -2, -1)[..., None] * np.eye(a.shape[-1]) + np.eye(a.shape[-1])
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return _ref_solve(t, b)


add_test_case(triangular_solve_op, _well(3, 3), _r(3, 2), True, False, False, ref=_ref_tri)
add_test_case(triangular_solve_op, _well(2, 3, 3), -_r(3, 1), False, True, True, ref=_ref_tri)
add_test_case(triangular_solve_op, _well(3, 3), _r(2, 3, 2), False, False, False,
              ref=_ref_tri)
add_test_case(triangular_solve_op, _well(3, 3), _r(3, 2), True, True, False, ref=_ref_tri)
add_test_case(triangular_solve_op, _r(0, 2, 2), _r(0, 2, 1), True, False, False,
              ref=lambda a, b, u, t, un: np.zeros((0, 2, 1)))
add_test_case(triangular_solve_op, _well(2, 2).astype(np.float32), _r(2, 2).astype(np.float32),
              True, False, False, ref=lambda *a: _ref_tri(*a).astype(np.float32), rtol=1e-4,
              grad=False)


def _ref_cholesky(a, upper):
    """The Cholesky-Banachiewicz recurrence on the lower (or upper) triangle."""
    out = np.zeros_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        m = a[idx] if not upper else a[idx].T
        n = m.shape[0]
        lo = np.zeros((n, n))
        for i in range(n):
            for j in range(i + 1):
                s = m[i, j] - lo[i, :j] @ lo[j, :j]
                lo[i, j] = np.sqrt(s) if i == j else s / lo[j, j]
        out[idx] = lo.T if upper else lo
    return out


add_test_case(cholesky_op, _spd(3, 3), False, ref=_ref_cholesky, symmetric=(0,))
add_test_case(cholesky_op, _spd(2, 3, 3), True, ref=_ref_cholesky, symmetric=(0,))
add_test_case(cholesky_op, _r(0, 2, 2), False, ref=lambda a, u: np.zeros((0, 2, 2)))


def _hpd(*shape):
    b = _cx(*shape)
    return b @ _mh(b) + shape[-1] * np.eye(shape[-1])


add_test_case(cholesky_op, _hpd(3, 3), False, ref=lambda a, u: np.linalg.cholesky(a),
              symmetric=(0,))
add_test_case(cholesky_op, _hpd(2, 2), True, ref=lambda a, u: np.linalg.cholesky(a, upper=True),
              symmetric=(0,))
add_test_case(cholesky_op, _spd(2, 2).astype(np.float32), False,
              ref=lambda a, u: _ref_cholesky(a, u).astype(np.float32), rtol=1e-5, grad=False)


def _ref_eigh(a, uplo):
    tri = np.tril(a) if uplo == 'L' else np.triu(a)
    full = tri + _mh(tri) - np.diagonal(tri, 0, -2, -1)[..., None] * np.eye(a.shape[-1])
    w, v = np.linalg.eig(full)
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w.real, order, -1)
    v = np.take_along_axis(v.real, order[..., None, :], -1)
    # eigenvectors are defined up to sign: match numpy.eigh's choice
    ref_v = np.linalg.eigh(a, UPLO=uplo)[1]
    v = v * np.sign(np.sum(v * ref_v, axis=-2, keepdims=True))
    return w, v / np.linalg.norm(v, axis=-2, keepdims=True)


add_test_case(eigh_op, _spd(3, 3), 'L', ref=_ref_eigh, symmetric=(0,))
add_test_case(eigh_op, _spd(2, 3, 3) - 6 * np.eye(3), 'U', ref=_ref_eigh, symmetric=(0,))
add_test_case(eigh_op, _hpd(3, 3), 'L', ref=lambda a, u: np.linalg.eigh(a, UPLO=u),
              symmetric=(0,), grad_outputs=(0,))   # complex eigenvectors: up to a phase
add_test_case(eigh_op, _r(0, 2, 2), 'L', ref=lambda a, u: (np.zeros((0, 2)), np.zeros((0, 2, 2))))
add_test_case(eigh_op, _spd(3, 3).astype(np.float32), 'L',
              ref=lambda a, u: tuple(t.astype(np.float32) for t in _ref_eigh(a, u)),
              rtol=1e-4, atol=1e-5, grad=False)


def _diagonalizable(n, batch=()):
    """Q diag(1..n, shuffled signs) Q^-1: real, distinct eigenvalues."""
    q = _well(*(batch + (n, n)))
    d = np.arange(1.0, n + 1) * np.where(np.arange(n) % 2, -1.0, 1.0)
    return q @ (d[:, None] * _ref_inv(q))


def _ref_eig(a):
    w, v = np.linalg.eig(a)
    c = np.result_type(a, np.complex64)
    return w.astype(c), v.astype(c)


add_test_case(eig_op, _diagonalizable(3), ref=_ref_eig)
add_test_case(eig_op, _diagonalizable(2, (2,)), ref=_ref_eig)
add_test_case(eig_op, _r(0, 2, 2), ref=lambda a: (np.zeros((0, 2), complex),
                                                  np.zeros((0, 2, 2), complex)))
add_test_case(eig_op, _diagonalizable(2).astype(np.float32), ref=_ref_eig, rtol=1e-4,
              atol=1e-5, grad=False)


def _ref_svd(a, full_matrices):
    """Singular values from the eigenvalues of A^H A; vectors from numpy with signs
    fixed by the eigen-decomposition (independent of LAPACK's svd)."""
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    w = np.sqrt(np.clip(np.sort(np.linalg.eigvalsh(_mh(a) @ a if a.shape[-2] >= a.shape[-1]
                                                   else a @ _mh(a)), -1)[..., ::-1], 0, None))
    np.testing.assert_allclose(s, w, rtol=1e-6, atol=1e-8)
    return u, s, vh


add_test_case(svd_op, _r(4, 3), False, ref=_ref_svd)
add_test_case(svd_op, -_r(2, 3, 4), False, ref=_ref_svd)
add_test_case(svd_op, _r(3, 3), False, ref=_ref_svd)
add_test_case(svd_op, _r(3, 2), True, ref=_ref_svd, grad=False)
add_test_case(svd_op, _cx(3, 2), False, ref=lambda a, f: np.linalg.svd(a, full_matrices=f),
              grad_outputs=(1,))
add_test_case(svd_op, _r(0, 2, 3), False, ref=lambda a, f: (np.zeros((0, 2, 2)),
                                                            np.zeros((0, 2)),
                                                            np.zeros((0, 2, 3))))
add_test_case(svd_op, _r(3, 2).astype(np.float32), False,
              ref=lambda a, f: tuple(t.astype(np.float32) for t in _ref_svd(a, f)),
              rtol=1e-4, atol=1e-5, grad=False)


def _ref_qr(a, mode):
    """Modified Gram-Schmidt, with R's diagonal signs matched to numpy's."""
    q_np, r_np = np.linalg.qr(a, mode=mode)
    m, n = a.shape[-2:]
    k = min(m, n)
    q = np.zeros(a.shape[:-1] + (k,))
    r = np.zeros(a.shape[:-2] + (k, n))
    for idx in np.ndindex(*a.shape[:-2]):
        v = a[idx].astype(np.float64).copy()
        for j in range(k):
            r[idx + (j, j)] = np.linalg.norm(v[:, j])
            q[idx + (slice(None), j)] = v[:, j] / r[idx + (j, j)]
            for c in range(j + 1, n):
                r[idx + (j, c)] = q[idx + (slice(None), j)] @ v[:, c]
                v[:, c] -= r[idx + (j, c)] * q[idx + (slice(None), j)]
    sign = np.sign(np.diagonal(r_np[..., :k, :k], 0, -2, -1))
    q, r = q * sign[..., None, :], r * sign[..., :, None]
    if mode == 'complete':
        return q_np, np.concatenate([r, np.zeros(a.shape[:-2] + (m - k, n))], -2)
    return q, r


add_test_case(qr_op, _r(4, 3), 'reduced', ref=_ref_qr)
add_test_case(qr_op, -_r(2, 3, 3), 'reduced', ref=_ref_qr)
add_test_case(qr_op, _r(3, 5), 'reduced', ref=_ref_qr)
add_test_case(qr_op, _r(3, 3), 'complete', ref=_ref_qr)
add_test_case(qr_op, _cx(4, 3), 'reduced', ref=lambda a, m: np.linalg.qr(a, mode=m))
add_test_case(qr_op, _cx(2, 3), 'reduced', ref=lambda a, m: np.linalg.qr(a, mode=m))
add_test_case(qr_op, _r(0, 3, 2), 'reduced', ref=lambda a, m: (np.zeros((0, 3, 2)),
                                                               np.zeros((0, 2, 2))))
add_test_case(qr_op, _r(3, 2).astype(np.float32), 'reduced',
              ref=lambda a, m: tuple(t.astype(np.float32) for t in _ref_qr(a, m)),
              rtol=1e-4, atol=1e-5, grad=False)

add_test_case(lu_op, _r(3, 3), True, ref=lambda a, p: _ref_lu(a))
add_test_case(lu_op, -_r(2, 4, 3), True, ref=lambda a, p: _ref_lu(a))
add_test_case(lu_op, _r(3, 4), True, ref=lambda a, p: _ref_lu(a))
add_test_case(lu_op, _r(0, 3, 3), True, ref=lambda a, p: (np.zeros((0, 3, 3)),
                                                          np.zeros((0, 3), np.int32),
                                                          np.zeros(0, np.int32)))
add_test_case(lu_op, np.array([[0.0, 1.0], [0.0, 2.0]]), True,
              ref=lambda a, p: _ref_lu(a), grad=False)
add_test_case(lu_op, _r(3, 3).astype(np.float32), True,
              ref=lambda a, p: _ref_lu(a), rtol=1e-5, atol=1e-6, grad=False)


def _ref_unpack(x, piv, ud, up):
    m, n = x.shape[-2:]
    k = min(m, n)
    p = np.zeros(x.shape[:-2] + (m, m))
    for idx in np.ndindex(*x.shape[:-2]):
        rows = list(range(m))
        for j, t in enumerate(piv[idx]):
            rows[j], rows[t - 1] = rows[t - 1], rows[j]
        for i, r in enumerate(rows):
            p[idx + (r, i)] = 1
    lo = np.tril(x, -1)[..., :, :k] + np.eye(m, k)
    return p, lo, np.triu(x)[..., :k, :]


for _a in (_r(3, 3), _r(2, 4, 3), _r(3, 4)):
    _lu, _piv, _ = lu_factor(_a)
    add_test_case(lu_unpack_op, _lu, _piv, True, True, ref=_ref_unpack)
add_test_case(lu_unpack_op, _r(0, 2, 2), np.zeros((0, 2), np.int32), True, True,
              ref=lambda x, p, a, b: (np.zeros((0, 2, 2)),) * 3)
add_test_case(lu_unpack_op, *lu_factor(_r(2, 2).astype(np.float32))[:2], True, True,
              ref=lambda *a: tuple(t.astype(np.float32) for t in _ref_unpack(*a)), grad=False)


def _ref_lstsq(driver):
    """Normal equations (tall) or the minimum-norm formula (wide), per matrix."""
    def ref(a, b, rcond, drv):
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        m, n = a.shape[-2:]
        if m >= n:
            sol = _ref_solve(_mh(a) @ a, _mh(a) @ b)
        else:
            sol = _mh(a) @ _ref_solve(a @ _mh(a), b)
        res = ((a @ sol - b) ** 2).sum(-2) if driver != 'gelsy' and m > n else np.zeros(0)
        rank = np.full(batch, min(m, n), np.int32) if driver != 'gels' else \
            np.zeros(0, np.int64)
        sv = np.linalg.svd(a, compute_uv=False) if driver in ('gelsd', 'gelss') \
            else np.zeros(0)
        return sol, res, rank, sv
    return ref


add_test_case(lstsq_op, _r(4, 3), _r(4, 2), None, 'gelsd', ref=_ref_lstsq('gelsd'))
add_test_case(lstsq_op, _r(2, 3), -_r(2, 2), None, 'gelsy', ref=_ref_lstsq('gelsy'))
add_test_case(lstsq_op, _r(2, 4, 3), _r(4, 1), None, 'gels', ref=_ref_lstsq('gels'))
add_test_case(lstsq_op, _r(3, 3), _r(3, 2), None, 'gelss', ref=_ref_lstsq('gelss'))
add_test_case(lstsq_op, _r(0, 3, 2), _r(0, 3, 1), None, 'gelsy',
              ref=lambda a, b, r, d: (np.zeros((0, 2, 1)), np.zeros(0), np.zeros(0, np.int32),
                                      np.zeros(0)))
add_test_case(lstsq_op, _r(3, 2).astype(np.float32), _r(3, 1).astype(np.float32), None, 'gelsy',
              ref=lambda a, b, r, d: tuple(
                  t.astype(np.float32) if t.dtype.kind == 'f' else t
                  for t in _ref_lstsq('gelsy')(a, b, r, d)), rtol=1e-4, atol=1e-5, grad=False)


def _ref_expm(a):
    """Taylor series of exp(A / 2^s), squared s times."""
    out = np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        m = a[idx].astype(np.float64)
        s = max(0, int(np.ceil(np.log2(max(np.abs(m).sum(0).max(), 1e-300)))) + 1)
        b = m / 2.0 ** s
        term, total = np.eye(len(m)), np.eye(len(m))
        for k in range(1, 30):
            term = term @ b / k
            total = total + term
        for _ in range(s):
            total = total @ total
        out[idx] = total
    return out


add_test_case(matrix_exp_op, _r(3, 3) * 0.5, ref=_ref_expm)
add_test_case(matrix_exp_op, _r(2, 3, 3) * 3, ref=_ref_expm, rtol=1e-6)
add_test_case(matrix_exp_op, _r(0, 2, 2), ref=lambda a: np.zeros((0, 2, 2)))
add_test_case(matrix_exp_op, (_r(2, 2) * 0.5).astype(np.float32),
              ref=lambda a: _ref_expm(a).astype(np.float32), rtol=1e-5, atol=1e-6, grad=False)


def _ref_cross(x, y, axis):
    x, y = np.moveaxis(x, axis, -1), np.moveaxis(y, axis, -1)
    out = np.stack([x[..., 1] * y[..., 2] - x[..., 2] * y[..., 1],
                    x[..., 2] * y[..., 0] - x[..., 0] * y[..., 2],
                    x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]], -1)
    return np.moveaxis(out, -1, axis)


add_test_case(cross_op, _r(3), -_r(3), 0, ref=_ref_cross)
add_test_case(cross_op, _r(4, 3, 2), _r(4, 3, 2), 1, ref=_ref_cross)
add_test_case(cross_op, _r(0, 3), _r(0, 3), 1, ref=_ref_cross)
add_test_case(cross_op, np.array([[1, 2, 3]]), np.array([[3, 2, 1]]), 1, ref=_ref_cross)
add_test_case(cross_op, _r(2, 3).astype(np.float32), _r(2, 3).astype(np.float32), 1,
              ref=_ref_cross, grad=False)


def _ref_diagonal(x, offset, a1, a2):
    plane = np.moveaxis(x, (a1, a2), (-2, -1))
    n1, n2 = plane.shape[-2:]
    idx = [(i, i + offset) for i in range(n1) if 0 <= i + offset < n2]
    if not idx:
        return np.zeros(plane.shape[:-2] + (0,))
    return np.stack([plane[..., i, j] for i, j in idx], -1)


add_test_case(diagonal_op, _r(3, 4), 1, 0, 1, ref=_ref_diagonal)
add_test_case(diagonal_op, -_r(2, 3, 4), -1, 1, 2, ref=_ref_diagonal)
add_test_case(diagonal_op, _r(4, 2, 3), 0, 2, 0, ref=_ref_diagonal)
add_test_case(diagonal_op, _r(0, 3), 0, 0, 1, ref=_ref_diagonal)
add_test_case(diagonal_op, _r(3, 3).astype(np.float32), 0, 0, 1, ref=_ref_diagonal, grad=False)


def _ref_diagonal_grad(g, x, offset, a1, a2):
    out = np.zeros(x.shape)
    plane = np.moveaxis(out, (a1, a2), (-2, -1))
    for k in range(g.shape[-1]):
        i = k + max(0, -offset)
        plane[..., i, i + offset] = g[..., k]
    return out


add_test_case(diagonal_grad_op, _r(2, 3), _r(2, 3, 4), 1, 1, 2, ref=_ref_diagonal_grad)
add_test_case(diagonal_grad_op, _r(3), _r(4, 3), -1, 0, 1, ref=_ref_diagonal_grad)


def _ref_p_norm(x, p, axis, keepdim):
    a = np.abs(x)
    if p == np.inf:
        out = a.max(axis=axis, keepdims=keepdim)
    elif p == -np.inf:
        out = a.min(axis=axis, keepdims=keepdim)
    elif p == 0:
        out = (a != 0).sum(axis=axis, keepdims=keepdim).astype(x.dtype)
    else:
        out = (a ** p).sum(axis=axis, keepdims=keepdim) ** (1.0 / p)
    return np.asarray(out, x.dtype)


add_test_case(p_norm_op, _r(3, 4), 2.0, None, False, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(3, 4), 1.0, (1,), False, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(2, 3, 4), np.inf, (0,), True, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(2, 3, 4), -np.inf, (1, 2), False, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(2, 3, 4), 3.0, (0, 2), True, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(3, 4), -1.0, (0,), False, ref=_ref_p_norm)
add_test_case(p_norm_op, np.abs(_r(3, 4)) + 0.5, 0.5, (1,), False, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(3, 4), 0.0, None, False, ref=_ref_p_norm)
add_test_case(p_norm_op, np.asarray(-1.5), 2.0, None, False, ref=_ref_p_norm)
add_test_case(p_norm_op, _r(0, 3), 2.0, (1,), False, ref=_ref_p_norm)
add_test_case(p_norm_op, np.zeros((2, 3)), 2.0, (1,), False, ref=_ref_p_norm, grad=False)
add_test_case(p_norm_op, _r(3, 4).astype(np.float32), 2.0, (1,), False, ref=_ref_p_norm,
              rtol=1e-5, grad=False)
