"""The deployment API Paddle users know: ``Config`` + ``create_predictor``.

A predictor loads the files written by ``static.save_inference_model`` or
``jit.save`` into its own scope and runs them through the executor, without
any of the model's Python code.
"""
import collections
import contextlib
import enum
import os
import warnings

import numpy as np

from .. import dtype as _dt
from ..graph import model_files as _io
from ..backends import onednn
from ..backends.onednn.core import freeze
from ..ops import backends
from ..threads import set_num_threads
from ..graph.executor import BuildStrategy, CompiledProgram, Executor, Scope


class DataType(enum.IntEnum):
    """Element types of predictor tensors (Paddle's values)."""
    FLOAT32 = 0
    INT64 = 1
    INT32 = 2
    UINT8 = 3
    INT8 = 4
    FLOAT16 = 5
    BOOL = 6
    FLOAT64 = 7
    BFLOAT16 = 8


class PrecisionType(enum.IntEnum):
    Float32 = 0
    Int8 = 1
    Half = 2
    Bfloat16 = 3


class PlaceType(enum.IntEnum):
    UNK = -1
    CPU = 0
    GPU = 1
    XPU = 2
    CUSTOM = 4


_DATA_TYPES = {'float32': DataType.FLOAT32, 'int64': DataType.INT64, 'int32': DataType.INT32,
               'uint8': DataType.UINT8, 'int8': DataType.INT8, 'float16': DataType.FLOAT16,
               'bool': DataType.BOOL, 'float64': DataType.FLOAT64,
               'bfloat16': DataType.BFLOAT16}
_BYTES = {DataType.FLOAT32: 4, DataType.INT64: 8, DataType.INT32: 4, DataType.UINT8: 1,
          DataType.INT8: 1, DataType.FLOAT16: 2, DataType.BOOL: 1, DataType.FLOAT64: 8,
          DataType.BFLOAT16: 2}


def get_num_bytes_of_data_type(dtype):
    """Bytes per element of a ``DataType``."""
    try:
        return _BYTES[DataType(dtype)]
    except (ValueError, KeyError):
        raise ValueError("get_num_bytes_of_data_type: unknown DataType %r" % (dtype,)) from None


def get_version():
    """The inference library's version text."""
    from .._version import __version__
    return 'version: %s\ncommit: (framework)\nbranch: (framework)\n' % __version__


def get_trt_compile_version():
    """TensorRT version compiled in: none, (0, 0, 0), as Paddle's CPU build says."""
    return (0, 0, 0)


def get_trt_runtime_version():
    return (0, 0, 0)


class XpuConfig:
    """XPU settings (``Config.set_xpu_config``); kept, but no XPU exists here."""

    def __init__(self):
        self.device_id = 0
        self.l3_size = 0
        self.l3_ptr = None
        self.l3_autotune_size = 0
        self.context_gm_size = 0
        self.context = None
        self.stream = None
        self.conv_autotune_level = 0
        self.conv_autotune_file = ''
        self.conv_autotune_file_writeback = False
        self.fc_autotune_level = 0
        self.fc_autotune_file = ''
        self.fc_autotune_file_writeback = False
        self.gemm_compute_precision = 1
        self.transformer_softmax_optimize_level = 0
        self.transformer_encoder_adaptive_seqlen = True
        self.quant_post_static_gelu_out_threshold = 10.0
        self.quant_post_dynamic_activation_method = 0
        self.quant_post_dynamic_weight_precision = 1
        self.quant_post_dynamic_op_types = []


