"""Paddle behaviours added in the fourth conformance round: dtypes that print
as Paddle's, LazyGuard, pir_utils, static fc over several inputs, Sequential.extend,
InputSpec.batch, the reprs Paddle's examples print."""
import copy
import pickle

import numpy as np
import pytest

import framework as paddle
from framework import nn
from framework.static import InputSpec


# ---- dtypes ----------------------------------------------------------------------------

def test_tensor_dtype_prints_as_paddle_and_equals_every_spelling():
    x = paddle.to_tensor([1.0, 2.0])
    d = x.dtype
    assert str(d) == repr(d) == 'paddle.float32' and d is paddle.float32
    for same in ('float32', 'paddle.float32', np.float32, np.dtype('float32'), paddle.float32):
        assert d == same and not d != same
    for other in ('float64', np.int64, paddle.int32, 'not a dtype', None, 3):
        assert d != other
    assert {np.dtype('float32'): 1}[d] == 1 and {d: 1}[np.dtype('float32')] == 1
    assert d.name == 'float32' and d.itemsize == 4 and d.kind == 'f'
    with pytest.raises(AttributeError, match="'paddle.dtype' object has no attribute 'shape'"):
        d.shape


def test_numpy_and_the_framework_take_public_dtypes():
    d = paddle.int64
    assert np.zeros(2, d).dtype == np.int64 and np.ones(2).astype(d).dtype == np.int64
    assert paddle.zeros([2], dtype=d).dtype == paddle.int64
    assert paddle.cast(paddle.ones([2]), paddle.float64).dtype == 'float64'
    assert copy.deepcopy(d) is d and pickle.loads(pickle.dumps(d)) is d
    assert paddle.framework.convert_np_dtype_to_dtype_(np.float16) is paddle.float16
    assert paddle.base.core.VarDesc.VarType.FP32 == paddle.to_tensor(1.0).dtype


def test_tensor_type_prints_as_paddles_enum():
    t = paddle.to_tensor(1.0).type
    assert str(t) == 'VarType.DENSE_TENSOR' and t == 'DENSE_TENSOR'
    assert t == paddle.base.core.VarDesc.VarType.DENSE_TENSOR


# ---- layers ------------------------------------------------------------------------------

def test_lazy_guard_defers_initializers_until_initialize():
    init = nn.initializer.Constant(2.5)
    with paddle.LazyGuard():
        net = nn.Linear(3, 2, weight_attr=paddle.ParamAttr(initializer=init))
    np.testing.assert_array_equal(net.weight.numpy(), np.zeros((3, 2)))
    net.weight.initialize()
    np.testing.assert_array_equal(net.weight.numpy(), np.full((3, 2), 2.5))
    with pytest.raises(RuntimeError, match='was not created under paddle.LazyGuard'):
        net.weight.initialize()
    eager = nn.Linear(3, 2, weight_attr=paddle.ParamAttr(initializer=init))
    np.testing.assert_array_equal(eager.weight.numpy(), np.full((3, 2), 2.5))


def test_sequential_extend_appends_in_order():
    seq = nn.Sequential(nn.Linear(2, 3))
    seq.extend([nn.ReLU(), nn.Linear(3, 4)])
    assert [type(m).__name__ for m in seq] == ['Linear', 'ReLU', 'Linear']
    assert seq(paddle.ones([1, 2])).shape == [1, 4]
    with pytest.raises(TypeError, match='Sequential.extend: every item must be a Layer'):
        seq.extend([nn.ReLU(), 3])
    assert len(seq) == 3


def test_layer_reprs_as_paddle():
    assert repr(nn.Dropout(0.5)) == 'Dropout(p=0.5, axis=None, mode=upscale_in_train, inplace=False)'
    lin = nn.Linear(1, 1)
    assert 'dtype=float32)' in repr(lin)
    lin.float()
    assert 'dtype=paddle.float32)' in repr(lin)
    lin.astype('float64')
    assert lin.weight.dtype == 'float64' and 'dtype=paddle.float64)' in repr(lin)
    lin.to(dtype='float32')
    assert 'dtype=float32)' in repr(lin)
    params = nn.ParameterList([paddle.create_parameter([2], 'float32')])
    assert repr(params) == 'ParameterList()'


