"""dy2static loops whose condition becomes a tensor, and the values they carry.

Each scenario runs the function eagerly and through @to_static on inputs
that take different paths (a break early, late or never; zero or more
iterations) and compares values, and gradients where the loop computes
differentiable values. Ops in the program show which mechanism ran: a
``while`` op, per-item ``cond`` ops, or plain Python.
"""
import numpy as np
import pytest

import framework as paddle
from framework.jit import to_static
from framework.static import InputSpec

from test_dy2static import T, assert_same, check, op_types


def I(v):
    return paddle.to_tensor(np.asarray(v, dtype='int64'))


def check_grads(fn, make_args, wrt=(0,)):
    """Gradients of sum(fn(*args)) w.r.t. args[wrt] agree eagerly and converted."""
    eager, static = make_args(), make_args()
    fn(*eager).sum().backward()
    to_static(fn)(*static).sum().backward()
    for k in wrt:
        assert static[k].grad is not None, "no gradient reached argument %d" % k
        np.testing.assert_allclose(static[k].grad.numpy(), eager[k].grad.numpy(),
                                   rtol=1e-5, atol=1e-6)


# ---- while: the condition turns into a tensor -----------------------------------------

def counter_below_tensor(x, n):
    i = 0
    while i < n:              # 0 < n is already a tensor
        x = x * 2.0
        i += 1
    return x, i


def flag_set_from_tensor(x):
    go = True                 # a Python bool at the first test, a tensor after
    steps = 0
    while go:
        x = x - 1.0
        steps += 1
        go = x.sum() > 0
    return x, steps


def python_then_tensor_condition(x):
    i = 0
    while i < 2 or x.sum() > 0:   # Python for two iterations, then a tensor
        x = x - 1.0
        i = i + 1
    return x, i


def test_python_counter_compared_with_tensor_bound():
    check(counter_below_tensor, [(T([1.0, 2.0]), I(3)), (T([1.0, 2.0]), I(0))], has=('while',))


def test_flag_becoming_tensor_after_first_iteration_continues_as_while():
    check(flag_set_from_tensor, [(T([3.0, 2.0]),), (T([-3.0, 2.0]),), (T([0.5, 0.2]),)],
          has=('while',))


def test_python_iterations_already_run_are_kept():
    check(python_then_tensor_condition, [(T([3.0, 2.0]),), (T([-3.0, 2.0]),)], has=('while',))


def test_gradients_through_a_while_that_started_in_python():
    check_grads(flag_set_from_tensor_sq, lambda: [T([1.0, 2.0], grad=True)])
    check_grads(flag_set_from_tensor_sq, lambda: [T([3.0, 2.0], grad=True)])


def flag_set_from_tensor_sq(x):
    go = True
    s = x * 0.0
    while go:
        s = s + x * x
        go = s.sum() < 10
    return s


# ---- for over Python ranges and sequences with a tensor break -------------------------

def range_break(x):
    for i in range(5):
        if x.sum() > 3:
            break
        x = x * 1.5 + 0.5
    return x


def range_continue_and_break(x):
    s = x * 0.0
    for i in range(6):
        if s.sum() > 10:
            break
        if x[i % 2] > 0:
            s = s + 1.0
            continue
        s = s + x
    return s


def range_return(x):
    for i in range(4):
        x = x * 2.0
        if x.sum() > 10:
            return x + 100.0
    return x - 1.0


def list_of_tensors_break(x):
    s = x * 0.0
    for t in [x, x * 2.0, x * 3.0]:
        s = s + t * x
        if s.sum() > 4:
            break
    return s


def list_of_numbers_break(x):
    for w in [0.5, 2.0, 3.0, 4.0]:
        x = x * w
        if x.sum() > 5:
            break
    return x


def differently_shaped_items_break(x):
    s = x * 0.0
    for w in [x, paddle.concat([x, x])[:2] * 2.0, x.sum() * 3.0]:
        s = s + w * x
        if s.sum() > 4:
            break
    return s


def test_break_under_tensor_condition_in_python_range():
    sf = check(range_break, [(T([1.0, 1.0]),), (T([5.0, 1.0]),), (T([-10.0, 1.0]),)],
               has=('while',))
    assert 'while' in op_types(sf.concrete_program.main_program)


