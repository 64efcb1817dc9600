"""Bilinear sampling at arbitrary positions, differentiable in the image and
in the positions to any order: the primitive under ``deform_conv2d``.

``bilinear_sample(x, py, px, dy, dx)`` reads ``x`` [B, C, H, W] at the
positions ``(py[b, p], px[b, p])`` ([B, P], in pixels) and returns [B, C, P].
Each of the four neighbouring pixels contributes with a weight that is a
product of a row and a column factor; pixels outside the image count as zero
(Paddle's deformable convolution). With ``dy = 0`` the row factors are the
interpolation weights ``(1 - ly, ly)`` of the fractional part ``ly``; with
``dy = 1`` they are their derivative in ``py``, ``(-1, 1)`` (same for ``dx``).
So the derivative of a sample in a position is another sample with that
order raised, and the family closes under differentiation:

    d bilinear_sample(x, py, px, 0, dx) / d py  =  bilinear_sample(x, py, px, 1, dx)
    d bilinear_sample(x, py, px, 1, dx) / d py  =  0   (linear in py between pixels)

``bilinear_sample_grad(g, py, px, x, dy, dx)`` is the adjoint in ``x`` (it
scatters ``g`` back onto the pixels; ``x`` only gives the shape), and the
same rule gives its own derivative in the positions.
"""
import numpy as np

from .. import meta
from ..reduce import sum_op
from ..registry import Meta, OpError, add_test_case, def_op
from . import reference as ref
from .common import check_float

__all__ = []


def _check(api, x, py, px, g=None):
    xs, ps = list(meta.shape_of(x)), list(meta.shape_of(py))
    if len(xs) != 4:
        raise OpError("%s: x must be 4-D [B, C, H, W], got shape %s" % (api, xs))
    if len(ps) != 2 or list(meta.shape_of(px)) != ps:
        raise OpError("%s: py and px must both be [B, P], got shapes %s and %s"
                      % (api, ps, list(meta.shape_of(px))))
    if -1 not in (xs[0], ps[0]) and xs[0] != ps[0]:
        raise OpError("%s: the positions are for %d images but x has %d (x shape %s, "
                      "py shape %s)" % (api, ps[0], xs[0], xs, ps))
    for name, m in (('x', x), ('py', py), ('px', px)):
        check_float(api, name, m)
    dtypes = {np.dtype(meta.dtype_of(m)) for m in (x, py, px)}
    if len(dtypes) > 1:
        raise OpError("%s: x, py and px must share one dtype, got %s"
                      % (api, ', '.join(str(meta.dtype_of(m)) for m in (x, py, px))))


def _factors(pos, order, size):
    """The two neighbours' indices [2, B, P] along one axis and their factors,
    zero for neighbours outside ``[0, size)``."""
    low = np.floor(pos)
    frac = pos - low
    low = low.astype(np.int64)
    index = np.stack([low, low + 1])
    if order:
        factor = np.stack([-np.ones_like(frac), np.ones_like(frac)])
    else:
        factor = np.stack([1 - frac, frac])
    inside = (index >= 0) & (index < size)
    return np.where(inside, index, 0), factor * inside


def _corners(py, px, height, width, dy, dx):
    """Flat pixel indices [4, B, P] of the four neighbours and their weights."""
    rows, fy = _factors(py, dy, height)
    cols, fx = _factors(px, dx, width)
    flat = (rows[:, None] * width + cols[None, :]).reshape(4, *py.shape)
    weight = (fy[:, None] * fx[None, :]).reshape(4, *py.shape)
    return flat, weight


def _sample_meta(x, py, px, dy, dx):
    _check('bilinear_sample', x, py, px)
    xs = meta.shape_of(x)
    return Meta([xs[0], xs[1], meta.shape_of(py)[1]], meta.dtype_of(x))


@def_op('bilinear_sample', _sample_meta, inputs=('x', 'py', 'px'), attrs={'dy': 0, 'dx': 0},
        pattern='opaque')
def bilinear_sample_op(x, py, px, dy, dx):
    """``x`` [B, C, H, W] read at the positions (py, px) [B, P]: [B, C, P]."""
    _check('bilinear_sample', x, py, px)
    b, c, h, w = x.shape
    flat, weight = _corners(py, px, h, w, dy, dx)
    planes = x.reshape(b, c, h * w)
    out = np.zeros((b, c, py.shape[1]), x.dtype)
    for k in range(4):
        out += np.take_along_axis(planes, flat[k][:, None, :], axis=2) * weight[k][:, None, :]
    return out


