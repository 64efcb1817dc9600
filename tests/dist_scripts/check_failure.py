"""Run by tests/test_distributed.py under ``mpiexec -n 2``: rank 1 raises
(argv[1] == 'raise') or ends its script (argv[1] == 'exit') while rank 0 waits
in an all_reduce; rank 0 must stop with an error naming rank 1."""
import sys
import time

import framework as paddle
import framework.distributed as dist

dist.init_parallel_env()
RANK = dist.get_rank()
dist.barrier()
if RANK == 1:
    time.sleep(0.5)
    if sys.argv[1] == 'exit':
        sys.exit(0)
    raise ValueError('rank one broke on purpose')
dist.all_reduce(paddle.ones([4]))
print('rank0 UNREACHED', flush=True)
