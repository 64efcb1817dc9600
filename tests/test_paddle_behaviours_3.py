"""Paddle 3.3.1 behaviours found through its documented examples (issue 24),
each checked against real Paddle when it was written: the values here are
Paddle's."""
import numpy as np
import pytest

import framework as paddle
import framework.nn.functional as F
from framework import static


def test_x_grad_is_not_stop_gradient_also_after_clear_grad():
    x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    (x * 2).sum().backward()
    assert x.grad.stop_gradient is False
    x.clear_grad()
    assert x.grad.stop_gradient is False
    (x * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0])


def test_sequential_insert():
    a, b, c = paddle.nn.Linear(2, 3), paddle.nn.ReLU(), paddle.nn.Tanh()
    s = paddle.nn.Sequential(a, b)
    assert s.insert(-1, c) is s
    assert [type(layer) for layer in s] == [paddle.nn.Linear, paddle.nn.Tanh, paddle.nn.ReLU]
    assert list(s._sub_layers) == ['0', '1', '2']
    s.insert(3, paddle.nn.Sigmoid())
    assert isinstance(s[3], paddle.nn.Sigmoid)
    with pytest.raises(IndexError):
        s.insert(7, c)
    with pytest.raises(TypeError, match='must be a Layer'):
        s.insert(0, 3)


def test_named_sublayers_remove_duplicate():
    lin = paddle.nn.Linear(10, 3)
    model = paddle.nn.Sequential(lin, lin)
    assert [n for n, _ in model.named_sublayers(include_self=True)] == ['', '0']
    assert [n for n, _ in model.named_sublayers(include_self=True, remove_duplicate=False)] == \
        ['', '0', '1']


def test_repeat_with_fewer_repeats_than_dims_tiles_the_last_ones():
    x = paddle.to_tensor([[1, 2], [3, 4]])
    np.testing.assert_array_equal(x.repeat(2).numpy(), [[1, 2, 1, 2], [3, 4, 3, 4]])
    assert x.repeat(2, 1).shape == [4, 2] and x.repeat(2, 1, 1).shape == [2, 2, 2]


def test_slice_scatter_broadcasts_value():
    x = paddle.zeros((3, 9))
    want = paddle.slice_scatter(x, paddle.ones((3, 2)), axes=[1], starts=[2], ends=[6],
                                strides=[2]).numpy()
    got = paddle.slice_scatter(x, paddle.ones((3, 1)), axes=[1], starts=[2], ends=[6],
                               strides=[2]).numpy()
    np.testing.assert_array_equal(got, want)
    assert got[0].tolist() == [0, 0, 1, 0, 1, 0, 0, 0, 0]
    out = paddle.slice_scatter(paddle.zeros((3, 3, 5)), paddle.ones((1, 3, 1)), axes=[0, 2],
                               starts=[1, 0], ends=[3, 4], strides=[1, 2]).numpy()
    assert out[0].sum() == 0 and out[1, :, [0, 2]].sum() == 6 and out[1].sum() == 6
    with pytest.raises(Exception, match='broadcast'):
        paddle.slice_scatter(x, paddle.ones((3, 3)), axes=[1], starts=[2], ends=[6], strides=[2])


def test_bernoulli_in_place_clamps_p_and_bernoulli_refuses_it():
    paddle.seed(5)
    x = paddle.randn([4, 3])
    x.bernoulli_(paddle.to_tensor([[-1.0], [2.0], [0.0], [1.0]]))
    np.testing.assert_array_equal(x.numpy(), [[0] * 3, [1] * 3, [0] * 3, [1] * 3])
    y = paddle.randn([3])
    y.bernoulli_(1.5)
    np.testing.assert_array_equal(y.numpy(), [1, 1, 1])
    with pytest.raises(Exception, match=r'\[0, 1\]'):
        paddle.bernoulli(paddle.to_tensor([-0.5, 0.5]))


def test_cross_entropy_smooths_soft_and_one_hot_labels():
    rng = np.random.default_rng(6)
    logits = paddle.to_tensor(rng.uniform(0.1, 1.0, (4, 3)))
    labels = paddle.to_tensor([0, 2, 1, 1])
    one_hot = F.one_hot(labels, 3).astype('float32')
    hard = float(F.cross_entropy(logits, labels, label_smoothing=0.4))
    assert float(F.cross_entropy(logits, one_hot, label_smoothing=0.4)) == pytest.approx(hard)
    # soft labels smoothed: (1 - eps) * label + eps / C
    soft = rng.dirichlet(np.ones(3), 4)
    smoothed = 0.7 * soft + 0.3 / 3
    logp = np.log(np.exp(logits.numpy()) / np.exp(logits.numpy()).sum(1, keepdims=True))
    want = -(smoothed * logp).sum(1).mean()
    got = float(F.cross_entropy(logits, paddle.to_tensor(soft), soft_label=True,
                                label_smoothing=0.3))
    assert got == pytest.approx(want, rel=1e-10)
    # without smoothing a same-shape float label still needs soft_label=True
    with pytest.raises(Exception):
        F.cross_entropy(logits, one_hot)


def test_uniform_with_low_equal_high_is_constant():
    init = paddle.nn.initializer.Uniform(0.0, 0.0)
    w = paddle.create_parameter([2, 2], 'float32', default_initializer=init)
    assert np.all(w.numpy() == 0.0)


def test_paddle_tensor_is_callable_and_a_module():
    t = paddle.tensor([[0.1, 0.2]], dtype='float64', device=paddle.CPUPlace(),
                      requires_grad=True)
    assert isinstance(t, paddle.Tensor) and t.dtype == paddle.float64 and not t.stop_gradient
    copy = paddle.tensor(t)
    assert copy is not t and copy.stop_gradient
    assert paddle.tensor(1).dtype == paddle.int64
    assert paddle.tensor.math.add is paddle.add and paddle.tensor.search.argwhere is paddle.argwhere
    with pytest.raises(RuntimeError, match='pin_memory'):
        paddle.tensor(1, pin_memory=True)


def test_device_queries():
    assert paddle.cuda.device is paddle.device.device
    assert paddle.cuda.is_available() is False and paddle.cuda.device_count() == 0
    assert paddle.is_compiled_with_ipu() is False and paddle.is_compiled_with_xpu() is False
    assert paddle.is_compiled_with_custom_device('npu') is False
    assert paddle.get_device() == 'cpu' and paddle.get_device(paddle.ones([1])) == -1
    with paddle.cuda.device('cpu'):
        assert paddle.device.get_device() == 'cpu'
    paddle.set_flags({'FLAGS_use_stride_kernel': True})
    assert paddle.get_flags('FLAGS_use_stride_kernel')['FLAGS_use_stride_kernel'] is True


def test_program_global_seed_and_variable_ndimension():
    from framework.graph import program as P
    before = P._GLOBAL_SEED[0]
    try:
        prog = static.Program()
        prog.global_seed(102)
        assert prog.random_seed == 102 and static.Program().random_seed == 102
    finally:
        P._GLOBAL_SEED[0] = before
    paddle.enable_static()
    try:
        x = static.data('x', [3, 2, 1])
        assert x.ndimension() == 3
        b = static.BuildStrategy()
        b.reduce_strategy = static.BuildStrategy.ReduceStrategy.Reduce
        assert int(b.reduce_strategy) == 1
    finally:
        paddle.disable_static()


def test_to_static_state_dict_is_the_state_dict():
    emb = paddle.nn.Embedding(4, 3)
    sd = emb.to_static_state_dict()
    assert list(sd) == ['weight'] and sd['weight'] is emb.weight
