"""Scaled dot-product attention (Paddle's ``paddle.nn.functional.sdpa``).

On a CPU Paddle always takes its "math" backend, written here the same way
with registered ops: ``softmax(q k^T * scale + mask) v`` on
``[batch, seq, heads, head_dim]`` tensors, the causal mask being ``-1e4``
above the diagonal, as in Paddle's kernel.
"""
from ...ops import creation as _creation, manipulation as _manip, math as _math
from ...ops.registry import OpError

__all__ = ['scaled_dot_product_attention']


def _causal_mask(scores):
    mask = _creation.triu(_creation.full_like(scores, -1e4), diagonal=1)
    mask.stop_gradient = True
    return mask


def math_attention(query, key, value, mask=None, dropout_rate=0.0, causal=False,
                   return_softmax=False, training=True, scale=None):
    """``(out, weights or None)`` of attention on ``[batch, seq, heads, dim]``."""
    from ...ops.nn import dropout, softmax
    head_dim = query.shape[-1]
    q, k, v = (_manip.transpose(t, [0, 2, 1, 3]) for t in (query, key, value))
    scale = scale or (head_dim ** -0.5 if head_dim else 1.0)
    scores = _math.matmul(q * scale, k, transpose_y=True)
    if causal:
        scores = scores + _causal_mask(scores)
    elif mask is not None:
        scores = scores + mask
    weights = softmax(scores)
    if dropout_rate > 0.0:
        weights = dropout(weights, dropout_rate, training=training, mode='upscale_in_train')
    out = _manip.transpose(_math.matmul(weights, v), [0, 2, 1, 3])
    return out, (weights if return_softmax else None)


def _repeat_kv(key, value, repeats):
    """Grouped-query attention: each key/value head serves ``repeats`` query heads."""
    if repeats == 1:
        return key, value
    b, s, h, d = key.shape
    key = _manip.reshape(_manip.expand(_manip.unsqueeze(key, 3), [b, s, h, repeats, d]),
                         [b, s, h * repeats, d])
    value = _manip.reshape(_manip.expand(_manip.unsqueeze(value, 3), [b, s, h, repeats, d]),
                           [b, s, h * repeats, d])
    return key, value


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, training=True, backend=None, scale=None,
                                 enable_gqa=True, name=None):
    """Attention of ``query`` ``[batch, seq_q, heads, dim]`` over ``key``/``value``
    ``[batch, seq_k, heads_k, dim]`` (3-D inputs are one unbatched sample).
    ``attn_mask`` is added to the scores (a boolean mask keeps True positions);
    ``is_causal`` masks future positions; ``scale`` defaults to ``dim ** -0.5``;
    with ``enable_gqa`` several query heads may share a key/value head.

    >>> import framework as paddle, framework.nn.functional as F
    >>> q = paddle.rand([2, 4, 2, 8])
    >>> F.scaled_dot_product_attention(q, q, q, is_causal=True).shape
    paddle.Size([2, 4, 2, 8])
    """
    batched = len(query.shape) == 4
    if not batched:
        if len(query.shape) != 3:
            raise OpError("scaled_dot_product_attention: query must be 3-D or 4-D "
                          "[batch, seq, heads, dim], got shape %s" % list(query.shape))
        query, key, value = (_manip.unsqueeze(t, 0) for t in (query, key, value))
    q_heads, k_heads, v_heads = query.shape[2], key.shape[2], value.shape[2]
    if enable_gqa:
        if k_heads and q_heads % k_heads:
            raise OpError("scaled_dot_product_attention: the %d query heads must be a "
                          "multiple of the %d key heads (grouped-query attention)"
                          % (q_heads, k_heads))
        if k_heads != v_heads:
            raise OpError("scaled_dot_product_attention: key has %d heads but value %d"
                          % (k_heads, v_heads))
    elif not q_heads == k_heads == v_heads:
        raise OpError("scaled_dot_product_attention: query, key and value must have the same "
                      "number of heads without enable_gqa, got %d, %d, %d"
                      % (q_heads, k_heads, v_heads))
    if attn_mask is not None and str(attn_mask.dtype).endswith('bool'):
        zero = _creation.zeros([], query.dtype)
        attn_mask = _manip.where(attn_mask, zero, _creation.full([], -float('inf'), query.dtype))
    key, value = _repeat_kv(key, value, q_heads // k_heads if k_heads else 1)
    out = math_attention(query, key, value, attn_mask, dropout_p, is_causal, False,
                         training, scale)[0]
    return out if batched else _manip.squeeze(out, 0)
