"""The parallel environment: which rank this is, of how many, and the groups.

``init_parallel_env()`` joins the MPI world when an MPI launcher started the
process (``mpiexec -n 2 python train.py``, ``python -m
framework.distributed.launch``, a cluster's ``srun``) and is a world of one
process otherwise, with or without mpi4py installed.

>>> import framework.distributed as dist
>>> dist.init_parallel_env().nranks
1
>>> dist.get_rank(), dist.get_world_size()
(0, 1)
"""
import datetime
import os

from . import backend as be

__all__ = ['Group', 'ParallelEnv', 'init_parallel_env', 'is_initialized', 'get_rank',
           'get_world_size', 'new_group', 'get_group', 'destroy_process_group', 'barrier',
           'get_backend', 'is_available', 'ParallelMode', 'shutdown_process_group',
           'gloo_init_parallel_env', 'gloo_barrier', 'gloo_release']


class Group:
    """Ranks that run collectives together (Paddle's ``Group``).

    ``rank`` is this process's rank inside the group (-1 when it is not a
    member), ``ranks`` the members' global ranks, ``id`` the ``ring_id`` that
    static-mode collective ops name the group by."""

    def __init__(self, rank, id, ranks, comm, name=None, timeout=None):
        self.rank = rank
        self.id = id
        self.ranks = list(ranks)
        self.nranks = len(self.ranks)
        self.comm = comm
        self.name = name or ('_default_pg' if id == 0 else 'group_%d' % id)
        self.timeout = timeout

    @property
    def world_size(self):
        return self.nranks

    @property
    def process_group(self):
        return self

    @property
    def backend(self):
        return 'MPI' if isinstance(self.comm, be.MPIComm) else 'single process'

    def is_member(self):
        return self.rank >= 0

    def get_group_rank(self, rank):
        """The rank inside this group of global rank ``rank`` (-1 if not a member)."""
        return self.ranks.index(rank) if rank in self.ranks else -1

    def __repr__(self):
        return 'Group(id=%d, rank=%d, nranks=%d, ranks=%s)' % (self.id, self.rank, self.nranks,
                                                             self.ranks)


class _State:
    world = None          # the default Group once init_parallel_env ran
    groups = {}           # id -> Group
    next_id = 1
    single = None         # the one-process group collectives use before init


def init_parallel_env(nccl_config=None):
    """Join the MPI world (or be a world of one process); returns the default group.
    (``nccl_config`` is for GPU builds; the CPU build has none to apply.)"""
    if _State.world is not None:
        return _State.world
    if be.launched_by_mpi():
        w = be.world()
        comm = be.MPIComm(w.comm, be.DEFAULT_TIMEOUT)
        if w.size > 1:
            be.install_failure_hook()
    else:
        comm = be.SingleComm()
    group = Group(comm.rank, 0, range(comm.size), comm, timeout=comm.timeout)
    _State.world = group
    _State.groups = {0: group}
    # what Paddle's launcher exports, for code (samplers, user scripts) that reads it
    os.environ['PADDLE_TRAINER_ID'] = str(comm.rank)
    os.environ['PADDLE_TRAINERS_NUM'] = str(comm.size)
    return group


def is_initialized():
    return _State.world is not None


def default_group():
    """The group a collective without ``group=`` uses."""
    if _State.world is not None:
        return _State.world
    if be.env_world_size() > 1:
        raise RuntimeError("framework.distributed: this is rank %d of %d; call "
                           "paddle.distributed.init_parallel_env() before collectives"
                           % (be.env_rank(), be.env_world_size()))
    if _State.single is None:
        _State.single = Group(0, 0, [0], be.SingleComm())
    return _State.single


def group_by_id(ring_id):
    """The group static-mode collective ops name by ``ring_id``."""
    if ring_id == 0:
        return default_group()
    try:
        return _State.groups[ring_id]
    except KeyError:
        raise ValueError("framework.distributed: no group with ring_id %d (groups: %s)"
                         % (ring_id, sorted(_State.groups))) from None


def get_group(id=0):  # noqa: A002  (Paddle's name)
    return group_by_id(id)


def get_rank(group=None):
    """This process's rank in ``group`` (default: the world)."""
    if group is not None:
        return group.rank
    if _State.world is not None:
        return _State.world.rank
    return be.env_rank()


def get_world_size(group=None):
    if group is not None:
        return group.nranks
    if _State.world is not None:
        return _State.world.nranks
    return be.env_world_size()


