"""nn.Layer machinery: registration, hooks, traversal, state dicts, modes,
dtype conversion, repr, ParamAttr and the containers."""
import collections
import copy
import warnings

import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.nn.initializer import Constant, Normal


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class WithBuffers(nn.Layer):
    def __init__(self):
        super().__init__()
        self.w = self.create_parameter([3], default_initializer=Constant(2.0))
        self.register_buffer('saved', paddle.to_tensor([1.0, 2.0, 3.0]))
        self.register_buffer('scratch', paddle.to_tensor([0.0]), persistable=False)
        self.steps = paddle.to_tensor([0], dtype='int64')   # plain tensor attribute

    def forward(self, x):
        return x * self.w + self.saved


def _x(*shape, seed=0):
    return paddle.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype('float32'))


# ---- registration -------------------------------------------------------------

def test_setattr_registers_parameters_sublayers_and_buffers():
    m = WithBuffers()
    assert list(m._parameters) == ['w']
    assert set(m._buffers) == {'saved', 'scratch', 'steps'}
    assert isinstance(m.w, paddle.Parameter) and not m.w.stop_gradient
    net = MLP()
    assert list(net._sub_layers) == ['fc1', 'act', 'fc2']
    assert net.fc1 is net._sub_layers['fc1']


def test_del_and_reassignment_unregister():
    net = MLP()
    del net.act
    assert 'act' not in net._sub_layers
    with pytest.raises(AttributeError):
        net.act
    net.fc2 = None
    assert net.fc2 is None and len(net.parameters()) == 2
    # a parameter name only takes a Parameter or None, as in Paddle
    with pytest.raises(TypeError, match="parameter 'weight'"):
        net.fc1.weight = paddle.ones([4, 8])
    with pytest.raises(TypeError, match="sublayer 'fc1'"):
        net.fc1 = 3
    # a name can change kind after it is deleted
    p = net.fc1.weight
    del net.fc1.weight
    net.fc1.weight = paddle.ones([4, 8])
    assert 'weight' in net.fc1._buffers and 'weight' not in net.fc1._parameters
    net.fc1.weight = p
    assert net.fc1.weight is p and 'weight' not in net.fc1._buffers


def test_direct_table_writes_stay_visible_as_attributes():
    # weight-norm style utilities edit the tables directly
    fc = nn.Linear(2, 3)
    w = fc.weight
    del fc._parameters['weight']
    with pytest.raises(AttributeError):
        fc.weight
    fc._parameters['weight'] = w
    assert fc.weight is w
    assert fc._parameters.pop('bias') is not None and not hasattr(fc, 'bias')
    fc._parameters.setdefault('bias', None)
    assert fc.bias is None
    fc._sub_layers.update({'act': nn.ReLU()})
    assert isinstance(fc.act, nn.ReLU)
    fc._sub_layers.clear()
    assert not hasattr(fc, 'act')
    assert 'weight' in dir(fc)


def test_copies_get_their_own_tables():
    net = MLP()
    for twin in (copy.copy(net), copy.deepcopy(net)):
        twin.extra = nn.Linear(1, 1)
        assert 'extra' not in net._sub_layers and not hasattr(net, 'extra')
        del twin.fc1
        assert isinstance(net.fc1, nn.Linear)
    shallow = copy.copy(net)
    assert shallow.fc2 is net.fc2


def test_plain_attribute_set_to_none_then_parameter():
    fc = nn.Linear(2, 3, bias_attr=False)
    assert fc.bias is None and [n for n, _ in fc.named_parameters()] == ['weight']
    fc.bias = fc.create_parameter([3], is_bias=True)
    assert [n for n, _ in fc.named_parameters()] == ['weight', 'bias']


def test_assignment_before_super_init_is_a_clear_error():
    class Bad(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match='super\\(\\).__init__'):
        Bad()


