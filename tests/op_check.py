"""Checks run on every registered op, from the test cases declared next to it.

For each case (``registry.add_test_case``): the eager forward against the
numpy reference, ``infer_meta`` against the kernel's real output, the
first-order gradient (fast path and composite rule) against float64 central
finite differences, and the grad-of-grad against finite differences of the
composite first-order gradient.
"""
import numpy as np

import framework as paddle
from framework.ops import registry

EPS = 1e-6


def float_inputs(op, args):
    """Indices of inputs that get gradient checks: float arrays that may need grads."""
    out = []
    for i in range(op.n_in):
        a = args[i]
        if op.input_names[i] in op.no_grad_inputs:
            continue
        if op.variadic[i]:
            if all(isinstance(v, np.ndarray) and v.dtype.kind == 'f' for v in a):
                out.append(i)
        elif isinstance(a, np.ndarray) and a.dtype.kind == 'f':
            out.append(i)
    return out


def to_tensors(op, args, grad_idx):
    ins = []
    for i in range(op.n_in):
        a = args[i]
        need = i in grad_idx
        if op.variadic[i]:
            ins.append([paddle.to_tensor(v, stop_gradient=not need) for v in a])
        elif isinstance(a, np.ndarray):
            ins.append(paddle.to_tensor(a, stop_gradient=not need))
        else:
            ins.append(a)
    return ins


def run_op(op, args, grad_idx=(), seed=1234):
    paddle.seed(seed)
    ins = to_tensors(op, args, grad_idx)
    out = op(*ins, *args[op.n_in:])
    return ins, (tuple(out) if isinstance(out, (tuple, list)) else (out,))


