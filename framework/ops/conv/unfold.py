"""``unfold`` (im2col) and ``fold`` (col2im): sliding blocks of an image as
columns and back. Each is the other's adjoint, so each one's gradient is the
other op and derivatives of any order work in both modes.

``unfold``: ``[N, C, H, W]`` -> ``[N, C*KH*KW, L]`` with ``L = OH*OW`` blocks;
channel index ``c*KH*KW + i*KW + j`` holds kernel tap ``(i, j)`` of channel
``c``. ``fold`` sums overlapping blocks back into ``[N, C, H, W]``.
Attributes are canonical lists: ``kernel_sizes``, ``strides``, ``dilations``
with 2 ints, ``paddings`` with 4 (top, bottom, left, right).
"""
import numpy as np

from .. import meta
from ..registry import Meta, OpError, add_test_case, def_op
from . import params as P
from .algorithms import conv_out_size

_ATTRS = {'kernel_sizes': [1, 1], 'strides': [1, 1], 'paddings': [0, 0, 0, 0],
          'dilations': [1, 1]}


def _blocks(api, hw, kernel_sizes, strides, paddings, dilations):
    """(OH, OW) of the block grid, checked to be non-empty."""
    out = [conv_out_size(hw[i], kernel_sizes[i], strides[i], dilations[i], paddings[2 * i],
                         paddings[2 * i + 1]) if hw[i] >= 0 else -1 for i in range(2)]
    if any(o == 0 or o < -1 for o in out):
        raise OpError("%s: no block fits: spatial size %s, kernel_sizes %s, strides %s, "
                      "paddings %s, dilations %s" % (api, list(hw), list(kernel_sizes),
                                                     list(strides), list(paddings),
                                                     list(dilations)))
    return out


