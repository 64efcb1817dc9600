"""Eager op execution: the hot path every eager op call goes through.

``apply_op(op, args)`` unwraps Tensors to arrays, runs the kernel, wraps the
outputs and, only when grad mode is on and some input needs a gradient,
records a ``GradNode``. Nothing here parses kwargs or calls ``infer_meta``;
errors from a kernel are turned into a clear message naming the op, its
arguments and their shapes.
"""

import numpy as np

from .. import flags
from ..ops.grad_utils import scalar_array as _scalar_array
from ..ops.grad_utils import scalar_arrays as _cached_scalars
from ..ops.modes import is_static_var
from ..ops.promotion import is_number, promote_inputs
from ..ops.registry import OpError
from . import nan_check
from .autograd import GradNode
from .autograd import next_seq as _next_seq
from .autograd import saved_tensor_hooks as _saved_tensor_hooks
from .state import grad_enabled
from .tensor import Tensor

_ndarray = np.ndarray
# numbers the hot paths pass to kernels as cached 0-d arrays (numpy scalars
# count as numbers in type promotion, like Python's)
_SCALARS = (float, int, bool, np.float64, np.float32, np.int64, np.int32, np.bool_)
_new = Tensor.__new__
_new_node = GradNode.__new__
# saved versions of inputs still at version 0 (nearly all): shared tuples, one
# allocation less per recorded op for the garbage collector to count
_V0, _V0N, _VN0, _V00 = (0,), (0, None), (None, 0), (0, 0)


def _edge(t):
    """Where the gradient for input tensor ``t`` goes: its grad node, the leaf
    itself, or None when it needs no gradient."""
    return None if t.stop_gradient else (t._grad_node or t)


def _unwrap_list(op, name, items):
    arrays, edges, need = [], [], False
    for t in items:
        if isinstance(t, Tensor):
            arrays.append(t.data)
            e = _edge(t)
            edges.append(e)
            need = need or e is not None
        else:
            arrays.append(np.asarray(t) if isinstance(t, (list, tuple)) else t)
            edges.append(None)
    return arrays, tuple(edges), need


def _common_dtype(tensors):
    """The dtype shared by a list of Tensors, else None."""
    d = None
    for t in tensors:
        if type(t) is not Tensor:
            return None
        td = t.data.dtype
        if d is None:
            d = td
        elif td is not d:
            return None
    return d


def _promoted_dtype(op, ins):
    """``(ins, dtype)``: the dtype the promoted inputs of ``op`` compute in,
    tensors of other dtypes cast to it (``ops/promotion.py``). The common
    cases, tensors that already share a dtype (and numbers that keep it),
    cost one pass over them."""
    promote = op.promote
    if op.variadic[promote[0]]:            # concat, stack, add_n: one list input
        d = _common_dtype(ins[promote[0]]) if len(promote) == 1 else None
        return (ins, d) if d is not None else promote_inputs(op, ins)
    d = None
    number = None
    for i in promote:
        t = ins[i]
        if type(t) is Tensor:
            td = t.data.dtype
            if d is None:
                d = td
            elif td is not d:
                return promote_inputs(op, ins)
        elif number is None and type(t) in _SCALARS:
            number = t
        else:
            return promote_inputs(op, ins)
    if d is None or number is not None and _scalar_array(number, d).dtype is not d:
        return promote_inputs(op, ins)
    return ins, d


def apply_op(op, args):
    n = op.n_in
    if len(args) == n + op.n_attrs:
        ins = args[:n]
        attrs = args[n:]
    else:
        ins, attrs = op.split_args(args)
    promote = op.promote
    if promote is not None:
        ins, dtype = _promoted_dtype(op, ins)
    arrays = []
    edges = []
    versions = []
    need = False
    variadic = op.variadic
    for i in range(n):
        t = ins[i]
        if type(t) is Tensor or isinstance(t, Tensor):
            arrays.append(t.data)
            e = _edge(t)
            edges.append(e)
            need = need or e is not None
            versions.append(t._version)
        elif variadic[i]:
            a, e, nd = _unwrap_list(op, op.input_names[i], t)
            arrays.append(a)
            edges.append(e if nd else None)
            versions.append(None)
            need = need or nd
        else:
            if type(t) in (list, tuple):
                t = np.asarray(t)
            elif promote is not None and i in promote and is_number(t):
                t = _scalar_array(t, dtype)
            elif t is not None and type(t) is not np.ndarray and is_static_var(t):
                raise OpError("op '%s': got a static Variable in dynamic (eager) mode; "
                              "call framework.enable_static() or use program_guard"
                              % op.name)
            arrays.append(t)
            edges.append(None)
            versions.append(None)
    try:
        out = op.kernel(*arrays, *attrs)
    except OpError as e:
        raise _named(op, e) from None
    except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
        raise _kernel_error(op, arrays, attrs, e) from None
    record = need and grad_enabled() and op.differentiable
    if op.n_out == 1:
        return _finish(op, out, ins, attrs, edges, versions if op.save_inputs else (), record)
    outs = tuple(o if type(o) is _ndarray else np.asarray(o) for o in out)
    node = (GradNode(op, ins, attrs, outs, edges, versions if op.save_inputs else ())
            if record else None)
    results = []
    for i, o in enumerate(outs):
        t = _new(Tensor)
        diff = record and (not op.n_out or op.output_names[i] not in op.nondiff_outputs)
        t._init(o, node.edge(i) if diff else None, not diff)
        results.append(t)
    if record:
        node.out_refs = len(results)   # the outputs are learnt in backward (learn_output)
    return tuple(results) if op.n_out else results   # n_out 0: variadic output list


