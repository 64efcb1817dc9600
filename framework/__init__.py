"""framework: a dual-mode deep learning framework on numpy (Paddle 2.x API).

>>> import framework as paddle
>>> x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
>>> (x * x).sum().backward()
>>> x.grad.numpy().tolist()
[2.0, 4.0]
"""
from ._memory import tune_allocator as _tune_allocator
_tune_allocator()
from . import threads as _threads
_threads.apply_default()
from .threads import get_num_threads, set_num_threads
from . import dtype as _dtype_mod
from .dtype import finfo, get_default_dtype, iinfo, set_default_dtype  # noqa: F401
# the dtypes under Paddle's names, as users see them (printing paddle.float32)
_public = _dtype_mod.public
bool = _public('bool')  # noqa: A001
float16, float32, float64 = _public('float16'), _public('float32'), _public('float64')
int8, int16, int32, int64 = _public('int8'), _public('int16'), _public('int32'), _public('int64')
uint8, uint32, uint64 = _public('uint8'), _public('uint32'), _public('uint64')
complex64, complex128 = _public('complex64'), _public('complex128')
float, double, half = float32, float64, float16  # noqa: A001  (Paddle 3's torch-style names)
cfloat, cdouble = complex64, complex128
from math import e, inf, nan, pi  # noqa: F401,E402  (paddle.pi, paddle.e, ...)
from .flags import get_flags, set_flags
from .place import CPUPlace, CUDAPinnedPlace, CUDAPlace, get_device, is_compiled_with_cuda, set_device
from .random import (Generator, get_cuda_rng_state, get_rng_state, manual_seed, seed,  # noqa: F401
                     set_cuda_rng_state, set_rng_state)
from . import ops
from .ops.registry import OpError
from . import dygraph
from .dygraph import Parameter, Tensor, enable_grad, is_grad_enabled, no_grad, set_grad_enabled
# Public op functions: each ops module lists its API in __all__.
from .ops.math import *  # noqa: F401,F403
from .ops.reduce import *  # noqa: F401,F403
from .ops.manipulation import *  # noqa: F401,F403
from .ops.subscript import *  # noqa: F401,F403
from .ops.creation import *  # noqa: F401,F403
from .ops.creation import inclusive_range as range  # noqa: A001,F401
from .ops.compare import *  # noqa: F401,F403
from .ops.elementwise import *  # noqa: F401,F403
from .ops.bessel import *  # noqa: F401,F403
from .ops.stat import *  # noqa: F401,F403
from .ops.cumulative import *  # noqa: F401,F403
from .ops.products import *  # noqa: F401,F403
from .ops.distance import *  # noqa: F401,F403
from .ops.layout import *  # noqa: F401,F403
from .ops.indexing import *  # noqa: F401,F403
from .ops.sets import *  # noqa: F401,F403
from .ops.matrices import *  # noqa: F401,F403
from .ops.tensor_api import *  # noqa: F401,F403
from .ops.random_fill import *  # noqa: F401,F403
from .ops.special import *  # noqa: F401,F403
from .ops.sampling import *  # noqa: F401,F403
from .ops.printing import set_printoptions  # noqa: F401
from .size import Size  # noqa: F401
from .reader import batch  # noqa: F401
from .storage import MmapStorage  # noqa: F401
from .base.core import disable_signal_handler  # noqa: E402,F401
from .ops.complex import *  # noqa: F401,F403
from .ops.linalg_api import (cholesky, cross, diagonal, eigvalsh, inverse,  # noqa: F401
                             matrix_transpose, norm, vecdot)
from .ops.indexing import put_along_axis, scatter, take_along_axis  # noqa: F401
from .ops.tensor_api import is_complex  # noqa: F401  (checks its argument, takes input=)
from .ops.layout import transpose as swapaxes, transpose as swapdims  # noqa: F401
from .ops.manipulation import concat as cat, concat as concatenate  # noqa: F401
from .nn.layer import layers as _layers  # noqa: E402  (Tensor.create_parameter lives in nn)
ops.tensor_methods.register_module(_layers)

dygraph.install_methods()
globals().update(ops.tensor_methods.inplace_functions())   # paddle.squeeze_(x), ...
dtype = _dtype_mod

from ._version import __version__  # noqa: E402,F401

from . import static  # noqa: E402
static.install_methods()
from . import inference  # noqa: E402
from .graph.mode import disable_static, enable_static, in_dynamic_mode  # noqa: E402
from . import nn  # noqa: E402  (layers use the ops above)
from . import io, vision  # noqa: E402
from . import text  # noqa: E402  (paddle.text: data sets, viterbi_decode)
from .serialization import load, save  # noqa: E402
from .param_attr import ParamAttr  # noqa: E402
from .nn.layer import create_parameter  # noqa: E402
from .nn.layer.layers import LazyGuard  # noqa: E402,F401
from . import optimizer, regularizer  # noqa: E402
from . import jit  # noqa: E402
from . import onnx  # noqa: E402  (paddle.onnx.export; the onnx package itself loads on use)
from . import fluid  # noqa: E402
from . import metric, hapi, callbacks  # noqa: E402
from .hapi import Model, flops, summary  # noqa: E402
from . import autograd, incubate  # noqa: E402
from .autograd import grad  # noqa: E402
from . import linalg, fft, signal  # noqa: E402
from . import tensor, utils, base  # noqa: E402
from .base import pir_utils  # noqa: E402  (paddle.pir_utils)
from . import framework  # noqa: E402,F811  (paddle.framework)
from . import amp  # noqa: E402
from .amp import (autocast, get_autocast_cpu_dtype, get_autocast_dtype,  # noqa: E402,F401
                  get_autocast_gpu_dtype, is_autocast_enabled)
from .place import XPUPinnedPlace  # noqa: E402,F401
from .device import BFloat16Tensor  # noqa: E402,F401
# Paddle 3 also offers these functional layers at the top level
from .nn.functional import (adaptive_avg_pool1d, conv1d, conv2d, conv3d,  # noqa: E402,F401
                            group_norm, layer_norm)
from . import device  # noqa: E402
from . import cuda  # noqa: E402  (paddle.cuda: paddle.device under torch's names)
from .device import (is_compiled_with_cinn, is_compiled_with_custom_device,  # noqa: E402,F401
                     is_compiled_with_distribute, is_compiled_with_ipu, is_compiled_with_rocm,
                     is_compiled_with_xpu)
from . import distribution  # noqa: E402
from . import sparse  # noqa: E402  (eager COO/CSR tensors over the dense ops)
from . import compat  # noqa: E402  (PyTorch's spellings; import torch as this framework)
from .compat import disable_torch_proxy as disable_compat  # noqa: E402,F401
from .compat import enable_torch_proxy as enable_compat  # noqa: E402,F401
sparse.tensor.install_dense_methods(Tensor)
from . import distributed  # noqa: E402  (mpi4py only when a communicator is needed)
from .distributed import DataParallel  # noqa: E402,F401
Tensor._local_value = distributed.auto_parallel.local_value   # a rank's part of a distributed tensor
from .tensor.creation import fill_constant  # noqa: E402,F401


def __getattr__(name):
    # paddle.bfloat16 on first use: it comes from the optional ml_dtypes package
    if name in ('bfloat16', 'uint16'):      # Paddle's uint16 is its bfloat16
        return _dtype_mod.public(_dtype_mod.bfloat16_dtype())
    raise AttributeError("module 'framework' has no attribute %r" % name)
