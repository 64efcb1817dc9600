"""Samplers: which sample indices an epoch visits, and how they form batches.

Random samplers draw from ``framework.random.generator()`` when an epoch starts,
so ``framework.seed(n)`` makes the epoch order repeatable.
``DistributedBatchSampler`` is the exception: like Paddle it shuffles with
``numpy.random.RandomState(epoch)`` so that every replica agrees on the order
without communicating.

>>> from framework.io import BatchSampler
>>> list(BatchSampler(range(5), batch_size=2))
[[0, 1], [2, 3], [4]]
"""
import math

import numpy as np

from .. import random as _random
from .._launch_env import env_rank, env_world_size
from ..dygraph import Tensor
from .dataset import IterableDataset

__all__ = ['Sampler', 'SequenceSampler', 'RandomSampler', 'WeightedRandomSampler',
           'SubsetRandomSampler', 'BatchSampler', 'DistributedBatchSampler']


class Sampler:
    """Base class: ``__iter__`` yields sample indices; ``__len__`` is optional."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError("'%s' must implement __iter__" % type(self).__name__)


class SequenceSampler(Sampler):
    """Indices ``0 .. len(data_source) - 1`` in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _check_positive_int(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError("%s should be a positive integer, but got %r" % (what, value))
    return int(value)


class RandomSampler(Sampler):
    """Shuffled indices of ``data_source``.

    Without replacement: a random permutation (its first ``num_samples`` entries
    when given). With replacement: ``num_samples`` (default ``len(data_source)``)
    independent uniform draws. ``generator`` may be a ``numpy.random.Generator``
    to draw from instead of ``framework.random.generator()``, or (as in Paddle) an
    iterator that yields the indices itself.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError("RandomSampler: expect a boolean value for replacement, but got "
                            "replacement=%r" % (replacement,))
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        _check_positive_int(self.num_samples, 'RandomSampler: num_samples')
        if not replacement and self.num_samples > len(data_source):
            raise ValueError("RandomSampler: num_samples (%d) should be smaller than or equal "
                             "to the length of data_source (%d) when replacement is False"
                             % (self.num_samples, len(data_source)))

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        gen = _random.numpy_generator(self.generator)
        if gen is not None and not isinstance(gen, np.random.Generator):
            return self._from_iterator(gen)
        gen = gen if gen is not None else _random.generator()
        n = len(self.data_source)
        if self.replacement:
            idx = gen.integers(0, n, size=self.num_samples)
        else:
            idx = gen.permutation(n)[:self.num_samples]
        return iter(idx.tolist())

    def _from_iterator(self, it):
        for _ in range(self.num_samples):
            try:
                yield next(it)
            except StopIteration:
                return

    def __len__(self):
        return self.num_samples


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices in ``[0, len(weights))`` drawn with probability
    proportional to ``weights`` (with replacement by default)."""

    def __init__(self, weights, num_samples, replacement=True):
        self.num_samples = _check_positive_int(num_samples, 'WeightedRandomSampler: num_samples')
        if not isinstance(replacement, bool):
            raise ValueError("WeightedRandomSampler: replacement should be a boolean value, "
                             "got %r" % (replacement,))
        w = weights.data if isinstance(weights, Tensor) else np.asarray(weights)
        w = w.astype(np.float64)
        if w.ndim != 1 or w.size == 0:
            raise ValueError("WeightedRandomSampler: weights should be a non-empty 1-D "
                             "sequence, got shape %s" % list(w.shape))
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise ValueError("WeightedRandomSampler: weights should be finite and "
                             "non-negative, got %s" % w.tolist())
        positive = int(np.sum(w > 0))
        if positive == 0:
            raise ValueError("WeightedRandomSampler: weights should have a positive value")
        if not replacement and positive < self.num_samples:
            raise ValueError("WeightedRandomSampler: only %d weights are positive, fewer than "
                             "num_samples=%d with replacement=False" % (positive, num_samples))
        self.weights = w
        self.replacement = replacement

    def __iter__(self):
        p = self.weights / self.weights.sum()
        idx = _random.generator().choice(len(p), self.num_samples, self.replacement, p)
        return iter(idx.tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order (without replacement)."""

    def __init__(self, indices):
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler: indices is empty")
        self.indices = indices

    def __iter__(self):
        for i in _random.generator().permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


def _batches(index_iter, batch_size, drop_last):
    batch = []
    for idx in index_iter:
        batch.append(idx)
        if len(batch) == batch_size:
            yield batch
            batch = []
    if batch and not drop_last:
        yield batch


def _check_bool(value, what):
    if not isinstance(value, bool):
        raise TypeError("%s should be a boolean value, but got %r" % (what, value))
    return value


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` (or of a Sequence/RandomSampler over
    ``dataset``, per ``shuffle``) into lists of ``batch_size``."""

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1,
                 drop_last=False):
        if dataset is None:
            if sampler is None:
                raise ValueError("BatchSampler: either dataset or sampler must be given")
            if not hasattr(sampler, '__iter__'):
                raise TypeError("BatchSampler: sampler should be a Sampler or iterable, got %s"
                                % type(sampler).__name__)
            self.sampler = sampler
        else:
            if isinstance(dataset, IterableDataset):
                raise TypeError("BatchSampler: dataset should not be an IterableDataset")
            if sampler is not None:
                raise ValueError("BatchSampler: give either dataset or sampler, not both")
            _check_bool(shuffle, 'BatchSampler: shuffle')
            self.sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        self.batch_size = _check_positive_int(batch_size, 'BatchSampler: batch_size')
        self.shuffle = _check_bool(shuffle, 'BatchSampler: shuffle')
        self.drop_last = _check_bool(drop_last, 'BatchSampler: drop_last')

    def __iter__(self):
        return _batches(iter(self.sampler), self.batch_size, self.drop_last)

    def __len__(self):
        n = len(self.sampler)
        return (n + (0 if self.drop_last else self.batch_size - 1)) // self.batch_size


class DistributedBatchSampler(BatchSampler):
    """The share of ``dataset`` that this replica (``rank`` of ``num_replicas``) loads.

    Indices are padded by repeating the first ones until they divide evenly, then
    dealt out batch by batch: replica ``r`` takes the ``r``-th block of
    ``batch_size`` in each group of ``batch_size * num_replicas``, and an equal slice
    of the final short group, exactly as Paddle does. Without arguments the
    replica count and rank come from ``PADDLE_TRAINERS_NUM`` / ``PADDLE_TRAINER_ID``
    (1 and 0 in a single process). With ``shuffle`` the order is a
    ``RandomState(epoch)`` permutation (see ``set_epoch``), identical on all replicas.
    """

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        self.dataset = dataset
        self.batch_size = _check_positive_int(batch_size, 'DistributedBatchSampler: batch_size')
        self.shuffle = _check_bool(shuffle, 'DistributedBatchSampler: shuffle')
        self.drop_last = _check_bool(drop_last, 'DistributedBatchSampler: drop_last')
        if num_replicas is None:
            num_replicas = env_world_size()
        self.nranks = _check_positive_int(num_replicas, 'DistributedBatchSampler: num_replicas')
        if rank is None:
            rank = env_rank()
        if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) or rank < 0:
            raise ValueError("DistributedBatchSampler: rank should be a non-negative integer, "
                             "but got %r" % (rank,))
        if rank >= self.nranks:
            raise ValueError("DistributedBatchSampler: rank %d is out of range for "
                             "num_replicas=%d" % (rank, self.nranks))
        self.local_rank = int(rank)
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _padded_indices(self):
        indices = list(range(len(self.dataset)))
        pad = self.total_size - len(indices)
        if pad <= len(indices):
            indices += indices[:pad]
        else:
            indices += (indices * math.ceil(pad / len(indices)))[:pad]
        return indices

    def _local_indices(self, indices):
        bs, nr, rank = self.batch_size, self.nranks, self.local_rank
        tail = self.total_size % (bs * nr)     # the final, short group of batches
        out = []
        for start in range(rank * bs, len(indices) - tail, bs * nr):
            out.extend(indices[start:start + bs])
        last = indices[len(indices) - tail:]
        share = tail // nr
        out.extend(last[rank * share:(rank + 1) * share])
        return out

    def __iter__(self):
        indices = self._padded_indices()
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._local_indices(indices)
        assert len(indices) == self.num_samples
        return _batches(iter(indices), self.batch_size, self.drop_last)

    def __len__(self):
        n = self.num_samples + (0 if self.drop_last else self.batch_size - 1)
        return n // self.batch_size

    def set_epoch(self, epoch):
        """Seed of the next shuffle; call with the epoch number before each epoch."""
        self.epoch = epoch
