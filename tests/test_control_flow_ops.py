"""The control-flow ops as registry ops: ``cond``, ``while`` and ``while_grad``.

They run sub-blocks of a Program, so the registry-generated op tests (which
compare a numpy kernel with a reference) leave them out; this file tests each
of them instead: the declaration (``sub_blocks`` and the static hooks), the
one ``sub_block_ids``/``outer_reads`` every pass uses, on nested programs, and
each op compiled (its ``emit`` hook) against a numpy reference, with and
without the passes and the NaN/Inf checks, with gradients against finite
differences (``block_grad``).
"""
import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.ops import registry
from framework.graph import verify
from framework.graph.passes.analysis import persistable_writes
from framework.graph.passes import PASSES
from framework.graph.sub_blocks import (blocks_outer_reads, nested_ops, outer_reads,
                                        runs_sub_blocks, sub_block_ids)

# test_ops_generated.py checks that every op declaring sub-blocks is listed here
TESTED_BLOCK_OPS = ('cond', 'while', 'while_grad')


def fd_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


def nested_program():
    """An outer while whose body holds a cond whose true branch holds an inner
    while; ``x`` is read only by the inner loop's body, ``y`` only by the
    cond's false branch, and the gradient adds while_grad and grad conds."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [2], 'float64')
        y = static.data('y', [2], 'float64')
        n = static.data('n', [1], 'int64')
        x.stop_gradient = y.stop_gradient = False
        zero = paddle.full([1], 0, 'int64')

        def inner(s):
            _, s = static.nn.while_loop(lambda j, t: j < 2, lambda j, t: (j + 1, t * x),
                                        [zero, s])
            return s

        def body(i, s):
            return i + 1, static.nn.cond(i < 1, lambda: inner(s), lambda: s + y)
        _, s = static.nn.while_loop(lambda i, s: i < n, body, [zero, paddle.ones([2], 'float64')])
        loss = s.sum()
        gx, gy = static.gradients([loss], [x, y])
    return main, loss, gx, gy


def reference(xv, yv, n):
    s = np.ones(2)
    for i in range(n):
        s = s * xv * xv if i < 1 else s + yv
    return s.sum()


def ops_of(program, op_type):
    return [op for b in program.blocks for op in b.ops if op.type == op_type]


def declared_in_sub_blocks(program, op):
    names = set()
    for o in [op] + list(nested_ops(program, sub_block_ids(op))):
        for idx in sub_block_ids(o):
            names.update(program.block(idx).vars)
    return names


# ---- the declarations ------------------------------------------------------------------

@pytest.mark.parametrize('name', TESTED_BLOCK_OPS)
def test_block_ops_are_registry_ops_with_declared_sub_blocks(name):
    op = registry.lookup(name)
    assert op.sub_blocks and set(op.sub_blocks) <= set(op.attr_names)
    assert op.emit is not None and op.block_rules is not None
    assert (op.block_grad is not None) == (name != 'while_grad')
    assert not op.undeclared_attrs
    assert not op.test_cases          # no kernel: the generated op tests leave them out


@pytest.mark.parametrize('name,api', [('cond', 'static.nn.cond'),
                                      ('while', 'static.nn.while_loop'),
                                      ('while_grad', 'static backward')])
def test_calling_a_block_op_directly_names_what_builds_it(name, api):
    op = registry.lookup(name)
    inputs = [[paddle.ones([1])] if variadic else paddle.ones([1]) for variadic in op.variadic]
    with pytest.raises(registry.OpError, match="op '%s' runs sub-blocks.*%s" % (name, api)):
        op(*inputs)


def test_kernel_ops_declare_no_sub_blocks():
    assert {n for n, op in registry.all_ops().items() if op.sub_blocks} == set(TESTED_BLOCK_OPS)


# ---- sub_block_ids and outer_reads on nested programs ----------------------------------------

def test_sub_block_ids_follow_the_declaration(static_mode):
    main, *_ = nested_program()
    for w in ops_of(main, 'while'):
        assert sub_block_ids(w) == [w.attrs['cond_block'], w.attrs['body_block']]
    forward, grads = [], []
    for c in ops_of(main, 'cond'):
        (grads if c.attrs.get('true_fwd_block') is not None else forward).append(c)
    assert len(forward) == 1 and grads
    assert sub_block_ids(forward[0]) == [forward[0].attrs['true_block'],
                                         forward[0].attrs['false_block']]
    g = grads[0]
    assert sub_block_ids(g) == [g.attrs[a] for a in ('true_block', 'false_block',
                                                      'true_fwd_block', 'false_fwd_block')]
    bodies = {w.attrs['body_block'] for w in ops_of(main, 'while')}
    assert ops_of(main, 'while_grad')
    for wg in ops_of(main, 'while_grad'):
        assert sub_block_ids(wg) == [wg.attrs['recompute_block'], wg.attrs['grad_block']]
        assert wg.attrs['recompute_block'] not in bodies     # its own copy, no loop's body
    kernel_ops = [o for b in main.blocks for o in b.ops if o.type not in TESTED_BLOCK_OPS]
    assert kernel_ops and not any(sub_block_ids(o) or runs_sub_blocks(o) for o in kernel_ops)


def test_sub_block_ids_ignore_undeclared_block_attributes(static_mode):
    main, *_ = nested_program()
    op = next(o for o in main.global_block().ops if not runs_sub_blocks(o))
    op.attrs['sub_block'] = 1          # not a declared sub-block: no control flow
    assert sub_block_ids(op) == []


def test_outer_reads_see_through_every_level_of_nesting(static_mode):
    main, *_ = nested_program()
    gb = main.global_block()
    outer = next(o for o in gb.ops if o.type == 'while')
    reads = outer_reads(main, outer)
    # x is read only two levels down (the inner loop's body), y one level down
    assert {'x', 'y', 'n'} <= set(reads)
    assert not set(reads) & declared_in_sub_blocks(main, outer)
    assert len(reads) == len(set(reads))
    # the explicit captured inputs each op was built with are its outer reads
    for op in ops_of(main, 'cond') + ops_of(main, 'while'):
        assert set(op.input('Input')) <= set(outer_reads(main, op))
        assert set(op.input_arg_names) <= set(outer_reads(main, op))
    inner_cond = next(o for o in ops_of(main, 'cond') if o.attrs.get('true_fwd_block') is None)
    assert {'x', 'y'} <= set(inner_cond.input('Input'))


def test_blocks_outer_reads_keep_first_read_order_and_extra_names(static_mode):
    main, *_ = nested_program()
    outer = next(o for o in main.global_block().ops if o.type == 'while')
    ids = sub_block_ids(outer)
    reads = blocks_outer_reads(main, ids)
    assert blocks_outer_reads(main, ids, ['extra_name'])[0] == 'extra_name'
    first_read = []
    for op in nested_ops(main, ids):
        first_read.extend(n for n in op.input_arg_names if n in reads and n not in first_read)
    assert first_read == reads
    # names a sub-block declares are not outer reads, even when named as extra
    inner = main.block(ids[1]).vars
    assert not set(blocks_outer_reads(main, ids, list(inner))) & set(inner)


# ---- each op: compiled (emit) vs a reference, gradients (block_grad) -------------------------

def test_each_block_op_compiles_to_the_reference_with_gradients(static_mode):
    main, loss, gx, gy = nested_program()
    assert {op.type for b in main.blocks for op in b.ops} >= set(TESTED_BLOCK_OPS)
    verify.verify_program(main)
    exe = static.Executor()
    xv, yv = np.array([0.7, -1.3]), np.array([0.4, 2.0])
    fetch = [loss.name, gx.name, gy.name]
    for n in (0, 1, 3):
        feed = {'x': xv, 'y': yv, 'n': np.array([n])}
        compiled = exe.run(main, feed=feed, fetch_list=fetch)
        # the plan with a NaN/Inf check after each op (and no passes) computes the same
        paddle.set_flags({'FLAGS_check_nan_inf': True})
        try:
            checked = exe.run(main, feed=feed, fetch_list=fetch)
        finally:
            paddle.set_flags({'FLAGS_check_nan_inf': False})
        for c, i in zip(compiled, checked):
            np.testing.assert_allclose(c, i, rtol=1e-12)
        np.testing.assert_allclose(compiled[0], reference(xv, yv, n), rtol=1e-12)
        np.testing.assert_allclose(compiled[1], fd_grad(lambda v: reference(v, yv, n), xv),
                                   rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(compiled[2], fd_grad(lambda v: reference(xv, v, n), yv),
                                   rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize('name', TESTED_BLOCK_OPS)
def test_the_verifier_checks_each_block_ops_sub_block_indices(static_mode, name):
    main, *_ = nested_program()
    op = ops_of(main, name)[0]
    op.attrs[registry.lookup(name).sub_blocks[0]] = len(main.blocks) + 3
    with pytest.raises(verify.VerifyError, match="'%s'.*sub-block index .* out of range" % name):
        verify.verify_program(main)


# ---- backward's own recompute blocks (graph/recompute.py) -----------------------------------

def no_passes():
    bs = static.BuildStrategy()
    for switch, _ in PASSES:
        setattr(bs, switch, False)
    bs.specialize_kernels = False
    return bs


def run_both(main, feed, fetch):
    """``fetch`` with every pass on, and with none (the same values)."""
    exe = static.Executor()
    on = exe.run(main, feed=feed, fetch_list=fetch)
    off = exe.run(static.CompiledProgram(main, build_strategy=no_passes()), feed=feed,
                  fetch_list=fetch)
    for a, b in zip(on, off):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    return on


def block_types(program, idx):
    return [op.type for op in program.block(idx).ops]


def test_while_grad_recomputes_in_its_own_copy_of_only_what_the_grads_read(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [3], 'float64')
        w = static.data('w', [3], 'float64')
        w.stop_gradient = False

        def body(i, s):
            paddle.cos(s)                       # dead in the forward too
            t = paddle.tanh(s)
            return i + 1, t * w                 # the counter and the product: not read by grads
        _, s = static.nn.while_loop(lambda i, s: i < 3, body, [paddle.zeros([1], 'int64'), x])
        loop = ops_of(main, 'while')[0]
        body_block = main.block(loop.attrs['body_block'])
        before = [(op, dict(op.inputs), dict(op.outputs)) for op in body_block.ops]
        gw, = static.gradients([s.sum()], [w])
    wg, = ops_of(main, 'while_grad')
    rec = main.block(wg.attrs['recompute_block'])
    # the forward's body is left as it was
    assert [(op, dict(op.inputs), dict(op.outputs)) for op in body_block.ops] == before
    assert block_types(main, loop.attrs['body_block']) == ['cos', 'tanh', 'assign_value', 'add',
                                                           'multiply']
    # tanh's grad reads its output, multiply's grad its inputs: nothing else is recomputed
    assert block_types(main, wg.attrs['recompute_block']) == ['tanh']
    assert not set(rec.vars) & set(body_block.vars)
    assert set(wg.attrs['loop_vars']) <= set(rec.vars)
    assert not set(wg.attrs['loop_vars']) & set(loop.attrs['loop_vars'])
    assert all(o.attrs['op_role'] == 'backward' for o in rec.ops)
    xv, wv = np.array([0.3, -0.8, 1.1]), np.array([0.9, -0.4, 1.3])

    def ref(wv):
        s = xv
        for _ in range(3):
            s = np.tanh(s) * wv
        return s.sum()
    got, = run_both(main, {'x': xv, 'w': wv}, [gw])
    np.testing.assert_allclose(got, fd_grad(ref, wv), rtol=1e-6, atol=1e-9)


def loops_in_loops_and_conds():
    """A while in a while body, a while in a cond branch, and two gradients
    of the same loops (``gs``: of ``loss`` and of the outer loop's sum)."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [2], 'float64')
        n = static.data('n', [1], 'int64')
        x.stop_gradient = False
        zero = paddle.zeros([1], 'int64')

        def inner(s):
            return static.nn.while_loop(lambda j, t: j < n,
                                        lambda j, t: (j + 1, paddle.sin(t * x)), [zero, s])[1]
        _, s = static.nn.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, inner(s) + s * 0.5),
                                    [zero, paddle.ones([2], 'float64')])

        def in_branch():
            return static.nn.while_loop(lambda j, t: j < n,
                                        lambda j, t: (j + 1, paddle.tanh(t) * x), [zero, s])[1]
        r = static.nn.cond(s.sum() > -100.0, in_branch, lambda: s * x)
        loss = r.sum()
        gs = static.gradients([loss], [x]) + static.gradients([s.sum()], [x])
    return main, loss, gs


