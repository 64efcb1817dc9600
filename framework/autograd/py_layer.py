"""PyLayer: a custom op written in Python, with a user ``forward`` and ``backward``.

Eager mode: each PyLayer subclass gets its own (unregistered) ``OpDef`` that
runs through the tracer like any op (as ``run_program`` does for dy2static).
The user's ``forward`` runs first, under no_grad, on the original arguments;
the op's kernel only hands its results to the tracer, which records one grad
node for the whole layer. The op's grad rule calls the user's ``backward``:
with grad mode on when the engine builds a graph (``create_graph=True``), so a
backward written with framework ops is itself differentiable, and under
no_grad otherwise.

Static mode (``program_guard`` or inside ``@to_static``): ``forward`` builds
its ops into the Program on the original Variables, and its outputs go
through one registered ``py_layer`` op -- an identity on the outputs that
also takes the layer's inputs. Its grad rule calls the user's ``backward``
with Variables (appending its ops) and routes the result to the inputs; the
forward outputs get no gradient, so the ops ``forward`` built are never
differentiated and the custom backward replaces them. Because those ops still
exist, grad-of-grad through Variables the backward reads (saved inputs or
forward intermediates) is exact. A saved inference Program needs nothing from
Python: the op is a plain identity when run.
"""
import copy
import itertools

import numpy as np

from ..dygraph import Tensor
from ..dygraph import autograd as _engine
from ..dygraph.state import disable_grad, grad_mode
from ..dygraph.tracer import apply_op
from ..ops.modes import in_static_mode, is_static_var
from ..ops.registry import Meta, OpDef, OpError, add_test_case, def_op

__all__ = ['PyLayer', 'PyLayerContext']


class _NOT_PACKED:  # noqa: N801
    """A value given to save_for_backward that is not a Tensor (kept as is)."""
    __slots__ = ('value',)

    def __init__(self, value):
        self.value = value


class PyLayerContext:
    """The ``ctx`` passed to ``forward`` and ``backward``. Any attribute may be
    set on it in ``forward`` and read in ``backward``."""

    def __init__(self):
        self._saved = None
        self._unpack = None
        self._non_differentiable = ()
        self._materialize_grads = True
        self._grad_in_dtype_consistent = True

    def save_for_backward(self, *tensors):
        """Keep ``tensors`` for ``backward`` (call at most once, in forward);
        inside ``saved_tensors_hooks`` they are kept packed."""
        if _engine.saved_tensor_hooks and not in_static_mode():
            pack, self._unpack = _engine.saved_tensor_hooks[-1]
            tensors = [pack(t) if isinstance(t, Tensor) else _NOT_PACKED(t) for t in tensors]
        self._saved = tuple(tensors)

    def saved_tensor(self):
        """The tensors given to ``save_for_backward`` (None if it was not called)."""
        if self._unpack is not None:
            unpack, self._unpack = self._unpack, None
            self._saved = tuple(v.value if isinstance(v, _NOT_PACKED) else unpack(v)
                                for v in self._saved)
        return self._saved

    @property
    def saved_tensors(self):   # PyTorch's spelling
        return self.saved_tensor()

    def mark_non_differentiable(self, *tensors):
        """Outputs of forward that carry no gradient (``stop_gradient=True``);
        backward still receives a zero gradient for them."""
        self._non_differentiable = tuple(tensors)

    def set_materialize_grads(self, value):
        """False: backward gets None (not zeros) for outputs nothing
        differentiated."""
        self._materialize_grads = bool(value)

    def set_grad_in_dtype_consistent(self, value):
        """True (the default): each gradient reaching backward is cast to its
        output's dtype first; False: backward gets it in the dtype it arrives in."""
        self._grad_in_dtype_consistent = bool(value)

    def mark_not_inplace(self, *tensors):
        """Accepted for Paddle compatibility: outputs are always new tensors here."""