def test_continue_and_break_under_tensor_conditions_in_python_range():
    check(range_continue_and_break, [(T([1.0, -1.0]),), (T([-1.0, -2.0]),), (T([5.0, 5.0]),)],
          has=('while',))


def test_return_under_tensor_condition_in_python_range():
    check(range_return, [(T([1.0, 1.0]),), (T([0.01, 0.0]),), (T([6.0, 0.0]),)],
          has=('while',))


def test_break_in_loop_over_python_list_of_tensors():
    check(list_of_tensors_break, [(T([1.0, 1.0]),), (T([0.1, 0.0]),), (T([5.0, 0.0]),)],
          has=('while',))


def test_break_in_loop_over_python_numbers():
    check(list_of_numbers_break, [(T([1.0, 1.0]),), (T([0.1, 0.0]),)], has=('while',))


def test_break_over_items_a_tensor_cannot_index_guards_each_item():
    sf = check(differently_shaped_items_break, [(T([1.0, 1.0]),), (T([0.1, 0.2]),)],
               has=('cond',), lacks=('while',))
    assert op_types(sf.concrete_program.main_program).count('cond') >= 3


def test_gradients_through_for_loops_with_tensor_break():
    for v in ([1.0, 2.0], [0.1, 0.2]):
        check_grads(range_break, lambda: [T(v, grad=True)])
        check_grads(list_of_tensors_break, lambda: [T(v, grad=True)])
        check_grads(differently_shaped_items_break, lambda: [T(v, grad=True)])
        check_grads(range_return, lambda: [T(v, grad=True)])


# ---- for over a tensor's first axis ---------------------------------------------------

def rows_enumerate_break(x):
    s = x[0] * 0.0
    for i, row in enumerate(x, 2):
        if row.sum() < 0:
            break
        if i > 2:
            s = s + row
    return s


def rows_continue(x):
    s = paddle.zeros([2])
    for row in x:
        if row.sum() > 5:
            continue
        s = s + row * row
    return s


def zip_tensor_and_list(x):
    s = x[0] * 0.0
    for row, w in zip(x, [1.0, 2.0, 3.0]):
        s = s + row * w
    return s


def zip_two_tensors(x, y):
    s = x[0] * 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


def enumerate_tensor_range(x, n):
    s = x * 0.0
    for k, i in enumerate(range(2, n, 3)):      # k counts from 0, i steps from 2
        if k > 0:
            s = s + 1.0
        if i > 6:
            s = s * 2.0
    return s


def backwards_tensor_range(x, n):
    s = x * 0.0
    for i in range(n, 0, -2):
        if i > 3:
            s = s + 1.0
    return s, i


def zip_rows_and_range(x, n):
    s = x[0] * 0.0
    for row, i in zip(x, range(5, n)):
        if i > 5:
            s = s + row
    return s


def unpack_rows(x):
    a, b, c = x
    for p, q in x[:2]:
        a = a + p * q
    return a + b * c


def test_for_over_rows_with_enumerate_start_and_break():
    check(rows_enumerate_break, [(T([[1.0, 2.0], [3.0, 4.0], [-5.0, -6.0], [7.0, 8.0]]),),
                                 (T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),)],
          has=('while',))


def test_for_over_rows_of_unknown_count():
    sf = to_static(rows_continue, input_spec=[InputSpec([None, 2], 'float32')])
    for n in (0, 1, 4):
        x = T(np.arange(2 * n, dtype='float32').reshape(n, 2) - 2.0)
        assert_same(rows_continue(x), sf(x))
    assert 'while' in op_types(sf.concrete_program.main_program)
    check_grads(rows_continue, lambda: [T([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]], grad=True)])


def test_zip_of_tensor_rows_with_python_list_and_shorter_tensor():
    check(zip_tensor_and_list, [(T([[1.0, 2.0], [3.0, 4.0]]),),
                                (T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),)],
          has=('while',), programs=2)
    check(zip_two_tensors, [(T([[1.0, 2.0], [3.0, 4.0]]), T([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]))],
          has=('while',))


