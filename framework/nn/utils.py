"""Parameter utilities (Paddle's ``paddle.nn.utils``): in-place gradient
clipping for hand-written training loops and flattening parameters into one
vector.

>>> import numpy as np
>>> import framework as paddle
>>> w = paddle.Parameter(np.array([3.0, 4.0]), name='w')
>>> w.grad = paddle.to_tensor(np.array([3.0, 4.0]))
>>> float(paddle.nn.utils.clip_grad_norm_([w], max_norm=1.0))
5.0
>>> np.round(w.grad.numpy(), 6).tolist()
[0.6, 0.8]
"""
import numpy as np

from ..dygraph.state import no_grad
from ..dygraph.tensor import Tensor

__all__ = ['clip_grad_norm_', 'clip_grad_value_', 'parameters_to_vector',
           'vector_to_parameters']


def _param_list(parameters, api):
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        raise TypeError("%s: parameters must be a Tensor or an iterable of Tensors, got %r"
                        % (api, parameters)) from None
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError("%s: parameters must be Tensors, got %r" % (api, type(p).__name__))
    return params


def _replace_grad(grad, arr):
    """Overwrite a gradient's values in place (same tensor object, new array)."""
    grad.data = arr.astype(grad.data.dtype, copy=False)
    grad._version += 1


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


def clip_grad_value_(parameters, clip_value):
    """Clip the gradients of ``parameters`` in place into ``[-clip_value, clip_value]``."""
    clip_value = float(clip_value)
    if clip_value < 0:
        raise ValueError("clip_grad_value_: clip_value must be >= 0, got %s" % clip_value)
    with no_grad():
        for p in _param_list(parameters, 'clip_grad_value_'):
            if p.grad is not None:
                _replace_grad(p.grad, np.clip(p.grad.data, -clip_value, clip_value))


def parameters_to_vector(parameters, name=None):
    """All parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    import framework as F
    params = _param_list(parameters, 'parameters_to_vector')
    if not params:
        raise ValueError("parameters_to_vector: got no parameters")
    return F.concat([F.reshape(p, [-1]) for p in params])


def vector_to_parameters(vec, parameters, name=None):
    """Copy consecutive slices of the 1-D tensor ``vec`` into ``parameters``
    (the inverse of ``parameters_to_vector``; not recorded by autograd)."""
    params = _param_list(parameters, 'vector_to_parameters')
    arr = vec.data if isinstance(vec, Tensor) else np.asarray(vec)
    if arr.ndim != 1:
        raise ValueError("vector_to_parameters: vec must be 1-D, got shape %s"
                         % list(arr.shape))
    total = sum(int(p.data.size) for p in params)
    if arr.size != total:
        raise ValueError("vector_to_parameters: vec has %d elements but the parameters "
                         "hold %d" % (arr.size, total))
    offset = 0
    with no_grad():
        for p in params:
            n = p.data.size
            p.data = arr[offset:offset + n].reshape(p.data.shape).astype(p.data.dtype)
            p._version += 1
            offset += n
