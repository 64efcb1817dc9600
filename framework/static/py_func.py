"""``static.nn.py_func`` and ``static.nn.static_pylayer``: Python code inside a
static program.

``py_func`` appends one registered ``py_func`` op that calls the user's
function on numpy arrays when the program runs and writes its results into the
Variables the user created for them. Functions are kept in a registry and the
op refers to them by index (as Paddle's ``PyFuncRegistry``), so a program that
holds such an op only runs in the process that built it. The op's gradient is
another ``py_func`` op calling ``backward_func`` (zeros for inputs it returns
None for).

``static_pylayer`` builds ``forward_fn``'s ops into the program; with a
``backward_fn`` it goes through ``PyLayer``'s static path, so the gradient of
its inputs is what ``backward_fn`` computes from the outputs' gradients.
"""
import numpy as np

from ..ops.registry import Meta, OpError, add_test_case, def_op, mode

__all__ = ['py_func', 'static_pylayer']

_FUNCS = []        # the registered Python callables; an op's func_id indexes this


def _register(func):
    _FUNCS.append(func)
    return len(_FUNCS) - 1


def _py_func_meta(xs, func_id=-1, out_shapes=(), out_dtypes=(), backward_id=-1, keep=()):
    return [Meta(tuple(s), np.dtype(d)) for s, d in zip(out_shapes, out_dtypes)]


def _as_outputs(res, out_shapes, out_dtypes, func_id):
    if res is None:
        res = []
    elif not isinstance(res, (list, tuple)):
        res = [res]
    res = list(res)
    if len(res) != len(out_shapes):
        raise OpError("py_func: the function %r returned %d value(s), but %d output "
                      "Variable(s) were given" % (_FUNCS[func_id], len(res), len(out_shapes)))
    outs = []
    for i, (r, shape, dtype) in enumerate(zip(res, out_shapes, out_dtypes)):
        if r is None:                 # a gradient the backward function leaves out
            r = np.zeros([max(s, 0) for s in shape])
        arr = np.asarray(r.numpy() if hasattr(r, 'numpy') else r).astype(dtype, copy=False)
        if len(arr.shape) != len(shape) or any(s >= 0 and s != a
                                               for s, a in zip(shape, arr.shape)):
            raise OpError("py_func: output %d of %r has shape %s, but its Variable has shape "
                          "%s" % (i, _FUNCS[func_id], list(arr.shape), list(shape)))
        outs.append(arr)
    return outs


@def_op('py_func', _py_func_meta, inputs=('xs*',), outputs=('outs*',),
        attrs={'func_id': -1, 'out_shapes': (), 'out_dtypes': (), 'backward_id': -1,
               'keep': ()},
        save_inputs=True)
def py_func_op(xs, func_id=-1, out_shapes=(), out_dtypes=(), backward_id=-1, keep=()):
    """Call registered function ``func_id`` on the input arrays; its results
    (one array or a list) become the outputs, cast to ``out_dtypes``."""
    res = _FUNCS[func_id](*[np.asarray(x) for x in xs])
    return _as_outputs(res, out_shapes, out_dtypes, func_id)


@py_func_op.def_grad
def _py_func_grad(gs, xs, outs, func_id, out_shapes, out_dtypes, backward_id, keep):
    """``backward_func(kept inputs and outputs..., output grads...)``, one
    gradient per input."""
    if backward_id < 0:
        raise OpError("py_func: the gradient of an input was asked for, but py_func was "
                      "given no backward_func")
    args = [v for v, k in zip(list(xs) + list(outs), keep) if k] + list(gs)
    return py_func_op(args, backward_id, tuple(tuple(x.shape) for x in xs),
                      tuple(str(np.dtype(x.dtype)) for x in xs), -1, ())


