"""DataLoader: batches from a dataset, optionally prepared by worker threads.

Determinism: every epoch draws one base seed from ``framework.random.generator()``
(after the sampler's shuffle, which draws from it too). Batch ``k`` of a map-style
dataset is then prepared with ``framework.random.generator()`` temporarily
replaced, in the preparing thread only, by a generator seeded with
``(base seed, k)``; a worker of an iterable dataset uses ``(base seed, worker id)``.
So random augmentation gives the same batches whatever the number of workers and
however the threads are scheduled, and ``framework.seed(n)`` repeats whole runs.

With ``num_workers > 0`` batch ``k`` goes to worker ``k % num_workers`` (iterable
datasets: round robin over the workers whose stream has not ended) and batches are
yielded in order; at most ``prefetch_factor * num_workers`` batches are in flight.

>>> import numpy as np
>>> from framework.io import DataLoader, TensorDataset
>>> ds = TensorDataset([np.arange(12.0).reshape(6, 2), np.arange(6)])
>>> loader = DataLoader(ds, batch_size=4)
>>> [(x.shape, y.shape) for x, y in loader]
[(paddle.Size([4, 2]), paddle.Size([4])), (paddle.Size([2, 2]), paddle.Size([2]))]
"""
import itertools
import numbers
import queue
import threading
import time

import numpy as np

from .. import random as _random
from . import worker as _worker
from .collate import collate_to_tensors, default_convert_fn, to_tensors
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequenceSampler

__all__ = ['DataLoader']

_POLL = 0.25   # seconds between liveness checks while waiting without a timeout


def _seed_rng(*entropy):
    return np.random.default_rng([int(e) for e in entropy])


class _Epoch:
    """One pass over the data: how to prepare batch ``idx`` from its task.

    Shared with worker threads, so it references the dataset and functions but
    never the iterator."""

    def __init__(self, loader, base_seed):
        self.dataset = loader.dataset
        self.iterable = loader._iterable
        self.batch_size = loader._batch_size
        self.drop_last = loader.drop_last
        self.auto_collate = loader._auto_collate
        self.collate_fn = loader.collate_fn
        self.base_seed = base_seed
        self.cancel = threading.Event()
        self.out_q = queue.Queue()      # (batch idx, result) from the workers

    def _finish(self, samples):
        if not self.auto_collate:
            convert = self.collate_fn or default_convert_fn
            return to_tensors(convert(samples), copy=True)
        if self.collate_fn is None:
            return collate_to_tensors(samples)
        return to_tensors(self.collate_fn(samples), copy=True)

    def fetch(self, idx, payload, state, worker_id):
        if self.iterable:
            return self._fetch_stream(state, worker_id)
        with _random.thread_generator(_seed_rng(self.base_seed, idx)):
            if not self.auto_collate:
                return self._finish(self.dataset[payload])
            samples = []
            for i in payload:
                if self.cancel.is_set():
                    raise _worker.Cancelled()
                samples.append(self.dataset[i])
            return self._finish(samples)

    def _fetch_stream(self, state, worker_id):
        if state.get('epoch') is not self:
            state.clear()
            state.update(epoch=self, it=None, done=False,
                         rng=_seed_rng(self.base_seed, worker_id))
        if state['done']:
            return _worker.EXHAUSTED
        with _random.thread_generator(state['rng']):
            if state['it'] is None:
                state['it'] = iter(self.dataset)
            if not self.auto_collate:
                try:
                    return self._finish(next(state['it']))
                except StopIteration:
                    state['done'] = True
                    return _worker.EXHAUSTED
            batch = list(itertools.islice(state['it'], self.batch_size))
            if len(batch) < self.batch_size:
                state['done'] = True
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return _worker.EXHAUSTED
            return self._finish(batch)

    def describe(self, idx, payload):
        if self.iterable:
            return 'loading batch %d of an IterableDataset' % idx
        if self.auto_collate:
            shown = payload if len(payload) <= 16 else payload[:16] + ['...']
            return 'loading batch %d (sample indices %s)' % (idx, shown)
        return 'loading sample %d' % payload


