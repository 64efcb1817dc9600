"""Discrete Fourier transforms: the three ops Paddle builds its ``paddle.fft``
on, and the public functions (``fft``, ``rfftn``, ``hfft2``, ``fftfreq`` ...).

* ``fft_c2c``  complex -> complex over ``axes`` (forward or inverse),
* ``fft_r2c``  real -> complex; ``onesided`` keeps the non-negative
               frequencies of the last axis (``rfft``; ``ihfft`` when inverse),
* ``fft_c2r``  the Hermitian half-spectrum -> real (``irfft``; ``hfft`` when
               forward), ``last_dim_size`` points along the last axis.

``norm`` is 'backward' (no scale forward, 1/n inverse), 'ortho' (1/sqrt(n)
both ways) or 'forward' (1/n forward). Each transform is linear, so its
gradient is its adjoint (see ``ops/complex.py`` for the convention): the same
transform in the other direction with the dual scale ('backward' <->
'forward'). The real-input and real-output transforms need the adjoint of the
one-sided half: ``fft_r2c_grad`` zero-fills the dropped frequencies, and
``fft_c2r_grad`` doubles the bins that stand for a conjugate pair. Both are
registered ops whose own gradient is the forward transform again, so higher
derivatives work in both modes.

Sizes ``n``/``s`` crop or zero-pad the input with ``getitem``/``pad`` before
the op, as Paddle does.
"""
import numpy as np

from .. import dtype as _dt
from . import lib, meta
from .complex import complex_dtype, real_dtype
from .registry import Meta, OpError, add_test_case, def_op

NORMS = ('backward', 'ortho', 'forward')
_DUAL = {'backward': 'forward', 'forward': 'backward', 'ortho': 'ortho'}


def _check_axes(op, shape, axes, norm):
    if norm not in NORMS:
        raise OpError("%s: norm must be 'forward', 'backward' or 'ortho', got %r" % (op, norm))
    if not axes:
        raise OpError("%s: axes must not be empty" % op)
    for a in axes:
        if not 0 <= a < len(shape):
            raise OpError("%s: axis %d is out of range for a tensor of shape %s"
                          % (op, a, list(shape)))
        if shape[a] == 0:
            raise OpError("%s: the transformed axis %d of x (shape %s) is empty"
                          % (op, a, list(shape)))


def _float_input(op, x):
    d = np.dtype(meta.dtype_of(x))
    if d not in (np.float32, np.float64):
        raise OpError("%s: x must be float32 or float64, got %s" % (op, d))
    return d


def _complex_input(op, x):
    d = np.dtype(meta.dtype_of(x))
    if d.kind != 'c':
        raise OpError("%s: x must be complex64 or complex128, got %s" % (op, d))
    return d


# ---- complex -> complex ------------------------------------------------------------

def _c2c_meta(x, axes, norm, forward):
    d = _complex_input('fft_c2c', x)
    _check_axes('fft_c2c', meta.shape_of(x), axes, norm)
    return Meta(meta.shape_of(x), d)


@def_op('fft_c2c', _c2c_meta, save_inputs=False, pattern='opaque')
def fft_c2c_op(x, axes=(-1,), norm='backward', forward=True):
    """The n-D transform of a complex x over ``axes``."""
    _c2c_meta(x, axes, norm, forward)
    f = np.fft.fftn if forward else np.fft.ifftn
    return f(x, axes=axes, norm=norm).astype(x.dtype, copy=False)


@fft_c2c_op.def_grad
def _c2c_grad(g, x, out, axes, norm, forward):
    return fft_c2c_op(g, axes, _DUAL[norm], not forward)


# ---- real -> complex ---------------------------------------------------------------

def _half(n):
    return n // 2 + 1 if n >= 0 else -1


def _r2c_meta(x, axes, norm, forward, onesided):
    d = _float_input('fft_r2c', x)
    shape = list(meta.shape_of(x))
    _check_axes('fft_r2c', shape, axes, norm)
    if onesided:
        shape[axes[-1]] = _half(shape[axes[-1]])
    return Meta(shape, complex_dtype(d))


