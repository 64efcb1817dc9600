"""``framework.Model``: Paddle's high-level training API (``paddle.Model``).

A ``Model`` wraps a network Layer; ``prepare`` gives it an optimizer, a loss
and metrics; ``fit`` / ``evaluate`` / ``predict`` run the loops (with
callbacks, a progress bar, checkpoints), ``train_batch`` / ``eval_batch`` /
``predict_batch`` run one batch, ``save`` / ``load`` write and read
checkpoints (``path.pdparams`` + ``path.pdopt``) or an inference model.

In static graph mode (``framework.enable_static()`` before building the
network) ``prepare`` builds train/eval/test Programs instead and an Executor
runs them (``hapi/static_adapter.py``); ``inputs`` and ``labels`` InputSpecs
are then required.

Each batch is split into the network's inputs and the labels: the first
``len(inputs)`` fields are inputs (by default as many as ``forward`` has
required positional arguments), the rest labels. The loss is called as
``loss(*outputs, *labels)``, the metrics' ``compute`` likewise.

>>> import numpy as np
>>> import framework as paddle
>>> _ = paddle.seed(0)
>>> x = np.random.default_rng(0).normal(size=(64, 4)).astype('float32')
>>> y = (x.sum(1, keepdims=True) > 0).astype('int64')
>>> data = paddle.io.TensorDataset([x, y])
>>> model = paddle.Model(paddle.nn.Linear(4, 2))
>>> model.prepare(paddle.optimizer.Adam(0.1, parameters=model.parameters()),
...               paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
>>> model.fit(data, batch_size=16, epochs=5, verbose=0)
>>> model.evaluate(data, batch_size=16, verbose=0)['acc'] > 0.9
True
"""
import collections
import inspect
import math
import numbers
import os
import warnings

import numpy as np

from .. import serialization
from ..dygraph import Tensor, no_grad
from ..io import DataLoader, Dataset, IterableDataset
from ..metric import Metric
from ..nn.layer import Layer
from ..ops.creation import to_tensor
from ..ops.math import add_n
from ..ops.modes import in_static_mode
from ..optimizer import Optimizer
from ..static.input_spec import InputSpec
from . import callbacks as _cb
from .static_adapter import StaticGraphAdapter
from .summary import summary as _summary

__all__ = ['Model']


def _to_list(value):
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return [value]


def _flatten(data):
    """A batch as a flat list of fields: loaders yield [x, y], custom iterables
    may yield ([x1, x2], [y]) or a single tensor."""
    if isinstance(data, dict):
        data = list(data.values())
    if not isinstance(data, (list, tuple)):
        return [data]
    out = []
    for d in data:
        out.extend(_flatten(d) if isinstance(d, (list, tuple)) else [d])
    return out


def _as_tensor(value, api, what):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (np.ndarray, np.generic, numbers.Number, list)):
        return to_tensor(value)
    raise TypeError("Model.%s: %s must be Tensors or numpy arrays, got %s"
                    % (api, what, type(value).__name__))


def _as_feed(value, api, what):
    if isinstance(value, Tensor):
        return value.numpy()
    if isinstance(value, (np.ndarray, np.generic, numbers.Number, list)):
        return np.asarray(value)
    raise TypeError("Model.%s: %s must be Tensors or numpy arrays, got %s"
                    % (api, what, type(value).__name__))


def _batch_size(field):
    shape = getattr(field, 'shape', None)
    if shape is None:
        return 1
    return int(shape[0]) if len(shape) else 1


def _loss_value(arr):
    """A scalar for the logs from a loss output (mean if it is not a scalar)."""
    arr = np.asarray(arr)
    return float(arr.reshape(-1)[0]) if arr.size == 1 else float(arr.mean())


def _forward_function(network):
    fwd = network.forward
    return getattr(fwd, 'dygraph_function', fwd)


def _required_arg_names(network):
    """Names of ``forward``'s positional parameters without defaults."""
    try:
        sig = inspect.signature(_forward_function(network))
    except (TypeError, ValueError):
        return None
    names = []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty:
            names.append(p.name)
    return names


def _len_or_none(loader):
    try:
        return len(loader)
    except (TypeError, NotImplementedError):
        return None


