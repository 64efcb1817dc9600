"""Mixture-of-experts token un-permutation (CUDA kernel in Paddle; its CPU build raises)."""
from .flash_attention import _no_cpu_kernel

__all__ = ['moe_unpermute']


def moe_unpermute(hidden_states_unzipped, zipped_expertwise_rowmap, expert_routemap_topk,
                  token_prob_unzipped, total_zipped_tokens, num_experts,
                  using_mix_precision=True, using_weighted_combine=False, name=None):
    """Scatter expert outputs back to token order: CUDA only."""
    _no_cpu_kernel('moe_unpermute')
