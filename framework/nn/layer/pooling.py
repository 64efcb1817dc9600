"""Pooling layers: thin configuration holders around ``F.*_pool*d``."""
from .. import functional as F
from .layers import Layer

__all__ = ['MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D', 'AvgPool3D',
           'AdaptiveAvgPool1D', 'AdaptiveAvgPool2D', 'AdaptiveAvgPool3D', 'AdaptiveMaxPool1D',
           'AdaptiveMaxPool2D', 'AdaptiveMaxPool3D', 'LPPool1D', 'LPPool2D', 'MaxUnPool1D',
           'MaxUnPool2D', 'MaxUnPool3D', 'FractionalMaxPool2D', 'FractionalMaxPool3D']


def _fn(name):
    return getattr(F, name)


class _MaxPool(Layer):
    _fn_name = ''
    _default_format = ''

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__()
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.return_mask = return_mask
        self.ceil_mode = ceil_mode
        self.data_format = data_format or self._default_format

    def forward(self, x):
        kwargs = dict(kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                      return_mask=self.return_mask, ceil_mode=self.ceil_mode)
        if self._default_format != 'NCL':
            kwargs['data_format'] = self.data_format
        return _fn(self._fn_name)(x, **kwargs)

    def extra_repr(self):
        return 'kernel_size=%s, stride=%s, padding=%s' % (self.ksize, self.stride, self.padding)


class MaxPool1D(_MaxPool):
    """Max over windows of ``[N, C, L]`` inputs.

    >>> import framework as paddle
    >>> paddle.nn.MaxPool1D(2)(paddle.ones([1, 3, 8])).shape
    paddle.Size([1, 3, 4])
    """
    _fn_name = 'max_pool1d'
    _default_format = 'NCL'

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode)


class MaxPool2D(_MaxPool):
    """Max over windows of ``[N, C, H, W]`` (or NHWC) inputs.

    >>> import framework as paddle
    >>> paddle.nn.MaxPool2D(2, 2)(paddle.ones([1, 3, 8, 8])).shape
    paddle.Size([1, 3, 4, 4])
    """
    _fn_name = 'max_pool2d'
    _default_format = 'NCHW'

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format='NCHW', name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)


class MaxPool3D(_MaxPool):
    """Max over windows of ``[N, C, D, H, W]`` (or NDHWC) inputs.

    >>> import framework as paddle
    >>> paddle.nn.MaxPool3D(2)(paddle.ones([1, 3, 4, 4, 4])).shape
    paddle.Size([1, 3, 2, 2, 2])
    """
    _fn_name = 'max_pool3d'
    _default_format = 'NCDHW'

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format='NCDHW', name=None):
        super().__init__(kernel_size, stride, padding, return_mask, ceil_mode, data_format)


class _AvgPool(Layer):
    _fn_name = ''
    _default_format = ''

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format=None, name=None):
        super().__init__()
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.exclusive = exclusive
        self.divisor = divisor_override
        self.data_format = data_format or self._default_format

    def forward(self, x):
        kwargs = dict(kernel_size=self.ksize, stride=self.stride, padding=self.padding,
                      ceil_mode=self.ceil_mode, exclusive=self.exclusive)
        if self._default_format != 'NCL':
            kwargs['divisor_override'] = self.divisor
            kwargs['data_format'] = self.data_format
        return _fn(self._fn_name)(x, **kwargs)

    def extra_repr(self):
        return 'kernel_size=%s, stride=%s, padding=%s' % (self.ksize, self.stride, self.padding)


class AvgPool1D(_AvgPool):
    """Mean over windows of ``[N, C, L]`` inputs (``exclusive`` leaves padding
    out of the divisor)."""
    _fn_name = 'avg_pool1d'
    _default_format = 'NCL'

    def __init__(self, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
                 name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive)


class AvgPool2D(_AvgPool):
    """Mean over windows of ``[N, C, H, W]`` (or NHWC) inputs."""
    _fn_name = 'avg_pool2d'
    _default_format = 'NCHW'

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format='NCHW', name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format)


class AvgPool3D(_AvgPool):
    """Mean over windows of ``[N, C, D, H, W]`` (or NDHWC) inputs."""
    _fn_name = 'avg_pool3d'
    _default_format = 'NCDHW'

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format='NCDHW', name=None):
        super().__init__(kernel_size, stride, padding, ceil_mode, exclusive, divisor_override,
                         data_format)


class _AdaptivePool(Layer):
    _fn_name = ''
    _default_format = ''
    _is_max = False

    def __init__(self, output_size, return_mask=False, data_format=None, name=None):
        super().__init__()
        self._output_size = output_size
        self._return_mask = return_mask
        self._data_format = data_format or self._default_format

    def forward(self, x):
        kwargs = {}
        if self._is_max:
            kwargs['return_mask'] = self._return_mask
        elif self._default_format != 'NCL':
            kwargs['data_format'] = self._data_format
        return _fn(self._fn_name)(x, self._output_size, **kwargs)

    def extra_repr(self):
        return 'output_size=%s' % (self._output_size,)


class AdaptiveAvgPool1D(_AdaptivePool):
    """Mean pooling to a fixed output length."""
    _fn_name = 'adaptive_avg_pool1d'
    _default_format = 'NCL'

    def __init__(self, output_size, name=None):
        super().__init__(output_size)


