"""Loss scaling, as Paddle's CPU build does it: no scaling at all (there is no
float16 underflow to guard against when everything computes in float32)."""
import enum
import warnings


class OptimizerState(enum.Enum):
    INIT = 0
    UNSCALED = 1
    STEPPED = 2


class AmpScaler:
    def __init__(self, enable=True, init_loss_scaling=65536.0, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        if enable:
            warnings.warn("AmpScaler can only be enabled on CUDAPlace, XPUPlace and "
                          "CustomPlace, current place is Place(cpu), so it makes no effect.",
                          UserWarning, stacklevel=2)
        if not 0 < decr_ratio < 1 or incr_ratio <= 1:
            raise ValueError("GradScaler: need 0 < decr_ratio < 1 and incr_ratio > 1, got "
                             "%r and %r" % (decr_ratio, incr_ratio))
        self._init_loss_scaling = float(init_loss_scaling)
        self._incr_ratio = float(incr_ratio)
        self._decr_ratio = float(decr_ratio)
        self._incr_every_n_steps = int(incr_every_n_steps)
        self._decr_every_n_nan_or_inf = int(decr_every_n_nan_or_inf)
        self._use_dynamic_loss_scaling = bool(use_dynamic_loss_scaling)

    def is_enable(self):
        return False

    def is_use_dynamic_loss_scaling(self):
        return False

    def scale(self, var):
        """The loss, unscaled (scaling has no effect on the CPU)."""
        return var

    def unscale_(self, optimizer):
        pass

    def minimize(self, optimizer, *args, **kwargs):
        return optimizer.minimize(*args, **kwargs)

    def step(self, optimizer):
        optimizer.step()

    def update(self):
        pass

    def get_init_loss_scaling(self):
        return self._init_loss_scaling

    def set_init_loss_scaling(self, new_init_loss_scaling):
        self._init_loss_scaling = float(new_init_loss_scaling)

    def get_incr_ratio(self):
        return self._incr_ratio

    def set_incr_ratio(self, new_incr_ratio):
        self._incr_ratio = float(new_incr_ratio)

    def get_decr_ratio(self):
        return self._decr_ratio

    def set_decr_ratio(self, new_decr_ratio):
        self._decr_ratio = float(new_decr_ratio)

    def get_incr_every_n_steps(self):
        return self._incr_every_n_steps

    def set_incr_every_n_steps(self, new_incr_every_n_steps):
        self._incr_every_n_steps = int(new_incr_every_n_steps)

    def get_decr_every_n_nan_or_inf(self):
        return self._decr_every_n_nan_or_inf

    def set_decr_every_n_nan_or_inf(self, new_decr_every_n_nan_or_inf):
        self._decr_every_n_nan_or_inf = int(new_decr_every_n_nan_or_inf)

    def state_dict(self):
        """Empty, as a disabled scaler's is in Paddle."""
        return {}

    def load_state_dict(self, state_dict):
        pass


class GradScaler(AmpScaler):
    def __init__(self, enable=True, init_loss_scaling=65536.0, incr_ratio=2.0, decr_ratio=0.5,
                 incr_every_n_steps=2000, decr_every_n_nan_or_inf=1,
                 use_dynamic_loss_scaling=True):
        super().__init__(enable, init_loss_scaling, incr_ratio, decr_ratio, incr_every_n_steps,
                         decr_every_n_nan_or_inf, use_dynamic_loss_scaling)
