"""MobileNetV1 (Howard et al. 2017): depthwise-separable convolutions."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import ConvNormActivation, build

# Paddle's published ImageNet weights (scale 1.0 only): arch -> (url, md5)
model_urls = {'mobilenetv1_1.0': ('https://paddle-hapi.bj.bcebos.com/models/mobilenetv1_1.0.pdparams', '3033ab1975b1670bef51545feb65fc45')}

__all__ = ['MobileNetV1', 'mobilenet_v1']


class DepthwiseSeparable(nn.Layer):
    """3x3 depthwise conv-BN-ReLU then 1x1 pointwise conv-BN-ReLU."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels, int(out_channels1 * scale), kernel_size=3, stride=stride, padding=1,
            groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale), int(out_channels2 * scale), kernel_size=1, stride=1,
            padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# (name, in channels, depthwise channels, pointwise channels, stride)
_BLOCKS = ([('conv2_1', 32, 32, 64, 1), ('conv2_2', 64, 64, 128, 2),
            ('conv3_1', 128, 128, 128, 1), ('conv3_2', 128, 128, 256, 2),
            ('conv4_1', 256, 256, 256, 1), ('conv4_2', 256, 256, 512, 2)]
           + [('conv5_%d' % i, 512, 512, 512, 1) for i in range(1, 6)]
           + [('conv5_6', 512, 512, 1024, 2), ('conv6', 1024, 1024, 1024, 1)])


class MobileNetV1(nn.Layer):
    """MobileNetV1 with channel multiplier ``scale``; ``num_classes <= 0``
    drops the classifier and ``with_pool=False`` the global average pool.

    >>> import framework as paddle
    >>> paddle.vision.models.MobileNetV1(scale=0.25, num_classes=10)(
    ...     paddle.rand([2, 3, 32, 32])).shape
    paddle.Size([2, 10])
    """

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        self.dwsl = []
        for name, cin, c1, c2, stride in _BLOCKS:
            block = DepthwiseSeparable(int(cin * scale), c1, c2, c1, stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1 (4.2M parameters at scale 1.0 with 1000 classes)."""
    return build(lambda: MobileNetV1(scale=scale, **kwargs), pretrained,
                 'mobilenetv1_%s' % scale, model_urls)
