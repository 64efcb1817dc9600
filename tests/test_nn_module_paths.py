"""Paddle's module layout of ``paddle.nn``: the dotted paths real model code
imports from (``paddle.nn.layer.*``, ``paddle.nn.functional.*``,
``paddle.nn.utils.*``, ``paddle.nn.modules``), each exposing Paddle's names,
and Paddle 3's PyTorch-style aliases as the same objects."""
import importlib

import numpy as np
import pytest

import framework as paddle
import framework.nn as nn

# public names each Paddle 3.3.1 module defines (functions and classes)
MODULES = {
    'nn.layer.activation': ['CELU', 'ELU', 'GELU', 'GLU', 'Hardshrink', 'Hardsigmoid',
                            'Hardswish', 'Hardtanh', 'LeakyReLU', 'LogSigmoid', 'LogSoftmax',
                            'Maxout', 'Mish', 'PReLU', 'RReLU', 'ReLU', 'ReLU6', 'SELU',
                            'Sigmoid', 'Silu', 'Softmax', 'Softmax2D', 'Softplus', 'Softshrink',
                            'Softsign', 'Swish', 'Tanh', 'Tanhshrink', 'ThresholdedReLU'],
    'nn.layer.common': ['AlphaDropout', 'Bilinear', 'CircularPad1D', 'CircularPad2D',
                        'CircularPad3D', 'ConstantPad1D', 'ConstantPad2D', 'ConstantPad3D',
                        'CosineSimilarity', 'Dropout', 'Dropout2D', 'Dropout3D', 'Embedding',
                        'FeatureAlphaDropout', 'Flatten', 'Fold', 'Identity', 'Linear', 'Pad1D',
                        'Pad2D', 'Pad3D', 'ReflectionPad1D', 'ReflectionPad2D',
                        'ReflectionPad3D', 'ReplicationPad1D', 'ReplicationPad2D',
                        'ReplicationPad3D', 'Unflatten', 'Unfold', 'Upsample',
                        'UpsamplingBilinear2D', 'UpsamplingNearest2D', 'ZeroPad1D',
                        'ZeroPad2D', 'ZeroPad3D'],
    'nn.layer.container': ['LayerDict', 'LayerList', 'ParameterDict', 'ParameterList',
                           'Sequential'],
    'nn.layer.conv': ['Conv1D', 'Conv1DTranspose', 'Conv2D', 'Conv2DTranspose', 'Conv3D',
                      'Conv3DTranspose'],
    'nn.layer.distance': ['PairwiseDistance'],
    'nn.layer.layers': ['Layer', 'HookRemoveHelper'],
    'nn.layer.loss': ['AdaptiveLogSoftmaxWithLoss', 'BCELoss', 'BCEWithLogitsLoss', 'CTCLoss',
                      'CosineEmbeddingLoss', 'CrossEntropyLoss', 'GaussianNLLLoss',
                      'HSigmoidLoss', 'HingeEmbeddingLoss', 'KLDivLoss', 'L1Loss', 'MSELoss',
                      'MarginRankingLoss', 'MultiLabelMarginLoss', 'MultiLabelSoftMarginLoss',
                      'MultiMarginLoss', 'NLLLoss', 'PoissonNLLLoss', 'RNNTLoss',
                      'SmoothL1Loss', 'SoftMarginLoss', 'TripletMarginLoss',
                      'TripletMarginWithDistanceLoss'],
    'nn.layer.norm': ['BatchNorm', 'BatchNorm1D', 'BatchNorm2D', 'BatchNorm3D', 'GroupNorm',
                      'InstanceNorm1D', 'InstanceNorm2D', 'InstanceNorm3D', 'LayerNorm',
                      'LocalResponseNorm', 'SpectralNorm', 'SyncBatchNorm'],
    'nn.layer.pooling': ['AdaptiveAvgPool1D', 'AdaptiveAvgPool2D', 'AdaptiveAvgPool3D',
                         'AdaptiveMaxPool1D', 'AdaptiveMaxPool2D', 'AdaptiveMaxPool3D',
                         'AvgPool1D', 'AvgPool2D', 'AvgPool3D', 'FractionalMaxPool2D',
                         'FractionalMaxPool3D', 'LPPool1D', 'LPPool2D', 'MaxPool1D',
                         'MaxPool2D', 'MaxPool3D', 'MaxUnPool1D', 'MaxUnPool2D', 'MaxUnPool3D'],
    'nn.layer.rnn': ['BiRNN', 'GRU', 'GRUCell', 'LSTM', 'LSTMCell', 'RNN', 'RNNBase',
                     'RNNCellBase', 'SimpleRNN', 'SimpleRNNCell'],
    'nn.layer.transformer': ['MultiHeadAttention', 'Transformer', 'TransformerDecoder',
                             'TransformerDecoderLayer', 'TransformerEncoder',
                             'TransformerEncoderLayer'],
    'nn.layer.vision': ['ChannelShuffle', 'PixelShuffle', 'PixelUnshuffle'],
    'nn.functional.activation': ['celu', 'elu', 'elu_', 'gelu', 'glu', 'gumbel_softmax',
                                 'hardshrink', 'hardsigmoid', 'hardswish', 'hardtanh',
                                 'hardtanh_', 'leaky_relu', 'leaky_relu_', 'log_sigmoid',
                                 'log_softmax', 'maxout', 'mish', 'prelu', 'relu', 'relu6',
                                 'relu_', 'rrelu', 'selu', 'sigmoid', 'silu', 'softmax',
                                 'softmax_', 'softplus', 'softshrink', 'softsign', 'swiglu',
                                 'swish', 'tanh', 'tanh_', 'tanhshrink', 'thresholded_relu',
                                 'thresholded_relu_'],
    'nn.functional.common': ['alpha_dropout', 'bilinear', 'class_center_sample',
                             'cosine_similarity', 'dropout', 'dropout1d', 'dropout2d',
                             'dropout3d', 'feature_alpha_dropout', 'fold', 'interpolate',
                             'label_smooth', 'linear', 'pad', 'unfold', 'upsample', 'zeropad2d'],
    'nn.functional.conv': ['conv1d', 'conv1d_transpose', 'conv2d', 'conv2d_transpose', 'conv3d',
                           'conv3d_transpose'],
    'nn.functional.distance': ['pairwise_distance', 'pdist'],
    'nn.functional.extension': ['diag_embed', 'gather_tree', 'sequence_mask', 'temporal_shift'],
    'nn.functional.flash_attention': ['flash_attention', 'flash_attention_v3_varlen',
                                      'flash_attn_qkvpacked', 'flash_attn_varlen_qkvpacked',
                                      'flashmask_attention'],
    'nn.functional.input': ['embedding', 'one_hot'],
    'nn.functional.loss': ['adaptive_log_softmax_with_loss', 'binary_cross_entropy',
                           'binary_cross_entropy_with_logits', 'cosine_embedding_loss',
                           'cross_entropy', 'ctc_loss', 'dice_loss', 'gaussian_nll_loss',
                           'hinge_embedding_loss', 'hsigmoid_loss', 'kl_div', 'l1_loss',
                           'log_loss', 'margin_cross_entropy', 'margin_ranking_loss',
                           'mse_loss', 'multi_label_margin_loss',
                           'multi_label_soft_margin_loss', 'multi_margin_loss', 'nll_loss',
                           'npair_loss', 'poisson_nll_loss', 'rnnt_loss', 'sigmoid_focal_loss',
                           'smooth_l1_loss', 'soft_margin_loss', 'softmax_with_cross_entropy',
                           'square_error_cost', 'triplet_margin_loss',
                           'triplet_margin_with_distance_loss'],
    'nn.functional.norm': ['batch_norm', 'group_norm', 'instance_norm', 'layer_norm',
                           'local_response_norm', 'normalize', 'rms_norm'],
    'nn.functional.pooling': ['adaptive_avg_pool1d', 'adaptive_avg_pool2d',
                              'adaptive_avg_pool3d', 'adaptive_max_pool1d',
                              'adaptive_max_pool2d', 'adaptive_max_pool3d', 'avg_pool1d',
                              'avg_pool2d', 'avg_pool3d', 'fractional_max_pool2d',
                              'fractional_max_pool3d', 'lp_pool1d', 'lp_pool2d', 'max_pool1d',
                              'max_pool2d', 'max_pool3d', 'max_unpool1d', 'max_unpool2d',
                              'max_unpool3d'],
    'nn.functional.sdpa': ['scaled_dot_product_attention'],
    'nn.functional.sparse_attention': ['sparse_attention'],
    'nn.functional.vision': ['affine_grid', 'channel_shuffle', 'grid_sample', 'pixel_shuffle',
                             'pixel_unshuffle'],
    'nn.functional.moe_permute': ['moe_permute'],
    'nn.functional.moe_unpermute': ['moe_unpermute'],
    'nn.utils.clip_grad_norm_': ['clip_grad_norm_'],
    'nn.utils.clip_grad_value_': ['clip_grad_value_'],
    'nn.utils.spectral_norm_hook': ['spectral_norm'],
    'nn.utils.transform_parameters': ['parameters_to_vector', 'vector_to_parameters'],
    'nn.utils.weight_norm_hook': ['remove_weight_norm', 'weight_norm'],
    'nn.decode': ['BeamSearchDecoder', 'Decoder', 'dynamic_decode'],
    'nn.modules': ['Module', 'ModuleDict', 'ModuleList'],
    'nn.parameter': ['Parameter'],
}


