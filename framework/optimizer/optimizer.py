"""The optimizer base class (Paddle 2.x ``paddle.optimizer.Optimizer``).

An optimizer owns, per parameter, the *accumulator* tensors its update rule
needs (moments, beta powers), named ``<param name>_<accumulator>_0`` as in
Paddle, so ``state_dict()`` / ``set_state_dict()`` round-trip them and static
mode can make them persistable variables. ``step()`` runs, for each parameter
that has a gradient: gradient clipping (per parameter group), coupled weight
decay (the parameter's own regularizer, else the group's or optimizer's), then
ONE registered update op (``framework.ops.optim``) whose outputs replace the
parameter's and the accumulators' arrays (bumping ``_version``, so a graph
that saved the old value refuses to backward).

Parameter groups: ``parameters=[{'params': [...], 'learning_rate': 0.1,
'weight_decay': 1e-4, ...}, ...]``. A group's ``learning_rate`` is a
multiplier of the optimizer's learning rate (as in Paddle); it multiplies the
parameter's own ``optimize_attr['learning_rate']`` too. A group's
``weight_decay`` overrides both the parameter's regularizer and the
optimizer's; without it the parameter's own regularizer wins over the
optimizer's. (Paddle instead writes the group's values into the parameters
when the optimizer is built; the results agree unless a parameter in a group
also carries its own learning rate or regularizer.)
"""
import numpy as np

from .. import dtype as _dt
from .. import flags
from ..dygraph.state import no_grad
from ..dygraph.tensor import Tensor, wrap_array
from ..ops.manipulation import cast
from ..ops.modes import in_static_mode, is_static_var
from ..ops.optim import INPLACE_STATE_UPDATES
from ..ops.registry import OpError, autocast_state, autocast_suspended
from ..regularizer import L2Decay, WeightDecayRegularizer
from .lr import LRScheduler

__all__ = ['Optimizer']

_BASE_GROUP_KEYS = ('params', 'learning_rate', 'weight_decay', 'grad_clip')
# accumulators of shape [1] (the others have their parameter's shape)
_SCALAR_ACCUMULATORS = ('beta1_pow_acc', 'beta2_pow_acc')