def test_format_of_a_0d_tensor_is_its_number():
    t = paddle.to_tensor(2.5)
    assert '{}'.format(t) == '2.5' and '{:.3f}'.format(t) == '2.500'
    assert '{}'.format(paddle.to_tensor([2.5])).startswith('Tensor(')


# ---- static ----------------------------------------------------------------------------

def test_static_fc_sums_a_weight_per_input():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x0 = paddle.static.data('x0', [1, 2, 2], 'float32')
            x1 = paddle.static.data('x1', [1, 1, 3], 'float32')
            out = paddle.static.nn.fc([x0, x1], size=2, weight_attr=paddle.ParamAttr(
                initializer=nn.initializer.Constant(0.5)), bias_attr=paddle.ParamAttr(
                initializer=nn.initializer.Constant(1.0)))
        exe = paddle.static.Executor()
        exe.run(start)
        a, b = np.arange(4.).reshape(1, 2, 2), np.arange(3.).reshape(1, 1, 3) + 1
        res, = exe.run(main, feed={'x0': a.astype('float32'), 'x1': b.astype('float32')},
                       fetch_list=[out])
        np.testing.assert_allclose(res, np.full((1, 2), 0.5 * a.sum() + 0.5 * b.sum() + 1.0))
    finally:
        paddle.disable_static()


def test_pir_guards_change_only_the_ir_queries():
    from framework.framework import in_dynamic_or_pir_mode, in_pir_mode
    assert not in_pir_mode() and in_dynamic_or_pir_mode()
    paddle.enable_static()
    try:
        assert not in_pir_mode() and not in_dynamic_or_pir_mode()
        with paddle.pir_utils.IrGuard():
            assert in_pir_mode() and in_dynamic_or_pir_mode()
            with paddle.pir_utils.OldIrGuard():
                assert not in_pir_mode()
            assert in_pir_mode()
        assert not in_pir_mode()
    finally:
        paddle.disable_static()
    seen = []
    paddle.pir_utils.test_with_pir_api(lambda: seen.append(paddle.base.framework.use_pir_api()))()
    assert seen == [False, True]


def test_input_spec_batch_and_unbatch_change_the_spec():
    spec = InputSpec([64], 'float32', 'x')
    assert spec.batch(4) is spec and spec.shape == (4, 64)
    assert repr(spec) == 'InputSpec(shape=(4, 64), dtype=paddle.float32, name=x, stop_gradient=False)'
    assert spec.unbatch() is spec and spec.shape == (64,)
    assert InputSpec([None, 3]).batch(None).shape == (-1, -1, 3)
    with pytest.raises(ValueError, match='InputSpec.unbatch: the spec is 0-D'):
        InputSpec([]).unbatch()


def test_array_length_is_an_int_eagerly():
    arr = paddle.tensor.create_array('float32', [paddle.ones([2])])
    assert paddle.tensor.array_length(arr) == 1 and isinstance(paddle.tensor.array_length(arr), int)


# ---- auto-parallel names on one process -------------------------------------------------

def test_process_mesh_and_placements():
    import framework.distributed as dist
    mesh = dist.ProcessMesh([[2, 4, 5], [0, 1, 3]], dim_names=['x', 'y'])
    assert mesh.shape == [2, 3] and mesh.process_ids == [2, 4, 5, 0, 1, 3] and mesh.ndim == 2
    assert mesh.get_dim_size('y') == 3 and mesh.coordinate(1) == [1, 1]
    assert mesh['y'].process_ids == [2, 0, 4, 1, 5, 3] and mesh['y'].dim_names == ['y', 'x']
    assert mesh[0].process_ids == [2, 4, 5] and mesh[0].dim_names == ['y']
    assert repr(mesh) == '{shape: [2,3], process_ids: [2,4,5,0,1,3], dim_names: [x,y]}'
    assert dist.ProcessMesh([0, 1]).dim_names == ['d0']
    with pytest.raises(ValueError, match='process ids must be unique'):
        dist.ProcessMesh([0, 0])
    kinds = [(p.is_replicated(), p.is_shard(), p.is_partial())
             for p in (dist.Replicate(), dist.Shard(0), dist.Partial())]
    assert kinds == [(True, False, False), (False, True, False), (False, False, True)]
    assert dist.Shard(1) == dist.Shard(1) and dist.Shard(1) != dist.Shard(0)
    assert repr(dist.Partial(dist.ReduceType.kRedMax)) == 'Partial(reduce_type=MAX)'
    assert dist.Shard(1).is_shard(1) and not dist.Shard(1).is_shard(0)


