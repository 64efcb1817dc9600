"""NAdam, RAdam, ASGD, Rprop and LBFGS: Paddle's update rules, step for step.

The expected trajectories were produced by PaddlePaddle 3.3.1 (CPU) on the same
problem; the update ops themselves are checked against textbook references by
the registry-generated op tests.
"""
import numpy as np
import pytest

import framework as paddle
from framework import optimizer as optim

W0 = np.array([[0.3, -1.2, 2.0], [0.05, 0.7, -0.4]], dtype=np.float32)
C = np.array([[1.0, -2.0, 0.5], [3.0, 0.2, -1.0]], dtype=np.float32)


def _loss(w):
    # gradients change sign along the way (Rprop's step sizes both grow and shrink)
    return (paddle.sin(w * 3.0) * paddle.to_tensor(C) + w * w * 0.5).sum()


def _train(make, steps=7):
    w = paddle.create_parameter([2, 3], 'float32',
                                default_initializer=paddle.nn.initializer.Assign(W0))
    opt = make([w])
    for _ in range(steps):
        _loss(w).backward()
        opt.step()
        opt.clear_grad()
    return w, opt


CASES = {
    'nadam': (lambda p: optim.NAdam(learning_rate=0.05, parameters=p),
              [[0.002187, -1.431108, 1.733528], [-0.222125, 0.4001334, -0.0865998]]),
    'nadam_wd': (lambda p: optim.NAdam(learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-6,
                                       momentum_decay=0.01, weight_decay=0.1, parameters=p),
                 [[-0.0369134, -1.4484065, 1.7001762], [-0.2551837, 0.3634883, -0.0447931]]),
    'radam': (lambda p: optim.RAdam(learning_rate=0.05, parameters=p),
              [[-0.3330263, -1.6005573, 1.3148187], [-0.6365339, 0.5944238, 0.1043386]]),
    'radam_wd': (lambda p: optim.RAdam(learning_rate=0.05, beta1=0.8, beta2=0.7,
                                       weight_decay=0.1, parameters=p),
                 [[-0.5337246, -1.4776367, 1.1712191], [-0.3920653, 0.52809, 0.3728469]]),
    'asgd': (lambda p: optim.ASGD(learning_rate=0.05, batch_num=3, parameters=p),
             [[-0.508341, -1.4068094, 1.2858795], [-0.3454552, 0.5508531, 0.3924013]]),
    'asgd_wd': (lambda p: optim.ASGD(learning_rate=0.05, batch_num=2, weight_decay=0.1,
                                     parameters=p),
                [[-0.4656899, -1.4818358, 1.3017485], [-0.5909982, 0.5243391, 0.4009666]]),
    'rprop': (lambda p: optim.Rprop(learning_rate=0.05, parameters=p),
              [[-0.3457953, -1.5202401, 1.3542048], [-0.5957953, 0.0542047, 0.2457953]]),
    'rprop2': (lambda p: optim.Rprop(learning_rate=0.3, learning_rate_range=(0.01, 0.5),
                                     etas=(0.3, 1.5), parameters=p),
               [[-0.2375, -1.53825, 1.4625], [-0.42325, -0.1750001, 0.1375]]),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_trajectory_matches_paddle(case):
    make, expected = CASES[case]
    w, _ = _train(make)
    np.testing.assert_allclose(w.numpy(), expected, atol=2e-6)


@pytest.mark.parametrize('case', ['nadam', 'radam', 'asgd', 'rprop'])
def test_static_minimize_equals_eager(case):
    make, _ = CASES[case]
    eager, _ = _train(make, steps=4)
    paddle.enable_static()
    try:
        main, start = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, start):
            w = paddle.static.create_parameter(
                [2, 3], 'float32', default_initializer=paddle.nn.initializer.Assign(W0))
            loss = _loss(w)
            make([w]).minimize(loss)
        exe = paddle.static.Executor()
        exe.run(start)
        for _ in range(4):
            exe.run(main)
        value = np.asarray(paddle.static.global_scope().find_var(w.name).get_tensor())
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(value, eager.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('case', ['nadam', 'radam', 'asgd', 'rprop'])
def test_state_dict_resumes_exactly(case):
    make, _ = CASES[case]
    straight, _ = _train(make, steps=6)
    w, opt = _train(make, steps=3)
    state = {k: (v.numpy() if hasattr(v, 'numpy') else v) for k, v in opt.state_dict().items()}
    w2 = paddle.create_parameter([2, 3], 'float32',
                                 default_initializer=paddle.nn.initializer.Assign(w.numpy()))
    w2.name = w.name
    opt2 = make([w2])
    opt2.set_state_dict(state)
    for _ in range(3):
        _loss(w2).backward()
        opt2.step()
        opt2.clear_grad()
    np.testing.assert_array_equal(w2.numpy(), straight.numpy())


def test_accumulator_names_follow_paddle():
    for case, names in (('nadam', ['momentum_decay_pow', 'beta2_pow', 'mu_product', 'moment1',
                                   'moment2']),
                        ('radam', ['beta1_pow', 'beta2_pow', 'rho', 'moment1', 'moment2']),
                        ('asgd', ['d', 'y', 'm']), ('rprop', ['prevs', 'learning_rates'])):
        w, opt = _train(CASES[case][0], steps=1)
        keys = sorted(opt.state_dict())
        assert keys == sorted('%s_%s_0' % (w.name, n) for n in names), (case, keys)
    w, opt = _train(CASES['asgd'][0], steps=1)
    assert opt.state_dict()[w.name + '_y_0'].shape == [3, 2, 3]


def test_asgd_averages_the_latest_gradient_of_each_slot():
    w = paddle.create_parameter([1], 'float32',
                                default_initializer=paddle.nn.initializer.Constant(0.0))
    opt = optim.ASGD(learning_rate=1.0, batch_num=2, parameters=[w])
    grads = [1.0, 3.0, 5.0, 7.0]
    expected = [0.0]
    slots = [0.0, 0.0]
    for i, g in enumerate(grads):
        w.grad = paddle.to_tensor([g])
        opt.step()
        slots[i % 2] = g
        expected.append(expected[-1] - sum(slots) / min(i + 1, 2))
        assert float(w.numpy()[0]) == pytest.approx(expected[-1])


def test_rprop_only_uses_the_gradient_sign():
    w = paddle.create_parameter([2], 'float32',
                                default_initializer=paddle.nn.initializer.Constant(0.0))
    opt = optim.Rprop(learning_rate=0.1, parameters=[w])
    for g, expect in (([5.0, -1e-3], [-0.1, 0.1]), ([2.0, -7.0], [-0.22, 0.22]),
                      ([-1.0, -1.0], [-0.22, 0.364])):
        w.grad = paddle.to_tensor(g)
        opt.step()
        np.testing.assert_allclose(w.numpy(), expect, rtol=1e-6)


def test_argument_checks():
    w = paddle.create_parameter([1], 'float32')
    with pytest.raises(ValueError, match='batch_num'):
        optim.ASGD(batch_num=0, parameters=[w])
    with pytest.raises(ValueError, match='learning_rate_range'):
        optim.Rprop(learning_rate=100.0, parameters=[w])
    with pytest.raises(ValueError, match='etas'):
        optim.Rprop(etas=(1.5, 1.2), parameters=[w])
    with pytest.raises(ValueError, match='beta1'):
        optim.NAdam(beta1=1.0, parameters=[w])
    with pytest.raises(ValueError, match='beta2'):
        optim.RAdam(beta2=-0.1, parameters=[w])


# ---- LBFGS ---------------------------------------------------------------------------

def _lbfgs_run(line_search_fn, history_size=100, max_iter=20, learning_rate=1.0):
    w = paddle.create_parameter([4], 'float32', default_initializer=paddle.nn.initializer.Assign(
        np.array([-1.2, 1.0, 0.5, -0.3], np.float32)))
    opt = optim.LBFGS(learning_rate=learning_rate, max_iter=max_iter, history_size=history_size,
                      line_search_fn=line_search_fn, parameters=[w])

    def closure():
        opt.clear_grad()
        a, b = w[:2], w[2:]
        loss = ((1 - a) ** 2).sum() + 10.0 * ((b - a * a) ** 2).sum()   # Rosenbrock
        loss.backward()
        return loss
    rows = []
    for _ in range(3):
        loss = opt.step(closure)
        rows.append([float(loss)] + w.numpy().tolist())
    return np.array(rows), opt


@pytest.mark.parametrize('args, expected', [
    (('strong_wolfe',), [[30.5759983, 1.0087706, 0.974084, 1.0178485, 0.9477831],
                         [0.0007603, 0.9999996, 1.0000004, 0.9999989, 1.0000007],
                         [0.0, 0.9999996, 1.0000004, 0.9999989, 1.0000007]]),
    ((None, 100, 20, 0.05), [[30.5759983, -0.9882087, 0.8166395, 0.6441942, 0.1216136],
                             [8.0646162, -0.8274378, 0.8093562, 0.6075764, 0.4660842],
                             [3.7923913, -0.1785716, 0.963223, -0.0177255, 0.8730358]]),
    (('strong_wolfe', 3, 7), [[30.5759983, 0.1048967, 0.6366273, -0.2137301, 0.5891687],
                              [1.7763985, 0.6685195, 0.8879429, 0.4124494, 0.7323711],
                              [0.1657574, 1.009806, 0.9735352, 1.0200444, 0.9468617]]),
])
def test_lbfgs_matches_paddle(args, expected):
    rows, opt = _lbfgs_run(*args)
    np.testing.assert_allclose(rows, expected, atol=5e-5, rtol=2e-5)
    state = opt.state_dict()['state']
    assert state['n_iter'] > 0 and state['func_evals'] >= state['n_iter']


def test_lbfgs_stops_at_a_minimum_and_refuses_minimize():
    w = paddle.create_parameter([2], 'float32',
                                default_initializer=paddle.nn.initializer.Constant(1.0))
    opt = optim.LBFGS(parameters=[w])
    calls = []

    def closure():
        calls.append(1)
        opt.clear_grad()
        loss = ((w - 1.0) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    assert len(calls) == 1            # zero gradient: no iteration
    with pytest.raises(RuntimeError, match='closure'):
        opt.minimize(((w - 1.0) ** 2).sum())
    with pytest.raises(ValueError, match='line_search_fn'):
        optim.LBFGS(parameters=[w], line_search_fn='armijo')
    with pytest.raises(TypeError):
        opt.step(None)


# ---- Lamb.always_adapt, AdamW.use_lowprecision_moment --------------------------------

@pytest.mark.parametrize('wd, always_adapt, exclude, expected', [
    (0.0, False, False, [[-0.000443, -0.900065, 1.701495], [-0.248439, 0.975738, -0.398556]]),
    (0.0, True, False, [[-0.011533, -0.889012, 1.69058], [-0.259288, 0.98529, -0.396288]]),
    (0.01, False, False, [[-0.010503, -0.887262, 1.686388], [-0.257522, 0.981432, -0.395955]]),
    (0.01, False, True, [[-0.000443, -0.900065, 1.701495], [-0.248439, 0.975738, -0.398556]]),
    (0.01, True, True, [[-0.011533, -0.889012, 1.69058], [-0.259288, 0.98529, -0.396288]]),
])
def test_lamb_adapts_like_paddle(wd, always_adapt, exclude, expected):
    """Paddle's Lamb skips the trust ratio for parameters without weight decay
    unless always_adapt (numbers from Paddle 3.3.1)."""
    w = paddle.create_parameter([2, 3], 'float32',
                                default_initializer=paddle.nn.initializer.Assign(W0))
    kw = {'exclude_from_weight_decay_fn': lambda p: True} if exclude else {}
    opt = optim.Lamb(learning_rate=0.1, lamb_weight_decay=wd, parameters=[w],
                     always_adapt=always_adapt, **kw)
    for _ in range(3):
        (paddle.sin(w * 3.0) + w * w).sum().backward()
        opt.step()
        opt.clear_grad()
    np.testing.assert_allclose(w.numpy(), expected, atol=5e-6)


@pytest.mark.parametrize('low', [False, True])
def test_adamw_low_precision_moments(low):
    w = paddle.Parameter(np.array([1.0, -2.0], dtype='float16'), name='w_lowp_%d' % low)
    opt = optim.AdamW(0.01, parameters=[w], use_lowprecision_moment=low, multi_precision=True)
    w.grad = paddle.to_tensor(np.array([0.5, 0.25], dtype='float16'))
    opt.step()
    moment = opt.state_dict()['%s_moment1_0' % w.name]
    assert moment.dtype == ('float16' if low else 'float32')
    assert w.dtype == 'float16' and float(w.numpy()[0]) < 1.0
