"""dy2static conversion scenarios.

Each scenario runs the original function eagerly and through @to_static on
inputs that take different paths through the SAME cached program, compares
the results, and checks which control-flow ops the program holds: tensor
conditions must become cond/while ops, Python conditions must not.
"""
import traceback

import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework import nn
from framework.jit import to_static, not_to_static
from framework.static import InputSpec


def T(v, dtype='float32', grad=False):
    return paddle.to_tensor(np.asarray(v, dtype=dtype), stop_gradient=not grad)


def op_types(program):
    return [op.type for b in program.blocks for op in b.ops]


def to_np(v):
    if isinstance(v, (list, tuple)):
        return [to_np(x) for x in v]
    if isinstance(v, dict):
        return {k: to_np(x) for k, x in v.items()}
    if isinstance(v, paddle.Tensor):
        return v.numpy()
    return v


def assert_same(a, b):
    a, b = to_np(a), to_np(b)
    if isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(np.asarray(b), a, rtol=1e-5, atol=1e-6)
    else:
        assert a == b


def check(fn, arg_sets, has=(), lacks=(), programs=1):
    """Eager == static for every argument set, one cached program, and the
    expected control-flow ops in it."""
    sf = to_static(fn)
    for args in arg_sets:
        assert_same(fn(*args), sf(*args))
    assert len(sf.program_cache) == programs
    types = op_types(sf.concrete_program.main_program)
    for t in has:
        assert t in types, "expected a %s op, program has %s" % (t, sorted(set(types)))
    for t in lacks:
        assert t not in types, "unexpected %s op" % t
    return sf


# ---- if / else ----------------------------------------------------------------------

