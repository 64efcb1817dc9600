"""Activations kept in oneDNN's layouts between ops of a static plan: the
``Blocked`` values (``backends/onednn/layout.py``), the ops' layout kernels
(``OpDef.def_layout_kernel``) and the pass that plans them
(``graph/passes/layout.py``)."""
import gc
import re

import numpy as np
import pytest

import framework as paddle
from framework import nn, static
from framework.backends import Opaque, onednn, plain
from framework.graph import verify
from framework.ops import backends, registry

pytestmark = pytest.mark.skipif(not onednn.available(), reason='oneDNN is not installed')


def _rt():
    return onednn.runtime()


def _layouts():
    C = onednn.constants
    return [C.ABCD16B, C.ABCD8B]


# ---- Blocked values --------------------------------------------------------------------

def test_a_blocked_value_round_trips_and_reports_its_layout():
    from framework.backends.onednn import layout as L
    x = np.random.default_rng(0).standard_normal((2, 20, 5, 3)).astype(np.float32)
    b = L.to_layout(_rt(), x, onednn.constants.ABCD16B)
    assert isinstance(b, Opaque) and b.shape == x.shape and b.dtype == np.float32
    assert b.ndim == 4 and b.size == x.size
    dims, _, name, strides, blks, idxs, padded = b.layout.key[:7]
    # 20 channels in blocks of 16: padded to 32, the block's axis is 1
    assert (dims, name, blks, idxs, padded) == ((2, 20, 5, 3), 'abcd16b', (16,), (1,),
                                                (2, 32, 5, 3))
    assert b.layout.size == 2 * 32 * 5 * 3 * 4
    np.testing.assert_array_equal(b.plain(), x)
    np.testing.assert_array_equal(plain([b, x])[0], x)


def test_equal_layouts_are_one_object_and_plain_ones_are_numpy():
    from framework.backends.onednn import layout as L
    x = np.ones((1, 8, 4, 4), np.float32)
    a = L.to_layout(_rt(), x, onednn.constants.ABCD8B)
    b = L.to_layout(_rt(), 2 * x, onednn.constants.ABCD8B)
    assert a.layout is b.layout and a.strides == b.strides
    assert type(L.to_layout(_rt(), x, onednn.constants.ABCD)) is np.ndarray


def test_a_temporary_descriptor_lives_until_oneDNN_copied_it():
    # Plan.user once rebound its argument to the bare handle, which freed a
    # temporary descriptor before dnnl_memory_create read it
    from framework.backends.onednn import core
    destroyed = []
    rt = _rt()
    plan = core.Plan(rt, rt._thread().stream, core.Arena())
    original = core.Plan._memory

    def memory(self, md, handle=None):
        assert md.value not in destroyed, 'the descriptor was freed before use'
        return original(self, md, handle)

    class Watched(core.Owned):
        __slots__ = ()

        def __del__(self):
            destroyed.append(self.handle.value)
            super().__del__()
    core.Plan._memory = memory
    try:
        for _ in range(3):
            # (handles are addresses malloc reuses: only frees during a call count)
            handle, destroy = _fresh_handle(rt)
            destroyed.clear()
            plan.user(0, Watched(handle, destroy))      # the temporary's only owner
            handle, destroy = _fresh_handle(rt)
            destroyed.clear()
            plan.buffer(Watched(handle, destroy))
            gc.collect()
    finally:
        core.Plan._memory = original


def _fresh_handle(rt):
    """A new descriptor's handle and destroy function, owned by nobody yet."""
    md = rt.desc([2, 3], strides=[3, 1])
    handle, destroy = md.handle, md._destroy
    md.handle = None
    return handle, destroy


# ---- every layout kernel against the op's own kernel, on its test cases --------------

def _layout_ops():
    return sorted(n for n, op in registry.all_ops().items() if 'onednn' in op.layout_kernels)


def _blocked_case(op, case, tag):
    """The case with each 4-D float32 input of the layout kernel's ``takes``
    reordered into format ``tag``."""
    from framework.backends.onednn import layout as L
    takes = op.layout_kernels['onednn'].takes
    out = list(case)
    for i, name in enumerate(op.input_names):
        a = out[i]
        if name in takes and isinstance(a, np.ndarray) and a.dtype == np.float32 and \
                a.ndim == 4 and a.size:
            out[i] = L.to_layout(_rt(), np.ascontiguousarray(a), tag)
    return out


