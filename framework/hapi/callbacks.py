"""Callbacks of ``framework.Model`` (Paddle's ``paddle.callbacks``).

When each hook fires (``Model.fit``)::

    on_train_begin
      for each epoch:
        on_epoch_begin(epoch)
          on_train_batch_begin(step) / on_train_batch_end(step, logs)  per batch
        on_epoch_end(epoch, logs)
        if evaluating this epoch:
          on_eval_begin({'steps', 'metrics'})
            on_eval_batch_begin(step) / on_eval_batch_end(step, logs)
          on_eval_end(logs)
        (stop here when model.stop_training was set)
    on_train_end(logs)

``Model.evaluate`` fires only the ``on_eval_*`` hooks, ``Model.predict`` the
``on_predict_*`` ones. ``logs`` holds ``'loss'`` (a list, one value per loss),
the metrics by name, ``'step'`` and ``'batch_size'``.

>>> import framework as paddle
>>> class Count(paddle.callbacks.Callback):
...     def on_train_begin(self, logs=None):
...         self.batches = 0
...     def on_train_batch_end(self, step, logs=None):
...         self.batches += 1
"""
import numbers
import os
import time
import warnings

import numpy as np

from ..optimizer.lr import LRScheduler as _LRSchedulerBase, ReduceOnPlateau as _ReduceOnPlateau
from .progressbar import ProgressBar

__all__ = ['Callback', 'ProgBarLogger', 'ModelCheckpoint', 'EarlyStopping', 'LRScheduler',
           'ReduceLROnPlateau', 'CallbackList', 'config_callbacks']


def config_callbacks(callbacks=None, model=None, batch_size=None, epochs=None, steps=None,
                     log_freq=2, verbose=2, save_freq=1, save_dir=None, metrics=None,
                     mode='train'):
    """The callback list of one ``fit``/``evaluate``/``predict`` call: the
    user's callbacks plus a ProgBarLogger (when verbose), a ModelCheckpoint
    and an LRScheduler unless the user passed one of those kinds."""
    cbks = callbacks or []
    cbks = list(cbks) if isinstance(cbks, (list, tuple)) else [cbks]
    for c in cbks:
        if not isinstance(c, Callback):
            raise TypeError("Model: callbacks must be instances of framework.callbacks.Callback,"
                            " got %r" % (c,))
    if verbose and not any(isinstance(k, ProgBarLogger) for k in cbks):
        cbks = [ProgBarLogger(log_freq, verbose=verbose)] + cbks
    if not any(isinstance(k, ModelCheckpoint) for k in cbks):
        cbks = cbks + [ModelCheckpoint(save_freq, save_dir)]
    for k in cbks:
        if isinstance(k, EarlyStopping):
            k.save_dir = save_dir
    if not any(isinstance(k, LRScheduler) for k in cbks):
        cbks = cbks + [LRScheduler()]
    cbk_list = CallbackList(cbks)
    cbk_list.set_model(model)
    params = {'batch_size': batch_size, 'epochs': epochs, 'steps': steps, 'verbose': verbose,
              'metrics': (metrics or []) if mode != 'test' else []}
    cbk_list.set_params(params)
    return cbk_list


class CallbackList:
    """Dispatches each event to every callback, in order."""

    def __init__(self, callbacks=None):
        self.callbacks = list(callbacks or [])
        self.params = {}
        self.model = None

    def append(self, callback):
        self.callbacks.append(callback)

    def __iter__(self):
        return iter(self.callbacks)

    def set_params(self, params):
        self.params = params
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model):
        self.model = model
        for c in self.callbacks:
            c.set_model(model)

    def _call(self, name, *args):
        for c in self.callbacks:
            getattr(c, name)(*args)

    def on_begin(self, mode, logs=None):
        self._call('on_%s_begin' % mode, logs)

    def on_end(self, mode, logs=None):
        self._call('on_%s_end' % mode, logs)

    def on_epoch_begin(self, epoch=None, logs=None):
        self._call('on_epoch_begin', epoch, logs)

    def on_epoch_end(self, epoch=None, logs=None):
        self._call('on_epoch_end', epoch, logs)

    def on_batch_begin(self, mode, step=None, logs=None):
        self._call('on_%s_batch_begin' % mode, step, logs)

    def on_batch_end(self, mode, step=None, logs=None):
        self._call('on_%s_batch_end' % mode, step, logs)


