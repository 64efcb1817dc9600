"""Run-time helpers for converted ``while`` / ``for`` loops.

A loop runs as Python while its condition is a Python value; the moment the
condition is a tensor, the iterations still to come become one static
``while`` op carrying the loop's variables (see ``carried``):

* ``while`` whose condition turns into a tensor after some iterations (a
  Python counter compared with a tensor, a flag the body sets from a tensor)
  keeps the iterations already run and continues as a ``while`` op;
* ``for`` over a tensor, a tensor ``range``, or ``enumerate``/``zip`` of them
  is a ``while`` op over an index tensor;
* ``for`` over a Python range or sequence whose ``break`` flag becomes a
  tensor continues as a ``while`` op over the remaining items (numbers or
  tensors of one shape are indexed by the loop's index tensor), or, for items
  a tensor cannot index (layers, tensors of different shapes) or a body that
  needs its item as a Python value (``layers[i]``), as one tensor-dependent
  if per remaining item.
"""
import re
import sys

from ..ops.modes import is_eager_tensor, is_static_var
from ..graph import control_flow as _cf
from ..graph.program import default_main_program
from . import carried as C
from .carried import as_variable, truth

INDEX_NAME = '__jst_index'


def caller_line():
    """'file:line' of the user's code that called the helper."""
    f = sys._getframe(2)
    return '%s:%d' % (f.f_code.co_filename, f.f_lineno)


# ---- while ----------------------------------------------------------------------

def While(cond_fn, body_fn, args, names):
    """``while cond_fn(*args): args = body_fn(*args)``."""
    where = caller_line()
    pred = cond_fn(*args)
    while not is_static_var(pred):
        if not truth(pred):
            return tuple(args)
        args = tuple(body_fn(*args))
        pred = cond_fn(*args)
    return static_loop(cond_fn, body_fn, args, names, where)


def static_loop(cond_fn, body_fn, args, names, where):
    """One ``while`` op for ``while cond_fn(*args): args = body_fn(*args)``."""
    originals = args
    args = _define_unknowns(body_fn, [C.with_arrays(a) for a in args], names, where)
    specs = [C.spec_of(a, n) for a, n in zip(args, names)]
    init = [C.leaves_of(s, a) for s, a in zip(specs, args)]
    slots = [(i, k) for i, leaves in enumerate(init) for k, v in enumerate(leaves)
             if v is not None]
    labels = [C.leaf_names(specs[i])[k] for i, k in slots]

    def unpack(loop_vars):
        leaves = [list(ls) for ls in init]
        for (i, k), v in zip(slots, loop_vars):
            leaves[i][k] = v
        return [C.build(s, iter(ls)) for s, ls in zip(specs, leaves)]

    def cond(*loop_vars):
        return C.bool_var(cond_fn(*unpack(loop_vars)))

    def body(*loop_vars):
        out = tuple(body_fn(*unpack(loop_vars)))
        leaves = [C.conform(s, o, where) for s, o in zip(specs, out)]
        new = []
        for (i, k), label in zip(slots, labels):
            v = leaves[i][k]
            if v is None:
                raise TypeError("%s: variable '%s' is defined before a tensor-dependent loop "
                                "but undefined after its body" % (where, label))
            new.append(as_variable(v))
        return new

    if not slots:       # nothing changes: the loop only matters for its side effects
        raise TypeError("%s: a tensor-dependent loop that changes no variable; it would "
                        "never end or do nothing" % where)
    finals = _while_loop(cond, body, [init[i][k] for i, k in slots], labels, where)
    result = [C.fixed_length_lists(r) for r in unpack(finals)]
    return tuple(C.write_back(a, r) for a, r in zip(originals, result))


def _while_loop(cond, body, loop_vars, labels, where):
    """``static.nn.while_loop`` with errors naming the user's variables. A
    Python number the body turns into a tensor of another rank (``a = 0``,
    then ``a = paddle.zeros([1])``) starts as that tensor, filled with it."""
    loop_vars = list(loop_vars)
    while True:
        try:
            return _cf.while_loop(cond, body, [as_variable(v) for v in loop_vars])
        except _cf.LoopVarRankError as e:
            if not isinstance(loop_vars[e.index], C.NUMBERS):
                raise _named(e, labels, where) from None
            from ..ops.creation import full
            loop_vars[e.index] = full([max(d, 1) for d in e.value.shape], loop_vars[e.index],
                                      str(e.value.dtype))
        except (ValueError, TypeError) as e:
            raise _named(e, labels, where) from None


