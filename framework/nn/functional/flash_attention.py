"""Flash attention entry points (Paddle's ``paddle.nn.functional.flash_attention``).

Paddle's CPU build answers ``flash_attn_qkvpacked`` with its math attention
(done here the same way); the variable-length and mask variants need the
CUDA ``flash_attn`` kernels, which a CPU build does not register, so they
raise the RuntimeError Paddle's CPU build raises.
"""
from ...ops import manipulation as _manip
from .sdpa import math_attention

# ``flash_attention`` stays in this module only: ``F.flash_attention`` is the module, as in
# Paddle
__all__ = ['flash_attention_v3_varlen', 'flash_attn_qkvpacked', 'flash_attn_varlen_qkvpacked',
           'flashmask_attention']


def _no_cpu_kernel(kernel):
    raise RuntimeError("(NotFound) The kernel `%s` is not registered: it needs a CUDA build "
                       "(this framework runs on the CPU, as Paddle's CPU build)" % kernel)


def flash_attention(query, key, value, dropout=0.0, causal=False, return_softmax=False, *,
                    fixed_seed_offset=None, rng_name='', training=True, name=None,
                    softmax_scale=None):
    """Attention of ``[batch, seq, heads, dim]`` inputs: ``(out, softmax or
    None)``, computed as Paddle's CPU build does (its math attention)."""
    return math_attention(query, key, value, None, dropout, causal, return_softmax, training,
                          softmax_scale)


def flash_attn_qkvpacked(qkv, dropout=0.0, causal=False, return_softmax=False, *,
                         fixed_seed_offset=None, rng_name='', training=True, name=None):
    """Attention of a packed ``qkv`` ``[batch, seq, groups + 2, heads_k, dim]``
    (the query heads first, then key and value): ``(out, softmax or None)``."""
    d = qkv.shape[-1]
    b, s = qkv.shape[0], qkv.shape[1]
    query = _manip.reshape(qkv[:, :, :-2], [b, s, -1, d])
    return math_attention(query, qkv[:, :, -2], qkv[:, :, -1], None, dropout, causal,
                          return_softmax, training)


def flash_attn_varlen_qkvpacked(qkv, cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k,
                                scale, dropout=0.0, causal=False, return_softmax=False,
                                fixed_seed_offset=None, rng_name='', varlen_padded=True,
                                training=True, name=None):
    """Variable-length packed flash attention: CUDA only (RuntimeError here, as on
    Paddle's CPU build)."""
    _no_cpu_kernel('flash_attn_varlen_qkvpacked')


def flash_attention_v3_varlen(query, key, value, cu_seqlens_q, cu_seqlens_k, max_seqlen_q,
                              max_seqlen_k, seqused_q=None, seqused_k=None, softmax_scale=None,
                              causal=False, qv=None, q_descale=None, k_descale=None,
                              v_descale=None, window_size=(-1, -1), softcap=0.0, num_splits=1,
                              pack_gqa=None, sm_margin=0):
    """FlashAttention-3 variable-length attention: CUDA (SM90) only."""
    _no_cpu_kernel('flash_attn_v3_varlen')


def flashmask_attention(query, key, value, startend_row_indices=None, *, dropout=0.0,
                        causal=False, window_size=None, return_softmax_lse=False,
                        return_seed_offset=False, fixed_seed_offset=None, rng_name='',
                        training=True, name=None, softmax_scale=None, block_mask=None):
    """FlashMask attention (column-wise sparse masks): CUDA only."""
    _no_cpu_kernel('flash_attn')
