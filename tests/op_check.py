"""Checks run on every registered op, from the test cases declared next to it.

For each case (``registry.add_test_case``): the eager forward against the
numpy reference, ``infer_meta`` against the kernel's real output, the
first-order gradient (fast path and composite rule) against float64 central
finite differences, and the grad-of-grad against finite differences of the
composite first-order gradient; a static Program of the op (run by the
Executor, gradients from ``static.gradients``) against eager; and a dtype
sweep: the case in float32/float16/bfloat16 (complex64, int32) against its
float64 (complex128, int64) result.

Complex values use Paddle's gradient convention (the gradient of a real loss
with respect to z = a + ib is dL/da + i dL/db): complex inputs are perturbed
in both parts, and a complex output k enters the objective as
sum(Re(conj(cot_k) * out_k)), whose gradient with respect to out_k is cot_k.

A case option ``symmetric=(i, ...)`` marks inputs that are symmetric (complex:
Hermitian) matrices, batches of them, as ``cholesky`` and ``eigh`` expect:
finite differences then move pairs of entries together, keeping the input
symmetric, and the symmetric part of the analytic gradient is what they measure.
"""
import numpy as np
import pytest

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
            if all(isinstance(v, np.ndarray) and v.dtype.kind in 'fc' for v in a):
                out.append(i)
        elif isinstance(a, np.ndarray) and a.dtype.kind in 'fc':
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


def compared(op, outs):
    """The outputs with a value to compare: all but the op's reserve outputs
    (their content is the kernel's own, ``registry.py``)."""
    if not op.reserve_outputs:
        return list(outs)
    return [o for name, o in zip(op.output_names, outs) if name not in op.reserve_outputs]


def check_forward(op, args, opts):
    ref = opts.get('ref')
    assert ref is not None, "test case of op '%s' has no numpy reference (ref=)" % op.name
    _, outs = run_op(op, args)
    outs = compared(op, outs)
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


def in_metas(op, args):
    """The ``Meta`` of each array input (lists for variadic ones); other inputs as given."""
    metas = []
    for i in range(op.n_in):
        a = args[i]
        if op.variadic[i]:
            metas.append([registry.Meta(v.shape, v.dtype) for v in a])
        elif isinstance(a, np.ndarray):
            metas.append(registry.Meta(a.shape, a.dtype))
        else:
            metas.append(a)
    return metas


def check_infer_meta(op, args, opts):
    _, outs = run_op(op, args)
    m = as_list(op.infer_meta(*in_metas(op, args), *args[op.n_in:]))
    assert len(m) == len(outs), "op %s: infer_meta gives %d outputs, kernel %d" % (
        op.name, len(m), len(outs))
    for mi, o in zip(m, outs):
        assert len(mi.shape) == o.ndim and all(
            d == -1 or d == s for d, s in zip(mi.shape, o.shape)), \
            "op %s: infer_meta shape %s vs kernel %s" % (op.name, list(mi.shape), o.shape)
        assert np.dtype(mi.dtype) == o.dtype, "op %s: infer_meta dtype %s vs kernel %s" % (
            op.name, mi.dtype, o.dtype)


def random_like(arr, rng):
    """Standard normal values of arr's shape, complex when arr is complex."""
    v = rng.standard_normal(np.shape(arr))
    if np.asarray(arr).dtype.kind == 'c':
        v = v + 1j * rng.standard_normal(np.shape(arr))
    return v


def inner(a, b):
    """The real inner product Re(sum(conj(a) * b)) of the gradient convention."""
    return float(np.sum(np.real(np.conj(a) * b)))


def _cotangents(op, outs, rng, only=None):
    """Random cotangents of the differentiable outputs (``only``: of these output
    indices; a case's ``grad_outputs`` leaves out outputs defined only up to a
    phase, such as complex singular vectors)."""
    cots = []
    names = op.output_names * len(outs) if op.variadic_out else op.output_names
    for k, (name, o) in enumerate(zip(names, outs)):
        if name in op.nondiff_outputs or o.dtype.kind not in 'fc' or \
                (only is not None and k not in only):
            cots.append(None)
        else:
            cots.append(random_like(o, rng))
    return cots


