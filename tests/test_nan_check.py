"""FLAGS_check_nan_inf in every mode: the first op that produces NaN/Inf raises,
naming the op, its input shapes and (eagerly and in @to_static) the user's line;
with the flag off nothing is checked."""
import numpy as np
import pytest

import framework as paddle
from framework import static


def _line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def eager_model(x):
    y = x * 2.0
    z = paddle.log(y)          # NaN for negative inputs
    return paddle.tanh(z)


def test_eager_raises_at_the_first_bad_op_with_the_users_line(nan_check):
    x = paddle.to_tensor([-1.0, 1.0, 2.0])
    with pytest.raises(FloatingPointError) as e:
        eager_model(x)
    msg = str(e.value)
    assert "op 'log'" in msg and '[3]' in msg
    assert 'test_nan_check.py:%d' % _line_of(eager_model, 'paddle.log') in msg
    np.testing.assert_allclose(eager_model(paddle.to_tensor([1.0])).numpy(),
                               np.tanh(np.log(2.0)), rtol=1e-6)


def test_eager_checks_gradients_too(nan_check):
    x = paddle.to_tensor([0.0, 1.0], stop_gradient=False)
    y = paddle.sqrt(x)                 # finite, but its gradient at 0 is Inf
    with pytest.raises(FloatingPointError, match="gradient of op 'sqrt'"):
        y.sum().backward()


def test_off_nothing_is_checked():
    assert not paddle.get_flags('FLAGS_check_nan_inf')['FLAGS_check_nan_inf']
    out = eager_model(paddle.to_tensor([-1.0]))
    assert np.isnan(out.numpy()).all()


def test_switching_the_flag_back_restores_the_unchecked_path(nan_check):
    with pytest.raises(FloatingPointError):
        paddle.log(paddle.to_tensor([-1.0]))
    paddle.set_flags({'FLAGS_check_nan_inf': False})
    assert np.isnan(paddle.log(paddle.to_tensor([-1.0])).numpy()).all()


def test_static_executor_names_the_op_and_line(nan_check):
    paddle.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data('x', [3], 'float32')
            y = eager_model(x)
        exe = static.Executor()
        with pytest.raises(FloatingPointError) as e:
            exe.run(main, feed={'x': np.array([-1.0, 1.0, 2.0], 'float32')}, fetch_list=[y])
        assert "op 'log'" in str(e.value) and 'input shapes: [[3]]' in str(e.value)
        assert 'test_nan_check.py:%d' % _line_of(eager_model, 'paddle.log') in str(e.value)
        ok = exe.run(main, feed={'x': np.array([1.0, 1.0, 2.0], 'float32')}, fetch_list=[y])
        assert np.isfinite(ok[0]).all()
    finally:
        paddle.disable_static()


def branchy(x):
    if x.sum() > 0:
        x = paddle.log(x - 10.0)
    return x * 1.0


def test_to_static_names_the_op_and_line_inside_control_flow(nan_check):
    sf = paddle.jit.to_static(branchy)
    with pytest.raises(FloatingPointError) as e:
        sf(paddle.to_tensor([1.0, 2.0]))
    assert "op 'log'" in str(e.value)
    assert 'test_nan_check.py:%d' % _line_of(branchy, 'paddle.log') in str(e.value)
    np.testing.assert_allclose(sf(paddle.to_tensor([-1.0, -2.0])).numpy(), [-1.0, -2.0])


def test_to_static_training_checks_forward_and_backward(nan_check):
    net = paddle.nn.Linear(2, 1)
    sf = paddle.jit.to_static(lambda x: paddle.sqrt(net(x) * 0.0))
    x = paddle.ones([1, 2])
    out = sf(x)                        # sqrt(0) = 0 is finite
    with pytest.raises(FloatingPointError, match='NaN or Inf'):
        out.sum().backward()           # d sqrt / d u at 0 is Inf