def _named(error, labels, where):
    msg = re.sub(r"loop variable (\d+) \('[^']*'\)",
                 lambda m: "loop variable '%s'" % labels[int(m.group(1))], str(error))
    if not msg.startswith(where):
        msg = '%s: %s' % (where, msg)
    return (ValueError if isinstance(error, ValueError) else TypeError)(msg)


def _define_unknowns(body_fn, args, names, where):
    """Give the loop values that have none before it (variables first assigned
    in the body, return values, empty lists) a placeholder of the type the body
    gives them; values the body leaves undefined stay as they are (and are not
    carried). Found by tracing the body into scratch blocks that are then
    dropped, again while that finds more (a value read from a list the body
    fills)."""
    while True:
        specs = [C.spec_of(a, n) for a, n in zip(args, names)]
        if all(v is not None for s, a in zip(specs, args) for v in C.leaves_of(s, a)):
            return args
        metas = _trace_metas(body_fn, specs, args, where)
        new = [C.fill_unknowns(s, a, m) for s, a, m in zip(specs, args, metas)]
        if all(n is a for n, a in zip(new, args)):
            return args
        args = new


def _trace_metas(body_fn, specs, args, where):
    """The meta tree (see carried.meta_tree) of each value after one trace of the body."""
    with default_main_program().scratch_block():
        traced = []
        for s, a in zip(specs, args):
            leaves = [None if v is None else as_variable(v) for v in C.leaves_of(s, a)]
            traced.append(C.build(s, iter(leaves)))
        return [C.meta_tree(o) for o in body_fn(*traced)]


# ---- for ------------------------------------------------------------------------

def For(iterable, body_fn, args, names, break_index=-1):
    """``for item in iterable: args = body_fn(item, *args)`` (stops when the
    break flag at ``break_index`` in ``args`` is set)."""
    where = caller_line()
    spec = _static_iteration(iterable)
    if spec is not None:
        return _static_for(spec, body_fn, tuple(args), names, break_index, where)
    sequence = isinstance(iterable, (range, list, tuple))
    items = iterable if sequence else iter(iterable)
    for done, item in enumerate(items):
        args = tuple(body_fn(item, *args))
        if break_index >= 0:
            flag = args[break_index]
            if is_static_var(flag):
                rest = iterable[done + 1:] if sequence else list(items)
                return _finish_for(rest, body_fn, args, names, break_index, where)
            if truth(flag):
                break
    return tuple(args)


def _finish_for(rest, body_fn, args, names, break_index, where):
    """The remaining iterations of a Python ``for`` whose break flag is now a tensor."""
    if len(rest) == 0:
        return args
    spec = _indexed(rest)
    if spec is not None:
        program = default_main_program()
        mark = program.build_mark()
        try:
            return _static_for(spec, body_fn, args, names, break_index, where)
        except (TypeError, ValueError, IndexError):
            # the body needs its item as a Python value (``layers[i]``): forget the
            # while op's pieces and guard each iteration instead
            program.discard_since(mark)
    from .convert_ops import Not, _static_if
    for item in rest:     # one guarded iteration per item
        args = _static_if(Not(args[break_index]), lambda *a: body_fn(item, *a),
                          lambda *a: a, args, names, where, C.merge_or_undefined)
    return args


def _static_for(spec, body_fn, args, names, break_index, where):
    """A while op over positions 0..length-1 of ``spec`` = (length, item(position))."""
    length, get_item = spec

    def cond(pos, *rest):
        from ..ops.math import less_than, logical_and, logical_not
        test = less_than(pos, length)
        if break_index >= 0:
            flag = rest[break_index]
            if is_static_var(flag) or flag:
                test = logical_and(test, logical_not(C.bool_var(flag)))
        return test

    def body(pos, *rest):
        return (pos + 1,) + tuple(body_fn(get_item(pos), *rest))

    res = static_loop(cond, body, (0,) + args, (INDEX_NAME,) + tuple(names), where)
    return tuple(res[1:])


# ---- what a for loop iterates -----------------------------------------------------

