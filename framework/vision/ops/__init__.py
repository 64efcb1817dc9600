"""``framework.vision.ops`` (Paddle's ``paddle.vision.ops``): detection and
region operators, deformable convolution, image file decoding and the model
zoo's conv block. The detection ops live in ``framework/ops/detection/``, the
file ops in ``image_io``."""
from ...ops.detection.boxes import (box_coder, distribute_fpn_proposals,  # noqa: F401
                                    generate_proposals, matrix_nms, nms, prior_box)
from ...ops.detection.deform_conv import deform_conv2d  # noqa: F401
from ...ops.detection.roi import psroi_pool, roi_align, roi_pool  # noqa: F401
from ...ops.detection.yolo import yolo_box, yolo_loss  # noqa: F401
from .conv_norm import ConvNormActivation  # noqa: F401
from .image_io import decode_jpeg, read_file  # noqa: F401
from .layers import DeformConv2D, PSRoIPool, RoIAlign, RoIPool  # noqa: F401

__all__ = ['yolo_loss', 'yolo_box', 'prior_box', 'box_coder', 'deform_conv2d', 'DeformConv2D',
           'distribute_fpn_proposals', 'generate_proposals', 'read_file', 'decode_jpeg',
           'roi_pool', 'RoIPool', 'psroi_pool', 'PSRoIPool', 'roi_align', 'RoIAlign', 'nms',
           'matrix_nms']
