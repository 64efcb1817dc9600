"""Which ops auto_cast runs in low precision: Paddle's op lists (by Paddle's op
names) and how this framework's registered ops are named there.

White-list ops are numerically safe and gain from float16/bfloat16 (matmul, conv,
linear); black-list ops are numerically dangerous in half precision (exp, log,
softmax, the losses, reductions, norms) and always compute in float32 under O1;
every other op ("gray") computes in float32 when any of its inputs is float32 and
in the low-precision dtype otherwise. At O2 the black list shrinks to the ops
whose low-precision gradients are slow or inexact (interpolation, embedding,
scatter)."""

WHITE_LIST = frozenset({
    'conv2d', 'einsum', 'matmul', 'matmul_v2', 'linear_v2', 'max_pool2d_with_index', 'mul',
    'fused_gemm_epilogue', 'fused_rotary_position_embedding', 'flash_attn'})

# float16 only (Paddle has no bfloat16 kernels for them)
ONLY_FP16_WHITE_LIST = frozenset({
    'fake_quantize_dequantize_abs_max', 'fake_quantize_dequantize_moving_average_abs_max',
    'fused_attention', 'fused_feedforward'})

FP16_WHITE_LIST = WHITE_LIST | ONLY_FP16_WHITE_LIST
BF16_WHITE_LIST = WHITE_LIST

FP16_BLACK_LIST = frozenset({
    'tan', 'acos', 'asin', 'sinh', 'cosh', 'atanh', 'tanh_shrink', 'erfinv', 'exp', 'expm1',
    'log', 'log10', 'log2', 'reciprocal', 'rsqrt', 'pow', 'square', 'reduce_sum', 'mean',
    'reduce_mean', 'reduce_prod', 'cumprod', 'cumsum', 'dist', 'pnorm', 'frobenius_norm',
    'renorm', 'group_norm', 'layer_norm', 'softmax', 'softmin', 'softplus', 'log_softmax',
    'softmax_with_cross_entropy', 'sigmoid_cross_entropy_with_logits',
    'c_softmax_with_cross_entropy', 'c_softmax_with_multi_label_cross_entropy',
    'cross_entropy', 'cross_entropy2', 'nll_loss', 'huber_loss', 'triplet_margin_loss',
    'log_loss', 'hsigmoid_loss', 'margin_cross_entropy'})
BF16_BLACK_LIST = FP16_BLACK_LIST

# slow or inexact low-precision gradients: float32 at O1 and O2
EXTRA_BLACK_LIST = frozenset({
    'linear_interp_v2', 'nearest_interp_v2', 'bilinear_interp_v2', 'bicubic_interp_v2',
    'trilinear_interp_v2', 'lookup_table', 'lookup_table_v2', 'scatter'})


def white_list():
    """``{dtype: {level: op names}}``: the ops run in low precision."""
    return {'float16': {'OD': set(FP16_WHITE_LIST), 'O1': set(FP16_WHITE_LIST),
                        'O2': set(FP16_WHITE_LIST)},
            'bfloat16': {'OD': set(BF16_WHITE_LIST), 'O1': set(BF16_WHITE_LIST),
                         'O2': set(BF16_WHITE_LIST)}}


def black_list():
    """``{dtype: {level: op names}}``: the ops kept in float32."""
    return {'float16': {'OD': set(), 'O1': set(FP16_BLACK_LIST | EXTRA_BLACK_LIST),
                        'O2': set(EXTRA_BLACK_LIST)},
            'bfloat16': {'OD': set(), 'O1': set(BF16_BLACK_LIST | EXTRA_BLACK_LIST),
                         'O2': set(EXTRA_BLACK_LIST)}}


# This framework's op -> the Paddle op names it stands for (its own name always
# counts too). Composite Paddle functions are named by the listed op they run:
# Paddle's mse_loss squares, l1_loss/var/std take means, smooth_l1_loss is huber_loss.
PADDLE_NAMES = {
    'linear': ('linear_v2',),
    'matmul': ('matmul_v2',),
    'add': ('elementwise_add',),
    'subtract': ('elementwise_sub',),
    'multiply': ('elementwise_mul',),
    'divide': ('elementwise_div',),
    'maximum': ('elementwise_max',),
    'minimum': ('elementwise_min',),
    'elementwise_pow': ('pow',),
    'sum': ('reduce_sum',),
    'mean': ('reduce_mean',),
    'prod': ('reduce_prod',),
    'tanhshrink': ('tanh_shrink',),
    'cross_entropy': ('softmax_with_cross_entropy', 'cross_entropy2'),
    'binary_cross_entropy_with_logits': ('sigmoid_cross_entropy_with_logits',),
    'smooth_l1_loss': ('huber_loss',),
    'mse_loss': ('square',),
    'l1_loss': ('mean',),
    'var': ('mean',),
    'std': ('mean',),
    'embedding': ('lookup_table_v2', 'lookup_table'),
    'interpolate': ('linear_interp_v2', 'nearest_interp_v2', 'bilinear_interp_v2',
                    'bicubic_interp_v2', 'trilinear_interp_v2'),
    'scatter_update_mask': ('scatter',),
    'squared_l2_norm': ('frobenius_norm',),
}

# Ops auto_cast never touches: casting itself, control flow and program runners
# (their sub-blocks' ops are cast one by one), printing/asserting, writes into
# an existing tensor and shape queries. (Optimizer updates run with auto_cast
# suspended: Optimizer.step and minimize.)
NEVER_CAST = frozenset({
    'cast', 'cond', 'while', 'py_layer', 'run_program', 'print', 'python_print', 'assert',
    'array_append', 'assign', 'set_value', 'set_value_written', 'shape', 'numel'})

# Ops whose dtype decision and casting look at the input x only: their scale,
# bias and running statistics stay float32 (Paddle's batch_norm/layer_norm rule).
X_ONLY = frozenset({'batch_norm', 'layer_norm', 'instance_norm', 'sync_batch_norm'})
