"""The StaticFunction surface Paddle code relies on: the traced programs of the
latest call, the program cache, train/eval, rollback, the global switches and
saving through ProgramTranslator."""
import os
import warnings

import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.jit import ProgramTranslator, to_static
from framework.static import InputSpec


def _add_one(x):
    return x + 1


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.fc(x))

    def helper(self):
        return True


def test_programs_of_the_latest_call():
    sf = to_static(_add_one)
    with pytest.raises(ValueError, match='No valid transformed program'):
        sf.main_program
    sf(paddle.ones([2, 3]))
    sf(paddle.ones([4]))
    assert sf.get_traced_count() == 2
    assert [v.shape for v in sf.inputs] == [[4]]
    assert [v.shape for v in sf.outputs] == [[4]]
    assert sf.main_program is sf.concrete_program.main_program
    assert sf.startup_program is sf.concrete_program.startup_program
    assert [op.type for op in sf.main_program.global_block().ops][-1] == 'add'
    programs = sf.program_cache.concrete_programs()
    assert len(programs) == 2 and programs[1] is sf.concrete_program
    key, (concrete, partial) = sf.program_cache.last()
    assert concrete is sf.concrete_program and key in sf.program_cache
    sf(paddle.ones([2, 3]))          # a cache hit is the latest call too
    assert sf.get_traced_count() == 2
    assert sf.inputs[0].shape == [2, 3]


def test_input_spec_decides_the_program():
    sf = to_static(_add_one, input_spec=[InputSpec([None, 3], 'float32', 'x')])
    assert sf.inputs[0].shape == [-1, 3] and sf.inputs[0].name == 'x'
    other = to_static(_add_one)
    prog = other.concrete_program_specify_input_spec([InputSpec([5], 'float64')])
    assert prog.inputs[0].shape == [5] and str(prog.inputs[0].dtype) == 'float64'


def test_train_eval_of_a_function():
    sf = to_static(_add_one)
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    sf.eval()
    out = sf(x)
    partial = sf.program_cache.last()[1][1]
    assert not partial.training and partial.program is partial.infer_program
    assert out.stop_gradient              # eval: no backward
    sf.train()
    out = sf(x)
    partial = sf.program_cache.last()[1][1]
    assert partial.training and partial.program is partial.train_program
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.0, 1.0])
    assert sf.get_traced_count() == 2     # train and eval are separate programs


def test_train_eval_of_a_layer_method_follow_the_layer():
    net = to_static(Net())
    with pytest.raises(RuntimeError, match='Layer.eval'):
        net.forward.eval()
    net.eval()
    with pytest.raises(RuntimeError, match='Layer.train'):
        to_static(net.helper).train()
    x = paddle.ones([4, 3])
    a, b = net(x).numpy(), net(x).numpy()
    np.testing.assert_array_equal(a, b)   # eval: dropout is off
    assert not net.forward.program_cache.last()[1][1].training


def test_dygraph_function_and_rollback():
    net = to_static(Net())
    net.eval()
    x = paddle.ones([2, 3])
    static_out = net(x).numpy()
    eager = net.forward.dygraph_function
    np.testing.assert_allclose(eager(x).numpy(), static_out, rtol=1e-6)
    net.forward.rollback()
    assert not hasattr(net.forward, 'program_cache')
    np.testing.assert_allclose(net(x).numpy(), static_out, rtol=1e-6)
    sf = to_static(_add_one)
    assert sf.rollback() is _add_one


class ClassDecorated(nn.Layer):
    @to_static
    def forward(self, x):
        return x * 2


def test_rollback_of_a_class_level_decorator_affects_one_instance():
    a, b = ClassDecorated(), ClassDecorated()
    a(paddle.ones([1]))
    a.forward.rollback()
    assert not hasattr(a.forward, 'program_cache')
    assert hasattr(b.forward, 'program_cache')
    np.testing.assert_allclose(a(paddle.ones([1])).numpy(), [2.0])