def loops_reference(xv, n):
    s = np.ones(2)
    for _ in range(2):
        t = s
        for _ in range(n):
            t = np.sin(t * xv)
        s = t + s * 0.5
    t = s
    for _ in range(n):
        t = np.tanh(t) * xv
    return t.sum(), s.sum()


@pytest.mark.parametrize('n', [0, 1, 3])
def test_gradients_through_nested_loops_match_finite_differences(static_mode, n):
    main, loss, (g_loss, g_s) = loops_in_loops_and_conds()
    verify.verify_program(main)
    # every while_grad runs blocks of its own: no block is run by two ops
    runs = [i for op in ops_of(main, 'while_grad') + ops_of(main, 'while') + ops_of(main, 'cond')
            for i in sub_block_ids(op)]
    assert len(runs) == len(set(runs))
    xv = np.array([0.4, -0.9])
    got = run_both(main, {'x': xv, 'n': np.array([n])}, [loss, g_loss, g_s])
    np.testing.assert_allclose(got[0], loops_reference(xv, n)[0], rtol=1e-12)
    for g, k in zip(got[1:], (0, 1)):
        np.testing.assert_allclose(g, fd_grad(lambda v: loops_reference(v, n)[k], xv),
                                   rtol=1e-6, atol=1e-9)


