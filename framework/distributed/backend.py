"""The communicator under ``framework.distributed``: MPI through mpi4py, or one process.

mpi4py is imported only when ``init_parallel_env()`` runs in a process that an
MPI launcher started (``mpiexec``, ``srun``: their environment variables say
so) or when ``FRAMEWORK_DIST_BACKEND=mpi`` asks for it. Otherwise, and when
mpi4py is missing in a plain process, the world is this one process
(``SingleComm``), and every collective is the identity it is at world size 1.

Every wait on an MPI request polls instead of blocking, so that it can

* give up after the group's ``timeout`` with an error naming the op,
* notice that another rank failed: a rank whose script raises tells the
  others (a message on a control communicator, see ``install_failure_hook``)
  before aborting the job, and a rank waiting in a collective raises
  ``RankFailedError`` naming that rank instead of hanging.

Before each collective the ranks exchange a small header (op, root, reduce op,
dtype, shape), so a rank calling another op, or with another shape, gives the
same clear error on every rank.
"""
import atexit
import os
import sys
import time
import traceback
import zlib

import numpy as np

from .._launch_env import env_local_rank, env_rank, env_world_size  # noqa: F401  (env.py uses)

INSTALL_HINT = ("install the distributed extra: pip install 'framework[distributed]' "
                "(mpi4py and Open MPI; or pip install mpi4py next to a system MPI)")
DEFAULT_TIMEOUT = float(os.environ.get('FRAMEWORK_DIST_TIMEOUT', 1800))

# environment variables that MPI launchers set in the processes they start
_LAUNCHER_VARS = ('OMPI_COMM_WORLD_SIZE', 'PMI_SIZE', 'PMIX_RANK', 'MV2_COMM_WORLD_SIZE',
                  'MPI_LOCALNRANKS', 'PMI_RANK')
_FAIL_TAG, _ACK_TAG = 31001, 31002
_EXIT_GRACE = 2.0      # seconds
_MPI = None


class CommunicationError(RuntimeError):
    """A collective could not complete (mismatch across ranks, a failed rank)."""


class RankFailedError(CommunicationError):
    """Another rank raised; this one stops instead of waiting for it."""


class CommunicationTimeout(CommunicationError, TimeoutError):
    """A collective did not complete within its group's timeout."""


def launched_by_mpi():
    return os.environ.get('FRAMEWORK_DIST_BACKEND') == 'mpi' or any(
        v in os.environ for v in _LAUNCHER_VARS)


def mpi():
    """The mpi4py ``MPI`` module, imported on first use."""
    global _MPI
    if _MPI is None:
        try:
            from mpi4py import MPI
        except ImportError:
            raise RuntimeError("framework.distributed: this process was started by an MPI "
                               "launcher but mpi4py is not installed; " + INSTALL_HINT) from None
        _MPI = MPI
    return _MPI


def mpi_available():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


# ---- dtypes on the wire ----------------------------------------------------
_WIRE_DTYPES = [np.dtype(n) for n in ('float32', 'float64', 'int8', 'int16', 'int32', 'int64',
                                      'uint8', 'uint16', 'uint32', 'uint64', 'complex64',
                                      'complex128')]


def dtype_code(dtype):
    """A number naming ``dtype`` in the shape headers."""
    return zlib.crc32(np.dtype(dtype).str.encode()) & 0x7fffffff


def wire_array(arr):
    """A C-contiguous array MPI can carry: half floats travel as float32, bool as uint8."""
    arr = np.asarray(arr)
    if arr.dtype not in _WIRE_DTYPES:
        arr = arr.astype(np.uint8 if arr.dtype == np.bool_ else np.float32)
    return np.ascontiguousarray(arr)


def _writable_wire(arr):
    return (type(arr) is np.ndarray and arr.dtype in _WIRE_DTYPES and arr.flags.c_contiguous
            and arr.flags.writeable)


