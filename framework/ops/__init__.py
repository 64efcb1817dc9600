"""The op registry and kernel set, shared by eager and static mode."""
from . import registry, meta, grad_utils  # noqa: F401
from . import math, reduce, manipulation, subscript, creation, nn, loss, conv, optim, init_ops, fused  # noqa: F401
from . import py_func  # noqa: F401
from . import compare, control, tensor_array  # noqa: F401
from . import special, sampling, rnn_cells  # noqa: F401
from . import complex, fft, linalg, linalg_api, signal  # noqa: F401
from . import tensor_methods  # noqa: F401
from .registry import OpError, all_ops, def_op, lookup  # noqa: F401
from . import detection  # noqa: F401,E402

tensor_methods.register_module(special)
