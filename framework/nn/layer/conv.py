"""Convolution layers: Conv1D/2D/3D and their transposes.

Default initialisation as Paddle: a convolution's weight is
``Normal(0, sqrt(2 / (in_channels * prod(kernel_size))))``; a transposed
convolution's weight is Xavier-uniform; biases start at zero.
"""
import math

import numpy as np

from ... import dtype as _dt
from .. import functional as F
from ..initializer import Normal
from .layers import Layer
from ._utils import check_device, ntuple

__all__ = ['Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose',
           'Conv3DTranspose']

_FORMATS = {1: ('NCL', 'NLC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}
_PAD_MODES = ('zeros', 'reflect', 'replicate', 'circular')


class _ConvNd(Layer):
    _dims = 0
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 padding_mode='zeros', output_padding=0, dilation=1, groups=1,
                 weight_attr=None, bias_attr=None, data_format=None, device=None, dtype=None):
        super().__init__()
        what = type(self).__name__
        check_device(device, what)
        if weight_attr is False:
            raise ValueError("%s: weight_attr cannot be False (a convolution needs its "
                             "weight)" % what)
        n = self._dims
        data_format = data_format or _FORMATS[n][0]
        if data_format not in _FORMATS[n]:
            raise ValueError("%s: data_format must be one of %s, got %r"
                             % (what, _FORMATS[n], data_format))
        if padding_mode not in _PAD_MODES:
            raise ValueError("%s: padding_mode must be one of %s, got %r"
                             % (what, _PAD_MODES, padding_mode))
        in_channels, out_channels, groups = int(in_channels), int(out_channels), int(groups)
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError("%s: in_channels (%d) and out_channels (%d) must be divisible "
                             "by groups (%d)" % (what, in_channels, out_channels, groups))
        self._dtype = str(_dt.convert_dtype(dtype)) if dtype is not None else \
            _dt.get_default_dtype()
        self._in_channels = in_channels
        self._out_channels = out_channels
        self._groups = groups
        self._kernel_size = ntuple(kernel_size, n, 'kernel_size', what)
        self._stride = ntuple(stride, n, 'stride', what)
        self._dilation = ntuple(dilation, n, 'dilation', what)
        self._padding = padding
        self._padding_mode = padding_mode
        self.output_padding = output_padding
        self._data_format = data_format
        if padding_mode != 'zeros':
            if not isinstance(padding, int):
                raise TypeError("%s: padding must be an int when padding_mode is %r"
                                % (what, padding_mode))
            # F.pad lists the last spatial dim first: [w_l, w_r, h_t, h_b, ...]
            self._reversed_padding_repeated_twice = [padding] * (2 * n)
        if self._transposed:
            shape = [in_channels, out_channels // groups] + self._kernel_size
            default = None   # Xavier uniform, from create_parameter
        else:
            shape = [out_channels, in_channels // groups] + self._kernel_size
            fan = in_channels * int(np.prod(self._kernel_size))
            default = Normal(0.0, math.sqrt(2.0 / fan))
        self.weight = self.create_parameter(shape, attr=weight_attr, dtype=self._dtype,
                                            default_initializer=default)
        self.bias = self.create_parameter([out_channels], attr=bias_attr, dtype=self._dtype,
                                          is_bias=True)

    def _check_input(self, x):
        if x.ndim != self._dims + 2:
            raise ValueError("%s: expected a %d-D input (%s), got shape %s"
                             % (type(self).__name__, self._dims + 2, self._data_format,
                                x.shape))

    def extra_repr(self):
        s = '%d, %d, kernel_size=%s' % (self._in_channels, self._out_channels,
                                        self._kernel_size)
        if self._stride != [1] * self._dims:
            s += ', stride=%s' % self._stride
        if self._padding != 0:
            s += ', padding=%s' % (self._padding,)
        if self._padding_mode != 'zeros':
            s += ', padding_mode=%s' % self._padding_mode
        if self.output_padding != 0:
            s += ', output_padding=%s' % (self.output_padding,)
        if self._dilation != [1] * self._dims:
            s += ', dilation=%s' % self._dilation
        if self._groups != 1:
            s += ', groups=%d' % self._groups
        return s + ', data_format=%s' % self._data_format


class _Conv(_ConvNd):
    """Paddle 3's signature: ``bias``, ``device`` and ``dtype`` are keyword-only;
    ``padding_mode``, ``weight_attr``, ``bias_attr`` and ``data_format`` may
    also come positionally, in Paddle 2's order. ``bias=False`` is
    ``bias_attr=False`` (no bias)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode='zeros', weight_attr=None,
                 bias_attr=None, data_format=None, *, bias=True, device=None, dtype=None):
        if bias is False:
            bias_attr = False
        super().__init__(in_channels, out_channels, kernel_size, stride=stride,
                         padding=padding, padding_mode=padding_mode, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format, device=device, dtype=dtype)

    def forward(self, x):
        self._check_input(x)
        padding = self._padding
        if self._padding_mode != 'zeros':
            x = F.pad(x, self._reversed_padding_repeated_twice, mode=self._padding_mode,
                      data_format=self._data_format)
            padding = 0
        return self._conv(x, self.weight, bias=self.bias, stride=self._stride,
                          padding=padding, dilation=self._dilation, groups=self._groups,
                          data_format=self._data_format)


class Conv1D(_Conv):
    """1-D convolution over ``[N, C, L]`` (or ``NLC``) inputs.

    >>> import framework as paddle
    >>> conv = paddle.nn.Conv1D(3, 2, 3)
    >>> conv(paddle.ones([1, 3, 5])).shape
    paddle.Size([1, 2, 3])
    """
    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode='zeros', weight_attr=None,
                 bias_attr=None, data_format='NCL', *, bias=True, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, bias=bias,
                         device=device, dtype=dtype)

    @staticmethod
    def _conv(*args, **kwargs):
        return F.conv1d(*args, **kwargs)


class Conv2D(_Conv):
    """2-D convolution over ``[N, C, H, W]`` (or ``NHWC``) inputs.

    >>> import framework as paddle
    >>> conv = paddle.nn.Conv2D(4, 6, (3, 3))
    >>> conv(paddle.ones([2, 4, 8, 8])).shape
    paddle.Size([2, 6, 6, 6])
    """
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode='zeros', weight_attr=None,
                 bias_attr=None, data_format='NCHW', *, bias=True, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, bias=bias,
                         device=device, dtype=dtype)

    @staticmethod
    def _conv(*args, **kwargs):
        return F.conv2d(*args, **kwargs)


class Conv3D(_Conv):
    """3-D convolution over ``[N, C, D, H, W]`` (or ``NDHWC``) inputs.

    >>> import framework as paddle
    >>> conv = paddle.nn.Conv3D(4, 6, (3, 3, 3))
    >>> conv(paddle.ones([2, 4, 8, 8, 8])).shape
    paddle.Size([2, 6, 6, 6, 6])
    """
    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode='zeros', weight_attr=None,
                 bias_attr=None, data_format='NCDHW', *, bias=True, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format, bias=bias,
                         device=device, dtype=dtype)

    @staticmethod
    def _conv(*args, **kwargs):
        return F.conv3d(*args, **kwargs)


class _ConvTranspose(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format=None):
        super().__init__(in_channels, out_channels, kernel_size, stride=stride,
                         padding=padding, output_padding=output_padding, dilation=dilation,
                         groups=groups, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    def forward(self, x, output_size=None):
        self._check_input(x)
        return self._conv(x, self.weight, bias=self.bias, stride=self._stride,
                          padding=self._padding, output_padding=self.output_padding,
                          dilation=self._dilation, groups=self._groups,
                          output_size=output_size, data_format=self._data_format)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution; weight ``[C_in, C_out / groups, K]``."""
    _dims = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format='NCL'):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding,
                         output_padding, groups, dilation, weight_attr, bias_attr, data_format)

    @staticmethod
    def _conv(*args, **kwargs):
        return F.conv1d_transpose(*args, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution; weight ``[C_in, C_out / groups, kH, kW]``.

    >>> import framework as paddle
    >>> up = paddle.nn.Conv2DTranspose(4, 2, 3, stride=2)
    >>> up(paddle.ones([1, 4, 5, 5])).shape
    paddle.Size([1, 2, 11, 11])
    """
    _dims = 2

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format='NCHW'):
        super().__init__(in_channels, out_channels, kernel_size, stride=stride,
                         padding=padding, output_padding=output_padding, groups=groups,
                         dilation=dilation, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    @staticmethod
    def _conv(*args, **kwargs):
        return F.conv2d_transpose(*args, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution; weight ``[C_in, C_out / groups, kD, kH, kW]``.

    >>> import framework as paddle
    >>> up = paddle.nn.Conv3DTranspose(4, 2, 3, stride=2)
    >>> up(paddle.ones([1, 4, 2, 3, 3])).shape
    paddle.Size([1, 2, 5, 7, 7])
    """
    _dims = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, dilation=1, groups=1, weight_attr=None, bias_attr=None,
                 data_format='NCDHW'):
        super().__init__(in_channels, out_channels, kernel_size, stride=stride,
                         padding=padding, output_padding=output_padding, groups=groups,
                         dilation=dilation, weight_attr=weight_attr, bias_attr=bias_attr,
                         data_format=data_format)

    @staticmethod
    def _conv(*args, **kwargs):
        return F.conv3d_transpose(*args, **kwargs)
