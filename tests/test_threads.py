"""State that PyTorch keeps per thread is per thread here too: grad mode, the
static/dynamic switch, program and scope guards, unique-name guards. Two
threads training at once give what they give one after the other."""
import threading
import time

import numpy as np

import framework as paddle
from framework import nn


def _in_threads(*fns):
    """Run each fn in its own thread, all started together; re-raise failures."""
    errors, results = [], [None] * len(fns)
    barrier = threading.Barrier(len(fns))

    def run(k, fn):
        try:
            barrier.wait()
            results[k] = fn()
        except BaseException as e:    # noqa: BLE001  (re-raised below)
            errors.append(e)
    threads = [threading.Thread(target=run, args=(k, fn)) for k, fn in enumerate(fns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    if errors:
        raise errors[0]
    return results


def test_no_grad_in_one_thread_leaves_the_others_recording():
    inside, started = threading.Event(), threading.Event()

    def blocker():
        with paddle.no_grad():
            started.set()
            inside.wait(10)
            return paddle.is_grad_enabled()

    def trainer():
        started.wait(10)
        x = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
        (x * x).sum().backward()
        inside.set()
        return paddle.is_grad_enabled(), x.grad.numpy().tolist()

    blocked, (enabled, grad) = _in_threads(blocker, trainer)
    assert blocked is False and enabled is True and grad == [2.0, 4.0]
    assert paddle.is_grad_enabled()


def test_a_new_thread_starts_with_grad_on_and_in_dynamic_mode():
    with paddle.no_grad():
        paddle.enable_static()
        try:
            seen = _in_threads(lambda: (paddle.is_grad_enabled(), paddle.in_dynamic_mode()))[0]
        finally:
            paddle.disable_static()
    assert seen == (True, True)


def _train(seed, steps=5):
    paddle.seed(seed)
    rng = np.random.default_rng(seed)
    net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    for p, v in zip(net.parameters(), [rng.standard_normal(p.shape).astype('float32')
                                       for p in net.parameters()]):
        p.set_value(v)
    opt = paddle.optimizer.Adam(0.05, parameters=net.parameters())
    x = paddle.to_tensor(rng.standard_normal((16, 4)).astype('float32'))
    y = paddle.to_tensor(rng.standard_normal((16, 1)).astype('float32'))
    losses = []
    for _ in range(steps):
        loss = ((net(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        with paddle.no_grad():      # an evaluation inside the loop, as hapi.Model does
            losses.append(float(((net(x) - y) ** 2).mean()))
    return losses


def test_two_threads_training_at_once_match_one_after_the_other():
    alone = [_train(1), _train(2)]
    together = _in_threads(lambda: _train(1), lambda: _train(2))
    np.testing.assert_allclose(together, alone, rtol=1e-6)


def test_static_mode_and_program_guards_are_per_thread():
    def build(n):
        paddle.enable_static()
        try:
            main = paddle.static.Program()
            with paddle.static.program_guard(main, paddle.static.Program()):
                x = paddle.static.data('x', [2], 'float32')
                y = x
                for _ in range(n):
                    y = y * 2.0
            return main, y.name
        finally:
            paddle.disable_static()

    def eager_meanwhile():
        t = paddle.ones([2]) * 3
        return type(t).__name__, paddle.in_dynamic_mode()

    (p1, n1), (p2, n2), eager = _in_threads(lambda: build(3), lambda: build(5), eager_meanwhile)
    assert eager == ('Tensor', True)
    def multiplies(p):
        return sum(op.type == 'multiply' for op in p.global_block().ops)
    assert multiplies(p1) == 3 and multiplies(p2) == 5
    exe = paddle.static.Executor()
    out = exe.run(p2, feed={'x': np.ones(2, 'float32')}, fetch_list=[n2])
    np.testing.assert_allclose(out[0], [32.0, 32.0])


def test_scope_guard_is_per_thread():
    def use(value):
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            paddle.static.global_scope().vars['v'] = np.array(value)
            return paddle.static.global_scope() is scope

    assert _in_threads(lambda: use(1), lambda: use(2)) == [True, True]
    assert 'v' not in paddle.static.global_scope().vars


def test_unique_name_guards_are_per_thread():
    def names():
        with paddle.utils.unique_name.guard():
            return [nn.Linear(2, 2).weight.name for _ in range(3)]

    a, b = _in_threads(names, names)
    assert a == b == names()


def test_name_scopes_are_per_thread():
    def scoped(prefix):
        main = paddle.static.Program()
        paddle.enable_static()                # per thread too
        try:
            with paddle.static.program_guard(main, paddle.static.Program()):
                with paddle.static.name_scope(prefix):
                    x = paddle.static.data('x', [2], 'float32')
                    time.sleep(0.05)        # the other thread opens its scope meanwhile
                    x * 2.0
        finally:
            paddle.disable_static()
        return [op.attrs.get('op_namescope') for op in main.global_block().ops
                if op.type != 'feed'][-1]

    assert _in_threads(lambda: scoped('a'), lambda: scoped('b')) == ['/a/', '/b/']
