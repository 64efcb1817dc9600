"""``paddle.compat.nn``: layers with PyTorch's arguments and parameter layouts."""
import math

from ... import nn as _nn
from ...nn.layer.layers import Layer
from . import functional


class Linear(Layer):
    """``y = x @ W.T + b`` with ``W`` [out_features, in_features], initialised as
    PyTorch's (uniform in +-1/sqrt(in_features))."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        bound = 1.0 / math.sqrt(in_features) if in_features else 0.0
        init = _nn.initializer.Uniform(-bound, bound)
        self.in_features, self.out_features = in_features, out_features
        self.weight = self.create_parameter([out_features, in_features], dtype=dtype,
                                            default_initializer=init)
        self.bias = self.create_parameter([out_features], dtype=dtype, is_bias=True,
                                          default_initializer=init) if bias else None

    def forward(self, input):  # noqa: A002
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return 'in_features=%d, out_features=%d, bias=%s' % (
            self.in_features, self.out_features, self.bias is not None)


class Softmax(Layer):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return functional.softmax(input, self.dim)


class Unfold(Layer):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self._args = (kernel_size, dilation, padding, stride)

    def forward(self, input):  # noqa: A002
        return functional.unfold(input, *self._args)


def _avg_pool(base, name):
    class AvgPool(base):
        __doc__ = "PyTorch's %s: count_include_pad=True counts the padding." % name

        def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                     count_include_pad=True, divisor_override=None):
            kwargs = {}
            if divisor_override is not None:
                if base is _nn.AvgPool1D:
                    raise ValueError("compat.nn.AvgPool1d: divisor_override is not supported "
                                     "for 1-D pooling")
                kwargs['divisor_override'] = divisor_override
            super().__init__(kernel_size, stride, padding, ceil_mode=ceil_mode,
                             exclusive=not count_include_pad, **kwargs)
    AvgPool.__name__ = AvgPool.__qualname__ = name
    return AvgPool


AvgPool1d = AvgPool1D = _avg_pool(_nn.AvgPool1D, 'AvgPool1d')
AvgPool2d = AvgPool2D = _avg_pool(_nn.AvgPool2D, 'AvgPool2d')
AvgPool3d = AvgPool3D = _avg_pool(_nn.AvgPool3D, 'AvgPool3d')

__all__ = ['Linear', 'Softmax', 'Unfold', 'AvgPool1d', 'AvgPool2d', 'AvgPool3d', 'functional']