def _taps(kernel_sizes, strides, dilations, out):
    """(i, j, rows, cols): the padded-image slices kernel tap (i, j) reads."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel_sizes, strides, dilations, out
    for i in range(kh):
        for j in range(kw):
            yield (i, j, slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                   slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))


def _unfold_meta(x, kernel_sizes, strides, paddings, dilations):
    xs = meta.shape_of(x)
    if len(xs) != 4:
        raise OpError("unfold: x must be 4-D [N, C, H, W], got shape %s" % list(xs))
    oh, ow = _blocks('unfold', xs[2:], kernel_sizes, strides, paddings, dilations)
    c = xs[1] * kernel_sizes[0] * kernel_sizes[1] if xs[1] >= 0 else -1
    return Meta([xs[0], c, oh * ow if oh >= 0 and ow >= 0 else -1], meta.dtype_of(x))


@def_op('unfold', _unfold_meta, inputs=('x',), attrs=_ATTRS, save_inputs=False, pattern='opaque')
def unfold_op(x, kernel_sizes, strides, paddings, dilations):
    """Sliding blocks of ``x`` as columns ``[N, C*KH*KW, OH*OW]``."""
    n, c, h, w = x.shape
    out = _blocks('unfold', (h, w), kernel_sizes, strides, paddings, dilations)
    pt, pb, pl, pr = paddings
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr))) if any(paddings) else x
    cols = np.empty((n, c) + tuple(kernel_sizes) + tuple(out), x.dtype)
    for i, j, rows, colsl in _taps(kernel_sizes, strides, dilations, out):
        cols[:, :, i, j] = xp[:, :, rows, colsl]
    return cols.reshape(n, c * kernel_sizes[0] * kernel_sizes[1], out[0] * out[1])


@unfold_op.def_onnx
def _unfold_onnx(g, x, kernel_sizes, strides, paddings, dilations):
    # one strided slice per kernel tap (exact, any dtype), stacked after the channel
    c, h, w = g.meta(x).shape[1:]
    if h < 0 or w < 0:
        raise OpError("unfold: the spatial sizes of x (shape %s) must be known to export to "
                      "ONNX" % list(g.meta(x).shape))
    oh, ow = _blocks('unfold', (h, w), kernel_sizes, strides, paddings, dilations)
    pt, pb, pl, pr = paddings
    if any(paddings):
        x = g.op('Pad', x, g.ints([0, 0, pt, pl, 0, 0, pb, pr]))
    (kh, kw), (sh, sw), (dh, dw) = kernel_sizes, strides, dilations
    taps = []
    for i in range(kh):
        for j in range(kw):
            t = g.op('Slice', x, g.ints([i * dh, j * dw]),
                     g.ints([i * dh + sh * (oh - 1) + 1, j * dw + sw * (ow - 1) + 1]),
                     g.ints([2, 3]), g.ints([sh, sw]))
            taps.append(g.unsqueeze(t, [2]))
    cols = g.op('Concat', *taps, axis=2)
    blocks = c * kh * kw if c >= 0 else -1     # -1 cannot stand beside a 0 (no blocks)
    return g.op('Reshape', cols, g.ints([0, blocks, oh * ow]))


def _fold_meta(x, output_sizes, kernel_sizes, strides, paddings, dilations):
    xs = meta.shape_of(x)
    if len(xs) != 3:
        raise OpError("fold: x must be 3-D [N, C*KH*KW, L], got shape %s" % list(xs))
    k = kernel_sizes[0] * kernel_sizes[1]
    if xs[1] >= 0 and xs[1] % k:
        raise OpError("fold: the channel dim %d of x (shape %s) must be divisible by "
                      "kernel_sizes[0] * kernel_sizes[1] = %d" % (xs[1], list(xs), k))
    oh, ow = _blocks('fold', output_sizes, kernel_sizes, strides, paddings, dilations)
    if xs[2] >= 0 and xs[2] != oh * ow:
        raise OpError("fold: x has %d blocks (shape %s) but output_sizes %s with kernel_sizes "
                      "%s, strides %s, paddings %s, dilations %s give %d x %d = %d blocks"
                      % (xs[2], list(xs), list(output_sizes), list(kernel_sizes),
                         list(strides), list(paddings), list(dilations), oh, ow, oh * ow))
    return Meta([xs[0], xs[1] // k if xs[1] >= 0 else -1] + list(output_sizes),
                meta.dtype_of(x))


@def_op('fold', _fold_meta, inputs=('x',), attrs=dict({'output_sizes': [1, 1]}, **_ATTRS),
        save_inputs=False, pattern='opaque')
def fold_op(x, output_sizes, kernel_sizes, strides, paddings, dilations):
    """Columns ``[N, C*KH*KW, L]`` summed back into images ``[N, C, *output_sizes]``."""
    _fold_meta(x, output_sizes, kernel_sizes, strides, paddings, dilations)
    n = x.shape[0]
    out = _blocks('fold', output_sizes, kernel_sizes, strides, paddings, dilations)
    c = x.shape[1] // (kernel_sizes[0] * kernel_sizes[1])
    cols = x.reshape((n, c) + tuple(kernel_sizes) + tuple(out))
    pt, pb, pl, pr = paddings
    h, w = output_sizes
    img = np.zeros((n, c, h + pt + pb, w + pl + pr), x.dtype)
    for i, j, rows, colsl in _taps(kernel_sizes, strides, dilations, out):
        img[:, :, rows, colsl] += cols[:, :, i, j]
    return np.ascontiguousarray(img[:, :, pt:pt + h, pl:pl + w])


@unfold_op.def_grad
def _unfold_grad(g, x, out, kernel_sizes, strides, paddings, dilations):
    return fold_op(g, list(x.shape[2:]), kernel_sizes, strides, paddings, dilations)


@unfold_op.def_fast_grad
def _unfold_fast(g, x, out, kernel_sizes, strides, paddings, dilations):
    return fold_op.kernel(g, list(x.shape[2:]), kernel_sizes, strides, paddings, dilations)


fold_op.def_grad(lambda g, x, out, output_sizes, *attrs: unfold_op(g, *attrs))
fold_op.def_fast_grad(lambda g, x, out, output_sizes, *attrs: unfold_op.kernel(g, *attrs))


# ---- public API ----------------------------------------------------------------------

def _pairs(api, name, value, minimum):
    return P.int_list(value, 2, api, name, minimum)


def _paddings(api, paddings):
    """Paddle's paddings: int, [ph, pw] or [top, left, bottom, right] -> canonical
    [top, bottom, left, right]."""
    if isinstance(paddings, int):
        return [paddings] * 4
    vals = list(paddings) if isinstance(paddings, (list, tuple)) else None
    if vals is None or len(vals) not in (2, 4):
        raise OpError("%s: paddings must be an int or a list of 2 or 4 ints, got %r"
                      % (api, paddings))
    if len(vals) == 2:
        vals = vals * 2
    top, left, bottom, right = P.int_list(vals, 4, api, 'paddings', 0)
    return [top, bottom, left, right]


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Extract sliding blocks of ``x`` ``[N, C, H, W]`` as columns
    ``[N, C*KH*KW, L]`` (im2col). ``paddings``: int, [ph, pw] or
    [top, left, bottom, right].

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.unfold(paddle.ones([1, 2, 4, 4]), 2).shape
    paddle.Size([1, 8, 9])
    """
    api = 'unfold'
    if len(x.shape) != 4:
        raise OpError("unfold: x must be 4-D [N, C, H, W], got shape %s" % list(x.shape))
    return unfold_op(x, _pairs(api, 'kernel_sizes', kernel_sizes, 1),
                     _pairs(api, 'strides', strides, 1), _paddings(api, paddings),
                     _pairs(api, 'dilations', dilations, 1))


