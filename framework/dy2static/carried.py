"""Python values that travel through tensor-dependent ifs and loops.

A converted ``if``/``while``/``for`` hands its variables to generated
functions and takes them back. When the condition is a tensor, the values
become the inputs and outputs of a ``cond``/``while`` op:

* tensors and Python numbers travel as Variables (numbers become tensors);
* a list of tensors (or numbers) of one shape and dtype, or an empty list,
  travels in a loop as a :class:`TensorArray`: its items stacked in one
  tensor, so it can grow, shrink and be indexed by a tensor in the loop;
* other lists, tuples and dicts travel item by item (their length and keys
  must not change);
* any other Python object (None, a string, a Layer...) must come back as it
  went in.

A loop describes each variable by a *spec* (see :func:`spec_of`) and carries
the spec's leaves; a branch merges the two branches' values by structure
(see :func:`merge_branches`).
"""
import numpy as np

from ..ops.modes import is_eager_tensor, is_static_var
from ..graph.program import constant

RETURN_VALUE_PREFIX = '__jst_ret_val'
NUMBERS = (bool, int, float, np.generic)


class Undefined:
    """A local that has not been assigned on the path taken so far."""
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def _fail(self, *args, **kwargs):
        raise NameError("local variable '%s' is used before it is assigned (in the converted "
                        "code it is only assigned on some branches of a tensor-dependent if, "
                        "or inside a loop body)" % self.name)

    def __getattr__(self, attr):
        if attr.startswith('_'):      # hasattr() probes (numpy's, ours) just see no attribute
            raise AttributeError(attr)
        self._fail()

    __call__ = __bool__ = __len__ = __iter__ = __getitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __lt__ = __le__ = __gt__ = __ge__ = _fail

    def __repr__(self):
        return '<undefined %s>' % self.name


def truth(pred):
    """Python truth of an eager value (Tensor or Python object)."""
    if is_eager_tensor(pred):
        return bool(pred)
    return pred


def is_leaf(v):
    """A value that travels as one Variable."""
    return is_static_var(v) or is_eager_tensor(v) or isinstance(v, NUMBERS + (np.ndarray,))


def as_variable(value):
    """``value`` (Variable, eager tensor, number, array) as a Variable of the
    current block; Python floats become float32."""
    if is_static_var(value):
        return value
    if is_eager_tensor(value):                      # an eager tensor used in the program
        from ..graph.program import capture_tensor
        return capture_tensor(value)
    arr = np.asarray(value)
    if isinstance(value, float):
        arr = arr.astype(np.float32)
    return constant(arr)


def bool_var(v):
    if is_static_var(v):
        if v.dtype != np.bool_:
            from ..ops.manipulation import cast
            return cast(v, 'bool')
        return v
    return constant(np.asarray(bool(truth(v))))


def py_equal(a, b):
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False


def is_attribute(name):
    """True for the label of a carried attribute (``foo.c``)."""
    return '.' in name and '[' not in name


def describe(v):
    if is_static_var(v) or is_eager_tensor(v):
        return 'a tensor'
    if isinstance(v, TensorArray):
        return 'a list of tensors'
    if v is None:
        return 'None'
    if isinstance(v, (list, tuple, dict)):
        return 'a %s of %d items' % (type(v).__name__, len(v))
    return 'a %s (%r)' % (type(v).__name__, v)


class building_in:
    """``with building_in(block):`` appends ops to ``block``."""

    def __init__(self, block):
        self.block = block

    def __enter__(self):
        program = self.block.program
        self.prev = program.current_block_idx
        program.current_block_idx = self.block.idx

    def __exit__(self, *exc):
        self.block.program.current_block_idx = self.prev


def placeholder_like(var):
    """Zeros standing for a value that a loop defines before reading it (a
    variable first assigned in the body): any dim unknown in ``var`` is 0 in
    the value and -1 in the Variable's shape."""
    from ..ops.creation import zeros
    z = zeros([max(d, 0) for d in var.shape], str(var.dtype))
    if tuple(z.shape) != tuple(var.shape):
        z.relax_shape(var.shape)
    return z


