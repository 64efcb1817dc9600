"""Programs and checkpoints: ``Program.state_dict`` / ``set_state_dict``,
``static.save`` / ``static.load``, ``framework.load`` on a ``jit.save`` prefix,
and a ``jit.load``ed layer saved again, called inside ``@to_static`` and
trained there."""
import os
import pickle
import warnings

import numpy as np
import pytest

import framework as paddle
from framework import nn, static
from framework.serialization import CheckpointError


def build_static(lr=0.05):
    """A fresh-named Linear + BatchNorm regression program trained by Adam;
    built twice it has the same variable names."""
    main, startup = static.Program(), static.Program()
    with paddle.utils.unique_name.guard(), static.program_guard(main, startup):
        x = static.data('x', [None, 3], 'float32')
        y = static.data('y', [None, 1], 'float32')
        net = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1D(4), nn.ReLU(), nn.Linear(4, 1))
        loss = paddle.mean((net(x) - y) ** 2)
        paddle.optimizer.Adam(lr).minimize(loss)
    return main, startup, loss


def feeds(seed, n=8):
    rng = np.random.RandomState(seed)
    x = rng.randn(n, 3).astype('float32')
    return {'x': x, 'y': x.sum(1, keepdims=True).astype('float32')}


def run(exe, main, loss, seeds):
    return [float(exe.run(main, feed=feeds(s), fetch_list=[loss])[0]) for s in seeds]


# ---- Program.state_dict / set_state_dict -------------------------------------------

def test_program_state_dict_modes(static_mode):
    main, startup, loss = build_static()
    exe = static.Executor()
    exe.run(startup)
    run(exe, main, loss, [0])
    params = main.state_dict('param')
    # every parameter, batch norm's (non-trainable) running statistics included
    assert sorted(params) == sorted(p.name for p in main.all_parameters())
    assert {'batch_norm1d_0.w_1', 'batch_norm1d_0.w_2'} <= set(params)
    opt = main.state_dict('opt')
    assert 'learning_rate_0' in opt and 'linear_0.w_0_moment1_0' in opt
    assert not set(params) & set(opt)
    assert sorted(main.state_dict()) == sorted(list(params) + list(opt))
    w = params['linear_0.w_0']
    assert isinstance(w, paddle.Tensor) and w.name == 'linear_0.w_0'
    np.testing.assert_array_equal(
        w.numpy(), np.asarray(static.global_scope().find_var('linear_0.w_0').get_tensor()))
    with pytest.raises(ValueError, match="'param', 'opt' or 'all'"):
        main.state_dict('weights')
    with pytest.raises(TypeError, match='Scope'):
        main.state_dict(scope={})


def test_program_state_round_trip_through_a_file(static_mode, tmp_path):
    main, startup, loss = build_static()
    exe = static.Executor()
    exe.run(startup)
    run(exe, main, loss, [0, 1])
    path = str(tmp_path / 'prog.pdparams')
    paddle.save(main.state_dict(), path)
    continued = run(exe, main, loss, [2, 3])         # moves parameters and moments on
    state = paddle.load(path)
    assert all(isinstance(v, paddle.Tensor) for v in state.values())
    main.set_state_dict(state)
    assert run(exe, main, loss, [2, 3]) == continued  # optimizer state came back too


def test_program_set_state_dict_skips_what_it_cannot_use(static_mode):
    main, startup, loss = build_static()
    exe = static.Executor()
    exe.run(startup)
    before = main.state_dict('param')
    w = before['linear_0.w_0'].numpy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        main.set_state_dict({'no_such_var': np.zeros(2, 'float32'),
                             'linear_0.w_0': np.zeros([5, 5], 'float32'),
                             'linear_0.b_0': np.full([4], 7.0, 'float32')})
    messages = ' | '.join(str(c.message) for c in caught)
    assert "'no_such_var' not in the program" in messages
    assert 'linear_0.w_0' in messages and '[3, 4]' in messages and '[5, 5]' in messages
    now = main.state_dict('param')
    np.testing.assert_array_equal(now['linear_0.w_0'].numpy(), w)
    np.testing.assert_array_equal(now['linear_0.b_0'].numpy(), np.full([4], 7.0))
    with pytest.raises(TypeError, match='dict'):
        main.set_state_dict([('linear_0.b_0', np.zeros(4))])


def test_program_state_dict_needs_the_startup_program(static_mode):
    main, _, _ = build_static()
    with pytest.raises(ValueError, match='startup'):
        main.state_dict()


