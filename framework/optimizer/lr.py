"""Learning-rate schedulers (Paddle's ``paddle.optimizer.lr``).

A scheduler is a Python object holding ``last_epoch`` and ``last_lr``; the
optimizer reads ``scheduler()`` at each ``step()``. Call ``scheduler.step()``
after ``optimizer.step()`` (per batch or per epoch, as the schedule is meant).
The formulas are Paddle's, including its recursive forms (CosineAnnealingDecay
updates from ``last_lr``), so sequences match Paddle step for step.

>>> import framework as paddle
>>> sched = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
>>> lrs = []
>>> for _ in range(5):
...     lrs.append(round(sched(), 6)); sched.step()
>>> lrs
[0.5, 0.5, 0.05, 0.05, 0.005]
"""
import math
import warnings

import numpy as np

__all__ = ['LRScheduler', 'NoamDecay', 'PiecewiseDecay', 'NaturalExpDecay',
           'InverseTimeDecay', 'PolynomialDecay', 'LinearWarmup', 'ExponentialDecay',
           'MultiStepDecay', 'StepDecay', 'LambdaDecay', 'ReduceOnPlateau',
           'CosineAnnealingDecay', 'MultiplicativeDecay', 'OneCycleLR', 'CyclicLR',
           'LinearLR', 'CosineAnnealingWarmRestarts']


def _check_number(value, what, api):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError("%s: %s must be a float, got %r" % (api, what, value))
    return float(value)


def _check_int(value, what, api, positive=True):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError("%s: %s must be an int, got %r" % (api, what, value))
    if positive and value <= 0:
        raise ValueError("%s: %s must be a positive integer, got %d" % (api, what, value))
    return int(value)


class LRScheduler:
    """Base class. Subclasses implement ``get_lr()`` from ``self.last_epoch``
    (and ``self.base_lr`` / ``self.last_lr``).

    ``step(epoch=None)`` advances ``last_epoch`` (or sets it) and recomputes
    ``last_lr``; ``__call__()`` returns ``last_lr``. The constructor takes the
    first step, so ``last_epoch`` starts at 0.
    """

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        name = type(self).__name__
        learning_rate = _check_number(learning_rate, 'learning_rate', name)
        if learning_rate < 0:
            raise ValueError("%s: learning_rate must be >= 0, got %s" % (name, learning_rate))
        self.base_lr = learning_rate
        self.last_lr = learning_rate
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self):
        """The learning rate of the current epoch."""
        return self.last_lr

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and recompute the learning rate."""
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed = getattr(self, '_get_closed_form_lr', None)
            self.last_lr = closed() if closed is not None else self.get_lr()
        self._report()

    def _report(self):
        if self.verbose:
            print('Epoch %d: %s set learning rate to %s.'
                  % (self.last_epoch, type(self).__name__, self.last_lr))

    def get_lr(self):
        raise NotImplementedError(
            "%s: an LRScheduler subclass must implement get_lr()" % type(self).__name__)

    def state_keys(self):
        """Names of the attributes ``state_dict`` saves."""
        self.keys = ['last_epoch', 'last_lr']

    def state_dict(self):
        """The scheduler's state (a dict of plain Python values)."""
        self.state_keys()
        state = {}
        for key in self.keys:
            if key in self.__dict__:
                value = self.__dict__[key]
                if hasattr(value, 'item') and not isinstance(value, (int, float)):
                    value = float(value.item())
                state[key] = value
        return state

    def set_state_dict(self, state_dict):
        """Restore a state saved by ``state_dict``."""
        self.state_keys()
        for key in self.keys:
            if key not in state_dict:
                raise RuntimeError(
                    "%s.set_state_dict: key '%s' is missing from the state dict (it has %s); "
                    "was it saved from a different scheduler?"
                    % (type(self).__name__, key, sorted(state_dict)))
            self.__dict__[key] = state_dict[key]
        extra = set(state_dict) - set(self.keys) - set(self._nested_keys())
        if extra:
            warnings.warn("%s.set_state_dict: unused keys %s; maybe the state was saved "
                          "from a different scheduler" % (type(self).__name__, sorted(extra)))

    def _nested_keys(self):
        return ()

    set_dict = set_state_dict


