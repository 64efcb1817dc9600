"""``x[index] = value`` (Paddle's set_value semantics) eagerly, in static
programs and inside ``@to_static``: every index form, value kinds and dtype
casts, augmented assignment, updates inside tensor-dependent if/while/for,
on inputs, intermediates and parameters. Each scenario compares eager and
converted results AND the gradients that reach x (outside the region) and the
assigned value, through ``loss.backward()`` on the converted call."""
import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.jit import to_static

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype('float32')
V = RNG.standard_normal(4).astype('float32')


def op_types(sf):
    return [op.type for b in sf.concrete_program.main_program.blocks for op in b.ops]


def _run(fn, arrays, grad_of):
    tensors = [paddle.to_tensor(a, stop_gradient=i not in grad_of) for i, a in enumerate(arrays)]
    out = fn(*tensors)
    grads = []
    if grad_of:
        # a weight per element, so a gradient in the wrong place shows
        w = np.arange(1, out.size + 1, dtype=out.numpy().dtype).reshape(out.shape)
        (out * paddle.to_tensor(w)).sum().backward()
        grads = [np.zeros(tensors[i].shape) if tensors[i].grad is None else
                 tensors[i].grad.numpy() for i in grad_of]
    return out.numpy(), grads


def check(fn, *arg_sets, grad_of=(0, 1), has=()):
    """Eager == @to_static (values, dtype, gradients) for each argument set."""
    sf = to_static(fn)
    for arrays in arg_sets:
        (e, eg), (s, sg) = _run(fn, arrays, grad_of), _run(sf, arrays, grad_of)
        assert e.dtype == s.dtype and e.shape == s.shape
        np.testing.assert_allclose(s, e, rtol=1e-6)
        for a, b in zip(eg, sg):
            np.testing.assert_allclose(b, a, rtol=1e-6)
    for t in has:
        assert t in op_types(sf)
    return sf


# ---- index forms -------------------------------------------------------------------

def basic_forms(x, v):
    y = x * 1.0
    y[1] = 0.5
    y[:, ::2] = 7.0
    y[::-1, -1] = v[:3]
    y[None, 0, 1:3] = v[1:3]
    y[..., 2] = -1.0
    y[[0, 2], 1] = v[0]
    return y


def tensor_index(x, idx, v):
    y = x + 0
    y[idx] = v
    return y


def bool_mask(x, v):
    y = x * 2.0
    y[y > 1] = v[0]
    return y


def tensor_bounds(x, n, v):
    y = x * 1.0
    y[:n] = v[0] * 3
    y[n:, 1] = -5.0
    return y


def test_ints_slices_steps_none_ellipsis_lists():
    check(basic_forms, [X, V])


def test_int_and_bool_tensor_indices():
    check(tensor_index, [X, np.array([2, 0]), V], [X, np.array([1]), V], grad_of=(0, 2))
    check(tensor_index, [X, np.array([True, False, True]), V], grad_of=(0, 2))
    check(bool_mask, [X, V], [-np.abs(X), V])


def test_slice_bounds_known_only_at_run_time():
    sf = check(tensor_bounds, [X, np.array(2), V], [X, np.array(1), V], grad_of=(0, 2))
    assert len(sf.program_cache) == 1


# ---- values -------------------------------------------------------------------------

def value_kinds_and_casts(x, v64):
    y = x * 1.0
    y[0] = v64                                   # float64 tensor into float32
    y[1] = np.array([1.5, 2.5, 3.5, 4.5])        # numpy array
    y[2, 1:] = [[9.0, 8.0, 7.0]]                 # leading 1-dims dropped, as numpy does
    z = paddle.zeros([4], 'int64')
    z[1] = 2.7                                   # an int tensor keeps its dtype
    z[2:] = v64[:2] * 10
    return y + z.astype('float32')


def augmented(x, idx, v):
    y = x * 1.0
    y[idx] += v                                  # getitem, add, set_value
    y[0, 1:] *= 2
    y[:, -1] -= y[:, 0]
    return y


def test_numbers_arrays_tensors_broadcast_and_dtype_cast():
    check(value_kinds_and_casts, [X, V.astype('float64')])


def test_augmented_assignment():
    check(augmented, [X, np.array([0, 2]), V], grad_of=(0, 2))