def _objective(op, args, cots, seed):
    """Scalar sum(Re(conj(cot_k) * out_k)) evaluated with numpy kernels only."""
    paddle.seed(seed)
    outs = as_list(op.kernel(*args))
    return sum(inner(c, np.asarray(o).astype(np.result_type(o, np.float64)))
               for o, c in zip(outs, cots) if c is not None)


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


def _directions(arr, symmetric):
    """(flat index, partner flat index or None) for every entry; for a symmetric
    input the pair (i, j), (j, i) moves together and the step is split between
    them, so the derivative measured is the symmetric part of the gradient."""
    if not symmetric:
        for k in range(arr.size):
            yield k, None
        return
    n = arr.shape[-1]
    idx = np.arange(arr.size).reshape(arr.shape)
    for b in np.ndindex(*arr.shape[:-2]):
        for i in range(n):
            for j in range(i, n):
                yield idx[b + (i, j)], idx[b + (j, i)]


def numeric_grad(f, args, path, arr, eps=EPS, symmetric=False):
    """Central differences of f along each entry of arr (real and imaginary
    parts for a complex arr: the gradient is df/da + i df/db)."""
    parts = (1.0, 1j) if arr.dtype.kind == 'c' else (1.0,)
    g = np.zeros(arr.shape, np.complex128 if arr.dtype.kind == 'c' else np.float64)
    flat = g.reshape(-1)
    for k, partner in _directions(arr, symmetric):
        for unit in parts:
            step = eps * unit
            plus = arr.copy().reshape(-1)
            minus = arr.copy().reshape(-1)
            if partner == k and unit != 1.0:
                continue   # a Hermitian matrix has a real diagonal
            if partner is None or partner == k:
                plus[k] += step
                minus[k] -= step
            else:   # the pair moves as (step, conj(step)) / 2: Hermitian stays Hermitian
                plus[k] += step / 2
                plus[partner] += np.conj(step) / 2
                minus[k] -= step / 2
                minus[partner] -= np.conj(step) / 2
            fp = f(_replace(args, path, plus.reshape(arr.shape)))
            fm = f(_replace(args, path, minus.reshape(arr.shape)))
            flat[k] += unit * (fp - fm) / (2 * eps)
            if partner is not None and partner != k:
                flat[partner] += np.conj(unit) * (fp - fm) / (2 * eps)
    return g


def symmetric_part(g):
    """The symmetric (Hermitian, for complex g) part of a batch of matrices."""
    return (g + np.conj(np.swapaxes(g, -1, -2))) / 2


def _measured(got, path, opts):
    """The part of an analytic gradient finite differences can see."""
    return symmetric_part(got) if path[0] in opts.get('symmetric', ()) else got


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
    cots = _cotangents(op, outs, rng, opts.get('grad_outputs'))
    if opts.get('grad_error'):          # the op's gradient is a clear error
        with pytest.raises(registry.OpError, match=opts['grad_error']):
            analytic_grads(op, args, idx, cots, seed, False)
        return
    f = lambda a: _objective(op, a, cots, seed)  # noqa: E731
    rtol, atol = opts.get('grad_rtol', 1e-4), opts.get('grad_atol', 1e-5)
    sym = opts.get('symmetric', ())
    for create_graph in (False, True):
        _, _, gs = analytic_grads(op, args, idx, cots, seed, create_graph)
        for (path, arr), g in zip(_perturbable(op, args, idx), gs):
            num = numeric_grad(f, args, path, arr, symmetric=path[0] in sym)
            got = np.zeros_like(num) if g is None else _measured(g.numpy(), path, opts)
            assert g is None or np.asarray(g.numpy()).dtype.kind == arr.dtype.kind, \
                "op %s: gradient of input %s is %s, the input %s" % (
                    op.name, op.input_names[path[0]], g.numpy().dtype, arr.dtype)
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
    cots = _cotangents(op, outs, rng, opts.get('grad_outputs'))
    paths = list(_perturbable(op, args, idx))
    sym = opts.get('symmetric', ())
    ws = [random_like(arr, rng) for _, arr in paths]
    ws = [symmetric_part(w) if p[0] in sym else w for (p, _), w in zip(paths, ws)]

    def first_order(a):
        """<dL/dx, w> summed over inputs, from the composite rule."""
        _, _, gs = analytic_grads(op, a, idx, cots, seed, True)
        return sum(inner(w, g.numpy()) for g, w in zip(gs, ws) if g is not None)

    _, leaves, gs = analytic_grads(op, args, idx, cots, seed, True)
    pairs = [(g, paddle.to_tensor(w)) for g, w in zip(gs, ws)
             if g is not None and not g.stop_gradient]
    if not pairs:
        return   # the first-order grads do not depend on the inputs (linear op)
    gg = paddle.grad([g for g, _ in pairs], leaves, [w for _, w in pairs], allow_unused=True)
    rtol, atol = opts.get('grad_rtol', 1e-4), opts.get('grad_atol', 1e-5)
    for (path, arr), g2 in zip(paths, gg):
        num = numeric_grad(first_order, args, path, arr, symmetric=path[0] in sym)
        got = np.zeros_like(num) if g2 is None else _measured(g2.numpy(), path, opts)
        np.testing.assert_allclose(got, num, rtol=rtol * 10, atol=atol * 10,
                                   err_msg="op %s: grad-of-grad of input %s" % (
                                       op.name, op.input_names[path[0]]))