def _seconds(timeout):
    if isinstance(timeout, datetime.timedelta):
        return timeout.total_seconds()
    return float(timeout)


def new_group(ranks=None, backend=None, timeout=datetime.timedelta(seconds=1800),  # noqa: B008
              nccl_comm_init_option=0, nccl_config=None):
    """A group of the given global ranks; every rank of the world must call it
    (as in Paddle), members and others alike. ``timeout`` bounds each collective."""
    world = init_parallel_env()
    ranks = sorted(set(range(world.nranks) if ranks is None else [int(r) for r in ranks]))
    bad = [r for r in ranks if not 0 <= r < world.nranks]
    if bad or not ranks:
        raise ValueError("new_group: ranks %s are not ranks of the world (size %d)"
                         % (bad or ranks, world.nranks))
    gid = _State.next_id
    _State.next_id += 1
    seconds = _seconds(timeout)
    me = world.rank
    if isinstance(world.comm, be.MPIComm):
        MPI = be.mpi()
        color = 0 if me in ranks else MPI.UNDEFINED
        sub = world.comm.comm.Split(color, key=me)
        comm = be.MPIComm(sub, seconds, ranks) if me in ranks else None
    else:
        comm = be.SingleComm()
        comm.timeout = seconds
    group = Group(ranks.index(me) if me in ranks else -1, gid, ranks, comm, timeout=seconds)
    _State.groups[gid] = group
    return group


def destroy_process_group(group=None):
    """Free ``group``'s communicator; without a group, all of them (the
    environment is uninitialised afterwards)."""
    if group is None:
        for g in list(_State.groups.values()):
            if g.comm is not None and g.id != 0:
                g.comm.free()
        _State.groups = {}
        _State.world = None
        _State.next_id = 1
        return
    if _State.groups.pop(group.id, None) is not None and group.comm is not None and group.id:
        group.comm.free()


def shutdown_process_group(group=None):
    """Paddle's name for freeing the communicators: ``destroy_process_group``."""
    destroy_process_group(group)


def gloo_init_parallel_env(rank_id, rank_num, server_endpoint):
    """The CPU collectives' environment (Paddle's Gloo one) is MPI's here: the
    processes must come from an MPI launcher; ``rank_id``/``rank_num`` are checked
    against it (``server_endpoint`` is not needed)."""
    group = init_parallel_env()
    if (group.rank, group.nranks) != (rank_id, rank_num):
        raise RuntimeError("gloo_init_parallel_env: rank_id=%r, rank_num=%r, but MPI says "
                           "rank %d of %d (start the processes with mpiexec or "
                           "python -m framework.distributed.launch)"
                           % (rank_id, rank_num, group.rank, group.nranks))


def gloo_barrier():
    barrier()


def gloo_release():
    destroy_process_group()


class ParallelMode:
    """Kinds of parallelism (Paddle's codes); this build runs DATA_PARALLEL."""
    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


def barrier(group=None):
    """Wait until every rank of ``group`` reaches the barrier."""
    group = group or default_group()
    if group.comm is not None:
        group.comm.barrier()


def get_backend(group=None):
    return (group or default_group()).backend


def is_available():
    """True: the collectives exist (over MPI, or in one process without it)."""
    return True


class ParallelEnv:
    """This process's place in the parallel job (Paddle's ``ParallelEnv``): read
    from the environment each time, as Paddle does; the MPI launcher's variables
    first, then ``PADDLE_TRAINER_ID`` / ``PADDLE_TRAINERS_NUM`` (which
    ``init_parallel_env`` sets)."""

    @property
    def rank(self):
        return be.env_rank()

    @property
    def world_size(self):
        return be.env_world_size()

    @property
    def local_rank(self):
        return be.env_local_rank()

    @property
    def nranks(self):
        return self.world_size

    @property
    def dev_id(self):
        return 0        # CPU: every rank uses its host's one device

    device_id = dev_id

    @property
    def device_type(self):
        return 'cpu'

    @property
    def trainer_endpoints(self):
        return os.environ.get('PADDLE_TRAINER_ENDPOINTS', '').split(',') if \
            os.environ.get('PADDLE_TRAINER_ENDPOINTS') else []

    @property
    def current_endpoint(self):
        return os.environ.get('PADDLE_CURRENT_ENDPOINT', '')

    local_size = property(lambda self: int(os.environ.get('OMPI_COMM_WORLD_LOCAL_SIZE',
                                                          self.world_size)))
