"""Optimizers: each update rule against an independent multi-step numpy
reference of its published formula, against PyTorch where the definitions
agree, parameter groups, weight decay, clipping, state-dict resume and errors."""
import numpy as np
import pytest

import framework as paddle
from framework import optimizer as optim
from framework.nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from framework.regularizer import L1Decay, L2Decay

SHAPES = [(3, 4), (5,)]
STEPS = 5


def make_params(seed=0, dtype='float64', prefix='p'):
    rng = np.random.default_rng(seed)
    return [paddle.Parameter(rng.standard_normal(s).astype(dtype), name='%s%d' % (prefix, i))
            for i, s in enumerate(SHAPES)]


def grad_sequence(seed=1, steps=STEPS):
    rng = np.random.default_rng(seed)
    return [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]


def backward_with(params, grads):
    """Produce exactly ``grads`` as the parameters' gradients through autograd."""
    loss = None
    for p, g in zip(params, grads):
        term = (p * paddle.to_tensor(g.astype(p.dtype))).sum()
        loss = term if loss is None else loss + term
    loss.backward()
    return loss


def run(opt_fn, steps=STEPS, seed=0, dtype='float64', grads=None):
    params = make_params(seed, dtype)
    opt = opt_fn(params)
    for gs in grads or grad_sequence(steps=steps):
        backward_with(params, gs)
        opt.step()
        opt.clear_grad()
    return [p.numpy() for p in params], opt


# ---- independent references (textbook formulas, state carried by hand) -----

def ref_run(update, init_state, steps=STEPS, seed=0, grads=None):
    params = [p.numpy() for p in make_params(seed)]
    states = [init_state(p) for p in params]
    for t, gs in enumerate(grads or grad_sequence(steps=steps), start=1):
        for i, g in enumerate(gs):
            params[i], states[i] = update(params[i], g, states[i], t)
    return params


def ref_sgd(lr):
    return lambda p, g, s, t: (p - lr * g, s), lambda p: None


def ref_momentum(lr, mu, nesterov=False, wd=0.0):
    def update(p, g, v, t):
        g = g + wd * p
        v = mu * v + g
        return (p - lr * (g + mu * v) if nesterov else p - lr * v), v
    return update, np.zeros_like


def ref_adam(lr, b1=0.9, b2=0.999, eps=1e-8, amsgrad=False, decoupled=0.0, coupled=0.0):
    def update(p, g, s, t):
        m, v, vmax = s
        p = p * (1 - lr * decoupled)
        g = g + coupled * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        m_hat = m / (1 - b1 ** t)
        v_hat = (vmax if amsgrad else v) / (1 - b2 ** t)
        return p - lr * m_hat / (np.sqrt(v_hat) + eps), (m, v, vmax)
    return update, lambda p: (np.zeros_like(p), np.zeros_like(p), np.zeros_like(p))


def ref_adamax(lr, b1=0.9, b2=0.999, eps=1e-8):
    def update(p, g, s, t):
        m, u = s
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u + eps, np.abs(g))
        return p - lr / (1 - b1 ** t) * m / u, (m, u)
    return update, lambda p: (np.zeros_like(p), np.zeros_like(p))


def ref_rmsprop(lr, rho=0.95, eps=1e-6, momentum=0.0, centered=False):
    def update(p, g, s, t):
        ms, mg, mom = s
        ms = rho * ms + (1 - rho) * g * g
        if centered:
            mg = rho * mg + (1 - rho) * g
            mom = momentum * mom + lr * g / np.sqrt(ms - mg * mg + eps)
        else:
            mom = momentum * mom + lr * g / np.sqrt(ms + eps)
        return p - mom, (ms, mg, mom)
    return update, lambda p: (np.zeros_like(p),) * 3


def ref_adagrad(lr, eps=1e-6, init=0.0):
    def update(p, g, acc, t):
        acc = acc + g * g
        return p - lr * g / (np.sqrt(acc) + eps), acc
    return update, lambda p: np.full_like(p, init)


def ref_adadelta(lr, rho=0.95, eps=1e-6):
    def update(p, g, s, t):
        eg, edx = s
        eg = rho * eg + (1 - rho) * g * g
        dx = -np.sqrt((edx + eps) / (eg + eps)) * g
        edx = rho * edx + (1 - rho) * dx * dx
        return p + lr * dx, (eg, edx)
    return update, lambda p: (np.zeros_like(p), np.zeros_like(p))


