"""Detection ops (Paddle's ``paddle.vision.ops``): RoI pooling, deformable
convolution sampling, box coding, NMS, anchors, proposals and YOLO."""
from . import boxes, deform_conv, roi, sampling, yolo  # noqa: F401
