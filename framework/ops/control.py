"""Side-effect ops that converted code needs: printing and assert.

* ``python_print``: Python's ``print(*args, sep=, end=)`` where some arguments
  are tensors, run when the program runs; tensors are shown exactly as eager
  ``print(tensor)`` shows them (``tensor_repr``, shared with the eager Tensor).
* ``print``: Paddle's ``static.Print`` (a pass-through that logs its input,
  and its gradient in the backward phase).
* ``assert``: raise ``AssertionError`` at run time when a condition is false.

The executor never prunes them (``SIDE_EFFECT_OPS``, also inside the branches
and loop bodies that hold them). Backward does not run them again: the copy
of a branch or a loop body it recomputes leaves them out
(``graph/recompute.py``).
"""
import itertools
import sys

import numpy as np

from ..place import cpu_place
from . import meta
from .grad_utils import is_value
from .printing import tensor_text
from .registry import Meta, OpError, add_test_case, def_op


def tensor_repr(data, stop_gradient, place=None, extra=''):
    """The text of ``print(tensor)`` (Paddle's layout, ``set_printoptions``)."""
    return tensor_text(data, stop_gradient, place or cpu_place(), extra=extra)


# ---- print(...) in converted code ---------------------------------------------------

_STREAMS = {'stdout': lambda: sys.stdout, 'stderr': lambda: sys.stderr}


def _python_print_meta(xs, *attrs):
    return Meta((), np.bool_)


def _check_texts(texts, inputs):
    """The ``texts`` attribute: per argument a list of strings and None, one
    None per tensor of ``xs``."""
    if not isinstance(texts, (list, tuple)) or not all(
            isinstance(p, (list, tuple)) and all(x is None or isinstance(x, str) for x in p)
            for p in texts):
        raise OpError("texts must be lists of strings and None, got %r" % (texts,))
    holes = sum(x is None for p in texts for x in p)
    if holes != inputs.get('xs', 0):
        raise OpError("texts have %d places for tensors but the op prints %d"
                      % (holes, inputs.get('xs', 0)))


@def_op('python_print', _python_print_meta, inputs=('xs*',),
        attrs={'texts': (), 'stop_gradients': (), 'headers': (), 'sep': ' ', 'end': '\n',
               'file': 'stdout', 'flush': False}, differentiable=False,
        attr_types={'texts': _check_texts, 'stop_gradients': 'bools', 'headers': 'strs'},
        attr_ranges={'file': set(_STREAMS)}, pattern='opaque', effects=('io',), amp='never')
def python_print_op(xs, texts=(), stop_gradients=(), headers=(), sep=' ', end='\n',
                    file='stdout', flush=False):
    """``print(*args, sep=sep, end=end)``: ``texts[i]`` lists the pieces of
    argument i's text, None where the next tensor of ``xs`` goes (shown after
    its header: 'Parameter containing:\n' for a parameter, as eagerly)."""
    tensors = iter(zip(xs, stop_gradients, headers or [''] * len(xs)))

    def piece(p):
        if p is not None:
            return p
        x, stop, header = next(tensors)
        return header + tensor_repr(x, stop)
    args = [''.join(piece(p) for p in pieces) for pieces in texts]
    print(*args, sep=sep, end=end, file=_STREAMS[file](), flush=flush)
    return np.array(True)


# an exported model does not print (ONNX has no output stream): the op's
# result, which only orders it among the ops, is a constant
python_print_op.def_onnx(lambda g, xs, *attrs: g.const(np.asarray(True), hint='printed'))


def _holds_tensor(a):
    if is_value(a):
        return True
    if type(a) in (list, tuple):
        return any(_holds_tensor(v) for v in a)
    if type(a) is dict:
        return any(_holds_tensor(v) for v in a.values())
    return False


def _pieces(a, tensors, top=True):
    """The text of ``a`` as ``print`` shows it (str at top level, repr inside
    containers), None where a tensor's text goes; tensors are collected."""
    if is_value(a):
        tensors.append(a)
        return [None]
    if not _holds_tensor(a):
        return [str(a) if top else repr(a)]
    if type(a) is dict:
        out = ['{']
        for i, (k, v) in enumerate(a.items()):
            out += ([', '] if i else []) + [repr(k) + ': '] + _pieces(v, tensors, False)
        return out + ['}']
    out = ['[' if type(a) is list else '(']
    for i, v in enumerate(a):
        out += ([', '] if i else []) + _pieces(v, tensors, False)
    return out + [']' if type(a) is list else (',)' if len(a) == 1 else ')')]


def python_print(args, sep=' ', end='\n', file=None, flush=False, header=lambda t: ''):
    """Append (static) or run (eager) a ``python_print`` of ``args``;
    ``header(tensor)``: the text eager printing shows before the tensor."""
    if file is None or file is sys.stdout:
        stream = 'stdout'
    elif file is sys.stderr:
        stream = 'stderr'
    else:
        raise TypeError("print(..., file=%r) of tensors in converted code: only sys.stdout and "
                        "sys.stderr can be written when the program runs" % (file,))
    for name, v in (('sep', sep), ('end', end)):
        if v is not None and not isinstance(v, str):
            raise TypeError("print: %s must be None or a string, not %s" % (name, type(v).__name__))
    tensors = []
    texts = [_pieces(a, tensors) for a in args]
    stops = [bool(t.stop_gradient) for t in tensors]
    return python_print_op(tensors, texts, stops, [header(t) for t in tensors],
                           ' ' if sep is None else sep, '\n' if end is None else end, stream,
                           bool(flush))