# ---- tensor arrays ---------------------------------------------------------------

class TensorArray:
    """A Python list of tensors whose length depends on tensors: its items
    stacked along a new first axis in one tensor ``var`` (None while it has no
    items and their shape is unknown)."""

    def __init__(self, var=None):
        self.var = var

    @classmethod
    def of(cls, value):
        """``value`` (a TensorArray or a list of same-shaped tensors/numbers)."""
        if isinstance(value, TensorArray):
            return value
        if not value:
            return cls(None)
        from ..ops.manipulation import stack
        return cls(stack([as_variable(v) for v in value]))

    def copy(self):
        return TensorArray(self.var)

    def append(self, x):
        from ..ops.tensor_array import array_append_op
        self.var = array_append_op(self.var, as_variable(x))

    def extend(self, items):
        if isinstance(items, TensorArray) or is_static_var(items) or is_eager_tensor(items):
            rows = items.var if isinstance(items, TensorArray) else as_variable(items)
            if rows is not None:
                from ..ops.manipulation import concat
                self.var = rows if self.var is None else concat([self.var, rows])
            return
        for x in items:
            self.append(x)

    def insert(self, index, x):
        from ..ops.manipulation import concat, unsqueeze
        item = unsqueeze(as_variable(x), 0)
        self.var = item if self.var is None else concat(
            [self.var[:index], item, self.var[index:]])

    def pop(self, index=-1):
        self._check_items('pop')
        item = self.var[index]
        if not is_static_var(index) and index == -1:
            self.var = self.var[:-1]
        else:
            from ..ops.manipulation import concat
            self.var = concat([self.var[:index], self.var[index + 1:]])
        return item

    def __getitem__(self, index):
        if self.var is None:
            # only seen while the loop is traced to find the items' shape
            return Undefined('an item of an empty list')
        return self.var[index]

    def __setitem__(self, index, value):
        self._check_items('item assignment')
        from ..ops.subscript import _parse_index, _setitem_value, set_value_op
        from ..ops.registry import OpError
        items, tensors = _parse_index(index)
        value = _setitem_value(self.var, value, items, tensors)
        try:
            self.var = set_value_op(self.var, value, tensors, items)
        except OpError as e:
            raise ValueError(
                "item assignment on a list of tensors in converted code: its items are kept "
                "stacked in one tensor of shape %s (items of shape %s), so every item must "
                "keep that shape (%s)" % (list(self.var.shape), list(self.var.shape[1:]), e)
            ) from None

    def _check_items(self, what):
        if self.var is None:
            raise IndexError("%s on an empty list (a list of tensors inside a "
                             "tensor-dependent loop)" % what)

    def length(self):
        """The number of items: a Python int when known, else a tensor."""
        if self.var is None:
            return 0
        if self.var.shape[0] >= 0:
            return self.var.shape[0]
        from ..ops.manipulation import shape
        return shape(self.var)[0]

    def __len__(self):
        n = self.length()
        if is_static_var(n):
            raise TypeError("len() of a list built inside a tensor-dependent loop is a "
                            "tensor; it is available through len() in converted code")
        return n

    def __iter__(self):
        if self.var is None:
            return iter(())
        raise TypeError("a list built inside a tensor-dependent loop can only be iterated "
                        "by a for loop in converted code")

    def stack(self, axis=0):
        self._check_items('paddle.stack')
        if axis in (0, -len(self.var.shape)):
            return self.var
        from ..ops.manipulation import moveaxis
        return moveaxis(self.var, 0, axis)

    def concat(self, axis=0):
        self._check_items('paddle.concat')
        from ..ops.manipulation import reshape, moveaxis
        v = self.var if axis == 0 else moveaxis(self.var, 0, axis)
        shape = list(v.shape)
        rest = shape[axis + 2:] if axis >= 0 else shape[axis + 1 + len(shape):]
        if any(d < 0 for d in shape[1:axis + 1]) or any(d < 0 for d in rest):
            raise ValueError("concat of a tensor array needs its item shape known, got %s"
                             % shape)
        return reshape(v, shape[1:axis + 1] + [-1] + rest)

    def __repr__(self):
        return '<tensor array %r>' % (self.var,)