def test_zip_of_tensor_with_unknown_first_dim_is_an_error_naming_the_line():
    sf = to_static(zip_two_tensors, input_spec=[InputSpec([None, 2], 'float32'),
                                               InputSpec([None, 2], 'float32')])
    with pytest.raises(RuntimeError, match=r"test_dy2static_loops.py:\d+: zip\(\) of a tensor "
                                           r"whose first dim is unknown"):
        sf(T([[1.0, 2.0]]), T([[1.0, 2.0]]))


def test_ranges_with_start_and_step_inside_enumerate_and_zip():
    check(enumerate_tensor_range, [(T([1.0, 2.0]), I(12)), (T([1.0, 2.0]), I(3))],
          has=('while',))
    check(backwards_tensor_range, [(T([1.0, 2.0]), I(9)), (T([1.0, 2.0]), I(2))],
          has=('while',))
    check(zip_rows_and_range, [(T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), I(7)),
                               (T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), I(12))], has=('while',))


def test_unpacking_a_variable_with_known_first_dim():
    check(unpack_rows, [(T([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),)])


# ---- lists and dicts in tensor-dependent loops -----------------------------------------

def list_ops_in_loop(x, n):
    a = [x]
    i = 0
    while i < n:
        a.append(a[-1] * 2.0)
        a.insert(0, x - 1.0)
        i += 1
    a.extend([x * 10.0, x * 20.0])
    first = a.pop(0)
    last = a.pop()
    return paddle.stack(a), first, last


def list_item_assignment_in_loop(x, n):
    a = [x, x * 2.0, x * 3.0]
    i = 0
    while i < n:
        a[i % 3] = a[i % 3] + 1.0     # a tensor index into the list
        a[0] = a[0] * 0.5
        i += 1
    return a[0], a[1], a[2]


def stacked_items_assigned_in_loop(x, n):
    return paddle.stack(list_item_assignment_in_loop(x, n))


def dict_in_loop(x, n):
    d = {'h': x, 'acc': x * 0.0, 'seen': []}
    for i in range(n):
        d['h'] = paddle.tanh(d['h'] * 1.5)
        d['acc'] = d['acc'] + d['h']
        d['seen'].append(d['h'])
    return d['acc'], paddle.stack(d['seen'])


def dict_in_loop_acc(x, n):
    return dict_in_loop(x, n)[0]


def read_before_first_append(x):
    feats = {'key': []}
    for i, v in enumerate(x):
        if i > 1:
            before_last = feats['key'][-2]
        feats['key'].append(v * 2.0)
    return before_last


def first_assigned_in_loop(x, n):
    for i in range(n):
        last = x * 3.0
    return last, i


def dict_gains_key(x, n):
    d = {'a': x}
    i = 0
    while i < n:
        d['b'] = x
        i += 1
    return d['a']


def mixed_list_grows(x, n):
    a = [x, 'tag']
    i = 0
    while i < n:
        a.append(x)
        i += 1
    return a[0]


def test_list_append_insert_extend_pop_in_tensor_loop():
    check(list_ops_in_loop, [(T([1.0, 2.0]), I(3)), (T([1.0, 2.0]), I(0))], has=('while',))


def test_list_item_assignment_with_tensor_index_in_loop():
    check(list_item_assignment_in_loop, [(T([1.0, 2.0]), I(4)), (T([1.0, 2.0]), I(1))],
          has=('while',))
    check_grads(stacked_items_assigned_in_loop, lambda: [T([1.0, 2.0], grad=True), I(4)])


def test_dict_of_tensors_and_nested_list_in_loop():
    check(dict_in_loop, [(T([0.5, -0.3]), I(3)), (T([0.5, -0.3]), I(1))], has=('while',))
    check_grads(dict_in_loop_acc, lambda: [T([0.5, -0.3], grad=True), I(3)])


def test_value_read_from_a_list_the_loop_fills_later():
    check(read_before_first_append, [(T([1.0, 2.0, 3.0, 4.0, 5.0]),), (T([7.0, 8.0, 9.0]),)],
          has=('while',), programs=2)


def test_variables_first_assigned_in_a_tensor_loop_are_defined_after_it():
    check(first_assigned_in_loop, [(T([1.0, 2.0]), I(3))], has=('while',))


def test_dict_gaining_a_key_in_tensor_loop_is_an_error_naming_it():
    with pytest.raises(TypeError, match=r"test_dy2static_loops.py:\d+: dict 'd' gets the new "
                                        r"key\(s\) 'b'"):
        to_static(dict_gains_key)(T([1.0]), I(2))


def test_list_of_mixed_items_growing_in_tensor_loop_is_an_error_naming_it():
    with pytest.raises(TypeError, match=r"variable 'a' is a list of 2 items before a "
                                        r"tensor-dependent loop and a list of 3 items"):
        to_static(mixed_list_grows)(T([1.0]), I(2))


# ---- loop variables whose shape or dtype the body changes ---------------------------------

def grows_by_concat(x, n):
    i = 0
    while i < n:
        x = paddle.concat([x, x * 0.5])
        i += 1
    return x


def becomes_float64(x, n):
    i = 0
    while i < n:
        x = paddle.cast(x, 'float64') + 0.5
        i += 1
    return x


def becomes_a_tensor_of_another_rank(x, n):
    acc = 0                       # a Python number standing for the sum to come
    i = 0
    while i < n:
        acc = x * 2.0 + acc
        i += 1
    return acc


def changes_rank(x, n):
    i = 0
    while i < n:
        x = paddle.stack([x, x])
        i += 1
    return x


def test_loop_variable_growing_in_the_loop_gets_unknown_dims():
    sf = check(grows_by_concat, [(T([1.0, 2.0]), I(2)), (T([1.0, 2.0]), I(0))], has=('while',))
    check_grads(grows_by_concat, lambda: [T([1.0, 2.0], grad=True), I(2)])
    assert sf(T([1.0, 2.0]), I(3)).shape == [16]


def test_loop_variable_changing_dtype_starts_as_the_body_dtype():
    sf = to_static(becomes_float64)
    out = sf(T([1.0, 2.0]), I(2))
    assert out.dtype == becomes_float64(T([1.0, 2.0]), I(2)).dtype
    np.testing.assert_allclose(out.numpy(), [2.0, 3.0])


def test_python_number_becoming_a_tensor_of_another_rank():
    check(becomes_a_tensor_of_another_rank, [(T([1.0, 2.0]), I(3))], has=('while',))


def test_loop_variable_changing_rank_is_an_error_naming_it():
    with pytest.raises(ValueError, match=r"test_dy2static_loops.py:\d+: .*loop variable 'x' "
                                         r"changes shape from \[2\] to \[2, 2\].*rank"):
        to_static(changes_rank)(T([1.0, 2.0]), I(2))


# ---- tensor-dependent ifs changing lists, dicts and attributes --------------------------

def if_appends(x):
    a = [x]
    if x.sum() > 0:
        a.append(x * 2.0)
        a.append(x * 3.0)
    return paddle.concat(a)


def if_changes_dict(x):
    d = {'a': x, 'b': x * 0.0}
    if x.sum() > 0:
        d['a'] = x * 2.0
    else:
        d['b'] = x - 1.0
    return d['a'], d['b']


def if_defines_in_one_branch(x):
    if x.sum() > 0:
        y = x * 2.0
    return x


class Counter:
    def __init__(self):
        self.total = 0.0
        self.label = 'counter'


def attribute_in_loop_and_if(x, n):
    c = Counter()
    i = 0
    while i < n:
        c.total = c.total + x
        i += 1
    if x.sum() > 0:
        c.total = c.total * 2.0
    return c.total


class Accumulate(paddle.nn.Layer):
    def forward(self, x, n):
        self.state = x * 0.0
        for i in range(n):
            self.state = self.state + x
            if self.state.sum() > 5:
                break
        return self.state


def test_tensor_if_appending_to_a_list_gives_a_tensor_array():
    # each branch stacks its list; the cond outputs the stacked items
    check(if_appends, [(T([1.0, 2.0]),), (T([-1.0, -2.0]),)], has=('cond', 'stack'))


def test_tensor_if_changing_dict_values():
    check(if_changes_dict, [(T([1.0, 2.0]),), (T([-1.0, -2.0]),)], has=('cond',))


def test_variable_defined_in_one_branch_only():
    check(if_defines_in_one_branch, [(T([1.0]),), (T([-1.0]),)])


def test_attributes_assigned_in_tensor_loops_and_ifs():
    check(attribute_in_loop_and_if, [(T([1.0, 2.0]), I(3)), (T([-1.0, -2.0]), I(2))],
          has=('while', 'cond'))


def test_layer_attribute_carried_by_tensor_loop():
    net = Accumulate()
    cases = (([1.0, 2.0], 4), ([0.1, 0.2], 3))
    eager = [net(T(v), I(n)) for v, n in cases]
    sf = to_static(net)
    for (v, n), e in zip(cases, eager):
        assert_same(e, sf(T(v), I(n)))


# ---- nesting and logical operators -------------------------------------------------------

def nested_loops_break_and_return(x, n):
    i = 0
    while i < n:
        for j in range(3):
            if x.sum() > 20:
                break
            x = x + 1.0
        if x.sum() > 30:
            return x * 100.0
        i += 1
    return x


def or_after_tensor_keeps_python_short_circuit(x):
    a = None
    if x > 1 or a is None or a > 1:
        x = x - 1.0
    else:
        x = x + 1.0
    return x


def test_nested_loops_with_break_and_return():
    check(nested_loops_break_and_return, [(T([1.0, 2.0]), I(3)), (T([1.0, 2.0]), I(0)),
                                          (T([9.0, 9.0]), I(5))], has=('while',))


def test_or_keeps_short_circuit_among_python_values_after_a_tensor():
    check(or_after_tensor_keeps_python_short_circuit, [(T([3.0]),), (T([0.0]),)],
          has=('logical_or',))


class EarlyExit(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.blocks = paddle.nn.LayerList([paddle.nn.Linear(2, 2) for _ in range(3)])

    def forward(self, x):
        for i in range(len(self.blocks)):
            x = paddle.tanh(self.blocks[i](x))     # needs i as a Python int
            if x.sum() > 0.2:
                break
        return x


def test_break_in_python_range_whose_body_indexes_python_lists():
    paddle.seed(3)
    net = EarlyExit()
    cases = ([[1.0, 2.0]], [[-1.0, -2.0]], [[-3.0, 1.0]])     # no break, a break at 1, at 0
    eager = [net(T(v)) for v in cases]
    sf = to_static(net)
    for v, e in zip(cases, eager):
        assert_same(e, sf(T(v)))
    assert 'while' not in op_types(sf.forward.concrete_program.main_program)


def rows_appended_in_loop(x, n):
    out = []
    i = paddle.zeros([1], 'int64')
    while i < n:
        out.append(x * paddle.cast(i + 1, 'float32'))
        i += 1
    return paddle.stack(out)


def test_list_appended_in_loop_with_an_unknown_batch_dim(tmp_path):
    """The empty list a loop starts from is built before the items' batch size
    is known; a program traced with a None dim runs on any batch size."""
    path = str(tmp_path / 'rows')
    paddle.jit.save(to_static(rows_appended_in_loop), path,
                    input_spec=[InputSpec([None, 3], 'float32'), InputSpec([1], 'int64')])
    loaded = paddle.jit.load(path)
    for batch, n in ((2, 3), (5, 1)):
        x = np.arange(batch * 3, dtype='float32').reshape(batch, 3)
        got = loaded(paddle.to_tensor(x), I([n])).numpy()
        np.testing.assert_allclose(got, rows_appended_in_loop(T(x), I([n])).numpy())
        assert got.shape == (n, batch, 3)


# ---- lists a tensor loop leaves: Python lists again ------------------------------------

def nested_list_items_assigned_in_loop(x, n):
    l = [x, [x * 2.0, x]]
    i = 0
    while i < n:
        l[1][1] = l[1][1] + 1.0
        l[1][0] = l[1][0] * 2.0
        i += 1
    return l


def nested_list_is_a_list_after_the_loop(x, n):
    l = nested_list_items_assigned_in_loop(x, n)
    return isinstance(l[1], list), isinstance(l, list)


def list_grown_in_loop_is_returned(x, n):
    l = [x * 2.0, x]
    for i in range(n):
        l[0] = l[0] * 2.0
        l.append(x + i)
    return l


def stacked_nested_items(x, n):
    return paddle.stack(nested_list_items_assigned_in_loop(x, n)[1])


def stacked_grown_list(x, n):
    return paddle.stack(list_grown_in_loop_is_returned(x, n))


def test_a_list_whose_length_the_loop_keeps_is_a_list_after_it():
    sf = check(nested_list_items_assigned_in_loop, [(T([1.0, 2.0]), I(3)), (T([1.0, 2.0]), I(0))],
               has=('while',))
    out = sf(T([1.0, 2.0]), I(2))
    assert isinstance(out[1], list) and all(isinstance(v, paddle.Tensor) for v in out[1])
    # a list again right after the loop, inside the converted code too
    assert to_static(nested_list_is_a_list_after_the_loop)(T([1.0, 2.0]), I(2)) == (True, True)
    check_grads(stacked_nested_items, lambda: [T([1.0, 2.0], grad=True), I(3)])


def test_a_list_the_loop_grows_is_returned_as_a_list_of_its_run_length():
    sf = to_static(list_grown_in_loop_is_returned)
    for n in (0, 1, 3):
        eager = list_grown_in_loop_is_returned(T([1.0, 2.0]), I(n))
        out = sf(T([1.0, 2.0]), I(n))
        assert isinstance(out, list) and len(out) == len(eager) == n + 2
        assert_same(eager, out)
    assert len(sf.program_cache) == 1
    check_grads(stacked_grown_list, lambda: [T([1.0, 2.0], grad=True), I(2)])


# ---- a value whose rank depends on a tensor condition ----------------------------------

def rank_by_branch(x):
    a = []
    if x.sum() > 0:
        a.append(x)
    else:
        a.append(paddle.full([1, 2], 9.0))
    return a[0]


def rank_by_branch_replaced(x):
    a = [x]
    if x.sum() > 0:
        a[0] = paddle.full([1, 2], 9.0)
    if x.sum() > 1:
        a[0] = x * 3.0
    a[0] = x + 1.0
    return a[0]


def rank_by_branch_used(x):
    y = x if x.sum() > 0 else paddle.zeros([1, 2])
    return y * 2.0


def test_an_if_may_give_values_of_different_ranks_to_return_or_replace(tmp_path):
    sf = check(rank_by_branch, [(T([1.0, 2.0, 3.0]),), (T([-1.0, -2.0, 3.0]),)], has=('cond',))
    check(rank_by_branch_replaced, [(T([1.0, 2.0, 3.0]),), (T([-1.0, 0.0, 0.5]),)])
    path = str(tmp_path / 'by_branch')
    paddle.jit.save(sf, path, input_spec=[InputSpec([3], 'float32')])
    loaded = paddle.jit.load(path)
    assert loaded(T([1.0, 2.0, 3.0])).shape == [3]
    assert loaded(T([-1.0, -2.0, 3.0])).numpy().tolist() == [[9.0, 9.0]]
    with pytest.raises(ValueError, match=r"multiply: input 'cond.out_\d+' has a rank that "
                                         r"depends on a tensor condition \(if at .*: shape "
                                         r"\[2\] in the true branch and \[1, 2\] in the false"):
        to_static(rank_by_branch_used)(T([1.0, 2.0]))


def test_a_tensor_attribute_first_created_in_forward_is_left_as_eagerly():
    eager, static = Accumulate(), Accumulate()      # sets self.state first in forward
    forward = to_static(static.forward)
    for x in ([1.0, 2.0], [0.5, 0.5]):
        assert_same(eager(T(x), I(3)), forward(T(x), I(3)))
        assert isinstance(static.state, paddle.Tensor)
        assert_same(eager.state, static.state)
    assert [n for n, _ in static.named_buffers()] == ['state']


class KeepsLast(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = paddle.nn.Linear(2, 2)

    def forward(self, x):
        h = self.fc(x)
        self.last = h            # a new attribute whose batch dim is known only at run time
        return h.sum()


def test_a_new_tensor_attribute_with_a_run_time_dim_gets_the_runs_value(tmp_path):
    layer = KeepsLast()
    static = to_static(layer, input_spec=[InputSpec([None, 2], 'float32')])
    for batch in (3, 5):
        x = paddle.ones([batch, 2])
        static(x)
        assert isinstance(layer.last, paddle.Tensor) and layer.last.shape == [batch, 2]
        assert_same(layer.fc(x), layer.last)
    paddle.jit.save(static, str(tmp_path / 'keeps_last'))
    assert paddle.jit.load(str(tmp_path / 'keeps_last'))(paddle.ones([4, 2])).shape == []
