"""Vision functionals (Paddle's ``paddle.nn.functional.vision``): pixel and
channel shuffles, affine grids and grid sampling, all compositions of
registered ops (so gradients, including with respect to the sampling grid,
come from the ops' rules)."""
import itertools

from ...ops import creation as _creation, indexing as _indexing, manipulation as _manip
from ...ops import math as _math
from ...ops.registry import OpError

__all__ = ['affine_grid', 'channel_shuffle', 'grid_sample', 'pixel_shuffle', 'pixel_unshuffle']


def _check_4d(api, x, data_format):
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("%s: data_format must be 'NCHW' or 'NHWC', got %r" % (api, data_format))
    if len(x.shape) != 4:
        raise ValueError("%s: x must be 4-D, got shape %s" % (api, list(x.shape)))


def pixel_shuffle(x, upscale_factor, data_format='NCHW', name=None):
    """``[N, C*r*r, H, W] -> [N, C, H*r, W*r]`` (depth to space).

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.pixel_shuffle(paddle.ones([1, 8, 2, 3]), 2).shape
    paddle.Size([1, 2, 4, 6])
    """
    r = int(upscale_factor)
    _check_4d('pixel_shuffle', x, data_format)
    if data_format == 'NCHW':
        _, c, h, w = x.shape
    else:
        _, h, w, c = x.shape
    if c % (r * r):
        raise ValueError("pixel_shuffle: the channel count %d is not divisible by "
                         "upscale_factor**2 = %d" % (c, r * r))
    oc = c // (r * r)
    if data_format == 'NCHW':
        y = _manip.transpose(_manip.reshape(x, [-1, oc, r, r, h, w]), [0, 1, 4, 2, 5, 3])
        return _manip.reshape(y, [-1, oc, h * r, w * r])
    y = _manip.transpose(_manip.reshape(x, [-1, h, w, oc, r, r]), [0, 1, 4, 2, 5, 3])
    return _manip.reshape(y, [-1, h * r, w * r, oc])


def pixel_unshuffle(x, downscale_factor, data_format='NCHW', name=None):
    """``[N, C, H*r, W*r] -> [N, C*r*r, H, W]`` (space to depth), the inverse
    of ``pixel_shuffle``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> F.pixel_unshuffle(paddle.ones([1, 2, 4, 6]), 2).shape
    paddle.Size([1, 8, 2, 3])
    """
    r = int(downscale_factor)
    _check_4d('pixel_unshuffle', x, data_format)
    if r <= 0:
        raise ValueError("pixel_unshuffle: downscale_factor must be positive, got %d" % r)
    if data_format == 'NCHW':
        _, c, h, w = x.shape
    else:
        _, h, w, c = x.shape
    if h % r or w % r:
        raise ValueError("pixel_unshuffle: height %d and width %d must be divisible by "
                         "downscale_factor %d" % (h, w, r))
    oh, ow = h // r, w // r
    if data_format == 'NCHW':
        y = _manip.transpose(_manip.reshape(x, [-1, c, oh, r, ow, r]), [0, 1, 3, 5, 2, 4])
        return _manip.reshape(y, [-1, c * r * r, oh, ow])
    y = _manip.transpose(_manip.reshape(x, [-1, oh, r, ow, r, c]), [0, 1, 3, 5, 2, 4])
    return _manip.reshape(y, [-1, oh, ow, c * r * r])


