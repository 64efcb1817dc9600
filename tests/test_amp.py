"""paddle.amp on the CPU: auto_cast by Paddle's op lists (float16 and bfloat16),
decorate(level='O2') with float32 master weights, GradScaler's dynamic loss
scaling; eagerly, in static programs and inside @to_static.

float16 AMP is a no-op on a CPU by default, as in Paddle (the tests at the end);
the mechanics tests turn it on with FLAGS_cpu_float16_amp."""
import sys

import numpy as np
import pytest

import framework as paddle
import framework.nn as nn
import framework.nn.functional as F
from framework import dtype as _dt

DTYPES = ['float16', pytest.param('bfloat16', marks=pytest.mark.skipif(
    not paddle.amp.is_bfloat16_supported(), reason='bfloat16 needs ml_dtypes'))]


def _np(dtype):
    return _dt.convert_dtype(dtype)


@pytest.fixture(autouse=True)
def _seed():
    paddle.seed(2024)
    np.random.seed(2024)


@pytest.fixture(autouse=True)
def cpu_float16():
    """float16 AMP on (it is Paddle's CPU no-op by default); a test can turn it
    off again with ``cpu_float16(False)``."""
    def switch(on):
        paddle.set_flags({'FLAGS_cpu_float16_amp': on})
    switch(True)
    yield switch
    switch(False)


# ---- O1: the op lists -------------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES)
def test_white_ops_compute_low_precision_and_black_ops_float32(dtype):
    linear = nn.Linear(4, 3)
    x = paddle.rand([2, 4])
    with paddle.amp.auto_cast(dtype=dtype):
        y = linear(x)                       # white (linear_v2)
        m = paddle.matmul(x, x.T)           # white
        p = F.softmax(y)                    # black
        e = paddle.exp(y)                   # black
        s = y.sum()                         # black (reduce_sum)
        g = F.relu(y)                       # gray, low-precision input -> stays low
        h = y + paddle.ones([3])            # gray with a float32 input -> float32
    assert y.dtype.name == dtype and m.dtype.name == dtype and g.dtype.name == dtype
    assert p.dtype == 'float32' and e.dtype == 'float32' and s.dtype == 'float32'
    assert h.dtype == 'float32'
    assert linear.weight.dtype == 'float32'     # O1 leaves parameters alone


def test_linear_values_are_one_rounding_of_the_float32_product_of_half_inputs():
    linear = nn.Linear(5, 3)
    x = paddle.rand([4, 5]) * 3 - 1
    with paddle.amp.auto_cast():
        y = linear(x)
    f16 = np.float16
    ref = (x.numpy().astype(f16).astype(np.float32) @ linear.weight.numpy().astype(f16)
           .astype(np.float32) + linear.bias.numpy().astype(f16).astype(np.float32)).astype(f16)
    np.testing.assert_array_equal(y.numpy(), ref)


def test_conv_bias_is_added_as_paddle_adds_it():
    """Paddle's conv2d op has no bias: F.conv2d adds it with a (gray) add, which
    computes in float32 for a float32 bias."""
    x = paddle.rand([2, 3, 8, 8])
    no_bias = nn.Conv2D(3, 4, 3, bias_attr=False)
    with_bias = nn.Conv2D(3, 4, 3)
    with paddle.amp.auto_cast():
        a = no_bias(x)
        b = with_bias(x)
    assert a.dtype == 'float16' and b.dtype == 'float32'
    with paddle.amp.auto_cast():
        conv_only = F.conv2d(x, with_bias.weight)
    ref = conv_only.numpy().astype(np.float32) + with_bias.bias.numpy().reshape(1, -1, 1, 1)
    np.testing.assert_allclose(b.numpy(), ref, rtol=1e-6)
    nhwc = nn.Conv2D(3, 4, 3, data_format='NHWC')
    with paddle.amp.auto_cast():
        c = nhwc(paddle.rand([2, 8, 8, 3]))
    assert c.dtype == 'float32' and c.shape == [2, 6, 6, 4]


def test_depthwise_conv_is_not_white_conv1d_is():
    x = paddle.rand([1, 4, 6, 6])
    depthwise = nn.Conv2D(4, 8, 3, groups=4, bias_attr=False)
    grouped = nn.Conv2D(4, 8, 3, groups=2, bias_attr=False)
    with paddle.amp.auto_cast():
        assert depthwise(x).dtype == 'float32'     # Paddle's depthwise_conv2d: gray
        assert grouped(x).dtype == 'float16'
        assert nn.Conv1D(4, 2, 3, bias_attr=False)(paddle.rand([1, 4, 8])).dtype == 'float16'