def _position_grads(g, image, py, px, dy, dx):
    """<g, d sample(image) / d position>, summed over channels, for each position."""
    gpy = sum_op(g * bilinear_sample_op(image, py, px, 1, dx), (1,)) if dy == 0 else None
    gpx = sum_op(g * bilinear_sample_op(image, py, px, dy, 1), (1,)) if dx == 0 else None
    return gpy, gpx


@bilinear_sample_op.def_grad
def _sample_grad(g, x, py, px, out, dy, dx):
    gpy, gpx = _position_grads(g, x, py, px, dy, dx)
    return bilinear_sample_grad_op(g, py, px, x, dy, dx), gpy, gpx


def _scatter_meta(g, py, px, x, dy, dx):
    _check('bilinear_sample_grad', x, py, px)
    return Meta(meta.shape_of(x), meta.dtype_of(g))


@def_op('bilinear_sample_grad', _scatter_meta, inputs=('out_grad', 'py', 'px', 'x'),
        attrs={'dy': 0, 'dx': 0}, no_grad_inputs=('x',), pattern='opaque')
def bilinear_sample_grad_op(out_grad, py, px, x, dy, dx):
    """The adjoint of ``bilinear_sample`` in x: ``out_grad`` [B, C, P] added
    onto the pixels each position read (``x`` only gives the shape)."""
    _scatter_meta(out_grad, py, px, x, dy, dx)
    b, c, h, w = x.shape
    flat, weight = _corners(py, px, h, w, dy, dx)
    rows = (np.arange(b * c) * (h * w)).reshape(b, c, 1)
    index = (rows[None] + flat[:, :, None, :]).ravel()
    values = (out_grad[None] * weight[:, :, None, :]).ravel()
    gx = np.bincount(index, weights=values, minlength=b * c * h * w)
    return gx.astype(out_grad.dtype, copy=False).reshape(x.shape)


@bilinear_sample_grad_op.def_grad
def _scatter_grad(gg, g, py, px, x, out, dy, dx):
    # <gg, scatter(g)> = <g, sample(gg)>: differentiate the right-hand side
    gpy, gpx = _position_grads(g, gg, py, px, dy, dx)
    return bilinear_sample_op(gg, py, px, dy, dx), gpy, gpx, None


# ---- registry test cases ------------------------------------------------------------------
# Positions stay clear of whole pixels (where the interpolation has kinks) so
# finite differences are exact; some fall outside the image, some on its border.

def _positions(rng, shape, lo, hi):
    pos = rng.uniform(lo, hi, shape)
    return np.floor(pos) + np.clip(pos - np.floor(pos), 0.1, 0.9)


_rng = np.random.default_rng(0)
_X = _rng.standard_normal((2, 2, 3, 4))
_PY, _PX = _positions(_rng, (2, 5), -1.5, 3.5), _positions(_rng, (2, 5), -1.5, 4.5)
for _dy, _dx in ((0, 0), (1, 0), (0, 1), (1, 1)):
    add_test_case(bilinear_sample_op, _X, _PY, _PX, _dy, _dx, ref=ref.bilinear_sample)
add_test_case(bilinear_sample_op, _X.astype('float32'), _PY.astype('float32'),
              _PX.astype('float32'), 0, 0, ref=ref.bilinear_sample, atol=1e-5, grad=False)
add_test_case(bilinear_sample_op, _X, np.zeros((2, 0)), np.zeros((2, 0)), 0, 0,
              ref=ref.bilinear_sample)


def _scatter_ref(g, py, px, x, dy, dx):
    """The adjoint through the reference's matrix, one pixel at a time."""
    out = np.zeros(x.shape)
    for k in range(x[0, 0].size):
        e = np.zeros(x.shape)
        e[:, :, k // x.shape[3], k % x.shape[3]] = 1
        out[:, :, k // x.shape[3], k % x.shape[3]] = (
            ref.bilinear_sample(e, py, px, dy, dx) * g).sum(axis=2)
    return out


_G = _rng.standard_normal((2, 2, 5))
for _dy, _dx in ((0, 0), (1, 0), (0, 1)):
    add_test_case(bilinear_sample_grad_op, _G, _PY, _PX, _X, _dy, _dx, ref=_scatter_ref)
add_test_case(bilinear_sample_grad_op, _G[:, :, :0], _PY[:, :0], _PX[:, :0], _X, 0, 0,
              ref=_scatter_ref)
