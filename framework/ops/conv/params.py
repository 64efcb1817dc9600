"""Argument normalisation shared by the conv and pooling wrappers (Paddle 2.x
rules), and numpy layout helpers that map every data format onto NCHW views.

Attributes handed to ops are canonical JSON-able lists: ``stride``/``dilation``
with one int per spatial dim, ``padding`` with two ints per spatial dim
(``[top, bottom, left, right]`` in 2-D, ``[left, right]`` in 1-D).
"""
import numpy as np

from ..registry import OpError

FORMATS = {1: ('NCL', 'NLC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}
SPATIAL_RANK = {'NCL': 1, 'NLC': 1, 'NCHW': 2, 'NHWC': 2, 'NCDHW': 3, 'NDHWC': 3}


def check_format(api, data_format, nd):
    if data_format not in FORMATS[nd]:
        raise OpError("%s: data_format must be %s, got %r"
                      % (api, ' or '.join(repr(f) for f in FORMATS[nd]), data_format))
    return data_format


def channel_last(data_format):
    return data_format in ('NLC', 'NHWC', 'NDHWC')


def channel_axis(data_format):
    return -1 if channel_last(data_format) else 1


def spatial_shape(shape, data_format):
    shape = list(shape)
    return shape[1:-1] if channel_last(data_format) else shape[2:]


def channels_of(shape, data_format):
    return list(shape)[channel_axis(data_format)]


def int_list(value, nd, api, name, minimum=None):
    """An int or a list of ``nd`` ints -> list of ``nd`` Python ints."""
    if isinstance(value, (list, tuple)):
        vals = list(value)
        if len(vals) == 1 and nd > 1:
            vals = vals * nd
    else:
        vals = [value] * nd
    if len(vals) != nd or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                  for v in vals):
        raise OpError("%s: %s must be an int or a list of %d ints, got %r" % (api, name, nd, value))
    vals = [int(v) for v in vals]
    if minimum is not None and any(v < minimum for v in vals):
        raise OpError("%s: %s must be >= %d, got %r" % (api, name, minimum, value))
    return vals


def _same(size, k, s):
    """Paddle's SAME: output ceil(size/stride), the odd pixel at the end."""
    out = -(-size // s)
    total = max((out - 1) * s + k - size, 0)
    return [total // 2, total - total // 2]


def parse_padding(api, padding, nd, data_format, spatial=None, ksize=None, stride=None):
    """Paddle's padding forms -> (explicit padding list, algorithm name).

    int; list of nd (symmetric); list of 2*nd (before/after per dim); nested
    pairs for every dim including batch and channel (which must be 0); or the
    strings 'SAME'/'VALID'. SAME needs the input's spatial sizes.
    """
    if isinstance(padding, str):
        alg = padding.upper()
        if alg == 'VALID':
            return [0] * (2 * nd), 'VALID'
        if alg != 'SAME':
            raise OpError("%s: padding string must be 'SAME' or 'VALID', got %r" % (api, padding))
        if spatial is None or any(d < 0 for d in spatial):
            raise OpError("%s: padding='SAME' needs known spatial sizes, got %s"
                          % (api, spatial))
        out = []
        for size, k, s in zip(spatial, ksize, stride):
            out += _same(size, k, s)
        return out, 'SAME'
    if isinstance(padding, (list, tuple)):
        items = list(padding)
        if items and all(isinstance(p, (list, tuple)) for p in items):
            return _nested_padding(api, items, nd, data_format), 'EXPLICIT'
        if len(items) == 2 * nd:
            return int_list(items, 2 * nd, api, 'padding', 0), 'EXPLICIT'
        if len(items) == nd or len(items) == 1:
            return [p for p in int_list(items, nd, api, 'padding', 0) for _ in (0, 1)], 'EXPLICIT'
        raise OpError("%s: padding must have 1, %d or %d ints (or %d pairs), got %r"
                      % (api, nd, 2 * nd, nd + 2, padding))
    return [p for p in int_list(padding, nd, api, 'padding', 0) for _ in (0, 1)], 'EXPLICIT'


def _nested_padding(api, items, nd, data_format):
    if len(items) != nd + 2 or not all(len(p) == 2 for p in items):
        raise OpError("%s: nested padding must have %d [before, after] pairs (batch, "
                      "channel and %d spatial dims), got %r" % (api, nd + 2, nd, items))
    if channel_last(data_format):
        fixed, spatial = [items[0], items[-1]], items[1:-1]
    else:
        fixed, spatial = items[:2], items[2:]
    if any(int(v) != 0 for pair in fixed for v in pair):
        raise OpError("%s: padding of the batch and channel dims must be [0, 0], got %r"
                      % (api, items))
    return int_list([v for pair in spatial for v in pair], 2 * nd, api, 'padding', 0)


# ---- numpy layout helpers (kernels) ------------------------------------------

def to_nchw(a, data_format):
    """A view of ``a`` as ``[N, C, H, W]`` (1-D formats get H == 1; 3-D
    formats give ``[N, C, D, H, W]``)."""
    if data_format in ('NCHW', 'NCDHW'):
        return a
    if data_format == 'NHWC':
        return a.transpose(0, 3, 1, 2)
    if data_format == 'NDHWC':
        return a.transpose(0, 4, 1, 2, 3)
    if data_format == 'NCL':
        return a[:, :, None, :]
    return a.transpose(0, 2, 1)[:, :, None, :]


def from_nchw(a, data_format):
    """The NCHW (NCDHW) result ``a`` in ``data_format``, C-contiguous."""
    if data_format in ('NCHW', 'NCDHW'):
        return a
    if data_format == 'NHWC':
        return np.ascontiguousarray(a.transpose(0, 2, 3, 1))
    if data_format == 'NDHWC':
        return np.ascontiguousarray(a.transpose(0, 2, 3, 4, 1))
    if data_format == 'NCL':
        return a[:, :, 0, :]
    return np.ascontiguousarray(a[:, :, 0, :].transpose(0, 2, 1))


def hw2(values, fill):
    """1-D attribute lists -> 2-D ones with a neutral H entry."""
    values = list(values)
    return [fill] + values if len(values) == 1 else values


def pad4(padding):
    padding = list(padding)
    return [0, 0] + padding if len(padding) == 2 else padding


def weight4(w):
    return w[:, :, None, :] if w.ndim == 3 else w
