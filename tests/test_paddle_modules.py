"""Modules real Paddle code imports by path: paddle.utils, paddle.tensor,
paddle.base (with core / framework) and the 1.x inference names."""
import os
import warnings

import numpy as np
import pytest

import framework as paddle
from framework.static import InputSpec


def test_utils_structures():
    from framework.utils import flatten, map_structure, pack_sequence_as
    nest = {'b': [1, (2, 3)], 'a': 4}
    assert flatten(nest) == [4, 1, 2, 3]                     # dicts in key order
    assert pack_sequence_as(nest, [40, 10, 20, 30]) == {'a': 40, 'b': [10, (20, 30)]}
    assert map_structure(lambda x, y: x * y, [1, (2,)], [3, (4,)]) == [3, (8,)]
    with pytest.raises(ValueError, match='leaves'):
        pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError, match='structure 1'):
        map_structure(lambda a, b: a, [1, 2], [1])


def test_utils_gast_is_the_gast_package():
    import gast
    from framework.utils import gast as g
    assert g is gast


def test_utils_try_import_and_deprecated():
    assert paddle.utils.try_import('json').dumps([1]) == '[1]'
    with pytest.raises(ImportError, match='pip install no_such_pkg_xyz'):
        paddle.utils.try_import('no_such_pkg_xyz')

    @paddle.utils.deprecated(update_to='paddle.new_api', since='2.0')
    def old(x):
        return x + 1

    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter('always')
        assert old(1) == 2
    assert 'paddle.new_api' in str(w[0].message)

    @paddle.utils.deprecated(level=2, reason='gone')
    def removed():
        return 0

    with pytest.raises(RuntimeError, match='gone'):
        removed()


def test_utils_download_is_offline_and_says_where_to_put_the_file(tmp_path, monkeypatch):
    from framework.utils import download
    monkeypatch.setattr(download, 'WEIGHTS_HOME', str(tmp_path))
    url = 'https://example.com/models/lenet.pdparams'
    with pytest.raises(RuntimeError) as e:
        download.get_weights_path_from_url(url)
    assert url in str(e.value) and str(tmp_path / 'lenet.pdparams') in str(e.value)
    (tmp_path / 'lenet.pdparams').write_bytes(b'abc')
    assert download.get_weights_path_from_url(url) == str(tmp_path / 'lenet.pdparams')
    with pytest.raises(RuntimeError, match='md5'):
        download.get_weights_path_from_url(url, md5sum='0' * 32)


def test_utils_require_version_and_unique_name():
    paddle.utils.require_version('0.0.1')
    with pytest.raises(Exception, match='needs 99'):
        paddle.utils.require_version('99.0')
    with pytest.raises(TypeError):
        paddle.utils.require_version(2)
    with paddle.utils.unique_name.guard():
        a = paddle.utils.unique_name.generate('fc')
    with paddle.utils.unique_name.guard():
        b = paddle.utils.unique_name.generate('fc')
    assert a == b == 'fc_0'


def test_run_check_reports_success(capsys):
    paddle.utils.run_check()
    assert 'installed successfully' in capsys.readouterr().out


def test_tensor_submodules_hold_the_same_functions():
    assert paddle.tensor.math.add is paddle.add
    assert paddle.tensor.manipulation.reshape is paddle.reshape
    assert paddle.tensor.creation.to_tensor is paddle.to_tensor
    assert paddle.tensor.logic.equal is paddle.equal
    assert paddle.tensor.search.argmax is paddle.argmax
    t = paddle.tensor.fill_constant([2], 'int32', 7)
    assert t.dtype.name == 'int32' and t.numpy().tolist() == [7, 7]
    assert paddle.fill_constant is paddle.tensor.fill_constant


@pytest.mark.parametrize('axis', [-1, 1])
def test_elementwise_with_axis(axis):
    x = paddle.to_tensor(np.arange(24, dtype='float32').reshape(2, 3, 4))
    y = paddle.to_tensor(np.array([1.0, 2.0, 3.0], 'float32') if axis == 1 else np.ones(4, 'float32'))
    out = paddle.tensor.math._multiply_with_axis(x, y, axis=axis)
    yb = y.numpy().reshape(1, 3, 1) if axis == 1 else y.numpy()
    np.testing.assert_allclose(out.numpy(), x.numpy() * yb)
    with pytest.raises(ValueError, match='axis=3'):
        paddle.tensor.math._add_with_axis(x, y, axis=3)


