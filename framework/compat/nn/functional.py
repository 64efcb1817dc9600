"""``paddle.compat.nn.functional``: PyTorch's layouts and argument rules."""
from ...nn import functional as F
from ...ops import manipulation as _manip, math as _math


def _legacy_softmax_dim(ndim):
    # PyTorch's rule when dim is not given
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None, *, out=None):  # noqa: A002
    """Softmax over ``dim`` (PyTorch's default dim when None), computed in ``dtype``."""
    if dtype is not None:
        input = input.astype(dtype)
    return F.softmax(input, _legacy_softmax_dim(input.ndim) if dim is None else dim)


def linear(input, weight, bias=None):  # noqa: A002
    """``input @ weight.T + bias``: the weight is [out_features, in_features]."""
    out = _math.matmul(input, weight, transpose_y=True)
    return out if bias is None else out + bias


def pad(input, pad, mode='constant', value=0.0):  # noqa: A002
    """PyTorch's pad: ``pad`` holds (before, after) pairs from the last dim backwards."""
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise ValueError("compat.nn.functional.pad: pad needs pairs for at most %d dims, got %s"
                         % (input.ndim, pad))
    pairs = [[0, 0] for _ in range(input.ndim)]
    for k in range(len(pad) // 2):
        pairs[input.ndim - 1 - k] = pad[2 * k:2 * k + 2]
    if mode == 'constant':
        return F.pad(input, [p for pair in pairs for p in pair], mode='constant', value=value)
    # the other modes pad only spatial dims (Paddle's data formats): the last ones
    spatial = len(pad) // 2
    return F.pad(input, pad, mode=mode, value=value,
                 data_format={1: 'NCL', 2: 'NCHW', 3: 'NCDHW'}[spatial])


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """Attention on PyTorch's [batch, heads, length, dim] layout."""
    perm = [0, 2, 1, 3]
    out = F.scaled_dot_product_attention(
        _manip.transpose(query, perm), _manip.transpose(key, perm),
        _manip.transpose(value, perm), attn_mask=attn_mask, dropout_p=dropout_p,
        is_causal=is_causal, scale=scale, enable_gqa=enable_gqa)
    return _manip.transpose(out, perm)


sdpa = scaled_dot_product_attention


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):  # noqa: A002
    """Sliding blocks as columns, ``[N, C * prod(kernel), L]``."""
    return F.unfold(input, kernel_size, strides=stride, paddings=padding, dilations=dilation)


__all__ = ['softmax', 'linear', 'pad', 'scaled_dot_product_attention', 'sdpa', 'unfold']