def test_custom_lists_use_paddle_op_names():
    conv = nn.Conv2D(3, 2, 3, bias_attr=False)
    data = paddle.rand([1, 3, 6, 6])
    a, b = paddle.rand([2, 3]), paddle.rand([2, 3])
    with paddle.amp.auto_cast(custom_black_list={'conv2d'}):
        assert conv(data).dtype == 'float32'
    with paddle.amp.auto_cast(custom_white_list={'elementwise_add'}):
        assert (a + b).dtype == 'float16'
    with paddle.amp.auto_cast(custom_white_list={'elementwise_add'}, level='O2'):
        assert (a + b).dtype == 'float16'
    with paddle.amp.auto_cast(custom_white_list={'softmax'}):
        assert F.softmax(a).dtype == 'float16'
    with pytest.raises(ValueError, match='overlap'):
        with paddle.amp.auto_cast(custom_white_list={'exp'}, custom_black_list={'exp'}):
            pass


def test_the_lists_are_made_from_what_the_ops_declare():
    """Paddle's lists by Paddle's names: white computes in low precision, black
    in float32 at O1, always_black at O1 and O2 (OD: no black list)."""
    white, black = paddle.amp.white_list(), paddle.amp.black_list()
    for dtype in ('float16', 'bfloat16'):
        assert {'matmul_v2', 'linear_v2', 'conv2d', 'einsum'} <= white[dtype]['O1']
        assert {'exp', 'reduce_sum', 'softmax', 'layer_norm'} <= black[dtype]['O1']
        assert {'lookup_table_v2', 'bilinear_interp_v2', 'scatter'} <= black[dtype]['O1']
        assert {'lookup_table_v2', 'bilinear_interp_v2', 'scatter'} <= black[dtype]['O2']
        assert 'exp' not in black[dtype]['O2'] and not black[dtype]['OD']
        assert 'cast' not in white[dtype]['O1'] | black[dtype]['O1']


def test_an_op_registered_later_joins_the_lists():
    """The lists are kept while the registry does not change (its op count is
    the cache key): a new op declared white is in them at once."""
    from framework.ops import registry
    before = paddle.amp.white_list()['float16']['O1']
    op = registry.def_op('amp_example_matmul', lambda x, y: None, pattern='opaque', amp='white',
                         paddle_names=('example_matmul_v9',))(lambda x, y: np.matmul(x, y))
    try:
        assert 'example_matmul_v9' not in before
        after = paddle.amp.white_list()['float16']['O1']
        assert {'amp_example_matmul', 'example_matmul_v9'} <= after
    finally:
        registry._OPS.pop(op.name)      # (ops are never removed otherwise: the key is stale)
        paddle.amp.amp_lists._by_class[0] = -1


def test_levels_and_enable():
    linear = nn.Linear(3, 3)
    x = paddle.rand([2, 3])
    with paddle.amp.auto_cast(enable=False):
        assert linear(x).dtype == 'float32'
        assert not paddle.amp.is_autocast_enabled()
    with paddle.amp.auto_cast(level='O0'):
        assert linear(x).dtype == 'float32'
    with paddle.amp.auto_cast():
        assert paddle.amp.is_autocast_enabled()
        with paddle.amp.auto_cast(enable=False):
            assert linear(x).dtype == 'float32'
        assert linear(x).dtype == 'float16'
    with paddle.amp.auto_cast(level='OD'):
        y = linear(x)
        assert y.dtype == 'float16'
        assert F.relu(y).dtype == 'float32'     # OD: everything off the white list in float32
    with pytest.raises(ValueError, match='level'):
        with paddle.amp.auto_cast(level='O3'):
            pass
    with pytest.raises(ValueError, match='dtype'):
        with paddle.amp.auto_cast(dtype='float64'):
            pass
    assert not paddle.amp.is_autocast_enabled()
    assert paddle.amp.get_autocast_dtype() == 'float16'