def test_layout_kernels_are_declared_for_the_chain_ops():
    assert {'conv', 'fused_conv', 'max_pool', 'avg_pool', 'add', 'relu', 'relu6'} <= \
        set(_layout_ops())


@pytest.mark.parametrize('name', _layout_ops())
def test_layout_kernels_agree_with_the_kernels(name):
    import test_op_properties as T
    op = registry.lookup(name)
    rule = op.layout_kernels['onednn']
    ran = 0
    for k, (args, _) in enumerate(op.test_cases):
        case = T._as_float32(op, args)
        with backends.using('onednn'):
            want = op.kernel_for('onednn')(*T._fresh_args(op, case))
        want = want if isinstance(want, tuple) else (want,)
        for tag in _layouts():
            for keep in (rule.gives, ()):
                blocked = _blocked_case(op, case, tag)
                got = op.layout_kernel_for('onednn', keep)(*blocked)
                got = got if isinstance(got, tuple) else (got,)
                # (an op giving no opaque result ran blocked when it read one)
                ran += any(isinstance(g, Opaque) for g in got) or (
                    not rule.gives and any(isinstance(a, Opaque) for a in blocked))
                for slot, g, w in zip(op.output_names, got, want):
                    if slot in rule.drops:
                        continue
                    if slot not in keep:
                        assert isinstance(g, np.ndarray), (name, k, slot)
                    g = plain(g)
                    assert g.shape == w.shape and g.dtype == w.dtype, (name, k, slot)
                    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5,
                                               err_msg='%s case %d %s' % (name, k, slot))
    assert ran, '%s: no case left a result in a oneDNN layout' % name


# ---- the pass --------------------------------------------------------------------------

class _Block(nn.Layer):
    """conv-bn-relu, conv-bn + shortcut, relu, max pool, then a non-layout op."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2D(8, 16, 3, padding=1), nn.BatchNorm2D(16)
        self.c2, self.b2 = nn.Conv2D(16, 16, 3, padding=1), nn.BatchNorm2D(16)
        self.c3 = nn.Conv2D(16, 16, 1)
        self.pool = nn.MaxPool2D(2, 2)

    def forward(self, x):
        y = nn.functional.relu(self.b1(self.c1(x)))
        y = nn.functional.relu(self.b2(self.c2(y)) + y)
        y = nn.functional.relu6(self.c3(y))
        return paddle.tanh(self.pool(y))


def _programs():
    paddle.seed(3)
    net = _Block()
    net.eval()
    x = np.random.default_rng(4).standard_normal((2, 8, 10, 10)).astype(np.float32)
    return net, x


def _static_run(net, x, layouts, fetch_extra=False):
    """Run ``net`` as a static program on oneDNN; returns the fetches, the
    compiled program's ops and the generated code."""
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xv = static.data('x', [-1, 8, 10, 10], 'float32')
            out = net(xv)
            fetch = [out]
            if fetch_extra:
                fetch.append(main.global_block().ops[0].output_arg_names[0])
        strategy = static.BuildStrategy()
        strategy.plan_layouts = layouts
        prog = static.CompiledProgram(main, build_strategy=strategy)
        exe = static.Executor()
        exe.run(startup)
        with backends.using('onednn'):
            got = exe.run(prog, feed={'x': x}, fetch_list=fetch)
            code = exe.generated_code(prog, feed={'x': x}, fetch_list=fetch)
        return got, code
    finally:
        paddle.disable_static()


def test_the_pass_keeps_layouts_inside_and_changes_no_result():
    net, x = _programs()
    with backends.using('onednn'):
        eager = net(paddle.to_tensor(x)).numpy()
    base, code_off = _static_run(net, x, False)
    got, code = _static_run(net, x, True)
    np.testing.assert_array_equal(got[0], base[0])
    np.testing.assert_allclose(got[0], eager, rtol=1e-5, atol=1e-6)
    assert not re.search(r'k_\w+_layout', code_off)
    # the generated code shows the plan: which kernels leave their result in
    # oneDNN's layout, and the last op before tanh (not a layout op) does not
    assert code.count('_layout_out(') >= 3, code
    pool_line = next(line for line in code.splitlines() if 'max_pool [' in line)
    assert 'k_max_pool_layout(' in pool_line, pool_line