class PyLayer:
    """Subclass with ``@staticmethod forward(ctx, *args, **kwargs)`` and
    ``@staticmethod backward(ctx, *grads)``, then call ``MyLayer.apply(...)``.

    ``backward`` gets one gradient per Tensor output of forward and returns one
    gradient (a Tensor or None) per Tensor argument of forward.

    >>> import framework as paddle
    >>> from framework.autograd import PyLayer
    >>> class Cube(PyLayer):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x)
    ...         return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, dy):
    ...         x, = ctx.saved_tensor()
    ...         return dy * 3 * x ** 2
    >>> x = paddle.to_tensor([2.0], stop_gradient=False)
    >>> Cube.apply(x).backward()
    >>> x.grad.numpy().tolist()
    [12.0]
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError("PyLayer subclasses must define a static backward(ctx, *grads)")

    @classmethod
    def apply(cls, *args, **kwargs):
        if cls.forward is PyLayer.forward or cls.backward is PyLayer.backward:
            raise NotImplementedError("%s.apply: the subclass must define both forward and "
                                      "backward as static methods" % cls.__name__)
        if in_static_mode():
            return _apply_static(cls, args, kwargs)
        return _apply_eager(cls, args, kwargs)


# ---- shared helpers --------------------------------------------------------------

def _is_value(v):
    return isinstance(v, Tensor) or is_static_var(v)


def _tensor_args(cls, args, kwargs):
    """The Tensor arguments of forward (positional, then keyword), in order."""
    found = []
    for a in itertools.chain(args, kwargs.values()):
        if _is_value(a):
            found.append(a)
        elif isinstance(a, (list, tuple)) and any(_is_value(v) for v in a):
            raise TypeError("%s.apply: Tensors inside a list/tuple argument are not "
                            "tracked for gradients; pass them as separate arguments"
                            % cls.__name__)
    return found


def _flatten_result(result):
    """(leaves, rebuild) for forward's result: one value or a tuple/list of values."""
    if isinstance(result, (tuple, list)):
        kind = type(result)
        return list(result), lambda leaves: kind(leaves)
    return [result], lambda leaves: leaves[0]


def _grads_for_inputs(cls, res, inputs):
    """Check backward's result against forward's Tensor inputs: one gradient
    (Tensor or None) per input, with the input's shape."""
    n = len(inputs)
    if _is_value(res) or res is None or isinstance(res, np.ndarray):
        res = [res]
    elif isinstance(res, (tuple, list)):
        res = list(res)
    else:
        raise TypeError("%s.backward must return Tensors (or None), got %s"
                        % (cls.__name__, type(res).__name__))
    if len(res) != n:
        raise ValueError("%s.backward returned %d gradient(s), but forward has %d Tensor "
                         "input(s); return one gradient (or None) per Tensor input"
                         % (cls.__name__, len(res), n))
    out = []
    for i, (g, x) in enumerate(zip(res, inputs)):
        if g is not None and not _is_value(g):
            if isinstance(x, Tensor):
                g = Tensor(np.asarray(g, dtype=x.data.dtype))
            else:
                raise TypeError("%s.backward: gradient %d must be a Variable in static "
                                "mode, got %s" % (cls.__name__, i, type(g).__name__))
        if g is not None and not _same_shape(g.shape, x.shape):
            raise ValueError("%s.backward: gradient %d has shape %s but the input has "
                             "shape %s" % (cls.__name__, i, list(g.shape), list(x.shape)))
        out.append(g)
    return out


def _same_shape(a, b):
    if len(a) != len(b):
        return False
    return all(p == q or p == -1 or q == -1 for p, q in zip(a, b))


# ---- eager mode -----------------------------------------------------------------

class _Call:
    """What one ``apply`` hands to its grad node (the op's single attribute)."""
    __slots__ = ('cls', 'ctx', 'arrays')

    def __init__(self, cls, ctx, arrays):
        self.cls = cls
        self.ctx = ctx
        self.arrays = arrays


def _kernel(xs, call):
    # forward already ran (so the user's own exceptions reach the user as they
    # are); the kernel hands its results to the tracer
    return call.arrays


def _eager_grad(grads, xs, outs, call):
    """Grad rule: the user's backward. The engine runs it with grad mode on
    under create_graph and off otherwise."""
    if call.ctx._grad_in_dtype_consistent:
        grads = [g if g is None or g.dtype == o.dtype else g.astype(o.dtype)
                 for g, o in zip(grads, outs)]
    res = call.cls.backward(call.ctx, *grads)
    return _grads_for_inputs(call.cls, res, xs)


def _no_meta(*args):
    raise OpError("a PyLayer op has no shape inference in eager mode")


def _eager_op(cls):
    op = cls.__dict__.get('_py_layer_op')
    if op is None:
        op = OpDef('py_layer:%s' % cls.__qualname__, _kernel, _no_meta, ['xs*'], ['outs*'],
                   {'call': None}, grad=_eager_grad, save_inputs=False, pattern='opaque',
                   amp='never')
        op.keeps_missing_grads = lambda call: not call.ctx._materialize_grads
        cls._py_layer_op = op
    return op