def test_enable_to_static_switch():
    sf = to_static(_add_one)
    try:
        paddle.jit.enable_to_static(False)
        sf(paddle.ones([2]))
        assert sf.get_traced_count() == 0
    finally:
        paddle.jit.enable_to_static(True)
    sf(paddle.ones([2]))
    assert sf.get_traced_count() == 1
    with pytest.raises(TypeError):
        paddle.jit.enable_to_static('yes')


def test_ignore_module_leaves_its_functions_unconverted(tmp_path, monkeypatch):
    mod_dir = tmp_path / 'ignored_pkg'
    mod_dir.mkdir()
    (mod_dir / '__init__.py').write_text(
        'def pick(x, flag):\n'
        '    if flag:\n'
        '        return x\n'
        '    return -x\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    import ignored_pkg

    def f(x):
        return ignored_pkg.pick(x, x.sum() > 0)

    paddle.jit.ignore_module([ignored_pkg])
    try:
        with pytest.raises(TypeError, match='truth value'):
            to_static(f)(paddle.ones([2]))     # a Python `if` on a tensor: not converted
    finally:
        from framework.dy2static import translator
        translator._ignored_modules.discard('ignored_pkg')
    np.testing.assert_allclose(to_static(f)(paddle.ones([2])).numpy(), [1.0, 1.0])


class MakesLayerInForward(nn.Layer):
    def forward(self, x):
        return nn.Linear(3, 2)(x)


def test_layer_created_inside_forward_is_refused():
    with pytest.raises(ValueError, match='created inside the converted function'):
        to_static(MakesLayerInForward())(paddle.ones([1, 3]))


def test_program_translator_saves_the_latest_call(tmp_path):
    net = to_static(Net())
    net.eval()
    x = paddle.ones([2, 3])
    expected = net(x).numpy()
    ProgramTranslator().save_inference_model(str(tmp_path), fetch=[0])
    loaded = paddle.jit.load(os.path.join(str(tmp_path), 'model'))
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-6)


def test_build_strategy_must_be_a_build_strategy():
    with pytest.raises(TypeError, match='build_strategy'):
        to_static(_add_one, build_strategy='x')
    to_static(_add_one, build_strategy=paddle.static.BuildStrategy())


def test_methods_convert_only_on_layers():
    class Plain:
        @classmethod
        @to_static
        def twice(cls, x):
            return x * 2

    with pytest.raises(TypeError, match='nn.Layer'):
        Plain().twice(paddle.ones([1]))


