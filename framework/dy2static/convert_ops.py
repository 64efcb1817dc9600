"""Run-time helpers the converted code calls (bound there as ``_jst``).

Every rewritten ``if``/``while``/``for``/``and``/``or``/``not`` calls one of
these. Each decides at run time: a static Variable condition builds a
``cond``/``while`` op; a Python value (or an eager Tensor, when the function
runs eagerly) keeps plain Python semantics, so shape checks, ``None`` checks
and flags behave exactly as in the original code.
"""
import functools
import warnings

import numpy as np

from .._nest import flatten_tree, unflatten_tree
from ..ops.modes import in_static_mode, is_static_var
from ..graph import control_flow as _cf
from ..graph.program import default_main_program
from .transformers.returns import RET_VAL_ALWAYS_SET
from .carried import (RETURN_VALUE_PREFIX, TensorArray, Undefined, bool_var, branch_copy,
                      merge_branches, truth, write_back)
# the loop helpers are part of the ``_jst`` namespace converted code calls
from .loops import Enumerate, For, Range, While, Zip, caller_line, first_dim_length  # noqa: F401


# ---- if / else ----------------------------------------------------------------

def IfElse(pred, true_fn, false_fn, args, names):
    """``names = true_fn(*args) if pred else false_fn(*args)``."""
    if not is_static_var(pred):
        return true_fn(*args) if truth(pred) else false_fn(*args)
    return _static_if(pred, true_fn, false_fn, args, names, caller_line())


def _static_if(pred, true_fn, false_fn, args, names, where, merge=merge_branches):
    """One ``cond`` op; lists and dicts the branches change are merged item by
    item (a list whose length differs between the branches becomes a
    TensorArray) and given back in place."""
    program = default_main_program()
    tb, tvals = _branch(program, true_fn, args)
    fb, fvals = _branch(program, false_fn, args)
    if merge is merge_branches:
        _warn_one_sided(names, tvals, fvals)
    plans = [merge(name, t, f, (tb, fb), where)
             for name, t, f in zip(names, tvals, fvals)]
    pairs = [p for ps, _ in plans for p in ps]
    outs = iter(_cf.make_cond_op(program, pred, tb, fb, [t for t, _ in pairs],
                                 [f for _, f in pairs], 'if at %s' % where))
    return tuple(write_back(a, make(outs)) for a, (_, make) in zip(args, plans))


def _warn_one_sided(names, tvals, fvals):
    """Paddle's warnings for a user variable one branch leaves unbound (it is
    usable after the if only where that branch ran) and for a return value one
    branch leaves None."""
    for name, t, f in zip(names, tvals, fvals):
        if name.startswith(RETURN_VALUE_PREFIX):
            if (t is None) != (f is None) and name != RET_VAL_ALWAYS_SET:
                warnings.warn("In cond : the return value is set differently in ifelse branches: "
                              "None in the %s branch only. Set var to 'None' in ifelse block "
                              "might lead to error." % ('false' if f is None else 'true'))
        elif not name.startswith('_') and (isinstance(t, Undefined) != isinstance(f, Undefined)):
            warnings.warn("Return results has maybe unbound local variable `%s`, please ensure "
                          "do not use `%s`after cond." % (name, name))


def _branch(program, fn, args):
    """A new block holding ``fn`` run on its own copies of ``args``'s containers.
    Variables updated in place in the branch (``x[i] = v``) get their old values
    back afterwards; the branch's results hold the new ones."""
    with program.sub_block() as built:
        values = list(fn(*map(branch_copy, args)))
        built.outputs, tree = flatten_tree(values)
    return built.block, unflatten_tree(tree, built.outputs)


def IfExp(pred, true_fn, false_fn):
    """``a if c else b``."""
    if not is_static_var(pred):
        return true_fn() if truth(pred) else false_fn()
    res = _static_if(pred, lambda _: (true_fn(),), lambda _: (false_fn(),), (None,), ('<ternary>',),
                     caller_line())
    return res[0]