def ref_lamb(lr, wd=0.01, b1=0.9, b2=0.999, eps=1e-6, always_adapt=False):
    def update(p, g, s, t):
        m, v = s
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        r = (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps) + wd * p
        # Paddle: no layer-wise adaptation without weight decay unless always_adapt
        ratio = np.linalg.norm(p) / np.linalg.norm(r) if wd > 0 or always_adapt else 1.0
        return p - lr * ratio * r, (m, v)
    return update, lambda p: (np.zeros_like(p), np.zeros_like(p))


CASES = {
    'sgd': (lambda ps: optim.SGD(0.1, parameters=ps), ref_sgd(0.1)),
    'momentum': (lambda ps: optim.Momentum(0.05, 0.9, parameters=ps), ref_momentum(0.05, 0.9)),
    'nesterov': (lambda ps: optim.Momentum(0.05, 0.8, parameters=ps, use_nesterov=True),
                 ref_momentum(0.05, 0.8, nesterov=True)),
    'adam': (lambda ps: optim.Adam(0.01, parameters=ps), ref_adam(0.01)),
    'adam_betas': (lambda ps: optim.Adam(0.02, beta1=0.5, beta2=0.9, epsilon=1e-3, parameters=ps),
                   ref_adam(0.02, 0.5, 0.9, 1e-3)),
    'amsgrad': (lambda ps: optim.Adam(0.01, parameters=ps, amsgrad=True),
                ref_adam(0.01, amsgrad=True)),
    'adamw': (lambda ps: optim.AdamW(0.01, parameters=ps, weight_decay=0.1),
              ref_adam(0.01, decoupled=0.1)),
    'adamw_amsgrad': (lambda ps: optim.AdamW(0.01, parameters=ps, weight_decay=0.1, amsgrad=True),
                      ref_adam(0.01, decoupled=0.1, amsgrad=True)),
    'adamax': (lambda ps: optim.Adamax(0.01, parameters=ps), ref_adamax(0.01)),
    'rmsprop': (lambda ps: optim.RMSProp(0.01, parameters=ps), ref_rmsprop(0.01)),
    'rmsprop_centered': (lambda ps: optim.RMSProp(0.01, rho=0.9, momentum=0.5, centered=True,
                                                  parameters=ps),
                         ref_rmsprop(0.01, 0.9, momentum=0.5, centered=True)),
    'adagrad': (lambda ps: optim.Adagrad(0.1, parameters=ps, initial_accumulator_value=0.1),
                ref_adagrad(0.1, init=0.1)),
    'adadelta': (lambda ps: optim.Adadelta(1.0, parameters=ps), ref_adadelta(1.0)),
    'lamb': (lambda ps: optim.Lamb(0.01, parameters=ps), ref_lamb(0.01)),
}


@pytest.mark.parametrize('name', sorted(CASES))
def test_matches_published_formula(name):
    make, (update, init) = CASES[name]
    got, _ = run(make)
    want = ref_run(update, init)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize('name', ['sgd', 'adam', 'rmsprop_centered', 'lamb', 'adamw'])
def test_float32_parameters_stay_float32(name):
    make, (update, init) = CASES[name]
    got, opt = run(make, dtype='float32')
    want = ref_run(update, init)
    for g, w in zip(got, want):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5, err_msg=name)
    for acc in opt.state_dict().values():
        assert acc.dtype == np.float32


# ---- PyTorch as an oracle ------------------------------------------------------