def _item_meta(v):
    if is_static_var(v) or is_eager_tensor(v):
        return tuple(v.shape), str(v.dtype)
    if isinstance(v, NUMBERS):
        return (), np.asarray(v).dtype.kind
    return None


def stackable(items):
    """True for a list that can be a TensorArray: empty, or tensors/numbers
    that all have one shape and dtype."""
    metas = {_item_meta(v) for v in items}
    return None not in metas and len(metas) <= 1


# ---- loop specs ------------------------------------------------------------------
# A spec says how one variable travels through a loop:
#   ('leaf', name)                 one Variable
#   ('array', name)                a TensorArray: one Variable (None while unknown)
#   ('unknown', name, value)       not defined before the loop (``value`` is an Undefined,
#                                  or None for a return value): a Variable once the body
#                                  is seen to define one, else stays ``value``
#   ('seq', name, type, [specs])   a list/tuple, item by item
#   ('dict', name, keys, [specs])  a dict, value by value
#   ('fixed', name, value)         anything else: must come back unchanged
# Its leaves are Variables, numbers, or None for a value not known yet.

def spec_of(value, name):
    if isinstance(value, Undefined) or (value is None and name.startswith(RETURN_VALUE_PREFIX)):
        return ('unknown', name, value)     # (a return value is guarded by the return flag)
    if isinstance(value, bool) and is_attribute(name):
        return ('fixed', name, value)       # a flag such as x.stop_gradient stays Python
    if is_leaf(value):
        return ('leaf', name)
    if isinstance(value, TensorArray) or (isinstance(value, list) and stackable(value)):
        return ('array', name)
    if isinstance(value, (list, tuple)):
        return ('seq', name, type(value),
                [spec_of(v, '%s[%d]' % (name, i)) for i, v in enumerate(value)])
    if isinstance(value, dict):
        return ('dict', name, list(value),
                [spec_of(value[k], '%s[%r]' % (name, k)) for k in value])
    return ('fixed', name, value)


def leaves_of(spec, value):
    kind = spec[0]
    if kind == 'leaf':
        return [value]
    if kind == 'array':
        return [TensorArray.of(value).var]
    if kind == 'unknown':
        return [None]
    if kind == 'seq':
        return [x for s, v in zip(spec[3], value) for x in leaves_of(s, v)]
    if kind == 'dict':
        return [x for s, k in zip(spec[3], spec[2]) for x in leaves_of(s, value[k])]
    return []


def _replaced(value, replace):
    """``value`` with ``replace(part)`` for each part (containers first) it
    does not give None for; containers rebuilt only where something changed."""
    new = replace(value)
    if new is not None:
        return new
    if isinstance(value, (list, tuple)):
        items = [_replaced(v, replace) for v in value]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if isinstance(value, dict):
        items = {k: _replaced(v, replace) for k, v in value.items()}
        return value if all(items[k] is value[k] for k in value) else items
    return value


def with_arrays(value):
    """``value`` with its lists that travel as TensorArrays made into them
    (once, before the loop)."""
    return _replaced(value, lambda v: TensorArray.of(v)
                     if isinstance(v, list) and stackable(v) else None)


class ArrayMeta:
    """The item type of a TensorArray in a meta tree (``meta`` of its stacked tensor)."""

    def __init__(self, meta):
        self.meta = meta


def meta_tree(value):
    """The types of ``value``: a Meta per tensor, an ArrayMeta per TensorArray,
    containers as containers, None for anything without a type (undefined...)."""
    if isinstance(value, Undefined) or value is None:
        return None
    if is_leaf(value):
        return as_variable(value).to_meta()
    if isinstance(value, TensorArray) or (isinstance(value, list) and value and stackable(value)):
        var = TensorArray.of(value).var
        return ArrayMeta(None if var is None else var.to_meta())
    if isinstance(value, (list, tuple)):
        return type(value)(meta_tree(v) for v in value)
    if isinstance(value, dict):
        return {k: meta_tree(v) for k, v in value.items()}
    return None


