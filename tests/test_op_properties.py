"""What every op declares it is (``framework/ops/properties.py``), checked
against what its kernel does on the op's own test cases.

The passes, the code generator, auto_cast and ``paddle.flops`` trust these
declarations instead of keeping tables of op names, so each one is a claim
tested here: a pattern on every op, the properties its pattern requires,
freshly allocated results where passes may write into them, ufuncs and
in-place forms bit-identical to the kernel, identities and pass-throughs that
really return the input, inference forms that are well-formed ops, and pure
ops that really are deterministic.
"""
import numpy as np
import pytest

import framework  # noqa: F401  (registers every op)
from framework.ops import backends, properties, registry
import op_check

KERNEL_OPS = {n: op for n, op in registry.all_ops().items() if not op.sub_blocks}
CASES = [(name, k) for name, op in sorted(KERNEL_OPS.items()) for k in range(len(op.test_cases))]


def cases_where(predicate):
    """The (op name, case index) pairs of the ops ``predicate(op)`` selects."""
    return [(n, k) for n, k in CASES if predicate(registry.lookup(n))]


def _case(name, k):
    op = registry.lookup(name)
    args, opts = op.test_cases[k]
    return op, args, opts


def _fresh_args(op, args):
    """The case's arguments with every array copied (kernels may not be
    handed the case's own arrays twice)."""
    out = []
    for i, a in enumerate(args):
        if i < op.n_in and op.variadic[i]:
            out.append([np.array(v) for v in a])
        elif isinstance(a, np.ndarray):
            out.append(np.array(a))
        else:
            out.append(a)
    return out


def _arrays(op, args):
    ins = []
    for i in range(op.n_in):
        a = args[i]
        ins.extend(a if op.variadic[i] else [a])
    return [a for a in ins if isinstance(a, np.ndarray)]


def _outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def _run(op, args, seed=1234):
    framework.seed(seed)
    return op.kernel(*args)


# ---- declarations ---------------------------------------------------------------------

def test_every_op_declares_a_pattern():
    missing = sorted(n for n, op in registry.all_ops().items()
                     if op.pattern not in properties.PATTERNS)
    assert not missing, "ops without a pattern (ops/properties.py): %s" % ', '.join(missing)


def test_every_op_declares_what_its_pattern_requires():
    missing = ['%s (%s): %s' % (n, op.pattern, p) for n, op in sorted(registry.all_ops().items())
               for p in properties.missing(op)]
    assert not missing, "undeclared properties:\n  " + '\n  '.join(missing)


@pytest.mark.parametrize('pattern, required', [
    ('elementwise', {'ufunc', 'flops'}), ('broadcast', {'ufunc', 'identity', 'flops'}),
    ('reduce', {'identity', 'flops'}), ('view', {'passthrough'}), ('opaque', set())])
def test_the_requirement_check_sees_each_missing_property(pattern, required):
    def op(**declared):
        return registry.OpDef('example', np.add, None, ['x', 'y'], ['out'], {},
                              pattern=pattern, **declared)
    assert set(properties.missing(op())) == required
    for p in required:               # declaring one (None counts) leaves the others
        assert set(properties.missing(op(**{p: None}))) == required - {p}
    assert properties.missing(op(**dict.fromkeys(required))) == []


def test_declarations_are_checked_when_the_op_is_made():
    with pytest.raises(ValueError, match="pattern must be one of"):
        registry.OpDef('bad', abs, None, ['x'], ['out'], {}, pattern='pointwise')
    with pytest.raises(ValueError, match="unknown effects"):
        registry.OpDef('bad', abs, None, ['x'], ['out'], {}, effects=('loud',))
    with pytest.raises(ValueError, match="'stateful'"):
        registry.OpDef('bad', abs, None, ['x'], ['out', 'x_out'], {}, inplace_map={'x_out': 'x'})
    with pytest.raises(ValueError, match="identity names inputs"):
        registry.OpDef('bad', abs, None, ['x', 'y'], ['out'], {}, identity={'z': 0})
    with pytest.raises(ValueError, match="amp must be one of"):
        registry.OpDef('bad', abs, None, ['x'], ['out'], {}, amp='grey')
    with pytest.raises(ValueError, match="passthrough names inputs it does not have: y"):
        registry.OpDef('bad', abs, None, ['x'], ['out'], {}, passthrough=('y', bool))
    with pytest.raises(ValueError, match="amp_inputs names inputs it does not have: w"):
        registry.OpDef('bad', abs, None, ['x'], ['out'], {}, amp_inputs=('w',))
    with pytest.raises(ValueError, match="ufunc_on must be one of"):
        registry.OpDef('bad', abs, None, ['x'], ['out'], {}, ufunc_on='ints')


