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
from framework.static import verify
from framework.static.sub_blocks import (blocks_outer_reads, nested_ops, outer_reads,
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