def test_add_parameter_sublayer_and_buffer_checks():
    m = nn.Layer()
    p = paddle.create_parameter([2], 'float32')
    assert m.add_parameter('p', p) is p and m.p is p
    with pytest.raises(TypeError, match='Parameter'):
        m.add_parameter('q', paddle.ones([2]))
    with pytest.raises(KeyError):
        m.add_parameter('a.b', p)
    sub = nn.Linear(2, 2)
    assert m.add_sublayer('sub', sub) is sub
    with pytest.raises(TypeError):
        m.add_sublayer('x', 3)
    with pytest.raises(TypeError):
        m.register_buffer('b', np.zeros(2))
    with pytest.raises(KeyError):
        m.register_buffer('sub', paddle.ones([1]))


def test_getattr_error_names_the_class():
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nope'"):
        nn.Linear(2, 2).nope


# ---- hooks (Paddle's documented examples) ----------------------------------------

def test_forward_pre_hook_scales_input_and_remove_detaches():
    def forward_pre_hook(layer, input):
        return input[0] * 2   # a single value is wrapped into a tuple

    linear = nn.Linear(13, 5)
    handle = linear.register_forward_pre_hook(forward_pre_hook)
    value0 = np.arange(26).reshape(2, 13).astype('float32')
    out0 = linear(paddle.to_tensor(value0))
    handle.remove()
    out1 = linear(paddle.to_tensor(value0 * 2))
    np.testing.assert_array_equal(out0.numpy(), out1.numpy())
    out2 = linear(paddle.to_tensor(value0))
    assert not np.allclose(out2.numpy(), out1.numpy())


def test_forward_post_hook_replaces_output_and_remove_detaches():
    def forward_post_hook(layer, input, output):
        return output * 2

    linear = nn.Linear(13, 5)
    handle = linear.register_forward_post_hook(forward_post_hook)
    value = paddle.to_tensor(np.arange(26).reshape(2, 13).astype('float32'))
    out0 = linear(value)
    handle.remove()
    out1 = linear(value)
    np.testing.assert_allclose(out0.numpy(), out1.numpy() * 2, rtol=1e-6)


def test_hooks_see_layer_and_inputs_and_none_keeps_values():
    seen = []
    linear = nn.Linear(3, 2)
    h1 = linear.register_forward_pre_hook(lambda layer, inp: seen.append(('pre', layer, inp)))
    h2 = linear.register_forward_post_hook(
        lambda layer, inp, out: seen.append(('post', layer, len(inp), out.shape)))
    x = _x(4, 3)
    out = linear(x)
    assert seen[0][0] == 'pre' and seen[0][1] is linear and seen[0][2][0] is x
    assert seen[1] == ('post', linear, 1, [4, 2])
    np.testing.assert_allclose(out.numpy(), x.numpy() @ linear.weight.numpy()
                               + linear.bias.numpy(), rtol=1e-5)
    h1.remove()
    h2.remove()
    h2.remove()   # removing twice is harmless
    linear(x)
    assert len(seen) == 2


def test_pre_hook_returning_tuple_replaces_all_inputs():
    class Add(nn.Layer):
        def forward(self, a, b):
            return a + b

    layer = Add()
    layer.register_forward_pre_hook(lambda l, inp: (inp[1], inp[1]))
    out = layer(paddle.to_tensor([1.0]), paddle.to_tensor([5.0]))
    assert out.numpy().tolist() == [10.0]


# ---- traversal and naming ---------------------------------------------------------

def test_named_parameters_and_sublayers_structured_names():
    net = nn.Sequential(MLP(), nn.Linear(2, 2))
    names = [n for n, _ in net.named_parameters()]
    assert names == ['0.fc1.weight', '0.fc1.bias', '0.fc2.weight', '0.fc2.bias',
                     '1.weight', '1.bias']
    assert [n for n, _ in net.named_parameters(prefix='net')][0] == 'net.0.fc1.weight'
    assert [n for n, _ in net.named_sublayers()] == ['0', '0.fc1', '0.act', '0.fc2', '1']
    assert net.sublayers(include_self=True)[0] is net
    assert len(net.parameters(include_sublayers=False)) == 0
    assert [type(c).__name__ for c in net.children()] == ['MLP', 'Linear']
    assert [n for n, _ in net.named_children()] == ['0', '1']