def test_distributed_tensors_hold_the_global_value_and_differentiate():
    import framework.distributed as dist
    mesh = dist.ProcessMesh([0, 1], dim_names=['x'])
    x = paddle.arange(8, dtype='float32').reshape([4, 2])
    x.stop_gradient = False
    d = dist.shard_tensor(x, mesh, [dist.Shard(0)])
    assert d.is_dist() and not x.is_dist() and d.process_mesh == mesh
    assert d.placements == [dist.Shard(0)] and x.process_mesh is None
    assert d._local_value().numpy().tolist() == [[0.0, 1.0], [2.0, 3.0]]   # rank 0's half
    (d * d).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * x.numpy())
    r = dist.reshard(d, mesh, [dist.Replicate()])
    assert r._local_value().shape == [4, 2] and r.placements == [dist.Replicate()]
    assert not dist.unshard_dtensor(r).is_dist()
    shown = repr(dist.dtensor_from_fn(paddle.ones, mesh, [dist.Replicate()], shape=[1]))
    assert shown == ('Tensor(shape=[1], dtype=float32, place=Place(cpu), stop_gradient=True, '
                     'process_mesh={shape: [2], process_ids: [0,1], dim_names: [x]}, '
                     'placements=[Replicate()], GlobalDenseTensor=\n       [1.])')
    with pytest.raises(ValueError, match='shard_tensor: need one placement per mesh dim'):
        dist.shard_tensor(x, mesh, [])
    with pytest.raises(ValueError, match='Shard\\(dim=2\\) for a tensor of shape \\[4, 2\\]'):
        dist.shard_tensor(x, mesh, [dist.Shard(2)])
    off_mesh = dist.shard_tensor(x, dist.ProcessMesh([3, 4]), [dist.Shard(0)])
    assert off_mesh._local_value().shape == [0, 0]


def test_strategy_sections_and_shard_layer():
    import framework.distributed as dist
    s = dist.Strategy({'amp': {'enable': True}})
    assert s.amp.enable and s.sharding.stage == 1 and s.pipeline.schedule_mode == '1F1B'
    s.gradient_merge.k_steps = 4
    assert s.gradient_merge.k_steps == 4 and not s.gradient_merge.enable
    with pytest.raises(ValueError, match='Strategy: unknown section'):
        dist.Strategy({'nope': {}})
    mesh = dist.ProcessMesh([0, 1], dim_names=['x'])
    net = dist.shard_layer(nn.Linear(2, 2), mesh,
                           lambda name, layer, m: setattr(layer, 'weight', dist.shard_tensor(
                               layer.weight, m, [dist.Shard(1)])) if name == '' else None)
    assert net.weight.placements == [dist.Shard(1)] and net.bias.placements == [dist.Replicate()]
    assert net(paddle.ones([1, 2])).shape == [1, 2]


def test_setting_grad_copies_into_the_gradient_as_paddle():
    x = paddle.to_tensor(1.0, stop_gradient=False)
    (x ** 2).backward()
    value = paddle.to_tensor(3.0)
    x.grad = value
    assert x.grad is not value and x.grad.stop_gradient is False     # the gradient's flags
    assert float(x.grad) == 3.0
    fresh = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    fresh.grad = paddle.to_tensor([3.0, 4.0])
    assert fresh.grad.stop_gradient is True                            # a first one: the value's
    with pytest.raises(RuntimeError, match='Tensor Copy cannot be performed'):
        fresh.grad = paddle.to_tensor([1, 2])
    with pytest.raises(TypeError, match='Tensor.grad must be set to a Tensor or None'):
        fresh.grad = [1.0, 2.0]
    fresh.grad = None
    assert fresh.grad is None


