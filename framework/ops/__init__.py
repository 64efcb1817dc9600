"""The op registry and kernel set, shared by eager and static mode."""
from . import registry, meta, grad_utils  # noqa: F401
from . import math, reduce, manipulation, subscript, creation  # noqa: F401
from . import nn, loss, conv, optim, init_ops, fused  # noqa: F401
from .conv import fused_conv  # noqa: F401  (after nn: it runs batch_norm's kernel)
from . import py_func  # noqa: F401
from . import compare, control, tensor_array  # noqa: F401
from . import special, sampling, rnn_cells, rnn_seq  # noqa: F401
from . import complex, fft, linalg, linalg_api, signal  # noqa: F401
from . import tensor_methods  # noqa: F401
from .registry import OpError, all_ops, def_op, lookup  # noqa: F401
from . import detection  # noqa: F401,E402
from . import (alignment_loss, bessel, cumulative, distance, elementwise, indexing,  # noqa: E402
               layout, matrices, nucleus, products, random_fill, sets, stat, tensor_api)
from . import lib  # noqa: E402

tensor_methods.register_module(special)
# every ops module is imported: grad rules and API functions may now reach any op by name
lib.fill([math, reduce, manipulation, subscript, creation, nn, loss, conv, optim, init_ops,
          fused, py_func, compare, control, tensor_array, special, sampling, rnn_cells, rnn_seq,
          complex, fft, linalg, linalg_api, signal, alignment_loss, bessel, cumulative, distance,
          elementwise, indexing, layout, matrices, nucleus, products, random_fill, sets, stat,
          tensor_api])

# every op and its backend kernels are declared: run them on oneDNN where it loads
from . import backends  # noqa: E402
backends.apply_default()