class Twice(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(1, 1)

    def forward(self, x):
        y = self.fc(x)
        return y, y


def test_an_output_returned_twice_gets_both_gradients():
    for use_static in (False, True):
        net = Twice()
        net = to_static(net) if use_static else net
        a, b = net(paddle.to_tensor([[2.0]]))
        (a * 3 + b).sum().backward()
        np.testing.assert_allclose(net.fc.weight.grad.numpy(), [[8.0]])


def test_outputs_keep_stop_gradient_of_tensors_made_inside():
    def make():
        return paddle.to_tensor([1.0, 2.0], stop_gradient=False), paddle.to_tensor([3.0])

    eager, static = make(), to_static(make)()
    assert [t.stop_gradient for t in static] == [t.stop_gradient for t in eager] == [False, True]


def test_set_dynamic_shape_makes_dims_run_time_values():
    def grow(n):
        mask = paddle.ones([2, 2])
        paddle.jit.api.set_dynamic_shape(mask, [-1, 2])
        row = paddle.zeros([1, 2])
        for _ in range(n):
            mask = paddle.concat([mask, row], axis=0)
            if mask.shape[0] == 5:
                break
        return mask, mask.shape[0]

    n = paddle.to_tensor(10)
    (em, en), (sm, sn) = grow(n), to_static(grow)(n)
    np.testing.assert_array_equal(sm.numpy(), em.numpy())
    assert isinstance(sn, paddle.Tensor) and int(sn) == en == 5
    with pytest.raises(ValueError, match='set_dynamic_shape'):
        to_static(lambda: paddle.jit.api.set_dynamic_shape(paddle.ones([2]), [-1, 2]))()


class Tagged(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        if x.mean() > 0:
            x = paddle.tanh(x)
        return self.fc(x)


def test_set_op_attrs_tags_the_ops_of_the_next_traced_forward():
    net = Tagged()
    with pytest.raises(TypeError, match='dict'):
        net._set_op_attrs([('a', 1)])
    net._set_op_attrs({'quant': 8})
    net._set_op_attrs({'mark': True})
    net(paddle.ones([1, 2]))                         # eager: nothing happens yet
    assert len(net._forward_pre_hooks) == 1
    outer = Tagged()
    outer.fc = net                                   # a sub-layer inside a traced forward
    outer._set_op_attrs({'outer': 1})
    sf = to_static(outer, input_spec=[InputSpec([1, 2], 'float32')])
    program = sf.forward.main_program
    tagged = [op for b in program.blocks for op in b.ops if op.desc.attr('quant') == 8]
    assert tagged and all(op.attr('mark') is True for op in tagged)
    assert {op.type for op in tagged} >= {'linear', 'tanh', 'cond'}
    assert len(net._forward_pre_hooks) == 0 and len(net._forward_post_hooks) == 0


class Gate(nn.Layer):
    def forward(self, x):
        if x.mean() < 0:           # a tensor condition inside a layer nn.Sequential calls
            return -x
        return x


def test_layers_called_by_framework_containers_are_converted():
    net = to_static(nn.Sequential(nn.Linear(2, 2), Gate()))
    for sign in (1.0, -1.0):
        x = paddle.to_tensor([[sign, 2 * sign]])
        np.testing.assert_allclose(net(x).numpy(), net.forward.dygraph_function(x).numpy(),
                                   rtol=1e-6)
    types = [op.type for b in net.forward.main_program.blocks for op in b.ops]
    assert 'cond' in types


def _double_first(layer, inputs):
    return (inputs[0] * 2,)


def _add_one_to_output(layer, inputs, output):
    return output + 1


def test_jit_save_traces_the_layers_hooks_in(tmp_path):
    net = nn.Linear(3, 1)
    net.register_forward_pre_hook(_double_first)
    net.register_forward_post_hook(_add_one_to_output)
    net = to_static(net)
    x = paddle.ones([2, 3])
    expected = net(x).numpy()
    path = os.path.join(str(tmp_path), 'hooked')
    paddle.jit.save(net, path)
    np.testing.assert_allclose(paddle.jit.load(path)(x).numpy(), expected, rtol=1e-6)


def _three(a, b, c=1.0):
    return a * 1 + b * 2 + c * 3


def test_keyword_arguments_feed_in_parameter_order(tmp_path):
    sf = to_static(_three)
    a, b = paddle.ones([2]), paddle.full([2], 2, 'int64')
    out = sf(b=b, a=a)
    np.testing.assert_allclose(out.numpy(), [8.0, 8.0])
    assert [v.name for v in sf.inputs] == ['a', 'b']
    sf(a, b)                        # the same call spelled positionally: no new program
    assert sf.get_traced_count() == 1
    path = os.path.join(str(tmp_path), 'three')
    paddle.jit.save(sf, path)
    paddle.enable_static()
    try:
        exe = paddle.static.Executor()
        prog, feeds, fetches = paddle.static.io.load_inference_model(
            str(tmp_path), exe, model_filename='three.pdmodel', params_filename='three.pdiparams')
        assert feeds == ['a', 'b']
        res = exe.run(prog, feed={'a': a.numpy(), 'b': b.numpy()}, fetch_list=fetches)
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(res[0], [8.0, 8.0])


def test_grads_computed_by_the_forward_survive_export(tmp_path):
    class GradOf(nn.Layer):
        def forward(self, x):
            x.stop_gradient = False
            y = (x * x).sum()
            return paddle.grad([y], [x], create_graph=True)[0]

    net = to_static(GradOf())
    x = paddle.to_tensor([1.0, -3.0])
    path = os.path.join(str(tmp_path), 'grad_of')
    paddle.jit.save(net, path, input_spec=[InputSpec([2], 'float32')])
    np.testing.assert_allclose(paddle.jit.load(path)(x).numpy(), [2.0, -6.0])


def _scaled(x, k=2.0):
    return x * k


@pytest.mark.parametrize('vary', ['shape', 'dtype', 'needs_grad', 'python_value', 'mode'])
def test_program_cache_key_each_component_alone_retraces(vary):
    sf = to_static(_scaled)
    base = paddle.ones([2, 3])
    sf(base, 2.0)
    sf(paddle.ones([2, 3]), 2.0)                 # same key: a hit
    assert sf.get_traced_count() == 1
    if vary == 'shape':
        sf(paddle.ones([3, 2]), 2.0)
    elif vary == 'dtype':
        sf(paddle.ones([2, 3], dtype='float64'), 2.0)
    elif vary == 'needs_grad':
        sf(paddle.to_tensor(np.ones((2, 3), 'float32'), stop_gradient=False), 2.0)
    elif vary == 'python_value':
        out = sf(base, 3.0)
        np.testing.assert_allclose(out.numpy(), np.full((2, 3), 3.0))
    else:
        sf.eval()
        sf(base, 2.0)
    assert sf.get_traced_count() == 2


def test_keyword_and_positional_calls_share_a_program():
    sf = to_static(_scaled)
    sf(paddle.ones([2]), 2.0)
    sf(paddle.ones([2]), k=2.0)
    sf(x=paddle.ones([2]), k=2.0)
    assert sf.get_traced_count() == 1


# ---- Paddle's input_spec checks and dy2static warnings ---------------------------------

def test_input_spec_must_be_a_list_and_no_longer_than_the_arguments():
    from framework.static import InputSpec

    def f(x, y=1):
        return x + y
    with pytest.raises(TypeError, match='should be one of \\(tuple, list\\), but received '
                                        'InputSpec'):
        paddle.jit.to_static(f, input_spec=InputSpec([3]))
    sf = paddle.jit.to_static(f, input_spec=[InputSpec([3])] * 3)
    with pytest.raises(ValueError, match='len\\(args\\):2 < len\\(InputSpec\\): 3'):
        sf(paddle.ones([3]))
    assert paddle.jit.to_static(f, input_spec=[InputSpec([3])] * 2)(paddle.ones([3])).shape == [3]


def test_a_contextmanager_function_runs_as_it_is_with_paddles_warning():
    import contextlib
    entered = []

    @contextlib.contextmanager
    def scope():
        entered.append(True)
        yield

    @paddle.jit.to_static
    def f(x):
        with scope():
            y = x + 1
        return y
    with pytest.warns(UserWarning, match='A context manager decorator is used'):
        out = f(paddle.ones([2]))
    assert out.numpy().tolist() == [2.0, 2.0] and entered


def test_one_branch_definitions_and_none_returns_warn_as_paddle():
    @paddle.jit.to_static
    def unbound(x):
        if x.mean() > 0:
            y = x + 1
        return y
    with pytest.warns(UserWarning, match='maybe unbound local variable `y`'):
        assert unbound(paddle.ones([2])).numpy().tolist() == [2.0, 2.0]

    @paddle.jit.to_static
    def none_in_one_branch(x):
        if x.mean() > 0:
            return x + 1
    # Paddle warns, then refuses: one static output cannot be a tensor on one
    # path and None on the other (eagerly the false path returns None)
    with pytest.warns(UserWarning, match='None in the false branch only'), \
            pytest.raises(TypeError, match='different return type'):
        none_in_one_branch(paddle.ones([2]))

    @paddle.jit.to_static
    def early_return(x):        # every path returns: no warning, no error
        if x.mean() > 0:
            return x + 1
        return x - 1
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert early_return(-paddle.ones([2])).numpy().tolist() == [-2.0, -2.0]

    @paddle.jit.to_static
    def both(x):
        if x.mean() > 0:
            y = x + 1
        else:
            y = x - 1
        return y
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert both(paddle.ones([2])).numpy().tolist() == [2.0, 2.0]


# ---- Paddle's input_spec rules, errors and names ------------------------------------------

class _TranslatorLog:
    """What the ``Dynamic-to-Static`` logger prints (it does not propagate)."""
    def __init__(self):
        import logging
        self.logger = logging.getLogger('Dynamic-to-Static')
        self.records = []
        self.handler = logging.Handler()
        self.handler.emit = lambda record: self.records.append(record.getMessage())

    def __enter__(self):
        self.logger.addHandler(self.handler)
        return self.records

    def __exit__(self, *exc):
        self.logger.removeHandler(self.handler)


def test_a_spec_gives_its_shape_and_the_tensor_its_dtype():
    @to_static(input_spec=[InputSpec([None, 4], 'float32', 'a')])
    def double(a):
        return a * 2
    with _TranslatorLog() as log:
        out = double(paddle.ones([3, 4], 'int32'))
        assert out.dtype == paddle.int32 and out.numpy().tolist() == [[2] * 4] * 3
        assert double.concrete_program.inputs[0].shape == (-1, 4)     # the spec's shape
        assert not log
        # a tensor the spec does not cover is traced with its own shape, logged
        assert double(paddle.ones([3, 5])).shape == [3, 5]
        assert sum('input spec is not compatible with real inputs' in m for m in log) == 1
        # concrete_program is the decorator's spec program, as Paddle's
        assert double.concrete_program.inputs[0].shape == (-1, 4)
    # each dtype, and each shape the spec does not cover, is a program of its own
    assert double.get_traced_count() == 3
    double(paddle.ones([7, 4], 'int32'))
    assert double.get_traced_count() == 3


def test_save_time_specs_must_agree_with_the_decorators():
    @to_static(input_spec=[InputSpec([None, 4], 'float32', 'a')])
    def f(a, b=None):
        return a * 2
    with pytest.raises(ValueError, match='is conflict with the `input_spec`'):
        f.concrete_program_specify_input_spec([InputSpec([None, 5], 'float32', 'a')])
    with pytest.raises(ValueError, match='is conflict with the `input_spec`'):
        f.concrete_program_specify_input_spec([InputSpec([None, 4], 'float32', 'a'),
                                               InputSpec([2], 'float32', 'b')])
    with _TranslatorLog() as log:
        program = f.concrete_program_specify_input_spec([InputSpec([8, 4], 'float32', 'a')])
    assert program.inputs[0].shape == (-1, 4)          # the decorator's spec wins
    assert any('(higher priority)' in m for m in log)


def test_a_missing_argument_and_a_call_in_static_mode_are_paddles_errors():
    @to_static(input_spec=[InputSpec([None, 4], 'float32', 'a')])
    def needs_two(a, b):
        return a + b
    with pytest.raises(ValueError, match=r'`needs_two\(\)` requires `b` arguments'):
        needs_two.concrete_program
    plain = to_static(lambda x: x + 1)
    with pytest.raises(ValueError, match=r'No valid transformed program for function'):
        plain.concrete_program
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match='because it is NOT in dynamic mode'):
            plain(paddle.static.data('q', [2], 'float32'))

        class Net(nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            @to_static
            def forward(self, x):
                return self.fc(x)
        net = Net()                           # built while a Program is being built
        with pytest.raises(RuntimeError, match='only available in dynamic mode'):
            net.forward
    finally:
        paddle.disable_static()
    assert Net().forward(paddle.ones([1, 2])).shape == [1, 2]    # built eagerly: fine


def test_default_feed_names_of_nested_arguments_are_paddles():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(10, 3)

        @to_static(input_spec=[[InputSpec([None, 10]), InputSpec([None, 10])]])
        def with_list(self, l, n=1):
            return self.fc(l[0]) + self.fc(l[1])

        @to_static(input_spec=[{'x': InputSpec([None, 10]), 'y': InputSpec([None, 3])}])
        def with_dict(self, d):
            return self.fc(d['x']) + d['y']

        @to_static(input_spec=[[InputSpec([None]), {'x': InputSpec([None, 10]),
                                                    'y': InputSpec([None, 3])}]])
        def with_list_of_dict(self, dl):
            return self.fc(dl[1]['x']) + dl[1]['y'] + dl[0].unsqueeze(-1)

        @to_static(input_spec=[[InputSpec([None, 10]), [InputSpec([None, 3], name='named')]]])
        def with_nested_list(self, l):
            return self.fc(l[0]) + l[1][0]
    net = Net()
    assert [v.name for v in net.with_list.inputs] == ['l_0', 'l_1']
    assert [v.name for v in net.with_dict.inputs] == ['x', 'y']
    assert [v.name for v in net.with_list_of_dict.inputs] == ['dl_0', 'x', 'y']
    assert [v.name for v in net.with_nested_list.inputs] == ['l_0', 'named']


# ---- decorators of converted functions ----------------------------------------------------

def _plus_one(fn):
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1
    return wrapper


def _times(n):
    import functools

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs) * n
        return wrapper
    return decorate


@_plus_one
def _decorated_callee(x):
    if x.sum() > 0:
        return x + 100
    return x - 100


def test_decorators_keep_their_effect_on_converted_functions():
    @to_static
    @_plus_one
    @_times(3)
    def stacked(x):
        if x.mean() > 0:
            y = x * 2
        else:
            y = x - 2
        return y

    @to_static
    def calls_a_decorated_function(x):
        return _decorated_callee(x)

    class Net(nn.Layer):
        @_times(10)
        def helper(self, x):
            return x * 5

        @to_static
        @_times(2)
        def forward(self, x):
            if x.mean() > 0:
                return self.helper(x)
            return x

    net = Net()
    for x in (paddle.to_tensor([1., 2.]), paddle.to_tensor([-1., -2.])):
        for fn, eager in ((stacked, stacked.dygraph_function),
                          (calls_a_decorated_function, calls_a_decorated_function.dygraph_function),
                          (net, net.forward.dygraph_function)):
            np.testing.assert_allclose(fn(x).numpy(), eager(x).numpy())
    assert stacked(paddle.to_tensor([1.])).numpy().tolist() == [7.0]      # (1 * 2) * 3 + 1
    assert net(paddle.to_tensor([1.])).numpy().tolist() == [100.0]      # 1 * 5 * 10 * 2


def test_a_generator_function_runs_as_it_is_and_the_log_says_so():
    def numbers(x):
        yield x
        yield x * 2

    @to_static
    def total(x):
        out = x * 0
        for v in numbers(x):
            out = out + v
        return out
    with _TranslatorLog() as log:
        assert total(paddle.ones([2])).numpy().tolist() == [3.0, 3.0]
    assert any("it is a generator function, it will be run as-is" in m for m in log)


class _Doubling:
    """A decorator object holding the function it wraps in an attribute."""
    def __init__(self, fn):
        self.fn = fn
        self.__wrapped__ = fn

    def __call__(self, *args):
        return self.fn(*args) * 2


class _Opaque:
    """A decorator object that hides the function it wraps: it cannot be rebuilt."""
    def __init__(self, fn):
        self.__wrapped__ = fn
        self.call = lambda *args: fn(*args) - 1

    def __call__(self, *args):
        return self.call(*args)


def test_decorator_objects_are_rebuilt_or_run_unconverted():
    @to_static
    @_Doubling
    def doubled(x):
        if x.sum() > 0:
            return x
        return -x

    @paddle.no_grad()
    def no_grad_branch(x):
        if x.sum() > 0:
            return x * 3
        return x

    @to_static
    @_Opaque
    def opaque(x):
        return x * 10
    x = paddle.to_tensor([-1.0, 2.0])
    assert doubled(x).numpy().tolist() == [-2.0, 4.0]
    assert doubled(-x).numpy().tolist() == [-2.0, 4.0]
    assert to_static(no_grad_branch)(x).numpy().tolist() == [-3.0, 6.0]
    with _TranslatorLog() as log:
        assert opaque(x).numpy().tolist() == [-11.0, 19.0]
    assert any('cannot re-apply the decorator wrapper' in m for m in log)


def test_dygraph_only_methods_on_static_values_raise_paddles_error():
    @to_static
    def listed(x):
        return x.tolist()
    with pytest.raises(AssertionError, match="'tolist' only can be called by `paddle.Tensor` "
                                             "in dynamic graph mode"):
        listed(paddle.ones([2]))
    with pytest.raises(TypeError, match='whose value is only known when the program runs'):
        listed(paddle.ones([2]))

    @to_static
    def through_numpy(x):          # converted code reads x.numpy() as the tensor itself
        if x.numpy()[0] > 0:
            return x + 1
        return x - 1
    assert through_numpy(paddle.ones([2])).numpy().tolist() == [2.0, 2.0]
    assert through_numpy(-paddle.ones([2])).numpy().tolist() == [-2.0, -2.0]


def test_tensor_attributes_assigned_in_forward_are_updated_as_eagerly(tmp_path):
    class Counter(nn.Layer):
        def __init__(self):
            super().__init__()
            self.count = paddle.to_tensor([1])          # a plain tensor attribute

        @to_static
        def forward(self):
            self.count = self.count + 1
            return self.count

    class Decaying(nn.Layer):
        def __init__(self):
            super().__init__()
            self.register_buffer('state', paddle.zeros([2]))

        def forward(self, x):
            self.state = self.state.detach() * 0.5 + x
            self.state = self.state + 1.0                # the last assignment is kept
            return self.state * 2.0

    counter = Counter()
    assert counter().numpy().tolist() == [2] and counter().numpy().tolist() == [3]
    assert isinstance(counter.count, paddle.Tensor) and counter.count.numpy().tolist() == [3]
    paddle.jit.save(counter, str(tmp_path / 'counter'))

    eager, static = Decaying(), Decaying()
    static_forward = to_static(static.forward)
    for step in range(3):
        xe = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
        xs = paddle.to_tensor([1.0, -2.0], stop_gradient=False)
        ye, ys = eager(xe), static_forward(xs)
        np.testing.assert_allclose(ys.numpy(), ye.numpy())
        np.testing.assert_allclose(static.state.numpy(), eager.state.numpy())
        ye.sum().backward()
        ys.sum().backward()
        np.testing.assert_allclose(xs.grad.numpy(), xe.grad.numpy())    # through the state
    assert isinstance(static.state, paddle.Tensor) and list(static.named_buffers())[0][0] == 'state'


_HIDDEN = {}


def _hiding(fn):
    """A wrapper that finds the function it wraps through a global, not its closure."""
    import functools
    key = fn.__name__
    _HIDDEN[key] = fn

    @functools.wraps(fn)
    def wrapper(*args):
        return _HIDDEN[key](*args) - 1
    return wrapper


def test_a_function_wrapper_that_hides_its_function_runs_unconverted_and_says_so():
    @to_static
    @_hiding
    def hidden(x):
        return x * 10
    with _TranslatorLog() as log:
        assert hidden(paddle.to_tensor([1.0, 2.0])).numpy().tolist() == [9.0, 19.0]
    assert any('cannot re-apply the decorator wrapper' in m for m in log)


def test_a_static_function_called_by_unconverted_code_inside_a_trace_is_inlined():
    @to_static
    def plus_one(x):
        return x + 1

    @paddle.jit.not_to_static
    def unconverted(x):          # runs as it is: plus_one is called, not converted
        return plus_one(x) * 2

    @to_static
    def outer(x):
        return unconverted(x)
    assert outer(paddle.ones([2])).numpy().tolist() == [4.0, 4.0]
    assert 'add' in [op.type for op in outer.concrete_program.main_program.global_block().ops]


def test_layers_given_one_param_attr_name_keep_their_own_weights(tmp_path):
    # Paddle refuses two parameters of one name in a program; eager layers
    # built with the same ParamAttr(name=...) are different weights, kept so
    class Two(nn.Layer):
        def __init__(self):
            super().__init__()
            self.a = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name='shared_name'))
            self.b = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(name='shared_name'))

        def forward(self, x):
            return self.b(self.a(x))
    net = Two()
    x = paddle.to_tensor([[1.0, -2.0]])
    eager = net(x).numpy()
    np.testing.assert_allclose(to_static(net)(x).numpy(), eager, rtol=1e-6)
    path = str(tmp_path / 'two')
    paddle.jit.save(net, path, input_spec=[InputSpec([1, 2], 'float32')])
    np.testing.assert_allclose(paddle.jit.load(path)(x).numpy(), eager, rtol=1e-6)