def test_ops_that_write_inputs_declare_it():
    assert all('stateful' in op.effects for op in registry.all_ops().values() if op.inplace_map)


# ---- kernels against their declarations (every test case) ------------------------------

@pytest.mark.parametrize('name,k', cases_where(lambda op: not op.random and not op.kept))
def test_pure_kernels_are_deterministic(name, k):
    """Two runs under different seeds agree unless the op declares 'random'."""
    op, args, _ = _case(name, k)
    a = _outputs(_run(op, _fresh_args(op, args), seed=1))
    b = _outputs(_run(op, _fresh_args(op, args), seed=2))
    for x, y in zip(a, b):
        if isinstance(x, (list, tuple)):
            continue
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y), err_msg=name)


@pytest.mark.parametrize('name,k', cases_where(lambda op: op.fresh))
def test_fresh_kernels_never_return_inputs_or_views_of_them(name, k):
    op, args, _ = _case(name, k)
    call = _fresh_args(op, args)
    outs = _outputs(_run(op, call))
    for out in outs:
        for a in _arrays(op, call):
            assert not np.shares_memory(np.asarray(out), a), name


@pytest.mark.parametrize('name,k', cases_where(
    lambda op: op.pattern in ('elementwise', 'broadcast')))
def test_pattern_shapes(name, k):
    """An elementwise op keeps its input's shape; a broadcast op gives the
    broadcast of its tensor inputs' shapes."""
    op, args, _ = _case(name, k)
    call = _fresh_args(op, args)
    shapes = [np.shape(a) for a in call[:op.n_in] if a is not None]
    for out in _outputs(_run(op, call)):
        assert np.shape(out) == np.broadcast_shapes(*shapes), name


def _ufunc_applies(op, call):
    arrays = [np.asarray(a) for a in call[:op.n_in]]
    if op.ufunc_on == 'any':
        return len({a.dtype for a in arrays}) == 1
    return all(a.dtype.kind in 'fc' and a.dtype.itemsize >= 4 for a in arrays) and \
        len({a.dtype for a in arrays}) == 1


@pytest.mark.parametrize('name,k', cases_where(lambda op: properties.value(op.ufunc) is not None))
def test_declared_ufuncs_are_exactly_the_kernels(name, k):
    op, args, _ = _case(name, k)
    u = op.ufunc
    call = _fresh_args(op, args)
    if not _ufunc_applies(op, call):
        pytest.skip('inputs outside the ufunc domain')
    want, got = _run(op, call), u(*call[:op.n_in])
    assert np.asarray(got).dtype == np.asarray(want).dtype, name
    np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize('name,k', cases_where(lambda op: op.kernel_into is not None))
def test_kernel_into_writes_exactly_the_kernel_result(name, k):
    op, args, _ = _case(name, k)
    call = _fresh_args(op, args)
    want = np.asarray(op.kernel(*call))
    tried = 0
    for slot in range(op.n_in):
        a = np.asarray(call[slot])
        if a.shape != want.shape or a.dtype != want.dtype or a.ndim == 0:
            continue
        if op.ufunc_on == 'float' and (a.dtype.kind not in 'fc' or a.dtype.itemsize < 4):
            continue
        buf = a.copy()
        ins = list(call[:op.n_in])
        ins[slot] = buf
        try:
            got = op.kernel_into(*ins, buf)
        except (TypeError, ValueError):
            # refused (mixed dtypes: a Program casts them to one first): nothing written
            assert any(np.asarray(v).dtype != a.dtype for v in ins), name
            np.testing.assert_array_equal(buf, a, err_msg=name)
            continue
        assert got is buf, name
        np.testing.assert_array_equal(buf, want, err_msg=name)
        tried += 1
    if not tried:
        pytest.skip('no input of the result shape and dtype')


@pytest.mark.parametrize('name', sorted(n for n, op in KERNEL_OPS.items()
                                        if op.kernel_into and op.ufunc_on == 'float'))