def _draw_base_seed():
    return int(_random.generator().integers(0, 2 ** 63 - 1))


class _SingleThreadIter:
    """num_workers=0: prepare each batch in the calling thread when asked."""

    def __init__(self, loader):
        self._loader = loader
        self._tasks = loader._task_iter()
        self._epoch = _Epoch(loader, _draw_base_seed())
        self._state = {}
        self._idx = 0

    def __iter__(self):
        return self

    def __next__(self):
        payload = next(self._tasks)
        result = self._epoch.fetch(self._idx, payload, self._state, 0)
        self._idx += 1
        if result is _worker.EXHAUSTED:
            self._tasks = iter(())
            raise StopIteration
        return self._loader._output(result)

    next = __next__


class _ThreadedIter:
    """num_workers>0: worker threads prepare batches ahead; yield them in order."""

    def __init__(self, loader):
        self._loader = loader
        self._done = False
        self._pool = None
        self._tasks = loader._task_iter()
        self._epoch = _Epoch(loader, _draw_base_seed())
        self._pool, self._owns_pool = loader._worker_pool(self._epoch)
        self._n = loader.num_workers
        self._timeout = loader.timeout
        self._send_idx = 0
        self._rcvd_idx = 0
        self._buffer = {}
        self._worker_of = {}
        self._active = [True] * self._n
        self._next_worker = 0
        try:
            for _ in range(loader.prefetch_factor * self._n):
                if not self._dispatch():
                    break
        except BaseException:
            self._shutdown()
            raise

    def __iter__(self):
        return self

    def _pick_worker(self):
        for step in range(self._n):
            w = (self._next_worker + step) % self._n
            if self._active[w]:
                self._next_worker = (w + 1) % self._n
                return w
        return None

    def _dispatch(self):
        """Send the next task to a worker; False when there is none to send."""
        if self._loader._iterable:
            w = self._pick_worker()
            if w is None:
                return False
            payload = None
        else:
            try:
                payload = next(self._tasks)
            except StopIteration:
                return False
            w = self._pick_worker()
        idx = self._send_idx
        self._worker_of[idx] = w
        self._pool.put(w, (self._epoch, idx, payload))
        self._send_idx += 1
        return True

    def __next__(self):
        if self._done:
            raise StopIteration
        try:
            while True:
                if self._rcvd_idx in self._buffer:
                    result = self._buffer.pop(self._rcvd_idx)
                    self._worker_of.pop(self._rcvd_idx)
                    self._rcvd_idx += 1
                    if result is _worker.EXHAUSTED:
                        self._dispatch()
                        continue
                    if isinstance(result, _worker.ExceptionInfo):
                        result.reraise()
                    self._dispatch()
                    return self._loader._output(result)
                if self._rcvd_idx >= self._send_idx:
                    self._shutdown()
                    raise StopIteration
                self._receive()
        except StopIteration:
            raise
        except BaseException:
            self._shutdown()
            raise

    next = __next__

    def _get(self, wait):
        try:
            return self._epoch.out_q.get(timeout=wait)
        except queue.Empty:
            return None

    def _check_alive(self):
        if self._epoch.cancel.is_set():
            raise RuntimeError("DataLoader: this iterator was abandoned because a new epoch "
                               "was started on the same DataLoader with persistent_workers="
                               "True; use one iterator at a time")
        dead = self._pool.dead_worker()
        if dead is not None:
            item = self._get(0.05)     # its last words may still be in the queue
            if item is not None:
                return item
            raise RuntimeError("DataLoader worker %d exited unexpectedly while batch %d was "
                               "pending" % (dead, self._rcvd_idx))
        return None

    def _wait_for_result(self):
        if self._timeout > 0:
            deadline = time.monotonic() + self._timeout
        while True:
            wait = _POLL
            if self._timeout > 0:
                wait = min(wait, deadline - time.monotonic())
                if wait <= 0:
                    # a stuck worker cannot be interrupted: do not wait for it to stop
                    self._shutdown(join_timeout=0.0)
                    raise RuntimeError(
                        "DataLoader timed out: batch %d did not arrive from worker %d within "
                        "timeout=%s seconds; the dataset may be too slow or stuck (raise "
                        "timeout, or use timeout=0 to wait indefinitely)"
                        % (self._rcvd_idx, self._worker_of.get(self._rcvd_idx, -1),
                           self._timeout))
            item = self._get(wait)
            if item is None:
                item = self._check_alive()
            if item is not None:
                return item

    def _receive(self):
        idx, result = self._wait_for_result()
        self._buffer[idx] = result
        if result is _worker.EXHAUSTED:
            self._active[self._worker_of[idx]] = False

    def _shutdown(self, join_timeout=1.0):
        """Stop this epoch. Workers finish at most their current sample; we wait
        for them up to ``join_timeout`` and leave any slower one (a daemon thread
        that exits by itself when its sample is done)."""
        if self._done:
            return
        self._done = True
        self._epoch.cancel.set()
        self._buffer.clear()
        try:                # prefetched batches of an abandoned epoch: free them now
            while True:
                self._epoch.out_q.get_nowait()
        except queue.Empty:
            pass
        if self._pool is not None and self._owns_pool:
            self._pool.shutdown(join_timeout)

    def __del__(self):
        try:
            self._shutdown()
        except Exception:   # interpreter teardown
            pass


