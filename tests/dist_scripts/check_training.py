"""Run by tests/test_distributed.py under ``mpiexec -n 2``: data-parallel
training on 2 ranks, each with half of every batch, against one process
training on the whole batch (float64). Prints ``rank<r> PASS|FAIL <check>``.
argv[1]: a directory shared by the ranks (checkpoints)."""
import os
import sys
import traceback

import numpy as np

import framework as paddle
import framework.distributed as dist
from framework.distributed import fleet

dist.init_parallel_env()
RANK, N = dist.get_rank(), dist.get_world_size()
SHARED = sys.argv[1]
paddle.set_default_dtype('float64')
CHECKS = []
TOL = 1e-6


def check(fn):
    CHECKS.append(fn)
    return fn


def mlp(seed):
    paddle.seed(seed)
    return paddle.nn.Sequential(paddle.nn.Linear(6, 16), paddle.nn.Tanh(), paddle.nn.Linear(16, 16),
                                paddle.nn.Tanh(), paddle.nn.Linear(16, 3))


def batches(steps, batch, in_shape, classes=None, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        x = rng.standard_normal((batch,) + in_shape)
        y = (rng.integers(0, classes, (batch, 1)) if classes else rng.standard_normal((batch, 3)))
        yield x, y


def half(a):
    n = len(a) // N
    return a[RANK * n:(RANK + 1) * n]


def mse(model, x, y):
    return ((model(paddle.to_tensor(x)) - paddle.to_tensor(y)) ** 2).mean()


def assert_same_params(a, b):
    for (name, p), q in zip(a.named_parameters(), b.parameters()):
        err = np.abs(p.numpy() - q.numpy()).max()
        assert err < TOL, "parameter %s differs by %g" % (name, err)


def global_loss(loss):
    """The mean of the ranks' half-batch losses: the whole batch's loss."""
    t = paddle.to_tensor(np.array(float(loss)))
    dist.all_reduce(t, dist.ReduceOp.AVG)
    return float(t)


def train_pair(make, loss_fn, data, opt_cls=paddle.optimizer.SGD, lr=0.1, **dp_args):
    """Train DataParallel (half batches) and a single-process copy (whole
    batches) side by side; check losses and parameters after every step."""
    model = paddle.DataParallel(make(RANK + 1), **dp_args)    # seeds differ: broadcast fixes it
    ref = make(RANK + 1)
    ref.set_state_dict(model.state_dict())
    opt = opt_cls(lr, parameters=model.parameters())
    ref_opt = opt_cls(lr, parameters=ref.parameters())
    for x, y in data:
        loss = loss_fn(model, half(x), half(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
        ref_loss = loss_fn(ref, x, y)
        ref_loss.backward()
        ref_opt.step()
        ref_opt.clear_grad()
        got = global_loss(loss)
        assert abs(got - float(ref_loss)) < TOL, (got, float(ref_loss))
        assert_same_params(model, ref)
    return model, ref


@check
def mlp_matches_single_process():
    train_pair(mlp, mse, batches(4, 8, (6,)))


@check
def mlp_adam_small_buckets():
    model, _ = train_pair(mlp, mse, batches(3, 8, (6,), seed=1), paddle.optimizer.Adam, 0.01,
                          comm_buffer_size=0.001, last_comm_buffer_size=0.0005)
    assert len(model._buckets) > 2


@check
def lenet_matches_single_process():
    def make(seed):
        paddle.seed(seed)
        return paddle.vision.models.LeNet(num_classes=10)

    def ce(model, x, y):
        return paddle.nn.functional.cross_entropy(model(paddle.to_tensor(x)), paddle.to_tensor(y))
    train_pair(make, ce, batches(2, 4, (1, 28, 28), classes=10, seed=2), lr=0.05)


@check
def no_sync_accumulation():
    model = paddle.DataParallel(mlp(RANK + 7))
    ref = mlp(0)
    ref.set_state_dict(model.state_dict())
    opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
    ref_opt = paddle.optimizer.SGD(0.1, parameters=ref.parameters())
    data = list(batches(4, 8, (6,), seed=3))
    for k in range(0, 4, 2):            # two micro-batches per step
        (x1, y1), (x2, y2) = data[k], data[k + 1]
        with model.no_sync():
            mse(model, half(x1), half(y1)).backward()
        grads_local = [p.grad.numpy().copy() for p in model.parameters()]
        mse(model, half(x2), half(y2)).backward()
        opt.step()
        opt.clear_grad()
        mse(ref, x1, y1).backward()
        mse(ref, x2, y2).backward()
        ref_opt.step()
        ref_opt.clear_grad()
        assert_same_params(model, ref)
    # inside no_sync the gradients stayed this rank's own
    other = []
    dist.all_gather_object(other, grads_local[0].tolist())
    assert not np.allclose(other[0], other[1])


class StaticMLP(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.l1 = paddle.nn.Linear(6, 16)
        self.l2 = paddle.nn.Linear(16, 3)

    @paddle.jit.to_static
    def forward(self, x):
        h = paddle.tanh(self.l1(x))
        if paddle.mean(h) > 100.0:      # a tensor condition: a static cond
            h = h * 0.0
        return self.l2(h)


@check
def to_static_layer():
    def make(seed):
        paddle.seed(seed)
        return StaticMLP()
    train_pair(make, mse, batches(3, 8, (6,), seed=4))


@check
def to_static_over_data_parallel():
    def make(seed):
        paddle.seed(seed)
        return mlp(seed)
    model = paddle.jit.to_static(paddle.DataParallel(make(RANK + 41)))
    ref = make(0)
    ref.set_state_dict(model.state_dict())
    opt = paddle.optimizer.SGD(0.1, parameters=model.parameters())
    ref_opt = paddle.optimizer.SGD(0.1, parameters=ref.parameters())
    for x, y in batches(2, 8, (6,), seed=9):
        mse(model, half(x), half(y)).backward()
        opt.step()
        opt.clear_grad()
        mse(ref, x, y).backward()
        ref_opt.step()
        ref_opt.clear_grad()
    assert_same_params(model._layers, ref)


@check
def all_reduce_inside_to_static_function():
    @paddle.jit.to_static
    def f(x):
        y = x * 2.0
        dist.all_reduce(y)
        if y.sum() > 0:
            y = y + 1.0
        return y
    x = paddle.to_tensor(np.array([1.0, 2.0]) * (RANK + 1))
    np.testing.assert_allclose(f(x).numpy(), np.array([1.0, 2.0]) * 2 * 3 + 1.0)


@check
def find_unused_parameters():
    class TwoHeads(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.body = paddle.nn.Linear(6, 3)
            self.unused = paddle.nn.Linear(3, 3)

        def forward(self, x):
            return self.body(x)

    def make(seed):
        paddle.seed(seed)
        return TwoHeads()
    train_pair(make, mse, batches(2, 8, (6,), seed=5), find_unused_parameters=True)
    model = paddle.DataParallel(make(0))        # find_unused_parameters=False
    try:
        mse(model, half(np.ones((8, 6))), half(np.ones((8, 3)))).backward()
    except RuntimeError as e:
        assert 'find_unused_parameters' in str(e), str(e)
    else:
        raise AssertionError('no error for a parameter without gradient')


@check
def overlap_allreduce_starts_before_backward_ends():
    def deep(seed):
        paddle.seed(seed)
        layers = []
        for _ in range(8):
            layers += [paddle.nn.Linear(64, 64), paddle.nn.Tanh()]
        return paddle.nn.Sequential(*layers)
    model = paddle.DataParallel(deep(3), comm_buffer_size=0.02, last_comm_buffer_size=0.02)
    x = np.random.default_rng(6).standard_normal((16, 64))
    mse_loss = ((model(paddle.to_tensor(half(x))) ** 2).mean())
    mse_loss.backward()
    events = model.comm_trace
    kinds = [e[0] for e in events]
    first_start = kinds.index('allreduce_start')
    last_ready = len(kinds) - 1 - kinds[::-1].index('grad_ready')
    assert first_start < last_ready, kinds
    assert events[first_start][2] < events[last_ready][2]
    assert len(model._buckets) >= 4


@check
def fleet_eager():
    fleet.init(is_collective=True)
    assert (fleet.worker_index(), fleet.worker_num()) == (RANK, N)
    model = fleet.distributed_model(mlp(RANK + 11))
    assert isinstance(model, paddle.DataParallel)
    opt = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1, parameters=model.parameters()))
    ref = mlp(0)
    ref.set_state_dict(model.state_dict())
    ref_opt = paddle.optimizer.SGD(0.1, parameters=ref.parameters())
    for x, y in batches(2, 8, (6,), seed=7):
        mse(model, half(x), half(y)).backward()
        opt.step()
        opt.clear_grad()
        mse(ref, x, y).backward()
        ref_opt.step()
        ref_opt.clear_grad()
    assert_same_params(model, ref)


@check
def fleet_static():
    data = list(batches(3, 8, (6,), seed=8))
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            paddle.seed(RANK + 21)          # different initial values: startup broadcasts
            x = paddle.static.data('x', [-1, 6], 'float64')
            y = paddle.static.data('y', [-1, 3], 'float64')
            h = paddle.static.nn.fc(x, 16, activation='tanh')
            out = paddle.static.nn.fc(h, 3)
            loss = ((out - y) ** 2).mean()
            fleet.init(is_collective=True)
            opt = fleet.distributed_optimizer(paddle.optimizer.SGD(0.1))
            opt.minimize(loss)
        types = [op.type for op in main.global_block().ops]
        assert 'c_allreduce_sum' in types, types
        exe = paddle.static.Executor()
        exe.run(startup)
        params = [p.name for p in main.all_parameters()]
        scope = paddle.static.global_scope()
        init = {n: np.array(scope.find_var(n).get_tensor()) for n in params}
        losses = []
        for xb, yb in data:
            l, = exe.run(main, feed={'x': half(xb), 'y': half(yb)}, fetch_list=[loss])
            losses.append(float(np.asarray(l)))
        final = {n: np.array(scope.find_var(n).get_tensor()) for n in params}
    finally:
        paddle.disable_static()
    everyone = []
    dist.all_gather_object(everyone, init)
    for n in params:
        np.testing.assert_array_equal(everyone[0][n], everyone[1][n])
    # the same network eagerly in one process on the whole batches
    tensors = [paddle.to_tensor(init[n], stop_gradient=False) for n in params]
    w1, b1, w2, b2 = tensors          # all_parameters() is in creation order
    for (xb, yb), got in zip(data, losses):
        h = paddle.tanh(paddle.to_tensor(xb) @ w1 + b1)
        ref_loss = ((h @ w2 + b2 - paddle.to_tensor(yb)) ** 2).mean()
        assert abs(global_loss(got) - float(ref_loss)) < TOL, (got, float(ref_loss))
        ref_loss.backward()
        with paddle.no_grad():
            for t in tensors:
                t.set_value(t - 0.1 * t.grad)
                t.clear_grad()
    for n, t in zip(params, tensors):
        assert np.abs(final[n] - t.numpy()).max() < TOL, n


@check
def distributed_batch_sampler_defaults_to_the_rank():
    sampler = paddle.io.DistributedBatchSampler(list(range(10)), batch_size=2, shuffle=True)
    assert (sampler.nranks, sampler.local_rank) == (N, RANK)
    sampler.set_epoch(3)
    mine = [i for b in sampler for i in b]
    everyone = []
    dist.all_gather_object(everyone, mine)
    assert sorted(everyone[0] + everyone[1]) == list(range(10))


@check
def checkpoint_saved_on_rank0_loads_everywhere():
    model = paddle.DataParallel(mlp(RANK + 31))
    path = os.path.join(SHARED, 'model.pdparams')
    if RANK == 0:
        paddle.save(model.state_dict(), path)
    dist.barrier()
    state = paddle.load(path)
    assert sorted(state) == sorted(model._layers.state_dict())
    fresh = mlp(99)
    fresh.set_state_dict(state)
    assert_same_params(model._layers, fresh)


def main():
    for fn in CHECKS:
        try:
            fn()
            print('rank%d PASS %s' % (RANK, fn.__name__), flush=True)
        except Exception:
            print('rank%d FAIL %s: %s' % (RANK, fn.__name__,
                                          traceback.format_exc().replace('\n', ' | ')), flush=True)
    dist.barrier()


if __name__ == '__main__':
    main()
