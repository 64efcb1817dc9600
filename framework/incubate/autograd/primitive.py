"""The "automatic differentiation on primitive operators" switch (static mode).

Paddle can lower a static program to a small set of differentiable primitive
ops, differentiate those, and turn them back into executable ops
(``prim2orig``). Here every op's gradient is already written with registered
ops, so programs are always differentiated through them and always run: the
switch records the mode (``prim_enabled``) and ``prim2orig`` has nothing to
translate. Like Paddle's, these are static-mode APIs.
"""
from ...ops.modes import in_static_mode

_state = {'enabled': False}


def _static_only(api):
    if not in_static_mode():
        raise AssertionError(
            "'%s()' is only supported in static graph mode (dynamic mode is the default); "
            "call paddle.enable_static() first" % api)


def prim_enabled():
    """Whether automatic differentiation on primitive operators is on."""
    _static_only('prim_enabled')
    return _state['enabled']


def enable_prim():
    """Turn automatic differentiation on primitive operators on."""
    _static_only('enable_prim')
    _state['enabled'] = True


def disable_prim():
    """Turn automatic differentiation on primitive operators off."""
    _static_only('disable_prim')
    _state['enabled'] = False


def prim2orig(block=None, blacklist=None):
    """Translate primitive ops back into executable ones: the ops of this
    framework's programs already are executable, so the block is unchanged."""
    _static_only('prim2orig')
    from ...graph.program import default_main_program
    current = default_main_program().current_block()
    if block is not None and block is not current:
        raise ValueError("prim2orig: block must be None or the current block of the main "
                         "program")