def _strip_postfix(path):
    base, ext = os.path.splitext(path)
    if ext in ('.pdparams', '.pdopt', '.pdmodel'):
        return base
    return path


def _check_prefix(path, api):
    if not isinstance(path, str) or not path or not os.path.basename(path):
        raise ValueError("Model.%s: path must be a file prefix such as 'dir/model' (files "
                         "'dir/model.pdparams' ...), got %r" % (api, path))


def _check_amp(amp_configs):
    if amp_configs is None:
        return
    level = amp_configs.get('level', 'O1') if isinstance(amp_configs, dict) else amp_configs
    if level not in ('O0', 'O1', 'O2'):
        raise ValueError("Model.prepare: amp_configs level must be 'O0', 'O1' or 'O2', got %r"
                         % (level,))
    if level != 'O0':
        raise NotImplementedError(
            "Model.prepare: automatic mixed precision (amp_configs level %r) is not "
            "implemented; framework computes in float32/float64 on the CPU. Use "
            "amp_configs=None or 'O0'." % (level,))


class Model:
    """A network with a training/evaluation/prediction loop.

    Args:
        network (Layer): the network (a ``@to_static`` network works too).
        inputs (list[InputSpec]|dict|InputSpec): the network's inputs. Needed
            in static mode, and in dynamic mode for ``save(training=False)``
            and ``summary()`` unless shapes can be taken from the data seen in
            training; their number tells how many fields of a batch are inputs.
        labels (list[InputSpec]|InputSpec): the labels (needed in static mode
            with a loss or metrics; in dynamic mode every field after the
            inputs is a label).
    """

    def __init__(self, network, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError("Model: network must be a framework.nn.Layer, got %s"
                            % type(network).__name__)
        self.network = network
        self.mode = 'train'
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self._inputs_given = inputs is not None
        self._inputs = self._verify_spec(inputs, is_input=True)
        self._labels = self._verify_spec(labels)
        self._input_info = None       # [(shape, dtype)] of the last inputs run
        self._accumulate = 1
        self._train_iters_left = None
        self._test_dataloader = None
        self.stop_training = False
        # static graph mode: programs built by prepare() and run by an Executor
        self._adapter = StaticGraphAdapter(self) if in_static_mode() else None

    # ---- specs ----------------------------------------------------------
    def _verify_spec(self, specs, is_input=False):
        what = 'inputs' if is_input else 'labels'
        if specs is None:
            if not is_input:
                return []
            names = _required_arg_names(self.network)
            if not names:
                names = ['input']
            return [InputSpec([None], name=n) for n in names]
        if isinstance(specs, InputSpec):
            specs = [specs]
        elif isinstance(specs, dict):
            if not is_input:
                raise TypeError("Model: labels must be a list of InputSpec, not a dict")
            names = _required_arg_names(self.network) or list(specs)
            missing = [n for n in names if n not in specs]
            if missing:
                raise ValueError("Model: inputs dict has no entry for forward argument(s) %s "
                                 "(got keys %s)" % (missing, sorted(specs)))
            specs = [specs[n] for n in names]
        specs = list(specs)
        for i, s in enumerate(specs):
            if not isinstance(s, InputSpec):
                raise TypeError("Model: %s[%d] must be a framework.static.InputSpec, got %s"
                                % (what, i, type(s).__name__))
        return specs

    # ---- setup ----------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Set the optimizer, the loss (a Layer or a function called as
        ``loss(*outputs, *labels)``) and the metrics used by the loops."""
        if optimizer is not None and not isinstance(optimizer, Optimizer):
            raise TypeError("Model.prepare: optimizer must be a framework.optimizer.Optimizer, "
                            "got %s" % type(optimizer).__name__)
        if loss is not None and not isinstance(loss, Layer) and not callable(loss):
            raise TypeError("Model.prepare: loss must be a framework.nn.Layer or a callable, "
                            "got %s" % type(loss).__name__)
        metrics = _to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError("Model.prepare: %s is not a subclass of framework.metric.Metric"
                                % type(m).__name__)
        _check_amp(amp_configs)
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics
        if self._adapter is not None:
            self._adapter.prepare()

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    def _metrics_name(self):
        names = ['loss'] if self._loss else []
        for m in self._metrics:
            names.extend(_to_list(m.name()))
        return names

    def _reset_metrics(self):
        for m in self._metrics:
            m.reset()

    # ---- one batch ------------------------------------------------------
    def _split_inputs(self, api, inputs, labels):
        if self._adapter is not None:      # static: the executor takes numpy feeds
            inputs = [_as_feed(x, api, 'inputs') for x in _to_list(inputs)]
            labels = [_as_feed(y, api, 'labels') for y in _to_list(labels)]
        else:
            inputs = [_as_tensor(x, api, 'inputs') for x in _to_list(inputs)]
            labels = [_as_tensor(y, api, 'labels') for y in _to_list(labels)]
        self._input_info = [(list(x.shape), x.dtype) for x in inputs]
        return inputs, labels

    def _compute_losses(self, outputs, labels):
        losses = _to_list(self._loss(*(_to_list(outputs) + labels)))
        if not losses or not all(isinstance(l, Tensor) for l in losses):
            raise TypeError("Model: the loss must return a Tensor or a list of Tensors, got %r"
                            % (losses,))
        return losses

    def _update_metrics(self, outputs, labels):
        results = []
        with no_grad():
            for metric in self._metrics:
                outs = metric.compute(*(_to_list(outputs) + labels))
                outs = [o.numpy() if isinstance(o, Tensor) else o for o in _to_list(outs)]
                results.append(metric.update(*outs))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        """Forward, loss, backward and (with ``update``) an optimizer step on one
        batch. Returns the losses as numpy arrays (and the metrics' batch values
        when there are metrics). ``update=False`` only accumulates gradients."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("Model.train_batch: call prepare(optimizer, loss) first (got "
                               "optimizer=%r, loss=%r)" % (self._optimizer, self._loss))
        self.mode = 'train'
        inputs, labels = self._split_inputs('train_batch', inputs, labels)
        if self._adapter is not None:
            losses, metrics = self._adapter.train_batch(inputs, labels, update)
            return (losses, metrics) if metrics else losses
        self.network.train()
        outputs = self.network(*inputs)
        losses = self._compute_losses(outputs, labels)
        final = losses[0] if len(losses) == 1 else add_n(losses)
        if final.size != 1:
            final = final.sum()      # Paddle seeds a non-scalar loss's backward with ones
        final.backward()
        if update:
            self._optimizer.step()
            self._optimizer.clear_grad(set_to_zero=False)
            self.network.clear_gradients(set_to_zero=False)
        metrics = self._update_metrics(outputs, labels)
        loss_values = [l.numpy() for l in losses]
        return (loss_values, metrics) if metrics else loss_values

    def eval_batch(self, inputs, labels=None):
        """Forward (without gradients), loss and metrics on one batch."""
        self.mode = 'eval'
        inputs, labels = self._split_inputs('eval_batch', inputs, labels)
        if self._adapter is not None:
            loss_values, metrics = self._adapter.eval_batch(inputs, labels)
            if self._loss and metrics:
                return loss_values, metrics
            return loss_values if self._loss else metrics
        self.network.eval()
        with no_grad():
            outputs = self.network(*inputs)
            losses = self._compute_losses(outputs, labels) if self._loss else []
        metrics = self._update_metrics(outputs, labels)
        loss_values = [l.numpy() for l in losses]
        if self._loss and metrics:
            return loss_values, metrics
        return loss_values if self._loss else metrics

    def predict_batch(self, inputs):
        """The network's outputs on one batch, as a list of numpy arrays."""
        self.mode = 'test'
        inputs, _ = self._split_inputs('predict_batch', inputs, None)
        if self._adapter is not None:
            return self._adapter.predict_batch(inputs)
        self.network.eval()
        with no_grad():
            outputs = self.network(*inputs)
        return [o.numpy() if isinstance(o, Tensor) else np.asarray(o)
                for o in _to_list(outputs)]

    # ---- loops ----------------------------------------------------------
    def _loader(self, data, batch_size, shuffle, drop_last, num_workers):
        if isinstance(data, Dataset):
            # a stream has no indices to shuffle: it keeps its own order
            shuffle = shuffle and not isinstance(data, IterableDataset)
            return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                              num_workers=num_workers)
        if data is not None and not hasattr(data, '__iter__'):
            raise TypeError("Model: data must be a framework.io.Dataset, a DataLoader or an "
                            "iterable of batches, got %s" % type(data).__name__)
        return data

    def _batch_logs(self, outs, logs):
        """Fill ``logs`` with this step's loss (in evaluation too, as Paddle's
        logs and ``evaluate`` report it) and the metrics' running values."""
        if self._loss:
            losses = outs[0] if self._metrics else outs
            logs['loss'] = [_loss_value(l) for l in losses]
        for metric in self._metrics:
            res = metric.accumulate()
            names = _to_list(metric.name())
            res = _to_list(res) if len(names) > 1 else [res]
            for k, v in zip(names, res):
                logs[k] = v

    def _run_one_epoch(self, loader, cbks, mode, max_samples=None):
        logs = {}
        outputs = []
        n_in = len(self._inputs)
        steps = _len_or_none(loader)
        seen = 0
        self._reset_metrics()
        for step, data in enumerate(loader):
            data = _flatten(data)
            if max_samples is not None and seen + _batch_size(data[0]) > max_samples:
                data = [d[:max_samples - seen] for d in data]
            batch_size = _batch_size(data[0])
            seen += batch_size
            logs['batch_size'] = batch_size
            cbks.on_batch_begin(mode, step, logs)
            if mode == 'predict':
                outputs.append(self.predict_batch(data[:n_in]))
            else:
                ins, labs = data[:n_in], data[n_in:]
                if mode == 'train':
                    update = ((step + 1) % self._accumulate == 0
                              or (steps is not None and step + 1 == steps))
                    outs = self.train_batch(ins, labs, update)
                else:
                    outs = self.eval_batch(ins, labs)
                self._batch_logs(outs, logs)
            logs['step'] = step
            logs['batch_size'] = batch_size
            cbks.on_batch_end(mode, step, logs)
            if max_samples is not None and seen >= max_samples:
                break
            if mode == 'train' and self._train_iters_left is not None:
                self._train_iters_left -= 1
                if self._train_iters_left <= 0:
                    self.stop_training = True
                    break
        self._reset_metrics()
        if mode == 'predict':
            return logs, outputs
        return logs

    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs=1, eval_freq=1,
            log_freq=10, save_dir=None, save_freq=1, verbose=2, drop_last=False, shuffle=True,
            num_workers=0, callbacks=None, accumulate_grad_batches=1, num_iters=None):
        """Train for ``epochs`` epochs on ``train_data`` (a Dataset, a
        DataLoader or any iterable of batches), evaluating on ``eval_data``
        every ``eval_freq`` epochs, saving to ``save_dir`` every ``save_freq``
        epochs. ``accumulate_grad_batches`` batches share one optimizer step;
        ``num_iters`` stops after that many training steps."""
        if train_data is None:
            raise ValueError("Model.fit: train_data must be given")
        for name, v, low in (('batch_size', batch_size, 1), ('epochs', epochs, 0),
                             ('eval_freq', eval_freq, 1), ('log_freq', log_freq, 1),
                             ('save_freq', save_freq, 1),
                             ('accumulate_grad_batches', accumulate_grad_batches, 1)):
            if isinstance(v, bool) or not isinstance(v, numbers.Integral) or v < low:
                raise ValueError("Model.fit: %s must be an int >= %d, got %r" % (name, low, v))
        if self._adapter is not None and accumulate_grad_batches != 1:
            raise NotImplementedError("Model.fit: accumulate_grad_batches > 1 is only "
                                      "supported in dynamic graph mode")
        if num_iters is not None and (isinstance(num_iters, bool) or
                                      not isinstance(num_iters, numbers.Integral) or num_iters < 1):
            raise ValueError("Model.fit: num_iters must be a positive int or None, got %r"
                             % (num_iters,))
        train_loader = self._loader(train_data, batch_size, shuffle, drop_last, num_workers)
        eval_loader = self._loader(eval_data, batch_size, False, False, num_workers)
        do_eval = eval_loader is not None
        self._test_dataloader = eval_loader
        self._accumulate = int(accumulate_grad_batches)
        steps = _len_or_none(train_loader)
        self._train_iters_left = num_iters
        if num_iters is not None and steps:
            epochs = num_iters // steps + 1 if num_iters % steps else num_iters // steps
            steps = min(num_iters, steps)
        elif num_iters is not None:
            epochs = max(epochs, 1)
        cbks = _cb.config_callbacks(callbacks, model=self, batch_size=batch_size, epochs=epochs,
                                    steps=steps, log_freq=log_freq, save_freq=save_freq,
                                    save_dir=save_dir, verbose=verbose,
                                    metrics=self._metrics_name())
        if any(isinstance(k, _cb.EarlyStopping) for k in cbks) and not do_eval:
            warnings.warn("Model.fit: EarlyStopping needs eval_data; it will never stop training")
        self.stop_training = False
        logs = {}
        cbks.on_begin('train')
        for epoch in range(epochs):
            cbks.on_epoch_begin(epoch)
            logs = self._run_one_epoch(train_loader, cbks, 'train')
            cbks.on_epoch_end(epoch, logs)
            if do_eval and epoch % eval_freq == 0:
                cbks.on_begin('eval', {'steps': _len_or_none(eval_loader),
                                       'metrics': self._metrics_name()})
                eval_logs = self._run_one_epoch(eval_loader, cbks, 'eval')
                cbks.on_end('eval', eval_logs)
            if self.stop_training:
                break
        cbks.on_end('train', logs)
        self._train_iters_left = None
        self._test_dataloader = None

    def evaluate(self, eval_data, batch_size=1, log_freq=10, verbose=2, num_workers=0,
                 callbacks=None, num_samples=None, num_iters=None):
        """Loss and metrics on ``eval_data``: ``{'loss': [loss], 'acc': ...}``,
        as Paddle returns them: the loss of the last batch (Paddle's
        documented value, not a mean over the samples) and the metrics
        accumulated over all. ``num_samples`` limits the number of samples,
        ``num_iters`` the number of batches."""
        if eval_data is None:
            raise ValueError("Model.evaluate: eval_data must be given")
        loader = self._loader(eval_data, batch_size, False, False, num_workers)
        self._test_dataloader = loader
        cbks = _cb.config_callbacks(callbacks, model=self, log_freq=log_freq, verbose=verbose,
                                    metrics=self._metrics_name())
        steps = _len_or_none(loader)
        if num_samples is not None:
            if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral) \
                    or num_samples < 1:
                raise ValueError("Model.evaluate: num_samples must be a positive int or None, "
                                 "got %r" % (num_samples,))
            if isinstance(eval_data, Dataset) and steps is not None:
                steps = min(steps, math.ceil(num_samples / batch_size))
        if num_iters is not None:
            loader = _take(loader, num_iters)
            steps = num_iters if steps is None else min(steps, num_iters)
        cbks.on_begin('eval', {'steps': steps, 'metrics': self._metrics_name()})
        logs = self._run_one_epoch(loader, cbks, 'eval', num_samples)
        cbks.on_end('eval', logs)
        self._test_dataloader = None
        return {k: logs[k] for k in self._metrics_name() if k in logs}

    def predict(self, test_data, batch_size=1, num_workers=0, stack_outputs=False, verbose=1,
                callbacks=None):
        """The network's outputs over ``test_data``: a list with one entry per
        output, each a tuple of per-batch numpy arrays (one array per output
        with ``stack_outputs=True``). Label fields of the data are ignored."""
        if test_data is None:
            raise ValueError("Model.predict: test_data must be given")
        loader = self._loader(test_data, batch_size, False, False, num_workers)
        self._test_dataloader = loader
        cbks = _cb.config_callbacks(callbacks, model=self, verbose=verbose)
        logs = {'steps': _len_or_none(loader)}
        cbks.on_begin('predict', logs)
        logs, outputs = self._run_one_epoch(loader, cbks, 'predict')
        outputs = list(zip(*outputs))      # a tuple of batches per output, as Paddle
        if stack_outputs:
            outputs = [np.vstack(o) for o in outputs]
        self._test_dataloader = None
        cbks.on_end('predict', logs)
        return outputs

    # ---- checkpoints ----------------------------------------------------
    def save(self, path, training=True):
        """``training=True``: parameters to ``path.pdparams`` and optimizer state
        to ``path.pdopt``. ``training=False``: an inference model
        (``path.pdmodel`` + ``path.pdiparams``, see ``framework.jit.save``)."""
        _check_prefix(path, 'save')
        if not training:
            self._save_inference_model(path)
            return
        serialization.save(self._param_state(), path + '.pdparams')
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                serialization.save(state, path + '.pdopt')

    def _param_state(self):
        if self._adapter is None:
            return self.network.state_dict()
        # static: values from the scope, named like the parameters (see load)
        state = collections.OrderedDict()
        for key, value in self._adapter.param_values().items():
            state[key] = Tensor(value, name=self.network.state_dict()[key].name)
        return state

    def _inference_specs(self):
        if self._inputs_given:
            return self._inputs
        if self._input_info is None:
            raise RuntimeError(
                "Model.save(training=False) needs the input shapes: pass inputs=[InputSpec...] "
                "to Model(...) or run the model on data (fit/train_batch) before saving")
        specs = [InputSpec([None] + shape[1:], dtype, name=spec.name)
                 for (shape, dtype), spec in zip(self._input_info, self._inputs)]
        warnings.warn("Model.save(training=False): inputs were not given to Model(...), so the "
                      "saved input shapes %s come from the last batch (batch dimension left "
                      "free)" % [list(s.shape) for s in specs])
        return specs

    def _save_inference_model(self, path):
        if self._adapter is not None:
            self._adapter.save_inference(path)
            return
        from .. import jit
        jit.save(self.network, path, input_spec=self._inference_specs())

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Load ``path.pdparams`` (and ``path.pdopt`` unless ``reset_optimizer``)
        written by ``save``. ``skip_mismatch`` skips (with a warning) the
        parameters whose name or shape does not match, and then resets the
        optimizer too."""
        _check_prefix(path, 'load')
        path = _strip_postfix(path)
        params_file = path + '.pdparams'
        if not os.path.exists(params_file):
            raise FileNotFoundError("Model.load: no parameter file '%s'" % params_file)
        state = serialization.load(params_file)
        matched = []
        renamed = {}      # saved parameter name -> this network's (optimizer state keys)
        for key, param in self.network.state_dict().items():
            value = state.get(key)
            problem = None
            if value is None:
                problem = "'%s' is not in %s" % (key, params_file)
            elif list(value.shape) != list(param.shape):
                problem = "'%s' has shape %s in %s but the network expects %s" % (
                    key, list(value.shape), params_file, list(param.shape))
            if problem is not None:
                if not skip_mismatch:
                    raise ValueError("Model.load: " + problem)
                warnings.warn("Model.load: skip loading %s" % problem)
                reset_optimizer = True
                continue
            matched.append((param, value))
            old_name = getattr(value, 'name', None)
            if old_name and param.name and old_name != param.name:
                renamed[old_name] = param.name
        for param, value in matched:
            if self._adapter is not None:
                self._adapter.set_param(param, value)
            else:
                param.set_value(value)
        opt_file = path + '.pdopt'
        if reset_optimizer or self._optimizer is None or not os.path.exists(opt_file):
            return
        state = serialization.load(opt_file)
        self._optimizer.set_state_dict(_rename_accumulators(state, renamed))

    # ---- information ----------------------------------------------------
    def summary(self, input_size=None, dtype=None):
        """``framework.summary`` of the network, with the inputs given to
        ``Model(...)`` when ``input_size`` is not given."""
        if input_size is None:
            if not self._inputs_given:
                raise ValueError("Model.summary: pass input_size, or give inputs=[InputSpec...] "
                                 "to Model(...)")
            input_size = self._inputs
        return _summary(self.network, input_size, dtypes=dtype)


def _rename_accumulators(state, renamed):
    """Optimizer state keys are '<parameter name>_<accumulator>'; parameter names
    come from a global counter, so the same network built again (in the same
    process) has other names. Map the saved names to the current ones."""
    if not renamed:
        return state
    by_length = sorted(renamed, key=len, reverse=True)
    out = type(state)()
    for key, value in state.items():
        for old in by_length:
            if key.startswith(old + '_'):
                key = renamed[old] + key[len(old):]
                break
        out[key] = value
    return out


def _take(iterable, n):
    """The first ``n`` batches of ``iterable`` (re-iterable, with a length)."""
    class _Head:
        def __iter__(self):
            for i, batch in enumerate(iterable):
                if i >= n:
                    return
                yield batch

        def __len__(self):
            total = _len_or_none(iterable)
            return n if total is None else min(n, total)
    return _Head()
