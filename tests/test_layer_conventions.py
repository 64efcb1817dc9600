"""Layer and optimizer conventions Paddle code relies on: batch norm's running
statistics are non-trainable parameters (parameters(), summary counts,
state_dict keys, optimizers skip them), layers take Paddle's positional
arguments, and an optimizer's state loads into a model rebuilt in the same
process (matched by order when the unique names differ)."""
import inspect
import warnings

import numpy as np
import pytest

import framework as paddle
from framework import nn, static


def _x(*shape, seed=0):
    return paddle.to_tensor(np.random.RandomState(seed).randn(*shape).astype('float32'))


def small_cnn():
    return nn.Sequential(nn.Conv2D(1, 4, 3), nn.BatchNorm2D(4), nn.ReLU(), nn.Flatten(),
                         nn.Linear(4 * 6 * 6, 10))


# ---- batch norm's running statistics --------------------------------------------------

@pytest.mark.parametrize('make', [
    lambda: nn.BatchNorm(3), lambda: nn.BatchNorm1D(3), lambda: nn.BatchNorm2D(3),
    lambda: nn.BatchNorm3D(3), lambda: nn.SyncBatchNorm(3),
    lambda: paddle.fluid.dygraph.BatchNorm(3)])
def test_running_statistics_are_non_trainable_parameters(make):
    with paddle.utils.unique_name.guard():
        bn = make()
    prefix = bn.full_name()
    got = [(n, p.name, p.trainable, p.stop_gradient) for n, p in bn.named_parameters()]
    assert got == [('weight', prefix + '.w_0', True, False),
                   ('bias', prefix + '.b_0', True, False),
                   ('_mean', prefix + '.w_1', False, True),
                   ('_variance', prefix + '.w_2', False, True)]
    assert list(bn.state_dict()) == ['weight', 'bias', '_mean', '_variance']
    assert list(bn.buffers()) == []
    np.testing.assert_array_equal(bn._mean.numpy(), np.zeros(3))
    np.testing.assert_array_equal(bn._variance.numpy(), np.ones(3))


def test_batch_norm_statistic_names_can_be_given():
    bn = nn.BatchNorm(2, moving_mean_name='bn_mean', moving_variance_name='bn_var')
    assert (bn._mean.name, bn._variance.name) == ('bn_mean', 'bn_var')


def test_summary_counts_statistics_as_non_trainable(capsys):
    # the figures real Paddle 3.3.1 prints for these models
    assert paddle.summary(small_cnn(), (1, 1, 8, 8)) == {'total_params': 1506,
                                                        'trainable_params': 1498}
    out = capsys.readouterr().out
    assert 'Non-trainable params: 8' in out
    assert paddle.summary(paddle.vision.models.LeNet(), (1, 1, 28, 28)) == {
        'total_params': 61610, 'trainable_params': 61610}
    capsys.readouterr()
    info = paddle.summary(paddle.vision.models.resnet18(), (1, 3, 32, 32))
    assert info == {'total_params': 11699112, 'trainable_params': 11689512}
    assert 'Non-trainable params: 9,600' in capsys.readouterr().out


def test_summary_rows_follow_paddle(capsys):
    with paddle.utils.unique_name.guard():
        net = small_cnn()
    paddle.summary(net, (1, 1, 8, 8))
    lines = capsys.readouterr().out.splitlines()
    # Paddle's layout: 75 columns, rows named by full_name(), centred cells
    assert lines[0] == '-' * 75
    assert lines[1] == ' Layer (type)       Input Shape          Output Shape         Param #    '
    assert lines[4] == ' BatchNorm2D-1     [[1, 4, 6, 6]]        [1, 4, 6, 6]           16       '