def test_a_program_with_recompute_blocks_round_trips_and_prunes_to_inference(static_mode,
                                                                              tmp_path):
    main, loss, (g_loss, _) = loops_in_loops_and_conds()
    exe = static.Executor()
    xv, feed = np.array([0.4, -0.9]), {'x': np.array([0.4, -0.9]), 'n': np.array([2])}
    want = fd_grad(lambda v: loops_reference(v, 2)[0], xv)
    copy = main.clone()
    verify.verify_program(copy)
    np.testing.assert_allclose(exe.run(copy, feed=feed, fetch_list=[g_loss.name])[0], want,
                               rtol=1e-6, atol=1e-9)
    test_prog = main.clone(for_test=True)
    verify.verify_program(test_prog)
    assert 'while_grad' not in [op.type for op in test_prog.global_block().ops]
    out, = exe.run(test_prog, feed=feed, fetch_list=[loss.name])
    np.testing.assert_allclose(out, loops_reference(xv, 2)[0], rtol=1e-12)
    prefix = str(tmp_path / 'loops')
    static.save_inference_model(prefix, [main.global_block().var('x'),
                                         main.global_block().var('n')], [loss], exe, program=main)
    prog, feeds, fetches = static.load_inference_model(prefix, exe)
    # the gradients' recompute and grad blocks are not in the file
    assert 'while_grad' not in {op.type for b in prog.blocks for op in b.ops}
    run = {0} | {i for op in nested_ops(prog, [0]) for i in sub_block_ids(op)}
    assert run == set(range(len(prog.blocks)))
    out, = exe.run(prog, feed=feed, fetch_list=fetches)
    np.testing.assert_allclose(out, loops_reference(xv, 2)[0], rtol=1e-12)


