"""``paddle.DataParallel``: the same model on every rank, gradients averaged.

At wrap time rank 0's parameters and buffers are broadcast, so every rank
starts from the same model. The trainable parameters are packed into buckets
in reverse order (the order backward produces their gradients): the first
bucket holds up to ``last_comm_buffer_size`` MB, so communication starts
early, the others up to ``comm_buffer_size`` MB. Each parameter's
``_register_backward_hook`` fires as soon as backward has finished its
gradient; when a bucket's last gradient is in, the bucket is copied into one
flat buffer and a non-blocking MPI all-reduce starts, while backward goes on
with the earlier layers. When backward ends (a backward final hook), the
remaining buckets start, all are waited for, and each gradient becomes the
average over the ranks, before ``optimizer.step()`` can run.

Inside ``no_sync()`` nothing is communicated: gradients accumulate locally,
and the next synchronised backward averages the accumulated sums.

>>> import framework as paddle
>>> model = paddle.DataParallel(paddle.nn.Linear(2, 2))   # one process: world size 1
>>> sorted(model.state_dict())
['bias', 'weight']
"""
import contextlib
import time
import weakref

import numpy as np

from ..dygraph import autograd, no_grad
from ..dygraph.tensor import wrap_array
from ..nn.layer.layers import Layer
from . import backend as be
from .env import default_group, init_parallel_env, is_initialized

__all__ = ['DataParallel', 'sync_params_buffers']

_MB = 1 << 20


def sync_params_buffers(model, comm_group=None, src_rank=0, is_model_parallel=False,
                        fuse_params=True):
    """Broadcast ``model``'s parameters and buffers from global rank ``src_rank``.
    The ranks first compare the names and shapes, so different models fail clearly."""
    group = comm_group or default_group()
    if group.nranks == 1 or not group.is_member():
        return
    tensors = [t for _, t in model.named_parameters()] + [t for _, t in model.named_buffers()]
    layout = [(name, tuple(t.shape), str(t.data.dtype)) for name, t in
              list(model.named_parameters()) + list(model.named_buffers())]
    from .collective import _gather_objects
    layouts = _gather_objects('DataParallel parameter layout', layout, group)
    for r, other in enumerate(layouts):
        if other != layout:
            diff = [(a, b) for a, b in zip(layout, other) if a != b][:3]
            raise be.CommunicationError(
                "DataParallel: the model on rank %d differs from rank %d's: %d vs %d parameters "
                "and buffers, first differences (this rank, that rank): %s"
                % (group.ranks[r], group.ranks[group.rank], len(other), len(layout), diff))
    root = group.get_group_rank(src_rank)
    with no_grad():
        for t in tensors:
            t.data = group.comm.broadcast(t.data, root, 'DataParallel broadcast', sync=True).wait()


class _Bucket:
    """Parameters whose gradients travel in one all-reduce."""

    def __init__(self, index, params):
        self.index = index
        self.params = params
        self.dtype = np.result_type(*[p.data.dtype for p in params])
        self.ready = 0
        self.pending = None
        self.buffer = None

    def reset(self):
        self.ready = 0
        self.pending = None
        self.buffer = None


def _assign_buckets(params, first_limit, limit):
    """Consecutive parameters (already in reverse order) of one dtype, up to
    ``first_limit`` bytes for the first bucket and ``limit`` for the others."""
    buckets, current, size = [], [], 0
    for p in params:
        nbytes = p.data.nbytes
        cap = first_limit if not buckets else limit
        if current and (size + nbytes > cap or p.data.dtype != current[0].data.dtype):
            buckets.append(_Bucket(len(buckets), current))
            current, size = [], 0
        current.append(p)
        size += nbytes
    if current:
        buckets.append(_Bucket(len(buckets), current))
    return buckets


def _hook_for(wrapper_ref, param):
    param_ref = weakref.ref(param)      # (the hook table must not keep it alive)

    def hook():
        dp = wrapper_ref()
        if dp is not None and dp.grad_need_sync:
            dp._grad_ready(param_ref())
    return hook


def _remove_hooks(handles):
    for h in handles:
        h.remove()


