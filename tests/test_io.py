"""framework.io datasets and samplers."""
import collections
import math

import numpy as np
import pytest

import framework
from framework.io import (BatchSampler, ChainDataset, ComposeDataset, ConcatDataset, Dataset,
                          DistributedBatchSampler, IterableDataset, RandomSampler, Sampler,
                          SequenceSampler, Subset, SubsetRandomSampler, TensorDataset,
                          WeightedRandomSampler, get_worker_info, random_split)


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i


class Stream(IterableDataset):
    def __init__(self, items):
        self.items = list(items)

    def __iter__(self):
        return iter(self.items)


# ----------------------------------------------------------------------------- datasets
def test_tensor_dataset_rows_are_tensors():
    x = framework.to_tensor(np.arange(12.0).reshape(4, 3))
    y = np.arange(4)
    ds = TensorDataset([x, y])
    assert len(ds) == 4
    a, b = ds[2]
    assert isinstance(a, framework.Tensor) and isinstance(b, framework.Tensor)
    assert a.numpy().tolist() == [6.0, 7.0, 8.0] and b.item() == 2


def test_tensor_dataset_errors():
    with pytest.raises(ValueError, match=r'same size in dimension 0.*\[3, 2\].*\[4\]'):
        TensorDataset([np.zeros((3, 2)), np.zeros(4)])
    with pytest.raises(TypeError, match='wrap it in a list'):
        TensorDataset(np.zeros((3, 2)))
    with pytest.raises(ValueError, match='empty'):
        TensorDataset([])


def test_compose_dataset_concatenates_fields():
    a = TensorDataset([np.arange(3), np.arange(3) * 10])
    ds = ComposeDataset([a, Range(3)])
    sample = ds[1]
    assert len(ds) == 3 and len(sample) == 3
    assert sample[0].item() == 1 and sample[1].item() == 10 and sample[2] == 1
    with pytest.raises(ValueError, match=r'same length.*\[3, 4\]'):
        ComposeDataset([Range(3), Range(4)])
    with pytest.raises(TypeError, match='IterableDataset'):
        ComposeDataset([Range(3), Stream([1])])


def test_chain_dataset():
    ds = ChainDataset([Stream([1, 2]), Stream([]), Stream([3])])
    assert list(ds) == [1, 2, 3]
    assert list(ds) == [1, 2, 3]     # re-iterable
    with pytest.raises(TypeError, match=r'datasets\[1\].*IterableDataset'):
        ChainDataset([Stream([1]), Range(2)])


def test_concat_dataset_indexing():
    ds = ConcatDataset([Range(2), Range(3)])
    assert len(ds) == 5
    assert [ds[i] for i in range(5)] == [0, 1, 0, 1, 2]
    assert ds[-1] == 2
    with pytest.raises(IndexError, match='out of range'):
        ds[5]


def test_iterable_dataset_has_no_len_or_index():
    with pytest.raises(TypeError, match='no length'):
        len(Stream([1]))
    with pytest.raises(RuntimeError, match='indexing'):
        Stream([1])[0]


def test_subset():
    s = Subset(Range(10), [3, 1, 4])
    assert len(s) == 3 and [s[i] for i in range(3)] == [3, 1, 4]
    s2 = Subset(Range(10), framework.to_tensor([7, 2]))
    assert [s2[0], s2[1]] == [7, 2]


