"""Learning-rate schedulers against sequences computed by hand from Paddle's
formulas, state-dict round trips and argument errors."""
import math

import numpy as np
import pytest

import framework as paddle
from framework.optimizer import lr


def sequence(sched, n, metrics=None):
    out = []
    for k in range(n):
        out.append(sched())
        if metrics is None:
            sched.step()
        else:
            sched.step(metrics[k])
    return out


def check(sched, expect, **kw):
    np.testing.assert_allclose(sequence(sched, len(expect), **kw), expect, rtol=1e-12, atol=1e-15)


def test_step_decay():
    check(lr.StepDecay(0.5, step_size=2, gamma=0.1), [0.5, 0.5, 0.05, 0.05, 0.005, 0.005])


def test_multi_step_decay():
    check(lr.MultiStepDecay(0.5, milestones=[2, 5], gamma=0.1),
          [0.5, 0.5, 0.05, 0.05, 0.05, 0.005, 0.005])


def test_exponential_natural_exp_inverse_time():
    check(lr.ExponentialDecay(0.5, gamma=0.9), [0.5, 0.45, 0.405, 0.3645])
    check(lr.NaturalExpDecay(0.5, gamma=0.1), [0.5 * math.exp(-0.1 * e) for e in range(4)])
    check(lr.InverseTimeDecay(0.5, gamma=0.1), [0.5, 0.5 / 1.1, 0.5 / 1.2, 0.5 / 1.3])


def test_piecewise_decay():
    check(lr.PiecewiseDecay(boundaries=[2, 4], values=[0.1, 0.2, 0.3]),
          [0.1, 0.1, 0.2, 0.2, 0.3, 0.3])


def test_polynomial_decay_with_and_without_cycle():
    check(lr.PolynomialDecay(0.5, decay_steps=4, end_lr=0.1, power=2.0),
          [0.5, 0.4 * 0.75 ** 2 + 0.1, 0.4 * 0.25 + 0.1, 0.4 * 0.0625 + 0.1, 0.1, 0.1])
    check(lr.PolynomialDecay(0.5, decay_steps=4, end_lr=0.1, power=1.0, cycle=True),
          [0.5, 0.4, 0.3, 0.2, 0.1, 0.4 * (1 - 5 / 8) + 0.1, 0.4 * (1 - 6 / 8) + 0.1])


def test_noam_decay():
    expect = [0.0] + [2 ** -0.5 * min(e ** -0.5, e * 4 ** -1.5) for e in range(1, 9)]
    check(lr.NoamDecay(d_model=2, warmup_steps=4), expect)
    check(lr.NoamDecay(d_model=2, warmup_steps=4, learning_rate=0.1), [0.1 * v for v in expect])


def test_cosine_annealing_equals_the_closed_form():
    expect = [0.1 + 0.9 * (1 + math.cos(math.pi * e / 4)) / 2 for e in range(13)]
    got = sequence(lr.CosineAnnealingDecay(1.0, T_max=4, eta_min=0.1), 13)
    np.testing.assert_allclose(got, expect, rtol=1e-10)
    sched = lr.CosineAnnealingDecay(1.0, T_max=4, eta_min=0.1)
    sched.step(3)   # an explicit epoch uses the closed form
    assert sched() == pytest.approx(expect[3], rel=1e-14)


def test_linear_warmup_of_a_float_and_of_a_scheduler():
    check(lr.LinearWarmup(0.5, warmup_steps=4, start_lr=0.0, end_lr=0.4),
          [0.0, 0.1, 0.2, 0.30000000000000004, 0.5, 0.5])
    inner = lr.StepDecay(0.5, step_size=2, gamma=0.1)
    check(lr.LinearWarmup(inner, warmup_steps=3, start_lr=0.0, end_lr=0.5),
          [0.0, 0.5 / 3, 1.0 / 3, 0.5, 0.5, 0.05, 0.05, 0.005])


def test_lambda_and_multiplicative_decay():
    check(lr.LambdaDecay(0.5, lambda e: 0.95 ** e), [0.5 * 0.95 ** e for e in range(5)])
    factors = {1: 0.9, 2: 0.5, 3: 0.8, 4: 0.7, 5: 0.6}
    fn = lambda e: factors.get(e, 1.0)  # noqa: E731
    expect, cur = [0.5], 0.5
    for e in range(1, 6):
        cur = cur * fn(e)
        expect.append(cur)
    assert sequence(lr.MultiplicativeDecay(0.5, fn), 6) == expect   # bitwise
    jump = lr.MultiplicativeDecay(0.5, fn)
    jump.step(4)
    assert jump() == expect[4]
    jump.step()
    assert jump() == expect[5]