def test_a_fetched_value_is_never_left_opaque():
    net, x = _programs()
    got, code = _static_run(net, x, True, fetch_extra=True)
    base, _ = _static_run(net, x, False, fetch_extra=True)
    for g, b in zip(got, base):
        assert isinstance(g, np.ndarray)
        np.testing.assert_array_equal(g, b)


def test_to_static_models_give_the_same_results_with_and_without_the_pass():
    for name in ('resnet18', 'mobilenet_v2'):
        paddle.seed(0)
        net = getattr(paddle.vision.models, name)(num_classes=10)
        net.eval()
        x = paddle.to_tensor(np.random.default_rng(0).standard_normal((2, 3, 32, 32))
                             .astype(np.float32))
        outs = []
        for on in (False, True):
            strategy = static.BuildStrategy()
            strategy.plan_layouts = on
            with backends.using('onednn'):
                outs.append(paddle.jit.to_static(net, build_strategy=strategy)(x).numpy())
        np.testing.assert_array_equal(outs[1], outs[0], err_msg=name)


def _marks(build, backend='onednn'):
    """{op type: op_layout} (None: unmarked) of the program ``build()``
    makes (returning its fetch names), after the layout pass on ``backend``."""
    return _planned(build, ['x'], lambda fetch: (), backend)[0]


def _conv(x, name):
    w = static.create_parameter([4, 4, 3, 3], 'float32', name=name)
    return paddle.nn.functional.conv2d(x, w, padding=1)


def _chain(fetch_middle=False, pool_mask=False):
    def build():
        x = static.data('x', [2, 4, 8, 8], 'float32')
        b = paddle.nn.functional.relu(_conv(x, 'w1'))
        c = _conv(b, 'w2')
        if pool_mask:
            c, mask = paddle.nn.functional.max_pool2d(c, 2, 2, return_mask=True)
            return [paddle.tanh(c).name, mask.name]
        return [paddle.tanh(c).name] + ([b.name] if fetch_middle else [])
    return build


def test_what_the_pass_marks():
    # conv -> relu -> conv stay in oneDNN's layouts; the last conv's reader
    # (tanh) has no layout kernel: that conv takes an opaque input only
    assert _marks(_chain()) == [('conv', ['out']), ('relu', ['out']), ('conv', []),
                                ('tanh', None)]
    # a fetched value is plain: relu leaves nothing opaque, the conv after it
    # then has nothing opaque to read
    assert _marks(_chain(fetch_middle=True)) == [('conv', ['out']), ('relu', []),
                                                 ('conv', None), ('tanh', None)]
    # max pooling's layout kernel drops the mask: with the mask read it is
    # not a layout op, so the conv before it leaves a plain value
    assert _marks(_chain(pool_mask=True)) == [('conv', ['out']), ('relu', ['out']),
                                              ('conv', []), ('max_pool', None),
                                              ('tanh', None)]
    assert all(mark is None for _, mark in _marks(_chain(), backend='numpy'))


def test_a_value_read_in_a_branch_stays_plain():
    def build():
        x = static.data('x', [2, 4, 8, 8], 'float32')
        a = paddle.nn.functional.relu(_conv(x, 'w1'))
        out = static.nn.cond(paddle.mean(x) > 0, lambda: _conv(a, 'w2'),
                             lambda: paddle.nn.functional.relu(a))
        return [out.name]
    marks = dict(_marks(build))
    # the conv's value goes to relu only; relu's is read inside the branches
    assert marks['conv'] == ['out'] and marks['relu'] == [], marks