def _r2c(x, axes, norm, forward, onesided):
    # the inverse transform of a real signal is the conjugate of the forward
    # one with the dual scale: ifft(x) = conj(fft(x, norm=dual))
    n = norm if forward else _DUAL[norm]
    out = (np.fft.rfftn if onesided else np.fft.fftn)(x, axes=axes, norm=n)
    if not forward:
        out = np.conj(out)
    return out.astype(complex_dtype(x.dtype), copy=False)


@def_op('fft_r2c', _r2c_meta, save_inputs=False, pattern='opaque')
def fft_r2c_op(x, axes=(-1,), norm='backward', forward=True, onesided=True):
    """The n-D transform of a real x; one-sided keeps n//2+1 bins of the last axis."""
    _r2c_meta(x, axes, norm, forward, onesided)
    return _r2c(x, axes, norm, forward, onesided)


@fft_r2c_op.def_grad
def _r2c_grad(g, x, out, axes, norm, forward, onesided):
    return fft_r2c_grad_op(g, x, axes, norm, forward, onesided)


def _r2c_grad_meta(g, x, axes, norm, forward, onesided):
    return Meta(meta.shape_of(x), real_dtype(meta.dtype_of(g)))


@def_op('fft_r2c_grad', _r2c_grad_meta, no_grad_inputs=('x',), save_inputs=False, pattern='opaque')
def fft_r2c_grad_op(g, x, axes=(-1,), norm='backward', forward=True, onesided=True):
    """The adjoint of ``fft_r2c`` (x gives the shape): the dropped frequencies
    are zero, the opposite transform runs, and the real part is the gradient."""
    if onesided:
        last = axes[-1]
        pad = [(0, 0)] * g.ndim
        pad[last] = (0, x.shape[last] - g.shape[last])
        g = np.pad(g, pad)
    full = np.fft.ifftn(g, axes=axes, norm=_DUAL[norm]) if forward else \
        np.fft.fftn(g, axes=axes, norm=_DUAL[norm])
    return np.real(full).astype(real_dtype(g.dtype))


@fft_r2c_grad_op.def_grad
def _r2c_grad_grad(gg, g, x, out, axes, norm, forward, onesided):
    return fft_r2c_op(gg, axes, norm, forward, onesided), None


# ---- complex (Hermitian half) -> real ------------------------------------------------