# ---- waiting ----------------------------------------------------------------
class _World:
    """The MPI world: COMM_WORLD plus a control communicator for the notices
    a rank sends when its script raises (``failed``) or ends (``exited``)."""

    def __init__(self):
        MPI = mpi()
        if not MPI.Is_initialized():
            MPI.Init_thread()
        self.comm = MPI.COMM_WORLD
        self.ctrl = self.comm.Dup()
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        self.failed = None       # (rank, message) once a failure notice arrived
        self.exited = {}         # rank -> when its exit notice arrived
        self._sent = []

    def _read_notices(self):
        MPI = _MPI
        status = MPI.Status()
        while self.ctrl.Iprobe(source=MPI.ANY_SOURCE, tag=_FAIL_TAG, status=status):
            source = status.Get_source()
            kind, msg = self.ctrl.recv(source=source, tag=_FAIL_TAG)
            if kind == 'failed' and self.failed is None:
                self.failed = (source, msg)
            elif kind == 'exited':
                self.exited.setdefault(source, time.monotonic())

    def check_failures(self, ranks, what):
        """Raise if a rank failed, or if one of ``ranks`` (world ranks) ended
        its script while this one waits in ``what``."""
        self._read_notices()
        if self.failed is not None:
            rank, msg = self.failed
            raise RankFailedError("framework.distributed: rank %d failed, so rank %d stops: %s"
                                  % (rank, self.rank, msg))
        for rank, when in self.exited.items():
            # (the notice travels apart from the collective's own messages: give
            # those the time to complete a collective the rank did join)
            if rank in ranks and time.monotonic() - when > _EXIT_GRACE:
                raise RankFailedError(
                    "framework.distributed: rank %d ended its script (exited) while rank %d "
                    "waits for it in %s" % (rank, self.rank, what))

    def _notify(self, kind, message):
        self._sent += [self.ctrl.isend((kind, message), dest=r, tag=_FAIL_TAG)
                       for r in range(self.size) if r != self.rank]

    def notify_failure(self, message, grace=10.0):
        """Tell every other rank that this one failed; wait (up to ``grace``
        seconds) until they have read it, so their errors get printed."""
        MPI = _MPI
        self._notify('failed', message)
        acks = [self.ctrl.irecv(source=r, tag=_ACK_TAG) for r in range(self.size)
                if r != self.rank]
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and not MPI.Request.Testall(acks):
            time.sleep(0.01)
        MPI.Request.Testall(self._sent)

    def notify_exit(self):
        """At exit: ranks still waiting for this one stop instead of hanging."""
        self._notify('exited', '')
        _MPI.Request.Testall(self._sent)

    def acknowledge_failure(self):
        if self.failed is not None:
            self.ctrl.send(b'', dest=self.failed[0], tag=_ACK_TAG)


_world = None


def world():
    global _world
    if _world is None:
        _world = _World()
    return _world


def wait_all(requests, what, timeout, ranks):
    """Wait for MPI ``requests`` of a collective among world ``ranks``, polling
    for failure notices; raise after ``timeout`` s."""
    MPI = _MPI
    try:
        _poll(MPI, _world, requests, what, timeout, ranks)
    except MPI.Exception as e:      # e.g. a message longer than the receive buffer
        raise CommunicationError("framework.distributed: %s on rank %d failed: %s"
                                 % (what, _world.rank, e)) from None


def _poll(MPI, w, requests, what, timeout, ranks):
    if MPI.Request.Testall(requests):
        return
    start = time.monotonic()
    spins = 0
    while not MPI.Request.Testall(requests):
        spins += 1
        if spins % 16 == 0:
            w.check_failures(ranks, what)
            waited = time.monotonic() - start
            if waited > timeout:
                raise CommunicationTimeout(
                    "framework.distributed: %s on rank %d did not complete within %g s "
                    "(timeout): another rank did not join it" % (what, w.rank, timeout))
            # spin while the other ranks are close, then yield the core
            if waited > 1e-3:
                time.sleep(min(1e-3, waited / 50))


def install_failure_hook():
    """Make an uncaught exception on this rank stop the others with a clear
    error, and its exit stop those still waiting for it."""
    previous = sys.excepthook

    def hook(tp, value, tb):
        previous(tp, value, tb)
        w = _world
        try:
            if isinstance(value, RankFailedError):
                w.acknowledge_failure()
            else:
                where = traceback.extract_tb(tb)[-1] if tb is not None else None
                msg = "%s: %s" % (tp.__name__, value)
                if where is not None:
                    msg += " (at %s:%d)" % (where.filename, where.lineno)
                w.notify_failure(msg)
        finally:
            sys.stderr.flush()
            sys.stdout.flush()
            w.comm.Abort(1)
    sys.excepthook = hook
    atexit.register(lambda: _world.notify_exit())


