"""The executor's pass pipeline (graph/passes/__init__.py): one ordered list,
passes that say whether they changed the program, and the IR verifier after
each of them (``FLAGS_verify_passes``), naming the pass that broke a program."""
import json

import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.graph import passes, serialize, verify
from framework.graph.passes import PIPELINE, Pass, PassVerifyError, run_pipeline
from framework.graph.sub_blocks import sub_block_ids


pytestmark = pytest.mark.usefixtures('static_mode')   # (tests/conftest.py)


@pytest.fixture
def verifying():
    old = paddle.get_flags('FLAGS_verify_passes')
    paddle.set_flags({'FLAGS_verify_passes': True})
    yield
    paddle.set_flags(old)


def build():
    """A program each optional pass finds work in: an identity (x * 1), a
    loop-invariant exp inside a while, fusable elementwise chains and an
    unused value (pruned)."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [3], 'float32')
        paddle.sin(x)                                       # nothing reads it
        y = paddle.tanh(x * 1.0) * 2.0 + 1.0
        zero = paddle.full([1], 0, 'int64')
        _, z = static.nn.while_loop(lambda i, s: i < 3,
                                    lambda i, s: (i + 1, s * paddle.exp(x)), [zero, y])
        out = paddle.nn.functional.sigmoid(paddle.abs(z) * 0.5 + y)
    return main, out


def work_copy(main):
    work = main.clone()
    work._captured = main._captured
    return work


def snapshot(program):
    return json.dumps(serialize.program_to_dict(program), sort_keys=True, default=repr)


def test_the_pipeline_is_one_ordered_list_with_prune_first():
    names = [p.name for p in PIPELINE]
    assert names == ['prune', 'constant_folding', 'remove_identity', 'enable_cse',
                     'loop_invariant_hoisting', 'batch_split_siblings', 'fuse_matmul_add_act',
                     'fuse_conv_bn_add_act', 'fuse_elewise_add_act_ops', 'enable_dce',
                     'plan_layouts', 'enable_inplace', 'memory_optimize']
    assert PIPELINE[0].switch is None
    strategy = static.BuildStrategy()
    assert all(hasattr(strategy, p.switch) for p in PIPELINE[1:])
    assert passes.PASSES == [(p.switch, p.fn) for p in PIPELINE[1:]]


def test_each_pass_reports_exactly_whether_it_changed_the_program():
    main, out = build()
    work = work_copy(main)
    seen = []

    def watched(p):
        def fn(program, feed_names, fetch_names, **kw):
            before = snapshot(program)
            changed = p.fn(program, feed_names, fetch_names, **kw)
            seen.append((p.name, changed, snapshot(program) != before))
            return changed
        return Pass(p.name, p.switch, fn)
    ran = run_pipeline(work, ['x'], [out.name], static.BuildStrategy(),
                       pipeline=[watched(p) for p in PIPELINE])
    assert [name for name, _ in ran] == [p.name for p in PIPELINE]
    for name, reported, really in seen:
        assert bool(reported) == really, name
    changed = {name for name, c in ran if c}
    assert {'prune', 'remove_identity', 'loop_invariant_hoisting', 'fuse_elewise_add_act_ops',
            'memory_optimize'} <= changed, ran


def test_without_a_strategy_only_prune_runs_and_switches_turn_passes_off():
    main, out = build()
    assert run_pipeline(work_copy(main), ['x'], [out.name]) == [('prune', True)]
    strategy = static.BuildStrategy()
    strategy.enable_cse = strategy.memory_optimize = False
    ran = [n for n, _ in run_pipeline(work_copy(main), ['x'], [out.name], strategy)]
    assert 'enable_cse' not in ran and 'memory_optimize' not in ran and \
        len(ran) == len(PIPELINE) - 2


def test_the_verifier_runs_after_each_pass_that_changed_the_program(verifying, monkeypatch):
    main, out = build()
    calls = []
    real = verify.verify_program
    monkeypatch.setattr(verify, 'verify_program', lambda *a, **k: calls.append(1) or real(*a, **k))
    ran = run_pipeline(work_copy(main), ['x'], [out.name], static.BuildStrategy())
    assert len(calls) == 1 + sum(c for _, c in ran)
    calls.clear()
    paddle.set_flags({'FLAGS_verify_passes': False})
    run_pipeline(work_copy(main), ['x'], [out.name], static.BuildStrategy())
    assert not calls


def _drop_first(op_type):
    def broken(program, feed_names, fetch_names):
        for b in program.blocks:
            for op in b.ops:
                if op.type == op_type:
                    b.ops.remove(op)
                    return True
        return False
    return broken


@pytest.mark.parametrize('name,fn,why', [
    ('drop_tanh', _drop_first('tanh'), "reads variable .* before anything defines it"),
    ('drop_sigmoid', _drop_first('sigmoid'), "nothing computes the fetched"),
    ('bad_block_index', lambda p, f, o: any(
        op.attrs.update(body_block=99) is None for op in p.global_block().ops
        if sub_block_ids(op)), 'sub-block index 99 is out of range'),
    ('free_too_early', lambda p, f, o: [op.attrs.update(op_free=op.output_arg_names)
                                        for op in p.global_block().ops if op.type == 'tanh'],
     "reads variable 'tanh.* before anything defines it"),
])
def test_a_pass_that_breaks_the_program_is_named(verifying, monkeypatch, name, fn, why):
    main, out = build()
    broken = Pass(name, 'enable_cse', fn)
    pipeline = PIPELINE[:3] + (broken,) + PIPELINE[4:]
    with pytest.raises(PassVerifyError, match="after pass '%s': .*%s" % (name, why)) as e:
        run_pipeline(work_copy(main), ['x'], [out.name], static.BuildStrategy(),
                     pipeline=pipeline)
    assert e.value.pass_name == name
    # the executor runs the same pipeline: the error reaches its caller
    monkeypatch.setattr(passes, 'PIPELINE', pipeline)
    exe = static.Executor()
    with pytest.raises(PassVerifyError, match="after pass '%s'" % name):
        exe.run(static.CompiledProgram(main), feed={'x': np.ones(3, 'float32')},
                fetch_list=[out])


def test_a_program_malformed_before_the_passes_is_not_blamed_on_one(verifying):
    main, out = build()
    work = work_copy(main)
    tanh = next(op for op in work.global_block().ops if op.type == 'tanh')
    tanh.attrs['bogus'] = 1
    with pytest.raises(PassVerifyError, match="before the first pass: .*unknown attribute 'bogus'"):
        run_pipeline(work, ['x'], [out.name], static.BuildStrategy())


def test_verified_runs_give_the_same_values(verifying):
    main, out = build()
    xv = np.array([0.3, -1.2, 2.0], 'float32')
    on = static.Executor().run(main, feed={'x': xv}, fetch_list=[out])[0]
    paddle.set_flags({'FLAGS_verify_passes': False})
    off = static.Executor().run(main, feed={'x': xv}, fetch_list=[out])[0]
    np.testing.assert_array_equal(on, off)


def test_loaded_programs_still_refuse_the_executors_markers():
    main, out = build()
    work = work_copy(main)
    run_pipeline(work, ['x'], [out.name], static.BuildStrategy())
    assert any('op_free' in op.attrs for op in work.global_block().ops)
    verify.verify_program(work, {'x'}, fetch_names=[out.name], executor_copy=True)
    with pytest.raises(verify.VerifyError, match="executor's own"):
        verify.verify_program(work, {'x'})
