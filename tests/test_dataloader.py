"""framework.io.DataLoader: batching, collation, determinism and worker threads.

Worker tests must never hang CI: every test runs under a faulthandler watchdog
that dumps all threads and exits if it takes more than a minute, and waits on
threads use deadlines.
"""
import faulthandler
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import framework
from framework.io import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from framework.io import BatchSampler, default_collate_fn
from framework.vision import transforms as T


@pytest.fixture(autouse=True)
def watchdog():
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def wait_for_threads(count, deadline=10.0):
    end = time.monotonic() + deadline
    while threading.active_count() > count and time.monotonic() < end:
        time.sleep(0.01)
    return threading.active_count()


class Images(Dataset):
    """uint8 HWC images with int labels; optional random augmentation."""

    def __init__(self, n=23, transform=None, delay=0.0):
        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, size=(n, 10, 10, 3), dtype=np.uint8)
        self.transform = transform
        self.delay = delay

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay)
        img = self.images[i]
        if self.transform is not None:
            img = self.transform(img)
        return img, i


def augmenting():
    return Images(transform=T.Compose([T.RandomCrop(8, padding=1), T.RandomHorizontalFlip(),
                                       T.ToTensor()]))


def as_numpy(batches):
    return [[f.numpy() for f in b] for b in batches]


def same(a, b):
    return len(a) == len(b) and all(
        len(x) == len(y) and all(np.array_equal(p, q) for p, q in zip(x, y))
        for x, y in zip(a, b))


