"""Registry-generated ONNX tests: every op with a lowering, every declared case.

Each case (``registry.add_test_case``) becomes a one-op static Program (array
inputs are its feeds), switched to inference as an export is; the Program is
exported, re-checked by ``onnx.checker`` and run in onnxruntime, and its
outputs are compared with our Executor's run of the same Program (the op's
kernel). A float64 case whose ONNX ops onnxruntime implements only in float32
runs in float32; outputs a lowering leaves out (training-time statistics, the
max pool mask) are not compared.
"""
import re

import numpy as np
import pytest

import framework as paddle
from framework import static
from framework.ops import registry

onnx = pytest.importorskip('onnx', reason="the 'onnx' extra is not installed")
ort = pytest.importorskip('onnxruntime', reason="the 'onnx' extra is not installed")

from framework.onnx import OnnxExportError, program_to_model  # noqa: E402
from framework.onnx.graph import missing_lowerings  # noqa: E402
from framework.graph.model_files import inference_program  # noqa: E402

CASES = [(name, k) for name, op in sorted(registry.all_ops().items()) if op.onnx is not None
         for k in range(len(op.test_cases))]

# ops whose kernel draws random numbers: their inference form (dropout: identity
# or a scale) is what exports, checked by the model tests
RANDOM = {name for name, op in registry.all_ops().items() if op.random}


def _as_float32(a):
    if isinstance(a, np.ndarray) and a.dtype == np.float64:
        return a.astype(np.float32)
    if isinstance(a, (list, tuple)):
        return type(a)(_as_float32(v) for v in a)
    return a


def _arrays(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _arrays(a)
        elif isinstance(a, np.ndarray):
            yield a


def _one_op_program(op, args):
    """(program, feed {name: array}, state {name: array}, output variables) of
    ``op`` on ``args``; inputs the op updates in place (batch norm's running
    statistics) are model state, as in a real model, not feeds."""
    main, startup = static.Program(), static.Program()
    feed, state = {}, {}
    updated = set(op.inplace_map.values())

    def data(a, slot):
        name = 'in%d' % (len(feed) + len(state))
        (state if slot in updated else feed)[name] = a
        return static.data(name, list(a.shape), str(a.dtype))

    with static.program_guard(main, startup):
        ins = []
        for i in range(op.n_in):
            a = args[i]
            slot = op.input_names[i]
            if op.variadic[i]:
                ins.append([data(v, slot) for v in a])
            else:
                ins.append(data(a, slot) if isinstance(a, np.ndarray) else a)
        outs = op(*ins, *args[op.n_in:])
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    return main, feed, state, outs


def _to_model(program, feed, fetch, state):
    """The ONNX model at the default opset, or at the one a lowering says it needs."""
    try:
        return program_to_model(program, feed, fetch, state)
    except OnnxExportError as e:
        need = re.search(r'needs opset_version >= (\d+)', str(e))
        if need is None:
            raise
        return program_to_model(program, feed, fetch, state, opset_version=int(need.group(1)))


def _export_and_run(op, args, tmp_path):
    paddle.enable_static()
    try:
        main, feed, state, outs = _one_op_program(op, args)
        fetch = [v.name for v in outs if v.name not in state]
        program = inference_program(main, list(feed), fetch)
        others = sorted(set(missing_lowerings(program)) - {op.name})
        if others:
            pytest.skip('the program also needs %s, which ha%s no ONNX lowering'
                        % (', '.join(others), 's' if len(others) == 1 else 've'))
        try:
            model = _to_model(program, list(feed), fetch, state)
        except OnnxExportError as e:
            if 'does not produce' not in str(e):
                raise
            # compare the outputs the lowering produces (the leading ones)
            keep = [v.name for v, out in zip(outs, op.output_names)
                    if out not in op.nondiff_outputs] or fetch[:1]
            fetch = keep
            program = inference_program(main, list(feed), fetch)
            model = _to_model(program, list(feed), fetch, state)
        want = static.Executor().run(program, feed=dict(feed, **state), fetch_list=fetch)
    finally:
        paddle.disable_static()
    path = str(tmp_path / ('%s.onnx' % op.name))
    onnx.save(model, path)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    sess = ort.InferenceSession(path, providers=['CPUExecutionProvider'])
    got = sess.run(None, {i.name: feed[i.name] for i in sess.get_inputs()})
    return want, got


@pytest.mark.parametrize('name,k', CASES)
def test_onnx_lowering_matches_kernel(name, k, tmp_path):
    op = registry.lookup(name)
    args, opts = op.test_cases[k]
    if name in RANDOM:
        pytest.skip('random kernel: its inference form is checked by the model tests')
    if any(np.iscomplexobj(a) for a in _arrays(args)):
        pytest.skip('ONNX operators take no complex tensors')
    try:
        want, got = _export_and_run(op, args, tmp_path)
    except OnnxExportError as e:
        if 'complex' not in str(e):
            raise
        pytest.skip('a complex result: ONNX runtimes have no complex tensors')
    except Exception as e:     # onnxruntime lacks a float64 kernel for an op: float32
        if 'NOT_IMPLEMENTED' not in str(e) and 'Could not find an implementation' not in str(e) \
                and 'does not support double' not in str(e):
            raise
        if not any(a.dtype == np.float64 for a in _arrays(args)):
            pytest.skip('onnxruntime has no kernel for these dtypes: %s' % str(e)[:200])
        args = _as_float32(args)
        want, got = _export_and_run(op, args, tmp_path)
    for w, o in zip(want, got):
        w = np.asarray(w)
        assert o.shape == w.shape, (o.shape, w.shape)
        assert o.dtype == w.dtype, (o.dtype, w.dtype)
        f32 = w.dtype == np.float32
        np.testing.assert_allclose(o, w, rtol=max(opts.get('rtol', 0), 1e-5 if f32 else 1e-7),
                                   atol=max(opts.get('atol', 0), 1e-5 if f32 else 1e-7),
                                   equal_nan=True)