class Callback:
    """Base class of callbacks: override the hooks you need. ``self.model``
    is the ``framework.Model`` being run, ``self.params`` holds
    ``epochs``, ``steps``, ``batch_size``, ``verbose`` and ``metrics``."""

    def __init__(self):
        self.model = None
        self.params = {}

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_train_begin(self, logs=None):
        """Before training starts."""

    def on_train_end(self, logs=None):
        """After training; ``logs`` are the last epoch's."""

    def on_eval_begin(self, logs=None):
        """Before evaluation; ``logs`` has 'steps' and 'metrics'."""

    def on_eval_end(self, logs=None):
        """After evaluation; ``logs`` has the eval loss and metrics."""

    def on_predict_begin(self, logs=None):
        """Before prediction."""

    def on_predict_end(self, logs=None):
        """After prediction."""

    def on_epoch_begin(self, epoch, logs=None):
        """At the start of each training epoch (0-based)."""

    def on_epoch_end(self, epoch, logs=None):
        """At the end of each training epoch, before its evaluation."""

    def on_train_batch_begin(self, step, logs=None):
        """Before each training batch."""

    def on_train_batch_end(self, step, logs=None):
        """After each training batch; ``logs`` has its loss and the running metrics."""

    def on_eval_batch_begin(self, step, logs=None):
        """Before each evaluation batch."""

    def on_eval_batch_end(self, step, logs=None):
        """After each evaluation batch."""

    def on_predict_batch_begin(self, step, logs=None):
        """Before each prediction batch."""

    def on_predict_batch_end(self, step, logs=None):
        """After each prediction batch."""


class _Timer:
    """Reader (waiting for data) and batch (compute) time of one loop."""

    def __init__(self):
        self.data_time = 0.0
        self.batch_time = 0.0
        self.count = 0
        self.samples = 0
        self.total_samples = 0
        self.mark = time.perf_counter()
        self.batch_start = self.mark

    def batch_begin(self):
        now = time.perf_counter()
        self.data_time += now - self.mark
        self.batch_start = now

    def batch_end(self, samples):
        now = time.perf_counter()
        self.batch_time += now - self.batch_start
        self.count += 1
        self.samples += samples
        self.total_samples += samples
        self.mark = now

    def costs(self):
        """Averages since the last call (Paddle's verbose=3 fields), then restart."""
        cnt = self.count or 1
        total = self.data_time + self.batch_time
        out = [('avg_reader_cost', '%.5f sec' % (self.data_time / cnt)),
               ('avg_batch_cost', '%.5f sec' % (self.batch_time / cnt)),
               ('ips', '%.5f samples/sec' % (self.samples / total if total > 0 else 0.0))]
        self.data_time = self.batch_time = 0.0
        self.count = self.samples = 0
        return out