# ----------------------------------------------------------------------------- collation
def test_default_collate_shapes_and_dtypes():
    class DS(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return (np.full((2, 3), i, np.float32), i, float(i) / 2, bool(i % 2),
                    np.int64(i))
    batches = list(DataLoader(DS(), batch_size=2))
    assert len(batches) == 3
    img, label, real, flag, scalar = batches[0]
    assert all(isinstance(t, framework.Tensor) for t in batches[0])
    assert img.shape == [2, 2, 3] and img.dtype == np.float32
    assert label.dtype == np.int64 and label.tolist() == [0, 1]
    assert real.dtype == np.float64 and real.tolist() == [0.0, 0.5]   # np.array(floats), as Paddle
    assert flag.dtype == np.bool_ and flag.tolist() == [False, True]
    assert scalar.dtype == np.int64
    assert batches[2][0].shape == [1, 2, 3]


def test_collate_recurses_through_dicts_lists_and_keeps_strings():
    class DS(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {'x': np.array([i, i], np.float32), 'meta': {'id': i, 'name': 'n%d' % i},
                    'pair': (np.zeros(1), [i, -i])}
    batch = next(iter(DataLoader(DS(), batch_size=3)))
    assert batch['x'].shape == [3, 2]
    assert batch['meta']['id'].tolist() == [0, 1, 2]
    assert batch['meta']['name'] == ['n0', 'n1', 'n2']
    assert isinstance(batch['pair'], list) and batch['pair'][0].shape == [3, 1]
    assert [t.tolist() for t in batch['pair'][1]] == [[0, 1, 2], [0, -1, -2]]


def test_collate_stacks_tensor_samples():
    ds = TensorDataset([np.arange(12.0).reshape(6, 2).astype(np.float32), np.arange(6)])
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert x.shape == [4, 2] and x.numpy()[3].tolist() == [6.0, 7.0] and y.tolist() == [0, 1, 2, 3]


def test_default_collate_fn_is_paddle_like():
    out = default_collate_fn([(np.zeros(2), 1), (np.ones(2), 2)])
    assert isinstance(out, list) and isinstance(out[0], np.ndarray) and out[0].shape == (2, 2)
    assert out[1].tolist() == [1, 2]
    t = default_collate_fn([framework.to_tensor([1.0]), framework.to_tensor([2.0])])
    assert isinstance(t, framework.Tensor) and t.shape == [2, 1]


def test_collate_errors_are_clear():
    with pytest.raises(ValueError, match=r'different shapes \[\[2\], \[3\]\]'):
        default_collate_fn([np.zeros(2), np.zeros(3)])
    with pytest.raises(RuntimeError, match='different numbers of fields'):
        default_collate_fn([(1, 2), (1,)])
    with pytest.raises(TypeError, match='found object'):
        default_collate_fn([object(), object()])


def test_batches_do_not_alias_the_dataset():
    data = [np.zeros(2, np.float32) for _ in range(2)]
    (batch,) = list(DataLoader(data, batch_size=None))[:1]
    batch.data[0] = 5.0
    assert data[0][0] == 0.0


def test_custom_collate_fn_numpy_becomes_tensor():
    def collate(samples):
        return {'sum': np.sum([s for s, _ in samples], axis=0), 'n': len(samples)}
    out = next(iter(DataLoader(Images(), batch_size=4, collate_fn=collate)))
    assert isinstance(out['sum'], framework.Tensor) and out['sum'].shape == [10, 10, 3]
    assert out['n'] == 4


def test_batch_size_none_converts_single_samples():
    loader = DataLoader(Images(n=3), batch_size=None)
    assert len(loader) == 3
    img, label = next(iter(loader))
    assert isinstance(img, framework.Tensor) and img.shape == [10, 10, 3]
    assert label == 0


def test_return_list_false_uses_feed_names():
    loader = DataLoader(Images(n=4), batch_size=2, return_list=False, feed_list=['image', 'label'])
    batch = next(iter(loader))
    assert set(batch) == {'image', 'label'} and batch['image'].shape == [2, 10, 10, 3]
    with pytest.raises(ValueError, match='feed_list'):
        DataLoader(Images(), return_list=False)


# ----------------------------------------------------------------------------- batching
def test_len_and_drop_last():
    assert len(DataLoader(Images(n=23), batch_size=5)) == 5
    assert len(DataLoader(Images(n=23), batch_size=5, drop_last=True)) == 4
    assert len(list(DataLoader(Images(n=23), batch_size=5, drop_last=True))) == 4
    assert list(DataLoader(list(range(5)), batch_size=2)).__len__() == 3


def test_batch_sampler_argument():
    bs = BatchSampler(Images(n=7), batch_size=3)
    loader = DataLoader(Images(n=7), batch_sampler=bs)
    assert len(loader) == 3
    assert [b[1].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError, match='batch_sampler'):
        DataLoader(Images(n=7), batch_sampler=bs, batch_size=2)
    with pytest.raises(ValueError, match='batch_sampler'):
        DataLoader(Images(n=7), batch_sampler=bs, shuffle=True)


def test_argument_errors():
    with pytest.raises(ValueError, match='num_workers'):
        DataLoader(Images(), num_workers=-1)
    with pytest.raises(ValueError, match='batch_size'):
        DataLoader(Images(), batch_size=0)
    with pytest.raises(ValueError, match='timeout'):
        DataLoader(Images(), timeout=-1)
    with pytest.raises(ValueError, match='prefetch_factor'):
        DataLoader(Images(), prefetch_factor=0)
    with pytest.raises(TypeError, match='collate_fn'):
        DataLoader(Images(), collate_fn=3)


def test_shuffle_repeatable_with_seed_and_varies_by_epoch():
    loader = DataLoader(Images(), batch_size=4, shuffle=True)
    framework.seed(5)
    e1 = [b[1].tolist() for b in loader]
    e2 = [b[1].tolist() for b in loader]
    framework.seed(5)
    again = [b[1].tolist() for b in loader]
    assert e1 == again and e1 != e2
    assert sorted(sum(e1, [])) == list(range(23))


def test_loader_callable_like_paddle():
    loader = DataLoader(Images(n=4), batch_size=2)
    assert len(list(loader())) == 2


# ----------------------------------------------------------------------------- iterable
class Counting(IterableDataset):
    def __init__(self, n, split=True):
        self.n = n
        self.split = split

    def __iter__(self):
        info = get_worker_info()
        start, step = 0, 1
        if info is not None and self.split:
            start, step = info.id, info.num_workers
        for i in range(start, self.n, step):
            yield np.array([i], np.int64), float(framework.random.generator().random())


def test_iterable_dataset_batching():
    loader = DataLoader(Counting(7), batch_size=3)
    got = [x.numpy().ravel().tolist() for x, _ in loader]
    assert got == [[0, 1, 2], [3, 4, 5], [6]]
    loader = DataLoader(Counting(7), batch_size=3, drop_last=True)
    assert [x.numpy().ravel().tolist() for x, _ in loader] == [[0, 1, 2], [3, 4, 5]]
    loader = DataLoader(Counting(2), batch_size=None)
    assert [x.tolist() for x, _ in loader] == [[0], [1]]
    with pytest.raises(TypeError, match='IterableDataset'):
        len(DataLoader(Counting(3)))
    assert len(list(DataLoader(Counting(3)))) == 3      # list() copes with no len
    with pytest.raises(ValueError, match='shuffle'):
        DataLoader(Counting(3), shuffle=True)


def test_iterable_dataset_with_workers_round_robin():
    loader = DataLoader(Counting(11), batch_size=2, num_workers=3)
    got = [x.numpy().ravel().tolist() for x, _ in loader]
    # worker w streams w, w+3, ...; batches are taken from the workers in turn
    assert got == [[0, 3], [1, 4], [2, 5], [6, 9], [7, 10], [8]]
    again = [x.numpy().ravel().tolist() for x, _ in loader]
    assert again == got


def test_iterable_dataset_without_split_is_replicated_per_worker():
    got = [x.numpy().ravel().tolist()
           for x, _ in DataLoader(Counting(3, split=False), batch_size=3, num_workers=2)]
    assert got == [[0, 1, 2], [0, 1, 2]]


def test_iterable_dataset_random_draws_are_repeatable_across_runs():
    def run(workers):
        framework.seed(9)
        return [r.numpy().tolist() for _, r in
                DataLoader(Counting(9), batch_size=2, num_workers=workers)]
    assert run(2) == run(2)
    assert run(0) == run(0)


# ----------------------------------------------------------------------------- workers
@pytest.mark.parametrize('workers,prefetch', [(1, 2), (2, 1), (3, 2)])
def test_workers_give_same_batches_as_main_thread(workers, prefetch):
    ds = augmenting()
    framework.seed(1)
    ref = as_numpy(DataLoader(ds, batch_size=4, shuffle=True))
    framework.seed(1)
    got = as_numpy(DataLoader(ds, batch_size=4, shuffle=True, num_workers=workers,
                              prefetch_factor=prefetch))
    assert same(ref, got)
    # and the augmentation really is random: a different seed changes the pixels
    framework.seed(2)
    other = as_numpy(DataLoader(ds, batch_size=4, shuffle=False))
    framework.seed(3)
    other2 = as_numpy(DataLoader(ds, batch_size=4, shuffle=False))
    assert not same(other, other2)


def test_workers_keep_order_with_uneven_sample_times():
    class Jittery(Dataset):
        def __len__(self):
            return 24

        def __getitem__(self, i):
            time.sleep(0.004 * ((i * 7) % 5))
            return i
    got = [b.tolist() for b in DataLoader(Jittery(), batch_size=2, num_workers=3)]
    assert got == [[i, i + 1] for i in range(0, 24, 2)]


def test_worker_info_inside_workers():
    class WhoAmI(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            info = get_worker_info()
            return np.array([info.id, info.num_workers, info.dataset is self])
    rows = np.concatenate([b.numpy() for b in DataLoader(WhoAmI(), batch_size=2,
                                                          num_workers=2)])
    assert rows[:, 0].tolist() == [0, 0, 1, 1, 0, 0, 1, 1]
    assert set(rows[:, 1].tolist()) == {2} and rows[:, 2].all()


def test_worker_init_fn_runs_in_each_worker():
    seen = []
    lock = threading.Lock()

    def init(worker_id):
        with lock:
            seen.append((worker_id, get_worker_info().id))
    list(DataLoader(Images(n=6), batch_size=2, num_workers=3, worker_init_fn=init))
    assert sorted(seen) == [(0, 0), (1, 1), (2, 2)]


def test_worker_init_fn_error_is_raised():
    def init(worker_id):
        raise OSError('no such device %d' % worker_id)
    base = threading.active_count()
    with pytest.raises(OSError, match='worker_init_fn'):
        list(DataLoader(Images(n=6), batch_size=2, num_workers=2, worker_init_fn=init))
    assert wait_for_threads(base) == base


class Failing(Dataset):
    def __init__(self, bad=9, exc=ValueError('sample 9 is broken')):
        self.bad = bad
        self.exc = exc

    def __len__(self):
        return 20

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc
        return i


def test_worker_exception_reraised_with_traceback():
    base = threading.active_count()
    loader = DataLoader(Failing(), batch_size=4, num_workers=2)
    got = []
    with pytest.raises(ValueError) as info:
        for b in loader:
            got.append(b.tolist())
    msg = str(info.value)
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7]]       # batches before the bad one arrive
    assert 'DataLoader worker 0 raised ValueError while loading batch 2' in msg
    assert 'sample indices [8, 9, 10, 11]' in msg
    assert 'sample 9 is broken' in msg and '__getitem__' in msg and 'test_dataloader.py' in msg
    assert isinstance(info.value.worker_exception, ValueError)
    assert wait_for_threads(base) == base


def test_worker_exception_kinds():
    with pytest.raises(KeyError) as info:
        list(DataLoader(Failing(exc=KeyError('missing')), batch_size=4, num_workers=2))
    assert '\n' in str(info.value) and "KeyError: 'missing'" in str(info.value)

    class NeedsTwoArgs(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)
    with pytest.raises(RuntimeError, match='NeedsTwoArgs'):
        list(DataLoader(Failing(exc=NeedsTwoArgs(1, 2)), batch_size=4, num_workers=2))


def test_main_thread_exception_is_the_original():
    with pytest.raises(ValueError, match='sample 9 is broken') as info:
        list(DataLoader(Failing(), batch_size=4))
    assert 'DataLoader worker' not in str(info.value)


def test_iterable_worker_exception():
    class Bad(IterableDataset):
        def __iter__(self):
            yield 1
            raise RuntimeError('stream broke')
    with pytest.raises(RuntimeError, match='stream broke'):
        list(DataLoader(Bad(), batch_size=1, num_workers=2))


def test_timeout_raises_clearly_and_quickly():
    base = threading.active_count()
    loader = DataLoader(Images(n=4, delay=1.0), batch_size=1, num_workers=1, timeout=0.2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match=r'timed out.*batch 0.*timeout=0.2'):
        next(iter(loader))
    assert time.monotonic() - start < 1.5
    assert wait_for_threads(base, deadline=15) == base


def test_slow_dataset_without_timeout_completes():
    got = [b[1].tolist() for b in DataLoader(Images(n=6, delay=0.02), batch_size=2,
                                             num_workers=2)]
    assert got == [[0, 1], [2, 3], [4, 5]]


def test_prefetch_is_bounded():
    calls = []

    class Recording(Dataset):
        def __len__(self):
            return 100

        def __getitem__(self, i):
            calls.append(i)
            return i
    def settle(n):
        end = time.monotonic() + 10
        while len(calls) < n and time.monotonic() < end:
            time.sleep(0.01)
        time.sleep(0.2)           # give the workers a chance to (wrongly) run ahead
        return len(calls)
    it = iter(DataLoader(Recording(), batch_size=1, num_workers=2, prefetch_factor=2))
    assert settle(4) == 4                  # prefetch_factor * num_workers batches
    next(it)
    assert settle(5) == 5                  # one taken, one more requested
    del it


def test_early_break_and_del_stop_workers():
    base = threading.active_count()
    loader = DataLoader(Images(n=40, delay=0.01), batch_size=2, num_workers=3)
    for _ in loader:
        break
    assert wait_for_threads(base) == base
    it = iter(loader)
    next(it)
    assert threading.active_count() == base + 3
    del it
    assert wait_for_threads(base) == base


def test_many_epochs_leak_no_threads():
    base = threading.active_count()
    loader = DataLoader(augmenting(), batch_size=5, num_workers=2, shuffle=True)
    for epoch in range(25):
        n = 0
        for i, _ in enumerate(loader):
            n += 1
            if epoch % 3 == 1 and i == 1:
                break
        assert threading.active_count() <= base + 2
    assert wait_for_threads(base) == base


def test_persistent_workers_reuse_threads():
    base = threading.active_count()
    ds = augmenting()
    loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2, persistent_workers=True)
    framework.seed(4)
    epochs = [as_numpy(loader) for _ in range(3)]
    threads = {t.ident for t in threading.enumerate()}
    assert threading.active_count() == base + 2
    as_numpy(loader)
    assert {t.ident for t in threading.enumerate()} == threads
    framework.seed(4)
    ref = DataLoader(ds, batch_size=4, shuffle=True)
    assert all(same(e, as_numpy(ref)) for e in epochs)
    # a new epoch invalidates an unfinished iterator instead of mixing their batches
    old = iter(loader)
    next(old)
    new = iter(loader)
    with pytest.raises(RuntimeError, match='persistent_workers'):
        for _ in old:
            pass
    assert len(as_numpy(new)) == 6
    del loader, old, new
    assert wait_for_threads(base) == base


def test_switch_interval_lowered_only_while_workers_run():
    before = sys.getswitchinterval()
    it = iter(DataLoader(Images(n=8), batch_size=2, num_workers=2))
    next(it)
    assert sys.getswitchinterval() <= min(before, 0.001)
    list(it)
    assert sys.getswitchinterval() == before


def test_no_hang_at_interpreter_exit():
    code = textwrap.dedent('''
        import sys, time
        sys.path.insert(0, %r)
        import numpy as np
        from framework.io import DataLoader, Dataset
        class Slow(Dataset):
            def __len__(self): return 100
            def __getitem__(self, i):
                time.sleep(0.05)
                return np.zeros(3)
        it = iter(DataLoader(Slow(), batch_size=2, num_workers=2))
        next(it)
        keep = DataLoader(Slow(), batch_size=2, num_workers=2, persistent_workers=True)
        it2 = iter(keep)
        next(it2)
        print('done')
    ''' % (sys.path[1],))
    start = time.monotonic()
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == 'done'
    assert time.monotonic() - start < 20