# ---- logical operators ----------------------------------------------------------
# ``a or b or c`` is ``a or (b or c)``: Python values keep short-circuiting
# among themselves even after a tensor (``x > 1 or a is None or a > 1``).

def And(*fns):
    """``a and b and ...`` with Python short-circuiting for Python values."""
    value = fns[0]()
    if len(fns) == 1:
        return value
    if is_static_var(value):
        from ..ops.math import logical_and
        return logical_and(bool_var(value), bool_var(And(*fns[1:])))
    if not truth(value):
        return value
    return And(*fns[1:])


def Or(*fns):
    value = fns[0]()
    if len(fns) == 1:
        return value
    if is_static_var(value):
        from ..ops.math import logical_or
        return logical_or(bool_var(value), bool_var(Or(*fns[1:])))
    if truth(value):
        return value
    return Or(*fns[1:])


def Not(value):
    if is_static_var(value):
        from ..ops.math import logical_not
        return logical_not(bool_var(value))
    return not truth(value)


# ---- builtins ---------------------------------------------------------------------

def Shape(x):
    """``x.shape`` in converted code. A Variable's dims that are known only at
    run time (-1) come as 0-d int tensors from ``paddle.shape(x)``, so a
    ``reshape``/``full``/... built from them follows the data (Paddle's rule)."""
    if isinstance(x, TensorArray):
        x = x.var
    if not is_static_var(x):
        return x.shape
    dims = x.shape
    if all(d >= 0 for d in dims):
        return dims
    from ..ops.manipulation import shape as shape_of
    runtime = shape_of(x)
    return [d if d >= 0 else runtime[i] for i, d in enumerate(dims)]


def Len(x):
    if isinstance(x, TensorArray):
        return x.length()
    if is_static_var(x):
        return first_dim_length(x)
    return len(x)


def Print(*args, sep=' ', end='\n', file=None, flush=False):
    """``print`` in converted code. While a program is built, the line is
    printed each time the program runs, as the eager call would print it each
    time (tensors shown as eager ``print`` shows them; a print in a branch or
    loop body prints when that runs); else an ordinary print."""
    if in_static_mode():
        from ..ops.control import python_print
        python_print(args, sep, end, file, flush, _print_header)
        return
    print(*args, sep=sep, end=end, file=file, flush=flush)


def _print_header(t):
    """What eager printing shows before a tensor's text (a parameter's line)."""
    return '' if is_static_var(t) else getattr(t, 'print_header', '')


def Assert(cond, message=None):
    if is_static_var(cond):
        from ..ops.control import assert_op
        assert_op(bool_var(cond), '' if message is None else str(message))
        return
    if not truth(cond):
        raise AssertionError(message) if message is not None else AssertionError()


def _cast_builtin(kind, dtype):
    """``int(x)`` / ``float(x)`` / ``bool(x)`` in converted code: the Python value
    when ``x``'s value is known while the program is built (as eagerly), else a
    cast to ``dtype`` that happens when the program runs (Paddle's rule)."""
    def cast(x=0, *rest):
        if is_static_var(x):
            value = x.known_value
            if value is not None and value.size == 1:
                return kind(value.reshape(()))
            from ..ops.manipulation import cast as _cast
            return _cast(x, dtype)
        return kind(x, *rest)
    cast.__name__ = 'convert_' + kind.__name__
    return cast


Int = _cast_builtin(int, 'int32')
Float = _cast_builtin(float, 'float32')
Bool = _cast_builtin(bool, 'bool')


# ---- calls ---------------------------------------------------------------------

def _var_numpy(x):
    """``x.numpy()`` in converted code: the value when it is known while the
    program is built, else ``x`` itself (Paddle's dy2static rule: numpy()
    of a tensor whose value exists only at run time stays that tensor)."""
    value = x.known_value
    return np.array(value) if value is not None else x