def _c2r_size(op, shape, axes, last_dim_size):
    """The output length along the last axis, checking the input holds n//2+1 bins."""
    m = shape[axes[-1]]
    n = last_dim_size if last_dim_size > 0 else (2 * (m - 1) if m >= 0 else -1)
    if n == 0 or (m >= 0 and n > 0 and n // 2 + 1 != m):
        raise OpError("%s: a real output of length %d along axis %d needs %d input bins, "
                      "x has shape %s" % (op, n, axes[-1], n // 2 + 1, list(shape)))
    return n


def _c2r_meta(x, axes, norm, forward, last_dim_size):
    d = _complex_input('fft_c2r', x)
    shape = list(meta.shape_of(x))
    _check_axes('fft_c2r', shape, axes, norm)
    shape[axes[-1]] = _c2r_size('fft_c2r', shape, axes, last_dim_size)
    return Meta(shape, real_dtype(d))


@def_op('fft_c2r', _c2r_meta, save_inputs=False, pattern='opaque')
def fft_c2r_op(x, axes=(-1,), norm='backward', forward=False, last_dim_size=0):
    """The real signal whose spectrum over ``axes`` has x as its one-sided half
    (``last_dim_size`` points, 0 for 2 * (bins - 1))."""
    m = _c2r_meta(x, axes, norm, forward, last_dim_size)
    s = [m.shape[a] for a in axes]
    if forward:   # hfft: a forward transform of a Hermitian signal
        out = np.fft.irfftn(np.conj(x), s=s, axes=axes, norm=_DUAL[norm])
    else:
        out = np.fft.irfftn(x, s=s, axes=axes, norm=norm)
    return out.astype(real_dtype(x.dtype), copy=False)


@fft_c2r_op.def_grad
def _c2r_grad(g, x, out, axes, norm, forward, last_dim_size):
    return fft_c2r_grad_op(g, axes, norm, forward, last_dim_size)


def _c2r_grad_meta(g, axes, norm, forward, last_dim_size):
    _float_input('fft_c2r_grad', g)
    shape = list(meta.shape_of(g))
    shape[axes[-1]] = _half(shape[axes[-1]])
    return Meta(shape, complex_dtype(meta.dtype_of(g)))


@def_op('fft_c2r_grad', _c2r_grad_meta, save_inputs=False, pattern='opaque')
def fft_c2r_grad_op(g, axes=(-1,), norm='backward', forward=False, last_dim_size=0):
    """The adjoint of ``fft_c2r``: the one-sided transform of g in the opposite
    direction, with the bins that stand for a conjugate pair counted twice."""
    _float_input('fft_c2r_grad', g)
    half = _r2c(g, axes, _DUAL[norm], not forward, True)
    n = g.shape[axes[-1]]
    weight = np.full(half.shape[axes[-1]], 2.0)
    weight[0] = 1.0
    if n % 2 == 0:
        weight[-1] = 1.0   # the Nyquist bin has no partner
    shape = [1] * half.ndim
    shape[axes[-1]] = -1
    return (half * weight.reshape(shape)).astype(half.dtype, copy=False)


@fft_c2r_grad_op.def_grad
def _c2r_grad_grad(gg, g, out, axes, norm, forward, last_dim_size):
    return fft_c2r_op(gg, axes, norm, forward, last_dim_size)


# ---- public API: argument checks and resizing ----------------------------------------

def _check_norm(norm):
    if norm not in NORMS:
        raise ValueError("Unexpected norm: %s. Norm should be forward, backward or ortho" % norm)


def _check_n(n):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ValueError("Invalid FFT argument n(%s), it should be an integer." % (n,))
    if n <= 0:
        raise ValueError("Invalid FFT argument n(%s), it should be positive." % n)
    return int(n)


def _check_axis(x, axis):
    nd = len(x.shape)
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ValueError("Invalid FFT axis (%s), it should be an integer." % (axis,))
    if not -nd <= axis < nd:
        raise ValueError("Invalid FFT axis (%s), it should be in range [-%d, %d)" % (axis, nd, nd))
    return int(axis) % nd


def _check_shape(x, s):
    if not isinstance(s, (list, tuple)):
        raise ValueError("Invalid FFT argument s(%s), it should be a sequence of integers." % (s,))
    if len(s) > len(x.shape):
        raise ValueError("Length of FFT argument s should not be larger than the rank of input. "
                         "Received s: %s, rank of x: %d" % (list(s), len(x.shape)))
    for size in s:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
            raise ValueError("FFT sizes %s contains invalid value (%s)" % (list(s), size))
    return [int(v) for v in s]


def _check_axes_arg(x, axes):
    nd = len(x.shape)
    if isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        axes = [axes]
    if not isinstance(axes, (list, tuple)):
        raise ValueError("Invalid FFT axes (%s), it should be a sequence of integers." % (axes,))
    if len(axes) > nd:
        raise ValueError("Length of fft axes should not be larger than the rank of input. "
                         "Received, len of axes: %d, rank of x: %d" % (len(axes), nd))
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not -nd <= a < nd:
            raise ValueError("FFT axes %s contains invalid value (%s), it should be in range "
                             "[-%d, %d)" % (list(axes), a, nd, nd))
    return [int(a) % nd for a in axes]


def _resize(x, sizes, axes):
    """Crop or zero-pad x to ``sizes`` along ``axes`` (differentiable ops)."""
    shape = list(x.shape)
    crop = [slice(None)] * len(shape)
    pads = [(0, 0)] * len(shape)
    for n, a in zip(sizes, axes):
        if shape[a] < 0:
            raise ValueError("FFT sizes need the length of axis %d, which is unknown here "
                             "(shape %s)" % (a, shape))
        if shape[a] > n:
            crop[a] = slice(0, n)
        elif shape[a] < n:
            pads[a] = (0, n - shape[a])
    if any(c != slice(None) for c in crop):
        x = x[tuple(crop)]
    if any(p != (0, 0) for p in pads):
        x = lib.pad_op(x, tuple(pads), 'constant', 0.0)
    return x


def _to_complex(x):
    d = np.dtype(x.dtype)
    if d.kind == 'c':
        return x
    return lib.cast(x, complex_dtype(d))


def _to_float(x, op):
    d = np.dtype(x.dtype)
    if d.kind == 'c':
        raise TypeError("%s: x must be a real tensor, got %s" % (op, d))
    if d.kind in 'iub':
        return lib.cast(x, _dt.default_float())
    if d not in (np.float32, np.float64):
        raise TypeError("%s: x must be float32 or float64, got %s" % (op, d))
    return x


def _finish(ret, out):
    if out is not None:
        lib.assign(ret, out)
        return out
    return ret


def _is_real(x):
    return np.dtype(x.dtype).kind != 'c'


def _one_axis(x, n, axis, norm):
    _check_norm(norm)
    axis = _check_axis(x, axis)
    return (None if n is None else _check_n(n)), axis


def _c2c(x, n, axis, norm, forward, out):
    n, axis = _one_axis(x, n, axis, norm)
    x = _to_complex(x)
    if n is not None:
        x = _resize(x, [n], [axis])
    return _finish(fft_c2c_op(x, (axis,), norm, forward), out)


def _r2c1(x, n, axis, norm, forward, onesided, out, api):
    x = _to_float(x, api)
    n, axis = _one_axis(x, n, axis, norm)
    if n is not None:
        x = _resize(x, [n], [axis])
    return _finish(fft_r2c_op(x, (axis,), norm, forward, onesided), out)


def _c2r1(x, n, axis, norm, forward, out):
    n, axis = _one_axis(x, n, axis, norm)
    x = _to_complex(x)
    if n is not None:
        x = _resize(x, [n // 2 + 1], [axis])
    return _finish(fft_c2r_op(x, (axis,), norm, forward, n or 0), out)


def _nd_axes(x, s, axes, keep_last):
    """Paddle's rule for (s, axes): axes default to the last len(s) dims (or all);
    they are sorted (the last one stays last for the real transforms)."""
    if s is not None:
        s = _check_shape(x, s)
    nd = len(x.shape)
    if axes is None:
        axes = list(range(nd)) if s is None else list(range(nd - len(s), nd))
        return s, axes
    axes = _check_axes_arg(x, axes)
    body = axes[:-1] if keep_last else axes
    order = sorted(range(len(body)), key=lambda i: body[i])
    tail = [len(axes) - 1] if keep_last else []
    if s is not None and len(s) != len(axes):
        raise ValueError("Length of s (%d) and length of axes (%d) does not match."
                         % (len(s), len(axes)))
    idx = order + tail
    return (None if s is None else [s[i] for i in idx]), [axes[i] for i in idx]


def _c2c_nd(x, s, axes, norm, forward, out):
    _check_norm(norm)
    x = _to_complex(x)
    s, axes = _nd_axes(x, s, axes, False)
    if s is not None:
        x = _resize(x, s, axes)
    return _finish(fft_c2c_op(x, tuple(axes), norm, forward), out)


def _r2c_nd(x, s, axes, norm, forward, onesided, out, api):
    _check_norm(norm)
    x = _to_float(x, api)
    s, axes = _nd_axes(x, s, axes, onesided)
    if s is not None:
        x = _resize(x, s, axes)
    return _finish(fft_r2c_op(x, tuple(axes), norm, forward, onesided), out)


def _c2r_nd(x, s, axes, norm, forward, out):
    _check_norm(norm)
    x = _to_complex(x)
    s, axes = _nd_axes(x, s, axes, True)
    if s is not None:
        x = _resize(x, s[:-1] + [s[-1] // 2 + 1], axes)
    return _finish(fft_c2r_op(x, tuple(axes), norm, forward, s[-1] if s else 0), out)


def _two_d(x, s, axes):
    if len(x.shape) < 2:
        raise ValueError("The rank of the input (%d) should >= 2" % len(x.shape))
    if s is not None and (not isinstance(s, (list, tuple)) or len(s) != 2):
        raise ValueError("Invalid FFT argument s (%s), it should be a sequence of 2 integers."
                         % (s,))
    if axes is not None and (not isinstance(axes, (list, tuple)) or len(axes) != 2):
        raise ValueError("Invalid FFT argument axes (%s), it should be a sequence of 2 integers."
                         % (axes,))


# ---- public API: 1-D ------------------------------------------------------------------

def fft(x, n=None, axis=-1, norm='backward', name=None, *, out=None):
    """The 1-D discrete Fourier transform along ``axis`` (complex result).

    >>> import framework as paddle
    >>> paddle.fft.fft(paddle.to_tensor([1.0, 0.0, 0.0, 0.0])).tolist()
    [(1+0j), (1+0j), (1+0j), (1+0j)]
    """
    if _is_real(x):
        return _r2c1(x, n, axis, norm, True, False, out, 'fft')
    return _c2c(x, n, axis, norm, True, out)


def ifft(x, n=None, axis=-1, norm='backward', name=None, *, out=None):
    """The inverse of ``fft``."""
    if _is_real(x):
        return _r2c1(x, n, axis, norm, False, False, out, 'ifft')
    return _c2c(x, n, axis, norm, False, out)


def rfft(x, n=None, axis=-1, norm='backward', name=None, *, out=None):
    """The transform of a real signal: the n//2+1 non-negative frequencies."""
    return _r2c1(x, n, axis, norm, True, True, out, 'rfft')


def irfft(x, n=None, axis=-1, norm='backward', name=None, *, out=None):
    """The inverse of ``rfft``: a real signal of length n (default 2*(m-1))."""
    return _c2r1(x, n, axis, norm, False, out)


def hfft(x, n=None, axis=-1, norm='backward', name=None, *, out=None):
    """The (real) transform of a signal with Hermitian symmetry, given by its half."""
    return _c2r1(x, n, axis, norm, True, out)


def ihfft(x, n=None, axis=-1, norm='backward', name=None, *, out=None):
    """The inverse of ``hfft``: the n//2+1 non-negative frequencies of ifft(x)."""
    return _r2c1(x, n, axis, norm, False, True, out, 'ihfft')


# ---- public API: n-D and 2-D -------------------------------------------------------------

def fftn(x, s=None, axes=None, norm='backward', name=None, *, out=None):
    """The n-D transform over ``axes`` (default: the last len(s) axes, or all)."""
    if _is_real(x):
        return _r2c_nd(x, s, axes, norm, True, False, out, 'fftn')
    return _c2c_nd(x, s, axes, norm, True, out)


def ifftn(x, s=None, axes=None, norm='backward', name=None, *, out=None):
    if _is_real(x):
        return _r2c_nd(x, s, axes, norm, False, False, out, 'ifftn')
    return _c2c_nd(x, s, axes, norm, False, out)


def rfftn(x, s=None, axes=None, norm='backward', name=None, *, out=None):
    return _r2c_nd(x, s, axes, norm, True, True, out, 'rfftn')


def irfftn(x, s=None, axes=None, norm='backward', name=None, *, out=None):
    return _c2r_nd(x, s, axes, norm, False, out)


def hfftn(x, s=None, axes=None, norm='backward', name=None, *, out=None):
    return _c2r_nd(x, s, axes, norm, True, out)


def ihfftn(x, s=None, axes=None, norm='backward', name=None, *, out=None):
    return _r2c_nd(x, s, axes, norm, False, True, out, 'ihfftn')


def fft2(x, s=None, axes=(-2, -1), norm='backward', name=None, *, out=None):
    _two_d(x, s, axes)
    return fftn(x, s, axes, norm, out=out)


def ifft2(x, s=None, axes=(-2, -1), norm='backward', name=None, *, out=None):
    _two_d(x, s, axes)
    return ifftn(x, s, axes, norm, out=out)


def rfft2(x, s=None, axes=(-2, -1), norm='backward', name=None, *, out=None):
    _two_d(x, s, axes)
    return rfftn(x, s, axes, norm, out=out)


def irfft2(x, s=None, axes=(-2, -1), norm='backward', name=None, *, out=None):
    _two_d(x, s, axes)
    return irfftn(x, s, axes, norm, out=out)


def hfft2(x, s=None, axes=(-2, -1), norm='backward', name=None, *, out=None):
    _two_d(x, s, axes)
    return hfftn(x, s, axes, norm, out=out)


def ihfft2(x, s=None, axes=(-2, -1), norm='backward', name=None, *, out=None):
    _two_d(x, s, axes)
    return ihfftn(x, s, axes, norm, out=out)


# ---- public API: frequencies and shifts ---------------------------------------------------

def _freq_dtype(dtype):
    return _dt.convert_dtype(dtype) if dtype is not None else _dt.default_float()


def _frequencies(values, n, d, dtype, out, requires_grad):
    if d * n == 0:
        raise ValueError("d or n should not be 0.")
    ret = lib.to_tensor(np.asarray(values, np.float64).astype(_freq_dtype(dtype)) / (n * d),
                        stop_gradient=not requires_grad)
    return _finish(ret, out)


def fftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """Sample frequencies of an n-point transform: [0, 1, ..., -2, -1] / (d * n)."""
    idx = np.roll(np.arange(-(n // 2), (n + 1) // 2), -(n // 2)) if n > 0 else []
    return _frequencies(idx, n, d, dtype, out, requires_grad)


def rfftfreq(n, d=1.0, dtype=None, name=None, *, out=None, device=None, requires_grad=False):
    """Sample frequencies of ``rfft``: [0, 1, ..., n // 2] / (d * n)."""
    return _frequencies(np.arange(0, n // 2 + 1) if n > 0 else [], n, d, dtype, out,
                        requires_grad)


def _shift(x, axes, inverse):
    shape = list(x.shape)
    if axes is None:
        axes = list(range(len(shape)))
    elif isinstance(axes, (int, np.integer)):
        axes = [int(axes)]
    axes = [int(a) % max(len(shape), 1) for a in axes]
    if any(shape[a] < 0 for a in axes):
        raise ValueError("fftshift needs the sizes of axes %s, x has shape %s" % (axes, shape))
    shifts = [(shape[a] + 1) // 2 if inverse else shape[a] // 2 for a in axes]
    return lib.roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    """Move the zero frequency to the centre (along ``axes``, default all)."""
    return _shift(x, axes, False)


def ifftshift(x, axes=None, name=None):
    """The inverse of ``fftshift``."""
    return _shift(x, axes, True)


__all__ = ['fft', 'ifft', 'rfft', 'irfft', 'hfft', 'ihfft', 'fftn', 'ifftn', 'rfftn',
           'irfftn', 'hfftn', 'ihfftn', 'fft2', 'ifft2', 'rfft2', 'irfft2', 'hfft2', 'ihfft2',
           'fftfreq', 'rfftfreq', 'fftshift', 'ifftshift']


# ---- test cases: numpy.fft is the reference ------------------------------------------------

_rng = np.random.default_rng(17)


def _c(shape, dtype=np.complex128):
    return (_rng.standard_normal(shape) + 1j * _rng.standard_normal(shape)).astype(dtype)


def _r(shape, dtype=np.float64):
    return _rng.standard_normal(shape).astype(dtype)


def _np_c2c(x, axes, norm, forward):
    return (np.fft.fftn if forward else np.fft.ifftn)(x, axes=axes, norm=norm)


add_test_case(fft_c2c_op, _c(6), (0,), 'backward', True, ref=_np_c2c)
add_test_case(fft_c2c_op, _c((2, 3, 4)), (1, 2), 'ortho', False, ref=_np_c2c)
add_test_case(fft_c2c_op, _c((3, 5)), (0,), 'forward', True, ref=_np_c2c)
add_test_case(fft_c2c_op, _c((0, 4), np.complex64), (1,), 'backward', False,
              ref=lambda x, a, n, f: np.zeros((0, 4), np.complex64))
add_test_case(fft_c2c_op, _c((3, 4), np.complex64), (0, 1), 'backward', True,
              ref=lambda x, a, n, f: np.fft.fftn(x, axes=a).astype(np.complex64),
              rtol=1e-4, atol=1e-5, grad=False)


def _np_r2c(x, axes, norm, forward, onesided):
    if forward:
        return (np.fft.rfftn if onesided else np.fft.fftn)(x, axes=axes, norm=norm)
    full = np.fft.ifftn(x, axes=axes, norm=norm)
    if onesided:
        full = np.take(full, np.arange(x.shape[axes[-1]] // 2 + 1), axis=axes[-1])
    return full


add_test_case(fft_r2c_op, _r(6), (0,), 'backward', True, True, ref=_np_r2c)
add_test_case(fft_r2c_op, _r(5), (0,), 'ortho', True, True, ref=_np_r2c)
add_test_case(fft_r2c_op, _r((2, 3, 4)), (0, 2), 'forward', True, True, ref=_np_r2c)
add_test_case(fft_r2c_op, _r((3, 4)), (1,), 'backward', False, True, ref=_np_r2c)
add_test_case(fft_r2c_op, _r((4, 3)), (0, 1), 'backward', False, False, ref=_np_r2c)
add_test_case(fft_r2c_op, _r((0, 5), np.float32), (1,), 'backward', True, True,
              ref=lambda x, a, n, f, o: np.zeros((0, 3), np.complex64))
add_test_case(fft_r2c_op, _r((2, 4), np.float32), (1,), 'backward', True, True,
              ref=lambda x, a, n, f, o: np.fft.rfft(x).astype(np.complex64), rtol=1e-4,
              atol=1e-5, grad=False)


def _np_c2r(x, axes, norm, forward, last_dim_size):
    n = last_dim_size or 2 * (x.shape[axes[-1]] - 1)
    if len(axes) == 1:
        f = np.fft.hfft if forward else np.fft.irfft
        return f(x, n=n, axis=axes[0], norm=norm)
    # inverse over the other axes, then the real inverse over the last one
    y = np.fft.ifftn(x, axes=axes[:-1], norm=norm)
    return np.fft.irfft(y, n=n, axis=axes[-1], norm=norm)


add_test_case(fft_c2r_op, _c(4), (0,), 'backward', False, 0, ref=_np_c2r)
add_test_case(fft_c2r_op, _c(4), (0,), 'ortho', False, 7, ref=_np_c2r)
add_test_case(fft_c2r_op, _c((2, 3, 3)), (1, 2), 'forward', False, 5, ref=_np_c2r)
add_test_case(fft_c2r_op, _c((3, 4)), (1,), 'backward', True, 6, ref=_np_c2r)
add_test_case(fft_c2r_op, _c((3, 4)), (1,), 'ortho', True, 0, ref=_np_c2r)
add_test_case(fft_c2r_op, _c((0, 3), np.complex64), (1,), 'backward', False, 0,
              ref=lambda x, a, n, f, d: np.zeros((0, 4), np.float32))
add_test_case(fft_r2c_grad_op, _c((2, 3)), _r((2, 4)), (1,), 'backward', True, True,
              ref=lambda g, x, a, n, f, o: np.real(np.fft.ifft(
                  np.concatenate([g, np.zeros((2, 1))], 1), norm='forward')))
add_test_case(fft_r2c_grad_op, _c((3, 4)), _r((3, 4)), (0, 1), 'ortho', False, False,
              ref=lambda g, x, a, n, f, o: np.real(np.fft.fftn(g, norm='ortho')))


def _np_c2r_grad(g, axes, norm, forward, last_dim_size):
    half = np.fft.rfft(g, norm=_DUAL[norm]) if not forward else \
        np.conj(np.fft.rfft(g, norm=norm))
    w = np.full(half.shape[-1], 2.0)
    w[0] = 1
    if g.shape[-1] % 2 == 0:
        w[-1] = 1
    return half * w


add_test_case(fft_c2r_grad_op, _r((2, 6)), (1,), 'backward', False, 6, ref=_np_c2r_grad)
add_test_case(fft_c2r_grad_op, _r(5), (0,), 'ortho', True, 5, ref=_np_c2r_grad)
