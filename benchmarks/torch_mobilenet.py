"""A PyTorch MobileNet-v2 built as Paddle's ``vision.models.mobilenet_v2``
(torchvision is not needed): the same layers in the same order, so
``run_all.copy_to_torch`` copies our weights into it."""
import torch
from torch import nn

# (expansion, channels, repeats, first stride): Paddle's and torchvision's table
_SETTING = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
            (6, 160, 3, 2), (6, 320, 1, 1)]


def _conv_bn_relu6(inp, oup, kernel=3, stride=1, groups=1):
    return nn.Sequential(nn.Conv2d(inp, oup, kernel, stride, (kernel - 1) // 2, groups=groups,
                                   bias=False),
                         nn.BatchNorm2d(oup), nn.ReLU6())


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand):
        super().__init__()
        hidden = int(round(inp * expand))
        self.use_res = stride == 1 and inp == oup
        layers = [_conv_bn_relu6(inp, hidden, 1)] if expand != 1 else []
        layers += [_conv_bn_relu6(hidden, hidden, stride=stride, groups=hidden),
                   nn.Conv2d(hidden, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res else self.conv(x)


class MobileNetV2(nn.Module):
    """Scale 1.0 (channel counts are already multiples of 8)."""

    def __init__(self, num_classes):
        super().__init__()
        features, inp = [_conv_bn_relu6(3, 32, stride=2)], 32
        for t, c, n, s in _SETTING:
            for i in range(n):
                features.append(InvertedResidual(inp, c, s if i == 0 else 1, t))
                inp = c
        features.append(_conv_bn_relu6(inp, 1280, 1))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))

    def forward(self, x):
        x = self.features(x).mean((2, 3))
        return self.classifier(x)