def as_list(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def check_forward(op, args, opts):
    ref = opts.get('ref')
    assert ref is not None, "test case of op '%s' has no numpy reference (ref=)" % op.name
    _, outs = run_op(op, args)
    expect = as_list(ref(*args))
    assert len(expect) == len(outs), "op %s: %d outputs, reference gives %d" % (
        op.name, len(outs), len(expect))
    for o, e in zip(outs, expect):
        e = np.asarray(e)
        assert tuple(o.shape) == e.shape, "op %s: shape %s vs reference %s" % (op.name, o.shape, e.shape)
        if e.dtype.kind in 'fc':
            np.testing.assert_allclose(o.numpy(), e, rtol=opts.get('rtol', 1e-5),
                                       atol=opts.get('atol', 1e-6), err_msg=op.name)
        else:
            np.testing.assert_array_equal(o.numpy(), e, err_msg=op.name)


def check_infer_meta(op, args, opts):
    _, outs = run_op(op, args)
    metas = []
    for i in range(op.n_in):
        a = args[i]
        if op.variadic[i]:
            metas.append([registry.Meta(v.shape, v.dtype) for v in a])
        elif isinstance(a, np.ndarray):
            metas.append(registry.Meta(a.shape, a.dtype))
        else:
            metas.append(a)
    m = as_list(op.infer_meta(*metas, *args[op.n_in:]))
    assert len(m) == len(outs), "op %s: infer_meta gives %d outputs, kernel %d" % (
        op.name, len(m), len(outs))
    for mi, o in zip(m, outs):
        assert len(mi.shape) == o.ndim and all(
            d == -1 or d == s for d, s in zip(mi.shape, o.shape)), \
            "op %s: infer_meta shape %s vs kernel %s" % (op.name, list(mi.shape), o.shape)
        assert np.dtype(mi.dtype) == o.dtype, "op %s: infer_meta dtype %s vs kernel %s" % (
            op.name, mi.dtype, o.dtype)


def _cotangents(op, outs, rng):
    cots = []
    names = op.output_names * len(outs) if op.variadic_out else op.output_names
    for name, o in zip(names, outs):
        if name in op.nondiff_outputs or o.dtype.kind != 'f':
            cots.append(None)
        else:
            cots.append(rng.standard_normal(o.shape))
    return cots


def _objective(op, args, cots, seed):
    """Scalar sum(out_k * cot_k) evaluated with numpy kernels only."""
    paddle.seed(seed)
    outs = as_list(op.kernel(*args))
    return sum(float(np.sum(np.asarray(o, np.float64) * c)) for o, c in zip(outs, cots)
               if c is not None)


def _perturbable(op, args, idx):
    """(index path, array) pairs for every float input we differentiate."""
    for i in idx:
        if op.variadic[i]:
            for j, v in enumerate(args[i]):
                yield (i, j), v
        else:
            yield (i, None), args[i]


def _replace(args, path, value):
    i, j = path
    args = list(args)
    if j is None:
        args[i] = value
    else:
        lst = list(args[i])
        lst[j] = value
        args[i] = lst
    return args


def numeric_grad(f, args, path, arr, eps=EPS):
    g = np.zeros(arr.shape, np.float64)    # C order: flat is a view of g
    flat = g.reshape(-1)
    for k in range(arr.size):
        plus = arr.copy().reshape(-1)
        minus = arr.copy().reshape(-1)
        plus[k] += eps
        minus[k] -= eps
        fp = f(_replace(args, path, plus.reshape(arr.shape)))
        fm = f(_replace(args, path, minus.reshape(arr.shape)))
        flat[k] = (fp - fm) / (2 * eps)
    return g


def analytic_grads(op, args, idx, cots, seed, create_graph):
    ins, outs = run_op(op, args, idx, seed)
    targets = [o for o, c in zip(outs, cots) if c is not None and not o.stop_gradient]
    gouts = [paddle.to_tensor(c) for o, c in zip(outs, cots) if c is not None and not o.stop_gradient]
    leaves = []
    for path, _ in _perturbable(op, args, idx):
        i, j = path
        leaves.append(ins[i] if j is None else ins[i][j])
    if not targets:
        return ins, leaves, [None] * len(leaves)
    gs = paddle.grad(targets, leaves, gouts, create_graph=create_graph, allow_unused=True)
    return ins, leaves, gs


def check_grad(op, args, opts, seed=1234):
    idx = opts.get('grad_inputs', float_inputs(op, args))
    if not idx:
        return
    rng = np.random.default_rng(7)
    _, outs = run_op(op, args, (), seed)
    cots = _cotangents(op, outs, rng)
    f = lambda a: _objective(op, a, cots, seed)  # noqa: E731
    rtol, atol = opts.get('grad_rtol', 1e-4), opts.get('grad_atol', 1e-5)
    for create_graph in (False, True):
        _, _, gs = analytic_grads(op, args, idx, cots, seed, create_graph)
        for (path, arr), g in zip(_perturbable(op, args, idx), gs):
            num = numeric_grad(f, args, path, arr)
            got = np.zeros_like(num) if g is None else g.numpy()
            np.testing.assert_allclose(
                got, num, rtol=rtol, atol=atol,
                err_msg="op %s: grad of input %s (%s path)" % (
                    op.name, op.input_names[path[0]],
                    'composite' if create_graph else 'fast'))


def check_double_grad(op, args, opts, seed=1234):
    idx = opts.get('grad_inputs', float_inputs(op, args))
    if not idx or opts.get('double_grad', True) is False:
        return
    rng = np.random.default_rng(11)
    _, outs = run_op(op, args, (), seed)
    cots = _cotangents(op, outs, rng)
    paths = list(_perturbable(op, args, idx))
    ws = [rng.standard_normal(arr.shape) for _, arr in paths]

    def first_order(a):
        """<dL/dx, w> summed over inputs, from the composite rule."""
        _, _, gs = analytic_grads(op, a, idx, cots, seed, True)
        return sum(float(np.sum(g.numpy() * w)) for g, w in zip(gs, ws) if g is not None)

    _, leaves, gs = analytic_grads(op, args, idx, cots, seed, True)
    pairs = [(g, paddle.to_tensor(w)) for g, w in zip(gs, ws)
             if g is not None and not g.stop_gradient]
    if not pairs:
        return   # the first-order grads do not depend on the inputs (linear op)
    gg = paddle.grad([g for g, _ in pairs], leaves, [w for _, w in pairs], allow_unused=True)
    rtol, atol = opts.get('grad_rtol', 1e-4), opts.get('grad_atol', 1e-5)
    for (path, arr), g2 in zip(paths, gg):
        num = numeric_grad(first_order, args, path, arr)
        got = np.zeros_like(num) if g2 is None else g2.numpy()
        np.testing.assert_allclose(got, num, rtol=rtol * 10, atol=atol * 10,
                                   err_msg="op %s: grad-of-grad of input %s" % (
                                       op.name, op.input_names[path[0]]))
