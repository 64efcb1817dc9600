"""Convolutions (Paddle's ``paddle.nn.functional.conv``)."""
from ...ops.conv.conv import (conv1d, conv1d_transpose, conv2d, conv2d_transpose,  # noqa: F401
                              conv3d, conv3d_transpose)

__all__ = ['conv1d', 'conv1d_transpose', 'conv2d', 'conv2d_transpose', 'conv3d',
           'conv3d_transpose']