# ---- communicators ------------------------------------------------------------
class SingleComm:
    """The one-process world: every collective is what it is at world size 1."""
    rank = 0
    size = 1
    timeout = DEFAULT_TIMEOUT

    def all_reduce(self, arr, op, what='all_reduce', in_place=False, sync=False):
        return Done(np.array(arr))      # AVG over one rank is the value too

    def broadcast(self, arr, root, what='broadcast', in_place=False, sync=False):
        _check_root(what, root, self)
        return Done(np.array(arr))

    def reduce(self, arr, root, op, what='reduce', sync=False):
        _check_root(what, root, self)
        return Done(np.array(arr))

    def all_gather(self, arr, what='all_gather', sync=False):
        return Done([np.array(arr)])

    def gather(self, arr, root, what='gather', sync=False):
        _check_root(what, root, self)
        return Done([np.array(arr)])

    def scatter(self, arrays, like, root, what='scatter', sync=False):
        _check_root(what, root, self)
        _check_count(what, arrays, 1)
        _check_like(what, arrays[0], like)
        return Done(np.array(arrays[0]))

    def alltoall(self, arrays, what='alltoall', sync=False):
        _check_count(what, arrays, 1)
        return Done([np.array(arrays[0])])

    def all_gather_bytes(self, data, what='all_gather_object'):
        return [bytes(data)]

    def barrier(self, what='barrier'):
        pass

    def send(self, arr, dst, what='send'):
        _check_peer(what, dst, self)

    recv = send

    def start_all_reduce(self, buf, what=None):
        return Done(buf)

    def free(self):
        pass


