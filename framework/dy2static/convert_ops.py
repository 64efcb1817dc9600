"""Run-time helpers the converted code calls (bound there as ``_jst``).

Every rewritten ``if``/``while``/``for``/``and``/``or``/``not`` calls one of
these. Each decides at run time: a static Variable condition builds a
``cond``/``while`` op; a Python value (or an eager Tensor, when the function
runs eagerly) keeps plain Python semantics, so shape checks, ``None`` checks
and flags behave exactly as in the original code.
"""
import sys

import numpy as np

from ..static import control_flow as _cf
from ..static.program import Variable, constant, default_main_program

RETURN_VALUE_PREFIX = '__jst_ret_val'


class Undefined:
    """A local that has not been assigned on the path taken so far."""
    __slots__ = ('name',)

    def __init__(self, name):
        self.name = name

    def _fail(self, *args, **kwargs):
        raise NameError("local variable '%s' is used before it is assigned (in the converted "
                        "code it is only assigned on some branches of a tensor-dependent if, "
                        "or inside a loop body)" % self.name)

    __getattr__ = _fail
    __call__ = __bool__ = __len__ = __iter__ = __getitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _fail
    __truediv__ = __rtruediv__ = __lt__ = __le__ = __gt__ = __ge__ = _fail

    def __repr__(self):
        return '<undefined %s>' % self.name


def is_var(x):
    return isinstance(x, Variable)


def _where():
    """'file:line' of the user's code that called the helper."""
    f = sys._getframe(2)
    return '%s:%d' % (f.f_code.co_filename, f.f_lineno)


def _truth(pred):
    """Python truth of an eager value (Tensor or Python object)."""
    if hasattr(pred, '_grad_node'):           # eager Tensor
        return bool(pred)
    return pred


# ---- if / else ----------------------------------------------------------------

def IfElse(pred, true_fn, false_fn, args, names):
    """``names = true_fn(*args) if pred else false_fn(*args)``."""
    if not is_var(pred):
        return true_fn(*args) if _truth(pred) else false_fn(*args)
    return _static_if(pred, true_fn, false_fn, args, names, _where())


def _static_if(pred, true_fn, false_fn, args, names, where):
    program = default_main_program()
    tb, tleaves, ttree = _cf._build_block(program, lambda: list(true_fn(*args)), (),
                                          'if branch', convert=False)
    fb, fleaves, ftree = _cf._build_block(program, lambda: list(false_fn(*args)), (),
                                          'else branch', convert=False)
    tsel, fsel, plan = [], [], []
    for name, (t, tl, tt), (f, fl, ft) in zip(names, _by_name(tleaves, ttree),
                                              _by_name(fleaves, ftree)):
        kind = _merge_kind(name, t, f, tl, fl, tt, ft, where)
        if kind == 'var':
            # a value may be a tuple or list of tensors (a returned tuple): one
            # cond output per leaf; None on one side only for return values
            tl = tl if t is not None else [None] * len(fl)
            fl = fl if f is not None else [None] * len(tl)
            tsel.extend(_in_block(program, tb, v) for v in tl)
            fsel.extend(_in_block(program, fb, v) for v in fl)
        plan.append((kind, t, tt if t is not None else ft, len(tl)))
    outs = iter(_cf.make_cond_op(program, pred, tb, fb, tsel, fsel, 'if at %s' % where))
    result = []
    for name, (kind, t, tree, n) in zip(names, plan):
        if kind == 'var':
            result.append(_cf.unflatten(tree, [next(outs) for _ in range(n)]))
        elif kind == 'same':
            result.append(t)
        else:
            result.append(Undefined(name))
    return tuple(result)


def _by_name(leaves, tree):
    """(value, leaves, treedef) for each variable of a branch's flattened values."""
    out, k = [], 0
    for sub in tree[1]:
        n = _n_leaves(sub)
        mine = leaves[k:k + n]
        out.append((_cf.unflatten(sub, mine), mine, sub))
        k += n
    return out


def _n_leaves(tree):
    kind, body = tree
    if kind == 'leaf':
        return 1
    return sum(_n_leaves(v) for v in ([v for _, v in body] if kind == 'dict' else body))