def test_only_half_and_float32_inputs_are_cast():
    x64 = paddle.rand([2, 2], dtype='float64')
    ids = paddle.to_tensor([[0, 1]])
    with paddle.amp.auto_cast():
        assert paddle.matmul(x64, x64).dtype == 'float64'
        assert (ids + 1).dtype == 'int64'


def test_norm_layers_cast_only_their_input():
    bn = nn.BatchNorm1D(3)
    x16 = paddle.rand([4, 3]).astype('float16')
    with paddle.amp.auto_cast():
        y = bn(x16)                          # gray, decided by x only: float16
    assert y.dtype == 'float16' and bn.weight.dtype == 'float32'
    assert bn._mean.dtype == 'float32'


# ---- gradients --------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', DTYPES)
def test_o1_gradients_reach_float32_parameters(dtype):
    linear = nn.Linear(4, 3)
    x = paddle.rand([5, 4])
    x.stop_gradient = False
    with paddle.amp.auto_cast(dtype=dtype):
        loss = F.softmax(linear(x)).pow(2).mean()
    loss.backward()
    assert linear.weight.grad.dtype == 'float32' and x.grad.dtype == 'float32'
    # the same in float32, close within half precision
    w_grad, x_grad = linear.weight.grad.numpy(), x.grad.numpy()
    linear.clear_gradients()
    x.clear_grad()
    F.softmax(linear(x)).pow(2).mean().backward()
    tol = 2e-2 if dtype == 'bfloat16' else 3e-3
    np.testing.assert_allclose(w_grad, linear.weight.grad.numpy(), atol=tol, rtol=tol)
    np.testing.assert_allclose(x_grad, x.grad.numpy(), atol=tol, rtol=tol)


def test_backward_inside_auto_cast_uses_the_forward_dtypes():
    linear = nn.Linear(4, 3)
    x = paddle.rand([2, 4])
    with paddle.amp.auto_cast():
        loss = linear(x).astype('float32').mean()
        loss.backward()
    outside = linear.weight.grad.numpy()
    linear.clear_gradients()
    with paddle.amp.auto_cast():
        loss = linear(x).astype('float32').mean()
    loss.backward()
    np.testing.assert_array_equal(outside, linear.weight.grad.numpy())


# ---- @to_static and static programs -------------------------------------------------------

class _Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.mean() > 0:         # a tensor condition: a cond op in the program
            h = h * 2
        return F.softmax(self.fc2(h))


@pytest.mark.parametrize('dtype', DTYPES)
def test_to_static_under_auto_cast_equals_eager(dtype):
    net = _Net()
    x = paddle.rand([3, 4])
    with paddle.amp.auto_cast(dtype=dtype):
        eager_h = net.fc1(x)
        eager = net(x)
    eager.sum().backward()
    eager_grad = net.fc1.weight.grad.numpy()
    net.clear_gradients()
    static_net = paddle.jit.to_static(_Net())
    static_net.set_state_dict(net.state_dict())
    with paddle.amp.auto_cast(dtype=dtype):
        out = static_net(x)
    assert eager_h.dtype.name == dtype and out.dtype == eager.dtype == 'float32'
    np.testing.assert_array_equal(out.numpy(), eager.numpy())
    out.sum().backward()
    np.testing.assert_array_equal(static_net.fc1.weight.grad.numpy(), eager_grad)
    # the same function without auto_cast gets a float32 program of its own
    plain = static_net(x)
    np.testing.assert_allclose(plain.numpy(), net(x).numpy(), rtol=1e-6)
    with paddle.amp.auto_cast(dtype=dtype):
        np.testing.assert_array_equal(static_net(x).numpy(), eager.numpy())


def test_to_static_function_casts_inside():
    w = paddle.rand([4, 4])

    @paddle.jit.to_static
    def f(x):
        return paddle.matmul(x, w), F.softmax(x)

    with paddle.amp.auto_cast():
        a, b = f(paddle.rand([2, 4]))
    assert a.dtype == 'float16' and b.dtype == 'float32'
    a, b = f(paddle.rand([2, 4]))
    assert a.dtype == 'float32'