def _var_item(x, *index):
    """``x.item()``: the Python number when known now, else the one-element
    tensor (``x.item(i)``: element i of the flattened tensor), as Paddle does."""
    value = x.known_value
    if value is not None:
        return value.item(*index)
    if not index:
        if x.size not in (1, -1):
            raise ValueError("item() of Variable '%s' with shape %s: only one-element "
                             "tensors convert to a scalar" % (x.name, x.shape))
        return x
    from ..ops.manipulation import flatten
    return flatten(x)[int(index[0]) if len(index) == 1 else _flat_offset(x, index)]


def _flat_offset(x, index):
    shape = x.shape
    if len(index) != len(shape) or any(d < 0 for d in shape):
        raise ValueError("item%s of Variable '%s' with shape %s: give one index per dim of a "
                         "tensor with known shape" % (tuple(index), x.name, shape))
    return int(np.ravel_multi_index(tuple(int(i) for i in index), shape))


def Call(fn):
    """The function to call in converted code for ``fn``: its replacement if
    it has one (``_replacements``), else user functions, methods and layers
    converted recursively; framework, numpy, builtins and classes as they are."""
    func = getattr(fn, '__func__', fn)      # a bound method: by its function
    try:
        replacement = _replacements().get(func)
    except TypeError:                       # an unhashable callable object
        replacement = None
    if replacement is not None:
        return replacement if func is fn else functools.partial(replacement, fn.__self__)
    from .translator import convert_callable
    return convert_callable(fn)


def Iter(fn):
    """``Call`` for the iterable of a ``for`` statement: ``range``, ``enumerate``
    and ``zip`` become helpers that accept tensors (a loop over them becomes a
    while op)."""
    if fn is range:
        return Range
    if fn is enumerate:
        return Enumerate
    if fn is zip:
        return Zip
    return Call(fn)


# stack/concat functions that also take a tensor array (converted code gives
# them one): the framework's, and those a library above installs
# (fluid.layers' own, with ``array_aware``)
_ARRAY_AWARE = []


def array_aware(*fns):
    """Let converted code call the stack/concat functions ``fns`` on tensor arrays."""
    _ARRAY_AWARE.extend(fns)
    _replacements.cache_clear()


@functools.lru_cache(maxsize=None)
def _replacements():
    """{callable: what converted code calls instead}, keyed by the callable
    itself, so an alias is replaced too and a user function of the same name
    is not (a bound method is looked up by its function and gets its object
    as the first argument)."""
    from ..ops import manipulation
    from ..graph.program import Variable
    replaced = {print: Print, len: Len, int: Int, float: Float, bool: Bool,
                # Variable methods whose meaning in converted code differs from static mode
                Variable.numpy: _var_numpy, Variable.item: _var_item}
    for fn in [manipulation.stack, manipulation.concat] + _ARRAY_AWARE:
        replaced[fn] = _array_aware(fn)
    return replaced


def _array_aware(fn):
    """``paddle.stack(tensor_array)`` / ``paddle.concat(tensor_array)``."""
    def call(x, axis=0, *args, **kwargs):
        if isinstance(x, TensorArray):
            return x.stack(axis) if fn.__name__ == 'stack' else x.concat(axis)
        return fn(x, axis, *args, **kwargs)
    return call


def Undef(name):
    return Undefined(name)


def GetAttr(obj, attr):
    """``obj.attr`` carried by a converted if/loop (undefined if it has none)."""
    return getattr(obj, attr, Undefined('%s attribute %s' % (type(obj).__name__, attr)))


def SetAttr(obj, attr, value):
    """``obj.attr = value`` for a converted if/loop; an undefined value removes it."""
    if isinstance(value, Undefined):
        if attr in getattr(obj, '__dict__', ()):
            delattr(obj, attr)
        return
    if getattr(obj, attr, None) is not value:
        setattr(obj, attr, value)