def _describe(a):
    if isinstance(a, _ndarray):
        return '%s%s' % (a.dtype, list(a.shape))
    if isinstance(a, list):
        return '[%s]' % ', '.join(_describe(v) for v in a)
    return repr(a)


def _named(op, err):
    """``err`` as an OpError whose message starts with the op's name."""
    msg = str(err)
    return OpError(msg if msg.startswith(op.name) else "%s: %s" % (op.name, msg))


def _kernel_error(op, arrays, attrs, err):
    """A clear message: infer_meta's if it has one, else the op and its arguments."""
    if isinstance(err, OpError):
        return _named(op, err)
    if op.infer_meta is not None:
        try:
            op.infer_meta(*arrays, *attrs)
        except OpError as e:
            return _named(op, e)
        except Exception:
            pass
    args = ', '.join('%s=%s' % (n, _describe(a)) for n, a in zip(op.input_names, arrays))
    at = ', '.join('%s=%r' % (n, v) for n, v in zip(op.attr_names, attrs))
    return OpError("op '%s' failed for %s%s: %s"
                   % (op.name, args, ('; ' + at) if at else '', err))


def _finish(op, out, ins, attrs, edges, versions, record):
    """Wrap a single output array; record the grad node when needed."""
    if type(out) is not _ndarray:
        out = np.asarray(out)
    t = _new(Tensor)
    t.data = out
    t._version = 0
    t._grad = None
    if record:
        # GradNode(op, ins, attrs, (out,), edges, versions), inlined: this
        # runs once per recorded op (tests/test_tape_gc.py checks the two agree)
        node = _new_node(GradNode)
        node.seq = _next_seq()
        node.op = op
        node.ins = ins
        node.attrs = attrs
        node.outs = (out,)
        node.edges = edges
        node.versions = versions
        node.fast = op.plain_fast_grad
        node.out_refs = None           # learnt in backward: autograd.learn_output
        if _saved_tensor_hooks:
            node.pack_for_hooks()
        t._grad_node = node            # a one-output node is its own edge
        t.stop_gradient = False
    else:
        t._grad_node = None
        t.stop_gradient = True
    return t


def _unary(op):
    """Hot path for one-input, attribute-free ops (tanh, exp, neg, ...)."""
    kernel = op.kernel
    differentiable = op.differentiable
    save = op.save_inputs

    def apply(*args):
        if len(args) != 1 or type(args[0]) is not Tensor:
            return apply_op(op, args)
        x = args[0]
        try:
            out = kernel(x.data)
        except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
            raise _kernel_error(op, [x.data], (), e) from None
        if x.stop_gradient or not differentiable or not grad_enabled():
            t = _new(Tensor)            # _finish without a node, inlined (no-grad hot path)
            t.data = out if type(out) is _ndarray else np.asarray(out)
            t._version = 0
            t._grad = None
            t._grad_node = None
            t.stop_gradient = True
            return t
        versions = ((x._version,) if x._version else _V0) if save else ()
        return _finish(op, out, (x,), (), 1, versions, True)
    return apply