# ---- eager vs static -------------------------------------------------------------

def _feed_vars(op, args, grad_idx, feed):
    """static.data Variables standing for the case's array inputs (fed, so no
    value is known while the program is built and nothing is folded away)."""
    from framework import static
    ins = []
    for i in range(op.n_in):
        a = args[i]
        if op.variadic[i]:
            ins.append([_data(static, '%s_%d_%d' % (op.input_names[i], i, j), v,
                              i in grad_idx, feed) for j, v in enumerate(a)])
        elif isinstance(a, np.ndarray):
            ins.append(_data(static, '%s_%d' % (op.input_names[i], i), a, i in grad_idx, feed))
        else:
            ins.append(a)
    return ins


def _data(static, name, arr, need_grad, feed):
    v = static.data(name, list(arr.shape), str(arr.dtype))
    v.stop_gradient = not need_grad
    feed[name] = arr
    return v


def run_static(op, args, grad_idx=(), cots=None, seed=1234):
    """The op's outputs, and the gradients of sum(Re(conj(cot_k) * out_k)) with
    respect to the ``grad_idx`` inputs, from a static Program run by the
    Executor (``static.gradients`` appends the grad ops)."""
    from framework import static
    feed = {}
    main, startup = static.Program(), static.Program()
    with static.static_mode_guard(), static.program_guard(main, startup):
        ins = _feed_vars(op, args, grad_idx, feed)
        outs = as_list(op(*ins, *args[op.n_in:]))
        leaves = [ins[i] if j is None else ins[i][j]
                  for (i, j), _ in _perturbable(op, args, grad_idx)]
        grads = []
        if cots is not None:
            pairs = [(o, c) for o, c in zip(outs, cots) if c is not None and not o.stop_gradient]
            if pairs:
                gvars = []
                for k, (o, c) in enumerate(pairs):
                    gvars.append(static.data('cot_%d' % k, list(c.shape), str(c.dtype)))
                    feed['cot_%d' % k] = c
                grads = static.gradients([o for o, _ in pairs], leaves, gvars)
            else:
                grads = [None] * len(leaves)
    paddle.seed(seed)
    fetch = outs + [g for g in grads if g is not None]
    got = static.Executor().run(main, feed=feed, fetch_list=fetch)
    it = iter(got[len(outs):])
    return got[:len(outs)], [None if g is None else next(it) for g in grads]


def _close(got, expect, rtol, atol, msg):
    got, expect = np.asarray(got), np.asarray(expect)
    assert got.shape == expect.shape, "%s: shape %s vs eager %s" % (msg, got.shape, expect.shape)
    assert got.dtype == expect.dtype, "%s: dtype %s vs eager %s" % (msg, got.dtype, expect.dtype)
    if expect.dtype.kind in 'fc':
        np.testing.assert_allclose(got, expect, rtol=rtol, atol=atol, err_msg=msg)
    else:
        np.testing.assert_array_equal(got, expect, err_msg=msg)