class Config:
    """``Config(prog_file, params_file)`` or ``Config(path_prefix)`` / ``Config(model_dir)``.

    Settings that only mean something with a GPU, XPU, TensorRT or other engines
    are kept and reported as Paddle's CPU build does (``enable_use_gpu`` warns
    and leaves ``use_gpu()`` False; ``enable_xpu`` raises); the CPU settings are
    real: ``ir_optim`` switches the executor's optimizing passes.
    """
    Precision = PrecisionType
    Float32, Int8, Half, Bfloat16 = (PrecisionType.Float32, PrecisionType.Int8,
                                     PrecisionType.Half, PrecisionType.Bfloat16)

    def __init__(self, prog_file=None, params_file=None):
        self._prog_file, self._params_file = _model_files(prog_file, params_file)
        self._threads = 1
        self._threads_set = False
        self._ir_optim = True
        self._memory_optim = False
        self._glog_disabled = False
        self._feed_fetch_ops = False
        self._specify_input_names = True
        self._onednn = True
        self._onednn_cache = 0        # input shapes whose oneDNN plans are kept; 0: all
        self._profile = False
        self._optim_cache_dir = None
        self._deleted_passes = []
        self._fc_passes = True        # disable_onednn_fc_passes: no matmul+bias+act fusion
        self._xpu_config = XpuConfig()
        self._model_buffers = None

    # ---- the model ----------------------------------------------------------------
    def set_model(self, prog_file, params_file=None):
        self._prog_file, self._params_file = _model_files(prog_file, params_file)

    def set_prog_file(self, path):
        self._prog_file = path

    def set_params_file(self, path):
        self._params_file = path

    def prog_file(self):
        return self._prog_file

    def params_file(self):
        return self._params_file

    def model_dir(self):
        return os.path.dirname(self._prog_file or '')

    def set_model_buffer(self, prog_buffer, prog_buffer_size, params_buffer, params_buffer_size):
        """Load the model from memory (the bytes of the two files)."""
        self._model_buffers = (bytes(prog_buffer)[:prog_buffer_size],
                               bytes(params_buffer)[:params_buffer_size])

    def model_from_memory(self):
        return self._model_buffers is not None

    # ---- CPU execution ---------------------------------------------------------------
    def set_cpu_math_library_num_threads(self, n):
        """Threads for BLAS and oneDNN (the process's count, as in Paddle,
        set when the predictor is made)."""
        self._threads = int(n)
        self._threads_set = True

    def cpu_math_library_num_threads(self):
        return self._threads

    def switch_ir_optim(self, x=True):
        self._ir_optim = bool(x)

    def ir_optim(self):
        return self._ir_optim

    def switch_ir_debug(self, x=True, passes=None):
        self._ir_debug = bool(x)

    def enable_memory_optim(self, x=True):
        self._memory_optim = bool(x)

    def enable_profile(self):
        self._profile = True

    def disable_glog_info(self):
        self._glog_disabled = True

    def glog_info_disabled(self):
        return self._glog_disabled

    def switch_use_feed_fetch_ops(self, x=True):
        self._feed_fetch_ops = bool(x)

    def use_feed_fetch_ops_enabled(self):
        return self._feed_fetch_ops

    def switch_specify_input_names(self, x=True):
        self._specify_input_names = bool(x)

    def specify_input_name(self):
        return self._specify_input_names

    def set_optim_cache_dir(self, path):
        self._optim_cache_dir = path

    def delete_pass(self, name):
        self._deleted_passes.append(name)

    def enable_onednn(self):
        self._onednn = True

    def disable_onednn(self):
        self._onednn = False

    def onednn_enabled(self):
        return self._onednn

    enable_mkldnn = enable_onednn
    disable_mkldnn = disable_onednn
    mkldnn_enabled = onednn_enabled

    def disable_onednn_fc_passes(self):
        """Run fully connected layers unfused: no matmul + bias + activation
        fusion in the predictor's plans (Paddle's oneDNN FC passes)."""
        self._fc_passes = False

    disable_mkldnn_fc_passes = disable_onednn_fc_passes

    def set_onednn_cache_capacity(self, capacity=0):
        """Keep the oneDNN primitives of at most ``capacity`` input shapes (0:
        all), as Paddle: a run on a new shape past it drops the primitives
        made for the least recently run one (on the running thread)."""
        if int(capacity) < 0:
            raise ValueError("Config.set_onednn_cache_capacity: capacity must be >= 0 "
                             "(0: no limit), got %r" % (capacity,))
        self._onednn_cache = int(capacity)

    set_mkldnn_cache_capacity = set_onednn_cache_capacity

    # ---- accelerators: answered as Paddle's CPU build does ---------------------------
    def enable_use_gpu(self, memory_pool_init_size_mb=100, device_id=0, precision_mode=None):
        warnings.warn("Config.enable_use_gpu: Please use PaddlePaddle with GPU version "
                      "(this framework runs on the CPU; the predictor stays on the CPU)")

    def disable_gpu(self):
        pass

    def use_gpu(self):
        return False

    def gpu_device_id(self):
        return 0

    def memory_pool_init_size_mb(self):
        return 100

    def fraction_of_gpu_memory_for_pool(self):
        return 0.0

    def enable_xpu(self, l3_size=0xfffc00, l3_locked=False, conv_autotune=True,
                   conv_autotune_file='', transformer_encoder_precision='int16',
                   transformer_encoder_adaptive_seqlen=False, enable_multi_stream=False):
        raise RuntimeError("Config.enable_xpu: to use XPU inference, PaddlePaddle must be "
                           "built with XPU (this framework runs on the CPU only)")

    def use_xpu(self):
        return False

    def xpu_device_id(self):
        return 0

    def set_xpu_config(self, config):
        self._xpu_config = config

    def xpu_config(self):
        return self._xpu_config

    def enable_tensorrt_engine(self, *args, **kwargs):
        warnings.warn("Config.enable_tensorrt_engine: TensorRT needs a GPU build; the "
                      "predictor runs on the CPU")

    def tensorrt_engine_enabled(self):
        return False

    def summary(self):
        rows = [('model_file', self._prog_file), ('params_file', self._params_file),
                ('cpu_math_thread', self._threads), ('enable_mkldnn', self._onednn),
                ('use_gpu', False), ('ir_optim', self._ir_optim),
                ('memory_optim', self._memory_optim)]
        width = max(len(k) for k, _ in rows)
        return '\n'.join('%-*s  %s' % (width, k, v) for k, v in rows)