def test_random_split_lengths_and_cover():
    framework.seed(3)
    parts = random_split(Range(10), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    items = sorted(p[i] for p in parts for i in range(len(p)))
    assert items == list(range(10))


def test_random_split_fractions_spread_remainder():
    # floor(10 * 0.33) = 3 three times; the one left over goes to the first split
    parts = random_split(Range(10), [0.33, 0.33, 0.34])
    assert [len(p) for p in parts] == [4, 3, 3]
    parts = random_split(Range(5), [0.6, 0.4])
    assert [len(p) for p in parts] == [3, 2]


def test_random_split_repeatable_and_generator():
    framework.seed(11)
    a = [p.indices for p in random_split(Range(20), [0.5, 0.5])]
    framework.seed(11)
    b = [p.indices for p in random_split(Range(20), [0.5, 0.5])]
    assert a == b
    g1 = [p.indices for p in random_split(Range(20), [10, 10],
                                          generator=np.random.default_rng(5))]
    g2 = [p.indices for p in random_split(Range(20), [10, 10],
                                          generator=np.random.default_rng(5))]
    assert g1 == g2


def test_random_split_errors():
    with pytest.raises(ValueError, match='does not equal the length'):
        random_split(Range(10), [3, 3])
    with pytest.raises(ValueError, match='non-negative integers'):
        random_split(Range(10), [11, -1])


# ----------------------------------------------------------------------------- samplers
def test_sequence_sampler():
    s = SequenceSampler(Range(4))
    assert list(s) == [0, 1, 2, 3] and len(s) == 4


def test_random_sampler_permutation_repeatable():
    framework.seed(0)
    a = list(RandomSampler(Range(50)))
    framework.seed(0)
    b = list(RandomSampler(Range(50)))
    assert a == b and sorted(a) == list(range(50)) and a != list(range(50))
    assert list(RandomSampler(Range(50))) != a     # the generator moved on


def test_random_sampler_replacement_and_num_samples():
    s = RandomSampler(Range(3), replacement=True, num_samples=100)
    idx = list(s)
    assert len(s) == 100 and len(idx) == 100 and set(idx) <= {0, 1, 2}
    assert len(set(idx)) == 3
    s = RandomSampler(Range(10), num_samples=4)
    idx = list(s)
    assert len(idx) == 4 and len(set(idx)) == 4


def test_random_sampler_generator_forms():
    # Paddle: an iterator that yields the indices itself
    s = RandomSampler(Range(5), generator=iter([4, 2, 0]))
    assert list(s) == [4, 2, 0]
    a = list(RandomSampler(Range(30), generator=np.random.default_rng(1)))
    b = list(RandomSampler(Range(30), generator=np.random.default_rng(1)))
    assert a == b


def test_random_sampler_errors():
    with pytest.raises(ValueError, match='smaller than or equal'):
        RandomSampler(Range(3), num_samples=5)
    with pytest.raises(ValueError, match='positive integer'):
        RandomSampler(Range(3), replacement=True, num_samples=0)
    with pytest.raises(TypeError, match='boolean'):
        RandomSampler(Range(3), replacement=1)


def test_weighted_random_sampler():
    framework.seed(0)
    w = [0.0, 1.0, 3.0]
    idx = list(WeightedRandomSampler(w, 4000))
    counts = collections.Counter(idx)
    assert counts[0] == 0
    assert abs(counts[2] / 4000 - 0.75) < 0.03
    no_rep = list(WeightedRandomSampler([1, 1, 1, 0], 3, replacement=False))
    assert sorted(no_rep) == [0, 1, 2]
    assert len(WeightedRandomSampler(framework.to_tensor([1.0, 2.0]), 7)) == 7


def test_weighted_random_sampler_errors():
    with pytest.raises(ValueError, match='non-negative'):
        WeightedRandomSampler([1.0, -1.0], 2)
    with pytest.raises(ValueError, match='positive value'):
        WeightedRandomSampler([0.0, 0.0], 2)
    with pytest.raises(ValueError, match='fewer than num_samples'):
        WeightedRandomSampler([1.0, 0.0, 1.0], 3, replacement=False)
    with pytest.raises(ValueError, match='1-D'):
        WeightedRandomSampler([[1.0, 2.0]], 1)
    with pytest.raises(ValueError, match='positive integer'):
        WeightedRandomSampler([1.0], 0)


def test_subset_random_sampler():
    framework.seed(2)
    out = list(SubsetRandomSampler([10, 20, 30, 40]))
    assert sorted(out) == [10, 20, 30, 40]
    with pytest.raises(ValueError, match='empty'):
        SubsetRandomSampler([])


def test_custom_sampler_subclass():
    class Evens(Sampler):
        def __iter__(self):
            return iter(range(0, len(self.data_source), 2))

        def __len__(self):
            return (len(self.data_source) + 1) // 2
    bs = BatchSampler(sampler=Evens(Range(7)), batch_size=3)
    assert list(bs) == [[0, 2, 4], [6]] and len(bs) == 2


def test_batch_sampler_batches_and_len():
    bs = BatchSampler(Range(10), batch_size=4)
    assert list(bs) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]] and len(bs) == 3
    bs = BatchSampler(Range(10), batch_size=4, drop_last=True)
    assert list(bs) == [[0, 1, 2, 3], [4, 5, 6, 7]] and len(bs) == 2
    bs = BatchSampler(sampler=SequenceSampler(Range(3)), batch_size=5)
    assert list(bs) == [[0, 1, 2]] and len(bs) == 1


def test_batch_sampler_shuffle_uses_global_generator():
    framework.seed(7)
    a = list(BatchSampler(Range(20), shuffle=True, batch_size=5))
    framework.seed(7)
    b = list(BatchSampler(Range(20), shuffle=True, batch_size=5))
    assert a == b and sorted(sum(a, [])) == list(range(20)) and sum(a, []) != list(range(20))


def test_batch_sampler_errors():
    with pytest.raises(ValueError, match='either dataset or sampler'):
        BatchSampler()
    with pytest.raises(ValueError, match='not both'):
        BatchSampler(Range(3), sampler=SequenceSampler(Range(3)))
    with pytest.raises(TypeError, match='IterableDataset'):
        BatchSampler(Stream([1]))
    with pytest.raises(ValueError, match='positive integer'):
        BatchSampler(Range(3), batch_size=0)
    with pytest.raises(TypeError, match='boolean'):
        BatchSampler(Range(3), drop_last=1)