def _apply_eager(cls, args, kwargs):
    ctx = PyLayerContext()
    inputs = _tensor_args(cls, args, kwargs)
    with disable_grad():
        result = cls.forward(ctx, *args, **kwargs)
    leaves, rebuild = _flatten_result(result)
    pos = [i for i, v in enumerate(leaves) if isinstance(v, Tensor)]
    if not pos:
        return result
    inner = [leaves[i] for i in pos]
    ids = {id(t) for t in inputs}
    # an input returned as it is becomes a new tensor: copy, so in-place
    # changes to the output cannot reach the input
    arrays = [t.data.copy() if id(t) in ids else t.data for t in inner]
    call = _Call(cls, ctx, arrays)
    outs = apply_op(_eager_op(cls), (inputs, call))
    call.arrays = None       # the tracer holds the outputs now
    nondiff = {id(t) for t in ctx._non_differentiable}
    for t, o in zip(inner, outs):
        if id(t) in nondiff:
            o.stop_gradient = True
            o._grad_node = None
    if grad_mode.enabled and ctx._saved:
        # a saved forward output stands for the layer's output, as in PyTorch:
        # differentiating backward through it goes through this layer again
        as_out = {id(t): o for t, o in zip(inner, outs) if id(t) not in ids}
        ctx._saved = tuple(as_out.get(id(t), t) for t in ctx._saved)
    for i, o in zip(pos, outs):
        leaves[i] = o
    return rebuild(leaves)


# ---- static mode -----------------------------------------------------------------

# key -> (PyLayer subclass, ctx): the Python side of the static ``py_layer`` ops
# built in this process. Programs keep only the key (JSON attributes), so a
# Program loaded elsewhere runs forward but cannot build this backward.
_STATIC_LAYERS = {}
_static_keys = itertools.count()


# fn -> fn converted by @to_static (Python control flow on tensors becomes
# cond/while), or fn itself while to_static is off: dy2static, a layer above,
# installs it (install_converter)
_converter = None


def install_converter(convert):
    """``convert(fn)`` turns forward/backward into what @to_static runs."""
    global _converter
    _converter = convert


def _to_static_callable(fn):
    """Inside @to_static, convert forward/backward like any user function."""
    return fn if _converter is None else _converter(fn)


def _apply_static(cls, args, kwargs):
    ctx = PyLayerContext()
    inputs = _tensor_args(cls, args, kwargs)
    result = _to_static_callable(cls.forward)(ctx, *args, **kwargs)
    leaves, rebuild = _flatten_result(result)
    pos = [i for i, v in enumerate(leaves) if _is_value(v)]
    if not pos:
        return result
    key = '%s_%d' % (cls.__qualname__, next(_static_keys))
    _STATIC_LAYERS[key] = (cls, ctx)
    inner = [leaves[i] for i in pos]
    outs = py_layer_op(inputs, inner, key)
    nondiff = {id(t) for t in ctx._non_differentiable}
    for t, o in zip(inner, outs):
        if id(t) in nondiff:
            o.stop_gradient = True
    for i, o in zip(pos, outs):
        leaves[i] = o
    return rebuild(leaves)


def _rebind(ctx, block):
    """A copy of ``ctx`` whose Variables are looked up by name in ``block``:
    dy2static builds the backward in a clone of the program forward built."""
    new = copy.copy(ctx)

    def local(v):
        if is_static_var(v):
            found = block._find_var(v.name)
            return found if found is not None else v
        return v
    for k, v in list(vars(new).items()):
        if k == '_saved' and v is not None:
            new._saved = tuple(local(t) for t in v)
        else:
            setattr(new, k, local(v))
    return new


def _link_meta(xs, ys, layer=''):
    return [Meta(y.shape, y.dtype) for y in ys]


@def_op('py_layer', _link_meta, inputs=('xs*', 'ys*'), outputs=('outs*',),
        attrs={'layer': ''}, save_inputs=False, pattern='opaque', amp='never')
def py_layer_op(xs, ys, layer=''):
    """Identity on ``ys`` (a PyLayer's forward outputs); ``xs`` are the layer's
    inputs, which the grad rule differentiates with the user's backward."""
    return [np.array(y, copy=True) for y in ys]


@py_layer_op.def_grad
def _py_layer_grad(grads, xs, ys, outs, layer):
    if not layer:       # no PyLayer attached: a plain identity on ys
        return [None] * len(xs), list(grads)
    entry = _STATIC_LAYERS.get(layer)
    if entry is None:
        raise RuntimeError(
            "py_layer op '%s': the PyLayer backward is not known in this process (was the "
            "Program loaded from a file?); it can run forward but not build gradients" % layer)
    cls, ctx = entry
    block = next((g.block for g in grads if is_static_var(g)), None)
    if block is not None:
        ctx = _rebind(ctx, block)
        res = _to_static_callable(cls.backward)(ctx, *grads)
    else:
        res = cls.backward(ctx, *grads)
    return _grads_for_inputs(cls, res, xs), [None] * len(ys)


_rng = np.random.default_rng(61)
add_test_case(py_layer_op, [_rng.standard_normal((2, 3))],
              [_rng.standard_normal((3,)), _rng.standard_normal((2, 2))], '',
              ref=lambda xs, ys, layer: [np.array(y) for y in ys])