class ProgBarLogger(Callback):
    """Prints ``Epoch i/n``, then the step counter with the loss, metrics,
    time per step and samples per second every ``log_freq`` steps and at the
    end of each epoch / evaluation.

    Args:
        log_freq (int): steps between two lines.
        verbose (int): 0 silent, 1 progress bar, 2 one line per ``log_freq``
            steps, 3 like 2 plus the average reader/batch cost.
    """

    def __init__(self, log_freq=1, verbose=2):
        super().__init__()
        if isinstance(log_freq, bool) or not isinstance(log_freq, numbers.Integral) \
                or log_freq < 1:
            raise ValueError("ProgBarLogger: log_freq must be a positive int, got %r"
                             % (log_freq,))
        self.epochs = None
        self.steps = None
        self.verbose = verbose
        self.log_freq = int(log_freq)
        self.train_metrics = []

    def _is_print(self):
        return bool(self.verbose)

    def _new_bar(self, num):
        return ProgressBar(num=num, verbose=1 if self.verbose == 1 else 2)

    def _updates(self, logs, mode):
        metrics = getattr(self, '%s_metrics' % mode)
        values = [(k, logs[k]) for k in metrics if k in logs]
        timer = getattr(self, '_%s_timer' % mode)
        if self.verbose == 3:
            values.extend(timer.costs())
        # Paddle's lines: values and the time per step, no throughput (verbose=3 adds ips)
        getattr(self, '%s_progbar' % mode).update(getattr(self, '%s_step' % mode), values)

    # ---- train ----------------------------------------------------------
    def on_train_begin(self, logs=None):
        self.epochs = self.params.get('epochs')
        self.train_metrics = self.params.get('metrics') or []
        if self._is_print():
            print("The loss value printed in the log is the current step, and the metric is "
                  "the average value of previous steps.")

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params.get('steps')
        self.epoch = epoch
        self.train_step = 0
        if self.epochs and self._is_print():
            print('Epoch %d/%d' % (epoch + 1, self.epochs))
        self.train_progbar = self._new_bar(self.steps)
        self._train_timer = _Timer()

    def on_train_batch_begin(self, step, logs=None):
        self._train_timer.batch_begin()

    def on_train_batch_end(self, step, logs=None):
        logs = logs or {}
        self.train_step += 1
        self._train_timer.batch_end(logs.get('batch_size', 1))
        if self._is_print() and self.train_step % self.log_freq == 0:
            if self.steps is None or self.train_step < self.steps:
                self._updates(logs, 'train')

    def on_epoch_end(self, epoch, logs=None):
        if self._is_print() and self.train_step:
            self._updates(logs or {}, 'train')
            self.train_progbar.finish()

    # ---- eval -----------------------------------------------------------
    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get('steps')
        self.eval_metrics = logs.get('metrics') or []
        self.eval_step = 0
        self.evaled_samples = 0
        self.eval_progbar = self._new_bar(self.eval_steps)
        self._eval_timer = _Timer()
        if self._is_print():
            print('Eval begin...')

    def on_eval_batch_begin(self, step, logs=None):
        self._eval_timer.batch_begin()

    def on_eval_batch_end(self, step, logs=None):
        logs = logs or {}
        self.eval_step += 1
        samples = logs.get('batch_size', 1)
        self.evaled_samples += samples
        self._eval_timer.batch_end(samples)
        if self._is_print() and self.eval_step % self.log_freq == 0:
            if self.eval_steps is None or self.eval_step < self.eval_steps:
                self._updates(logs, 'eval')

    def on_eval_end(self, logs=None):
        if self._is_print():
            if self.eval_step:
                self._updates(logs or {}, 'eval')
                self.eval_progbar.finish()
            print('Eval samples: %d' % self.evaled_samples)

    # ---- predict --------------------------------------------------------
    def on_predict_begin(self, logs=None):
        logs = logs or {}
        self.predict_steps = logs.get('steps')
        self.predict_metrics = []
        self.predict_step = 0
        self.predicted_samples = 0
        self.predict_progbar = self._new_bar(self.predict_steps)
        self._predict_timer = _Timer()
        if self._is_print():
            print('Predict begin...')

    def on_predict_batch_begin(self, step, logs=None):
        self._predict_timer.batch_begin()

    def on_predict_batch_end(self, step, logs=None):
        logs = logs or {}
        self.predict_step += 1
        samples = logs.get('batch_size', 1)
        self.predicted_samples += samples
        self._predict_timer.batch_end(samples)
        if self._is_print() and self.predict_step % self.log_freq == 0:
            if self.predict_steps is None or self.predict_step < self.predict_steps:
                self._updates(logs, 'predict')

    def on_predict_end(self, logs=None):
        if self._is_print():
            if self.predict_step:
                self._updates(logs or {}, 'predict')
                self.predict_progbar.finish()
            print('Predict samples: %d' % self.predicted_samples)


