"""Helpers shared by the model zoo."""
from ... import nn


def no_pretrained(arch):
    """The zoo builds architectures only: there are no weight downloads here."""
    raise NotImplementedError(
        "%s(pretrained=True): this framework does not download pretrained weights. "
        "Build the model with pretrained=False and load weights you have locally with "
        "model.set_state_dict(framework.load(path))." % arch)


def make_divisible(v, divisor=8, min_value=None):
    """``v`` rounded to the nearest multiple of ``divisor`` (at least
    ``min_value``), never more than 10% below ``v``: the channel rounding of
    the MobileNet papers."""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class ConvNormActivation(nn.Sequential):
    """Conv2D (no bias when followed by a norm layer) -> norm -> activation,
    as ``paddle.vision.ops.ConvNormActivation``; sublayers are numbered 0, 1, 2."""

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