def test_variable_get_and_set_value(static_mode):
    main, startup, _ = build_static()
    static.Executor().run(startup)
    b = main.global_block().var('linear_0.b_0')
    b.set_value(np.arange(4, dtype='float32'))
    np.testing.assert_array_equal(b.get_value().numpy(), np.arange(4))
    with pytest.raises(ValueError, match=r"linear_0.b_0.*\[4\].*\[3\]"):
        b.set_value(np.zeros(3, 'float32'))
    with pytest.raises(ValueError, match='float64'):
        b.set_value(np.zeros(4, 'float64'))


# ---- static.save / static.load ------------------------------------------------------

def test_static_save_writes_paddles_three_files(static_mode, tmp_path):
    main, startup, loss = build_static()
    exe = static.Executor()
    exe.run(startup)
    run(exe, main, loss, [0])
    prefix = str(tmp_path / 'ckpt' / 'model')
    static.save(main, prefix)
    assert sorted(os.listdir(tmp_path / 'ckpt')) == ['model.pdmodel', 'model.pdopt',
                                                     'model.pdparams']   # no temp files
    params = paddle.load(prefix + '.pdparams')
    assert sorted(params) == sorted(main.state_dict('param'))
    opt = paddle.load(prefix + '.pdopt')
    assert sorted(opt) == sorted(main.state_dict('opt'))
    np.testing.assert_array_equal(params['linear_0.w_0'].numpy(),
                                  main.state_dict()['linear_0.w_0'].numpy())


def test_static_load_into_a_rebuilt_program_continues_training(static_mode, tmp_path):
    main, startup, loss = build_static()
    exe = static.Executor()
    exe.run(startup)
    run(exe, main, loss, [0, 1])
    prefix = str(tmp_path / 'model')
    static.save(main, prefix)
    expected = run(exe, main, loss, [2, 3])
    with static.scope_guard(static.Scope()):          # another "process"
        main2, startup2, loss2 = build_static()
        exe2 = static.Executor()
        exe2.run(startup2)
        static.load(main2, prefix + '.pdparams', exe2)   # a suffix is accepted too
        assert run(exe2, main2, loss2, [2, 3]) == expected


def test_static_load_var_list_and_errors(static_mode, tmp_path):
    main, startup, loss = build_static()
    exe = static.Executor()
    exe.run(startup)
    prefix = str(tmp_path / 'model')
    static.save(main, prefix)
    b = main.global_block().var('linear_0.b_0')
    w = main.global_block().var('linear_0.w_0')
    saved_b = b.get_value().numpy()
    b.set_value(np.full([4], 3.0, 'float32'))
    w.set_value(np.full([3, 4], 3.0, 'float32'))
    static.load(main, prefix, exe, var_list=[b])        # only b comes back
    np.testing.assert_array_equal(b.get_value().numpy(), saved_b)
    np.testing.assert_array_equal(w.get_value().numpy(), np.full([3, 4], 3.0))
    with pytest.raises(FileNotFoundError, match='nothing.pdparams'):
        static.load(main, str(tmp_path / 'nothing'), exe)
    # a program with another shape for the same name refuses the file
    other, other_startup = static.Program(), static.Program()
    with paddle.utils.unique_name.guard(), static.program_guard(other, other_startup):
        nn.Linear(3, 5)(static.data('x', [None, 3], 'float32'))
    exe.run(other_startup)
    with pytest.raises(ValueError, match=r"linear_0.w_0.*\[3, 5\].*\[3, 4\]"):
        static.load(other, prefix, exe)


def test_static_load_never_unpickles(static_mode, tmp_path):
    main, startup, _ = build_static()
    static.Executor().run(startup)
    prefix = str(tmp_path / 'model')
    with open(prefix + '.pdparams', 'wb') as f:
        pickle.dump({'linear_0.w_0': np.zeros([3, 4], 'float32')}, f)
    with pytest.raises(CheckpointError, match='pickle'):
        static.load(main, prefix)


# ---- framework.load on a jit.save prefix ------------------------------------------

class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1D(2)

    def forward(self, x):
        y = self.bn(self.fc(x))
        if paddle.sum(y) > 0:          # a data-dependent branch: cond sub-blocks
            y = y * 2.0
        else:
            y = y - 1.0
        return y


def trained_net():
    net = Net()
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    for seed in range(2):
        loss = paddle.mean(net(paddle.to_tensor(feeds(seed)['x'])) ** 2)
        loss.backward()
        opt.step()
        opt.clear_grad()
    net.eval()
    return net