def _merge_kind(name, t, f, tl, fl, ttree, ftree, where):
    """How a variable leaves a tensor-dependent if: as cond outputs ('var'),
    unchanged ('same') or undefined afterwards ('undefined')."""
    if t is f or (not is_var(t) and not is_var(f) and _py_equal(t, f)):
        return 'same'
    if isinstance(t, Undefined) or isinstance(f, Undefined):
        return 'undefined'
    if name.startswith(RETURN_VALUE_PREFIX) and (t is None or f is None):
        return 'var'        # the return flag guards it: undefined on the other path is fine
    if ttree == ftree and all((a is None and b is None) or (_tensorable(a) and _tensorable(b))
                              for a, b in zip(tl, fl)):
        return 'var'        # tensors, or tuples/lists of them with one structure
    raise TypeError("%s: variable '%s' is %s in the if branch and %s in the else branch "
                    "of a tensor-dependent if; both branches must give tensors (or the "
                    "same Python value)" % (where, name, _kind(t), _kind(f)))


def _py_equal(a, b):
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return False


def _tensorable(v):
    return is_var(v) or isinstance(v, (bool, int, float, np.ndarray, np.generic)) \
        or hasattr(v, '_grad_node')


def _kind(v):
    if is_var(v):
        return 'a tensor'
    if v is None:
        return 'None'
    return 'a %s (%r)' % (type(v).__name__, v)


def _in_block(program, block, value):
    """``value`` as a Variable usable as a branch output of ``block``."""
    if value is None or is_var(value):
        return value
    prev = program.current_block_idx
    program.current_block_idx = block.idx
    try:
        return _as_variable(value)
    finally:
        program.current_block_idx = prev


def _as_variable(value):
    if is_var(value) or isinstance(value, _cf.UndefinedInit):
        return value
    if hasattr(value, '_grad_node'):          # an eager tensor used in the program
        from ..static.program import capture_tensor
        return capture_tensor(value)
    arr = np.asarray(value)
    if isinstance(value, float):
        arr = arr.astype(np.float32)
    return constant(arr)


def IfExp(pred, true_fn, false_fn):
    """``a if c else b``."""
    if not is_var(pred):
        return true_fn() if _truth(pred) else false_fn()
    res = _static_if(pred, lambda: (true_fn(),), lambda: (false_fn(),), (), ('<ternary>',),
                     _where())
    return res[0]


# ---- logical operators ----------------------------------------------------------

def And(*fns):
    """``a and b and ...`` with Python short-circuiting for Python values."""
    value = fns[0]()
    for fn in fns[1:]:
        if is_var(value):
            from ..ops.math import logical_and
            value = logical_and(_bool_var(value), _bool_var(fn()))
        elif not _truth(value):
            return value
        else:
            value = fn()
    return value


def Or(*fns):
    value = fns[0]()
    for fn in fns[1:]:
        if is_var(value):
            from ..ops.math import logical_or
            value = logical_or(_bool_var(value), _bool_var(fn()))
        elif _truth(value):
            return value
        else:
            value = fn()
    return value


def Not(value):
    if is_var(value):
        from ..ops.math import logical_not
        return logical_not(_bool_var(value))
    return not _truth(value)


def _bool_var(v):
    if is_var(v):
        if v.dtype != np.bool_:
            from ..ops.manipulation import cast
            return cast(v, 'bool')
        return v
    return constant(np.asarray(bool(_truth(v))))


# ---- loops ----------------------------------------------------------------------

def While(cond_fn, body_fn, args, names):
    """``while cond_fn(*args): args = body_fn(*args)``."""
    pred = cond_fn(*args)
    if not is_var(pred):
        where = _where()
        while _truth(pred):
            args = tuple(body_fn(*args))
            pred = cond_fn(*args)
            if is_var(pred):
                raise TypeError(
                    "%s: the condition of this Python while loop became a tensor after "
                    "the first iteration; make it a tensor before the loop (e.g. "
                    "paddle.to_tensor) so the loop converts to a static while" % where)
        return tuple(args)
    return _static_loop(cond_fn, body_fn, args, names, _where())


