"""Parameter utilities (Paddle's ``paddle.nn.utils``, with its module
layout): in-place gradient clipping for hand-written training loops,
flattening parameters into one vector, and the weight / spectral
normalisation re-parametrisations of a layer's weight.

>>> import numpy as np
>>> import framework as paddle
>>> w = paddle.Parameter(np.array([3.0, 4.0]), name='w')
>>> w.grad = paddle.to_tensor(np.array([3.0, 4.0]))
>>> float(paddle.nn.utils.clip_grad_norm_([w], max_norm=1.0))
5.0
>>> np.round(w.grad.numpy(), 6).tolist()
[0.6, 0.8]
"""
from .clip_grad_norm_ import clip_grad_norm_  # noqa: F401
from .clip_grad_value_ import clip_grad_value_  # noqa: F401
from .spectral_norm_hook import spectral_norm  # noqa: F401
from .transform_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .weight_norm_hook import remove_weight_norm, weight_norm  # noqa: F401

__all__ = ['clip_grad_norm_', 'clip_grad_value_', 'parameters_to_vector', 'remove_weight_norm',
           'spectral_norm', 'vector_to_parameters', 'weight_norm']
