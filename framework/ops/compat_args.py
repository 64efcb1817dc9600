"""The PyTorch-style argument forms Paddle 3 accepts beside its own.

Paddle 3.3.1 wraps many functions so that PyTorch spellings also work:
keyword aliases (``input=`` for ``x``, ``dim=`` for ``axis``, ``size=`` for
``shape``), shapes given as separate ints (``x.reshape(2, 6)``,
``paddle.ones(2, 3)``) and PyTorch's argument order (``index_select(x, 1,
index)``). These decorators do the same here. Each keeps the function's own
signature (``functools.wraps``), so Paddle's parameter names, order and
defaults are what ``inspect.signature`` shows.
"""
import functools

import numpy as np

from .grad_utils import is_value


def aliases(**names):
    """``@aliases(x=('input',), axis=('dim',))``: each alias keyword is
    accepted for its parameter; giving both is an error (as Paddle)."""
    lookup = {alias: name for name, spelled in names.items() for alias in spelled}

    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            for alias in lookup.keys() & kwargs.keys():
                name = lookup[alias]
                if name in kwargs:
                    raise ValueError("%s: cannot specify both '%s' and its alias '%s'"
                                     % (fn.__name__, name, alias))
                kwargs[name] = kwargs.pop(alias)
            return fn(*args, **kwargs)
        return call
    return wrap


def _is_dim(v):
    """An int or a 0-D tensor: one entry of a shape given as separate arguments."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
        return True
    return is_value(v) and len(v.shape) == 0


def dims_after_tensor(param):
    """``f(x, 2, 3)`` means ``f(x, param=[2, 3])`` (Tensor.reshape/expand/view)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if len(args) >= 2 and all(_is_dim(a) for a in args[1:]):
                kwargs[param] = list(args[1:])
                args = args[:1]
            return fn(*args, **kwargs)
        return call
    return wrap


def size_args(fn):
    """``ones(2, 3)`` means ``ones([2, 3])``; ``size=`` is ``shape=``; an int
    shape is a 1-D one (Paddle's creation and random functions)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if 'size' in kwargs:
            if 'shape' in kwargs:
                raise ValueError("%s: cannot specify both 'shape' and its alias 'size'"
                                 % fn.__name__)
            kwargs['shape'] = kwargs.pop('size')
        elif args and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
            kwargs['shape'] = [int(a) for a in args]
            args = ()
        if isinstance(kwargs.get('shape'), (int, np.integer)):
            kwargs['shape'] = [int(kwargs['shape'])]
        return fn(*args, **kwargs)
    return call


def torch_order(*torch_params):
    """``f(x, dim, a, b)`` in PyTorch's order (an int second argument) means
    ``f(x=x, <torch_params[0]>=dim, ...)`` (index_select, index_add)."""
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if len(args) >= 2 and isinstance(args[1], (int, np.integer)) \
                    and not isinstance(args[1], bool):
                head, rest = args[0], args[1:]
                if len(rest) > len(torch_params):
                    raise TypeError("%s: too many positional arguments in PyTorch's order (%s)"
                                    % (fn.__name__, ', '.join(('x',) + torch_params)))
                for name, value in zip(torch_params, rest):
                    if name in kwargs:
                        raise TypeError("%s: got multiple values for '%s'" % (fn.__name__, name))
                    kwargs[name] = value
                args = (head,)
            return fn(*args, **kwargs)
        return call
    return wrap
