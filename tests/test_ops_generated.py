"""Registry-generated op tests: every registered op, every declared case."""
import pytest

import framework  # noqa: F401  (registers every op)
from framework.ops import registry

import op_check

# Ops that run sub-blocks of a Program (registry.def_block_op: cond, while,
# while_grad) have no numpy kernel to check against a reference; they are left
# out here and tested by tests/test_control_flow_ops.py (every one of them:
# codegen against a numpy reference, gradients against finite differences, the
# verifier), which test_block_ops_have_their_own_tests below makes sure of.
KERNEL_OPS = {n: op for n, op in registry.all_ops().items() if not op.sub_blocks}
BLOCK_OPS = sorted(set(registry.all_ops()) - set(KERNEL_OPS))

CASES = [(name, k) for name, op in sorted(KERNEL_OPS.items())
         for k in range(len(op.test_cases))]


def _case(name, k):
    op = registry.lookup(name)
    args, opts = op.test_cases[k]
    return op, args, opts


def test_every_op_has_a_test_case():
    missing = [n for n, op in KERNEL_OPS.items() if not op.test_cases]
    assert not missing, "ops without test cases: %s" % ', '.join(sorted(missing))


def test_every_differentiable_op_has_a_grad_case():
    missing = [n for n, op in KERNEL_OPS.items()
               if op.differentiable and not any(
                   o.get('grad', True) and op_check.float_inputs(op, a)
                   for a, o in op.test_cases)]
    assert not missing, "differentiable ops never grad-checked: %s" % ', '.join(sorted(missing))


def test_block_ops_have_their_own_tests():
    import test_control_flow_ops
    assert BLOCK_OPS and set(BLOCK_OPS) <= set(test_control_flow_ops.TESTED_BLOCK_OPS), (
        "ops with sub-blocks not covered by tests/test_control_flow_ops.py: %s"
        % sorted(set(BLOCK_OPS) - set(test_control_flow_ops.TESTED_BLOCK_OPS)))


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
    if not op.differentiable or not opts.get('grad', True) or opts.get('grad_error'):
        pytest.skip('not differentiable')
    op_check.check_double_grad(op, args, opts)


@pytest.mark.parametrize('name,k', CASES)
def test_static_matches_eager(name, k):
    op_check.check_static(*_case(name, k))


DTYPE_CASES = [(name, k, kind, d.name) for name, k in CASES
               for kind in sorted(op_check.case_kinds(*_case(name, k)[:2]))
               for d in op_check.SWEEP[kind][1]]


@pytest.mark.parametrize('name,k,kind,dtype', DTYPE_CASES)
def test_dtype_sweep(name, k, kind, dtype):
    op_check.check_dtype(*_case(name, k), kind,
                         next(d for d in op_check.SWEEP[kind][1] if d.name == dtype))


# Ops with a kernel on another backend (ops/backends.py): their checks once more
# on each backend, numpy included, whichever one the suite runs on by default
# (oneDNN where it loads); elsewhere the backend changes nothing.
BACKEND_CASES = [(name, k, backend) for name, k in CASES
                 if len(KERNEL_OPS[name].kernels) > 1
                 for backend in sorted(KERNEL_OPS[name].kernels)]


@pytest.mark.parametrize('name,k,backend', BACKEND_CASES)
def test_checks_on_each_backend(name, k, backend):
    from framework.backends import onednn
    from framework.ops import backends
    if backend == 'onednn' and not onednn.available():
        pytest.skip(onednn.why_unavailable())
    with backends.using(backend):
        op, args, opts = _case(name, k)
        op_check.check_forward(op, args, opts)
        op_check.check_infer_meta(op, args, opts)
        op_check.check_static(op, args, opts)
        if op.differentiable and opts.get('grad', True):
            op_check.check_grad(op, args, opts)


def test_backend_cases_cover_each_backend_kernel():
    ops = {name for name, _, _ in BACKEND_CASES}
    assert ops == {n for n, op in KERNEL_OPS.items() if len(op.kernels) > 1}
    assert {'conv', 'conv_transpose', 'conv_filter_grad'} <= ops