def test_base_is_fluid_plus_the_2_6_names():
    assert paddle.base.dygraph is paddle.fluid.dygraph
    assert not paddle.base.is_compiled_with_cuda()
    from framework.base.param_attr import ParamAttr
    assert ParamAttr is paddle.ParamAttr
    from framework.base import core
    assert core.VarDesc.VarType.FP32 == paddle.float32
    assert paddle.to_tensor([1]).dtype == core.VarDesc.VarType.INT64
    assert paddle.base.framework.use_pir_api() is False
    assert paddle.CPUPlace()._equals(paddle.CPUPlace())


def test_to_tensor_rejects_unsupported_types_with_paddles_message():
    for run in (paddle.to_tensor, paddle.jit.to_static(lambda d: paddle.to_tensor(d))):
        with pytest.raises(TypeError, match="Do not support transform type `<class 'dict'>`"):
            run({1: 1})


def test_legacy_analysis_predictor(tmp_path):
    from framework.base.core import AnalysisConfig, create_paddle_predictor
    net = paddle.nn.Linear(3, 2)
    path = os.path.join(str(tmp_path), 'net')
    paddle.jit.save(net, path, input_spec=[InputSpec([None, 3], 'float32', 'x')])
    config = AnalysisConfig(path + '.pdmodel', path + '.pdiparams')
    config.disable_gpu()
    config.switch_specify_input_names(True)
    config.switch_use_feed_fetch_ops(False)
    predictor = create_paddle_predictor(config)
    assert predictor.get_input_tensor_shape() == {'x': [-1, 3]}
    x = np.ones((4, 3), 'float32')
    predictor.get_input_tensor('x').copy_from_cpu(x)
    predictor.zero_copy_run()
    out = predictor.get_output_tensor(predictor.get_output_names()[0]).copy_to_cpu()
    np.testing.assert_allclose(out, net(paddle.to_tensor(x)).numpy(), rtol=1e-6)


def test_framework_module():
    import framework.framework as F
    assert F.use_pir_api() is False and F.in_dynamic_mode()
    assert F.Program is paddle.static.Program and F.random is paddle.random
    main = paddle.static.Program()
    prev = F.switch_main_program(main)
    try:
        assert paddle.static.default_main_program() is main
        F.random._manual_program_seed(7)
        assert main.random_seed == 7
    finally:
        F.switch_main_program(prev)

    @F.dygraph_only
    def eager_only():
        return 1

    assert eager_only() == 1
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match='dynamic mode'):
            eager_only()
    finally:
        paddle.disable_static()


def test_dataloader_from_generator():
    def samples():
        for i in range(5):
            yield [i, i + 1], [float(i)]

    loader = paddle.io.DataLoader.from_generator(capacity=4)
    loader.set_sample_generator(samples, batch_size=2, drop_last=False)
    batches = list(loader())
    assert [b[0].shape for b in batches] == [[2, 2], [2, 2], [1, 2]]
    assert batches[0][0].dtype.name == 'int64' and batches[0][1].dtype.name == 'float32'

    def sample_lists():
        yield [([1, 2], [0]), ([3, 4], [1])]

    loader = paddle.fluid.io.DataLoader.from_generator(capacity=2)
    loader.set_sample_list_generator(sample_lists)
    (ids, labels), = list(loader)
    assert ids.numpy().tolist() == [[1, 2], [3, 4]] and labels.shape == [2, 1]
    with pytest.raises(RuntimeError, match='set a generator'):
        list(paddle.io.DataLoader.from_generator())


def test_static_accuracy_is_the_metric():
    pred = paddle.to_tensor([[0.1, 0.9], [0.8, 0.2]])
    label = paddle.to_tensor([[1], [1]])
    assert float(paddle.static.accuracy(pred, label)) == 0.5


def test_amp_on_the_cpu_is_paddles_float16_no_op_and_real_bfloat16():
    """Paddle's CPU AMP: float16 auto_cast and GradScaler do nothing (a warning
    each), bfloat16 computes (tests/test_amp.py has the details)."""
    net = paddle.nn.Linear(3, 2)
    opt = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    x = paddle.ones([4, 3])
    with pytest.warns(UserWarning, match='AmpScaler can only be enabled'):
        scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    with pytest.warns(UserWarning, match='amp_guard can only be enabled'):
        with paddle.amp.auto_cast(level='O1'):
            out = net(x)
            loss = out.mean()
    assert out.dtype.name == 'float32'
    scaled = scaler.scale(loss)
    assert scaled is loss
    w0 = net.weight.numpy().copy()
    scaled.backward()
    grad = net.weight.grad.numpy()
    scaler.minimize(opt, scaled)
    np.testing.assert_allclose(net.weight.numpy(), w0 - 0.1 * grad, rtol=1e-6)
    assert not paddle.amp.is_float16_supported()
    with paddle.amp.auto_cast(dtype='bfloat16'):
        assert net(x).dtype.name == 'bfloat16'
