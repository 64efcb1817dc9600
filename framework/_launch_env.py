"""Where this process sits in a parallel job, as its launcher's environment
says: the MPI launchers' variables first, then ``PADDLE_TRAINER_ID`` /
``PADDLE_TRAINERS_NUM`` (which ``init_parallel_env`` sets). Read afresh on
every call, as Paddle does.

A core helper (environment variables only), so that ``io``'s
``DistributedBatchSampler`` shards data without importing ``distributed``,
which sits above it; ``distributed.backend`` re-exports these.
"""
import os


def _env_int(names, default):
    for name in names:
        v = os.environ.get(name)
        if v not in (None, ''):
            try:
                return int(v)
            except ValueError:
                pass
    return default


def env_rank():
    """This process's rank as the launcher's environment tells (before init)."""
    return _env_int(('OMPI_COMM_WORLD_RANK', 'PMI_RANK', 'PMIX_RANK', 'MV2_COMM_WORLD_RANK',
                     'PADDLE_TRAINER_ID'), 0)


def env_world_size():
    return _env_int(('OMPI_COMM_WORLD_SIZE', 'PMI_SIZE', 'MV2_COMM_WORLD_SIZE',
                     'PADDLE_TRAINERS_NUM'), 1)


def env_local_rank():
    return _env_int(('OMPI_COMM_WORLD_LOCAL_RANK', 'MPI_LOCALRANKID', 'MV2_COMM_WORLD_LOCAL_RANK',
                     'PADDLE_RANK_IN_NODE'), env_rank())