# ---- Paddle's error report ------------------------------------------------------------------

def _reshapes_wrongly(x):
    y = paddle.reshape(x, [5, 7])
    return y


def test_a_trace_time_error_reports_the_users_frames_as_paddle():
    @to_static
    def outer(x):
        z = x + 1
        return _reshapes_wrongly(z)
    with pytest.raises(ValueError) as info:          # the error keeps its type
        outer(paddle.ones([3, 4]))
    text = str(info.value)
    assert text.startswith('In transformed code:\n\n')
    assert 'line %d, in outer\n\treturn _reshapes_wrongly(z)\n' % (
        outer.dygraph_function.__code__.co_firstlineno + 3) in text
    marked = ('            y = paddle.reshape(x, [5, 7])\n'
              '            ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ <--- HERE\n'
              '            return y\n')
    assert 'in _reshapes_wrongly\n' in text and marked in text
    assert text.rstrip().endswith('to shape [5, 7]') and 'OpError: reshape:' in text
    assert text.count('In transformed code') == 1


def test_a_run_time_op_error_reports_the_line_that_built_the_op():
    @to_static
    def gathers(x, i):
        y = x * 2

        def unused():          # the failing line's function is the enclosing one
            pass
        return paddle.gather(y, i)
    with pytest.raises(ValueError) as info:
        gathers(paddle.ones([3]), paddle.to_tensor([5]))
    text = str(info.value)
    assert text.startswith('In transformed code:') and 'in gathers\n' in text
    import re
    # two lines of context on each side of the marked line
    assert re.search(r'\n( +)def unused\(\):.*\n +pass\n\1return paddle\.gather\(y, i\)\n'
                     r'\1~{26} <--- HERE\n +with pytest\.raises\(ValueError\) as info:\n'
                     r' +gathers\(paddle', text)
    assert "op 'gather' failed while running the program: IndexError" in text


def test_an_error_that_formats_its_own_message_gets_the_report_as_a_note():
    @to_static
    def looks_up(x):
        return {'a': x}['b']
    with pytest.raises(KeyError) as info:
        looks_up(paddle.ones([1]))
    assert str(info.value) == "'b'"
    notes = getattr(info.value, '__notes__', None)
    if notes is not None:           # Python >= 3.11
        assert any('<--- HERE' in n and "return {'a': x}['b']" in n for n in notes)