def test_a_position_named_twice_takes_one_write_and_one_gradient():
    """x[[1, 1]] += v: one of the two writes lands, so only it carries gradient
    (to v and, through the read, to x's row 1) - Paddle's eager result."""
    check(augmented, [X, np.array([1, 1]), V], grad_of=(0, 2))
    x = paddle.to_tensor(X, stop_gradient=False)
    v = paddle.to_tensor(np.stack([V, 2 * V]), stop_gradient=False)
    y = x * 1.0
    y[paddle.to_tensor([1, 1])] = v
    (y * paddle.to_tensor(X)).sum().backward()
    np.testing.assert_allclose(y.numpy()[1], 2 * V)
    np.testing.assert_allclose(v.grad.numpy(), np.stack([np.zeros(4), X[1]]))


# ---- control flow ---------------------------------------------------------------------

def in_if_else(x, v):
    y = x * 1.0
    if y.sum() > 0:
        y[0] = v
    else:
        y[1:] = v * 2
    return y


def in_if_without_else(x, v):
    y = x * 1.0
    if x.mean() > 0:
        y[:, 0] = v[0]
    return y


def in_while(x, v):
    y = x * 1.0
    i = paddle.zeros([], 'int64')
    while i < 2:
        y[i] = y[i] + v
        i += 1
    return y


def in_for_over_tensor_range(x, v):
    y = x * 1.0
    for i in range(paddle.shape(x)[0]):
        y[i, 0] = v[i] * 2
    return y


def in_python_for(x, v):
    y = x * 1.0
    for i in range(3):
        y[i] = v * i
    return y


def if_in_while(x, v):
    y = x * 1.0
    i = paddle.zeros([], 'int64')
    while i < 3:
        if y[i].sum() > 0:
            y[i] = v
        else:
            y[i, 1] = 100.0
        i += 1
    return y


def test_in_branches_under_tensor_conditions():
    pos, neg = np.abs(X), -np.abs(X)
    check(in_if_else, [pos, V], [neg, V], has=('cond',))
    check(in_if_without_else, [pos, V], [neg, V], has=('cond',))


def test_in_loops_under_tensor_conditions():
    check(in_while, [X, V], has=('while',))
    check(in_for_over_tensor_range, [X, V], has=('while',))
    check(in_python_for, [X, V])
    check(if_in_while, [X, V], [-X, V], has=('while', 'cond'))


def test_an_item_assignment_carries_the_name_out_of_the_branch():
    sf = to_static(in_if_without_else)
    sf(paddle.to_tensor(X), paddle.to_tensor(V))
    cond = [op for op in sf.concrete_program.main_program.global_block().ops
            if op.type == 'cond'][0]
    assert len(cond.output('Out')) == 1       # y leaves the branch as the cond's output


# ---- inputs, aliases, Python containers --------------------------------------------------

def on_input(x, v):
    x[0] = v
    return x * 2


def alias_sees_the_update(x, v):
    y = x * 1.0
    z = y
    y[0] = v
    return z + y


def global_list_is_not_carried(x):
    if x.sum() > 0:
        _SEEN[0] = 1
    return x + 1


_SEEN = [0]


def test_input_and_alias():
    check(on_input, [X, V], grad_of=(1,))
    check(alias_sees_the_update, [X, V])


def test_item_assignment_to_a_global_keeps_it_global():
    sf = to_static(global_list_is_not_carried)
    np.testing.assert_allclose(sf(paddle.to_tensor(X)).numpy(), X + 1)


# ---- parameters and buffers --------------------------------------------------------

class WritesWeights(paddle.nn.Layer):
    def __init__(self, mode):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)
        self.register_buffer('buf', paddle.zeros([3]))
        self.mode = mode

    def forward(self, x):
        if self.mode == 'param':
            self.lin.weight[0] = 1.0
        elif self.mode == 'no_grad':
            with paddle.no_grad():
                self.lin.weight[0] = 1.0
        elif self.mode == 'buffer':
            self.buf[0] = self.buf[0] + 5.0
        return self.lin(x) + self.buf


def _train_step(layer, fn):
    out = fn(paddle.ones([2, 3]))
    out.sum().backward()
    return out.numpy(), layer.lin.weight.numpy(), layer.lin.weight.grad.numpy(), layer.buf.numpy()