def test_static_program_under_auto_cast():
    x = np.random.rand(2, 4).astype('float32')
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            xv = paddle.static.data('x', [2, 4], 'float32')
            linear = nn.Linear(4, 3)
            with paddle.amp.auto_cast():
                y = linear(xv)
                p = F.softmax(y)
            assert y.dtype == 'float16' and p.dtype == 'float32'
        exe = paddle.static.Executor()
        exe.run(start)
        y_val, p_val = exe.run(main, feed={'x': x}, fetch_list=[y, p])
        w = np.asarray(paddle.static.global_scope().find_var(linear.weight.name).get_tensor())
    finally:
        paddle.disable_static()
    assert y_val.dtype == np.float16 and p_val.dtype == np.float32
    ref = (x.astype(np.float16).astype(np.float32) @ w.astype(np.float16).astype(np.float32))
    np.testing.assert_allclose(y_val.astype(np.float32), ref, atol=1e-2)


# ---- O2: decorate ---------------------------------------------------------------------------

class _ConvNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.ln = nn.LayerNorm(4 * 4 * 4)
        self.fc = nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        return self.fc(self.ln(h.flatten(1)))


@pytest.mark.parametrize('dtype', DTYPES)
def test_decorate_o2_casts_parameters_but_norms(dtype):
    net = _ConvNet()
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    weight = net.fc.weight
    net2, opt2 = paddle.amp.decorate(net, opt, level='O2', dtype=dtype)
    assert net2 is net and opt2 is opt and net.fc.weight is weight
    assert net.conv.weight.dtype.name == dtype and net.fc.bias.dtype.name == dtype
    assert net.bn.weight.dtype == 'float32' and net.bn._mean.dtype == 'float32'
    # float16 keeps layer norm in float32; bfloat16 (float32's range) does not
    assert net.ln.weight.dtype.name == ('float32' if dtype == 'float16' else dtype)
    with paddle.amp.auto_cast(level='O2', dtype=dtype):
        out = net(paddle.rand([2, 3, 4, 4]))
    assert out.dtype.name == dtype


def test_decorate_o1_and_excluded_layers():
    net = _ConvNet()
    assert paddle.amp.decorate(net, level='O1') is net
    assert net.fc.weight.dtype == 'float32'
    paddle.amp.decorate(net, level='O2', excluded_layers=[net.fc])
    assert net.fc.weight.dtype == 'float32' and net.conv.weight.dtype == 'float16'
    other = _ConvNet()
    paddle.amp.decorate(other, level='O2', excluded_layers=nn.Conv2D)
    assert other.conv.weight.dtype == 'float32' and other.fc.weight.dtype == 'float16'
    with pytest.raises(ValueError, match='level'):
        paddle.amp.decorate(net, level='O3')
    with pytest.raises(TypeError):
        paddle.amp.decorate(net, level='O2', excluded_layers=['fc'])


def test_o2_trains_with_float32_master_weights():
    net = nn.Linear(3, 2)
    w32 = net.weight.numpy().copy()
    opt = paddle.optimizer.SGD(learning_rate=1e-4, parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level='O2')
    x = paddle.rand([4, 3])
    # the master weight starts from the decorated (float16) parameter, as Paddle's
    master = w32.astype(np.float16).astype(np.float32)
    for _ in range(5):
        with paddle.amp.auto_cast(level='O2'):
            loss = net(x).astype('float32').sum()
        loss.backward()
        g = net.weight.grad.numpy()
        assert g.dtype == np.float16
        master = master - np.float32(1e-4) * g.astype(np.float32)
        opt.step()
        opt.clear_grad()
    state = opt.state_dict()
    np.testing.assert_allclose(state['master_weights'][net.weight.name].numpy(), master,
                               rtol=1e-6)
    np.testing.assert_array_equal(net.weight.numpy(), master.astype(np.float16))
    assert net.weight.dtype == 'float16'


def test_master_weights_keep_updates_half_precision_rounds_away():
    def train(master_weight):
        p = paddle.create_parameter([1], 'float32',
                                    default_initializer=nn.initializer.Constant(1.0))
        opt = paddle.optimizer.SGD(learning_rate=1e-4, parameters=[p])
        p.data = p.data.astype(np.float16)
        opt._multi_precision = master_weight
        for _ in range(20):
            (p.astype('float32') * 1.0).sum().backward()
            opt.step()
            opt.clear_grad()
        return float(p.numpy()[0])
    assert train(True) == float(np.float16(1.0 - 20 * 1e-4))
    assert train(False) == 1.0     # each 1e-4 step rounds back to 1.0 in float16