class MPIComm:
    """One MPI communicator (a group's) with the collectives on numpy arrays."""

    def __init__(self, comm, timeout, world_ranks=None):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.timeout = timeout
        self.world_ranks = frozenset(range(self.size) if world_ranks is None else world_ranks)

    def wait(self, requests, what):
        wait_all(requests, what, self.timeout, self.world_ranks)

    def headers(self, what, header):
        """All ranks' headers (rows), exchanged before the collective proper."""
        mine = np.asarray(header, np.int64)
        out = np.empty((self.size, mine.size), np.int64)
        self.wait([self.comm.Iallgather(mine, out)], what)
        return out

    # -- headers: every rank checks that all called the same op on the same shapes
    def check(self, what, arr, root=-1, reduce_op=-1, same_shape=True):
        shape = list(np.shape(arr))
        header = [_op_code(what), root, reduce_op, dtype_code(np.asarray(arr).dtype),
                  len(shape), int(np.prod(shape))] + (shape + [-1] * 8)[:8]
        rows = self.headers(what, header)
        if (rows[:, :4] == rows[0, :4]).all() and (not same_shape or (rows == rows[0]).all()):
            return
        raise CommunicationError("framework.distributed.%s: the ranks of the group disagree: %s"
                                 % (what, '; '.join(_describe(r, row) for r, row in enumerate(rows))))

    # -- collectives: each returns a Pending. The header exchange before them
    # waits (with the timeout and failure checks) until every rank is in the
    # same collective; after it a blocking MPI call cannot hang on a missing
    # rank, so a synchronous call (``sync``) uses the faster blocking algorithms.
    def _start(self, sync, name, *args, **kwargs):
        """Run MPI's ``name`` (blocking, ``sync``) or its non-blocking ``I`` form:
        the requests to wait for."""
        try:
            if sync:
                getattr(self.comm, name)(*args, **kwargs)
                return []
            return [getattr(self.comm, 'I' + name.lower())(*args, **kwargs)]
        except _MPI.Exception as e:
            raise CommunicationError("framework.distributed: %s on rank %d failed: %s"
                                     % (name, self.rank, e)) from None

    def all_reduce(self, arr, op, what='all_reduce', in_place=False, sync=False):
        """``in_place``: MPI may write the result into ``arr`` itself (a
        Tensor's in-place collective) when its layout allows."""
        self.check(what, arr, reduce_op=op)
        buf = arr if in_place and _writable_wire(arr) else wire_array(arr).copy()
        req = self._start(sync, 'Allreduce', _MPI.IN_PLACE, buf, op=_mpi_op(op))
        return Pending(self, req, what, lambda: _reduced(buf, arr, op, self.size))

    def broadcast(self, arr, root, what='broadcast', in_place=False, sync=False):
        _check_root(what, root, self)
        self.check(what, arr, root=root)
        buf = arr if in_place and _writable_wire(arr) else wire_array(arr).copy()
        req = self._start(sync, 'Bcast', buf, root=root)
        return Pending(self, req, what, lambda: _restore(buf, arr))

    def reduce(self, arr, root, op, what='reduce', sync=False):
        _check_root(what, root, self)
        self.check(what, arr, root=root, reduce_op=op)
        send = wire_array(arr)
        buf = np.empty_like(send)
        req = self._start(sync, 'Reduce', send, buf, op=_mpi_op(op), root=root)
        if self.rank != root:
            return Pending(self, req, what, lambda: np.array(arr))
        return Pending(self, req, what, lambda: _reduced(buf, arr, op, self.size))

    def all_gather(self, arr, what='all_gather', sync=False):
        self.check(what, arr)
        send = wire_array(arr)
        buf = np.empty((self.size,) + send.shape, send.dtype)
        req = self._start(sync, 'Allgather', send, buf)
        return Pending(self, req, what, lambda: [_restore(b, arr) for b in buf])

    def gather(self, arr, root, what='gather', sync=False):
        _check_root(what, root, self)
        self.check(what, arr, root=root)
        send = wire_array(arr)
        buf = np.empty((self.size,) + send.shape, send.dtype) if self.rank == root else None
        req = self._start(sync, 'Gather', send, buf, root=root)
        return Pending(self, req, what,
                       lambda: None if buf is None else [_restore(b, arr) for b in buf])

    def scatter(self, arrays, like, root, what='scatter', sync=False):
        """``arrays`` (one per rank, on ``root``) -> this rank's; ``like`` its shape/dtype."""
        _check_root(what, root, self)
        if self.rank == root:
            _check_count(what, arrays, self.size)
            for a in arrays:
                _check_like(what, a, like)
        self.check(what, like, root=root)
        send = np.stack([wire_array(a) for a in arrays]) if self.rank == root else None
        buf = np.empty_like(wire_array(like))
        req = self._start(sync, 'Scatter', send, buf, root=root)
        return Pending(self, req, what, lambda: _restore(buf, like))

    def alltoall(self, arrays, what='alltoall', sync=False):
        _check_count(what, arrays, self.size)
        for a in arrays[1:]:
            _check_like(what, a, arrays[0])
        self.check(what, arrays[0])
        send = np.stack([wire_array(a) for a in arrays])
        buf = np.empty_like(send)
        req = self._start(sync, 'Alltoall', send, buf)
        return Pending(self, req, what, lambda: [_restore(b, arrays[0]) for b in buf])

    def all_gather_bytes(self, data, what='all_gather_object'):
        sizes = self.headers(what, [_op_code(what), len(data)])
        if not (sizes[:, 0] == sizes[0, 0]).all():
            raise CommunicationError("framework.distributed.%s: the ranks called different "
                                     "collectives" % what)
        counts = sizes[:, 1]
        buf = np.empty(int(counts.sum()), np.uint8)
        displs = np.concatenate([[0], np.cumsum(counts)[:-1]])
        send = np.frombuffer(data, np.uint8)
        self._start(True, 'Allgatherv', send, [buf, counts, displs, _MPI.BYTE])
        return [buf[d:d + c].tobytes() for d, c in zip(displs, counts)]

    def barrier(self, what='barrier'):
        self.wait([self.comm.Ibarrier()], what)

    # -- point to point: a header message, then the data (MPI keeps their order)
    def send(self, arr, dst, what='send'):
        _check_peer(what, dst, self)
        data = wire_array(arr)
        shape = list(data.shape)
        header = np.array([dtype_code(np.asarray(arr).dtype), len(shape)] +
                          (shape + [-1] * 8)[:8], np.int64)
        reqs = [self.comm.Isend(header, dest=dst, tag=_P2P_HEADER),
                self.comm.Isend(data, dest=dst, tag=_P2P_DATA)]
        return Pending(self, reqs, what, lambda: None, keep=(header, data))

    def recv(self, like, src, what='recv'):
        """The header first: a message of another shape or dtype is an error
        naming both, not a truncated receive."""
        _check_peer(what, src, self)
        header = np.empty(10, np.int64)
        request = self.comm.Irecv(header, source=src, tag=_P2P_HEADER)

        def finish():
            shape = list(np.shape(like))
            mine = [dtype_code(np.asarray(like).dtype), len(shape)] + (shape + [-1] * 8)[:8]
            if list(header) != mine:
                raise CommunicationError(
                    "framework.distributed.%s: rank %d sent %s, but rank %d receives into %s"
                    % (what, src, _describe_p2p(header), self.rank, _describe_p2p(mine)))
            buf = np.empty_like(wire_array(like))
            self.wait([self.comm.Irecv(buf, source=src, tag=_P2P_DATA)], what)
            return _restore(buf, like)
        return Pending(self, [request], what, finish)

    def start_all_reduce(self, buf, what='DataParallel gradient all_reduce'):
        """Sum ``buf`` (a wire array) over the group in place; no header (the
        layout was checked once): the DataParallel buckets."""
        req = self.comm.Iallreduce(_MPI.IN_PLACE, buf, op=_MPI.SUM)
        return Pending(self, [req], what, lambda: buf)

    def free(self):
        if self.comm is not _MPI.COMM_WORLD:
            self.comm.Free()