def _static_loop(cond_fn, body_fn, args, names, where):
    args = _lists_to_arrays(body_fn, list(args))
    carried = [i for i, a in enumerate(args) if not isinstance(a, Undefined)
               and (is_var(a) or _tensorable(a) or isinstance(a, TensorArray))]
    for i, meta in _probe_undefined_results(body_fn, args, names):
        args[i] = meta          # a return value first set inside the loop
        carried.append(i)
    carried.sort()
    args = tuple(args)
    full_out = {}

    arrays = {i for i in carried if isinstance(args[i], TensorArray)}

    def merge(lv):
        vals = list(args)
        for i, v in zip(carried, lv):
            vals[i] = TensorArray(v) if i in arrays else v
        return vals

    def cond(*lv):
        return _bool_var(cond_fn(*merge(lv)))

    def body(*lv):
        out = tuple(body_fn(*merge(lv)))
        full_out['out'] = out
        for i, (name, before, after) in enumerate(zip(names, args, out)):
            if i in carried or after is before:
                continue
            if isinstance(before, Undefined):
                continue          # assigned inside the loop only: undefined afterwards
            raise TypeError("%s: variable '%s' is changed inside a tensor-dependent loop "
                            "but is a %s, not a tensor; only tensors (and numbers) can be "
                            "loop variables" % (where, name, type(before).__name__))
        return [_loop_value(out[i]) for i in carried]

    try:
        finals = _cf.while_loop(cond, body, [_loop_value(args[i]) for i in carried])
    except (ValueError, TypeError) as e:
        msg = str(e)
        for k, i in enumerate(carried):
            msg = msg.replace("loop variable %d " % k, "loop variable '%s' " % names[i])
        raise type(e)("%s: %s" % (where, msg)) from None
    result = list(args)
    for i, v in zip(carried, finals):
        result[i] = TensorArray(v) if i in arrays else v
    for i, (before, after) in enumerate(zip(args, full_out.get('out', args))):
        if i not in carried and isinstance(before, Undefined) and after is not before:
            result[i] = Undefined(names[i])
    return tuple(result)


def _loop_value(v):
    if isinstance(v, TensorArray):
        return v.var
    return v if is_var(v) else _as_variable(v)


class TensorArray:
    """A Python list appended to inside a tensor-dependent loop: its items
    stacked along a new first axis in one tensor (None while empty)."""

    def __init__(self, var):
        self.var = var

    def append(self, x):
        from ..ops.tensor_array import array_append_op
        self.var = array_append_op(None if isinstance(self.var, _cf.UndefinedInit) else self.var,
                                   _as_variable(x))

    def pop(self, index=-1):
        if index != -1:
            raise NotImplementedError("pop(%r) on a list inside a tensor-dependent loop: only "
                                      "pop() of the last item is supported" % (index,))
        item = self.var[-1]
        self.var = self.var[:-1]
        return item

    def __getitem__(self, index):
        return self.var[index]

    def stack(self, axis=0):
        if axis in (0, -len(self.var.shape)):
            return self.var
        from ..ops.manipulation import moveaxis
        return moveaxis(self.var, 0, axis)

    def concat(self, axis=0):
        from ..ops.manipulation import reshape, moveaxis
        v = self.var if axis == 0 else moveaxis(self.var, 0, axis)
        shape = list(v.shape)
        rest = shape[axis + 2:] if axis >= 0 else shape[axis + 1 + len(shape):]
        if any(d < 0 for d in shape[1:axis + 1]) or any(d < 0 for d in rest):
            raise ValueError("concat of a tensor array needs its item shape known, got %s"
                             % shape)
        return reshape(v, shape[1:axis + 1] + [-1] + rest)

    def __len__(self):
        raise TypeError("len() of a list built inside a tensor-dependent loop is a tensor; "
                        "it is available through len() in converted code")

    def __repr__(self):
        return '<tensor array %r>' % (self.var,)


def _lists_to_arrays(body_fn, args):
    """Python lists of tensors carried by a static loop become tensor arrays."""
    lists = [i for i, a in enumerate(args) if isinstance(a, list)
             and all(is_var(v) or hasattr(v, '_grad_node') for v in a)]
    if not lists:
        return args
    from ..ops.manipulation import stack
    for i in lists:
        items = args[i]
        args[i] = TensorArray(stack([_as_variable(v) for v in items]) if items else None)
    empty = [i for i in lists if args[i].var is None]
    if empty:
        probed = _probe(body_fn, args)
        for i in empty:
            var = probed[i].var if isinstance(probed[i], TensorArray) else None
            if var is None or not is_var(var):
                args[i] = list()          # never appended to: stays a Python list
                continue
            elem = var.shape[1:]
            if all(d >= 0 for d in elem):   # known item shape: a real, empty tensor
                from ..ops.creation import zeros
                z = zeros([0] + elem, str(var.dtype))
                z._shape = (-1,) + tuple(elem)
                args[i] = TensorArray(z)
            else:
                args[i] = TensorArray(_cf.UndefinedInit(var.shape, var.dtype))
    return args


