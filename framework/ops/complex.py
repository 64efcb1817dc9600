"""Complex-number ops: real/imag parts, conjugate, building complex tensors.

Gradients follow Paddle's (and PyTorch's) convention for a real loss L of a
complex z = a + ib: the gradient is dL/da + i dL/db. So the gradient of
``real(z)`` is the (real) cotangent itself, that of ``imag(z)`` is i times it,
and a conjugate's gradient is the conjugate of the cotangent. With this
convention the gradient of a complex-linear map is its adjoint, which is what
the FFT and linear-algebra grad rules use.

``real``, ``imag`` and ``conj`` also accept real tensors (``real(x) = x``,
``imag(x) = 0``), so grad rules can apply them without checking the dtype.
"""
import numpy as np

from .. import dtype as _dt
from . import lib, meta
from .grad_utils import sum_like
from .registry import Meta, OpError, add_test_case, def_op

_REAL_OF = {np.dtype('complex64'): np.dtype('float32'),
            np.dtype('complex128'): np.dtype('float64')}
_COMPLEX_OF = {np.dtype('float32'): np.dtype('complex64'),
               np.dtype('float64'): np.dtype('complex128')}


def real_dtype(dtype):
    """The real dtype holding the parts of ``dtype`` (float64 for complex128)."""
    d = np.dtype(dtype)
    return _REAL_OF.get(d, d)


def complex_dtype(dtype):
    """The complex dtype whose parts are ``dtype`` (complex64 for float32);
    integer and bool dtypes give the default float's complex dtype."""
    d = np.dtype(dtype)
    if d.kind == 'c':
        return d
    if d.kind != 'f' or d not in _COMPLEX_OF:
        d = _dt.default_float()
    return _COMPLEX_OF[d]


def is_complex_dtype(dtype):
    return np.dtype(dtype).kind == 'c'


def _part_meta(x):
    return Meta(meta.shape_of(x), real_dtype(meta.dtype_of(x)))


@def_op('real', _part_meta, save_inputs=False, pattern='elementwise', ufunc=None, flops=None)
def real_op(x):
    """The real part (a copy: the result never aliases ``x``)."""
    return np.real(x).copy()


@real_op.def_grad
def _real_grad(g, x, out):
    return complex_op(g, zeros_like_real(g)) if is_complex_dtype(x.dtype) else g


@def_op('imag', _part_meta, save_inputs=False, pattern='elementwise', ufunc=None, flops=None)
def imag_op(x):
    return np.imag(x).copy() if np.iscomplexobj(x) else np.zeros_like(x)


@imag_op.def_grad
def _imag_grad(g, x, out):
    return complex_op(zeros_like_real(g), g) if is_complex_dtype(x.dtype) else None


@def_op('conj', meta.unchanged, save_inputs=False, pattern='elementwise', ufunc=None, flops=None)
def conj_op(x):
    return np.asarray(np.conj(x))   # a 0-D input stays an array, not a numpy scalar


@conj_op.def_grad
def _conj_grad(g, x, out):
    return conj_op(g)


def _complex_meta(re, im):
    dr, di = np.dtype(meta.dtype_of(re)), np.dtype(meta.dtype_of(im))
    if dr not in _COMPLEX_OF or dr != di:
        raise OpError("complex: real and imag must both be float32 or both float64, got "
                      "%s and %s" % (dr, di))
    shape = meta.broadcast_shapes(meta.shape_of(re), meta.shape_of(im), 'real and imag')
    return Meta(shape, _COMPLEX_OF[dr])


@def_op('complex', _complex_meta, inputs=('real', 'imag'), attrs={}, save_inputs=False,
        pattern='broadcast', ufunc=None, identity=None, flops=None)
def complex_op(re, im):
    _complex_meta(re, im)
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), _COMPLEX_OF[re.dtype])
    out.real = re
    out.imag = im
    return out


@complex_op.def_grad
def _complex_grad(g, re, im, out):
    return sum_like(real_op(g), re), sum_like(imag_op(g), im)


def _as_real_meta(x):
    d = np.dtype(meta.dtype_of(x))
    if d.kind != 'c':
        raise OpError("as_real: x must be complex64 or complex128, got %s" % d)
    return Meta(tuple(meta.shape_of(x)) + (2,), _REAL_OF[d])


@def_op('as_real', _as_real_meta, save_inputs=False, pattern='opaque')
def as_real_op(x):
    _as_real_meta(x)
    return np.stack([x.real, x.imag], axis=-1)


@as_real_op.def_grad
def _as_real_grad(g, x, out):
    return as_complex_op(g)


def _as_complex_meta(x):
    shape, d = tuple(meta.shape_of(x)), np.dtype(meta.dtype_of(x))
    if d not in _COMPLEX_OF:
        raise OpError("as_complex: x must be float32 or float64, got %s" % d)
    if not shape or shape[-1] not in (2, -1):
        raise OpError("as_complex: the last dimension of x must have size 2, got shape %s"
                      % list(shape))
    return Meta(shape[:-1], _COMPLEX_OF[d])


@def_op('as_complex', _as_complex_meta, save_inputs=False, pattern='opaque')
def as_complex_op(x):
    _as_complex_meta(x)
    out = np.empty(x.shape[:-1], _COMPLEX_OF[x.dtype])
    out.real = x[..., 0]
    out.imag = x[..., 1]
    return out


@as_complex_op.def_grad
def _as_complex_grad(g, x, out):
    return as_real_op(g)


def _angle_meta(x):
    d = np.dtype(meta.dtype_of(x))
    if d.kind not in 'fc':
        raise OpError("angle: x must be a float or complex tensor, got %s" % d)
    return Meta(meta.shape_of(x), real_dtype(d))


