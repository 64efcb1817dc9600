"""Loss scaling for float16 training (Paddle's ``AmpScaler`` / ``GradScaler``).

Small float16 gradients underflow to zero; multiplying the loss by ``scale``
before backward lifts them into range, and ``unscale_`` divides them back (in
each gradient's dtype) while checking for inf/nan. A step whose gradients
overflowed is skipped. With dynamic scaling ``update`` halves the scale
(``decr_ratio``) after ``decr_every_n_nan_or_inf`` such steps and doubles it
(``incr_ratio``) after ``incr_every_n_steps`` clean steps in a row, Paddle's
rule exactly. bfloat16 has float32's range, so a scaler used after a bfloat16
``auto_cast`` turns itself off with a warning, as Paddle's does.

On a CPU Paddle's scaler is off (with a warning; ``scale`` returns the loss,
``step`` just steps), since float16 ``auto_cast`` is a no-op there; so is ours
unless ``FLAGS_cpu_float16_amp`` turns float16 on the CPU on (the example).

>>> import framework as paddle
>>> paddle.set_flags({'FLAGS_cpu_float16_amp': True})
>>> model = paddle.nn.Linear(2, 1)
>>> opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
>>> scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
>>> with paddle.amp.auto_cast():
...     loss = model(paddle.ones([4, 2])).mean()
>>> scaler.scale(loss).backward()
>>> scaler.step(opt); scaler.update(); opt.clear_grad()
>>> float(scaler._scale)
1024.0
>>> paddle.set_flags({'FLAGS_cpu_float16_amp': False})
"""
import collections
import enum
import warnings

import numpy as np

from ..ops.modes import is_eager_tensor, is_static_var
from .state import CPU_SCALER_WARNING, amp_global_state, cpu_float16_amp


