"""Mixture-of-experts token permutation (CUDA kernel in Paddle; its CPU build raises)."""
from .flash_attention import _no_cpu_kernel

__all__ = ['moe_permute']


def moe_permute(hidden_states, scale, expert_routemap_topk, expert_prob_topk, num_experts,
                tokens_per_expert, padding_alignment, do_gather=True, using_ue8m0_scale=False,
                return_expert_indices=False, override_buffer_size=-1, name=None):
    """Group tokens by routed expert: CUDA only."""
    _no_cpu_kernel('moe_permute')