def printing_loop():
    """A loop body that prints (Python's print, static.Print with a
    backward-phase grad print, a print in a cond) and uses a printed value."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [2], 'float64')
        n = static.data('n', [1], 'int64')
        x.stop_gradient = False

        def body(i, s):
            registry.lookup('python_print')([i], [['step ', None]], [True])
            s2 = static.Print(s * x, message='grad of s*x', print_phase='backward')

            def first():
                static.Print(s2, message='in the branch')
                return s2 + 1.0
            return i + 1, paddle.sin(static.nn.cond(i < 1, first, lambda: s2 * 1.0))
        _, s = static.nn.while_loop(lambda i, s: i < n, body,
                                    [paddle.zeros([1], 'int64'), paddle.ones([2], 'float64')])
        loss = s.sum()
        g, = static.gradients([loss], [x])
    return main, loss, g


def printing_reference(xv, n):
    s = np.ones(2)
    for i in range(n):
        s = np.sin(s * xv + (1.0 if i < 1 else 0.0))
    return s.sum()


@pytest.mark.parametrize('n', [0, 1, 3])
def test_prints_in_a_loop_body_print_once_per_forward_iteration(static_mode, capsys, n):
    main, loss, g = printing_loop()
    rec_types = {op.type for wg in ops_of(main, 'while_grad')
                 for op in nested_ops(main, [wg.attrs['recompute_block']])}
    assert not rec_types & {'print', 'python_print'}
    xv = np.array([0.3, -0.7])
    for strategy in (None, no_passes()):
        prog = main if strategy is None else static.CompiledProgram(main, build_strategy=strategy)
        got = static.Executor().run(prog, feed={'x': xv, 'n': np.array([n])},
                                    fetch_list=[loss, g])
        text = capsys.readouterr().out
        assert text.count('step ') == n                       # the forward's, once each
        assert text.count('in the branch') == min(n, 1)
        assert text.count('grad of s*x') == n                 # backward's grad print, once each
        np.testing.assert_allclose(got[0], printing_reference(xv, n), rtol=1e-12)
        # the printed value, not a stale one, is what backward recomputes with
        np.testing.assert_allclose(got[1], fd_grad(lambda v: printing_reference(v, n), xv),
                                   rtol=1e-6, atol=1e-9)


def test_parameters_written_in_a_loop_body_are_written_by_the_forward_only(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [2], 'float64')
        x.stop_gradient = False
        gb = main.global_block()
        last = gb.create_var(name='last', shape=[2], dtype='float64', persistable=True)
        count = gb.create_var(name='count', shape=[1], dtype='float64', persistable=True)

        def body(i, s):
            s = paddle.tanh(s * x)
            paddle.assign(s, output=last)
            paddle.assign(count + 1.0, output=count)
            return i + 1, s
        _, s = static.nn.while_loop(lambda i, s: i < 3, body,
                                    [paddle.zeros([1], 'int64'), paddle.ones([2], 'float64')])
        g, = static.gradients([s.sum()], [x])
    wg, = ops_of(main, 'while_grad')
    assert not persistable_writes(main, wg)
    xv = np.array([0.5, -1.2])

    def ref(xv):
        s = np.ones(2)
        for _ in range(3):
            s = np.tanh(s * xv)
        return s
    for strategy in (None, no_passes()):
        scope = static.Scope()
        scope.vars.update(count=np.array([10.0]), last=np.zeros(2))
        prog = main if strategy is None else static.CompiledProgram(main, build_strategy=strategy)
        got, = static.Executor().run(prog, feed={'x': xv}, fetch_list=[g], scope=scope)
        np.testing.assert_allclose(scope.vars['count'], [13.0])        # 3 writes, not 6
        np.testing.assert_allclose(scope.vars['last'], ref(xv), rtol=1e-12)  # the forward's last
        np.testing.assert_allclose(got, fd_grad(lambda v: ref(v).sum(), xv), rtol=1e-6,
                                   atol=1e-9)


def test_second_derivative_through_a_cond_differentiates_its_recompute_too(static_mode):
    """The branch of a grad cond is its recompute block, then its grad ops:
    differentiating it again goes through both (it used to fail: the grad ops
    read the forward branch's values from a block out of their reach)."""
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [2], 'float64')
        x.stop_gradient = False
        y = static.nn.cond(x.sum() > 0, lambda: paddle.sin(x) * x, lambda: x * x * x)
        g, = static.gradients([y.sum()], [x])
        gg, = static.gradients([g.sum()], [x])
    for xv in (np.array([1.0, 2.0]), np.array([-1.0, -2.0])):
        got = run_both(main, {'x': xv}, [g, gg])
        if xv.sum() > 0:
            want = [np.cos(xv) * xv + np.sin(xv), 2 * np.cos(xv) - np.sin(xv) * xv]
        else:
            want = [3 * xv * xv, 6 * xv]
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-12)