def if_else(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x - 1
    return y


def if_no_else(x):
    y = x + 1
    if x.mean() > 0:
        y = y * 3
    return y


def if_elif_else(x):
    s = x.sum()
    if s > 5:
        r = x * 1
    elif s > 0:
        r = x * 2
    else:
        r = x * 3
    return r


def nested_if(x):
    if x[0] > 0:
        if x[1] > 0:
            z = x + 1
        else:
            z = x + 2
    else:
        z = x + 3
    return z


def created_in_both(x):
    if x.sum() > 0:
        a = x * 2
        b = x + 1
    else:
        a = x * 3
        b = x - 1
    return a + b


def assigned_in_one_branch_unused_after(x):
    y = x
    if x.sum() > 0:
        tmp = x * 10
        y = tmp + 1
    return y


def ternary_tensor(x):
    return x * 2 if x.sum() > 0 else x * -1


def ternary_python(x, flag):
    return x * 2 if flag else x * 3


def and_or_tensors(x):
    if (x.sum() > 0) and (x.max() < 10) or (x.min() < -10):
        return x + 1
    return x - 1


def is_not_none_and(x, y=None):
    if y is not None and y.sum() > 0:
        return x + y
    return x


def not_tensor(x):
    if not (x.sum() > 0):
        return x * 0
    return x


def python_flag_if(x, flag):
    if flag:
        x = x + 1
    return x


def shape_check_if(x):
    if x.shape[0] > 2:
        return x[:2]
    return x


def augassign_in_branch(x):
    y = x * 1
    if x.sum() > 0:
        y += 5
    else:
        y -= 5
    return y


def if_changes_two_vars_and_python(x):
    count = 0
    y = x
    if x.sum() > 0:
        y = y * 2
    count = count + 1
    return y * count


def test_if_else_paths():
    check(if_else, [(T([1.0, 2.0]),), (T([-1.0, -2.0]),)], has=('cond',))


def test_if_no_else_paths():
    check(if_no_else, [(T([1.0, 2.0]),), (T([-1.0, -2.0]),)], has=('cond',))


def test_if_elif_else_paths():
    check(if_elif_else, [(T([3.0, 4.0]),), (T([1.0, 0.5]),), (T([-1.0, -1.0]),)], has=('cond',))


def test_nested_if_paths():
    check(nested_if, [(T([1.0, 1.0]),), (T([1.0, -1.0]),), (T([-1.0, 1.0]),)], has=('cond',))


def test_variables_created_in_both_branches():
    check(created_in_both, [(T([1.0, 2.0]),), (T([-1.0, -2.0]),)], has=('cond',))


def test_variable_assigned_in_one_branch_only():
    check(assigned_in_one_branch_unused_after, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_ternary_with_tensor_condition():
    check(ternary_tensor, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_ternary_with_python_condition_stays_python():
    check(ternary_python, [(T([1.0]), True)], lacks=('cond',))


def test_and_or_with_tensors_build_logical_ops():
    check(and_or_tensors, [(T([1.0, 2.0]),), (T([-1.0, -20.0]),), (T([5.0, 20.0]),)],
          has=('cond', 'logical_and', 'logical_or'))


def test_short_circuit_with_none_check():
    check(is_not_none_and, [(T([1.0]),)], lacks=('cond',))
    check(is_not_none_and, [(T([1.0]), T([2.0])), (T([1.0]), T([-2.0]))], has=('cond',))


def test_not_on_tensor():
    check(not_tensor, [(T([1.0]),), (T([-1.0]),)], has=('cond', 'logical_not'))


def test_python_flag_stays_python():
    sf = check(python_flag_if, [(T([1.0]), True)], lacks=('cond',))
    assert_same(python_flag_if(T([1.0]), False), sf(T([1.0]), False))
    assert len(sf.program_cache) == 2      # the Python value is part of the cache key


def test_shape_check_stays_python():
    check(shape_check_if, [(T([1.0, 2.0, 3.0]),)], lacks=('cond',))


def test_augmented_assignment_in_branches():
    check(augassign_in_branch, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_python_counter_next_to_tensor_if():
    check(if_changes_two_vars_and_python, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


# ---- loops ----------------------------------------------------------------------------

def while_tensor(x, n):
    i = paddle.zeros([1], 'int64')
    s = x * 0
    while i < n:
        s = s + x
        i = i + 1
    return s


def while_python(x):
    i = 0
    while i < 3:
        x = x * 2
        i += 1
    return x


def for_range_tensor(x, n):
    s = x * 0
    for i in range(n):
        s = s + x * paddle.cast(i, 'float32')
    return s


def for_range_start_stop_step(x, n):
    s = x * 0
    for i in range(1, n, 2):
        s = s + paddle.cast(i, 'float32')
    return s


def for_range_python(x):
    for i in range(3):
        x = x + i
    return x


def for_rows_of_tensor(x):
    s = paddle.zeros([x.shape[1]])
    for row in x:
        s = s + row
    return s


def for_enumerate_tensor(x):
    s = paddle.zeros([1])
    for i, v in enumerate(x):
        s = s + v * paddle.cast(i, 'float32')
    return s


def for_zip_tensors(x, y):
    s = paddle.zeros([1])
    for a, b in zip(x, y):
        s = s + a * b
    return s


def for_python_list_of_tensors(x):
    parts = [x, x * 2, x * 3]
    s = x * 0
    for p in parts:
        s = s + p
    return s


def while_break(x, n):
    i = paddle.zeros([1], 'int64')
    s = x * 0
    while i < 10:
        if i >= n:
            break
        s = s + x
        i = i + 1
    return s


def for_continue(x, n):
    s = x * 0
    for i in range(n):
        if i % 2 == 0:
            continue
        s = s + x
    return s


def nested_loops_break(x, n):
    s = x * 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            s = s + x
    return s


def return_in_if(x):
    if x.sum() > 0:
        return x * 2
    return x * 3


def return_tuple_early(x):
    if x.sum() > 0:
        a = x * 2
        return a, x + 1
    elif x.sum() > -2:
        return x * 3, x - 1
    return x * 4, x - 2


def tuple_assigned_in_branches(x):
    if x.mean() > 0:
        pair = (x * 2, x.sum())
    else:
        pair = (x - 1, x.mean())
    return pair[0] + pair[1]


def return_in_loop(x, n):
    s = x * 0
    for i in range(n):
        s = s + x
        if s.sum() > 5:
            return s * 100
    return s


def no_explicit_return(x, out):
    out.append(x * 2)


def python_list_append(x):
    outs = []
    for i in range(3):
        outs.append(x * i)
    return paddle.stack(outs)


def dict_and_tuple_outputs(x):
    if x.sum() > 0:
        y = x + 1
    else:
        y = x - 1
    return {'y': y, 'pair': (y * 2, x)}


def kwargs_fn(x, scale=2.0, shift=None):
    y = x * scale
    if shift is not None:
        y = y + shift
    return y


def while_two_carried_and_counter(x, n):
    a = x
    b = x * 0
    i = paddle.zeros([1], 'int64')
    while i < n:
        a, b = b + 1, a * 2
        i += 1
    return a, b


def if_in_while_in_if(x, n):
    if x.sum() > 0:
        i = paddle.zeros([1], 'int64')
        while i < n:
            if x.mean() > 1:
                x = x - 1
            else:
                x = x + 0.5
            i = i + 1
    return x


def test_while_with_tensor_condition():
    check(while_tensor, [(T([1.0, 2.0]), T([3], 'int64')), (T([1.0, 2.0]), T([0], 'int64'))],
          has=('while',))


def test_while_with_python_condition_stays_python():
    check(while_python, [(T([1.0]),)], lacks=('while',))


def test_for_range_tensor_bound():
    check(for_range_tensor, [(T([1.0]), T(4, 'int64')), (T([1.0]), T(0, 'int64'))], has=('while',))


def test_for_range_start_stop_step():
    check(for_range_start_stop_step, [(T([1.0]), T(6, 'int64')), (T([1.0]), T(2, 'int64'))],
          has=('while',))


def test_for_range_python_bound_unrolls():
    check(for_range_python, [(T([1.0]),)], lacks=('while',))


def test_for_over_tensor_rows():
    check(for_rows_of_tensor, [(T([[1.0, 2.0], [3.0, 4.0]]),)], has=('while',))


def test_for_enumerate_tensor():
    check(for_enumerate_tensor, [(T([1.0, 2.0, 3.0]),)], has=('while',))


def test_for_zip_tensors():
    check(for_zip_tensors, [(T([1.0, 2.0]), T([3.0, 4.0]))], has=('while',))


def test_for_over_python_list():
    check(for_python_list_of_tensors, [(T([1.0]),)], lacks=('while',))


def test_break_under_tensor_condition():
    check(while_break, [(T([1.0]), T([2], 'int64')), (T([1.0]), T([7], 'int64'))],
          has=('while', 'cond'))


def test_continue_in_tensor_for():
    check(for_continue, [(T([1.0]), T(5, 'int64')), (T([1.0]), T(2, 'int64'))],
          has=('while', 'cond'))


def test_nested_loops_with_break():
    check(nested_loops_break, [(T([1.0]), T(3, 'int64')), (T([1.0]), T(1, 'int64'))],
          has=('while',))


def test_return_inside_branch():
    check(return_in_if, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_early_return_of_a_tuple_from_a_tensor_if():
    # the returned tuple is one value per path: each leaf becomes a cond output
    check(return_tuple_early, [(T([1.0, 2.0]),), (T([-0.5, -0.5]),), (T([-3.0, 1.0]),)],
          has=('cond',))


def test_tuple_variable_assigned_in_both_branches():
    sf = check(tuple_assigned_in_branches, [(T([1.0, 2.0]),), (T([-1.0, -3.0]),)],
               has=('cond',))
    for v in ([1.0, 2.0], [-1.0, -3.0]):
        xe, xs = T(v, grad=True), T(v, grad=True)
        tuple_assigned_in_branches(xe).sum().backward()
        sf(xs).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())


def test_gradients_after_a_call_that_needed_none():
    # the first call traces with an input that needs no gradient; an input that
    # needs one must not reuse that program (its gradient came back as NaN)
    for fn in (if_else, tuple_assigned_in_branches):
        sf = to_static(fn)
        sf(T([1.0, 2.0]))
        xe, xs = T([1.0, 2.0], grad=True), T([1.0, 2.0], grad=True)
        fn(xe).sum().backward()
        sf(xs).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())
        assert len(sf.program_cache) == 2


def test_early_return_inside_loop():
    check(return_in_loop, [(T([1.0]), T(3, 'int64')), (T([2.0]), T(8, 'int64'))],
          has=('while',))


def test_function_without_explicit_return():
    sf = to_static(no_explicit_return)
    out_e, out_s = [], []
    assert no_explicit_return(T([1.0]), out_e) is None
    assert sf(T([1.0]), out_s) is None
    np.testing.assert_allclose(out_e[0].numpy(), [2.0])
    # side effects on the caller's Python objects happen once, while the program
    # is traced: the list receives the traced (static) value, as in Paddle
    assert len(out_s) == 1 and isinstance(out_s[0], paddle.static.Variable)


def test_python_list_append_in_python_loop():
    check(python_list_append, [(T([1.0, 2.0]),)], lacks=('while',))


def test_dict_and_tuple_outputs():
    check(dict_and_tuple_outputs, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_keyword_arguments():
    sf = to_static(kwargs_fn)
    assert_same(kwargs_fn(T([1.0]), scale=3.0), sf(T([1.0]), scale=3.0))
    assert_same(kwargs_fn(T([1.0]), shift=T([5.0])), sf(T([1.0]), shift=T([5.0])))


def test_two_carried_tensors_with_tuple_assignment():
    check(while_two_carried_and_counter, [(T([1.0]), T([3], 'int64')),
                                          (T([1.0]), T([0], 'int64'))], has=('while',))


def test_if_in_while_in_if():
    check(if_in_while_in_if, [(T([3.0]), T([3], 'int64')), (T([-1.0]), T([2], 'int64')),
                              (T([0.5]), T([2], 'int64'))], has=('cond', 'while'))


# ---- builtins, calls, closures ------------------------------------------------------------

def with_print(x):
    y = x * 2
    print('y is', y)
    return y


def with_assert(x):
    assert (x > 0).all(), 'x must be positive'
    return x + 1


def with_len(x):
    return x * len(x)


def with_casts(x, k):
    return x * float(k) + int(2.5)


SCALE = 3.0


def uses_global(x):
    if x.sum() > 0:
        return x * SCALE
    return x


def make_closure(c):
    def inner(x):
        if x.sum() > 0:
            return x * c
        return x
    return inner


def helper_with_control_flow(x):
    if x.mean() > 0:
        return x + 100
    return x - 100


def calls_user_function(x):
    return helper_with_control_flow(x) * 2


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        if x.sum() > 0:
            return x * self.k
        return x


_scaler = Scaler(5.0)


def calls_method(x):
    return _scaler.apply(x)


def uses_lambda(x):
    f = lambda v: v * 2 + 1  # noqa: E731
    return f(x)


def nested_function_def(x):
    def double_if_positive(v):
        if v.sum() > 0:
            return v * 2
        return v
    return double_if_positive(x) + 1


@not_to_static
def untouched(x):
    return x * 7


def calls_not_to_static(x):
    return untouched(x) + 1


def test_print_of_tensor_at_run_time(capsys):
    sf = check(with_print, [(T([1.0]),)])
    assert 'python_print' in op_types(sf.concrete_program.main_program)
    capsys.readouterr()
    sf(T([3.0]))
    eager = capsys.readouterr().out
    with_print(T([3.0]))
    assert eager == capsys.readouterr().out and '[6.]' in eager


def test_assert_on_tensor():
    sf = check(with_assert, [(T([1.0]),)])
    assert 'assert' in op_types(sf.concrete_program.main_program)
    with pytest.raises(AssertionError, match='positive'):
        sf(T([-1.0]))


def test_len_isinstance_and_casts():
    check(with_len, [(T([1.0, 2.0]),)])
    check(with_casts, [(T([1.0]), 2)])


def test_globals_and_closures():
    check(uses_global, [(T([1.0]),), (T([-1.0]),)], has=('cond',))
    check(make_closure(4.0), [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_user_functions_are_converted_recursively():
    check(calls_user_function, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_methods_are_converted():
    check(calls_method, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_lambdas_and_nested_functions():
    check(uses_lambda, [(T([1.0]),)])
    check(nested_function_def, [(T([1.0]),), (T([-1.0]),)], has=('cond',))


def test_not_to_static_function_is_left_alone():
    check(calls_not_to_static, [(T([1.0]),)])


# ---- layers, training, caching -------------------------------------------------------------

class GatedNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.mean() > 0.1:
            h = h * 2
        else:
            h = h + 1
        h = self.drop(h)
        return self.fc2(h)


def test_layer_with_control_flow_matches_eager_and_trains():
    paddle.seed(1)
    net = GatedNet()
    net.eval()
    x = T(np.random.default_rng(0).standard_normal((3, 4)))
    eager_out = net(x)
    snet = to_static(GatedNet())
    snet.set_state_dict(net.state_dict())
    snet.eval()
    assert_same(eager_out, snet(x))
    assert 'cond' in op_types(snet.forward.concrete_program.main_program)
    # gradients of the converted layer match eager ones
    net.train()
    snet.train()
    net.drop.p = snet.drop.p = 0.0
    loss_e = net(x).sum()
    loss_e.backward()
    loss_s = snet(x).sum()
    loss_s.backward()
    for (n, pe), ps in zip(net.named_parameters(), snet.parameters()):
        np.testing.assert_allclose(ps.grad.numpy(), pe.grad.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=n)


def test_train_eval_switch_changes_program():
    paddle.seed(0)
    net = to_static(GatedNet())
    x = T(np.ones((2, 4)))
    net.train()
    net(x)
    net.eval()
    a = net(x).numpy()
    b = net(x).numpy()
    np.testing.assert_array_equal(a, b)           # dropout off in eval
    assert len(net.forward.program_cache) == 2


def test_gradients_through_converted_control_flow_match_eager():
    for fn, args in ((if_else, [1.0, -2.0]), (for_range_tensor, None)):
        if args is None:
            xe = T([1.5, -0.5], grad=True)
            xs = T([1.5, -0.5], grad=True)
            n = T(3, 'int64')
            fn(xe, n).sum().backward()
            to_static(fn)(xs, n).sum().backward()
        else:
            xe, xs = T(args, grad=True), T(args, grad=True)
            (fn(xe) * fn(xe)).sum().backward()
            ys = to_static(fn)(xs)
            (ys * ys).sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6)


def test_input_spec_with_none_dim_serves_all_batch_sizes():
    sf = to_static(if_else, input_spec=[InputSpec([None, 2], 'float32')])
    for n in (1, 3, 5):
        x = T(np.ones((n, 2)) * (1 if n != 3 else -1))
        assert_same(if_else(x), sf(x))
    assert len(sf.program_cache) == 1


def test_same_key_reuses_program_without_retracing():
    calls = []

    def traced(x):
        calls.append(1)
        return x + 1
    sf = to_static(traced)
    sf(T([1.0]))
    sf(T([2.0]))
    assert len(calls) == 1
    sf(T([1.0, 2.0]))
    assert len(calls) == 2


def test_get_concrete_program_and_code():
    sf = to_static(if_else)
    concrete, partial = sf.get_concrete_program(T([1.0, 2.0]))
    assert concrete.main_program is not None and concrete.startup_program is not None
    assert len(concrete.inputs) == 1 and len(concrete.outputs) == 1
    assert '_jst.IfElse' in sf.code
    assert sf.concrete_program is concrete


def test_program_translator_disable_runs_eagerly_and_rollback():
    pt = paddle.jit.ProgramTranslator()
    sf = to_static(if_else)
    pt.enable(False)
    try:
        out = sf(T([1.0]))
        assert len(sf.program_cache) == 0
        assert out.numpy()[0] == 2.0
    finally:
        pt.enable(True)
    net = to_static(GatedNet())
    net.eval()
    net(T(np.ones((1, 4))))
    net.forward.rollback()
    assert not isinstance(net.__dict__.get('forward'), paddle.jit.StaticFunction)


def test_declarative_aliases():
    assert paddle.jit.declarative is paddle.jit.to_static
    assert paddle.fluid.dygraph.declarative is paddle.jit.to_static


# ---- errors ----------------------------------------------------------------------------------

def branch_returns_tensor_or_none(x):
    if x.sum() > 0:
        y = x
    else:
        y = None
    return y


def fails_inside(x):
    y = x * 2
    z = paddle.matmul(y, paddle.ones([3, 3]))
    return z


def test_branches_with_different_kinds_name_the_variable():
    with pytest.raises(TypeError, match="variable 'y'"):
        to_static(branch_returns_tensor_or_none)(T([1.0]))


def test_errors_point_at_the_users_file_and_line():
    with pytest.raises(ValueError) as e:
        to_static(fails_inside)(T([1.0, 2.0]))
    tb = traceback.extract_tb(e.value.__traceback__)
    frames = [(f.filename, f.line) for f in tb]
    assert any(fn.endswith('test_dy2static.py') and 'matmul' in (line or '')
               for fn, line in frames), frames


# ---- lists in tensor loops become tensor arrays -------------------------------------------

def list_append_in_tensor_loop(x, n):
    outs = []
    h = x
    for i in range(n):
        h = paddle.tanh(h * 1.5)
        outs.append(h)
    return paddle.stack(outs), len(outs)


def list_append_and_pop_in_tensor_loop(x, n):
    acc = [x]
    i = paddle.zeros([1], 'int64')
    while i < n:
        acc.append(acc[-1] * 2)
        i = i + 1
    last = acc.pop()
    return last, paddle.concat(acc)


def test_list_append_inside_tensor_loop_becomes_tensor_array():
    sf = check(list_append_in_tensor_loop, [(T([0.5, -0.2]), T(3, 'int64')),
                                             (T([0.5, -0.2]), T(1, 'int64'))], has=('while',))
    assert 'array_append' in op_types(sf.concrete_program.main_program)


def test_gradients_through_tensor_array():
    xe, xs = T([0.5, -0.2], grad=True), T([0.5, -0.2], grad=True)
    n = T(3, 'int64')
    list_append_in_tensor_loop(xe, n)[0].sum().backward()
    to_static(list_append_in_tensor_loop)(xs, n)[0].sum().backward()
    np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy(), rtol=1e-6)


def test_list_append_and_pop_inside_tensor_while():
    check(list_append_and_pop_in_tensor_loop, [(T([1.0]), T([3], 'int64')),
                                               (T([1.0]), T([1], 'int64'))], has=('while',))


def test_function_without_source_gives_a_clear_error():
    namespace = {}
    exec("def made_by_exec(x):\n    return x * 2\n", namespace)
    with pytest.raises(RuntimeError, match='source code is not available'):
        to_static(namespace['made_by_exec'])(T([1.0]))


def verbose_target(x):
    if x.sum() > 0:
        x = x + 1
    return x


def test_set_verbosity_prints_code_after_each_pass(capsys):
    from framework.dy2static import convert
    convert._code_cache.pop(verbose_target.__code__, None)
    paddle.jit.set_verbosity(1)
    try:
        to_static(verbose_target)(T([1.0]))
    finally:
        paddle.jit.set_verbosity(0)
    out = capsys.readouterr().out
    assert 'after pass control_flow' in out and '_jst.IfElse' in out


def test_set_code_level_prints_final_code(capsys):
    from framework.dy2static import convert
    convert._code_cache.pop(verbose_target.__code__, None)
    paddle.jit.set_code_level(100)
    try:
        to_static(verbose_target)(T([1.0]))
    finally:
        paddle.jit.set_code_level(0)
    assert '_jst.IfElse' in capsys.readouterr().out


def test_build_strategy_reaches_the_executor_passes():
    bs = paddle.static.BuildStrategy()
    bs.fuse_elewise_add_act_ops = False
    sf = to_static(if_else, build_strategy=bs)
    assert_same(if_else(T([1.0, 2.0])), sf(T([1.0, 2.0])))
    _, partial = sf.get_concrete_program(T([1.0, 2.0]))
    assert partial.strategy is bs
