"""``framework.io``: datasets, samplers and the DataLoader (Paddle's ``paddle.io``).

>>> import numpy as np
>>> import framework as paddle
>>> class Squares(paddle.io.Dataset):
...     def __len__(self):
...         return 6
...     def __getitem__(self, i):
...         return np.array([i], 'float32'), i * i
>>> for x, y in paddle.io.DataLoader(Squares(), batch_size=3):
...     print(x.shape, y.tolist())
paddle.Size([3, 1]) [0, 1, 4]
paddle.Size([3, 1]) [9, 16, 25]
"""
from .collate import default_collate_fn, default_convert_fn
from .dataloader import DataLoader
from .dataset import (ChainDataset, ComposeDataset, ConcatDataset, Dataset, IterableDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, DistributedBatchSampler, RandomSampler, Sampler,
                      SequenceSampler, SubsetRandomSampler, WeightedRandomSampler)
from .worker import WorkerInfo, get_worker_info

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'ComposeDataset', 'ChainDataset',
           'ConcatDataset', 'Subset', 'random_split', 'Sampler', 'SequenceSampler',
           'RandomSampler', 'WeightedRandomSampler', 'SubsetRandomSampler', 'BatchSampler',
           'DistributedBatchSampler', 'DataLoader', 'get_worker_info', 'WorkerInfo',
           'default_collate_fn', 'default_convert_fn']