def test_reduce_on_plateau_min_rel_with_cooldown():
    metrics = [1.0, 0.9, 0.95, 0.95, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85]
    sched = lr.ReduceOnPlateau(1.0, factor=0.5, patience=2, cooldown=1)
    got = []
    for m in metrics:
        sched.step(m)
        got.append(sched())
    assert got == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25]
    assert sched.last_epoch == len(metrics)


def test_reduce_on_plateau_max_abs_min_lr_and_tensor_metrics():
    sched = lr.ReduceOnPlateau(1.0, mode='max', factor=0.5, patience=0, threshold=0.1,
                               threshold_mode='abs', min_lr=0.3)
    got = []
    for m in [1.0, 1.05, 1.2, 1.25, 1.0]:
        sched.step(paddle.to_tensor([m]))
        got.append(sched())
    assert got == [1.0, 0.5, 0.5, 0.3, 0.3]
    with pytest.raises(ValueError, match='one value'):
        sched.step(paddle.to_tensor([1.0, 2.0]))
    with pytest.raises(TypeError, match='metrics'):
        sched.step('loss')


def _one_cycle_cos(a, b, pct):
    return b + (a - b) * (1 + math.cos(math.pi * pct)) / 2


def test_one_cycle_two_phases_cos():
    lo, hi, end = 1.0 / 25, 1.0, 1e-4
    # phase 1: steps 0..2 (0.3 * 10 - 1 = 2), phase 2: steps 2..9
    expect = [_one_cycle_cos(lo, hi, e / 2) for e in range(3)]
    expect += [_one_cycle_cos(hi, end, (e - 2) / 7) for e in range(3, 10)]
    sched = lr.OneCycleLR(max_learning_rate=1.0, total_steps=10)
    np.testing.assert_allclose(sequence(sched, 10), expect, rtol=1e-12)
    with pytest.raises(ValueError, match='total_steps'):
        sched.step()


def test_one_cycle_three_phases_linear():
    lo, hi, end = 0.04, 1.0, 1e-4
    expect = [lo, hi, lo] + [lo + (end - lo) * (e - 2) / 7 for e in range(3, 10)]
    sched = lr.OneCycleLR(1.0, total_steps=10, phase_pct=0.2, anneal_strategy='linear',
                          three_phase=True)
    np.testing.assert_allclose(sequence(sched, 10), expect, rtol=1e-12)


def test_cyclic_lr_modes():
    check(lr.CyclicLR(0.1, 1.0, step_size_up=2, step_size_down=4),
          [0.1, 0.55, 1.0, 0.775, 0.55, 0.325, 0.1, 0.55])
    tri2 = sequence(lr.CyclicLR(0.1, 1.0, step_size_up=2, mode='triangular2'), 9)
    np.testing.assert_allclose(tri2[4:7], [0.1, 0.1 + 0.45 * 0.5, 0.1 + 0.9 * 0.5])
    exp = sequence(lr.CyclicLR(0.1, 1.0, step_size_up=2, mode='exp_range', exp_gamma=0.9), 4)
    np.testing.assert_allclose(exp, [0.1, 0.1 + 0.45 * 0.9, 0.1 + 0.9 * 0.81,
                                     0.1 + 0.45 * 0.729])


def test_linear_lr_and_warm_restarts():
    expect = [0.5 * (0.25 + 0.75 * min(e, 4) / 4) for e in range(7)]
    np.testing.assert_allclose(sequence(lr.LinearLR(0.5, total_steps=4, start_factor=0.25), 7),
                               expect, rtol=1e-12)
    c = lambda t, n: (1 + math.cos(math.pi * t / n)) / 2  # noqa: E731
    expect = [1.0, c(1, 2), 1.0, c(1, 4), c(2, 4), c(3, 4), 1.0, c(1, 8)]
    np.testing.assert_allclose(
        sequence(lr.CosineAnnealingWarmRestarts(1.0, T_0=2, T_mult=2), 8), expect, rtol=1e-12)


def test_custom_scheduler_and_base_class():
    class Halving(lr.LRScheduler):
        def get_lr(self):
            return self.base_lr * 0.5 ** self.last_epoch

    check(Halving(1.0), [1.0, 0.5, 0.25])
    with pytest.raises(NotImplementedError, match='get_lr'):
        lr.LRScheduler(0.1)


SCHEDULERS = {
    'step': lambda: lr.StepDecay(0.5, 2),
    'cosine': lambda: lr.CosineAnnealingDecay(0.5, 3),
    'warmup_cosine': lambda: lr.LinearWarmup(lr.CosineAnnealingDecay(0.5, 3), 2, 0.0, 0.5),
    'multiplicative': lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9),
    'one_cycle': lambda: lr.OneCycleLR(1.0, 12),
    'cyclic': lambda: lr.CyclicLR(0.1, 1.0, 3),
    'linear': lambda: lr.LinearLR(0.5, 5),
    'restarts': lambda: lr.CosineAnnealingWarmRestarts(1.0, 2, 2),
    'noam': lambda: lr.NoamDecay(8, 3),
}