def check_static(op, args, opts, seed=1234):
    """Static Program + Executor against eager: the outputs, and (for a
    differentiable case) the gradients ``static.gradients`` builds against
    ``paddle.grad``'s, on the same inputs and cotangents. A random op's values
    depend on the generator's path, so only shapes and dtypes are compared."""
    _, eager = run_op(op, args, (), seed)
    eager = [o.numpy() for o in eager]
    idx = []
    if op.differentiable and opts.get('grad', True) and not op.random:
        idx = opts.get('grad_inputs', float_inputs(op, args))
    cots = None
    if idx:
        cots = _cotangents(op, eager, np.random.default_rng(7), opts.get('grad_outputs'))
        cots = [None if c is None else np.asarray(c).astype(o.dtype) for c, o in zip(cots, eager)]
    if idx and opts.get('grad_error'):  # static.gradients raises it too
        with pytest.raises(registry.OpError, match=opts['grad_error']):
            run_static(op, args, idx, cots, seed)
        idx, cots = [], None
    outs, grads = run_static(op, args, idx, cots, seed)
    assert len(outs) == len(eager), "op %s: static gives %d outputs, eager %d" % (
        op.name, len(outs), len(eager))
    rtol, atol = opts.get('rtol', 1e-5), opts.get('atol', 1e-6)
    for k, (s, e) in enumerate(zip(compared(op, outs), compared(op, eager))):
        msg = "op %s: static output %d vs eager" % (op.name, k)
        if op.random:
            assert s.shape == e.shape and s.dtype == e.dtype, "%s: %s %s vs %s %s" % (
                msg, s.shape, s.dtype, e.shape, e.dtype)
        else:
            _close(s, e, rtol, atol, msg)
    if not idx:
        return
    _, _, egrads = analytic_grads(op, args, idx, cots, seed, False)
    rtol, atol = opts.get('grad_rtol', 1e-4), opts.get('grad_atol', 1e-5)
    for (path, arr), s, e in zip(_perturbable(op, args, idx), grads, egrads):
        msg = "op %s: static grad of input %s vs eager" % (op.name, op.input_names[path[0]])
        if e is None:
            assert s is None or not np.any(s), msg + ': eager has none'
        else:
            assert s is not None, msg + ': static has none'
            _close(s, e.numpy(), rtol, atol, msg)


# ---- dtype sweep -----------------------------------------------------------------

def _sweep_dtypes():
    """kind -> (the widest dtype, the others every op of that kind is run in)."""
    floats = [np.float32, np.float16]
    try:
        from framework import dtype as _dt
        floats.append(_dt.bfloat16_dtype())
    except ImportError:     # ml_dtypes (a test extra) missing: no bfloat16 sweep
        pass
    return {'f': (np.dtype(np.float64), [np.dtype(d) for d in floats]),
            'c': (np.dtype(np.complex128), [np.dtype(np.complex64)]),
            'i': (np.dtype(np.int64), [np.dtype(np.int32)])}


SWEEP = _sweep_dtypes()


def _kind(dtype):
    """'f' for float16/32/64 and bfloat16 (a 'V' kind to numpy), else numpy's kind."""
    d = np.dtype(dtype)
    return 'f' if d.kind == 'f' or d.name == 'bfloat16' else d.kind


def tolerance(dtype):
    """Relative tolerance of a result computed in ``dtype`` against the widest
    dtype on the same input values: about ten units of rounding for float16
    and bfloat16 (ops compute in float32 and round once, or in a short chain),
    more for float32, whose kernels may run longer chains (series, iterations)."""
    d = np.dtype(dtype)
    if d.name == 'bfloat16':
        return 2.0 ** -8 * 10
    if d.kind in 'fc':
        return float(np.finfo(d).eps) * (100 if d.itemsize >= 4 * (1 + (d.kind == 'c')) else 10)
    return 0.0


