"""The deployment API Paddle users know: ``Config`` + ``create_predictor``.

A predictor loads the files written by ``static.save_inference_model`` or
``jit.save`` into its own scope and runs them through the executor, without
any of the model's Python code.
"""
import os

import numpy as np

from ..static import io as _io
from ..static.executor import Executor, Scope


class Config:
    """``Config(prog_file, params_file)`` or ``Config(path_prefix)`` / ``Config(model_dir)``."""

    def __init__(self, prog_file=None, params_file=None):
        if prog_file is not None and params_file is None:
            if os.path.isdir(prog_file):
                cands = [f for f in os.listdir(prog_file) if f.endswith(_io.MODEL_SUFFIX)]
                if len(cands) != 1:
                    raise FileNotFoundError("Config: expected one %s file in '%s', found %s"
                                            % (_io.MODEL_SUFFIX, prog_file, cands))
                prog_file = os.path.join(prog_file, cands[0])
            prefix = prog_file[:-len(_io.MODEL_SUFFIX)] if prog_file.endswith(_io.MODEL_SUFFIX) \
                else prog_file
            prog_file, params_file = prefix + _io.MODEL_SUFFIX, prefix + _io.PARAMS_SUFFIX
        self._prog_file = prog_file
        self._params_file = params_file
        self._threads = 1

    def set_model(self, prog_file, params_file):
        self._prog_file, self._params_file = prog_file, params_file

    def prog_file(self):
        return self._prog_file

    def params_file(self):
        return self._params_file

    def model_dir(self):
        return os.path.dirname(self._prog_file or '')

    def set_cpu_math_library_num_threads(self, n):
        self._threads = int(n)

    def disable_gpu(self):
        pass

    def enable_use_gpu(self, *args, **kwargs):
        raise RuntimeError("Config.enable_use_gpu: this framework runs on the CPU only")

    def switch_ir_optim(self, on=True):
        self._ir_optim = bool(on)

    def enable_memory_optim(self, on=True):
        pass

    def disable_glog_info(self):
        pass

    def summary(self):
        return 'Config(prog_file=%s, params_file=%s)' % (self._prog_file, self._params_file)


class _Handle:
    """An input or output tensor of a predictor."""

    def __init__(self, predictor, name):
        self._p = predictor
        self._name = name

    def name(self):
        return self._name

    def copy_from_cpu(self, data):
        self._p._inputs[self._name] = np.array(data)

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
        return self._p._program.global_block().var(self._name).dtype


class Predictor:
    def __init__(self, config):
        program, feed, fetch, values = _io.read_model(
            model_file=config.prog_file(), params_file=config.params_file())
        self._program = program
        self._feed = feed
        self._fetch = fetch
        self._scope = Scope()
        self._scope.vars.update(values)
        self._exe = Executor()
        self._inputs = {}
        self._outputs = {}

    def get_input_names(self):
        return list(self._feed)

    def get_output_names(self):
        return list(self._fetch)

    def get_input_handle(self, name):
        if name not in self._feed:
            raise KeyError("predictor has no input '%s'; inputs: %s" % (name, self._feed))
        return _Handle(self, name)

    def get_output_handle(self, name):
        if name not in self._fetch:
            raise KeyError("predictor has no output '%s'; outputs: %s" % (name, self._fetch))
        return _Handle(self, name)

    def _declared_shape(self, name):
        return self._program.global_block().var(name).shape

    def run(self, inputs=None):
        """Run on the copied-in inputs (or on a list of arrays, returning outputs)."""
        if inputs is not None:
            for n, a in zip(self._feed, inputs):
                self._inputs[n] = np.asarray(a)
        missing = [n for n in self._feed if n not in self._inputs]
        if missing:
            raise RuntimeError("predictor.run: no data for inputs %s (use "
                               "get_input_handle(name).copy_from_cpu(array))" % missing)
        outs = self._exe.run(self._program, feed=dict(self._inputs), fetch_list=self._fetch,
                             scope=self._scope)
        self._outputs = dict(zip(self._fetch, outs))
        return outs if inputs is not None else True

    def clone(self):
        p = Predictor.__new__(Predictor)
        p.__dict__.update(self.__dict__)
        p._inputs, p._outputs = {}, {}
        return p


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


PrecisionType = type('PrecisionType', (), {'Float32': 0, 'Half': 1, 'Int8': 2})
PlaceType = type('PlaceType', (), {'CPU': 0, 'GPU': 1})
