"""Block-sparse attention (Paddle's ``paddle.nn.functional.sparse_attention``):
a CUDA (11.3+) kernel; Paddle's CPU build raises, and so does this."""
from .flash_attention import _no_cpu_kernel

__all__ = ['sparse_attention']


def sparse_attention(query, key, value, sparse_csr_offset, sparse_csr_columns,
                     key_padding_mask=None, attn_mask=None, name=None):
    """Attention restricted to a CSR sparsity pattern: CUDA only."""
    _no_cpu_kernel('sparse_attention')