def test_master_weights_round_trip_through_state_dict():
    net = nn.Linear(2, 2)
    opt = paddle.optimizer.Adam(parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level='O2')
    with paddle.amp.auto_cast(level='O2'):
        net(paddle.rand([3, 2])).astype('float32').sum().backward()
    opt.step()
    state = {k: v for k, v in opt.state_dict().items()}
    net2 = nn.Linear(2, 2)
    opt2 = paddle.optimizer.Adam(parameters=net2.parameters())
    net2, opt2 = paddle.amp.decorate(net2, opt2, level='O2')
    net2.set_state_dict(net.state_dict())
    opt2.set_state_dict(state)
    x = paddle.rand([3, 2])
    for model, o in ((net, opt), (net2, opt2)):
        with paddle.amp.auto_cast(level='O2'):
            model(x).astype('float32').sum().backward()
        o.step()
    np.testing.assert_array_equal(net.weight.numpy(), net2.weight.numpy())


def test_master_grad_gives_float32_gradients():
    net = nn.Linear(3, 2)
    opt = paddle.optimizer.SGD(parameters=net.parameters())
    net, opt = paddle.amp.decorate(net, opt, level='O2', master_grad=True)
    try:
        with paddle.amp.auto_cast(level='O2'):
            loss = net(paddle.rand([2, 3])).astype('float32').sum()
        loss.backward()
        assert net.weight.grad.dtype == 'float32' and net.weight.dtype == 'float16'
        opt.step()
    finally:
        from framework.amp.state import amp_global_state
        amp_global_state().use_master_grad = False
        amp_global_state().model_parameters = []


def test_save_dtype_changes_the_state_dict_only():
    net = nn.Linear(2, 2)
    paddle.amp.decorate(net, level='O2', save_dtype='float32')
    assert net.weight.dtype == 'float16'
    assert all(v.dtype == 'float32' for v in net.state_dict().values())


# ---- GradScaler --------------------------------------------------------------------------

def _overflowing_step(scaler, model, opt, big):
    with paddle.amp.auto_cast():
        loss = model(paddle.full([1, 2], big)).astype('float32').sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.clear_grad()


def test_grad_scaler_scales_and_unscales():
    model = nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=256.0)
    x = paddle.rand([4, 2])
    with paddle.amp.auto_cast():
        loss = model(x).astype('float32').mean()
    scaled = scaler.scale(loss)
    np.testing.assert_allclose(scaled.numpy(), loss.numpy() * 256)
    scaled.backward()
    scaled_grad = model.weight.grad.numpy().copy()
    scaler.unscale_(opt)
    np.testing.assert_allclose(model.weight.grad.numpy(), scaled_grad / 256, rtol=1e-6)
    with pytest.raises(RuntimeError, match='unscale_'):
        scaler.unscale_(opt)
    w = model.weight.numpy().copy()
    scaler.step(opt)
    np.testing.assert_allclose(model.weight.numpy(), w - 0.5 * scaled_grad / 256, rtol=1e-6)
    with pytest.raises(RuntimeError, match='step'):
        scaler.step(opt)
    scaler.update()


def test_grad_scaler_skips_overflowing_steps_and_adjusts_the_scale():
    model = nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=2.0 ** 15, incr_every_n_steps=2,
                                   decr_every_n_nan_or_inf=1)
    w = model.weight.numpy().copy()
    _overflowing_step(scaler, model, opt, 60000.0)     # float16 overflow: skipped
    np.testing.assert_array_equal(model.weight.numpy(), w)
    assert float(scaler._scale) == 2.0 ** 14
    assert scaler.state_dict()['decr_count'] == 0
    _overflowing_step(scaler, model, opt, 1.0)
    assert float(scaler._scale) == 2.0 ** 14 and scaler.state_dict()['incr_count'] == 1
    assert not np.array_equal(model.weight.numpy(), w)
    _overflowing_step(scaler, model, opt, 1.0)
    assert float(scaler._scale) == 2.0 ** 15 and scaler.state_dict()['incr_count'] == 0


def test_grad_scaler_decreases_after_n_bad_steps_and_minimize():
    model = nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0, decr_every_n_nan_or_inf=2,
                                   decr_ratio=0.25)
    for expected in (1024.0, 256.0, 256.0, 64.0):
        with paddle.amp.auto_cast():
            loss = model(paddle.full([1, 2], np.inf)).astype('float32').sum()
        scaled = scaler.scale(loss)
        scaled.backward()
        assert scaler.minimize(opt, scaled) == (None, None)
        opt.clear_grad()
        assert float(scaler._scale) == expected
    state = scaler.state_dict()
    other = paddle.amp.GradScaler()
    other.load_state_dict(state)
    assert other.state_dict()['decr_ratio'] == 0.25
    np.testing.assert_array_equal(other.state_dict()['scale'], state['scale'])


