"""The layer forms of the RoI ops and of deformable convolution."""
import math

import numpy as np

from ... import nn
from ...nn.initializer import Normal
from ...ops.detection.common import pair
from ...ops.detection.deform_conv import deform_conv2d
from ...ops.detection.roi import psroi_pool, roi_align, roi_pool

__all__ = ['RoIAlign', 'RoIPool', 'PSRoIPool', 'DeformConv2D']


class RoIAlign(nn.Layer):
    """``roi_align`` with a fixed output size and scale:
    ``forward(x, boxes, boxes_num, aligned=True)``.

    >>> import framework as paddle
    >>> layer = paddle.vision.ops.RoIAlign(output_size=2)
    >>> layer(paddle.rand([1, 3, 8, 8]), paddle.to_tensor([[1.0, 1.0, 5.0, 6.0]]),
    ...       paddle.to_tensor([1])).shape
    paddle.Size([1, 3, 2, 2])
    """

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num, aligned=True):
        return roi_align(x, boxes, boxes_num, self._output_size, self._spatial_scale,
                         aligned=aligned)

    def extra_repr(self):
        return 'output_size=%s, spatial_scale=%s' % (self._output_size, self._spatial_scale)


class RoIPool(nn.Layer):
    """``roi_pool`` with a fixed output size and scale: ``forward(x, boxes, boxes_num)``."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self._output_size = output_size
        self._spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return roi_pool(x, boxes, boxes_num, self._output_size, self._spatial_scale)

    def extra_repr(self):
        return 'output_size=%s, spatial_scale=%s' % (self._output_size, self._spatial_scale)


class PSRoIPool(nn.Layer):
    """``psroi_pool`` with a fixed output size and scale: ``forward(x, boxes, boxes_num)``."""

    def __init__(self, output_size, spatial_scale=1.0):
        super().__init__()
        self.output_size = output_size
        self.spatial_scale = spatial_scale

    def forward(self, x, boxes, boxes_num):
        return psroi_pool(x, boxes, boxes_num, self.output_size, self.spatial_scale)

    def extra_repr(self):
        return 'output_size=%s, spatial_scale=%s' % (self.output_size, self.spatial_scale)


class DeformConv2D(nn.Layer):
    """Deformable convolution with a learned weight [out_channels, in_channels /
    groups, kh, kw] (``Normal(0, sqrt(2 / (in_channels * kh * kw)))``, as Paddle)
    and bias: ``forward(x, offset, mask=None)`` (v1 without mask, v2 with it).

    >>> import framework as paddle
    >>> conv = paddle.vision.ops.DeformConv2D(2, 4, kernel_size=3, padding=1)
    >>> x, offset = paddle.rand([1, 2, 5, 5]), paddle.zeros([1, 18, 5, 5])
    >>> conv(x, offset).shape
    paddle.Size([1, 4, 5, 5])
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, deformable_groups=1, groups=1, weight_attr=None, bias_attr=None):
        super().__init__()
        if weight_attr is False:
            raise ValueError("DeformConv2D: weight_attr cannot be False (a convolution needs "
                             "its weight)")
        if in_channels % groups:
            raise ValueError("DeformConv2D: in_channels (%d) must be divisible by groups (%d)"
                             % (in_channels, groups))
        self._in_channels = in_channels
        self._out_channels = out_channels
        self._kernel_size = list(pair(kernel_size, 'DeformConv2D', 'kernel_size'))
        self._stride = list(pair(stride, 'DeformConv2D', 'stride'))
        self._padding = list(pair(padding, 'DeformConv2D', 'padding'))
        self._dilation = list(pair(dilation, 'DeformConv2D', 'dilation'))
        self._deformable_groups = deformable_groups
        self._groups = groups
        fan_in = in_channels * int(np.prod(self._kernel_size))
        self.weight = self.create_parameter(
            [out_channels, in_channels // groups] + self._kernel_size, attr=weight_attr,
            default_initializer=Normal(0.0, math.sqrt(2.0 / fan_in)))
        self.bias = self.create_parameter([out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x, offset, mask=None):
        return deform_conv2d(x, offset, self.weight, self.bias, self._stride, self._padding,
                             self._dilation, self._deformable_groups, self._groups, mask)

    def extra_repr(self):
        return '%d, %d, kernel_size=%s, stride=%s, padding=%s' % (
            self._in_channels, self._out_channels, self._kernel_size, self._stride,
            self._padding)
