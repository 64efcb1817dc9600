"""The oneDNN backend: its binding against the library, the choice of
backend, what plans and caches depend on, threads, and the fallback.

The ops' oneDNN kernels against their numpy kernels on every registry case
are in test_op_properties.py (``test_backend_kernels_match_numpy``).
"""
import ctypes
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import framework as paddle
from framework.backends import onednn
from framework.ops import backends, registry

pytestmark = pytest.mark.skipif(not onednn.available(), reason="oneDNN did not load: %s"
                                % onednn.why_unavailable())

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def on_numpy():
    """Run the test on numpy, then give the backend back."""
    with backends.using('numpy'):
        yield


@pytest.fixture
def on_onednn():
    with backends.using('onednn'):
        yield


# ---- the binding against the library ----------------------------------------------

def _lib():
    return onednn.runtime().lib


def _named(fn, value):
    return fn(value).decode()


# constants -> the name the library's own *2str function gives the value
_NAMED = {
    'dnnl_status2str': {'SUCCESS': 'success', 'OUT_OF_MEMORY': 'out_of_memory',
                        'INVALID_ARGUMENTS': 'invalid_arguments',
                        'UNIMPLEMENTED': 'unimplemented', 'LAST_IMPL_REACHED': 'last_impl_reached',
                        'RUNTIME_ERROR': 'runtime_error', 'NOT_REQUIRED': 'not_required'},
    'dnnl_dt2str': {'DATA_TYPE_UNDEF': 'undef', 'F16': 'f16', 'BF16': 'bf16', 'F32': 'f32',
                    'S32': 's32', 'S8': 's8', 'U8': 'u8', 'F64': 'f64'},
    'dnnl_fmt_kind2str': {'FORMAT_KIND_ANY': 'any', 'BLOCKED': 'blocked'},
    'dnnl_fmt_tag2str': {'FORMAT_TAG_UNDEF': 'undef', 'FORMAT_TAG_ANY': 'any', 'A': 'a',
                         'AB': 'ab', 'ABC': 'abc', 'ABCD': 'abcd', 'ABCDE': 'abcde',
                         'ACDB': 'acdb', 'ACDEB': 'acdeb',
                         'ABCD8B': 'aBcd8b', 'ABCD16B': 'aBcd16b',
                         # the RNN names are aliases of plain tags
                         'LDIGO': 'abcde', 'LDGOI': 'abdec', 'LDGO': 'abcd', 'LDNC': 'abcd',
                         'TNC': 'abc', 'NTC': 'bac'},
    'dnnl_engine_kind2str': {'CPU': 'cpu'},
    'dnnl_prop_kind2str': {n: n.lower() for n in (
        'FORWARD_TRAINING', 'FORWARD_INFERENCE', 'BACKWARD', 'BACKWARD_DATA',
        'BACKWARD_WEIGHTS', 'BACKWARD_BIAS')},
    'dnnl_prim_kind2str': {n: n.lower() for n in (
        'REORDER', 'CONVOLUTION', 'DECONVOLUTION', 'ELTWISE', 'POOLING', 'BATCH_NORMALIZATION',
        'LAYER_NORMALIZATION', 'SOFTMAX', 'MATMUL', 'RNN', 'BINARY')},
    'dnnl_alg_kind2str': {n: n.lower() for n in (
        'CONVOLUTION_DIRECT', 'CONVOLUTION_AUTO', 'DECONVOLUTION_DIRECT', 'ELTWISE_RELU',
        'ELTWISE_TANH', 'ELTWISE_ELU', 'ELTWISE_LOGISTIC', 'ELTWISE_GELU_ERF',
        'ELTWISE_GELU_TANH', 'ELTWISE_SWISH', 'ELTWISE_HARDSWISH', 'ELTWISE_CLIP', 'ELTWISE_CLIP_V2',
        'ELTWISE_SQUARE', 'ELTWISE_ABS', 'ELTWISE_SQRT', 'ELTWISE_EXP', 'ELTWISE_LOG',
        'ELTWISE_SOFT_RELU', 'ELTWISE_MISH', 'POOLING_MAX', 'POOLING_AVG_INCLUDE_PADDING',
        'POOLING_AVG_EXCLUDE_PADDING', 'SOFTMAX_ACCURATE', 'SOFTMAX_LOG', 'VANILLA_LSTM',
        'VANILLA_GRU', 'LBR_GRU', 'BINARY_ADD', 'BINARY_MUL')},
    'dnnl_scratchpad_mode2str': {'SCRATCHPAD_MODE_LIBRARY': 'library',
                                 'SCRATCHPAD_MODE_USER': 'user'},
    'dnnl_rnn_direction2str': {n: n.lower() for n in (
        'UNIDIRECTIONAL_LEFT2RIGHT', 'UNIDIRECTIONAL_RIGHT2LEFT', 'BIDIRECTIONAL_CONCAT',
        'BIDIRECTIONAL_SUM')},
    'dnnl_rnn_flags2str': {'RNN_FLAGS_UNDEF': 'undef',
                           'RNN_FLAGS_DIFF_WEIGHTS_OVERWRITE': 'rnn_flags_diff_weights_overwrite'},
    'dnnl_fpmath_mode2str': {'FPMATH_MODE_STRICT': 'strict'},
}