def test_shared_parameters_and_layers_listed_once():
    fc = nn.Linear(2, 2)
    net = nn.Sequential(fc, fc)
    assert len(net.parameters()) == 2
    assert len(net.sublayers()) == 1
    # state_dict lists every path, as Paddle does
    assert list(net.state_dict()) == ['0.weight', '0.bias', '1.weight', '1.bias']


def test_full_name_and_parameter_names_are_unique():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    assert a.full_name() != b.full_name()
    assert a.full_name().startswith('linear_')
    assert a.weight.name == a.full_name() + '.w_0'
    assert a.bias.name == a.full_name() + '.b_0'
    names = [p.name for p in MLP().parameters() + a.parameters() + b.parameters()]
    assert len(set(names)) == len(names)
    assert nn.BatchNorm2D(2).full_name().startswith('batch_norm2d_')
    assert nn.Conv2D(1, 1, 1).full_name().startswith('conv2d_')
    assert nn.Layer(name_scope='block').full_name().startswith('block_')


def test_unique_name_guard_repeats_names():
    from framework.nn.layer import unique_name_guard
    with unique_name_guard():
        first = [p.name for p in MLP().parameters()]
    with unique_name_guard():
        second = [p.name for p in MLP().parameters()]
    assert first == second == ['linear_0.w_0', 'linear_0.b_0', 'linear_1.w_0', 'linear_1.b_0']


def test_buffers_and_named_buffers():
    m = WithBuffers()
    outer = nn.Sequential(('inner', m))
    assert [n for n, _ in outer.named_buffers()] == ['inner.saved', 'inner.scratch',
                                                      'inner.steps']
    assert len(outer.buffers()) == 3
    assert outer.buffers(include_sublayers=False) == []


# ---- create_parameter and ParamAttr ----------------------------------------------

def test_param_attr_is_honoured():
    attr = paddle.ParamAttr(name='my_w', initializer=Constant(0.3), learning_rate=0.1,
                            regularizer=paddle.regularizer.L2Decay(1e-4)
                            if hasattr(paddle, 'regularizer') else None,
                            trainable=False, need_clip=False)
    fc = nn.Linear(3, 2, weight_attr=attr, bias_attr=paddle.ParamAttr(
        initializer=Constant(-1.0)))
    w = fc.weight
    assert w.name == 'my_w'
    np.testing.assert_array_equal(w.numpy(), np.full((3, 2), 0.3, 'float32'))
    assert w.optimize_attr['learning_rate'] == 0.1
    assert w.regularizer is attr.regularizer
    assert w.stop_gradient and not w.trainable and w.need_clip is False
    np.testing.assert_array_equal(fc.bias.numpy(), -np.ones(2, 'float32'))
    # the user's ParamAttr object is not modified by the layer
    assert attr.name == 'my_w' and attr.initializer.value == 0.3


def test_param_attr_shorthands():
    m = nn.Layer()
    assert m.create_parameter([2], attr=False) is None
    assert m.create_parameter([2], attr='named').name == 'named'
    p = m.create_parameter([2], attr=Constant(4.0))
    assert p.numpy().tolist() == [4.0, 4.0]
    with pytest.raises(TypeError):
        m.create_parameter([2], attr=3.5)
    with pytest.raises(ValueError, match='positive'):
        m.create_parameter([2, 0])


def test_default_initializers_weight_xavier_bias_zero():
    paddle.seed(3)
    m = nn.Layer()
    w = m.create_parameter([200, 300])
    b = m.create_parameter([300], is_bias=True)
    limit = np.sqrt(6.0 / 500)
    assert np.abs(w.numpy()).max() <= limit and np.abs(w.numpy()).max() > 0.95 * limit
    assert np.all(b.numpy() == 0)
    assert w.dtype == paddle.float32
    assert m.create_parameter([2], dtype='float64').dtype == paddle.float64


