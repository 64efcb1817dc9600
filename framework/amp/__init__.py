"""``framework.amp`` (Paddle's ``paddle.amp``), as Paddle's CPU build answers it.

Automatic mixed precision only takes effect on GPU/XPU places in Paddle; on the
CPU ``auto_cast`` computes in the original dtypes and ``GradScaler`` does not
scale, each saying so once with a warning. This framework runs on the CPU, so
these are exactly that behaviour: code written for AMP runs unchanged and gives
float32 results.
"""
import contextlib
import warnings

from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401

_state = {'enabled': False, 'dtype': 'float16'}
_LEVELS = ('O0', 'OD', 'O1', 'O2')


def _check(level, dtype):
    if level not in _LEVELS:
        raise ValueError("auto_cast: level must be one of %s, got %r" % (', '.join(_LEVELS), level))
    if dtype not in ('float16', 'bfloat16'):
        raise ValueError("auto_cast: dtype must be 'float16' or 'bfloat16', got %r" % (dtype,))


@contextlib.contextmanager
def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level='O1',
              dtype='float16', use_promote=True):
    """Mixed-precision region; on the CPU it has no effect (ops keep their dtypes)."""
    _check(level, dtype)
    if enable and level != 'O0':
        warnings.warn("amp_guard can only be enabled on CUDAPlace, XPUPlace, and CustomPlace, "
                      "current place is Place(cpu), so it makes no effect.", UserWarning,
                      stacklevel=3)
    prev = dict(_state)
    _state.update(dtype=dtype)
    try:
        yield
    finally:
        _state.update(prev)


amp_guard = auto_cast
autocast = auto_cast


def decorate(models, optimizers=None, level='O1', dtype='float16', master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """O2 would keep parameters in float16 on a GPU; on the CPU models and
    optimizers come back as they are (float32)."""
    _check(level, dtype)
    if optimizers is None:
        return models
    return models, optimizers


amp_decorate = decorate


def is_autocast_enabled(device_type=None):
    return _state['enabled']


def get_autocast_dtype(device_type=None):
    return _state['dtype']


get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype


def is_float16_supported(device=None):
    return False


def is_bfloat16_supported(device=None):
    return False


__all__ = ['auto_cast', 'GradScaler', 'decorate', 'is_autocast_enabled', 'get_autocast_dtype',
           'get_autocast_cpu_dtype', 'get_autocast_gpu_dtype', 'is_float16_supported',
           'is_bfloat16_supported']
