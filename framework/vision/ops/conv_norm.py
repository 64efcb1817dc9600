"""``ConvNormActivation``: the conv -> norm -> activation block of the model zoo."""
from ... import nn

__all__ = ['ConvNormActivation']


class ConvNormActivation(nn.Sequential):
    """Conv2D (no bias when followed by a norm layer) -> norm -> activation, as
    ``paddle.vision.ops.ConvNormActivation``; sublayers are numbered 0, 1, 2, so
    state_dict keys match Paddle's.

    >>> import framework as paddle
    >>> block = paddle.vision.ops.ConvNormActivation(3, 8, kernel_size=3, stride=2)
    >>> block(paddle.rand([1, 3, 9, 9])).shape
    paddle.Size([1, 8, 5, 5])
    """

    def __init__(self, in_channels, out_channels, kernel_size=3, stride=1, padding=None,
                 groups=1, norm_layer=nn.BatchNorm2D, activation_layer=nn.ReLU, dilation=1,
                 bias=None):
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers = [nn.Conv2D(in_channels, out_channels, kernel_size, stride, padding,
                            dilation=dilation, groups=groups,
                            bias_attr=None if bias else False)]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