@pytest.mark.parametrize('name', sorted(SCHEDULERS))
def test_state_dict_resume(name):
    straight = sequence(SCHEDULERS[name](), 10)
    first = SCHEDULERS[name]()
    head = sequence(first, 4)
    state = first.state_dict()
    resumed = SCHEDULERS[name]()
    resumed.set_state_dict(state)
    assert head + sequence(resumed, 6) == straight


def test_reduce_on_plateau_state_dict():
    sched = lr.ReduceOnPlateau(1.0, patience=0)
    for m in [1.0, 2.0]:
        sched.step(m)
    state = sched.state_dict()
    assert state == {'cooldown_counter': 0, 'best': 1.0, 'num_bad_epochs': 0,
                     'last_epoch': 2, 'last_lr': 0.1}
    other = lr.ReduceOnPlateau(1.0, patience=0)
    other.set_state_dict(state)
    other.step(3.0)
    assert other() == pytest.approx(0.01)


def test_set_state_dict_errors_and_warnings():
    with pytest.raises(RuntimeError, match="'last_lr' is missing"):
        lr.StepDecay(0.5, 2).set_state_dict({'last_epoch': 1})
    with pytest.warns(UserWarning, match='unused keys'):
        lr.StepDecay(0.5, 2).set_state_dict({'last_epoch': 1, 'last_lr': 0.5, 'extra': 1})


def test_verbose_prints(capsys):
    sched = lr.StepDecay(0.5, 1, gamma=0.5, verbose=True)
    sched.step()
    out = capsys.readouterr().out
    assert 'Epoch 1: StepDecay set learning rate to 0.25.' in out


@pytest.mark.parametrize('make,exc,match', [
    (lambda: lr.StepDecay('0.1', 2), TypeError, 'learning_rate'),
    (lambda: lr.StepDecay(-0.1, 2), ValueError, 'learning_rate'),
    (lambda: lr.StepDecay(0.1, 2.5), TypeError, 'step_size'),
    (lambda: lr.StepDecay(0.1, 2, gamma=1.5), ValueError, 'gamma'),
    (lambda: lr.MultiStepDecay(0.1, [3, 2]), ValueError, 'increasing'),
    (lambda: lr.PiecewiseDecay([1, 2], [0.1]), ValueError, 'one more'),
    (lambda: lr.ExponentialDecay(0.1, 1.2), ValueError, 'gamma'),
    (lambda: lr.PolynomialDecay(0.1, 0), ValueError, 'decay_steps'),
    (lambda: lr.LinearWarmup('x', 2, 0.0, 0.1), TypeError, 'learning_rate'),
    (lambda: lr.ReduceOnPlateau(0.1, mode='avg'), ValueError, 'mode'),
    (lambda: lr.OneCycleLR(1.0, 10, anneal_strategy='exp'), ValueError, 'anneal_strategy'),
    (lambda: lr.OneCycleLR(1.0, 10, phase_pct=0.6, three_phase=True), ValueError, 'phase_pct'),
    (lambda: lr.CyclicLR(0.1, 1.0, 2, mode='sine'), ValueError, 'mode'),
    (lambda: lr.LambdaDecay(0.1, 0.9), TypeError, 'lr_lambda'),
])
def test_argument_errors(make, exc, match):
    with pytest.raises(exc, match=match):
        make()


def test_matches_pytorch_schedulers():
    torch = pytest.importorskip('torch')
    pairs = [
        (lr.StepDecay(0.5, 3, gamma=0.5),
         lambda o: torch.optim.lr_scheduler.StepLR(o, 3, gamma=0.5)),
        (lr.MultiStepDecay(0.5, [2, 5], gamma=0.3),
         lambda o: torch.optim.lr_scheduler.MultiStepLR(o, [2, 5], gamma=0.3)),
        (lr.ExponentialDecay(0.5, 0.8),
         lambda o: torch.optim.lr_scheduler.ExponentialLR(o, 0.8)),
        (lr.CosineAnnealingDecay(0.5, 4, eta_min=0.01),
         lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 4, eta_min=0.01)),
    ]
    for ours, make in pairs:
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.5)
        theirs = make(opt)
        want = []
        for _ in range(12):
            want.append(opt.param_groups[0]['lr'])
            opt.step()
            theirs.step()
        np.testing.assert_allclose(sequence(ours, 12), want, rtol=1e-10,
                                   err_msg=type(ours).__name__)
