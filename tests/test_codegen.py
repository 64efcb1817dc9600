"""The static Executor's generated code: readable (locals named after the
program's variables, kernels after their op types, a comment on each op's
line), valid Python, printable through ``Executor.generated_code``; and the
FLAGS_check_nan_inf check emitted into that same code, after each op, in
branches and loop bodies too."""
import re

import numpy as np
import pytest

import framework as paddle
from framework import static


def cond_program():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data('x', [-1, 4], 'float32')
        h = static.nn.fc(x, 3, activation='relu')
        y = static.nn.cond(paddle.mean(h) > 0.5, lambda: paddle.tanh(h) * 2.0,
                           lambda: paddle.exp(h) - 1.0)
        loss = paddle.mean(y)
    exe = static.Executor()
    exe.run(startup)
    return main, exe, x, h, y, loss


def all_ops(program):
    return [op for b in program.blocks for op in b.ops]


def op_of(program, op_type):
    return next(op for op in all_ops(program) if op.type == op_type)


def local_of(name):
    return re.sub(r'\W', '_', name)


def test_generated_code_names_variables_and_kernels_and_comments_each_op(static_mode):
    main, exe, x, h, y, loss = cond_program()
    feed = {'x': np.ones((2, 4), 'float32')}
    code = exe.generated_code(main, feed, [loss])
    compile(code, '<generated>', 'exec')
    assert "x = F['x']" in code
    weight = main.global_block().all_parameters()[0].name
    assert '%s = _load(S, %r)' % (local_of(weight), weight) in code
    tanh = op_of(main, 'tanh')
    tanh_out = local_of(tanh.output_arg_names[0])
    branch = tanh.block.idx
    line = next(l for l in code.splitlines() if 'k_tanh(' in l)
    assert re.search(r'^\s+%s = k_tanh\(\w+\)\s+# tanh \[block %d op 0\] test_codegen\.py:\d+$'
                     % (tanh_out, branch), line), line
    assert re.search(r'if _pred\(\w+\):\s+# cond \[op \d+\]', code)
    assert re.search(r'k_mean\(%s, None, False\)\s+# mean \[op \d+\]'
                     % local_of(y.name), code)
    assert 'return [%s]' % local_of(loss.name) in code
    # the code run executes (the cached plan's), which computes the program
    assert exe.generated_code(main, feed, [loss]) is code
    w, b = (np.asarray(static.global_scope().vars[p.name])
            for p in main.global_block().all_parameters())
    h_val = np.maximum(feed['x'] @ w + b, 0)
    want = (np.tanh(h_val) * 2.0).mean() if h_val.mean() > 0.5 else (np.exp(h_val) - 1.0).mean()
    out, = exe.run(main, feed=feed, fetch_list=[loss])
    np.testing.assert_allclose(out, want, rtol=1e-5)


def test_every_op_line_has_a_comment_with_its_type(static_mode):
    main, exe, x, h, y, loss = cond_program()
    code = exe.generated_code(main, ['x'], [loss])
    for line in code.splitlines():
        m = re.search(r'= (k_\w+)\(', line)
        if m:
            assert re.search(r'# \w+ \[(block \d+ )?op \d+\]', line), line


def test_feed_names_or_feed_dict_give_the_same_plan(static_mode):
    main, exe, x, h, y, loss = cond_program()
    by_names = exe.generated_code(main, [x], [loss])
    assert exe.generated_code(main, {'x': np.ones((1, 4), 'float32')}, [loss.name]) is by_names
    assert exe.generated_code(static.CompiledProgram(main), ['x'], [loss]) == by_names
    with pytest.raises(TypeError, match='Executor.generated_code: program must be'):
        exe.generated_code(object(), ['x'], [loss])


def test_variable_names_become_unique_identifiers(static_mode):
    """Names that are not identifiers, keywords, builtins or that collide
    after sanitising still get distinct valid locals."""
    main = static.Program()
    names = ['a.b', 'a_b', 'lambda', 'sum', '1x', 'S', 'F', 'k_add']
    with static.program_guard(main, static.Program()):
        xs = [static.data(n, [2], 'float32') for n in names]
        total = xs[0]
        for v in xs[1:]:
            total = total + v
    exe = static.Executor()
    feed = {n: np.full(2, i + 1.0, 'float32') for i, n in enumerate(names)}
    code = exe.generated_code(main, feed, [total])
    compile(code, '<generated>', 'exec')
    loads = re.findall(r'^    (\w+) = F\[', code, re.M)
    assert len(set(loads)) == len(names)
    assert "a_b = F['a.b']" in code and "a_b_1 = F['a_b']" in code
    out, = exe.run(main, feed=feed, fetch_list=[total])
    np.testing.assert_allclose(out, np.full(2, sum(range(1, len(names) + 1)), 'float32'))


def test_while_loop_code_names_loop_variables(static_mode):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        i = paddle.full([1], 0, 'int64')
        x = static.data('x', [3], 'float32')
        _, y = static.nn.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, paddle.sin(y)), [i, x])
    exe = static.Executor()
    code = exe.generated_code(main, ['x'], [y])
    compile(code, '<generated>', 'exec')
    while_op = op_of(main, 'while')
    assert re.search(r'\n    while \w+:\n', code)
    for ph in while_op.attr('loop_vars'):
        assert local_of(ph) in code
    body = while_op.attr('body_block')
    assert re.search(r'k_sin\(\w+\)\s+# sin \[block %d op \d+\]' % body, code)
    out, = exe.run(main, feed={'x': np.ones(3, 'float32')}, fetch_list=[y])
    np.testing.assert_allclose(out, np.sin(np.sin(np.sin(np.ones(3)))), rtol=1e-6)


