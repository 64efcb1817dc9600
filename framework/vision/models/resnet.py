"""ResNet (He et al. 2015) with Paddle's constructor, plus the ResNeXt and
wide variants that differ only in ``groups`` / ``width``."""
from ... import nn
from ...ops.manipulation import flatten
from ._utils import build

# Paddle's published ImageNet weights: arch -> (url, md5)
_URL = 'https://paddle-hapi.bj.bcebos.com/models/%s.pdparams'
model_urls = {
    'resnet18': (_URL % 'resnet18', 'cf548f46534aa3560945be4b95cd11c4'),
    'resnet34': (_URL % 'resnet34', '8d2275cf8706028345f78ac0e1d31969'),
    'resnet50': (_URL % 'resnet50', 'ca6f485ee1ab0492d38f323885b0ad80'),
    'resnet101': (_URL % 'resnet101', '02f35f034ca3858e1e54d4036443c92d'),
    'resnet152': (_URL % 'resnet152', '7ad16a2f1e7333859ff986138630fd7a'),
    'resnext50_32x4d': (_URL % 'resnext50_32x4d', 'dc47483169be7d6f018fcbb7baf8775d'),
    'resnext50_64x4d': (_URL % 'resnext50_64x4d', '063d4b483e12b06388529450ad7576db'),
    'resnext101_32x4d': (_URL % 'resnext101_32x4d', '967b090039f9de2c8d06fe994fb9095f'),
    'resnext101_64x4d': (_URL % 'resnext101_64x4d', '98e04e7ca616a066699230d769d03008'),
    'resnext152_32x4d': (_URL % 'resnext152_32x4d', '18ff0beee21f2efc99c4b31786107121'),
    'resnext152_64x4d': (_URL % 'resnext152_64x4d', '77c4af00ca42c405fa7f841841959379'),
    'wide_resnet50_2': (_URL % 'wide_resnet50_2', '0282f804d73debdab289bd9fea3fa6dc'),
    'wide_resnet101_2': (_URL % 'wide_resnet101_2', 'd4360a2d23657f059216f5d5a1a9ac93'),
}

__all__ = ['ResNet', 'BasicBlock', 'BottleneckBlock', 'resnet18', 'resnet34', 'resnet50',
           'resnet101', 'resnet152', 'resnext50_32x4d', 'resnext50_64x4d',
           'resnext101_32x4d', 'resnext101_64x4d', 'resnext152_32x4d', 'resnext152_64x4d',
           'wide_resnet50_2', 'wide_resnet101_2']


class BasicBlock(nn.Layer):
    """Two 3x3 conv-BN stages with a residual connection (ResNet-18/34)."""
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        if groups != 1 or base_width != 64:
            raise ValueError("BasicBlock: only groups=1 and base_width=64 are supported, got "
                             "groups=%d, base_width=%d" % (groups, base_width))
        if dilation > 1:
            raise NotImplementedError("BasicBlock: dilation > 1 is not supported")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        # the shortcut runs after the main branch, as in Paddle (the order in
        # which summary() lists the layers)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped for ResNeXt), 1x1 expand (x4), with a
    residual connection (ResNet-50/101/152)."""
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = norm_layer or nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(width, width, 3, padding=dilation, stride=stride, groups=groups,
                               dilation=dilation, bias_attr=False)
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        identity = x if self.downsample is None else self.downsample(x)
        return self.relu(out + identity)


_DEPTHS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
           152: [3, 8, 36, 3]}


class ResNet(nn.Layer):
    """ResNet: 7x7/2 conv stem, 3x3/2 max pool, four stages of ``block``
    (64, 128, 256, 512 planes), adaptive average pool (``with_pool``) and a
    linear classifier (``num_classes > 0``).

    Args:
        block: ``BasicBlock`` or ``BottleneckBlock``.
        depth: 18, 34, 50, 101 or 152.
        width: base width per group (64; 128 for wide ResNets, 4 for ResNeXt).
        num_classes, with_pool, groups: as Paddle.

    >>> import framework as paddle
    >>> from framework.vision.models.resnet import ResNet, BasicBlock
    >>> ResNet(BasicBlock, 18, num_classes=10)(paddle.rand([2, 3, 32, 32])).shape
    paddle.Size([2, 10])
    """

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True, groups=1):
        super().__init__()
        if depth not in _DEPTHS:
            raise ValueError("ResNet: depth must be one of %s, got %r" % (sorted(_DEPTHS), depth))
        layers = _DEPTHS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(3, self.inplanes, kernel_size=7, stride=2, padding=3,
                               bias_attr=False)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        norm_layer = self._norm_layer
        downsample = None
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(self.inplanes, planes * block.expansion, 1, stride=stride,
                          bias_attr=False),
                norm_layer(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups, self.base_width,
                        previous_dilation, norm_layer)]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            layers.append(block(self.inplanes, planes, groups=self.groups,
                                base_width=self.base_width, norm_layer=norm_layer))
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def _resnet(arch, block, depth, pretrained, **kwargs):
    return build(lambda: ResNet(block, depth, **kwargs), pretrained, arch, model_urls)


def resnet18(pretrained=False, **kwargs):
    """ResNet-18 (11.7M parameters with 1000 classes)."""
    return _resnet('resnet18', BasicBlock, 18, pretrained, **kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34."""
    return _resnet('resnet34', BasicBlock, 34, pretrained, **kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50."""
    return _resnet('resnet50', BottleneckBlock, 50, pretrained, **kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101."""
    return _resnet('resnet101', BottleneckBlock, 101, pretrained, **kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152."""
    return _resnet('resnet152', BottleneckBlock, 152, pretrained, **kwargs)


def _resnext(arch, depth, groups, width, pretrained, kwargs):
    kwargs['groups'] = groups
    kwargs['width'] = width
    return _resnet(arch, BottleneckBlock, depth, pretrained, **kwargs)


def resnext50_32x4d(pretrained=False, **kwargs):
    """ResNeXt-50 with 32 groups of width 4."""
    return _resnext('resnext50_32x4d', 50, 32, 4, pretrained, kwargs)


def resnext50_64x4d(pretrained=False, **kwargs):
    return _resnext('resnext50_64x4d', 50, 64, 4, pretrained, kwargs)


def resnext101_32x4d(pretrained=False, **kwargs):
    return _resnext('resnext101_32x4d', 101, 32, 4, pretrained, kwargs)


def resnext101_64x4d(pretrained=False, **kwargs):
    return _resnext('resnext101_64x4d', 101, 64, 4, pretrained, kwargs)


def resnext152_32x4d(pretrained=False, **kwargs):
    return _resnext('resnext152_32x4d', 152, 32, 4, pretrained, kwargs)


def resnext152_64x4d(pretrained=False, **kwargs):
    return _resnext('resnext152_64x4d', 152, 64, 4, pretrained, kwargs)


def wide_resnet50_2(pretrained=False, **kwargs):
    """Wide ResNet-50-2: bottlenecks twice as wide."""
    kwargs['width'] = 64 * 2
    return _resnet('wide_resnet50_2', BottleneckBlock, 50, pretrained, **kwargs)


def wide_resnet101_2(pretrained=False, **kwargs):
    kwargs['width'] = 64 * 2
    return _resnet('wide_resnet101_2', BottleneckBlock, 101, pretrained, **kwargs)
