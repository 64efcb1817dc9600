"""SqueezeNet 1.0 / 1.1 (Iandola et al. 2016): fire modules of 1x1 squeeze and
1x1 + 3x3 expand convolutions."""
from ... import nn
from ...nn import functional as F
from ...ops.manipulation import concat, squeeze
from ._utils import build

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']

_URL = 'https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/'
model_urls = {
    'squeezenet1_0': (_URL + 'SqueezeNet1_0_pretrained.pdparams',
                      '30b95af60a2178f03cf9b66cd77e1db1'),
    'squeezenet1_1': (_URL + 'SqueezeNet1_1_pretrained.pdparams',
                      'a11250d3a1f91d7131fd095ebbf09eee'),
}


class MakeFireConv(nn.Layer):
    """Conv2D followed by ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: squeeze to ``squeeze_channels``, then concatenate a 1x1 and
    a 3x3 expansion."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels,
                 expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


# fire modules after which version 1.0 / 1.1 max-pools (Paddle reuses one pool layer)
_POOL_AFTER = {'1.0': (3, 7), '1.1': (2, 4)}


class SqueezeNet(nn.Layer):
    """SqueezeNet ``version`` '1.0' or '1.1'. The classifier is dropout and a 1x1
    convolution to ``num_classes`` (none when ``num_classes <= 0``); ``with_pool``
    applies ReLU, global average pooling and squeezes to [N, C].

    >>> import framework as paddle
    >>> paddle.vision.models.SqueezeNet('1.1', num_classes=10)(
    ...     paddle.rand([1, 3, 64, 64])).shape
    paddle.Size([1, 10])
    """

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        if version not in _POOL_AFTER:
            raise ValueError("SqueezeNet: supported versions are ['1.0', '1.1'] but input "
                             "version is %r" % (version,))
        self.version = version
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == '1.0':
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
            first = 96
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
            first = 64
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        fires = [(first, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128),
                 (256, 32, 128, 128), (256, 48, 192, 192), (384, 48, 192, 192),
                 (384, 64, 256, 256), (512, 64, 256, 256)]
        for i, cfg in enumerate(fires):
            setattr(self, '_conv%d' % (i + 1), MakeFire(*cfg))
        self._drop = nn.Dropout(p=0.5, mode='downscale_in_infer')
        if num_classes > 0:     # (Paddle builds an empty 0-channel conv here otherwise)
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pool_after = _POOL_AFTER[self.version]
        for i in range(1, 9):
            x = getattr(self, '_conv%d' % i)(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet 1.0 (1.25M parameters with 1000 classes)."""
    return build(lambda: SqueezeNet('1.0', **kwargs), pretrained, 'squeezenet1_0', model_urls)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet 1.1 (1.24M parameters, 2.4x less computation than 1.0)."""
    return build(lambda: SqueezeNet('1.1', **kwargs), pretrained, 'squeezenet1_1', model_urls)