def test_grad_scaler_settings_and_disabled_scaler():
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024, incr_ratio=3.0, decr_ratio=0.1,
                                   incr_every_n_steps=7, decr_every_n_nan_or_inf=3)
    assert scaler.is_enable() and scaler.is_use_dynamic_loss_scaling()
    assert scaler.get_init_loss_scaling() == 1024 and scaler.get_incr_ratio() == 3.0
    assert scaler.get_decr_ratio() == 0.1 and scaler.get_incr_every_n_steps() == 7
    assert scaler.get_decr_every_n_nan_or_inf() == 3
    scaler.set_init_loss_scaling(8)
    assert float(scaler._scale) == 8.0
    with pytest.raises(ValueError):
        scaler.set_incr_ratio(0.5)
    with pytest.raises(ValueError):
        paddle.amp.GradScaler(decr_ratio=2.0)
    off = paddle.amp.GradScaler(enable=False)
    loss = paddle.to_tensor(3.0)
    assert off.scale(loss) is loss and off.state_dict() == {}


@pytest.mark.skipif(not paddle.amp.is_bfloat16_supported(), reason='bfloat16 needs ml_dtypes')
def test_grad_scaler_turns_off_for_bfloat16():
    linear = nn.Linear(2, 2)
    scaler = paddle.amp.GradScaler()
    with paddle.amp.auto_cast(dtype='bfloat16'):
        loss = linear(paddle.rand([2, 2])).astype('float32').sum()
    with pytest.warns(UserWarning, match='bfloat16'):
        scaled = scaler.scale(loss)
    assert scaled is loss and not scaler.is_enable()
    with paddle.amp.auto_cast():   # amp_dtype back to float16 for later tests
        pass


# ---- bfloat16 without ml_dtypes ------------------------------------------------------

def test_bfloat16_without_ml_dtypes_names_the_package(monkeypatch):
    monkeypatch.setitem(sys.modules, 'ml_dtypes', None)
    monkeypatch.setattr(_dt, '_bfloat16', [])
    with pytest.raises(ImportError, match='pip install ml_dtypes'):
        with paddle.amp.auto_cast(dtype='bfloat16'):
            pass
    with pytest.raises(ImportError, match='pip install ml_dtypes'):
        paddle.ones([2], dtype='bfloat16')
    assert not paddle.amp.is_bfloat16_supported()
    assert paddle.amp.is_float16_supported()


def test_auto_cast_is_per_thread():
    """A DataLoader worker thread keeps its dtypes while the training loop auto-casts."""
    import threading
    linear = nn.Linear(3, 3)
    x = paddle.rand([2, 3])
    seen = []
    with paddle.amp.auto_cast():
        worker = threading.Thread(target=lambda: seen.append(linear(x).dtype.name))
        worker.start()
        worker.join()
        assert linear(x).dtype == 'float16'
    assert seen == ['float32']


def test_ops_dispatch_without_autocast_check_while_no_region_is_open():
    """Eager dispatch pays nothing for AMP outside auto_cast: OpDef.__call__ is
    the plain one, swapped for the autocasting one only while a region is open
    (nested, suspended or left by an exception)."""
    from framework.ops import registry
    plain = registry.OpDef.__call__
    x = paddle.rand([2, 3])
    with paddle.amp.auto_cast():
        assert registry.OpDef.__call__ is not plain
        with paddle.amp.auto_cast(custom_white_list={'elementwise_add'}):
            assert (x + x).dtype == 'float16'
        assert registry.OpDef.__call__ is not plain
        with registry.autocast_suspended():
            assert (x * x).dtype == 'float32'
    assert registry.OpDef.__call__ is plain
    with pytest.raises(ZeroDivisionError):
        with paddle.amp.auto_cast():
            1 / 0
    assert registry.OpDef.__call__ is plain
    assert (x + x).dtype == 'float32'


# ---- Paddle's CPU semantics: float16 AMP is a no-op (the default) ---------------------

