"""Converter fuzz test: random small functions (nested if/while/for/break/
continue/return over tensor and Python conditions, see fuzz_programs.py) run
eagerly and under @to_static on inputs that take different paths; values and
gradients must be equal. CI runs a fixed, seeded set; ``slow`` runs many more."""
import importlib.util
import os

import numpy as np
import pytest

import framework as paddle
from fuzz_programs import generate

_INPUTS = [np.array([0.5, -1.0, 2.0], 'float32'), np.array([-2.0, -0.5, -1.5], 'float32'),
           np.array([1.5, 2.5, 0.1], 'float32')]


def _load(source, tmp_path, seed):
    path = os.path.join(str(tmp_path), 'fuzz_case_%d.py' % seed)
    with open(path, 'w') as f:
        f.write('import framework as paddle\n\n\n' + source)
    spec = importlib.util.spec_from_file_location('fuzz_case_%d' % seed, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.f


def _run(fn, arr, n):
    x = paddle.to_tensor(arr, stop_gradient=False)
    out = fn(x, n)
    out.sum().backward()
    return out.numpy(), x.grad.numpy() if x.grad is not None else np.zeros(3, 'float32')


def check_case(seed, tmp_path):
    source = generate(seed)
    f = _load(source, tmp_path, seed)
    sf = paddle.jit.to_static(f)
    for arr in _INPUTS:
        for n in (1, 3, paddle.to_tensor(2)):
            eager_out, eager_grad = _run(f, arr, n)
            static_out, static_grad = _run(sf, arr, n)
            np.testing.assert_allclose(static_out, eager_out, rtol=1e-5, atol=1e-5,
                                       err_msg='value, seed %d, n=%s:\n%s' % (seed, n, source))
            np.testing.assert_allclose(static_grad, eager_grad, rtol=1e-5, atol=1e-5,
                                       err_msg='gradient, seed %d, n=%s:\n%s' % (seed, n, source))


@pytest.mark.parametrize('seed', range(25))
def test_converted_random_programs_match_eager(seed, tmp_path):
    check_case(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize('seed', range(25, 425))
def test_converted_random_programs_match_eager_many(seed, tmp_path):
    check_case(seed, tmp_path)