class ModelCheckpoint(Callback):
    """Saves the model (``Model.save``) to ``save_dir/<epoch>`` every
    ``save_freq`` epochs and to ``save_dir/final`` when training ends;
    does nothing without ``save_dir``."""

    def __init__(self, save_freq=1, save_dir=None):
        super().__init__()
        if isinstance(save_freq, bool) or not isinstance(save_freq, numbers.Integral) \
                or save_freq < 1:
            raise ValueError("ModelCheckpoint: save_freq must be a positive int, got %r"
                             % (save_freq,))
        self.save_freq = int(save_freq)
        self.save_dir = save_dir
        self.epoch = 0

    def _is_save(self):
        return self.model is not None and bool(self.save_dir)

    def on_epoch_begin(self, epoch=None, logs=None):
        self.epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self._is_save() and self.epoch % self.save_freq == 0:
            self._save(str(epoch))

    def on_train_end(self, logs=None):
        if self._is_save():
            self._save('final')

    def _save(self, name):
        path = os.path.join(self.save_dir, name)
        print('save checkpoint at %s' % os.path.abspath(path))
        self.model.save(path)


def _scheduler_of(model):
    opt = getattr(model, '_optimizer', None)
    lr = getattr(opt, '_learning_rate', None)
    return lr if isinstance(lr, _LRSchedulerBase) else None


class LRScheduler(Callback):
    """Steps the optimizer's ``framework.optimizer.lr.LRScheduler`` after
    every training batch (``by_step``, the default) or every epoch
    (``by_epoch``). ``Model.fit`` adds one with the defaults unless you pass
    your own. A ``ReduceOnPlateau`` scheduler is left alone: its ``step``
    needs the monitored value (step it yourself, or use ``ReduceLROnPlateau``)."""

    def __init__(self, by_step=True, by_epoch=False):
        super().__init__()
        if by_step and by_epoch:
            raise ValueError("LRScheduler: by_step and by_epoch are mutually exclusive")
        self.by_step = by_step
        self.by_epoch = by_epoch

    def _step(self):
        sched = _scheduler_of(self.model)
        # ReduceOnPlateau steps on a metric value, which only the user has
        if sched is not None and not isinstance(sched, _ReduceOnPlateau):
            sched.step()

    def on_epoch_end(self, epoch, logs=None):
        if self.by_epoch:
            self._step()

    def on_train_batch_end(self, step, logs=None):
        if self.by_step:
            self._step()


def _monitored(logs, monitor, who):
    """The scalar value of ``monitor`` in ``logs``, or None (with a warning)."""
    if logs is None or monitor not in logs:
        warnings.warn("%s: monitor '%s' is not in the evaluation logs (%s); use 'loss' or a "
                      "metric name" % (who, monitor, sorted(logs or {})))
        return None
    current = logs[monitor]
    if isinstance(current, (list, tuple)):
        current = current[0] if current else None
    if isinstance(current, np.ndarray) and current.size == 1:
        current = current.item()
    if isinstance(current, numbers.Number) and not isinstance(current, bool):
        return float(current)
    return None


def _monitor_mode(mode, monitor, who):
    if mode not in ('auto', 'min', 'max'):
        warnings.warn("%s: mode '%s' is unknown, falling back to 'auto'" % (who, mode))
        mode = 'auto'
    if mode == 'auto':
        mode = 'max' if 'acc' in monitor else 'min'
    return mode


