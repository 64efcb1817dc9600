"""Flattening parameters into one vector and back."""
import numpy as np

from ...dygraph.state import no_grad
from ...dygraph.tensor import Tensor
from ...ops import manipulation as _manip
from ._common import _param_list

__all__ = ['parameters_to_vector', 'vector_to_parameters']


def parameters_to_vector(parameters, name=None):
    """All parameters flattened and concatenated into one 1-D tensor (differentiable)."""
    params = _param_list(parameters, 'parameters_to_vector')
    if not params:
        raise ValueError("parameters_to_vector: got no parameters")
    return _manip.concat([_manip.reshape(p, [-1]) for p in params])


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
