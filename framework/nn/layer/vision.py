"""Pixel and channel shuffles (Paddle's ``paddle.nn.layer.vision``)."""
from .. import functional as F
from .layers import Layer

__all__ = ['ChannelShuffle', 'PixelShuffle', 'PixelUnshuffle']


def _check_format(layer, data_format):
    if data_format not in ('NCHW', 'NHWC'):
        raise ValueError("%s: data_format must be 'NCHW' or 'NHWC', got %r"
                         % (layer, data_format))
    return data_format


class PixelShuffle(Layer):
    """``[N, C*r*r, H, W] -> [N, C, H*r, W*r]``.

    >>> import framework as paddle
    >>> paddle.nn.PixelShuffle(3)(paddle.ones([2, 9, 4, 4])).shape
    paddle.Size([2, 1, 12, 12])
    """

    def __init__(self, upscale_factor, data_format='NCHW', name=None):
        super().__init__()
        self._upscale_factor = int(upscale_factor)
        self._data_format = _check_format('PixelShuffle', data_format)

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)

    def extra_repr(self):
        return 'upscale_factor=%d, data_format=%s' % (self._upscale_factor, self._data_format)


class PixelUnshuffle(Layer):
    """``[N, C, H*r, W*r] -> [N, C*r*r, H, W]`` (the inverse of ``PixelShuffle``)."""

    def __init__(self, downscale_factor, data_format='NCHW', name=None):
        super().__init__()
        if not isinstance(downscale_factor, int) or downscale_factor <= 0:
            raise ValueError("PixelUnshuffle: downscale_factor must be a positive int, got %r"
                             % (downscale_factor,))
        self._downscale_factor = downscale_factor
        self._data_format = _check_format('PixelUnshuffle', data_format)

    def forward(self, x):
        return F.pixel_unshuffle(x, self._downscale_factor, self._data_format)

    def extra_repr(self):
        return 'downscale_factor=%d, data_format=%s' % (self._downscale_factor,
                                                       self._data_format)


class ChannelShuffle(Layer):
    """Interleaves the channels of ``groups`` groups (ShuffleNet)."""

    def __init__(self, groups, data_format='NCHW', name=None):
        super().__init__()
        if not isinstance(groups, int) or groups <= 0:
            raise ValueError("ChannelShuffle: groups must be a positive int, got %r" % (groups,))
        self._groups = groups
        self._data_format = _check_format('ChannelShuffle', data_format)

    def forward(self, x):
        return F.channel_shuffle(x, self._groups, self._data_format)

    def extra_repr(self):
        return 'groups=%d, data_format=%s' % (self._groups, self._data_format)
