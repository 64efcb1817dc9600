"""``paddle.distributed.fleet``: the collective (data-parallel) part of Fleet.

    fleet.init(is_collective=True)
    model = fleet.distributed_model(model)              # eager: a DataParallel
    opt = fleet.distributed_optimizer(opt)

In static mode ``distributed_model`` returns the model as it is and the
optimizer's ``minimize(loss)`` appends, after the backward ops, an all-reduce
(``c_allreduce_sum``) and a ``1/nranks`` scale of every gradient before the
update ops, and broadcasts rank 0's initial parameters in the startup program.
"""
from ...ops.modes import in_static_mode as in_static
from .. import env
from ..parallel import DataParallel
from .. import dataset  # noqa: F401  (fleet.dataset, as Paddle's)
from ..dataset import (DatasetBase, FileInstantDataset,  # noqa: F401
                       InMemoryDataset, QueueDataset)

__all__ = ['init', 'DistributedStrategy', 'distributed_model', 'distributed_optimizer',
           'worker_index', 'worker_num', 'is_first_worker', 'is_worker', 'is_server',
           'local_rank', 'world_size', 'barrier_worker', 'Fleet', 'fleet']


class DistributedStrategy:
    """Strategy switches; data parallelism needs none, others are kept as set."""

    def __init__(self):
        self.hybrid_configs = {'dp_degree': -1, 'mp_degree': 1, 'pp_degree': 1,
                               'sharding_degree': 1}
        self.amp = False
        self.recompute = False
        self.gradient_merge = False
        self.fuse_all_reduce_ops = True
        self.fuse_grad_size_in_MB = 32
        self.find_unused_parameters = False
        self.without_graph_optimization = False

    def __repr__(self):
        return 'DistributedStrategy(%s)' % self.hybrid_configs


class DistributedOptimizer:
    """An optimizer whose gradients are averaged over the ranks.

    Eagerly the averaging is DataParallel's (during backward), so ``step``,
    ``minimize`` and the rest are the inner optimizer's; in static mode
    ``minimize`` inserts the all-reduce ops into the program."""

    def __init__(self, optimizer, strategy=None):
        self.inner_opt = optimizer
        self.user_defined_strategy = strategy or DistributedStrategy()

    def __getattr__(self, name):
        return getattr(self.inner_opt, name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        if not in_static():
            return self.inner_opt.minimize(loss, startup_program, parameters, no_grad_set)
        from ...static import default_startup_program
        params_grads = self.inner_opt.backward(loss, startup_program, parameters, no_grad_set)
        averaged = allreduce_gradients(params_grads)
        broadcast_startup_params(startup_program or default_startup_program(),
                                 [p for p, _ in params_grads])
        return self.inner_opt.apply_gradients(averaged), averaged

    def step(self):
        return self.inner_opt.step()

    def clear_grad(self, set_to_zero=True):
        return self.inner_opt.clear_grad(set_to_zero)


def allreduce_gradients(params_grads, group=None):
    """Static mode: each gradient summed over the ranks and divided by their
    number (``c_allreduce_sum`` then ``scale``), appended to the program."""
    from ...ops.math import scale_op
    from ..ops import c_allreduce_sum
    group = group or env.default_group()
    if group.nranks == 1:
        return list(params_grads)
    out = []
    for p, g in params_grads:
        summed = c_allreduce_sum(g, group.id)
        out.append((p, scale_op(summed, 1.0 / group.nranks)))
    return out


def broadcast_startup_params(startup, params, group=None):
    """Append broadcasts from rank 0 of the parameters' initial values to ``startup``."""
    from ...static import program_guard
    from ...graph.program import Program
    from ..ops import c_broadcast
    group = group or env.default_group()
    if group.nranks == 1:
        return
    block = startup.global_block()
    with program_guard(startup, Program()):
        for p in params:
            var = block.vars.get(p.name)
            if var is not None:
                var._inplace_assign(c_broadcast(var, 0, group.id))


class Fleet:
    """The ``fleet`` singleton's methods (also exported as module functions)."""

    def __init__(self):
        self._strategy = None
        self._is_collective = True

    def init(self, role_maker=None, is_collective=False, strategy=None, log_level='INFO'):
        self._is_collective = bool(is_collective) or role_maker is None
        self._strategy = strategy or DistributedStrategy()
        env.init_parallel_env()

    def worker_index(self):
        return env.get_rank()

    def worker_num(self):
        return env.get_world_size()

    def is_first_worker(self):
        return env.get_rank() == 0

    def is_worker(self):
        return True

    def is_server(self):
        return False

    def local_rank(self):
        return env.ParallelEnv().local_rank

    def world_size(self):
        return env.get_world_size()

    def barrier_worker(self):
        env.barrier()

    def distributed_model(self, model):
        if in_static():
            return model
        strategy = self._strategy or DistributedStrategy()
        return DataParallel(model, find_unused_parameters=strategy.find_unused_parameters)

    def distributed_optimizer(self, optimizer, strategy=None):
        if strategy is not None:
            self._strategy = strategy
        return DistributedOptimizer(optimizer, strategy or self._strategy)


fleet = Fleet()
init = fleet.init
worker_index = fleet.worker_index
worker_num = fleet.worker_num
is_first_worker = fleet.is_first_worker
is_worker = fleet.is_worker
is_server = fleet.is_server
local_rank = fleet.local_rank
world_size = fleet.world_size
barrier_worker = fleet.barrier_worker
distributed_model = fleet.distributed_model
distributed_optimizer = fleet.distributed_optimizer