def _probe(body_fn, args):
    """The body's outputs, built once into scratch blocks that are then dropped."""
    program = default_main_program()
    first = len(program.blocks)
    prev = program.current_block_idx
    copies = [TensorArray(a.var) if isinstance(a, TensorArray) else a for a in args]
    try:
        _, outs, _ = _cf._build_block(program, lambda: list(body_fn(*copies)), (), 'loop body',
                                      convert=False)
    finally:
        del program.blocks[first:]
        program.current_block_idx = prev
        program._bump()
    return outs


def _probe_undefined_results(body_fn, args, names):
    """(index, UndefinedInit) for return values that are None before a
    tensor-dependent loop and tensors after its body. Found by building the
    body once into a scratch block that is then thrown away."""
    want = [i for i, (n, a) in enumerate(zip(names, args))
            if n.startswith(RETURN_VALUE_PREFIX) and a is None]
    if not want:
        return []
    outs = _probe(body_fn, list(args))
    return [(i, _cf.UndefinedInit(outs[i].shape, outs[i].dtype, names[i]))
            for i in want if is_var(outs[i])]


def For(iterable, body_fn, args, names, break_index=-1):
    """``for item in iterable: args = body_fn(item, *args)`` (stops when the
    break flag at ``break_index`` in ``args`` is set)."""
    spec = _static_iteration(iterable)
    if spec is None:
        for item in iterable:
            args = tuple(body_fn(item, *args))
            if break_index >= 0:
                flag = args[break_index]
                if is_var(flag):
                    raise TypeError("%s: a break under a tensor condition inside a loop over "
                                    "a Python iterable; loop over a tensor or a tensor range "
                                    "instead" % _where())
                if _truth(flag):
                    break
        return tuple(args)
    start, stop, step, get_item = spec
    idx_name = '__jst_index'

    def cond(i, *rest):
        from ..ops.math import less_than, greater_than, logical_and, logical_not
        test = less_than(i, stop) if not _negative(step) else greater_than(i, stop)
        if break_index >= 0:
            flag = rest[break_index]
            if is_var(flag) or flag:
                test = logical_and(test, logical_not(_bool_var(flag)))
        return test

    def body(i, *rest):
        out = tuple(body_fn(get_item(i), *rest))
        return (i + step,) + out

    start_var = _as_variable(start) if not is_var(start) else start
    res = _static_loop(cond, body, (start_var,) + tuple(args), (idx_name,) + tuple(names),
                       _where())
    return tuple(res[1:])


def _negative(step):
    return not is_var(step) and step < 0


class _TensorRange:
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def __iter__(self):
        return iter(range(self.start, self.stop, self.step))


def Range(*args):
    """``range`` whose bounds may be tensors (a loop over it converts to a while)."""
    if any(is_var(a) for a in args):
        if len(args) == 1:
            return _TensorRange(0, args[0], 1)
        if len(args) == 2:
            return _TensorRange(args[0], args[1], 1)
        return _TensorRange(*args)
    return range(*(int(a) if hasattr(a, '_grad_node') else a for a in args))


class _Enumerate:
    def __init__(self, it, start):
        self.it, self.start = it, start

    def __iter__(self):
        return enumerate(self.it, self.start)


class _Zip:
    def __init__(self, its):
        self.its = its

    def __iter__(self):
        return zip(*self.its)


def Enumerate(iterable, start=0):
    return _Enumerate(iterable, start) if _static_iteration(iterable) else enumerate(iterable, start)


def Zip(*iterables):
    return _Zip(iterables) if any(_static_iteration(i) for i in iterables) else zip(*iterables)


