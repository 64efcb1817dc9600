"""In-place gradient-norm clipping for hand-written training loops."""
import numpy as np

from ...dygraph.state import no_grad
from ...dygraph.tensor import Tensor
from ._common import _param_list, _replace_grad

__all__ = ['clip_grad_norm_']


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients of ``parameters`` in place so that their total
    ``norm_type``-norm (the norm of the per-gradient norms) is at most
    ``max_norm``: each gradient is multiplied by
    ``min(1, max_norm / (total_norm + 1e-6))``. Returns the total norm (before
    clipping) as a tensor."""
    api = 'clip_grad_norm_'
    grads = [p.grad for p in _param_list(parameters, api) if p.grad is not None]
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if not grads:
        return Tensor(np.asarray(0.0, dtype=np.float32))
    dtype = grads[0].data.dtype
    norms = np.array([np.linalg.norm(g.data.ravel(), ord=norm_type) for g in grads])
    total = np.linalg.norm(norms, ord=norm_type).astype(dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            "clip_grad_norm_: the total %s-norm of the gradients is non-finite (%s), so it "
            "cannot be clipped; pass error_if_nonfinite=False to scale the gradients by it "
            "anyway" % (norm_type, total))
    coef = max_norm / (total + 1e-6)
    if coef < 1.0:
        with no_grad():
            for g in grads:
                _replace_grad(g, g.data * np.asarray(coef, dtype=g.data.dtype))
    return Tensor(np.asarray(total))
