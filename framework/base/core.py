"""``framework.base.core``: the few names Paddle 2.6+ code reads from
``paddle.base.core`` (build facts of this CPU-only framework, places, and
``VarDesc.VarType`` dtype constants, which equal this framework's dtypes)."""
from .. import dtype as _dt
from ..inference import AnalysisConfig, create_paddle_predictor  # noqa: F401
from ..place import CPUPlace, CUDAPinnedPlace, CUDAPlace  # noqa: F401
from ..dense_tensor import DENSE_TENSOR_KIND, LOD_TENSOR_KIND, DenseTensor, LoDTensor  # noqa: F401


def is_compiled_with_cuda():
    return False


def is_compiled_with_rocm():
    return False


def is_compiled_with_xpu():
    return False


def is_compiled_with_mkldnn():
    return False


def is_compiled_with_distribute():
    return False


def get_cuda_device_count():
    return 0


class VarDesc:
    class VarType:
        """Paddle's variable dtypes; each is the matching dtype here, so
        ``x.dtype == core.VarDesc.VarType.FP32`` holds for a float32 tensor."""
        BOOL = _dt.public('bool')
        INT8 = _dt.public('int8')
        UINT8 = _dt.public('uint8')
        INT16 = _dt.public('int16')
        INT32 = _dt.public('int32')
        INT64 = _dt.public('int64')
        FP16 = _dt.public('float16')
        FP32 = _dt.public('float32')
        FP64 = _dt.public('float64')
        COMPLEX64 = _dt.public('complex64')
        COMPLEX128 = _dt.public('complex128')
        LOD_TENSOR = LOD_TENSOR_KIND
        DENSE_TENSOR = DENSE_TENSOR_KIND


def disable_signal_handler():
    """Paddle resets the C++ signal handlers it installed; this framework is
    pure Python and installs none, so Python's own handlers stay as they are."""
    return None