def _static_iteration(iterable):
    """(start, stop, step, item(i)) when iterating needs a static while, else None."""
    if isinstance(iterable, TensorArray):
        iterable = iterable.var
    if isinstance(iterable, _TensorRange):
        return iterable.start, iterable.stop, iterable.step, lambda i: i
    if is_var(iterable):
        return 0, _length(iterable), 1, lambda i: iterable[i]
    if isinstance(iterable, _Enumerate):
        inner = _static_iteration(iterable.it)
        if inner is None:
            return None
        s, e, st, get = inner
        return s, e, st, lambda i: (i + iterable.start, get(i))
    if isinstance(iterable, _Zip):
        specs = [_static_iteration(i) for i in iterable.its]
        if not any(specs):
            return None
        stops = []
        getters = []
        for it, sp in zip(iterable.its, specs):
            if sp is None:
                stops.append(len(it))
                getters.append(lambda i, it=it: it[i])
            else:
                stops.append(sp[1])
                getters.append(sp[3])
        stop = stops[0]
        from ..ops.math import minimum
        for s in stops[1:]:
            stop = minimum(_as_variable(stop), _as_variable(s))
        return 0, stop, 1, lambda i: tuple(g(i) for g in getters)
    return None


def _length(x):
    if x.shape and x.shape[0] >= 0:
        return x.shape[0]
    from ..ops.manipulation import shape as _shape_op
    return _shape_op(x)[0]


# ---- builtins ---------------------------------------------------------------------

def Shape(x):
    """``x.shape`` in converted code. A Variable's dims that are known only at
    run time (-1) come as 0-d int tensors from ``paddle.shape(x)``, so a
    ``reshape``/``full``/... built from them follows the data (Paddle's rule)."""
    if isinstance(x, TensorArray):
        x = x.var
    if not is_var(x):
        return x.shape
    dims = x.shape
    if all(d >= 0 for d in dims):
        return dims
    from ..ops.manipulation import shape as shape_of
    runtime = shape_of(x)
    return [d if d >= 0 else runtime[i] for i, d in enumerate(dims)]


def Len(x):
    if isinstance(x, TensorArray):
        x = x.var
    if is_var(x):
        return _length(x)
    return len(x)


def Print(*args, **kwargs):
    if not any(is_var(a) for a in args):
        return print(*args, **kwargs)
    from ..ops.control import print_op
    texts = []
    for a in args:
        if is_var(a):
            print_op(a, ' '.join(texts), 20, True, a.name)
            texts = []
        else:
            texts.append(str(a))
    if texts:
        print(' '.join(texts))


def Assert(cond, message=None):
    if is_var(cond):
        from ..ops.control import assert_op
        assert_op(_bool_var(cond), '' if message is None else str(message))
        return
    if not _truth(cond):
        raise AssertionError(message) if message is not None else AssertionError()


def _cast_builtin(kind, dtype):
    """``int(x)`` / ``float(x)`` / ``bool(x)`` in converted code: the Python value
    when ``x``'s value is known while the program is built (as eagerly), else a
    cast to ``dtype`` that happens when the program runs (Paddle's rule)."""
    def cast(x=0, *rest):
        if is_var(x):
            if x._value is not None and x._value.size == 1:
                return kind(x._value.reshape(()))
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
    return np.array(x._value) if x._value is not None else x


def _var_item(x, *index):
    """``x.item()``: the Python number when known now, else the one-element
    tensor (``x.item(i)``: element i of the flattened tensor), as Paddle does."""
    if x._value is not None:
        return x._value.item(*index)
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


# Variable methods whose meaning in converted code differs from plain static mode
_VARIABLE_METHODS = {'numpy': _var_numpy, 'item': _var_item}


def Call(fn):
    """The function to call in converted code: user functions, methods and
    layers are converted recursively; framework/numpy/builtins are not."""
    from .translator import convert_callable
    owner = getattr(fn, '__self__', None)
    if is_var(owner) and getattr(fn, '__name__', None) in _VARIABLE_METHODS:
        method = _VARIABLE_METHODS[fn.__name__]
        return lambda *args: method(owner, *args)
    if getattr(fn, '__name__', None) in ('stack', 'concat') and \
            getattr(fn, '__module__', '').startswith('framework.'):
        return _array_aware(fn)
    return convert_callable(fn)


def _array_aware(fn):
    """``paddle.stack(tensor_array)`` / ``paddle.concat(tensor_array)``."""
    def call(x, axis=0, *args, **kwargs):
        if isinstance(x, TensorArray):
            return x.stack(axis) if fn.__name__ == 'stack' else x.concat(axis)
        return fn(x, axis, *args, **kwargs)
    return call


def Undef(name):
    return Undefined(name)
