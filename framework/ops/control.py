"""Side-effect ops that control flow in converted code needs: print and assert.

Both pass their input through, so they can sit in a data path; the executor
never prunes them (they are in ``SIDE_EFFECT_OPS``).
"""
import numpy as np

from . import meta
from .registry import OpError, add_test_case, def_op


@def_op('print', meta.unchanged, save_inputs=False)
def print_op(x, message='', summarize=20, print_tensor_name=True, name=''):
    """Print ``x`` when it is computed (at run time in static programs)."""
    arr = np.asarray(x)
    body = np.array2string(arr.reshape(-1)[:summarize] if summarize >= 0 else arr.reshape(-1),
                           separator=', ')
    label = ('%s ' % name) if print_tensor_name and name else ''
    print('%s%sTensor(shape=%s, dtype=%s, values=%s)' % (message and message + ' ', label,
                                                        list(arr.shape), arr.dtype, body))
    return x


@print_op.def_grad
def _print_grad(g, x, out, message, summarize, print_tensor_name, name):
    return g


@print_op.def_fast_grad
def _print_fast(g, x, out, message, summarize, print_tensor_name, name):
    return g


@def_op('assert', meta.logical_unary, differentiable=False)
def assert_op(cond, message=''):
    """Raise at run time when ``cond`` is not all true."""
    arr = np.asarray(cond)
    if arr.size == 0 or not bool(np.all(arr)):
        raise AssertionError(message or 'assertion failed: condition is %s' % arr.tolist())
    return arr.astype(bool)


__all__ = []

add_test_case(print_op, np.arange(3.0), 'checking', 20, True, 'x', ref=lambda x, *a: x)
add_test_case(assert_op, np.array([True, True]), '', ref=lambda c, m: c)