class DataParallel(Layer):
    """Run ``layers`` data-parallel over the ranks of ``group`` (default: the world).

    ``comm_buffer_size`` / ``last_comm_buffer_size`` are the bucket sizes in MB;
    ``find_unused_parameters=True`` lets some parameters get no gradient in a
    step (their gradient counts as zero). ``state_dict()`` is the wrapped
    layer's, without a prefix, so checkpoints load into the bare model."""

    def __init__(self, layers, strategy=None, comm_buffer_size=25, last_comm_buffer_size=1,
                 find_unused_parameters=False, group=None):
        super().__init__()
        if not isinstance(layers, Layer):
            raise TypeError("DataParallel: layers should be a paddle.nn.Layer, but got %s"
                            % type(layers).__name__)
        for name, v in (('comm_buffer_size', comm_buffer_size),
                        ('last_comm_buffer_size', last_comm_buffer_size)):
            if not isinstance(v, (int, float)) or v <= 0:
                raise ValueError("DataParallel: %s should be a positive number of MB, got %r"
                                 % (name, v))
        self._layers = layers
        if group is None and not is_initialized():
            init_parallel_env()
        self.group = group or default_group()
        self.find_unused_parameters = bool(find_unused_parameters)
        self.grad_need_sync = True
        self.nranks = self.group.nranks
        # the reducer's record of the last synchronised backward:
        # [(event, name or bucket index, time.perf_counter())]
        self.comm_trace = []
        sync_params_buffers(layers, self.group)
        self._params = self._trainable_params()
        self._buckets = _assign_buckets(self._params[::-1], last_comm_buffer_size * _MB,
                                        comm_buffer_size * _MB)
        self._bucket_of = {}
        for b in self._buckets:
            for p in b.params:
                self._bucket_of[id(p)] = b
        self._started = False
        # the hooks reach this wrapper weakly, and go when it goes: a model
        # that outlives its DataParallel trains alone again
        handles = [p._register_backward_hook(_hook_for(weakref.ref(self), p))
                   for p in self._params] if self.nranks > 1 and self.group.is_member() else []
        weakref.finalize(self, _remove_hooks, handles)

    def _trainable_params(self):
        seen, out = set(), []
        for p in self._layers.parameters():
            if not p.stop_gradient and id(p) not in seen:
                seen.add(id(p))
                out.append(p)
        return out

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate gradients locally: backward inside communicates nothing."""
        previous = self.grad_need_sync
        self.grad_need_sync = False
        try:
            yield
        finally:
            self.grad_need_sync = previous

    # ---- the reducer ---------------------------------------------------------
    def _grad_ready(self, param):
        if not self._started:
            self._started = True
            self.comm_trace = []
            autograd.add_backward_final_hook(self._finish_backward)
        self.comm_trace.append(('grad_ready', param.name, time.perf_counter()))
        bucket = self._bucket_of[id(param)]
        bucket.ready += 1
        if bucket.ready == len(bucket.params):
            self._start(bucket)
        for b in self._buckets:          # MPI progresses its requests when polled
            if b.pending is not None:
                b.pending.test()

    def _start(self, bucket):
        parts = []
        for p in bucket.params:
            g = p.grad
            parts.append(np.zeros(p.data.size, bucket.dtype) if g is None
                         else np.asarray(g.data, bucket.dtype).reshape(-1))
        bucket.buffer = be.wire_array(np.concatenate(parts))
        self.comm_trace.append(('allreduce_start', bucket.index, time.perf_counter()))
        bucket.pending = self.group.comm.start_all_reduce(bucket.buffer)

    def _finish_backward(self):
        self._started = False
        try:
            missing = [p for b in self._buckets if b.pending is None for p in b.params
                       if p.grad is None]
            if missing and not self.find_unused_parameters:
                raise RuntimeError(
                    "DataParallel: parameters %s got no gradient in this backward; pass "
                    "find_unused_parameters=True if some parameters are not used every step"
                    % [p.name for p in missing[:5]])
            for b in self._buckets:
                if b.pending is None:
                    self._start(b)
            for b in self._buckets:
                total = b.pending.wait()
                self._write_average(b, total)
            self.comm_trace.append(('allreduce_done', None, time.perf_counter()))
        finally:
            for b in self._buckets:
                b.reset()

    def _write_average(self, bucket, total):
        offset = 0
        for p in bucket.params:
            n = p.data.size
            avg = (total[offset:offset + n] / self.nranks).astype(p.data.dtype)
            offset += n
            avg = avg.reshape(p.data.shape)
            if p.grad is None:
                p._grad = wrap_array(avg)
            else:
                p.grad.data = avg

    # ---- checkpoints: the wrapped layer's names ---------------------------------
    def state_dict(self, destination=None, include_sublayers=True, structured_name_prefix='',
                   use_hook=True):
        return self._layers.state_dict(destination, include_sublayers, structured_name_prefix,
                                       use_hook)

    def set_state_dict(self, state_dict, use_structured_name=True):
        return self._layers.set_state_dict(state_dict, use_structured_name=use_structured_name)

    set_dict = set_state_dict
    load_dict = set_state_dict

    def scale_loss(self, loss):
        """Paddle 1.x API: the loss unchanged (gradients are averaged, not summed)."""
        return loss

    def apply_collective_grads(self):
        """Paddle 1.x API: gradients were already averaged by backward."""