class NoamDecay(LRScheduler):
    """lr = learning_rate * d_model^-0.5 * min(epoch^-0.5, epoch * warmup_steps^-1.5)
    (the first factor is 1 at epoch 0)."""

    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        if d_model <= 0:
            raise ValueError("NoamDecay: d_model must be > 0, got %s" % d_model)
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)


class PiecewiseDecay(LRScheduler):
    """values[i] while epoch < boundaries[i]; values[-1] after the last boundary."""

    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(boundaries) == 0:
            raise ValueError("PiecewiseDecay: boundaries cannot be empty")
        if len(values) != len(boundaries) + 1:
            raise ValueError("PiecewiseDecay: values must have one more element than "
                             "boundaries, got %d values for %d boundaries"
                             % (len(values), len(boundaries)))
        self.boundaries = list(boundaries)
        self.values = list(values)
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for bound, value in zip(self.boundaries, self.values):
            if self.last_epoch < bound:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    """lr = learning_rate * exp(-gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not gamma > 0.0:
            raise ValueError("NaturalExpDecay: gamma must be > 0 so the learning rate "
                             "decays, got %s" % gamma)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    """lr = learning_rate / (1 + gamma * epoch)."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    """lr = (learning_rate - end_lr) * (1 - epoch / decay_steps) ** power + end_lr.

    Without ``cycle`` epoch is capped at decay_steps; with ``cycle`` decay_steps
    grows to the next multiple of itself (``ceil(epoch / decay_steps)``).
    """

    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                 last_epoch=-1, verbose=False):
        self.decay_steps = _check_int(decay_steps, 'decay_steps', 'PolynomialDecay')
        if not power > 0.0:
            raise ValueError("PolynomialDecay: power must be > 0, got %s" % power)
        self.end_lr = end_lr
        self.power = power
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch = self.last_epoch
        steps = self.decay_steps
        if self.cycle:
            div = math.ceil(float(epoch) / float(steps)) if epoch != 0 else 1
            steps = self.decay_steps * div
        else:
            epoch = min(epoch, steps)
        return (self.base_lr - self.end_lr) * (
            (1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear warm-up from ``start_lr`` to ``end_lr`` over ``warmup_steps``, then
    ``learning_rate`` (a float, or a scheduler stepped from epoch 0 on)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1,
                 verbose=False):
        if not isinstance(learning_rate, (int, float, LRScheduler)) or isinstance(
                learning_rate, bool):
            raise TypeError("LinearWarmup: learning_rate must be a float or an LRScheduler, "
                            "got %r" % (learning_rate,))
        self.learning_rate = learning_rate
        self.warmup_steps = _check_int(warmup_steps, 'warmup_steps', 'LinearWarmup')
        self.start_lr = start_lr
        self.end_lr = end_lr
        super().__init__(start_lr, last_epoch, verbose)

    def state_dict(self):
        state = super().state_dict()
        if isinstance(self.learning_rate, LRScheduler):
            state['LinearWarmup_LR'] = self.learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.set_state_dict(state_dict['LinearWarmup_LR'])

    def _nested_keys(self):
        return ('LinearWarmup_LR',)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(
                self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    """lr = learning_rate * gamma ** epoch."""

    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        if not 0.0 < gamma < 1.0:
            raise ValueError("ExponentialDecay: gamma must be in (0, 1) so the learning rate "
                             "decays, got %s" % gamma)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** self.last_epoch)


class MultiStepDecay(LRScheduler):
    """lr = learning_rate * gamma ** (number of milestones <= epoch)."""

    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError("MultiStepDecay: milestones must be a list or tuple, got %r"
                            % (milestones,))
        if any(a >= b for a, b in zip(milestones, milestones[1:])):
            raise ValueError("MultiStepDecay: milestones must be increasing, got %s"
                             % list(milestones))
        if gamma >= 1.0:
            raise ValueError("MultiStepDecay: gamma must be < 1.0, got %s" % gamma)
        self.milestones = list(milestones)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, m in enumerate(self.milestones):
            if self.last_epoch < m:
                return self.base_lr * (self.gamma ** i)
        return self.base_lr * (self.gamma ** len(self.milestones))


class StepDecay(LRScheduler):
    """lr = learning_rate * gamma ** (epoch // step_size)."""

    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        self.step_size = _check_int(step_size, 'step_size', 'StepDecay')
        if gamma >= 1.0:
            raise ValueError("StepDecay: gamma must be < 1.0, got %s" % gamma)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))