def _as_var_list(v, what):
    if v is None:
        return []
    vs = list(v) if isinstance(v, (list, tuple)) else [v]
    for x in vs:
        if not getattr(x, '_is_static_var', False):
            raise TypeError("static.nn.py_func: %s must be Variables, got %s"
                            % (what, type(x).__name__))
    return vs


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Run ``func`` (numpy arrays in, arrays out) as an op of the program.

    ``out`` are Variables the caller created with the outputs' shapes and
    dtypes (``block.create_var``); ``func``'s results are written into them.
    ``backward_func`` receives the inputs, outputs and output gradients (less
    ``skip_vars_in_backward_input``) and returns one gradient per input.
    Returns ``out``.
    """
    if not mode.static:
        raise RuntimeError("static.nn.py_func is only supported in static graph mode (call "
                           "paddle.enable_static() first)")
    if not callable(func):
        raise TypeError("static.nn.py_func: func must be a Python function, got %r" % (func,))
    if backward_func is not None and not callable(backward_func):
        raise TypeError("static.nn.py_func: backward_func must be callable, got %r"
                        % (backward_func,))
    xs = _as_var_list(x, 'x')
    outs = _as_var_list(out, 'out')
    skip = {v.name for v in _as_var_list(skip_vars_in_backward_input,
                                          'skip_vars_in_backward_input')}
    known = {v.name for v in xs + outs}
    if skip - known:
        raise ValueError("static.nn.py_func: skip_vars_in_backward_input %s are neither in x "
                         "nor in out" % sorted(skip - known))
    keep = tuple(v.name not in skip for v in xs + outs)
    backward_id = _register(backward_func) if backward_func is not None else -1
    results = py_func_op(xs, _register(func), tuple(tuple(o.shape) for o in outs),
                         tuple(str(np.dtype(o.dtype)) for o in outs), backward_id, keep)
    block = outs[0].block if outs else None
    for r, o in zip(results, outs):
        block._rename_output(r, o)
        if backward_func is None:
            o.stop_gradient = True
    return out


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """``forward_fn(*inputs)`` built into the program. With ``backward_fn``
    the inputs' gradients are ``backward_fn(*output_grads)`` (one per input);
    without it no gradient flows through, and, as in Paddle, every input must
    have ``stop_gradient=True``."""
    from ..autograd.py_layer import PyLayer
    if not mode.static:
        raise RuntimeError("static.nn.static_pylayer is only supported in static graph mode")
    if not callable(forward_fn):
        raise ValueError("static.nn.static_pylayer: `forward_fn` should be callable")
    inputs = list(inputs)
    if backward_fn is None:
        for v in inputs:
            if not v.stop_gradient:
                raise ValueError(
                    "static.nn.static_pylayer: ``stop_gradient`` attr of all inputs to "
                    "``forward_fn`` are expected to be True, when ``backward_fn == None``, but "
                    "%s.stop_gradient got False" % v.name)
        result = forward_fn(*inputs)
        for v in result if isinstance(result, (list, tuple)) else [result]:
            if v is not None:
                v.stop_gradient = True
        return result
    if not callable(backward_fn):
        raise ValueError("static.nn.static_pylayer: `backward_fn` should be callable")

    class _StaticPyLayer(PyLayer):
        @staticmethod
        def forward(ctx, *xs):
            return forward_fn(*xs)

        @staticmethod
        def backward(ctx, *grads):
            return backward_fn(*grads)
    _StaticPyLayer.__name__ = name or 'static_pylayer'
    return _StaticPyLayer.apply(*inputs)


# registry-generated tests: a function of two inputs and its hand-written gradient
def _case_fn(a, b):
    return np.tanh(a) * b


def _case_grad(a, b, out, g):
    return g * (1 - np.tanh(a) ** 2) * b, g * np.tanh(a)


_CASE_FN, _CASE_GRAD = _register(_case_fn), _register(_case_grad)


def _case(shape, dtype='float64', seed=0, **options):
    rng = np.random.default_rng(seed)
    a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    # a Python backward function is not itself differentiable (as in Paddle)
    add_test_case(py_func_op, [a, b], _CASE_FN, (tuple(shape),), (dtype,), _CASE_GRAD,
                  (True, True, True), ref=lambda xs, *attrs: [np.tanh(xs[0]) * xs[1]],
                  double_grad=False, **options)


_case((2, 3))
_case((4,), seed=1)
_case((), seed=2)
_case((0, 3), seed=3)
_case((3, 2), 'float32', seed=4, grad=False)   # float32: forward only
