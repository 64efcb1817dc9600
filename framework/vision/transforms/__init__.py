"""Image transforms (``paddle.vision.transforms``): numpy implementations that
accept HWC/HW numpy images, CHW Tensors and (when Pillow is installed) PIL images."""
from . import functional  # noqa: F401
from .functional import (center_crop, crop, hflip, normalize, pad, resize,  # noqa: F401
                         to_tensor, vflip)
from .transforms import (BaseTransform, CenterCrop, Compose, Normalize, Pad,  # noqa: F401
                         RandomCrop, RandomHorizontalFlip, RandomVerticalFlip, Resize,
                         ToTensor, Transpose)

__all__ = ['BaseTransform', 'Compose', 'ToTensor', 'Normalize', 'Resize', 'RandomCrop',
           'CenterCrop', 'RandomHorizontalFlip', 'RandomVerticalFlip', 'Transpose', 'Pad',
           'to_tensor', 'normalize', 'resize', 'pad', 'crop', 'center_crop', 'hflip', 'vflip']