def test_global_initializer_precedence():
    nn.initializer.set_global_initializer(Constant(7.0), Constant(8.0))
    try:
        conv = nn.Conv2D(1, 1, 3)   # has its own default (Normal); the global one wins
        assert np.all(conv.weight.numpy() == 7.0) and np.all(conv.bias.numpy() == 8.0)
        fc = nn.Linear(2, 2, weight_attr=paddle.ParamAttr(initializer=Constant(1.0)))
        assert np.all(fc.weight.numpy() == 1.0)   # the attr beats the global one
    finally:
        nn.initializer.set_global_initializer(None, None)
    assert not np.all(nn.Linear(2, 2).weight.numpy() == 7.0)


def test_framework_create_parameter():
    p = paddle.create_parameter([2, 3], 'float64', name='free_p',
                                default_initializer=Constant(1.5))
    assert isinstance(p, paddle.Parameter) and p.name == 'free_p' and p.dtype == paddle.float64
    assert np.all(p.numpy() == 1.5)


# ---- state dicts --------------------------------------------------------------------

def test_state_dict_is_ordered_structured_and_holds_the_tensors():
    net = MLP()
    sd = net.state_dict()
    assert isinstance(sd, collections.OrderedDict)
    assert list(sd) == ['fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
    assert sd['fc1.weight'] is net.fc1.weight
    m = WithBuffers()
    assert list(m.state_dict()) == ['w', 'saved']   # non-persistable buffers excluded
    assert list(m.state_dict(structured_name_prefix='m.')) == ['m.w', 'm.saved']
    assert list(net.state_dict(include_sublayers=False)) == []


def test_state_dict_round_trip_gives_identical_outputs():
    paddle.seed(1)
    a = MLP()
    paddle.seed(2)
    b = MLP()
    x = _x(5, 4)
    assert not np.allclose(a(x).numpy(), b(x).numpy())
    missing, unexpected = b.set_state_dict(a.state_dict())
    assert missing == [] and unexpected == []
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    # values are copied: later changes to a do not leak into b
    with paddle.no_grad():
        a.fc1.weight.set_value(np.zeros([4, 8], 'float32'))
    assert not np.allclose(a(x).numpy(), b(x).numpy())


def test_set_state_dict_accepts_numpy_and_casts_dtype():
    a = MLP()
    arrays = {k: v.numpy().astype('float64') for k, v in a.state_dict().items()}
    b = MLP()
    b.set_dict(arrays)
    assert b.fc1.weight.dtype == paddle.float32
    np.testing.assert_allclose(b.fc1.weight.numpy(), a.fc1.weight.numpy())
    b.load_dict({k: paddle.to_tensor(v) for k, v in arrays.items()})


def test_set_state_dict_reports_missing_and_unexpected_keys():
    net = MLP()
    sd = {k: v.numpy() for k, v in MLP().state_dict().items()}
    before = net.fc2.bias.numpy()
    del sd['fc2.bias']
    sd['extra.weight'] = np.zeros(3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        missing, unexpected = net.set_state_dict(sd)
    assert missing == ['fc2.bias'] and unexpected == ['extra.weight']
    assert any('fc2.bias' in str(x.message) for x in w)
    np.testing.assert_array_equal(net.fc2.bias.numpy(), before)
    np.testing.assert_array_equal(net.fc1.weight.numpy(), sd['fc1.weight'])


def test_set_state_dict_skips_a_shape_mismatch_with_a_warning_as_paddle():
    # pretrained weights into a model with another head: the rest still loads
    net = MLP()
    before = net.fc2.weight.numpy()
    sd = {k: v.numpy() + 1 for k, v in MLP().state_dict().items()}
    sd['fc2.weight'] = np.zeros([3, 3], 'float32')
    with pytest.warns(UserWarning, match=r"fc2.weight.*\[3, 3\].*\[8, 2\]"):
        missing, unexpected = net.set_state_dict(sd)
    assert missing == ['fc2.weight'] and unexpected == ['fc2.weight']
    np.testing.assert_array_equal(net.fc2.weight.numpy(), before)
    np.testing.assert_array_equal(net.fc1.weight.numpy(), sd['fc1.weight'])


def test_set_state_dict_by_parameter_name():
    a, b = MLP(), MLP()
    by_name = {p.name: p.numpy() for p in a.parameters()}
    by_name_b = {pb.name: by_name[pa.name] for pa, pb in zip(a.parameters(), b.parameters())}
    missing, unexpected = b.set_state_dict(by_name_b, use_structured_name=False)
    assert missing == [] and unexpected == []
    x = _x(2, 4)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_buffers_round_trip_through_state_dict():
    a, b = WithBuffers(), WithBuffers()
    with paddle.no_grad():
        a.saved.set_value(np.array([7.0, 8.0, 9.0], 'float32'))
    b.set_state_dict(a.state_dict())
    assert b.saved.numpy().tolist() == [7.0, 8.0, 9.0]


def test_state_dict_hook():
    net = MLP()
    handle = net._register_state_dict_hook(
        lambda sd: collections.OrderedDict((k.upper(), v) for k, v in sd.items()))
    assert list(net.state_dict())[0] == 'FC1.WEIGHT'
    assert list(net.state_dict(use_hook=False))[0] == 'fc1.weight'
    handle.remove()
    assert list(net.state_dict())[0] == 'fc1.weight'


# ---- modes, apply, dtype --------------------------------------------------------------

def test_train_eval_recursive():
    net = nn.Sequential(MLP(), nn.Dropout(0.5))
    assert all(l.training for l in net.sublayers(include_self=True))
    net.eval()
    assert not any(l.training for l in net.sublayers(include_self=True))
    net.train()
    assert all(l.training for l in net.sublayers(include_self=True))


def test_apply_visits_children_first():
    order = []
    net = MLP()
    assert net.apply(lambda l: order.append(type(l).__name__)) is net
    assert order == ['Linear', 'ReLU', 'Linear', 'MLP']

    def init(layer):
        if isinstance(layer, nn.Linear):
            Constant(0.5)(layer.weight)

    net.apply(init)
    assert np.all(net.fc2.weight.numpy() == 0.5)


def test_to_dtype_converts_float_params_and_buffers_in_place():
    m = WithBuffers()
    w = m.w
    m.w.grad = paddle.ones([3])
    assert m.to(dtype='float64') is m
    assert m.w is w and w.dtype == paddle.float64 and w.grad.dtype == paddle.float64
    assert m.saved.dtype == paddle.float64
    assert m.steps.dtype == paddle.int64   # integer buffers keep their dtype
    out = m(paddle.to_tensor([1.0, 1.0, 1.0], dtype='float64'))
    assert out.dtype == paddle.float64
    m.to('cpu')
    m.to(paddle.CPUPlace(), 'float32')
    assert m.w.dtype == paddle.float32
    m.double()
    assert m.w.dtype == paddle.float64
    m.float()
    assert m.w.dtype == paddle.float32
    with pytest.raises(ValueError, match='CPU only'):
        m.to('gpu:0')


def test_to_dtype_then_forward_and_backward():
    net = MLP().to(dtype='float64')
    x = paddle.to_tensor(np.ones([2, 4]))
    net(x).sum().backward()
    assert net.fc1.weight.grad.dtype == paddle.float64


def test_clear_gradients():
    net = MLP()
    net(_x(3, 4)).sum().backward()
    assert net.fc1.weight.grad is not None and np.any(net.fc1.weight.grad.numpy() != 0)
    net.clear_gradients()
    assert np.all(net.fc1.weight.grad.numpy() == 0)


def test_deepcopy_gives_independent_layer():
    net = MLP()
    twin = copy.deepcopy(net)
    x = _x(2, 4)
    np.testing.assert_array_equal(net(x).numpy(), twin(x).numpy())
    with paddle.no_grad():
        twin.fc1.weight.set_value(np.zeros([4, 8], 'float32'))
    assert not np.allclose(net(x).numpy(), twin(x).numpy())


# ---- repr ------------------------------------------------------------------------------

def test_repr_nested():
    assert repr(nn.Linear(4, 2)) == 'Linear(in_features=4, out_features=2, dtype=float32)'
    text = repr(MLP())
    assert text == ('MLP(\n'
                    '  (fc1): Linear(in_features=4, out_features=8, dtype=float32)\n'
                    '  (act): ReLU()\n'
                    '  (fc2): Linear(in_features=8, out_features=2, dtype=float32)\n'
                    ')')
    nested = repr(nn.Sequential(('block', nn.Sequential(nn.Linear(1, 1)))))
    assert nested == ('Sequential(\n'
                      '  (block): Sequential(\n'
                      '    (0): Linear(in_features=1, out_features=1, dtype=float32)\n'
                      '  )\n'
                      ')')


def test_repr_multiline_extra_repr():
    class Multi(nn.Layer):
        def extra_repr(self):
            return 'a=1\nb=2'

    assert repr(Multi()) == 'Multi(\n  a=1\n  b=2\n)'


# ---- containers ------------------------------------------------------------------------

def test_sequential_positional_named_and_ordered_dict():
    paddle.seed(0)
    l1, l2 = nn.Linear(3, 4), nn.Linear(4, 2)
    seq = nn.Sequential(l1, nn.ReLU(), l2)
    assert len(seq) == 3 and seq[0] is l1 and seq[-1] is l2
    x = _x(2, 3)
    ref = np.maximum(x.numpy() @ l1.weight.numpy() + l1.bias.numpy(), 0) @ l2.weight.numpy() \
        + l2.bias.numpy()
    np.testing.assert_allclose(seq(x).numpy(), ref, rtol=1e-5, atol=1e-6)
    named = nn.Sequential(('first', l1), ('act', nn.ReLU()), ('last', l2))
    assert named['first'] is l1 and list(named._sub_layers) == ['first', 'act', 'last']
    od = nn.Sequential(collections.OrderedDict([('a', l1), ('b', l2)]))
    assert [n for n, _ in od.named_parameters()] == ['a.weight', 'a.bias', 'b.weight', 'b.bias']
    sliced = seq[1:]
    assert isinstance(sliced, nn.Sequential) and len(sliced) == 2 and sliced[1] is l2
    assert [type(l).__name__ for l in seq] == ['Linear', 'ReLU', 'Linear']
    with pytest.raises(IndexError):
        seq[3]
    with pytest.raises(TypeError):
        nn.Sequential(l1, 'not a layer')
    del seq[1]
    assert len(seq) == 2 and list(seq._sub_layers) == ['0', '1'] and seq[1] is l2
    seq.append(nn.ReLU())
    assert len(seq) == 3 and isinstance(seq[2], nn.ReLU)


def test_layer_list():
    layers = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(layers.parameters()) == 6
    extra = nn.Linear(2, 2)
    layers.append(extra)
    assert layers[-1] is extra and layers[3] is extra
    first = nn.Linear(2, 2)
    layers.insert(0, first)
    assert layers[0] is first and layers[4] is extra
    assert [n for n, _ in layers.named_sublayers()] == ['0', '1', '2', '3', '4']
    layers.extend([nn.ReLU()])
    assert len(layers) == 6 and isinstance(layers[5], nn.ReLU)
    assert isinstance(layers[1:3], nn.LayerList) and len(layers[1:3]) == 2
    del layers[0]
    assert layers[3] is extra and list(layers._sub_layers) == ['0', '1', '2', '3', '4']
    layers[0] = first
    assert layers[0] is first
    assert sum(1 for _ in layers) == 5
    with pytest.raises(TypeError):
        layers.append(3)

    class Stack(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([nn.Linear(2, 2), nn.Linear(2, 2)])

        def forward(self, x):
            for b in self.blocks:
                x = b(x)
            return x

    s = Stack()
    assert [n for n, _ in s.named_parameters()][:2] == ['blocks.0.weight', 'blocks.0.bias']
    assert s(_x(1, 2)).shape == [1, 2]


def test_layer_dict():
    d = nn.LayerDict({'a': nn.Linear(2, 2), 'b': nn.ReLU()})
    assert len(d) == 2 and 'a' in d and list(d) == ['a', 'b']
    d['c'] = nn.Linear(2, 3)
    assert list(d.keys()) == ['a', 'b', 'c']
    assert isinstance(d.pop('b'), nn.ReLU) and len(d) == 2
    d.update([('e', nn.Tanh())])
    assert [k for k, _ in d.items()] == ['a', 'c', 'e']
    assert len(d.parameters()) == 4
    del d['a']
    d.clear()
    assert len(d) == 0
    with pytest.raises(TypeError):
        d['x'] = 'nope'


def test_parameter_list_and_dict():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.ps = nn.ParameterList([self.create_parameter([2], default_initializer=Constant(
                float(i))) for i in range(3)])

        def forward(self, x):
            for p in self.ps:
                x = x + p
            return x

    net = Net()
    assert len(net.parameters()) == 3 and len(net.ps) == 3
    assert [n for n, _ in net.named_parameters()] == ['ps.0', 'ps.1', 'ps.2']
    assert net(paddle.zeros([2])).numpy().tolist() == [3.0, 3.0]
    net.ps.append(net.create_parameter([2]))
    assert len(net.parameters()) == 4 and net.ps[-1] is net.parameters()[-1]
    with pytest.raises(TypeError):
        net.ps.append(paddle.ones([2]))
    pd = nn.ParameterDict({'w': net.create_parameter([1])})
    assert list(pd) == ['w'] and len(pd.parameters()) == 1


def test_nested_containers_state_dict_round_trip():
    def build():
        return nn.Sequential(
            ('enc', nn.LayerList([nn.Linear(3, 3), nn.Linear(3, 3)])),
            ('heads', nn.LayerDict({'cls': nn.Linear(3, 2)})))

    a, b = build(), build()
    assert list(a.state_dict()) == ['enc.0.weight', 'enc.0.bias', 'enc.1.weight', 'enc.1.bias',
                                    'heads.cls.weight', 'heads.cls.bias']
    b.set_state_dict(a.state_dict())
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb
        np.testing.assert_array_equal(va.numpy(), vb.numpy())


def test_layer_without_forward_raises():
    with pytest.raises(NotImplementedError, match='Layer must implement forward'):
        nn.Layer()(1)


def test_backward_reaches_parameters_through_layers():
    net = MLP()
    x = _x(3, 4)
    loss = (net(x) ** 2).mean() if hasattr(paddle.Tensor, 'mean') else None
    if loss is None:
        pytest.skip('mean not available')
    loss.backward()
    for p in net.parameters():
        assert p.grad is not None and p.grad.shape == p.shape


def test_normal_initializer_used_by_param_attr_is_random_but_seeded():
    attr = paddle.ParamAttr(initializer=Normal(0.0, 1.0))
    paddle.seed(5)
    a = nn.Linear(3, 3, weight_attr=attr).weight.numpy()
    paddle.seed(5)
    b = nn.Linear(3, 3, weight_attr=attr).weight.numpy()
    np.testing.assert_array_equal(a, b)


def test_create_variable():
    m = nn.Layer()
    v = m.create_variable(dtype='float64', persistable=True)
    assert isinstance(v, paddle.Tensor) and v.dtype == paddle.float64 and v.persistable
    assert v.name.startswith(m.full_name())
    assert m.create_tensor(name='t').name == 't'