def test_round_takes_halves_to_even_as_paddle_on_cpu():
    x = paddle.to_tensor([-0.5, -0.2, 0.6, 1.5, 2.5])
    assert paddle.round(x).numpy().tolist() == [-0.0, -0.0, 1.0, 2.0, 2.0]
    assert x.round().numpy().tolist() == [-0.0, -0.0, 1.0, 2.0, 2.0]


def test_set_takes_the_sources_memory_and_summary_passes_input_as_one_argument():
    src = paddle.to_tensor([[11.0, 22.0, 33.0]])
    x = paddle.to_tensor([1.0, 2.0])
    assert x.set_(src) is x and x.shape == [1, 3] and x._is_shared_buffer_with(src)
    assert not paddle.to_tensor([1.0])._is_shared_buffer_with(src)
    assert x.set_().shape == [0] and not x._is_shared_buffer_with(src)

    class TwoInputs(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = paddle.nn.Linear(4, 2)

        def forward(self, inputs):            # one argument holding both, as Paddle calls it
            return self.fc(inputs['a'] + inputs['b'][0])
    info = paddle.summary(TwoInputs(), input={'a': paddle.ones([1, 4]), 'b': [paddle.ones([4])]})
    assert info['total_params'] == 10


def test_underscore_tensor_methods_real_code_calls():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]], stop_gradient=False)
    assert x._to() is x and x._to(dtype='float64').dtype == paddle.float64
    assert x._to('cpu').stop_gradient is False
    copy = x._copy_to(paddle.CPUPlace(), True)
    assert copy is not x and copy.stop_gradient and copy.numpy().tolist() == x.numpy().tolist()
    assert x._numel() == 4 and x._slice(1, 2).numpy().tolist() == [[3.0, 4.0]]
    assert x._md5sum() == 'b4ad64bc24f643726bddf5606af738da'      # Paddle 3.3.1's digest
    version = x._inplace_version()
    x._bump_inplace_version()
    assert x._inplace_version() == version + 1
    hook = x._register_grad_hook(lambda g: g * 3)
    (x * 2).sum().backward()
    assert x._grad_ivar() is x.grad and x.grad.numpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert x._remove_grad_hook(hook) is True and x._remove_grad_hook(hook) is False
    x._zero_grads()
    assert x.grad.numpy().tolist() == [[0.0, 0.0], [0.0, 0.0]] and x.grad.stop_gradient is False
    assert x._place_str == 'Place(cpu)' and x._grad_name() == x.name + '@GRAD'
    y = paddle.ones([3])
    assert y._is_initialized()
    y._clear_data()
    assert not y._is_initialized()
    assert paddle.ones([2]).bfloat16().dtype == paddle.bfloat16


def test_device_module_helpers_real_code_calls():
    d = paddle.device
    assert str(d._convert_to_place('cpu')) == 'Place(cpu)'
    assert d.current_device_is_cpu == 1 and d.dev_types == []
    assert d.get_device_module() is d.cpu and d.get_device_module('cpu:0') is d.cpu
    assert d.get_device_module('gpu:0') is paddle.cuda and d.get_device_module('xpu') is d.xpu
    with pytest.raises(RuntimeError, match='no device module'):
        d.get_device_module('npu')
    assert d.cpu.device_count() == 0 and d.cpu.max_memory_allocated() == 0
    state = d.cpu.get_rng_state()
    first = paddle.rand([3]).numpy()
    d.cpu.set_rng_state(state)
    np.testing.assert_array_equal(paddle.rand([3]).numpy(), first)