@pytest.mark.parametrize('path', sorted(MODULES))
def test_module_path_exposes_paddles_names(path):
    mod = importlib.import_module('framework.' + path)
    missing = [n for n in MODULES[path] if not hasattr(mod, n)]
    assert not missing, 'framework.%s lacks %s' % (path, missing)


@pytest.mark.parametrize('path', [p for p in sorted(MODULES)
                                  if p.startswith(('nn.layer.', 'nn.functional.'))])
def test_submodule_names_are_the_package_level_objects(path):
    package = nn if path.startswith('nn.layer') else nn.functional
    mod = importlib.import_module('framework.' + path)
    for name in MODULES[path]:
        # F.flash_attention is the submodule itself, as in Paddle
        if hasattr(package, name) and not (path, name) == ('nn.functional.flash_attention',
                                                           'flash_attention'):
            assert getattr(mod, name) is getattr(package, name), (path, name)


def test_imports_as_model_files_write_them():
    from framework.nn.layer.activation import ReLU
    from framework.nn.layer.conv import Conv2D
    from framework.nn.layer.norm import BatchNorm2D
    from framework.nn.functional.activation import relu
    from framework.nn.functional.conv import conv2d
    from framework.nn.functional.loss import cross_entropy
    from framework.nn.layer.layers import Layer
    import framework.nn.functional.pooling as pooling
    assert issubclass(ReLU, Layer) and Conv2D is nn.Conv2D and BatchNorm2D is nn.BatchNorm2D
    x = paddle.to_tensor([[-1.0, 2.0]])
    assert relu(x).numpy().tolist() == [[0.0, 2.0]]
    assert conv2d is paddle.nn.functional.conv2d and cross_entropy is nn.functional.cross_entropy
    assert pooling.max_pool2d is nn.functional.max_pool2d