class AdaptiveAvgPool2D(_AdaptivePool):
    """Mean pooling to a fixed ``[H_out, W_out]`` (an int for both; None keeps a dim).

    >>> import framework as paddle
    >>> paddle.nn.AdaptiveAvgPool2D(1)(paddle.ones([2, 3, 5, 7])).shape
    paddle.Size([2, 3, 1, 1])
    """
    _fn_name = 'adaptive_avg_pool2d'
    _default_format = 'NCHW'

    def __init__(self, output_size, data_format='NCHW', name=None):
        super().__init__(output_size, data_format=data_format)


class AdaptiveMaxPool1D(_AdaptivePool):
    _fn_name = 'adaptive_max_pool1d'
    _default_format = 'NCL'
    _is_max = True

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask)


class AdaptiveMaxPool2D(_AdaptivePool):
    """Max pooling to a fixed ``[H_out, W_out]``."""
    _fn_name = 'adaptive_max_pool2d'
    _default_format = 'NCHW'
    _is_max = True

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask)


class AdaptiveAvgPool3D(_AdaptivePool):
    """Mean pooling to a fixed ``[D_out, H_out, W_out]``."""
    _fn_name = 'adaptive_avg_pool3d'
    _default_format = 'NCDHW'

    def __init__(self, output_size, data_format='NCDHW', name=None):
        super().__init__(output_size, data_format=data_format)


class AdaptiveMaxPool3D(_AdaptivePool):
    """Max pooling to a fixed ``[D_out, H_out, W_out]``."""
    _fn_name = 'adaptive_max_pool3d'
    _default_format = 'NCDHW'
    _is_max = True

    def __init__(self, output_size, return_mask=False, name=None):
        super().__init__(output_size, return_mask)


class _LPPool(Layer):
    _fn_name = ''

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format=None, name=None):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.data_format = data_format

    def forward(self, x):
        return _fn(self._fn_name)(x, self.norm_type, self.kernel_size, self.stride,
                                  self.padding, self.ceil_mode, self.data_format)

    def extra_repr(self):
        return 'norm_type=%s, kernel_size=%s, stride=%s, padding=%s' % (
            self.norm_type, self.kernel_size, self.stride, self.padding)


class LPPool1D(_LPPool):
    """Power-average pooling ``(sum x ** p) ** (1 / p)`` over windows of ``[N, C, L]``."""
    _fn_name = 'lp_pool1d'

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format='NCL', name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format)


class LPPool2D(_LPPool):
    """Power-average pooling over windows of ``[N, C, H, W]`` (or NHWC).

    >>> import framework as paddle
    >>> paddle.nn.LPPool2D(2, 2)(paddle.ones([1, 1, 4, 4])).numpy()[0, 0, 0].tolist()
    [2.0, 2.0]
    """
    _fn_name = 'lp_pool2d'

    def __init__(self, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
                 data_format='NCHW', name=None):
        super().__init__(norm_type, kernel_size, stride, padding, ceil_mode, data_format)


class _MaxUnPool(Layer):
    _fn_name = ''

    def __init__(self, kernel_size, stride=None, padding=0, data_format=None, output_size=None,
                 name=None):
        super().__init__()
        self.ksize = kernel_size
        self.stride = stride
        self.padding = padding
        self.data_format = data_format
        self.output_size = output_size

    def forward(self, x, indices):
        return _fn(self._fn_name)(x, indices, self.ksize, stride=self.stride,
                                  padding=self.padding, data_format=self.data_format,
                                  output_size=self.output_size)

    def extra_repr(self):
        return 'kernel_size=%s, stride=%s, padding=%s, output_size=%s' % (
            self.ksize, self.stride, self.padding, self.output_size)


class MaxUnPool1D(_MaxUnPool):
    """Inverse of ``MaxPool1D``: ``forward(x, indices)`` puts the pooled values back
    at the indices ``MaxPool1D(return_mask=True)`` returned, zeros elsewhere."""
    _fn_name = 'max_unpool1d'

    def __init__(self, kernel_size, stride=None, padding=0, data_format='NCL',
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool2D(_MaxUnPool):
    """Inverse of ``MaxPool2D`` (see ``MaxUnPool1D``)."""
    _fn_name = 'max_unpool2d'

    def __init__(self, kernel_size, stride=None, padding=0, data_format='NCHW',
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class MaxUnPool3D(_MaxUnPool):
    """Inverse of ``MaxPool3D`` (see ``MaxUnPool1D``)."""
    _fn_name = 'max_unpool3d'

    def __init__(self, kernel_size, stride=None, padding=0, data_format='NCDHW',
                 output_size=None, name=None):
        super().__init__(kernel_size, stride, padding, data_format, output_size)


class _FractionalMaxPool(Layer):
    _fn_name = ''

    def __init__(self, output_size, kernel_size=None, random_u=None, return_mask=False,
                 name=None):
        super().__init__()
        self._output_size = output_size
        self._kernel_size = kernel_size
        self._random_u = random_u
        self._return_mask = return_mask

    def forward(self, x):
        return _fn(self._fn_name)(x, self._output_size, self._kernel_size, self._random_u,
                                  self._return_mask)

    def extra_repr(self):
        return 'output_size=%s, return_mask=%s' % (self._output_size, self._return_mask)


class FractionalMaxPool2D(_FractionalMaxPool):
    """Fractional max pooling of NCHW inputs to ``output_size`` (see
    ``F.fractional_max_pool2d``)."""
    _fn_name = 'fractional_max_pool2d'


class FractionalMaxPool3D(_FractionalMaxPool):
    """Fractional max pooling of NCDHW inputs (see ``F.fractional_max_pool3d``)."""
    _fn_name = 'fractional_max_pool3d'