class Shared(nn.Layer):
    """One Linear called twice: one row, its parameters once."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        return self.fc(self.fc(x))


def test_summary_one_row_per_layer(capsys):
    assert paddle.summary(Shared(), (2, 3)) == {'total_params': 12, 'trainable_params': 12}
    assert capsys.readouterr().out.count('Linear-') == 1


def test_optimizers_skip_statistics_and_eager_equals_to_static():
    results = []
    for convert in (False, True):
        paddle.seed(7)
        # no conv bias: batch norm cancels it, its gradient is rounding noise
        # that Adam would blow up to +-lr differently in the two modes
        net = nn.Sequential(nn.Conv2D(1, 4, 3, bias_attr=False), nn.BatchNorm2D(4), nn.ReLU(),
                            nn.Flatten(), nn.Linear(4 * 6 * 6, 10))
        if convert:
            net = paddle.jit.to_static(net)
        opt = paddle.optimizer.Adam(0.01, parameters=net.parameters(), weight_decay=0.01,
                                    grad_clip=nn.ClipGradByGlobalNorm(1.0))
        for seed in range(3):
            loss = paddle.mean(net(_x(4, 1, 8, 8, seed=seed)))
            loss.backward()
            opt.step()
            opt.clear_grad()
        bn = net[1]
        assert bn._mean.grad is None and bn._variance.grad is None
        assert not any(k.startswith((bn._mean.name + '_', bn._variance.name + '_'))
                       for k in opt.state_dict())
        assert len(opt.state_dict()) == 4 * 5         # Adam: 4 accumulators x 5 parameters
        results.append([p.numpy() for p in net.parameters()])
    # statistics are updated by the batch-norm rule only, in both modes alike
    assert not np.allclose(results[0][3], 0.0)
    for eager, static_ in zip(*results):
        np.testing.assert_allclose(static_, eager, rtol=1e-5, atol=1e-6)


def test_hapi_model_updates_statistics():
    class Data(paddle.io.Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            rng = np.random.RandomState(i)
            return rng.rand(1, 8, 8).astype('float32'), np.array([i % 10])

    net = small_cnn()
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  nn.CrossEntropyLoss())
    model.fit(Data(), batch_size=4, epochs=1, verbose=0)
    assert not np.allclose(net[1]._mean.numpy(), 0.0)


def test_static_program_statistics_are_parameters_without_updates():
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4))
            loss = paddle.mean(net(static.data('x', [None, 3], 'float32')))
            paddle.optimizer.SGD(0.1).minimize(loss)
        stats = {net[1]._mean.name, net[1]._variance.name}
        params = {p.name: p for p in main.all_parameters()}
        assert stats <= set(params) and not any(params[n].trainable for n in stats)
        updated = {op.input('param')[0] for op in main.global_block().ops if op.type == 'sgd'}
        assert len(updated) == 4 and not updated & stats
    finally:
        paddle.disable_static()


def test_state_dict_with_paddles_keys_loads():
    # keys as real Paddle writes them for this model
    net = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1D(3))
    state = {'0.weight': np.ones([2, 3], 'float32'), '0.bias': np.zeros(3, 'float32'),
             '1.weight': np.full(3, 2.0, 'float32'), '1.bias': np.zeros(3, 'float32'),
             '1._mean': np.full(3, 0.5, 'float32'), '1._variance': np.full(3, 4.0, 'float32')}
    assert list(net.state_dict()) == list(state)
    assert net.set_state_dict(state) == ([], [])
    net.eval()
    out = net(paddle.ones([1, 2]))
    expected = 2.0 * (2.0 - 0.5) / np.sqrt(4.0 + 1e-5) * np.ones([1, 3])
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_set_state_dict_inside_to_static_raises_paddles_error():
    class Reload(nn.Layer):
        def __init__(self):
            super().__init__()
            self.linear = nn.Linear(5, 2)

        @paddle.jit.to_static
        def forward(self, x):
            state = self.state_dict()
            state['linear.weight'] = state['linear.weight'] * 0.5
            self.set_state_dict(state)
            return self.linear(x)

    with pytest.raises(ValueError, match="move it to '__init__'"):
        Reload()(paddle.ones([1, 5]))


# ---- optimizer state dicts ------------------------------------------------------------

def mlp():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.Linear(4, 2))


def train(net, opt, seeds):
    for seed in seeds:
        loss = paddle.mean(net(_x(5, 3, seed=seed)) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()


def test_adam_state_dict_has_paddles_keys():
    with paddle.utils.unique_name.guard():
        net = mlp()
    opt = paddle.optimizer.Adam(paddle.optimizer.lr.StepDecay(0.1, 2),
                                parameters=net.parameters())
    train(net, opt, [0])
    trainable = ['linear_0.w_0', 'linear_0.b_0', 'batch_norm1d_0.w_0', 'batch_norm1d_0.b_0',
                 'linear_1.w_0', 'linear_1.b_0']
    # Paddle's order: by accumulator, then by parameter; the scheduler last
    expected = ['%s_%s_0' % (p, acc) for acc in ('moment1', 'moment2', 'beta1_pow_acc',
                                                 'beta2_pow_acc') for p in trainable]
    assert list(opt.state_dict()) == expected + ['LR_Scheduler']
    assert opt.state_dict()['LR_Scheduler'] == {'last_epoch': 0, 'last_lr': 0.1}


@pytest.mark.parametrize('make', [
    lambda ps: paddle.optimizer.Adam(0.05, parameters=ps),
    lambda ps: paddle.optimizer.AdamW(0.05, parameters=ps),
    lambda ps: paddle.optimizer.Momentum(0.05, parameters=ps),
    lambda ps: paddle.optimizer.RMSProp(0.05, parameters=ps),
    lambda ps: paddle.optimizer.Adagrad(0.05, parameters=ps),
    lambda ps: paddle.optimizer.Adamax(0.05, parameters=ps),
    lambda ps: paddle.optimizer.Adadelta(0.05, parameters=ps),
    lambda ps: paddle.optimizer.Lamb(0.05, parameters=ps)])
def test_state_loads_into_a_model_rebuilt_in_the_same_process(make, tmp_path):
    paddle.seed(3)
    net = mlp()
    opt = make(net.parameters())
    train(net, opt, [0, 1])
    paddle.save(net.state_dict(), str(tmp_path / 'm.pdparams'))
    paddle.save(opt.state_dict(), str(tmp_path / 'm.pdopt'))
    train(net, opt, [2, 3])                        # the run we must reproduce
    expected = [p.numpy() for p in net.parameters()]

    rebuilt = mlp()                                # other unique names: linear_2.w_0, ...
    assert rebuilt[0].weight.name != net[0].weight.name
    rebuilt.set_state_dict(paddle.load(str(tmp_path / 'm.pdparams')))
    opt2 = make(rebuilt.parameters())
    opt2.set_state_dict(paddle.load(str(tmp_path / 'm.pdopt')))   # matched by order
    train(rebuilt, opt2, [2, 3])
    for got, want in zip([p.numpy() for p in rebuilt.parameters()], expected):
        np.testing.assert_array_equal(got, want)
    assert all(k.startswith(tuple(p.name for p in rebuilt.parameters()))
               for k in opt2.state_dict())


def test_state_into_existing_accumulators_of_a_rebuilt_model():
    paddle.seed(4)
    a, b = mlp(), mlp()
    b.set_state_dict(a.state_dict())
    opt_a = paddle.optimizer.Adam(0.05, parameters=a.parameters())
    opt_b = paddle.optimizer.Adam(0.05, parameters=b.parameters())
    train(a, opt_a, [0])
    train(b, opt_b, [5])                           # b's accumulators exist, other values
    b.set_state_dict(a.state_dict())
    opt_b.set_state_dict(opt_a.state_dict())
    train(a, opt_a, [1])
    train(b, opt_b, [1])
    for pa, pb in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(pa.numpy(), pb.numpy())


def test_state_with_paddles_counter_suffix_loads():
    # a second Paddle optimizer over the same parameters names them '..._moment1_1'
    net = nn.Linear(2, 2)
    opt = paddle.optimizer.Momentum(0.1, parameters=net.parameters())
    train_state = {'%s_velocity_1' % p.name: np.full(p.shape, 0.5, 'float32')
                   for p in net.parameters()}
    opt.set_state_dict(train_state)
    net(paddle.ones([1, 2])).sum().backward()
    opt.step()
    key = '%s_velocity_0' % net.bias.name
    np.testing.assert_allclose(opt.state_dict()[key].numpy(), 0.9 * 0.5 + 1.0)


def test_set_state_dict_errors_name_counts_and_shapes():
    net = mlp()
    opt = paddle.optimizer.Adam(0.1, parameters=net.parameters())
    train(net, opt, [0])
    state = opt.state_dict()
    smaller = nn.Linear(3, 4)
    with pytest.raises(ValueError, match=r'matched by order.*6 parameters.*2 trainable'):
        paddle.optimizer.Adam(0.1, parameters=smaller.parameters()).set_state_dict(state)
    wider = nn.Sequential(nn.Linear(3, 5), nn.BatchNorm1D(5), nn.Linear(5, 2))
    with pytest.raises(ValueError, match=r"'%s'.*moment1 of shape \[3, 4\].*shape \[3, 5\]"
                       % net[0].weight.name):
        paddle.optimizer.Adam(0.1, parameters=wider.parameters()).set_state_dict(state)
    with pytest.raises(KeyError, match='not an accumulator of Momentum'):
        paddle.optimizer.Momentum(0.1, parameters=net.parameters()).set_state_dict(state)
    with pytest.raises(TypeError, match='dict'):
        opt.set_state_dict([1, 2])


# ---- Paddle's constructor arguments, positionally -------------------------------------

def test_activations_take_paddles_arguments_in_order():
    x = _x(2, 6)
    nn.ReLU(True)(x)                                # Paddle: ReLU(name=True)
    with pytest.raises(TypeError):
        nn.ReLU(True, 1)
    assert nn.LeakyReLU(0.2)._kwargs == {'negative_slope': 0.2}
    assert nn.ELU(0.5)._kwargs == {'alpha': 0.5}
    assert nn.Hardtanh(-2.0, 2.0)._kwargs == {'min': -2.0, 'max': 2.0}
    assert nn.Softplus(2, 10)._kwargs == {'beta': 2, 'threshold': 10}
    assert nn.Maxout(2)(paddle.ones([1, 4, 3])).shape == [1, 2, 3]
    np.testing.assert_array_equal(nn.Softmax(0)(x).numpy(), paddle.nn.functional.softmax(
        x, axis=0).numpy())
    np.testing.assert_array_equal(nn.GELU('tanh')(x).numpy(), nn.GELU(True)(x).numpy())
    np.testing.assert_array_equal(nn.GELU('none')(x).numpy(), nn.GELU()(x).numpy())
    with pytest.raises(ValueError, match="'tanh' or 'none'"):
        nn.GELU('fast')(x)
    assert list(inspect.signature(nn.SELU).parameters) == ['scale', 'alpha', 'name']
    assert list(inspect.signature(nn.Softmax2D).parameters) == ['name']


def test_thresholded_relu_value_in_both_modes():
    x = paddle.to_tensor([-1.0, 0.5, 2.0, 3.0], stop_gradient=False)
    layer = nn.ThresholdedReLU(1.0, -0.5)
    out = layer(x)
    np.testing.assert_array_equal(out.numpy(), [-0.5, -0.5, 2.0, 3.0])
    (out * paddle.to_tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 3.0, 4.0])
    np.testing.assert_array_equal(paddle.jit.to_static(layer)(x).numpy(), out.numpy())


def test_inplace_flags_write_into_the_input():
    x = _x(3, 4)
    y = nn.SiLU(True)(x)
    assert y is x
    np.testing.assert_allclose(x.numpy(), paddle.nn.functional.silu(_x(3, 4)).numpy())
    paddle.seed(1)
    d = nn.Dropout(0.5, True)                        # Paddle: Dropout(p, inplace, axis, mode)
    x = paddle.ones([4, 5])
    assert d(x) is x and set(np.unique(x.numpy())) <= {0.0, 2.0}
    d.eval()
    z = paddle.ones([2, 2])
    assert d(z) is z
    assert nn.Dropout(0.5, False, 1).axis == 1

    @paddle.jit.to_static
    def f(t):
        t = t * 1.0
        paddle.nn.functional.dropout(t, 0.0, training=True, inplace=True)
        return paddle.nn.functional.silu(t, inplace=True)
    np.testing.assert_allclose(f(_x(3, 4)).numpy(), paddle.nn.functional.silu(_x(3, 4)).numpy(),
                               rtol=1e-6)


def test_norm_and_conv_layers_take_paddles_options():
    bn = nn.BatchNorm2D(3, 0.8, 1e-3, None, None, 'NHWC')
    assert (bn._momentum, bn._epsilon, bn._data_format) == (0.8, 1e-3, 'NHWC')
    assert nn.BatchNorm1D(2)._data_format == 'NCL' and nn.InstanceNorm3D(2)._data_format == \
        'NCDHW'
    with pytest.raises(TypeError):
        nn.SyncBatchNorm(3, use_global_stats=True)   # not one of Paddle's arguments
    conv = nn.Conv2D(3, 8, 3, 1, 1, bias=False, dtype='float64')
    assert conv.bias is None and conv.weight.dtype == paddle.float64
    assert [n for n, _ in conv.named_parameters()] == ['weight']
    # Paddle 2's positional order still works: padding_mode, weight_attr, bias_attr, format
    conv = nn.Conv1D(2, 4, 3, 1, 1, 1, 1, 'reflect', None, False, 'NLC')
    assert conv.bias is None and conv(paddle.ones([1, 5, 2])).shape == [1, 5, 4]
    with pytest.raises(ValueError, match='CPU only'):
        nn.Conv2D(3, 8, 3, device='gpu:0')
    ln = nn.LayerNorm(4, 1e-5, elementwise_affine=False)
    assert ln.weight is None and ln.bias is None
    x = _x(2, 4)
    np.testing.assert_allclose(ln(x).numpy(), paddle.nn.functional.layer_norm(x, [4]).numpy())
    assert nn.LayerNorm(4, bias=False).bias is None
    assert nn.LayerNorm(4, dtype='float64').weight.dtype == paddle.float64
    gn = nn.GroupNorm(2, 4, affine=False)
    assert gn.parameters() == [] and gn(_x(2, 4, 3, 3)).shape == [2, 4, 3, 3]
    assert nn.MaxPool2D(2)(paddle.ones([1, 1, 4, 4])).shape == [1, 1, 2, 2]
    assert nn.AvgPool2D(2, 2, 0, False, True, None, 'NHWC')(paddle.ones([1, 4, 4, 3])).shape == \
        [1, 2, 2, 3]
    assert nn.Pad1D(1)(paddle.ones([1, 2, 3])).shape == [1, 2, 5]
    assert nn.Dropout2D(0.5)._formats[0] == nn.Dropout2D(0.5).data_format == 'NCHW'


def test_embedding_takes_paddles_options():
    emb = nn.Embedding(10, 3, 0, 1.0, 2.0, scale_grad_by_freq=True, dtype='float64')
    assert (emb._padding_idx, emb._max_norm, emb._norm_type) == (0, 1.0, 2.0)
    assert emb.weight.dtype == paddle.float64
    table = paddle.to_tensor(np.ones([4, 2], 'float32'))
    fixed = nn.Embedding(4, 2, _weight=table, _freeze=True)
    assert fixed.weight is table and fixed.weight.stop_gradient
    with pytest.raises(ValueError, match=r'\[4, 2\]'):
        nn.Embedding(5, 2, _weight=table)


TABLE = np.arange(15, dtype='float32').reshape(5, 3) / 5 - 1.0
IDS = np.array([[0, 2, 2], [3, 0, 2]])


@pytest.mark.parametrize('options, loss, grad_row0, row0_after', [
    # figures from real Paddle 3.3.1 on the same table and ids
    (dict(scale_grad_by_freq=True), 4.2, [0.0, 1.0, 2.0], [-1.0, -0.8, -0.6]),
    (dict(max_norm=1.0), 3.908903, [0.0, 2.0, 4.0], [-0.7071067, -0.5656854, -0.424264]),
    (dict(max_norm=0.5, norm_type=1.0), 1.733333, [0.0, 2.0, 4.0],
     [-0.2083333, -0.1666667, -0.125])])
def test_embedding_options_eager_and_to_static(options, loss, grad_row0, row0_after):
    results = []
    for convert in (False, True):
        emb = nn.Embedding(5, 3, **options)
        emb.weight.set_value(TABLE)
        weights = paddle.to_tensor(np.arange(3, dtype='float32'))
        fn = paddle.jit.to_static(emb) if convert else emb
        out = (fn(paddle.to_tensor(IDS)) * weights).sum()
        out.backward()
        results.append((float(out), emb.weight.grad.numpy(), emb.weight.numpy()))
    for value, grad, _ in results:
        np.testing.assert_allclose(value, loss, rtol=1e-6)
        np.testing.assert_allclose(grad[0], grad_row0)
    # eagerly the table itself is renormed in place, as in Paddle
    np.testing.assert_allclose(results[0][2][0], row0_after, rtol=1e-6)


def test_losses_take_paddles_options():
    logp = paddle.log(paddle.to_tensor([[0.2, 0.8], [0.5, 0.5]]))
    target = paddle.to_tensor([[0.3, 0.7], [0.1, 0.9]])
    for reduction in ('none', 'mean', 'sum', 'batchmean'):
        plain = nn.KLDivLoss(reduction)(logp, target)
        in_log_space = nn.KLDivLoss(reduction, True)(logp, paddle.log(target))
        np.testing.assert_allclose(in_log_space.numpy(), plain.numpy(), rtol=1e-5, atol=1e-7)
    x, y = _x(3, 4), _x(3, 4, seed=1)
    huber = nn.SmoothL1Loss('mean', 2.0)(x, y)
    np.testing.assert_allclose(nn.SmoothL1Loss('mean', 2.0, False)(x, y).numpy(),
                               huber.numpy() / 2.0, rtol=1e-6)


def test_upsample_default_format_and_recompute_scale_factor():
    x = paddle.to_tensor(np.arange(10, dtype='float32').reshape(1, 1, 10))
    # data_format None: channels first whatever the rank (here NCW)
    up = nn.Upsample(scale_factor=0.35, mode='linear')
    np.testing.assert_allclose(up(x).numpy(), [[[0.928571, 3.785714, 6.642858]]], rtol=1e-5)
    again = nn.Upsample(scale_factor=0.35, mode='linear', recompute_scale_factor=True)
    np.testing.assert_allclose(again(x).numpy(), [[[1.166667, 4.5, 7.833333]]], rtol=1e-5)