# ---- static.Print ------------------------------------------------------------------

_print_counts = {}          # print op id -> times printed (for first_n)
_print_ids = itertools.count()


def _print_text(x, message, summarize, name, flags):
    show_name, show_type, show_shape, show_layout, show_lod = flags
    arr = np.asarray(x)
    flat = arr.reshape(-1)
    if summarize >= 0:
        flat = flat[:summarize]
    fmt = str if arr.dtype == np.bool_ else (lambda v: '%f' % v)
    lines = ['Variable: %s' % (name if show_name and name else 'var')]
    if message:
        lines.append('  - message: %s' % message)
    if show_lod:
        lines.append('  - lod: {}')
    lines.append('  - place: %s' % cpu_place())
    if show_shape:
        lines.append('  - shape: %s' % list(arr.shape))
    if show_layout:
        lines.append('  - layout: NCHW')
    if show_type:
        lines.append('  - dtype: %s' % arr.dtype)
    lines.append('  - data: [%s]' % ' '.join(fmt(v) for v in flat))
    return '\n'.join(lines)


@def_op('print', meta.unchanged, save_inputs=False, pattern='opaque', effects=('io',),
        passthrough='x', amp='never')
def print_op(x, first_n=-1, message='', summarize=20, print_tensor_name=True,
             print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
             print_tensor_lod=True, print_phase='BOTH', name='', print_id=-1):
    """Log ``x`` (its first ``summarize`` values) when it is computed, at most
    ``first_n`` times (-1: always); returns ``x``."""
    if print_phase in ('FORWARD', 'BOTH'):
        count = _print_counts.get(print_id, 0)
        if first_n < 0 or count < first_n:
            _print_counts[print_id] = count + 1
            print(_print_text(x, message, summarize, name,
                              (print_tensor_name, print_tensor_type, print_tensor_shape,
                               print_tensor_layout, print_tensor_lod)))
    return x


# the printing is left out of an exported model; the value passes through
print_op.def_onnx(lambda g, x, *attrs: g.op('Identity', x))


@print_op.def_grad
def _print_grad(g, x, out, first_n, message, summarize, print_tensor_name, print_tensor_type,
                print_tensor_shape, print_tensor_layout, print_tensor_lod, print_phase, name,
                print_id):
    if print_phase not in ('BACKWARD', 'BOTH'):
        return g
    return print_op(g, first_n, message, summarize, print_tensor_name, print_tensor_type,
                    print_tensor_shape, print_tensor_layout, print_tensor_lod, 'FORWARD',
                    name + '@GRAD' if name else '', print_id)


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,  # noqa: A002
          print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
          print_tensor_lod=True, print_phase='both'):
    """Paddle's ``static.Print``: a copy of ``input`` that logs its value each
    time it is computed (and its gradient in backward, ``print_phase``
    'backward' or 'both'). Use the returned tensor, so the log stays in the
    data path.

    >>> import framework as paddle
    >>> x = paddle.full([2], 3.0)
    >>> y = paddle.static.Print(x, message='x is')   # doctest: +ELLIPSIS
    Variable: ...
      - message: x is
    ...
      - data: [3.000000 3.000000]
    """
    if not is_value(input):
        raise TypeError("static.Print: input must be a tensor, got %s" % type(input).__name__)
    phase = str(print_phase).upper()
    if phase not in ('FORWARD', 'BACKWARD', 'BOTH'):
        raise ValueError("static.Print: print_phase must be 'forward', 'backward' or 'both', "
                         "got %r" % (print_phase,))
    name = getattr(input, 'name', None) or ''
    return print_op(input, int(first_n), message or '', int(summarize), bool(print_tensor_name),
                    bool(print_tensor_type), bool(print_tensor_shape),
                    bool(print_tensor_layout), bool(print_tensor_lod), phase, name,
                    next(_print_ids))


# ---- assert ---------------------------------------------------------------------------

@def_op('assert', meta.logical_unary, differentiable=False, pattern='opaque', effects=('io',),
        amp='never')
def assert_op(cond, message=''):
    """Raise at run time when ``cond`` is not all true (with ``message``, or
    none, as Python's ``assert`` without a message)."""
    arr = np.asarray(cond)
    if arr.size == 0 or not bool(np.all(arr)):
        raise AssertionError(message) if message else AssertionError()
    return arr.astype(bool)


__all__ = ['Print']

add_test_case(print_op, np.arange(3.0), -1, 'checking', 20, True, True, True, True, True,
              'BOTH', 'x', -1, ref=lambda x, *a: x)
add_test_case(print_op, np.arange(-6.0, 6.0).reshape(3, 4), 2, '', 5, False, True, True, True,
              True, 'FORWARD', '', -1, ref=lambda x, *a: x)
add_test_case(print_op, np.float32(-1.5), -1, '', -1, True, True, True, True, True, 'BACKWARD',
              'y', -1, ref=lambda x, *a: x)
add_test_case(print_op, np.zeros((0, 2)), -1, '', 20, True, True, True, True, True, 'BOTH', '',
              -1, ref=lambda x, *a: x)
add_test_case(python_print_op, [np.arange(3.0), np.array(True)],
              [['a'], [None], ['b', '[', None, ']']],
              [True, False], ['', 'Parameter containing:\n'], ', ', '!\n', 'stdout', False,
              ref=lambda *a: np.array(True))
add_test_case(assert_op, np.array([True, True]), '', ref=lambda c, m: c)