class Optimizer:
    """Base class of the optimizers; use a subclass such as ``Adam``.

    Args:
        learning_rate (float|LRScheduler): the learning rate, or a scheduler
            read at every step.
        parameters (list): the parameters (``layer.parameters()``), or a list of
            parameter-group dicts. Required in dynamic graph mode.
        weight_decay (float|L1Decay|L2Decay): coupled weight decay; a float is
            ``L2Decay(weight_decay)``.
        grad_clip (ClipGradByValue|ClipGradByNorm|ClipGradByGlobalNorm):
            gradient clipping applied before the update.
        name (str): prefix for the accumulator names.
    """
    # hyper-parameters a parameter group may override: {group key: attribute}
    _group_options = {}
    # whether a group's 'weight_decay' is a coupled regularizer (AdamW: decoupled)
    _group_weight_decay_is_regularizer = True
    # the accumulators a parameter may get (the names in state_dict keys)
    _accumulator_names = ()

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        api = type(self).__name__
        self._parameter_list = _check_parameters(api, parameters)
        self._name = name
        self._learning_rate = _check_learning_rate(api, learning_rate)
        self._grad_clip = _check_grad_clip(api, grad_clip)
        self.regularization = _to_regularizer(api, weight_decay)
        self._accumulators = {}          # {accumulator name: {param name: Tensor}}
        self._accumulators_holder = {}   # loaded state waiting for lazily made accumulators
        self._state = {}                 # {param: accumulator tuple}: the per-step lookup
        self._master_weights = {}        # {param name: float32 Tensor} (multi_precision)
        self._saved_master_weights = {}  # loaded ones waiting for their first update
        self._default_dict = {'weight_decay': self.regularization, 'grad_clip': grad_clip}
        self._groups = []
        if self._parameter_list and isinstance(self._parameter_list[0], dict):
            for group in self._parameter_list:
                self._add_param_group(dict(group))
            self._param_groups = self._groups
        else:
            if self._parameter_list is not None:
                self._groups.append({'params': self._parameter_list})
            self._param_groups = self._parameter_list

    # ---- parameter groups -------------------------------------------------
    def _add_param_group(self, group):
        api = type(self).__name__
        if 'params' not in group:
            raise ValueError("%s: each parameter group must be a dict with a 'params' key, "
                             "got keys %s" % (api, sorted(group)))
        allowed = set(_BASE_GROUP_KEYS) | set(self._group_options)
        unknown = sorted(set(group) - allowed)
        if unknown:
            raise ValueError("%s: unknown parameter-group option(s) %s; allowed: %s"
                             % (api, unknown, sorted(allowed)))
        params = group['params']
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("%s: the 'params' of a parameter group must be an ordered "
                            "collection (a list), not a set" % api)
        group['params'] = _check_tensor_list(api, list(params))
        seen = {id(p) for g in self._groups for p in g['params']}
        if any(id(p) in seen for p in group['params']):
            raise ValueError("%s: some parameters appear in more than one parameter group"
                             % api)
        if 'weight_decay' in group and self._group_weight_decay_is_regularizer:
            group['weight_decay'] = _to_regularizer(api, group['weight_decay'])
        if 'grad_clip' in group:
            _check_grad_clip(api, group['grad_clip'])
        self._groups.append(group)

    def _options(self, group):
        """This group's hyper-parameters: its own values, else the optimizer's."""
        return {key: group[key] if key in group else getattr(self, attr)
                for key, attr in self._group_options.items()}

    def _all_params(self):
        return [p for g in self._groups for p in g['params']]

    # ---- learning rate ----------------------------------------------------
    def get_lr(self):
        """The current learning rate (the scheduler's value if one is used)."""
        if isinstance(self._learning_rate, LRScheduler):
            return float(self._learning_rate())
        return self._learning_rate

    def set_lr(self, value):
        """Set a constant learning rate (not allowed while an LRScheduler is used)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError("%s.set_lr: value must be a float, got %r"
                            % (type(self).__name__, value))
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(
                "%s.set_lr: the learning rate is driven by an LRScheduler (%s); change the "
                "scheduler instead, or replace it with set_lr_scheduler()"
                % (type(self).__name__, type(self._learning_rate).__name__))
        self._learning_rate = float(value)

    def set_lr_scheduler(self, scheduler):
        """Drive the learning rate by ``scheduler`` from now on."""
        if not isinstance(scheduler, LRScheduler):
            raise TypeError("%s.set_lr_scheduler: expected an LRScheduler, got %r"
                            % (type(self).__name__, scheduler))
        self._learning_rate = scheduler

    def _param_lr(self, lr, param, group):
        mult = group.get('learning_rate', 1.0)
        attr = getattr(param, 'optimize_attr', None)
        if attr is not None:
            mult = mult * attr.get('learning_rate', 1.0)
        return lr if mult == 1.0 else lr * mult

    # ---- the update -------------------------------------------------------
    def step(self):
        """Update every parameter that has a gradient (dynamic graph mode)."""
        if in_static_mode():
            raise RuntimeError("%s.step() is for dynamic graph mode; in static mode call "
                               "minimize(loss) while building the program"
                               % type(self).__name__)
        with no_grad():
            lr = self.get_lr()
            for group in self._groups:
                params_grads = [(p, p.grad) for p in group['params']
                                if not p.stop_gradient and p.grad is not None]
                if params_grads:
                    self._apply_group(params_grads, group, lr)

    def _apply_group(self, params_grads, group, lr):
        if autocast_state() is not None:    # updates run in the parameters' own dtypes
            with autocast_suspended():
                return self._apply_group(params_grads, group, lr)
        clip = group['grad_clip'] if 'grad_clip' in group else self._grad_clip
        if clip is not None:
            params_grads = clip(params_grads)
        opts = self._options(group)
        for param, grad in params_grads:
            if grad is not None:
                self._apply_one(param, grad, group, opts, lr)

    def _apply_one(self, param, grad, group, opts, lr):
        state = self._state.get(param)
        if state is None:
            self._check_precision(param)
            state = self._state[param] = self._create_state(param, opts)
        half = param.dtype.itemsize == 2 and not in_static_mode() and _dt.is_half(param.dtype)
        # A float16/bfloat16 parameter is updated in float32, as Paddle's kernels
        # do: on its float32 master weight (multi_precision), which keeps the
        # small steps half precision would round away, else on a float32 copy.
        target = self._master_weight(param) if half else param
        if half:
            grad = cast(grad, 'float32')
        reg = self._regularizer_for(param, group)
        if reg is not None and not self._fuses(reg):
            grad = reg._apply(target, grad)
        self._update_param(target, grad, self._param_lr(lr, param, group), state, opts, reg)
        if half:
            param.data = target.data.astype(param.dtype)
            param._version += 1

    def _master_weight(self, param):
        """The float32 master copy of a half-precision ``param`` when
        multi_precision is on (kept across steps), else a fresh float32 copy."""
        if not getattr(self, '_multi_precision', False):
            return Tensor(param.data.astype(np.float32))
        masters = self._master_weights
        master = masters.get(param.name)
        if master is None:
            saved = self._saved_master_weights.get(param.name)
            value = (_checked_state(param.name + ' (master weight)', saved,
                                    tuple(param.shape), np.dtype(np.float32))
                     if saved is not None else param.data.astype(np.float32))
            master = masters[param.name] = Tensor(value)
            # the parameter's name: name-based options (AdamW's apply_decay_param_fun)
            # see the parameter they were written for
            master.name = param.name
            master.persistable = True
        return master

    def _regularizer_for(self, param, group):
        if self._group_weight_decay_is_regularizer and 'weight_decay' in group:
            return group['weight_decay']
        reg = getattr(param, 'regularizer', None)
        return reg if reg is not None else self.regularization

    def _fuses(self, regularizer):
        """True when the update op applies this regularizer itself (Momentum's L2)."""
        return False

    def _create_state(self, param, opts):
        """The accumulator tensors of ``param`` (created on its first update)."""
        return ()

    def _update_param(self, param, grad, lr, state, opts, regularizer):
        raise NotImplementedError(
            "%s is a base class; use a subclass such as framework.optimizer.Adam"
            % type(self).__name__)

    @staticmethod
    def _run_update(op, *args):
        """Run update op ``op``. Eagerly, an op that can update its state in place
        does so (the optimizer owns those buffers): no new moment arrays per
        step. Static programs and the NaN/Inf check go through the op as usual."""
        if in_static_mode() or op.name not in INPLACE_STATE_UPDATES or \
                flags.flag('FLAGS_check_nan_inf'):
            return op(*args)
        arrays = [a.data if isinstance(a, Tensor) else a for a in args]
        try:
            outs = op.kernel(*arrays, inplace=True)
        except OpError as e:
            raise OpError("%s: %s" % (op.name, e)) from None
        return tuple(wrap_array(o) for o in outs)

    @staticmethod
    def _write(targets, outs):
        """Swap the op's results into the parameter and its accumulators. (In
        static mode the update op already writes its inputs in place.)"""
        if in_static_mode():
            return
        for t, o in zip(targets, outs):
            t.data = o.data
            t._version += 1

    # ---- accumulators -----------------------------------------------------
    def _add_accumulator(self, name, param, dtype=None, fill_value=0.0, shape=None):
        if self._name is not None:
            name = self._name + '_' + name
        table = self._accumulators.setdefault(name, {})
        if param.name in table:
            return table[param.name]
        var_name = '%s_%s_0' % (param.name, name)
        dtype = np.dtype(dtype or param.dtype)
        shape = tuple(param.shape if shape is None else shape)
        saved = self._accumulators_holder.get(var_name)
        if saved is not None:
            arr = _checked_state(var_name, saved, shape, dtype)
        elif self._accumulators_holder:
            raise KeyError("%s: the loaded optimizer state has no entry '%s' (parameter '%s' "
                           "was not in the optimizer that saved it)"
                           % (type(self).__name__, var_name, param.name))
        else:
            arr = np.full(shape, fill_value, dtype=dtype)
        acc = Tensor(arr)
        acc.name = var_name
        acc.persistable = True
        table[param.name] = acc
        return acc

    def _check_precision(self, param):
        if in_static_mode() and _dt.is_half(param.dtype):
            raise TypeError(
                "%s: parameter '%s' is %s; static-mode programs update float32 (or "
                "float64) parameters only. Train half-precision parameters in dynamic mode "
                "(paddle.amp.decorate(level='O2') with auto_cast), where the optimizer "
                "keeps float32 master weights" % (type(self).__name__, param.name, param.dtype))

    def _acc_dtype(self, param):
        """Accumulators of half-precision parameters are kept in float32."""
        d = np.dtype(param.dtype)
        return np.dtype(np.float32) if _dt.is_half(d) else d

    # ---- state dict -------------------------------------------------------
    def state_dict(self):
        """Accumulators keyed by their names, plus 'LR_Scheduler' when a
        scheduler drives the learning rate. Values are the live tensors."""
        state = {}
        for table in self._accumulators.values():
            for acc in table.values():
                if acc.name in state:
                    raise RuntimeError(
                        "%s.state_dict: two parameters share the name behind accumulator "
                        "'%s'; give parameters unique names" % (type(self).__name__, acc.name))
                state[acc.name] = acc
        if self._master_weights:
            state['master_weights'] = dict(self._master_weights)
        if isinstance(self._learning_rate, LRScheduler):
            state['LR_Scheduler'] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Load a state saved by ``state_dict()`` (tensors or numpy arrays).
        Accumulators not created yet are filled when their parameter is first
        updated, so continuing gives the same numbers as never stopping.

        Entries are matched to parameters by name. When the names differ (the
        same model built again in this process gets other unique names, e.g.
        ``linear_1.w_0`` for ``linear_0.w_0``) they are matched by order, as
        PyTorch does: the i-th parameter in the state goes to this optimizer's
        i-th trainable parameter, provided the counts and shapes agree.
        """
        api = type(self).__name__
        if not hasattr(state_dict, 'items'):
            raise TypeError("%s.set_state_dict: expected a dict (from state_dict()), got %s"
                            % (api, type(state_dict).__name__))
        if isinstance(self._learning_rate, LRScheduler):
            if 'LR_Scheduler' not in state_dict:
                raise KeyError("%s.set_state_dict: the state has no 'LR_Scheduler' entry but "
                               "this optimizer uses %s" % (api, type(self._learning_rate).__name__))
            self._learning_rate.set_state_dict(state_dict['LR_Scheduler'])
        masters = state_dict.get('master_weights') or {}
        self._saved_master_weights = {k: np.asarray(v if isinstance(v, np.ndarray) else getattr(v, 'data', v)) for k, v in masters.items()}
        for name, master in self._master_weights.items():
            if name in self._saved_master_weights:
                master.data = _checked_state(name + ' (master weight)',
                                             self._saved_master_weights[name],
                                             master.data.shape, master.data.dtype)
        holder = {k: v for k, v in state_dict.items()
                  if k not in ('LR_Scheduler', 'master_weights')}
        holder = self._match_state_to_parameters(holder)
        self._accumulators_holder = holder
        for table in self._accumulators.values():
            for acc in table.values():
                if acc.name not in holder:
                    raise KeyError("%s.set_state_dict: accumulator '%s' is missing from the "
                                   "state dict" % (api, acc.name))
                acc.data = _checked_state(acc.name, holder[acc.name], acc.data.shape,
                                          acc.data.dtype)
                acc._version += 1

    def _accumulator_keys(self):
        """{accumulator name as it appears in state keys: True if it has the
        parameter's shape (False: a [1]-shaped beta power)}."""
        prefix = self._name + '_' if self._name is not None else ''
        return {prefix + n: n not in _SCALAR_ACCUMULATORS for n in self._accumulator_names}

    def _state_shape(self, accumulator, param, param_shaped):
        """The shape of accumulator ``accumulator`` (its state-key name) of
        ``param``: the parameter's, or [1] for a beta power."""
        return list(param.shape) if param_shaped else [1]

    def _split_state_key(self, key, accumulators):
        """'linear_0.w_0_moment1_0' -> ('linear_0.w_0', 'moment1'), or None.
        (The final number is Paddle's unique-name counter: a second optimizer
        over the same parameters writes '..._moment1_1'.)"""
        head, _, number = key.rpartition('_')
        if not number.isdigit():
            return None
        for acc in sorted(accumulators, key=len, reverse=True):
            if head.endswith('_' + acc) and len(head) > len(acc) + 1:
                return head[:-len(acc) - 1], acc
        return None

    def _match_state_to_parameters(self, holder):
        """``holder`` keyed by this optimizer's accumulator names
        ('<parameter name>_<accumulator>_0'), its parameters matched by name,
        else by order."""
        api = type(self).__name__
        accumulators = self._accumulator_keys()
        saved = {}       # parameter name in the state -> {accumulator: value}, in order
        for key, value in holder.items():
            parts = self._split_state_key(key, accumulators)
            if parts is None:
                raise KeyError("%s.set_state_dict: entry '%s' is not an accumulator of %s "
                               "(expected '<parameter name>_<%s>_0'); was the state saved "
                               "by another optimizer?" % (api, key, api,
                                                          '|'.join(accumulators)))
            saved.setdefault(parts[0], {})[parts[1]] = value
        # (a static-mode optimizer built without a parameter list knows the
        # parameters whose update ops it appended)
        params = [p for p in self._all_params() if not p.stop_gradient] or list(self._state)
        if not params:
            # parameters not known yet (static mode, before minimize): match by
            # name when their accumulators are made
            return {'%s_%s_0' % (old, acc): v for old, accs in saved.items()
                    for acc, v in accs.items()}
        by_name = {p.name: p for p in params}
        if all(n in by_name for n in saved):
            pairs = [(old, accs, by_name[old]) for old, accs in saved.items()]
        elif len(saved) != len(params):
            raise ValueError(
                "%s.set_state_dict: the state's parameter names (%s) are not this optimizer's "
                "(%s), so they are matched by order, but the state holds accumulators for %d "
                "parameters and this optimizer has %d trainable ones"
                % (api, _preview(list(saved)), _preview([p.name for p in params]),
                   len(saved), len(params)))
        else:
            pairs = [(old, accs, p) for (old, accs), p in zip(saved.items(), params)]
        out = {}
        for old, accs, param in pairs:
            for acc, value in accs.items():
                shape = list(np.shape(value.data if isinstance(value, Tensor) else value))
                expected = self._state_shape(acc, param, accumulators[acc])
                if shape != expected:
                    raise ValueError(
                        "%s.set_state_dict: the state's '%s' (accumulator %s of shape %s) "
                        "does not fit parameter '%s' of shape %s"
                        % (api, old, acc, shape, param.name, list(param.shape)))
                out['%s_%s_0' % (param.name, acc)] = value
        return out

    set_dict = set_state_dict

    # ---- gradients --------------------------------------------------------
    def clear_grad(self, set_to_zero=True):
        """Zero (or drop, with ``set_to_zero=False``) the gradients of the
        trainable parameters."""
        for p in self._all_params():
            if not p.stop_gradient:
                p.clear_gradient(set_to_zero)

    def clear_gradients(self, set_to_zero=True):
        self.clear_grad(set_to_zero)

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None):
        """The (param, grad) pairs of the trainable parameters; runs
        ``loss.backward()`` first when none of them has a gradient yet. In
        static mode this appends the backward ops (``append_backward``)."""
        if in_static_mode():
            from ..graph.backward import append_backward
            params = parameters if parameters is not None else (
                [p for g in self._groups for p in g['params']] or None)
            return append_backward(loss, params, no_grad_set)
        params = self._select(parameters, no_grad_set)
        if not any(p.grad is not None for p in params) and not loss.stop_gradient:
            loss.backward()
        return [(p, p.grad) for p in params if p.grad is not None]

    def apply_gradients(self, params_grads):
        """Clip, regularize and apply ``params_grads`` (a list of (param, grad)).
        In static mode this appends the update ops and returns them."""
        if in_static_mode():
            return self._static_apply(params_grads)
        managed = {id(p) for p in self._all_params()}
        strays = [p.name for p, _ in params_grads if id(p) not in managed]
        if strays:
            raise ValueError("%s.apply_gradients: parameters %s are not managed by this "
                             "optimizer" % (type(self).__name__, strays))
        with no_grad():
            lr = self.get_lr()
            for group in self._groups:
                members = {id(p) for p in group['params']}
                mine = [(p, g) for p, g in params_grads if id(p) in members]
                if mine:
                    self._apply_group(mine, group, lr)
        return []

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Compute gradients if needed and update the parameters.

        Returns ``(optimize_ops, params_grads)`` like Paddle; in dynamic graph
        mode no ops are recorded, so ``optimize_ops`` is an empty list. In
        static mode this appends the backward and the update ops to the loss's
        program."""
        if in_static_mode():
            return self._static_minimize(loss, parameters, no_grad_set)
        params_grads = self.backward(loss, startup_program, parameters, no_grad_set)
        self.apply_gradients(params_grads)
        return [], params_grads

    def _static_minimize(self, loss, parameters, no_grad_set):
        params_grads = self.backward(loss, parameters=parameters, no_grad_set=no_grad_set)
        return self._static_apply(params_grads), params_grads

    def _static_apply(self, params_grads):
        from ..graph.program import op_role_guard
        if not params_grads:
            return []
        block = params_grads[0][0].block.program.global_block()
        n_before = len(block.ops)
        groups = self._groups or [{'params': [p for p, _ in params_grads]}]
        with op_role_guard('optimize'):
            lr = self._static_lr()
            for group in groups:
                members = {id(p) for p in group['params']}
                mine = [(p, g) for p, g in params_grads if id(p) in members or
                        any(getattr(q, 'name', None) == p.name for q in group['params'])]
                if mine:
                    self._apply_group(mine, group, lr)
        return block.ops[n_before:]

    def _static_lr(self):
        """The learning rate as a value the program reads at every run, so a
        scheduler stepped between ``Executor.run`` calls takes effect."""
        if getattr(self, '_lr_value', None) is None:
            self._lr_value = _LiveLearningRate(self)
        return self._lr_value

    def _select(self, parameters, no_grad_set):
        params = self._all_params() if parameters is None else _check_tensor_list(
            type(self).__name__, list(parameters))
        skip = set()
        for item in no_grad_set or ():
            skip.add(item if isinstance(item, str) else item.name)
        return [p for p in params if not p.stop_gradient and p.name not in skip]

    def __repr__(self):
        return '%s(learning_rate=%s)' % (type(self).__name__, self._learning_rate)


class _LiveLearningRate(Tensor):
    """A tensor whose value is the optimizer's current learning rate; a static
    program captures it, and the executor reads ``.data`` at every run."""
    __slots__ = ('_optimizer',)

    def __init__(self, optimizer):
        self._optimizer = optimizer
        from ..nn.layer import unique_name
        # Paddle's name ('learning_rate_0'): the same in every process that
        # builds the program the same way, so static.save/load can pair it up
        super().__init__(np.zeros([1], 'float32'), name=unique_name('learning_rate'))

    @property
    def data(self):
        return np.asarray([self._optimizer.get_lr()], dtype=np.float32)

    @data.setter
    def data(self, value):
        pass       # the optimizer's schedule is the only source of the value


# ---- argument checks --------------------------------------------------------

def _check_parameters(api, parameters):
    if parameters is None:
        if in_static_mode():
            return None
        raise AttributeError(
            "%s: parameters is None. In dynamic graph mode the optimizer needs the "
            "parameters to update: pass them, e.g. %s(learning_rate=0.01, "
            "parameters=model.parameters())" % (api, api))
    if isinstance(parameters, Tensor):
        raise TypeError("%s: parameters must be a list of tensors (e.g. "
                        "model.parameters()), got a single Tensor" % api)
    if isinstance(parameters, dict):
        raise TypeError("%s: parameters must be a list; for parameter groups pass a list "
                        "of dicts" % api)
    params = list(parameters)
    if not params:
        raise ValueError("%s: got an empty parameter list" % api)
    if isinstance(params[0], dict):
        if not all(isinstance(g, dict) for g in params):
            raise TypeError("%s: parameters mixes parameter-group dicts and tensors" % api)
        return params
    return _check_tensor_list(api, params)


def _check_tensor_list(api, params):
    for p in params:
        if not isinstance(p, Tensor) and not is_static_var(p):
            raise TypeError("%s: parameters must be tensors (Parameter), got %r"
                            % (api, type(p).__name__))
    return params


def _check_learning_rate(api, lr):
    if isinstance(lr, LRScheduler):
        return lr
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.floating)):
        raise TypeError("%s: learning_rate must be a float or an LRScheduler, got %r"
                        % (api, lr))
    return float(lr)


def _check_grad_clip(api, clip):
    if clip is not None and not callable(clip):
        raise TypeError("%s: grad_clip must be a ClipGradByValue, ClipGradByNorm or "
                        "ClipGradByGlobalNorm instance, got %r" % (api, clip))
    return clip


def _to_regularizer(api, weight_decay):
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
        raise TypeError("%s: weight_decay must be a float, L1Decay or L2Decay, got %r"
                        % (api, weight_decay))
    return L2Decay(float(weight_decay))


def _preview(names, n=4):
    shown = ', '.join(names[:n])
    return shown + (', ... (%d in all)' % len(names) if len(names) > n else '')


def _checked_state(name, value, shape, dtype):
    arr = value.data if isinstance(value, Tensor) else np.asarray(value)
    if tuple(arr.shape) != tuple(shape):
        raise ValueError("optimizer state '%s': shape %s does not match the expected %s"
                         % (name, list(arr.shape), list(shape)))
    if arr.dtype != dtype:
        raise ValueError("optimizer state '%s': dtype %s does not match the expected %s"
                         % (name, arr.dtype, dtype))
    return arr.copy()


def float_arg(api, name, value, low=None, high=None, high_open=False):
    """A float hyper-parameter (a one-element tensor is accepted, as in Paddle),
    checked against ``[low, high]`` (``[low, high)`` with ``high_open``)."""
    if value is None:
        raise ValueError("%s: %s must be set, got None" % (api, name))
    if isinstance(value, bool):
        raise TypeError("%s: %s must be a float, got %r" % (api, name, value))
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError("%s: %s must be a float, got %r" % (api, name, value)) from None
    too_high = high is not None and (v >= high if high_open else v > high)
    if (low is not None and v < low) or too_high:
        raise ValueError("%s: %s must be in [%s, %s%s, got %s"
                         % (api, name, low, high, ')' if high_open else ']', v))
    return v