SPEC = [static.InputSpec([None, 3], 'float32', 'x')]


def test_load_of_a_jit_save_prefix_returns_the_parameters(tmp_path):
    net = trained_net()
    prefix = str(tmp_path / 'infer' / 'net')
    paddle.jit.save(net, prefix, input_spec=SPEC)
    state = paddle.load(prefix)
    assert list(state) == list(net.state_dict())          # the layer's keys and order
    for key, value in net.state_dict().items():
        assert isinstance(state[key], paddle.Tensor) and state[key].name == value.name
        np.testing.assert_array_equal(state[key].numpy(), value.numpy())
    fresh = Net()
    assert fresh.set_state_dict(state) == ([], [])
    fresh.eval()
    x = paddle.to_tensor(feeds(5)['x'])
    np.testing.assert_array_equal(fresh(x).numpy(), net(x).numpy())
    arrays = paddle.load(prefix, return_numpy=True)
    assert all(isinstance(v, np.ndarray) for v in arrays.values())


def test_load_of_an_inference_model_prefix_uses_variable_names(tmp_path):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.scope_guard(static.Scope()), static.program_guard(main, startup):
            x = static.data('x', [None, 3], 'float32')
            y = nn.Linear(3, 2)(x)
            exe = static.Executor()
            exe.run(startup)
            prefix = str(tmp_path / 'inf')
            static.save_inference_model(prefix, [x], [y], exe, program=main)
            expected = sorted(p.name for p in main.all_parameters())
    finally:
        paddle.disable_static()
    assert sorted(paddle.load(prefix)) == expected


def test_load_of_a_missing_prefix_explains(tmp_path):
    paddle.save({'a': paddle.ones([1])}, str(tmp_path / 'm.pdparams'))
    with pytest.raises(FileNotFoundError, match=r"m\.pdparams'\)"):
        paddle.load(str(tmp_path / 'm'))
    with pytest.raises(FileNotFoundError, match='does not exist'):
        paddle.load(str(tmp_path / 'nothing'))


# ---- a jit.load'ed layer: saved again, and inside @to_static -----------------------

def test_jit_save_of_a_loaded_layer_with_tensor_input_spec(tmp_path):
    net = trained_net()
    first = str(tmp_path / 'a' / 'net')
    paddle.jit.save(net, first, input_spec=SPEC)
    loaded = paddle.jit.load(first)
    second = str(tmp_path / 'b' / 'net')
    paddle.jit.save(loaded, second, input_spec=[paddle.to_tensor(feeds(0)['x'])])
    again = paddle.jit.load(second)
    for sign in (1.0, -1.0):                       # both branches of the saved cond
        x = paddle.to_tensor(sign * np.abs(feeds(1)['x']) + sign)
        np.testing.assert_allclose(again(x).numpy(), net(x).numpy(), rtol=1e-6)
    # the values saved are the loaded layer's current ones (after fine-tuning)
    with paddle.no_grad():
        loaded.param_0.set_value(loaded.param_0.numpy() * 0.5)
    third = str(tmp_path / 'c' / 'net')
    paddle.jit.save(loaded, third, input_spec=[paddle.to_tensor(feeds(0)['x'])])
    x = paddle.to_tensor(feeds(2)['x'])
    np.testing.assert_allclose(paddle.jit.load(third)(x).numpy(), loaded(x).numpy(),
                               rtol=1e-6)


class Head(nn.Layer):
    def __init__(self, body):
        super().__init__()
        self.body = body
        self.out = nn.Linear(2, 1)

    def forward(self, x):
        return self.out(self.body(x))


def test_loaded_layer_inside_to_static_equals_eager_with_gradients(tmp_path):
    prefix = str(tmp_path / 'net')
    paddle.jit.save(trained_net(), prefix, input_spec=SPEC)
    body = paddle.jit.load(prefix)
    eager = Head(body)
    converted = paddle.jit.to_static(Head(body))
    converted.out = eager.out                      # the same parameters in both
    for sign in (1.0, -1.0):
        x = paddle.to_tensor(sign * np.abs(feeds(3)['x']) + sign)
        grads = []
        for model in (eager, converted):
            model.clear_gradients()
            loss = paddle.sum(model(x))
            loss.backward()
            grads.append([p.grad.numpy().copy() for p in body.parameters() if p.trainable])
        np.testing.assert_allclose(converted(x).numpy(), eager(x).numpy(), rtol=1e-6)
        for a, b in zip(*grads):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
