"""``framework.amp`` (Paddle's ``paddle.amp``): mixed-precision training on the CPU.

``auto_cast`` runs white-list ops (matmul, linear, conv2d) in bfloat16 (or float16)
and keeps numerically dangerous ones (softmax, losses, norms, exp/log,
reductions) in float32, by Paddle's op lists (``amp_lists.py``); ``decorate``
(level 'O2') casts a model's parameters to the low-precision dtype, norm layers
aside, with float32 master weights in the optimizer; ``GradScaler`` scales the
loss, unscales the gradients, skips steps whose gradients overflowed and adjusts
the scale dynamically. It works eagerly, in static programs and inside
``@to_static``. bfloat16 needs the optional ``ml_dtypes`` package.

float16 follows Paddle on a CPU: ``auto_cast(dtype='float16')`` (the default),
``decorate(level='O2')`` and ``GradScaler`` do nothing there, with Paddle's
warning, so programs keep their float32 results. ``set_flags({'FLAGS_cpu_float16_amp':
True})`` makes float16 real here too (numpy's float16: slower than float32 and
less accurate, but half the memory). bfloat16 goes further than Paddle, whose
CPU AMP ignores it too: it computes in bfloat16.

>>> import framework as paddle
>>> linear = paddle.nn.Linear(4, 3)
>>> with paddle.amp.auto_cast(dtype='bfloat16'):
...     y = linear(paddle.rand([2, 4]))
...     p = paddle.nn.functional.softmax(y)
>>> y.dtype, p.dtype
(paddle.bfloat16, paddle.float32)
"""
import contextlib
import warnings

from .. import dtype as _dt
from ..ops import registry
from . import amp_lists  # noqa: F401
from .amp_lists import black_list, white_list  # noqa: F401
from .autocast import LEVELS, AutocastState
from .decorate import amp_decorate, decorate  # noqa: F401
from .grad_scaler import AmpScaler, GradScaler, OptimizerState  # noqa: F401
from .state import CPU_AUTOCAST_WARNING, amp_global_state, cpu_float16_amp


def _check_dtype(dtype, api):
    name = str(dtype).replace('paddle.', '').lower()
    if name not in ('float16', 'bfloat16'):
        raise ValueError("%s: dtype should be 'float16' or 'bfloat16', got %r" % (api, dtype))
    _dt.convert_dtype(name)       # bfloat16 without ml_dtypes: a clear ImportError here
    return name


def _op_lists(custom_white_list, custom_black_list, level, dtype):
    """Paddle's lists for (dtype, level) with the user's additions: a custom
    white op leaves the black list and the other way round."""
    if level == 'O0':
        return set(), set()
    white = set(white_list()[dtype][level])
    black = set(black_list()[dtype][level])
    custom_white = set(custom_white_list or ())
    custom_black = set(custom_black_list or ())
    if custom_white & custom_black:
        raise ValueError("auto_cast: custom white list overlaps custom black list: %s"
                         % sorted(custom_white & custom_black))
    white = (white | custom_white) - custom_black
    black = (black - custom_white) | custom_black
    return white, black


@contextlib.contextmanager
def amp_guard(enable=True, custom_white_list=None, custom_black_list=None, level='O1',
              dtype='float16', use_promote=True):
    """The ``auto_cast`` region (Paddle's older name)."""
    level = str(level).upper()
    if level not in LEVELS:
        raise ValueError("auto_cast: level should be O0, OD, O1 or O2, got %r" % (level,))
    if enable:
        dtype = _check_dtype(dtype, 'auto_cast')
        if dtype == 'float16' and not cpu_float16_amp():
            warnings.warn(CPU_AUTOCAST_WARNING)
            enable = False
    amp_global_state().amp_dtype = str(dtype)
    state = None
    if enable and level != 'O0':
        white, black = _op_lists(custom_white_list, custom_black_list, level, dtype)
        state = AutocastState(level, dtype, white, black, use_promote)
        if amp_global_state().use_master_grad:
            from ..dygraph.autograd import add_backward_final_hook
            add_backward_final_hook(amp_global_state().cast_grads_to_float32)
    with registry.autocasting(state):
        yield


def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level='O1',
              dtype='float16', use_promote=True):
    """Context in which ops choose their dtype by Paddle's mixed-precision rules.

    Args:
        enable (bool): turn casting on (False: ops keep their dtypes).
        custom_white_list / custom_black_list (set of op names): added to Paddle's
            lists (Paddle's op names: 'conv2d', 'matmul_v2', 'elementwise_add',
            'softmax', 'reduce_sum', ... or this framework's op names).
        level (str): 'O1' mixed precision by the lists; 'O2' everything in low
            precision but the (short) O2 black list, for models from
            ``decorate(level='O2')``; 'OD' only the white list in low precision;
            'O0' off.
        dtype (str): 'float16' or 'bfloat16' (bfloat16 needs ml_dtypes).
        use_promote (bool): at O2, compute an op in float32 when any input is
            float32 (always the rule at O1).
    """
    return amp_guard(enable, custom_white_list, custom_black_list, level, dtype, use_promote)


def autocast(device_type, dtype='float16', enabled=True, cache_enabled=True):
    """PyTorch's spelling of ``auto_cast(enable=enabled, dtype=dtype)``."""
    return auto_cast(enable=enabled, dtype=dtype)


def is_autocast_enabled(device_type=None):
    """Whether ops are being auto-cast here."""
    return registry.autocast_state() is not None


def get_autocast_dtype(device_type=None):
    """The low-precision dtype of the active region ('float16' outside one)."""
    state = registry.autocast_state()
    return 'float16' if state is None else str(state.dtype)


get_autocast_cpu_dtype = get_autocast_dtype
get_autocast_gpu_dtype = get_autocast_dtype


def is_float16_supported(device=None):
    """Whether float16 auto_cast computes in float16: False on the CPU, as in
    Paddle, unless ``FLAGS_cpu_float16_amp`` is set (numpy's float16)."""
    return cpu_float16_amp()


def is_bfloat16_supported(device=None):
    """bfloat16 runs on the CPU when the optional ml_dtypes package is installed."""
    try:
        _dt.bfloat16_dtype()
    except ImportError:
        return False
    return True


__all__ = ['auto_cast', 'GradScaler', 'decorate', 'is_float16_supported',
           'is_bfloat16_supported', 'is_autocast_enabled', 'get_autocast_dtype',
           'get_autocast_cpu_dtype', 'get_autocast_gpu_dtype']
