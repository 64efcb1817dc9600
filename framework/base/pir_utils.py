"""``paddle.pir_utils``: Paddle's guards between its two IRs.

This framework has one static IR, so the guards only change what Paddle's IR
queries answer (``in_pir_mode``, ``use_pir_api``): True inside ``IrGuard`` /
``DygraphPirGuard``, False inside ``OldIrGuard`` / ``DygraphOldIrGuard`` and by
default. The Programs built are the same in every case.
"""
import contextlib
import functools

from .framework import _pir_guarded


@contextlib.contextmanager
def _answer_pir(value):
    token = _pir_guarded.set(value)
    try:
        yield
    finally:
        _pir_guarded.reset(token)


class IrGuard:
    """Paddle's IR queries answer as under PIR inside the guard."""
    _value = True

    def __enter__(self):
        self._cm = _answer_pir(self._value)
        self._cm.__enter__()
        return self

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


class OldIrGuard(IrGuard):
    """Paddle's IR queries answer as under the old ProgramDesc IR."""
    _value = False


DygraphPirGuard = IrGuard
DygraphOldIrGuard = OldIrGuard


def test_with_pir_api(fn):
    """Run ``fn`` once with the old IR's answers and once with PIR's."""
    @functools.wraps(fn)
    def both(*args, **kwargs):
        with OldIrGuard():
            fn(*args, **kwargs)
        with IrGuard():
            fn(*args, **kwargs)
    return both


def test_with_old_ir_only(fn):
    """Run ``fn`` with the old IR's answers."""
    @functools.wraps(fn)
    def old(*args, **kwargs):
        with OldIrGuard():
            return fn(*args, **kwargs)
    return old


test_with_dygraph_pir = test_with_pir_api

__all__ = ['IrGuard', 'OldIrGuard', 'DygraphPirGuard', 'DygraphOldIrGuard',
           'test_with_pir_api', 'test_with_old_ir_only', 'test_with_dygraph_pir']