def test_the_verifier_checks_the_marks():
    # (the suite verifies every pass's output: FLAGS_verify_passes, conftest.py)
    from framework.graph.passes import layout
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            fetch = _chain()()
        work = main.clone()
        assert layout.plan_layouts(work, ['x'], fetch, backend='onednn')
        verify.verify_program(work, fetch_names=fetch, executor_copy=True)
        op = next(o for o in work.global_block().ops if o.attrs.get('op_layout'))
        op.attrs['op_layout'] = ['no_such_output']
        with pytest.raises(verify.VerifyError, match='op_layout'):
            verify.verify_program(work, fetch_names=fetch, executor_copy=True)
        tanh = next(o for o in work.global_block().ops if o.type == 'tanh')
        op.attrs['op_layout'] = ['out']
        tanh.attrs['op_layout'] = []          # tanh has no layout kernel
        with pytest.raises(verify.VerifyError, match='op_layout'):
            verify.verify_program(work, fetch_names=fetch, executor_copy=True)
    finally:
        paddle.disable_static()


def test_an_op_its_layout_kernel_does_not_apply_to_stays_plain():
    # conv's layout kernel applies to NCHW only: a channel-last conv between
    # two NCHW ones leaves and reads plain values
    def build():
        x = static.data('x', [2, 4, 8, 8], 'float32')
        a = paddle.nn.functional.relu(_conv(x, 'w1'))
        w = static.create_parameter([8, 8, 3, 3], 'float32', name='w2')   # 8 channels last
        b = paddle.nn.functional.conv2d(a, w, padding=1, data_format='NHWC')
        return [paddle.tanh(b).name]
    marks = _marks(build)
    assert marks[-2:] == [('conv', None), ('tanh', None)], marks
    assert marks[1] == ('relu', []), marks


def test_a_value_nobody_reads_is_not_marked():
    def build():
        x = static.data('x', [2, 4, 8, 8], 'float32')
        _conv(x, 'w0')                      # unread (the pass runs before nothing else)
        return [paddle.tanh(_conv(x, 'w1')).name]
    assert _marks(build) == [('conv', None), ('conv', None), ('tanh', None)]


def test_a_value_read_as_a_filter_stays_plain():
    # conv's layout kernel takes its input x only: relu's value, read as the
    # second conv's filter, is left plain (the first conv's is still kept)
    def build():
        x = static.data('x', [2, 4, 8, 8], 'float32')
        a = paddle.nn.functional.relu(_conv(x, 'w1'))      # [2, 4, 8, 8]: a 2x4x8x8 filter
        return [paddle.tanh(paddle.nn.functional.conv2d(x, a)).name]
    marks = _marks(build)
    assert marks[:2] == [('conv', ['out']), ('relu', [])], marks


def test_a_value_written_twice_stays_plain():
    # (the public API renames a rewritten variable, as assign(..., output=b)
    # does: the program is made by hand) relu's value is written again by an
    # assign before the second conv reads it: not one value for the run
    from framework.graph.passes import layout
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data('x', [2, 4, 8, 8], 'float32')
            b = paddle.nn.functional.relu(_conv(x, 'w1'))
            c = paddle.assign(paddle.nn.functional.relu(x))
            fetch = [paddle.tanh(_conv(c, 'w2')).name]
        ops = main.global_block().ops
        assign = next(op for op in ops if op.type == 'assign')
        second_conv = [op for op in ops if op.type == 'conv'][1]
        assign.outputs['out'] = [b.name]
        second_conv.inputs['x'] = [b.name]
        layout.plan_layouts(main, ['x'], fetch, backend='onednn')
        marks = [(op.type, op.attrs.get('op_layout')) for op in ops]
    finally:
        paddle.disable_static()
    assert marks[:2] == [('conv', ['out']), ('relu', [])], marks


# ---- training plans: saved values cross from the forward plan to the backward one -----

def _planned(build, feeds, crossing_of, backend='onednn'):
    """(marks as ``_marks``, the feeds made plain on entry) after the layout
    pass on ``backend``, the names ``crossing_of(fetches)`` crossing the
    plan's boundary."""
    from framework.graph.passes import layout
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            fetch = build()
        work = main.clone()
        layout.plan_layouts(work, feeds, fetch, backend=backend, crossing=crossing_of(fetch))
        return ([(op.type, op.attrs.get('op_layout')) for op in work.global_block().ops],
                set(getattr(work, '_plain_on_entry', ())))
    finally:
        paddle.disable_static()