def test_a_param_attr_name_used_again_in_a_static_program_shares_the_parameter():
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data('x', [2, 3], 'float32')
            y = paddle.static.nn.fc(x, 3, weight_attr=paddle.ParamAttr(name='shared_w'))
            z = paddle.static.nn.fc(y, 3, weight_attr=paddle.ParamAttr(name='shared_w'))
            loss = paddle.mean(z)
            paddle.optimizer.SGD(0.5).minimize(loss)
            with pytest.raises(ValueError, match="variable named 'shared_w'.*cannot share it"):
                paddle.static.nn.fc(x, 4, weight_attr=paddle.ParamAttr(name='shared_w'))
        assert [p.name for p in main.all_parameters()].count('shared_w') == 1
        exe = paddle.static.Executor()
        exe.run(start)
        scope = paddle.static.global_scope()
        w0 = np.array(scope.find_var('shared_w').get_tensor())
        feed = {'x': np.ones([2, 3], 'float32')}
        b0 = [np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()
              if p.name != 'shared_w']
        exe.run(main, feed=feed, fetch_list=[loss])
        # one weight: the update is the sum of both uses' gradients
        h = feed['x'] @ w0 + b0[0]
        g_out = np.full((2, 3), 1.0 / 6, 'float32')
        grad = feed['x'].T @ (g_out @ w0.T) + h.T @ g_out
        np.testing.assert_allclose(np.array(scope.find_var('shared_w').get_tensor()),
                                   w0 - 0.5 * grad, rtol=1e-5, atol=1e-6)
    finally:
        paddle.disable_static()


def test_top_level_names_of_paddle_3():
    F = paddle.nn.functional
    assert paddle.conv2d is F.conv2d and paddle.layer_norm is F.layer_norm
    assert paddle.group_norm is F.group_norm and paddle.adaptive_avg_pool1d is F.adaptive_avg_pool1d
    assert paddle.conv1d is F.conv1d and paddle.conv3d is F.conv3d
    assert not paddle.is_autocast_enabled() and paddle.get_autocast_dtype() == 'float16'
    with paddle.autocast('cpu', dtype='bfloat16'):
        assert paddle.is_autocast_enabled() and paddle.get_autocast_cpu_dtype() == 'bfloat16'
    assert paddle.uint16 == paddle.bfloat16          # Paddle's uint16 names its bfloat16
    with pytest.raises(RuntimeError, match='XPUPinnedPlace: pinned memory needs an XPU build'):
        paddle.XPUPinnedPlace()
    assert paddle.BFloat16Tensor is paddle.device.BFloat16Tensor


def test_sparse_methods_on_a_dense_tensor_say_how_to_get_a_sparse_one():
    x = paddle.ones([2, 2])
    for name in ('coalesce', 'indices', 'values', 'nnz', 'crows', 'cols', 'is_coalesced'):
        with pytest.raises(TypeError, match=r'Tensor\.%s\(\) is only for .*this tensor is dense'
                                            % name):
            getattr(x, name)()
    coo = x.to_sparse_coo(2)
    assert coo.nnz() == 4 and coo.indices().shape == [2, 4] and x.to_sparse_csr().cols().shape == [4]


def test_a_dense_tensor_prints_as_paddle_and_reconstruct_from_takes_the_flags():
    held = paddle.to_tensor([[1.5, 2.25], [3.0, 123456.789]]).get_tensor()
    assert str(held) == ('  - shape: [2, 2]\n  - layout: NCHW\n  - place: Place(cpu)\n'
                         '  - dtype: float32\n  - data: [1.5 2.25 3 123457]')
    assert str(paddle.to_tensor([True, False]).get_tensor()).endswith('dtype: bool\n  - data: [1 0]')
    assert str(paddle.to_tensor([1, 2]).get_tensor()).endswith('int64\n  - data: [1 2]')
    t1 = paddle.to_tensor([1.0], stop_gradient=False)
    assert t1.reconstruct_from_(paddle.to_tensor([2.0])) is None
    assert t1.stop_gradient and t1.numpy().tolist() == [2.0]


def test_create_tensor_makes_a_0d_tensor_to_fill_later():
    t = paddle.tensor.create_tensor(dtype='float32', name='to_fill')
    assert t.shape == [] and t.dtype == paddle.float32 and t.name == 'to_fill'
    paddle.assign(paddle.ones([2]), output=t)
    assert t.numpy().tolist() == [1.0, 1.0]
    assert paddle.tensor.create_tensor('int64', persistable=True).persistable