class _TensorRange:
    def __init__(self, start, stop, step):
        self.start, self.stop, self.step = start, stop, step

    def __iter__(self):
        return iter(range(self.start, self.stop, self.step))


def Range(*args):
    """``range`` whose bounds may be tensors (a loop over it converts to a while)."""
    if any(is_static_var(a) for a in args):
        if len(args) == 1:
            return _TensorRange(0, args[0], 1)
        if len(args) == 2:
            return _TensorRange(args[0], args[1], 1)
        return _TensorRange(*args)
    return range(*(int(a) if is_eager_tensor(a) else a for a in args))


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
    if _static_iteration(iterable) is not None:
        return _Enumerate(iterable, start)
    return enumerate(iterable, start)


def Zip(*iterables):
    for i, it in enumerate(iterables):
        if is_static_var(it) and (not it.shape or it.shape[0] < 0):
            raise RuntimeError("%s: zip() of a tensor whose first dim is unknown (argument %d, "
                               "shape %s): the loop's length would depend on which tensor is "
                               "shorter at run time. Not support zip(tensor, ...) when "
                               "tensor.shape[0] == -1; loop over range(len(...)) instead"
                               % (caller_line(), i, list(it.shape)))
    static = [_static_iteration(i) is not None for i in iterables]
    if any(static) and all(s or _indexed(i) is not None for s, i in zip(static, iterables)):
        return _Zip(iterables)
    return zip(*iterables)      # (tensors here have a known first dim: Python unrolls them)


def _static_iteration(iterable):
    """(length, item(position)) when iterating needs a static while, else None."""
    if isinstance(iterable, C.TensorArray) and iterable.var is not None:
        iterable = iterable.var
    if isinstance(iterable, _TensorRange):
        return _range_spec(iterable.start, iterable.stop, iterable.step)
    if is_static_var(iterable):
        return first_dim_length(iterable), lambda pos: iterable[pos]
    if isinstance(iterable, _Enumerate):
        inner = _static_iteration(iterable.it)
        if inner is None:
            return None
        length, get = inner
        return length, lambda pos: (pos + iterable.start, get(pos))
    if isinstance(iterable, _Zip):
        specs = [_static_iteration(i) or _indexed(i) for i in iterable.its]
        length = specs[0][0]
        for n, _ in specs[1:]:
            if is_static_var(length) or is_static_var(n):
                from ..ops.math import minimum
                length = minimum(as_variable(length), as_variable(n))
            else:
                length = min(length, n)
        return length, lambda pos: tuple(get(pos) for _, get in specs)
    return None


def _range_spec(start, stop, step):
    """(length, item(position)) of range(start, stop, step); the items are
    int64 scalars like Paddle's, the length is a tensor when a bound is."""
    if not any(is_static_var(v) for v in (start, stop, step)):
        return len(range(start, stop, step)), lambda pos: _nth(pos, start, step)
    start, stop, step = (_int64_scalar(v) for v in (start, stop, step))
    if not is_static_var(step) and step < 0:   # a tensor step is taken to be positive
        length = (start - stop - step - 1) // -step
    else:
        length = (stop - start + step - 1) // step
    from ..ops.math import maximum
    return maximum(as_variable(length), as_variable(0)), lambda pos: _nth(pos, start, step)


def _nth(pos, start, step):
    if not is_static_var(start) and not is_static_var(step) and (start, step) == (0, 1):
        return pos
    return start + pos * step


def _int64_scalar(v):
    if not is_static_var(v):
        return v
    from ..ops.manipulation import cast, reshape
    return reshape(cast(v, 'int64'), [])


def _indexed(seq):
    """(length, item(position)) picking the items of a Python range or list
    by an index tensor, or None when a tensor cannot index them."""
    if isinstance(seq, range):
        return _range_spec(seq.start, seq.stop, seq.step)
    if not isinstance(seq, (list, tuple)):
        return None
    items = list(seq)
    if not C.stackable(items) or not items:
        return None
    table = C.TensorArray.of(items).var
    return len(items), lambda pos: table[pos]


def first_dim_length(x):
    if x.shape and x.shape[0] >= 0:
        return x.shape[0]
    from ..ops.manipulation import shape as _shape_op
    return _shape_op(x)[0]
