"""``FLAGS_check_nan_inf`` in eager mode.

With the flag on, every eager op (and every gradient the backward engine
computes) is checked: the first op that produces NaN or Inf raises, naming the
op, its input shapes and the user's line. With it off nothing is checked and
nothing is paid: the flag swaps the ops' specialised eager functions for
checking wrappers and back, instead of being tested on every call.
"""
import numpy as np

from .. import flags
from .._location import user_location
from ..ops import registry


def _array(value):
    """The numpy data of a Tensor (or the array itself); None for other values."""
    if isinstance(value, np.ndarray):
        return value
    data = getattr(value, 'data', None)
    return data if isinstance(data, np.ndarray) else None


def _bad(value):
    arr = _array(value)
    return arr is not None and arr.dtype.kind in 'fc' and not np.isfinite(arr).all()


def _shapes(args):
    return ', '.join(str(list(_array(a).shape)) for a in args if _array(a) is not None)


def _raise(what, op_name, inputs, where):
    raise FloatingPointError(
        "%s produced NaN or Inf (FLAGS_check_nan_inf is on)%s\n  op: %s, input shapes: [%s]"
        % (what, (' at %s' % where) if where else '', op_name, _shapes(inputs)))


def checking(op, fn):
    """``fn`` (op's eager function) raising when an output holds NaN/Inf."""
    n_in = op.n_in

    def checked(*args):
        out = fn(*args)
        for o in (out if isinstance(out, (tuple, list)) else (out,)):
            if _bad(o):
                _raise("op '%s'" % op.name, op.name, args[:n_in], user_location())
        return out
    return checked


def check_grads(node, grads):
    """Called by the backward engine with the input gradients of ``node``."""
    for g in grads:
        for a in (g if isinstance(g, list) else (g,)):
            if a is not None and _bad(a):
                _raise("the gradient of op '%s'" % node.op.name, node.op.name,
                       node.ins, '')


def _switch(on):
    """Re-specialise every op's eager function for the new flag value."""
    for op in registry.all_ops().values():
        op.eager_fn = None
    from . import autograd
    autograd.grad_checker = check_grads if on else None


flags.on_change('FLAGS_check_nan_inf', _switch)