@pytest.mark.parametrize('fn', sorted(_NAMED))
def test_enum_constants_are_the_librarys(fn):
    C = onednn.constants
    got = {name: _named(getattr(_lib(), fn), getattr(C, name)) for name in _NAMED[fn]}
    assert got == _NAMED[fn]


def test_the_library_is_the_version_the_binding_follows():
    v = _lib().dnnl_version().contents
    assert (v.major, v.minor) >= onednn.library.VERSION and v.major == 3


def test_each_primitive_the_kernels_make_is_of_its_kind():
    # a descriptor query answers with the kind the create call was for: the
    # create functions' signatures and the propagation/algorithm values agree
    import ctypes
    C = onednn.constants
    rt = onednn.runtime()
    plan = onednn.core.Plan(rt, None, onednn.core.Arena())
    x = rt.desc([1, 2, 5, 5], strides=[50, 25, 5, 1])
    w = rt.desc([3, 2, 3, 3], strides=[18, 9, 3, 1])
    y = rt.desc([1, 3, 3, 3], strides=[27, 9, 3, 1])
    dims = [rt.dims(v) for v in ([1, 1], [0, 0], [0, 0], [0, 0])]
    conv = plan.primitive_desc(_lib().dnnl_convolution_forward_primitive_desc_create, 'conv',
                               C.FORWARD_INFERENCE, C.CONVOLUTION_DIRECT, x.handle, w.handle,
                               None, y.handle, *dims)
    kind = ctypes.c_int()
    _lib().dnnl_primitive_desc_query(conv.handle, C.QUERY_PRIMITIVE_KIND, 0, ctypes.byref(kind))
    assert kind.value == C.CONVOLUTION
    # the source it reads is the descriptor it was given (plain layouts are kept)
    assert plan.same(conv.md(C.QUERY_SRC_MD), x)
    assert not plan.same(conv.md(C.QUERY_SRC_MD), y)


def test_a_failed_call_names_itself_and_the_status():
    rt = onednn.runtime()
    with pytest.raises(onednn.DnnlError, match=r'dnnl_memory_desc_create.*invalid_arguments'):
        rt.desc([2, 3], strides=[-1, 1])


def test_an_unimplemented_call_falls_back_and_is_not_asked_again():
    rt = onednn.runtime()
    calls = []

    def build(plan):
        calls.append(1)
        raise onednn.DnnlError('unimplemented')

    key = ('test-unimplemented', id(calls))
    x = np.zeros(3, np.float32)
    assert rt.run(key, build, x) is False
    assert rt.run(key, build, x) is False
    assert calls == [1]


# ---- choosing the backend ----------------------------------------------------------

def test_onednn_is_the_default_where_it_loads_and_the_flag_says_so():
    code = ("import framework as p; from framework.ops import backends; "
            "print(backends.backend(), p.get_flags('FLAGS_use_mkldnn')['FLAGS_use_mkldnn'])")
    env = dict(os.environ)
    env.pop('FRAMEWORK_BACKEND', None)
    env.pop('FLAGS_use_mkldnn', None)
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.split() == ['onednn', 'True'], out.stderr
    env['FRAMEWORK_BACKEND'] = 'numpy'
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.stdout.split() == ['numpy', 'False'], out.stderr


def test_without_the_library_everything_runs_on_numpy_with_one_message():
    code = "\n".join([
        "import warnings, numpy as np",
        "import framework as p",
        "from framework.ops import backends",
        "print(backends.backend())",
        "with warnings.catch_warnings(record=True) as w:",
        "    warnings.simplefilter('always')",
        "    p.set_flags({'FLAGS_use_mkldnn': True})",
        "    p.set_flags({'FLAGS_use_mkldnn': False})",
        "    p.set_flags({'FLAGS_use_mkldnn': True})",
        "print(backends.backend(), p.get_flags('FLAGS_use_mkldnn')['FLAGS_use_mkldnn'])",
        "print(len(w), w[0].filename, str(w[0].message))",
        "x = p.ones([1, 2, 5, 5]); print(p.nn.functional.conv2d(x, p.ones([3, 2, 3, 3])).shape)",
    ])
    env = dict(os.environ, FRAMEWORK_ONEDNN_LIBRARY='/nonexistent/libdnnl.so.3')
    env.pop('FRAMEWORK_BACKEND', None)
    out = subprocess.run([sys.executable, '-c', code], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=120)
    lines = out.stdout.splitlines()
    assert out.returncode == 0, out.stderr
    assert lines[0] == 'numpy' and lines[1] == 'numpy False'
    # one warning, at the user's own line, saying what happened and why
    assert lines[2].startswith("1 <string> oneDNN kernels are off, ops run on numpy: oneDNN is "
                               "not installed (pip install 'framework[onednn]'")
    assert lines[3] == 'paddle.Size([1, 3, 3, 3])'


