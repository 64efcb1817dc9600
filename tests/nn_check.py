"""Checks for nn functionals and layers as a user calls them: gradients
against central finite differences of the same function evaluated in float64,
and eager vs static-program vs ``@to_static`` agreement."""
import numpy as np

import framework as paddle


def _as_list(out):
    return list(out) if isinstance(out, (list, tuple)) else [out]


def _float_outputs(outs):
    return [o for o in outs if o is not None and np.dtype(o.dtype).kind == 'f']


def _objective(fn, arrays, cots):
    with paddle.no_grad():
        outs = _float_outputs(_as_list(fn(*[paddle.to_tensor(a) for a in arrays])))
    return sum(float(np.sum(o.numpy().astype(np.float64) * c)) for o, c in zip(outs, cots))


def check_grads(fn, arrays, wrt=None, eps=1e-6, rtol=1e-4, atol=1e-6, seed=0):
    """Autograd gradients of ``sum(fn(*xs) * cot)`` w.r.t. ``xs[i]`` for ``i`` in
    ``wrt`` (default: every float array) equal central finite differences."""
    rng = np.random.default_rng(seed)
    wrt = [i for i, a in enumerate(arrays) if np.asarray(a).dtype.kind == 'f'] \
        if wrt is None else list(wrt)
    ts = [paddle.to_tensor(a, stop_gradient=i not in wrt) for i, a in enumerate(arrays)]
    outs = _float_outputs(_as_list(fn(*ts)))
    cots = [rng.standard_normal(o.shape) for o in outs]
    loss = sum((o * paddle.to_tensor(c.astype(o.dtype))).sum() for o, c in zip(outs, cots))
    grads = paddle.grad(loss, [ts[i] for i in wrt], allow_unused=True)
    for i, g in zip(wrt, grads):
        base = np.asarray(arrays[i], np.float64)
        num = np.zeros_like(base)
        for k in range(base.size):
            plus, minus = base.copy().reshape(-1), base.copy().reshape(-1)
            plus[k] += eps
            minus[k] -= eps
            a_p = list(arrays)
            a_p[i] = plus.reshape(base.shape)
            a_m = list(arrays)
            a_m[i] = minus.reshape(base.shape)
            num.reshape(-1)[k] = (_objective(fn, a_p, cots) - _objective(fn, a_m, cots)) / (2 * eps)
        got = np.zeros_like(num) if g is None else g.numpy()
        np.testing.assert_allclose(got, num, rtol=rtol, atol=atol,
                                   err_msg="gradient of input %d" % i)


def run_static(fn, arrays):
    """``fn`` built into a static Program from ``static.data`` inputs and run."""
    static = paddle.static
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = [static.data('in%d' % i, list(np.shape(a)), str(np.asarray(a).dtype))
                  for i, a in enumerate(arrays)]
            outs = _as_list(fn(*xs))
        exe = static.Executor()
        exe.run(startup)
        res = exe.run(main, feed={'in%d' % i: np.asarray(a) for i, a in enumerate(arrays)},
                      fetch_list=outs)
    finally:
        paddle.disable_static()
    return res


def check_modes(fn, arrays, rtol=1e-6, atol=1e-7):
    """Eager, static-program and ``@to_static`` results of ``fn`` agree."""
    eager = [o.numpy() for o in _as_list(fn(*[paddle.to_tensor(a) for a in arrays]))]
    static = run_static(fn, arrays)
    converted = [o.numpy() for o in _as_list(
        paddle.jit.to_static(fn)(*[paddle.to_tensor(a) for a in arrays]))]
    for e, s, c in zip(eager, static, converted):
        np.testing.assert_allclose(s, e, rtol=rtol, atol=atol, err_msg='static vs eager')
        np.testing.assert_allclose(c, e, rtol=rtol, atol=atol, err_msg='to_static vs eager')
    return eager
