"""``framework.static.nn``: control flow as single ops with sub-blocks, the
layer-building functions of Paddle's static API (``fc`` here, the others in
``nn_layers``), Python code in programs (``py_func``, ``static_pylayer``) and
the LoD sequence layers as Paddle 3 answers them (``sequence_lod``)."""
import numpy as np

from .control_flow import case, cond, switch_case, while_loop  # noqa: F401
from .nn_layers import *  # noqa: F401,F403
from .nn_layers import __all__ as _layer_names
from .py_func import py_func, static_pylayer  # noqa: F401
from .sequence_lod import *  # noqa: F401,F403
from .sequence_lod import __all__ as _sequence_names

__all__ = ['cond', 'while_loop', 'case', 'switch_case', 'fc', 'py_func',
           'static_pylayer'] + _layer_names + _sequence_names


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None,
       name=None):
    """A fully connected layer on a static Variable: ``act(x @ W + b)`` with the
    parameters in the main program and their initializers in the startup one.
    ``num_flatten_dims`` leading dims are kept; the rest are flattened."""
    from ..nn import functional as F
    from ..ops import manipulation as M, math as X
    from . import create_parameter
    in_dim = int(np.prod(x.shape[num_flatten_dims:]))
    if in_dim <= 0:
        raise ValueError("static.nn.fc: the dims after num_flatten_dims=%d must be known, got "
                         "shape %s" % (num_flatten_dims, x.shape))
    if len(x.shape) != num_flatten_dims + 1:
        x = M.reshape(x, [0] * num_flatten_dims + [in_dim])
    w = create_parameter([in_dim, size], str(x.dtype), attr=weight_attr)
    out = X.matmul(x, w)
    if bias_attr is not False:
        out = out + create_parameter([size], str(x.dtype), attr=bias_attr, is_bias=True)
    if activation is None:
        return out
    fn = getattr(F, activation, None)
    if fn is None:
        raise ValueError("static.nn.fc: unknown activation %r" % activation)
    return fn(out)
