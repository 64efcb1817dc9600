"""Shape-like arguments (``shape``, ``repeat_times``, slice bounds) that may hold
tensors.

Eagerly every entry has a value. While a program is built an entry may be a
Variable whose value exists only at run time (``paddle.shape(x)[0]``, or a
whole shape tensor): such an op then gets the entries twice, as an attribute
of ints with -1 where the value is not known yet (for shape inference) and as
a 1-D int64 tensor input holding every entry (for the kernel).
"""
import numpy as np

from . import lib
from .grad_utils import is_value
from .modes import is_static_var


def _known(v):
    """The int value of one entry, or None when it is known only at run time."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError("got a bool %r" % (v,))
    if isinstance(v, (int, np.integer)):
        return int(v)
    if is_value(v):
        if np.dtype(v.dtype).kind not in 'iu':
            raise TypeError("got a tensor of dtype %s" % v.dtype)
        # a static Variable's build-time value (None: known at run time only)
        value = v._value if is_static_var(v) else np.asarray(v.data)
        if value is None:
            if int(np.prod([d for d in v.shape if d >= 0] or [1])) != 1 or -1 in v.shape:
                raise TypeError("got a tensor of shape %s; each entry must hold one integer"
                                % list(v.shape))
            return None
        if value.size != 1:
            raise TypeError("got a tensor of shape %s; each entry must hold one integer"
                            % list(value.shape))
        return int(value.reshape(()))
    raise TypeError("got %r (%s)" % (v, type(v).__name__))


def shape_arg(value, api, what='shape'):
    """``(ints, tensor)`` for a shape-like argument: ``ints`` lists the entries
    (-1 where the value is known only at run time); ``tensor`` is None when all
    entries are known, else a 1-D int64 tensor of all of them."""
    if type(value) in (list, tuple) and all_python_ints(value):   # the usual case
        return list(value), None
    whole = is_value(value) and len(value.shape) == 1
    if whole and is_static_var(value) and value._value is None:
        if np.dtype(value.dtype).kind not in 'iu':
            raise TypeError("%s: %s must hold integers, got a tensor of dtype %s"
                            % (api, what, value.dtype))
        n = value.shape[0]
        if n < 0:
            raise TypeError("%s: the length of the %s tensor must be known, got shape %s"
                            % (api, what, list(value.shape)))
        return [-1] * n, lib.cast(value, 'int64')
    if is_value(value):
        entries = list(np.asarray(value._value if is_static_var(value)
                                  else value.data).reshape(-1))
    elif isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        entries = [value]
    elif isinstance(value, (list, tuple)):
        entries = list(value)
    else:
        raise TypeError("%s: %s must be a list/tuple of ints or tensors, or an integer "
                        "tensor, got %r" % (api, what, value))
    ints = []
    for k, v in enumerate(entries):
        try:
            known = _known(v)
        except TypeError as e:
            raise TypeError("%s: %s[%d] must be an integer or a one-element integer tensor; %s"
                            % (api, what, k, e)) from None
        ints.append(-1 if known is None else known)
    if all(_is_known_entry(v) for v in entries):
        return ints, None
    return ints, _entries_tensor(entries)


def all_python_ints(values):
    """True when every entry is a plain Python int (not a bool, not a tensor)."""
    for v in values:
        if type(v) is not int:
            return False
    return True


def _is_known_entry(v):
    return not is_static_var(v) or v._value is not None


def _entries_tensor(entries):
    """The entries stacked into one 1-D int64 tensor."""
    parts = []
    for v in entries:
        if is_value(v):
            v = lib.reshape_op(v, ()) if len(v.shape) else v
            parts.append(lib.cast(v, 'int64') if np.dtype(v.dtype) != np.int64 else v)
        else:
            parts.append(lib.to_tensor(int(v), 'int64'))
    return lib.stack(parts)