class Pending:
    """Started MPI requests and how to make the result once they complete."""

    def __init__(self, comm, requests, what, finish, keep=None):
        self.comm = comm
        self.requests = requests
        self.what = what
        self.finish = finish
        self.keep = keep         # buffers MPI reads until the requests complete
        self.result = None
        self.done = False

    def test(self):
        if not self.done and _MPI.Request.Testall(self.requests):
            self._complete()
        return self.done

    def wait(self):
        if not self.done:
            self.comm.wait(self.requests, self.what)
            self._complete()
        return self.result

    def _complete(self):
        self.result = self.finish()
        self.done = True
        self.keep = None


class Done:
    """An already completed operation (world size 1, or a synchronous call)."""
    done = True

    def __init__(self, result=None):
        self.result = result

    def test(self):
        return True

    def wait(self):
        return self.result


_P2P_HEADER, _P2P_DATA = 31010, 31011
_OP_CODES = {}


def _op_code(what):
    # the same number on every rank (Python's str hash is salted per process)
    code = _OP_CODES.get(what)
    if code is None:
        code = _OP_CODES[what] = zlib.crc32(what.encode()) & 0x7fffffff
    return code


def _op_name(code):
    for name, c in _OP_CODES.items():
        if c == code:
            return name
    return '?'


_DTYPE_NAMES = {}


def _dtype_name(code):
    if not _DTYPE_NAMES:
        for name in ('bool', 'float16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64',
                     'uint8', 'uint16', 'uint32', 'uint64', 'complex64', 'complex128'):
            _DTYPE_NAMES[dtype_code(name)] = name
    return _DTYPE_NAMES.get(int(code), 'dtype#%d' % code)


def _describe(rank, row):
    op, root, _, dt, ndim = row[:5]
    shape = [int(d) for d in row[6:6 + min(int(ndim), 8)]]
    text = "rank %d: %s of shape %s %s" % (rank, _op_name(int(op)), shape, _dtype_name(dt))
    return text + (" root %d" % root if root >= 0 else '')


def _describe_p2p(header):
    ndim = int(header[1])
    return "shape %s %s" % (list(int(d) for d in header[2:2 + min(ndim, 8)]), _dtype_name(header[0]))


def _check_count(what, arrays, size):
    if arrays is None or len(arrays) != size:
        raise ValueError("framework.distributed.%s: needs one tensor per rank (%d), got %s"
                         % (what, size, None if arrays is None else len(arrays)))


def _check_like(what, a, like):
    if np.shape(a) != np.shape(like) or np.asarray(a).dtype != np.asarray(like).dtype:
        raise ValueError("framework.distributed.%s: tensors of shape %s %s and %s %s; all must "
                         "have the same shape and dtype" % (what, list(np.shape(like)),
                                                            np.asarray(like).dtype,
                                                            list(np.shape(a)), np.asarray(a).dtype))


def _check_root(what, root, comm):
    if not isinstance(root, (int, np.integer)) or not 0 <= root < comm.size:
        raise ValueError("framework.distributed.%s: root rank %r is not a rank of the group "
                         "(size %d)" % (what, root, comm.size))


def _check_peer(what, peer, comm):
    if not isinstance(peer, (int, np.integer)) or not 0 <= peer < comm.size or peer == comm.rank:
        raise ValueError("framework.distributed.%s: peer rank %r is not another rank of the "
                         "group (rank %d of %d)" % (what, peer, comm.rank, comm.size))


def _mpi_op(op):
    MPI = _MPI
    return {0: MPI.SUM, 1: MPI.MAX, 2: MPI.MIN, 3: MPI.PROD, 4: MPI.SUM}[op]


def _restore(buf, like):
    """``buf`` back in ``like``'s dtype (after half floats or bools travelled wider)."""
    dtype = np.asarray(like).dtype
    return buf if buf.dtype == dtype else buf.astype(dtype)


def _reduced(buf, like, op, size):
    if op == 4:         # AVG: the sum over the ranks, divided by their number
        buf = buf // size if buf.dtype.kind in 'iu' else buf / size
    return _restore(buf, like)
