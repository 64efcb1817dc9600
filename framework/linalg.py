"""``framework.linalg`` (Paddle's ``paddle.linalg``): inverses, determinants, solvers,
decompositions (Cholesky, QR, SVD, eigen, LU), least squares, matrix functions and
norms. The decompositions are registered ops (``ops/linalg.py``) with grad rules
written with registered ops; the rest composes them (``ops/linalg_api.py``), so
everything differentiates (to any order) and works in static mode and under
``@to_static``.

>>> import framework as paddle
>>> a = paddle.to_tensor([[4.0, 2.0], [2.0, 3.0]])
>>> paddle.linalg.cholesky(a).tolist()
[[2.0, 0.0], [1.0, 1.4142135381698608]]
"""
from .ops.linalg_api import (cholesky, cholesky_inverse, cholesky_solve, cond,  # noqa: F401
                             corrcoef, cov, cross, det, diagonal, eig, eigh, eigvals, eigvalsh,
                             fp8_fp8_half_gemm_fused, householder_product, inv, lstsq, lu,
                             lu_solve, lu_unpack, matmul, matrix_exp, matrix_norm,
                             matrix_power, matrix_rank, matrix_transpose, multi_dot, norm, ormqr,
                             pca_lowrank, pinv, qr, slogdet, solve, svd, svd_lowrank, svdvals,
                             triangular_solve, vecdot, vector_norm)
from .ops.linalg_api import __all__  # noqa: F401
