"""The function tests/test_distributed.py runs with ``paddle.distributed.spawn``."""
import os

import numpy as np


def write_all_reduced(out_dir, value):
    import framework as paddle
    import framework.distributed as dist
    rank = dist.get_rank()
    x = paddle.to_tensor(np.array([value * (rank + 1)], 'float64'))
    dist.all_reduce(x)
    with open(os.path.join(out_dir, 'rank%d.txt' % rank), 'w') as f:
        f.write('%d %d %r' % (rank, dist.get_world_size(), float(x)))
