"""The types of op attributes: what a value read from a file may be.

Every attribute of a registered op has a type. Where the default says it
unambiguously the type is derived from it (``False`` -> ``bool``, ``0`` ->
``int``, ``1.0`` -> ``float``, ``'mean'`` -> ``str``, ``[1, 1]`` -> ``ints``);
otherwise (a default of ``None`` or ``()``) the op declares it:
``def_op(..., attr_types={'axis': 'int|ints|None'})``.

A type is a spec string, kinds joined by ``|``:

* ``bool``, ``int``, ``float`` (an int or a float), ``str``, ``None``;
* ``ints``, ``floats``, ``strs``, ``bools``: a list of them;
* ``value``: any plain value (None, bool, number, str, nested lists of them),
  for payloads the op checks itself (a constant's elements);

or a function ``check(value, inputs)`` raising ``ValueError`` for an op-specific
structure (fused instructions, index items); ``inputs`` maps each input name
to the number of tensors the op is given, so references can be bounded.

``attr_ranges={'name': (lo, hi)}`` bounds every number of an attribute
(inclusive; None for no bound), or ``{'name': {'a', 'b'}}`` lists its allowed
values. Ints are always within int64.
"""
import math


class AttrTypeError(ValueError):
    """An attribute value that does not have its declared type or range."""

INT64_MIN, INT64_MAX = -2 ** 63, 2 ** 63 - 1

_KINDS = ('bool', 'int', 'float', 'str', 'None', 'ints', 'floats', 'strs', 'bools', 'value')
_UNDECLARED = 'value'


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v):
    return _is_int(v) or isinstance(v, float)


def _is_plain(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return True
    return isinstance(v, (list, tuple)) and all(_is_plain(x) for x in v)


_SCALAR_CHECKS = {
    'bool': lambda v: isinstance(v, bool),
    'int': _is_int,
    'float': _is_number,
    'str': lambda v: isinstance(v, str),
    'None': lambda v: v is None,
}
_LIST_OF = {'ints': 'int', 'floats': 'float', 'strs': 'str', 'bools': 'bool'}


def parse(spec):
    """The kinds of a spec string (a tuple), checked once at registration."""
    kinds = tuple(spec.split('|'))
    for k in kinds:
        if k not in _KINDS:
            raise ValueError("attribute type %r: unknown kind %r (kinds: %s)"
                             % (spec, k, ', '.join(_KINDS)))
    return kinds


def derive(default):
    """The type a default value implies, or None when it is ambiguous."""
    if isinstance(default, bool):
        return 'bool'
    if _is_int(default):
        return 'int'
    if isinstance(default, float):
        return 'float'
    if isinstance(default, str):
        return 'str'
    if isinstance(default, (list, tuple)) and default:
        if all(_is_int(x) for x in default):
            return 'ints'
        if all(_is_number(x) for x in default):
            return 'floats'
    return None


def resolve(attr_names, defaults, declared):
    """{name: kinds tuple or check function} for an op's attributes, and the
    names whose type is neither declared nor derivable (they get ``value``)."""
    unknown = set(declared) - set(attr_names)
    if unknown:
        raise ValueError("attr_types names attributes the op does not have: %s"
                         % ', '.join(sorted(unknown)))
    types, undeclared = {}, []
    for name, default in zip(attr_names, defaults):
        spec = declared.get(name)
        if spec is None:
            spec = derive(default)
            if spec is None:
                undeclared.append(name)
                spec = _UNDECLARED
        types[name] = spec if callable(spec) else parse(spec)
    return types, tuple(undeclared)


def _matches(kind, v):
    if kind in _SCALAR_CHECKS:
        return _SCALAR_CHECKS[kind](v)
    if kind in _LIST_OF:
        check = _SCALAR_CHECKS[_LIST_OF[kind]]
        return isinstance(v, (list, tuple)) and all(check(x) for x in v)
    return _is_plain(v)            # 'value'


def _numbers(v):
    if _is_number(v):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _numbers(x)


def _describe(v):
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + '...'


def check(attr_type, value, inputs, bounds=None):
    """Raise AttrTypeError unless ``value`` has ``attr_type`` (and is within ``bounds``)."""
    if callable(attr_type):
        attr_type(value, inputs)
    elif not any(_matches(k, value) for k in attr_type):
        raise AttrTypeError("expected %s, got %s" % (' or '.join(attr_type), _describe(value)))
    for x in _numbers(value):
        if _is_int(x) and not INT64_MIN <= x <= INT64_MAX:
            raise AttrTypeError("integer %d is out of the int64 range" % x)
        if isinstance(x, float) and math.isnan(x) and bounds is not None:
            raise AttrTypeError("NaN where a bounded number is expected")
    if bounds is None:
        return
    if isinstance(bounds, (set, frozenset)):
        if value not in bounds:
            raise AttrTypeError("expected one of %s, got %s"
                          % (', '.join(repr(b) for b in sorted(bounds, key=repr)),
                             _describe(value)))
        return
    lo, hi = bounds
    for x in _numbers(value):
        if (lo is not None and x < lo) or (hi is not None and x > hi):
            raise AttrTypeError("%s is out of the allowed range [%s, %s]"
                          % (x, '-inf' if lo is None else lo, 'inf' if hi is None else hi))