def _binary(op):
    """Hot path for two-input, attribute-free ops (add, multiply, ...);
    either operand may be a Python scalar (but not both)."""
    kernel = op.kernel
    differentiable = op.differentiable
    save = op.save_inputs
    promote = op.promote is not None

    def apply(*args):
        if len(args) != 2:
            return apply_op(op, args)
        x, y = args
        tx, ty = type(x), type(y)
        if tx is Tensor:
            xd = x.data
            rx = not x.stop_gradient
            if ty is Tensor:
                yd = y.data
                ry = not y.stop_gradient
            elif ty in _SCALARS:
                # the kernel gets a 0-d array; the node keeps the Python scalar
                # so grad rules see a constant and skip its gradient
                yd = _cached_scalars.get((y, ty, xd.dtype))
                if yd is None:
                    yd = _scalar_array(y, xd.dtype)
                ry = False
            else:
                return apply_op(op, args)
        elif ty is Tensor and tx in _SCALARS:
            yd = y.data
            ry = not y.stop_gradient
            xd = _cached_scalars.get((x, tx, yd.dtype))
            if xd is None:
                xd = _scalar_array(x, yd.dtype)
            rx = False
        else:
            return apply_op(op, args)
        if promote and xd.dtype is not yd.dtype:
            return apply_op(op, args)    # mixed dtypes: cast first
        try:
            out = kernel(xd, yd)
        except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
            raise _kernel_error(op, [xd, yd], (), e) from None
        if not (rx or ry) or not differentiable or not grad_enabled():
            t = _new(Tensor)            # _finish without a node, inlined (no-grad hot path)
            t.data = out if type(out) is _ndarray else np.asarray(out)
            t._version = 0
            t._grad = None
            t._grad_node = None
            t.stop_gradient = True
            return t
        # the edges as a mask of the inputs that want a gradient (see GradNode)
        if tx is not Tensor:                 # number op tensor
            edges = 2
            versions = ((None, y._version) if y._version else _VN0) if save else ()
        elif ty is not Tensor:               # tensor op number
            edges = 1
            versions = ((x._version, None) if x._version else _V0N) if save else ()
        else:
            edges = rx | ry << 1
            versions = ((x._version, y._version) if x._version or y._version
                        else _V00) if save else ()
        return _finish(op, out, args, (), edges, versions, True)   # args: the (x, y) tuple
    return apply


def _tensors_with_attrs(op):
    """Hot path for ops of one or two Tensor inputs with attributes (reshape,
    sum, transpose, softmax, matmul, ...), called with every attribute given
    (the public functions do); anything else goes through ``apply_op``."""
    kernel = op.kernel
    differentiable = op.differentiable
    save = op.save_inputs
    n_in = op.n_in
    n_args = n_in + op.n_attrs
    promote = op.promote is not None

    def apply(*args):
        if len(args) != n_args:
            return apply_op(op, args)
        x = args[0]
        if type(x) is not Tensor:
            return apply_op(op, args)
        if n_in == 1:
            ins = (x,)
            arrays = (x.data,)
            need = not x.stop_gradient
        else:
            y = args[1]
            if type(y) is not Tensor or promote and x.data.dtype is not y.data.dtype:
                return apply_op(op, args)
            ins = (x, y)
            arrays = (x.data, y.data)
            need = not (x.stop_gradient and y.stop_gradient)
        attrs = args[n_in:]
        try:
            out = kernel(*arrays, *attrs)
        except OpError as e:
            raise _named(op, e) from None
        except (ValueError, TypeError, IndexError, np.exceptions.AxisError) as e:
            raise _kernel_error(op, list(arrays), attrs, e) from None
        if not need or not differentiable or not grad_enabled():
            t = _new(Tensor)            # _finish without a node, inlined (no-grad hot path)
            t.data = out if type(out) is _ndarray else np.asarray(out)
            t._version = 0
            t._grad = None
            t._grad_node = None
            t.stop_gradient = True
            return t
        if n_in == 1:                        # edges: the mask of inputs wanting a gradient
            edges = 1
            versions = ((x._version,) if x._version else _V0) if save else ()
        else:
            edges = (not x.stop_gradient) | (not y.stop_gradient) << 1
            versions = ((x._version, y._version) if x._version or y._version
                        else _V00) if save else ()
        return _finish(op, out, ins, attrs, edges, versions, True)
    return apply


def make_eager(op):
    """The eager function for ``op``: a specialised hot path when it has one
    or two plain inputs and one output; else ``apply_op``. With
    ``FLAGS_check_nan_inf`` on, wrapped in the NaN/Inf check."""
    plain = op.n_out == 1 and not any(op.variadic)
    if plain and op.n_attrs == 0 and op.n_in == 1:
        fn = _unary(op)
    elif plain and op.n_attrs == 0 and op.n_in == 2:
        fn = _binary(op)
    elif plain and op.n_in in (1, 2):
        fn = _tensors_with_attrs(op)
    else:
        def fn(*args):
            return apply_op(op, args)
    if flags.flag('FLAGS_check_nan_inf'):
        fn = nan_check.checking(op, fn)
    return fn