TORCH = {
    'sgd_wd': (lambda ps: optim.SGD(0.1, parameters=ps, weight_decay=0.01),
               lambda t, ps: t.optim.SGD(ps, lr=0.1, weight_decay=0.01)),
    'momentum': (lambda ps: optim.Momentum(0.05, 0.9, parameters=ps, weight_decay=0.01),
                 lambda t, ps: t.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01)),
    'nesterov': (lambda ps: optim.Momentum(0.05, 0.9, parameters=ps, use_nesterov=True),
                 lambda t, ps: t.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True)),
    'adam': (lambda ps: optim.Adam(0.01, parameters=ps),
             lambda t, ps: t.optim.Adam(ps, lr=0.01)),
    'adam_l2': (lambda ps: optim.Adam(0.01, parameters=ps, weight_decay=0.05),
                lambda t, ps: t.optim.Adam(ps, lr=0.01, weight_decay=0.05)),
    'amsgrad': (lambda ps: optim.Adam(0.01, parameters=ps, amsgrad=True),
                lambda t, ps: t.optim.Adam(ps, lr=0.01, amsgrad=True)),
    'adamw': (lambda ps: optim.AdamW(0.01, parameters=ps, weight_decay=0.1),
              lambda t, ps: t.optim.AdamW(ps, lr=0.01, weight_decay=0.1)),
    'rmsprop': (lambda ps: optim.RMSProp(0.01, rho=0.9, epsilon=1e-12, parameters=ps),
                lambda t, ps: t.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-12)),
    'rmsprop_centered': (lambda ps: optim.RMSProp(0.01, rho=0.9, epsilon=1e-12, momentum=0.5,
                                                  centered=True, parameters=ps),
                         lambda t, ps: t.optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-12,
                                                       momentum=0.5, centered=True)),
    'adagrad': (lambda ps: optim.Adagrad(0.1, epsilon=1e-6, parameters=ps),
                lambda t, ps: t.optim.Adagrad(ps, lr=0.1, eps=1e-6)),
    'adadelta': (lambda ps: optim.Adadelta(0.5, rho=0.9, epsilon=1e-6, parameters=ps),
                 lambda t, ps: t.optim.Adadelta(ps, lr=0.5, rho=0.9, eps=1e-6)),
    'adamax': (lambda ps: optim.Adamax(0.01, parameters=ps),
               lambda t, ps: t.optim.Adamax(ps, lr=0.01)),
}


@pytest.mark.parametrize('name', sorted(TORCH))
def test_matches_pytorch(name):
    torch = pytest.importorskip('torch')
    make, make_torch = TORCH[name]
    got, _ = run(make)
    tparams = [torch.tensor(p.numpy(), requires_grad=True) for p in make_params()]
    topt = make_torch(torch, tparams)
    for gs in grad_sequence():
        for p, g in zip(tparams, gs):
            p.grad = torch.tensor(g)
        topt.step()
    # Adamax/RMSProp place epsilon differently from torch (see their docs)
    rtol = 1e-7 if name in ('adamax', 'rmsprop', 'rmsprop_centered') else 1e-10
    for g, t in zip(got, tparams):
        np.testing.assert_allclose(g, t.detach().numpy(), rtol=rtol, atol=1e-12, err_msg=name)


# ---- learning rate --------------------------------------------------------------