class LambdaDecay(LRScheduler):
    """lr = learning_rate * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("LambdaDecay: lr_lambda must be a function of the epoch, got %r"
                            % (lr_lambda,))
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class MultiplicativeDecay(LRScheduler):
    """lr = learning_rate * prod(lr_lambda(e) for e in 1..epoch).

    Computed incrementally from ``last_lr`` when stepping one epoch at a time
    (the same float products as the full recomputation Paddle does)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("MultiplicativeDecay: lr_lambda must be a function of the epoch, "
                            "got %r" % (lr_lambda,))
        self.lr_lambda = lr_lambda
        self._lr_epoch = None      # the epoch last_lr belongs to
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch = self.last_epoch
        if self._lr_epoch is not None and epoch == self._lr_epoch + 1 and epoch >= 1:
            lr = self.last_lr * self.lr_lambda(epoch)
        else:
            lr = self.base_lr
            for e in range(1, epoch + 1):
                lr = lr * self.lr_lambda(e)
        self._lr_epoch = epoch
        return lr

    def set_state_dict(self, state_dict):
        super().set_state_dict(state_dict)
        self._lr_epoch = self.last_epoch


class ReduceOnPlateau(LRScheduler):
    """Multiply the learning rate by ``factor`` once ``metrics`` (passed to
    ``step``) has not improved for more than ``patience`` epochs, then wait
    ``cooldown`` epochs; never below ``min_lr``; changes smaller than
    ``epsilon`` are ignored."""

    def __init__(self, learning_rate, mode='min', factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode='rel', cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode = mode.lower()
        if mode not in ('min', 'max'):
            raise ValueError("ReduceOnPlateau: mode must be 'min' or 'max', got %r" % mode)
        if factor >= 1.0:
            raise ValueError("ReduceOnPlateau: factor must be < 1.0 "
                             "(new_lr = lr * factor), got %s" % factor)
        threshold_mode = threshold_mode.lower()
        if threshold_mode not in ('rel', 'abs'):
            raise ValueError("ReduceOnPlateau: threshold_mode must be 'rel' or 'abs', got %r"
                             % threshold_mode)
        lr = _check_number(learning_rate, 'learning_rate', 'ReduceOnPlateau')
        self.mode = mode
        self.factor = factor
        self.threshold_mode = threshold_mode
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = min_lr
        self.epsilon = epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        # no first step() here: there is no metric yet
        self.base_lr = lr
        self.last_lr = lr
        self.last_epoch = 0
        self.verbose = verbose
        self._var_name = None

    def state_keys(self):
        self.keys = ['cooldown_counter', 'best', 'num_bad_epochs', 'last_epoch', 'last_lr']

    def step(self, metrics, epoch=None):
        """Record ``metrics`` (a number or a one-element tensor/array) for this epoch."""
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        current = _metric_value(metrics)
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                self._report()

    def _is_better(self, current, best):
        if self.mode == 'min':
            bound = best - best * self.threshold if self.threshold_mode == 'rel' \
                else best - self.threshold
            return current < bound
        bound = best + best * self.threshold if self.threshold_mode == 'rel' \
            else best + self.threshold
        return current > bound


def _metric_value(metrics):
    if isinstance(metrics, (bool, str)) or metrics is None:
        raise TypeError("ReduceOnPlateau.step: metrics must be a number or a one-element "
                        "tensor, got %r" % (metrics,))
    if isinstance(metrics, (int, float, np.floating, np.integer)):
        return float(metrics)
    size = getattr(metrics, 'size', None)
    size = size() if callable(size) else size
    if size != 1:
        raise ValueError("ReduceOnPlateau.step: metrics must hold exactly one value, got "
                         "%s values; reduce it first (e.g. paddle.mean)" % size)
    return float(np.asarray(metrics).reshape(-1)[0])


class CosineAnnealingDecay(LRScheduler):
    """Cosine annealing from learning_rate (eta_max) to eta_min over T_max epochs,
    in Paddle's recursive form (stepping with an explicit epoch uses the closed form)."""

    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        self.T_max = _check_int(T_max, 'T_max', 'CosineAnnealingDecay')
        self.eta_min = _check_number(eta_min, 'eta_min', 'CosineAnnealingDecay')
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        e, t = self.last_epoch, self.T_max
        if e == 0:
            return self.base_lr
        if (e - 1 - t) % (2 * t) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (
                1 - math.cos(math.pi / t)) / 2
        return (1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t)) * (
            self.last_lr - self.eta_min) + self.eta_min

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class OneCycleLR(LRScheduler):
    """One-cycle policy: from max_learning_rate / divide_factor up to
    max_learning_rate over phase_pct of total_steps, then down to
    end_learning_rate (three_phase: back to the initial lr first)."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0,
                 end_learning_rate=0.0001, phase_pct=0.3, anneal_strategy='cos',
                 three_phase=False, last_epoch=-1, verbose=False):
        api = 'OneCycleLR'
        max_lr = _check_number(max_learning_rate, 'max_learning_rate', api)
        min_lr = _check_number(end_learning_rate, 'end_learning_rate', api)
        if max_lr < 0 or min_lr < 0:
            raise ValueError("OneCycleLR: learning rates must be >= 0")
        self.total_steps = _check_int(total_steps, 'total_steps', api)
        if not isinstance(phase_pct, float) or not 0 <= phase_pct <= 1:
            raise ValueError("OneCycleLR: phase_pct must be a float in [0, 1], got %r"
                             % (phase_pct,))
        divide_factor = _check_number(divide_factor, 'divide_factor', api)
        initial_lr = max_lr / divide_factor
        n = self.total_steps
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("OneCycleLR: with three_phase=True phase_pct must be < 0.5, "
                                 "got %s" % phase_pct)
            self._step_config = [0, phase_pct * n - 1, 2 * phase_pct * n - 2, n - 1, n - 1]
            c = self._step_config
            self._steps_size = [c[1] - c[0], c[2] - c[1], c[3] - c[2], c[3] - c[2]]
            self._lr_config = [initial_lr, max_lr, initial_lr, min_lr]
        else:
            self._step_config = [0, phase_pct * n - 1, n - 1, n - 1]
            c = self._step_config
            self._steps_size = [c[1] - c[0], c[2] - c[1], c[2] - c[1]]
            self._lr_config = [initial_lr, max_lr, min_lr]
        if anneal_strategy == 'cos':
            self.anneal_func = self._cos_annealing
        elif anneal_strategy == 'linear':
            self.anneal_func = self._linear_annealing
        else:
            raise ValueError("OneCycleLR: anneal_strategy must be 'cos' or 'linear', got %r"
                             % (anneal_strategy,))
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError("OneCycleLR: stepped %d times, but total_steps is %d"
                             % (step, self.total_steps))
        last = len(self._lr_config) - 2
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end_step or i == last:
                pct = (step - self._step_config[i]) / size
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1], pct)


class CyclicLR(LRScheduler):
    """Cyclical learning rate between base_learning_rate and max_learning_rate
    (modes 'triangular', 'triangular2', 'exp_range', or a custom scale_fn)."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None,
                 mode='triangular', exp_gamma=1.0, scale_fn=None, scale_mode='cycle',
                 last_epoch=-1, verbose=False):
        api = 'CyclicLR'
        max_lr = _check_number(max_learning_rate, 'max_learning_rate', api)
        if max_lr < 0:
            raise ValueError("CyclicLR: max_learning_rate must be >= 0, got %s" % max_lr)
        up = float(_check_int(step_size_up, 'step_size_up', api))
        down = up if step_size_down is None else float(
            _check_int(step_size_down, 'step_size_down', api))
        if not isinstance(exp_gamma, float):
            raise TypeError("CyclicLR: exp_gamma must be a float, got %r" % (exp_gamma,))
        if mode not in ('triangular', 'triangular2', 'exp_range') and scale_fn is None:
            raise ValueError("CyclicLR: mode must be 'triangular', 'triangular2' or "
                             "'exp_range' unless scale_fn is given, got %r" % (mode,))
        if scale_mode not in ('cycle', 'iterations'):
            raise ValueError("CyclicLR: scale_mode must be 'cycle' or 'iterations', got %r"
                             % (scale_mode,))
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = max_lr
        self.amplitude = max_lr - base_learning_rate
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is None:
            self.scale_fn = {'triangular': self._triangular_scale_fn,
                             'triangular2': self._triangular2_scale_fn,
                             'exp_range': self._exp_range_scale_fn}[mode]
            self.scale_mode = 'iterations' if mode == 'exp_range' else 'cycle'
        else:
            self.scale_fn = scale_fn
            self.scale_mode = scale_mode
        super().__init__(base_learning_rate, last_epoch, verbose)

    def _triangular_scale_fn(self, x):
        return 1.0

    def _triangular2_scale_fn(self, x):
        return 1 / (2.0 ** (x - 1))

    def _exp_range_scale_fn(self, x):
        return self.gamma ** x

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale = pct / self.step_up_pct
        else:
            scale = (1 - pct) / (1 - self.step_up_pct)
        x = cycle if self.scale_mode == 'cycle' else iterations
        return self.base_lr + self.amplitude * scale * self.scale_fn(x)


