"""Datasets: the map-style and iterable protocols and a few combinators.

A map-style dataset implements ``__getitem__(idx)`` and ``__len__``; an iterable
dataset implements ``__iter__`` (for streams whose length is unknown). Both are
consumed by ``framework.io.DataLoader``.

>>> import numpy as np
>>> from framework.io import TensorDataset, random_split
>>> ds = TensorDataset([np.arange(10.0).reshape(5, 2), np.arange(5)])
>>> len(ds), ds[1][1].item()
(5, 1)
>>> [len(s) for s in random_split(ds, [0.6, 0.4])]
[3, 2]
"""
import bisect
import math
import warnings

import numpy as np

from .. import random as _random
from ..dygraph import Tensor

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'ComposeDataset', 'ChainDataset',
           'ConcatDataset', 'Subset', 'random_split']


class Dataset:
    """Base class of map-style datasets: implement ``__getitem__`` and ``__len__``."""

    def __getitem__(self, idx):
        raise NotImplementedError("'%s' must implement __getitem__" % type(self).__name__)

    def __len__(self):
        raise NotImplementedError("'%s' must implement __len__" % type(self).__name__)


class IterableDataset(Dataset):
    """Base class of stream datasets: implement ``__iter__``.

    With ``DataLoader(num_workers=N)`` every worker iterates its own ``iter(dataset)``;
    use ``framework.io.get_worker_info()`` inside ``__iter__`` to give each worker a
    different share of the stream, otherwise every sample is produced N times.
    """

    def __iter__(self):
        raise NotImplementedError("'%s' must implement __iter__" % type(self).__name__)

    def __getitem__(self, idx):
        raise RuntimeError("'%s' is an IterableDataset and does not support indexing"
                           % type(self).__name__)

    def __len__(self):
        raise TypeError("'%s' is an IterableDataset and has no length"
                        % type(self).__name__)


def _rows(t):
    return t.data if isinstance(t, Tensor) else np.asarray(t)


class TensorDataset(Dataset):
    """Samples are rows of the given tensors (or arrays), which share dimension 0.

    ``ds[i]`` is a tuple with the i-th row of each tensor, as Tensors.
    """

    def __init__(self, tensors):
        if isinstance(tensors, (Tensor, np.ndarray)):
            raise TypeError("TensorDataset(tensors): expected a list of tensors, got a "
                            "single %s; wrap it in a list" % type(tensors).__name__)
        self.tensors = list(tensors)
        if not self.tensors:
            raise ValueError("TensorDataset(tensors): the list of tensors is empty")
        self._arrays = [_rows(t) for t in self.tensors]
        lengths = [a.shape[0] if a.ndim else None for a in self._arrays]
        if None in lengths or len(set(lengths)) != 1:
            raise ValueError("TensorDataset(tensors): all tensors must have the same size "
                             "in dimension 0, got shapes %s"
                             % [list(a.shape) for a in self._arrays])
        self._len = lengths[0]

    def __getitem__(self, index):
        return tuple(Tensor(a[index]) for a in self._arrays)

    def __len__(self):
        return self._len


def _as_tuple(sample):
    return tuple(sample) if isinstance(sample, (list, tuple)) else (sample,)


class ComposeDataset(Dataset):
    """Zip map-style datasets of equal length: sample ``i`` concatenates the fields
    of every dataset's sample ``i`` into one tuple."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset(datasets): the list of datasets is empty")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError("ComposeDataset: datasets[%d] is an IterableDataset; only "
                                "map-style datasets can be composed" % i)
        lengths = [len(d) for d in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError("ComposeDataset: all datasets must have the same length, got %s"
                             % lengths)

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        fields = []
        for d in self.datasets:
            fields.extend(_as_tuple(d[idx]))
        return tuple(fields)


class ChainDataset(IterableDataset):
    """Iterate several iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        for i, d in enumerate(self.datasets):
            if not isinstance(d, IterableDataset):
                raise TypeError("ChainDataset: datasets[%d] is a %s, expected an "
                                "IterableDataset" % (i, type(d).__name__))

    def __iter__(self):
        for d in self.datasets:
            yield from d


class ConcatDataset(Dataset):
    """Concatenate map-style datasets: indices run through each in turn."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset(datasets): the list of datasets is empty")
        for i, d in enumerate(self.datasets):
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset: datasets[%d] is an IterableDataset; use "
                                "ChainDataset for streams" % i)
        self.cumulative_sizes = np.cumsum([len(d) for d in self.datasets]).tolist()

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            idx += n
        if not 0 <= idx < n:
            raise IndexError("ConcatDataset index %d out of range for length %d" % (idx, n))
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices`` (in that order)."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = [int(i) for i in _rows(indices).reshape(-1)] \
            if isinstance(indices, (Tensor, np.ndarray)) else [int(i) for i in indices]

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _fraction_lengths(n, fractions):
    for i, f in enumerate(fractions):
        if not 0 <= f <= 1:
            raise ValueError("random_split: fraction at index %d is %r, not in [0, 1]" % (i, f))
    lengths = [int(math.floor(n * f)) for f in fractions]
    # hand out the rounding remainder one by one from the front, as Paddle does
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn("random_split: length of split at index %d is 0; this split "
                          "is empty" % i)
    return lengths


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping random ``Subset``s.

    ``lengths`` are sizes summing to ``len(dataset)``, or fractions summing to 1
    (rounded down, remainder spread from the first split on). The permutation comes
    from ``generator`` (a ``numpy.random.Generator``) or ``framework.random.generator()``.
    """
    lengths = list(lengths)
    n = len(dataset)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1 \
            and not all(isinstance(v, (int, np.integer)) for v in lengths):
        lengths = _fraction_lengths(n, lengths)
    if any(int(v) != v or v < 0 for v in lengths):
        raise ValueError("random_split: lengths must be non-negative integers or fractions "
                         "summing to 1, got %s" % lengths)
    lengths = [int(v) for v in lengths]
    if sum(lengths) != n:
        raise ValueError("random_split: sum of lengths %s is %d, which does not equal the "
                         "length of the dataset (%d)" % (lengths, sum(lengths), n))
    gen = _random.numpy_generator(generator) if generator is not None else _random.generator()
    perm = gen.permutation(n).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