class EarlyStopping(Callback):
    """Stops training when the evaluated ``monitor`` ('loss' or a metric
    name) has not improved by more than ``min_delta`` for more than
    ``patience`` evaluations. Needs ``eval_data`` in ``fit``.

    Args:
        monitor (str): the quantity to watch.
        mode (str): 'min', 'max', or 'auto' (max for names containing 'acc').
        patience (int): evaluations without improvement to tolerate.
        verbose (int): print a message when stopping.
        min_delta (float): smallest change counted as an improvement.
        baseline (float): a value to beat; until then nothing counts as improvement.
        save_best_model (bool): save the best model to ``save_dir/best_model``
            (``save_dir`` of ``fit``).
    """

    def __init__(self, monitor='loss', mode='auto', patience=0, verbose=1, min_delta=0,
                 baseline=None, save_best_model=True):
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait_epoch = 0
        self.best_weights = None
        self.stopped_epoch = 0
        self.save_best_model = save_best_model
        self.save_dir = None        # set by config_callbacks from fit's save_dir
        self.mode = _monitor_mode(mode, monitor, 'EarlyStopping')
        self.monitor_op = np.greater if self.mode == 'max' else np.less
        # the improvement test is monitor_op(current - min_delta, best)
        self.min_delta = abs(min_delta) * (1 if self.mode == 'max' else -1)
        self.best_value = None

    def on_train_begin(self, logs=None):
        self.wait_epoch = 0
        self.stopped_epoch = 0
        if self.baseline is not None:
            self.best_value = self.baseline
        else:
            self.best_value = -np.inf if self.mode == 'max' else np.inf
        self.best_weights = None

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, 'EarlyStopping')
        if current is None:
            return
        if self.best_value is None:     # evaluate() without fit(): nothing to stop
            return
        if self.monitor_op(current - self.min_delta, self.best_value):
            self.best_value = current
            self.wait_epoch = 0
            if self.save_best_model and self.save_dir is not None:
                self.model.save(os.path.join(self.save_dir, 'best_model'))
        else:
            self.wait_epoch += 1
        if self.wait_epoch > self.patience:
            self.model.stop_training = True
            if self.verbose > 0:
                print('Epoch %d: Early stopping.' % (self.stopped_epoch + 1))
                if self.save_best_model and self.save_dir is not None:
                    print('Best checkpoint has been saved at %s'
                          % os.path.abspath(os.path.join(self.save_dir, 'best_model')))
        self.stopped_epoch += 1


class ReduceLROnPlateau(Callback):
    """Multiplies a constant learning rate by ``factor`` when the evaluated
    ``monitor`` has not improved for ``patience`` evaluations (not below
    ``min_lr``; then waits ``cooldown`` evaluations)."""

    def __init__(self, monitor='loss', factor=0.1, patience=10, verbose=1, mode='auto',
                 min_delta=1e-4, cooldown=0, min_lr=0):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau: factor must be < 1.0, got %r" % (factor,))
        self.monitor = monitor
        self.factor = factor
        self.min_lr = min_lr
        self.min_delta = min_delta
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.mode = _monitor_mode(mode, monitor, 'ReduceLROnPlateau')
        self.epoch = 0
        self._reset()

    def _reset(self):
        if self.mode == 'min':
            self.monitor_op = lambda a, b: a < b - self.min_delta
            self.best = np.inf
        else:
            self.monitor_op = lambda a, b: a > b + self.min_delta
            self.best = -np.inf
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def on_eval_end(self, logs=None):
        current = _monitored(logs, self.monitor, 'ReduceLROnPlateau')
        if current is None:
            return
        opt = getattr(self.model, '_optimizer', None)
        if opt is None or _scheduler_of(self.model) is not None:
            warnings.warn("ReduceLROnPlateau needs an optimizer with a constant (float) "
                          "learning rate")
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                old_lr = opt.get_lr()
                if old_lr > np.float32(self.min_lr):
                    new_lr = max(old_lr * self.factor, self.min_lr)
                    opt.set_lr(new_lr)
                    if self.verbose > 0:
                        print('Epoch %d: ReduceLROnPlateau reducing learning rate to %s.'
                              % (self.epoch + 1, new_lr))
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
        self.epoch += 1


