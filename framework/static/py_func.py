"""``static.py_func``: a Python function as an op of a static program.

The program stores the function by id (functions cannot be written into a
program file), so a program holding a py_func op runs in the process that
built it. The forward function gets the inputs as numpy arrays and returns the
outputs (arrays or tensors, one per ``out`` variable, which fix their shapes and
dtypes). ``backward_func`` gets ``x``, ``out`` and the output gradients (minus
``skip_vars_in_backward_input``) and returns one gradient per ``x`` (None for
none); its call is an op too, so static backward differentiates through it.
"""
import numpy as np

from ..ops.registry import Meta, OpError, add_test_case, def_op, mode

_FUNCTIONS = []          # id -> callable, for this process


def _register(fn):
    _FUNCTIONS.append(fn)
    return len(_FUNCTIONS) - 1


def _function(fid):
    if not 0 <= fid < len(_FUNCTIONS):
        raise OpError("py_func: function id %d is not registered in this process (a program "
                      "holding py_func ops runs only where it was built)" % fid)
    return _FUNCTIONS[fid]


def _py_func_meta(xs, func_id=-1, backward_id=-1, out_metas=(), skip=(), n_x=0):
    return [Meta(shape, dtype) for shape, dtype in out_metas]


@def_op('py_func', _py_func_meta, inputs=('xs*',), outputs=('outs*',),
        attrs={'func_id': -1, 'backward_id': -1, 'out_metas': (), 'skip': (), 'n_x': 0},
        save_inputs=True)
def py_func_op(xs, func_id=-1, backward_id=-1, out_metas=(), skip=(), n_x=0):
    """Call the registered function on the input arrays."""
    res = _function(func_id)(*xs)
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(res) != len(out_metas):
        raise OpError("py_func: the function returned %d values for %d outputs"
                      % (len(res), len(out_metas)))
    outs = []
    for i, (r, (shape, dtype)) in enumerate(zip(res, out_metas)):
        if r is None:       # "no gradient" from a backward function: zeros
            if any(s < 0 for s in shape):
                raise OpError("py_func: output %d is None but its shape %s is not fully "
                              "known; return an array of zeros instead" % (i, list(shape)))
            outs.append(np.zeros(shape, dtype))
            continue
        arr = np.asarray(r if isinstance(r, np.ndarray) else getattr(r, 'data', r), dtype=dtype)
        if len(arr.shape) != len(shape) or any(s not in (-1, a) for s, a in zip(shape, arr.shape)):
            raise OpError("py_func: output %d has shape %s, its variable says %s"
                          % (i, list(arr.shape), list(shape)))
        outs.append(arr)
    return outs


@py_func_op.def_grad
def _py_func_grad(gs, xs, outs, func_id, backward_id, out_metas, skip, n_x):
    if backward_id < 0:
        return [None] * len(xs)
    # backward_func(x..., out..., dout...) without the skipped x/out positions
    from ..ops.creation import zeros_like
    fwd = [v for i, v in enumerate(list(xs) + list(outs)) if i not in set(skip)]
    dout = [g if g is not None else zeros_like(o) for g, o in zip(gs, outs)]
    metas = tuple((tuple(x.shape), str(x.dtype)) for x in xs)
    # one input (the list xs): its gradient is the list of the x gradients
    return py_func_op(fwd + dout, backward_id, -1, metas, (), len(xs))


def py_func(func, x, out, backward_func=None, skip_vars_in_backward_input=None):
    """Add ``func`` as an op computing ``out`` from ``x`` (see the module
    docstring); returns ``out``."""
    from .program import Variable, default_main_program
    if not mode.static:
        raise TypeError("static.py_func builds an op of a static program; in dynamic mode "
                        "call the function directly, or write a paddle.autograd.PyLayer")
    if not callable(func) or (backward_func is not None and not callable(backward_func)):
        raise TypeError("py_func: func and backward_func must be callables")
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    for v in xs + outs:
        if not isinstance(v, Variable):
            raise TypeError("py_func: x and out must be static Variables, got %s"
                            % type(v).__name__)
    skip = skip_vars_in_backward_input or []
    skip = list(skip) if isinstance(skip, (list, tuple)) else [skip]
    names = [v.name for v in xs + outs]
    for v in skip:
        if v.name not in names:
            raise ValueError("py_func: skip_vars_in_backward_input must hold variables of x "
                             "or out; '%s' is neither" % v.name)
    skip_pos = tuple(names.index(v.name) for v in skip)
    metas = tuple((tuple(v.shape), str(v.dtype)) for v in outs)
    results = py_func_op(xs, _register(func),
                         _register(backward_func) if backward_func is not None else -1,
                         metas, skip_pos, len(xs))
    block = default_main_program().current_block()
    for res, target in zip(results, outs):
        block._rename_output(res, target)
        target.stop_gradient = backward_func is None or all(v.stop_gradient for v in xs)
    return out


# registry test cases: tanh with its backward, and a broadcasting product whose
# backward skips ``out`` (as skip_vars_in_backward_input does)
def _tanh_backward(x, out, dout):
    return dout * (1.0 - out * out)


def _mul_backward(x, y, dout):
    return dout * y, (dout * x).reshape(-1, y.size).sum(axis=0).reshape(y.shape)


_TANH, _TANH_GRAD = _register(np.tanh), _register(_tanh_backward)
_MUL, _MUL_GRAD = _register(np.multiply), _register(_mul_backward)
_rng = np.random.default_rng(3)


def _tanh_case(x, **opts):
    add_test_case(py_func_op, [x], _TANH, _TANH_GRAD, ((x.shape, str(x.dtype)),), (), 1,
                  ref=lambda xs, *attrs: [np.tanh(xs[0])], double_grad=False, **opts)


_tanh_case(_rng.standard_normal((2, 3)))
_tanh_case(np.float64(-0.7))
_tanh_case(np.zeros((0, 3)))
_tanh_case(_rng.standard_normal(4).astype(np.float32), grad=False)  # too coarse for differences
_x, _y = _rng.standard_normal((2, 3)), _rng.standard_normal(3)
add_test_case(py_func_op, [_x, _y], _MUL, _MUL_GRAD, (((2, 3), 'float64'),), (2,), 2,
              ref=lambda xs, *attrs: [xs[0] * xs[1]], double_grad=False)