def test_scheduler_drives_the_learning_rate():
    sched = optim.lr.StepDecay(0.1, step_size=2, gamma=0.5)
    params = make_params()
    opt = optim.SGD(sched, parameters=params)
    expect = [p.numpy() for p in params]
    for k, gs in enumerate(grad_sequence()):
        lr = 0.1 * 0.5 ** (k // 2)
        assert opt.get_lr() == pytest.approx(lr)
        backward_with(params, gs)
        opt.step()
        opt.clear_grad()
        sched.step()
        expect = [e - lr * g for e, g in zip(expect, gs)]
    for p, e in zip(params, expect):
        np.testing.assert_allclose(p.numpy(), e, rtol=1e-12)


def test_set_lr_and_errors():
    params = make_params()
    opt = optim.SGD(0.1, parameters=params)
    opt.set_lr(0.3)
    assert opt.get_lr() == 0.3
    backward_with(params, grad_sequence()[0])
    before = params[0].numpy()
    opt.step()
    np.testing.assert_allclose(params[0].numpy(), before - 0.3 * grad_sequence()[0][0])
    with pytest.raises(TypeError, match='set_lr'):
        opt.set_lr('0.1')
    sched = optim.lr.ExponentialDecay(0.1, gamma=0.9)
    opt2 = optim.Adam(sched, parameters=make_params())
    with pytest.raises(RuntimeError, match='LRScheduler'):
        opt2.set_lr(0.1)
    opt.set_lr_scheduler(sched)
    assert opt.get_lr() == pytest.approx(0.1)
    with pytest.raises(TypeError):
        opt.set_lr_scheduler(0.1)


def test_per_parameter_learning_rate_multiplier():
    params = make_params()
    params[0].optimize_attr['learning_rate'] = 0.5
    opt = optim.SGD(0.2, parameters=params)
    gs = grad_sequence()[0]
    start = [p.numpy() for p in params]
    backward_with(params, gs)
    opt.step()
    np.testing.assert_allclose(params[0].numpy(), start[0] - 0.1 * gs[0])
    np.testing.assert_allclose(params[1].numpy(), start[1] - 0.2 * gs[1])


# ---- parameter groups -------------------------------------------------------------

def test_param_groups_learning_rate_is_a_multiplier_and_weight_decay_per_group():
    params = make_params()
    opt = optim.SGD(0.1, parameters=[
        {'params': [params[0]]},
        {'params': params[1], 'learning_rate': 0.5, 'weight_decay': 0.2}], weight_decay=0.01)
    gs = grad_sequence()[0]
    start = [p.numpy() for p in params]
    backward_with(params, gs)
    opt.step()
    np.testing.assert_allclose(params[0].numpy(), start[0] - 0.1 * (gs[0] + 0.01 * start[0]))
    np.testing.assert_allclose(params[1].numpy(),
                               start[1] - 0.05 * (gs[1] + 0.2 * start[1]))


def test_param_group_overrides_hyper_parameters():
    params = make_params()
    opt = optim.Adam(0.01, parameters=[{'params': [params[0]], 'beta1': 0.5},
                                       {'params': [params[1]]}])
    got = run(lambda ps: optim.Adam(0.01, parameters=[{'params': [ps[0]], 'beta1': 0.5},
                                                     {'params': [ps[1]]}]))[0]
    fast = ref_run(*ref_adam(0.01, b1=0.5))
    plain = ref_run(*ref_adam(0.01))
    np.testing.assert_allclose(got[0], fast[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], plain[1], rtol=1e-10)
    assert opt._param_groups[0]['beta1'] == 0.5


def test_adamw_group_weight_decay_is_decoupled():
    got = run(lambda ps: optim.AdamW(0.01, parameters=[{'params': [ps[0]], 'weight_decay': 0.5},
                                                      {'params': [ps[1]]}],
                                     weight_decay=0.1))[0]
    np.testing.assert_allclose(got[0], ref_run(*ref_adam(0.01, decoupled=0.5))[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], ref_run(*ref_adam(0.01, decoupled=0.1))[1], rtol=1e-10)


def test_param_group_errors():
    params = make_params()
    with pytest.raises(ValueError, match='more than one parameter group'):
        optim.SGD(0.1, parameters=[{'params': params}, {'params': [params[0]]}])
    with pytest.raises(ValueError, match="'params'"):
        optim.SGD(0.1, parameters=[{'learning_rate': 0.1}])
    with pytest.raises(ValueError, match='betaa'):
        optim.Adam(0.1, parameters=[{'params': params, 'betaa': 0.5}])
    with pytest.raises(TypeError, match='set'):
        optim.SGD(0.1, parameters=[{'params': set(params)}])


# ---- weight decay ---------------------------------------------------------------------

@pytest.mark.parametrize('decay,term', [
    (0.1, lambda p: 0.1 * p),
    (L2Decay(0.1), lambda p: 0.1 * p),
    (L1Decay(0.1), lambda p: 0.1 * np.sign(p)),
])
def test_coupled_weight_decay_is_added_to_the_gradient(decay, term):
    params = make_params()
    start = [p.numpy() for p in params]
    gs = grad_sequence()[0]
    opt = optim.SGD(0.5, parameters=params, weight_decay=decay)
    backward_with(params, gs)
    opt.step()
    for p, s, g in zip(params, start, gs):
        np.testing.assert_allclose(p.numpy(), s - 0.5 * (g + term(s)), rtol=1e-12)


@pytest.mark.parametrize('cls', [optim.SGD, optim.Momentum])
def test_parameter_regularizer_wins_over_the_optimizers(cls):
    params = make_params()
    params[0].regularizer = L1Decay(0.3)
    start = [p.numpy() for p in params]
    gs = grad_sequence()[0]
    opt = cls(0.5, parameters=params, weight_decay=L2Decay(0.1))
    backward_with(params, gs)
    opt.step()
    # one step of momentum from zero velocity equals an SGD step
    l1 = 0.3 * np.sign(start[0])
    np.testing.assert_allclose(params[0].numpy(), start[0] - 0.5 * (gs[0] + l1))
    np.testing.assert_allclose(params[1].numpy(), start[1] - 0.5 * (gs[1] + 0.1 * start[1]))


def test_momentum_fused_l2_decay_matches_the_coupled_formula():
    got = run(lambda ps: optim.Momentum(0.05, 0.9, parameters=ps, weight_decay=L2Decay(0.02)))[0]
    want = ref_run(*ref_momentum(0.05, 0.9, wd=0.02))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_adam_coupled_weight_decay():
    got = run(lambda ps: optim.Adam(0.01, parameters=ps, weight_decay=0.05))[0]
    want = ref_run(*ref_adam(0.01, coupled=0.05))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    def make(ps):
        return optim.AdamW(0.01, parameters=ps, weight_decay=0.1,
                           apply_decay_param_fun=lambda name: name == 'p0',
                           lr_ratio=lambda p: 0.5 if p.name == 'p1' else 1.0)
    got = run(make)[0]
    np.testing.assert_allclose(got[0], ref_run(*ref_adam(0.01, decoupled=0.1))[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], ref_run(*ref_adam(0.005))[1], rtol=1e-10)


def test_lamb_exclude_from_weight_decay():
    got = run(lambda ps: optim.Lamb(0.01, lamb_weight_decay=0.1, parameters=ps,
                                    exclude_from_weight_decay_fn=lambda p: p.name == 'p1'))[0]
    np.testing.assert_allclose(got[0], ref_run(*ref_lamb(0.01, wd=0.1))[0], rtol=1e-10)
    np.testing.assert_allclose(got[1], ref_run(*ref_lamb(0.01, wd=0.0))[1], rtol=1e-10)


# ---- gradient clipping through the optimizer ------------------------------------------

def test_global_norm_clip_in_optimizer_and_need_clip():
    params = make_params()
    params[1].need_clip = False
    gs = [g * 10 for g in grad_sequence()[0]]
    start = [p.numpy() for p in params]
    opt = optim.SGD(1.0, parameters=params, grad_clip=ClipGradByGlobalNorm(1.0))
    backward_with(params, gs)
    opt.step()
    norm = np.sqrt(np.sum(gs[0] ** 2))      # only the clipped parameter counts
    np.testing.assert_allclose(params[0].numpy(), start[0] - gs[0] / norm, rtol=1e-12)
    np.testing.assert_allclose(params[1].numpy(), start[1] - gs[1], rtol=1e-12)


def test_group_grad_clip_overrides_the_optimizers():
    params = make_params()
    gs = [g * 10 for g in grad_sequence()[0]]
    start = [p.numpy() for p in params]
    opt = optim.SGD(1.0, parameters=[
        {'params': [params[0]], 'grad_clip': ClipGradByValue(0.5)},
        {'params': [params[1]]}], grad_clip=ClipGradByNorm(1.0))
    backward_with(params, gs)
    opt.step()
    np.testing.assert_allclose(params[0].numpy(), start[0] - np.clip(gs[0], -0.5, 0.5))
    np.testing.assert_allclose(params[1].numpy(), start[1] - gs[1] / np.linalg.norm(gs[1]))


# ---- step semantics ---------------------------------------------------------------------

def test_step_skips_params_without_grad_or_with_stop_gradient():
    params = make_params()
    frozen = paddle.Parameter(np.ones(3), name='frozen')
    unused = paddle.Parameter(np.ones(2), name='unused')
    opt = optim.Adam(0.1, parameters=params + [frozen, unused])
    frozen.grad = paddle.to_tensor(np.ones(3))
    frozen.stop_gradient = True
    backward_with(params, grad_sequence()[0])
    opt.step()
    np.testing.assert_array_equal(frozen.numpy(), np.ones(3))
    np.testing.assert_array_equal(unused.numpy(), np.ones(2))
    assert not any(k.startswith(('frozen', 'unused')) for k in opt.state_dict())


def test_step_bumps_the_version_so_stale_graphs_refuse_to_backward():
    w = paddle.Parameter(np.array([1.0, 2.0]), name='w')
    opt = optim.SGD(0.1, parameters=[w])
    y = (w * w).sum()
    v = w.inplace_version
    backward_with([w], [np.ones(2)])
    opt.step()
    assert w.inplace_version == v + 1
    with pytest.raises(RuntimeError, match='in-place'):
        y.backward()


def test_step_does_not_record_a_graph():
    w = paddle.Parameter(np.array([1.0, 2.0]), name='w')
    opt = optim.Momentum(0.1, parameters=[w])
    backward_with([w], [np.ones(2)])
    opt.step()
    assert w.is_leaf and not w.stop_gradient
    assert all(t.is_leaf for t in opt.state_dict().values())


def test_clear_grad_zero_or_none():
    params = make_params()
    opt = optim.SGD(0.1, parameters=params)
    backward_with(params, grad_sequence()[0])
    opt.clear_grad()
    assert all(np.all(p.grad.numpy() == 0) for p in params)
    opt.clear_gradients(set_to_zero=False)
    assert all(p.grad is None for p in params)


def test_minimize_runs_backward_when_needed_and_returns_paddles_shape():
    params = make_params()
    gs = grad_sequence()[0]
    start = [p.numpy() for p in params]
    loss = sum((p * paddle.to_tensor(g)).sum() for p, g in zip(params, gs))
    opt = optim.SGD(0.1, parameters=params)
    ops, params_grads = opt.minimize(loss)
    assert ops == [] and [p for p, _ in params_grads] == params
    for p, s, g in zip(params, start, gs):
        np.testing.assert_allclose(p.numpy(), s - 0.1 * g)
    # gradients already present: minimize does not run backward again
    params2 = make_params()
    loss2 = backward_with(params2, gs)
    optim.SGD(0.1, parameters=params2).minimize(loss2)
    for p, s, g in zip(params2, start, gs):
        np.testing.assert_allclose(p.numpy(), s - 0.1 * g)


def test_minimize_no_grad_set():
    params = make_params()
    loss = backward_with(params, grad_sequence()[0])
    start = params[1].numpy()
    optim.SGD(0.1, parameters=params).minimize(loss, no_grad_set={'p1'})
    np.testing.assert_array_equal(params[1].numpy(), start)


# ---- state dict -------------------------------------------------------------------------

RESUME = {
    'sgd_momentum': lambda ps, lr: optim.Momentum(lr, 0.9, parameters=ps, use_nesterov=True),
    'adam': lambda ps, lr: optim.Adam(lr, parameters=ps, amsgrad=True),
    'adamw': lambda ps, lr: optim.AdamW(lr, parameters=ps),
    'adamax': lambda ps, lr: optim.Adamax(lr, parameters=ps),
    'rmsprop': lambda ps, lr: optim.RMSProp(lr, centered=True, momentum=0.5, parameters=ps),
    'adagrad': lambda ps, lr: optim.Adagrad(lr, parameters=ps),
    'adadelta': lambda ps, lr: optim.Adadelta(lr, parameters=ps),
    'lamb': lambda ps, lr: optim.Lamb(lr, parameters=ps),
}


def _sched():
    return optim.lr.CosineAnnealingDecay(0.01, T_max=3)


def _train(opt, params, sched, grads):
    for gs in grads:
        backward_with(params, gs)
        opt.step()
        opt.clear_grad()
        sched.step()


@pytest.mark.parametrize('name', sorted(RESUME))
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
def test_state_dict_resume_is_bit_identical(name, dtype):
    grads = grad_sequence(steps=8)
    params = make_params(dtype=dtype)
    sched = _sched()
    _train(RESUME[name](params, sched), params, sched, grads)
    straight = [p.numpy() for p in params]

    params = make_params(dtype=dtype)
    sched = _sched()
    opt = RESUME[name](params, sched)
    _train(opt, params, sched, grads[:3])
    saved = {k: (v if k == 'LR_Scheduler' else v.numpy()) for k, v in opt.state_dict().items()}
    saved_params = [p.numpy() for p in params]
    assert 'LR_Scheduler' in saved

    params = make_params(seed=99, dtype=dtype)       # a fresh model ...
    for p, s in zip(params, saved_params):
        p.set_value(s)                              # ... restored from its checkpoint
    sched = _sched()
    opt = RESUME[name](params, sched)
    opt.set_state_dict(saved)                       # before any accumulator exists
    _train(opt, params, sched, grads[3:])
    for p, s in zip(params, straight):
        np.testing.assert_array_equal(p.numpy(), s, err_msg=name)


def test_state_dict_keys_follow_paddle_names():
    params = make_params()
    opt = optim.Adam(0.1, parameters=params)
    backward_with(params, grad_sequence()[0])
    opt.step()
    assert sorted(opt.state_dict()) == sorted(
        '%s_%s_0' % (p, a) for p in ('p0', 'p1')
        for a in ('moment1', 'moment2', 'beta1_pow_acc', 'beta2_pow_acc'))
    sd = opt.state_dict()
    np.testing.assert_allclose(sd['p0_beta1_pow_acc_0'].numpy(), [0.81])
    assert sd['p0_moment1_0'].shape == [3, 4] and sd['p0_beta2_pow_acc_0'].shape == [1]


def test_set_state_dict_into_existing_accumulators_and_errors():
    params = make_params()
    opt = optim.Momentum(0.1, parameters=params)
    backward_with(params, grad_sequence()[0])
    opt.step()
    sd = {k: v.numpy() * 2 for k, v in opt.state_dict().items()}
    opt.set_state_dict(sd)
    np.testing.assert_array_equal(opt.state_dict()['p0_velocity_0'].numpy(), sd['p0_velocity_0'])
    with pytest.raises(KeyError, match='p1_velocity_0'):
        opt.set_state_dict({'p0_velocity_0': sd['p0_velocity_0']})
    with pytest.raises(ValueError, match='shape'):
        opt.set_state_dict(dict(sd, p0_velocity_0=np.zeros(2)))
    with pytest.raises(ValueError, match='dtype'):
        opt.set_state_dict({k: v.astype('float32') for k, v in sd.items()})


# ---- errors -----------------------------------------------------------------------------

def test_parameters_none_in_dygraph_names_the_optimizer():
    with pytest.raises(AttributeError, match=r'Adam: parameters is None.*pass'):
        optim.Adam(0.1)


@pytest.mark.parametrize('kwargs,exc,match', [
    (dict(parameters=paddle.Parameter(np.ones(2))), TypeError, 'list of tensors'),
    (dict(parameters=[]), ValueError, 'empty'),
    (dict(parameters=[np.ones(2)]), TypeError, 'tensors'),
    (dict(learning_rate='0.1'), TypeError, 'learning_rate'),
    (dict(beta1=1.0), ValueError, 'beta1'),
    (dict(epsilon=-1.0), ValueError, 'epsilon'),
    (dict(weight_decay='x'), TypeError, 'weight_decay'),
    (dict(grad_clip=3.0), TypeError, 'grad_clip'),
])
def test_argument_errors(kwargs, exc, match):
    args = dict(learning_rate=0.1, parameters=make_params())
    args.update(kwargs)
    with pytest.raises(exc, match=match):
        optim.Adam(**args)


def test_wrong_gradient_shape_is_a_clear_op_error():
    w = paddle.Parameter(np.ones((2, 3)), name='w')
    w.grad = paddle.to_tensor(np.ones(3))
    with pytest.raises(paddle.OpError, match=r'adam.*grad shape \[3\].*\[2, 3\]'):
        optim.Adam(0.1, parameters=[w]).step()


@pytest.mark.parametrize('multi_precision', [True, False])
def test_half_parameters_update_in_float32(multi_precision):
    """Adam on a float16 parameter computes in float32 (on a float32 master
    weight with multi_precision) and rounds the result into the parameter."""
    w = paddle.Parameter(np.array([1.0, -2.0], dtype='float16'), name='w_half')
    ref = paddle.Parameter(np.array([1.0, -2.0], dtype='float32'), name='w_ref')
    opt = optim.Adam(0.01, parameters=[w], multi_precision=multi_precision)
    ref_opt = optim.Adam(0.01, parameters=[ref])
    for g in ([0.5, 0.25], [-0.125, 1.0], [0.75, -0.5]):
        w.grad = paddle.to_tensor(np.array(g, dtype='float16'))
        ref.grad = paddle.to_tensor(np.array(g, dtype='float32'))
        opt.step()
        ref_opt.step()
        if not multi_precision:     # the float32 reference restarts from the rounded value
            ref.data = w.data.astype(np.float32)
    assert w.dtype == 'float16'
    np.testing.assert_array_equal(w.numpy(), ref.numpy().astype(np.float16))
    assert ('master_weights' in opt.state_dict()) == multi_precision


# ---- regularizers and the op declarations ------------------------------------------------

def test_regularizers_return_the_decay_term():
    w = paddle.Parameter(np.array([2.0, -3.0]), name='w')
    np.testing.assert_allclose(L2Decay(0.1)(w, None).numpy(), [0.2, -0.3])
    np.testing.assert_allclose(L1Decay(0.1)(w, None).numpy(), [0.1, -0.1])
    assert str(L2Decay(0.5)) == 'L2Decay, coeff=0.500000'
    assert L1Decay(2).coeff == 2.0
    with pytest.raises(TypeError, match='L2Decay: coeff'):
        L2Decay('big')


@pytest.mark.parametrize('name', ['sgd', 'momentum', 'adam', 'adam_amsgrad', 'adamw',
                                  'adamw_amsgrad', 'adamax', 'rmsprop', 'adagrad', 'adadelta',
                                  'lamb'])
def test_update_ops_write_their_inputs_in_place_and_have_no_grad(name):
    from framework.ops import registry
    op = registry.lookup(name)
    assert not op.differentiable
    assert set(op.inplace_map) == set(op.output_names)
    for out, inp in op.inplace_map.items():
        assert out == inp + '_out' and inp in op.input_names
    assert op.input_names[:3] == ('param', 'grad', 'learning_rate')


@pytest.mark.parametrize('name', ['SGD', 'Momentum', 'Adam', 'AdamW', 'Adamax', 'RMSProp',
                                  'Adagrad', 'Adadelta', 'Lamb'])
def test_trains_a_linear_layer(name):
    paddle.seed(0)
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 3))
    x = paddle.to_tensor(xs.astype('float32'))
    y = paddle.to_tensor((xs @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype('float32'))
    model = paddle.nn.Linear(3, 1)
    kwargs = {'Adadelta': dict(learning_rate=1.0, epsilon=1e-2),
              'Adagrad': dict(learning_rate=0.3)}.get(name, dict(learning_rate=0.05))
    opt = getattr(optim, name)(parameters=model.parameters(), **kwargs)
    losses = []
    for _ in range(30):
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    assert losses[-1] < 0.8 * losses[0], (name, losses[0], losses[-1])
    if name != 'SGD':
        assert any(k.startswith(model.weight.name + '_') for k in opt.state_dict())


@pytest.mark.parametrize('cls,amsgrad', [('Adam', False), ('Adam', True), ('AdamW', False)])
def test_adam_family_updates_moments_in_place_with_the_ops_values(cls, amsgrad):
    from framework.ops import optim as optim_ops
    rng = np.random.default_rng(0)
    w = paddle.create_parameter([3, 4], 'float32')
    w.set_value(rng.standard_normal((3, 4)).astype('float32'))
    opt = getattr(paddle.optimizer, cls)(learning_rate=0.1, parameters=[w], amsgrad=amsgrad)
    for step in range(3):
        before = w.numpy()
        (w * paddle.to_tensor(rng.standard_normal((3, 4)).astype('float32'))).sum().backward()
        grad = w.grad.numpy()
        state = opt._state.get(w)
        saved = [s.data.copy() for s in state] if state else None
        buffers = [s.data for s in state] if state else None
        opt.step()
        opt.clear_grad()
        state = opt._state[w]
        if buffers is not None:      # moments keep their arrays; the values are the op's
            assert all(s.data is b for s, b in zip(state[:2], buffers[:2]))
            name = ('adamw' if cls == 'AdamW' else 'adam') + ('_amsgrad' if amsgrad else '')
            op = getattr(optim_ops, name + '_op')
            attrs = (0.9, 0.999, 1e-8) + ((0.01, 1.0, True) if cls == 'AdamW' else ())
            expect = op.kernel(before, grad, 0.1, *saved, *attrs)
            np.testing.assert_allclose(w.numpy(), expect[0], rtol=1e-6)
            for s, e in zip(state, expect[1:]):
                np.testing.assert_allclose(s.data, e, rtol=1e-6)
