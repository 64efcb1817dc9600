"""DenseNet (Huang et al. 2017): each layer of a dense block sees the
concatenated outputs of all earlier layers."""
import math

from ... import nn
from ...nn.initializer import Uniform
from ...ops.manipulation import concat, flatten
from ...param_attr import ParamAttr
from ._utils import build

__all__ = ['DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201',
           'densenet264']

_URL = 'https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/DenseNet%d_pretrained.pdparams'
model_urls = {
    'densenet121': (_URL % 121, 'db1b239ed80a905290fd8b01d3af08e4'),
    'densenet161': (_URL % 161, '62158869cb315098bd25ddbfd308a853'),
    'densenet169': (_URL % 169, '82cc7c635c3f19098c748850efb2d796'),
    'densenet201': (_URL % 201, '16ca29565a7712329cf9e36e02caaf58'),
    'densenet264': (_URL % 264, '3270ce516b85370bba88cfdd9f60bff4'),
}

# layers -> (initial features, growth rate, layers per dense block)
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
          169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
          264: (64, 32, [6, 12, 64, 48])}


def _conv(num_channels, num_filters, filter_size, stride, pad, groups):
    return nn.Conv2D(num_channels, num_filters, filter_size, stride=stride, padding=pad,
                     groups=groups, bias_attr=False)


class BNACConvLayer(nn.Layer):
    """Pre-activation: BatchNorm with ``act``, then a bias-free Conv2D."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act='relu'):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class ConvBNLayer(nn.Layer):
    """A bias-free Conv2D, then BatchNorm with ``act``."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act='relu'):
        super().__init__()
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseLayer(nn.Layer):
    """Bottleneck (1x1 to ``bn_size * growth_rate``) then 3x3 to ``growth_rate``
    channels, appended to the input's channels."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, pad=1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode='downscale_in_infer')

    def forward(self, input):
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` dense layers, registered as ``{name}_1``, ``{name}_2``, ..."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer('%s_%d' % (name, i + 1), layer))

    def forward(self, input):
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """BN-ReLU-1x1 conv to ``num_output_features``, then 2x2 average pooling."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


class DenseNet(nn.Layer):
    """DenseNet with ``layers`` in 121, 161, 169, 201, 264; ``bn_size`` is the
    bottleneck width factor, ``dropout`` the rate after each dense layer.

    >>> import framework as paddle
    >>> paddle.vision.models.DenseNet(num_classes=0)(paddle.rand([2, 3, 32, 32])).shape
    paddle.Size([2, 1024, 1, 1])
    """

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        if layers not in _SPECS:
            raise ValueError("DenseNet: supported layers are %s but input layer is %r"
                             % (sorted(_SPECS), layers))
        self.num_classes = num_classes
        self.with_pool = with_pool
        num_features, growth_rate, block_config = _SPECS[layers]
        self.block_config = block_config
        self.conv1_func = ConvBNLayer(3, num_features, 7, stride=2, pad=3, act='relu')
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list = []
        self.transition_func_list = []
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(num_features, num_layers, bn_size, growth_rate, dropout,
                               name='conv%d' % (i + 2))
            self.dense_block_func_list.append(self.add_sublayer('db_conv_%d' % (i + 2), block))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(num_features, num_features // 2)
                self.transition_func_list.append(
                    self.add_sublayer('tr_conv%d_blk' % (i + 2), transition))
                num_features //= 2
        self.batch_norm = nn.BatchNorm(num_features, act='relu')
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(num_features)
            self.out = nn.Linear(num_features, num_classes,
                                 weight_attr=ParamAttr(initializer=Uniform(-stdv, stdv)))

    def forward(self, input):
        x = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(flatten(x, 1))
        return x


def _densenet(layers, pretrained, kwargs):
    return build(lambda: DenseNet(layers=layers, **kwargs), pretrained, 'densenet%d' % layers,
                 model_urls)


def densenet121(pretrained=False, **kwargs):
    """DenseNet-121 (8.0M parameters with 1000 classes)."""
    return _densenet(121, pretrained, kwargs)


def densenet161(pretrained=False, **kwargs):
    """DenseNet-161 (growth rate 48, 28.7M parameters)."""
    return _densenet(161, pretrained, kwargs)


def densenet169(pretrained=False, **kwargs):
    """DenseNet-169 (14.1M parameters)."""
    return _densenet(169, pretrained, kwargs)


def densenet201(pretrained=False, **kwargs):
    """DenseNet-201 (20.0M parameters)."""
    return _densenet(201, pretrained, kwargs)


def densenet264(pretrained=False, **kwargs):
    """DenseNet-264 (33.3M parameters)."""
    return _densenet(264, pretrained, kwargs)