class _ScalarLogger(Callback):
    """Send the scalar metrics of training (per step, tags 'train/<metric>')
    and evaluation (per epoch, 'eval/<metric>') to a writer; the subclasses
    say which one. Only the first process of a distributed run writes."""

    def __init__(self):
        super().__init__()
        self.epochs = self.steps = None
        self.epoch = 0
        self.train_step = self.eval_step = 0
        self.train_metrics, self.eval_metrics = [], []

    def _is_write(self):
        return int(os.environ.get('PADDLE_TRAINER_ID', '0')) == 0

    def _scalars(self, logs, mode):
        """{tag: value} of the metrics of ``mode`` in ``logs``."""
        out = {}
        for k in getattr(self, mode + '_metrics'):
            value = (logs or {}).get(k)
            if isinstance(value, (list, tuple)) and value:
                value = value[0]
            if isinstance(value, (numbers.Number, np.number)):
                out[mode + '/' + k] = float(value)
        return out

    def on_train_begin(self, logs=None):
        self.epochs = self.params['epochs']
        self.train_metrics = self.params['metrics']
        if not self.epochs or not self.train_metrics:
            raise ValueError("%s: Model.fit gives no epochs or metrics to log"
                             % type(self).__name__)
        self._is_fit = True
        self.train_step = 0

    def on_epoch_begin(self, epoch=None, logs=None):
        self.steps = self.params['steps']
        self.epoch = epoch

    def on_train_batch_end(self, step, logs=None):
        self.train_step += 1
        if self._is_write():
            self._write(self._scalars(logs, 'train'), 'train', self.train_step)

    def on_eval_begin(self, logs=None):
        logs = logs or {}
        self.eval_steps = logs.get('steps')
        self.eval_metrics = logs.get('metrics', [])
        self.eval_step = 0
        self.evaled_samples = 0

    def on_eval_end(self, logs=None):
        if self._is_write():
            self._write(self._scalars(logs, 'eval'), 'eval', self.epoch)
            if not hasattr(self, '_is_fit'):
                self._close()

    def on_train_end(self, logs=None):
        if self._is_write():
            self._close()


def _import_optional(name, what):
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ImportError("%s needs the '%s' package, which is not installed: "
                          "pip install %s" % (what, name, name)) from None


class VisualDL(_ScalarLogger):
    """Write the loss and metrics to a VisualDL log in ``log_dir`` (view it with
    ``visualdl --logdir log_dir``); needs the ``visualdl`` package, imported at
    the first write as in Paddle."""

    def __init__(self, log_dir):
        super().__init__()
        self.log_dir = log_dir

    def _write(self, scalars, mode, step):
        if not hasattr(self, 'writer'):
            visualdl = _import_optional('visualdl', 'callbacks.VisualDL')
            self.writer = visualdl.LogWriter(self.log_dir)
        for tag, value in scalars.items():
            self.writer.add_scalar(tag=tag, step=step, value=value)

    def _close(self):
        if hasattr(self, 'writer'):
            self.writer.close()
            del self.writer


class WandbCallback(_ScalarLogger):
    """Log the loss and metrics to a Weights & Biases run (``wandb.init`` with
    these arguments, or the run already in progress); needs the ``wandb``
    package, imported here as in Paddle."""

    def __init__(self, project=None, entity=None, name=None, dir=None, mode=None,  # noqa: A002
                 job_type=None, **kwargs):
        super().__init__()
        self.wandb = _import_optional('wandb', 'callbacks.WandbCallback')
        self.wandb_args = dict(project=project, name=name, entity=entity, dir=dir, mode=mode,
                               job_type=job_type, **kwargs)
        self._run = None
        self.run          # noqa: B018 -- starts (or joins) the run now, as Paddle does

    @property
    def run(self):
        if self._is_write() and self._run is None:
            if self.wandb.run is not None:
                warnings.warn("There is a wandb run already in progress and newly created "
                              "instances of `WandbCallback` will reuse this run. If this is "
                              "not desired, call `wandb.finish()` before instantiating "
                              "`WandbCallback`.")
                self._run = self.wandb.run
            else:
                self._run = self.wandb.init(**self.wandb_args)
        return self._run

    def on_train_begin(self, logs=None):
        super().on_train_begin(logs)
        if self._is_write():
            self.run.define_metric('train/step')
            self.run.define_metric('train/*', step_metric='train/step')
            self.run.define_metric('epoch')
            self.run.define_metric('eval/*', step_metric='epoch')

    def _write(self, scalars, mode, step):
        scalars[('train/step' if mode == 'train' else 'epoch')] = step
        self.run.log(scalars)

    def _close(self):
        if self._run is not None:
            self._run.finish()