def test_asking_for_onednn_in_the_environment_without_it_warns_once_at_import():
    code = ("import warnings; warnings.simplefilter('always')\n"
            "import framework\nfrom framework.ops import backends\nprint(backends.backend())")
    for value, warned in (('1', True), ('true', True), ('on', True), ('', False)):
        env = dict(os.environ, FRAMEWORK_ONEDNN_LIBRARY='/nonexistent/libdnnl.so.3',
                   FLAGS_use_mkldnn=value)
        env.pop('FRAMEWORK_BACKEND', None)
        out = subprocess.run([sys.executable, '-W', 'always', '-c', code], cwd=ROOT, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.stdout.split() == ['numpy'], out.stderr
        assert ('oneDNN kernels are off' in out.stderr) == warned, (value, out.stderr)


def test_set_backend_checks_its_argument():
    with pytest.raises(ValueError, match="set_backend: backend must be one of"):
        backends.set_backend('mkl')


def test_flag_switches_the_kernels(on_onednn):
    conv = registry.lookup('conv')
    assert conv.kernel is conv.kernel_for('onednn') is not conv.kernels['numpy']
    paddle.set_flags({'FLAGS_use_mkldnn': False})
    assert backends.backend() == 'numpy' and conv.kernel is conv.kernels['numpy']
    paddle.set_flags({'FLAGS_use_mkldnn': True})
    assert backends.backend() == 'onednn' and conv.kernel is conv.kernel_for('onednn')
    # ops without a oneDNN kernel keep their numpy one
    add = registry.lookup('add')
    assert add.kernel is add.kernels['numpy']


def _conv_net_step(seed=3):
    paddle.seed(seed)
    net = paddle.nn.Sequential(paddle.nn.Conv2D(2, 4, 3, padding=1), paddle.nn.ReLU(),
                               paddle.nn.Conv2D(4, 3, 3, stride=2, groups=1),
                               paddle.nn.Conv2DTranspose(3, 2, 3, stride=2, output_padding=1))
    x = paddle.to_tensor(np.random.default_rng(seed).standard_normal((2, 2, 9, 9))
                         .astype(np.float32), stop_gradient=False)
    y = net(x)
    (y * y).mean().backward()
    return [y.numpy(), x.grad.numpy()] + [p.grad.numpy() for p in net.parameters()]


def test_eager_results_and_gradients_agree_across_backends():
    before = backends.backend()
    try:
        backends.set_backend('numpy')
        want = _conv_net_step()
        backends.set_backend('onednn')
        got = _conv_net_step()
    finally:
        backends.set_backend(before)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.float32 and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_float64_runs_on_numpy_under_onednn(on_onednn):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 2, 6, 6)), rng.standard_normal((3, 2, 3, 3))
    conv = registry.lookup('conv')
    args = (x, w, None, [1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW')
    assert conv.kernels['onednn'](*args) is NotImplemented
    np.testing.assert_array_equal(conv.kernel(*args), conv.kernels['numpy'](*args))


# ---- what compiled plans depend on --------------------------------------------------

def _static_conv_program():
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        x = paddle.static.data('x', [2, 3, 8, 8], 'float32')
        y = paddle.static.nn.conv2d(x, 4, 3, padding=1)
    return main, start, y


def _binds(plan, kernel):
    """Whether the plan's generated code calls ``kernel``."""
    return any(v is kernel for v in plan.fn.__globals__.values())


def test_an_executor_plan_is_compiled_per_backend():
    paddle.enable_static()
    before = backends.backend()
    try:
        main, start, y = _static_conv_program()
        exe = paddle.static.Executor()
        exe.run(start)
        feed = {'x': np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)}
        backends.set_backend('onednn')
        a = exe.run(main, feed=feed, fetch_list=[y])[0]
        plan_a = exe._plan(main, ('x',), (y.name,), paddle.static.BuildStrategy())
        backends.set_backend('numpy')
        b = exe.run(main, feed=feed, fetch_list=[y])[0]
        plan_b = exe._plan(main, ('x',), (y.name,), paddle.static.BuildStrategy())
        assert plan_a is not plan_b
        conv = registry.lookup('conv')
        assert _binds(plan_a, conv.kernel_for('onednn'))
        assert not _binds(plan_b, conv.kernel_for('onednn'))
        numpy_conv = conv.kernels['numpy']
        assert _binds(plan_b, numpy_conv) or _binds(plan_b, numpy_conv.full_precision_kernel)
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        # and back: the first plan again, not a third
        backends.set_backend('onednn')
        assert exe._plan(main, ('x',), (y.name,), paddle.static.BuildStrategy()) is plan_a
    finally:
        backends.set_backend(before)
        paddle.disable_static()


def test_to_static_compiles_per_backend():
    before = backends.backend()
    try:
        paddle.seed(0)
        net = paddle.jit.to_static(paddle.nn.Conv2D(2, 3, 3))
        x = paddle.to_tensor(np.random.default_rng(4).standard_normal((1, 2, 5, 5))
                             .astype(np.float32), stop_gradient=False)
        results = {}
        for name in ('onednn', 'numpy', 'onednn'):
            backends.set_backend(name)
            y = net(x)
            y.sum().backward()
            results[name] = (y.numpy(), x.grad.numpy().copy())
            x.clear_gradient()
        partial = net.forward.get_concrete_program(x)[1]
        assert sorted(k[-1] for k in partial._trains) == ['numpy', 'onednn']
        conv = registry.lookup('conv')
        plan = partial._trains[next(k for k in partial._trains if k[-1] == 'onednn')]
        assert _binds(plan.fwd, conv.kernel_for('onednn'))
        assert _binds(plan.bwd, registry.lookup('conv_filter_grad').kernel_for('onednn'))
        for a, b in zip(results['onednn'], results['numpy']):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
    finally:
        backends.set_backend(before)


def test_a_predictor_uses_its_configs_choice(tmp_path, on_numpy):
    paddle.enable_static()
    try:
        main, start, y = _static_conv_program()
        exe = paddle.static.Executor()
        exe.run(start)
        x = main.global_block().var('x')
        prefix = str(tmp_path / 'conv')
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    from framework import inference
    feed = np.random.default_rng(2).standard_normal((2, 3, 8, 8)).astype(np.float32)
    outs = {}
    for enabled in (True, False):
        config = inference.Config(prefix + '.pdmodel', prefix + '.pdiparams')
        if not enabled:
            config.disable_mkldnn()
        predictor = inference.create_predictor(config)
        assert predictor._exe._backend == ('onednn' if enabled else 'numpy')
        outs[enabled] = predictor.run([feed])[0].numpy()
    assert backends.backend() == 'numpy'      # the process's choice is left alone
    np.testing.assert_allclose(outs[True], outs[False], rtol=1e-4, atol=1e-5)


# ---- threads --------------------------------------------------------------------------

def test_the_thread_count_is_part_of_the_plan_key(on_onednn):
    rt = onednn.runtime()
    before = paddle.get_num_threads()
    conv = registry.lookup('conv')
    x = np.ones((1, 2, 7, 7), np.float32)
    w = np.ones((3, 2, 3, 3), np.float32)
    args = (x, w, None, [1, 1], [0, 0, 0, 0], [1, 1], 1, 'NCHW')
    try:
        paddle.set_num_threads(1)
        conv.kernel(*args)
        n = rt.cached_plans()
        conv.kernel(*args)
        assert rt.cached_plans() == n               # the same key: the same plan
        paddle.set_num_threads(2)
        assert rt.threads() == 2
        out = conv.kernel(*args)
        assert rt.cached_plans() == n + 1           # only the thread count changed
        np.testing.assert_allclose(out, 18.0)
    finally:
        paddle.set_num_threads(before)


def test_threads_running_one_op_at_once_do_not_share_buffers(on_onednn):
    conv = registry.lookup('conv')
    rng = np.random.default_rng(5)
    w = rng.standard_normal((8, 4, 3, 3)).astype(np.float32)
    xs = [rng.standard_normal((2, 4, 12, 12)).astype(np.float32) for _ in range(4)]
    attrs = ([1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW')
    want = [conv.kernels['numpy'](x, w, None, *attrs) for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(30):
                got = conv.kernel(xs[i], w, None, *attrs)
                if not np.allclose(got, want[i], rtol=1e-4, atol=1e-4):
                    errors.append(i)
                    return
        except Exception as e:     # noqa: BLE001  (reported below)
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# ---- what runs on oneDNN and what does not --------------------------------------------

def test_a_plan_that_gets_only_oneDNNs_reference_loops_is_declined():
    # a 1x1 conv on a strided view (every other channel) runs on the plain
    # layout, where oneDNN has only its reference implementation: numpy is faster
    from framework.backends.onednn import conv as dnnl_conv
    rt = onednn.runtime()
    x = np.ones((2, 8, 5, 5), np.float32)[:, ::2]
    w = np.ones((3, 4, 1, 1), np.float32)
    y = np.empty((2, 3, 5, 5), np.float32)
    assert dnnl_conv.forward(rt, x, w, None, [1, 1], [0, 0, 0, 0], [1, 1], 1, y) is None


def test_strided_inputs_are_made_dense_and_run_fast(on_onednn):
    # a channel shuffle leaves a transposed view; the kernel copies it once and
    # runs oneDNN's optimized convolution, not the reference loops
    rng = np.random.default_rng(6)
    view = rng.standard_normal((2, 6, 6, 8)).astype(np.float32).transpose(0, 3, 1, 2)
    w = rng.standard_normal((5, 8, 1, 1)).astype(np.float32)
    conv = registry.lookup('conv')
    args = (view, w, None, [1, 1], [0, 0, 0, 0], [1, 1], 1, 'NCHW')
    before = onednn.runtime().cached_plans()
    got = conv.kernels['onednn'](*args)
    assert got is not NotImplemented
    np.testing.assert_allclose(got, conv.kernels['numpy'](*args), rtol=1e-5, atol=1e-5)
    plans = onednn.runtime()._thread().plans
    assert onednn.runtime().cached_plans() == before + 1
    assert list(plans.values())[-1] is not None


# ---- weights that do not change: reordered once -------------------------------------

def _conv_args(w, x):
    return (x, w, None, [1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW')


def test_a_frozen_filter_is_reordered_once_and_a_writable_one_every_time(on_onednn):
    conv = registry.lookup('conv')
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 16, 8, 8)).astype(np.float32)
    w = rng.standard_normal((16, 16, 3, 3)).astype(np.float32)
    want = conv.kernels['numpy'](*_conv_args(w, x))
    frozen_w = onednn.core.freeze(w.copy())
    assert onednn.core.frozen(frozen_w) and not onednn.core.frozen(w)
    assert onednn.core.frozen(frozen_w[:, :8])        # a view of it
    view = w[:, :8]
    view.setflags(write=False)                        # read-only, but its base is not
    assert not onednn.core.frozen(view)
    rt = onednn.runtime()
    for _ in range(3):
        np.testing.assert_allclose(conv.kernel(*_conv_args(frozen_w, x)), want,
                                   rtol=1e-4, atol=1e-4)
    plan = list(rt._thread().plans.values())[-1]
    assert plan.reorders_of and all(a is frozen_w for a in plan._frozen.values()
                                    if a is not None)
    # a second frozen filter of the same shape has its own plan and result
    other = onednn.core.freeze(-w)
    np.testing.assert_allclose(conv.kernel(*_conv_args(other, x)), -want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(conv.kernel(*_conv_args(frozen_w, x)), want, rtol=1e-4,
                               atol=1e-4)
    # a writable filter changed in place between calls: the new values count
    live = w.copy()
    conv.kernel(*_conv_args(live, x))
    live *= 2
    np.testing.assert_allclose(conv.kernel(*_conv_args(live, x)), 2 * want, rtol=1e-4,
                               atol=1e-4)


def test_the_skipped_reorder_is_only_the_frozen_filters(on_onednn):
    conv = registry.lookup('conv')
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 16, 8, 8)).astype(np.float32)
    w = onednn.core.freeze(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
    conv.kernel(*_conv_args(w, x))
    plan = list(onednn.runtime()._thread().plans.values())[-1]
    assert set(plan.reorders_of) == {0, 1}           # the input's and the filter's
    assert all(plan.note[step].startswith('reorder') for step in plan.reorders_of.values())
    assert plan._unchanged((x, w, None)) == {plan.reorders_of[1]}
    assert plan._unchanged((x.copy(), w, None)) == {plan.reorders_of[1]}
    # a 1x1 convolution reads its filter as it is: no reorder to skip
    w1 = onednn.core.freeze(rng.standard_normal((16, 16, 1, 1)).astype(np.float32))
    args = (x, w1, None, [1, 1], [0, 0, 0, 0], [1, 1], 1, 'NCHW')
    for _ in range(2):
        np.testing.assert_allclose(conv.kernel(*args), conv.kernels['numpy'](*args),
                                   rtol=1e-4, atol=1e-4)
    plan = list(onednn.runtime()._thread().plans.values())[-1]
    assert plan.reorders_of == {} and not plan._unchanged((x, w1, None))


def test_a_predictor_freezes_its_weights(tmp_path):
    paddle.enable_static()
    try:
        main, start, y = _static_conv_program()
        exe = paddle.static.Executor()
        exe.run(start)
        prefix = str(tmp_path / 'conv')
        paddle.static.save_inference_model(prefix, [main.global_block().var('x')], [y], exe,
                                           program=main)
    finally:
        paddle.disable_static()
    from framework import inference
    predictor = inference.create_predictor(inference.Config(prefix + '.pdmodel',
                                                            prefix + '.pdiparams'))
    values = [v for v in predictor._scope.vars.values() if isinstance(v, np.ndarray)]
    assert values and all(onednn.core.frozen(v) for v in values)
    feed = np.random.default_rng(9).standard_normal((2, 3, 8, 8)).astype(np.float32)
    first = predictor.run([feed])[0].numpy()
    np.testing.assert_array_equal(predictor.run([feed])[0].numpy(), first)


def _variable_batch_predictor(tmp_path, capacity):
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            x = paddle.static.data('x', [-1, 3, 8, 8], 'float32')
            y = paddle.static.nn.conv2d(x, 16, 3, padding=1)
        exe = paddle.static.Executor()
        exe.run(start)
        prefix = str(tmp_path / 'conv')
        paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    finally:
        paddle.disable_static()
    from framework import inference
    config = inference.Config(prefix + '.pdmodel', prefix + '.pdiparams')
    config.set_mkldnn_cache_capacity(capacity)
    return inference.create_predictor(config)


def _shape_plans(batch):
    """The calling thread's oneDNN plans whose key holds an input of this batch."""
    plans = onednn.runtime()._thread().plans
    return [k for k, p in plans.items() if p is not None and (batch, 3, 8, 8) in k]


@pytest.mark.parametrize('capacity', [1, 2, 0])
def test_the_predictors_onednn_cache_keeps_capacity_input_shapes(tmp_path, capacity):
    predictor = _variable_batch_predictor(tmp_path, capacity)
    onednn.runtime().clear()          # (plans of other tests' predictors of these shapes)
    rng = np.random.default_rng(13)
    feeds = {b: rng.standard_normal((b, 3, 8, 8)).astype(np.float32) for b in (5, 6, 7)}
    first = {b: predictor.run([f])[0].numpy() for b, f in feeds.items()}
    kept = [b for b in feeds if _shape_plans(b)]
    assert kept == ([5, 6, 7] if capacity == 0 else [5, 6, 7][-capacity:])
    # an evicted shape runs again (its plans rebuilt), with the same results
    np.testing.assert_array_equal(predictor.run([feeds[5]])[0].numpy(), first[5])
    assert _shape_plans(5)


def test_a_negative_onednn_cache_capacity_is_refused():
    from framework import inference
    with pytest.raises(ValueError, match='set_onednn_cache_capacity: capacity must be >= 0'):
        inference.Config().set_mkldnn_cache_capacity(-1)


# ---- max pooling: oneDNN's workspace read as the winning taps --------------------------

@pytest.mark.parametrize('shape,k,s,p,ceil', [
    ((4, 16, 8, 8), [2, 2], [2, 2], [0, 0, 0, 0], False),
    ((2, 8, 9, 9), [3, 3], [2, 2], [1, 1, 1, 1], False),      # ResNet's stem pool
    ((2, 3, 7, 6), [2, 3], [2, 2], [0, 0, 1, 0], True)])
def test_max_pool_on_onednn_gives_the_numpy_mask_with_ties(on_onednn, shape, k, s, p, ceil):
    # after a relu a quarter of the windows are all zeros: ties go to the first tap
    x = np.maximum(np.random.default_rng(10).standard_normal(shape), 0).astype(np.float32)
    op = registry.lookup('max_pool')
    want = op.kernels['numpy'](x, k, s, p, ceil, 'NCHW')
    for _ in range(2):                 # the checked first call, then the plain one
        got = op.kernels['onednn'](x, k, s, p, ceil, 'NCHW')
        assert got is not NotImplemented
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_a_max_pool_shape_whose_taps_read_wrong_is_declined(on_onednn, monkeypatch):
    from framework.ops.conv import pool
    x = np.random.default_rng(11).standard_normal((2, 4, 6, 6)).astype(np.float32)
    op = registry.lookup('max_pool')
    want = op.kernels['numpy'](x, [2, 2], [2, 2], [0, 0, 0, 0], False, 'NCHW')
    real = pool.dnnl_pool.max_forward
    monkeypatch.setattr(pool, '_checked_taps', set())       # whatever ran before
    monkeypatch.setattr(pool.dnnl_pool, 'max_forward',
                        lambda *a: None if (t := real(*a)) is None else (t + 1) % 4)
    got = op.kernels['onednn'](x, [2, 2], [2, 2], [0, 0, 0, 0], False, 'NCHW')
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    # declined from now on: the numpy kernel runs
    assert op.kernels['onednn'](x, [2, 2], [2, 2], [0, 0, 0, 0], False, 'NCHW') \
        is NotImplemented


# ---- what the oneDNN kernels take: every registry case but the declared ones ----------

def _not_last_axis(x, axis):
    return axis not in (-1, x.ndim - 1)


# op -> the float32 cases its oneDNN kernel leaves to numpy, said independently of
# the kernel (a kernel that wrongly declines a call it covers fails below)
def _pays(macs):
    return macs >= onednn.matmul.MIN_MACS


EXPECTED_DECLINES = {
    'max_pool': lambda x, *attrs: x.ndim != 4 or attrs[-1] != 'NCHW',   # 2-D NCHW only
    'softmax': _not_last_axis,
    'fused_conv': lambda x, *rest: x.size == 0,
    'gelu': lambda x, approximate: x.size < 4096,          # nn.ONEDNN_MIN_SIZE
    # 1-D and 2-D; not a divisor override, nor ceil_mode windows past counted padding
    'avg_pool': lambda x, k, s, p, ceil, exclusive, divisor, fmt:
        x.ndim == 5 or divisor or (ceil and not exclusive),
    'avg_pool_grad': lambda g, x, k, s, p, ceil, exclusive, divisor, fmt:
        g.ndim == 5 or divisor or (ceil and not exclusive),
    # no per-sequence lengths on oneDNN, nor an empty batch or sequence
    'lstm_seq': lambda x, w_ih, w_hh, b_ih, b_hh, h0, c0, lengths, *attrs:
        lengths is not None or x.size == 0,
    'gru_seq': lambda x, w_ih, w_hh, b_ih, b_hh, h0, lengths, *attrs:
        lengths is not None or x.size == 0,
    # products of 2-D (or a stack times a matrix) big enough to pay oneDNN's call
    'matmul': lambda x, y, tx=False, ty=False: x.ndim < 2 or y.ndim != 2 or
        (tx and x.ndim > 2) or not _pays(x.size * y.shape[0 if ty else 1]),
    'linear': lambda x, w, b: x.ndim < 2 or not _pays(x.size * w.shape[1]),
}


def _onednn_ops():
    return sorted(n for n, op in registry.all_ops().items() if 'onednn' in op.kernels)


@pytest.mark.parametrize('name', _onednn_ops())
def test_onednn_kernels_take_every_case_they_cover(name):
    import test_op_properties as T
    op = registry.lookup(name)
    expected = EXPECTED_DECLINES.get(name, lambda *a: False)
    for k, (args, _) in enumerate(op.test_cases):
        case = T._as_float32(op, args)
        got = op.kernels['onednn'](*T._fresh_args(op, case))
        assert (got is NotImplemented) == bool(expected(*case)), (name, k)


def test_log_softmax_stays_on_numpy():
    # oneDNN's log-softmax is 8 ulps off where numpy's (and Paddle's) is not
    assert 'onednn' not in registry.lookup('log_softmax').kernels


def test_the_declines_table_names_only_onednn_ops():
    assert set(EXPECTED_DECLINES) <= set(_onednn_ops())
    assert {'conv', 'conv_transpose', 'conv_filter_grad', 'max_pool', 'avg_pool',
            'avg_pool_grad', 'softmax', 'layer_norm', 'gelu',
            'fused_conv', 'lstm_seq', 'gru_seq', 'matmul', 'linear'} <= set(_onednn_ops())


# ---- the runtime's own rules -------------------------------------------------------------

def test_plain_strides_are_row_major():
    from framework.backends.onednn.core import plain_strides
    assert plain_strides([2, 3, 4]) == [12, 4, 1]
    assert plain_strides([5]) == [1]
    assert plain_strides([1, 7, 1, 1]) == [7, 1, 1, 1]


def test_the_plan_cache_keeps_the_most_recent_plans(monkeypatch):
    rt = onednn.runtime()
    monkeypatch.setattr(rt, 'capacity', 3)
    built = []
    for i in range(5):
        rt.plan_for(('test-capacity', i), lambda plan, i=i: built.append(i))
    keys = [k for k in rt._thread().plans if k[0] == 'test-capacity']
    assert keys == [('test-capacity', 2), ('test-capacity', 3), ('test-capacity', 4)]
    rt.plan_for(('test-capacity', 4), lambda plan: built.append('again'))
    assert 'again' not in built


def _data_handle(memory):
    handle = ctypes.c_void_p()
    onednn.runtime().lib.dnnl_memory_get_data_handle(memory, ctypes.byref(handle))
    return handle.value


def test_plan_buffers_are_aligned_and_live_in_the_threads_arena(on_onednn):
    conv = registry.lookup('conv')
    x = np.ones((2, 16, 9, 9), np.float32)
    w = np.ones((16, 16, 3, 3), np.float32)
    conv.kernel(x, w, None, [1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW')
    plan = list(onednn.runtime()._thread().plans.values())[-1]
    assert plan.in_arena and not [a for a in plan._keep if isinstance(a, np.ndarray)]
    arena = onednn.runtime()._thread().arena
    assert plan.arena is arena and arena.address % 64 == 0
    for mem, offset, size in plan.in_arena:
        assert offset % 64 == 0 and offset + size <= plan.arena_bytes
        assert _data_handle(mem) == arena.address + offset
    scratch = onednn.constants.ARG_SCRATCHPAD
    pads = [arg.memory for _, args, n, _ in plan.steps for arg in args[:n]
            if arg.arg == scratch]
    assert pads and all(arena.address <= _data_handle(m) < arena.address + plan.arena_bytes
                        for m in pads)


def _conv_call(rng, c, size, w=None):
    x = rng.standard_normal((2, c, size, size)).astype(np.float32)
    w = rng.standard_normal((c, c, 3, 3)).astype(np.float32) if w is None else w
    return (x, w, None, [1, 1], [1, 1, 1, 1], [1, 1], 1, 'NCHW')


def test_plans_share_the_arena_and_rebind_when_it_grows(on_onednn):
    conv = registry.lookup('conv')
    rng = np.random.default_rng(11)
    small, large = _conv_call(rng, 16, 6), _conv_call(rng, 16, 40)
    rt = onednn.runtime()
    for args in (small, large, small, large, small):
        np.testing.assert_allclose(conv.kernel(*args), conv.kernels['numpy'](*args),
                                   rtol=1e-4, atol=1e-4)
    plans = [p for p in rt._thread().plans.values() if p is not None and p.arena_bytes]
    arena = rt._thread().arena
    assert arena._buf.nbytes >= max(p.arena_bytes for p in plans)
    # the last small run rebound its memory into the grown arena
    assert list(rt._thread().plans.values())[-1]._bound_to == arena.address


def test_a_frozen_filters_reorder_survives_other_plans_using_the_arena(on_onednn):
    conv = registry.lookup('conv')
    rng = np.random.default_rng(12)
    w = onednn.core.freeze(rng.standard_normal((16, 16, 3, 3)).astype(np.float32))
    mine, other = _conv_call(rng, 16, 8, w), _conv_call(rng, 16, 12)
    want = conv.kernels['numpy'](*mine)
    conv.kernel(*mine)                            # reorders the filter into its own buffer
    plan = list(onednn.runtime()._thread().plans.values())[-1]
    owned = [e for e in plan.in_arena if e[1] is None]
    assert len(owned) == 1                        # the filter's reorder, not the input's
    conv.kernel(*other)                           # overwrites the arena
    np.testing.assert_allclose(conv.kernel(*mine), want, rtol=1e-4, atol=1e-4)
    assert plan._unchanged(mine) == {plan.reorders_of[1]}      # (the reorder was skipped)


@pytest.mark.parametrize('env,want', [
    ({'FRAMEWORK_BACKEND': 'numpy'}, 'numpy'), ({'FLAGS_use_mkldnn': '0'}, 'numpy'),
    ({'FLAGS_use_mkldnn': 'false'}, 'numpy'), ({'FLAGS_use_mkldnn': 'OFF'}, 'numpy'),
    ({'FLAGS_use_mkldnn': 'on'}, 'onednn'), ({'FRAMEWORK_BACKEND': 'onednn'}, 'onednn'),
    ({}, 'onednn')])
def test_the_environment_chooses_the_default_backend(monkeypatch, env, want):
    before = backends.backend()
    for var in ('FRAMEWORK_BACKEND', 'FLAGS_use_mkldnn'):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    try:
        assert backends.apply_default() == want == backends.backend()
        assert paddle.get_flags('FLAGS_use_mkldnn')['FLAGS_use_mkldnn'] == (want == 'onednn')
    finally:
        backends.set_backend(before)


@pytest.mark.parametrize('approximate', [False, True])
def test_gelu_on_onednn_forward_and_fast_gradient(on_onednn, approximate):
    from framework.ops import nn as ops_nn
    rng = np.random.default_rng(12)
    x = rng.uniform(-4, 4, (64, 96)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    op = registry.lookup('gelu')
    np.testing.assert_allclose(op.kernel(x, approximate), op.kernels['numpy'](x, approximate),
                               rtol=1e-5, atol=1e-6)
    got = op.fast_grad(g, x, None, approximate)
    with backends.using('numpy'):
        numpy_got = op.fast_grad(g, x, None, approximate)
    exact = op.fast_grad(g.astype(np.float64), x.astype(np.float64), None, approximate)
    assert got.dtype == np.float32
    # as close to the float64 gradient as numpy's float32 formula is
    assert np.abs(got - exact).max() <= 2 * np.abs(numpy_got - exact).max() + 1e-7
    # small arrays stay on numpy, forward and backward
    assert op.kernels['onednn'](x[:2, :2], approximate) is NotImplemented
    assert ops_nn._gelu_grad_onednn(g[:2, :2], x[:2, :2], approximate) is NotImplemented


def test_a_frozen_batch_norm_is_turned_into_scale_and_shift_once():
    from framework.backends.onednn.core import freeze
    from framework.ops.conv import fused_conv as FC
    from framework.ops.nn import bn_affine
    rng = np.random.default_rng(5)

    def vectors():
        return [freeze(rng.uniform(0.5, 1.5, 4).astype(np.float32)) for _ in range(4)]
    arrays = vectors()
    first = FC._affine(*arrays, 1e-5)
    assert FC._affine(*arrays, 1e-5) is first              # computed once
    want = bn_affine(*arrays[:2], *arrays[2:], 1e-5, np.float32)[1:]
    np.testing.assert_allclose(first[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(first[1], want[1], rtol=1e-6)
    other = FC._affine(*arrays, 1e-3)                     # the epsilon alone
    assert other is not first and not np.allclose(other[0], first[0])
    for k in range(4):                                     # each array alone
        changed = list(arrays)
        changed[k] = freeze(arrays[k] + np.float32(0.25))
        got = FC._affine(*changed, 1e-5)
        want = bn_affine(*changed[:2], *changed[2:], 1e-5, np.float32)[1:]
        assert got is not first
        np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
        np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    writable = [a.copy() for a in arrays]                  # a training model's: every call
    before = FC._affine(*writable, 1e-5)
    writable[2] *= 2
    after = FC._affine(*writable, 1e-5)
    np.testing.assert_allclose(after[0], 2 * before[0], rtol=1e-6)


# ---- matrix products ---------------------------------------------------------------------

def _product_grads(backend, tx, ty):
    """Outputs and gradients of a Linear layer and a matmul with transposes,
    both large enough for oneDNN's matmul."""
    rng = np.random.default_rng(14)
    x = paddle.to_tensor(rng.standard_normal((4, 32, 256)).astype(np.float32),
                         stop_gradient=False)
    a = rng.standard_normal((256, 96) if tx else (96, 256)).astype(np.float32)
    b = rng.standard_normal((128, 256) if ty else (256, 128)).astype(np.float32)
    a, b = (paddle.to_tensor(v, stop_gradient=False) for v in (a, b))
    paddle.seed(0)
    fc = paddle.nn.Linear(256, 128)
    with backends.using(backend):
        y = fc(x)
        z = paddle.matmul(a, b, transpose_x=tx, transpose_y=ty)
        ((y * y).sum() + (z * z * z).sum()).backward()
    return [t.numpy() for t in (y, z, x.grad, fc.weight.grad, fc.bias.grad, a.grad, b.grad)]


@pytest.mark.parametrize('tx,ty', [(False, False), (True, False), (False, True), (True, True)])
def test_large_products_and_their_gradients_agree_with_numpy(on_onednn, tx, ty):
    got, want = _product_grads('onednn', tx, ty), _product_grads('numpy', tx, ty)
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-3 * np.abs(w).max(), err_msg=k)
    # the products ran on oneDNN
    plans = onednn.runtime()._thread().plans
    assert any(k[0] == 'matmul' and p is not None for k, p in plans.items())


def test_small_products_stay_on_numpy(on_onednn):
    x, w = np.ones((8, 16), np.float32), np.ones((16, 8), np.float32)
    assert registry.lookup('matmul').kernels['onednn'](x, w, False, False) is NotImplemented
    assert registry.lookup('linear').kernels['onednn'](x, w, None) is NotImplemented