def representable(ref, dtype):
    """Entries of the widest dtype's result ``ref`` that ``dtype`` can hold: a
    value beyond its range (an int64 shift past 32 bits, nan_to_num's float64
    maximum) has no counterpart to compare with."""
    d = np.dtype(dtype)
    if _kind(d) == 'f':
        big = float(np.finfo(np.float32).max if d.name == 'bfloat16' else np.finfo(d).max)
        return ~(np.isfinite(ref) & (np.abs(ref) > big))
    if d.kind in 'iu':
        info = np.iinfo(d)
        return (ref >= info.min) & (ref <= info.max)
    return np.ones(np.shape(ref), bool)


def case_kinds(op, args):
    """The dtype kinds ('f', 'c', 'i') of the case's array inputs."""
    kinds = set()
    for i in range(op.n_in):
        for v in (args[i] if op.variadic[i] else [args[i]]):
            if isinstance(v, np.ndarray):
                kinds.add(_kind(v.dtype))
    return kinds & set(SWEEP)


def cast_case(op, args, kind, dtype):
    """The case with every array input of ``kind`` cast to ``dtype``."""
    def cast(a):
        return a.astype(dtype) if isinstance(a, np.ndarray) and _kind(a.dtype) == kind else a
    ins = [[cast(v) for v in a] if op.variadic[i] else cast(a)
           for i, a in enumerate(args[:op.n_in])]
    return tuple(ins) + tuple(args[op.n_in:])


def check_dtype(op, args, opts, kind, dtype, seed=1234):
    """The case run with its ``kind`` inputs in ``dtype``: the op either
    declines the dtype in ``infer_meta`` (an OpError, which the eager kernel
    raises too), or runs, gives the dtypes ``infer_meta`` says, and agrees with
    the widest dtype's result on the same (rounded) input values within
    ``dtype``'s tolerance. A random op's values follow the generator's path in
    each dtype, and a case declared ``dtype_invariant=False`` computes on the
    bits (a dtype view, a logical shift), so for those only the dtypes and
    shapes ``infer_meta`` gives are checked."""
    with np.errstate(all='ignore'):   # half precision overflows where float64 does not
        _check_dtype(op, args, opts, kind, dtype, seed)


def _check_dtype(op, args, opts, kind, dtype, seed):
    low = cast_case(op, args, kind, dtype)
    try:
        metas = as_list(op.infer_meta(*in_metas(op, low), *low[op.n_in:]))
    except registry.OpError:
        try:
            run_op(op, low, (), seed)
        except registry.OpError:
            return
        raise AssertionError("op %s: infer_meta rejects %s inputs but the eager kernel "
                             "runs them" % (op.name, dtype))
    _, got = run_op(op, low, (), seed)
    assert len(metas) == len(got), "op %s (%s): infer_meta gives %d outputs, kernel %d" % (
        op.name, dtype, len(metas), len(got))
    for k, (m, g) in enumerate(zip(metas, got)):
        assert g.dtype == np.dtype(m.dtype) and len(m.shape) == g.ndim and all(
            d in (-1, n) for d, n in zip(m.shape, g.shape)), \
            "op %s, inputs in %s: output %d is %s%s, infer_meta says %s%s" % (
                op.name, dtype, k, g.dtype, list(g.shape), m.dtype, list(m.shape))
    if op.random or not opts.get('dtype_invariant', True):
        return
    _, ref = run_op(op, cast_case(op, low, kind, SWEEP[kind][0]), (), seed)
    tol = tolerance(dtype)
    for k, (g, r) in enumerate(zip(compared(op, got), compared(op, ref))):
        msg = "op %s, inputs in %s: output %d" % (op.name, dtype, k)
        g, r = g.numpy(), r.numpy()
        assert g.shape == r.shape, "%s has shape %s, in %s %s" % (
            msg, g.shape, SWEEP[kind][0], r.shape)
        keep = representable(r, g.dtype)
        g, r = g[keep], r[keep]
        if _kind(g.dtype) in 'fc':
            g = g.astype(np.complex128 if g.dtype.kind == 'c' else np.float64)
            scale = max(1.0, float(np.max(np.abs(r), initial=0.0)))
            np.testing.assert_allclose(g, r, rtol=max(tol, opts.get('rtol', 0)),
                                       atol=max(tol * scale, opts.get('atol', 0)), err_msg=msg)
        else:
            np.testing.assert_array_equal(g, r, err_msg=msg)