@def_op('angle', _angle_meta, pattern='elementwise', ufunc=None, flops=None)
def angle_op(x):
    _angle_meta(x)
    return np.asarray(np.angle(x), real_dtype(x.dtype))


@angle_op.def_grad
def _angle_grad(g, x, out):
    if not is_complex_dtype(x.dtype):
        return zeros_like_real(g)
    # d atan2(b, a) = (a db - b da) / |z|^2: the gradient is g * (-b + ia) / |z|^2
    re, im = real_op(x), imag_op(x)
    r2 = re * re + im * im
    return complex_op(-g * im / r2, g * re / r2)


def zeros_like_real(x):
    return lib.full_like_op(x, 0, None)


# ---- public API ---------------------------------------------------------------

def real(x, name=None):
    """The real part of a complex tensor (a real tensor is returned as a copy).

    >>> import framework as paddle
    >>> paddle.real(paddle.to_tensor([1 + 2j])).tolist()
    [1.0]
    """
    return real_op(x)


def imag(x, name=None):
    """The imaginary part of a complex tensor (zeros for a real one)."""
    return imag_op(x)


def conj(x, name=None):
    """The complex conjugate (a real tensor is returned unchanged)."""
    return conj_op(x)


def angle(x, name=None):
    """The argument of each element, in radians (0 or pi for real inputs)."""
    return angle_op(x)


def as_real(x, name=None):
    """A complex tensor viewed as a real one with a trailing dimension [real, imag]."""
    return as_real_op(x)


def as_complex(x, name=None):
    """A real tensor whose last dimension (size 2) holds [real, imag], as complex."""
    return as_complex_op(x)


def complex(real, imag, name=None, *, out=None):  # noqa: A001  (Paddle's name)
    """A complex tensor from real and imaginary parts (broadcast together).

    >>> import framework as paddle
    >>> paddle.complex(paddle.to_tensor([1.0]), paddle.to_tensor([2.0])).tolist()
    [(1+2j)]
    """
    return complex_op(real, imag)


def polar(abs, angle, name=None, *, out=None):  # noqa: A002  (Paddle's names)
    """``abs * (cos(angle) + i sin(angle))``."""
    return complex_op(abs * lib.cos(angle), abs * lib.sin(angle))


def is_complex(x):
    """True for complex64/complex128 tensors."""
    return is_complex_dtype(x.dtype)


def view_as_real(input):  # noqa: A002  (Paddle's name)
    """``as_real`` (the values; this framework's ops never alias their inputs)."""
    return as_real_op(input)


def view_as_complex(input):  # noqa: A002
    """``as_complex`` (the values; this framework's ops never alias their inputs)."""
    return as_complex_op(input)


def isreal(x, name=None):
    """True where the imaginary part is 0 (everywhere for real tensors)."""
    if not is_complex_dtype(x.dtype):
        return lib.full_like(x, True, 'bool')
    return lib.equal(imag_op(x), 0.0)


def sgn(x, name=None):
    """x / |x| for complex x (0 where x is 0); sign(x) for real x."""
    if not is_complex_dtype(x.dtype):
        return lib.sign(x)
    mag = lib.abs(x)
    safe = lib.where(mag > 0, mag, mag * 0.0 + 1.0)
    return x / complex_op(safe, safe * 0.0) * complex_op(lib.cast_like(mag > 0, mag), mag * 0.0)


__all__ = ['real', 'imag', 'conj', 'angle', 'as_real', 'as_complex', 'complex', 'polar',
           'is_complex', 'view_as_real', 'view_as_complex', 'isreal', 'sgn']

TENSOR_METHODS = {n: globals()[n] for n in ('real', 'imag', 'conj', 'angle', 'as_real',
                                            'as_complex', 'is_complex', 'polar',
                                            'view_as_real', 'view_as_complex', 'isreal',
                                            'sgn')}


# ---- test cases ------------------------------------------------------------------

_rng = np.random.default_rng(41)


def _c(shape, dtype=np.complex128):
    return (_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)).astype(dtype)


add_test_case(real_op, _c((3, 4)), ref=np.real)
add_test_case(real_op, _c((2, 0)), ref=np.real)
add_test_case(real_op, _rng.standard_normal((3,)), ref=np.real)
add_test_case(real_op, _c((), np.complex64), ref=np.real)
add_test_case(imag_op, _c((3, 4)), ref=np.imag)
add_test_case(imag_op, _c((), np.complex64), ref=np.imag)
add_test_case(conj_op, _c((2, 3)), ref=np.conj)
add_test_case(conj_op, _rng.standard_normal((2, 3)), ref=np.conj)
add_test_case(complex_op, _rng.standard_normal((2, 3)), _rng.standard_normal(3),
              ref=lambda a, b: a + 1j * b)
add_test_case(complex_op, _rng.standard_normal(()).astype(np.float32),
              _rng.standard_normal((0, 2)).astype(np.float32),
              ref=lambda a, b: (a + 1j * b).astype(np.complex64))
add_test_case(as_real_op, _c((2, 3)), ref=lambda z: np.stack([z.real, z.imag], -1))
add_test_case(as_real_op, _c((), np.complex64), ref=lambda z: np.array([z.real, z.imag]))
add_test_case(as_complex_op, _rng.standard_normal((3, 2)), ref=lambda x: x[:, 0] + 1j * x[:, 1])
add_test_case(as_complex_op, _rng.standard_normal((0, 2)).astype(np.float32),
              ref=lambda x: (x[:, 0] + 1j * x[:, 1]).astype(np.complex64))
add_test_case(angle_op, _c((2, 3)), ref=np.angle)
add_test_case(angle_op, np.array([-2.0, 3.0, -0.5]), ref=np.angle)
