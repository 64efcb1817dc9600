"""VGG (Simonyan & Zisserman 2014), configurations A/B/D/E = VGG-11/13/16/19."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import build

# Paddle's published ImageNet weights: arch -> (url, md5)
model_urls = {
    'vgg16': ('https://paddle-hapi.bj.bcebos.com/models/vgg16.pdparams', '89bbffc0f87d260be9b8cdc169c991c4'),
    'vgg19': ('https://paddle-hapi.bj.bcebos.com/models/vgg19.pdparams', '23b18bb13d8894f60f54e642be79a0dd'),
}

__all__ = ['VGG', 'make_layers', 'vgg11', 'vgg13', 'vgg16', 'vgg19']

# channels of each 3x3 conv; 'M' = 2x2 max pool
cfgs = {
    'A': [64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'],
    'B': [64, 64, 'M', 128, 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M'],
    'D': [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 'M', 512, 512, 512, 'M',
          512, 512, 512, 'M'],
    'E': [64, 64, 'M', 128, 128, 'M', 256, 256, 256, 256, 'M', 512, 512, 512, 512, 'M',
          512, 512, 512, 512, 'M'],
}


def make_layers(cfg, batch_norm=False):
    """The convolutional feature extractor for a configuration list."""
    layers = []
    in_channels = 3
    for v in cfg:
        if v == 'M':
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        in_channels = v
    return nn.Sequential(*layers)


class VGG(nn.Layer):
    """``features`` (from ``make_layers``), a 7x7 adaptive average pool
    (``with_pool``) and the classifier 25088 -> 4096 -> 4096 -> num_classes
    with ReLU and dropout (``num_classes > 0``).

    >>> import framework as paddle
    >>> from framework.vision.models.vgg import VGG, make_layers
    >>> VGG(make_layers([8, 'M']), num_classes=0, with_pool=False)(
    ...     paddle.rand([1, 3, 8, 8])).shape
    paddle.Size([1, 8, 4, 4])
    """

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def _vgg(arch, cfg, batch_norm, pretrained, **kwargs):
    return build(lambda: VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs),
                 pretrained, arch + ('_bn' if batch_norm else ''), model_urls)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11 (``batch_norm=True`` adds BatchNorm2D after each conv)."""
    return _vgg('vgg11', 'A', batch_norm, pretrained, **kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13."""
    return _vgg('vgg13', 'B', batch_norm, pretrained, **kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16."""
    return _vgg('vgg16', 'D', batch_norm, pretrained, **kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19."""
    return _vgg('vgg19', 'E', batch_norm, pretrained, **kwargs)
