"""1.8 layer signatures: ``Conv2D(num_channels, num_filters, filter_size, act=...)``,
``Pool2D(pool_size, pool_type, pool_stride)``, ``Linear(input_dim, output_dim, act=...)``."""
from ... import nn as _nn
from ...nn import functional as F
from ...nn.layer import Layer
from ..layers import _act as _apply_act


class Conv2D(Layer):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1,
                 groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
                 dtype='float32'):
        super().__init__()
        self._conv = _nn.Conv2D(num_channels, num_filters, filter_size, stride=stride,
                                padding=padding, dilation=dilation, groups=groups or 1,
                                weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act
        self.weight = self._conv.weight
        self.bias = self._conv.bias

    def forward(self, input):  # noqa: A002
        return _apply_act(self._conv(input), self._act)


class Pool2D(Layer):
    def __init__(self, pool_size=-1, pool_type='max', pool_stride=1, pool_padding=0,
                 global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True,
                 data_format='NCHW'):
        super().__init__()
        if pool_type not in ('max', 'avg'):
            raise ValueError("Pool2D: pool_type must be 'max' or 'avg', got %r" % pool_type)
        self._args = (pool_size, pool_type, pool_stride, pool_padding, global_pooling,
                      ceil_mode, exclusive, data_format)

    def forward(self, input):  # noqa: A002
        size, kind, stride, pad, global_pool, ceil, exclusive, fmt = self._args
        if global_pool:
            return (F.adaptive_max_pool2d if kind == 'max' else F.adaptive_avg_pool2d)(input, 1)
        if kind == 'max':
            return F.max_pool2d(input, size, stride, pad, ceil_mode=ceil, data_format=fmt)
        return F.avg_pool2d(input, size, stride, pad, ceil_mode=ceil, exclusive=exclusive,
                            data_format=fmt)


class Linear(Layer):
    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None,
                 dtype='float32'):
        super().__init__()
        self._fc = _nn.Linear(input_dim, output_dim, weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act
        self.weight = self._fc.weight
        self.bias = self._fc.bias

    def forward(self, input):  # noqa: A002
        return _apply_act(self._fc(input), self._act)


class BatchNorm(_nn.BatchNorm):
    pass


class Embedding(Layer):
    def __init__(self, size, is_sparse=False, is_distributed=False, padding_idx=None,
                 param_attr=None, dtype='float32'):
        super().__init__()
        self._emb = _nn.Embedding(size[0], size[1], padding_idx=padding_idx,
                                  weight_attr=param_attr)
        self.weight = self._emb.weight

    def forward(self, input):  # noqa: A002
        return self._emb(input)


class Dropout(_nn.Dropout):
    def __init__(self, p=0.5, seed=None, dropout_implementation='downgrade_in_infer',
                 is_test=False):
        mode = 'downscale_in_infer' if dropout_implementation == 'downgrade_in_infer' \
            else 'upscale_in_train'
        super().__init__(p=p, mode=mode)