class OptimizerState(enum.Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_states():
    return collections.defaultdict(lambda: {'state': OptimizerState.INIT})


class AmpScaler:
    """Loss scaler (see the module docstring); ``GradScaler`` adds ``step``,
    ``update`` and ``unscale_`` for the step-by-step loop."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 15, incr_ratio=2.0,
                 decr_ratio=0.5, incr_every_n_steps=1000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        self._enable = bool(enable)
        if self._enable and not cpu_float16_amp():
            warnings.warn(CPU_SCALER_WARNING)
            self._enable = False
        self._use_dynamic_loss_scaling = False
        self._init_loss_scaling = 1.0
        self._scale = None
        if self._enable:
            if not incr_ratio > 1.0:
                raise ValueError("GradScaler: incr_ratio must be > 1.0, got %r" % (incr_ratio,))
            if not decr_ratio < 1.0:
                raise ValueError("GradScaler: decr_ratio must be < 1.0, got %r" % (decr_ratio,))
            self._init_loss_scaling = init_loss_scaling
            self._incr_ratio = incr_ratio
            self._decr_ratio = decr_ratio
            self._incr_every_n_steps = incr_every_n_steps
            self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
            self._incr_count = 0
            self._decr_count = 0
            self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
            self._found_inf = False
            self._cache_found_inf = None
            self._scale = self._scale_tensor(init_loss_scaling)
            self._optimizer_states = _fresh_states()

    @staticmethod
    def _scale_tensor(value):
        from ..dygraph import Tensor
        return Tensor(np.array([value], dtype=np.float32))

    # ---- scaling -------------------------------------------------------------
    def scale(self, var):
        """``var * scale`` (``var`` itself when the scaler is off)."""
        if not (is_eager_tensor(var) or is_static_var(var)):
            raise TypeError("AmpScaler.scale(): var must be a Tensor, got %s"
                            % type(var).__name__)
        if self._enable and amp_global_state().amp_dtype != 'float16' \
                and self._use_dynamic_loss_scaling:
            self._enable = False
            self._use_dynamic_loss_scaling = False
            self._init_loss_scaling = 1.0
            warnings.warn("It is not recommended to use dynamic loss scaling for %s, so "
                          "GradScaler is disable by default." % amp_global_state().amp_dtype)
        if not self._enable:
            return var
        return var * self._scale

    def _grads(self, optimizer):
        groups = getattr(optimizer, '_param_groups', None) or []
        if groups and isinstance(groups[0], dict):
            params = [p for g in groups for p in g['params']]
        else:
            params = list(getattr(optimizer, '_parameter_list', None) or [])
        return [p.grad for p in params if getattr(p, 'grad', None) is not None]

    def _unscale(self, optimizer):
        """Divide every gradient by the scale, in its own dtype; note inf/nan."""
        if not self._enable:
            return
        state = self._optimizer_states[id(optimizer)]
        if state['state'] is OptimizerState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state['state'] is OptimizerState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / np.float32(self._scale.data[0])
        found = False
        for g in self._grads(optimizer):
            # Paddle's check_finite_and_unscale: grad * (1 / scale) in float32,
            # stored back in the gradient's dtype
            arr = g.data.astype(np.float32) * inv
            found = found or not bool(np.all(np.isfinite(arr)))
            g.data = arr.astype(g.data.dtype, copy=False)
        self._found_inf = found
        state['state'] = OptimizerState.UNSCALED

    def _update(self):
        """Paddle's dynamic loss-scaling rule."""
        if not self._enable:
            return
        if self._cache_found_inf:
            self._incr_count = 0
            self._decr_count += 1
            if self._decr_count == self._decr_every_n_nan_or_inf:
                print("Found inf or nan, current scale is: %s, decrease to: %s*%s"
                      % (float(self._scale.data[0]), float(self._scale.data[0]),
                         float(self._decr_ratio)))
                self._scale = self._scale_tensor(self._scale.data[0] * np.float32(self._decr_ratio))
                self._decr_count = 0
        else:
            self._decr_count = 0
            self._incr_count += 1
            if self._incr_count == self._incr_every_n_steps:
                self._scale = self._scale_tensor(self._scale.data[0] * np.float32(self._incr_ratio))
                self._incr_count = 0

    def minimize(self, optimizer, *args, **kwargs):
        """Unscale (unless done), update the parameters unless a gradient
        overflowed, then adjust the scale; returns what ``optimizer.minimize``
        does (``(None, None)`` for a skipped step)."""
        if not self._enable:
            return optimizer.minimize(*args, **kwargs)
        state = self._optimizer_states[id(optimizer)]
        if state['state'] is OptimizerState.INIT:
            self._unscale(optimizer)
        result = (None, None)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            result = optimizer.minimize(*args, **kwargs)
            self._cache_found_inf = False
        if self._use_dynamic_loss_scaling:
            self._update()
        self._optimizer_states = _fresh_states()
        return result

    # ---- queries and settings ----------------------------------------------------
    def is_enable(self):
        return self._enable

    def is_use_dynamic_loss_scaling(self):
        return self._use_dynamic_loss_scaling

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = new_init_loss_scaling
        self._scale = self._scale_tensor(new_init_loss_scaling)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        if not new_incr_ratio > 1.0:
            raise ValueError("GradScaler: new_incr_ratio must be > 1.0, got %r" % (new_incr_ratio,))
        self._incr_ratio = new_incr_ratio

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        if not new_decr_ratio < 1.0:
            raise ValueError("GradScaler: new_decr_ratio must be < 1.0, got %r" % (new_decr_ratio,))
        self._decr_ratio = new_decr_ratio

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = new_incr_every_n_steps

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = new_decr_every_n_nan_or_inf

    # ---- state ------------------------------------------------------------------
    def state_dict(self):
        """The scale (a numpy array) and the scaling settings and counters;
        empty for a disabled scaler."""
        if not self._enable:
            return {}
        return {'scale': self._scale.numpy(), 'incr_ratio': self._incr_ratio,
                'decr_ratio': self._decr_ratio, 'incr_every_n_steps': self._incr_every_n_steps,
                'decr_every_n_nan_or_inf': self._decr_every_n_nan_or_inf,
                'incr_count': self._incr_count, 'decr_count': self._decr_count,
                'use_dynamic_loss_scaling': self._use_dynamic_loss_scaling}

    def load_state_dict(self, state_dict):
        if not self._enable:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The input state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        scale = state_dict['scale']
        scale = np.asarray(scale if isinstance(scale, np.ndarray) else getattr(scale, 'data', scale))
        self._init_loss_scaling = scale.reshape(-1)[0]
        self._scale = self._scale_tensor(self._init_loss_scaling)
        self._incr_ratio = state_dict['incr_ratio']
        self._decr_ratio = state_dict['decr_ratio']
        self._incr_every_n_steps = state_dict['incr_every_n_steps']
        self._decr_every_n_nan_or_inf = state_dict['decr_every_n_nan_or_inf']
        self._incr_count = state_dict['incr_count']
        self._decr_count = state_dict['decr_count']
        self._use_dynamic_loss_scaling = state_dict['use_dynamic_loss_scaling']


class GradScaler(AmpScaler):
    """Loss scaler for dynamic-graph training: ``scale(loss).backward()``, then
    ``step(optimizer)`` (unscale, update unless inf/nan) and ``update()`` (adjust
    the scale), or ``minimize(optimizer, scaled_loss)`` for both."""

    def __init__(self, enable=True, init_loss_scaling=2.0 ** 16, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)

    def step(self, optimizer):
        """Unscale the gradients (unless ``unscale_`` did) and update the
        parameters, skipping the update when a gradient is inf/nan."""
        if not self._enable:
            return optimizer.step()
        state = self._optimizer_states[id(optimizer)]
        if state['state'] is OptimizerState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state['state'] is OptimizerState.INIT:
            self._unscale(optimizer)
        if self._found_inf:
            self._cache_found_inf = True
        else:
            optimizer.step()
            self._cache_found_inf = False
        state['state'] = OptimizerState.STEPPED
        if not self._use_dynamic_loss_scaling:
            self._optimizer_states = _fresh_states()

    def update(self):
        """Adjust the scale after a step (dynamic loss scaling only)."""
        if not self._enable:
            return
        if self._use_dynamic_loss_scaling:
            self._update()
            self._optimizer_states = _fresh_states()

    def unscale_(self, optimizer):
        """Divide the gradients by the scale now (e.g. before clipping them)."""
        return self._unscale(optimizer)