# ----------------------------------------------------------------------------- distributed
def _reference_split(n, batch_size, nranks, rank):
    """Paddle's rule, written as dealing out groups: pad by cycling the indices,
    give rank r the r-th batch of each full group of batch_size * nranks, and an
    equal slice of the last, short group."""
    per_rank = -(-n // nranks)
    padded = [i % n for i in range(per_rank * nranks)] if n else []
    group = batch_size * nranks
    mine = []
    for start in range(0, len(padded), group):
        chunk = padded[start:start + group]
        if len(chunk) == group:
            mine += chunk[rank * batch_size:(rank + 1) * batch_size]
        else:
            share = len(chunk) // nranks
            mine += chunk[rank * share:(rank + 1) * share]
    return mine


@pytest.mark.parametrize('n,bs,nranks', [(10, 2, 3), (11, 4, 2), (2, 1, 5), (17, 3, 4),
                                         (8, 4, 2), (1, 3, 3), (23, 5, 3)])
def test_distributed_batch_sampler_matches_reference(n, bs, nranks):
    seen = []
    for rank in range(nranks):
        s = DistributedBatchSampler(Range(n), batch_size=bs, num_replicas=nranks, rank=rank)
        batches = list(s)
        flat = sum(batches, [])
        assert flat == _reference_split(n, bs, nranks, rank)
        assert all(len(b) == bs for b in batches[:-1])
        assert len(s) == len(batches) == math.ceil(len(flat) / bs)
        seen += flat
    # every sample is served; padding repeats the first ones
    assert sorted(set(seen)) == list(range(n)) and len(seen) == math.ceil(n / nranks) * nranks


def test_distributed_batch_sampler_hand_computed():
    # 10 samples, batch 2, 3 replicas: padded to 12 = 0..9, 0, 1
    got = [list(DistributedBatchSampler(Range(10), 2, num_replicas=3, rank=r)) for r in range(3)]
    assert got == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [0, 1]]]
    # 11 samples, batch 4, 2 replicas: last group [8, 9, 10, 0] is split 2 / 2
    got = [list(DistributedBatchSampler(Range(11), 4, num_replicas=2, rank=r)) for r in range(2)]
    assert got == [[[0, 1, 2, 3], [8, 9]], [[4, 5, 6, 7], [10, 0]]]
    # padding longer than the data set cycles it
    got = [sum(DistributedBatchSampler(Range(2), 1, num_replicas=5, rank=r), [])
           for r in range(5)]
    assert got == [[0], [1], [0], [1], [0]]


def test_distributed_batch_sampler_drop_last():
    s = DistributedBatchSampler(Range(11), 4, num_replicas=2, rank=1, drop_last=True)
    assert list(s) == [[4, 5, 6, 7]] and len(s) == 1


def test_distributed_batch_sampler_shuffle_is_epoch_seeded():
    def order(rank, epoch):
        s = DistributedBatchSampler(Range(20), 3, num_replicas=2, rank=rank, shuffle=True)
        s.set_epoch(epoch)
        return sum(list(s), [])
    # all replicas agree on the permutation, so together they cover everything
    assert sorted(order(0, 4) + order(1, 4)) == list(range(20))
    assert order(0, 4) == order(0, 4) and order(0, 4) != order(0, 5)
    expected = list(range(20))
    np.random.RandomState(4).shuffle(expected)     # Paddle's shuffle
    assert order(0, 4) == _reference_split_of(expected, 3, 2, 0)
    s = DistributedBatchSampler(Range(20), 3, shuffle=True)
    first = list(s)
    assert s.epoch == 1 and list(s) != first      # epoch advances by itself


def _reference_split_of(order, bs, nranks, rank):
    positions = _reference_split(len(order), bs, nranks, rank)
    return [order[p] for p in positions]


def test_distributed_batch_sampler_defaults_single_process(monkeypatch):
    monkeypatch.delenv('PADDLE_TRAINERS_NUM', raising=False)
    monkeypatch.delenv('PADDLE_TRAINER_ID', raising=False)
    monkeypatch.delenv('PADDLE_RANK_IN_NODE', raising=False)
    s = DistributedBatchSampler(Range(5), batch_size=2)
    assert s.nranks == 1 and s.local_rank == 0
    assert list(s) == [[0, 1], [2, 3], [4]] and len(s) == 3
    monkeypatch.setenv('PADDLE_TRAINERS_NUM', '2')
    monkeypatch.setenv('PADDLE_TRAINER_ID', '1')
    s = DistributedBatchSampler(Range(5), batch_size=2)
    assert (s.nranks, s.local_rank) == (2, 1)


def test_distributed_batch_sampler_errors():
    with pytest.raises(ValueError, match='batch_size'):
        DistributedBatchSampler(Range(5), 0)
    with pytest.raises(ValueError, match='num_replicas'):
        DistributedBatchSampler(Range(5), 2, num_replicas=0)
    with pytest.raises(ValueError, match='out of range'):
        DistributedBatchSampler(Range(5), 2, num_replicas=2, rank=2)


def test_get_worker_info_is_none_in_main_thread():
    assert get_worker_info() is None