def test_a_crossing_fetch_may_stay_opaque():
    # relu's value is fetched for a backward plan only: it stays in oneDNN's
    # layout (as fetched for anything else, it is plain: test_what_the_pass_marks)
    marks, entry = _planned(_chain(fetch_middle=True), ['x'], lambda f: {f[1]})
    assert marks == [('conv', ['out']), ('relu', ['out']), ('conv', []), ('tanh', None)]
    assert entry == set()
    # read by nothing in this plan, it still crosses opaque
    def build():
        x = static.data('x', [2, 4, 8, 8], 'float32')
        a = paddle.nn.functional.relu(_conv(x, 'w1'))
        return [paddle.tanh(x).name, a.name]
    marks, _ = _planned(build, ['x'], lambda f: {f[1]})
    assert marks[:2] == [('conv', ['out']), ('relu', ['out'])], marks


def test_a_persistable_crossing_fetch_stays_plain():
    from framework.graph.passes import layout
    paddle.enable_static()
    try:
        main = static.Program()
        with static.program_guard(main, static.Program()):
            x = static.data('x', [2, 4, 8, 8], 'float32')
            a = _conv(x, 'w1')
            fetch = [paddle.tanh(paddle.nn.functional.relu(a)).name, a.name]
        main.global_block().var(a.name).persistable = True     # (stored in the scope)
        layout.plan_layouts(main, ['x'], fetch, backend='onednn', crossing={a.name})
        assert main.global_block().ops[0].attrs.get('op_layout') is None
    finally:
        paddle.disable_static()


def test_an_inference_batch_norm_is_not_planned():
    # (it keeps the numpy kernel's rounding; its layout kernel is for batch statistics)
    def build(global_stats):
        x = static.data('x', [2, 4, 8, 8], 'float32')
        bn = nn.BatchNorm2D(4, use_global_stats=global_stats)
        return [paddle.tanh(_conv(bn(_conv(x, 'w1')), 'w2')).name]
    assert [m for t, m in _marks(lambda: build(True)) if t == 'batch_norm'] == [None]
    assert [m for t, m in _marks(lambda: build(False)) if t == 'batch_norm'] == [['out']]


def test_a_crossing_feed_is_read_opaque_or_made_plain_on_entry():
    def build(plain_reader):
        x = static.data('x', [2, 4, 8, 8], 'float32')
        s = static.data('s', [2, 4, 8, 8], 'float32')
        a = _conv(s, 'w1')
        if plain_reader:
            a = a + paddle.tanh(s)
        return [paddle.tanh(a).name]
    marks, entry = _planned(lambda: build(False), ['x', 's'], lambda f: {'s'})
    assert marks[0] == ('conv', []) and entry == set(), (marks, entry)
    # tanh has no layout kernel: s is made plain as it enters (the conv's
    # own result still goes opaque to the add)
    marks, entry = _planned(lambda: build(True), ['x', 's'], lambda f: {'s'})
    assert marks[:2] == [('conv', ['out']), ('tanh', None)] and entry == {'s'}, (marks, entry)
    # not crossing: a feed is plain, nothing to do
    marks, entry = _planned(lambda: build(True), ['x', 's'], lambda f: set())
    assert entry == set(), (marks, entry)

    # no layout op at all in the plan: still made plain on entry
    def only_tanh():
        static.data('x', [2, 4, 8, 8], 'float32')
        return [paddle.tanh(static.data('s', [2, 4, 8, 8], 'float32')).name]
    marks, entry = _planned(only_tanh, ['x', 's'], lambda f: {'s'})
    assert entry == {'s'}, (marks, entry)