@pytest.mark.parametrize('alias,name', [
    ('Conv1d', 'Conv1D'), ('Conv2d', 'Conv2D'), ('Conv3d', 'Conv3D'), ('SiLU', 'Silu'),
    ('AdaptiveAvgPool2d', 'AdaptiveAvgPool2D'), ('AdaptiveMaxPool3d', 'AdaptiveMaxPool3D'),
    ('LPPool1d', 'LPPool1D'), ('MaxUnpool2d', 'MaxUnPool2D'), ('ZeroPad1d', 'ZeroPad1D'),
    ('ConstantPad2d', 'ConstantPad2D'), ('ReflectionPad3d', 'ReflectionPad3D'),
    ('ReplicationPad1d', 'ReplicationPad1D'), ('CircularPad2d', 'CircularPad2D'),
    ('UpsamplingBilinear2d', 'UpsamplingBilinear2D'), ('HuberLoss', 'SmoothL1Loss'),
    ('Module', 'Layer'), ('ModuleList', 'LayerList'), ('ModuleDict', 'LayerDict')])
def test_pytorch_style_aliases_are_the_same_classes(alias, name):
    assert getattr(nn, alias) is getattr(nn, name)


def test_conv2d_takes_paddle_3_keywords():
    conv = nn.Conv2d(2, 3, 3, bias=False, padding=1, padding_mode='circular', dtype='float64')
    assert conv.bias is None and conv.weight.dtype == paddle.float64
    assert conv(paddle.ones([1, 2, 4, 4], 'float64')).shape == [1, 3, 4, 4]


def test_module_is_layer_and_parameter_forms():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.ModuleList([nn.Linear(2, 2), nn.ReLU()])
            self.heads = nn.ModuleDict({'a': nn.Linear(2, 1)})
            self.scale = nn.Parameter(paddle.ones([1]))

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return self.heads['a'](x) * self.scale
    net = Net()
    assert len(net.parameters()) == 5 and net(paddle.ones([3, 2])).shape == [3, 1]
    p = nn.Parameter([2, 3], 'float32')
    assert p.shape == [2, 3] and not p.stop_gradient and p.trainable
    frozen = nn.Parameter(paddle.ones([2]), requires_grad=False)
    assert frozen.stop_gradient and isinstance(frozen, nn.Parameter)
    assert isinstance(nn.Linear(2, 2).weight, nn.Parameter)
    np.testing.assert_array_equal(nn.Parameter(np.arange(3.0)).numpy(), [0, 1, 2])