def fill_unknowns(spec, value, metas):
    """``value`` with the parts the loop has no value for yet (undefined
    variables, arrays without items) given placeholders of the types in
    ``metas``, the meta tree of the body's value; ``value`` itself when
    nothing is found."""
    kind = spec[0]
    if kind == 'unknown':
        filled = _placeholders(metas)
        return value if filled is None else filled
    if kind == 'array':
        if value.var is None and isinstance(metas, ArrayMeta) and metas.meta is not None:
            return TensorArray(placeholder_like(metas.meta))
        return value
    if kind == 'seq' and isinstance(metas, (list, tuple)) and len(metas) == len(value):
        items = [fill_unknowns(s, v, m) for s, v, m in zip(spec[3], value, metas)]
        return value if all(a is b for a, b in zip(items, value)) else type(value)(items)
    if kind == 'dict' and isinstance(metas, dict) and set(metas) == set(value):
        items = {k: fill_unknowns(s, value[k], metas[k]) for k, s in zip(spec[2], spec[3])}
        return value if all(items[k] is value[k] for k in value) else items
    return value


def _placeholders(metas):
    """Placeholder values of the types in ``metas`` (None if some are unknown)."""
    if isinstance(metas, ArrayMeta):
        return None if metas.meta is None else TensorArray(placeholder_like(metas.meta))
    if isinstance(metas, (list, tuple)):
        items = [_placeholders(m) for m in metas]
        return None if any(v is None for v in items) else type(metas)(items)
    if isinstance(metas, dict):
        items = {k: _placeholders(m) for k, m in metas.items()}
        return None if any(v is None for v in items.values()) else items
    return None if metas is None else placeholder_like(metas)


def leaf_names(spec):
    if spec[0] in ('seq', 'dict'):
        return [n for s in spec[3] for n in leaf_names(s)]
    return [] if spec[0] == 'fixed' else [spec[1]]


def build(spec, leaves):
    """The value of ``spec`` from an iterator over its leaves."""
    kind = spec[0]
    if kind == 'leaf':
        return next(leaves)
    if kind == 'array':
        return TensorArray(next(leaves))
    if kind == 'unknown':
        v = next(leaves)
        return spec[2] if v is None else v
    if kind == 'seq':
        items = [build(s, leaves) for s in spec[3]]
        return tuple(items) if spec[2] is tuple else items
    if kind == 'dict':
        return {k: build(s, leaves) for k, s in zip(spec[2], spec[3])}
    return spec[2]


def conform(spec, out, where):
    """The leaves of ``out``, the body's new value of a ``spec`` variable."""
    kind, name = spec[0], spec[1]
    if kind in ('leaf', 'unknown'):
        if isinstance(out, Undefined):
            return [None]
        if is_leaf(out):
            return [out]
        if kind == 'unknown':     # (a function, a list... made by the body) is not carried:
            return [None]         # it stays undefined after the loop
        raise TypeError("%s: variable '%s' is %s before a tensor-dependent loop and %s after "
                        "its body; a loop variable must stay a tensor"
                        % (where, name, 'a tensor' if kind == 'leaf' else 'undefined',
                           describe(out)))
    if kind == 'array':
        if isinstance(out, TensorArray):
            return [out.var]
        if isinstance(out, list) and stackable(out):
            return [TensorArray.of(out).var]
        raise TypeError("%s: variable '%s' is a list of tensors before a tensor-dependent loop "
                        "and %s after its body" % (where, name, describe(out)))
    if kind == 'seq':
        if not isinstance(out, (list, tuple)) or len(out) != len(spec[3]):
            raise TypeError(
                "%s: variable '%s' is %s before a tensor-dependent loop and %s after its "
                "body; a list can only change its length in such a loop when its items are "
                "tensors of one shape and dtype" % (where, name, describe(_rebuilt(spec)),
                                                     describe(out)))
        return [x for s, v in zip(spec[3], out) for x in conform(s, v, where)]
    if kind == 'dict':
        if not isinstance(out, dict) or set(out) != set(spec[2]):
            extra = sorted(map(repr, set(out) - set(spec[2]))) if isinstance(out, dict) else []
            raise TypeError(
                "%s: dict '%s' %s inside a tensor-dependent loop; the keys of a dict must "
                "not change in such a loop (give every key a value before the loop)"
                % (where, name, 'gets the new key(s) %s' % ', '.join(extra) if extra
                   else 'becomes %s' % describe(out)))
        return [x for s, k in zip(spec[3], spec[2]) for x in conform(s, out[k], where)]
    if out is spec[2] or py_equal(out, spec[2]):
        return []
    raise TypeError("%s: variable '%s' is changed inside a tensor-dependent loop but is %s, "
                    "not a tensor; only tensors, numbers and lists/dicts of them can change "
                    "in such a loop" % (where, name, describe(spec[2])))


