"""``static.ExponentialMovingAverage``: shadow averages of the parameters.

``update()`` (after ``optimizer.minimize``) appends to the main program, for
every trainable parameter, ``ema = decay * ema + (1 - decay) * param`` and
``decay_pow *= decay``; with ``thres_steps`` (a step Variable) the decay is
``min(decay, (1 + step) / (10 + step))``. ``apply(exe)`` swaps the parameters
for their bias-corrected averages ``ema / (1 - decay_pow)`` (and restores them
after the ``with`` block, or on ``restore(exe)``). Static mode only, as Paddle's.
"""
import contextlib

from ..graph.mode import static_mode_guard
from ..graph.program import (Program, default_main_program, default_startup_program,
                             program_guard)


class ExponentialMovingAverage:
    def __init__(self, decay=0.999, thres_steps=None, name=None):
        from ..ops.modes import in_static_mode
        if not in_static_mode():
            raise RuntimeError("In dygraph, don't support ExponentialMovingAverage (a static "
                               "graph API: call paddle.enable_static() first)")
        if not 0.0 <= float(decay) <= 1.0:
            raise ValueError("ExponentialMovingAverage: decay must be in [0, 1], got %r"
                             % (decay,))
        self._decay = float(decay)
        self._thres_steps = thres_steps
        self._name = name or 'ema'
        main = default_main_program()
        self._params = [p for p in main.global_block().all_parameters()
                        if getattr(p, 'trainable', True) and
                        getattr(p, 'do_model_average', True) is not False]
        self._main = main
        self._ema = {}
        self._decay_pow = None
        self.apply_program = Program()
        self.restore_program = Program()

    # ---- building -----------------------------------------------------------------
    def _persistable(self, name, shape, dtype, value):
        """A persistable variable of the main program, set to ``value`` by the startup one."""
        from ..nn import initializer as I
        from ..nn.static_params import append_initializer
        gb = self._main.global_block()
        var = gb.create_var(name, shape, dtype, persistable=True, stop_gradient=True)
        append_initializer(default_startup_program(), name, shape, dtype, False,
                           I.Constant(value))
        return var

    def _decay_value(self):
        from ..ops.creation import full_like
        from ..ops.math import minimum
        if self._thres_steps is None:
            return self._decay
        step = self._thres_steps.astype('float32')
        ratio = (step + 1.0) / (step + 10.0)
        return minimum(ratio, full_like(ratio, self._decay))

    def update(self):
        """Append the average updates to the main program (call once, after minimize)."""
        gb = self._main.global_block()
        with program_guard(self._main), static_mode_guard(True):
            decay = self._decay_value()
            if self._decay_pow is None:
                self._decay_pow = self._persistable(self._name + '.decay_pow', [1], 'float32',
                                                    1.0)
            _write(gb, self._decay_pow * decay, self._decay_pow)
            for p in self._params:
                ema = self._ema.get(p.name)
                if ema is None:
                    ema = self._ema[p.name] = self._persistable(
                        '%s.%s' % (p.name, self._name), p.shape, p.dtype, 0.0)
                _write(gb, ema * decay + p * (1.0 - decay), ema)
        self._build_swap_programs()

    def _build_swap_programs(self):
        """apply: keep each parameter in a backup and load the corrected average;
        restore: put the backups back."""
        self.apply_program, self.restore_program = Program(), Program()
        for program, load in ((self.apply_program, True), (self.restore_program, False)):
            gb = program.global_block()
            with program_guard(program), static_mode_guard(True):
                pow_ = gb.create_var(self._decay_pow.name, [1], 'float32', persistable=True)
                for p in self._params:
                    param = gb.create_var(p.name, p.shape, p.dtype, persistable=True)
                    backup = gb.create_var(p.name + '.ema_backup', p.shape, p.dtype,
                                           persistable=True)
                    if load:
                        ema = gb.create_var(self._ema[p.name].name, p.shape, p.dtype,
                                            persistable=True)
                        _write(gb, param * 1.0, backup)
                        _write(gb, ema / (1.0 - pow_), param)
                    else:
                        _write(gb, backup * 1.0, param)

    # ---- running ---------------------------------------------------------------------
    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Use the averaged parameters inside the ``with`` block."""
        if self._decay_pow is None:
            raise RuntimeError("ExponentialMovingAverage.apply: call update() while building "
                               "the program first")
        executor.run(self.apply_program)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Put back the parameters ``apply`` replaced."""
        executor.run(self.restore_program)


def _write(block, value, target):
    """Make the op computing ``value`` write the persistable ``target``."""
    block._rename_output(value, target)

