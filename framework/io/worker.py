"""DataLoader worker threads.

Workers are daemon threads (numpy releases the GIL in the heavy parts of data
preparation, so threads overlap loading with training without the cost of
processes and shared memory). Each worker takes tasks from its own input queue
and puts results, tagged with the batch number, on the output queue of the epoch
(one pass of one iterator) the task belongs to; the main thread restores the
order. Separate epoch queues keep an abandoned iterator from taking the results
of a newer one when persistent workers are shared between epochs. Worker threads never hold a
reference to the iterator that feeds them, so dropping the iterator (``break``
out of the loop, ``del it``) runs its ``__del__``, which stops the workers.
"""
import atexit
import queue
import sys
import threading
import time
import traceback
import weakref

__all__ = ['WorkerInfo', 'get_worker_info']

_local = threading.local()


class WorkerInfo:
    """What a worker knows about itself, from ``get_worker_info()``."""

    def __init__(self, id, num_workers, dataset, seed):  # noqa: A002  (Paddle's name)
        self.id = id
        self.num_workers = num_workers
        self.dataset = dataset
        self.seed = seed

    def __repr__(self):
        return 'WorkerInfo(id=%d, num_workers=%d, seed=%d)' % (self.id, self.num_workers,
                                                                self.seed)


def get_worker_info():
    """Inside a DataLoader worker: its ``WorkerInfo`` (``id``, ``num_workers``,
    ``dataset``, ``seed``). In the main thread: None.

    An ``IterableDataset`` uses it to give each worker its own share of the stream.
    """
    return getattr(_local, 'info', None)


class Cancelled(Exception):
    """Raised inside a worker's fetch when its epoch was abandoned."""


class _KeyErrorMessage(str):
    # KeyError's str() shows repr(message), which would escape the traceback's newlines
    def __repr__(self):
        return str(self)


class ExceptionInfo:
    """A worker's exception, carried to the main thread and raised there."""

    def __init__(self, worker_id, exc, what):
        self.worker_id = worker_id
        self.exc = exc
        self.what = what
        text = ''.join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        head = 'Traceback (most recent call last):\n'
        self.text = text[len(head):] if text.startswith(head) else text

    def reraise(self):
        msg = ("DataLoader worker %d raised %s while %s.\nWorker traceback (most recent "
               "call last):\n%s" % (self.worker_id, type(self.exc).__name__, self.what,
                                     self.text.rstrip()))
        exc_type = type(self.exc)
        if exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            err = exc_type(msg)
        except Exception:
            err = RuntimeError(msg)
        try:
            err.worker_exception = self.exc
        except AttributeError:
            pass
        raise err from None


EXHAUSTED = object()   # result of a fetch when an iterable dataset's stream ended


def _worker_loop(worker_id, num_workers, dataset, seed, init_fn, in_q, stop):
    _local.info = WorkerInfo(worker_id, num_workers, dataset, seed)
    init_error = None
    if init_fn is not None:
        try:
            init_fn(worker_id)
        except BaseException as e:  # noqa: B902  (reported to the main thread)
            init_error = ExceptionInfo(worker_id, e, 'running worker_init_fn')
    state = {}
    while not stop.is_set():
        task = in_q.get()
        if task is None:
            break
        epoch, idx, payload = task
        if epoch.cancel.is_set():
            continue
        if init_error is not None:      # a broken worker answers every task with its error
            result = init_error
        else:
            try:
                result = epoch.fetch(idx, payload, state, worker_id)
            except Cancelled:
                continue
            except BaseException as e:  # noqa: B902  (reported to the main thread)
                result = ExceptionInfo(worker_id, e, epoch.describe(idx, payload))
        epoch.out_q.put((idx, result))
        del task, epoch, payload, result     # let a finished epoch's data be freed


_live_pools = weakref.WeakSet()

# While worker threads run, the training thread must get the GIL back quickly each
# time a numpy call returns; with CPython's default 5 ms switch interval a worker
# running Python code makes it wait up to 5 ms per call. Measured on the 2-core
# dev machine: a matmul loop taking 0.19 s alone took 0.89 s next to a Python-bound
# thread at 5 ms and 0.33 s at 1 ms (0.30 s next to a GIL-free numpy thread). So
# the interval is lowered while any pool is alive, then restored.
_SWITCH_INTERVAL = 0.001
_switch_lock = threading.Lock()
_switch_state = {'pools': 0, 'saved': None}


def _acquire_switch_interval():
    with _switch_lock:
        _switch_state['pools'] += 1
        if _switch_state['pools'] == 1:
            current = sys.getswitchinterval()
            if current > _SWITCH_INTERVAL:
                _switch_state['saved'] = current
                sys.setswitchinterval(_SWITCH_INTERVAL)


def _release_switch_interval():
    with _switch_lock:
        _switch_state['pools'] -= 1
        saved = _switch_state['saved']
        if _switch_state['pools'] == 0 and saved is not None:
            _switch_state['saved'] = None
            # leave it alone if someone else changed it meanwhile
            if abs(sys.getswitchinterval() - _SWITCH_INTERVAL) < 1e-9:
                sys.setswitchinterval(saved)


class WorkerPool:
    """``num_workers`` daemon threads with one input queue each."""

    def __init__(self, dataset, num_workers, seed, init_fn):
        self.num_workers = num_workers
        self.in_qs = [queue.Queue() for _ in range(num_workers)]
        self.stop = threading.Event()
        self.closed = False
        self.threads = []
        _acquire_switch_interval()
        for i in range(num_workers):
            t = threading.Thread(
                target=_worker_loop, name='DataLoader-worker-%d' % i, daemon=True,
                args=(i, num_workers, dataset, seed + i, init_fn, self.in_qs[i], self.stop))
            t.start()
            self.threads.append(t)
        _live_pools.add(self)

    def put(self, worker_id, task):
        self.in_qs[worker_id].put(task)

    def dead_worker(self):
        for i, t in enumerate(self.threads):
            if not t.is_alive():
                return i
        return None

    def shutdown(self, join_timeout=5.0):
        """Stop the workers and wait (bounded) for them to finish their current task."""
        if self.closed:
            return
        self.closed = True
        _release_switch_interval()
        self.stop.set()
        for q in self.in_qs:
            q.put(None)
        deadline = time.monotonic() + join_timeout
        me = threading.current_thread()
        for t in self.threads:
            if t is not me:
                t.join(max(0.0, deadline - time.monotonic()))

    def __del__(self):
        try:
            self.shutdown()
        except Exception:   # interpreter teardown: daemon threads die with it
            pass


@atexit.register
def _stop_all_pools():
    for pool in list(_live_pools):
        pool.stop.set()
        for q in pool.in_qs:
            q.put(None)