@pytest.mark.parametrize('mode', ['param', 'no_grad', 'buffer'])
def test_writes_to_parameters_and_buffers_last(mode):
    """Paddle's rule: inside @to_static the write goes into the parameter (and
    lasts); the parameter's gradient is that of its new value. Eagerly a
    parameter that requires grad refuses in-place writes outside no_grad."""
    paddle.seed(3)
    eager = WritesWeights(mode)
    paddle.seed(3)
    converted = WritesWeights(mode)
    sf = to_static(converted)
    for _ in range(2):
        s = _train_step(converted, sf)
        if mode == 'param':
            with pytest.raises(RuntimeError, match='leaf tensor'):
                eager(paddle.ones([2, 3]))
            with paddle.no_grad():
                eager.lin.weight[0] = 1.0
            eager.mode = 'none'
            e = _train_step(eager, eager)
            eager.mode = 'param'
        else:
            e = _train_step(eager, eager)
        for a, b in zip(e, s):
            np.testing.assert_allclose(b, a, rtol=1e-6)
    if mode == 'buffer':
        assert converted.buf.tolist() == [10.0, 0.0, 0.0]    # written on each of 2 runs
    else:
        assert converted.lin.weight.numpy()[0].tolist() == [1.0, 1.0, 1.0]


class WritesInControlFlow(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.lin = paddle.nn.Linear(3, 3)
        self.register_buffer('buf', paddle.zeros([3]))

    def forward(self, x):
        if x.sum() > 0:
            self.buf[0] = self.buf[0] + 1.0
        else:
            self.buf[1] = self.buf[1] - 1.0
        i = paddle.zeros([], 'int64')
        while i < 2:
            self.buf[2] += self.buf[0]
            i += 1
        with paddle.no_grad():
            if x.mean() > 0.5:
                self.lin.weight[0] = self.lin.weight[0] * 2
        return self.lin(x) + self.buf


def test_parameter_and_buffer_writes_inside_tensor_branches_and_loops():
    results = []
    for convert in (False, True):
        paddle.seed(5)
        layer = WritesInControlFlow()
        fn = to_static(layer) if convert else layer
        steps = []
        for v in (1.0, -1.0, 1.0, 0.1):     # branches taken differ from call to call
            out = fn(paddle.full([2, 3], v))
            out.sum().backward()
            steps.append([out.numpy(), layer.buf.numpy(), layer.lin.weight.numpy(),
                          layer.lin.weight.grad.numpy()])
            layer.clear_gradients()
        results.append(steps)
    for e, s in zip(*results):
        for a, b in zip(e, s):
            np.testing.assert_allclose(b, a, rtol=1e-6)
    assert results[1][-1][1].tolist() == [3.0, -1.0, 14.0]


# ---- static mode, static.setitem, _inplace_assign ------------------------------------

def test_static_program_item_assignment_and_gradients():
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [3, 4], 'float32')
            x.stop_gradient = False
            v = static.data('v', [4], 'float32')
            v.stop_gradient = False
            y = x * 2.0
            before = y
            y[1] = v * 3.0
            copy = static.setitem(y, (slice(None), 0), 0.0)   # y itself unchanged
            loss = (y * y).sum() + copy.sum()
            gx, gv = static.gradients(loss, [x, v])
        res = static.Executor().run(main, feed={'x': X, 'v': V},
                                    fetch_list=[before, y, copy, gx, gv])
    finally:
        paddle.disable_static()
    expect = X * 2
    expect[1] = V * 3
    np.testing.assert_allclose(res[0], expect)          # the alias follows the update
    np.testing.assert_allclose(res[1], expect)
    c = expect.copy()
    c[:, 0] = 0
    np.testing.assert_allclose(res[2], c)
    ones = np.ones_like(X)
    ones[:, 0] = 0
    g = 2 * expect * 2 + 2 * ones
    g[1] = 0
    np.testing.assert_allclose(res[3], g, rtol=1e-6)
    np.testing.assert_allclose(res[4], 2 * expect[1] * 3 + 3 * ones[1], rtol=1e-6)


def test_static_setitem_eagerly_updates_in_place():
    x = paddle.zeros([3])
    assert static.setitem(x, 1, 5.0) is x and x.tolist() == [0.0, 5.0, 0.0]


def test_inplace_assign_takes_any_shape_and_graph_position():
    """Paddle's x._inplace_assign(y) / paddle.assign(y, x): x becomes y, also a
    leaf that requires grad, whatever y's shape; gradients flow to y's inputs."""
    a = paddle.ones([2, 2])
    a.stop_gradient = False
    b = paddle.to_tensor(np.ones((2, 3), 'float32'), stop_gradient=False)
    a._inplace_assign(b * 3)
    assert a.shape == [2, 3] and not a.stop_gradient
    a.sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), np.full((2, 3), 3.0))
    c = paddle.ones([2, 3], 'int64')
    paddle.assign(paddle.ones([4]) * 1.5, c)
    assert c.shape == [4] and c.dtype == paddle.float32