def _rebuilt(spec):
    """A stand-in value of a 'seq' spec for error messages."""
    return spec[2](range(len(spec[3])))


def fixed_length_lists(value):
    """``value`` with each TensorArray whose length is known when the program
    is built (a loop that assigned its items but never changed its length)
    made a Python list of its items again, as the user's code had it."""
    def as_list(v):
        if not isinstance(v, TensorArray):
            return None
        if v.var is not None and v.var.shape and v.var.shape[0] >= 0:
            return [v.var[i] for i in range(v.var.shape[0])]
        return v
    return _replaced(value, as_list)


def write_back(original, new):
    """Give a list or dict the loop's or branch's result in place, so other
    references to it see the change as they do eagerly."""
    if isinstance(original, list) and isinstance(new, list) and original is not new:
        original[:] = new
        return original
    if isinstance(original, dict) and isinstance(new, dict) and original is not new:
        original.clear()
        original.update(new)
        return original
    return new


# ---- branches --------------------------------------------------------------------

def branch_copy(value):
    """A copy of the containers in ``value`` for one branch of a tensor-dependent
    if to change (both branches are traced, only one runs)."""
    if isinstance(value, TensorArray):
        return value.copy()
    if isinstance(value, list):
        return [branch_copy(v) for v in value]
    if isinstance(value, tuple):
        return tuple(branch_copy(v) for v in value)
    if isinstance(value, dict):
        return {k: branch_copy(v) for k, v in value.items()}
    return value


def merge_branches(name, t, f, blocks, where):
    """How ``name`` leaves a tensor-dependent if whose branches (built in
    ``blocks``) gave ``t`` and ``f``: (pairs, make). ``pairs`` are the
    (true, false) Variables the cond must output (a side may be None for a
    return value the return flag guards); ``make(outs)`` builds the merged
    value from an iterator over their cond outputs."""
    if t is f or (_plain(t) and _plain(f) and py_equal(t, f)):
        return [], lambda outs: t
    if name.startswith(RETURN_VALUE_PREFIX) and (t is None) != (f is None):
        _check_return_set_later(name, t, f, where)
    if isinstance(t, Undefined) or isinstance(f, Undefined) or (
            name.startswith(RETURN_VALUE_PREFIX) and (t is None or f is None)):
        return _merge_one_sided(name, t, f, blocks, where)
    if isinstance(t, bool) and isinstance(f, bool) and is_attribute(name):
        raise TypeError("%s: attribute '%s' is set to %s in one branch of a tensor-dependent "
                        "if and %s in the other; a Python flag cannot depend on a tensor"
                        % (where, name, t, f))
    if is_leaf(t) and is_leaf(f):
        return [(_leaf_in(blocks[0], t), _leaf_in(blocks[1], f))], lambda outs: next(outs)
    if _array_like(t) and _array_like(f) and (
            isinstance(t, TensorArray) or isinstance(f, TensorArray) or len(t) != len(f)):
        return _merge_arrays(t, f, blocks)
    if isinstance(t, (list, tuple)) and type(t) is type(f) and len(t) == len(f):
        parts = [merge_branches('%s[%d]' % (name, i), a, b, blocks, where)
                 for i, (a, b) in enumerate(zip(t, f))]
        return _merge_items(parts, lambda items: type(t)(items))
    if isinstance(t, dict) and isinstance(f, dict) and set(t) == set(f):
        keys = list(t)
        parts = [merge_branches('%s[%r]' % (name, k), t[k], f[k], blocks, where) for k in keys]
        return _merge_items(parts, lambda items: dict(zip(keys, items)))
    if isinstance(t, dict) and isinstance(f, dict):
        only = sorted(map(repr, set(t) ^ set(f)))
        raise TypeError("%s: dict '%s' has the key(s) %s in only one branch of a "
                        "tensor-dependent if; give every key a value before the if"
                        % (where, name, ', '.join(only)))
    raise TypeError("%s: variable '%s' is %s in the if branch and %s in the else branch "
                    "of a tensor-dependent if; both branches must give tensors (or the "
                    "same Python value)" % (where, name, describe(t), describe(f)))