def _model_files(prog_file, params_file):
    """(model file, params file) from a file pair, a path prefix or a directory."""
    if prog_file is not None and params_file is None:
        if os.path.isdir(prog_file):
            cands = [f for f in os.listdir(prog_file) if f.endswith(_io.MODEL_SUFFIX)]
            if len(cands) != 1:
                raise FileNotFoundError("Config: expected one %s file in '%s', found %s"
                                        % (_io.MODEL_SUFFIX, prog_file, cands))
            prog_file = os.path.join(prog_file, cands[0])
        prefix = prog_file[:-len(_io.MODEL_SUFFIX)] if prog_file.endswith(_io.MODEL_SUFFIX) \
            else prog_file
        return prefix + _io.MODEL_SUFFIX, prefix + _io.PARAMS_SUFFIX
    return prog_file, params_file


class Tensor:
    """An input or output tensor of a predictor (``get_input_handle(name)``)."""

    def __init__(self, *args, **kwargs):
        # made by Predictor.get_input_handle / get_output_handle only
        predictor, name = args
        self._p = predictor
        self._name = name
        self._lod = []

    def name(self):
        return self._name

    def copy_from_cpu(self, data):
        self._p._inputs[self._name] = np.array(data)

    def share_external_data(self, data):
        """Use a framework Tensor (or array) as this input's value, without a copy."""
        self._p._inputs[self._name] = np.asarray(data if isinstance(data, np.ndarray) else getattr(data, 'data', data))

    def reshape(self, shape):
        cur = self._p._inputs.get(self._name)
        if cur is not None:
            self._p._inputs[self._name] = cur.reshape(shape)

    def copy_to_cpu(self):
        if self._name not in self._p._outputs:
            raise RuntimeError("output '%s' has no value: call predictor.run() first" % self._name)
        return np.array(self._p._outputs[self._name])

    def shape(self):
        arr = self._p._outputs.get(self._name, self._p._inputs.get(self._name))
        return list(arr.shape) if arr is not None else self._p._declared_shape(self._name)

    def type(self):
        """The element type, a ``DataType``."""
        arr = self._p._outputs.get(self._name, self._p._inputs.get(self._name))
        d = arr.dtype if arr is not None else self._p._program.global_block().var(self._name).dtype
        return _DATA_TYPES[str(d)]

    def set_lod(self, lod):
        """Level-of-detail offsets (sequence boundaries), kept with the tensor."""
        self._lod = [list(level) for level in lod]

    def lod(self):
        return [list(level) for level in self._lod]


_Handle = Tensor


def _build_strategy(config):
    """The executor passes a predictor's plans run: all of them (Paddle's IR
    optimization), none with ``switch_ir_optim(False)``, and without the
    matmul + bias + activation fusion after ``disable_onednn_fc_passes()``."""
    strategy = BuildStrategy()
    for name, value in vars(strategy).items():
        if isinstance(value, bool) and not config.ir_optim():
            setattr(strategy, name, False)
    if not config._fc_passes:
        strategy.fuse_matmul_add_act = False
    return strategy


