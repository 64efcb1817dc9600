"""The method and operator table shared by eager Tensors and static Variables.

Every ops module exports ``TENSOR_METHODS`` ({method name: function}); this
module merges them and adds the Python operators, so ``x.sum()``, ``x + y``
and ``x[1:]`` mean the same op in both modes.
"""
import inspect

import numpy as np

from . import registry as _registry
from .modes import in_static_mode

from . import (bessel, compare, complex, creation, cumulative, distance, elementwise, linalg_api,
               manipulation, math, nn, products, reduce, signal, stat)
from . import indexing, layout, matrices, nucleus, random_fill, sets, subscript, tensor_api

_MODULES = [math, reduce, creation, manipulation, nn, compare, complex, linalg_api, signal,
            elementwise, bessel, stat, cumulative, products, distance]
_MODULES += [layout, indexing, sets, matrices, tensor_api, random_fill, nucleus]


def register_module(module):
    """Add an ops module whose ``TENSOR_METHODS`` should become methods."""
    if module not in _MODULES:
        _MODULES.append(module)


def _reflect(op):
    return lambda self, other: op(other, self)


def _operator(op, reflected=False):
    """The method for ``s <op> o``: ``op(s, o)``, or ``op(o, s)`` reflected.
    Eager calls go straight to the op's eager function (a frame less than a
    lambda calling ``op``: operators are the hottest calls there are), unless
    ``OpDef.__call__`` has work to do: static mode, auto_cast, first use."""
    if reflected:
        def method(s, o):
            fn = op.eager_fn
            if fn is None or in_static_mode() or _registry.autocast_open:
                return op(o, s)
            return fn(o, s)
    else:
        def method(s, o):
            fn = op.eager_fn
            if fn is None or in_static_mode() or _registry.autocast_open:
                return op(s, o)
            return fn(s, o)
    return method


def operators():
    m = math
    ops = {
        '__add__': _operator(m.add_op),
        '__radd__': _operator(m.add_op, True),
        '__sub__': _operator(m.subtract_op),
        '__rsub__': _operator(m.subtract_op, True),
        '__mul__': _operator(m.multiply_op),
        '__rmul__': _operator(m.multiply_op, True),
        '__truediv__': _operator(m.divide_op),
        '__rtruediv__': _operator(m.divide_op, True),
        '__floordiv__': _operator(m.floor_divide_op),
        '__rfloordiv__': _operator(m.floor_divide_op, True),
        '__mod__': _operator(m.remainder_op),
        '__rmod__': _operator(m.remainder_op, True),
        '__pow__': _operator(m.pow_op),
        '__rpow__': _operator(m.pow_op, True),
        '__neg__': lambda s: m.neg_op(s),
        '__pos__': lambda s: s,
        '__lt__': _operator(m.less_than_op),
        '__le__': _operator(m.less_equal_op),
        '__gt__': _operator(m.greater_than_op),
        '__ge__': _operator(m.greater_equal_op),
        '__eq__': lambda s, o: m.equal_op(s, o) if o is not None else False,
        '__ne__': lambda s, o: m.not_equal_op(s, o) if o is not None else True,
    }
    for name, fn in [('__matmul__', 'matmul'), ('__abs__', 'abs')]:
        f = getattr(m, fn, None)
        if f is not None:
            ops[name] = f
    if hasattr(m, 'matmul'):
        ops['__rmatmul__'] = lambda s, o: m.matmul(o, s)
    for name, logical, bitwise in [('__and__', 'logical_and', 'bitwise_and'),
                                   ('__or__', 'logical_or', 'bitwise_or'),
                                   ('__xor__', 'logical_xor', 'bitwise_xor')]:
        ops[name] = _bool_or_bitwise(logical, bitwise)
        ops['__r' + name[2:]] = _reflect(ops[name])
    ops['__invert__'] = _bool_or_bitwise('logical_not', 'bitwise_not')
    for name, fn in [('__getitem__', 'getitem'), ('__setitem__', 'setitem')]:
        f = getattr(subscript, fn, None)
        if f is not None:
            ops[name] = f
    return ops


def _bool_or_bitwise(logical, bitwise):
    def op(*args):
        if all(np.dtype(getattr(a, 'dtype', np.bool_)) == np.bool_ or isinstance(a, bool)
               for a in args):
            return getattr(math, logical + '_op')(*args)
        f = getattr(math, bitwise, None)
        if f is None:
            raise TypeError("%s needs bool tensors" % logical)
        return f(*args)
    return op


