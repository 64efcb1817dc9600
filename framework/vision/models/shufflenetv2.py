"""ShuffleNetV2 (Ma et al. 2018): channel split, depthwise convolutions and
channel shuffles."""
from ... import nn
from ...ops.manipulation import concat, flatten, reshape, split, transpose
from ..ops.conv_norm import ConvNormActivation
from ._utils import build

__all__ = ['ShuffleNetV2', 'shufflenet_v2_x0_25', 'shufflenet_v2_x0_33', 'shufflenet_v2_x0_5',
           'shufflenet_v2_x1_0', 'shufflenet_v2_x1_5', 'shufflenet_v2_x2_0',
           'shufflenet_v2_swish']

_URL = 'https://paddle-hapi.bj.bcebos.com/models/%s.pdparams'
model_urls = {arch: (_URL % arch, md5) for arch, md5 in [
    ('shufflenet_v2_x0_25', '1e509b4c140eeb096bb16e214796d03b'),
    ('shufflenet_v2_x0_33', '3d7b3ab0eaa5c0927ff1026d31b729bd'),
    ('shufflenet_v2_x0_5', '5e5cee182a7793c4e4c73949b1a71bd4'),
    ('shufflenet_v2_x1_0', '122d42478b9e81eb49f8a9ede327b1a4'),
    ('shufflenet_v2_x1_5', 'faced5827380d73531d0ee027c67826d'),
    ('shufflenet_v2_x2_0', 'cd3dddcd8305e7bcd8ad14d1c69a5784'),
    ('shufflenet_v2_swish', 'adde0aa3b023e5b0c94a68be1c394b84')]}

# scale -> channels of conv1 and the three stages, then of the last 1x1 conv
_STAGE_OUT_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512],
                       0.5: [24, 48, 96, 192, 1024], 1.0: [24, 116, 232, 464, 1024],
                       1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}


def create_activation_layer(act):
    if act == 'swish':
        return nn.Swish
    if act == 'relu':
        return nn.ReLU
    if act is None:
        return None
    raise ValueError("ShuffleNetV2: the activation function is not supported: %r" % (act,))


def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` equal groups (NCHW)."""
    n, c, h, w = x.shape[0:4]
    x = reshape(x, [n, groups, c // groups, h, w])
    return reshape(transpose(x, [0, 2, 1, 3, 4]), [n, c, h, w])


def _conv_bn(in_channels, out_channels, kernel_size, stride, groups, activation_layer):
    return ConvNormActivation(in_channels, out_channels, kernel_size=kernel_size, stride=stride,
                              padding=(kernel_size - 1) // 2, groups=groups,
                              activation_layer=activation_layer)


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass through, the other half go through
    1x1 - depthwise 3x3 - 1x1; then the halves are shuffled together."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _conv_bn(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _conv_bn(half, half, 3, stride, half, None)
        self._conv_linear = _conv_bn(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = split(inputs, [half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Down-sampling unit: both branches see the whole input (stride 2)."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _conv_bn(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _conv_bn(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _conv_bn(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _conv_bn(half, half, 3, stride, half, None)
        self._conv_linear_2 = _conv_bn(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 at width ``scale`` (0.25, 0.33, 0.5, 1.0, 1.5 or 2.0), with
    activation ``act`` ('relu', 'swish' or None).

    >>> import framework as paddle
    >>> paddle.vision.models.ShuffleNetV2(scale=0.25, num_classes=10)(
    ...     paddle.rand([2, 3, 32, 32])).shape
    paddle.Size([2, 10])
    """

    def __init__(self, scale=1.0, act='relu', num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _STAGE_OUT_CHANNELS:
            raise ValueError("ShuffleNetV2: scale should be one of %s, got %r"
                             % (sorted(_STAGE_OUT_CHANNELS), scale))
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        activation_layer = create_activation_layer(act)
        channels = _STAGE_OUT_CHANNELS[scale]
        self._conv1 = _conv_bn(3, channels[0], 3, 2, 1, activation_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate([4, 8, 4]):
            for i in range(repeats):
                if i == 0:
                    block = InvertedResidualDS(channels[stage], channels[stage + 1], 2,
                                               activation_layer)
                else:
                    block = InvertedResidual(channels[stage + 1], channels[stage + 1], 1,
                                             activation_layer)
                self._block_list.append(self.add_sublayer('%d_%d' % (stage + 2, i + 1), block))
        self._last_conv = _conv_bn(channels[-2], channels[-1], 1, 1, 1, activation_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, 1))
        return x


def _shufflenet_v2(arch, scale, pretrained, kwargs, act=None):
    if act is not None:
        kwargs = dict(kwargs, act=act)
    return build(lambda: ShuffleNetV2(scale=scale, **kwargs), pretrained, arch, model_urls)


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNetV2 at 0.25x width."""
    return _shufflenet_v2('shufflenet_v2_x0_25', 0.25, pretrained, kwargs)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNetV2 at 0.33x width."""
    return _shufflenet_v2('shufflenet_v2_x0_33', 0.33, pretrained, kwargs)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNetV2 at 0.5x width."""
    return _shufflenet_v2('shufflenet_v2_x0_5', 0.5, pretrained, kwargs)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNetV2 at 1.0x width."""
    return _shufflenet_v2('shufflenet_v2_x1_0', 1.0, pretrained, kwargs)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNetV2 at 1.5x width."""
    return _shufflenet_v2('shufflenet_v2_x1_5', 1.5, pretrained, kwargs)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNetV2 at 2.0x width."""
    return _shufflenet_v2('shufflenet_v2_x2_0', 2.0, pretrained, kwargs)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNetV2 at 1.0x width with swish activations."""
    return _shufflenet_v2('shufflenet_v2_swish', 1.0, pretrained, kwargs, act='swish')