def fold(x, output_sizes, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """Sum columns ``[N, C*KH*KW, L]`` (as ``unfold`` makes them) back into
    images ``[N, C, *output_sizes]`` (col2im; overlapping blocks add up).

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.fold(paddle.ones([1, 8, 9]), [4, 4], 2).numpy()[0, 0, 1].tolist()
    [2.0, 4.0, 4.0, 2.0]
    """
    api = 'fold'
    if len(x.shape) != 3:
        raise OpError("fold: x must be 3-D [N, C*KH*KW, L], got shape %s" % list(x.shape))
    return fold_op(x, _pairs(api, 'output_sizes', output_sizes, 1),
                   _pairs(api, 'kernel_sizes', kernel_sizes, 1),
                   _pairs(api, 'strides', strides, 1), _paddings(api, paddings),
                   _pairs(api, 'dilations', dilations, 1))


__all__ = ['unfold', 'fold']


# ---- test cases: loop references over blocks -----------------------------------------

def _ref_unfold(x, k, s, p, d):
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[1]), (p[2], p[3])))
    oh = (xp.shape[2] - d[0] * (k[0] - 1) - 1) // s[0] + 1
    ow = (xp.shape[3] - d[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((x.shape[0], x.shape[1] * k[0] * k[1], oh * ow), x.dtype)
    for b in range(x.shape[0]):
        for c in range(x.shape[1]):
            for i in range(k[0]):
                for j in range(k[1]):
                    for r in range(oh):
                        for q in range(ow):
                            out[b, (c * k[0] + i) * k[1] + j, r * ow + q] = \
                                xp[b, c, r * s[0] + i * d[0], q * s[1] + j * d[1]]
    return out


def _ref_fold(y, size, k, s, p, d):
    """The transpose of ``_ref_unfold``, built from basis images."""
    c = y.shape[1] // (k[0] * k[1])
    shape = (y.shape[0], c) + tuple(size)
    out = np.zeros(shape)
    for idx in np.ndindex(*shape):
        e = np.zeros(shape)
        e[idx] = 1
        out[idx] = np.sum(_ref_unfold(e, k, s, p, d) * y)
    return out


_rng = np.random.default_rng(5)
_r = _rng.standard_normal
add_test_case(unfold_op, _r((2, 2, 4, 5)), [2, 3], [1, 2], [1, 0, 0, 1], [1, 1], ref=_ref_unfold)
add_test_case(unfold_op, _r((1, 3, 5, 5)), [2, 2], [2, 1], [0, 1, 1, 0], [2, 1], ref=_ref_unfold)
add_test_case(unfold_op, _r((1, 1, 3, 3)).astype(np.float32), [3, 3], [1, 1], [0, 0, 0, 0],
              [1, 1], ref=_ref_unfold, grad=False)
add_test_case(unfold_op, np.zeros((0, 2, 3, 3)), [2, 2], [1, 1], [0, 0, 0, 0], [1, 1],
              ref=_ref_unfold)
add_test_case(fold_op, _r((2, 12, 6)), [3, 4], [2, 3], [1, 2], [1, 0, 0, 1], [1, 1],
              ref=_ref_fold)
add_test_case(fold_op, _r((1, 4, 4)), [4, 4], [2, 2], [1, 1], [0, 0, 0, 0], [2, 2],
              ref=_ref_fold)
add_test_case(fold_op, np.zeros((0, 4, 4)), [3, 3], [2, 2], [1, 1], [0, 0, 0, 0], [1, 1],
              ref=_ref_fold)