class _TrainNet(nn.Layer):
    """conv-bn-relu, conv-bn + shortcut, relu, 1x1 conv-bn-relu6, pooling
    (whose grad op has no layout kernel), linear."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2D(3, 16, 3, padding=1, bias_attr=False), nn.BatchNorm2D(16)
        self.c2, self.b2 = nn.Conv2D(16, 16, 3, padding=1, bias_attr=False), nn.BatchNorm2D(16)
        self.c3, self.b3 = nn.Conv2D(16, 16, 1, bias_attr=False), nn.BatchNorm2D(16)
        self.fc = nn.Linear(16, 5)

    def forward(self, x):
        y = nn.functional.relu(self.b1(self.c1(x)))
        y = nn.functional.relu(self.b2(self.c2(y)) + y)
        y = nn.functional.relu6(self.b3(self.c3(y)))
        y = nn.functional.adaptive_avg_pool2d(y, 1)
        return self.fc(paddle.flatten(y, 1))


def _train_steps(layouts, steps=3):
    """Losses, final parameters and the last backward plan's code of a few
    SGD steps of ``_TrainNet`` under ``@to_static`` on oneDNN."""
    paddle.seed(7)
    net = _TrainNet()
    strategy = static.BuildStrategy()
    strategy.plan_layouts = layouts
    snet = paddle.jit.to_static(net, build_strategy=strategy)
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    rng = np.random.default_rng(8)
    x = paddle.to_tensor(rng.standard_normal((4, 3, 8, 8)).astype(np.float32),
                         stop_gradient=False)
    label = paddle.to_tensor(rng.integers(0, 5, (4, 1)))
    losses = []
    with backends.using('onednn'):
        for _ in range(steps):
            loss = nn.functional.cross_entropy(snet(x), label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        xgrad = x.grad.numpy().copy()
    partial = snet.forward.program_cache.last()[1][1]
    plans = next(p for k, p in partial._trains.items() if k[-1] == 'onednn')
    state = {k: v.numpy() for k, v in net.state_dict().items()}
    return losses, state, xgrad, plans


def test_a_training_plan_keeps_layouts_across_forward_and_backward():
    losses, state, xgrad, plans = _train_steps(True)
    base_losses, base_state, base_xgrad, base_plans = _train_steps(False)
    # oneDNN's batch norm sums in its own order: float32 rounding apart
    np.testing.assert_allclose(losses, base_losses, rtol=1e-5)
    for k in state:
        np.testing.assert_allclose(state[k], base_state[k], rtol=1e-4, atol=1e-5, err_msg=k)
    np.testing.assert_allclose(xgrad, base_xgrad, rtol=1e-4, atol=1e-6)
    fwd, bwd = plans.fwd.source, plans.bwd.source
    assert not re.search(r'k_\w+_layout', base_plans.bwd.source)
    # the forward leaves the saved values in oneDNN's layouts, the backward
    # reads them so and keeps its own gradients there too
    assert 'k_batch_norm_layout_out(' in fwd and 'k_conv_layout_out(' in fwd, fwd
    for kernel in ('k_batch_norm_grad_layout_dx(', 'k_conv_transpose_layout_out(',
                   'k_conv_filter_grad_layout(', 'k_relu_grad_layout_x_grad('):
        assert kernel in bwd, (kernel, bwd)
    # the pooling's grad op has no layout kernel: the value it reads (relu6's,
    # opaque in the forward) is made plain as it enters the backward plan
    assert 'k_relu6_grad_layout_x_grad(' in bwd, bwd
    assert re.search(r"= _plain\(F\['relu6\.tmp_\d+'\]\)", bwd), bwd


class _ReluOut(nn.Layer):
    """A block whose output is relu's: a value saved for the backward
    (relu_grad reads it) that the user also gets."""

    def __init__(self):
        super().__init__()
        self.c, self.b = nn.Conv2D(4, 16, 3, padding=1, bias_attr=False), nn.BatchNorm2D(16)

    def forward(self, x):
        return nn.functional.relu(self.b(self.c(x)))


def test_an_output_also_saved_for_the_backward_is_plain():
    x = np.random.default_rng(9).standard_normal((2, 4, 6, 6)).astype(np.float32)
    results = []
    for layouts in (True, False):
        paddle.seed(5)
        net = _ReluOut()
        strategy = static.BuildStrategy()
        strategy.plan_layouts = layouts
        snet = paddle.jit.to_static(net, build_strategy=strategy)
        xt = paddle.to_tensor(x, stop_gradient=False)
        with backends.using('onednn'):
            out = snet(xt)
            (out * out).sum().backward()
        assert isinstance(out.numpy(), np.ndarray)
        results.append((out.numpy().copy(), xt.grad.numpy().copy(),
                        net.c.weight.grad.numpy().copy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_the_blocked_batch_norm_uses_epsilon_and_the_weight():
    # a small variance, where epsilon matters in every output
    from framework.ops import nn as nn_ops
    rng = np.random.default_rng(10)
    x = (rng.standard_normal((3, 5, 4, 4)) * 1e-3).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    w, b = rng.uniform(0.5, 2, 5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    stats = (np.zeros(5, np.float32), np.ones(5, np.float32))
    from framework.backends.onednn import layout as L
    xb = L.to_layout(_rt(), x, onednn.constants.ABCD16B)
    bn = nn_ops.batch_norm_op.layout_kernel_for('onednn', ())
    want = nn_ops.batch_norm_op.kernel(x, *stats, w, b, 0.9, 1e-5, 'NCHW', False)
    for got, ref in zip(bn(xb, *stats, w, b, 0.9, 1e-5, 'NCHW', False), want):
        np.testing.assert_allclose(plain(got), ref, rtol=1e-4, atol=1e-6)
    grad = nn_ops.batch_norm_grad_op.layout_kernel_for('onednn', ())
    gb = L.to_layout(_rt(), g, onednn.constants.ABCD16B)
    want = nn_ops.batch_norm_grad_op.kernel(g, x, w, 1e-5, 'NCHW')
    for got, ref in zip(grad(gb, xb, w, 1e-5, 'NCHW'), want):
        np.testing.assert_allclose(plain(got), ref, rtol=1e-3, atol=1e-3)


class _PD:
    def __init__(self, impl):
        self._impl = impl

    def impl(self):
        return self._impl


def test_a_backward_conv_follows_the_arriving_layout_only_for_a_kernel_as_good():
    from framework.backends.onednn import conv as dnnl_conv
    from framework.backends.onednn import layout as L
    from framework.backends.onednn.library import DnnlError
    blocked = L.to_layout(_rt(), np.ones((1, 16, 4, 4), np.float32),
                                      onednn.constants.ABCD16B)
    chosen, users = ('any_x', 'any_w', 'any_y'), ('user_x', 'user_w', 'user_y')

    def pick(free_impl, follow_impl, values=(None, None, blocked)):
        def make(*descs):
            if descs == chosen:
                return _PD(free_impl)
            if follow_impl is None:
                raise DnnlError('refused')
            assert descs == ('any_x', 'any_w', 'user_y'), descs
            return _PD(follow_impl)
        return dnnl_conv._following(make, chosen, users, values).impl()
    assert pick('jit:avx512_core', 'jit:avx512_core') == 'jit:avx512_core'   # same kernel
    assert pick('jit:avx512_core', 'brgconv:avx512_core') == 'brgconv:avx512_core'
    # a depthwise conv's jit_dw is not traded for a generic kernel
    assert pick('jit_dw:avx512_core', 'jit:avx512_core') == 'jit_dw:avx512_core'
    assert pick('jit:avx512_core', None) == 'jit:avx512_core'                 # refused
    # nothing arrives blocked: the free choice, no second descriptor
    assert pick('jit_dw:avx512_core', 'x', values=(None, None, np.ones(3))) == \
        'jit_dw:avx512_core'


def test_a_grouped_transposed_conv_stays_in_a_layout():
    from framework.backends.onednn import layout as L
    from framework.ops.conv import conv as conv_ops
    rng = np.random.default_rng(11)
    # (16 channels a group: oneDNN's blocked kernels take it, not its GEMM)
    x = rng.standard_normal((2, 32, 5, 5)).astype(np.float32)
    w = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
    args = (None, [2, 2], [1, 1, 1, 1], [1, 1], [1, 1], 2, 'NCHW')
    op = conv_ops.conv_transpose_op
    got = op.layout_kernel_for('onednn', ('out',))(
        L.to_layout(_rt(), x, onednn.constants.ABCD16B), w, *args)
    assert isinstance(got, Opaque) and got.shape == (2, 32, 10, 10)
    np.testing.assert_allclose(plain(got), op.kernel(x, w, *args), rtol=1e-5, atol=1e-5)