CPU_NO_EFFECT = 'current place is Place\\(cpu\\), so it makes no effect'


def _train_losses(amp, steps=4):
    """Losses of a small classifier trained with the float16 AMP recipe
    (auto_cast + decorate + GradScaler) or without any of it."""
    paddle.seed(7)
    net = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
    opt = paddle.optimizer.Adam(0.01, parameters=net.parameters())
    scaler = None
    if amp:
        net, opt = paddle.amp.decorate(net, opt, level='O2')
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    x = paddle.to_tensor(np.random.RandomState(0).standard_normal((5, 6)).astype('float32'))
    label = paddle.to_tensor(np.array([0, 1, 2, 1, 0]))
    losses = []
    for _ in range(steps):
        with paddle.amp.auto_cast(enable=amp, level='O2'):
            loss = F.cross_entropy(net(x), label)
        if amp:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, net


def test_cpu_float16_auto_cast_is_a_no_op_with_paddles_warning(cpu_float16):
    cpu_float16(False)
    assert not paddle.amp.is_float16_supported()
    linear = nn.Linear(4, 3)
    x = paddle.rand([2, 4])
    with pytest.warns(UserWarning, match=CPU_NO_EFFECT):
        with paddle.amp.auto_cast():
            assert not paddle.amp.is_autocast_enabled()
            y = linear(x)
    assert y.dtype == 'float32'
    np.testing.assert_array_equal(y.numpy(), linear(x).numpy())

    @paddle.jit.to_static
    def f(a):
        with paddle.amp.auto_cast(level='O2'):
            return linear(a)
    with pytest.warns(UserWarning, match=CPU_NO_EFFECT):
        assert f(x).dtype == 'float32'


def test_cpu_float16_off_leaves_bfloat16_real(cpu_float16):
    cpu_float16(False)
    linear = nn.Linear(4, 3)
    with paddle.amp.auto_cast(dtype='bfloat16'):
        assert paddle.amp.is_autocast_enabled()
        y = linear(paddle.rand([2, 4]))
    assert y.dtype == 'bfloat16'
    net = paddle.amp.decorate(nn.Linear(2, 2), level='O2', dtype='bfloat16')
    assert net.weight.dtype == 'bfloat16'


def test_cpu_grad_scaler_is_off_with_paddles_warning(cpu_float16):
    cpu_float16(False)
    with pytest.warns(UserWarning, match='AmpScaler can only be enabled on CUDAPlace'):
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    assert not scaler.is_enable() and scaler._scale is None
    assert scaler.get_init_loss_scaling() == 1.0 and scaler.state_dict() == {}
    linear = nn.Linear(2, 1)
    opt = paddle.optimizer.SGD(0.5, parameters=linear.parameters())
    w = linear.weight.numpy().copy()
    loss = linear(paddle.ones([3, 2])).sum()
    assert scaler.scale(loss) is loss
    loss.backward()
    g = linear.weight.grad.numpy().copy()
    scaler.step(opt)             # a plain step: no unscaling, no skipping
    scaler.update()
    np.testing.assert_allclose(linear.weight.numpy(), w - 0.5 * g, rtol=1e-6)


def test_cpu_decorate_float16_returns_its_arguments_untouched(cpu_float16):
    cpu_float16(False)
    net = nn.Linear(2, 2)
    opt = paddle.optimizer.SGD(parameters=net.parameters())
    out_net, out_opt = paddle.amp.decorate(net, opt, level='O2')
    assert out_net is net and out_opt is opt and net.weight.dtype == 'float32'
    assert paddle.amp.decorate([net], level='O2', save_dtype='float16')[0] is net
    assert 'float16' not in str(net.state_dict()['weight'].dtype)


def test_cpu_float16_amp_training_keeps_float32_losses(cpu_float16):
    cpu_float16(False)
    with pytest.warns(UserWarning, match=CPU_NO_EFFECT):
        amp_losses, amp_net = _train_losses(True)
    plain_losses, _ = _train_losses(False)
    assert amp_losses == plain_losses
    assert amp_net[0].weight.dtype == 'float32'
    cpu_float16(True)           # the flag makes the same recipe compute in float16
    half_losses, half_net = _train_losses(True)
    assert half_net[0].weight.dtype == 'float16'
    assert half_losses != plain_losses
    np.testing.assert_allclose(half_losses, plain_losses, rtol=2e-2)