class LinearLR(LRScheduler):
    """Linear ramp of the multiplier from start_factor to end_factor over
    total_steps (Paddle's recursive form)."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0,
                 last_epoch=-1, verbose=False):
        if not 0 < start_factor <= 1.0:
            raise ValueError("LinearLR: start_factor must be in (0, 1], got %s" % start_factor)
        if not 0 <= end_factor <= 1.0:
            raise ValueError("LinearLR: end_factor must be in [0, 1], got %s" % end_factor)
        if total_steps <= 0:
            raise ValueError("LinearLR: total_steps must be > 0, got %s" % total_steps)
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        base = self.total_steps * self.start_factor
        delta = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + delta / (base + (self.last_epoch - 1) * delta))


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing with warm restarts (SGDR): period T_0, multiplied by
    T_mult after each restart."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if isinstance(T_0, bool) or not isinstance(T_0, int) or T_0 <= 0:
            raise ValueError("CosineAnnealingWarmRestarts: T_0 must be a positive int, got %r"
                             % (T_0,))
        if isinstance(T_mult, bool) or not isinstance(T_mult, int) or T_mult < 1:
            raise ValueError("CosineAnnealingWarmRestarts: T_mult must be an int >= 1, got %r"
                             % (T_mult,))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def state_keys(self):
        self.keys = ['last_epoch', 'last_lr', 'T_cur', 'T_i']

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (
            1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None):
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError("CosineAnnealingWarmRestarts: epoch must be >= 0, got %s"
                                 % epoch)
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        self._report()