def test_kernel_into_refuses_half_precision_where_the_kernel_upcasts(name):
    """A float ufunc's kernel computes float16 in float32: computing into a
    float16 buffer would round differently, so it refuses, writing nothing."""
    op = registry.lookup(name)
    x = np.linspace(0.5, 2, 12).reshape(3, 4).astype(np.float16)
    buf = x.copy()
    with pytest.raises(TypeError):
        op.kernel_into(*([x] * op.n_in), buf)
    np.testing.assert_array_equal(buf, x)
    x32 = x.astype(np.float32)
    assert op.kernel_into(*([x32] * op.n_in), x32.copy()).dtype == np.float32


@pytest.mark.parametrize('name', sorted(n for n, op in KERNEL_OPS.items() if op.kernel_into))
def test_kernel_into_refuses_a_buffer_of_another_dtype(name):
    op = registry.lookup(name)
    x = np.linspace(-2, 2, 12).reshape(3, 4)
    buf = np.zeros((3, 4), np.int8)
    with pytest.raises((TypeError, ValueError)):
        op.kernel_into(*([x] * op.n_in), buf)
    assert not buf.any(), name


@pytest.mark.parametrize('name,k', cases_where(
    lambda op: op.pattern == 'broadcast' and properties.value(op.identity)))
def test_binary_identities_return_the_other_input(name, k):
    op, args, _ = _case(name, k)
    ident = op.identity
    call = _fresh_args(op, args)
    for slot, e in ident.items():
        i = op.input_names.index(slot)
        x = np.asarray(call[1 - i])
        if x.dtype.kind not in 'fiu':
            continue
        ins = [None, None]
        ins[1 - i], ins[i] = x, np.asarray(e, x.dtype)
        got = np.asarray(op.kernel(*ins))
        if got.dtype != x.dtype:
            continue          # (int / 1 is a float: the identity pass checks dtypes too)
        np.testing.assert_array_equal(got, x + 0 if x.dtype.kind == 'f' else x, err_msg=name)


@pytest.mark.parametrize('name,k', cases_where(
    lambda op: op.pattern == 'reduce' and properties.value(op.identity) is not None))
def test_reduction_identities_are_the_reduction_of_nothing(name, k):
    op, args, _ = _case(name, k)
    ident = op.identity
    x = np.asarray(args[0])
    empty = np.zeros((0,) + x.shape[1:], x.dtype)
    got = op.kernel(empty, 0, False, *args[op.n_in + 2:])
    np.testing.assert_array_equal(got, np.full(x.shape[1:], ident), err_msg=name)


@pytest.mark.parametrize('name', sorted(n for n, op in KERNEL_OPS.items()
                                        if properties.value(op.passthrough)))
def test_passthrough_ops_return_their_input_where_declared(name):
    """On every case whose output has the passed input's shape and dtype
    (and whose attributes meet the condition), the kernel returns the input's
    values; at least one case must be of that kind."""
    op = registry.lookup(name)
    declared = op.passthrough
    slot, condition = declared if isinstance(declared, tuple) else (declared, None)
    i = op.input_names.index(slot)
    checked = 0
    for args, _ in op.test_cases:
        call = _fresh_args(op, args)
        x = np.asarray(call[i])
        attrs = dict(zip(op.attr_names, list(call[op.n_in:]) + list(
            op.attr_defaults[len(call) - op.n_in:])))
        out = np.asarray(_outputs(op.kernel(*call))[0])
        if out.shape != x.shape or out.dtype != x.dtype or (
                condition is not None and not condition(attrs)):
            continue
        np.testing.assert_array_equal(out, x, err_msg=name)
        checked += 1
    assert checked, "op %s declares passthrough but no test case exercises it" % name


@pytest.mark.parametrize('name,k', cases_where(lambda op: callable(properties.value(op.flops))))
def test_flop_formulas_count_every_case(name, k):
    op, args, _ = _case(name, k)
    call = _fresh_args(op, args)
    outs = _outputs(op.kernel(*call))
    ins = {n: (None if call[j] is None else
               [np.shape(v) for v in call[j]] if op.variadic[j] else np.shape(call[j]))
           for j, n in enumerate(op.input_names)}
    count = op.flops(ins, dict(zip(op.output_names, [np.shape(o) for o in outs])),
                     dict(zip(op.attr_names, call[op.n_in:])))
    assert isinstance(count, (int, np.integer)) and count >= 0, (name, count)