def _check_int(value, what, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError("DataLoader: %s should be an integer >= %d, but got %r"
                         % (what, minimum, value))
    return int(value)


class DataLoader:
    """Iterate over ``dataset`` in batches.

    Args follow Paddle 2.x. ``batch_size=None`` turns batching off (each sample is
    converted on its own). ``collate_fn`` receives the list of samples of a batch;
    by default they are stacked (``framework.io.default_collate_fn``) and numpy
    arrays in the result become Tensors. ``num_workers`` worker threads prepare up
    to ``prefetch_factor`` batches each ahead of the training loop;
    ``timeout > 0`` raises if a batch takes longer than that many seconds;
    ``persistent_workers`` keeps the threads between epochs. While worker threads
    exist, ``sys.setswitchinterval`` is lowered to 1 ms (and restored afterwards)
    so that the training thread gets the GIL back quickly. ``places``,
    ``use_buffer_reader`` (with ``reader_buffer_size``) and ``use_shared_memory`` are accepted for compatibility
    (everything runs on the CPU in one process).

    >>> import numpy as np
    >>> from framework.io import DataLoader
    >>> data = [(np.full(3, i, 'float32'), i) for i in range(5)]
    >>> [y.tolist() for x, y in DataLoader(data, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __init__(self, dataset, feed_list=None, places=None, return_list=True,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, reader_buffer_size=2,
                 prefetch_factor=2,
                 use_shared_memory=True, timeout=0, worker_init_fn=None,
                 persistent_workers=False):
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self.return_list = bool(return_list)
        if not self.return_list and not feed_list:
            raise ValueError("DataLoader: return_list=False returns a dict keyed by the names "
                             "of feed_list, so feed_list must be given")
        self.num_workers = _check_int(num_workers, 'num_workers', 0)
        self.prefetch_factor = _check_int(prefetch_factor, 'prefetch_factor', 1)
        if not isinstance(timeout, numbers.Real) or timeout < 0:
            raise ValueError("DataLoader: timeout should be a number >= 0, but got %r"
                             % (timeout,))
        self.timeout = float(timeout)
        if collate_fn is not None and not callable(collate_fn):
            raise TypeError("DataLoader: collate_fn should be callable, got %r" % (collate_fn,))
        self.collate_fn = collate_fn
        self.worker_init_fn = worker_init_fn
        self.persistent_workers = bool(persistent_workers)
        self.use_buffer_reader = use_buffer_reader
        self.reader_buffer_size = _check_int(reader_buffer_size, 'reader_buffer_size', 1)
        self.use_shared_memory = use_shared_memory
        self.drop_last = drop_last
        self._iterable = isinstance(dataset, IterableDataset)
        self._setup_batching(batch_sampler, batch_size, shuffle, drop_last)
        self._pool = None
        self._pool_epoch = None

    def _setup_batching(self, batch_sampler, batch_size, shuffle, drop_last):
        if self._iterable:
            if shuffle:
                raise ValueError("DataLoader: shuffle=True is not supported for an "
                                 "IterableDataset (it has no indices to shuffle)")
            if batch_sampler is not None:
                raise ValueError("DataLoader: batch_sampler is not supported for an "
                                 "IterableDataset")
        self.batch_sampler = None
        self._sampler = None
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError("DataLoader: batch_size, shuffle and drop_last must keep "
                                 "their defaults when batch_sampler is given (the sampler "
                                 "decides them)")
            self.batch_sampler = batch_sampler
            self.batch_size = getattr(batch_sampler, 'batch_size', None)
            self._auto_collate = True
        elif batch_size is None:
            if drop_last:
                raise ValueError("DataLoader: drop_last needs batch_size to be set")
            self.batch_size = None
            self._auto_collate = False
            if not self._iterable:
                self._sampler = RandomSampler(self.dataset) if shuffle \
                    else SequenceSampler(self.dataset)
        else:
            self.batch_size = _check_int(batch_size, 'batch_size', 1)
            self._auto_collate = True
            if not self._iterable:
                self.batch_sampler = BatchSampler(self.dataset, shuffle=bool(shuffle),
                                                  batch_size=self.batch_size,
                                                  drop_last=bool(drop_last))
        self._batch_size = self.batch_size

    def _task_iter(self):
        if self._iterable:
            return itertools.repeat(None)
        return iter(self.batch_sampler if self.batch_sampler is not None else self._sampler)

    def _output(self, batch):
        if self.return_list:
            return batch
        fields = batch if isinstance(batch, (list, tuple)) else [batch]
        names = [getattr(v, 'name', v) for v in self.feed_list]
        if len(names) != len(fields):
            raise ValueError("DataLoader: feed_list has %d entries but a batch has %d fields"
                             % (len(names), len(fields)))
        return dict(zip(names, fields))

    def _worker_pool(self, epoch):
        """(pool, owned_by_the_iterator) for a new epoch."""
        if not self.persistent_workers:
            return self._new_pool(epoch.base_seed), True
        if self._pool is None or self._pool.closed:
            self._pool = self._new_pool(epoch.base_seed)
        if self._pool_epoch is not None:
            self._pool_epoch.cancel.set()   # one live iterator per persistent pool
        self._pool_epoch = epoch
        return self._pool, False

    def _new_pool(self, seed):
        return _worker.WorkerPool(self.dataset, self.num_workers, seed % (2 ** 62),
                                  self.worker_init_fn)

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                       return_list=False, use_multiprocess=False, drop_last=True):
        """A loader fed by a Python generator (see ``set_sample_generator``,
        ``set_sample_list_generator`` and ``set_batch_generator``)."""
        from ..ops.modes import in_static_mode
        from .generator_loader import GeneratorLoader
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable,
                               return_list or not in_static_mode(), drop_last)

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleThreadIter(self)
        return _ThreadedIter(self)

    def __call__(self):
        return self.__iter__()

    def __len__(self):
        if self._iterable:
            raise TypeError("DataLoader: the length of an IterableDataset is unknown")
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        return len(self._sampler)

    def __del__(self):
        pool = getattr(self, '_pool', None)
        if pool is not None:
            try:
                pool.shutdown()
            except Exception:   # interpreter teardown
                pass