def channel_shuffle(x, groups, data_format='NCHW', name=None):
    """Interleave the channels of ``groups`` groups: ``[N, g*k, H, W]`` viewed as
    ``[N, g, k, H, W]`` becomes ``[N, k, g, H, W]`` (ShuffleNet).

    >>> import framework as paddle, framework.nn.functional as F
    >>> x = paddle.arange(4, dtype='float32').reshape([1, 4, 1, 1])
    >>> F.channel_shuffle(x, 2).numpy().ravel().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    _check_4d('channel_shuffle', x, data_format)
    if not isinstance(groups, int) or groups <= 0:
        raise ValueError("channel_shuffle: groups must be a positive int, got %r" % (groups,))
    if data_format == 'NCHW':
        _, c, h, w = x.shape
    else:
        _, h, w, c = x.shape
    if c % groups:
        raise ValueError("channel_shuffle: the channel count %d is not divisible by groups %d"
                         % (c, groups))
    k = c // groups
    if data_format == 'NCHW':
        y = _manip.transpose(_manip.reshape(x, [-1, groups, k, h, w]), [0, 2, 1, 3, 4])
        return _manip.reshape(y, [-1, c, h, w])
    y = _manip.transpose(_manip.reshape(x, [-1, h, w, groups, k]), [0, 1, 2, 4, 3])
    return _manip.reshape(y, [-1, h, w, c])


def _linspace(n, align_corners, dtype):
    """The normalized coordinates of ``n`` pixel centres (corners when aligned)."""
    if n <= 1:
        return _creation.zeros([max(n, 0)], dtype)
    grid = _creation.linspace(-1.0, 1.0, n, dtype=dtype)
    return grid if align_corners else grid * ((n - 1) / n)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """Sampling grid of the affine maps ``theta`` (``[N, 2, 3]`` for a 2-D
    ``out_shape`` ``[N, C, H, W]``, ``[N, 3, 4]`` for ``[N, C, D, H, W]``):
    ``grid[n, ..., :] = theta[n] @ [x, y, (z,) 1]`` over the normalized output
    coordinates, as ``[N, H, W, 2]`` (or ``[N, D, H, W, 3]``).

    >>> import framework as paddle, framework.nn.functional as F
    >>> theta = paddle.to_tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> F.affine_grid(theta, [1, 1, 2, 3]).shape
    paddle.Size([1, 2, 3, 2])
    """
    if hasattr(out_shape, 'numpy') and not isinstance(out_shape, (list, tuple)):
        out_shape = out_shape.numpy().tolist()
    out_shape = [int(getattr(s, 'item', lambda: s)()) for s in out_shape]
    nd = len(out_shape) - 2
    if nd not in (2, 3) or list(theta.shape)[1:] != [nd, nd + 1]:
        raise ValueError("affine_grid: theta must be [N, 2, 3] for a 4-D out_shape or "
                         "[N, 3, 4] for a 5-D one, got theta %s and out_shape %s"
                         % (list(theta.shape), out_shape))
    if theta.shape[0] >= 0 and out_shape[0] != theta.shape[0]:
        raise ValueError("affine_grid: out_shape[0] = %d must equal the batch of theta %s"
                         % (out_shape[0], list(theta.shape)))
    dtype = theta.dtype
    spatial = out_shape[2:]
    # coordinates in (x, y, z) order: x runs along the last dim
    axes = [_linspace(n, align_corners, dtype) for n in reversed(spatial)]
    mesh = _creation.meshgrid(*reversed(axes))          # each of shape spatial
    coords = list(reversed(mesh)) + [_creation.ones(spatial, dtype)]
    base = _manip.reshape(_manip.stack(coords, axis=-1), [1, -1, nd + 1])     # [1, P, nd+1]
    grid = _math.matmul(base, theta, transpose_y=True)                    # [N, P, nd]
    return _manip.reshape(grid, [out_shape[0]] + spatial + [nd])


# ---- grid_sample ----------------------------------------------------------------------

def _unnormalize(g, size, align_corners):
    if align_corners:
        return (g + 1) * ((size - 1) / 2.0)
    return ((g + 1) * size - 1) / 2.0


def _reflect(coord, twice_low, twice_high):
    """Reflect coordinates into [twice_low/2, twice_high/2] (mirror at the ends)."""
    if twice_low == twice_high:
        return _creation.zeros_like(coord)
    low, span = twice_low / 2.0, (twice_high - twice_low) / 2.0
    c = _math.abs(coord - low)
    flips = _math.floor(c / span)
    extra = c - flips * span
    even = _math.equal(_math.remainder(flips, _creation.full_like(flips, 2.0)),
                       _creation.zeros_like(flips))
    return _manip.where(even, extra + low, span - extra + low)


def _source_coord(g, size, padding_mode, align_corners):
    c = _unnormalize(g, size, align_corners)
    if padding_mode == 'border':
        c = _math.clip(c, 0.0, size - 1.0)
    elif padding_mode == 'reflection':
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else _reflect(c, -1, 2 * size - 1)
        c = _math.clip(c, 0.0, size - 1.0)
    return c


def _round_half_even(v):
    """Paddle's nearest mode rounds half-way coordinates to even (nearbyint)."""
    r = _math.floor(v + 0.5)
    tie = _math.equal(r - v, _creation.full_like(v, 0.5))
    odd = _math.equal(_math.remainder(r, _creation.full_like(r, 2.0)), _creation.ones_like(r))
    return r - _manip.cast(_math.logical_and(tie, odd), v.dtype)