@pytest.mark.parametrize('name,k', cases_where(lambda op: op.inference is not None))
def test_inference_forms_are_well_formed_ops(name, k):
    """The inference form is a registered op computing the outputs it keeps
    with the metas the training form gives them."""
    op, args, _ = _case(name, k)
    inputs = {n: ['in_%s' % n] for n in op.input_names}
    outputs = {n: ['out_%s' % n] for n in op.output_names}
    attrs = dict(zip(op.attr_names, args[op.n_in:]))
    form = op.inference(inputs, outputs, attrs)
    if form is None:
        return
    t, f_in, f_out, f_attrs = form
    inf = registry.lookup(t)
    metas = {'in_%s' % n: (registry.Meta(np.shape(a), np.asarray(a).dtype)
                           if isinstance(a, np.ndarray) else a)
             for n, a in zip(op.input_names, args)}
    train = dict(zip(op.output_names, _outputs(op.infer_meta(*metas.values(), *args[op.n_in:]))))
    f_args = [metas[f_in[n][0]] if f_in.get(n) else None for n in inf.input_names]
    f_attrs = [f_attrs.get(n, d) for n, d in zip(inf.attr_names, inf.attr_defaults)]
    got = dict(zip(inf.output_names, _outputs(inf.infer_meta(*f_args, *f_attrs))))
    for slot, names in f_out.items():
        kept = names[0][len('out_'):]
        assert got[slot] == train[kept], (name, slot)


# ---- backends: every other kernel against the numpy reference ------------------------------

def _as_float32(op, args):
    """The case's arguments with float64 arrays as float32 (a backend's kernels
    are float32 ones; the registry's cases are mostly float64 for the
    gradient checks)."""
    def cast(a):
        return a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a
    return [[cast(v) for v in a] if i < op.n_in and op.variadic[i] else cast(a)
            for i, a in enumerate(args)]


def check_backend_kernels(op):
    """Each non-numpy kernel of ``op`` gives the numpy kernel's result (dtype,
    shape, values) on every test case, as given and in float32; a kernel
    must take at least one of them (declining with NotImplemented is for
    calls it does not cover, not for all)."""
    reference = op.kernels['numpy']
    for backend, kernel in op.kernels.items():
        if backend == 'numpy' or (backend in backends.NAMES and not backends.available(backend)):
            continue          # a real backend whose library is not here (no extra)
        taken = 0
        for args, opts in op.test_cases:
            for case, tol in ((args, (opts.get('rtol', 1e-5), opts.get('atol', 1e-6))),
                              (_as_float32(op, args), (2e-4, 2e-5))):
                framework.seed(1234)
                want = _outputs(reference(*_fresh_args(op, case)))
                framework.seed(1234)
                got = kernel(*_fresh_args(op, case))
                if got is NotImplemented:
                    continue
                taken += 1
                got = _outputs(got)
                assert len(got) == len(want), (op.name, backend)
                for g, w in zip(op_check.compared(op, got), op_check.compared(op, want)):
                    g, w = np.asarray(g), np.asarray(w)
                    assert g.dtype == w.dtype and g.shape == w.shape, (op.name, backend)
                    scale = max(1.0, float(np.abs(w).max())) if w.size else 1.0
                    np.testing.assert_allclose(g, w, rtol=tol[0], atol=tol[1] * scale,
                                               err_msg='%s on %s' % (op.name, backend))
        assert taken, "%s's %s kernel declined every test case" % (op.name, backend)


@pytest.mark.parametrize('name', sorted(n for n, op in KERNEL_OPS.items() if len(op.kernels) > 1))
def test_backend_kernels_match_numpy(name):
    op = registry.lookup(name)
    if not any(backends.available(b) for b in op.kernels if b != 'numpy'):
        pytest.skip('no backend of %s loads here: %s' % (name, sorted(op.kernels)))
    check_backend_kernels(op)


def test_the_backend_check_catches_a_wrong_kernel():
    op = registry.OpDef('example_tanh', np.tanh, None, ['x'], ['out'], {}, pattern='elementwise')
    registry.add_test_case(op, np.linspace(-1, 1, 5), ref=np.tanh)
    op.def_kernel('example')(lambda x: np.tanh(x) if x.dtype == np.float32 else NotImplemented)
    check_backend_kernels(op)
    for wrong in (lambda x: np.tanh(x) + 1e-3,                  # values
                  lambda x: np.tanh(x).astype(np.float64),      # the float32 case's dtype
                  lambda x: NotImplemented):                    # takes no case at all
        op.def_kernel('example')(wrong)
        with pytest.raises(AssertionError):
            check_backend_kernels(op)
    with pytest.raises(ValueError, match='numpy kernel'):
        op.def_kernel('numpy')
