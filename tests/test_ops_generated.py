"""Registry-generated op tests: every registered op, every declared case."""
import numpy as np
import pytest

import framework  # noqa: F401  (registers every op)
from framework.ops import registry

import op_check

CASES = [(name, k) for name, op in sorted(registry.all_ops().items())
         for k in range(len(op.test_cases))]


def _case(name, k):
    op = registry.lookup(name)
    args, opts = op.test_cases[k]
    return op, args, opts


def test_every_op_has_a_test_case():
    missing = [n for n, op in registry.all_ops().items() if not op.test_cases]
    assert not missing, "ops without test cases: %s" % ', '.join(sorted(missing))


def test_every_differentiable_op_has_a_grad_case():
    missing = [n for n, op in registry.all_ops().items()
               if op.differentiable and not any(
                   o.get('grad', True) and op_check.float_inputs(op, a)
                   for a, o in op.test_cases)]
    assert not missing, "differentiable ops never grad-checked: %s" % ', '.join(sorted(missing))


@pytest.mark.parametrize('name,k', CASES)
def test_forward_matches_reference(name, k):
    op_check.check_forward(*_case(name, k))


@pytest.mark.parametrize('name,k', CASES)
def test_infer_meta_matches_kernel(name, k):
    op_check.check_infer_meta(*_case(name, k))


@pytest.mark.parametrize('name,k', CASES)
def test_grad_matches_finite_differences(name, k):
    op, args, opts = _case(name, k)
    if not op.differentiable or not opts.get('grad', True):
        pytest.skip('not differentiable')
    op_check.check_grad(op, args, opts)


@pytest.mark.parametrize('name,k', CASES)
def test_double_grad_matches_finite_differences(name, k):
    op, args, opts = _case(name, k)
    if not op.differentiable or not opts.get('grad', True):
        pytest.skip('not differentiable')
    op_check.check_double_grad(op, args, opts)


@pytest.mark.parametrize('name,k', CASES)
def test_static_matches_eager(name, k):
    op, args, opts = _case(name, k)
    if op.kernel is None:
        pytest.skip('no kernel: the op runs only inside programs')
    op_check.check_static(op, args, opts)



DTYPE_CASES = [(name, k, kind, d.name) for name, k in CASES
               for kind in sorted(op_check.case_kinds(*_case(name, k)[:2]))
               for d in op_check.SWEEP[kind][1]]


@pytest.mark.parametrize('name,k,kind,dtype', DTYPE_CASES)
def test_dtype_sweep(name, k, kind, dtype):
    op, args, opts = _case(name, k)
    if op.kernel is None:
        pytest.skip('no kernel: the op runs only inside programs')
    op_check.check_dtype(op, args, opts, kind, np.dtype(
        next(d for d in op_check.SWEEP[kind][1] if d.name == dtype)))