class Predictor:
    def __init__(self, config):
        if config.model_from_memory():
            program, feed, fetch, values = _io.read_model_bytes(*config._model_buffers)
        else:
            program, feed, fetch, values = _io.read_model(
                model_file=config.prog_file(), params_file=config.params_file())
        self._program = program
        self._compiled = CompiledProgram(program, build_strategy=_build_strategy(config))
        self._feed = feed
        self._fetch = fetch
        self._scope = Scope()
        # the model's weights never change under a predictor: frozen, so the
        # oneDNN kernels reorder each into their layout once, not every run
        self._scope.vars.update({n: freeze(v) for n, v in values.items()})
        self._exe = Executor()
        # enable_mkldnn / disable_mkldnn: this predictor's kernels, whatever
        # the rest of the process runs on
        self._exe._backend = backends.set_for_predictor(config.onednn_enabled())
        if config._threads_set:
            set_num_threads(config.cpu_math_library_num_threads())
        self._cache_capacity = config._onednn_cache
        self._shapes_run = collections.OrderedDict()    # input shapes, least recent first
        self._inputs = {}
        self._outputs = {}
        self._input_hooks = []
        self._output_hooks = []

    def get_input_names(self):
        return list(self._feed)

    def get_output_names(self):
        return list(self._fetch)

    def get_input_handle(self, name):
        if name not in self._feed:
            raise KeyError("predictor has no input '%s'; inputs: %s" % (name, self._feed))
        return Tensor(self, name)

    def get_output_handle(self, name):
        if name not in self._fetch:
            raise KeyError("predictor has no output '%s'; outputs: %s" % (name, self._fetch))
        return Tensor(self, name)

    def _declared_shape(self, name):
        return self._program.global_block().var(name).shape

    def register_input_hook(self, hookfunc):
        """``hookfunc(op_type, var_name, tensor)`` for every input before a run."""
        self._input_hooks.append(hookfunc)

    def register_output_hook(self, hookfunc):
        """``hookfunc(op_type, var_name, tensor)`` for every output after a run."""
        self._output_hooks.append(hookfunc)

    def run(self, inputs=None):
        """Run on the copied-in inputs (or on a list of arrays/Tensors, returning
        the outputs as Tensors, as Paddle's ``run(inputs)``)."""
        if inputs is not None:
            for n, a in zip(self._feed, inputs):
                self._inputs[n] = np.asarray(a if isinstance(a, np.ndarray) else getattr(a, 'data', a))
        missing = [n for n in self._feed if n not in self._inputs]
        if missing:
            raise RuntimeError("predictor.run: no data for inputs %s (use "
                               "get_input_handle(name).copy_from_cpu(array))" % missing)
        for hook in self._input_hooks:
            for n in self._feed:
                hook('feed', n, self._inputs[n])
        with self._shape_cache():
            outs = self._exe.run(self._compiled, feed=dict(self._inputs),
                                 fetch_list=self._fetch, scope=self._scope)
        self._outputs = dict(zip(self._fetch, outs))
        for hook in self._output_hooks:
            for n in self._fetch:
                hook('fetch', n, self._outputs[n])
        if inputs is None:
            return True
        from ..dygraph import Tensor as _EagerTensor
        return [_EagerTensor(o) for o in outs]

    def _shape_cache(self):
        """The run's oneDNN plans recorded under its input shapes, the least
        recently run shapes' dropped past the config's capacity."""
        if not self._cache_capacity or self._exe._backend != 'onednn':
            return contextlib.nullcontext()
        rt = onednn.runtime()
        shapes = tuple((n, np.shape(self._inputs[n])) for n in self._feed)
        seen = self._shapes_run
        if shapes in seen:
            seen.move_to_end(shapes)
        else:
            seen[shapes] = None
            while len(seen) > self._cache_capacity:
                rt.forget((id(self), seen.popitem(last=False)[0]))
        return rt.tagging((id(self), shapes))

    def clone(self):
        p = Predictor.__new__(Predictor)
        p.__dict__.update(self.__dict__)
        p._inputs, p._outputs = {}, {}
        p._shapes_run = collections.OrderedDict()
        return p

    def clear_intermediate_tensor(self):
        """Drop the last run's outputs (intermediates are never kept)."""
        self._outputs = {}

    def try_shrink_memory(self):
        """Release memory held between runs; returns the bytes released (0: the
        executor keeps nothing between runs)."""
        self._outputs = {}
        return 0


class PredictorPool:
    """``size`` predictors of one config (``retrieve(i)`` gives the i-th), for
    serving from several threads."""

    def __init__(self, config, size=1):
        if size < 1:
            raise ValueError("PredictorPool: size must be at least 1, got %r" % (size,))
        first = Predictor(config)
        self._predictors = [first] + [first.clone() for _ in range(size - 1)]

    def retrieve(self, idx):
        if not 0 <= idx < len(self._predictors):
            raise IndexError("PredictorPool.retrieve: index %d out of range(%d)"
                             % (idx, len(self._predictors)))
        return self._predictors[idx]


from .mixed_precision import convert_to_mixed_precision  # noqa: E402,F401


def create_predictor(config):
    return Predictor(config)


# ---- Paddle 1.x / 2.0 names: AnalysisConfig + create_paddle_predictor -----------------

class AnalysisConfig(Config):
    """The 1.x config: the same files; the switches below only exist for
    compatibility (feeds are always by name, there are no feed/fetch ops)."""

    def switch_specify_input_names(self, on=True):
        pass

    def switch_use_feed_fetch_ops(self, on=True):
        pass


class AnalysisPredictor(Predictor):
    """The 1.x predictor: ``get_input_tensor`` / ``get_output_tensor`` handles and
    ``zero_copy_run``."""

    def get_input_tensor(self, name):
        return self.get_input_handle(name)

    def get_output_tensor(self, name):
        return self.get_output_handle(name)

    def get_input_tensor_shape(self):
        return {n: self._declared_shape(n) for n in self._feed}

    def zero_copy_run(self):
        return self.run()


def create_paddle_predictor(config):
    return AnalysisPredictor(config)