def _gather_corner(flat, idx, valid, c):
    """``flat [N, C, P]`` read at the integer positions ``idx`` (``[N, Q]`` per
    spatial axis, x first), zero where not ``valid``."""
    sizes = flat.sizes
    lin = None
    for axis, i in enumerate(reversed(idx)):                  # slowest axis first
        n = sizes[axis]
        i = _math.clip(i, 0, n - 1)
        lin = i if lin is None else lin * n + i
    lin = _manip.cast(lin, 'int64')
    n_q = lin.shape[-1]
    picked = _indexing.take_along_axis(flat.t, _manip.expand(_manip.unsqueeze(lin, 1),
                                                             [lin.shape[0], c, n_q]), axis=2)
    return picked * _manip.unsqueeze(_manip.cast(valid, flat.t.dtype), 1)


class _Flat:
    __slots__ = ('t', 'sizes')

    def __init__(self, t, sizes):
        self.t, self.sizes = t, sizes


def grid_sample(x, grid, mode='bilinear', padding_mode='zeros', align_corners=True,
                name=None):
    """Sample ``x`` (``[N, C, H, W]`` or ``[N, C, D, H, W]``) at the normalized
    positions ``grid`` (``[N, H_out, W_out, 2]`` with (x, y) in [-1, 1], or
    ``[N, D_out, H_out, W_out, 3]``). ``mode`` 'bilinear' (trilinear for 5-D)
    or 'nearest'; ``padding_mode`` 'zeros', 'border' or 'reflection'.
    Differentiable in ``x`` and in ``grid``.

    >>> import framework as paddle, framework.nn.functional as F
    >>> x = paddle.arange(4, dtype='float32').reshape([1, 1, 2, 2])
    >>> F.grid_sample(x, paddle.zeros([1, 1, 1, 2])).numpy().ravel().tolist()
    [1.5]
    """
    if mode not in ('bilinear', 'nearest'):
        raise ValueError("grid_sample: mode must be 'bilinear' or 'nearest', got %r" % (mode,))
    if padding_mode not in ('zeros', 'border', 'reflection'):
        raise ValueError("grid_sample: padding_mode must be 'zeros', 'border' or "
                         "'reflection', got %r" % (padding_mode,))
    nd = len(x.shape) - 2
    if nd not in (2, 3) or len(grid.shape) != nd + 2 or grid.shape[-1] != nd:
        raise ValueError("grid_sample: x must be 4-D/5-D and grid [N, *out, %d], got x %s and "
                         "grid %s" % (max(nd, 2), list(x.shape), list(grid.shape)))
    n, c = x.shape[0], x.shape[1]
    spatial = list(x.shape[2:])
    out_spatial = list(grid.shape[1:-1])
    g = _manip.reshape(_manip.cast(grid, x.dtype), [n, -1, nd])
    sizes_xyz = list(reversed(spatial))                     # x is the last dim
    coords = [_source_coord(g[:, :, k], sizes_xyz[k], padding_mode, align_corners)
              for k in range(nd)]
    flat = _Flat(_manip.reshape(x, [n, c, -1]), spatial)

    def inside(i, size):
        return _math.logical_and(_math.greater_equal(i, _creation.zeros_like(i)),
                                 _math.less_equal(i, _creation.full_like(i, size - 1.0)))

    def valid_of(idx):
        v = None
        for i, size in zip(idx, sizes_xyz):
            ok = inside(i, size)
            v = ok if v is None else _math.logical_and(v, ok)
        return v

    if mode == 'nearest':
        idx = [_round_half_even(cd) for cd in coords]
        out = _gather_corner(flat, idx, valid_of(idx), c)
    else:
        lows = [_math.floor(cd) for cd in coords]
        fracs = [cd - lo for cd, lo in zip(coords, lows)]
        out = None
        for corner in itertools.product((0, 1), repeat=nd):
            idx = [lo + b for lo, b in zip(lows, corner)]
            w = None
            for fr, b in zip(fracs, corner):
                wk = fr if b else 1 - fr
                w = wk if w is None else w * wk
            term = _gather_corner(flat, idx, valid_of(idx), c) * _manip.unsqueeze(w, 1)
            out = term if out is None else out + term
    return _manip.reshape(out, [n, c] + out_spatial)
