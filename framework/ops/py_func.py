"""The ``py_func`` op: a registered Python callable run as an op of a program
(``static.nn.py_func`` appends it). Functions are kept in a registry and the
op refers to them by index (as Paddle's ``PyFuncRegistry``), so a program
holding such an op only runs in the process that built it. The op's gradient
is another ``py_func`` op calling the backward function (zeros for inputs it
returns None for); that one has no gradient of its own, as in Paddle.
"""
import numpy as np

from .registry import Meta, OpError, add_test_case, def_op

__all__ = ['py_func_op', 'register_py_func']

_FUNCS = []        # the registered Python callables; an op's func_id indexes this


def register_py_func(func):
    """Keep ``func`` for ``py_func`` ops; returns its id."""
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
        save_inputs=True, attr_types={'out_shapes': 'value', 'out_dtypes': 'strs',
                                      'keep': 'bools|ints'},
        pattern='opaque', effects=('callback',))
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


# registry-generated tests: a function of two inputs and its hand-written gradient
def _case_fn(a, b):
    return np.tanh(a) * b


def _case_grad(a, b, out, g):
    return g * (1 - np.tanh(a) ** 2) * b, g * np.tanh(a)


_CASE_FN, _CASE_GRAD = register_py_func(_case_fn), register_py_func(_case_grad)


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
