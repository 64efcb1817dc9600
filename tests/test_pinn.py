"""The PINN example (examples/pinn_poisson.py): second derivatives of a
network output inside the loss, trained eagerly and under @to_static."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, 'examples'))

import pinn_poisson  # noqa: E402


def test_short_run_loss_drops_and_modes_agree():
    eager = pinn_poisson.train('eager', 120)
    static = pinn_poisson.train('to_static', 120)
    assert eager['losses'][-1] < eager['losses'][0] / 100
    # the same math in both modes: the to_static program computes u'' with
    # grad ops and its backward differentiates them again
    np.testing.assert_allclose(static['losses'], eager['losses'], rtol=1e-3)
    assert static['rel_l2'] < 0.2


def test_second_derivative_in_the_loss_is_exact():
    """u'' from two paddle.grad calls equals a finite difference of u."""
    import framework as paddle
    paddle.seed(1)
    model = pinn_poisson.MLP()
    x = paddle.to_tensor(np.array([[0.2], [0.7]], dtype='float64'), stop_gradient=False)
    model.to(dtype='float64')     # float64 x with float32 weights is an error (as in Paddle)
    u = model(x)
    u_x, = paddle.grad(u, x, create_graph=True)
    u_xx, = paddle.grad(u_x, x, create_graph=True)
    h = 1e-4
    with paddle.no_grad():
        f = lambda v: model(paddle.to_tensor(v)).numpy()  # noqa: E731
        fd = (f(x.numpy() + h) - 2 * f(x.numpy()) + f(x.numpy() - h)) / h ** 2
    np.testing.assert_allclose(u_xx.numpy(), fd, rtol=1e-5, atol=1e-6)


def test_script_runs_quick():
    out = subprocess.run([sys.executable, os.path.join(ROOT, 'examples', 'pinn_poisson.py'),
                          '--quick', '--steps', '60'],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert 'eager' in out.stdout and 'to_static' in out.stdout and 'rel L2 error' in out.stdout


@pytest.mark.slow
def test_full_run_reaches_the_stated_error():
    for mode in ('eager', 'to_static'):
        r = pinn_poisson.train(mode, 1500)
        assert r['rel_l2'] < pinn_poisson.TARGET, (mode, r['rel_l2'])
        assert r['max_err'] < 2 * pinn_poisson.TARGET