# ---- FLAGS_check_nan_inf: checks in the generated code ----------------------------------

def test_checks_are_emitted_only_with_the_flag(static_mode):
    main, exe, x, h, y, loss = cond_program()
    assert '_check_finite' not in exe.generated_code(main, ['x'], [loss])
    paddle.set_flags({'FLAGS_check_nan_inf': True})
    try:
        code = exe.generated_code(main, ['x'], [loss])
    finally:
        paddle.set_flags({'FLAGS_check_nan_inf': False})
    compile(code, '<generated>', 'exec')
    tanh_out = op_of(main, 'tanh').output_arg_names[0]
    assert re.search(r"\n(\s+)%s = k_tanh\(.*\n\1_check_finite\(op_tanh, %r, %s, \(\w+,\)\)"
                     % (local_of(tanh_out), tanh_out, local_of(tanh_out)), code)


def test_nan_check_names_the_op_and_output_variable(static_mode, nan_check):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [3], 'float32')
        y = paddle.tanh(paddle.log(x * 2.0))
    exe = static.Executor()
    log_out = op_of(main, 'log').output_arg_names[0]
    with pytest.raises(FloatingPointError) as e:
        exe.run(main, feed={'x': np.array([-1.0, 1.0, 2.0], 'float32')}, fetch_list=[y])
    msg = str(e.value)
    assert "op 'log' produced NaN or Inf in output '%s'" % log_out in msg
    assert 'input shapes: [[3]]' in msg and 'test_codegen.py:' in msg
    ok, = exe.run(main, feed={'x': np.array([1.0, 1.0, 2.0], 'float32')}, fetch_list=[y])
    np.testing.assert_allclose(ok, np.tanh(np.log([2.0, 2.0, 4.0])), rtol=1e-6)


def test_nan_check_inside_a_cond_branch(static_mode, nan_check):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [2], 'float32')
        y = static.nn.cond(paddle.sum(x) > 0.0, lambda: paddle.sqrt(x - 5.0), lambda: x * 3.0)
    exe = static.Executor()
    sqrt_out = op_of(main, 'sqrt').output_arg_names[0]
    with pytest.raises(FloatingPointError,
                       match=r"op 'sqrt' produced NaN or Inf in output '%s'" % re.escape(sqrt_out)):
        exe.run(main, feed={'x': np.array([1.0, 2.0], 'float32')}, fetch_list=[y])
    # the other branch is finite: nothing raises
    out, = exe.run(main, feed={'x': np.array([-1.0, -2.0], 'float32')}, fetch_list=[y])
    np.testing.assert_allclose(out, [-3.0, -6.0])


def test_nan_check_inside_a_while_body(static_mode, nan_check):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        i = paddle.full([1], 0, 'int64')
        x = static.data('x', [2], 'float32')
        # y * 1e15 each step: 1e10 overflows float32 to Inf in the second step
        _, y = static.nn.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 1e15), [i, x])
    exe = static.Executor()
    mul = next(op for op in all_ops(main) if op.type == 'multiply'
               and op.block.idx == op_of(main, 'while').attr('body_block'))
    with pytest.raises(FloatingPointError) as e:
        exe.run(main, feed={'x': np.array([1.0, 1e10], 'float32')}, fetch_list=[y])
    assert ("op 'multiply' produced NaN or Inf in output '%s'" % mul.output_arg_names[0]
            in str(e.value))
    out, = exe.run(main, feed={'x': np.array([1e-20, 0.0], 'float32')}, fetch_list=[y])
    np.testing.assert_allclose(out, [1e25, 0.0], rtol=1e-5)


def test_nan_check_inside_the_backward_of_a_while_body(static_mode, nan_check):
    main = static.Program()
    with static.program_guard(main, static.Program()):
        i = paddle.full([1], 0, 'int64')
        x = static.data('x', [2], 'float32')
        x.stop_gradient = False
        # sqrt(0) is finite, its gradient at 0 is Inf (only in the loop's grad block)
        _, y = static.nn.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, paddle.sqrt(y)),
                                    [i, x])
        g, = static.gradients([paddle.sum(y)], [x])
    exe = static.Executor()
    grad_block = main.block(op_of(main, 'while_grad').attr('grad_block'))
    div = next(op for op in grad_block.ops if op.type == 'divide')     # d sqrt: g * 0.5 / out
    with pytest.raises(FloatingPointError) as e:
        exe.run(main, feed={'x': np.array([0.0, 4.0], 'float32')}, fetch_list=[y, g])
    assert ("op 'divide' produced NaN or Inf in output '%s'" % div.output_arg_names[0]
            in str(e.value))
    y_val, g_val = exe.run(main, feed={'x': np.array([1.0, 16.0], 'float32')}, fetch_list=[y, g])
    np.testing.assert_allclose(y_val, [1.0, 2.0], rtol=1e-6)
    np.testing.assert_allclose(g_val, [0.25, 0.25 / 16.0 ** 0.75], rtol=1e-5)
