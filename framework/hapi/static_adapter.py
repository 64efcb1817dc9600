"""``framework.Model`` in static graph mode (after ``framework.enable_static()``).

The network, built in static mode, has its parameters in the default main
program (initialisers in the default startup program). ``prepare`` builds one
Program per mode by cloning that main program and calling the network, the
loss and the metrics' ``compute`` on ``static.data`` feeds:

* ``train``: outputs, losses, metric tensors, then ``optimizer.minimize``;
* ``eval``:  the same without the optimizer, in inference form;
* ``test``:  outputs only, in inference form.

An Executor runs them; parameter values live in ``static.global_scope()``,
so the three programs share them.
"""
import numpy as np

from ..dygraph import Tensor
from ..ops.math import add_n
from ..graph import executor as _exe
from ..static.io import save_inference_model
from ..graph.program import default_main_program, default_startup_program, program_guard

__all__ = ['StaticGraphAdapter']


def _to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _as_array(value):
    if isinstance(value, Tensor):
        return value.numpy()
    return np.asarray(value)


class _Built:
    """One mode's program with its feeds and the variables to fetch."""

    def __init__(self, program, inputs, labels, outputs, losses, metrics):
        self.program = program
        self.inputs = inputs
        self.labels = labels
        self.outputs = outputs
        self.losses = losses
        self.metrics = metrics          # per metric: the list of compute() outputs


class StaticGraphAdapter:
    def __init__(self, model):
        self.model = model
        self._startup = default_startup_program()
        self._orig = default_main_program()
        self._built = {}
        self._executor = _exe.Executor()

    # ---- building -------------------------------------------------------
    def _check_specs(self):
        m = self.model
        if not m._inputs_given:
            raise ValueError("Model: static graph mode needs inputs=[InputSpec(shape, dtype, "
                             "name), ...] to build the program's feeds")
        if (m._loss or m._metrics) and not m._labels:
            raise ValueError("Model: static graph mode with a loss or metrics needs "
                             "labels=[InputSpec(shape, dtype, name), ...]")

    def prepare(self):
        self._check_specs()
        self._built = {}
        self._initialize()

    def _feed_vars(self, specs, prefix):
        from .. import static
        out = []
        for i, spec in enumerate(specs):
            name = spec.name or '%s_%d' % (prefix, i)
            out.append(static.data(name, [None if s == -1 else s for s in spec.shape],
                                   spec.dtype))
        return out

    def _build(self, mode):
        built = self._built.get(mode)
        if built is not None:
            return built
        m = self.model
        if mode == 'train' and (m._optimizer is None or m._loss is None):
            raise RuntimeError("Model.train_batch: call prepare(optimizer, loss) first")
        prog = self._orig.clone()
        was_training = m.network.training
        m.network.train() if mode == 'train' else m.network.eval()
        try:
            with program_guard(prog, self._startup):
                inputs = self._feed_vars(m._inputs, 'input')
                labels = self._feed_vars(m._labels, 'label') if mode != 'test' else []
                input_names, label_names = [v.name for v in inputs], [v.name for v in labels]
                outputs = _to_list(m.network(*inputs))
                losses, metrics = [], []
                if mode != 'test':
                    if m._loss:
                        losses = _to_list(m._loss(*(outputs + labels)))
                    metrics = [_to_list(metric.compute(*(outputs + labels)))
                               for metric in m._metrics]
                if mode == 'train':
                    final = losses[0] if len(losses) == 1 else add_n(losses)
                    m._optimizer.minimize(final)
        finally:
            m.network.train() if was_training else m.network.eval()
        # the feed variables by name: a network that updates its input in place
        # (x[i] = v) rebinds that Python object to the updated value
        gb = prog.global_block()
        inputs, labels = [[gb.var(n) for n in names] for names in (input_names, label_names)]
        if mode != 'train':
            prog = prog.clone(for_test=True)
        built = self._built[mode] = _Built(prog, inputs, labels, outputs, losses, metrics)
        self._initialize()
        return built

    def _initialize(self):
        """Run the startup program for the variables the scope does not hold yet
        (parameters loaded or trained before keep their values)."""
        scope = _exe.global_scope()
        names = [v.name for v in self._startup.list_vars()]
        missing = [n for n in names if scope.vars.get(n) is None]
        if not missing:
            return
        fresh = _exe.Scope()
        self._executor.run(self._startup, scope=fresh)
        for n in missing:
            if fresh.vars.get(n) is not None:
                scope.vars[n] = fresh.vars[n]

    # ---- running --------------------------------------------------------
    def _run(self, mode, inputs, labels):
        built = self._build(mode)
        if len(inputs) != len(built.inputs):
            raise ValueError("Model: got %d inputs but the network takes %d (%s)"
                             % (len(inputs), len(built.inputs),
                                ', '.join(v.name for v in built.inputs)))
        feed = {v.name: _as_array(x) for v, x in zip(built.inputs, inputs)}
        if mode != 'test':
            if len(labels) != len(built.labels):
                raise ValueError("Model: got %d labels but labels=%d InputSpecs"
                                 % (len(labels), len(built.labels)))
            feed.update({v.name: _as_array(y) for v, y in zip(built.labels, labels)})
        if mode == 'test':
            return self._executor.run(built.program, feed=feed, fetch_list=built.outputs)
        flat = [v for group in built.metrics for v in group]
        results = self._executor.run(built.program, feed=feed,
                                     fetch_list=built.losses + flat)
        losses = results[:len(built.losses)]
        pos = len(built.losses)
        metric_values = []
        for metric, group in zip(self.model._metrics, built.metrics):
            metric_values.append(metric.update(*results[pos:pos + len(group)]))
            pos += len(group)
        return losses, metric_values

    def train_batch(self, inputs, labels, update):
        if not update:
            raise NotImplementedError("Model.train_batch: update=False (gradient "
                                      "accumulation) is only supported in dynamic graph mode")
        return self._run('train', inputs, labels)

    def eval_batch(self, inputs, labels):
        return self._run('eval', inputs, labels)

    def predict_batch(self, inputs):
        return self._run('test', inputs, None)

    # ---- state ----------------------------------------------------------
    def param_values(self):
        """{structured name: numpy value} of the network's parameters and buffers."""
        scope = _exe.global_scope()
        out = {}
        for key, var in self.model.network.state_dict().items():
            value = scope.vars.get(var.name)
            if value is None:
                raise RuntimeError("Model.save: '%s' (%s) has no value yet; run prepare() "
                                   "first" % (key, var.name))
            out[key] = np.asarray(value)
        return out

    def set_param(self, var, value):
        _exe.global_scope().vars[var.name] = _as_array(value).astype(var.dtype, copy=True)

    def save_inference(self, path):
        built = self._build('test')
        save_inference_model(path, built.inputs, built.outputs, self._executor,
                             program=built.program)
