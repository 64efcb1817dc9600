"""Pooling (Paddle's ``paddle.nn.functional.pooling``)."""
from ...ops.conv.pool import (adaptive_avg_pool1d, adaptive_avg_pool2d,  # noqa: F401
                              adaptive_avg_pool3d, adaptive_max_pool1d, adaptive_max_pool2d,
                              adaptive_max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,
                              fractional_max_pool2d, fractional_max_pool3d, lp_pool1d,
                              lp_pool2d, max_pool1d, max_pool2d, max_pool3d, max_unpool1d,
                              max_unpool2d, max_unpool3d)

__all__ = ['adaptive_avg_pool1d', 'adaptive_avg_pool2d', 'adaptive_avg_pool3d',
           'adaptive_max_pool1d', 'adaptive_max_pool2d', 'adaptive_max_pool3d', 'avg_pool1d',
           'avg_pool2d', 'avg_pool3d', 'fractional_max_pool2d', 'fractional_max_pool3d',
           'lp_pool1d', 'lp_pool2d', 'max_pool1d', 'max_pool2d', 'max_pool3d', 'max_unpool1d',
           'max_unpool2d', 'max_unpool3d']