def methods():
    table = {}
    for mod in _MODULES:
        table.update(getattr(mod, 'TENSOR_METHODS', {}))
    return table


# In-place methods (``x.add_(y)``, ``x += y``): method name -> name of the
# out-of-place method it updates from. Each mode installs them its own way
# (eager: the tensor takes over the result; static: the Variable rebinds).
INPLACE = {
    'add_': 'add', 'subtract_': 'subtract', 'multiply_': 'multiply',
    'divide_': 'divide', 'scale_': 'scale', 'clip_': 'clip', 'exp_': 'exp',
    'sqrt_': 'sqrt', 'rsqrt_': 'rsqrt', 'tanh_': 'tanh', 'reciprocal_': 'reciprocal',
    'floor_': 'floor', 'ceil_': 'ceil', 'round_': 'round', 'abs_': 'abs',
    'neg_': 'neg', 'pow_': 'pow', 'remainder_': 'remainder', 'square_': 'square',
    'sigmoid_': 'sigmoid', 'relu_': 'relu', 'log_': 'log',
    'squeeze_': 'squeeze', 'unsqueeze_': 'unsqueeze', 'flatten_': 'flatten',
    'reshape_': 'reshape', 'masked_fill_': 'masked_fill', 'cast_': 'cast',
    'uniform_': 'uniform_like', 'normal_': 'normal_like',
    '__iadd__': '__add__', '__isub__': '__sub__', '__imul__': '__mul__',
    '__itruediv__': '__truediv__', '__ipow__': '__pow__', '__imod__': '__mod__',
    '__ifloordiv__': '__floordiv__',
}
# the in-place methods that may change the shape or dtype
SHAPE_CHANGING = {'squeeze_', 'unsqueeze_', 'flatten_', 'reshape_', 'cast_', 'transpose_', 't_'}


def inplace_table():
    """{in-place method: out-of-place method}: ``INPLACE`` above plus each ops
    module's ``INPLACE_METHODS``. A module may give a function instead of a
    method name where Paddle's in-place form takes other arguments than its
    base (``cumprod_`` takes dtype positionally); the form then calls it and
    shows its signature as it is."""
    table = dict(INPLACE)
    for mod in _MODULES:
        table.update(getattr(mod, 'INPLACE_METHODS', {}))
    return table


def inplace_base(cls, base):
    """The function an in-place form of ``cls`` computes its result with."""
    return base if callable(base) else getattr(cls, base)


def _base_function(funcs, base):
    return base if callable(base) else funcs.get(base)


def _shown_signature(funcs, base):
    if callable(base):
        return inspect.signature(base)
    fn = funcs.get(base)
    return inplace_signature(fn) if callable(fn) else None


def inplace_signature(fn):
    """The signature an in-place method shows: its base function's, without
    ``out`` (the tensor itself is the output)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = [p for p in sig.parameters.values() if p.name != 'out']
    return sig.replace(parameters=params)


def install_inplace(cls, make):
    """Attach ``make(name, base)`` for each in-place method whose base exists."""
    funcs = methods()
    available = set(funcs) | set(operators())
    for name, base in inplace_table().items():
        if callable(base) or base in available:
            method = make(name, base)
            sig = _shown_signature(funcs, base)
            if sig is not None:
                method.__signature__ = sig
            setattr(cls, name, method)


def inplace_functions():
    """``paddle.squeeze_(x, ...)`` and the other module-level forms of the
    in-place methods: each calls the method on its first argument, so it
    works on eager tensors and static Variables alike, and shows the
    method's signature."""
    funcs = methods()
    out = {}
    for name, base in inplace_table().items():
        base_fn = _base_function(funcs, base)
        if not name.startswith('__') and callable(base_fn):
            out[name] = _inplace_function(name, base_fn, _shown_signature(funcs, base))
    return out


def _inplace_function(name, base_fn, sig):
    def fn(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "In-place version of ``%s``: updates and returns ``x``." % base_fn.__name__
    if sig is not None:
        fn.__signature__ = sig
    return fn


def install(cls, skip=()):
    """Attach the shared methods and operators to ``cls``."""
    for name, fn in list(methods().items()) + list(operators().items()):
        if name not in skip:
            setattr(cls, name, fn)