def merge_or_undefined(name, t, f, blocks, where):
    """merge_branches, except that a variable the branches cannot merge
    (another kind, rank or dtype: a temporary of one loop iteration) is
    undefined after the if instead of an error."""
    try:
        pairs, make = merge_branches(name, t, f, blocks, where)
    except TypeError:
        return [], lambda outs: Undefined(name)
    for a, b in pairs:
        if a is not None and b is not None and (len(a.shape) != len(b.shape)
                                                or a.dtype != b.dtype):
            return [], lambda outs: Undefined(name)
    return pairs, make


def _plain(v):
    """A Python value compared by ``==`` (not a tensor, not a container of them)."""
    return not (is_static_var(v) or is_eager_tensor(v)
                or isinstance(v, (list, tuple, dict, TensorArray)))


def _array_like(v):
    return isinstance(v, TensorArray) or (isinstance(v, list) and stackable(v))


def _leaf_in(block, value):
    """``value`` as a Variable of ``block`` (None stays None)."""
    if value is None or is_static_var(value):
        return value
    with building_in(block):
        return as_variable(value)


def _check_return_set_later(name, t, f, where):
    """A return value None on one side of a tensor-dependent if is a value
    still to come when every path of the function ends in a return; otherwise
    that path returns None where the other returns a value, which one static
    output cannot hold (Paddle refuses it too)."""
    from .transformers.returns import RET_VAL_ALWAYS_SET
    if name == RET_VAL_ALWAYS_SET or not is_leaf(f if t is None else t):
        return
    raise TypeError(
        "%s: Your if/else have different return type: the function returns a tensor when "
        "the tensor-dependent condition is %s and None (it ends without a return) when it is "
        "%s; return a value on every path" % (where, t is not None, t is None))


def _merge_one_sided(name, t, f, blocks, where):
    """A variable a tensor-dependent if defines in one branch only (or a return
    value set in one branch only): tensors there give cond outputs, zeros on
    the other path (where eager code could not read them); anything else
    leaves it undefined after the if."""
    side = 0 if f is None or isinstance(f, Undefined) else 1
    defined = (t, f)[side]
    if defined is None or isinstance(defined, Undefined):
        return [], lambda outs: Undefined(name)
    with building_in(blocks[side]):
        metas = meta_tree(defined)
    with building_in(blocks[1 - side]):
        other = _placeholders(metas)
    if other is None:
        return [], lambda outs: Undefined(name)
    return merge_branches(name, *((defined, other) if side == 0 else (other, defined)),
                          blocks, where)


def _merge_arrays(t, f, blocks):
    """Two lists of one item type whose lengths may differ: a TensorArray."""
    with building_in(blocks[0]):
        tv = TensorArray.of(t).var
    with building_in(blocks[1]):
        fv = TensorArray.of(f).var
    if tv is None and fv is None:
        return [], lambda outs: TensorArray(None)
    if tv is None or fv is None:      # empty on one side: zero items of the other's shape
        ref = tv if tv is not None else fv
        with building_in(blocks[0] if tv is None else blocks[1]):
            empty = placeholder_like(ref)
        tv, fv = (empty, fv) if tv is None else (tv, empty)
    return [(tv, fv)], lambda outs: TensorArray(next(outs))


def _merge_items(parts, make_container):
    pairs = [p for ps, _ in parts for p in ps]
    return pairs, lambda outs: make_container([make(outs) for _, make in parts])
