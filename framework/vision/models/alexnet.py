"""AlexNet (Krizhevsky et al. 2012) in Paddle's single-tower variant."""
import math

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...ops.manipulation import flatten
from ...param_attr import ParamAttr
from ._utils import build

__all__ = ['AlexNet', 'alexnet']

model_urls = {'alexnet': ('https://paddle-imagenet-models-name.bj.bcebos.com/dygraph/'
                          'AlexNet_pretrained.pdparams', '7f0f9f737132e02732d75a1459d98a43')}


def _uniform_attr(stdv):
    return ParamAttr(initializer=Uniform(-stdv, stdv))


def _conv(in_channels, out_channels, kernel_size, stride, padding, stdv=None):
    """Conv2D initialised U(-stdv, stdv), by default stdv = 1/sqrt(fan_in) (Paddle's)."""
    if stdv is None:
        stdv = 1.0 / math.sqrt(in_channels * kernel_size * kernel_size)
    return nn.Conv2D(in_channels, out_channels, kernel_size, stride=stride, padding=padding,
                     weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D (as ``_conv``), optional ReLU, 3x3 max pool with stride 2."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv=None,
                 groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == 'relu' else None
        self._conv = _conv(input_channels, output_channels, filter_size, stride, padding, stdv)
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


def _linear(in_features, out_features, stdv):
    return nn.Linear(in_features, out_features, weight_attr=_uniform_attr(stdv),
                     bias_attr=_uniform_attr(stdv))


class AlexNet(nn.Layer):
    """Five convolutions (64-192-384-256-256 channels) and three linear layers
    (4096, 4096, ``num_classes``) with dropout 0.5; ``num_classes <= 0`` returns
    the [N, 256, 6, 6] features of a 224x224 image.

    >>> import framework as paddle
    >>> paddle.vision.models.AlexNet(num_classes=0)(paddle.rand([1, 3, 63, 63])).shape
    paddle.Size([1, 256, 1, 1])
    """

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, act='relu')
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, act='relu')
        self._conv3 = _conv(192, 384, 3, 1, 1)
        self._conv4 = _conv(384, 256, 3, 1, 1)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, act='relu')
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(256 * 6 * 6)   # Paddle uses it for all three layers
            self._drop1 = nn.Dropout(p=0.5, mode='downscale_in_infer')
            self._fc6 = _linear(256 * 6 * 6, 4096, stdv)
            self._drop2 = nn.Dropout(p=0.5, mode='downscale_in_infer')
            self._fc7 = _linear(4096, 4096, stdv)
            self._fc8 = _linear(4096, num_classes, stdv)

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = self._drop1(flatten(x, 1))
            x = self._drop2(F.relu(self._fc6(x)))
            x = self._fc8(F.relu(self._fc7(x)))
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet (61.1M parameters with 1000 classes)."""
    return build(lambda: AlexNet(**kwargs), pretrained, 'alexnet', model_urls)
