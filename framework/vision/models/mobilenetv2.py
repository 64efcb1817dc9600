"""MobileNetV2 (Sandler et al. 2018): inverted residuals, linear bottlenecks."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import ConvNormActivation, make_divisible, build

# Paddle's published ImageNet weights (scale 1.0 only): arch -> (url, md5)
model_urls = {'mobilenetv2_1.0': ('https://paddle-hapi.bj.bcebos.com/models/mobilenet_v2_x1.0.pdparams', '0340af0a901346c8d46f4529882fb63d')}

__all__ = ['MobileNetV2', 'mobilenet_v2']


def _conv_bn_relu6(in_planes, out_planes, kernel_size=3, stride=1, groups=1,
                   norm_layer=nn.BatchNorm2D):
    return ConvNormActivation(in_planes, out_planes, kernel_size, stride, groups=groups,
                              norm_layer=norm_layer, activation_layer=nn.ReLU6)


class InvertedResidual(nn.Layer):
    """1x1 expansion (unless ``expand_ratio`` is 1), 3x3 depthwise, 1x1
    linear projection; residual when the shape is kept."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        if stride not in (1, 2):
            raise ValueError("InvertedResidual: stride must be 1 or 2, got %r" % (stride,))
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(_conv_bn_relu6(inp, hidden_dim, kernel_size=1, norm_layer=norm_layer))
        layers += [_conv_bn_relu6(hidden_dim, hidden_dim, stride=stride, groups=hidden_dim,
                                  norm_layer=norm_layer),
                   nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


# expansion t, output channels c, repeats n, first stride s
_SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1],
            [6, 160, 3, 2], [6, 320, 1, 1]]


class MobileNetV2(nn.Layer):
    """MobileNetV2 with width multiplier ``scale``; classifier is
    ``Dropout(0.2)`` + Linear (``num_classes > 0``).

    >>> import framework as paddle
    >>> paddle.vision.models.MobileNetV2(scale=0.25, num_classes=10)(
    ...     paddle.rand([2, 3, 32, 32])).shape
    paddle.Size([2, 10])
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        norm_layer = nn.BatchNorm2D
        input_channel = make_divisible(32 * scale, 8)
        self.last_channel = make_divisible(1280 * max(1.0, scale), 8)
        features = [_conv_bn_relu6(3, input_channel, stride=2, norm_layer=norm_layer)]
        for t, c, n, s in _SETTING:
            output_channel = make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel,
                                                 s if i == 0 else 1, expand_ratio=t,
                                                 norm_layer=norm_layer))
                input_channel = output_channel
        features.append(_conv_bn_relu6(input_channel, self.last_channel, kernel_size=1,
                                       norm_layer=norm_layer))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2 (3.5M parameters at scale 1.0 with 1000 classes)."""
    return build(lambda: MobileNetV2(scale=scale, **kwargs), pretrained,
                 'mobilenetv2_%s' % scale, model_urls)