def test_inplace_assign_of_a_converted_result_trains_its_inputs():
    def double_into(a, x):
        x = 2 * x
        x[:] = a * 2.0
        return x
    x = paddle.ones([1])
    x.stop_gradient = False
    a = paddle.to_tensor([0.5], stop_gradient=False)
    x._inplace_assign(to_static(double_into)(a, x))
    x.mean().backward()
    np.testing.assert_allclose(a.grad.numpy(), [2.0])


# ---- lists updated by item in tensor-dependent loops --------------------------------------

def list_items_in_while(x):
    a = [x * 1.0, x * 2.0, x * 3.0]
    i = paddle.zeros([], 'int64')
    while i < 3:
        a[i] = a[i] + i.astype('float32')
        i += 1
    return paddle.stack(a)


def test_list_item_assignment_in_a_tensor_loop():
    check(list_items_in_while, [X[0]], grad_of=(0,), has=('while',))


def containers_in_if(x):
    a = [x, x * 2]
    d = {'k': x}
    if x.sum() > 0:
        a[0] = x + 1
        d['k'] = x * 10
    else:
        a[1] = x - 1
    return a[0] + a[1] + d['k']


def list_changes_structure_in_one_branch(x):
    a = [x]
    if x.sum() > 0:
        a[0] = [x, x]
    return x


def test_lists_and_dicts_changed_in_a_tensor_if_leave_it_item_by_item():
    check(containers_in_if, [X[0]], [-np.abs(X[0])], grad_of=(0,), has=('cond',))


def early_return_of_a_structure(x):
    if x.sum() > 0:
        return x, [x + 1, {'a': x * 3}]
    y = x * 2
    return y, [x, {'a': y - 1}]


def test_early_return_of_a_structure_from_a_tensor_if():
    sf = to_static(early_return_of_a_structure)
    for arr in (X[0], -np.abs(X[0])):
        e, s = early_return_of_a_structure(paddle.to_tensor(arr)), sf(paddle.to_tensor(arr))
        for a, b in [(e[0], s[0]), (e[1][0], s[1][0]), (e[1][1]['a'], s[1][1]['a'])]:
            np.testing.assert_allclose(b.numpy(), a.numpy())


def test_a_list_whose_structure_depends_on_a_tensor_condition_is_refused():
    with pytest.raises(TypeError, match=r"'a\[0\]' is a list of 2 items in the if branch and a "
                                        r"tensor in the else branch"):
        to_static(list_changes_structure_in_one_branch)(paddle.to_tensor(X[0]))


def test_static_parameter_written_in_a_cond_branch_keeps_the_write():
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            flag = static.data('flag', [], 'bool')
            w = static.create_parameter([3], 'float32',
                                        default_initializer=paddle.nn.initializer.Constant(1.0))

            def bump():
                w[1] = w[1] * 3.0
                return w * 1.0

            seen = static.nn.cond(flag, bump, lambda: w * 1.0)
            after = w + 0.0
        exe = static.Executor()
        exe.run(startup)
        runs = [exe.run(main, feed={'flag': np.array(f)}, fetch_list=[seen, after])
                for f in (True, False, True)]
    finally:
        paddle.disable_static()
    assert [r[0].tolist() for r in runs] == [[1, 3, 1], [1, 3, 1], [1, 9, 1]]
    assert [r[1].tolist() for r in runs] == [[1, 3, 1], [1, 3, 1], [1, 9, 1]]


# ---- in-place methods ------------------------------------------------------------------

def inplace_methods(x, v):
    y = x * 1.0
    alias = y
    y.add_(v)
    y.scale_(2.0)
    paddle.nn.functional.relu_(y)
    y += v
    return alias * 1.0          # the alias follows every update, as eagerly


class CountsCalls(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.register_buffer('calls', paddle.zeros([1]))

    def forward(self, x):
        self.calls += 1
        return x * self.calls


def test_inplace_methods_on_variables():
    check(inplace_methods, [X, V], [-X, V])


def test_inplace_update_of_a_buffer_lasts_across_runs():
    layer = CountsCalls()
    sf = to_static(layer)
    outs = [sf(paddle.ones([2])).numpy().tolist() for _ in range(3)]
    assert outs == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]
    assert isinstance(layer.calls, paddle.Tensor) and layer.calls.tolist() == [3.0]
