"""``paddle.distributed``: data-parallel training over MPI (mpi4py, optional).

Start the ranks with ``python -m framework.distributed.launch --nproc_per_node 2
train.py`` or ``mpiexec -n 2 python train.py``; in the script,
``init_parallel_env()`` joins them. Without an MPI launcher (or without mpi4py)
a script runs as a world of one process. mpi4py is imported only when a
communicator is needed (``backend.py``), never by ``import framework``.

>>> import framework.distributed as dist
>>> dist.get_world_size()
1
"""
from . import ops as _ops  # noqa: F401  (registers the collective ops)
from .backend import CommunicationError, CommunicationTimeout, RankFailedError  # noqa: F401
from .collective import (ReduceOp, Task, all_gather, all_gather_object, all_reduce,  # noqa: F401
                         alltoall, alltoall_single, broadcast, broadcast_object_list, gather,
                         irecv, isend, recv, recv_object_list, reduce, reduce_scatter,
                         scatter, scatter_object_list, send, send_object_list, wait)
from .env import (Group, ParallelEnv, ParallelMode, barrier, destroy_process_group,  # noqa: F401
                  get_backend, get_group, get_rank, get_world_size, gloo_barrier,
                  gloo_init_parallel_env, gloo_release, init_parallel_env, is_available,
                  is_initialized, new_group, shutdown_process_group)
from .parallel import DataParallel  # noqa: F401
from . import auto_parallel  # noqa: F401
from .auto_parallel import (DistAttr, Partial, Placement, ProcessMesh, ReduceType,  # noqa: F401
                            Replicate, Shard, Strategy, dtensor_from_fn, get_mesh, reshard,
                            set_mesh, shard_layer, shard_optimizer, shard_scaler, shard_tensor,
                            unshard_dtensor)
from .spawn import spawn  # noqa: F401
from . import fleet  # noqa: F401
from .dataset import InMemoryDataset, QueueDataset  # noqa: F401,E402
# paddle.distributed.launch is the launcher's main function (as in Paddle);
# ``python -m framework.distributed.launch`` runs the package of that name
from .launch import launch  # noqa: F401,E402

