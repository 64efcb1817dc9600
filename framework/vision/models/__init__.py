"""``framework.vision.models``: the model zoo (Paddle's ``paddle.vision.models``).

Architectures only: ``pretrained=True`` raises, since nothing is downloaded
here; load local weights with ``model.set_state_dict(framework.load(path))``.
"""
from .lenet import LeNet
from .mobilenetv1 import MobileNetV1, mobilenet_v1
from .mobilenetv2 import MobileNetV2, mobilenet_v2
from .resnet import (ResNet, resnet18, resnet34, resnet50, resnet101, resnet152,
                     resnext50_32x4d, resnext50_64x4d, resnext101_32x4d, resnext101_64x4d,
                     resnext152_32x4d, resnext152_64x4d, wide_resnet50_2, wide_resnet101_2)
from .vgg import VGG, vgg11, vgg13, vgg16, vgg19

__all__ = ['LeNet', 'VGG', 'vgg11', 'vgg13', 'vgg16', 'vgg19', 'ResNet', 'resnet18',
           'resnet34', 'resnet50', 'resnet101', 'resnet152', 'resnext50_32x4d',
           'resnext50_64x4d', 'resnext101_32x4d', 'resnext101_64x4d', 'resnext152_32x4d',
           'resnext152_64x4d', 'wide_resnet50_2', 'wide_resnet101_2', 'MobileNetV1',
           'mobilenet_v1', 'MobileNetV2', 'mobilenet_v2']
