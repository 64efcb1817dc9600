"""Data-parallel training on MPI: every rank trains the same model on its share
of each batch; gradients are averaged during backward.

    python3 -m framework.distributed.launch --nproc_per_node 2 examples/train_data_parallel.py
    mpiexec -n 2 python3 examples/train_data_parallel.py          # the same

Run plainly (``python3 examples/train_data_parallel.py``) it is a world of one
process and trains on the whole batches.
"""
import numpy as np

import framework as paddle
import framework.distributed as dist


class Points(paddle.io.Dataset):
    """y = sin(3 x0) + x1^2 with noise: 1024 points, generated the same on every rank."""

    def __init__(self):
        rng = np.random.default_rng(0)
        self.x = rng.uniform(-1, 1, (1024, 2)).astype('float32')
        self.y = (np.sin(3 * self.x[:, :1]) + self.x[:, 1:] ** 2
                  + 0.05 * rng.standard_normal((1024, 1))).astype('float32')

    def __getitem__(self, i):
        return self.x[i], self.y[i]

    def __len__(self):
        return len(self.x)


def main():
    dist.init_parallel_env()
    rank, world = dist.get_rank(), dist.get_world_size()
    model = paddle.DataParallel(paddle.nn.Sequential(
        paddle.nn.Linear(2, 64), paddle.nn.Tanh(), paddle.nn.Linear(64, 1)))
    opt = paddle.optimizer.Adam(0.01, parameters=model.parameters())
    sampler = paddle.io.DistributedBatchSampler(Points(), batch_size=64 // world, shuffle=True)
    loader = paddle.io.DataLoader(Points(), batch_sampler=sampler)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = paddle.nn.functional.mse_loss(model(x), y)
            loss.backward()            # the gradient all-reduce runs inside
            opt.step()
            opt.clear_grad()
        dist.all_reduce(loss, dist.ReduceOp.AVG)
        if rank == 0:
            print('epoch %d  loss %.4f  (%d ranks)' % (epoch, float(loss), world))
    if rank == 0:                      # one copy of the checkpoint
        paddle.save(model.state_dict(), 'data_parallel.pdparams')


if __name__ == '__main__':
    main()
